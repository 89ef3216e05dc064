// Property tests (RapidCheck) of the hardware descriptor words, the ldmatrix fit and the TMA
// partition verifier, drawn from the same generators as `ptxsim fuzz idesc | umma-desc |
// wgmma-desc | tcgen05-cp | ldstmatrix-fit | tma-partition` (tools/fuzz/): valid and near-valid
// inputs, each judged against an independent statement of the ISA's (or seed's) rules. The classes
// a property names (accepted, rejected, documented differences) are printed by RC_CLASSIFY. The
// rule statements themselves are pinned below on hand-worked inputs.
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "tools/fuzz/idesc_gen.h"
#include "tools/fuzz/ldstmatrix_gen.h"
#include "tools/fuzz/smem_desc_gen.h"
#include "tools/fuzz/tcgen05_cp_gen.h"
#include "tools/fuzz/tma_partition_gen.h"

namespace ptxsim::fuzz {
namespace {

template <class T>
void hold(const T& input, Verdict (*property)(const T&)) {
  const Verdict v = property(input);
  RC_CLASSIFY(true, v.kind == Verdict::kFail ? std::string("FAILED") : v.message);
  RC_LOG() << v.message << "\n";
  RC_ASSERT(v.kind != Verdict::kFail);
}

RC_GTEST_PROP(DescriptorProp, IdescVerifierIsaRulesAndModelAgree, ()) {
  hold(*idesc_case_gen(), idesc_property);
}
RC_GTEST_PROP(DescriptorProp, UmmaDescRoundTripsAndValidatesByTheTable, ()) {
  hold(*umma_desc_gen(), umma_desc_property);
}
RC_GTEST_PROP(DescriptorProp, WgmmaDescRoundTripsAndValidatesByTheTable, ()) {
  hold(*wgmma_desc_gen(), wgmma_desc_property);
}
RC_GTEST_PROP(DescriptorProp, Tcgen05CpPairingsFollowTheTable, ()) {
  hold(*tcgen05_cp_gen(), tcgen05_cp_property);
}

RC_GTEST_PROP(DescriptorProp, TmaPartitionLadderAndResult, ()) {
  hold(*tma_partition_gen(), tma_partition_property);
}

RC_GTEST_PROP(DescriptorProp, LdstmatrixFitMovesExactlyTheTile, ()) {
  hold(*ldstmatrix_fit_gen(), ldstmatrix_fit_property);
}

TEST(DescriptorRules, LdstmatrixFitOnTheSeedExample) {
  // The seed's num = 2 example: accepted as x2, and its instructions move the tile.
  const FitCase seed{"(8,4,2,2):(4@laneid,1@laneid,2,1)", "(8,4,2,2):(16,2,8,1)", 1, true};
  EXPECT_EQ(ldstmatrix_fit_property(seed).message, "accepted x2");
  // Register handles that overlap (num stride 0): a load into one register twice, accepted.
  const FitCase overlap{"(8,4,2,2):(4@laneid,1@laneid,0,1)", "(8,4,2,2):(16,2,8,1)", 1, true};
  EXPECT_EQ(ldstmatrix_fit_property(overlap).message,
            "accepted an ill-formed copy (written side not injective), as the seed does");
  const FitCase declined{"(8,4,2,2):(4@laneid,1@laneid,2,1)", "(8,4,2,2):(17,2,8,1)", 1, true};
  EXPECT_EQ(ldstmatrix_fit_property(declined).message, "declined");
}

using verifiers::tcgen05::MmaKind;

std::vector<std::string> rule_names(const IdescCase& c) {
  std::vector<std::string> out;
  for (const IdescRule& r : isa_idesc_broken_rules(c)) out.push_back(r.rule);
  return out;
}

TEST(DescriptorRules, IdescStatementOnWorkedWords) {
  // kind::f16, BF16 x BF16 -> F32, M = 128 (8 << 24), N = 256 (32 << 17).
  IdescCase c{0x08400490, MmaKind::f16, 1, false, false, false};
  EXPECT_TRUE(rule_names(c).empty());
  c.word = 0x08400480;  // D = F16 with BF16 inputs
  EXPECT_EQ(rule_names(c), std::vector<std::string>{"BF16 inputs need an F32 D"});
  c.word = 0x08400490 | 4;  // sparse flag without .sp
  EXPECT_EQ(rule_names(c), std::vector<std::string>{"sparse flag (bit 2) matches .sp"});
  c.word = 0x08400490 | 3;  // the selector of a dense MMA is not a rule of Table 42
  EXPECT_TRUE(rule_names(c).empty());
  c = {0x02100490, MmaKind::f16, 1, false, true, false};  // .ws M = 32, N = 64
  EXPECT_TRUE(rule_names(c).empty());
  c.cta_group = 2;
  EXPECT_EQ(rule_names(c), std::vector<std::string>{"Table 39 shape"});
  // kind::mxf8f6f4 E4M3 x E4M3, UE8M0 (bit 23), M = 128 (1 << 27), N = 64: valid, but not with .ws.
  c = {0x08900000, MmaKind::mxf8f6f4, 1, false, false, false};
  EXPECT_TRUE(rule_names(c).empty());
  c.ws = true;
  EXPECT_EQ(rule_names(c), std::vector<std::string>{"Table 39 shape"});
  // kind::mxf4nvf4 with K = 96 (bit 31) needs sm_103a.
  c = {0x88900480, MmaKind::mxf4nvf4, 1, false, false, false};
  EXPECT_EQ(rule_names(c), std::vector<std::string>{"K = 96 only on sm_103a"});
  c.sm103a = true;
  EXPECT_TRUE(rule_names(c).empty());
}

TEST(DescriptorRules, UmmaStatementOnWorkedWords) {
  const uint64_t version1 = uint64_t{1} << 46;
  auto umma = [&](uint64_t layout, uint32_t start_bytes, uint64_t base) {
    return version1 | layout << 61 | base << 49 | (start_bytes >> 4);
  };
  EXPECT_TRUE(isa_umma_desc_broken_rules(umma(2, 0x400, 0)).empty());  // 128B, pattern-aligned
  EXPECT_TRUE(isa_umma_desc_broken_rules(umma(2, 0x480, 1)).empty());  // its own pattern starts at 0x480
  // A matrix that starts mid-pattern in a pattern anchored at 0x400 (CUTLASS's K-block descriptors,
  // example 71: start 0x600, base offset 0): valid in the statement and in the model.
  EXPECT_TRUE(isa_umma_desc_broken_rules(umma(2, 0x480, 0)).empty());
  EXPECT_EQ(umma_desc_property(umma(2, 0x600, 0)).message, "accepted");
  // No swizzle: the base offset has nothing to align and any value is valid, in the statement and
  // in the model.
  EXPECT_TRUE(isa_umma_desc_broken_rules(umma(0, 0x480, 5)).empty());
  EXPECT_EQ(umma_desc_property(umma(0, 0x480, 5)).message, "accepted");
  for (uint64_t base = 0; base < 8; ++base) EXPECT_EQ(umma_desc_property(umma(4, 0x280, base)).message, "accepted");
  // Layout codes 3, 5, 7 do not exist; the version comes first in the table.
  EXPECT_EQ(isa_umma_desc_broken_rules(umma(5, 0, 0))[0].rule, "layout (bits 63:61) is 0, 1, 2, 4 or 6");
  EXPECT_EQ(isa_umma_desc_broken_rules(umma(5, 0, 0) & ~version1)[0].rule, "bits 48:46 are the fixed 0b001");
  // Absolute LBO mode: ISA-valid with 128B and base offset 0, but not simulated.
  EXPECT_TRUE(isa_umma_desc_broken_rules(umma(2, 0, 0) | uint64_t{1} << 52).empty());
  EXPECT_EQ(umma_desc_property(umma(2, 0, 0) | uint64_t{1} << 52).message,
            "valid, not simulated (128B/32B atom or absolute LBO)");
  EXPECT_EQ(isa_umma_desc_broken_rules(umma(4, 0, 0) | uint64_t{1} << 52).size(), 1u);
}

TEST(DescriptorRules, WgmmaStatementOnWorkedWords) {
  EXPECT_TRUE(isa_wgmma_desc_broken_rules(uint64_t{1} << 62 | uint64_t{3} << 49).empty());  // 128B, base 3
  EXPECT_TRUE(isa_wgmma_desc_broken_rules(uint64_t{3} << 49).empty());  // base offset without swizzle: no effect
  EXPECT_EQ(isa_wgmma_desc_broken_rules(uint64_t{1} << 61 | uint64_t{3} << 49).size(), 1u);  // reserved bit 61
  EXPECT_EQ(wgmma_desc_property(uint64_t{1} << 61 | uint64_t{3} << 49).kind, Verdict::kPass);
}

}  // namespace
}  // namespace ptxsim::fuzz
