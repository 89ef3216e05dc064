// Property tests (RapidCheck) of the PTX numerics model against independent references:
//  * the host FPU run under fesetround() (a different mechanism from the model's exact integer
//    arithmetic for directed modes),
//  * exact __int128 evaluation plus brute-force selection among neighbouring candidates,
//  * round-to-odd in double followed by a bit-formula rounding (bf16),
//  * bit formulas (bf16/tf32 rounding) and brute-force nearest-code search (f16, 8/6/4-bit).
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce; RC_PARAMS=
// "max_success=N" runs more cases.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "model/numerics/numerics.h"

using namespace ptxsim::model::num;

namespace {

// Each property checks kReps independent draws per RapidCheck case, so the default 100 cases
// give 1000 checks without changing RapidCheck's global configuration (shared with the other
// property tests in the binary).
constexpr int kReps = 10;

using i128 = __int128;

// ---- generators --------------------------------------------------------------------------------
rc::Gen<uint32_t> uniform32() {
  return rc::gen::map(rc::gen::resize(100, rc::gen::inRange<uint64_t>(0, uint64_t{1} << 32)),
                      [](uint64_t v) { return static_cast<uint32_t>(v); });
}
rc::Gen<uint64_t> uniform64() {
  return rc::gen::map(rc::gen::tuple(uniform32(), uniform32()),
                      [](std::tuple<uint32_t, uint32_t> t) {
                        return (uint64_t{std::get<0>(t)} << 32) | std::get<1>(t);
                      });
}
// f32 bit patterns with sign, biased exponent in [elo, ehi] and a random mantissa.
rc::Gen<uint32_t> f32_window(int elo, int ehi) {
  return rc::gen::map(rc::gen::tuple(rc::gen::resize(100, rc::gen::inRange(elo, ehi + 1)),
                                     uniform32()),
                      [](std::tuple<int, uint32_t> t) {
                        uint32_t r = std::get<1>(t);
                        return (r & 0x807FFFFFu) | (static_cast<uint32_t>(std::get<0>(t)) << 23);
                      });
}
rc::Gen<uint32_t> f32_special() {
  return rc::gen::element<uint32_t>(0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                    0xFFFFFFFFu, 0x7F800001u, 0x7F7FFFFFu, 0xFF7FFFFFu,
                                    0x00800000u, 0x80800000u, 0x00000001u, 0x807FFFFFu,
                                    0x3F800000u, 0xBF800000u, 0x3F7FFFFFu, 0x34000000u);
}
rc::Gen<uint32_t> f32_any() {
  return rc::gen::weightedOneOf<uint32_t>({{5, uniform32()},
                                          {2, f32_special()},
                                          {3, f32_window(100, 154)},
                                          {1, f32_window(0, 2)},
                                          {1, f32_window(250, 254)}});
}
rc::Gen<uint64_t> f64_window(int elo, int ehi) {
  return rc::gen::map(rc::gen::tuple(rc::gen::resize(100, rc::gen::inRange(elo, ehi + 1)),
                                     uniform64()),
                      [](std::tuple<int, uint64_t> t) {
                        uint64_t r = std::get<1>(t);
                        return static_cast<uint64_t>((r & 0x800FFFFFFFFFFFFFull) |
                                                     (static_cast<uint64_t>(std::get<0>(t)) << 52));
                      });
}
rc::Gen<uint64_t> f64_any() {
  return rc::gen::weightedOneOf<uint64_t>(
      {{5, uniform64()},
       {1, rc::gen::element<uint64_t>(0, kF64Sign, kF64Inf, kF64Inf | kF64Sign,
                                      0x7FEFFFFFFFFFFFFFull, 1, 0x0010000000000000ull,
                                      kF64One, 0x7FF8000000000000ull)},
       {3, f64_window(1000, 1046)},
       {1, f64_window(0, 2)},
       {1, f64_window(2044, 2046)}});
}
rc::Gen<uint16_t> u16_any() {
  return rc::gen::map(uniform32(), [](uint32_t v) { return static_cast<uint16_t>(v); });
}
rc::Gen<Round> gen_mode4() { return rc::gen::element(Round::RN, Round::RZ, Round::RM, Round::RP); }
rc::Gen<Round> gen_mode5() {
  return rc::gen::element(Round::RN, Round::RZ, Round::RM, Round::RP, Round::RNA);
}

// ---- host FPU in a given rounding mode -----------------------------------------------------------
int host_mode(Round rm) {
  switch (rm) {
    case Round::RZ: return FE_TOWARDZERO;
    case Round::RM: return FE_DOWNWARD;
    case Round::RP: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}
// Operands are read from volatiles after the mode switch and the result is written to a volatile
// before the mode is restored, so the arithmetic cannot be moved out of the window.
template <class T, class Fn>
T in_mode(Round rm, Fn fn) {
  const int old = fegetround();
  fesetround(host_mode(rm));
  volatile T r = fn();
  fesetround(old);
  return r;
}
uint32_t h_add(uint32_t a, uint32_t b, Round rm) {
  volatile float x = f32_from(a), y = f32_from(b);
  return f32_bits(in_mode<float>(rm, [&] { return x + y; }));
}
uint32_t h_mul(uint32_t a, uint32_t b, Round rm) {
  volatile float x = f32_from(a), y = f32_from(b);
  return f32_bits(in_mode<float>(rm, [&] { return x * y; }));
}
uint32_t h_div(uint32_t a, uint32_t b, Round rm) {
  volatile float x = f32_from(a), y = f32_from(b);
  return f32_bits(in_mode<float>(rm, [&] { return x / y; }));
}
uint32_t h_sqrt(uint32_t a, Round rm) {
  volatile float x = f32_from(a);
  return f32_bits(in_mode<float>(rm, [&] { return std::sqrt(static_cast<float>(x)); }));
}
uint32_t h_fma(uint32_t a, uint32_t b, uint32_t c, Round rm) {
  volatile float x = f32_from(a), y = f32_from(b), z = f32_from(c);
  return f32_bits(in_mode<float>(rm, [&] {
    return std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));
  }));
}
template <class Fn>
uint64_t h64(Round rm, Fn fn) {
  return f64_bits(in_mode<double>(rm, fn));
}

uint32_t ref_flush(uint32_t a) { return (a & 0x7F800000u) == 0 ? (a & 0x80000000u) : a; }
uint32_t ref_canon(uint32_t a) { return std::isnan(f32_from(a)) ? 0x7FFFFFFFu : a; }
uint32_t ref_sat(uint32_t a) {
  float f = f32_from(a);
  if (std::isnan(f) || f <= 0.0f) return 0;
  return f >= 1.0f ? 0x3F800000u : a;
}

// ---- exact candidate selection (independent rounding reference) -------------------------------
// Exact value of a finite f32 as an integer at scale 2^-S (requires the value to be a multiple of
// 2^-S and to fit).
i128 f32_scaled(uint32_t b, int S) {
  int e = (b >> 23) & 0xFF;
  i128 m = b & 0x7FFFFF;
  int exp = e == 0 ? -149 : e - 150;
  if (e) m |= 0x800000;
  int sh = exp + S;
  RC_ASSERT(sh >= 0);
  RC_ASSERT(sh < 100);
  i128 v = m << sh;
  return (b >> 31) ? -v : v;
}
// Picks the correctly rounded f32 for the exact value v*2^-S by testing the seven f32 values
// nearest to a host approximation.
uint32_t pick_f32(i128 v, int S, Round rm) {
  const double approx = std::ldexp(static_cast<double>(v), -S);
  float c = static_cast<float>(approx);
  for (int i = 0; i < 3; ++i) c = std::nextafter(c, -INFINITY);
  bool have_lo = false, have_hi = false;
  uint32_t lo = 0, hi = 0;
  i128 vlo = 0, vhi = 0;
  for (int i = 0; i < 7; ++i, c = std::nextafter(c, INFINITY)) {
    uint32_t cb = f32_bits(c);
    if (c == 0.0f) cb = 0;  // use +0 as the zero candidate
    i128 cv = f32_scaled(cb, S);
    if (cv <= v && (!have_lo || cv > vlo)) { lo = cb; vlo = cv; have_lo = true; }
    if (cv >= v && (!have_hi || cv < vhi)) { hi = cb; vhi = cv; have_hi = true; }
  }
  RC_ASSERT(have_lo && have_hi);
  if (vlo == v) return lo;
  const bool neg = v < 0;
  switch (rm) {
    case Round::RZ: return neg ? hi : lo;
    case Round::RM: return lo;
    case Round::RP: return hi;
    case Round::RNA:
    case Round::RN: {
      i128 d_lo = v - vlo, d_hi = vhi - v;
      if (d_lo < d_hi) return lo;
      if (d_hi < d_lo) return hi;
      if (rm == Round::RNA) return neg ? lo : hi;
      return (lo & 1) == 0 ? lo : hi;
    }
  }
  return 0;
}

// ---- f16 brute force ------------------------------------------------------------------------------
double f16_value(uint16_t h) {  // formula decoder, finite codes only
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
// Positive magnitudes 0x0000..0x7BFF plus a virtual 0x7C00 = 65536 (the next step after max).
const std::vector<double>& f16_table() {
  static const std::vector<double> t = [] {
    std::vector<double> v;
    for (uint32_t c = 0; c < 0x7C00; ++c) v.push_back(f16_value(static_cast<uint16_t>(c)));
    v.push_back(65536.0);
    return v;
  }();
  return t;
}
// Correctly rounded f16 for an exact magnitude `ax` given the sorted table `t` of the magnitudes
// of codes 0x0000..0x7C00 (0x7C00 standing for 65536, the step after the largest finite value).
template <class T>
uint16_t brute_f16_core(T ax, bool neg, const std::vector<T>& t, Round rm, bool satfinite) {
  const uint16_t sign = neg ? 0x8000 : 0;
  size_t i;
  if (ax >= t[0x7C00]) {
    i = 0x7C00;
  } else {
    i = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), ax) - t.begin()) - 1;
  }
  uint32_t code;
  if (i < 0x7C00 && t[i] == ax) {
    code = static_cast<uint32_t>(i);
  } else if (i >= 0x7C00) {
    bool away = rm == Round::RN || rm == Round::RNA || (rm == Round::RP && !neg) ||
                (rm == Round::RM && neg);
    code = away ? 0x7C00 : 0x7BFF;
  } else {
    const T lo = t[i], hi = t[i + 1];
    const T dl = ax - lo, dh = hi - ax;
    bool up;
    switch (rm) {
      case Round::RZ: up = false; break;
      case Round::RP: up = !neg; break;
      case Round::RM: up = neg; break;
      case Round::RNA: up = dl >= dh; break;
      default: up = dh < dl || (dh == dl && (i & 1)); break;
    }
    code = static_cast<uint32_t>(up ? i + 1 : i);
  }
  if (code == 0x7C00 && satfinite) code = 0x7BFF;
  return static_cast<uint16_t>(sign | code);
}
uint16_t brute_f16(double x, Round rm, bool satfinite = false) {
  const bool neg = std::signbit(x);
  if (std::isinf(x)) return static_cast<uint16_t>((neg ? 0x8000 : 0) | (satfinite ? 0x7BFF : 0x7C00));
  return brute_f16_core(std::fabs(x), neg, f16_table(), rm, satfinite);
}
// Same on exact integers at scale 2^-48 (every f16 value is a multiple of 2^-24).
const std::vector<i128>& f16_table48() {
  static const std::vector<i128> t = [] {
    std::vector<i128> v;
    for (double d : f16_table()) v.push_back(static_cast<i128>(std::ldexp(d, 48)));
    return v;
  }();
  return t;
}
uint16_t brute_f16_48(i128 v, Round rm) {
  return brute_f16_core(v < 0 ? -v : v, v < 0, f16_table48(), rm, false);
}

// Brute-force RN-even .satfinite encoder over all codes (see numerics_test.cpp).
template <class Dec>
unsigned brute_encode(double x, unsigned ncodes, unsigned sign_bit, Dec dec) {
  const bool neg = std::signbit(x);
  if (std::fabs(x) > 1e6) x = std::copysign(1e6, x);  // beyond every max: saturate
  unsigned best = 0;
  double best_d = INFINITY;
  bool have = false;
  for (unsigned c = 0; c < ncodes; ++c) {
    if (((c & sign_bit) != 0) != neg) continue;
    double v = dec(c);
    if (std::isnan(v) || std::isinf(v)) continue;
    double d = std::fabs(v - x);
    if (!have || d < best_d || (d == best_d && (c & 1) == 0)) {
      best = c;
      best_d = d;
      have = true;
    }
  }
  return best;
}
double small_value(unsigned code, int ebits, int mbits, int bias) {
  unsigned m = code & ((1u << mbits) - 1);
  unsigned e = (code >> mbits) & ((1u << ebits) - 1);
  double v = e == 0 ? std::ldexp(m, 1 - bias - mbits)
                    : std::ldexp((1u << mbits) + m, static_cast<int>(e) - bias - mbits);
  return ((code >> (ebits + mbits)) & 1) ? -v : v;
}

// ---- bf16 reference via round-to-odd ------------------------------------------------------------
// f32 -> bf16 by bit formulas, in every mode (f32 exactness assumed).
uint16_t f32_to_bf16_formula(uint32_t x, Round rm) {
  if (std::isnan(f32_from(x))) return 0x7FFF;
  const bool neg = x >> 31;
  const uint32_t low = x & 0xFFFF;
  uint32_t t = x >> 16;
  switch (rm) {
    case Round::RZ: break;
    case Round::RP: if (!neg && low) ++t; break;
    case Round::RM: if (neg && low) ++t; break;
    case Round::RNA: if (low >= 0x8000) ++t; break;
    default: t = (x + 0x7FFF + ((x >> 16) & 1)) >> 16; break;
  }
  return static_cast<uint16_t>(t);
}
// x (exact, a double with round-to-odd sticky) -> f32 with round-to-odd: truncate, then set the
// last bit if inexact.
uint32_t double_to_f32_odd(double d) {
  std::feclearexcept(FE_INEXACT);
  volatile double vd = d;
  float f = in_mode<float>(Round::RZ, [&] { return static_cast<float>(vd); });
  uint32_t b = f32_bits(f);
  if (std::fetestexcept(FE_INEXACT)) b |= 1;
  return b;
}
// fma in double with round-to-odd: RZ, then set the last bit if inexact.
double fma_odd(double a, double b, double c) {
  std::feclearexcept(FE_INEXACT);
  volatile double x = a, y = b, z = c;
  double r = in_mode<double>(Round::RZ, [&] {
    return std::fma(static_cast<double>(x), static_cast<double>(y), static_cast<double>(z));
  });
  uint64_t bits = f64_bits(r);
  if (std::fetestexcept(FE_INEXACT)) bits |= 1;
  return f64_from(bits);
}
// Correctly rounded bf16 of a double (RN through round-to-odd f32, directed modes compose).
uint16_t bf16_from_double(double d, Round rm) {
  if (std::isnan(d)) return 0x7FFF;
  if (rm == Round::RN) {
    if (d == 0 || std::isinf(d)) return f32_to_bf16_formula(f32_bits(static_cast<float>(d)), rm);
    return f32_to_bf16_formula(double_to_f32_odd(d), Round::RN);
  }
  volatile double vd = d;
  float f = in_mode<float>(rm, [&] { return static_cast<float>(vd); });
  return f32_to_bf16_formula(f32_bits(f), rm);
}
uint16_t bf16_ref_fma(uint16_t a, uint16_t b, uint16_t c, Round rm) {
  const double x = bf16_to_f32(a), y = bf16_to_f32(b), z = bf16_to_f32(c);
  if (rm == Round::RN) {
    double r = fma_odd(x, y, z);
    if (std::isnan(r)) return 0x7FFF;
    if (r == 0) return std::signbit(r) ? 0x8000 : 0;  // exact zero (RZ sign rule = RN's)
    if (std::isinf(r)) return r > 0 ? 0x7F80 : 0xFF80;
    return f32_to_bf16_formula(double_to_f32_odd(r), Round::RN);
  }
  // Directed modes compose: round in double, then in f32, then to bf16, all in the same mode.
  volatile double vx = x, vy = y, vz = z;
  double r = in_mode<double>(rm, [&] {
    return std::fma(static_cast<double>(vx), static_cast<double>(vy), static_cast<double>(vz));
  });
  volatile double vr = r;
  float f = in_mode<float>(rm, [&] { return static_cast<float>(vr); });
  return f32_to_bf16_formula(f32_bits(f), rm);
}

}  // namespace

// ================================================================================================
// f32 / f64 against the host FPU in each rounding mode
// ================================================================================================
RC_GTEST_PROP(NumProp, F32ArithMatchesHostInEveryMode, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_any(), b = *f32_any(), c = *f32_any();
    const Round rm = *gen_mode4();
    RC_ASSERT(add_f32(a, b, rm) == ref_canon(h_add(a, b, rm)));
    RC_ASSERT(sub_f32(a, b, rm) == ref_canon(h_add(a, b ^ 0x80000000u, rm)));
    RC_ASSERT(mul_f32(a, b, rm) == ref_canon(h_mul(a, b, rm)));
    RC_ASSERT(div_f32(a, b, rm) == ref_canon(h_div(a, b, rm)));
    RC_ASSERT(rcp_f32(b, rm) == ref_canon(h_div(0x3F800000u, b, rm)));
    RC_ASSERT(sqrt_f32(a, rm) == ref_canon(h_sqrt(a, rm)));
    RC_ASSERT(fma_f32(a, b, c, rm) == ref_canon(h_fma(a, b, c, rm)));
  }
}

RC_GTEST_PROP(NumProp, F32FtzAndSatModifiers, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_any(), b = *f32_any(), c = *f32_any();
    const Round rm = *gen_mode4();
    const bool ftz = *rc::gen::arbitrary<bool>(), sat = *rc::gen::arbitrary<bool>();
    auto post = [&](uint32_t r) {
      r = ref_canon(r);
      if (ftz) r = ref_flush(r);
      return sat ? ref_sat(r) : r;
    };
    const uint32_t fa = ftz ? ref_flush(a) : a, fb = ftz ? ref_flush(b) : b,
                   fc = ftz ? ref_flush(c) : c;
    RC_ASSERT(add_f32(a, b, rm, ftz, sat) == post(h_add(fa, fb, rm)));
    RC_ASSERT(mul_f32(a, b, rm, ftz, sat) == post(h_mul(fa, fb, rm)));
    RC_ASSERT(fma_f32(a, b, c, rm, ftz, sat) == post(h_fma(fa, fb, fc, rm)));
    auto post_nosat = [&](uint32_t r) { return ftz ? ref_flush(ref_canon(r)) : ref_canon(r); };
    RC_ASSERT(div_f32(a, b, rm, ftz) == post_nosat(h_div(fa, fb, rm)));
    RC_ASSERT(sqrt_f32(a, rm, ftz) == (ftz ? ref_flush(ref_canon(h_sqrt(fa, rm)))
                                           : ref_canon(h_sqrt(fa, rm))));
  }
}

RC_GTEST_PROP(NumProp, F64ArithMatchesHostInEveryMode, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint64_t a = *f64_any(), b = *f64_any(), c = *f64_any();
    const Round rm = *gen_mode4();
    if (!(!f64_is_nan(a) && !f64_is_nan(b) && !f64_is_nan(c))) continue;
    auto fix = [](uint64_t r) { return f64_is_nan(r) ? kF64DefaultNaN : r; };
    volatile double x = f64_from(a), y = f64_from(b), z = f64_from(c);
    RC_ASSERT(add_f64(a, b, rm) == fix(h64(rm, [&] { return x + y; })));
    RC_ASSERT(sub_f64(a, b, rm) == fix(h64(rm, [&] { return x - y; })));
    RC_ASSERT(mul_f64(a, b, rm) == fix(h64(rm, [&] { return x * y; })));
    RC_ASSERT(div_f64(a, b, rm) == fix(h64(rm, [&] { return x / y; })));
    RC_ASSERT(sqrt_f64(a, rm) == fix(h64(rm, [&] { return std::sqrt(static_cast<double>(x)); })));
    RC_ASSERT(fma_f64(a, b, c, rm) ==
              fix(h64(rm, [&] {
                return std::fma(static_cast<double>(x), static_cast<double>(y),
                                static_cast<double>(z));
              })));
  }
}

// The exact-integer engine used for directed modes agrees with the host in RN as well.
RC_GTEST_PROP(NumProp, SoftfloatRnMatchesHost, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_any(), b = *f32_any(), c = *f32_any();
    const uint64_t p = *f64_any(), q = *f64_any(), r = *f64_any();
    auto s32 = [](SfResult s) { return s.is_nan ? kF32CanonicalNaN : static_cast<uint32_t>(s.bits); };
    RC_ASSERT(s32(sf_add(kF32, a, b, Round::RN)) == ref_canon(h_add(a, b, Round::RN)));
    RC_ASSERT(s32(sf_mul(kF32, a, b, Round::RN)) == ref_canon(h_mul(a, b, Round::RN)));
    RC_ASSERT(s32(sf_div(kF32, a, b, Round::RN)) == ref_canon(h_div(a, b, Round::RN)));
    RC_ASSERT(s32(sf_sqrt(kF32, a, Round::RN)) == ref_canon(h_sqrt(a, Round::RN)));
    RC_ASSERT(s32(sf_fma(kF32, a, b, c, Round::RN)) == ref_canon(h_fma(a, b, c, Round::RN)));
    if (!(!f64_is_nan(p) && !f64_is_nan(q) && !f64_is_nan(r))) continue;
    auto s64 = [](SfResult s) { return s.is_nan ? kF64DefaultNaN : s.bits; };
    auto h = [](double d) { return std::isnan(d) ? kF64DefaultNaN : f64_bits(d); };
    const double x = f64_from(p), y = f64_from(q), z = f64_from(r);
    RC_ASSERT(s64(sf_add(kF64, p, q, Round::RN)) == h(x + y));
    RC_ASSERT(s64(sf_mul(kF64, p, q, Round::RN)) == h(x * y));
    RC_ASSERT(s64(sf_div(kF64, p, q, Round::RN)) == h(x / y));
    RC_ASSERT(s64(sf_sqrt(kF64, p, Round::RN)) == h(std::sqrt(x)));
    RC_ASSERT(s64(sf_fma(kF64, p, q, r, Round::RN)) == h(std::fma(x, y, z)));
  }
}

// ================================================================================================
// f32 add/mul/fma against exact __int128 evaluation + candidate selection (all five modes)
// ================================================================================================
RC_GTEST_PROP(NumProp, F32AddExact, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_window(127 - 30, 127 + 30), b = *f32_window(127 - 30, 127 + 30);
    const Round rm = *gen_mode5();
    const int S = 80;
    const i128 v = f32_scaled(a, S) + f32_scaled(b, S);
    if (!(v != 0)) continue;
    RC_ASSERT(add_f32(a, b, rm) == pick_f32(v, S, rm));
  }
}

RC_GTEST_PROP(NumProp, F32MulExact, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_window(127 - 15, 127 + 15), b = *f32_window(127 - 15, 127 + 15);
    const Round rm = *gen_mode5();
    const int S = 76;
    // (ma*2^ea)(mb*2^eb) scaled: product of the two 38-scaled integers.
    const i128 v = f32_scaled(a, 38) * f32_scaled(b, 38);
    RC_ASSERT(mul_f32(a, b, rm) == pick_f32(v, S, rm));
  }
}

RC_GTEST_PROP(NumProp, F32FmaExact, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_window(127 - 12, 127 + 12), b = *f32_window(127 - 12, 127 + 12);
    const uint32_t c = *f32_window(127 - 24, 127 + 24);
    const Round rm = *gen_mode5();
    const int S = 94;
    const i128 v = f32_scaled(a, 47) * f32_scaled(b, 47) + f32_scaled(c, S);
    if (!(v != 0)) continue;
    RC_ASSERT(fma_f32(a, b, c, rm) == pick_f32(v, S, rm));
  }
}

// ================================================================================================
// f16 / bf16 arithmetic
// ================================================================================================
RC_GTEST_PROP(NumProp, F16ArithExact, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint16_t a = *u16_any(), b = *u16_any(), c = *u16_any();
    const Round rm = *gen_mode5();
    const bool ftz = *rc::gen::arbitrary<bool>();
    if (!(!f16_is_nan(a) && !f16_is_nan(b) && !f16_is_nan(c))) continue;
    if (!(!f16_is_inf(a) && !f16_is_inf(b) && !f16_is_inf(c))) continue;
    auto fl = [&](uint16_t h) { return ftz && (h & 0x7C00) == 0 ? static_cast<uint16_t>(h & 0x8000) : h; };
    auto post = [&](uint16_t h) { return fl(h); };
    // Exact integers at scale 2^48 (f16 ulps are >= 2^-24).
    auto sc = [](uint16_t h) { return static_cast<i128>(std::ldexp(f16_value(h), 24)); };
    const uint16_t A = fl(a), B = fl(b), C = fl(c);
    const i128 sum = (sc(A) + sc(B)) << 24;
    const i128 prod = sc(A) * sc(B);
    const i128 f = prod + (sc(C) << 24);
    auto to_f16 = [&](i128 v, bool na, bool nb) -> uint16_t {
      if (v == 0) {  // exact zero: IEEE sign rule
        bool neg = na == nb ? na : rm == Round::RM;
        return neg ? 0x8000 : 0;
      }
      return brute_f16_48(v, rm);
    };
    RC_ASSERT(add_f16(a, b, rm, ftz) == post(to_f16(sum, A >> 15, B >> 15)));
    RC_ASSERT(mul_f16(a, b, rm, ftz) ==
              post(prod == 0 ? static_cast<uint16_t>((A ^ B) & 0x8000) : to_f16(prod, 0, 0)));
    const bool pneg = ((A ^ B) >> 15) != 0;
    RC_ASSERT(fma_f16(a, b, c, rm, ftz) == post(to_f16(f, pneg, C >> 15)));
  }
}

RC_GTEST_PROP(NumProp, BF16ArithViaRoundToOdd, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint16_t a = *u16_any(), b = *u16_any(), c = *u16_any();
    const Round rm = *gen_mode4();
    auto canon = [](uint16_t h) { return bf16_is_nan(h) ? static_cast<uint16_t>(0x7FFF) : h; };
    RC_ASSERT(fma_bf16(a, b, c, rm) == canon(bf16_ref_fma(a, b, c, rm)));
    // a*b + (-0) equals a*b except for the sign of an exact zero product under .rm.
    if (!(rm == Round::RM && ((a & 0x7FFF) == 0 || (b & 0x7FFF) == 0)))
      RC_ASSERT(mul_bf16(a, b, rm) == canon(bf16_ref_fma(a, b, 0x8000, rm)));
    RC_ASSERT(add_bf16(a, c, rm) == canon(bf16_ref_fma(a, 0x3F80, c, rm)));   // a*1 + c
    // relu: negative -> +0, NaN -> canonical
    const uint16_t r = fma_bf16(a, b, c, rm, true), plain = fma_bf16(a, b, c, rm);
    RC_ASSERT(r == (bf16_is_nan(plain) ? 0x7FFF : ((plain & 0x8000) ? 0 : plain)));
  }
}

RC_GTEST_PROP(NumProp, HalfX2LanesAreIndependent, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *uniform32(), b = *uniform32(), c = *uniform32();
    RC_ASSERT(fma_f16x2(a, b, c) == pack16(fma_f16(hi16(a), hi16(b), hi16(c)),
                                           fma_f16(lo16(a), lo16(b), lo16(c))));
    RC_ASSERT(add_bf16x2(a, b) == pack16(add_bf16(hi16(a), hi16(b)), add_bf16(lo16(a), lo16(b))));
    RC_ASSERT(max_f16x2(a, b) == pack16(max_f16(hi16(a), hi16(b)), max_f16(lo16(a), lo16(b))));
  }
}

// ================================================================================================
// conversions
// ================================================================================================
RC_GTEST_PROP(NumProp, F32ToF16MatchesBruteForce, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t x = *rc::gen::weightedOneOf<uint32_t>(
        {{2, f32_any()}, {5, f32_window(127 - 26, 127 + 17)}});
    const Round rm = *gen_mode5();
    const bool sf = *rc::gen::arbitrary<bool>(), relu = *rc::gen::arbitrary<bool>();
    const uint16_t got = f32_to_f16(x, rm, {.satfinite = sf, .relu = relu});
    if (std::isnan(f32_from(x))) {
      RC_ASSERT(got == 0x7FFF);
      continue;
    }
    uint16_t expect = brute_f16(static_cast<double>(f32_from(x)), rm, sf);
    if (relu && (expect & 0x8000)) expect = 0;
    RC_ASSERT(got == expect);
    // f64 -> f16 (one rounding) of the same value and of a value with extra low bits.
    RC_ASSERT(f64_to_f16(f64_bits(f32_from(x)), rm, {.satfinite = sf, .relu = relu}) == got);
  }
}

// .rs: the result is the truncation or its away-from-zero neighbour; rbits = 0 truncates and
// all-ones rbits round away whenever the value is inexact (normal-range results).
RC_GTEST_PROP(NumProp, StochasticRoundingBrackets, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t x = *f32_window(127 - 14, 127 + 15);
    const uint32_t r = *uniform32();
    const uint16_t tz = f32_to_f16(x, Round::RZ);
    const uint16_t aw = f32_to_f16(x, (x >> 31) ? Round::RM : Round::RP);
    const uint16_t got = hi16(cvt_rs_f16x2_f32(x, 0, r));
    RC_ASSERT(got == tz || got == aw);
    RC_ASSERT(hi16(cvt_rs_f16x2_f32(x, 0, 0)) == tz);
    RC_ASSERT(hi16(cvt_rs_f16x2_f32(x, 0, 0x1FFF0000u)) == aw);
    const uint16_t btz = f32_to_bf16(x, Round::RZ);
    const uint16_t baw = f32_to_bf16(x, (x >> 31) ? Round::RM : Round::RP);
    const uint16_t bgot = lo16(cvt_rs_bf16x2_f32(0, x, r));
    RC_ASSERT(bgot == btz || bgot == baw);
    // bf16: carry out of (low 16 bits + r) decides.
    RC_ASSERT(bgot == (((x & 0xFFFF) + (r & 0xFFFF)) >> 16 ? baw : btz));
  }
}

RC_GTEST_PROP(NumProp, F64ToF16SingleRounding, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint64_t x = *f64_window(1023 - 27, 1023 + 17);
    const Round rm = *gen_mode5();
    RC_ASSERT(f64_to_f16(x, rm) == brute_f16(f64_from(x), rm));
  }
}

RC_GTEST_PROP(NumProp, F32ToBf16AndTf32Formulas, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t x = *f32_any();
    const Round rm = *gen_mode5();
    const bool nan = std::isnan(f32_from(x));
    RC_ASSERT(f32_to_bf16(x, rm) == f32_to_bf16_formula(x, rm));
    // satfinite: an Inf result (from overflow or an Inf input) becomes the max finite value.
    uint16_t sat = f32_to_bf16_formula(x, rm);
    if ((sat & 0x7FFF) == 0x7F80) sat = (sat & 0x8000) | 0x7F7F;
    RC_ASSERT(f32_to_bf16(x, rm, {.satfinite = true}) == sat);
    // tf32 in f32 layout.
    uint32_t t;
    switch (rm) {
      case Round::RZ: t = x & ~0x1FFFu; break;
      case Round::RNA: t = (x + 0x1000u) & ~0x1FFFu; break;
      case Round::RP: t = ((x >> 31) == 0 && (x & 0x1FFF)) ? (x & ~0x1FFFu) + 0x2000u : x & ~0x1FFFu; break;
      case Round::RM: t = ((x >> 31) != 0 && (x & 0x1FFF)) ? (x & ~0x1FFFu) + 0x2000u : x & ~0x1FFFu; break;
      default: t = (x + 0xFFFu + ((x >> 13) & 1)) & ~0x1FFFu; break;
    }
    if (nan) t = kF32CanonicalNaN;
    if (!nan && f32_is_inf(x)) t = x;
    RC_ASSERT(f32_to_tf32(x, rm) == t);
  }
}

RC_GTEST_PROP(NumProp, NarrowEncodersMatchBruteForce, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t x = *rc::gen::weightedOneOf<uint32_t>(
        {{1, f32_any()}, {6, f32_window(127 - 20, 127 + 17)}});
    const bool relu = *rc::gen::arbitrary<bool>();
    if (std::isnan(f32_from(x))) {
      RC_ASSERT(f32_to_e4m3(x, relu) == 0x7F);
      RC_ASSERT(f32_to_e5m2(x, relu) == 0x7F);
      RC_ASSERT(f32_to_e2m1(x, relu) == 0x7);
      continue;
    }
    const double d = f32_from(x);
    auto fix = [&](unsigned c, unsigned sign_bit) { return relu && (c & sign_bit) ? 0u : c; };
    auto e4 = [](unsigned c) { return (c & 0x7F) == 0x7F ? NAN : small_value(c, 4, 3, 7); };
    auto e5 = [](unsigned c) { return (c & 0x7C) == 0x7C ? NAN : small_value(c, 5, 2, 15); };
    auto e23 = [](unsigned c) { return small_value(c, 2, 3, 1); };
    auto e32 = [](unsigned c) { return small_value(c, 3, 2, 3); };
    auto e21 = [](unsigned c) { return small_value(c, 2, 1, 1); };
    RC_ASSERT(f32_to_e4m3(x, relu) == fix(brute_encode(d, 256, 0x80, e4), 0x80));
    RC_ASSERT(f32_to_e5m2(x, relu) == fix(brute_encode(d, 256, 0x80, e5), 0x80));
    RC_ASSERT(f32_to_e2m3(x, relu) == fix(brute_encode(d, 64, 0x20, e23), 0x20));
    RC_ASSERT(f32_to_e3m2(x, relu) == fix(brute_encode(d, 64, 0x20, e32), 0x20));
    RC_ASSERT(f32_to_e2m1(x, relu) == fix(brute_encode(d, 16, 0x8, e21), 0x8));
    // Packed form: a -> upper byte.
    const uint32_t y = *f32_window(127 - 10, 127 + 10);
    RC_ASSERT(cvt_f8x2_f32(F8Kind::E4M3, x, y, relu) ==
              ((f32_to_e4m3(x, relu) << 8) | f32_to_e4m3(y, relu)));
    RC_ASSERT(cvt_e2m1x2_f32(x, y, relu) == ((f32_to_e2m1(x, relu) << 4) | f32_to_e2m1(y, relu)));
  }
}

RC_GTEST_PROP(NumProp, F64ToF32MatchesHost, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint64_t x = *f64_any();
    const Round rm = *gen_mode4();
    volatile double vx = f64_from(x);
    const uint32_t host = f32_bits(in_mode<float>(rm, [&] { return static_cast<float>(vx); }));
    RC_ASSERT(f64_to_f32(x, rm) == ref_canon(host));
    if (!f64_is_nan(x)) {
      const uint32_t y = f64_to_f32(x, rm);
      if (!std::isnan(f32_from(y))) RC_ASSERT(f64_from(f32_to_f64(y)) == static_cast<double>(f32_from(y)));
    }
    const uint32_t f = *f32_any();
    if (!std::isnan(f32_from(f))) RC_ASSERT(f64_to_f32(f32_to_f64(f), rm) == f);
  }
}

RC_GTEST_PROP(NumProp, FloatToIntMatchesReference, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const bool use64 = *rc::gen::arbitrary<bool>();
    const uint32_t x32 = *rc::gen::weightedOneOf<uint32_t>(
        {{1, f32_any()}, {4, f32_window(120, 127 + 66)}});
    const uint64_t x64 = *rc::gen::weightedOneOf<uint64_t>(
        {{1, f64_any()}, {4, f64_window(1016, 1023 + 66)}});
    const IntType t = *rc::gen::element(IntType::S8, IntType::S16, IntType::S32, IntType::S64,
                                        IntType::U8, IntType::U16, IntType::U32, IntType::U64);
    const IntRound ir = *rc::gen::element(IntRound::RNI, IntRound::RZI, IntRound::RMI, IntRound::RPI);
    const long double x = use64 ? static_cast<long double>(f64_from(x64)) : f32_from(x32);
    const int w = int_width(t);
    uint64_t expect;
    if (std::isnan(x)) {
      expect = (!use64 && w != 64) ? 0 : (uint64_t{1} << (w - 1));
      if (int_signed(t) && expect) expect = static_cast<uint64_t>(-static_cast<int64_t>(expect - 1) - 1);
      if (int_signed(t) && w == 64) expect = 0x8000000000000000ull;
    } else {
      // Host nearbyintl in the matching mode, then clamp in long double.
      volatile long double vx = x;
      const long double r = in_mode<long double>(to_round(ir), [&] {
        return std::nearbyint(static_cast<long double>(vx));
      });
      const long double lo = int_signed(t) ? -std::ldexp(1.0L, w - 1) : 0.0L;
      const long double hi = int_signed(t) ? std::ldexp(1.0L, w - 1) - 1 : std::ldexp(1.0L, w) - 1;
      const long double c = r < lo ? lo : (r > hi ? hi : r);
      expect = int_signed(t) ? static_cast<uint64_t>(static_cast<int64_t>(c))
                             : static_cast<uint64_t>(c);
    }
    const uint64_t got = use64 ? f64_to_int(x64, t, ir) : f32_to_int(x32, t, ir);
    RC_ASSERT(got == expect);
  }
}

RC_GTEST_PROP(NumProp, IntToFloatMatchesHost, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint64_t v = *rc::gen::weightedOneOf<uint64_t>(
        {{3, uniform64()},
         {2, rc::gen::map(uniform32(), [](uint32_t x) { return uint64_t{x} >> (x & 31); })},
         {1, rc::gen::map(uniform64(), [](uint64_t x) { return static_cast<uint64_t>(x | 0xFFFFFFFFFF000000ull); })}});
    const IntType t = *rc::gen::element(IntType::S8, IntType::S16, IntType::S32, IntType::S64,
                                        IntType::U8, IntType::U16, IntType::U32, IntType::U64);
    const Round rm = *gen_mode4();
    const int w = int_width(t);
    long double exact;
    if (int_signed(t)) {
      int64_t s = static_cast<int64_t>(v << (64 - w)) >> (64 - w);
      exact = static_cast<long double>(s);
    } else {
      exact = static_cast<long double>(w == 64 ? v : (v & ((uint64_t{1} << w) - 1)));
    }
    volatile long double vx = exact;  // 64-bit mantissa: exact for every 64-bit integer
    const float hf = in_mode<float>(rm, [&] { return static_cast<float>(vx); });
    const double hd = in_mode<double>(rm, [&] { return static_cast<double>(vx); });
    RC_ASSERT(int_to_f32(v, t, rm) == f32_bits(hf));
    RC_ASSERT(int_to_f64(v, t, rm) == f64_bits(hd));
    // f16 via brute force on the (exactly representable in double after RZ->odd) value: use hd when
    // exact, which holds for |v| < 2^53.
    if (std::fabs(exact) < std::ldexp(1.0L, 53)) {
      RC_ASSERT(int_to_f16(v, t, rm) == brute_f16(static_cast<double>(exact), rm));
      RC_ASSERT(int_to_bf16(v, t, rm) == bf16_from_double(static_cast<double>(exact), rm));
    }
  }
}

RC_GTEST_PROP(NumProp, RintMatchesHostNearbyint, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t x = *rc::gen::weightedOneOf<uint32_t>({{1, f32_any()}, {4, f32_window(110, 155)}});
    const uint64_t y = *rc::gen::weightedOneOf<uint64_t>({{1, f64_any()}, {4, f64_window(1010, 1080)}});
    const IntRound ir = *rc::gen::element(IntRound::RNI, IntRound::RZI, IntRound::RMI, IntRound::RPI);
    volatile float vx = f32_from(x);
    volatile double vy = f64_from(y);
    const float hf = in_mode<float>(to_round(ir), [&] { return std::nearbyint(static_cast<float>(vx)); });
    const double hd = in_mode<double>(to_round(ir), [&] { return std::nearbyint(static_cast<double>(vy)); });
    RC_ASSERT(rint_f32(x, ir) == ref_canon(f32_bits(hf)));
    if (!f64_is_nan(y)) RC_ASSERT(rint_f64(y, ir) == f64_bits(hd));
  }
}

// ================================================================================================
// min / max
// ================================================================================================
RC_GTEST_PROP(NumProp, MinMaxMatchesReference, ()) {
  for (int rep = 0; rep < kReps; ++rep) {
    const uint32_t a = *f32_any(), b = *f32_any();
    const bool nanmode = *rc::gen::arbitrary<bool>(), xs = *rc::gen::arbitrary<bool>();
    const float fa = f32_from(a), fb = f32_from(b);
    auto ref = [&](bool is_max) -> uint32_t {
      float x = xs ? std::fabs(fa) : fa, y = xs ? std::fabs(fb) : fb;
      bool nx = std::isnan(x), ny = std::isnan(y);
      float r;
      if (nx && ny) return 0x7FFFFFFFu;
      if (nanmode && (nx || ny)) return 0x7FFFFFFFu;
      if (nx) r = y;
      else if (ny) r = x;
      else if (x == y) r = (std::signbit(x) == is_max) ? y : x;  // -0 < +0
      else r = ((x < y) == is_max) ? y : x;
      uint32_t rb = f32_bits(r);
      if (x == y && x == 0.0f) rb = is_max ? (std::signbit(x) && std::signbit(y) ? 0x80000000u : 0u)
                                           : (std::signbit(x) || std::signbit(y) ? 0x80000000u : 0u);
      if (xs) rb = (rb & 0x7FFFFFFFu) | ((a ^ b) & 0x80000000u);
      return rb;
    };
    MinMaxMods m{.nan = nanmode, .xorsign_abs = xs};
    RC_ASSERT(min_f32(a, b, m) == ref(false));
    RC_ASSERT(max_f32(a, b, m) == ref(true));
    // f16 agrees with f32 on exactly widened values.
    const uint16_t p = *u16_any(), q = *u16_any();
    // (Widening canonicalizes NaN and drops its sign, which .xorsign would read.)
    if (!(xs && (f16_is_nan(p) || f16_is_nan(q)))) {
      const uint16_t mn = min_f16(p, q, m);
      const uint32_t m32 = min_f32(f16_to_f32_bits(p), f16_to_f32_bits(q), m);
      RC_ASSERT(f16_to_f32_bits(mn) == m32);
    }
  }
}
