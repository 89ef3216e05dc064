// What the tcgen05 semantics files (sim/sem/tcgen05*.cpp) share: the CTA's tcgen05 state, the
// asynchronous pipe, the CTA pair of a .cta_group::2 operation, and binder helpers. Defined in
// sim/sem/tcgen05.cpp.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/exec/engine.h"
#include "sim/exec/tcgen05_state.h"

namespace ptxsim::sem::tcgen05 {

// The CTA's tcgen05 state, created on first use.
Tcgen05Cta& state(ExecCtx& c);
// Fixes (or checks) the CTA's .cta_group; faults naming `what` otherwise.
void use_cta_group(ExecCtx& c, const char* what, unsigned cta_group);
// Queues `work` behind every earlier asynchronous tcgen05 operation of the issuing CTA.
void enqueue(ExecCtx& c, const Instr& in, std::string what, std::function<void()> work);
// Drops the hazard records that are completed and committed.
void forget_settled(Tcgen05Cta& st);
// tcgen05.dealloc of columns [column, column + ncols): "columns [a, b) include <the first unsettled
// operation's cells> ... before freeing them" if an asynchronous operation not yet completed and
// committed uses them (PTX 9.7.16.6: freeing them under it is undefined).
std::optional<std::string> columns_in_use(const Tcgen05Cta& st, uint32_t column, uint32_t ncols);
// The CTAs a .cta_group::N operation touches: this one, or its pair (even CTA first). Faults naming
// `what` if the peer is not in the cluster; cta_pair also if a CTA has no Tensor Memory state yet.
std::vector<Cta*> cta_group_ctas(ExecCtx& c, unsigned cta_group, const std::string& what);
std::vector<Cta*> cta_pair(ExecCtx& c, unsigned cta_group, const std::string& what);

// The value of a 32-bit operand that every active thread of the warp must give alike (faults
// naming `what` otherwise).
uint32_t uniform_u32(ExecCtx& c, const Operand& o, uint32_t mask, const char* what);
// .cta_group::2 alloc (kind 1), dealloc (2) and relinquish_alloc_permit (3): one warp in each CTA of
// the pair performs them together (tcgen05_pair_alloc.cpp).
void exec_pair_alloc_op(ExecCtx& c, const Instr& in, uint32_t mask, uint8_t kind);
// For the deadlock report: what a warp blocked in a tcgen05 alloc / pair operation waits for.
std::string describe_wait(const Cta& cta, uint64_t obj);

// Binder helpers: the .cta_group qualifier (required, one), and an operand-shape check in ptxas's
// words ("Arguments mismatch for instruction '...': <what>").
unsigned cta_group(Binder& b);
void expect(Binder& b, bool ok, const std::string& what);

}  // namespace ptxsim::sem::tcgen05
