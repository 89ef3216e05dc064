// The three tensor-core edge rules (tensorcore.h: ZeroProductExp, ZeroAddendExp,
// UnderflowZeroSign; docs/numerics.md "Tensor-core edge rules"). Each directed example isolates one
// rule: its output must be ptxsim's value under ptxsim's setting (an H200's, traces/h200), the
// other setting's value with that one rule flipped (the other two left at ptxsim's setting: for
// rules 1 and 2 MMA-Sim's repository code, microsoft/MMA-Sim c785138, as issue 17 ran it; for rule
// 3 the IEEE sign-keeping conversion), MMA-Sim c785138's value under its full setting, mmasim
// 2.1.1's value under its setting (ptxsim's rules 1 and 2, +0 for rule 3), and the same
// from the fast path (tc::dot, block_scaled_dot, the tile path) and from the independent
// Boost.Multiprecision reference (exact_ref.h). The hex values are the ones of issue 17 (MMA-Sim run
// against ptxsim) or follow from the T-FDPA definition by hand, as the comments show.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/tensorcore/block_scaled.h"
#include "model/tensorcore/exact_ref.h"
#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"

namespace ptxsim::model::tc {
namespace {

// 2^e as bf16 / f32 (tf32) bits, and m * 2^e for a bf16 significand 1.m (7 fraction bits).
uint32_t bf16_pow2(int e) { return uint32_t(e + 127) << 7; }
uint32_t f32_pow2(int e) { return uint32_t(e + 127) << 23; }

enum class Rule { ZeroProduct, ZeroAddend, UnderflowSign };

// ptxsim's setting with one rule flipped to the other setting.
EdgeRules flip(Rule r) {
  EdgeRules e = kPtxsimEdgeRules;
  if (r == Rule::ZeroProduct) e.zero_product = ZeroProductExp::MinNormal;
  if (r == Rule::ZeroAddend) e.zero_addend = ZeroAddendExp::MinNormal;
  if (r == Rule::UnderflowSign) e.underflow_sign = UnderflowZeroSign::Keep;
  return e;
}

struct DotCase {
  const char* name;
  Rule rule;
  std::vector<uint32_t> a, b;
  uint32_t c;
  uint32_t ptxsim, mmasim;  // expected outputs under ptxsim's and MMA-Sim c785138's settings
  uint32_t keep = 0;        // rule 3 only: the output when the sign is kept (-0)
};

// The expected output with the case's own rule flipped.
uint32_t flipped(const DotCase& d) { return d.rule == Rule::UnderflowSign ? d.keep : d.mmasim; }

// The dense examples for one operand format (BF16: K = 16 as in mma m16n8k16 / wgmma k16 /
// kind::f16; TF32: K = 8).
std::vector<DotCase> dense_cases(ElemFmt f) {
  const bool tf = f == ElemFmt::TF32;
  const int K = tf ? 8 : 16;
  auto p2 = [&](int e) { return tf ? f32_pow2(e) : bf16_pow2(e); };
  const uint32_t neg = tf ? 0x80000000u : 0x8000u;
  // 1.125 * 2^-76: significand 1.001b.
  const uint32_t tiny = tf ? (f32_pow2(-76) | (1u << 20)) : (bf16_pow2(-76) | 0x10u);
  std::vector<DotCase> v;
  {
    // Rule 1 (issue 17): a = [0, 2^-50 x (K-1)], b = [2^100, 2^-50 x (K-1)], c = 2^-100. ptxsim: the
    // zero product counts as e_zero, E = -100, everything is exact: K * 2^-100. MMA-Sim: 0 * 2^100
    // counts as -126 + 100 = -26, E = -26 truncates every term below 2^-51 away: +0.
    DotCase d{"zero_product", Rule::ZeroProduct, {}, {}, f32_pow2(-100), tf ? 0x0F000000u : 0x0F800000u, 0};
    d.a.assign(size_t(K), p2(-50));
    d.b.assign(size_t(K), p2(-50));
    d.a[0] = 0;
    d.b[0] = p2(100);
    v.push_back(d);
  }
  {
    // Rule 2 (issue 17): K products of 1.265625 * 2^-152 = 81 * 2^-158, c = +0. ptxsim: E = -133,
    // units of 2^-158, sum K * 81 * 2^-158, RZ to f32: 1296 / 512 -> 2 (bf16), 648 / 512 -> 1 (tf32)
    // subnormal units. MMA-Sim: E = -126, each product is 0.63 units of 2^-151 and truncates to 0.
    DotCase d{"zero_addend", Rule::ZeroAddend, {}, {}, 0, tf ? 0x00000001u : 0x00000002u, 0};
    d.a.assign(size_t(K), tiny);
    d.b.assign(size_t(K), tiny);
    v.push_back(d);
  }
  {
    // Rule 3 (issue 17): one product -2^-76 * 2^-75 = -2^-151, the others 0 * 0, c = +0. Both
    // settings of rules 1 and 2 keep the product exactly (E = -133 or -126); RZ to f32 gives a zero:
    // +0 (the H200, ptxsim, MMA-Sim), -0 keeping the sign (IEEE conversion).
    DotCase d{"underflow_sign", Rule::UnderflowSign, {}, {}, 0, 0, 0, 0x80000000u};
    d.a.assign(size_t(K), 0);
    d.b.assign(size_t(K), 0);
    d.a[0] = neg | p2(-76);
    d.b[0] = p2(-75);
    v.push_back(d);
  }
  // The uniform forms the conformance cases use (scripts/gen_tc_edge_cases.py), whose outputs do
  // not depend on operand layouts: rule 1 with every a = 0, every b = 2^100, c = 2^-100 (ptxsim: c
  // exact; MMA-Sim: E = -26 truncates c away); rule 3 with every b = 2^-75 (the zero products
  // 0 * 2^-75 count as -201 under MinNormal, below everything).
  {
    DotCase d{"zero_product_uniform", Rule::ZeroProduct, std::vector<uint32_t>(size_t(K), 0),
              std::vector<uint32_t>(size_t(K), p2(100)), f32_pow2(-100), f32_pow2(-100), 0};
    v.push_back(d);
  }
  {
    DotCase d{"underflow_sign_uniform_b", Rule::UnderflowSign, std::vector<uint32_t>(size_t(K), 0),
              std::vector<uint32_t>(size_t(K), p2(-75)), 0, 0, 0, 0x80000000u};
    d.a[0] = neg | p2(-76);
    v.push_back(d);
  }
  return v;
}

struct Variant {
  Arch arch;
  Unit unit;
  ElemFmt f;
};

std::string variant_name(const Variant& v) {
  const char* u = v.unit == Unit::MmaSync ? "mma" : v.unit == Unit::Wgmma ? "wgmma" : "tcgen05";
  return std::string(v.arch == Arch::SM90 ? "sm90." : "sm100.") + u + "." + fmt_name(v.f);
}

// One output under `edges` through every implementation: tc::dot, the tile path (1 x 1 tile) and
// the reference; all three must agree with `want`.
void expect_dot(const DotModel& row, const EdgeRules& edges, ElemFmt f, const DotCase& d, uint32_t want,
                const std::string& what) {
  DotModel m = row;
  m.fdpa.edges = edges;
  const int K = int(d.a.size());
  std::vector<Value> va, vb;
  for (int k = 0; k < K; ++k) {
    va.push_back(decode_a(m, f, d.a[size_t(k)]));
    vb.push_back(decode_b(m, f, d.b[size_t(k)]));
  }
  EXPECT_EQ(dot(m, va.data(), vb.data(), K, d.c), want) << what << " (tc::dot)";
  EXPECT_EQ(ref::dot(m, f, d.a.data(), f, d.b.data(), K, d.c), want) << what << " (exact reference)";
  uint32_t out = 0xDEADBEEF;
  mma_tile(m, f, f, 1, 1, K, d.a.data(), d.b.data(), &d.c, &out);
  EXPECT_EQ(out, want) << what << " (tile path)";
}

TEST(TensorCoreEdgeRules, DenseExamplesFlipUnderEachRule) {
  const Variant variants[] = {
      {Arch::SM90, Unit::MmaSync, ElemFmt::BF16},  {Arch::SM90, Unit::MmaSync, ElemFmt::TF32},
      {Arch::SM90, Unit::Wgmma, ElemFmt::BF16},    {Arch::SM90, Unit::Wgmma, ElemFmt::TF32},
      {Arch::SM100, Unit::MmaSync, ElemFmt::BF16}, {Arch::SM100, Unit::MmaSync, ElemFmt::TF32},
      {Arch::SM100, Unit::Tcgen05, ElemFmt::BF16}, {Arch::SM100, Unit::Tcgen05, ElemFmt::TF32},
  };
  for (const Variant& v : variants) {
    const DotModel* row = find_model(v.arch, v.unit, v.f, v.f, AccFmt::F32);
    ASSERT_NE(row, nullptr) << variant_name(v);
    // The shipped rows carry ptxsim's setting (the table's default until hardware decides).
    EXPECT_EQ(row->fdpa.edges, kPtxsimEdgeRules) << variant_name(v);
    for (const DotCase& d : dense_cases(v.f)) {
      const std::string what = variant_name(v) + " " + d.name;
      expect_dot(*row, kPtxsimEdgeRules, v.f, d, d.ptxsim, what + " under ptxsim's rules");
      expect_dot(*row, flip(d.rule), v.f, d, flipped(d), what + " with its rule flipped");
      expect_dot(*row, kMmaSimRepoEdgeRules, v.f, d, d.mmasim, what + " under MMA-Sim c785138's rules");
      expect_dot(*row, kMmaSimPyPIEdgeRules, v.f, d, d.rule == Rule::UnderflowSign ? d.mmasim : d.ptxsim,
                 what + " under mmasim 2.1.1's rules");
      // The other two rules alone do not change it: the example isolates its rule.
      for (Rule other : {Rule::ZeroProduct, Rule::ZeroAddend, Rule::UnderflowSign})
        if (other != d.rule) expect_dot(*row, flip(other), v.f, d, d.ptxsim, what + " with another rule flipped");
    }
  }
}

// Block-scaled examples (tcgen05 kind::mxf8f6f4, e4m3 x e4m3, UE8M0 scales, K = 32; and
// kind::mxf4nvf4 for rule 1's all-zero groups).
struct ScaledCase {
  const char* name;
  Rule rule;
  const char* kind;
  ElemFmt f;
  ScaleFmt sf;
  int K, vec;
  std::vector<uint32_t> a, b;
  std::vector<uint8_t> sa, sb;
  uint32_t c, ptxsim, mmasim;
  uint32_t keep = 0;  // rule 3 only: the output when the sign is kept (-0)
};

std::vector<ScaledCase> scaled_cases() {
  std::vector<ScaledCase> v;
  const uint32_t e4m3_one = 0x38, e4m3_1_125 = 0x39, e4m3_448 = 0x7E, e4m3_neg = 0x80;
  auto ue8m0 = [](int e) { return uint8_t(e + 127); };
  {
    // Rule 2 (issue 17: "mxf8f6f4 with every scale 2^-76"): 32 products 1.125 * 1.125 * 2^-152 =
    // 81 * 2^-158, c = +0: ptxsim 32 * 81 / 512 = 5.06 -> 5 subnormal units; MMA-Sim (E = -126) 0.
    ScaledCase d{"mx_zero_addend", Rule::ZeroAddend, "mxf8f6f4", ElemFmt::E4M3, ScaleFmt::UE8M0, 32, 32,
                 std::vector<uint32_t>(32, e4m3_1_125), std::vector<uint32_t>(32, e4m3_1_125),
                 {ue8m0(-76)}, {ue8m0(-76)}, 0, 0x00000005u, 0};
    v.push_back(d);
  }
  {
    // Rule 1: every a is 0, every b is 448 (e = 8), scales 2^0, c = (1 + 2^-23) * 2^-125. ptxsim: the
    // zero products count as -133, c's own exponent -125 is E: c exact. MMA-Sim: 0 * 448 counts as
    // -126 + 8 = -118, units of 2^-143 drop c's last bit: 2^-125.
    ScaledCase d{"mx_zero_product", Rule::ZeroProduct, "mxf8f6f4", ElemFmt::E4M3, ScaleFmt::UE8M0, 32, 32,
                 std::vector<uint32_t>(32, 0), std::vector<uint32_t>(32, e4m3_448),
                 {ue8m0(0)}, {ue8m0(0)}, 0x01000001u, 0x01000001u, 0x01000000u};
    v.push_back(d);
  }
  {
    // Rule 3: one product -1 * 1 * 2^-75 * 2^-76 = -2^-151 (the others 0 * 0), c = +0: +0, or -0
    // keeping the sign.
    ScaledCase d{"mx_underflow_sign", Rule::UnderflowSign, "mxf8f6f4", ElemFmt::E4M3, ScaleFmt::UE8M0, 32, 32,
                 std::vector<uint32_t>(32, 0), std::vector<uint32_t>(32, 0),
                 {ue8m0(-75)}, {ue8m0(-76)}, 0, 0, 0, 0x80000000u};
    d.a[0] = e4m3_neg | e4m3_one;
    d.b[0] = e4m3_one;
    v.push_back(d);
  }
  {
    // Rule 1 in the group shape (mxf4nvf4, K = 64, block32 UE8M0 scales 2^0): every fp4 product is
    // zero, c = (1 + 2^-23) * 2^-100. ptxsim: all-zero groups count as e_zero (-139), c exact.
    // MMA-Sim aligns a group on its scales whatever its sum: E = 0, units of 2^-35, c truncates to 0.
    ScaledCase d{"nvf4_zero_group", Rule::ZeroProduct, "mxf4nvf4", ElemFmt::E2M1, ScaleFmt::UE8M0, 64, 32,
                 std::vector<uint32_t>(64, 0), std::vector<uint32_t>(64, 0x2 /* 1.0 */),
                 {ue8m0(0), ue8m0(0)}, {ue8m0(0), ue8m0(0)}, 0x0D800001u, 0x0D800001u, 0};
    v.push_back(d);
  }
  return v;
}

void expect_scaled(const BlockScaledModel& row, const EdgeRules& edges, const ScaledCase& d, uint32_t want,
                   const std::string& what) {
  BlockScaledModel m = row;
  m.fdpa.edges = edges;
  EXPECT_EQ(block_scaled_dot(m, d.f, d.a.data(), d.f, d.b.data(), d.K, d.sf, d.sa.data(), d.sb.data(), d.vec, d.c),
            want)
      << what << " (block_scaled_dot)";
  EXPECT_EQ(ref::block_scaled_dot(m, d.f, d.a.data(), d.f, d.b.data(), d.K, d.sf, d.sa.data(), d.sb.data(), d.vec,
                                  d.c),
            want)
      << what << " (exact reference)";
}

TEST(TensorCoreEdgeRules, BlockScaledExamplesFlipUnderEachRule) {
  for (const ScaledCase& d : scaled_cases()) {
    const BlockScaledModel* row = find_block_scaled_model(Arch::SM100, Unit::Tcgen05, d.kind, d.f, d.f, d.sf);
    ASSERT_NE(row, nullptr) << d.name;
    EXPECT_EQ(row->fdpa.edges, kPtxsimEdgeRules) << d.name;
    expect_scaled(*row, kPtxsimEdgeRules, d, d.ptxsim, std::string(d.name) + " under ptxsim's rules");
    expect_scaled(*row, flip(d.rule), d, d.rule == Rule::UnderflowSign ? d.keep : d.mmasim,
                  std::string(d.name) + " with its rule flipped");
    expect_scaled(*row, kMmaSimRepoEdgeRules, d, d.mmasim, std::string(d.name) + " under MMA-Sim c785138's rules");
    expect_scaled(*row, kMmaSimPyPIEdgeRules, d, d.rule == Rule::UnderflowSign ? d.mmasim : d.ptxsim,
                  std::string(d.name) + " under mmasim 2.1.1's rules");
    for (Rule other : {Rule::ZeroProduct, Rule::ZeroAddend, Rule::UnderflowSign})
      if (other != d.rule) expect_scaled(*row, flip(other), d, d.ptxsim, std::string(d.name) + " other rule flipped");
  }
}

// Rule 3 also covers the RNE conversion to f16: a negative sum below half the smallest f16
// subnormal (2^-25) comes out +0 under ptxsim's setting (as MMA-Sim's round(), which returns an
// integer; the H200 was measured on f32 outputs only), -0 (0x8000) keeping the sign.
TEST(TensorCoreEdgeRules, UnderflowSignOfF16Output) {
  const DotModel* row = find_model(Arch::SM90, Unit::Wgmma, ElemFmt::F16, ElemFmt::F16, AccFmt::F16);
  ASSERT_NE(row, nullptr);
  DotCase d{"f16_underflow_sign", Rule::UnderflowSign, std::vector<uint32_t>(16, 0), std::vector<uint32_t>(16, 0),
            0, 0, 0, 0x8000u};
  d.a[0] = 0x8001;  // -2^-24 (smallest f16 subnormal)
  d.b[0] = 0x1000;  // 2^-11: the product -2^-35 rounds to a zero
  expect_dot(*row, kPtxsimEdgeRules, ElemFmt::F16, d, 0u, "f16 output, ptxsim's rules");
  expect_dot(*row, flip(Rule::UnderflowSign), ElemFmt::F16, d, 0x8000u, "f16 output, rule 3 flipped");
}

// The one table: every row of it names an existing (arch, unit, kind), exactly the rows an H200
// trace decided are settled (sm_90a mma.sync and wgmma, f16 and tf32: traces/h200/sm_90a/tc_edge_*),
// and edge_rules() returns each row's setting.
TEST(TensorCoreEdgeRules, TableRowsSettledByTracesAndLookedUp) {
  for (const EdgeRuleRow& r : kEdgeRuleRows) {
    const bool traced = r.arch == Arch::SM90 && r.unit != Unit::Tcgen05 &&
                        (std::string(r.kind) == "f16" || std::string(r.kind) == "tf32");
    EXPECT_EQ(r.settled, traced) << r.kind << ": settle a row only with a hardware trace (tests/conformance)";
    EXPECT_EQ(edge_rules(r.arch, r.unit, r.kind), r.rules) << r.kind;
  }
  for (const DotModel& m : all_models()) EXPECT_EQ(m.fdpa.edges, kPtxsimEdgeRules) << m.id;
  for (const BlockScaledModel& m : all_block_scaled_models()) EXPECT_EQ(m.fdpa.edges, kPtxsimEdgeRules) << m.id;
  EXPECT_STREQ(rule_name(ZeroProductExp::MinNormal), "zero-product:min-normal");
  EXPECT_STREQ(rule_name(UnderflowZeroSign::Keep), "underflow-zero:keep-sign");
}

}  // namespace
}  // namespace ptxsim::model::tc
