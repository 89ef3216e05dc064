// Non-tensor bulk copies (PTX 9.7.9.25.4): cp.async.bulk, cp.reduce.async.bulk,
// cp.async.bulk.prefetch, and the bulk async-group instructions cp.async.bulk.commit_group /
// cp.async.bulk.wait_group (PTX 9.7.9.25.6).
//
// Copies into shared memory read their global source at issue and land, with complete-tx on the
// mbarrier (each multicast destination's own), when the engine completes them. Copies and
// reductions that read shared memory read it at completion; those with .bulk_group completion join
// the thread's open bulk async-group. Sizes must be multiples of 16 and addresses 16-byte aligned
// (faults otherwise).
#include <algorithm>
#include <cstring>
#include <memory>

#include "model/numerics/f32_ops.h"
#include "model/numerics/f64_ops.h"
#include "model/numerics/half_ops.h"
#include "model/numerics/minmax.h"
#include "sim/exec/racecheck.h"
#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace {

using sem::hex;

// in.a: direction; in.b: flags; in.c: RedOp; in.space: destination space.
enum Dir : uint8_t { kGlobalToShared, kSharedToCluster, kSharedToGlobal };
constexpr uint8_t kMulticast = 1, kHint = 2, kCpMask = 4;
enum class Red : uint8_t { Add, Min, Max, Inc, Dec, And, Or, Xor };

uint32_t size_of(ExecCtx& c, const Instr& in, int l, const char* what) {
  uint32_t n = uint32_t(c.col(in.op[2])[l]);
  if (n % 16) c.fault("error", std::string(what) + ": size " + std::to_string(n) + " is not a multiple of 16");
  return n;
}

void aligned16(ExecCtx& c, uint64_t a, const char* what, const char* which, int l) {
  if (a % 16)
    c.fault("misaligned address", std::string(what) + ": " + which + " address " + hex(a) + " (lane " +
                                      std::to_string(l) + ") is not 16-byte aligned");
}

// A global range [a, a+n): faults with the allocation named when it is not inside one.
uint8_t* global_range(ExecCtx& c, uint64_t a, uint32_t n, int l, Access acc) {
  if (n == 0) return nullptr;
  return c.mem(Space::Global, a, n, 1, l, acc);
}

// ---- cp.async.bulk ------------------------------------------------------------------------------

void issue_to_shared(ExecCtx& c, const Instr& in, int l) {
  Engine& e = *c.eng;
  const char* what = "cp.async.bulk";
  const uint32_t n = size_of(c, in, l, what);
  const uint64_t dst = sem::addr_of(c, in.op[0], l), src = sem::addr_of(c, in.op[1], l);
  aligned16(c, dst, what, "destination", l);
  aligned16(c, src, what, "source", l);
  auto [dcta, doff] = e.resolve_shared(c, in.space, dst, std::max(n, 1u), l);
  const uint64_t mb = sem::addr_of(c, in.op[3], l);
  if (mb & 7) c.fault("misaligned address", std::string(what) + ": mbarrier address " + hex(mb) + " is not 8-byte aligned");
  auto [bcta, boff] = e.resolve_shared(c, in.space, mb, 8, l);
  auto data = std::make_shared<std::vector<uint8_t>>(n);
  if (const uint8_t* p = global_range(c, src, n, l, Access::Read)) std::memcpy(data->data(), p, n);

  std::vector<std::pair<Cta*, Cta*>> dests;
  if (in.b & kMulticast) {
    const uint32_t m = uint16_t(c.col(in.op[4])[l]), nc = uint32_t(e.ctas.size());
    if (m >> nc)
      c.fault("error", std::string(what) + ": ctaMask " + hex(m) + " names CTA ranks beyond the cluster of " +
                           std::to_string(nc) + " CTA(s)");
    if (m == 0) e.warn(c, std::string(what) + ": ctaMask is 0, the multicast has no destination");
    for (uint32_t r = 0; r < nc; ++r)
      if (m >> r & 1) dests.emplace_back(e.ctas[r].get(), e.ctas[r].get());
  } else {
    dests.emplace_back(dcta, bcta);
  }
  for (auto& [d, b] : dests) {
    sem::tma::require_mbarrier(c, *b, boff, what);
    sem::tma::check_no_mbarrier(c, *d, doff, n, what);
  }
  for (auto& [d, b] : dests) {
    AsyncOp op;
    op.what = std::string(what) + " of " + std::to_string(n) + " bytes to shared address " + hex(doff) + " of CTA rank " +
              std::to_string(d->rank);
    op.bar = sem::tma::live_mbarrier(*b, boff);
    op.bytes = n;
    op.dst_cta = d;
    op.dst_off = doff;
    op.dst_bytes = n;
    op.line = in.line;
    Engine* ep = &e;
    Cta *dc = d, *bc = b;
    const uint32_t off = doff, bo = boff;
    const uint32_t line = in.line;
    op.complete = [ep, dc, bc, off, bo, data, what, line] {
      if (!data->empty()) std::memcpy(dc->smem.data() + off, data->data(), data->size());
      sem::tma::async_wrote(*dc, off, uint32_t(data->size()));
      sem::tma::complete_tx(*ep, *bc, bo, uint32_t(data->size()), what, line);
    };
    e.issue_async(std::move(op));
  }
}

void issue_to_cluster(ExecCtx& c, const Instr& in, int l) {
  Engine& e = *c.eng;
  const char* what = "cp.async.bulk.shared::cluster.shared::cta";
  const uint32_t n = size_of(c, in, l, what);
  const uint64_t dst = sem::addr_of(c, in.op[0], l), src = sem::addr_of(c, in.op[1], l);
  aligned16(c, dst, what, "destination", l);
  aligned16(c, src, what, "source", l);
  auto [dcta, doff] = e.resolve_shared(c, Space::SharedCluster, dst, std::max(n, 1u), l);
  auto [scta, soff] = e.resolve_shared(c, Space::Shared, src, std::max(n, 1u), l);
  if (dcta == scta)
    c.fault("error", std::string(what) + ": the destination " + hex(dst) +
                         " must be in the shared memory of another CTA of the cluster (use mapa)");
  const uint64_t mb = sem::addr_of(c, in.op[3], l);
  if (mb & 7) c.fault("misaligned address", std::string(what) + ": mbarrier address " + hex(mb) + " is not 8-byte aligned");
  auto [bcta, boff] = e.resolve_shared(c, Space::SharedCluster, mb, 8, l);
  sem::tma::require_mbarrier(c, *bcta, boff, what);
  sem::tma::check_no_mbarrier(c, *dcta, doff, n, what);
  sem::tma::check_generic_writes(c, *scta, soff, n, model::tma::Swizzle::kNone, what);
  AsyncOp op;
  op.what = std::string(what) + " of " + std::to_string(n) + " bytes to shared address " + hex(doff) + " of CTA rank " +
            std::to_string(dcta->rank);
  op.bar = sem::tma::live_mbarrier(*bcta, boff);
  op.bytes = n;
  op.dst_cta = dcta;
  op.dst_off = doff;
  op.dst_bytes = n;
  op.line = in.line;
  Engine* ep = &e;
  Cta *dc = dcta, *sc = scta, *bc = bcta;
  const uint32_t d_off = doff, s_off = soff, bo = boff;
  const uint32_t line = in.line;
  op.complete = [ep, dc, sc, bc, d_off, s_off, bo, n, what, line] {
    std::memmove(dc->smem.data() + d_off, sc->smem.data() + s_off, n);
    sem::tma::async_wrote(*dc, d_off, n);
    sem::tma::complete_tx(*ep, *bc, bo, n, what, line);
  };
  e.issue_async(std::move(op));
}

void issue_to_global(ExecCtx& c, const Instr& in, int l) {
  Engine& e = *c.eng;
  const char* what = "cp.async.bulk.global.shared::cta";
  const uint32_t n = size_of(c, in, l, what);
  const uint64_t dst = sem::addr_of(c, in.op[0], l), src = sem::addr_of(c, in.op[1], l);
  aligned16(c, dst, what, "destination", l);
  aligned16(c, src, what, "source", l);
  auto [scta, soff] = e.resolve_shared(c, Space::Shared, src, std::max(n, 1u), l);
  global_range(c, dst, n, l, Access::Write);
  uint16_t bm = 0xFFFF;
  if (in.b & kCpMask) bm = uint16_t(c.col(in.op[(in.b & kHint) ? 4 : 3])[l]);
  sem::tma::check_generic_writes(c, *scta, soff, n, model::tma::Swizzle::kNone, what);
  sem::tma::BulkTicket t = sem::tma::bulk_open(c, l);
  AsyncOp op;
  op.what = std::string(what) + " of " + std::to_string(n) + " bytes from shared address " + hex(soff);
  op.bytes = n;
  op.dst_cta = scta;
  op.dst_off = soff;
  op.dst_bytes = n;
  op.src_only = true;
  op.line = in.line;
  Engine* ep = &e;
  Cta* sc = scta;
  const uint32_t so = soff;
  const std::string w = std::string(what) + " (line " + std::to_string(in.line) + ")";
  op.complete = [ep, sc, so, dst, n, bm, t, w] {
    if (n) {
      uint8_t* p = ep->global.translate(dst, n);
      if (!p) throw KernelFault{w + ": global range " + hex(dst) + " is no longer allocated", "illegal address"};
      const uint8_t* s = sc->smem.data() + so;
      if (bm == 0xFFFF) std::memcpy(p, s, n);
      else
        for (uint32_t i = 0; i < n; ++i)
          if (bm >> (i % 16) & 1) p[i] = s[i];
    }
    sem::tma::bulk_done(*ep, t);
  };
  e.issue_async(std::move(op));
}

void exec_bulk_copy(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    switch (Dir(in.a)) {
      case kGlobalToShared: issue_to_shared(c, in, l); break;
      case kSharedToCluster: issue_to_cluster(c, in, l); break;
      case kSharedToGlobal: issue_to_global(c, in, l); break;
    }
  });
}

// ---- cp.reduce.async.bulk -----------------------------------------------------------------------

template <class T>
T ld(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void st(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

template <class T>
T int_op(Red op, T a, T b) {
  switch (op) {
    case Red::Add: return T(a + b);
    case Red::Min: return std::min(a, b);
    case Red::Max: return std::max(a, b);
    case Red::Inc: return a >= b ? T(0) : T(a + 1);
    case Red::Dec: return (a == 0 || a > b) ? b : T(a - 1);
    case Red::And: return T(a & b);
    case Red::Or: return T(a | b);
    case Red::Xor: return T(a ^ b);
  }
  return a;
}

// dst[i] = op(dst[i], src[i]) for every element of `n` bytes of type t (PTX 9.7.9.25.4.2).
void reduce_elements(Red op, DType t, uint8_t* d, const uint8_t* s, uint32_t n) {
  using model::num::Round;
  namespace num = model::num;
  const uint32_t es = dtype_bits(t) / 8;
  for (uint32_t i = 0; i + es <= n; i += es) {
    uint8_t* a = d + i;
    const uint8_t* b = s + i;
    switch (t) {
      case DType::U32: case DType::B32: st(a, int_op<uint32_t>(op, ld<uint32_t>(a), ld<uint32_t>(b))); break;
      case DType::S32: st(a, int_op<int32_t>(op, ld<int32_t>(a), ld<int32_t>(b))); break;
      case DType::U64: case DType::B64: st(a, int_op<uint64_t>(op, ld<uint64_t>(a), ld<uint64_t>(b))); break;
      case DType::S64: st(a, int_op<int64_t>(op, ld<int64_t>(a), ld<int64_t>(b))); break;
      case DType::F32:  // add only; "flushes subnormal inputs and results to sign-preserving zero"
        st(a, num::add_f32(ld<uint32_t>(a), ld<uint32_t>(b), Round::RN, true));
        break;
      case DType::F64: st(a, num::add_f64(ld<uint64_t>(a), ld<uint64_t>(b), Round::RN)); break;
      case DType::F16: {
        uint16_t x = ld<uint16_t>(a), y = ld<uint16_t>(b);
        st(a, op == Red::Add ? num::add_f16(x, y, Round::RN) : op == Red::Min ? num::min_f16(x, y) : num::max_f16(x, y));
        break;
      }
      case DType::BF16: {
        uint16_t x = ld<uint16_t>(a), y = ld<uint16_t>(b);
        st(a, op == Red::Add ? num::add_bf16(x, y, Round::RN) : op == Red::Min ? num::min_bf16(x, y) : num::max_bf16(x, y));
        break;
      }
      default: break;
    }
  }
}

void exec_bulk_reduce(ExecCtx& c, const Instr& in, uint32_t mask) {
  Engine& e = *c.eng;
  for_lanes(mask, [&](int l) {
    const bool to_global = in.a == kSharedToGlobal;
    const char* what = to_global ? "cp.reduce.async.bulk.global.shared::cta" : "cp.reduce.async.bulk.shared::cluster.shared::cta";
    const uint32_t n = size_of(c, in, l, what);
    const uint64_t dst = sem::addr_of(c, in.op[0], l), src = sem::addr_of(c, in.op[1], l);
    aligned16(c, dst, what, "destination", l);
    aligned16(c, src, what, "source", l);
    auto [scta, soff] = e.resolve_shared(c, Space::Shared, src, std::max(n, 1u), l);
    sem::tma::check_generic_writes(c, *scta, soff, n, model::tma::Swizzle::kNone, what);
    const Red op = Red(in.c);
    const DType t = in.types[0];
    Engine* ep = &e;
    Cta* sc = scta;
    const uint32_t so = soff;
    const std::string w = std::string(what) + " (line " + std::to_string(in.line) + ")";
    AsyncOp aop;
    aop.bytes = n;
    aop.line = in.line;
    if (to_global) {
      global_range(c, dst, n, l, Access::Atomic);
      sem::tma::BulkTicket tk = sem::tma::bulk_open(c, l);
      aop.what = std::string(what) + " of " + std::to_string(n) + " bytes from shared address " + hex(soff);
      aop.dst_cta = scta;
      aop.dst_off = soff;
      aop.dst_bytes = n;
      aop.src_only = true;
      aop.complete = [ep, sc, so, dst, n, op, t, tk, w] {
        if (n) {
          uint8_t* p = ep->global.translate(dst, n);
          if (!p) throw KernelFault{w + ": global range " + hex(dst) + " is no longer allocated", "illegal address"};
          reduce_elements(op, t, p, sc->smem.data() + so, n);
        }
        sem::tma::bulk_done(*ep, tk);
      };
    } else {
      auto [dcta, doff] = e.resolve_shared(c, Space::SharedCluster, dst, std::max(n, 1u), l);
      const uint64_t mb = sem::addr_of(c, in.op[3], l);
      if (mb & 7) c.fault("misaligned address", std::string(what) + ": mbarrier address " + hex(mb) + " is not 8-byte aligned");
      auto [bcta, boff] = e.resolve_shared(c, Space::SharedCluster, mb, 8, l);
      sem::tma::require_mbarrier(c, *bcta, boff, what);
      sem::tma::check_no_mbarrier(c, *dcta, doff, n, what);
      aop.what = std::string(what) + " of " + std::to_string(n) + " bytes to shared address " + hex(doff) +
                 " of CTA rank " + std::to_string(dcta->rank);
      aop.bar = sem::tma::live_mbarrier(*bcta, boff);
      aop.dst_cta = dcta;
      aop.dst_off = doff;
      aop.dst_bytes = n;
      Cta *dc = dcta, *bc = bcta;
      const uint32_t d_off = doff, bo = boff;
      const uint32_t line = in.line;
      aop.complete = [ep, sc, so, dc, d_off, bc, bo, n, op, t, what, line] {
        reduce_elements(op, t, dc->smem.data() + d_off, sc->smem.data() + so, n);
        sem::tma::async_wrote(*dc, d_off, n);
        sem::tma::complete_tx(*ep, *bc, bo, n, what, line);
      };
    }
    e.issue_async(std::move(aop));
  });
}

// ---- prefetch, commit_group, wait_group ---------------------------------------------------------

void exec_bulk_prefetch(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    const uint32_t n = uint32_t(c.col(in.op[1])[l]);
    if (n % 16) c.fault("error", "cp.async.bulk.prefetch: size " + std::to_string(n) + " is not a multiple of 16");
    aligned16(c, sem::addr_of(c, in.op[0], l), "cp.async.bulk.prefetch", "source", l);
  });
}

void exec_commit_group(ExecCtx& c, const Instr&, uint32_t mask) {
  for_lanes(mask, [&](int l) { c.warp->bulk[size_t(l)].committed++; });
}

void exec_wait_group(ExecCtx& c, const Instr& in, uint32_t mask) {
  // Wait until every committed group older than the N most recent has completed.
  bool wait = false;
  for_lanes(mask, [&](int l) {
    const BulkGroups& b = c.warp->bulk[size_t(l)];
    const uint64_t limit = b.committed > in.imm ? b.committed - in.imm : 0;  // groups below must be done
    for (auto& p : b.pending)
      if (p.first < limit) wait = true;
  });
  if (wait) {
    c.eng->block(c, WaitKind::BulkGroup, uint64_t(reinterpret_cast<uintptr_t>(c.warp)), 0);
    c.hold = true;
    return;
  }
  if (c.race) c.race->async_groups_acquire(c);
}

// ---- binders ------------------------------------------------------------------------------------

void mismatch(Binder& b) { b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) + "'"); }

void plain_addr(Binder& b, size_t i) {
  if (i >= b.op_count() || b.op_kind(i) != Operand::Kind::Addr || b.in.op[i].aux != kNoSlot) mismatch(b);
}

void size_operand(Binder& b, size_t i) {
  if (i >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[i], 32)) mismatch(b);
  if (b.op_kind(i) == Operand::Kind::Imm && b.in.op[i].imm % 16)
    b.error("Argument " + std::to_string(i) + " of instruction '" + b.form.opcode + "': unexpected value '" +
            std::to_string(b.in.op[i].imm) + "', expected to be multiple of 16");
}

size_t pos(Binder& b, const char* tok) { return sem::tma::mod_pos(b.src.opcode, tok); }

// Direction from the order of the state spaces written.
Dir direction(Binder& b) {
  auto bad = [&]() -> Dir { b.error("State space incorrect for instruction '" + std::string(b.form.opcode) + "'"); };
  const size_t g = pos(b, ".global"), cta = pos(b, ".shared::cta"), cl = pos(b, ".shared::cluster");
  const size_t np = std::string::npos;
  if (g != np && cl != np && cta == np) return cl < g ? kGlobalToShared : bad();
  if (g != np && cta != np && cl == np) return cta < g ? kGlobalToShared : kSharedToGlobal;
  if (cl != np && cta != np && g == np) return cl < cta ? kSharedToCluster : bad();
  return bad();
}

}  // namespace

void bind_bulk_copy(Binder& b) {
  const Dir d = direction(b);
  const bool mbar = b.has(".mbarrier::complete_tx::bytes"), group = b.has(".bulk_group");
  if (d == kSharedToGlobal ? !group : !mbar)
    b.error(".completion_mechanism modifier required for instruction 'cp.async.bulk'");
  if (d == kSharedToGlobal && mbar) b.error("Illegal modifier '.mbarrier::complete_tx::bytes' for instruction 'cp.async.bulk'");
  if (d != kSharedToGlobal && group) b.error("Illegal modifier '.bulk_group' for instruction 'cp.async.bulk'");
  const Program& p = b.dec.program();
  if (d == kGlobalToShared && pos(b, ".shared::cta") != std::string::npos && p.ptx_version < 86)
    b.error("Feature 'cp.async.bulk with destination state space as .shared::cta' requires PTX ISA .version 8.6 or later");
  const bool mc = b.has(".multicast::cluster"), hint = b.has(".L2::cache_hint"), cpm = b.has(".cp_mask");
  if (mc && !(d == kGlobalToShared && pos(b, ".shared::cluster") != std::string::npos))
    b.error("Illegal modifier '.multicast::cluster' for instruction 'cp.async.bulk'");
  if (hint && d == kSharedToCluster)
    b.error("Illegal modifier '.L2::cache_hint' for instruction 'cp.async.bulk' with '.shared::cluster.shared::cta'");
  plain_addr(b, 0);
  plain_addr(b, 1);
  size_operand(b, 2);
  size_t next = 3;
  if (d != kSharedToGlobal) plain_addr(b, next++);
  if (mc) {
    if (next >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[next], 16)) mismatch(b);
    ++next;
  }
  if (hint) {
    if (next >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[next], 64)) mismatch(b);
    ++next;
  }
  if (cpm) {
    if (next >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[next], 16)) mismatch(b);
    ++next;
  }
  if (next != b.op_count()) mismatch(b);
  b.in.a = d;
  b.in.b = uint8_t((mc ? kMulticast : 0) | (hint ? kHint : 0) | (cpm ? kCpMask : 0));
  b.in.space = d == kSharedToGlobal                                     ? Space::Global
               : d == kGlobalToShared && pos(b, ".shared::cta") != std::string::npos ? Space::Shared
                                                                                     : Space::SharedCluster;
  b.in.fn = exec_bulk_copy;
}

void bind_bulk_reduce(Binder& b) {
  const Dir d = direction(b);
  const char* name = "cp.reduce.async.bulk";
  if (d == kGlobalToShared) b.error(std::string("State space incorrect for instruction '") + name + "'");
  const bool mbar = b.has(".mbarrier::complete_tx::bytes"), group = b.has(".bulk_group");
  if (d == kSharedToGlobal ? !group : !mbar)
    b.error(std::string(".completion_mechanism modifier required for instruction '") + name + "'");
  static const std::pair<const char*, Red> ops[] = {{".add", Red::Add}, {".min", Red::Min}, {".max", Red::Max},
                                                    {".inc", Red::Inc}, {".dec", Red::Dec}, {".and", Red::And},
                                                    {".or", Red::Or},   {".xor", Red::Xor}};
  int nops = 0;
  Red op = Red::Add;
  std::string optok;
  for (auto& [tok, r] : ops)
    if (b.has(tok)) {
      op = r;
      optok = tok;
      ++nops;
    }
  if (nops != 1) b.error(std::string("Reduction operation is required for instruction '") + name + "'");
  if (b.type_count() != 1) b.error(std::string("Unexpected instruction types specified for '") + name + "'");
  const DType t = b.type(0);
  const bool global = d == kSharedToGlobal;
  bool ok = false;
  switch (op) {
    case Red::Add:
      ok = t == DType::U32 || t == DType::S32 || t == DType::U64 ||
           (global && (t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16));
      break;
    case Red::Min: case Red::Max:
      ok = t == DType::U32 || t == DType::S32 ||
           (global && (t == DType::U64 || t == DType::S64 || t == DType::F16 || t == DType::BF16));
      break;
    case Red::Inc: case Red::Dec: ok = t == DType::U32; break;
    case Red::And: case Red::Or: case Red::Xor: ok = t == DType::B32 || (global && t == DType::B64); break;
  }
  if (!ok)
    b.error("Incorrect type '." + std::string(dtype_name(t)) + "' for operation '" + optok + "' in instruction '" + name +
            "'" + (global ? "" : " with .shared::cluster destination"));
  const bool half = t == DType::F16 || t == DType::BF16;
  if (b.has(".noftz") && !(op == Red::Add && half)) b.error(std::string("Illegal modifier '.noftz' for instruction '") + name + "'");
  if (op == Red::Add && half && !b.has(".noftz"))
    b.error(std::string("Modifier '.noftz' required for instruction '") + name + "' with type '." + std::string(dtype_name(t)) +
            "' and operation '.add'");
  plain_addr(b, 0);
  plain_addr(b, 1);
  size_operand(b, 2);
  size_t next = 3;
  if (!global) plain_addr(b, next++);
  if (b.has(".L2::cache_hint")) {
    if (next >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[next], 64)) mismatch(b);
    ++next;
  }
  if (next != b.op_count()) mismatch(b);
  b.in.a = d;
  b.in.c = uint8_t(op);
  b.in.space = global ? Space::Global : Space::SharedCluster;
  b.in.fn = exec_bulk_reduce;
}

void bind_bulk_prefetch(Binder& b) {
  if (!b.has(".L2")) b.error(".level modifier required for instruction 'cp.async.bulk.prefetch'");
  if (!b.has(".global")) b.error("State space incorrect for instruction 'cp.async.bulk.prefetch'");
  plain_addr(b, 0);
  if (b.op_count() < 2 || !sem::tma::is_reg_or_imm(b.in.op[1], 32)) mismatch(b);
  if (b.op_kind(1) == Operand::Kind::Imm && b.in.op[1].imm % 16)
    b.error("Argument 1 of instruction 'cp.async.bulk.prefetch': unexpected value '" + std::to_string(b.in.op[1].imm) +
            "', expected to be multiple of 16");
  size_t next = 2;
  if (b.has(".L2::cache_hint")) {
    if (next >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[next], 64)) mismatch(b);
    ++next;
  }
  if (next != b.op_count()) mismatch(b);
  b.in.fn = exec_bulk_prefetch;
}

void bind_bulk_commit_group(Binder& b) {
  b.require_ops(0, 0);
  b.in.fn = exec_commit_group;
}

void bind_bulk_wait_group(Binder& b) {
  if (b.op_count() != 1 || b.op_kind(0) != Operand::Kind::Imm) mismatch(b);
  b.in.imm = uint64_t(b.in.op[0].imm);
  b.in.fn = exec_wait_group;
}

}  // namespace ptxsim
