// Block-scaled tensor-core arithmetic (model/tensorcore/block_scaled.h): the fast path against the
// independent Boost.Multiprecision reference (exact_ref.h ref::block_scaled_dot) on random raw
// bit patterns and structured stimuli, one test per block-scaled row (BlockScaledRows/...), over
// every element pair, scale format and scale vector size the row serves (>= 10^5 outputs per row,
// >= 10^4 per combination), plus directed cases: the scale-factor codecs, the published Table 8
// vector (Blackwell mx: -0.75, NVFP4: -0.875), NaN scales, zero scales.
//
// Random inputs print their seed (also in failure messages); rerun one with PTXSIM_TEST_SEED=<seed>.
// PTXSIM_TC_SCALE=<x> multiplies the number of random dot products (ctest -L long: x = 100).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "model/tensorcore/block_scaled.h"
#include "model/tensorcore/exact_ref.h"
#include "tensorcore_test_util.h"

namespace ptxsim::model::tc {
namespace {

uint64_t seed_for_test() {
  uint64_t s;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  else s = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << info->test_suite_name() << "." << info->name() << ": PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

double test_scale() {
  if (const char* e = std::getenv("PTXSIM_TC_SCALE")) return std::strtod(e, nullptr);
  return 1.0;
}

uint32_t f32(float x) { return std::bit_cast<uint32_t>(x); }

const BlockScaledModel& row(const char* kind, ElemFmt a, ElemFmt b, ScaleFmt s) {
  const BlockScaledModel* m = find_block_scaled_model(Arch::SM100, Unit::Tcgen05, kind, a, b, s);
  if (!m) throw std::runtime_error(std::string("no block-scaled row for ") + kind);
  return *m;
}

// Bits of each element format: width, exponent bits, mantissa bits (written here for the generator).
struct Fields {
  int width, ebits, mbits;
};
Fields fields(ElemFmt f) {
  switch (f) {
    case ElemFmt::E4M3: return {8, 4, 3};
    case ElemFmt::E5M2: return {8, 5, 2};
    case ElemFmt::E3M2: return {6, 3, 2};
    case ElemFmt::E2M3: return {6, 2, 3};
    default: return {4, 2, 1};  // E2M1
  }
}

struct Case {
  const char* kind;
  ElemFmt fa, fb;
  ScaleFmt sf;
  int vec, K;
};

// The (scale format, scale vector size, K) of each kind's .scale_vec forms: mxf8f6f4 1X (K = 32,
// one UE8M0 per row), mxf4 2X (K = 64, UE8M0 per 32), mxf4nvf4 2X (UE8M0) and 4X (UE8M0 or UE4M3,
// per 16).
struct ScaleForm {
  ScaleFmt sf;
  int vec, K;
};
std::vector<ScaleForm> scale_forms(std::string_view kind) {
  if (kind == "mxf8f6f4") return {{ScaleFmt::UE8M0, 32, 32}};
  if (kind == "mxf4") return {{ScaleFmt::UE8M0, 32, 64}};
  return {{ScaleFmt::UE8M0, 32, 64}, {ScaleFmt::UE8M0, 16, 64}, {ScaleFmt::UE4M3, 16, 64}};
}

// Every (A type, B type, scale form) whose instruction find_block_scaled_model resolves to row m.
std::vector<Case> cases_of(const BlockScaledModel& m) {
  std::vector<Case> v;
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b)
      for (const ScaleForm& f : scale_forms(m.kind)) {
        const ElemFmt fa = ElemFmt(a), fb = ElemFmt(b);
        if ((m.a_types & fmt_bit(fa)) && (m.b_types & fmt_bit(fb)) &&
            find_block_scaled_model(m.arch, m.unit, m.kind, fa, fb, f.sf) == &m)
          v.push_back({m.kind, fa, fb, f.sf, f.vec, f.K});
      }
  return v;
}

// One random dot product of case c: raw bits, or structured (finite elements, scales around a
// centre, c near the products, cancellation, zero groups, scale extremes).
struct Dot {
  std::vector<uint32_t> a, b;
  std::vector<uint8_t> sa, sb;
  uint32_t c = 0;
};

void draw(std::mt19937_64& rng, const Case& cs, Dot& d) {
  const Fields fa = fields(cs.fa), fb = fields(cs.fb);
  const int nsf = cs.K / cs.vec;
  d.a.resize(size_t(cs.K));
  d.b.resize(size_t(cs.K));
  d.sa.resize(size_t(nsf));
  d.sb.resize(size_t(nsf));
  auto bits = [&](int w) { return uint32_t(rng() & ((1ull << w) - 1)); };
  const int mix = int(rng() % 6);
  for (auto& x : d.a) x = bits(fa.width);
  for (auto& x : d.b) x = bits(fb.width);
  if (mix == 0) {  // raw bits everywhere (NaN / Inf elements, NaN scales, any c)
    for (auto& s : d.sa) s = uint8_t(bits(8));
    for (auto& s : d.sb) s = uint8_t(bits(8));
    d.c = uint32_t(rng());
    return;
  }
  // Finite elements (no NaN / Inf encodings).
  auto finite = [&](ElemFmt f, uint32_t x) {
    if (f == ElemFmt::E4M3 && (x & 0x7F) == 0x7F) return x & ~1u;
    if (f == ElemFmt::E5M2 && (x & 0x7C) == 0x7C) return x & ~0x40u;
    return x;
  };
  for (auto& x : d.a) x = finite(cs.fa, x);
  for (auto& x : d.b) x = finite(cs.fb, x);
  // Scales around a centre: near 1, or near the extremes (floors, subnormal and overflowing outputs).
  const int centre = mix == 5 ? (rng() & 1 ? -120 : 120) : int(rng() % 21) - 10;
  auto scale = [&]() -> uint8_t {
    if (cs.sf == ScaleFmt::UE8M0) return uint8_t(std::clamp(127 + centre / 2 + int(rng() % 7) - 3, 0, 254));
    uint32_t s = bits(7);  // ue4m3: any value but NaN, sometimes zero, sometimes the ignored sign bit
    if (s == 0x7F) s = 0x7E;
    if (rng() % 20 == 0) s = 0;
    return uint8_t(s | (rng() % 4 == 0 ? 0x80 : 0));
  };
  for (auto& s : d.sa) s = scale();
  for (auto& s : d.sb) s = scale();
  // c: zero, near the products' scale, or far from it.
  const int ec = std::clamp(centre + int(rng() % 9) - 4, -140, 127);
  const uint32_t sign = uint32_t(rng() & 1) << 31;
  switch (mix) {
    case 1: d.c = 0; break;
    case 2: d.c = sign | uint32_t(std::clamp(ec + 127, 0, 254)) << 23 | bits(23); break;
    case 3:  // cancellation: B = -A elementwise where the formats agree, c small
      if (cs.fa == cs.fb)
        for (int k = 0; k < cs.K; ++k) d.b[size_t(k)] = d.a[size_t(k)] ^ (k % 2 ? (1u << (fb.width - 1)) : 0);
      d.sb = d.sa;
      d.c = sign | uint32_t(std::clamp(ec + 100, 0, 254)) << 23 | bits(23);
      break;
    case 4:  // zero groups of 16
      for (int k = 0; k < cs.K; ++k)
        if ((k / 16) % 2 == int(rng() & 1)) d.a[size_t(k)] = rng() & 1 ? 0 : 1u << (fa.width - 1);
      d.c = sign | uint32_t(std::clamp(ec + 127, 1, 254)) << 23 | bits(23);
      break;
    default: d.c = sign | uint32_t(std::clamp(ec + 127, 0, 254)) << 23 | bits(23); break;
  }
}

class BlockScaledRowMatchesExactReference : public ::testing::TestWithParam<const BlockScaledModel*> {};

TEST_P(BlockScaledRowMatchesExactReference, RandomOutputs) {
  const BlockScaledModel& m = *GetParam();
  const uint64_t seed = seed_for_test();
  std::mt19937_64 rng(seed);
  const auto cases = cases_of(m);
  ASSERT_FALSE(cases.empty()) << m.id;
  const long per_case =
      std::max(long(10000 * test_scale()), (long(100000 * test_scale()) + long(cases.size()) - 1) / long(cases.size()));
  long total = 0;
  std::string counts;
  for (const Case& cs : cases) {
    Dot d;
    int failures = 0;
    for (long i = 0; i < per_case; ++i) {
      draw(rng, cs, d);
      const uint32_t got = block_scaled_dot(m, cs.fa, d.a.data(), cs.fb, d.b.data(), cs.K, cs.sf, d.sa.data(),
                                            d.sb.data(), cs.vec, d.c);
      const uint32_t want = ref::block_scaled_dot(m, cs.fa, d.a.data(), cs.fb, d.b.data(), cs.K, cs.sf, d.sa.data(),
                                                  d.sb.data(), cs.vec, d.c);
      if (got != want && ++failures <= 3) {
        std::string in;
        for (uint32_t x : d.a) in += std::to_string(x) + " ";
        in += "| ";
        for (uint32_t x : d.b) in += std::to_string(x) + " ";
        in += "| sa ";
        for (uint8_t x : d.sa) in += std::to_string(x) + " ";
        in += "sb ";
        for (uint8_t x : d.sb) in += std::to_string(x) + " ";
        ADD_FAILURE() << m.id << " " << fmt_name(cs.fa) << "x" << fmt_name(cs.fb) << " " << fmt_name(cs.sf) << " vec "
                      << cs.vec << ": fast " << std::hex << got << " exact " << want << " c " << d.c << std::dec
                      << " (PTXSIM_TEST_SEED=" << seed << ")\n  " << in;
      }
    }
    EXPECT_EQ(failures, 0) << m.id << " " << fmt_name(cs.fa) << "x" << fmt_name(cs.fb) << " vec " << cs.vec;
    total += per_case;
    counts += std::string(" ") + fmt_name(cs.fa) + "x" + fmt_name(cs.fb) + "/" + fmt_name(cs.sf) + "/" +
              std::to_string(cs.vec) + ":" + std::to_string(per_case);
  }
  std::cout << "[ outputs  ] " << m.id << ": " << total << " (" << counts.substr(1) << ")\n";
  EXPECT_GE(double(total), 1e5 * test_scale());
}

INSTANTIATE_TEST_SUITE_P(BlockScaledRows, BlockScaledRowMatchesExactReference,
                         ::testing::ValuesIn(test::block_scaled_rows()), test::row_name<BlockScaledModel>);

TEST(BlockScaledNumerics, ScaleFactorCodecs) {
  auto val = [](ScaleFmt f, uint8_t b) {
    const Value v = decode_scale(f, b);
    if (v.cls == Value::NaN) return std::nan("");
    return v.cls == Value::Zero ? 0.0 : std::ldexp(double(v.m), v.q);
  };
  EXPECT_EQ(val(ScaleFmt::UE8M0, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(val(ScaleFmt::UE8M0, 0x7F), 1.0);
  EXPECT_EQ(val(ScaleFmt::UE8M0, 0x80), 2.0);
  EXPECT_EQ(val(ScaleFmt::UE8M0, 0xFE), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(val(ScaleFmt::UE8M0, 0xFF)));
  EXPECT_EQ(val(ScaleFmt::UE4M3, 0x00), 0.0);
  EXPECT_EQ(val(ScaleFmt::UE4M3, 0x01), std::ldexp(1.0, -9));  // smallest subnormal: 2^-6 * 1/8
  EXPECT_EQ(val(ScaleFmt::UE4M3, 0x38), 1.0);
  EXPECT_EQ(val(ScaleFmt::UE4M3, 0xB8), 1.0);  // the sign bit is ignored
  EXPECT_EQ(val(ScaleFmt::UE4M3, 0x7E), 448.0);
  EXPECT_TRUE(std::isnan(val(ScaleFmt::UE4M3, 0x7F)));
  EXPECT_TRUE(std::isnan(val(ScaleFmt::UE4M3, 0xFF)));
}

// The paper's Table 8 vector (c = 2^23; products -2^23, -0.5, -0.25, -0.125; exact -0.875):
// Blackwell mx (F = 25) gives -0.75, NVFP4 (F = 35, groups aligned on their scales) -0.875.
TEST(BlockScaledNumerics, PaperTable8Vector) {
  const uint32_t c = f32(8388608.0f);
  // mxf8f6f4 e5m2 with unit scales: -2^13 * 2^10, -0.5, -0.25, -0.125 (times 1).
  std::vector<uint32_t> a8 = {0xF0, 0xB8, 0xB4, 0xB0}, b8 = {0x64, 0x3C, 0x3C, 0x3C};
  a8.resize(32, 0);
  b8.resize(32, 0);
  const uint8_t one = 0x7F;
  const BlockScaledModel& mx8 = row("mxf8f6f4", ElemFmt::E5M2, ElemFmt::E5M2, ScaleFmt::UE8M0);
  EXPECT_EQ(block_scaled_dot(mx8, ElemFmt::E5M2, a8.data(), ElemFmt::E5M2, b8.data(), 32, ScaleFmt::UE8M0, &one, &one,
                             32, c),
            f32(-0.75f));
  // The same with the big product made by the scales: -2^3 * 2^0 with sA = 2^20.
  std::vector<uint32_t> a8s = {0xC8 /* -8 */, 0xB8, 0xB4, 0xB0};
  a8s.resize(32, 0);
  std::vector<uint32_t> b8s = {0x3C, 0x3C, 0x3C, 0x3C};
  b8s.resize(32, 0);
  const uint8_t big = 0x7F + 20;
  EXPECT_EQ(block_scaled_dot(mx8, ElemFmt::E5M2, a8s.data(), ElemFmt::E5M2, b8s.data(), 32, ScaleFmt::UE8M0, &big, &one,
                             32, c),
            f32(-917504.0f))  // 2^23 - (8 + 0.5 + 0.25 + 0.125) * 2^20, exact
      << "scales multiply every product of their block";
  // NVFP4 (scale_vec::4X, UE8M0): group 0 = -4 * 4 with sA = 2^19 -> -2^23; group 1 = -0.5*1 - 0.5*0.5;
  // group 2 = -0.5 * 0.5 with sA = 2^-1 -> -0.125; group 3 zero.
  std::vector<uint32_t> a4(64, 0), b4(64, 0);
  a4[0] = 0xE;  // -4
  b4[0] = 0x6;  // 4
  a4[16] = 0x9;  // -0.5
  b4[16] = 0x2;  // 1
  a4[17] = 0x9;
  b4[17] = 0x1;  // 0.5
  a4[32] = 0x9;
  b4[32] = 0x1;
  const uint8_t sa4[4] = {0x7F + 19, 0x7F, 0x7E, 0x7F}, sb4[4] = {0x7F, 0x7F, 0x7F, 0x7F};
  const BlockScaledModel& nv = row("mxf4nvf4", ElemFmt::E2M1, ElemFmt::E2M1, ScaleFmt::UE8M0);
  EXPECT_EQ(block_scaled_dot(nv, ElemFmt::E2M1, a4.data(), ElemFmt::E2M1, b4.data(), 64, ScaleFmt::UE8M0, sa4, sb4, 16, c),
            f32(-0.875f));
  EXPECT_EQ(ref::block_scaled_dot(nv, ElemFmt::E2M1, a4.data(), ElemFmt::E2M1, b4.data(), 64, ScaleFmt::UE8M0, sa4, sb4,
                                  16, c),
            f32(-0.875f));
}

TEST(BlockScaledNumerics, NanScalesZeroScalesAndLookup) {
  const BlockScaledModel& nv = row("mxf4nvf4", ElemFmt::E2M1, ElemFmt::E2M1, ScaleFmt::UE4M3);
  std::vector<uint32_t> a(64, 0x2), b(64, 0x2);  // all ones
  uint8_t sa[4] = {0x38, 0x38, 0x38, 0x38}, sb[4] = {0x38, 0x38, 0x38, 0x38};
  auto run = [&](uint32_t c) {
    return block_scaled_dot(nv, ElemFmt::E2M1, a.data(), ElemFmt::E2M1, b.data(), 64, ScaleFmt::UE4M3, sa, sb, 16, c);
  };
  EXPECT_EQ(run(0), f32(64.0f));
  sb[2] = 0x00;  // a zero scale removes its group
  EXPECT_EQ(run(0), f32(48.0f));
  sa[3] = 0x7F;  // a NaN scale makes the result NaN
  EXPECT_EQ(run(f32(1.0f)), 0x7FFFFFFFu);
  sa[3] = 0xFF;  // the sign bit is ignored: still NaN
  EXPECT_EQ(run(0), 0x7FFFFFFFu);
  // e5m2 Inf times a scale is Inf; Inf with a NaN scale is NaN.
  const BlockScaledModel& mx8 = row("mxf8f6f4", ElemFmt::E5M2, ElemFmt::E5M2, ScaleFmt::UE8M0);
  std::vector<uint32_t> a8(32, 0), b8(32, 0x3C);
  a8[5] = 0xFC;  // -Inf
  uint8_t s = 0x01, nan = 0xFF;
  EXPECT_EQ(block_scaled_dot(mx8, ElemFmt::E5M2, a8.data(), ElemFmt::E5M2, b8.data(), 32, ScaleFmt::UE8M0, &s, &s, 32, 0),
            0xFF800000u);
  EXPECT_EQ(block_scaled_dot(mx8, ElemFmt::E5M2, a8.data(), ElemFmt::E5M2, b8.data(), 32, ScaleFmt::UE8M0, &nan, &s, 32, 0),
            0x7FFFFFFFu);
  // Rows: UE4M3 only with mxf4nvf4; evidence as documented.
  EXPECT_EQ(find_block_scaled_model(Arch::SM100, Unit::Tcgen05, "mxf4", ElemFmt::E2M1, ElemFmt::E2M1, ScaleFmt::UE4M3),
            nullptr);
  EXPECT_EQ(row("mxf4", ElemFmt::E2M1, ElemFmt::E2M1, ScaleFmt::UE8M0).evidence, Evidence::Unvalidated);
  EXPECT_EQ(row("mxf8f6f4", ElemFmt::E4M3, ElemFmt::E4M3, ScaleFmt::UE8M0).evidence, Evidence::Published);
  EXPECT_EQ(row("mxf8f6f4", ElemFmt::E4M3, ElemFmt::E5M2, ScaleFmt::UE8M0).evidence, Evidence::Unvalidated);
  EXPECT_EQ(row("mxf8f6f4", ElemFmt::E2M1, ElemFmt::E2M1, ScaleFmt::UE8M0).evidence, Evidence::Unvalidated);
}

}  // namespace
}  // namespace ptxsim::model::tc
