#include "model/numerics/approx.h"

#include <bit>
#include <cmath>

#include "model/numerics/bits.h"
#include "model/numerics/fp_formats.h"
#include "model/numerics/softfloat.h"

namespace ptxsim::model::num {

namespace {

// 1.11.20: the upper word of an f64.
constexpr FloatFormat kF64Hi{11, 20, 1023, Special::IEEE, true};

uint32_t in(uint32_t a, bool ftz) { return ftz ? f32_flush(a) : a; }

// Round a double to f32 (nearest-even, exact IEEE conversion) and apply the output rules.
uint32_t out(double v, bool ftz) {
  uint32_t r = static_cast<uint32_t>(sf_convert(kF32, kF64, f64_bits(v), Round::RN).bits);
  if (std::isnan(v)) r = kF32CanonicalNaN;
  return ftz ? f32_flush(r) : r;
}

double f32d(uint32_t a) { return static_cast<double>(f32_from(a)); }

template <class Fn>
uint32_t lanes1(uint32_t a, Fn fn) {
  return pack16(fn(hi16(a)), fn(lo16(a)));
}

uint16_t to_f16(double v) {
  if (std::isnan(v)) return kF16CanonicalNaN;
  return f64_to_f16(f64_bits(v), Round::RN);
}
uint16_t to_bf16(double v) {
  if (std::isnan(v)) return kBF16CanonicalNaN;
  return f64_to_bf16(f64_bits(v), Round::RN);
}

// Upper-word reciprocal / rsqrt for the .ftz.f64 forms. `rsqrt` selects the function.
uint64_t approx_ftz_f64(uint64_t a, bool rsqrt) {
  const uint32_t hi = static_cast<uint32_t>(a >> 32);
  Unpacked u = unpack(kF64Hi, hi);
  const bool neg = u.neg;
  const uint64_t sign = neg ? kF64Sign : 0;
  if (u.cls == Unpacked::NaN) return kF64ApproxFtzNaN;
  if (u.cls == Unpacked::Zero || (u.cls == Unpacked::Finite && ((hi >> 20) & 0x7FF) == 0)) {
    return sign | kF64Inf;  // +-0 and (flushed) subnormals -> +-Inf, for rcp and rsqrt alike
  }
  if (rsqrt && neg) return kF64ApproxFtzNaN;  // -normal, -Inf
  if (u.cls == Unpacked::Inf) return sign;     // 1/+-Inf = +-0, rsqrt(+Inf) = +0
  const long double t = std::ldexp(static_cast<long double>(u.mant), u.exp);
  const long double r = rsqrt ? 1.0L / std::sqrt(t) : 1.0L / t;
  // long double has 64 significand bits on x86-64 and 113 on aarch64, so rd can differ by an ulp
  // between hosts; the 20-bit result below does not (checked for all 2^21 significands and
  // exponent parities against binary128).
  const double rd = static_cast<double>(r);
  uint64_t w = sf_convert(kF64Hi, kF64, f64_bits(rd), Round::RN).bits;
  if (neg) w |= 0x80000000u;  // 1/x keeps the sign of x (rsqrt of a negative returned above)
  if (((w >> 20) & 0x7FF) == 0) w &= 0x80000000u;  // subnormal result -> signed zero
  return w << 32;
}

// 1/sqrt(x) rounded once to nearest-even, for a positive finite x given as m * 2^e (m > 0), in
// integer arithmetic so that every host gives the same bits: rounding through long double (64
// significand bits on x86-64, 113 on aarch64) made about 1 input in 4000 differ by an ulp.
uint64_t rsqrt_f64_rn(uint64_t m, int e) {
  while (m < (uint64_t(1) << 52)) m <<= 1, --e;  // subnormal inputs
  if (e & 1) m <<= 1, --e;                      // x = m * 2^e, m in [2^52, 2^54), e even
  // s = floor(2^81 / sqrt(m)) = isqrt(floor(2^162 / m)), in [2^54, 2^55]; exact only for m = 2^52.
  const u128 top = u128(1) << 127;
  const u128 n = ((top / m) << 35) + (((top % m) << 35) / m);
  const uint64_t s = isqrt128(n);
  const bool exact = m == (uint64_t(1) << 52);
  const int shift = 64 - std::countl_zero(s) - 53;  // s's bits below the 53 kept
  uint64_t mant = s >> shift;
  const uint64_t rest = s & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
  int exp = shift - 81 - e / 2;  // 1/sqrt(x) ~ mant * 2^exp
  if (rest > half || (rest == half && (!exact || (mant & 1)))) {
    if (++mant == (uint64_t(1) << 53)) mant >>= 1, ++exp;
  }
  return (uint64_t(exp + 52 + 1023) << 52) | (mant & ((uint64_t(1) << 52) - 1));  // always normal
}

}  // namespace

uint32_t ex2_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  return out(std::exp2(f32d(a)), ftz);
}

uint32_t lg2_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  if (f32_is_zero(a)) return kF32Sign | kF32Inf;  // lg2(+-0) = -Inf
  if (f32_sign(a)) return kF32CanonicalNaN;
  return out(std::log2(f32d(a)), ftz);
}

uint32_t sin_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a) || f32_is_inf(a)) return kF32CanonicalNaN;
  return out(std::sin(f32d(a)), ftz);
}

uint32_t cos_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a) || f32_is_inf(a)) return kF32CanonicalNaN;
  return out(std::cos(f32d(a)), ftz);
}

uint32_t tanh_approx_f32(uint32_t a) {
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  return out(std::tanh(f32d(a)), false);
}

uint32_t rcp_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  float r = 1.0f / f32_from(a);  // correctly rounded (ISA bound: 1 ulp)
  return out(static_cast<double>(r), ftz);
}

uint32_t sqrt_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  if (f32_is_zero(a)) return a;
  if (f32_sign(a)) return kF32CanonicalNaN;
  float r = std::sqrt(f32_from(a));  // correctly rounded
  return out(static_cast<double>(r), ftz);
}

uint32_t rsqrt_approx_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  if (f32_is_zero(a)) return (a & kF32Sign) | kF32Inf;
  if (f32_sign(a)) return kF32CanonicalNaN;
  return out(1.0 / std::sqrt(f32d(a)), ftz);
}

uint32_t div_approx_f32(uint32_t a, uint32_t b, bool ftz) {
  a = in(a, ftz);
  b = in(b, ftz);
  if (f32_is_nan(a) || f32_is_nan(b)) return kF32CanonicalNaN;
  float r = 1.0f / f32_from(b);
  uint32_t rb = f32_flush(f32_bits(r));  // the reciprocal unit does not produce subnormals
  float q = f32_from(a) * f32_from(rb);
  return out(static_cast<double>(q), ftz);
}

uint32_t div_full_f32(uint32_t a, uint32_t b, bool ftz) {
  a = in(a, ftz);
  b = in(b, ftz);
  float q = f32_from(a) / f32_from(b);
  return out(static_cast<double>(q), ftz);
}

uint64_t rsqrt_approx_f64(uint64_t a) {
  if (f64_is_nan(a)) return a;
  if (f64_is_zero(a)) return (a & kF64Sign) | kF64Inf;
  if (f64_sign(a)) return kF64DefaultNaN;
  if (f64_is_inf(a)) return 0;
  const int be = int(a >> 52);  // sign clear here
  const uint64_t frac = a & ((uint64_t(1) << 52) - 1);
  return be ? rsqrt_f64_rn(frac | (uint64_t(1) << 52), be - 1075) : rsqrt_f64_rn(frac, -1074);
}

uint64_t rcp_approx_ftz_f64(uint64_t a) { return approx_ftz_f64(a, false); }
uint64_t rsqrt_approx_ftz_f64(uint64_t a) { return approx_ftz_f64(a, true); }

uint16_t ex2_approx_f16(uint16_t a) {
  if (f16_is_nan(a)) return kF16CanonicalNaN;
  return to_f16(std::exp2(static_cast<double>(f16_to_f32(a))));
}
uint32_t ex2_approx_f16x2(uint32_t a) { return lanes1(a, ex2_approx_f16); }

uint16_t ex2_approx_ftz_bf16(uint16_t a) {
  a = bf16_flush(a);
  if (bf16_is_nan(a)) return kBF16CanonicalNaN;
  return bf16_flush(to_bf16(std::exp2(static_cast<double>(bf16_to_f32(a)))));
}
uint32_t ex2_approx_ftz_bf16x2(uint32_t a) { return lanes1(a, ex2_approx_ftz_bf16); }

uint16_t tanh_approx_f16(uint16_t a) {
  if (f16_is_nan(a)) return kF16CanonicalNaN;
  return to_f16(std::tanh(static_cast<double>(f16_to_f32(a))));
}
uint32_t tanh_approx_f16x2(uint32_t a) { return lanes1(a, tanh_approx_f16); }
uint16_t tanh_approx_bf16(uint16_t a) {
  if (bf16_is_nan(a)) return kBF16CanonicalNaN;
  return to_bf16(std::tanh(static_cast<double>(bf16_to_f32(a))));
}
uint32_t tanh_approx_bf16x2(uint32_t a) { return lanes1(a, tanh_approx_bf16); }

}  // namespace ptxsim::model::num
