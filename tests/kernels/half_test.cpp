// half.cu: f16/bf16 paired conversions and arithmetic, scalar conversions in all four rounding
// modes, and the widening conversions back to f32.
//
// Host reference: every finite value involved is an exact integer significand times a power of
// two; sums and products of such values are formed exactly in 128-bit integers, then rounded once
// to the destination format with round_bits (IEEE round-to-nearest-even or the directed modes,
// with gradual underflow and overflow to infinity or the largest finite value). Results that are
// NaN are compared as "some NaN" (the payload is not checked); all other results bit for bit.
#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using HalfTest = KernelTest;

using i128 = __int128;
using u128 = unsigned __int128;

enum class Rnd { RN, RZ, RD, RU };

struct Fmt {
  int ebits, mbits;
  int bias() const { return (1 << (ebits - 1)) - 1; }
  uint32_t sign_bit() const { return 1u << (ebits + mbits); }
  uint32_t inf() const { return uint32_t((1u << ebits) - 1) << mbits; }
  uint32_t max_finite() const { return inf() - 1; }
};
constexpr Fmt kHalf{5, 10}, kBf16{8, 7};

int bit_length(u128 m) {
  int p = 0;
  while (m) {
    ++p;
    m >>= 1;
  }
  return p;
}

// Rounds the exact value (-1)^neg * m * 2^e to format f in mode r.
uint32_t round_bits(bool neg, u128 m, int e, Fmt f, Rnd r) {
  uint32_t sign = neg ? f.sign_bit() : 0;
  if (m == 0) return sign;
  const int emin = 1 - f.bias(), emax = f.bias();
  int p = bit_length(m);
  int E = e + p - 1;                         // exponent of the leading bit
  int q = std::max(E, emin) - f.mbits;       // exponent of the last kept bit
  int drop = q - e;
  u128 kept;
  bool above = false, tie = false, below = false;  // the dropped part vs half a unit
  if (drop <= 0) {
    kept = m << -drop;
  } else if (drop > p) {
    kept = 0;
    below = true;                            // 0 < m < 2^(drop-1)
  } else {
    kept = m >> drop;
    u128 rem = m & ((u128(1) << drop) - 1), half = u128(1) << (drop - 1);
    above = rem > half;
    tie = rem == half;
    below = rem != 0 && rem < half;
  }
  bool inexact = above || tie || below;
  bool up = false;
  switch (r) {
    case Rnd::RN: up = above || (tie && (kept & 1)); break;
    case Rnd::RZ: up = false; break;
    case Rnd::RU: up = inexact && !neg; break;
    case Rnd::RD: up = inexact && neg; break;
  }
  if (up) ++kept;
  if (kept >> (f.mbits + 1)) {  // carried into a new bit
    kept >>= 1;
    ++q;
  }
  if (kept < (u128(1) << f.mbits)) return sign | uint32_t(kept);  // subnormal (or zero)
  int Ef = q + f.mbits;
  if (Ef > emax) {
    bool to_inf = r == Rnd::RN || (r == Rnd::RU && !neg) || (r == Rnd::RD && neg);
    return sign | (to_inf ? f.inf() : f.max_finite());
  }
  return sign | (uint32_t(Ef + f.bias()) << f.mbits) | uint32_t(kept - (u128(1) << f.mbits));
}

// A finite value as signed significand × 2^e.
struct Exact {
  i128 m = 0;
  int e = 0;
};

struct Decoded {
  bool nan = false, inf = false, neg = false;
  Exact x;
};

Decoded decode(uint32_t bits, Fmt f) {
  Decoded d;
  d.neg = bits & f.sign_bit();
  uint32_t ex = (bits >> f.mbits) & ((1u << f.ebits) - 1), fr = bits & ((1u << f.mbits) - 1);
  if (ex == (1u << f.ebits) - 1) {
    (fr ? d.nan : d.inf) = true;
    return d;
  }
  i128 m = ex ? fr | (1u << f.mbits) : fr;
  d.x.m = d.neg ? -m : m;
  d.x.e = (ex ? int(ex) : 1) - f.bias() - f.mbits;
  return d;
}

double to_double(uint32_t bits, Fmt f) {
  Decoded d = decode(bits, f);
  if (d.nan) return NAN;
  if (d.inf) return d.neg ? -INFINITY : INFINITY;
  double v = std::ldexp(double(int64_t(d.x.m)), d.x.e);
  return d.neg && v == 0 ? -0.0 : v;
}

Exact add(Exact a, Exact b) {
  if (a.m == 0) return b;
  if (b.m == 0) return a;
  int e = std::min(a.e, b.e);
  EXPECT_LT(std::max(a.e, b.e) - e, 90) << "exponent spread too wide for the 128-bit reference";
  return {(a.m << (a.e - e)) + (b.m << (b.e - e)), e};
}
Exact mul(Exact a, Exact b) { return {a.m * b.m, a.e + b.e}; }

// Rounds an exact result to f; `dbl` is the same operation in double, which supplies NaN, infinity
// and the sign of an exact zero (double gets those right: the inputs are exact in double).
uint32_t round_result(Exact x, double dbl, Fmt f, Rnd r = Rnd::RN) {
  if (std::isnan(dbl)) return f.inf() | (1u << (f.mbits - 1));
  if (std::isinf(dbl)) return (dbl < 0 ? f.sign_bit() : 0) | f.inf();
  if (x.m == 0) return std::signbit(dbl) ? f.sign_bit() : 0;
  bool neg = x.m < 0;
  return round_bits(neg, u128(neg ? -x.m : x.m), x.e, f, r);
}

// f32 → format f in mode r.
uint32_t from_float(float v, Fmt f, Rnd r) {
  uint32_t b = std::bit_cast<uint32_t>(v);
  Decoded d = decode(b, Fmt{8, 23});
  if (d.nan) return f.inf() | (1u << (f.mbits - 1));
  if (d.inf) return (d.neg ? f.sign_bit() : 0) | f.inf();
  if (d.x.m == 0) return d.neg ? f.sign_bit() : 0;
  return round_bits(d.neg, u128(d.neg ? -d.x.m : d.x.m), d.x.e, f, r);
}

enum class Op { Add, Sub, Mul, Fma };

uint32_t ref_op(Op op, uint32_t a, uint32_t b, uint32_t c, Fmt f) {
  Decoded da = decode(a, f), db = decode(b, f), dc = decode(c, f);
  double xa = to_double(a, f), xb = to_double(b, f), xc = to_double(c, f);
  bool special = da.nan || db.nan || dc.nan || da.inf || db.inf || dc.inf;
  Exact r;
  double dbl = 0;
  switch (op) {
    case Op::Add: dbl = xa + xb; break;
    case Op::Sub: dbl = xa - xb; break;
    case Op::Mul: dbl = xa * xb; break;
    case Op::Fma: dbl = std::fma(xa, xb, xc); break;
  }
  if (special) return round_result({}, dbl, f);  // an infinite or NaN input gives an infinite or NaN result
  switch (op) {
    case Op::Add: r = add(da.x, db.x); break;
    case Op::Sub: r = add(da.x, Exact{-db.x.m, db.x.e}); break;
    case Op::Mul: r = mul(da.x, db.x); break;
    case Op::Fma: r = add(mul(da.x, db.x), dc.x); break;
  }
  return round_result(r, dbl, f);
}

bool is_nan16(uint16_t v, Fmt f) { return (v & ~f.sign_bit()) > f.inf(); }

::testing::AssertionResult compare16(const std::string& what, const std::vector<uint16_t>& got,
                                     const std::vector<uint16_t>& want, Fmt f) {
  return compare_arrays(
      what, got, want, [&](uint16_t g, uint16_t w) { return g == w || (is_nan16(g, f) && is_nan16(w, f)); },
      [&](uint16_t v) {
        std::ostringstream os;
        os << "0x" << std::hex << v << " (" << to_double(v, f) << ")";
        return os.str();
      });
}

::testing::AssertionResult compare_f32_nan_any(const std::string& what, const std::vector<float>& got,
                                               const std::vector<float>& want) {
  std::vector<float> g = got, w = want;
  for (size_t i = 0; i < g.size() && i < w.size(); ++i)
    if (std::isnan(g[i]) && std::isnan(w[i])) g[i] = w[i];
  return compare_float_bits(what, g, w);
}

// Inputs for f16: log-uniform magnitudes from below the smallest subnormal to above the largest
// finite value, exact midpoints between neighbouring halfs (ties), small integers, and specials.
std::vector<float> half_inputs(std::mt19937_64& rng, size_t n, Fmt f, int emin2, int emax2) {
  std::vector<float> v(n);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(emin2, emax2), pct(0, 99);
  for (auto& x : v) {
    int k = pct(rng);
    bool neg = rng() & 1;
    if (k < 65) {
      x = std::ldexp(mant(rng), ex(rng));
    } else if (k < 80) {  // a midpoint between two adjacent finite values of f
      uint32_t bits = std::min(from_float(std::ldexp(mant(rng), ex(rng)), f, Rnd::RZ), f.max_finite() - 1);
      float lo = float(to_double(bits, f)), hi = float(to_double(bits + 1, f));
      x = lo + (hi - lo) / 2;  // exact in f32
    } else if (k < 90) {
      x = float(std::uniform_int_distribution<int>(0, 2048)(rng));
    } else if (k < 93) {
      x = 0.0f;
    } else if (k < 95) {
      x = INFINITY;
    } else if (k < 96) {
      x = NAN;
    } else {
      x = std::ldexp(mant(rng), std::uniform_int_distribution<int>(-8, 8)(rng));
    }
    if (neg) x = -x;
  }
  return v;
}

std::vector<uint16_t> split16(const std::vector<uint32_t>& w) {
  std::vector<uint16_t> out;
  for (uint32_t x : w) {
    out.push_back(uint16_t(x));
    out.push_back(uint16_t(x >> 16));
  }
  return out;
}

void run_pair_math(Harness& h, const char* kernel, Fmt f, int emin2, int emax2, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t grid = 8, block = 256;
  int n = int(grid * block) - 3;  // pairs
  std::vector<float> a = half_inputs(rng, 2 * n, f, emin2, emax2), b = half_inputs(rng, 2 * n, f, emin2, emax2),
                     c = half_inputs(rng, 2 * n, f, emin2, emax2);
  uint64_t da = h.upload(a), db = h.upload(b), dc = h.upload(c);
  uint64_t o[5];
  for (auto& x : o) x = h.alloc_n<uint32_t>(n);
  uint64_t back = h.alloc_n<float>(2 * n);
  RunResult r = h.launch(kernel, {grid}, {block}, h.params(kernel, da, db, dc, o[0], o[1], o[2], o[3], o[4], back, n), 0,
                         nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<uint16_t> want[5];
  std::vector<float> want_back;
  for (int i = 0; i < 2 * n; ++i) {
    uint32_t ha = from_float(a[i], f, Rnd::RN), hb = from_float(b[i], f, Rnd::RN), hc = from_float(c[i], f, Rnd::RN);
    want[0].push_back(uint16_t(ha));
    want[1].push_back(uint16_t(ref_op(Op::Add, ha, hb, 0, f)));
    want[2].push_back(uint16_t(ref_op(Op::Sub, ha, hb, 0, f)));
    want[3].push_back(uint16_t(ref_op(Op::Mul, ha, hb, 0, f)));
    uint32_t fm = ref_op(Op::Fma, ha, hb, hc, f);
    want[4].push_back(uint16_t(fm));
    want_back.push_back(float(to_double(fm, f)));
  }
  const char* names[5] = {"paired conversion from f32 (rn)", "add", "sub", "mul", "fma"};
  for (int k = 0; k < 5; ++k)
    EXPECT_TRUE(compare16(std::string(kernel) + " " + names[k], split16(h.download<uint32_t>(o[k], n)), want[k], f));
  EXPECT_TRUE(compare_f32_nan_any(std::string(kernel) + " fma result widened to f32", h.download<float>(back, 2 * n),
                                  want_back));
}

TEST_P(HalfTest, Half2Math) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "half");
  run_pair_math(h, "half2_math", kHalf, -27, 17, seed);
}

TEST_P(HalfTest, Bfloat162Math) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "half");
  // Magnitudes within 2^±19 keep the exact reference inside 128 bits.
  run_pair_math(h, "bf162_math", kBf16, -19, 18, seed);
}

TEST_P(HalfTest, ScalarConversions) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "half");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 8, block = 256;
  int n = int(grid * block) - 17;
  std::vector<float> x = half_inputs(rng, n, kHalf, -27, 17);
  // A third of the inputs: arbitrary f32 bit patterns (f32 subnormals, huge values, NaN payloads)
  // and bf16 midpoints.
  for (int i = 0; i < n; i += 3) x[i] = std::bit_cast<float>(uint32_t(rng()));
  for (int i = 1; i < n; i += 9) x[i] = std::bit_cast<float>((uint32_t(rng()) & 0xffff0000u) | 0x8000u);
  uint64_t dx = h.upload(x), dout = h.alloc_n<uint16_t>(5 * size_t(n)), dback = h.alloc_n<float>(2 * size_t(n));
  RunResult r = h.launch("scalar_convert", {grid}, {block}, h.params("scalar_convert", dx, dout, dback, n), 0, nullptr,
                         seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<uint16_t> got = h.download<uint16_t>(dout, 5 * size_t(n));
  std::vector<float> got_back = h.download<float>(dback, 2 * size_t(n));
  const char* names[5] = {"__float2half_rn", "__float2half_rz", "__float2half_rd", "__float2half_ru",
                          "__float2bfloat16_rn"};
  const Rnd modes[5] = {Rnd::RN, Rnd::RZ, Rnd::RD, Rnd::RU, Rnd::RN};
  for (int k = 0; k < 5; ++k) {
    Fmt f = k == 4 ? kBf16 : kHalf;
    std::vector<uint16_t> g(n), w(n);
    for (int i = 0; i < n; ++i) {
      g[i] = got[5 * size_t(i) + k];
      w[i] = uint16_t(from_float(x[i], f, modes[k]));
    }
    EXPECT_TRUE(compare16(names[k], g, w, f)) << "(inputs are f32; the failing input can be found by index)";
  }
  std::vector<float> gh(n), gb(n), wh(n), wb(n);
  for (int i = 0; i < n; ++i) {
    gh[i] = got_back[2 * size_t(i)];
    gb[i] = got_back[2 * size_t(i) + 1];
    wh[i] = float(to_double(from_float(x[i], kHalf, Rnd::RN), kHalf));
    wb[i] = float(to_double(from_float(x[i], kBf16, Rnd::RN), kBf16));
  }
  EXPECT_TRUE(compare_f32_nan_any("__half2float(__float2half_rn(x))", gh, wh));
  EXPECT_TRUE(compare_f32_nan_any("__bfloat162float(__float2bfloat16_rn(x))", gb, wb));
}

// The reference rounding itself, on values whose answers are known.
TEST(HalfReference, KnownRoundings) {
  EXPECT_EQ(from_float(1.0f, kHalf, Rnd::RN), 0x3c00u);
  EXPECT_EQ(from_float(65504.0f, kHalf, Rnd::RN), 0x7bffu);
  EXPECT_EQ(from_float(65520.0f, kHalf, Rnd::RN), 0x7c00u);   // the tie above max rounds to inf
  EXPECT_EQ(from_float(65519.99f, kHalf, Rnd::RN), 0x7bffu);
  EXPECT_EQ(from_float(65520.0f, kHalf, Rnd::RZ), 0x7bffu);
  EXPECT_EQ(from_float(-1e9f, kHalf, Rnd::RU), 0xfbffu);
  EXPECT_EQ(from_float(-1e9f, kHalf, Rnd::RD), 0xfc00u);
  EXPECT_EQ(from_float(std::ldexp(1.0f, -24), kHalf, Rnd::RN), 0x0001u);
  EXPECT_EQ(from_float(std::ldexp(1.0f, -25), kHalf, Rnd::RN), 0x0000u);   // tie to even (0)
  EXPECT_EQ(from_float(std::ldexp(1.5f, -25), kHalf, Rnd::RN), 0x0001u);
  EXPECT_EQ(from_float(std::ldexp(3.0f, -25), kHalf, Rnd::RN), 0x0002u);   // 1.5 ulp: tie to even (2)
  EXPECT_EQ(from_float(std::ldexp(1.0f, -30), kHalf, Rnd::RU), 0x0001u);
  EXPECT_EQ(from_float(-std::ldexp(1.0f, -30), kHalf, Rnd::RU), 0x8000u);
  EXPECT_EQ(from_float(std::ldexp(1023.0f, -24) + std::ldexp(1.0f, -25), kHalf, Rnd::RN), 0x0400u);  // to normal
  EXPECT_EQ(from_float(1.0f + std::ldexp(1.0f, -11), kHalf, Rnd::RN), 0x3c00u);
  EXPECT_EQ(from_float(1.0f + std::ldexp(3.0f, -11), kHalf, Rnd::RN), 0x3c02u);
  EXPECT_EQ(from_float(1.0f, kBf16, Rnd::RN), 0x3f80u);
  EXPECT_EQ(from_float(std::bit_cast<float>(0x3f808000u), kBf16, Rnd::RN), 0x3f80u);
  EXPECT_EQ(from_float(std::bit_cast<float>(0x3f818000u), kBf16, Rnd::RN), 0x3f82u);
  EXPECT_EQ(from_float(std::bit_cast<float>(0x7f7fffffu), kBf16, Rnd::RN), 0x7f80u);
  EXPECT_EQ(ref_op(Op::Add, 0x3c00, 0x3c00, 0, kHalf), 0x4000u);
  EXPECT_EQ(ref_op(Op::Sub, 0x3c00, 0x3c00, 0, kHalf), 0x0000u);
  EXPECT_EQ(ref_op(Op::Mul, 0x8000, 0x3c00, 0, kHalf), 0x8000u);
  EXPECT_EQ(ref_op(Op::Fma, 0x3c00, 0x8000, 0x8000, kHalf), 0x8000u);  // -0 + -0
  EXPECT_EQ(ref_op(Op::Fma, 0x7bff, 0x4000, 0xfbff, kHalf), 0x7bffu);  // no intermediate overflow
  EXPECT_EQ(ref_op(Op::Mul, 0x7bff, 0x4000, 0, kHalf), 0x7c00u);
  EXPECT_EQ(ref_op(Op::Mul, 0x7c00, 0x0000, 0, kHalf) & 0x7e00u, 0x7e00u);  // inf * 0 = NaN
}

KTEST_INSTANTIATE(HalfTest);

}  // namespace
}  // namespace ptxsim::ktest
