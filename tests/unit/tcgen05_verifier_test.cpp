// The tcgen05 verifiers (verifiers/tcgen05/): the kind-word ladder and backend rules, tcgen05.cp
// pairing, the TMEM lifecycle, UMMA canonical layouts, and the `ptxsim check` entry point. Every
// diagnostic is pinned byte for byte; the seed's verbatim strings are spelled out here again
// rather than taken from the library's constants.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "verifiers/tcgen05/cp.h"
#include "verifiers/tcgen05/idesc.h"
#include "verifiers/tcgen05/kind_word.h"
#include "verifiers/tcgen05/ptx_check.h"
#include "verifiers/tcgen05/tmem_alloc.h"
#include "verifiers/tcgen05/umma_layout.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers {
namespace {

using nlohmann::json;

Outcome run(const json& request) {
  const Entry* e = find_verifier(request.at("verifier").get<std::string>());
  if (!e) throw std::runtime_error("no verifier " + request.at("verifier").get<std::string>());
  return e->handler(request);
}

// The one diagnostic of a rejected request.
std::string rejection(const json& request) {
  Outcome o = run(request);
  EXPECT_FALSE(o.accepted) << request.dump();
  EXPECT_EQ(o.diagnostics.size(), 1u) << request.dump();
  return o.diagnostics.empty() ? std::string() : o.diagnostics[0];
}

json walkthrough_mma() {
  return {{"verifier", "tcgen05-kind"},
          {"kind", "f16"},
          {"cta_group", 1},
          {"scale_vec_size", nullptr},
          {"scale_input_acc", false},
          {"block_scale", false},
          {"weight_stationary", false},
          {"sparse", false},
          {"ashift", false},
          {"collector_a", "fill"},
          {"arch_conditional", true},
          {"target", "sm_100a"}};
}

json with(json j, const json& patch) {
  j.merge_patch(patch);
  return j;
}

// ---- registry ---------------------------------------------------------------------------------------

TEST(Tcgen05VerifRegistry, FamilyIsRegistered) {
  for (const char* name : {"tcgen05-kind", "tcgen05-cp", "tmem-alloc", "umma-layout", "ldstmatrix-fit"}) {
    const Entry* e = find_verifier(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_STRNE(e->summary, "");
  }
}

// ---- tcgen05-kind -----------------------------------------------------------------------------------

TEST(Tcgen05VerifKind, WalkthroughF16PacksTo0xC1) {
  Outcome o = run(walkthrough_mma());
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  ASSERT_EQ(o.result_lines.size(), 3u);
  EXPECT_EQ(o.result_lines[0], "kind word: 0xc1");
  EXPECT_EQ(o.result_lines[1], "collector word: 0x01");
  EXPECT_EQ(o.result_lines[2], "ptx: tcgen05.mma.cta_group::1.kind::f16.collector::a::fill");
  EXPECT_EQ(o.result["kind_word"], 193);
  EXPECT_EQ(o.result["collector_word"], 1);
}

TEST(Tcgen05VerifKind, BitLayout) {
  using namespace tcgen05;
  KindWordFields f = unpack_kind_word(0xC1);
  EXPECT_EQ(f.cta_group, 1u);
  EXPECT_EQ(f.scale_vec_size, 0u);
  EXPECT_FALSE(f.scale_input_acc);
  EXPECT_FALSE(f.block_scale);
  EXPECT_EQ(f.mma_kind, 3u);
  // 0x42: cta_group::2, kind value 1 (i8).
  f = unpack_kind_word(0x42);
  EXPECT_EQ(f.cta_group, 2u);
  EXPECT_EQ(f.mma_kind, 1u);
  EXPECT_EQ(pack_kind_word({1, 1, true, true, 7}), 0x1C0 | 0x20 | 0x10 | 0x4 | 0x1);
  // Bits above the word are ignored.
  EXPECT_EQ(unpack_kind_word(0xFFC1), unpack_kind_word(0x1C1));
}

TEST(Tcgen05VerifKind, AcceptedWordsAndMnemonics) {
  Outcome o =
      run(with(walkthrough_mma(),
               {{"kind", "mxf4"}, {"block_scale", true}, {"scale_vec_size", "2X"}, {"collector_a", "discard"}}));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[0], "kind word: 0x1e5");
  EXPECT_EQ(o.result_lines[1], "collector word: 0x00");
  EXPECT_EQ(o.result_lines[2], "ptx: tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X");

  o = run(with(walkthrough_mma(),
               {{"kind", "tf32"}, {"cta_group", 2}, {"sparse", true}, {"ashift", true}, {"collector_a", "lastuse"}}));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[0], "kind word: 0x102");
  EXPECT_EQ(o.result_lines[1], "collector word: 0x07");
  EXPECT_EQ(o.result_lines[2], "ptx: tcgen05.mma.sp.cta_group::2.kind::tf32.ashift.collector::a::lastuse");

  // Weight stationary on cta_group::1: the overlay leaves the word unchanged.
  o = run(with(walkthrough_mma(), {{"kind", "i8"}, {"weight_stationary", true}, {"collector_a", "use"}}));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[0], "kind word: 0x41");
  EXPECT_EQ(o.result_lines[2], "ptx: tcgen05.mma.ws.cta_group::1.kind::i8.collector::b0::use");

  // A scale-vector size without block_scale passes the ladder and is dropped from the PTX.
  o = run(with(walkthrough_mma(), {{"scale_vec_size", "4X"}}));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[0], "kind word: 0xc9");
  EXPECT_EQ(o.result_lines[2], "ptx: tcgen05.mma.cta_group::1.kind::f16.collector::a::fill");
}

TEST(Tcgen05VerifKind, EachLadderRuleVerbatim) {
  const json base = with(walkthrough_mma(), {{"collector_a", "discard"}});
  struct Case {
    json patch;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{{"kind", "i8"}, {"arch_conditional", false}}, "INT8 type is supported only on arch-conditional variants."},
      {{{"kind", "mxf4"}, {"sparse", true}, {"arch_conditional", false}},
       "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants."},
      {{{"kind", "mxf4nvf4"}, {"sparse", true}, {"arch_conditional", false}},
       "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants."},
      {{{"scale_vec_size", "2X"}, {"arch_conditional", false}},
       "Explicit scale vector size is supported only on arch-conditional variants."},
      {{{"scale_input_acc", true}, {"target", "sm_103a"}},
       "Scale input accumulator is not supported on this architecture."},
      {{{"scale_input_acc", true}, {"target", "sm_100f"}},
       "Scale input accumulator is not supported on this architecture."},
      {{{"scale_input_acc", true}, {"kind", "i8"}}, "Scale input accumulator can only be used with f16 and tf32 types"},
      {{{"block_scale", true}}, "Block scale is not supported for f16, tf32, f8f6f4, and i8 types"},
      {{{"block_scale", true}, {"kind", "f8f6f4"}}, "Block scale is not supported for f16, tf32, f8f6f4, and i8 types"},
      {{{"block_scale", true}, {"kind", "mxf8f6f4"}, {"ashift", true}},
       "ashift is not supported with tcgen05.mma.block_scale variants"},
      {{{"cta_group", 2}, {"weight_stationary", true}}, "cta_group::2 is not supported with weight stationary"},
      {{{"kind", "f8f6f4"}, {"weight_stationary", true}}, "Cannot use weight stationary with mxf8f6f4 and fp4 types"},
      {{{"kind", "mxf4"}, {"weight_stationary", true}, {"scale_vec_size", "2X"}},
       "Cannot use weight stationary with mxf8f6f4 and fp4 types"},
      {{{"ashift", true}, {"collector_a", "fill"}}, "Cannot use collector::a::use or colletor::a::fill with ashift"},
      {{{"ashift", true}, {"collector_a", "use"}}, "Cannot use collector::a::use or colletor::a::fill with ashift"},
      {{{"kind", "mxf8f6f4"}, {"scale_vec_size", "4X"}}, "Cannot use 2X or 4X as scale vector size for mxf8f6f4 type"},
      {{{"kind", "mxf4nvf4"}}, "Cannot use 1X as scale vector size for mxf4nvf4 type"},
      {{{"kind", "mxf4nvf4"}, {"scale_vec_size", "1X"}}, "Cannot use 1X as scale vector size for mxf4nvf4 type"},
      {{{"kind", "mxf4"}}, "Cannot use 1X or 4X as scale vector size for mxf4 type"},
      {{{"kind", "mxf4"}, {"scale_vec_size", "4X"}}, "Cannot use 1X or 4X as scale vector size for mxf4 type"},
  };
  for (const Case& c : cases) EXPECT_EQ(rejection(with(base, c.patch)), c.message) << c.patch.dump();
}

TEST(Tcgen05VerifKind, FirstFailingRuleWins) {
  // Breaks rules 3, 7 and 10: only rule 3 is reported.
  json r = with(walkthrough_mma(), {{"kind", "mxf8f6f4"},
                                    {"block_scale", true},
                                    {"scale_vec_size", "2X"},
                                    {"ashift", true},
                                    {"arch_conditional", false}});
  EXPECT_EQ(rejection(r), "Explicit scale vector size is supported only on arch-conditional variants.");
  EXPECT_EQ(run(r).result["rule"], 3);
  // Rule 8 before rule 9.
  EXPECT_EQ(rejection(with(walkthrough_mma(), {{"kind", "mxf8f6f4"}, {"weight_stationary", true}, {"cta_group", 2}})),
            "cta_group::2 is not supported with weight stationary");
  // Rule 1 before the backend's target gate.
  EXPECT_EQ(rejection(with(walkthrough_mma(), {{"kind", "i8"}, {"target", "sm_90a"}, {"arch_conditional", false}})),
            "INT8 type is supported only on arch-conditional variants.");
}

TEST(Tcgen05VerifKind, BackendTargetGate) {
  const char* msg = "tcgen05.mma supported only on arch-conditional or family-conditional variants from SM100 onwards.";
  EXPECT_EQ(rejection(with(walkthrough_mma(), {{"target", "sm_90a"}})), msg);
  EXPECT_EQ(rejection(with(walkthrough_mma(), {{"target", "sm_100"}})), msg);
  Outcome o = run(with(walkthrough_mma(), {{"target", "sm_90a"}}));
  EXPECT_EQ(o.result["rule"], "backend");
  EXPECT_TRUE(run(with(walkthrough_mma(), {{"target", "sm_100f"}})).accepted);
  EXPECT_TRUE(run(with(walkthrough_mma(), {{"target", "sm_103a"}})).accepted);
  // The backend re-checks rules 7 and 10 on its own.
  tcgen05::MmaDescription m;
  m.ashift = true;
  m.collector_a = tcgen05::CollectorA::fill;
  EXPECT_EQ(tcgen05::check_mma_backend(m).value_or(""),
            "Cannot use collector::a::use or colletor::a::fill with ashift");
  m.block_scale = true;
  EXPECT_EQ(tcgen05::check_mma_backend(m).value_or(""),
            "ashift is not supported with tcgen05.mma.block_scale variants");
  EXPECT_EQ(std::string(tcgen05::kWaitTargetDiagnostic),
            "tcgen05.wait supported only on arch-conditional or family-conditional variants from SM100 onwards.");
}

TEST(Tcgen05VerifKind, Defaults) {
  // Only kind and cta_group are required; the target defaults to sm_100a, arch_conditional to its suffix.
  Outcome o = run({{"verifier", "tcgen05-kind"}, {"kind", "f16"}, {"cta_group", 1}});
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[0], "kind word: 0xc1");
  EXPECT_EQ(rejection({{"verifier", "tcgen05-kind"}, {"kind", "i8"}, {"cta_group", 1}, {"target", "sm_100"}}),
            "INT8 type is supported only on arch-conditional variants.");
}

TEST(Tcgen05VerifKind, MalformedRequests) {
  EXPECT_THROW(run({{"verifier", "tcgen05-kind"}, {"cta_group", 1}}), RequestError);
  EXPECT_THROW(run(with(walkthrough_mma(), {{"kind", "f32"}})), RequestError);
  EXPECT_THROW(run(with(walkthrough_mma(), {{"cta_group", 3}})), RequestError);
  EXPECT_THROW(run(with(walkthrough_mma(), {{"scale_vec_size", "8X"}})), RequestError);
  EXPECT_THROW(run(with(walkthrough_mma(), {{"sparse", "yes"}})), RequestError);
  EXPECT_THROW(run(with(walkthrough_mma(), {{"target", "hopper"}})), RequestError);
  EXPECT_THROW(run(with(walkthrough_mma(), {{"collector", "fill"}})), RequestError);
  try {
    run(with(walkthrough_mma(), {{"kind", "f32"}}));
  } catch (const RequestError& e) {
    EXPECT_EQ(std::string(e.what()),
              "key \"kind\" must be one of f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4, got \"f32\"");
  }
}

// ---- tcgen05-cp -------------------------------------------------------------------------------------

json cp(const char* shape, json multicast) {
  return {{"verifier", "tcgen05-cp"}, {"shape", shape}, {"multicast", multicast}};
}

TEST(Tcgen05VerifCp, PairingDiagnosticsVerbatim) {
  const char* m64 = "Shape 64x128b requires multicast warpx2_01_23 or warpx2_02_13 for tcgen05.cp Op";
  const char* m32 = "Shape 32x128b requires multicast warpx4 for tcgen05.cp Op";
  EXPECT_EQ(rejection(cp("64x128b", nullptr)), m64);
  EXPECT_EQ(rejection(cp("64x128b", "warpx4")), m64);
  EXPECT_EQ(rejection(cp("32x128b", nullptr)), m32);
  EXPECT_EQ(rejection(cp("32x128b", "warpx2::02_13")), m32);
  EXPECT_EQ(rejection(cp("32x128b", "warpx2_01_23")), m32);
  EXPECT_EQ(rejection(cp("128x256b", "warpx4")), "Shape 128x256b does not support multicast warpx4 for tcgen05.cp Op");
  EXPECT_EQ(rejection(cp("4x256b", "warpx2_02_13")),
            "Shape 4x256b does not support multicast warpx2::02_13 for tcgen05.cp Op");
}

TEST(Tcgen05VerifCp, AcceptedPairingsAndPtx) {
  struct Case {
    const char* shape;
    json multicast;
    const char* ptx;
  };
  const std::vector<Case> cases = {
      {"64x128b", "warpx2::02_13", "ptx: tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [taddr], s-desc;"},
      {"64x128b", "warpx2_01_23", "ptx: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [taddr], s-desc;"},
      {"32x128b", "warpx4", "ptx: tcgen05.cp.cta_group::1.32x128b.warpx4 [taddr], s-desc;"},
      {"128x256b", nullptr, "ptx: tcgen05.cp.cta_group::1.128x256b [taddr], s-desc;"},
      {"4x256b", nullptr, "ptx: tcgen05.cp.cta_group::1.4x256b [taddr], s-desc;"},
      {"128x128b", nullptr, "ptx: tcgen05.cp.cta_group::1.128x128b [taddr], s-desc;"},
  };
  for (const Case& c : cases) {
    Outcome o = run(cp(c.shape, c.multicast));
    ASSERT_TRUE(o.accepted) << c.shape;
    EXPECT_EQ(o.result_lines.at(0), c.ptx);
  }
  Outcome o = run(with(cp("128x128b", nullptr), {{"cta_group", 2}, {"src_fmt", "b4x16_p64"}}));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines.at(0), "ptx: tcgen05.cp.cta_group::2.128x128b.b8x16.b4x16_p64 [taddr], s-desc;");
}

TEST(Tcgen05VerifCp, TargetGateAndMalformed) {
  EXPECT_EQ(rejection(with(cp("128x256b", nullptr), {{"target", "sm_90a"}})),
            "tcgen05.cp supported only on arch-conditional or family-conditional variants from SM100 onwards.");
  // The pairing is checked before the target.
  EXPECT_EQ(rejection(with(cp("64x128b", nullptr), {{"target", "sm_90a"}})),
            "Shape 64x128b requires multicast warpx2_01_23 or warpx2_02_13 for tcgen05.cp Op");
  EXPECT_THROW(run(cp("m64n128b", nullptr)), RequestError);
  EXPECT_THROW(run(cp("64x128b", "warpx2")), RequestError);
  EXPECT_THROW(run(with(cp("64x128b", "warpx4"), {{"src_fmt", "b8"}})), RequestError);
}

// ---- tmem-alloc -------------------------------------------------------------------------------------

json stream(json ops) { return {{"verifier", "tmem-alloc"}, {"ops", ops}}; }

std::vector<std::string> stream_diagnostics(const json& request) {
  Outcome o = run(request);
  EXPECT_FALSE(o.accepted);
  return o.diagnostics;
}

const json kWalkthroughStream = json::array({
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd_tmem_scratch], 16;",
    "ld.shared.b32 %r_tmem_d, [%rd_tmem_scratch];",
    "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r_tmem_d], %rd_a_desc, %rd_b_desc, %r_idesc, 1;",
    "tcgen05.wait.cta_group::1.sync.aligned;",
    "tcgen05.ld.sync.aligned.16x64b.x32.b32 {%f0, %f1, %f2, %f3}, [%r_tmem_d];",
    "tcgen05.dealloc.cta_group::1.sync.aligned.b32 [%r_tmem_d], 16;",
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
});

TEST(Tcgen05VerifTmem, WalkthroughLifecycleIsAccepted) {
  Outcome o = run(stream(kWalkthroughStream));
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result_lines, (std::vector<std::string>{"tmem allocations: 1", "peak tmem columns: 16 of 256"}));
  // The same as structured ops, with relinquish right after the alloc (CUTLASS's order) and a
  // handle derived by add.
  o = run(stream(json::array({{{"op", "alloc"}, {"handle", "d"}, {"columns", 128}},
                              {{"op", "relinquish"}},
                              {{"op", "mma"}, {"handle", "d"}},
                              "add.u32 %r2, d, 0x200000;",
                              "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r9};",
                              {{"op", "dealloc"}, {"handle", "d"}, {"columns", 128}}})));
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result_lines[1], "peak tmem columns: 128 of 256");
}

TEST(Tcgen05VerifTmem, DominanceDiagnostics) {
  json ops = kWalkthroughStream;
  // The MMA hoisted above the handle's definition.
  std::swap(ops[1], ops[2]);
  EXPECT_EQ(stream_diagnostics(stream(ops)),
            (std::vector<std::string>{"op 2: tcgen05.alloc must dominate every use of its handle: tcgen05.mma uses "
                                      "%r_tmem_d before its tcgen05.alloc"}));
  // The read-back sunk below the dealloc.
  ops = kWalkthroughStream;
  std::swap(ops[4], ops[5]);
  EXPECT_EQ(
      stream_diagnostics(stream(ops)),
      (std::vector<std::string>{"op 6: tcgen05.dealloc must post-dominate every use of its handle: tcgen05.ld uses "
                                "%r_tmem_d after its tcgen05.dealloc"}));
  // Dealloc before alloc, twice, of an unknown handle, with a different column count.
  EXPECT_EQ(
      stream_diagnostics(stream(json::array({{{"op", "dealloc"}, {"handle", "d"}, {"columns", 32}},
                                             {{"op", "alloc"}, {"handle", "d"}, {"columns", 32}},
                                             {{"op", "relinquish"}}}))),
      (std::vector<std::string>{"op 1: tcgen05.dealloc of d before its tcgen05.alloc",
                                "op 2: tcgen05.alloc of 32 columns is never deallocated before the kernel exits"}));
  EXPECT_EQ(stream_diagnostics(stream(json::array({{{"op", "alloc"}, {"handle", "d"}, {"columns", 32}},
                                                   {{"op", "dealloc"}, {"handle", "d"}, {"columns", 32}},
                                                   {{"op", "dealloc"}, {"handle", "d"}, {"columns", 32}},
                                                   {{"op", "relinquish"}}}))),
            (std::vector<std::string>{"op 3: tcgen05.dealloc of d, which is already deallocated"}));
  EXPECT_EQ(stream_diagnostics(stream(json::array({"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, 32;",
                                                   "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r8];"}))),
            (std::vector<std::string>{"op 1: tcgen05.dealloc of %r7, which no tcgen05.alloc defines",
                                      "op 2: tcgen05.ld uses %r8, which no tcgen05.alloc defines"}));
  EXPECT_EQ(stream_diagnostics(stream(json::array({{{"op", "alloc"}, {"handle", "d"}, {"columns", 32}},
                                                   {{"op", "dealloc"}, {"handle", "d"}, {"columns", 64}},
                                                   {{"op", "relinquish"}}}))),
            (std::vector<std::string>{"op 2: tcgen05.dealloc of d frees 64 columns, but it was allocated with 32"}));
  // An open-world stream leaves unknown handles alone.
  EXPECT_TRUE(run({{"verifier", "tmem-alloc"},
                   {"closed_world", false},
                   {"ops", json::array({"tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r8];"})}})
                  .accepted);
}

TEST(Tcgen05VerifTmem, AllocatorDiagnostics) {
  EXPECT_EQ(
      stream_diagnostics(stream(json::array({{{"op", "alloc"}, {"handle", "a"}, {"columns", 200}},
                                             {{"op", "alloc"}, {"handle", "b"}, {"columns", 100}},
                                             {{"op", "dealloc"}, {"handle", "a"}, {"columns", 200}},
                                             {{"op", "dealloc"}, {"handle", "b"}, {"columns", 100}},
                                             {{"op", "relinquish"}}}))),
      (std::vector<std::string>{"op 2: allocated tmem out of resource: 100 columns requested, 200 of 256 in use"}));
  EXPECT_EQ(stream_diagnostics(stream(json::array({"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [s], 300;",
                                                   "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"}))),
            (std::vector<std::string>{"op 1: allocated tmem out of resource: 300 columns requested, 0 of 256 in use"}));
  EXPECT_EQ(
      stream_diagnostics(stream(json::array({{{"op", "alloc"}, {"handle", "a"}, {"columns", 16}, {"scratch", nullptr}},
                                             {{"op", "dealloc"}, {"handle", "a"}, {"columns", 16}},
                                             {{"op", "relinquish"}}}))),
      (std::vector<std::string>{"op 1: failed to find scratch smem to allocate tmem"}));
  EXPECT_EQ(stream_diagnostics(stream(json::array({"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 %rd1, 32;",
                                                   "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"}))),
            (std::vector<std::string>{
                "op 1: failed to find scratch smem to allocate tmem"}));  // a failed alloc leaks nothing
  EXPECT_EQ(stream_diagnostics(stream(json::array({{{"op", "alloc"}, {"handle", "a"}, {"columns", 0}},
                                                   {{"op", "dealloc"}, {"handle", "a"}, {"columns", 0}},
                                                   {{"op", "relinquish"}}}))),
            (std::vector<std::string>{"op 1: failed to init tmem"}));
  // The ISA's 512 columns on request.
  EXPECT_TRUE(run({{"verifier", "tmem-alloc"},
                   {"tmem_columns", 512},
                   {"ops", json::array({{{"op", "alloc"}, {"handle", "a"}, {"columns", 512}},
                                        {{"op", "dealloc"}, {"handle", "a"}, {"columns", 512}},
                                        {{"op", "relinquish"}}})}})
                  .accepted);
}

TEST(Tcgen05VerifTmem, ExitAndRelinquishRules) {
  json ops = kWalkthroughStream;
  ops.erase(6);  // no relinquish
  EXPECT_EQ(stream_diagnostics(stream(ops)),
            (std::vector<std::string>{"op 6: tcgen05.relinquish_alloc_permit must be issued before the kernel exits"}));
  ops = kWalkthroughStream;
  ops.erase(5);  // no dealloc
  EXPECT_EQ(
      stream_diagnostics(stream(ops)),
      (std::vector<std::string>{"op 1: tcgen05.alloc of 16 columns is never deallocated before the kernel exits"}));
  // An explicit exit ends the stream; what follows is unreachable.
  EXPECT_EQ(stream_diagnostics(stream(json::array({{{"op", "alloc"}, {"handle", "a"}, {"columns", 32}},
                                                   "ret;",
                                                   {{"op", "dealloc"}, {"handle", "a"}, {"columns", 32}},
                                                   {{"op", "relinquish"}}}))),
            (std::vector<std::string>{"op 1: tcgen05.alloc of 32 columns is never deallocated before the kernel exits",
                                      "op 2: tcgen05.relinquish_alloc_permit must be issued before the kernel exits"}));
  // A fragment ("exit": false) has no exit rules.
  ops = kWalkthroughStream;
  ops.erase(ops.begin() + 5, ops.end());
  EXPECT_TRUE(run({{"verifier", "tmem-alloc"}, {"exit", false}, {"ops", ops}}).accepted);
  // After relinquish no alloc.
  EXPECT_EQ(stream_diagnostics(stream(json::array({{{"op", "relinquish"}},
                                                   {{"op", "alloc"}, {"handle", "a"}, {"columns", 32}},
                                                   {{"op", "dealloc"}, {"handle", "a"}, {"columns", 32}}}))),
            (std::vector<std::string>{"op 2: tcgen05.alloc after tcgen05.relinquish_alloc_permit: the CTA has given up "
                                      "its allocation permit"}));
  // No alloc, no relinquish needed.
  EXPECT_TRUE(run(stream(json::array({"add.u32 %r1, %r2, %r3;"}))).accepted);
}

TEST(Tcgen05VerifTmem, OneCtaGroupPerKernel) {
  json ops = kWalkthroughStream;
  ops[6] = "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;";
  EXPECT_EQ(stream_diagnostics(stream(ops)),
            (std::vector<std::string>{"op 7: all tcgen05 instructions in a kernel must use the same .cta_group: "
                                      "tcgen05.relinquish_alloc_permit uses cta_group::2 after cta_group::1"}));
}

TEST(Tcgen05VerifTmem, HandleRebindingAndMalformed) {
  // Overwriting the handle register ends the binding (an open stream then ignores it).
  EXPECT_TRUE(
      run({{"verifier", "tmem-alloc"},
           {"closed_world", false},
           {"ops", json::array({"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 32;",
                                "ld.shared.u32 %r1, [smem];", "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;",
                                "mov.u32 %r1, 5;", "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r1], {%r2};",
                                "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"})}})
          .accepted);
  EXPECT_THROW(run({{"verifier", "tmem-alloc"}}), RequestError);
  EXPECT_THROW(run(stream(json::array({{{"op", "alloc"}, {"handle", "a"}}}))), RequestError);
  EXPECT_THROW(run(stream(json::array({{{"op", "free"}, {"handle", "a"}}}))), RequestError);
  EXPECT_THROW(run(stream(json::array({42}))), RequestError);
}

// ---- umma-layout ------------------------------------------------------------------------------------

json umma(const char* major, int bits, const char* swizzle) {
  return {{"verifier", "umma-layout"}, {"major", major}, {"elem_bits", bits}, {"swizzle", swizzle}};
}

TEST(Tcgen05VerifUmma, WalkthroughOperands) {
  // A: 64x16 bf16, MN-major, 128B swizzle, lbo=16, sbo=512.
  Outcome o =
      run(with(umma("MN", 16, "128B"), {{"layout", "((8,8),(8,2)):((1,8),(64,256))"}, {"lbo", 16}, {"sbo", 512}}));
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result_lines, (std::vector<std::string>{"canonical layout: ((8,8,1),(8,2)):((1,8,0),(64,256))",
                                                      "lbo: unused", "sbo: 512 bytes"}));
  // The same from the descriptor fields alone.
  o = run(with(umma("MN", 16, "128B"), {{"mn", 64}, {"k", 16}, {"lbo", 16}, {"sbo", 512}}));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[0], "canonical layout: ((8,8,1),(8,2)):((1,8,0),(64,256))");
  // B: 128 (N) x 16 (K) bf16, K-major, 128B swizzle, lbo=128 (unused), sbo=2048.
  o = run(with(umma("K", 16, "128B"), {{"layout", "((8,16),(8,2)):((64,1024),(1,8))"}, {"lbo", 128}, {"sbo", 2048}}));
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result_lines, (std::vector<std::string>{"canonical layout: ((8,16),(8,2)):((64,1024),(1,8))",
                                                      "lbo: unused", "sbo: 2048 bytes"}));
}

TEST(Tcgen05VerifUmma, StrideFailures) {
  EXPECT_EQ(rejection(with(umma("MN", 16, "128B"), {{"layout", "((8,8),(8,2)):((1,8),(32,256))"}})),
            "Not a canonical UMMA_MN Layout: Expected stride failure.");
  // The layout disagrees with the descriptor's SBO.
  EXPECT_EQ(rejection(with(umma("MN", 16, "128B"), {{"layout", "((8,8),(8,2)):((1,8),(64,256))"}, {"sbo", 1024}})),
            "Not a canonical UMMA_MN Layout: Expected stride failure.");
  EXPECT_EQ(rejection(with(umma("K", 16, "128B"), {{"layout", "((8,16),(8,2)):((64,1024),(2,16))"}})),
            "Not a canonical UMMA_K Layout: Expected stride failure.");
  // A row-major (MN-contiguous) layout is not K-major.
  EXPECT_EQ(rejection(with(umma("K", 16, "none"), {{"layout", "(8,16):(1,8)"}})),
            "Not a canonical UMMA_K Layout: Expected stride failure.");
}

TEST(Tcgen05VerifUmma, InterleavedLayouts) {
  // K-major, no swizzle: 8x16B core matrices, LBO between K cores, SBO between 8-row groups.
  Outcome o = run(with(umma("K", 16, "none"), {{"layout", "((8,2),(8,2)):((8,128),(1,64))"}}));
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result_lines, (std::vector<std::string>{"canonical layout: ((8,2),(8,2)):((8,128),(1,64))",
                                                      "lbo: 128 bytes", "sbo: 256 bytes"}));
  // MN-major, no swizzle, tf32: T = 4.
  o = run(with(umma("MN", 32, "128B_base32B"), {{"mn", 32}, {"k", 8}, {"sbo", 512}}));
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result_lines[0], "canonical layout: ((4,8,1),(4,2)):((1,4,0),(32,128))");
}

TEST(Tcgen05VerifUmma, SizeAndSwizzleRules) {
  EXPECT_EQ(rejection(with(umma("K", 16, "128B"), {{"mn", 12}, {"k", 16}, {"sbo", 1024}})),
            "Not a canonical UMMA_K Layout: Expected MN-size multiple of 8.");
  EXPECT_EQ(rejection(with(umma("K", 8, "64B"), {{"mn", 8}, {"k", 16}})),
            "Not a canonical UMMA_K Layout: Expected K-size multiple of 32.");
  EXPECT_EQ(rejection(with(umma("MN", 16, "128B"), {{"mn", 64}, {"k", 8}})),
            "Not a canonical UMMA_MN Layout: Expected K-size multiple of 16.");
  EXPECT_EQ(rejection(with(umma("MN", 16, "128B"), {{"mn", 64}, {"k", 16}, {"sparse", true}})),
            "Not a canonical UMMA_MN Layout: Expected K-size multiple of 32.");
  EXPECT_EQ(rejection(with(umma("MN", 16, "64B"), {{"mn", 48}, {"k", 16}})),
            "Not a canonical UMMA_MN Layout: Expected MN-size multiple of 32.");
  EXPECT_EQ(rejection(with(umma("MN", 32, "128B"), {{"mn", 32}, {"k", 8}})), "unsupported swizzle, got 128B");
  EXPECT_EQ(rejection(with(umma("K", 16, "128B_base32B"), {{"mn", 8}, {"k", 16}})),
            "unsupported swizzle, got 128B_base32B");
  EXPECT_EQ(rejection(with(umma("MN", 8, "128B_base32B"), {{"mn", 128}, {"k", 32}})),
            "unsupported swizzle, got 128B_base32B");
  EXPECT_EQ(rejection(with(umma("MN", 4, "128B"), {{"mn", 256}, {"k", 64}})),
            "Not a canonical UMMA_MN Layout: 4-bit elements must be K-major.");
}

TEST(Tcgen05VerifUmma, DescriptorFields) {
  EXPECT_EQ(rejection(with(umma("MN", 16, "none"), {{"mn", 16}, {"k", 16}, {"lbo", 128}, {"sbo", 8}})),
            "UMMA smem descriptor: SBO 8 is not a non-negative multiple of 16 bytes");
  EXPECT_EQ(rejection(with(umma("K", 16, "128B"), {{"mn", 8}, {"k", 16}, {"lbo", 24}})),
            "UMMA smem descriptor: LBO 24 is not a non-negative multiple of 16 bytes");
  EXPECT_EQ(rejection(with(umma("K", 16, "none"), {{"mn", 16}, {"k", 16}, {"lbo", 128}, {"sbo", 262144}})),
            "UMMA smem descriptor: SBO 262144 does not fit the 14-bit field (bytes >> 4)");
  // Read off the layout: an SBO of 12 elements (24 bytes) cannot be encoded.
  EXPECT_EQ(rejection(with(umma("K", 16, "128B"), {{"layout", "((8,2),(8,2)):((64,12),(1,8))"}})),
            "UMMA smem descriptor: SBO 24 is not a non-negative multiple of 16 bytes");
  // 4-bit elements: an SBO of 33 elements is half a byte off.
  EXPECT_EQ(rejection(with(umma("K", 4, "none"), {{"layout", "((8,2),(32,2)):((32,33),(1,512))"}})),
            "UMMA smem descriptor: SBO of 33 elements is not a whole number of bytes");
  EXPECT_TRUE(run(with(umma("K", 4, "none"), {{"layout", "((8,2),(32,2)):((32,256),(1,512))"}})).accepted);
  EXPECT_THROW(run(with(umma("MN", 16, "none"), {{"mn", 16}, {"k", 16}})), RequestError);  // LBO/SBO needed
  EXPECT_THROW(run(with(umma("MN", 16, "none"), {{"layout", "(16,16):(1,16)"}, {"mn", 32}})), RequestError);
  EXPECT_THROW(run(with(umma("MN", 6, "none"), {{"mn", 16}, {"k", 16}})), RequestError);
  EXPECT_THROW(run(with(umma("MN", 16, "none"), {{"layout", "(16,16,2):(1,16,256)"}})), RequestError);
}

// ---- idesc (the hardware's instruction descriptor) ---------------------------------------------------

TEST(Tcgen05VerifIdesc, DecodeAndRules) {
  using namespace tcgen05;
  // kind::f16, BF16 x BF16 -> F32, M=128, N=256, K-major both.
  const uint32_t good = 0x08400490;
  IdescFields f = decode_idesc(good, MmaKind::f16);
  EXPECT_EQ(f.m, 128u);
  EXPECT_EQ(f.n, 256u);
  EXPECT_EQ(f.a_type, 1u);
  EXPECT_EQ(f.d_type, 1u);
  IdescContext c;
  EXPECT_FALSE(check_idesc(good, c));
  EXPECT_EQ(check_idesc(0x06400490, c).value_or(""),
            "tcgen05.mma instruction descriptor 0x06400490: M=96, N=256 is not a valid shape for kind::f16 with "
            "cta_group::1");
  EXPECT_EQ(
      check_idesc(0x08400090, c).value_or(""),
      "tcgen05.mma instruction descriptor 0x08400090: A and B types (bits 7-9, 10-12) differ; kind::f16 needs both "
      "F16 or both BF16");
  EXPECT_EQ(
      check_idesc(good | 4, c).value_or(""),
      "tcgen05.mma instruction descriptor 0x08400494: the sparse flag (bit 2) is 1 but the instruction is not .sp");
  EXPECT_EQ(check_idesc(good & ~0x10u, c).value_or(""),
            "tcgen05.mma instruction descriptor 0x08400480: BF16 inputs need an F32 D (bits 4-5 = 1)");
  c.kind = MmaKind::i8;
  EXPECT_EQ(
      check_idesc(0x080A0020, c).value_or(""),
      "tcgen05.mma instruction descriptor 0x080a0020: M=128, N=40 is not a valid shape for kind::i8 with cta_group::1");
  EXPECT_FALSE(check_idesc(0x080C0020, c));  // N = 48
  EXPECT_EQ(check_idesc(0x080C0020 | 0x2000, c).value_or(""),
            "tcgen05.mma instruction descriptor 0x080c2020: negate (bits 13-14) is not supported for kind::i8");
  c.kind = MmaKind::mxf4;
  EXPECT_FALSE(check_idesc(0x08C00480, c));
  EXPECT_EQ(check_idesc(0x08C08480, c).value_or(""),
            "tcgen05.mma instruction descriptor 0x08c08480: transpose (bits 15-16) is not supported for kind::mxf4");
  EXPECT_EQ(check_idesc(0x08400480, c).value_or(""),
            "tcgen05.mma instruction descriptor 0x08400480: scale type UE4M3 (bit 23 = 0) is only for kind::mxf4nvf4");
  c.kind = MmaKind::mxf4nvf4;
  EXPECT_FALSE(check_idesc(0x08400480, c));
  EXPECT_EQ(check_idesc(0x88400480, c).value_or(""),
            "tcgen05.mma instruction descriptor 0x88400480: K = 96 (bit 31) needs sm_103a");
  c.target = {103, 'a', "sm_103a"};
  EXPECT_FALSE(check_idesc(0x88400480, c));
}

TEST(Tcgen05VerifIdesc, Request) {
  // The request `ptxsim fuzz idesc` writes for a counterexample replays through `ptxsim verify`.
  const Entry* e = find_verifier("tcgen05-idesc");
  ASSERT_NE(e, nullptr);
  json r = {{"verifier", "tcgen05-idesc"}, {"idesc", "0x08100000"}, {"kind", "mxf8f6f4"}, {"cta_group", 1},
            {"sparse", false},             {"ws", true},             {"target", "sm_100a"}};
  Outcome o = e->handler(r);
  EXPECT_FALSE(o.accepted);
  ASSERT_EQ(o.diagnostics.size(), 1u);
  EXPECT_EQ(o.diagnostics[0],
            "tcgen05.mma instruction descriptor 0x08100000: scale type UE4M3 (bit 23 = 0) is only for "
            "kind::mxf4nvf4");
  r["idesc"] = "0x08900000";  // UE8M0 scales, M = 128, N = 64: valid without .ws only
  o = e->handler(r);
  ASSERT_EQ(o.diagnostics.size(), 1u);
  EXPECT_EQ(o.diagnostics[0],
            "tcgen05.mma instruction descriptor 0x08900000: M=128, N=64 is not a valid shape for kind::mxf8f6f4.ws "
            "with cta_group::1");
  r["ws"] = false;
  o = e->handler(r);
  EXPECT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines, std::vector<std::string>{"M = 128, N = 64"});
  r["idesc"] = 0x08900000;  // a number works too
  EXPECT_TRUE(e->handler(r).accepted);
  r["idesc"] = "0x1g";
  EXPECT_THROW(e->handler(r), RequestError);
  r["idesc"] = "0x08900000";
  r["kind"] = "kind::f32";
  EXPECT_THROW(e->handler(r), RequestError);
}

TEST(Tcgen05VerifIdesc, EveryRuleWorded) {
  using namespace tcgen05;
  struct Case {
    MmaKind kind;
    bool sparse, ws;
    uint32_t idesc;
    const char* message;  // after "tcgen05.mma instruction descriptor 0x........: "
  };
  const uint32_t f16 = 0x08400490;                          // BF16 x BF16 -> F32, M=128, N=256
  const uint32_t i8 = 0x080C0020 | (1u << 7) | (1u << 10);  // S8 x S8 -> S32, M=128, N=48
  const uint32_t mx8 = 0x08C00000;                          // mxf8f6f4 E4M3 x E4M3, UE8M0, M=128, N=256
  const std::vector<Case> cases = {
      {MmaKind::f16, true, false, f16, "the sparse flag (bit 2) is 0 but the instruction is .sp"},
      {MmaKind::f16, false, false, f16 | 0x40, "reserved bit 6 is set"},
      {MmaKind::f16, false, false, f16 | 0x800000, "reserved bit 23 is set"},
      {MmaKind::f16, false, false, f16 | 0x20000000, "reserved bit 29 is set"},
      {MmaKind::i8, true, false, i8 | 4 | 1, "the sparsity selector (bits 0-1) must be 0 for kind::i8"},
      {MmaKind::f16, false, false, f16 | 8, "saturate (bit 3) is only for kind::i8"},
      {MmaKind::tf32, false, false, (f16 & ~0x1F80u) | (2u << 7) | (2u << 10) | 0x20,
       "D type 3 (bits 4-5) is not valid for kind::tf32"},
      {MmaKind::f8f6f4, false, false, (f16 & ~0x1F80u) | (2u << 7),
       "A type 2 (bits 7-9) is not valid for kind::f8f6f4"},
      {MmaKind::f8f6f4, false, false, (f16 & ~0x1F80u) | (7u << 10),
       "B type 7 (bits 10-12) is not valid for kind::f8f6f4"},
      {MmaKind::f16, false, false, f16 | 0x40000000, "the B-reuse shift (bits 30-31) is only for .ws"},
      {MmaKind::f16, false, true, (f16 & ~0x1F000000u) | (2u << 24), ""},  // .ws M=32, N=256: valid
      {MmaKind::f16, false, true, (f16 & ~0x1F000000u) | (2u << 24) | 0x40000000, ""},
      {MmaKind::f16, true, true, (f16 & ~0x1F000000u) | (2u << 24) | 4,
       "M=32, N=256 is not a valid shape for kind::f16.ws with cta_group::1"},
      {MmaKind::mxf8f6f4, false, false, mx8 | 0x1000000, "reserved bit 24 is set"},
      {MmaKind::mxf8f6f4, false, false, mx8 | 0x80000000, "reserved bit 31 is set"},
      {MmaKind::mxf8f6f4, false, false, mx8 | (2u << 7), "A type 2 (bits 7-9) is not valid for kind::mxf8f6f4"},
      {MmaKind::mxf8f6f4, false, false, mx8 | (6u << 10), "B type 6 (bits 10-12) is not valid for kind::mxf8f6f4"},
      {MmaKind::mxf8f6f4, false, false, mx8 | (3u << 29) | (1u << 4), ""},  // SF IDs 0-3 allowed
      {MmaKind::mxf4, false, false, 0x08C00480 | (1u << 4),
       "scale-factor IDs (bits 4-5, 29-30) must be 0 or 2 for kind::mxf4"},
      {MmaKind::mxf4, false, false, 0x08C00480 | (1u << 12), "reserved bit 12 is set"},
      {MmaKind::mxf4nvf4, false, false, 0x08C00400, "A type 0 (bits 7-9) is not valid for kind::mxf4nvf4 (E2M1 = 1)"},
      {MmaKind::mxf4nvf4, false, false, 0x08C00080, "B type 0 (bits 10-11) is not valid for kind::mxf4nvf4 (E2M1 = 1)"},
      {MmaKind::mxf4nvf4, false, false, 0x10C00480,
       "M=256, N=256 is not a valid shape for kind::mxf4nvf4 with cta_group::1"},
      // .ws does not exist for the block-scaled kinds (Table 39), even with a .ws-valid M and N
      // (found by `ptxsim fuzz idesc`).
      {MmaKind::mxf8f6f4, false, true, (mx8 & ~(0x3Fu << 17)) | (8u << 17),
       "M=128, N=64 is not a valid shape for kind::mxf8f6f4.ws with cta_group::1"},
  };
  for (const Case& k : cases) {
    IdescContext c;
    c.kind = k.kind;
    c.sparse = k.sparse;
    c.ws = k.ws;
    char head[64];
    std::snprintf(head, sizeof head, "tcgen05.mma instruction descriptor 0x%08x: ", k.idesc);
    std::string want = *k.message ? head + std::string(k.message) : "";
    EXPECT_EQ(check_idesc(k.idesc, c).value_or(""), want) << std::hex << k.idesc;
  }
  IdescContext c2;
  c2.kind = MmaKind::mxf4nvf4;
  c2.cta_group = 2;
  EXPECT_FALSE(check_idesc(0x10C00480, c2));
  c2.sparse = true;
  EXPECT_FALSE(check_idesc(0x10C00484, c2));
  EXPECT_EQ(check_idesc(0x08C00484, c2).value_or(""),
            "tcgen05.mma instruction descriptor 0x08c00484: M=128, N=256 is not a valid shape for kind::mxf4nvf4 with "
            "cta_group::2");
}

// ---- ptxsim check ------------------------------------------------------------------------------------

std::vector<std::pair<int, std::string>> lines_of(const std::string& text) {
  std::vector<std::pair<int, std::string>> v;
  int n = 0;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    v.push_back({++n, text.substr(b, e - b)});
    b = e + 1;
  }
  return v;
}

std::vector<std::string> check(const std::string& text, const std::string& target = "") {
  return tcgen05::check_tcgen05_ptx("k.ptx", lines_of(text), {target});
}

// The walkthrough's Stage 6 kernel (with its K loop).
const char* kWalkthroughPtx = R"(//
// Generated by tileiras 13.1, target sm_100a
//
.version 8.6
.target sm_100a
.address_size 64

.extern .shared .align 16 .b8 global_smem[];

.entry gemm_blackwell(
    .param .u64 gemm_param_0,
    .param .u64 gemm_param_1
)
.reqntid 128, 1, 1
{
    .reg .pred      %p<8>;
    .reg .b32       %r<48>;

    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd_tmem_scratch], 16;
    ld.shared.b32       %r_tmem_d, [%rd_tmem_scratch];
    mov.u32             %r_k, 0;

LBB_loop:
    tcgen05.mma.cta_group::1.kind::f16.collector::a::fill
        [%r_tmem_d],                  // D = C += A * B, TMEM in-place
        %rd_a_desc,                   // A: SMEM descriptor
        %rd_b_desc,                   // B: SMEM descriptor
        %r_idesc,                     // instruction descriptor (kind word)
        1;                            // enable_input_d (scale_d analogue)

    add.u32         %r_k, %r_k, 16;
    setp.lt.u32     %p_done, %r_k, %r_k_end;
    @%p_done bra    LBB_loop;

    tcgen05.wait.cta_group::1.sync.aligned;
    tcgen05.ld.sync.aligned.16x64b.x32.b32
        {%f0,  %f1,  %f2,  %f3},
        [%r_tmem_d];

    tcgen05.dealloc.cta_group::1.sync.aligned.b32 [%r_tmem_d], 16;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;

    ret;
}
)";

TEST(Tcgen05VerifPtx, WalkthroughKernelIsClean) { EXPECT_EQ(check(kWalkthroughPtx), std::vector<std::string>{}); }

TEST(Tcgen05VerifPtx, TargetGates) {
  std::string text = kWalkthroughPtx;
  text.replace(text.find(".target sm_100a"), 15, ".target sm_90a");
  EXPECT_EQ(
      check(text),
      (std::vector<std::string>{
          "k.ptx:19: error: tcgen05.alloc supported only on arch-conditional or family-conditional variants from "
          "SM100 onwards.",
          "k.ptx:24: error: tcgen05.mma supported only on arch-conditional or family-conditional variants from SM100 "
          "onwards.",
          "k.ptx:35: error: tcgen05.wait supported only on arch-conditional or family-conditional variants from SM100 "
          "onwards.",
          "k.ptx:36: error: tcgen05.ld supported only on arch-conditional or family-conditional variants from SM100 "
          "onwards.",
          "k.ptx:40: error: tcgen05.dealloc supported only on arch-conditional or family-conditional variants from "
          "SM100 onwards.",
          "k.ptx:41: error: tcgen05.relinquish_alloc_permit supported only on arch-conditional or family-conditional "
          "variants from SM100 onwards."}));
}

TEST(Tcgen05VerifPtx, StraightLineLifecycle) {
  const std::string text = R"(.target sm_100a
.entry k()
{
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem_t], 32;
  ld.shared.u32 %r1, [smem_t];
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r1], {%r2};
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r3}, [%r9];
}
.func f()
{
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem_u], 32;
  ret;
}
.entry k2()
{
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem_u], 32;
}
)";
  EXPECT_EQ(
      check(text),
      (std::vector<std::string>{
          "k.ptx:8: error: tcgen05.dealloc must post-dominate every use of its handle: tcgen05.st uses %r1 after its "
          "tcgen05.dealloc",
          "k.ptx:18: error: tcgen05.alloc of 32 columns is never deallocated before the kernel exits",
          "k.ptx:19: error: tcgen05.relinquish_alloc_permit must be issued before the kernel exits"}));
}

// nvcc's shape of a straight-line kernel: the alloc names the slot through a register holding its
// address, the handle is loaded from the symbol itself.
TEST(Tcgen05VerifPtx, HandleThroughSymbolAddress) {
  const std::string text = R"(.target sm_100a
.visible .entry straight()
{
  .shared .align 4 .u32 tmem_slot;
  mov.u32 %r1, tmem_slot;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  bar.sync 0;
  ld.shared.u32 %r3, [tmem_slot];
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r2}, [%r3];
}
)";
  EXPECT_EQ(check(text),
            (std::vector<std::string>{"k.ptx:11: error: tcgen05.dealloc must post-dominate every use of its "
                                      "handle: tcgen05.ld uses %r3 after its tcgen05.dealloc"}));
  // A dealloc of a handle the function cannot trace may free the allocation: no leak reported.
  std::string untraced = text;
  untraced.replace(untraced.find("b32 %r3, 32;"), 12, "b32 %r9, 32;");
  EXPECT_EQ(check(untraced), std::vector<std::string>{});
  // Without any dealloc the allocation leaks.
  std::string leak = text;
  leak.erase(leak.find("  tcgen05.dealloc"), leak.find("  tcgen05.ld.sync") - leak.find("  tcgen05.dealloc"));
  EXPECT_EQ(check(leak),
            std::vector<std::string>{
                "k.ptx:6: error: tcgen05.alloc of 32 columns is never deallocated before the kernel exits"});
}

TEST(Tcgen05VerifPtx, InstructionRules) {
  const std::string text = R"(.target sm_100a
.entry k()
{
  mov.b32 %r_idesc, 0x06400490;
  mov.b32 %r_ok, 0x08400490;
  tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::fill [%r1], [%r2], %rd3, %r_ok, 1;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r_idesc, 1;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r_ok, 1;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, 0x08400090, 1;
  tcgen05.cp.cta_group::1.64x128b [%r1], %rd4;
  tcgen05.cp.cta_group::1.32x128b.warpx4 [%r1], %rd4;
  @%p0 tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r1], %rd2, %rd3, %r_ok, [%r5], [%r6], 1;
  tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd2, %rd3, 0x08C00480, [%r5], [%r6], 1;
  tcgen05.mma.ws.cta_group::1.kind::f8f6f4 [%r1], %rd2, %rd3, %r_ok, 1;
}
)";
  EXPECT_EQ(
      check(text),
      (std::vector<std::string>{
          "k.ptx:6: error: Cannot use collector::a::use or colletor::a::fill with ashift",
          "k.ptx:7: error: tcgen05.mma instruction descriptor 0x06400490: M=96, N=256 is not a valid shape for "
          "kind::f16 with cta_group::1",
          "k.ptx:9: error: tcgen05.mma instruction descriptor 0x08400090: A and B types (bits 7-9, 10-12) differ; "
          "kind::f16 needs both F16 or both BF16",
          "k.ptx:10: error: Shape 64x128b requires multicast warpx2_01_23 or warpx2_02_13 for tcgen05.cp Op",
          "k.ptx:12: error: Cannot use 1X as scale vector size for mxf4nvf4 type",
          "k.ptx:14: error: Cannot use weight stationary with mxf8f6f4 and fp4 types"}));
  // sm_100f is family-conditional: rules 1-3 pass, rule 4 (scale input accumulator) is not in PTX text.
  EXPECT_EQ(check("tcgen05.mma.cta_group::2.kind::i8 [%r1], %rd2, %rd3, %r4, 1;", "sm_100f"),
            std::vector<std::string>{});
  EXPECT_EQ(check("tcgen05.mma.cta_group::2.kind::i8 [%r1], %rd2, %rd3, %r4, 1;", "sm_100"),
            (std::vector<std::string>{"k.ptx:1: error: tcgen05.mma supported only on arch-conditional or "
                                      "family-conditional variants from SM100 onwards."}));
  // A scale-input-d operand is the seed's scale_input_acc (rules 4 and 5).
  EXPECT_EQ(
      check("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, {%r5, %r6, %r7, %r8}, p, 3;", "sm_100f"),
      (std::vector<std::string>{"k.ptx:1: error: Scale input accumulator is not supported on this architecture."}));
  EXPECT_EQ(
      check("tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd2, %rd3, %r4, p, 3;", "sm_100a"),
      (std::vector<std::string>{"k.ptx:1: error: Scale input accumulator can only be used with f16 and tf32 types"}));
  EXPECT_EQ(check("tcgen05.mma.sp.cta_group::1.kind::tf32 [%r1], %rd2, %rd3, [%r9], %r4, p, 3;", "sm_100a"),
            std::vector<std::string>{});
  // Bare statements, no target: no gates, lifecycle as one kernel.
  EXPECT_EQ(check("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [s], 32;\n"
                  "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;"),
            (std::vector<std::string>{
                "k.ptx:1: error: tcgen05.alloc of 32 columns is never deallocated before the kernel exits",
                "k.ptx:2: error: all tcgen05 instructions in a kernel must use the same .cta_group: "
                "tcgen05.relinquish_alloc_permit uses cta_group::2 after cta_group::1"}));
}

}  // namespace
}  // namespace ptxsim::verifiers
