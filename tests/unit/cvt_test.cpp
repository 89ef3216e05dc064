// cvt and cvt.pack through the real pipeline: every scalar type pair with every rounding and
// saturation modifier, the packed f16x2/bf16x2/tf32 and fp8/fp6/fp4/ue8m0 forms (sm_100a), over
// batches of random bit patterns, compared with references written here from the PTX definitions
// (host conversions under fesetround, exact integer arithmetic, and float_test_util.h's
// round_to()). Also: acceptance of every cvt form exactly as ptxas 13.0 decides it, and operand
// checks.
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/float_test_util.h"

using namespace ftest;

namespace {

constexpr size_t kN = 512;

void expect_all(const std::string& what, const std::vector<uint64_t>& got, const std::vector<uint64_t>& in,
                const std::function<uint64_t(size_t)>& want, const std::vector<uint64_t>* in2 = nullptr) {
  ASSERT_EQ(got.size(), in.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    uint64_t w = want(i);
    if (got[i] != w && bad++ < 6)
      ADD_FAILURE() << what << ": input " << hex(in[i]) << (in2 ? ", " + hex((*in2)[i]) : "") << " -> " << hex(got[i])
                    << ", expected " << hex(w);
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << in.size() << " results differ";
}

struct IntT {
  const char* name;
  int bits;
  bool sgn;
};
const IntT kInts[] = {{"u8", 8, false},  {"u16", 16, false}, {"u32", 32, false}, {"u64", 64, false},
                      {"s8", 8, true},   {"s16", 16, true},  {"s32", 32, true},  {"s64", 64, true}};

Reg reg_bits(int bits) { return bits == 8 ? kB8 : bits == 16 ? kB16 : bits == 32 ? kB32 : kB64; }

uint64_t sext(uint64_t v, int bits) {
  if (bits == 64) return v;
  uint64_t m = 1ull << (bits - 1);
  v &= (m << 1) - 1;
  return (v ^ m) - m;
}
uint64_t zext(uint64_t v, int bits) { return bits == 64 ? v : v & ((1ull << bits) - 1); }
// The value of the low `bits` of v as integer type t, as a 128-bit integer.
__int128 int_value(uint64_t v, const IntT& t) { return t.sgn ? __int128(int64_t(sext(v, t.bits))) : __int128(zext(v, t.bits)); }
__int128 int_min(const IntT& t) { return t.sgn ? -(__int128(1) << (t.bits - 1)) : 0; }
__int128 int_max(const IntT& t) { return t.sgn ? (__int128(1) << (t.bits - 1)) - 1 : (__int128(1) << t.bits) - 1; }
// The register image of integer value v written with type t (sign-extended for signed types).
uint64_t int_store(__int128 v, const IntT& t) { return t.sgn ? sext(uint64_t(v), t.bits) : zext(uint64_t(v), t.bits); }

std::vector<uint64_t> rand_ints(size_t n) {
  std::vector<uint64_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = rng()();
    switch (i % 4) {
      case 0: v[i] = r; break;
      case 1: v[i] = r & 0xFFFF; break;
      case 2: v[i] = sext(r, 1 + int(r % 63)); break;  // small positives and negatives of all sizes
      default: v[i] = (r & 1) ? 0x8000000000000000ull >> (r % 64) : (0x8000000000000000ull >> (r % 64)) - 1; break;
    }
  }
  return v;
}

// ---- int <- int ---------------------------------------------------------------------------------

TEST(Cvt, IntToIntAllPairs) {
  for (const IntT& d : kInts)
    for (const IntT& s : kInts)
      for (int sat = 0; sat < 2; ++sat) {
        const bool inside = (s.sgn == d.sgn) ? s.bits <= d.bits : (!s.sgn && s.bits < d.bits);
        if (sat && inside) continue;  // ptxas rejects .sat when it cannot matter
        std::string ins = std::string("cvt") + (sat ? ".sat." : ".") + d.name + "." + s.name;
        // The source register is 64 bits wide (ptxas allows wider registers): the upper bits must
        // be ignored. The destination is 64 bits too, to see the extension.
        Kernel k{ins + " %d, %a;", kB64, {kB64}, "sm_90a", "8.7"};
        auto a = rand_ints(kN);
        auto got = run(k, {a});
        expect_all(ins, got, a, [&](size_t i) -> uint64_t {
          __int128 v = int_value(a[i], s);
          if (sat) v = std::clamp(v, int_min(d), int_max(d));
          return int_store(v, d);
        });
      }
}

// ---- int <- float ---------------------------------------------------------------------------------

struct FloatT {
  const char* name;
  const Fmt* fmt;  // null for f32/f64
  int bits;
};
const FloatT kF16T{"f16", &kHalf, 16}, kBF16T{"bf16", &kBF16, 16}, kF32T{"f32", nullptr, 32}, kF64T{"f64", nullptr, 64};
const FloatT kFloats[] = {kF16T, kBF16T, kF32T, kF64T};

double float_value(const FloatT& t, uint64_t bits) {
  if (t.fmt) return decode(*t.fmt, uint32_t(bits & 0xFFFF));
  if (t.bits == 32) return double(f32_of(bits));
  return f64_of(bits);
}

std::vector<uint64_t> rand_float(const FloatT& t, size_t n) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = t.fmt ? rand_16(rng(), *t.fmt) : t.bits == 32 ? rand_f32(rng()) : rand_f64(rng());
  // Values near the integer boundaries and halfway points.
  for (size_t i = 0; i < n; i += 7) {
    double r = double(int64_t(rng()() % 600) - 300) / 2 + ((i % 14) ? 0.0 : 0.25);
    if (i % 21 == 0) r = std::ldexp(1.0, int(rng()() % 66)) * ((i & 1) ? -1 : 1);
    if (t.bits == 64) v[i] = bits_of(r);
    else if (t.bits == 32) v[i] = bits_of(float(r));
    else v[i] = round_to(*t.fmt, r, 0, Mode::RN);
  }
  return v;
}

const std::pair<const char*, Mode> kIntRound[] = {{".rni", Mode::RN}, {".rzi", Mode::RZ}, {".rmi", Mode::RM}, {".rpi", Mode::RP}};

double round_integral(double x, Mode m) {
  volatile double v = x;
  std::fesetround(fe_mode(m));
  volatile double r = std::nearbyint(v);
  std::fesetround(FE_TONEAREST);
  return r;
}

TEST(Cvt, FloatToInt) {
  for (const FloatT& s : kFloats)
    for (const IntT& d : kInts)
      for (auto [rn, m] : kIntRound)
        for (int ftz = 0; ftz < 2; ++ftz) {
          if (ftz && s.bits != 32) continue;
          std::string ins = std::string("cvt") + rn + (ftz ? ".ftz." : ".") + d.name + "." + s.name;
          Kernel k{ins + " %d, %a;", kB64, {reg_bits(s.bits)}, "sm_90a", "8.7"};
          auto a = rand_float(s, kN);
          auto got = run(k, {a});
          expect_all(ins, got, a, [&](size_t i) -> uint64_t {
            uint64_t bits = a[i];
            if (ftz && is_sub32(uint32_t(bits))) bits &= 0x80000000u;
            double x = float_value(s, bits);
            if (std::isnan(x)) {
              // NaN -> 0, except from f64 or into 64-bit: 1 << (width - 1) (model's ISA rule).
              if (s.bits != 64 && d.bits != 64) return 0;
              return int_store(__int128(1) << (d.bits - 1), d);
            }
            double r = round_integral(x, m);
            __int128 v;
            if (r <= double(int_min(d))) v = int_min(d);
            else if (r >= double(int_max(d))) v = int_max(d);  // 2^63 and 2^64 are exact doubles
            else v = __int128(r);
            if (d.bits == 64 && r >= std::ldexp(1.0, d.sgn ? 63 : 64)) v = int_max(d);
            return int_store(v, d);
          });
        }
}

// ---- float <- int ---------------------------------------------------------------------------------

TEST(Cvt, IntToFloat) {
  for (const FloatT& d : kFloats)
    for (const IntT& s : kInts)
      for (Mode m : {Mode::RN, Mode::RZ, Mode::RM, Mode::RP})
        for (int sat = 0; sat < 2; ++sat) {
          if (sat && d.fmt == &kBF16) continue;
          std::string ins = std::string("cvt") + mode_name(m) + (sat ? ".sat." : ".") + d.name + "." + s.name;
          Kernel k{ins + " %d, %a;", reg_bits(d.bits), {kB64}, "sm_90a", "8.7"};
          auto a = rand_ints(kN);
          auto got = run(k, {a});
          expect_all(ins, got, a, [&](size_t i) -> uint64_t {
            __int128 v = int_value(a[i], s);
            // v as an exact pair hi + lo of doubles (hi rounded to nearest, lo the small rest).
            const double hi = double(v);
            const double lo = double(v - __int128(hi));
            uint64_t r;
            if (d.bits == 64 || d.bits == 32) {
              // Host conversion from long double (exact for 64-bit integers) in the mode.
              volatile long double x = (long double)v;
              std::fesetround(fe_mode(m));
              if (d.bits == 64) {
                volatile double y = double(x);
                r = bits_of(double(y));
              } else {
                volatile float y = float(x);
                r = bits_of(float(y));
              }
              std::fesetround(FE_TONEAREST);
            } else {
              r = v == 0 ? 0 : round_to(*d.fmt, hi, lo, m);
            }
            if (sat) {
              double val = d.bits == 64 ? f64_of(r) : d.bits == 32 ? double(f32_of(r)) : decode(*d.fmt, uint32_t(r));
              if (val <= 0) r = 0;
              else if (val > 1) r = d.bits == 64 ? bits_of(1.0) : d.bits == 32 ? bits_of(1.0f) : 0x3C00;
            }
            return r;
          });
        }
}

// ---- float <- float ---------------------------------------------------------------------------------

uint64_t canon_nan(const FloatT& t) { return t.bits == 64 ? 0 : t.bits == 32 ? 0x7FFFFFFFu : 0x7FFFu; }

// The exact conversion of a non-NaN value x into d in mode m with PTX's modifiers.
uint64_t ref_to(const FloatT& d, double x, Mode m, bool satfinite) {
  if (d.bits == 64) return bits_of(x);
  if (d.bits == 32) {
    if (std::isinf(x)) return bits_of(float(x));
    return bits_of(host_f64_to_f32(x, m));
  }
  if (std::isinf(x)) return satfinite ? round_to(*d.fmt, x, 0, m, true) : ((std::signbit(x) ? 0x8000u : 0u) | d.fmt->inf());
  return round_to(*d.fmt, x, 0, m, satfinite);
}

double value_of(const FloatT& t, uint64_t r) { return t.bits == 64 ? f64_of(r) : t.bits == 32 ? double(f32_of(r)) : decode(*t.fmt, uint32_t(r)); }

uint64_t one_of(const FloatT& t) { return t.bits == 64 ? bits_of(1.0) : t.bits == 32 ? bits_of(1.0f) : t.fmt == &kHalf ? 0x3C00 : 0x3F80; }

TEST(Cvt, FloatToFloat) {
  for (const FloatT& d : kFloats)
    for (const FloatT& s : kFloats) {
      if (&d == &s) continue;
      // Which modifiers ptxas takes for this pair (see sim/sem/cvt.cpp).
      const int rank_d = d.bits == 64 ? 3 : d.bits == 32 ? 2 : 1, rank_s = s.bits == 64 ? 3 : s.bits == 32 ? 2 : 1;
      const bool narrowing = rank_d < rank_s, halves = rank_d == 1 && rank_s == 1;
      const bool ftz_ok = s.bits == 32 || d.bits == 32;
      const bool sat_ok = d.fmt != &kBF16 && s.fmt != &kBF16;
      const bool relu_ok = s.bits == 32 && d.bits == 16;
      std::vector<int> modes = {-1};
      if (narrowing) modes = {0, 1, 2, 3};
      else if (halves) modes = {-1, 0, 1, 2, 3};
      for (int mi : modes)
        for (int ftz = 0; ftz < 2; ++ftz)
          for (int sat = 0; sat < 2; ++sat)
            for (int relu = 0; relu < 2; ++relu)
              for (int sf = 0; sf < 2; ++sf) {
                if ((ftz && !ftz_ok) || (sat && !sat_ok) || ((relu || sf) && !relu_ok)) continue;
                if ((relu || sf) && (ftz || sat || mi > 1)) continue;  // .relu/.satfinite: .rn/.rz only, no .ftz/.sat
                const Mode m = mi < 0 ? Mode::RN : kIntRound[mi].second;
                std::string ins = std::string("cvt") + (mi < 0 ? "" : mode_name(m)) + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") +
                                  (relu ? ".relu" : "") + (sf ? ".satfinite" : "") + "." + d.name + "." + s.name;
                Kernel k{ins + " %d, %a;", reg_bits(d.bits), {reg_bits(s.bits)}, "sm_90a", "8.7"};
                auto a = rand_float(s, kN);
                auto got = run(k, {a});
                expect_all(ins, got, a, [&](size_t i) -> uint64_t {
                  uint64_t bits = a[i];
                  // .ftz flushes f32 subnormal inputs (not for f16 <- f32, where ptxas ignores it).
                  if (ftz && s.bits == 32 && !(d.fmt == &kHalf) && is_sub32(uint32_t(bits))) bits &= 0x80000000u;
                  double x = float_value(s, bits);
                  uint64_t r;
                  if (std::isnan(x)) {
                    if (d.bits == 64) {
                      // f64 keeps the f32 payload (quiet bit set); f16/bf16 sources give the f32 canonical NaN's image.
                      uint32_t f = s.bits == 32 ? uint32_t(bits) : 0x7FFFFFFFu;
                      r = (uint64_t(f >> 31) << 63) | 0x7FF0000000000000ull | (uint64_t(f & 0x7FFFFFu) << 29) | (1ull << 51);
                    } else {
                      r = canon_nan(d);
                    }
                  } else {
                    r = ref_to(d, x, m, sf);
                  }
                  if (ftz && d.bits == 32 && is_sub32(uint32_t(r))) r &= 0x80000000u;
                  const bool isnan_r = std::isnan(value_of(d, r));
                  if (relu && !isnan_r && (r >> (d.bits - 1) & 1)) r = 0;
                  if (sat) {
                    double v = value_of(d, r);
                    if (std::isnan(v) || std::signbit(v)) r = 0;
                    else if (v > 1) r = one_of(d);
                  }
                  return r;
                });
              }
    }
}

TEST(Cvt, SameTypeRoundToIntegral) {
  for (const FloatT& t : kFloats)
    for (int mi = -1; mi < 4; ++mi)
      for (int ftz = 0; ftz < 2; ++ftz)
        for (int sat = 0; sat < 2; ++sat) {
          if ((ftz && t.bits != 32) || (sat && t.fmt == &kBF16)) continue;
          const Mode m = mi < 0 ? Mode::RN : kIntRound[mi].second;
          std::string ins = std::string("cvt") + (mi < 0 ? "" : kIntRound[mi].first) + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") +
                            "." + t.name + "." + t.name;
          Kernel k{ins + " %d, %a;", reg_bits(t.bits), {reg_bits(t.bits)}, "sm_90a", "8.7"};
          auto a = rand_float(t, kN);
          auto got = run(k, {a});
          expect_all(ins, got, a, [&](size_t i) -> uint64_t {
            uint64_t bits = a[i];
            if (mi < 0 && !ftz && !sat) return bits;  // a move: NaN payloads included
            if (ftz && is_sub32(uint32_t(bits))) bits &= 0x80000000u;
            double x = float_value(t, bits);
            uint64_t r;
            if (std::isnan(x)) {
              r = t.bits == 64 ? bits : canon_nan(t);
            } else {
              double y = mi < 0 ? x : round_integral(x, m);  // nearbyint keeps the sign of zero
              r = t.bits == 64 ? bits_of(y) : t.bits == 32 ? bits_of(float(y)) : round_to(*t.fmt, y, 0, Mode::RN);
            }
            if (sat) {
              double v = value_of(t, r);
              if (std::isnan(v) || std::signbit(v)) r = 0;
              else if (v > 1) r = one_of(t);
            }
            return r;
          });
        }
}

// ---- packed forms -------------------------------------------------------------------------------------

TEST(Cvt, PackedHalfPairsPutFirstSourceInUpperHalf) {
  for (bool bf : {false, true})
    for (Mode m : {Mode::RN, Mode::RZ})
      for (int relu = 0; relu < 2; ++relu)
        for (int sf = 0; sf < 2; ++sf) {
          const Fmt& f = bf ? kBF16 : kHalf;
          std::string ins = std::string("cvt") + mode_name(m) + (relu ? ".relu" : "") + (sf ? ".satfinite" : "") +
                            (bf ? ".bf16x2.f32" : ".f16x2.f32");
          Kernel k{ins + " %d, %a, %b;", kB32, {kF32, kF32}, "sm_90a", "8.7"};
          std::vector<uint64_t> a(kN), b(kN);
          for (size_t i = 0; i < kN; ++i) a[i] = rand_f32(rng()), b[i] = rand_f32(rng());
          auto got = run(k, {a, b});
          auto one = [&](uint32_t x) -> uint64_t {
            if (is_nan32(x)) return 0x7FFF;
            double v = f32_of(x);
            uint32_t r = std::isinf(v) && !sf ? ((std::signbit(v) ? 0x8000u : 0u) | f.inf()) : round_to(f, v, 0, m, sf);
            if (relu && (r & 0x8000)) r = 0;
            return r;
          };
          expect_all(ins, got, a, [&](size_t i) { return one(uint32_t(a[i])) << 16 | one(uint32_t(b[i])); }, &b);
        }
  // The ISA's example: a in the upper half.
  Kernel k{"cvt.rn.f16x2.f32 %d, %a, %b;", kB32, {kF32, kF32}, "sm_90a", "8.7"};
  EXPECT_EQ(run(k, {{bits_of(1.0f)}, {bits_of(2.0f)}}), (std::vector<uint64_t>{0x3C004000u}));
}

TEST(Cvt, Tf32) {
  struct C {
    const char* mods;
    Mode m;
    bool sf, relu;
    const char* target;
  };
  const C cases[] = {{".rna", Mode::RNA, false, false, "sm_90a"}, {".rna.satfinite", Mode::RNA, true, false, "sm_90a"},
                     {".rn", Mode::RN, false, false, "sm_90a"},   {".rz", Mode::RZ, false, false, "sm_90a"},
                     {".rn.relu", Mode::RN, false, true, "sm_90a"}, {".rz.relu.satfinite", Mode::RZ, true, true, "sm_100a"},
                     {".rn.satfinite", Mode::RN, true, false, "sm_100a"}};
  for (const C& c : cases) {
    std::string ins = std::string("cvt") + c.mods + ".tf32.f32";
    Kernel k{ins + " %d, %a;", kB32, {kF32}, c.target, "8.8"};
    auto a = std::vector<uint64_t>(kN);
    for (auto& x : a) x = rand_f32(rng());
    auto got = run(k, {a});
    expect_all(ins, got, a, [&](size_t i) -> uint64_t {
      uint32_t x = uint32_t(a[i]);
      if (is_nan32(x)) return 0x7FFFFFFFu;
      double v = f32_of(x);
      uint32_t r = std::isinf(v) && !c.sf ? ((std::signbit(v) ? 0x40000u : 0u) | kTF32.inf()) : round_to(kTF32, v, 0, c.m, c.sf);
      uint32_t out = r << 13;
      if (c.relu && (out >> 31)) out = 0;
      return out;
    });
  }
}

struct NarrowT {
  const char* name;
  const Fmt* f;
  int bits;  // field width: 8, 6, 4
};
const NarrowT kE4M3T{"e4m3x2", &kE4M3, 8}, kE5M2T{"e5m2x2", &kE5M2, 8}, kE2M3T{"e2m3x2", &kE2M3, 6},
    kE3M2T{"e3m2x2", &kE3M2, 6}, kE2M1T{"e2m1x2", &kE2M1, 4};

// f32/f16 value -> narrow code (.rn.satfinite, optional .relu).
uint32_t to_narrow(const NarrowT& t, double v, bool relu) {
  const Fmt& f = *t.f;
  uint32_t r;
  if (std::isnan(v)) r = f.sp == Fmt::NoNan ? round_to(f, f.max_finite(), 0, Mode::RN) : (1u << (f.man + f.exp)) - 1;
  else r = round_to(f, v, 0, Mode::RN, true);
  const bool nan = !std::isnan(v) ? false : f.sp != Fmt::NoNan;
  if (relu && !nan && (r & f.sign_bit())) r = 0;
  return r;
}

TEST(Cvt, NarrowFormatsFromF32AndF16x2) {
  for (const NarrowT* t : {&kE4M3T, &kE5M2T, &kE2M3T, &kE3M2T, &kE2M1T})
    for (bool from_f16x2 : {false, true})
      for (int relu = 0; relu < 2; ++relu) {
        if (from_f16x2 && t->bits == 6) continue;  // ptxas 13: no e2m3x2/e3m2x2 from f16x2
        std::string ins = std::string("cvt.rn.satfinite") + (relu ? ".relu." : ".") + t->name + (from_f16x2 ? ".f16x2" : ".f32");
        const Reg dst = t->bits == 4 ? kB8 : kB16;
        Kernel k{ins + (from_f16x2 ? " %d, %a;" : " %d, %a, %b;"), dst, {kB32, kB32}};
        if (from_f16x2) k.srcs.resize(1);
        std::vector<uint64_t> a(kN), b(kN);
        for (size_t i = 0; i < kN; ++i) {
          if (from_f16x2) a[i] = rand_16(rng(), kHalf) | uint64_t(rand_16(rng(), kHalf)) << 16;
          else a[i] = rand_f32(rng()), b[i] = rand_f32(rng());
          // Values in the narrow format's range, near its rounding points.
          if (i % 3 == 0) {
            double v = std::ldexp(double(rng()() % 4096) / 256.0, int(rng()() % 12) - 6) * ((i & 1) ? -1 : 1);
            if (from_f16x2) a[i] = round_to(kHalf, v, 0, Mode::RN) | uint64_t(round_to(kHalf, -v / 3, 0, Mode::RN)) << 16;
            else a[i] = bits_of(float(v)), b[i] = bits_of(float(-v / 3));
          }
        }
        auto got = from_f16x2 ? run(k, {a}) : run(k, {a, b});
        const int w = t->bits == 4 ? 4 : 8;
        expect_all(ins, got, a, [&](size_t i) -> uint64_t {
          double hi, lo;
          if (from_f16x2) hi = decode(kHalf, uint32_t(a[i] >> 16) & 0xFFFF), lo = decode(kHalf, uint32_t(a[i]) & 0xFFFF);
          else hi = f32_of(a[i]), lo = f32_of(b[i]);
          return uint64_t(to_narrow(*t, hi, relu)) << w | to_narrow(*t, lo, relu);
        }, &b);
      }
}

TEST(Cvt, NarrowFormatsToF16x2) {
  for (const NarrowT* t : {&kE4M3T, &kE5M2T, &kE2M3T, &kE3M2T, &kE2M1T})
    for (int relu = 0; relu < 2; ++relu) {
      std::string ins = std::string("cvt.rn") + (relu ? ".relu" : "") + ".f16x2." + t->name;
      const Reg src = t->bits == 4 ? kB8 : kB16;
      Kernel k{ins + " %d, %a;", kB32, {src}};
      const int w = t->bits == 4 ? 4 : 8;
      std::vector<uint64_t> a(1u << (2 * w));
      for (size_t i = 0; i < a.size(); ++i) a[i] = i;  // every code pair (fp6: including set high bits)
      auto got = run(k, {a});
      auto one = [&](uint32_t code) -> uint64_t {
        code &= (1u << t->bits) - 1;  // the unused high bits of an fp6 byte are ignored
        double v = decode(*t->f, code);
        if (std::isnan(v)) return 0x7FFF;
        uint32_t r = round_to(kHalf, v, 0, Mode::RN);  // exact
        if (relu && (r & 0x8000)) r = 0;
        return r;
      };
      expect_all(ins, got, a, [&](size_t i) { return one(uint32_t(a[i] >> w)) << 16 | one(uint32_t(a[i])); });
    }
}

TEST(Cvt, Ue8m0) {
  auto enc = [](double v, Mode m, bool sf) -> uint64_t {
    if (std::isnan(v)) return 0xFF;
    v = std::fabs(v);
    if (std::isinf(v)) return sf ? 0xFE : 0xFF;
    if (v == 0) return 0;
    int e;
    double fr = std::frexp(v, &e);  // v = fr * 2^e, fr in [0.5, 1)
    int k = e - 1;                 // floor(log2 v)
    if (m == Mode::RP && fr != 0.5) ++k;
    if (k < -127) k = -127;
    if (k > 127) return sf ? 0xFE : 0xFF;
    return uint64_t(k + 127);
  };
  for (Mode m : {Mode::RZ, Mode::RP})
    for (int sf = 0; sf < 2; ++sf)
      for (bool bf : {false, true}) {
        std::string ins = std::string("cvt") + mode_name(m) + (sf ? ".satfinite" : "") + ".ue8m0x2" + (bf ? ".bf16x2" : ".f32");
        Kernel k{ins + (bf ? " %d, %a;" : " %d, %a, %b;"), kB16, {kB32, kB32}};
        if (bf) k.srcs.resize(1);
        std::vector<uint64_t> a(kN), b(kN);
        for (size_t i = 0; i < kN; ++i) {
          if (bf) a[i] = rand_16(rng(), kBF16) | uint64_t(rand_16(rng(), kBF16)) << 16;
          else a[i] = rand_f32(rng()), b[i] = rand_f32(rng());
        }
        auto got = bf ? run(k, {a}) : run(k, {a, b});
        expect_all(ins, got, a, [&](size_t i) -> uint64_t {
          if (bf) return enc(decode(kBF16, uint32_t(a[i] >> 16)), m, sf) << 8 | enc(decode(kBF16, uint32_t(a[i]) & 0xFFFF), m, sf);
          return enc(f32_of(a[i]), m, sf) << 8 | enc(f32_of(b[i]), m, sf);
        }, &b);
      }
  Kernel k{"cvt.rn.bf16x2.ue8m0x2 %d, %a;", kB32, {kB16}};
  std::vector<uint64_t> a(65536);
  for (size_t i = 0; i < a.size(); ++i) a[i] = i;
  auto got = run(k, {a});
  auto one = [](uint32_t e) -> uint64_t {
    if (e == 0xFF) return 0x7FFF;
    return round_to(kBF16, std::ldexp(1.0, int(e) - 127), 0, Mode::RN);  // exact; 2^-127 is a bf16 subnormal
  };
  expect_all("cvt.rn.bf16x2.ue8m0x2", got, a, [&](size_t i) { return one(uint32_t(i >> 8)) << 16 | one(uint32_t(i & 0xFF)); });
}

TEST(Cvt, StochasticRoundingBracketsTheValue) {
  for (bool bf : {false, true}) {
    const Fmt& f = bf ? kBF16 : kHalf;
    std::string ins = std::string("cvt.rs") + (bf ? ".bf16x2.f32" : ".f16x2.f32");
    Kernel k{ins + " %d, %a, %b, %c;", kB32, {kF32, kF32, kB32}};
    std::vector<uint64_t> a(kN), b(kN), r(kN);
    for (size_t i = 0; i < kN; ++i) {
      a[i] = bits_of(float(std::ldexp(1.0 + double(rng()() % 100000) / 100000, int(rng()() % 20) - 10)));
      b[i] = rand_f32(rng());
      r[i] = (i % 4 == 0) ? 0 : rng()();
    }
    auto got = run(k, {a, b, r});
    ASSERT_EQ(got.size(), kN);
    for (size_t i = 0; i < kN; ++i) {
      double v = f32_of(a[i]);
      uint32_t down = round_to(f, v, 0, Mode::RZ), up = round_to(f, v, 0, v < 0 ? Mode::RM : Mode::RP);
      uint32_t hi = uint32_t(got[i] >> 16);
      if (i % 4 == 0) EXPECT_EQ(hi, down) << ins << " with zero random bits truncates: " << hex(a[i]);
      else EXPECT_TRUE(hi == down || hi == up) << ins << " " << hex(a[i]) << " -> " << hex(hi);
    }
  }
}

// ---- cvt.pack ---------------------------------------------------------------------------------------

TEST(Cvt, Pack) {
  struct C {
    const char* t;
    int n;
    bool sgn;
  };
  const C cases[] = {{"u16", 16, false}, {"s16", 16, true}, {"u8", 8, false}, {"s8", 8, true},
                     {"u4", 4, false},   {"s4", 4, true},   {"u2", 2, false}, {"s2", 2, true}};
  for (const C& c : cases) {
    const bool wide = c.n == 16;
    std::string ins = std::string("cvt.pack.sat.") + c.t + (wide ? ".s32" : ".s32.b32");
    Kernel k{ins + (wide ? " %d, %a, %b;" : " %d, %a, %b, %c;"), kB32, {kB32, kB32, kB32}, "sm_90a", "8.7"};
    if (wide) k.srcs.resize(2);
    auto a = rand_ints(kN), b = rand_ints(kN), cc = rand_ints(kN);
    auto got = wide ? run(k, {a, b}) : run(k, {a, b, cc});
    expect_all(ins, got, a, [&](size_t i) -> uint64_t {
      auto sat = [&](uint64_t v) -> uint32_t {
        int64_t x = int32_t(uint32_t(v));
        int64_t lo = c.sgn ? -(int64_t(1) << (c.n - 1)) : 0, hi = c.sgn ? (int64_t(1) << (c.n - 1)) - 1 : (int64_t(1) << c.n) - 1;
        return uint32_t(std::clamp(x, lo, hi)) & ((1u << c.n) - 1);
      };
      uint32_t d = sat(a[i]) << c.n | sat(b[i]);
      if (!wide) d |= uint32_t(cc[i]) << (2 * c.n);
      return d;
    }, &b);
  }
}

// ---- literals and operands ----------------------------------------------------------------------------

TEST(Cvt, LiteralsFollowTheSourceType) {
  // An f64 literal feeding an f64 source keeps all its bits even though the destination is f32.
  Kernel k{"cvt.rz.f32.f64 %d, 0d3FF0000000000001;\n  add.f32 %d, %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
  EXPECT_EQ(run(k, {{0}}), (std::vector<uint64_t>{0x3F800000u}));
  Kernel kp{"cvt.rp.f32.f64 %d, 0d3FF0000000000001;\n  add.f32 %d, %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
  EXPECT_EQ(run(kp, {{0}}), (std::vector<uint64_t>{0x3F800001u}));
  // An f64 literal feeding an f32 source is first rounded to f32.
  Kernel k2{"cvt.f64.f32 %d, 0d3FF0000000000001;\n  add.f64 %d, %d, %a;", kF64, {kF64}, "sm_90a", "8.7"};
  EXPECT_EQ(run(k2, {{0}}), (std::vector<uint64_t>{bits_of(1.0)}));
  Kernel k3{"cvt.rn.f32.s32 %d, -3;\n  add.f32 %d, %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
  EXPECT_EQ(run(k3, {{0}}), (std::vector<uint64_t>{bits_of(-3.0f)}));
}

TEST(Cvt, OperandKindsChecked) {
  const char* bad[] = {
      "cvt.rn.f16.f32 %h1, %h2;",     // f32 source in a 16-bit register
      "cvt.rn.f16.f32 %q1, %f2;",     // f16 destination in an 8-bit register
      "cvt.rn.f16.f32 %p1, %f2;",     // predicate
      "cvt.rn.f32.u32 %f1, %h1;",     // u32 source in a 16-bit register
      "cvt.rzi.u32.f32 %h1, %f1;",
      "cvt.f32.f16 %f1, 0x3C00;",     // no f16 literals
      "cvt.rn.f32.u32 %f1, 0f3F800000;",  // float literal for an integer source
      "cvt.rn.satfinite.e4m3x2.f32 %r1, %f1, %f2;",  // e4m3x2 needs exactly 16 bits
      "cvt.rn.satfinite.e2m1x2.f32 %h1, %f1, %f2;",  // e2m1x2 needs exactly 8 bits
      "cvt.rn.f16x2.e4m3x2 %r1, %r2;",
      "cvt.rna.tf32.f32 %rd1, %f2;",
  };
  for (const char* instr : bad) {
    std::string err = load_error(one_instr_module(instr, "sm_100a"));
    EXPECT_NE(err.find("Arguments mismatch for instruction 'cvt'"), std::string::npos) << instr << "\n" << err;
  }
  const char* good[] = {"cvt.rn.f16.f32 %r1, %f2;", "cvt.u32.u16 %r1, %rd1;", "cvt.f32.f16 %f1, %r1;", "cvt.rn.f16x2.f32 %rd1, %f1, %f2;",
                        "cvt.rn.f16.f32 %h1, 0d3FF0000000000000;", "cvt.u32.u16 %r1, -1;"};
  for (const char* instr : good) EXPECT_EQ(load_error(one_instr_module(instr, "sm_100a")), "") << instr;
}

TEST(Cvt, Sm100FormsRejectedOnSm90) {
  struct C {
    std::string instr, msg;
  };
  const C cases[] = {
      {"cvt.rn.satfinite.e2m1x2.f32 %q1, %f1, %f2;", "Modifier '.e2m1x2' of instruction 'cvt' not supported on .target 'sm_90a'"},
      {"cvt.rn.f16x2.e3m2x2 %r1, %h1;", "Modifier '.e3m2x2' of instruction 'cvt' not supported on .target 'sm_90a'"},
      {"cvt.rz.ue8m0x2.f32 %h1, %f1, %f2;", "Modifier '.ue8m0x2' of instruction 'cvt' not supported on .target 'sm_90a'"},
      {"cvt.rs.f16x2.f32 %r1, %f1, %f2, %r2;", "Modifier '.rs' of instruction 'cvt' not supported on .target 'sm_90a'"},
      {"cvt.rn.satfinite.tf32.f32 %r1, %f1;", "Modifier '.satfinite' of 'cvt.tf32.f32' with .rn/.rz not supported on .target 'sm_90a'"},
  };
  for (const C& c : cases) {
    std::string err = load_error(one_instr_module(c.instr, "sm_90a"));
    EXPECT_NE(err.find(c.msg), std::string::npos) << c.instr << "\n" << err;
    EXPECT_EQ(load_error(one_instr_module(c.instr, "sm_100a")), "") << c.instr;
  }
  std::string err = load_error(one_instr_module("cvt.rn.satfinite.e2m1x2.f32 %q1, %f1, %f2;", "sm_100a", "8.5"));
  EXPECT_NE(err.find(".version"), std::string::npos) << err;
  bool unimpl = false;
  err = load_error(one_instr_module("cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r2;", "sm_100a"), &unimpl);
  EXPECT_TRUE(unimpl) << err;
}

// ---- acceptance sweep vs ptxas ------------------------------------------------------------------------

// ptxas 13.0 (PTX 8.8) verdicts for the scalar sweep below: bit i (4 per hex digit, LSB first) is 1
// when instruction i is accepted; identical for sm_90a and sm_100a.
const char* kScalarSweep =
    "1000000000300000000030000000003000000000300000000030000000003000000000300000000000000011110000003333"
    "000000ffff000000333310000000001000000000300000000030000000003000000000300000000030000000003000000000"
    "00000011110000003333000000ffff0000003333100000000010000000001000000000300000000030000000003000000000"
    "3000000000300000000000000011110000003333000000ffff00000033331000000000100000000010000000001000000000"
    "300000000030000000003000000000300000000000000011110000003333000000ffff000000333330000000003000000000"
    "30000000003000000000100000000030000000003000000000300000000000000011110000003333000000ffff0000003333"
    "1000000000300000000030000000003000000000100000000010000000003000000000300000000000000011110000003333"
    "000000ffff000000333310000000001000000000300000000030000000001000000000100000000010000000003000000000"
    "00000011110000003333000000ffff0000003333100000000010000000001000000000300000000010000000001000000000"
    "1000000000100000000000000011110000003333000000ffff00000033330111100000011110000001111000000111100000"
    "0111100000011110000001111000000111100000100000111111111000000555500000011110000003333000000333300000"
    "033330000003333000000333300000033330000003333000000333300000111110000030000033330ffff000000333300000"
    "0ffff000000ffff000000ffff000000ffff000000ffff000000ffff000000ffff000000ffff000005555500000f000000000"
    "f00000ffff0ffff0000003333000000333300000033330000003333000000333300000033330000003333000000333300000"
    "11111000003000000000f0000000003000003333";

struct PackedCase {
  const char* instr;
  bool sm90a, sm100a;
};
const PackedCase kPacked[] = {
    {"cvt.rn.f16x2.f32 %r1, %f1, %f2;", true, true},
    {"cvt.rz.f16x2.f32 %r1, %f1, %f2;", true, true},
    {"cvt.rn.relu.f16x2.f32 %r1, %f1, %f2;", true, true},
    {"cvt.rn.satfinite.f16x2.f32 %r1, %f1, %f2;", true, true},
    {"cvt.rn.bf16x2.f32 %r1, %f1, %f2;", true, true},
    {"cvt.rz.relu.satfinite.bf16x2.f32 %r1, %f1, %f2;", true, true},
    {"cvt.rs.f16x2.f32 %r1, %f1, %f2, %r3;", false, true},
    {"cvt.rs.relu.satfinite.bf16x2.f32 %r1, %f1, %f2, %r3;", false, true},
    {"cvt.rna.tf32.f32 %r1, %f1;", true, true},
    {"cvt.rna.satfinite.tf32.f32 %r1, %f1;", true, true},
    {"cvt.rn.tf32.f32 %r1, %f1;", true, true},
    {"cvt.rz.relu.tf32.f32 %r1, %f1;", true, true},
    {"cvt.rn.satfinite.tf32.f32 %r1, %f1;", false, true},
    {"cvt.rn.relu.satfinite.tf32.f32 %r1, %f1;", false, true},
    {"cvt.rna.relu.tf32.f32 %r1, %f1;", false, false},
    {"cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;", true, true},
    {"cvt.rn.satfinite.relu.e5m2x2.f32 %h1, %f1, %f2;", true, true},
    {"cvt.rn.e4m3x2.f32 %h1, %f1, %f2;", false, false},
    {"cvt.rz.satfinite.e4m3x2.f32 %h1, %f1, %f2;", false, false},
    {"cvt.rn.satfinite.e4m3x2.f16x2 %h1, %r1;", true, true},
    {"cvt.rn.satfinite.relu.e5m2x2.f16x2 %h1, %r1;", true, true},
    {"cvt.rn.satfinite.e4m3x2.bf16x2 %h1, %r1;", false, false},
    {"cvt.rn.f16x2.e4m3x2 %r1, %h1;", true, true},
    {"cvt.rn.relu.f16x2.e5m2x2 %r1, %h1;", true, true},
    {"cvt.f16x2.e4m3x2 %r1, %h1;", false, false},
    {"cvt.rn.bf16x2.e4m3x2 %r1, %h1;", false, false},
    {"cvt.rn.satfinite.e2m1x2.f32 %q1, %f1, %f2;", false, true},
    {"cvt.rn.satfinite.relu.e2m1x2.f32 %q1, %f1, %f2;", false, true},
    {"cvt.rn.satfinite.e2m1x2.f16x2 %q1, %r1;", false, true},
    {"cvt.rn.satfinite.e2m1x2.bf16x2 %q1, %r1;", false, false},
    {"cvt.rn.f16x2.e2m1x2 %r1, %q1;", false, true},
    {"cvt.rn.relu.f16x2.e2m1x2 %r1, %q1;", false, true},
    {"cvt.rn.satfinite.e2m3x2.f32 %h1, %f1, %f2;", false, true},
    {"cvt.rn.satfinite.relu.e3m2x2.f32 %h1, %f1, %f2;", false, true},
    {"cvt.rn.satfinite.e2m3x2.f16x2 %h1, %r1;", false, false},
    {"cvt.rn.satfinite.e3m2x2.bf16x2 %h1, %r1;", false, false},
    {"cvt.rn.f16x2.e2m3x2 %r1, %h1;", false, true},
    {"cvt.rn.relu.f16x2.e3m2x2 %r1, %h1;", false, true},
    {"cvt.rz.ue8m0x2.f32 %h1, %f1, %f2;", false, true},
    {"cvt.rp.satfinite.ue8m0x2.f32 %h1, %f1, %f2;", false, true},
    {"cvt.rn.ue8m0x2.f32 %h1, %f1, %f2;", false, false},
    {"cvt.rz.ue8m0x2.bf16x2 %h1, %r1;", false, true},
    {"cvt.rp.satfinite.ue8m0x2.bf16x2 %h1, %r1;", false, true},
    {"cvt.rn.bf16x2.ue8m0x2 %r1, %h1;", false, true},
    {"cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r2;", false, true},
    {"cvt.rs.relu.satfinite.e2m1x4.f32 %h1, {%f1, %f2, %f3, %f4}, %r2;", false, true},
    {"cvt.rs.satfinite.e2m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r2;", false, true},
    {"cvt.rn.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4};", false, false},
    {"cvt.rn.f16.f32 %h1, %f1;", true, true},
    {"cvt.rn.bf16.f32 %h1, %f1;", true, true},
    {"cvt.rn.relu.bf16.f32 %h1, %f1;", true, true},
    {"cvt.rn.satfinite.bf16.f32 %h1, %f1;", true, true},
    {"cvt.rn.bf16.u16 %h1, %h2;", true, true},
    {"cvt.rn.bf16.bf16 %h1, %h2;", false, false},
    {"cvt.rni.bf16.bf16 %h1, %h2;", true, true},
    {"cvt.f32.bf16 %f1, %h1;", true, true},
    {"cvt.rn.f32.bf16 %f1, %h1;", true, true},
    {"cvt.f64.bf16 %fd1, %h1;", true, true},
    {"cvt.rz.bf16.f16 %h1, %h2;", true, true},
    {"cvt.bf16.f16 %h1, %h2;", true, true},
    {"cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;", true, true},
    {"cvt.pack.sat.s16.s32 %r1, %r2, %r3;", true, true},
    {"cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4;", true, true},
    {"cvt.pack.sat.s2.s32.b32 %r1, %r2, %r3, %r4;", true, true},
    {"cvt.pack.u8.s32.b32 %r1, %r2, %r3, %r4;", false, false},
    {"cvt.pack.sat.u16.s32 %r1, %r2, %r3;", true, true},
};

std::vector<std::string> scalar_sweep() {
  const char* types[] = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64"};
  auto reg = [](const std::string& t) -> std::string {
    if (t == "u8" || t == "s8") return "%q";
    if (t == "u16" || t == "s16" || t == "f16" || t == "bf16") return "%h";
    if (t == "u32" || t == "s32") return "%r";
    if (t == "u64" || t == "s64") return "%rd";
    return t == "f32" ? "%f" : "%fd";
  };
  std::vector<std::string> out;
  for (std::string d : types)
    for (std::string a : types)
      for (const char* r : {"", ".rn", ".rz", ".rm", ".rp", ".rna", ".rni", ".rzi", ".rmi", ".rpi"})
        for (const char* ftz : {"", ".ftz"})
          for (const char* sat : {"", ".sat"}) out.push_back(std::string("cvt") + r + ftz + sat + "." + d + "." + a + " " + reg(d) + "1, " + reg(a) + "2;");
  return out;
}

}  // namespace

TEST(Cvt, AcceptanceMatchesPtxas) {
  auto sweep = scalar_sweep();
  ASSERT_EQ(std::strlen(kScalarSweep), (sweep.size() + 3) / 4);
  for (const char* target : {"sm_90a", "sm_100a"}) {
    size_t bad = 0;
    for (size_t i = 0; i < sweep.size(); ++i) {
      bool unimpl = false;
      std::string err = load_error(one_instr_module(sweep[i], target), &unimpl);
      bool ok = err.empty() || unimpl;
      char c = kScalarSweep[i / 4];
      bool want = (((c <= '9' ? c - '0' : c - 'a' + 10) >> (i % 4)) & 1) != 0;
      if (ok != want && bad++ < 10)
        ADD_FAILURE() << target << ": " << sweep[i] << ": ptxas " << (want ? "accepts" : "rejects") << "\n" << err;
    }
    EXPECT_EQ(bad, 0u) << target;
    for (const PackedCase& p : kPacked) {
      bool unimpl = false;
      std::string err = load_error(one_instr_module(p.instr, target), &unimpl);
      bool ok = err.empty() || unimpl;
      bool want = std::string(target) == "sm_90a" ? p.sm90a : p.sm100a;
      EXPECT_EQ(ok, want) << target << ": " << p.instr << "\n" << err;
    }
  }
}
