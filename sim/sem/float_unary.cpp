// One-operand floating-point instructions and friends: abs, neg (f32, f64, f16, f16x2, bf16,
// bf16x2), ex2, lg2, sin, cos, tanh (.approx), copysign and testp (PTX ISA 9.7.3, 9.7.4).
#include "sim/sem/float_util.h"

namespace ptxsim {

namespace {

using namespace fsem;
using M = const FMods&;
using u64 = uint64_t;

DType one_type(const Binder& b) {
  if (b.type_count() != 1) bad_types(b);
  return b.type(0);
}

uint32_t width_of(DType t) { return dtype_bits(t); }

// d, a with both of type t (f32/f64 sources may be literals).
void check_unary(Binder& b, DType t) {
  b.require_ops(2, 2);
  check_dst(b, 0, width_of(t));
  if (t == DType::F32 || t == DType::F64) check_src(b, 1, t);
  else check_src_bits(b, 1, width_of(t));
}

void require_approx(const Binder& b) {
  if (b.rounding() != kRndNone) illegal_rounding(b);
  if (!b.has(".approx")) b.error("Modifier '.approx' required for instruction '" + base_name(b) + "'");
}

void bind_abs_neg(Binder& b, bool neg) {
  const DType t = one_type(b);
  const bool ftz_ok = t == DType::F32 || t == DType::F16 || t == DType::F16x2;
  allow(b, ".ftz", ftz_ok);
  check_unary(b, t);
  store_mods(b, num::Round::RN, flags_of(b));
  ExecFn f = nullptr;
  switch (t) {
    case DType::F32:
      f = neg ? exec1<[](u64 a, M m) -> u64 { return num::neg_f32(a, m.ftz); }>
              : exec1<[](u64 a, M m) -> u64 { return num::abs_f32(a, m.ftz); }>;
      break;
    case DType::F64:
      f = neg ? exec1<[](u64 a, M) -> u64 { return num::neg_f64(a); }>
              : exec1<[](u64 a, M) -> u64 { return num::abs_f64(a); }>;
      break;
    case DType::F16:
      f = neg ? exec1<[](u64 a, M m) -> u64 { return num::neg_f16(a, m.ftz); }>
              : exec1<[](u64 a, M m) -> u64 { return num::abs_f16(a, m.ftz); }>;
      break;
    case DType::F16x2:
      f = neg ? exec1<[](u64 a, M m) -> u64 { return num::neg_f16x2(a, m.ftz); }>
              : exec1<[](u64 a, M m) -> u64 { return num::abs_f16x2(a, m.ftz); }>;
      break;
    case DType::BF16:
      f = neg ? exec1<[](u64 a, M) -> u64 { return num::neg_bf16(a); }>
              : exec1<[](u64 a, M) -> u64 { return num::abs_bf16(a); }>;
      break;
    case DType::BF16x2:
      f = neg ? exec1<[](u64 a, M) -> u64 { return num::neg_bf16x2(a); }>
              : exec1<[](u64 a, M) -> u64 { return num::abs_bf16x2(a); }>;
      break;
    default: bad_types(b);
  }
  b.in.fn = f;
}

enum class Fn1 : uint8_t { Ex2, Lg2, Sin, Cos, Tanh };

}  // namespace

void bind_fabs(Binder& b) { bind_abs_neg(b, false); }
void bind_fneg(Binder& b) { bind_abs_neg(b, true); }

// ex2.approx{.ftz}.f32, ex2.approx.{f16,f16x2}, ex2.approx.ftz.{bf16,bf16x2}.
void bind_ex2(Binder& b) {
  require_approx(b);
  const DType t = one_type(b);
  const bool bf = t == DType::BF16 || t == DType::BF16x2;
  if (bf && !b.has(".ftz")) b.error("Modifier '.ftz' required for instruction 'ex2' with type ." + std::string(dtype_name(t)));
  allow(b, ".ftz", t == DType::F32 || bf);
  check_unary(b, t);
  store_mods(b, num::Round::RN, flags_of(b));
  switch (t) {
    case DType::F32: b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::ex2_approx_f32(a, m.ftz); }>; break;
    case DType::F16: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::ex2_approx_f16(a); }>; break;
    case DType::F16x2: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::ex2_approx_f16x2(a); }>; break;
    case DType::BF16: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::ex2_approx_ftz_bf16(a); }>; break;
    case DType::BF16x2: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::ex2_approx_ftz_bf16x2(a); }>; break;
    default: bad_types(b);
  }
}

// lg2, sin, cos: .approx{.ftz}.f32 only.
static void bind_f32_approx(Binder& b, Fn1 fn) {
  require_approx(b);
  if (one_type(b) != DType::F32) bad_types(b);
  check_unary(b, DType::F32);
  store_mods(b, num::Round::RN, flags_of(b));
  switch (fn) {
    case Fn1::Lg2: b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::lg2_approx_f32(a, m.ftz); }>; break;
    case Fn1::Sin: b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::sin_approx_f32(a, m.ftz); }>; break;
    default: b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::cos_approx_f32(a, m.ftz); }>; break;
  }
}

void bind_lg2(Binder& b) { bind_f32_approx(b, Fn1::Lg2); }
void bind_sin(Binder& b) { bind_f32_approx(b, Fn1::Sin); }
void bind_cos(Binder& b) { bind_f32_approx(b, Fn1::Cos); }

// tanh.approx.{f32,f16,f16x2,bf16,bf16x2} (no .ftz).
void bind_tanh(Binder& b) {
  require_approx(b);
  const DType t = one_type(b);
  check_unary(b, t);
  store_mods(b, num::Round::RN, 0);
  switch (t) {
    case DType::F32: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::tanh_approx_f32(a); }>; break;
    case DType::F16: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::tanh_approx_f16(a); }>; break;
    case DType::F16x2: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::tanh_approx_f16x2(a); }>; break;
    case DType::BF16: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::tanh_approx_bf16(a); }>; break;
    case DType::BF16x2: b.in.fn = exec1<[](u64 a, M) -> u64 { return num::tanh_approx_bf16x2(a); }>; break;
    default: bad_types(b);
  }
}

// copysign.{f32,f64} d, a, b: the value of b with the sign of a.
void bind_copysign(Binder& b) {
  const DType t = one_type(b);
  if (t != DType::F32 && t != DType::F64) bad_types(b);
  b.require_ops(3, 3);
  check_dst(b, 0, width_of(t));
  check_src(b, 1, t);
  check_src(b, 2, t);
  if (t == DType::F32) b.in.fn = exec2<[](u64 a, u64 c, M) -> u64 { return num::copysign_f32(a, c); }>;
  else b.in.fn = exec2<[](u64 a, u64 c, M) -> u64 { return num::copysign_f64(a, c); }>;
}

namespace {

template <num::TestpOp Op, bool F64>
void exec_testp(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  uint64_t* p = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    if constexpr (F64) p[l] = num::testp_f64(Op, a[l]) ? 1 : 0;
    else p[l] = num::testp_f32(Op, uint32_t(a[l])) ? 1 : 0;
  });
}

template <bool F64>
ExecFn pick_testp(num::TestpOp op) {
  switch (op) {
    case num::TestpOp::Finite: return exec_testp<num::TestpOp::Finite, F64>;
    case num::TestpOp::Infinite: return exec_testp<num::TestpOp::Infinite, F64>;
    case num::TestpOp::Number: return exec_testp<num::TestpOp::Number, F64>;
    case num::TestpOp::NotANumber: return exec_testp<num::TestpOp::NotANumber, F64>;
    case num::TestpOp::Normal: return exec_testp<num::TestpOp::Normal, F64>;
    case num::TestpOp::Subnormal: return exec_testp<num::TestpOp::Subnormal, F64>;
  }
  return nullptr;
}

}  // namespace

// testp.op.{f32,f64} p, a.
void bind_testp(Binder& b) {
  const DType t = one_type(b);
  if (t != DType::F32 && t != DType::F64) bad_types(b);
  static const std::pair<const char*, num::TestpOp> ops[] = {
      {".finite", num::TestpOp::Finite}, {".infinite", num::TestpOp::Infinite},
      {".number", num::TestpOp::Number}, {".notanumber", num::TestpOp::NotANumber},
      {".normal", num::TestpOp::Normal}, {".subnormal", num::TestpOp::Subnormal}};
  int found = -1;
  for (int i = 0; i < 6; ++i)
    if (b.has(ops[i].first)) {
      if (found >= 0) b.error("testp takes exactly one test (" + std::string(ops[found].first) + " and " + ops[i].first + " given)");
      found = i;
    }
  // ptxas also accepts testp without a test (and emits the same code for .f32 and .f64); the ISA
  // does not define it.
  if (found < 0) b.unimplemented("testp without .finite/.infinite/.number/.notanumber/.normal/.subnormal is undefined");
  b.require_ops(2, 2);
  check_dst(b, 0, 1);
  check_src(b, 1, t);
  b.in.fn = t == DType::F64 ? pick_testp<true>(ops[found].second) : pick_testp<false>(ops[found].second);
}

}  // namespace ptxsim
