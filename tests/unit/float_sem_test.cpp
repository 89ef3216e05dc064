// Floating-point instruction semantics through the real pipeline: each test runs one PTX
// instruction over a batch of random bit patterns (NaNs, infinities, subnormals, signed zeros and
// values whose exponents interact) and compares every result bit-for-bit with a reference
// written here from the IEEE/PTX definitions (host FPU under fesetround for f32/f64; exact
// double arithmetic plus float_test_util.h's round_to() for f16/bf16). Approximate instructions
// are checked against their ISA error bounds and special-value tables. Decode-time tests check
// target gating and operand rules.
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/float_test_util.h"

using namespace ftest;

namespace {

constexpr size_t kN = 512;

// Compares got[i] with want(i) for every i, reporting the first few mismatches.
void expect_all(const std::string& what, const std::vector<uint64_t>& got, size_t n,
                const std::function<uint64_t(size_t)>& want, const std::function<std::string(size_t)>& inputs) {
  ASSERT_EQ(got.size(), n) << what;
  int shown = 0;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t w = want(i);
    if (got[i] != w) {
      ++bad;
      if (shown++ < 6) ADD_FAILURE() << what << ": inputs " << inputs(i) << " -> " << hex(got[i]) << ", expected " << hex(w);
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n << " results differ";
}

std::vector<uint64_t> gen32(size_t n) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rand_f32(rng());
  return v;
}
std::vector<uint64_t> gen64(size_t n) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rand_f64(rng());
  return v;
}
std::vector<uint64_t> gen16(size_t n, const Fmt& f) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rand_16(rng(), f);
  return v;
}
// b correlated with a (same or nearby exponent) half of the time, so sums cancel and round.
std::vector<uint64_t> near32(const std::vector<uint64_t>& a) {
  std::vector<uint64_t> v(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t r = rng()();
    if (r & 1) {
      v[i] = rand_f32(rng());
    } else {
      uint32_t x = uint32_t(a[i]);
      uint32_t e = (x >> 23) & 0xFF;
      int d = int((r >> 8) % 7) - 3;
      uint32_t ne = uint32_t(std::clamp<int>(int(e) + d, 0, 254));
      v[i] = (uint32_t(r >> 40) & 0x80000000u) | (ne << 23) | (uint32_t(r >> 16) & 0x7FFFFFu);
    }
  }
  return v;
}

const Mode kModes[] = {Mode::RN, Mode::RZ, Mode::RM, Mode::RP};

std::string in3(const std::vector<uint64_t>& a, const std::vector<uint64_t>* b, const std::vector<uint64_t>* c, size_t i) {
  std::string s = hex(a[i]);
  if (b) s += ", " + hex((*b)[i]);
  if (c) s += ", " + hex((*c)[i]);
  return s;
}

// ---- f32 add/sub/mul/fma/mad --------------------------------------------------------------------

TEST(FloatSem, F32ArithAllModesFtzSat) {
  for (std::string op : {"add", "sub", "mul", "fma", "mad"}) {
    const bool three = op == "fma" || op == "mad";
    for (int mi = -1; mi < 4; ++mi) {
      if (three && mi < 0) continue;  // fma/mad need a rounding modifier
      const Mode m = mi < 0 ? Mode::RN : kModes[mi];
      for (int ftz = 0; ftz < 2; ++ftz)
        for (int sat = 0; sat < 2; ++sat) {
          std::string ins = op + (mi < 0 ? "" : mode_name(m)) + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + ".f32";
          Kernel k{ins + " %d, %a, %b" + (three ? ", %c;" : ";"), kF32, {kF32, kF32, kF32}, "sm_90a", "8.7"};
          auto a = gen32(kN), b = near32(a), c = near32(a);
          auto got = run(k, {a, b, c});
          expect_all(ins, got, kN,
                     [&](size_t i) { return ref_f32(op, a[i], b[i], c[i], m, ftz, sat); },
                     [&](size_t i) { return in3(a, &b, three ? &c : nullptr, i); });
        }
    }
  }
}

TEST(FloatSem, F32CanonicalNaNAndSignedZero) {
  Kernel k{"add.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  std::vector<uint64_t> a = {0x7FC00001, 0xFF800000, 0x80000000, 0x80000000, 0x3F800000, 0x7F800001};
  std::vector<uint64_t> b = {0x3F800000, 0x7F800000, 0x80000000, 0x00000000, 0xBF800000, 0xFFC00000};
  auto got = run(k, {a, b});
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], 0x7FFFFFFFu);  // NaN operand: canonical NaN, payload dropped
  EXPECT_EQ(got[1], 0x7FFFFFFFu);  // Inf - Inf
  EXPECT_EQ(got[2], 0x80000000u);  // -0 + -0 = -0
  EXPECT_EQ(got[3], 0x00000000u);  // -0 + +0 = +0
  EXPECT_EQ(got[4], 0x00000000u);  // 1 - 1 = +0
  EXPECT_EQ(got[5], 0x7FFFFFFFu);
  Kernel km{"add.rm.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  auto gm = run(km, {{0x3F800000, 0x80000000}, {0xBF800000, 0x00000000}});
  EXPECT_EQ(gm, (std::vector<uint64_t>{0x80000000u, 0x80000000u}));  // exact zero under .rm is -0
}

TEST(FloatSem, F32FtzFlushesInputsAndOutputs) {
  Kernel k{"mul.ftz.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  // 2^-126 * 0.5 = 2^-127 (subnormal) -> +0; a subnormal input reads as zero of its sign.
  auto got = run(k, {{0x00800000, 0x80000001, 0x00800000}, {0x3F000000, 0x3F800000, 0xBF000000}});
  EXPECT_EQ(got, (std::vector<uint64_t>{0x00000000u, 0x80000000u, 0x80000000u}));
  Kernel k2{"mul.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  auto got2 = run(k2, {{0x00800000}, {0x3F000000}});
  EXPECT_EQ(got2, (std::vector<uint64_t>{0x00400000u}));
}

TEST(FloatSem, F32FloatLiteralsAreConverted) {
  // A double literal feeding an f32 operand is rounded to f32; an f32 literal feeding f64 widened.
  Kernel k{"add.f32 %d, %a, 0d3FF0000000000001;", kF32, {kF32}, "sm_90a", "8.7"};
  auto got = run(k, {{0x00000000}});
  EXPECT_EQ(got, (std::vector<uint64_t>{0x3F800000u}));
  Kernel k64{"add.f64 %d, %a, 0f3FC00000;", kF64, {kF64}, "sm_90a", "8.7"};
  auto got64 = run(k64, {{0}});
  EXPECT_EQ(got64, (std::vector<uint64_t>{bits_of(1.5)}));
}

// ---- f32 div/rcp/sqrt (IEEE) ----------------------------------------------------------------------

TEST(FloatSem, F32DivRcpSqrtIeee) {
  for (std::string op : {"div", "rcp", "sqrt"})
    for (Mode m : kModes)
      for (int ftz = 0; ftz < 2; ++ftz) {
        const bool two = op == "div";
        std::string ins = op + mode_name(m) + (ftz ? ".ftz" : "") + ".f32";
        Kernel k{ins + (two ? " %d, %a, %b;" : " %d, %a;"), kF32, {kF32, kF32}, "sm_90a", "8.7"};
        if (!two) k.srcs.resize(1);
        auto a = gen32(kN), b = near32(a);
        auto got = two ? run(k, {a, b}) : run(k, {a});
        expect_all(ins, got, kN,
                   [&](size_t i) -> uint64_t {
                     uint32_t x = a[i], y = b[i];
                     if (ftz) x = flush32(x), y = flush32(y);
                     float r = op == "div" ? host_div(f32_of(x), f32_of(y), m)
                               : op == "rcp" ? host_div(1.0f, f32_of(x), m)
                                             : host_sqrt(f32_of(x), m);
                     uint32_t u = bits_of(r);
                     if (is_nan32(u)) u = 0x7FFFFFFFu;
                     return ftz ? flush32(u) : u;
                   },
                   [&](size_t i) { return in3(a, two ? &b : nullptr, nullptr, i); });
      }
}

// ---- f64 ----------------------------------------------------------------------------------------

// NaN rules of the model (docs/numerics.md): a NaN operand is returned unchanged, checked in the
// order b, a (fma: b, c, a); an invalid operation gives 0xFFF8000000000000.
uint64_t f64_nan_rule(const std::vector<uint64_t>& order, uint64_t result) {
  for (uint64_t x : order)
    if (is_nan64(x)) return x;
  return is_nan64(result) ? 0xFFF8000000000000ull : result;
}

TEST(FloatSem, F64ArithAllModes) {
  for (std::string op : {"add", "sub", "mul", "fma", "div", "rcp", "sqrt"})
    for (int mi = -1; mi < 4; ++mi) {
      const bool need_rnd = op != "add" && op != "sub" && op != "mul";
      if (need_rnd && mi < 0) continue;
      const Mode m = mi < 0 ? Mode::RN : kModes[mi];
      const int nsrc = op == "fma" ? 3 : (op == "rcp" || op == "sqrt") ? 1 : 2;
      std::string ins = op + (mi < 0 ? "" : mode_name(m)) + ".f64";
      std::string body = ins + " %d, %a" + (nsrc > 1 ? ", %b" : "") + (nsrc > 2 ? ", %c" : "") + ";";
      Kernel k{body, kF64, {kF64, kF64, kF64}, "sm_90a", "8.7"};
      k.srcs.resize(nsrc);
      auto a = gen64(kN), b = gen64(kN), c = gen64(kN);
      std::vector<std::vector<uint64_t>> in = {a, b, c};
      in.resize(nsrc);
      auto got = run(k, in);
      expect_all(ins, got, kN,
                 [&](size_t i) -> uint64_t {
                   double x = f64_of(a[i]), y = f64_of(b[i]), z = f64_of(c[i]);
                   if (op == "add") return f64_nan_rule({b[i], a[i]}, bits_of(host_add(x, y, m)));
                   if (op == "sub") return f64_nan_rule({b[i], a[i]}, bits_of(host_add(x, -y, m)));
                   if (op == "mul") return f64_nan_rule({b[i], a[i]}, bits_of(host_mul(x, y, m)));
                   if (op == "div") return f64_nan_rule({b[i], a[i]}, bits_of(host_div(x, y, m)));
                   if (op == "fma") return f64_nan_rule({b[i], c[i], a[i]}, bits_of(host_fma(x, y, z, m)));
                   if (op == "rcp") return f64_nan_rule({a[i]}, bits_of(host_div(1.0, x, m)));
                   return f64_nan_rule({a[i]}, bits_of(host_sqrt(x, m)));
                 },
                 [&](size_t i) { return in3(a, nsrc > 1 ? &b : nullptr, nsrc > 2 ? &c : nullptr, i); });
    }
}

TEST(FloatSem, MadIsFma) {
  // mad.rnd.f32 is the fused operation: 1 + 2^-23 times 1 - 2^-23, minus 1 keeps the -2^-46 term.
  for (std::string op : {"mad", "fma"}) {
    Kernel k{op + ".rn.f32 %d, %a, %b, %c;", kF32, {kF32, kF32, kF32}, "sm_90a", "8.7"};
    auto got = run(k, {{0x3F800001}, {0x3F7FFFFE}, {0xBF800000}});
    float want = float(double(f32_of(0x3F800001)) * double(f32_of(0x3F7FFFFE)) - 1.0);
    EXPECT_EQ(got, (std::vector<uint64_t>{bits_of(want)})) << op;
  }
}

// ---- f16 / bf16 -----------------------------------------------------------------------------------

TEST(FloatSem, HalfArith) {
  struct Case {
    std::string op;
    bool bf;
    Mode m;
    bool ftz, sat, relu;
  };
  std::vector<Case> cases;
  for (std::string op : {"add", "sub", "mul", "fma"}) {
    for (bool ftz : {false, true})
      for (bool sat : {false, true}) cases.push_back({op, false, Mode::RN, ftz, sat, false});
    cases.push_back({op, true, Mode::RN, false, false, false});
  }
  cases.push_back({"fma", false, Mode::RN, false, false, true});
  cases.push_back({"fma", false, Mode::RN, true, false, true});
  for (Mode m : kModes) {
    cases.push_back({"fma", true, m, false, false, false});
    cases.push_back({"fma", true, m, false, false, true});
  }
  for (const Case& cs : cases)
    for (bool x2 : {false, true}) {
      const Fmt& f = cs.bf ? kBF16 : kHalf;
      const bool three = cs.op == "fma";
      std::string rnd = (three || cs.m != Mode::RN) ? mode_name(cs.m) : "";
      std::string ins = cs.op + rnd + (cs.ftz ? ".ftz" : "") + (cs.sat ? ".sat" : "") + (cs.relu ? ".relu" : "") + "." +
                        (cs.bf ? "bf16" : "f16") + (x2 ? "x2" : "");
      const Reg r = x2 ? kB32 : kB16;
      Kernel k{ins + " %d, %a, %b" + (three ? ", %c;" : ";"), r, {r, r, r}, "sm_90a", "8.7"};
      std::vector<uint64_t> a(kN), b(kN), c(kN);
      for (size_t i = 0; i < kN; ++i) {
        a[i] = rand_16(rng(), f) | (x2 ? uint64_t(rand_16(rng(), f)) << 16 : 0);
        b[i] = rand_16(rng(), f) | (x2 ? uint64_t(rand_16(rng(), f)) << 16 : 0);
        c[i] = rand_16(rng(), f) | (x2 ? uint64_t(rand_16(rng(), f)) << 16 : 0);
      }
      auto got = run(k, {a, b, c});
      expect_all(ins, got, kN,
                 [&](size_t i) -> uint64_t {
                   auto one = [&](int sh) {
                     return uint64_t(ref_half(f, cs.op, uint16_t(a[i] >> sh), uint16_t(b[i] >> sh), uint16_t(c[i] >> sh),
                                              cs.m, cs.ftz, cs.sat, cs.relu))
                            << sh;
                   };
                   return x2 ? (one(16) | one(0)) : one(0);
                 },
                 [&](size_t i) { return in3(a, &b, three ? &c : nullptr, i); });
    }
}

// ---- sm_100: f32x2 and mixed precision ------------------------------------------------------------

TEST(FloatSem, F32x2Lanes) {
  for (std::string op : {"add", "sub", "mul", "fma"})
    for (Mode m : kModes)
      for (int ftz = 0; ftz < 2; ++ftz) {
        const bool three = op == "fma";
        std::string ins = op + mode_name(m) + (ftz ? ".ftz" : "") + ".f32x2";
        Kernel k{ins + " %d, %a, %b" + (three ? ", %c;" : ";"), kB64, {kB64, kB64, kB64}};
        std::vector<uint64_t> a(kN), b(kN), c(kN);
        auto lo_a = gen32(kN), hi_a = gen32(kN), lo_b = near32(lo_a), hi_b = near32(hi_a), lo_c = near32(lo_a),
             hi_c = near32(hi_a);
        for (size_t i = 0; i < kN; ++i) {
          a[i] = hi_a[i] << 32 | lo_a[i];
          b[i] = hi_b[i] << 32 | lo_b[i];
          c[i] = hi_c[i] << 32 | lo_c[i];
        }
        auto got = run(k, {a, b, c});
        expect_all(ins, got, kN,
                   [&](size_t i) -> uint64_t {
                     uint64_t lo = ref_f32(op, lo_a[i], lo_b[i], lo_c[i], m, ftz, false);
                     uint64_t hi = ref_f32(op, hi_a[i], hi_b[i], hi_c[i], m, ftz, false);
                     return hi << 32 | lo;
                   },
                   [&](size_t i) { return in3(a, &b, three ? &c : nullptr, i); });
      }
}

TEST(FloatSem, MixedPrecision) {
  for (bool bf : {false, true})
    for (std::string op : {"add", "sub", "fma"})
      for (Mode m : kModes)
        for (int sat = 0; sat < 2; ++sat) {
          const Fmt& f = bf ? kBF16 : kHalf;
          const bool three = op == "fma";
          std::string ins = op + mode_name(m) + (sat ? ".sat" : "") + ".f32." + (bf ? "bf16" : "f16");
          Kernel k{ins + (three ? " %d, %a, %b, %c;" : " %d, %a, %c;"), kF32, {kB16, kB16, kF32}};
          auto a = gen16(kN, f), b = gen16(kN, f), c = gen32(kN);
          auto got = run(k, {a, b, c});
          expect_all(ins, got, kN,
                     [&](size_t i) -> uint64_t {
                       float x = float(decode(f, uint16_t(a[i]))), y = float(decode(f, uint16_t(b[i])));
                       if (std::isnan(x)) x = f32_of(0x7FFFFFFF);
                       if (std::isnan(y)) y = f32_of(0x7FFFFFFF);
                       uint32_t r = op == "add"   ? bits_of(host_add(x, f32_of(c[i]), m))
                                    : op == "sub" ? bits_of(host_add(x, -f32_of(c[i]), m))
                                                  : ref_fma_f32(x, y, f32_of(c[i]), m);
                       if (is_nan32(r)) r = 0x7FFFFFFF;
                       return sat ? sat32(r) : r;
                     },
                     [&](size_t i) { return in3(a, three ? &b : nullptr, &c, i); });
        }
}

// ---- min / max --------------------------------------------------------------------------------

// min/max from the ISA's description: -0 < +0; a NaN operand is ignored unless both are NaN
// (.NaN: any NaN gives NaN); .xorsign.abs compares magnitudes and gives the result the XOR of the
// input signs unless it is NaN. `canon` is the format's canonical NaN.
template <class T>
T ref_minmax(T a, T b, bool is_max, bool nan_mode, bool xorsign, T sign, T inf, T canon) {
  auto isnan = [&](T x) { return T(x & ~sign) > inf; };
  auto key = [&](T x) { return (x & sign) ? T(~x) : T(x | sign); };  // total order, -0 < +0
  T xs = T((a ^ b) & sign);
  if (xorsign) a = T(a & ~sign), b = T(b & ~sign);
  T d;
  if (isnan(a) && isnan(b)) d = canon;
  else if (nan_mode && (isnan(a) || isnan(b))) d = canon;
  else if (isnan(a)) d = b;
  else if (isnan(b)) d = a;
  else d = (key(a) < key(b)) != is_max ? a : b;
  if (xorsign && !isnan(d)) d = T((d & ~sign) | xs);
  return d;
}

TEST(FloatSem, MinMaxTwoInput) {
  struct T {
    const char* type;
    Reg reg;
    int bits;  // 32: f32, 16: f16, 17: bf16, 33: f16x2, 34: bf16x2, 64: f64
  };
  const T types[] = {{"f32", kF32, 32}, {"f16", kB16, 16}, {"bf16", kB16, 17}, {"f16x2", kB32, 33}, {"bf16x2", kB32, 34}, {"f64", kF64, 64}};
  for (const T& t : types)
    for (bool is_max : {false, true})
      for (int ftz = 0; ftz < 2; ++ftz)
        for (int nan = 0; nan < 2; ++nan)
          for (int xs = 0; xs < 2; ++xs) {
            const bool bf = t.bits == 17 || t.bits == 34;
            if (t.bits == 64 && (ftz || nan || xs)) continue;
            if (bf && ftz) continue;
            std::string ins = std::string(is_max ? "max" : "min") + (ftz ? ".ftz" : "") + (nan ? ".NaN" : "") +
                              (xs ? ".xorsign.abs" : "") + "." + t.type;
            Kernel k{ins + " %d, %a, %b;", t.reg, {t.reg, t.reg}, "sm_90a", "8.7"};
            std::vector<uint64_t> a, b;
            if (t.bits == 64) a = gen64(kN), b = gen64(kN);
            else if (t.bits == 32) a = gen32(kN), b = near32(a);
            else {
              const Fmt& f = bf ? kBF16 : kHalf;
              for (size_t i = 0; i < kN; ++i) {
                a.push_back(rand_16(rng(), f) | uint64_t(rand_16(rng(), f)) << 16);
                b.push_back(rand_16(rng(), f) | uint64_t(rand_16(rng(), f)) << 16);
                if (i % 5 == 0) b[i] = a[i] ^ 0x80008000u;  // equal magnitudes, opposite signs
              }
              if (t.bits < 32) {
                for (auto& x : a) x &= 0xFFFF;
                for (auto& x : b) x &= 0xFFFF;
              }
            }
            auto got = run(k, {a, b});
            expect_all(ins, got, kN,
                       [&](size_t i) -> uint64_t {
                         if (t.bits == 64) {
                           if (is_nan64(a[i]) && is_nan64(b[i])) return b[i];  // model: both NaN -> b
                           return ref_minmax<uint64_t>(a[i], b[i], is_max, false, false, 1ull << 63, 0x7FF0000000000000ull, 0);
                         }
                         if (t.bits == 32) {
                           uint32_t x = a[i], y = b[i];
                           if (ftz) x = flush32(x), y = flush32(y);
                           return ref_minmax<uint32_t>(x, y, is_max, nan, xs, 0x80000000u, 0x7F800000u, 0x7FFFFFFFu);
                         }
                         const Fmt& f = bf ? kBF16 : kHalf;
                         auto one = [&](int sh) -> uint64_t {
                           uint16_t x = uint16_t(a[i] >> sh), y = uint16_t(b[i] >> sh);
                           auto fl = [&](uint16_t v) -> uint16_t {
                             return (ftz && ((v >> f.man) & ((1u << f.exp) - 1)) == 0) ? uint16_t(v & 0x8000) : v;
                           };
                           x = fl(x), y = fl(y);
                           return uint64_t(ref_minmax<uint16_t>(x, y, is_max, nan, xs, 0x8000, uint16_t(f.inf()), 0x7FFF)) << sh;
                         };
                         return t.bits > 32 ? (one(16) | one(0)) : one(0);
                       },
                       [&](size_t i) { return in3(a, &b, nullptr, i); });
          }
}

TEST(FloatSem, MinMaxThreeInputSm100) {
  for (bool is_max : {false, true})
    for (int ftz = 0; ftz < 2; ++ftz)
      for (int nan = 0; nan < 2; ++nan)
        for (int abs = 0; abs < 2; ++abs) {
          std::string ins = std::string(is_max ? "max" : "min") + (ftz ? ".ftz" : "") + (nan ? ".NaN" : "") + (abs ? ".abs" : "") + ".f32";
          Kernel k{ins + " %d, %a, %b, %c;", kF32, {kF32, kF32, kF32}};
          auto a = gen32(kN), b = near32(a), c = near32(a);
          auto got = run(k, {a, b, c});
          expect_all(ins, got, kN,
                     [&](size_t i) -> uint64_t {
                       uint32_t v[3] = {uint32_t(a[i]), uint32_t(b[i]), uint32_t(c[i])};
                       bool any_nan = false;
                       std::vector<uint32_t> num;
                       for (uint32_t& x : v) {
                         if (ftz) x = flush32(x);
                         if (abs) x &= 0x7FFFFFFFu;
                         if (is_nan32(x)) any_nan = true;
                         else num.push_back(x);
                       }
                       if ((nan && any_nan) || num.empty()) return 0x7FFFFFFFu;
                       uint32_t d = num[0];
                       for (uint32_t x : num) d = ref_minmax<uint32_t>(d, x, is_max, false, false, 0x80000000u, 0x7F800000u, 0x7FFFFFFFu);
                       return d;
                     },
                     [&](size_t i) { return in3(a, &b, &c, i); });
        }
}

// ---- abs, neg, copysign, testp ----------------------------------------------------------------

TEST(FloatSem, AbsNeg) {
  for (bool neg : {false, true}) {
    for (int ftz = 0; ftz < 2; ++ftz) {
      std::string ins = std::string(neg ? "neg" : "abs") + (ftz ? ".ftz" : "") + ".f32";
      Kernel k{ins + " %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
      auto a = gen32(kN);
      auto got = run(k, {a});
      expect_all(ins, got, kN,
                 [&](size_t i) -> uint64_t {
                   uint32_t x = ftz ? flush32(a[i]) : uint32_t(a[i]);
                   if (is_nan32(x)) return 0x7FFFFFFFu;
                   return neg ? x ^ 0x80000000u : x & 0x7FFFFFFFu;
                 },
                 [&](size_t i) { return in3(a, nullptr, nullptr, i); });
    }
    std::string ins = std::string(neg ? "neg" : "abs") + ".f64";
    Kernel k{ins + " %d, %a;", kF64, {kF64}, "sm_90a", "8.7"};
    auto a = gen64(kN);
    auto got = run(k, {a});
    expect_all(ins, got, kN,
               [&](size_t i) -> uint64_t {
                 if (is_nan64(a[i])) return a[i];  // f64: NaN passes through
                 return neg ? a[i] ^ (1ull << 63) : a[i] & ~(1ull << 63);
               },
               [&](size_t i) { return in3(a, nullptr, nullptr, i); });
    for (const char* t : {"f16", "f16x2", "bf16", "bf16x2"})
      for (int ftz = 0; ftz < 2; ++ftz) {
        const bool bf = t[0] == 'b', x2 = std::string(t).ends_with("x2");
        if (bf && ftz) continue;
        const Fmt& f = bf ? kBF16 : kHalf;
        std::string ins2 = std::string(neg ? "neg" : "abs") + (ftz ? ".ftz." : ".") + t;
        Kernel k2{ins2 + " %d, %a;", x2 ? kB32 : kB16, {x2 ? kB32 : kB16}, "sm_90a", "8.7"};
        std::vector<uint64_t> a2(kN);
        for (auto& x : a2) x = rand_16(rng(), f) | (x2 ? uint64_t(rand_16(rng(), f)) << 16 : 0);
        auto got2 = run(k2, {a2});
        expect_all(ins2, got2, kN,
                   [&](size_t i) -> uint64_t {
                     auto one = [&](int sh) -> uint64_t {
                       uint16_t x = uint16_t(a2[i] >> sh);
                       if (ftz && ((x >> f.man) & ((1u << f.exp) - 1)) == 0) x &= 0x8000;
                       if ((x & 0x7FFF) > f.inf()) return uint64_t(0x7FFF) << sh;
                       return uint64_t(neg ? x ^ 0x8000 : x & 0x7FFF) << sh;
                     };
                     return x2 ? (one(16) | one(0)) : one(0);
                   },
                   [&](size_t i) { return in3(a2, nullptr, nullptr, i); });
      }
  }
}

TEST(FloatSem, CopysignAndTestp) {
  Kernel k{"copysign.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  auto a = gen32(kN), b = gen32(kN);
  auto got = run(k, {a, b});
  expect_all("copysign.f32", got, kN, [&](size_t i) -> uint64_t { return (b[i] & 0x7FFFFFFFu) | (a[i] & 0x80000000u); },
             [&](size_t i) { return in3(a, &b, nullptr, i); });
  Kernel k64{"copysign.f64 %d, %a, %b;", kF64, {kF64, kF64}, "sm_90a", "8.7"};
  auto a64 = gen64(kN), b64 = gen64(kN);
  auto got64 = run(k64, {a64, b64});
  expect_all("copysign.f64", got64, kN, [&](size_t i) -> uint64_t { return (b64[i] & ~(1ull << 63)) | (a64[i] & (1ull << 63)); },
             [&](size_t i) { return in3(a64, &b64, nullptr, i); });

  for (std::string t : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"}) {
    for (bool wide : {false, true}) {
      std::string ins = "testp." + t + (wide ? ".f64" : ".f32");
      Kernel kt{ins + " %d, %a;", kPred, {wide ? kF64 : kF32}, "sm_90a", "8.7"};
      auto x = wide ? gen64(kN) : gen32(kN);
      auto gt = run(kt, {x});
      expect_all(ins, gt, kN,
                 [&](size_t i) -> uint64_t {
                   double v = wide ? f64_of(x[i]) : double(f32_of(x[i]));
                   bool sub = wide ? ((x[i] >> 52 & 0x7FF) == 0 && (x[i] & 0xFFFFFFFFFFFFFull) != 0) : is_sub32(uint32_t(x[i]));
                   if (t == "finite") return std::isfinite(v);
                   if (t == "infinite") return std::isinf(v);
                   if (t == "number") return !std::isnan(v);
                   if (t == "notanumber") return std::isnan(v);
                   if (t == "normal") return std::isfinite(v) && !sub;  // PTX: zero counts as normal
                   return sub;
                 },
                 [&](size_t i) { return in3(x, nullptr, nullptr, i); });
    }
  }
}

// ---- approximate instructions: special values and ISA error bounds --------------------------------

// Distance in f32 ulps between the result bits and the exact value v (long double).
double ulp_error(uint32_t r, long double v) {
  if (std::isinf(f32_of(r)) || std::isnan(f32_of(r))) return std::isinf(v) && (std::signbit(double(v)) == bool(r >> 31)) ? 0 : 1e9;
  long double diff = std::fabs((long double)f32_of(r) - v);
  int e;
  std::frexp(double(std::max<long double>(std::fabs(v), std::ldexp(1.0L, -126))), &e);
  return double(diff / std::ldexp(1.0L, e - 24));
}

TEST(FloatSem, ApproxF32SpecialValues) {
  struct SV {
    std::string ins;
    uint32_t in, out;
  };
  const SV table[] = {
      {"ex2.approx.f32", 0xFF800000, 0x00000000}, {"ex2.approx.f32", 0x7F800000, 0x7F800000},
      {"ex2.approx.f32", 0x80000000, 0x3F800000}, {"ex2.approx.f32", 0x7FC00000, 0x7FFFFFFF},
      {"lg2.approx.f32", 0x00000000, 0xFF800000}, {"lg2.approx.f32", 0x80000000, 0xFF800000},
      {"lg2.approx.f32", 0xBF800000, 0x7FFFFFFF}, {"lg2.approx.f32", 0x7F800000, 0x7F800000},
      {"lg2.approx.f32", 0x3F800000, 0x00000000}, {"lg2.approx.ftz.f32", 0x00000001, 0xFF800000},
      {"sin.approx.f32", 0x80000000, 0x80000000}, {"sin.approx.f32", 0x7F800000, 0x7FFFFFFF},
      {"cos.approx.f32", 0x80000000, 0x3F800000}, {"cos.approx.f32", 0xFF800000, 0x7FFFFFFF},
      {"rcp.approx.f32", 0x80000000, 0xFF800000}, {"rcp.approx.f32", 0x7F800000, 0x00000000},
      {"rcp.approx.ftz.f32", 0x00000001, 0x7F800000}, {"sqrt.approx.f32", 0x80000000, 0x80000000},
      {"sqrt.approx.f32", 0xBF800000, 0x7FFFFFFF}, {"sqrt.approx.f32", 0x7F800000, 0x7F800000},
      {"rsqrt.approx.f32", 0x00000000, 0x7F800000}, {"rsqrt.approx.f32", 0x80000000, 0xFF800000},
      {"rsqrt.approx.f32", 0x7F800000, 0x00000000}, {"rsqrt.approx.f32", 0xBF800000, 0x7FFFFFFF},
      {"tanh.approx.f32", 0x7F800000, 0x3F800000}, {"tanh.approx.f32", 0xFF800000, 0xBF800000},
      {"tanh.approx.f32", 0x80000000, 0x80000000}, {"tanh.approx.f32", 0x7FC00000, 0x7FFFFFFF},
  };
  for (const SV& s : table) {
    Kernel k{s.ins + " %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
    auto got = run(k, {{s.in}});
    EXPECT_EQ(got, (std::vector<uint64_t>{s.out})) << s.ins << " " << hex(s.in);
  }
}

TEST(FloatSem, ApproxF32ErrorBounds) {
  struct Fn {
    std::string ins;
    std::function<long double(long double)> f;
    double max_ulp;
    float lo, hi;
  };
  const Fn fns[] = {
      {"ex2.approx.f32", [](long double x) { return std::exp2(x); }, 2.0, -120.f, 120.f},
      {"lg2.approx.f32", [](long double x) { return std::log2(x); }, 2.0, 1e-30f, 1e30f},
      {"rcp.approx.f32", [](long double x) { return 1.0L / x; }, 1.0, -1e30f, 1e30f},
      {"sqrt.approx.f32", [](long double x) { return std::sqrt(x); }, 1.0, 0.f, 1e30f},
      {"rsqrt.approx.f32", [](long double x) { return 1.0L / std::sqrt(x); }, 1.0, 1e-30f, 1e30f},
      {"tanh.approx.f32", [](long double x) { return std::tanh(x); }, 2.0, -10.f, 10.f},
  };
  for (const Fn& fn : fns) {
    Kernel k{fn.ins + " %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
    std::vector<uint64_t> a(kN);
    for (auto& x : a) {
      float v;
      do v = f32_of(rand_f32(rng()));
      while (!(v >= fn.lo && v <= fn.hi) || is_sub32(bits_of(v)));
      x = bits_of(v);
    }
    auto got = run(k, {a});
    ASSERT_EQ(got.size(), kN);
    for (size_t i = 0; i < kN; ++i) {
      long double v = fn.f((long double)f32_of(a[i]));
      if (fn.ins.starts_with("lg2") && std::fabs(v) < 1) {
        // lg2: absolute error 2^-22 near 1.
        EXPECT_LE(std::fabs((long double)f32_of(got[i]) - v), std::ldexp(1.0L, -22)) << fn.ins << " " << hex(a[i]);
        continue;
      }
      EXPECT_LE(ulp_error(uint32_t(got[i]), v), fn.max_ulp) << fn.ins << " " << hex(a[i]) << " -> " << hex(got[i]);
    }
  }
  // sin/cos: absolute error 2^-20.5 on [-2pi, 2pi].
  for (std::string op : {"sin", "cos"}) {
    Kernel k{op + ".approx.f32 %d, %a;", kF32, {kF32}, "sm_90a", "8.7"};
    std::vector<uint64_t> a(kN);
    for (size_t i = 0; i < kN; ++i) a[i] = bits_of(float(-6.28 + 12.56 * double(i) / kN));
    auto got = run(k, {a});
    for (size_t i = 0; i < kN; ++i) {
      long double x = f32_of(a[i]);
      long double v = op == "sin" ? std::sin(x) : std::cos(x);
      EXPECT_LE(std::fabs((long double)f32_of(got[i]) - v), std::ldexp(1.0L, -20)) << op << " " << hex(a[i]);
    }
  }
}

TEST(FloatSem, DivApproxAndFull) {
  Kernel kf{"div.full.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  Kernel ka{"div.approx.f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  std::vector<uint64_t> a(kN), b(kN);
  for (size_t i = 0; i < kN; ++i) {
    a[i] = bits_of(float(std::ldexp(1.0 + double(rng()() % 1000) / 1000, int(rng()() % 40) - 20)));
    b[i] = bits_of(float(std::ldexp(1.0 + double(rng()() % 1000) / 1000, int(rng()() % 40) - 20)));
  }
  auto gf = run(kf, {a, b}), ga = run(ka, {a, b});
  for (size_t i = 0; i < kN; ++i) {
    long double q = (long double)f32_of(a[i]) / (long double)f32_of(b[i]);
    EXPECT_LE(ulp_error(uint32_t(gf[i]), q), 2.0) << "div.full " << hex(a[i]) << "/" << hex(b[i]);
    EXPECT_LE(ulp_error(uint32_t(ga[i]), q), 2.0) << "div.approx " << hex(a[i]) << "/" << hex(b[i]);
  }
  // ISA: for 2^126 < |b| < 2^128, div.approx gives 0 for finite a and NaN for a = Inf.
  auto big = run(ka, {{0x3F800000, 0x7F800000}, {0x7F000000, 0x7F000000}});
  EXPECT_EQ(big[0] & 0x7FFFFFFFu, 0u);
  EXPECT_EQ(big[1], 0x7FFFFFFFu);
}

TEST(FloatSem, ApproxHalfForms) {
  // ex2.approx.f16 / tanh.approx.f16 and the bf16 forms: special values, lane order and bounds.
  Kernel k{"ex2.approx.f16x2 %d, %a;", kB32, {kB32}, "sm_90a", "8.7"};
  auto got = run(k, {{0x3C00FC00u}});  // hi = 1.0, lo = -Inf
  EXPECT_EQ(got, (std::vector<uint64_t>{0x40000000u}));  // 2.0 | +0
  Kernel kb{"ex2.approx.ftz.bf16 %d, %a;", kB16, {kB16}, "sm_90a", "8.7"};
  EXPECT_EQ(run(kb, {{0x3F80u, 0x7FC0u}}), (std::vector<uint64_t>{0x4000u, 0x7FFFu}));
  Kernel kt{"tanh.approx.bf16x2 %d, %a;", kB32, {kB32}, "sm_90a", "8.7"};
  EXPECT_EQ(run(kt, {{0x7F80FF80u}}), (std::vector<uint64_t>{0x3F80BF80u}));
  Kernel kt16{"tanh.approx.f16 %d, %a;", kB16, {kB16}, "sm_90a", "8.7"};
  std::vector<uint64_t> a(kN);
  for (size_t i = 0; i < kN; ++i) a[i] = rand_16(rng(), kHalf);
  auto g16 = run(kt16, {a});
  for (size_t i = 0; i < kN; ++i) {
    double x = decode(kHalf, uint16_t(a[i]));
    double r = decode(kHalf, uint16_t(g16[i]));
    if (std::isnan(x)) {
      EXPECT_EQ(g16[i], 0x7FFFu);
      continue;
    }
    EXPECT_LE(std::fabs(r - std::tanh(x)), std::ldexp(1.0, -10.987)) << hex(a[i]);
  }
}

TEST(FloatSem, F64ApproxForms) {
  Kernel kr{"rcp.approx.ftz.f64 %d, %a;", kF64, {kF64}, "sm_90a", "8.7"};
  auto got = run(kr, {{bits_of(4.0), bits_of(-0.0), 0x7FF8000000000000ull}});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], bits_of(0.25));
  EXPECT_EQ(got[1], bits_of(-double(INFINITY)));
  EXPECT_EQ(got[2], 0x7FFFFFFF00000000ull);  // ISA: NaN -> 0x7FFFFFFF00000000
  Kernel ks{"rsqrt.approx.f64 %d, %a;", kF64, {kF64}, "sm_90a", "8.7"};
  auto gs = run(ks, {{bits_of(4.0), bits_of(0.0)}});
  EXPECT_EQ(gs, (std::vector<uint64_t>{bits_of(0.5), bits_of(double(INFINITY))}));
}

// ---- decode-time checks -----------------------------------------------------------------------

TEST(FloatSem, Sm100FormsRejectedOnSm90) {
  struct C {
    std::string instr, msg;
  };
  const C cases[] = {
      {"add.f32x2 %rd1, %rd2, %rd3;", "Modifier '.f32x2' of instruction 'add' not supported on .target 'sm_90a'"},
      {"fma.rn.f32x2 %rd1, %rd2, %rd3, %rd4;", "Modifier '.f32x2' of instruction 'fma' not supported on .target 'sm_90a'"},
      {"add.rn.f32.f16 %f1, %h1, %f2;", "Mixed-precision 'add.f32.f16' not supported on .target 'sm_90a'"},
      {"fma.rn.sat.f32.bf16 %f1, %h1, %h2, %f2;", "Mixed-precision 'fma.f32.bf16' not supported on .target 'sm_90a'"},
      {"min.f32 %f1, %f2, %f3, %f4;", "Three-input 'min' not supported on .target 'sm_90a'"},
      {"max.NaN.abs.f32 %f1, %f2, %f3, %f4;", "Three-input 'max' not supported on .target 'sm_90a'"},
  };
  for (const C& c : cases) {
    std::string err = load_error(one_instr_module(c.instr, "sm_90a"));
    EXPECT_NE(err.find(c.msg), std::string::npos) << c.instr << "\n" << err;
    EXPECT_EQ(load_error(one_instr_module(c.instr, "sm_100a")), "") << c.instr;
  }
  // PTX version gates.
  std::string err = load_error(one_instr_module("min.f32 %f1, %f2, %f3, %f4;", "sm_100a", "8.7"));
  EXPECT_NE(err.find("requires PTX ISA .version 8.8"), std::string::npos) << err;
}

TEST(FloatSem, ModifierRulesFollowPtxas) {
  struct C {
    std::string instr, msg;  // msg empty: accepted
  };
  const C cases[] = {
      {"mad.f32 %f1, %f2, %f3, %f4;", "Rounding modifier required for instruction 'mad'"},
      {"fma.f64 %fd1, %fd2, %fd3, %fd4;", "Rounding modifier required for instruction 'fma'"},
      {"fma.rz.f16 %h1, %h2, %h3, %h4;", "Illegal rounding modifier for instruction 'fma'"},
      {"fma.rz.relu.bf16 %h1, %h2, %h3, %h4;", ""},
      {"add.rz.f16 %h1, %h2, %h3;", "Illegal rounding modifier for instruction 'add'"},
      {"add.sat.f64 %fd1, %fd2, %fd3;", "Illegal modifier '.sat' for instruction 'add'"},
      {"add.ftz.bf16 %h1, %h2, %h3;", "Illegal modifier '.ftz' for instruction 'add'"},
      {"fma.rn.sat.relu.f16 %h1, %h2, %h3, %h4;", "cannot be combined"},
      {"div.f32 %f1, %f2, %f3;", "Rounding modifier required for instruction 'div'"},
      {"div.approx.f64 %fd1, %fd2, %fd3;", "Illegal modifier '.approx' for instruction 'div'"},
      {"rcp.rn.ftz.f64 %fd1, %fd2;", ""},
      {"rcp.approx.f64 %fd1, %fd2;", "requires .ftz"},
      {"ex2.f32 %f1, %f2;", "'.approx' required"},
      {"ex2.approx.bf16 %h1, %h2;", "'.ftz' required"},
      {"ex2.approx.ftz.f16 %h1, %h2;", "Illegal modifier '.ftz' for instruction 'ex2'"},
      {"min.xorsign.f32 %f1, %f2, %f3;", "'.xorsign' must be followed by '.abs'"},
      {"min.abs.f32 %f1, %f2, %f3;", "needs three inputs"},
      {"min.f16 %h1, %h2, %h3, %h4;", "only defined for .f32"},
      {"add.f32 _, %f1, %f2;", "Result discard mode is not allowed"},
      {"fma.rn.oob.f16 %h1, %h2, %h3, %h4;", ""},
      {"fma.rn.oob.relu.bf16x2 %r1, %r2, %r3, %r4;", ""},
      {"testp.f32 %p1, %f1;", "unimplemented"},
  };
  for (const C& c : cases) {
    std::string err = load_error(one_instr_module(c.instr, "sm_100a"));
    if (c.msg.empty()) EXPECT_EQ(err, "") << c.instr;
    else EXPECT_NE(err.find(c.msg), std::string::npos) << c.instr << "\n" << err;
  }
}

TEST(FloatSem, OperandKindsChecked) {
  const char* bad[] = {
      "add.f32 %rd1, %f1, %f2;",        // 64-bit register for f32
      "add.f16 %r1, %h1, %h2;",         // 32-bit register for f16
      "add.f16x2 %h1, %r1, %r2;",       // 16-bit register for f16x2
      "add.f32 %f1, %f2, 0x3F800000;",  // integer literal for a float operand
      "add.f16 %h1, %h2, 0x3C00;",      // no literals for f16
      "fma.rn.f16x2 %r1, %r2, %r3, 0x3C003C00;",
      "add.f32x2 %r1, %r2, %r3;",  // f32x2 needs 64-bit registers
      "testp.finite.f32 %r1, %f1;",
      "add.rn.f32.f16 %f1, %f1, %f2;",  // the f16 operand must be a 16-bit register
  };
  for (const char* instr : bad) {
    std::string err = load_error(one_instr_module(instr, "sm_100a"));
    EXPECT_NE(err.find("Arguments mismatch"), std::string::npos) << instr << "\n" << err;
  }
}

// Every add/sub/mul/fma/mad/div/rcp/sqrt/rsqrt/ex2/lg2/sin/cos/tanh/abs/neg/min/max/copysign/testp
// form of a sweep over types, roundings, .ftz, .sat, .relu, .oob, .NaN, .xorsign.abs, .abs and two
// or three inputs is accepted exactly when ptxas 13.0 accepts it (bitmaps recorded with ptxas for
// PTX 8.8; bit i is instruction i of the sweep below, 4 bits per hex digit, LSB first).
const char* kFloatSweepSm90a =
    "fffff11111ff000ff0001100011000000000000000000fffff11111ff000ff0001100011000000000000000000fffff11111"
    "ff000ff000110001100000000000000000000555555550010101010007700000000770000000030303030003030303000000"
    "0000000000000005555000555555550010101010000000000000000000000000000000000000000000000000000000000000"
    "00000cff305500000000000000ccf32ff00000000000000ccf305500000000000000c00030000000000000000c04848c0000"
    "0c00000c00000404444777cdd154154110000054154154100054154154100000000054154110000054154154100054154154"
    "1000000000fff300";
const char* kFloatSweepSm100a =
    "fffff11111ff000ff0001100011000555553333333333fffff11111ff000ff0001100011000555553333333333fffff11111"
    "ff000ff000110001100055555000000000000555555550010101010007700000000770000000030303030003030303000111"
    "1111103333033335555000555555550010101010000000000000000000000000000000000000000000000000000000000000"
    "00000cff305500000000000000ccf32ff00000000000000ccf305500000000000000c00030000000000000000c04848c0000"
    "0c00000c00000404444777cdd17e97e91000005415415410005415415410000000007e97e910000054154154100054154154"
    "1000000000fff300";

std::vector<std::string> float_sweep() {
  std::vector<std::string> out;
  const std::pair<const char*, const char*> reg[] = {{"f32", "%f"}, {"f64", "%fd"}, {"f16", "%h"}, {"f16x2", "%r"},
                                                     {"bf16", "%h"}, {"bf16x2", "%r"}, {"f32x2", "%rd"}};
  auto regof = [&](const std::string& t) {
    for (auto& [n, r] : reg)
      if (t == n) return std::string(r);
    return std::string();
  };
  auto ops = [&](const std::string& t, int n) {
    std::string s;
    for (int i = 1; i <= n; ++i) s += (i > 1 ? ", " : "") + regof(t) + std::to_string(i);
    return s;
  };
  const char* rnd5[] = {"", ".rn", ".rz", ".rm", ".rp"};
  for (std::string op : {"add", "sub", "mul"}) {
    for (auto& [t, r] : reg)
      for (const char* rr : rnd5)
        for (const char* ftz : {"", ".ftz"})
          for (const char* sat : {"", ".sat"}) out.push_back(op + rr + ftz + sat + "." + t + " " + ops(t, 3) + ";");
    for (const char* at : {"f16", "bf16"})
      for (const char* rr : rnd5)
        for (const char* ftz : {"", ".ftz"})
          for (const char* sat : {"", ".sat"}) out.push_back(op + rr + ftz + sat + ".f32." + at + " %f1, %h1, %f2;");
  }
  for (std::string op : {"fma", "mad"}) {
    for (auto& [t, r] : reg)
      for (const char* rr : rnd5)
        for (const char* ftz : {"", ".ftz"})
          for (const char* sat : {"", ".sat"})
            for (const char* relu : {"", ".relu"}) out.push_back(op + rr + ftz + sat + relu + "." + t + " " + ops(t, 4) + ";");
    for (const char* at : {"f16", "bf16"})
      for (const char* rr : rnd5)
        for (const char* ftz : {"", ".ftz"})
          for (const char* sat : {"", ".sat"}) out.push_back(op + rr + ftz + sat + ".f32." + at + " %f1, %h1, %h2, %f2;");
    for (std::string t : {"f16", "f16x2", "bf16", "bf16x2", "f32"})
      for (const char* relu : {"", ".relu"})
        for (const char* ftz : {"", ".ftz"}) out.push_back(op + ".rn.oob" + relu + ftz + "." + t + " " + ops(t, 4) + ";");
  }
  for (std::string op : {"div", "rcp", "sqrt", "rsqrt"}) {
    int n = op == "div" ? 3 : 2;
    for (std::string t : {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"})
      for (const char* rr : {"", ".approx", ".full", ".rn", ".rz", ".rm", ".rp"})
        for (const char* ftz : {"", ".ftz"}) out.push_back(op + rr + ftz + "." + t + " " + ops(t, n) + ";");
  }
  for (std::string op : {"ex2", "lg2", "sin", "cos", "tanh"})
    for (std::string t : {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"})
      for (const char* rr : {"", ".approx"})
        for (const char* ftz : {"", ".ftz"}) out.push_back(op + rr + ftz + "." + t + " " + ops(t, 2) + ";");
  for (std::string op : {"abs", "neg"})
    for (std::string t : {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2", "f32x2"})
      for (const char* ftz : {"", ".ftz"}) out.push_back(op + ftz + "." + t + " " + ops(t, 2) + ";");
  for (std::string op : {"min", "max"})
    for (std::string t : {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2", "f32x2"})
      for (const char* ftz : {"", ".ftz"})
        for (const char* nan : {"", ".NaN"})
          for (const char* xs : {"", ".xorsign.abs", ".abs"}) {
            out.push_back(op + ftz + nan + xs + "." + t + " " + ops(t, 3) + ";");
            out.push_back(op + ftz + nan + xs + "." + t + " " + ops(t, 4) + ";");
          }
  for (std::string t : {"f32", "f64", "f16"}) {
    out.push_back("copysign." + t + " " + ops(t, 3) + ";");
    for (std::string o : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"})
      out.push_back("testp." + o + "." + t + " %p1, " + regof(t) + "1;");
  }
  return out;
}

bool bitmap_bit(const char* hexs, size_t i) {
  char c = hexs[i / 4];
  int v = c <= '9' ? c - '0' : c - 'a' + 10;
  return (v >> (i % 4)) & 1;
}

}  // namespace

TEST(FloatSem, AcceptanceMatchesPtxas) {
  auto sweep = float_sweep();
  for (auto [target, bits] : {std::pair{"sm_90a", kFloatSweepSm90a}, std::pair{"sm_100a", kFloatSweepSm100a}}) {
    ASSERT_EQ(std::strlen(bits), (sweep.size() + 3) / 4) << target;
    size_t bad = 0;
    for (size_t i = 0; i < sweep.size(); ++i) {
      bool unimpl = false;
      std::string err = load_error(one_instr_module(sweep[i], target), &unimpl);
      bool ok = err.empty() || unimpl;
      if (ok != bitmap_bit(bits, i) && bad++ < 10)
        ADD_FAILURE() << target << ": " << sweep[i] << ": ptxas " << (bitmap_bit(bits, i) ? "accepts" : "rejects") << "\n" << err;
    }
    EXPECT_EQ(bad, 0u) << target;
  }
}
