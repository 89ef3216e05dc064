// model/numerics: the f16 fast paths (f32_to_f16_rn by fields; f16 add, sub and mul through the
// host's f32 arithmetic in half_ops.cpp) against the soft-float library they replace (sf_convert,
// sf_add, sf_mul), bit for bit: every rounding position with its tie patterns, every f16 operand
// against edge operands, and random pairs (seed printed; PTXSIM_TEST_SEED replays one).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "model/numerics/half_lanes.h"
#include "model/numerics/numerics.h"
#include "model/numerics/softfloat.h"

using namespace ptxsim::model::num;

namespace {

uint64_t seed() {
  uint64_t s = std::random_device{}();
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  std::cout << "[ seed     ] PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

uint16_t soft_f32_to_f16(uint32_t a) {
  const SfResult r = sf_convert(kF16, kF32, a, Round::RN, Overflow::IEEE);
  return r.is_nan ? 0x7FFF : uint16_t(r.bits);
}
uint16_t soft(SfResult r) { return r.is_nan ? 0x7FFF : uint16_t(r.bits); }

TEST(HalfFast, F32ToF16RoundsLikeSoftFloat) {
  std::mt19937_64 rng(seed());
  size_t bad = 0, n = 0;
  auto check = [&](uint32_t a) {
    ++n;
    const uint16_t got = f32_to_f16(a, Round::RN), want = soft_f32_to_f16(a);
    if (got != want && ++bad <= 5) ADD_FAILURE() << std::hex << "f32 0x" << a << ": got 0x" << got << " want 0x" << want;
  };
  // Every exponent and sign; below the bit a result keeps (bit 13 for normal f16 results, higher for
  // subnormal ones), each pattern that decides a rounding: zero, just above zero, just below, at and
  // just above half, all ones.
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t e = 0; e < 256; ++e)
      for (int p = 13; p <= 24; ++p) {
        const uint32_t half = 1u << (p - 1), unit = p < 23 ? 1u << p : 0x800000u;
        const uint32_t lows[] = {0, 1, half - 1, half, half + 1, unit - 1};
        for (int r = 0; r < 64; ++r) {
          const uint32_t high = uint32_t(rng()) & 0x7FFFFFu & ~(unit - 1);
          for (const uint32_t low : lows) check(sign << 31 | e << 23 | ((high | low) & 0x7FFFFFu));
        }
      }
  for (int i = 0; i < 1 << 22; ++i) check(uint32_t(rng()));
  EXPECT_EQ(bad, 0u) << "of " << n;
}

TEST(HalfFast, F16AddSubMulRoundLikeSoftFloat) {
  std::mt19937_64 rng(seed());
  std::vector<uint16_t> edges = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x0401, 0x3BFF, 0x3C00, 0x3C01,
                                 0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFFFF, 0x1000, 0x5BFF};
  for (int i = 0; i < 44; ++i) edges.push_back(uint16_t(rng()));
  size_t bad = 0, n = 0;
  auto check = [&](uint16_t a, uint16_t b) {
    n += 3;
    const uint16_t add = add_f16(a, b), sub = sub_f16(a, b), mul = mul_f16(a, b);
    const uint16_t want_add = soft(sf_add(kF16, a, b, Round::RN));
    const uint16_t want_sub = soft(sf_add(kF16, a, uint16_t(b ^ 0x8000), Round::RN));
    const uint16_t want_mul = soft(sf_mul(kF16, a, b, Round::RN));
    if ((add != want_add || sub != want_sub || mul != want_mul) && ++bad <= 5)
      ADD_FAILURE() << std::hex << "a 0x" << a << " b 0x" << b << ": add 0x" << add << "/0x" << want_add << " sub 0x"
                    << sub << "/0x" << want_sub << " mul 0x" << mul << "/0x" << want_mul;
  };
  for (uint32_t a = 0; a < 0x10000; ++a)
    for (const uint16_t b : edges) {
      check(uint16_t(a), b);
      check(b, uint16_t(a));
    }
  for (int i = 0; i < 1 << 22; ++i) check(uint16_t(rng()), uint16_t(rng()));
  // Sums that round at a tie: a + b where b is a's ulp halved (and neighbours), at every exponent.
  for (uint32_t a = 0; a < 0x7C00; a += 7)
    for (int d = -2; d <= 2; ++d) {
      const uint32_t e = a >> 10;
      const uint16_t half_ulp = e > 11 ? uint16_t((e - 11) << 10) : 0;
      if (half_ulp) check(uint16_t(a), uint16_t(half_ulp + d));
    }
  EXPECT_EQ(bad, 0u) << "of " << n;
}

// The whole-warp f16 add, sub and mul (half_lanes.h) against the soft-float library, 32 lanes per
// call: every f16 operand against the edge operands both ways, random pairs, slots whose upper 48
// bits hold garbage (ignored), and a destination that is one of the sources.
TEST(HalfFast, WarpLanesRoundLikeSoftFloat) {
  const HalfOp ops[] = {HalfOp::Add, HalfOp::Sub, HalfOp::Mul};
  if (!half_lanes(HalfOp::Add)) GTEST_SKIP() << "the host lacks the vector conversions (F16C with AVX-512 or AVX2)";
  std::mt19937_64 rng(seed());
  std::vector<uint16_t> edges = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x0401, 0x3BFF, 0x3C00, 0x3C01,
                                 0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFFFF, 0x1000, 0x5BFF};
  for (int i = 0; i < 12; ++i) edges.push_back(uint16_t(rng()));
  std::vector<uint16_t> as, bs;
  for (uint32_t a = 0; a < 0x10000; ++a)
    for (const uint16_t b : edges) {
      as.push_back(uint16_t(a)), bs.push_back(b);
      as.push_back(b), bs.push_back(uint16_t(a));
    }
  for (int i = 0; i < 1 << 20; ++i) as.push_back(uint16_t(rng())), bs.push_back(uint16_t(rng()));
  size_t bad = 0, n = 0;
  for (const HalfOp op : ops) {
    for (const HalfLanesFn warp : half_lanes_variants(op)) {
      for (size_t i0 = 0; i0 + 32 <= as.size(); i0 += 32) {
        uint64_t a[32], b[32], d[32];
        const bool in_place = (i0 / 32) % 2;  // every other call writes over a
        for (int l = 0; l < 32; ++l) {
          a[l] = (rng() << 16) | as[i0 + size_t(l)];
          b[l] = (rng() << 16) | bs[i0 + size_t(l)];
          d[l] = 0xDEADBEEFDEADBEEFull;  // poison
        }
        uint64_t* out = in_place ? a : d;
        const uint64_t b_before[1] = {b[0]};
        warp(a, b, out);
        EXPECT_EQ(b[0], b_before[0]);
        for (int l = 0; l < 32; ++l) {
          ++n;
          const uint16_t x = as[i0 + size_t(l)], y = bs[i0 + size_t(l)];
          const uint16_t want = op == HalfOp::Add   ? soft(sf_add(kF16, x, y, Round::RN))
                                : op == HalfOp::Sub ? soft(sf_add(kF16, x, uint16_t(y ^ 0x8000), Round::RN))
                                                    : soft(sf_mul(kF16, x, y, Round::RN));
          if (out[l] != want && ++bad <= 5)
            ADD_FAILURE() << std::hex << "op " << int(op) << " a 0x" << x << " b 0x" << y << ": got 0x" << out[l]
                          << " want 0x" << want;
        }
      }
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << n;
}

TEST(HalfFast, ModifiersStillApply) {
  EXPECT_EQ(add_f16(0x3C00, 0x3C00, Round::RN, false, true), 0x3C00);  // .sat: 2 -> 1
  EXPECT_EQ(mul_f16(0xBC00, 0x3C00, Round::RN, false, true), 0x0000);  // .sat: -1 -> +0
  EXPECT_EQ(mul_f16(0x0200, 0x3C00, Round::RN, true, false), 0x0000);  // .ftz: a subnormal input flushes
  EXPECT_EQ(mul_f16(0x0400, 0x3800, Round::RN, true, false), 0x0000);  // .ftz: a subnormal result flushes
  EXPECT_EQ(mul_f16(0x0400, 0x3800, Round::RN, false, false), 0x0200); // without: 2^-15 is subnormal 0x0200
  EXPECT_EQ(add_f16(0x7C00, 0xFC00), 0x7FFF);                          // Inf - Inf: canonical NaN
  EXPECT_EQ(mul_f16(0x7E01, 0x3C00), 0x7FFF);                          // NaN in: canonical NaN
}

}  // namespace
