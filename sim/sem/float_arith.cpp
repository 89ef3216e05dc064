// Floating-point add, sub, mul, fma and mad (PTX ISA 9.7.3, 9.7.4, 9.7.5): f32, f64, f16, f16x2,
// bf16, bf16x2, f32x2 (sm_100) and the mixed-precision .f32.f16 / .f32.bf16 forms (sm_100).
// Which modifiers each type takes follows what ptxas accepts (see float_util.h for the messages).
#include <cmath>

#include "model/numerics/half_lanes.h"
#include "model/numerics/half_ops.h"
#include "model/tma/tma_unit.h"
#include "sim/sem/float_util.h"

namespace ptxsim {

namespace {

using namespace fsem;

// The operand format of one instruction.
enum class FKind : uint8_t { F32, F64, F16, F16x2, BF16, BF16x2, F32x2, MixF16, MixBF16 };

FKind kind_of(const Binder& b) {
  const bool x2 = b.has(".f32x2");
  if (x2) {
    if (b.type_count() != 0) bad_types(b);
    return FKind::F32x2;
  }
  if (b.type_count() == 2) {
    if (b.type(0) != DType::F32) bad_types(b);
    if (b.type(1) == DType::F16) return FKind::MixF16;
    if (b.type(1) == DType::BF16) return FKind::MixBF16;
    bad_types(b);
  }
  if (b.type_count() != 1) bad_types(b);
  switch (b.type(0)) {
    case DType::F32: return FKind::F32;
    case DType::F64: return FKind::F64;
    case DType::F16: return FKind::F16;
    case DType::F16x2: return FKind::F16x2;
    case DType::BF16: return FKind::BF16;
    case DType::BF16x2: return FKind::BF16x2;
    default: bad_types(b);
  }
}

bool is_mixed(FKind k) { return k == FKind::MixF16 || k == FKind::MixBF16; }
bool is_half(FKind k) { return k == FKind::F16 || k == FKind::F16x2; }
bool is_bhalf(FKind k) { return k == FKind::BF16 || k == FKind::BF16x2; }

void require_mixed_target(const Binder& b, FKind k) {
  if (!is_mixed(k)) return;
  std::string what = "Mixed-precision '" + base_name(b) + ".f32." + (k == FKind::MixF16 ? "f16" : "bf16") + "'";
  require_target(b, "sm_100", what);
  require_ptx(b, 86, what);
}

// Operand checks: the destination and every source have the format's width; f32 and f64 sources
// may be literals. In the mixed forms the sources listed in `half_srcs` are 16-bit.
void check_operands(Binder& b, FKind k, size_t nsrc, size_t half_srcs) {
  b.require_ops(nsrc + 1, nsrc + 1);
  switch (k) {
    case FKind::F32:
    case FKind::F64: {
      DType t = k == FKind::F32 ? DType::F32 : DType::F64;
      check_dst(b, 0, dtype_bits(t));
      for (size_t i = 1; i <= nsrc; ++i) check_src(b, i, t);
      return;
    }
    case FKind::F16:
    case FKind::BF16:
    case FKind::F16x2:
    case FKind::BF16x2:
    case FKind::F32x2: {
      uint32_t bits = k == FKind::F16 || k == FKind::BF16 ? 16 : k == FKind::F32x2 ? 64 : 32;
      check_dst(b, 0, bits);
      for (size_t i = 1; i <= nsrc; ++i) check_src_bits(b, i, bits);
      return;
    }
    case FKind::MixF16:
    case FKind::MixBF16:
      check_dst(b, 0, 32);
      for (size_t i = 1; i <= nsrc; ++i) {
        if (i <= half_srcs) check_src_bits(b, i, 16);
        else check_src(b, i, DType::F32);
      }
      return;
  }
}

// ---- f32 round-to-nearest fast paths ------------------------------------------------------------

void exec_add_f32_rn(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = f32_out(f32(a[l]) + f32(b[l])); });
}
void exec_sub_f32_rn(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = f32_out(f32(a[l]) - f32(b[l])); });
}
void exec_mul_f32_rn(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = f32_out(f32(a[l]) * f32(b[l])); });
}
// f16 add / sub / mul, .rn without modifiers: a whole warp through the host's vector conversions
// where it has them (model/numerics/half_lanes.h), else lane by lane.
template <num::HalfOp Op>
void exec_f16_rn(ExecCtx& c, const Instr& in, uint32_t mask) {
  static const num::HalfLanesFn warp = num::half_lanes(Op);
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  uint64_t* d = c.col(in.op[0]);
  if (mask == ~0u && warp) return warp(a, b, d);
  for_lanes(mask, [&](int l) {
    d[l] = Op == num::HalfOp::Add   ? num::add_f16(uint16_t(a[l]), uint16_t(b[l]))
           : Op == num::HalfOp::Sub ? num::sub_f16(uint16_t(a[l]), uint16_t(b[l]))
                                    : num::mul_f16(uint16_t(a[l]), uint16_t(b[l]));
  });
}
void exec_fma_f32_rn(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  const uint64_t* e = c.col(in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = f32_out(std::fma(f32(a[l]), f32(b[l]), f32(e[l]))); });
}
#if defined(__x86_64__) && defined(__GNUC__)
// The same with the host's fused multiply-add instruction instead of a call to the C library's
// fmaf per lane (which uses that instruction itself when the CPU has it): a portable build cannot
// assume it, so bind picks this one when the CPU reports FMA. Both round once, so the bits agree.
__attribute__((target("fma"))) void exec_fma_f32_rn_hw(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  const uint64_t* e = c.col(in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = f32_out(__builtin_fmaf(f32(a[l]), f32(b[l]), f32(e[l]))); });
}
ExecFn fma_f32_rn() { return __builtin_cpu_supports("fma") ? exec_fma_f32_rn_hw : exec_fma_f32_rn; }
#else
ExecFn fma_f32_rn() { return exec_fma_f32_rn; }
#endif

// ---- generic paths through the numerics library -------------------------------------------------

using M = const FMods&;
using u64 = uint64_t;

enum class Op2 : uint8_t { Add, Sub, Mul };

// Picks the library function for the operation O by format; each lambda is a constant template
// argument of the lane loop, so the dispatch costs nothing per lane.
template <Op2 O>
ExecFn pick2(FKind k) {
  constexpr bool add = O == Op2::Add, sub = O == Op2::Sub;
  switch (k) {
    case FKind::F32:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_f32(a, b, m.rnd, m.ftz, m.sat);
        else if constexpr (sub) return num::sub_f32(a, b, m.rnd, m.ftz, m.sat);
        else return num::mul_f32(a, b, m.rnd, m.ftz, m.sat);
      }>;
    case FKind::F64:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_f64(a, b, m.rnd);
        else if constexpr (sub) return num::sub_f64(a, b, m.rnd);
        else return num::mul_f64(a, b, m.rnd);
      }>;
    case FKind::F16:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_f16(a, b, m.rnd, m.ftz, m.sat);
        else if constexpr (sub) return num::sub_f16(a, b, m.rnd, m.ftz, m.sat);
        else return num::mul_f16(a, b, m.rnd, m.ftz, m.sat);
      }>;
    case FKind::F16x2:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_f16x2(a, b, m.rnd, m.ftz, m.sat);
        else if constexpr (sub) return num::sub_f16x2(a, b, m.rnd, m.ftz, m.sat);
        else return num::mul_f16x2(a, b, m.rnd, m.ftz, m.sat);
      }>;
    case FKind::BF16:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_bf16(a, b, m.rnd);
        else if constexpr (sub) return num::sub_bf16(a, b, m.rnd);
        else return num::mul_bf16(a, b, m.rnd);
      }>;
    case FKind::BF16x2:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_bf16x2(a, b, m.rnd);
        else if constexpr (sub) return num::sub_bf16x2(a, b, m.rnd);
        else return num::mul_bf16x2(a, b, m.rnd);
      }>;
    case FKind::F32x2:
      return exec2<[](u64 a, u64 b, M m) -> u64 {
        if constexpr (add) return num::add_f32x2(a, b, m.rnd, m.ftz);
        else if constexpr (sub) return num::sub_f32x2(a, b, m.rnd, m.ftz);
        else return num::mul_f32x2(a, b, m.rnd, m.ftz);
      }>;
    case FKind::MixF16:  // d = cvt(a) +/- c
      if constexpr (add) return exec2<[](u64 a, u64 c, M m) -> u64 { return num::add_f32_f16(a, c, m.rnd, m.sat); }>;
      if constexpr (sub) return exec2<[](u64 a, u64 c, M m) -> u64 { return num::sub_f32_f16(a, c, m.rnd, m.sat); }>;
      break;
    case FKind::MixBF16:
      if constexpr (add) return exec2<[](u64 a, u64 c, M m) -> u64 { return num::add_f32_bf16(a, c, m.rnd, m.sat); }>;
      if constexpr (sub) return exec2<[](u64 a, u64 c, M m) -> u64 { return num::sub_f32_bf16(a, c, m.rnd, m.sat); }>;
      break;
  }
  return nullptr;
}

// add / sub / mul: rounding .rn .rz .rm .rp (16-bit formats: .rn only); .ftz for f32, f16, f16x2,
// f32x2; .sat for f32, f16, f16x2 and the mixed forms.
template <Op2 O>
void bind_arith(Binder& b) {
  const FKind k = kind_of(b);
  if (O == Op2::Mul && is_mixed(k)) bad_types(b);
  require_mixed_target(b, k);
  const Rounding r = rounding_of(b);
  if (r.code != kRndNone && (!r.is_float() || r.code == kRndRna)) illegal_rounding(b);
  if ((is_half(k) || is_bhalf(k)) && r.code != kRndNone && r.code != kRndRn) illegal_rounding(b);
  allow(b, ".ftz", k == FKind::F32 || is_half(k) || k == FKind::F32x2);
  allow(b, ".sat", k == FKind::F32 || is_half(k) || is_mixed(k));
  check_operands(b, k, 2, is_mixed(k) ? 1 : 0);
  const uint8_t f = flags_of(b);
  store_mods(b, r.fp(), f);
  if (k == FKind::F32 && r.fp() == num::Round::RN && f == 0) {
    b.in.fn = O == Op2::Add ? exec_add_f32_rn : O == Op2::Sub ? exec_sub_f32_rn : exec_mul_f32_rn;
    return;
  }
  if (k == FKind::F16 && r.fp() == num::Round::RN && f == 0) {
    b.in.fn = O == Op2::Add   ? exec_f16_rn<num::HalfOp::Add>
              : O == Op2::Sub ? exec_f16_rn<num::HalfOp::Sub>
                              : exec_f16_rn<num::HalfOp::Mul>;
    return;
  }
  b.in.fn = pick2<O>(k);
}

ExecFn pick_fma(FKind k) {
  switch (k) {
    case FKind::F32:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_f32(a, b, c, m.rnd, m.ftz, m.sat); }>;
    case FKind::F64:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_f64(a, b, c, m.rnd); }>;
    case FKind::F16:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 {
        return num::fma_f16(a, b, c, m.rnd, m.ftz, m.sat, m.relu);
      }>;
    case FKind::F16x2:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 {
        return num::fma_f16x2(a, b, c, m.rnd, m.ftz, m.sat, m.relu);
      }>;
    case FKind::BF16:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_bf16(a, b, c, m.rnd, m.relu); }>;
    case FKind::BF16x2:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_bf16x2(a, b, c, m.rnd, m.relu); }>;
    case FKind::F32x2:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_f32x2(a, b, c, m.rnd, m.ftz); }>;
    case FKind::MixF16:  // d = cvt(a) * cvt(b) + c
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_f32_f16(a, b, c, m.rnd, m.sat); }>;
    case FKind::MixBF16:
      return exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_f32_bf16(a, b, c, m.rnd, m.sat); }>;
  }
  return nullptr;
}

// fma / mad: a rounding modifier is required (mad without one is the sm_1x form, which ptxas
// rejects for every current target; mad.rnd.f32 is fma.rnd.f32).
void bind_fma_like(Binder& b, bool is_mad) {
  const FKind k = kind_of(b);
  if (is_mad && k != FKind::F32 && k != FKind::F64) bad_types(b);
  require_mixed_target(b, k);
  const Rounding r = rounding_of(b);
  if (r.code == kRndNone) rounding_required(b);
  if (!r.is_float() || r.code == kRndRna) illegal_rounding(b);
  if (is_half(k) && r.code != kRndRn) illegal_rounding(b);
  if (b.has(".oob")) {
    if (!is_half(k) && !is_bhalf(k)) bad_types(b);
    if (r.code != kRndRn) illegal_rounding(b);
    allow(b, ".ftz", false);
    allow(b, ".sat", false);
    allow(b, ".relu", true);
    check_operands(b, k, 3, 0);
    // The result is +0 when a multiplicand is the TMA unit's out-of-bounds NaN (model/tma/tma_unit.h
    // gives the encoding an H200 fills with; num::fma_oob_* the rule it follows).
    store_mods(b, num::Round::RN, flags_of(b));
    switch (k) {
      case FKind::F16:
        b.in.fn = exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_oob_f16(a, b, c, model::tma::kOobNanF16, m.relu); }>;
        break;
      case FKind::F16x2:
        b.in.fn = exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_oob_f16x2(a, b, c, model::tma::kOobNanF16, m.relu); }>;
        break;
      case FKind::BF16:
        b.in.fn = exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_oob_bf16(a, b, c, model::tma::kOobNanBF16, m.relu); }>;
        break;
      default:
        b.in.fn = exec3<[](u64 a, u64 b, u64 c, M m) -> u64 { return num::fma_oob_bf16x2(a, b, c, model::tma::kOobNanBF16, m.relu); }>;
        break;
    }
    return;
  }
  allow(b, ".ftz", k == FKind::F32 || is_half(k) || k == FKind::F32x2);
  allow(b, ".sat", k == FKind::F32 || is_half(k) || is_mixed(k));
  allow(b, ".relu", is_half(k) || is_bhalf(k));
  exclusive(b, ".sat", ".relu");
  check_operands(b, k, 3, is_mixed(k) ? 2 : 0);
  const uint8_t f = flags_of(b);
  store_mods(b, r.fp(), f);
  if (k == FKind::F32 && r.fp() == num::Round::RN && f == 0) {
    b.in.fn = fma_f32_rn();
    return;
  }
  b.in.fn = pick_fma(k);
}

}  // namespace

void bind_fadd(Binder& b) { bind_arith<Op2::Add>(b); }
void bind_fsub(Binder& b) { bind_arith<Op2::Sub>(b); }
void bind_fmul(Binder& b) { bind_arith<Op2::Mul>(b); }
void bind_ffma(Binder& b) { bind_fma_like(b, false); }
void bind_fmad(Binder& b) { bind_fma_like(b, true); }

}  // namespace ptxsim
