#include "model/numerics/int_float_conv.h"

#include <cmath>

#include "model/numerics/bits.h"
#include "model/numerics/fp_formats.h"

namespace ptxsim::model::num {

namespace {

// Rounds a double to an integral double, independent of the host rounding mode; keeps the sign
// of zero (the result of rounding a negative value to zero is -0).
double round_integral(double x, IntRound rm) {
  if (!std::isfinite(x) || std::fabs(x) >= 4503599627370496.0) return x;  // 2^52: integral
  double r;
  switch (rm) {
    case IntRound::RZI: r = std::trunc(x); break;
    case IntRound::RMI: r = std::floor(x); break;
    case IntRound::RPI: r = std::ceil(x); break;
    case IntRound::RNI:
    default: {
      r = std::floor(x);
      double diff = x - r;  // exact: 0 <= diff < 1
      if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
      break;
    }
  }
  return std::copysign(r, x);
}

uint64_t sign_extend(uint64_t v, int w) {
  if (w == 64) return v;
  uint64_t m = uint64_t{1} << (w - 1);
  v &= (uint64_t{1} << w) - 1;
  return (v ^ m) - m;
}

uint64_t double_to_int(double x, IntType dst, IntRound rm, bool src_f64) {
  const int w = int_width(dst);
  const bool s = int_signed(dst);
  if (std::isnan(x)) {
    if (!src_f64 && w != 64) return 0;
    uint64_t v = uint64_t{1} << (w - 1);
    return s ? sign_extend(v, w) : v;
  }
  const double r = round_integral(x, rm);
  const double two_w1 = std::ldexp(1.0, w - 1);  // 2^(w-1), exact
  if (s) {
    if (r <= -two_w1) return sign_extend(uint64_t{1} << (w - 1), w);
    if (r >= two_w1) return (uint64_t{1} << (w - 1)) - 1;
    return static_cast<uint64_t>(static_cast<int64_t>(r));
  }
  if (r <= 0.0) return 0;
  if (r >= 2.0 * two_w1) return w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  return static_cast<uint64_t>(r);
}

// Exact value of an integer of type src held in the low bits of v.
Exact int_exact(uint64_t v, IntType src) {
  const int w = int_width(src);
  if (int_signed(src)) {
    int64_t x = static_cast<int64_t>(sign_extend(v, w));
    bool neg = x < 0;
    uint64_t mag = neg ? (~static_cast<uint64_t>(x) + 1) : static_cast<uint64_t>(x);
    return Exact{neg, 0, mag, false};
  }
  if (w < 64) v &= (uint64_t{1} << w) - 1;
  return Exact{false, 0, v, false};
}

}  // namespace

uint64_t f32_to_int(uint32_t a, IntType dst, IntRound rm, bool ftz) {
  if (ftz) a = f32_flush(a);
  return double_to_int(static_cast<double>(f32_from(a)), dst, rm, false);
}
uint64_t f64_to_int(uint64_t a, IntType dst, IntRound rm) {
  return double_to_int(f64_from(a), dst, rm, true);
}
uint64_t f16_to_int(uint16_t a, IntType dst, IntRound rm) {
  return double_to_int(static_cast<double>(f16_to_f32(a)), dst, rm, false);
}
uint64_t bf16_to_int(uint16_t a, IntType dst, IntRound rm) {
  return double_to_int(static_cast<double>(bf16_to_f32(a)), dst, rm, false);
}

uint32_t int_to_f32(uint64_t v, IntType src, Round rm) {
  return static_cast<uint32_t>(round_pack(kF32, int_exact(v, src), rm));
}
uint64_t int_to_f64(uint64_t v, IntType src, Round rm) {
  return round_pack(kF64, int_exact(v, src), rm);
}
uint16_t int_to_f16(uint64_t v, IntType src, Round rm) {
  return static_cast<uint16_t>(round_pack(kF16, int_exact(v, src), rm));
}
uint16_t int_to_bf16(uint64_t v, IntType src, Round rm) {
  return static_cast<uint16_t>(round_pack(kBF16, int_exact(v, src), rm));
}

uint32_t rint_f32(uint32_t a, IntRound rm, bool ftz, bool sat) {
  if (ftz) a = f32_flush(a);
  uint32_t r;
  if (f32_is_nan(a)) {
    r = kF32CanonicalNaN;
  } else {
    r = f32_bits(static_cast<float>(round_integral(static_cast<double>(f32_from(a)), rm)));
  }
  return cvt_f32_f32(r, false, sat);
}

uint64_t rint_f64(uint64_t a, IntRound rm, bool sat) {
  uint64_t r = f64_is_nan(a) ? a : f64_bits(round_integral(f64_from(a), rm));
  return sat ? sat_f64(r) : r;
}

uint16_t rint_f16(uint16_t a, IntRound rm, bool sat) {
  if (f16_is_nan(a)) return sat ? 0 : kF16CanonicalNaN;
  double r = round_integral(static_cast<double>(f16_to_f32(a)), rm);
  uint16_t h = f64_to_f16(f64_bits(r), Round::RN);  // exact: integral f16 values are f16
  return sat ? sat_f16(h) : h;
}

uint16_t rint_bf16(uint16_t a, IntRound rm) {
  if (bf16_is_nan(a)) return kBF16CanonicalNaN;
  double r = round_integral(static_cast<double>(bf16_to_f32(a)), rm);
  return f64_to_bf16(f64_bits(r), Round::RN);
}

uint32_t cvt_f32_f32(uint32_t a, bool ftz, bool sat) {
  if (ftz) a = f32_flush(a);
  a = f32_canon(a);
  if (sat) {
    if (f32_is_nan(a) || f32_sign(a)) return 0;
    if (a > kF32One) return kF32One;
  }
  return a;
}

uint64_t sat_f64(uint64_t a) {
  if (f64_is_nan(a) || f64_sign(a)) return 0;
  return a > kF64One ? kF64One : a;
}

uint16_t sat_f16(uint16_t a) {
  if (f16_is_nan(a) || (a & kF16Sign)) return 0;
  return a > kF16One ? kF16One : a;
}

}  // namespace ptxsim::model::num
