// Exact-value and exhaustive tests of the PTX numerics model (model/numerics).
//
// The exhaustive tests compare against references written independently of the model: value
// formulas for decoding, and brute-force nearest-value search over every code of a format for
// encoding.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "model/numerics/numerics.h"

using namespace ptxsim::model::num;

namespace {

uint32_t F(float f) { return f32_bits(f); }
float Fv(uint32_t b) { return f32_from(b); }
uint64_t D(double d) { return f64_bits(d); }

// ---- independent decoders (first-principles formulas) -----------------------------------------
double ref_f16(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = std::ldexp(m, -24);
  else v = std::ldexp(1024 + m, e - 25);
  return s ? -v : v;
}
double ref_bf16(uint16_t h) { return static_cast<double>(f32_from(uint32_t{h} << 16)); }
// Generic sign/exponent/mantissa formula with no special codes, for small formats.
double ref_small(unsigned code, int ebits, int mbits, int bias, bool sign = true) {
  unsigned m = code & ((1u << mbits) - 1);
  unsigned e = (code >> mbits) & ((1u << ebits) - 1);
  bool s = sign && ((code >> (ebits + mbits)) & 1);
  double v = e == 0 ? std::ldexp(m, 1 - bias - mbits)
                    : std::ldexp((1u << mbits) + m, static_cast<int>(e) - bias - mbits);
  return s ? -v : v;
}
double ref_e4m3(uint8_t c) { return (c & 0x7F) == 0x7F ? NAN : ref_small(c, 4, 3, 7); }
double ref_e5m2(uint8_t c) {
  if ((c & 0x7C) == 0x7C) return (c & 3) ? NAN : ((c & 0x80) ? -INFINITY : INFINITY);
  return ref_small(c, 5, 2, 15);
}

// Brute-force RN-even .satfinite encoder over all `ncodes` codes of a signed format: the nearest
// code of the same sign as x (so underflow keeps the sign), ties to the even code; |x| beyond the
// largest finite value saturates. NaN codes are skipped by the decoder returning NaN.
template <class Dec>
unsigned brute_encode(double x, unsigned ncodes, unsigned sign_bit, Dec dec) {
  bool neg = std::signbit(x);
  if (std::fabs(x) > 1e6) x = std::copysign(1e6, x);  // beyond every max: saturate  // saturates to the largest finite code
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

}  // namespace

// ================================================================================================
// f32 arithmetic
// ================================================================================================
TEST(NumEnv, HostEnvironmentIsDefault) { EXPECT_TRUE(host_fp_environment_ok()); }

TEST(NumF32, CanonicalNaN) {
  const uint32_t qnan = 0x7FC00001, snan = 0xFF800001;
  EXPECT_EQ(add_f32(qnan, F(1)), kF32CanonicalNaN);
  EXPECT_EQ(mul_f32(snan, F(2), Round::RZ), kF32CanonicalNaN);
  EXPECT_EQ(add_f32(kF32Inf, kF32Inf | kF32Sign), kF32CanonicalNaN);
  EXPECT_EQ(sub_f32(kF32Inf, kF32Inf, Round::RP), kF32CanonicalNaN);
  EXPECT_EQ(mul_f32(0, kF32Inf), kF32CanonicalNaN);
  EXPECT_EQ(fma_f32(0, kF32Inf, F(1)), kF32CanonicalNaN);
  EXPECT_EQ(fma_f32(F(2), kF32Inf, kF32Inf | kF32Sign, Round::RM), kF32CanonicalNaN);
  EXPECT_EQ(div_f32(0, 0), kF32CanonicalNaN);
  EXPECT_EQ(div_f32(kF32Inf, kF32Inf, Round::RZ), kF32CanonicalNaN);
  EXPECT_EQ(sqrt_f32(F(-1)), kF32CanonicalNaN);
  EXPECT_EQ(sqrt_f32(F(-1), Round::RP), kF32CanonicalNaN);
  EXPECT_EQ(abs_f32(0xFFC00000), kF32CanonicalNaN);
  EXPECT_EQ(neg_f32(0x7F800001), kF32CanonicalNaN);
}

TEST(NumF32, SignedZeros) {
  const uint32_t pz = 0, nz = kF32Sign;
  for (Round rm : {Round::RN, Round::RZ, Round::RP}) {
    EXPECT_EQ(add_f32(pz, nz, rm), pz);
    EXPECT_EQ(sub_f32(F(3), F(3), rm), pz);
  }
  EXPECT_EQ(add_f32(pz, nz, Round::RM), nz);
  EXPECT_EQ(sub_f32(F(3), F(3), Round::RM), nz);
  EXPECT_EQ(add_f32(nz, nz), nz);
  EXPECT_EQ(add_f32(nz, nz, Round::RP), nz);
  EXPECT_EQ(mul_f32(nz, F(5)), nz);
  EXPECT_EQ(fma_f32(nz, F(5), pz), pz);
  EXPECT_EQ(fma_f32(nz, F(5), pz, Round::RM), nz);
  EXPECT_EQ(fma_f32(nz, F(5), nz, Round::RZ), nz);
  EXPECT_EQ(sqrt_f32(nz), nz);
  EXPECT_EQ(sqrt_f32(nz, Round::RZ), nz);
  EXPECT_EQ(rcp_f32(nz), kF32Inf | kF32Sign);
  EXPECT_EQ(div_f32(F(1), kF32Inf | kF32Sign, Round::RP), nz);
}

TEST(NumF32, DirectedRounding) {
  const uint32_t one = F(1), eps = F(std::ldexp(1.0f, -24));  // half an ulp of 1
  EXPECT_EQ(add_f32(one, eps, Round::RN), one);                // tie -> even
  EXPECT_EQ(add_f32(one, eps, Round::RZ), one);
  EXPECT_EQ(add_f32(one, eps, Round::RM), one);
  EXPECT_EQ(add_f32(one, eps, Round::RP), one + 1);
  EXPECT_EQ(add_f32(one | kF32Sign, eps | kF32Sign, Round::RM), (one + 1) | kF32Sign);
  EXPECT_EQ(add_f32(one | kF32Sign, eps | kF32Sign, Round::RP), one | kF32Sign);
  EXPECT_EQ(add_f32(one + 1, eps, Round::RN), one + 2);  // tie from odd -> up
  // 1/3 in each mode.
  EXPECT_EQ(div_f32(one, F(3), Round::RN), 0x3EAAAAABu);
  EXPECT_EQ(div_f32(one, F(3), Round::RZ), 0x3EAAAAAAu);
  EXPECT_EQ(div_f32(one, F(3), Round::RM), 0x3EAAAAAAu);
  EXPECT_EQ(div_f32(one, F(3), Round::RP), 0x3EAAAAABu);
  EXPECT_EQ(rcp_f32(F(-3), Round::RM), 0xBEAAAAABu);
  EXPECT_EQ(sqrt_f32(F(2), Round::RN), 0x3FB504F3u);
  EXPECT_EQ(sqrt_f32(F(2), Round::RZ), 0x3FB504F3u);
  EXPECT_EQ(sqrt_f32(F(2), Round::RP), 0x3FB504F4u);
  // Overflow.
  const uint32_t max = 0x7F7FFFFFu;
  EXPECT_EQ(add_f32(max, max, Round::RN), kF32Inf);
  EXPECT_EQ(add_f32(max, max, Round::RZ), max);
  EXPECT_EQ(add_f32(max, max, Round::RM), max);
  EXPECT_EQ(add_f32(max, max, Round::RP), kF32Inf);
  EXPECT_EQ(mul_f32(max | kF32Sign, F(2), Round::RP), max | kF32Sign);
  EXPECT_EQ(mul_f32(max | kF32Sign, F(2), Round::RM), kF32Inf | kF32Sign);
  // Underflow to the smallest subnormal.
  const uint32_t tiny = 1;
  EXPECT_EQ(mul_f32(tiny, F(0.5f), Round::RN), 0u);  // tie -> even (0)
  EXPECT_EQ(mul_f32(tiny, F(0.5f), Round::RP), tiny);
  EXPECT_EQ(mul_f32(tiny, F(0.75f), Round::RN), tiny);
  EXPECT_EQ(mul_f32(tiny | kF32Sign, F(0.25f), Round::RM), tiny | kF32Sign);
  EXPECT_EQ(mul_f32(tiny | kF32Sign, F(0.25f), Round::RZ), kF32Sign);
}

TEST(NumF32, FmaRoundsOnce) {
  // a*a - (a*a rounded) is the exact rounding error of the product, nonzero only when fused.
  const uint32_t a = F(1.0f + std::ldexp(1.0f, -12));
  const uint32_t p = mul_f32(a, a);
  EXPECT_EQ(Fv(fma_f32(a, a, p ^ kF32Sign)), std::ldexp(1.0f, -24));
  for (Round rm : {Round::RZ, Round::RM, Round::RP})
    EXPECT_EQ(Fv(fma_f32(a, a, p ^ kF32Sign, rm)), std::ldexp(1.0f, -24));
  // fma(1+2^-23, 1-2^-24, -1): exact = 2^-23 - 2^-24 - 2^-47.
  const uint32_t x = F(1.0f + std::ldexp(1.0f, -23)), y = F(1.0f - std::ldexp(1.0f, -24));
  EXPECT_EQ(fma_f32(x, y, F(-1), Round::RZ), F(std::ldexp(1.0f, -24) - std::ldexp(1.0f, -47)));
}

TEST(NumF32, FtzAndSat) {
  const uint32_t sub = 0x00000123u, nsub = 0x80000123u, minnorm = 0x00800000u;
  EXPECT_EQ(add_f32(sub, 0, Round::RN, true), 0u);
  EXPECT_EQ(add_f32(nsub, kF32Sign, Round::RN, true), kF32Sign);
  EXPECT_EQ(add_f32(sub, 0), sub);
  EXPECT_EQ(add_f32(minnorm, minnorm | kF32Sign), 0u);
  // A result that is subnormal after rounding is flushed; one that rounds up to normal stays.
  EXPECT_EQ(mul_f32(minnorm, F(0.5f), Round::RN, true), 0u);
  EXPECT_EQ(mul_f32(minnorm | kF32Sign, F(0.5f), Round::RN, true), kF32Sign);
  EXPECT_EQ(mul_f32(0x00FFFFFFu, F(0.5f), Round::RP, true), minnorm);
  EXPECT_EQ(mul_f32(0x00FFFFFFu, F(0.5f), Round::RZ, true), 0u);
  EXPECT_EQ(fma_f32(sub, F(1e30f), F(1), Round::RN, true), F(1));
  EXPECT_EQ(sqrt_f32(nsub, Round::RN, true), kF32Sign);
  EXPECT_EQ(rcp_f32(sub, Round::RN, true), kF32Inf);
  EXPECT_EQ(abs_f32(nsub, true), 0u);
  EXPECT_EQ(neg_f32(sub, true), kF32Sign);
  EXPECT_EQ(neg_f32(sub), nsub);
  // .sat
  EXPECT_EQ(add_f32(F(0.75f), F(0.5f), Round::RN, false, true), kF32One);
  EXPECT_EQ(add_f32(F(-0.75f), F(0.5f), Round::RN, false, true), 0u);
  EXPECT_EQ(mul_f32(kF32Sign, F(1), Round::RN, false, true), 0u);  // -0 -> +0
  EXPECT_EQ(add_f32(kF32Inf, kF32Inf | kF32Sign, Round::RN, false, true), 0u);  // NaN -> +0
  EXPECT_EQ(fma_f32(F(0.5f), F(0.5f), F(0.25f), Round::RN, false, true), F(0.5f));
  EXPECT_EQ(sat_f32(0x7FC00000u), 0u);
}

TEST(NumF32, PackedAndMixed) {
  uint64_t a = pack32(F(1.5f), F(-2)), b = pack32(F(2), F(0.25f));
  EXPECT_EQ(add_f32x2(a, b), pack32(F(3.5f), F(-1.75f)));
  EXPECT_EQ(mul_f32x2(a, b), pack32(F(3), F(-0.5f)));
  EXPECT_EQ(fma_f32x2(a, b, a), pack32(F(4.5f), F(-2.5f)));
  EXPECT_EQ(add_f32_f16(0x3C00, F(2)), F(3));         // 1.0h + 2
  EXPECT_EQ(sub_f32_bf16(0x3F80, F(2)), F(-1));       // 1.0bf - 2
  EXPECT_EQ(fma_f32_f16(0x4000, 0x4200, F(1)), F(7)); // 2h*3h + 1
  EXPECT_EQ(fma_f32_bf16(0x7FC0, 0x3F80, F(1)), kF32CanonicalNaN);
  // Exact f16 product + f32 addend, one rounding: (1+2^-10)^2 + 0 needs 21 bits: exact.
  EXPECT_EQ(fma_f32_f16(0x3C01, 0x3C01, 0), F(1.0f + std::ldexp(1.0f, -9) + std::ldexp(1.0f, -20)));
}

// ================================================================================================
// f64 arithmetic
// ================================================================================================
TEST(NumF64, NaNPropagationAndDefaultNaN) {
  const uint64_t na = 0x7FF0000000000123ull, nb = 0xFFF8000000000456ull, nc = 0x7FF4000000000789ull;
  EXPECT_EQ(add_f64(na, nb), nb);
  EXPECT_EQ(add_f64(na, D(1)), na);
  EXPECT_EQ(add_f64(D(1), nb, Round::RZ), nb);
  EXPECT_EQ(sub_f64(D(1), nb), nb);  // NaN sign not flipped
  EXPECT_EQ(mul_f64(na, nb), nb);
  EXPECT_EQ(fma_f64(na, nb, nc), nb);
  EXPECT_EQ(fma_f64(na, D(1), nc), nc);
  EXPECT_EQ(fma_f64(na, D(1), D(2)), na);
  EXPECT_EQ(div_f64(na, nb), nb);
  EXPECT_EQ(sqrt_f64(na), na);
  EXPECT_EQ(rcp_f64(nc), nc);
  EXPECT_EQ(add_f64(kF64Inf, kF64Inf | kF64Sign), kF64DefaultNaN);
  EXPECT_EQ(add_f64(kF64Inf, kF64Inf | kF64Sign, Round::RM), kF64DefaultNaN);
  EXPECT_EQ(mul_f64(0, kF64Inf), kF64DefaultNaN);
  EXPECT_EQ(fma_f64(kF64Inf, 0, D(1), Round::RP), kF64DefaultNaN);
  EXPECT_EQ(div_f64(0, kF64Sign), kF64DefaultNaN);
  EXPECT_EQ(sqrt_f64(D(-2)), kF64DefaultNaN);
  EXPECT_EQ(sqrt_f64(D(-2), Round::RZ), kF64DefaultNaN);
  EXPECT_EQ(abs_f64(nb), nb);
  EXPECT_EQ(neg_f64(na), na);
  EXPECT_EQ(neg_f64(D(2)), D(-2));
  EXPECT_EQ(abs_f64(D(-0.0)), 0u);
}

TEST(NumF64, Rounding) {
  EXPECT_EQ(div_f64(D(1), D(3), Round::RZ), 0x3FD5555555555555ull);
  EXPECT_EQ(div_f64(D(1), D(3), Round::RP), 0x3FD5555555555556ull);
  EXPECT_EQ(div_f64(D(1), D(3), Round::RN), 0x3FD5555555555555ull);
  EXPECT_EQ(rcp_f64(D(-3), Round::RM), 0xBFD5555555555556ull);
  EXPECT_EQ(sqrt_f64(D(2), Round::RP), 0x3FF6A09E667F3BCDull);
  EXPECT_EQ(sqrt_f64(D(2), Round::RZ), 0x3FF6A09E667F3BCCull);
  EXPECT_EQ(add_f64(D(1), D(std::ldexp(1.0, -60)), Round::RP), D(1) + 1);
  EXPECT_EQ(add_f64(D(1), D(-std::ldexp(1.0, -60)), Round::RZ), D(1) - 1);
  EXPECT_EQ(add_f64(D(1), D(-1), Round::RM), kF64Sign);
  EXPECT_EQ(mul_f64(0x7FEFFFFFFFFFFFFFull, D(2), Round::RZ), 0x7FEFFFFFFFFFFFFFull);
  EXPECT_EQ(mul_f64(1, D(0.5), Round::RP), 1u);
  EXPECT_EQ(fma_f64(D(1.0 + std::ldexp(1.0, -30)), D(1.0 + std::ldexp(1.0, -30)), D(-1), Round::RZ),
            D(std::ldexp(1.0, -29) + std::ldexp(1.0, -60)));
}

// ================================================================================================
// f16 / bf16 arithmetic
// ================================================================================================
TEST(NumHalf, F16Basics) {
  EXPECT_EQ(add_f16(0x3C00, 0x3C00), 0x4000);             // 1+1
  EXPECT_EQ(add_f16(0x7BFF, 0x7BFF), 0x7C00);             // overflow -> inf
  EXPECT_EQ(add_f16(0x7BFF, 0x7BFF, Round::RZ), 0x7BFF);
  EXPECT_EQ(sub_f16(0x3C00, 0x3C00), 0x0000);
  EXPECT_EQ(mul_f16(0x7C00, 0x0000), kF16CanonicalNaN);
  EXPECT_EQ(add_f16(0x7E01, 0x3C00), kF16CanonicalNaN);
  EXPECT_EQ(mul_f16(0x0001, 0x3800), 0x0000);             // 2^-24 * 0.5 tie -> 0
  EXPECT_EQ(mul_f16(0x0001, 0x3A00), 0x0001);             // * 0.75 -> 2^-24
  EXPECT_EQ(mul_f16(0x0200, 0x4000, Round::RN, true), 0x0000);  // subnormal input flushed
  EXPECT_EQ(mul_f16(0x0400, 0x3800, Round::RN, true), 0x0000);  // subnormal result flushed
  EXPECT_EQ(mul_f16(0x8400, 0x3800, Round::RN, true), 0x8000);
  EXPECT_EQ(add_f16(0x3C00, 0x3C00, Round::RN, false, true), 0x3C00);  // sat
  EXPECT_EQ(add_f16(0x7C00, 0xFC00, Round::RN, false, true), 0x0000);  // NaN -> +0
  EXPECT_EQ(fma_f16(0xBC00, 0x3C00, 0x0000, Round::RN, false, false, true), 0x0000);  // relu
  EXPECT_EQ(fma_f16(0x7C00, 0x0000, 0x3C00, Round::RN, false, false, true), kF16CanonicalNaN);
  EXPECT_EQ(fma_f16(0x3C00, 0x3C00, 0x3C00, Round::RN, false, false, true), 0x4000);
  EXPECT_EQ(neg_f16(0x3C00), 0xBC00);
  EXPECT_EQ(abs_f16(0xFE00), kF16CanonicalNaN);
  EXPECT_EQ(neg_f16(0x0001, true), 0x8000);
  // fma single rounding: (1+2^-10)^2 - (1+2^-9) = 2^-20 exactly.
  EXPECT_EQ(fma_f16(0x3C01, 0x3C01, 0xBC02), 0x0010);  // 2^-20 = 16 * 2^-24
  // x2: lanes independent, element 0 is the low half.
  EXPECT_EQ(add_f16x2(pack16(0x3C00, 0x4000), pack16(0x3C00, 0xC000)), pack16(0x4000, 0x0000));
  EXPECT_EQ(fma_f16x2(pack16(0x4000, 0x3C00), pack16(0x4000, 0xBC00), pack16(0x0000, 0x0000),
                      Round::RN, false, false, true),
            pack16(0x4400, 0x0000));
}

TEST(NumHalf, BF16Basics) {
  EXPECT_EQ(add_bf16(0x3F80, 0x3F80), 0x4000);
  EXPECT_EQ(add_bf16(0x3F80, 0x3B80), 0x3F80);  // 1 + 2^-8: tie -> even
  EXPECT_EQ(add_bf16(0x3F81, 0x3B80), 0x3F82);  // tie from odd -> up
  EXPECT_EQ(mul_bf16(0x7F7F, 0x4000), 0x7F80);
  EXPECT_EQ(fma_bf16(0xBF80, 0x4000, 0x3F80, Round::RN, true), 0x0000);
  EXPECT_EQ(fma_bf16(0x7FC1, 0x4000, 0x3F80), kBF16CanonicalNaN);
  EXPECT_EQ(mul_bf16(0x0001, 0x3F00), 0x0000);  // subnormals supported, tie -> 0
  EXPECT_EQ(mul_bf16(0x0003, 0x3F00), 0x0002);  // 1.5 ulp -> 2 (even)
  EXPECT_EQ(neg_bf16x2(pack16(0x3F80, 0x7FC0)), pack16(0xBF80, 0x7FFF));
  EXPECT_EQ(fma_oob_bf16(0x3F80, 0x7FFF, 0x3F80, 0x7FFF), 0x0000);
  EXPECT_EQ(fma_oob_f16(0x3C00, 0x3C00, 0x3C00, 0x7FFF), 0x4000);
}

// fma.rn.oob as an H200 computed it (2026-11-28, inline PTX in a CUDA program): for each input x,
// f16 fma(x, 1, 1), bf16 fma(x, 1, 1), f16 relu fma(1, x, 1) and f16 fma(1, 1, x). 0x7FF7 is the
// TMA unit's OOB-NaN fill (model/tma/tma_unit.h); the sign does not matter; as an addend it is an
// ordinary NaN.
TEST(NumHalf, FmaOobMatchesTheH200) {
  struct Row {
    uint16_t x, f16, bf16, relu, addend;
  };
  const Row rows[] = {
      {0x7FF7, 0x0000, 0x0000, 0x0000, 0x7FFF}, {0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF},
      {0xFFFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF}, {0x7E00, 0x7FFF, 0x7E00, 0x7FFF, 0x7FFF},
      {0x7C01, 0x7FFF, 0x7C01, 0x7FFF, 0x7FFF}, {0xFFF7, 0x0000, 0x0000, 0x0000, 0x7FFF},
      {0x7FF6, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF}, {0x7FF8, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF},
      {0x7F80, 0x7FFF, 0x7F80, 0x7FFF, 0x7FFF}, {0x7FC0, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF},
      {0xFFC0, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF}, {0x3C00, 0x4000, 0x3F81, 0x4000, 0x4000},
      {0x0000, 0x3C00, 0x3F80, 0x3C00, 0x3C00}, {0x8000, 0x3C00, 0x3F80, 0x3C00, 0x3C00},
      {0x7C00, 0x7C00, 0x7C00, 0x7C00, 0x7C00}, {0xFC00, 0xFC00, 0xFC00, 0x0000, 0xFC00},
  };
  const uint16_t oob = 0x7FF7, one = 0x3C00, bone = 0x3F80;
  for (const Row& r : rows) {
    SCOPED_TRACE(testing::Message() << std::hex << "x = 0x" << r.x);
    EXPECT_EQ(fma_oob_f16(r.x, one, one, oob), r.f16);
    EXPECT_EQ(fma_oob_bf16(r.x, bone, bone, oob), r.bf16);
    EXPECT_EQ(fma_oob_f16(one, r.x, one, oob, true), r.relu);
    EXPECT_EQ(fma_oob_f16(one, one, r.x, oob), r.addend);
    EXPECT_EQ(fma_oob_f16x2(pack16(r.x, one), pack16(one, one), pack16(one, one), oob), pack16(r.f16, 0x4000));
  }
}

// ================================================================================================
// min / max / compare / testp / copysign
// ================================================================================================
TEST(NumMinMax, F32) {
  const uint32_t pz = 0, nz = kF32Sign, nan = 0x7FC00000u;
  EXPECT_EQ(min_f32(pz, nz), nz);
  EXPECT_EQ(min_f32(nz, pz), nz);
  EXPECT_EQ(max_f32(nz, pz), pz);
  EXPECT_EQ(max_f32(pz, nz), pz);
  EXPECT_EQ(min_f32(nan, F(1)), F(1));
  EXPECT_EQ(max_f32(F(1), nan), F(1));
  EXPECT_EQ(min_f32(nan, 0xFFC00001u), kF32CanonicalNaN);
  EXPECT_EQ(min_f32(nan, F(1), {.nan = true}), kF32CanonicalNaN);
  EXPECT_EQ(max_f32(F(1), F(2), {.nan = true}), F(2));
  EXPECT_EQ(min_f32(F(-3), F(2)), F(-3));
  EXPECT_EQ(max_f32(F(-3), F(2), {.xorsign_abs = true}), F(-3));
  EXPECT_EQ(min_f32(F(-3), F(-2), {.xorsign_abs = true}), F(2));
  EXPECT_EQ(max_f32(F(-3), nan, {.nan = true, .xorsign_abs = true}), kF32CanonicalNaN);
  EXPECT_EQ(max_f32(0x00000005u, 0x00000003u, {.ftz = true}), 0u);
  EXPECT_EQ(min3_f32(F(3), F(-1), F(2)), F(-1));
  EXPECT_EQ(max3_f32(F(3), F(-5), F(2), {.abs = true}), F(5));
  EXPECT_EQ(max3_f32(nan, nan, F(2)), F(2));
  EXPECT_EQ(max3_f32(nan, F(1), F(2), {.nan = true}), kF32CanonicalNaN);
}

TEST(NumMinMax, OtherTypes) {
  EXPECT_EQ(min_f64(0, kF64Sign), kF64Sign);
  EXPECT_EQ(max_f64(0x7FF0000000000001ull, D(-1)), D(-1));
  EXPECT_EQ(max_f64(0x7FF0000000000001ull, 0xFFF0000000000002ull), 0xFFF0000000000002ull);
  EXPECT_EQ(min_f16(0x8000, 0x0000), 0x8000);
  EXPECT_EQ(min_f16(0x7E00, 0x3C00), 0x3C00);
  EXPECT_EQ(min_f16(0x7E00, 0x3C00, {.nan = true}), 0x7FFF);
  EXPECT_EQ(max_f16(0xC000, 0x3C00, {.xorsign_abs = true}), 0xC000);
  EXPECT_EQ(min_f16(0x0001, 0x8002, {.ftz = true}), 0x8000);
  EXPECT_EQ(max_bf16(0x0001, 0x8002), 0x0001);
  EXPECT_EQ(max_bf16x2(pack16(0x3F80, 0x7FC0), pack16(0x4000, 0x7FC0)), pack16(0x4000, 0x7FFF));
  EXPECT_EQ(min_f16x2(pack16(0x3C00, 0xBC00), pack16(0x4000, 0x3C00)), pack16(0x3C00, 0xBC00));
}

TEST(NumMisc, CompareTestpCopysign) {
  EXPECT_EQ(compare_f32(0, kF32Sign), FpOrder::Equal);
  EXPECT_EQ(compare_f32(F(1), F(2)), FpOrder::Less);
  EXPECT_EQ(compare_f32(0x7FC00000u, F(2)), FpOrder::Unordered);
  EXPECT_EQ(compare_f32(1, 2, true), FpOrder::Equal);
  EXPECT_EQ(compare_f32(1, 2), FpOrder::Less);
  EXPECT_EQ(compare_f64(D(-1), D(-2)), FpOrder::Greater);
  EXPECT_EQ(compare_f16(0xBC00, 0x3C00), FpOrder::Less);
  EXPECT_TRUE(testp_f32(TestpOp::Normal, 0));
  EXPECT_TRUE(testp_f32(TestpOp::Normal, kF32Sign));
  EXPECT_FALSE(testp_f32(TestpOp::Subnormal, 0));
  EXPECT_TRUE(testp_f32(TestpOp::Subnormal, 1));
  EXPECT_FALSE(testp_f32(TestpOp::Normal, 1));
  EXPECT_FALSE(testp_f32(TestpOp::Finite, kF32Inf));
  EXPECT_TRUE(testp_f32(TestpOp::Infinite, kF32Inf | kF32Sign));
  EXPECT_TRUE(testp_f32(TestpOp::NotANumber, 0x7F800001u));
  EXPECT_FALSE(testp_f32(TestpOp::Number, 0x7F800001u));
  EXPECT_FALSE(testp_f32(TestpOp::Normal, 0x7F800001u));
  EXPECT_TRUE(testp_f64(TestpOp::Subnormal, 0x8000000000000001ull));
  EXPECT_TRUE(testp_f64(TestpOp::Normal, kF64Sign));
  EXPECT_EQ(copysign_f32(F(-1), F(2)), F(-2));
  EXPECT_EQ(copysign_f32(F(1), F(-2)), F(2));
  EXPECT_EQ(copysign_f64(D(-0.0), D(3)), D(-3));
}

// ================================================================================================
// conversions
// ================================================================================================
TEST(NumCvt, F32ToHalf) {
  EXPECT_EQ(f32_to_f16(F(1), Round::RN), 0x3C00);
  EXPECT_EQ(f32_to_f16(0x7FC00001u, Round::RN), kF16CanonicalNaN);
  EXPECT_EQ(f32_to_f16(F(65520), Round::RN), 0x7C00);
  EXPECT_EQ(f32_to_f16(F(65519), Round::RN), 0x7BFF);
  EXPECT_EQ(f32_to_f16(F(65520), Round::RZ), 0x7BFF);
  EXPECT_EQ(f32_to_f16(F(1e9f), Round::RN, {.satfinite = true}), 0x7BFF);
  EXPECT_EQ(f32_to_f16(kF32Inf | kF32Sign, Round::RN, {.satfinite = true}), 0xFBFF);
  EXPECT_EQ(f32_to_f16(kF32Inf, Round::RZ), 0x7C00);
  EXPECT_EQ(f32_to_f16(0x7FC00000u, Round::RN, {.satfinite = true}), kF16CanonicalNaN);
  EXPECT_EQ(f32_to_f16(F(-1), Round::RN, {.relu = true}), 0x0000);
  EXPECT_EQ(f32_to_f16(kF32Sign, Round::RN, {.relu = true}), 0x0000);
  EXPECT_EQ(f32_to_f16(0xFFC00000u, Round::RN, {.relu = true}), kF16CanonicalNaN);
  EXPECT_EQ(f32_to_f16(F(std::ldexp(1.0f, -25)), Round::RN), 0x0000);  // tie -> 0
  EXPECT_EQ(f32_to_f16(F(std::ldexp(1.0f, -25)), Round::RP), 0x0001);
  EXPECT_EQ(f32_to_f16(F(std::ldexp(3.0f, -26)), Round::RN), 0x0001);
  EXPECT_EQ(f32_to_f16(F(1.0f + std::ldexp(1.0f, -11)), Round::RNA), 0x3C01);
  EXPECT_EQ(f32_to_f16(F(1.0f + std::ldexp(1.0f, -11)), Round::RN), 0x3C00);
  EXPECT_EQ(f32_to_f16(F(-1.0f - std::ldexp(1.0f, -20)), Round::RM), 0xBC01);
  // bf16
  EXPECT_EQ(f32_to_bf16(0x3F808000u, Round::RN), 0x3F80);  // tie -> even
  EXPECT_EQ(f32_to_bf16(0x3F818000u, Round::RN), 0x3F82);
  EXPECT_EQ(f32_to_bf16(0x3F808001u, Round::RZ), 0x3F80);
  EXPECT_EQ(f32_to_bf16(0x7F7FFFFFu, Round::RN), 0x7F80);
  EXPECT_EQ(f32_to_bf16(0x7F7FFFFFu, Round::RN, {.satfinite = true}), 0x7F7F);
  EXPECT_EQ(f32_to_bf16(0xFFC00000u, Round::RZ), kBF16CanonicalNaN);
  // Packing: a -> upper half.
  EXPECT_EQ(cvt_f16x2_f32(F(1), F(2), Round::RN), 0x3C004000u);
  EXPECT_EQ(cvt_bf16x2_f32(F(1), F(-2), Round::RZ), 0x3F80C000u);
  EXPECT_EQ(cvt_f16x2_f32(F(-1), F(2), Round::RN, {.relu = true}), 0x00004000u);
}

TEST(NumCvt, EveryF16WidensToTheF32OfItsValue) {
  // All 65536 inputs of f16 -> f32 (cvt.f32.f16, and every f16 operand read as f32): the value
  // (-1)^s * 2^(E-15) * 1.M (E = 0: 2^-14 * 0.M) computed in double with ldexp and narrowed (exact),
  // Inf kept, every NaN the canonical NaN; -0 stays -0.
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint32_t E = h >> 10 & 0x1F, M = h & 0x3FF;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    uint32_t want;
    if (E == 0x1F) {
      want = M ? 0x7FFFFFFFu : ((h & 0x8000) ? 0xFF800000u : 0x7F800000u);
    } else {
      const double v = sign * (E ? std::ldexp(1024.0 + M, int(E) - 25) : std::ldexp(double(M), -24));
      const float f = float(v);
      std::memcpy(&want, &f, 4);
    }
    ASSERT_EQ(f16_to_f32_bits(uint16_t(h)), want) << "f16 0x" << std::hex << h;
    ASSERT_EQ(f16_to_f32_cvt(uint16_t(h), false), want) << "f16 0x" << std::hex << h;
  }
}

TEST(NumCvt, F32WidensToTheF64OfItsValue) {
  // f32 -> f64 is exact: the host's conversion is the reference (the host environment is the
  // default one, NumEnv: no flush of subnormals). Every exponent with edge and random fractions.
  std::mt19937_64 rng(20261128);
  for (uint32_t e = 0; e < 256; ++e)
    for (int i = 0; i < 600; ++i) {
      const uint32_t frac = i == 0 ? 0u : i == 1 ? 1u : i == 2 ? 0x7FFFFFu : i == 3 ? 0x400000u : uint32_t(rng()) & 0x7FFFFFu;
      const uint32_t a = (i & 1) << 31 | e << 23 | frac;
      float f;
      std::memcpy(&f, &a, 4);
      if (std::isnan(f)) continue;  // NaNs: NumF64.NaNPropagationAndDefaultNaN
      const double d = double(f);
      uint64_t want;
      std::memcpy(&want, &d, 8);
      ASSERT_EQ(f32_to_f64(a, false), want) << "f32 0x" << std::hex << a;
    }
}

TEST(NumCvt, F64AndTf32) {
  EXPECT_EQ(f64_to_f32(D(1.0 / 3.0), Round::RN), 0x3EAAAAABu);
  EXPECT_EQ(f64_to_f32(D(1.0 / 3.0), Round::RZ), 0x3EAAAAAAu);
  EXPECT_EQ(f64_to_f32(D(1e300), Round::RN), kF32Inf);
  EXPECT_EQ(f64_to_f32(D(1e300), Round::RZ), 0x7F7FFFFFu);
  EXPECT_EQ(f64_to_f32(D(1e-40), Round::RN, true), 0u);
  EXPECT_EQ(f64_to_f32(D(2.5), Round::RN, false, true), kF32One);
  EXPECT_EQ(f64_to_f32(0x7FF8000000000001ull, Round::RN), kF32CanonicalNaN);
  // f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is above the tie.
  EXPECT_EQ(f64_to_f16(D(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), Round::RN), 0x3C01);
  EXPECT_EQ(f64_to_bf16(D(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -50)), Round::RN), 0x3F81);
  EXPECT_EQ(f32_to_f64(F(1.5f)), D(1.5));
  EXPECT_EQ(f32_to_f64(0x00000001u), D(std::ldexp(1.0, -149)));
  EXPECT_EQ(f32_to_f64(0x00000001u, true), 0u);
  EXPECT_EQ(f32_to_f64(0xFFC00001u), 0xFFF8000020000000ull);
  EXPECT_EQ(f16_to_f64(0x0001), D(std::ldexp(1.0, -24)));
  EXPECT_EQ(bf16_to_f32_cvt(0x0001, true), 0u);
  EXPECT_EQ(bf16_to_f32_cvt(0x0001, false), 0x00010000u);
  EXPECT_EQ(f16_to_bf16(0x3C01, Round::RN), 0x3F80);
  EXPECT_EQ(f16_to_bf16(0x3C01, Round::RP), 0x3F81);
  EXPECT_EQ(bf16_to_f16(0x7F7F, Round::RN), 0x7C00);
  // tf32
  EXPECT_EQ(f32_to_tf32(0x3F801000u, Round::RNA), 0x3F802000u);  // tie away
  EXPECT_EQ(f32_to_tf32(0x3F801000u, Round::RN), 0x3F800000u);   // tie even
  EXPECT_EQ(f32_to_tf32(0x3F803000u, Round::RN), 0x3F804000u);
  EXPECT_EQ(f32_to_tf32(0x3F801FFFu, Round::RZ), 0x3F800000u);
  EXPECT_EQ(f32_to_tf32(0x7F7FFFFFu, Round::RNA), 0x7F800000u);
  EXPECT_EQ(f32_to_tf32(0x7F7FFFFFu, Round::RNA, {.satfinite = true}), 0x7F7FE000u);
  EXPECT_EQ(f32_to_tf32(0xBF800000u, Round::RN, {.relu = true}), 0u);
  EXPECT_EQ(f32_to_tf32(0x7FC00000u, Round::RNA), kF32CanonicalNaN);
}

TEST(NumCvt, Fp8Fp6Fp4) {
  EXPECT_EQ(f32_to_e4m3(F(448)), 0x7E);
  EXPECT_EQ(f32_to_e4m3(F(464)), 0x7E);   // halfway to the unrepresentable 480
  EXPECT_EQ(f32_to_e4m3(F(1e6f)), 0x7E);
  EXPECT_EQ(f32_to_e4m3(kF32Inf | kF32Sign), 0xFE);
  EXPECT_EQ(f32_to_e4m3(0x7FC00000u), 0x7F);
  EXPECT_EQ(f32_to_e4m3(0xFFC00000u), 0x7F);
  EXPECT_EQ(f32_to_e4m3(F(-1e-10f)), 0x80);
  EXPECT_EQ(f32_to_e4m3(F(std::ldexp(1.0f, -10))), 0x00);  // half of min subnormal: tie -> 0
  EXPECT_EQ(f32_to_e4m3(F(std::ldexp(1.5f, -10))), 0x01);
  EXPECT_EQ(f32_to_e4m3(F(-2), true), 0x00);
  EXPECT_EQ(f32_to_e4m3(F(1e6f), false, Round::RN, false), 0x7F);  // no satfinite: NaN
  EXPECT_EQ(f32_to_e5m2(F(57344)), 0x7B);
  EXPECT_EQ(f32_to_e5m2(kF32Inf), 0x7B);
  EXPECT_EQ(f32_to_e5m2(kF32Inf, false, Round::RN, false), 0x7C);
  EXPECT_EQ(f32_to_e5m2(0x7FC00000u), 0x7F);
  EXPECT_EQ(f32_to_e5m2(F(1.25f)), 0x3D);
  EXPECT_EQ(f32_to_e5m2(F(1.125f)), 0x3C);  // tie -> even
  EXPECT_EQ(f32_to_e2m1(F(5)), 0x6);
  EXPECT_EQ(f32_to_e2m1(F(0.25f)), 0x0);
  EXPECT_EQ(f32_to_e2m1(F(0.75f)), 0x2);
  EXPECT_EQ(f32_to_e2m1(F(7)), 0x7);
  EXPECT_EQ(f32_to_e2m1(F(-100)), 0xF);
  EXPECT_EQ(f32_to_e2m1(0xFFC00000u), 0x7);  // NaN -> +MAX_NORM
  EXPECT_EQ(f32_to_e2m1(F(-0.1f)), 0x8);
  EXPECT_EQ(f32_to_e2m3(F(7.5f)), 0x1F);
  EXPECT_EQ(f32_to_e2m3(F(100)), 0x1F);
  EXPECT_EQ(f32_to_e2m3(F(-100)), 0x3F);
  EXPECT_EQ(f32_to_e3m2(F(28)), 0x1F);
  EXPECT_EQ(f32_to_e3m2(kF32Inf), 0x1F);
  EXPECT_EQ(f32_to_e3m2(0x7FC00000u, true), 0x1F);
  EXPECT_EQ(e2m1_to_f32(0x7), 6.0f);
  EXPECT_EQ(e2m1_to_f32(0x1), 0.5f);
  EXPECT_EQ(e3m2_to_f32(0x01), 0.0625f);
  EXPECT_EQ(e2m3_to_f32(0x01), 0.125f);
  EXPECT_EQ(e4m3_to_f32(0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(e4m3_to_f32(0xFF)));
  EXPECT_EQ(f32_bits(e4m3_to_f32(0x7F)), kF32CanonicalNaN);
  EXPECT_EQ(e5m2_to_f32(0xFC), -INFINITY);
  // Packed forms.
  EXPECT_EQ(cvt_f8x2_f32(F8Kind::E4M3, F(1), F(-2)), 0x38C0);
  EXPECT_EQ(cvt_f8x2_f16x2(F8Kind::E5M2, pack16(0x3C00, 0xC000)), 0x3CC0);
  EXPECT_EQ(cvt_f8x2_bf16x2(F8Kind::E4M3, pack16(0x3F80, 0x7FC0)), 0x387F);
  EXPECT_EQ(cvt_f16x2_f8x2(F8Kind::E4M3, 0x38C0), pack16(0x3C00, 0xC000));
  EXPECT_EQ(cvt_f16x2_f8x2(F8Kind::E4M3, 0x7FB8, true), pack16(0x7FFF, 0x0000));
  EXPECT_EQ(cvt_f16x2_f8x2(F8Kind::E5M2, 0x7C7D), pack16(0x7C00, 0x7FFF));
  EXPECT_EQ(cvt_f6x2_f32(F6Kind::E2M3, F(1), F(-1)), 0x0828);
  EXPECT_EQ(cvt_f16x2_f6x2(F6Kind::E3M2, 0x0C2C), pack16(0x3C00, 0xBC00));
  EXPECT_EQ(cvt_e2m1x2_f32(F(6), F(-0.5f)), 0x79);
  EXPECT_EQ(cvt_e2m1x2_f16x2(pack16(0x4600, 0x3800)), 0x71);
  EXPECT_EQ(cvt_f16x2_e2m1x2(0x79), pack16(0x4600, 0xB800));
  EXPECT_EQ(cvt_f16x2_e2m1x2(0x79, true), pack16(0x4600, 0x0000));
}

TEST(NumCvt, StochasticRounding) {
  const uint32_t x = F(1.0f + std::ldexp(1.0f, -11));  // discarded f16 bits = 0x1000
  EXPECT_EQ(cvt_rs_f16x2_f32(x, x, 0x10000FFFu), pack16(0x3C01, 0x3C00));
  EXPECT_EQ(cvt_rs_f16x2_f32(F(1), F(1), 0x1FFF1FFFu), pack16(0x3C00, 0x3C00));  // exact
  EXPECT_EQ(cvt_rs_f16x2_f32(x | kF32Sign, 0x7FC00000u, 0x10000000u), pack16(0xBC01, 0x7FFF));
  EXPECT_EQ(cvt_rs_f16x2_f32(x | kF32Sign, F(-1), 0x10000000u, {.relu = true}), 0u);
  EXPECT_EQ(cvt_rs_f16x2_f32(F(65504.0f + 16.0f), F(70000), 0xFFFF0000u),
            pack16(0x7C00, 0x7BFF));  // away at MAX_NORM overflows; toward zero stays
  EXPECT_EQ(cvt_rs_f16x2_f32(F(1e9f), 0, 0, {.satfinite = true}), pack16(0x7BFF, 0x0000));
  EXPECT_EQ(cvt_rs_bf16x2_f32(0x3F808000u, 0x3F808000u, 0x80007FFFu), pack16(0x3F81, 0x3F80));
  EXPECT_EQ(cvt_rs_bf16x2_f32(0xBF80FFFFu, 0x3F7FFFFFu, 0x00010001u), pack16(0xBF81, 0x3F80));
}

TEST(NumCvt, Ue8m0Ue4m3) {
  EXPECT_EQ(f32_to_ue8m0(F(1.5f), Round::RZ, false), 0x7F);
  EXPECT_EQ(f32_to_ue8m0(F(1.5f), Round::RP, false), 0x80);
  EXPECT_EQ(f32_to_ue8m0(F(1.0f), Round::RP, false), 0x7F);
  EXPECT_EQ(f32_to_ue8m0(F(-4.0f), Round::RZ, false), 0x81);
  EXPECT_EQ(f32_to_ue8m0(0, Round::RP, true), 0x00);
  EXPECT_EQ(f32_to_ue8m0(0x00400000u, Round::RP, true), 0x00);  // exactly 2^-127
  EXPECT_EQ(f32_to_ue8m0(0x00400001u, Round::RP, true), 0x01);
  EXPECT_EQ(f32_to_ue8m0(0x00400001u, Round::RZ, true), 0x00);
  EXPECT_EQ(f32_to_ue8m0(0x7FC00000u, Round::RZ, true), 0xFF);
  EXPECT_EQ(f32_to_ue8m0(kF32Inf, Round::RZ, true), 0xFE);
  EXPECT_EQ(f32_to_ue8m0(kF32Inf, Round::RZ, false), 0xFF);
  EXPECT_EQ(f32_to_ue8m0(0x7F7FFFFFu, Round::RZ, false), 0xFE);
  EXPECT_EQ(f32_to_ue8m0(0x7F7FFFFFu, Round::RP, false), 0xFF);
  EXPECT_EQ(f32_to_ue8m0(0x7F7FFFFFu, Round::RP, true), 0xFE);
  EXPECT_EQ(bf16_to_ue8m0(0x4040, Round::RP, false), 0x81);  // 3.0 -> 4
  EXPECT_EQ(cvt_ue8m0x2_f32(F(2), F(0.5f), Round::RZ, true), 0x807E);
  EXPECT_EQ(cvt_ue8m0x2_bf16x2(pack16(0x4000, 0x3F00), Round::RP, true), 0x807E);
  EXPECT_EQ(ue8m0_to_f32(0x00), std::ldexp(1.0f, -127));
  EXPECT_EQ(ue8m0_to_f32(0xFE), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(ue8m0_to_f32(0xFF)));
  EXPECT_EQ(cvt_bf16x2_ue8m0x2(0xFF00), pack16(0x7FFF, 0x0040));
  EXPECT_EQ(cvt_bf16x2_ue8m0x2(0x7F80), pack16(0x3F80, 0x4000));
  EXPECT_EQ(f32_to_ue4m3(F(448)), 0x7E);
  EXPECT_EQ(f32_to_ue4m3(F(-3)), f32_to_ue4m3(F(3)));
  EXPECT_EQ(f32_to_ue4m3(0x7FC00000u), 0x7F);
  EXPECT_EQ(ue4m3_to_f32(0xB8), 1.0f);  // bit 7 ignored
  EXPECT_TRUE(std::isnan(ue4m3_to_f32(0x7F)));
}

TEST(NumCvt, FloatToInt) {
  EXPECT_EQ(f32_to_int(0x7FC00000u, IntType::S32, IntRound::RZI), 0u);
  EXPECT_EQ(f32_to_int(0x7FC00000u, IntType::U16, IntRound::RNI), 0u);
  EXPECT_EQ(f32_to_int(0x7FC00000u, IntType::S64, IntRound::RZI), 0x8000000000000000ull);
  EXPECT_EQ(f32_to_int(0x7FC00000u, IntType::U64, IntRound::RZI), 0x8000000000000000ull);
  EXPECT_EQ(f64_to_int(0x7FF8000000000000ull, IntType::S32, IntRound::RZI), 0xFFFFFFFF80000000ull);
  EXPECT_EQ(f64_to_int(0x7FF8000000000000ull, IntType::U32, IntRound::RZI), 0x80000000ull);
  EXPECT_EQ(f64_to_int(0x7FF8000000000000ull, IntType::U8, IntRound::RZI), 0x80ull);
  EXPECT_EQ(f32_to_int(F(3e9f), IntType::S32, IntRound::RZI), 0x7FFFFFFFull);
  EXPECT_EQ(f32_to_int(F(-3e9f), IntType::S32, IntRound::RZI), 0xFFFFFFFF80000000ull);
  EXPECT_EQ(f32_to_int(F(3e9f), IntType::U32, IntRound::RZI), 3000000000ull);
  EXPECT_EQ(f32_to_int(F(5e9f), IntType::U32, IntRound::RZI), 0xFFFFFFFFull);
  EXPECT_EQ(f32_to_int(kF32Inf, IntType::U64, IntRound::RZI), ~0ull);
  EXPECT_EQ(f32_to_int(kF32Inf | kF32Sign, IntType::S64, IntRound::RZI), 0x8000000000000000ull);
  EXPECT_EQ(f32_to_int(F(-5), IntType::U32, IntRound::RNI), 0u);
  EXPECT_EQ(f32_to_int(F(-1.5f), IntType::S32, IntRound::RNI), static_cast<uint64_t>(-2));
  EXPECT_EQ(f32_to_int(F(2.5f), IntType::S32, IntRound::RNI), 2u);
  EXPECT_EQ(f32_to_int(F(3.5f), IntType::S32, IntRound::RNI), 4u);
  EXPECT_EQ(f32_to_int(F(-0.5f), IntType::S32, IntRound::RPI), 0u);
  EXPECT_EQ(f32_to_int(F(-0.5f), IntType::S32, IntRound::RMI), static_cast<uint64_t>(-1));
  EXPECT_EQ(f32_to_int(F(300), IntType::S8, IntRound::RZI), 127u);
  EXPECT_EQ(f32_to_int(F(-300), IntType::S8, IntRound::RZI), static_cast<uint64_t>(-128));
  EXPECT_EQ(f32_to_int(F(300), IntType::U8, IntRound::RZI), 255u);
  EXPECT_EQ(f32_to_int(0x80000001u, IntType::S32, IntRound::RMI), static_cast<uint64_t>(-1));
  EXPECT_EQ(f32_to_int(0x80000001u, IntType::S32, IntRound::RMI, true), 0u);
  EXPECT_EQ(f32_to_int(0x00000001u, IntType::U32, IntRound::RPI), 1u);
  EXPECT_EQ(f32_to_int(0x00000001u, IntType::U32, IntRound::RPI, true), 0u);
  EXPECT_EQ(f64_to_int(D(9.3e18), IntType::S64, IntRound::RZI), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(f64_to_int(D(1.8e19), IntType::U64, IntRound::RZI), 18000000000000000000ull);
  EXPECT_EQ(f16_to_int(0x7C00, IntType::S16, IntRound::RZI), 0x7FFFu);
  EXPECT_EQ(f16_to_int(0xC100, IntType::S32, IntRound::RNI), static_cast<uint64_t>(-2));  // -2.5
  EXPECT_EQ(bf16_to_int(0x4F80, IntType::U32, IntRound::RZI), 0xFFFFFFFFu);  // 2^32 saturates
}

TEST(NumCvt, IntToFloatAndRint) {
  EXPECT_EQ(int_to_f32(16777217, IntType::S32, Round::RN), F(16777216.0f));
  EXPECT_EQ(int_to_f32(16777217, IntType::S32, Round::RP), F(16777218.0f));
  EXPECT_EQ(int_to_f32(static_cast<uint64_t>(-16777217), IntType::S64, Round::RM), F(-16777218.0f));
  EXPECT_EQ(int_to_f32(0xFFFFFFFFu, IntType::S32, Round::RN), F(-1));
  EXPECT_EQ(int_to_f32(0xFFFFFFFFu, IntType::U32, Round::RZ), F(4294967040.0f));
  EXPECT_EQ(int_to_f32(0x80, IntType::S8, Round::RN), F(-128));
  EXPECT_EQ(int_to_f32(0x180, IntType::U8, Round::RN), F(128));  // high bits ignored
  EXPECT_EQ(int_to_f64(~0ull, IntType::U64, Round::RN), D(18446744073709551616.0));
  EXPECT_EQ(int_to_f64(~0ull, IntType::U64, Round::RZ), 0x43EFFFFFFFFFFFFFull);
  EXPECT_EQ(int_to_f16(70000, IntType::U32, Round::RN), 0x7C00);
  EXPECT_EQ(int_to_f16(70000, IntType::U32, Round::RZ), 0x7BFF);
  EXPECT_EQ(int_to_f16(2049, IntType::S32, Round::RN), 0x6800);
  EXPECT_EQ(int_to_bf16(257, IntType::S32, Round::RP), 0x4381);
  EXPECT_EQ(int_to_f32(0, IntType::S32, Round::RM), 0u);
  // Round to integral in the same format.
  EXPECT_EQ(rint_f32(F(-0.3f), IntRound::RNI), kF32Sign);
  EXPECT_EQ(rint_f32(F(2.5f), IntRound::RNI), F(2));
  EXPECT_EQ(rint_f32(F(-2.5f), IntRound::RMI), F(-3));
  EXPECT_EQ(rint_f32(F(-2.5f), IntRound::RPI), F(-2));
  EXPECT_EQ(rint_f32(F(-0.5f), IntRound::RPI), kF32Sign);
  EXPECT_EQ(rint_f32(0x80000001u, IntRound::RMI), F(-1));
  EXPECT_EQ(rint_f32(0x80000001u, IntRound::RMI, true), kF32Sign);
  EXPECT_EQ(rint_f32(0x7FC00001u, IntRound::RZI), kF32CanonicalNaN);
  EXPECT_EQ(rint_f32(F(1e20f), IntRound::RZI), F(1e20f));
  EXPECT_EQ(rint_f32(F(2.7f), IntRound::RZI, false, true), kF32One);
  EXPECT_EQ(rint_f64(D(-1.5), IntRound::RNI), D(-2));
  EXPECT_EQ(rint_f64(0x7FF0000000000001ull, IntRound::RNI), 0x7FF0000000000001ull);
  EXPECT_EQ(rint_f16(0x3E00, IntRound::RNI), 0x4000);  // 1.5 -> 2
  EXPECT_EQ(rint_bf16(0xBFC0, IntRound::RZI), 0xBF80);  // -1.5 -> -1
  EXPECT_EQ(cvt_f32_f32(0x00000001u, true, false), 0u);
  EXPECT_EQ(cvt_f32_f32(F(-2), false, true), 0u);
  EXPECT_EQ(cvt_f32_f32(0x7F800001u, false, false), kF32CanonicalNaN);
}

// ================================================================================================
// approximate instructions
// ================================================================================================
TEST(NumApprox, SpecialValues) {
  const uint32_t ninf = kF32Inf | kF32Sign, nz = kF32Sign, nan = 0x7FC00000u;
  EXPECT_EQ(ex2_approx_f32(ninf), 0u);
  EXPECT_EQ(ex2_approx_f32(nz), kF32One);
  EXPECT_EQ(ex2_approx_f32(kF32Inf), kF32Inf);
  EXPECT_EQ(ex2_approx_f32(nan), kF32CanonicalNaN);
  EXPECT_EQ(ex2_approx_f32(F(-140)), F(std::ldexp(1.0f, -140)));
  EXPECT_EQ(ex2_approx_f32(F(-140), true), 0u);
  EXPECT_EQ(ex2_approx_f32(F(3)), F(8));
  EXPECT_EQ(lg2_approx_f32(0), ninf);
  EXPECT_EQ(lg2_approx_f32(nz), ninf);
  EXPECT_EQ(lg2_approx_f32(F(-1)), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(kF32Inf), kF32Inf);
  EXPECT_EQ(lg2_approx_f32(ninf), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(F(1024)), F(10));
  EXPECT_EQ(lg2_approx_f32(1), F(-149));
  EXPECT_EQ(lg2_approx_f32(1, true), ninf);
  EXPECT_EQ(sin_approx_f32(kF32Inf), kF32CanonicalNaN);
  EXPECT_EQ(sin_approx_f32(nz), nz);
  EXPECT_EQ(cos_approx_f32(nz), kF32One);
  EXPECT_EQ(cos_approx_f32(ninf), kF32CanonicalNaN);
  EXPECT_EQ(tanh_approx_f32(ninf), F(-1));
  EXPECT_EQ(tanh_approx_f32(nz), nz);
  EXPECT_EQ(tanh_approx_f32(0x00000005u), 0x00000005u);
  EXPECT_EQ(rcp_approx_f32(nz), ninf);
  EXPECT_EQ(rcp_approx_f32(ninf), nz);
  EXPECT_EQ(rcp_approx_f32(F(4)), F(0.25f));
  EXPECT_EQ(sqrt_approx_f32(nz), nz);
  EXPECT_EQ(sqrt_approx_f32(F(-4)), kF32CanonicalNaN);
  EXPECT_EQ(sqrt_approx_f32(kF32Inf), kF32Inf);
  EXPECT_EQ(rsqrt_approx_f32(nz), ninf);
  EXPECT_EQ(rsqrt_approx_f32(0), kF32Inf);
  EXPECT_EQ(rsqrt_approx_f32(kF32Inf), 0u);
  EXPECT_EQ(rsqrt_approx_f32(F(-1)), kF32CanonicalNaN);
  EXPECT_EQ(rsqrt_approx_f32(F(4)), F(0.5f));
  EXPECT_EQ(div_approx_f32(kF32Inf, F(std::ldexp(1.0f, 127))), kF32CanonicalNaN);
  EXPECT_EQ(div_approx_f32(F(1e30f), F(std::ldexp(-1.0f, 127))), nz);
  EXPECT_EQ(div_approx_f32(F(6), F(3)), F(2));
  EXPECT_EQ(div_full_f32(F(1), F(3)), 0x3EAAAAABu);
  EXPECT_EQ(div_full_f32(F(std::ldexp(1.0f, 100)), F(std::ldexp(1.0f, 127))), F(std::ldexp(1.0f, -27)));
  // f64
  EXPECT_EQ(rsqrt_approx_f64(kF64Sign), kF64Sign | kF64Inf);
  EXPECT_EQ(rsqrt_approx_f64(D(4)), D(0.5));
  EXPECT_EQ(rsqrt_approx_f64(D(-4)), kF64DefaultNaN);
  EXPECT_EQ(rcp_approx_ftz_f64(0x7FF8000000000000ull), kF64ApproxFtzNaN);
  EXPECT_EQ(rcp_approx_ftz_f64(D(2)), D(0.5));
  EXPECT_EQ(rcp_approx_ftz_f64(D(3)) & 0xFFFFFFFFull, 0u);
  EXPECT_EQ(rcp_approx_ftz_f64(0x800FFFFFFFFFFFFFull), kF64Sign | kF64Inf);  // -subnormal
  EXPECT_EQ(rcp_approx_ftz_f64(kF64Inf | kF64Sign), kF64Sign);
  EXPECT_EQ(rcp_approx_ftz_f64(D(-0.25) | 0x12345678u), D(-4));  // low word ignored
  EXPECT_EQ(rcp_approx_ftz_f64(0x7FE0000000000000ull), 0u);  // 1/2^1023 is subnormal -> +0
  EXPECT_EQ(rsqrt_approx_ftz_f64(D(4)), D(0.5));
  EXPECT_EQ(rsqrt_approx_ftz_f64(D(-4)), kF64ApproxFtzNaN);
  EXPECT_EQ(rsqrt_approx_ftz_f64(0x8000000000000001ull), kF64Sign | kF64Inf);
  EXPECT_EQ(rsqrt_approx_ftz_f64(kF64Inf), 0u);
  // f16 / bf16
  EXPECT_EQ(ex2_approx_f16(0x3C00), 0x4000);
  EXPECT_EQ(ex2_approx_f16(0xFC00), 0x0000);
  EXPECT_EQ(ex2_approx_f16(0x8000), 0x3C00);
  EXPECT_EQ(ex2_approx_f16(0x7C00), 0x7C00);
  EXPECT_EQ(ex2_approx_f16(0x7D00), kF16CanonicalNaN);
  EXPECT_EQ(ex2_approx_f16x2(pack16(0x4000, 0xBC00)), pack16(0x4400, 0x3800));
  EXPECT_EQ(ex2_approx_ftz_bf16(0x0001), 0x3F80);
  EXPECT_EQ(ex2_approx_ftz_bf16(0x8001), 0x3F80);
  EXPECT_EQ(ex2_approx_ftz_bf16(0xC300), 0x0000);  // 2^-128 is subnormal -> flushed
  EXPECT_EQ(ex2_approx_ftz_bf16(0xFF80), 0x0000);
  EXPECT_EQ(tanh_approx_f16(0xFC00), 0xBC00);
  EXPECT_EQ(tanh_approx_f16(0x8000), 0x8000);
  EXPECT_EQ(tanh_approx_bf16(0x7F80), 0x3F80);
  EXPECT_EQ(tanh_approx_bf16x2(pack16(0x0001, 0x7FC0)), pack16(0x0001, 0x7FFF));
}

TEST(NumApprox, ErrorWithinIsaBounds) {
  // Sweep positive and negative arguments and compare with long double references.
  for (int i = -2000; i <= 2000; ++i) {
    const float x = static_cast<float>(i) * 0.0123f;
    const long double lx = x;
    long double e = std::exp2(lx);
    long double r = Fv(ex2_approx_f32(F(x)));
    EXPECT_LE(std::fabs(r - e) / e, std::ldexp(1.0L, -23)) << x;  // ISA: 2 ulp
    long double s = std::sin(lx), c = std::cos(lx);
    if (std::fabs(x) <= 2 * 3.14159265f) {
      EXPECT_LE(std::fabs(Fv(sin_approx_f32(F(x))) - s), std::ldexp(1.0L, -20.5L)) << x;
      EXPECT_LE(std::fabs(Fv(cos_approx_f32(F(x))) - c), std::ldexp(1.0L, -20.5L)) << x;
    }
    long double t = std::tanh(lx);
    if (t != 0) {
      EXPECT_LE(std::fabs(Fv(tanh_approx_f32(F(x))) - t) / std::fabs(t), std::ldexp(1.0L, -11));
    }
    if (x > 0) {
      long double l = std::log2(lx);
      long double lr = Fv(lg2_approx_f32(F(x)));
      if (x > 0.5f && x < 2.0f) { EXPECT_LE(std::fabs(lr - l), std::ldexp(1.0L, -22)) << x; }
      else { EXPECT_LE(std::fabs(lr - l) / std::fabs(l), std::ldexp(1.0L, -22)) << x; }
      long double rs = 1.0L / std::sqrt(lx);
      EXPECT_LE(std::fabs(Fv(rsqrt_approx_f32(F(x))) - rs) / rs, std::ldexp(1.0L, -22.9L)) << x;
      EXPECT_LE(std::fabs(Fv(sqrt_approx_f32(F(x))) - std::sqrt(lx)) / std::sqrt(lx),
                std::ldexp(1.0L, -23)) << x;
      long double d = f64_from(rsqrt_approx_f64(D(x)));
      EXPECT_LE(std::fabs(d - rs) / rs, std::ldexp(1.0L, -52)) << x;
      long double g = f64_from(rcp_approx_ftz_f64(D(x)));
      EXPECT_LE(std::fabs(g - 1.0L / lx) * lx, std::ldexp(1.0L, -19)) << x;  // input cut to 20 bits
    }
  }
  // f16 / bf16 over every finite input.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    if (!f16_is_nan(v) && !f16_is_inf(v)) {
      long double x = f16_to_f32(v);
      long double e = std::exp2(x);
      long double r = f16_to_f32(ex2_approx_f16(v));
      if (e >= std::ldexp(1.0L, -14) && e <= 65504) {
        EXPECT_LE(std::fabs(r - e) / e, std::ldexp(1.0L, -9.9L)) << h;
      }
      long double t = std::tanh(x);
      EXPECT_LE(std::fabs(f16_to_f32(tanh_approx_f16(v)) - t), std::ldexp(1.0L, -10.987L)) << h;
    }
    if (!bf16_is_nan(v) && !bf16_is_inf(v)) {
      long double x = bf16_to_f32(v);
      long double t = std::tanh(x);
      EXPECT_LE(std::fabs(bf16_to_f32(tanh_approx_bf16(v)) - t), std::ldexp(1.0L, -8)) << h;
      long double e = std::exp2(x);
      if (!bf16_is_subnormal(v) && e >= std::ldexp(1.0L, -126) && e < std::ldexp(1.0L, 127)) {
        long double r = bf16_to_f32(ex2_approx_ftz_bf16(v));
        EXPECT_LE(std::fabs(r - e) / e, std::ldexp(1.0L, -7)) << h;
      }
    }
  }
}

// rsqrt.approx.f64 is 1/sqrt(x) rounded once to nearest (the same bits on every host). Checked in
// integer arithmetic, independently of the model: y = Y * 2^f is the nearest double to 1/sqrt(x),
// x = m * 2^e, exactly when (2Y - 1)^2 * m < 2^K < (2Y + 1)^2 * m with K = 2 - e - 2f (the two
// midpoints around y squared and times x, against 1; 1/sqrt(x) is never a midpoint).
TEST(NumApprox, RsqrtF64CorrectlyRounded) {
  // Sign of a * m - 2^K for a < 2^110, m < 2^54 (the product has up to 164 bits), 64 <= K < 192.
  auto cmp_pow2 = [](u128 a, uint64_t m, int K) {
    const u128 lo = u128(uint64_t(a)) * m;
    const u128 hi = u128(uint64_t(a >> 64)) * m + (lo >> 64);  // the product is hi * 2^64 + low word
    const u128 p = u128(1) << (K - 64);
    if (hi != p) return hi < p ? -1 : 1;
    return uint64_t(lo) == 0 ? 0 : 1;
  };
  const uint64_t seed = 20261128;
  std::mt19937_64 gen(seed);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    uint64_t xb = gen() & ~kF64Sign;
    if (i % 4 == 0) xb &= (uint64_t(1) << 52) - 1;  // subnormals
    if (i < 3) xb = std::vector<uint64_t>{1, D(1), 0x7FEFFFFFFFFFFFFFull}[size_t(i)];
    if (xb == 0 || f64_is_inf(xb) || f64_is_nan(xb)) continue;
    const uint64_t yb = rsqrt_approx_f64(xb);
    const int xe = int(xb >> 52), ye = int(yb >> 52);
    const uint64_t m = (xb & ((uint64_t(1) << 52) - 1)) | (xe ? uint64_t(1) << 52 : 0);
    const int e = xe ? xe - 1075 : -1074;
    ASSERT_GT(ye, 0) << "result not normal for x bits " << std::hex << xb << " (seed " << std::dec << seed << ")";
    const uint64_t Y = (yb & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
    const int f = ye - 1075, K = 2 - e - 2 * f;
    ASSERT_TRUE(K >= 64 && K < 192) << K;
    const u128 below = u128(2 * Y - 1) * (2 * Y - 1), above = u128(2 * Y + 1) * (2 * Y + 1);
    EXPECT_LT(cmp_pow2(below, m, K), 0) << "x bits " << std::hex << xb << " (seed " << std::dec << seed << ")";
    EXPECT_GT(cmp_pow2(above, m, K), 0) << "x bits " << std::hex << xb << " (seed " << std::dec << seed << ")";
    ++checked;
  }
  EXPECT_GT(checked, 190000);
}

// ================================================================================================
// exhaustive codec checks against the first-principles formulas and brute-force search
// ================================================================================================
TEST(NumExhaustive, F16AndBF16Decode) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    double r = ref_f16(v);
    float f = f16_to_f32(v);
    if (std::isnan(r)) {
      EXPECT_EQ(f32_bits(f), kF32CanonicalNaN);
      EXPECT_EQ(f32_to_f16(f32_bits(f), Round::RN), kF16CanonicalNaN);
    } else {
      ASSERT_EQ(static_cast<double>(f), r) << h;
      ASSERT_EQ(std::signbit(f), std::signbit(r)) << h;
      ASSERT_EQ(f16_to_f64(v), f64_bits(r)) << h;
      for (Round rm : {Round::RN, Round::RZ, Round::RM, Round::RP, Round::RNA})
        ASSERT_EQ(f32_to_f16(f32_bits(f), rm), v) << h;  // exact values round-trip in every mode
    }
    double b = ref_bf16(v);
    if (!std::isnan(b)) {
      ASSERT_EQ(static_cast<double>(bf16_to_f32(v)), b) << h;
      ASSERT_EQ(f32_to_bf16(bf16_to_f32_bits(v), Round::RN), v) << h;
      ASSERT_EQ(f64_to_bf16(bf16_to_f64(v), Round::RZ), v) << h;
    } else {
      ASSERT_EQ(bf16_to_f32_bits(v), kF32CanonicalNaN);
    }
  }
}

TEST(NumExhaustive, EightBitDecodeAndRoundTrip) {
  for (unsigned c = 0; c < 256; ++c) {
    const uint8_t u = static_cast<uint8_t>(c);
    double e4 = ref_e4m3(u), e5 = ref_e5m2(u);
    if (std::isnan(e4)) {
      EXPECT_TRUE(std::isnan(e4m3_to_f32(u)));
      EXPECT_EQ(e4m3_to_f16(u), kF16CanonicalNaN);
    } else {
      EXPECT_EQ(static_cast<double>(e4m3_to_f32(u)), e4) << c;
      EXPECT_EQ(f32_to_e4m3(f32_bits(e4m3_to_f32(u))), u) << c;
      EXPECT_EQ(f16_to_f32(e4m3_to_f16(u)), e4m3_to_f32(u)) << c;
      EXPECT_EQ(f16_to_e4m3(e4m3_to_f16(u)), u) << c;
      EXPECT_EQ(bf16_to_e4m3(f32_to_bf16(f32_bits(e4m3_to_f32(u)), Round::RN)), u) << c;
    }
    if (std::isnan(e5)) {
      EXPECT_TRUE(std::isnan(e5m2_to_f32(u)));
      EXPECT_EQ(e5m2_to_f16(u), kF16CanonicalNaN);
    } else {
      EXPECT_EQ(static_cast<double>(e5m2_to_f32(u)), e5) << c;
      EXPECT_EQ(e5m2_to_f16(u), static_cast<uint16_t>(c << 8)) << c;  // e5m2 is f16's top byte
      if (!std::isinf(e5)) { EXPECT_EQ(f32_to_e5m2(f32_bits(e5m2_to_f32(u))), u) << c; }
    }
    // ue8m0
    if (c != 0xFF) {
      EXPECT_EQ(static_cast<double>(ue8m0_to_f32(u)), std::ldexp(1.0, static_cast<int>(c) - 127));
    }
    if (c != 0xFF) { EXPECT_EQ(f32_to_ue8m0(f32_bits(ue8m0_to_f32(u)), Round::RZ, true), u); }
    if (c != 0xFF) { EXPECT_EQ(f32_to_ue8m0(f32_bits(ue8m0_to_f32(u)), Round::RP, true), u); }
    if (c != 0xFF) { EXPECT_EQ(bf16_to_f32(ue8m0_to_bf16(u)), ue8m0_to_f32(u)); }
    // ue4m3 (7-bit)
    if (c < 0x7F) {
      EXPECT_EQ(static_cast<double>(ue4m3_to_f32(u)), ref_small(c, 4, 3, 7, false)) << c;
      EXPECT_EQ(f32_to_ue4m3(f32_bits(ue4m3_to_f32(u))), u) << c;
    }
  }
  for (unsigned c = 0; c < 64; ++c) {
    const uint8_t u = static_cast<uint8_t>(c);
    EXPECT_EQ(static_cast<double>(e2m3_to_f32(u)), ref_small(c, 2, 3, 1)) << c;
    EXPECT_EQ(static_cast<double>(e3m2_to_f32(u)), ref_small(c, 3, 2, 3)) << c;
    EXPECT_EQ(f32_to_e2m3(f32_bits(e2m3_to_f32(u))), u) << c;
    EXPECT_EQ(f32_to_e3m2(f32_bits(e3m2_to_f32(u))), u) << c;
    EXPECT_EQ(f16_to_e2m3(e2m3_to_f16(u)), u) << c;
    EXPECT_EQ(f16_to_e3m2(e3m2_to_f16(u)), u) << c;
    EXPECT_EQ(f16_to_f32(e2m3_to_f16(u)), e2m3_to_f32(u));
    EXPECT_EQ(f16_to_f32(e3m2_to_f16(u)), e3m2_to_f32(u));
  }
  for (unsigned c = 0; c < 16; ++c) {
    const uint8_t u = static_cast<uint8_t>(c);
    EXPECT_EQ(static_cast<double>(e2m1_to_f32(u)), ref_small(c, 2, 1, 1)) << c;
    EXPECT_EQ(f32_to_e2m1(f32_bits(e2m1_to_f32(u))), u) << c;
    EXPECT_EQ(f16_to_e2m1(e2m1_to_f16(u)), u) << c;
    EXPECT_EQ(f16_to_f32(e2m1_to_f16(u)), e2m1_to_f32(u));
  }
}

// Every f16 input (each one is also an f32 input) through every narrow encoder vs brute force.
TEST(NumExhaustive, NarrowEncodersFromEveryF16) {
  auto dec_e4m3 = [](unsigned c) { return ref_e4m3(static_cast<uint8_t>(c)); };
  auto dec_e5m2 = [](unsigned c) { return ref_e5m2(static_cast<uint8_t>(c)); };
  auto dec_e2m3 = [](unsigned c) { return ref_small(c, 2, 3, 1); };
  auto dec_e3m2 = [](unsigned c) { return ref_small(c, 3, 2, 3); };
  auto dec_e2m1 = [](unsigned c) { return ref_small(c, 2, 1, 1); };
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    if (f16_is_nan(v)) {
      EXPECT_EQ(f16_to_e4m3(v), 0x7F);
      EXPECT_EQ(f16_to_e5m2(v), 0x7F);
      EXPECT_EQ(f16_to_e2m3(v), 0x1F);
      EXPECT_EQ(f16_to_e3m2(v), 0x1F);
      EXPECT_EQ(f16_to_e2m1(v), 0x7);
      continue;
    }
    const double x = ref_f16(v);
    const uint32_t x32 = f16_to_f32_bits(v);
    const unsigned e4 = brute_encode(x, 256, 0x80, dec_e4m3);
    ASSERT_EQ(f16_to_e4m3(v), e4) << h;
    ASSERT_EQ(f32_to_e4m3(x32), e4) << h;
    const unsigned e5 = brute_encode(x, 256, 0x80, dec_e5m2);
    ASSERT_EQ(f16_to_e5m2(v), e5) << h;
    ASSERT_EQ(f32_to_e5m2(x32), e5) << h;
    const unsigned e23 = brute_encode(x, 64, 0x20, dec_e2m3);
    ASSERT_EQ(f16_to_e2m3(v), e23) << h;
    ASSERT_EQ(f32_to_e2m3(x32), e23) << h;
    const unsigned e32 = brute_encode(x, 64, 0x20, dec_e3m2);
    ASSERT_EQ(f16_to_e3m2(v), e32) << h;
    const unsigned e21 = brute_encode(x, 16, 0x8, dec_e2m1);
    ASSERT_EQ(f16_to_e2m1(v), e21) << h;
    ASSERT_EQ(f32_to_e2m1(x32), e21) << h;
    // .relu: negative (and -0) -> +0, otherwise unchanged.
    const bool neg = std::signbit(x);
    ASSERT_EQ(f16_to_e4m3(v, true), neg ? 0u : e4) << h;
    ASSERT_EQ(f16_to_e2m1(v, true), neg ? 0u : e21) << h;
  }
}

// ue8m0 from every bf16 input vs a log2-based reference.
TEST(NumExhaustive, Ue8m0FromEveryBf16) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    if (bf16_is_nan(v)) {
      EXPECT_EQ(bf16_to_ue8m0(v, Round::RZ, true), 0xFF);
      continue;
    }
    const double x = std::fabs(ref_bf16(v));
    for (bool sat : {false, true}) {
      for (Round rm : {Round::RZ, Round::RP}) {
        unsigned expect;
        if (std::isinf(x)) {
          expect = sat ? 0xFE : 0xFF;
        } else if (x == 0) {
          expect = 0;
        } else {
          int e = rm == Round::RZ ? static_cast<int>(std::floor(std::log2(x)))
                                  : static_cast<int>(std::ceil(std::log2(x)));
          if (e < -127) e = -127;
          expect = e > 127 ? (sat ? 0xFE : 0xFF) : static_cast<unsigned>(e + 127);
        }
        ASSERT_EQ(bf16_to_ue8m0(v, rm, sat), expect) << h;
      }
    }
  }
}
