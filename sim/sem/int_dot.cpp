// Integer dot products (PTX ISA 9.7.1.23-24): dp4a and dp2a.{lo,hi}, every .atype/.btype signedness.
//   dp4a: d = c + Σ a.byte[i] * b.byte[i]                       (i = 0..3)
//   dp2a: d = c + Σ a.half[i] * b.byte[s + i], s = 0 (.lo) or 2 (.hi)  (i = 0..1)
// Elements are sign- or zero-extended as their type says; c and d are .u32 when both types are
// .u32, else .s32; the sum wraps modulo 2^32.
#include "sim/sem/lane_drivers.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {
void int_dst(Binder& b, size_t i, uint32_t bits, bool sink_ok);
void int_src(Binder& b, size_t i, uint32_t bits);
}  // namespace sem

namespace {

using sem::SrcColumn;
using sem::src_column;

// Element i of `bits` width from v, extended to 64 bits.
template <bool Signed, uint32_t Bits>
inline int64_t elem(uint64_t v, uint32_t i) {
  uint64_t e = (v >> (Bits * i)) & ((1ull << Bits) - 1);
  return Signed ? int64_t(sem::sext(e, Bits)) : int64_t(e);
}

// Template arguments: a signed, b signed, dp2a (false: dp4a), .hi.
template <bool As, bool Bs, bool Dp2, bool Hi>
void exec_dp(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), acc = src_column(c, in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    uint32_t sum = uint32_t(acc[l]);
    if constexpr (!Dp2) {
      for (uint32_t i = 0; i < 4; ++i) sum += uint32_t(elem<As, 8>(a[l], i) * elem<Bs, 8>(b[l], i));
    } else {
      for (uint32_t i = 0; i < 2; ++i) sum += uint32_t(elem<As, 16>(a[l], i) * elem<Bs, 8>(b[l], (Hi ? 2 : 0) + i));
    }
    d[l] = (As || Bs) ? uint64_t(int64_t(int32_t(sum))) : uint64_t(sum);
  });
}

template <bool Dp2, bool Hi>
ExecFn pick(bool as, bool bs) {
  if (as) return bs ? &exec_dp<true, true, Dp2, Hi> : &exec_dp<true, false, Dp2, Hi>;
  return bs ? &exec_dp<false, true, Dp2, Hi> : &exec_dp<false, false, Dp2, Hi>;
}

void check(Binder& b) {
  if (b.type_count() != 2) b.error("'" + b.src.opcode + "' needs two type modifiers (.atype.btype)");
  b.require_ops(4, 4);
  sem::int_dst(b, 0, 32, true);
  for (size_t i = 1; i < 4; ++i) sem::int_src(b, i, 32);
}

}  // namespace

void bind_int_dp4a(Binder& b) {
  check(b);
  b.in.fn = pick<false, false>(b.type(0) == DType::S32, b.type(1) == DType::S32);
}

void bind_int_dp2a(Binder& b) {
  check(b);
  bool lo = b.has(".lo"), hi = b.has(".hi");
  if (lo == hi) b.error("'" + b.src.opcode + "' needs exactly one of .lo, .hi");
  bool as = b.type(0) == DType::S32, bs = b.type(1) == DType::S32;
  b.in.fn = hi ? pick<true, true>(as, bs) : pick<true, false>(as, bs);
}

}  // namespace ptxsim
