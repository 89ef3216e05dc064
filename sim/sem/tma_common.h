// Services shared by the TMA / bulk-copy / tensormap semantics (tma.cpp, bulk_copy.cpp,
// tensormap_ops.cpp): reading a tensor map through the tensormap proxy, bulk async-groups, the
// generic-proxy write hazard, and complete-tx on an mbarrier when an operation finishes.
#pragma once
#include <cstdint>
#include <string>

#include "model/tensormap/tensormap.h"
#include "model/tma/swizzle.h"
#include "sim/exec/engine.h"
#include "sim/sem/sem_util.h"

namespace ptxsim::sem::tma {

// Position of modifier `tok` (".global") in the opcode as written, or npos. Used to tell .dst from
// .src, which the modifier set cannot.
size_t mod_pos(const std::string& opcode, std::string_view tok);

// Value of extra element i of an address operand (`[tmap, {c0, c1}]`) or of vector operand o.
uint64_t elem_value(const ExecCtx& c, const Operand& o, uint32_t i, int lane);
// Binder checks: an operand that is a register of `bits` bits or an immediate.
bool is_reg_or_imm(const Operand& o, uint32_t bits);

// The tensor map at the generic address operand o holds for lane l, decoded and validated (an invalid
// descriptor is a fault naming the field; a .param-space address, what `mov.u64 %rd, param` gives,
// is a "misaligned address" fault, as on an H200: the generic address is cvta.param's). A map in global memory (not a .const variable) is read
// through the tensormap proxy as ptxsim models it (docs/tensormap.md "Proxies in the engine"):
// without an acquire fence of this CTA it warns and uses the current bytes; when the bytes changed
// since the last acquire it warns and uses the acquired copy. `where` receives the address.
model::tmap::TensorMap read_tensor_map(ExecCtx& c, const Operand& o, int l, uint64_t* where = nullptr);

// Snapshot of the tensor map at global address `addr` for the executing CTA (the acquire fence).
// Never faults: where the 128 bytes are not inside one global allocation (null, the .param window,
// an unallocated address) it does nothing; a shared- or local-window address also warns.
void acquire_tensor_map(ExecCtx& c, uint64_t addr, int l);

// Bulk async-groups. An operation with .bulk_group completion joins the thread's open group.
struct BulkTicket {
  Warp* warp = nullptr;
  uint32_t lane = 0;
  uint64_t group = 0;
};
BulkTicket bulk_open(ExecCtx& c, int lane);
void bulk_done(Engine& e, const BulkTicket& t);

// Warns when the async proxy is about to read shared bytes [off, off+bytes) of `cta` (placed
// through swizzle `sw`) that the generic proxy wrote with no fence.proxy.async since.
void check_generic_writes(ExecCtx& c, Cta& cta, uint32_t off, uint32_t bytes, model::tma::Swizzle sw,
                          std::string_view what);
// Faults when an asynchronous write of shared bytes [off, off+bytes) of `cta` would overwrite a
// live mbarrier (undefined behaviour on hardware).
void check_no_mbarrier(ExecCtx& c, Cta& cta, uint32_t off, uint32_t bytes, std::string_view what);
// fence.proxy.async: generic writes so far are visible to the async proxy.
void clear_generic_writes(Cta& cta);
// An async-proxy write of shared bytes [off, off+bytes) of `cta` has landed (called at completion by
// every async-proxy writer of shared memory: TMA loads, cp.async.bulk into shared memory,
// cp.reduce.async.bulk into shared::cluster, the clusterlaunchcontrol response): the generic-proxy
// writes it overwrote no longer matter to async-proxy readers (Cta::generic_writes).
void async_wrote(Cta& cta, uint32_t off, uint32_t bytes);

// The live mbarrier at shared::cta offset `off` of `cta`, or null.
MbarrierSlot* live_mbarrier(Cta& cta, uint32_t off);
// Faults (at issue) unless `cta` has a live mbarrier at `off`.
void require_mbarrier(ExecCtx& c, Cta& cta, uint32_t off, std::string_view what);
// The complete-tx of a finished operation `what`, issued at `line` (throws KernelFault: there is no
// instruction context).
void complete_tx(Engine& e, Cta& cta, uint32_t off, uint32_t bytes, std::string_view what, uint32_t line);

// "CTA rank r" or "this CTA" for messages.
std::string cta_name(const ExecCtx& c, const Cta& cta);

}  // namespace ptxsim::sem::tma
