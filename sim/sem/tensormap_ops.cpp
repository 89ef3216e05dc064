// Tensor maps on the device and the proxy fences (PTX 9.7.9.28 tensormap.replace, 9.7.13.16
// tensormap.cp_fenceproxy, 9.7.13.4 fence.proxy / membar.proxy).
//
// tensormap.replace rewrites one field through model::tmap::tensormap_replace, as a generic-proxy
// write of the object in .global or .shared::cta. The proxy model (docs/tensormap.md "Proxies in the
// engine"): fence.proxy.tensormap::generic.acquire [a], 128 snapshots the 128 bytes at `a` for the
// executing CTA, and a TMA operation using a map in global memory compares against that snapshot
// (sim/sem/tma_common.cpp). The fence never faults on its address: where no global allocation
// holds the 128 bytes (null, say) there is nothing to order and it does nothing. fence.proxy.async makes the CTA's generic shared-memory writes visible
// to the async proxy (clears the hazard tracking of bulk-copy sources).
#include <cstring>

#include "model/tensormap/replace.h"
#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace {

namespace tmap = model::tmap;
using sem::hex;

// ---- tensormap.replace --------------------------------------------------------------------------
// in.a: ReplaceField; in.b: 1 when the field takes an ordinal (in.imm); value operand index in.c.

void exec_replace(ExecCtx& c, const Instr& in, uint32_t mask) {
  const tmap::ReplaceField f = tmap::ReplaceField(in.a);
  for_lanes(mask, [&](int l) {
    const uint64_t a = sem::addr_of(c, in.op[0], l);
    uint8_t* p = c.mem(in.space, a, 128, 64, l, Access::Write);
    uint64_t v = c.col(in.op[in.c])[l];
    if (in.types[1] == DType::B32) v = uint32_t(v);
    auto r = tmap::tensormap_replace(p, f, uint32_t(in.imm), v);
    if (!r.ok) c.fault("error", "tensormap.replace" + std::string(tmap::replace_field_name(f)) + " at " + hex(a) + ": " + r.message);
  });
}

// ---- tensormap.cp_fenceproxy --------------------------------------------------------------------

void exec_cp_fenceproxy(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    const uint64_t dst = sem::addr_of(c, in.op[0], l), src = sem::addr_of(c, in.op[1], l);
    uint8_t buf[128];
    std::memcpy(buf, c.mem(Space::Shared, src, 128, 64, l, Access::Read), 128);
    std::memcpy(c.mem(Space::Global, dst, 128, 64, l, Access::Write), buf, 128);
    // The release half needs no state: the consumer's acquire fence snapshots what it sees.
  });
}

// ---- fence.proxy --------------------------------------------------------------------------------
// in.a: what the fence does.
enum FenceKind : uint8_t { kNop, kAsyncCta, kAsyncCluster, kTmapAcquire };

void exec_fence_proxy(ExecCtx& c, const Instr& in, uint32_t mask) {
  switch (FenceKind(in.a)) {
    case kNop: return;
    case kAsyncCta:
      if (mask) sem::tma::clear_generic_writes(*c.cta);
      return;
    case kAsyncCluster:
      if (mask)
        for (auto& cta : c.eng->ctas) sem::tma::clear_generic_writes(*cta);
      return;
    case kTmapAcquire:
      // Never a fault: the fence orders, it does not access (tma_common.cpp acquire_tensor_map).
      for_lanes(mask, [&](int l) { sem::tma::acquire_tensor_map(c, sem::addr_of(c, in.op[0], l), l); });
      return;
  }
}

const std::pair<const char*, tmap::ReplaceField> kFields[] = {
    {".global_address", tmap::ReplaceField::kGlobalAddress},
    {".rank", tmap::ReplaceField::kRank},
    {".box_dim", tmap::ReplaceField::kBoxDim},
    {".global_dim", tmap::ReplaceField::kGlobalDim},
    {".global_stride", tmap::ReplaceField::kGlobalStride},
    {".element_stride", tmap::ReplaceField::kElementStride},
    {".elemtype", tmap::ReplaceField::kElemType},
    {".interleave_layout", tmap::ReplaceField::kInterleaveLayout},
    {".swizzle_mode", tmap::ReplaceField::kSwizzleMode},
    {".swizzle_atomicity", tmap::ReplaceField::kSwizzleAtomicity},
    {".fill_mode", tmap::ReplaceField::kFillMode},
};

const char* kScopes[] = {".cta", ".cluster", ".gpu", ".sys"};

int scope_count(Binder& b) {
  int n = 0;
  for (const char* s : kScopes) n += b.has(s);
  return n;
}

}  // namespace

void bind_tensormap_replace(Binder& b) {
  if (!b.has(".tile")) b.error(".tile modifier required for instruction 'tensormap.replace'");
  int nf = 0;
  tmap::ReplaceField f{};
  std::string ftok;
  for (auto& [tok, fld] : kFields)
    if (b.has(tok)) {
      f = fld;
      ftok = tok;
      ++nf;
    }
  if (nf != 1) b.error("exactly one field modifier is required for instruction 'tensormap.replace'");
  if (b.type_count() != 2 || b.type(0) != DType::B1024)
    b.error(b.type_count() && b.type(0) == DType::B1024 ? "'tensormap.replace' needs a value type (.b32 or .b64)"
                                                          : "Tensormap size modifier required for instruction 'tensormap.replace'");
  const bool wide = f == tmap::ReplaceField::kGlobalAddress || f == tmap::ReplaceField::kGlobalStride;
  if (b.type(1) != (wide ? DType::B64 : DType::B32))
    b.error("Illegal modifier '" + ftok + "' for instruction 'tensormap.replace' with type '." +
            std::string(dtype_name(b.type(1))) + "'");
  if (b.has(".global") && b.has(".shared::cta")) b.error("State space incorrect for instruction 'tensormap.replace'");
  b.in.space = b.has(".global") ? Space::Global : b.has(".shared::cta") ? Space::Shared : Space::Generic;
  if (b.op_count() < 1 || b.op_kind(0) != Operand::Kind::Addr || b.in.op[0].aux != kNoSlot)
    b.error("Arguments mismatch for instruction 'tensormap.replace'");
  if (b.in.space == Space::Global)
    sem::check_symbol_space(b, 0, {Space::Global}, "'tensormap.replace.global' needs a .global address");
  else if (b.in.space == Space::Shared)
    sem::check_symbol_space(b, 0, {Space::Shared}, "'tensormap.replace.shared::cta' needs a .shared::cta address");
  else  // as ptxas: the variables that have a generic address
    sem::check_symbol_space(b, 0, {Space::Global, Space::Shared, Space::Local},
                            "'tensormap.replace' without a state space needs a generic address");
  if (b.in.space == Space::Generic) {  // a named variable means its generic address
    Operand& o = b.in.op[0];
    if (o.space == Space::Shared && !o.frame_rel) o.imm += int64_t(kSharedWindow);
  }
  const bool ord = tmap::replace_field_has_ordinal(f);
  b.require_ops(ord ? 3 : 2, ord ? 3 : 2);
  if (ord) {
    if (b.op_kind(1) != Operand::Kind::Imm) b.error("Arguments mismatch for instruction 'tensormap.replace'");
    const int64_t o = b.in.op[1].imm;
    if (o < 0 || o > 4)
      b.error("Argument 1 of instruction 'tensormap.replace': value '" + std::to_string(o) +
              "' expected to be in range [0..4] when " + ftok + " is specified");
    b.in.imm = uint64_t(o);
  }
  const size_t vi = ord ? 2 : 1;
  const Operand& v = b.in.op[vi];
  if (!sem::tma::is_reg_or_imm(v, wide ? 64 : 32) &&
      !(v.kind == Operand::Kind::Reg && (v.width == 32 || v.width == 64)))
    b.error("Arguments mismatch for instruction 'tensormap.replace'");
  // .field3: an immediate in the range of PTX Table 33 on this target.
  const Program& p = b.dec.program();
  auto field3 = [&](int64_t max, const char* what) {
    if (v.kind != Operand::Kind::Imm) b.error("Integer constant expression expected");
    if (v.imm < 0 || v.imm > max)
      b.error("Argument 1 of instruction 'tensormap.replace': value '" + std::to_string(v.imm) +
              "' expected to be in range [0.." + std::to_string(max) + "] when " + what + " is specified");
  };
  const bool sm100 = target_satisfies(p.target, "sm_100a|sm_101a|sm_110a|sm_120a|sm_100f|sm_110f|sm_120f");
  switch (f) {
    case tmap::ReplaceField::kElemType:
      field3(sm100 ? 15 : 12, ".elemtype");
      if (v.imm >= 13 && p.ptx_version < 87)
        b.error("Instruction 'tensormap.replace.elemtype with input value >= 13' requires PTX ISA .version 8.7 or later");
      break;
    case tmap::ReplaceField::kInterleaveLayout: field3(2, ".interleave_layout"); break;
    case tmap::ReplaceField::kSwizzleMode:
      field3(target_satisfies(p.target, "sm_103a") ? 4 : 3, ".swizzle_mode");
      if (v.imm == 4 && p.ptx_version < 88)
        b.error("Instruction 'tensormap.replace.swizzle_mode with input value == 4' requires PTX ISA .version 8.8 or later");
      break;
    case tmap::ReplaceField::kSwizzleAtomicity: field3(3, ".swizzle_atomicity"); break;
    case tmap::ReplaceField::kFillMode: field3(1, ".fill_mode"); break;
    default: break;
  }
  b.in.a = uint8_t(f);
  b.in.c = uint8_t(vi);
  b.in.fn = exec_replace;
}

void bind_tensormap_cp_fenceproxy(Binder& b) {
  const char* name = "tensormap.cp_fenceproxy";
  if (!b.has(".sync")) b.error(".sync modifier required for instruction 'tensormap.cp_fenceproxy'");
  if (!b.has(".aligned")) b.error(".aligned modifier required for instruction 'tensormap.cp_fenceproxy'");
  if (!b.has(".global") || !b.has(".shared::cta") || !b.has(".tensormap::generic") || !b.has(".release"))
    b.error("'tensormap.cp_fenceproxy' needs .global.shared::cta.tensormap::generic.release");
  if (sem::tma::mod_pos(b.src.opcode, ".global") > sem::tma::mod_pos(b.src.opcode, ".shared::cta"))
    b.error(std::string("State space incorrect for instruction '") + name + "'");
  if (scope_count(b) != 1) b.error(".scope modifier required for instruction 'tensormap.cp_fenceproxy'");
  b.require_ops(3, 3);
  for (size_t i = 0; i < 2; ++i)
    if (b.op_kind(i) != Operand::Kind::Addr || b.in.op[i].aux != kNoSlot)
      b.error(std::string("Arguments mismatch for instruction '") + name + "'");
  sem::check_symbol_space(b, 0, {Space::Global}, "the destination is a .global address");
  sem::check_symbol_space(b, 1, {Space::Shared}, "the source is a .shared::cta address");
  if (b.op_kind(2) != Operand::Kind::Imm) b.error(std::string("Arguments mismatch for instruction '") + name + "'");
  if (b.in.op[2].imm != 128)
    b.error("Argument 2 of instruction 'tensormap.cp_fenceproxy': unexpected value '" + std::to_string(b.in.op[2].imm) +
            "', expected to be 128");
  b.in.fn = exec_cp_fenceproxy;
}

void bind_fence_proxy(Binder& b) {
  b.in.fn = exec_fence_proxy;
  b.in.a = kNop;
  const bool tm = b.has(".tensormap::generic"), ag = b.has(".async::generic");
  const bool rel = b.has(".release"), acq = b.has(".acquire");
  const int scopes = scope_count(b);
  if (tm || ag) {  // uni-directional
    if (rel == acq) b.error(".acquire/.release modifier required for instruction 'fence.proxy'");
    if (b.has(".alias") || b.has(".async") || b.has(".global") || b.has(".shared::cta") || b.has(".shared::cluster") ||
        (tm && ag))
      b.error("Illegal proxy kind combination for instruction 'fence.proxy'");
    if (scopes != 1) b.error(".scope modifier required for instruction 'fence.proxy'");
    if (ag) {
      if (!b.has(".cluster")) b.error(".cluster modifier required for instruction 'fence.proxy'");
      const bool rcta = b.has(".sync_restrict::shared::cta"), rcl = b.has(".sync_restrict::shared::cluster");
      if (rel ? !rcta || rcl : !rcl || rcta)
        b.error(std::string(rel ? ".sync_restrict::shared::cta" : ".sync_restrict::shared::cluster") +
                " modifier required for instruction 'fence.proxy'");
      b.require_ops(0, 0);
      // Release of the CTA's shared memory from the generic proxy to the async proxy.
      if (rel) b.in.a = kAsyncCta;
      return;
    }
    if (b.has(".sync_restrict::shared::cta") || b.has(".sync_restrict::shared::cluster"))
      b.error("Illegal modifier '.sync_restrict' for instruction 'fence.proxy'");
    if (rel) {
      if (b.op_count() != 0) b.error(".release modifier required for instruction 'fence.proxy' with 0 arguments");
      return;
    }
    if (b.op_count() != 2) b.error(".acquire modifier required for instruction 'fence.proxy' with 2 arguments");
    if (b.op_kind(0) != Operand::Kind::Addr || b.in.op[0].aux != kNoSlot || b.op_kind(1) != Operand::Kind::Imm)
      b.error("Arguments mismatch for instruction 'fence.proxy'");
    if (b.in.op[1].imm != 128)
      b.error("Argument 1 of instruction 'fence.proxy': unexpected value '" + std::to_string(b.in.op[1].imm) +
              "', expected to be 128");
    b.in.a = kTmapAcquire;
    return;
  }
  // Bi-directional: .alias or .async{.global,.shared::cta,.shared::cluster}.
  if (rel || acq || scopes || b.has(".sync_restrict::shared::cta") || b.has(".sync_restrict::shared::cluster"))
    b.error("Illegal modifier '" + std::string(rel ? ".release" : acq ? ".acquire" : scopes ? "scope" : ".sync_restrict") +
            "' for instruction 'fence.proxy'");
  const bool alias = b.has(".alias"), async = b.has(".async");
  if (alias == async) b.error(".proxykind modifier required for instruction 'fence.proxy'");
  const int spaces = b.has(".global") + b.has(".shared::cta") + b.has(".shared::cluster");
  if (alias && spaces) b.error("Illegal state space for instruction 'fence.proxy' with '.alias'");
  if (spaces > 1) b.error("State space incorrect for instruction 'fence.proxy'");
  b.require_ops(0, 0);
  if (async) b.in.a = b.has(".global") ? kNop : b.has(".shared::cluster") ? kAsyncCluster : kAsyncCta;
}

}  // namespace ptxsim
