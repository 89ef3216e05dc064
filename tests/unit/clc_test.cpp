// clusterlaunchcontrol through the engine with hand-written PTX: which cluster a request takes
// (in launch order, with the %ctaid of its first CTA in every dimension), the failed request of
// the last cluster and of a co-resident grid, and the faults for what the ISA leaves undefined.
// The persistent-kernel tests are in tests/kernels/clc_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

// Thread 0 of each CTA asks once (ASK: the try_cancel), waits for the response and writes, at
// out[4 * linear ctaid], is_canceled and the first ctaid's x, y, z (z, y, x read separately, the
// v4 form checked against them). QUERY_EXTRA runs after the wait with %q1 the response.
const char* kPtx = R"(.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 16 .b8 resp[32];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  .reg .b128 %q<2>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mov.u32 %r2, resp;
  mov.u32 %r3, bar;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r3], 16;
  ASK
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra $wait;
  ld.shared.v2.b64 {%rd2, %rd3}, [%r2];
  mov.b128 %q1, {%rd2, %rd3};
  QUERY_EXTRA
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
  selp.u32 %r10, 1, 0, %p3;
  mov.u32 %r11, 0xFFFFFFFF;
  mov.u32 %r12, 0xFFFFFFFF;
  mov.u32 %r13, 0xFFFFFFFF;
  @!%p3 bra $store;
  clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r11, %q1;
  clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r12, %q1;
  clusterlaunchcontrol.query_cancel.get_first_ctaid::z.b32.b128 %r13, %q1;
  clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r20, %r21, %r22, %r23}, %q1;
  setp.ne.u32 %p4, %r20, %r11;
  @%p4 trap;
  setp.ne.u32 %p4, %r21, %r12;
  @%p4 trap;
  setp.ne.u32 %p4, %r22, %r13;
  @%p4 trap;
$store:
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ctaid.y;
  mov.u32 %r6, %ctaid.z;
  mov.u32 %r7, %nctaid.x;
  mov.u32 %r8, %nctaid.y;
  mad.lo.u32 %r9, %r6, %r8, %r5;
  mad.lo.u32 %r9, %r9, %r7, %r4;
  ld.param.u64 %rd4, [out];
  mul.wide.u32 %rd5, %r9, 16;
  add.s64 %rd6, %rd4, %rd5;
  st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
$done:
  ret;
}
)";

const std::string kAsk = "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r2], [%r3];";

std::string kernel(const std::string& ask, const std::string& extra = "") {
  std::string s = kPtx;
  s.replace(s.find("ASK"), 3, ask);
  s.replace(s.find("QUERY_EXTRA"), 11, extra);
  return s;
}

struct ClcRun {
  Launched l;
  std::vector<uint32_t> out;  // 4 words per CTA
};

ClcRun run(const std::string& ptx, ptxsim::Dim3 grid, ptxsim::Dim3 cluster = {1, 1, 1}) {
  ptxsim::model::GlobalMemory mem;
  const size_t n = size_t(grid.count()) * 4;
  const uint64_t out = mem.allocate(n * 4);
  std::vector<uint32_t> poison(n, 0xABABABAB);
  mem.write(out, poison.data(), n * 4);
  Params p;
  p.add(out);
  ClcRun r;
  r.l = launch(ptx, mem, p, grid, {32, 1, 1}, cluster);
  r.out.resize(n);
  mem.read(out, r.out.data(), n * 4);
  return r;
}

TEST(ClusterLaunchControl, EachRequestTakesTheNextClusterNotLaunchedAndNamesItsFirstCta) {
  // A 3-D grid of 2x1x1 clusters: 12 clusters launched in linear order (x fastest). Each CTA that
  // runs asks once, so cluster 0's two CTAs cancel clusters 1 and 2, cluster 3 runs next, and so on.
  const ptxsim::Dim3 grid{4, 3, 2}, cl{2, 1, 1};
  ClcRun r = run(kernel(kAsk), grid, cl);
  ASSERT_EQ(r.l.result.status, ptxsim::RunStatus::Completed) << r.l.all_diagnostics();
  EXPECT_EQ(r.l.warning_count(), 0u) << r.l.all_diagnostics();
  const uint32_t ncl_x = grid.x / cl.x, nclusters = 12;
  using Answer = std::array<uint32_t, 4>;
  auto first_of = [&](uint32_t c) { return Answer{1, c % ncl_x * cl.x, c / ncl_x % grid.y, c / (ncl_x * grid.y)}; };
  const Answer failed{0, ~0u, ~0u, ~0u}, poison{0xABABABAB, 0xABABABAB, 0xABABABAB, 0xABABABAB};
  // Independent replay of the launch: the next cluster not taken runs and its two CTAs take the two
  // after it (which CTA asks first is the scheduler's choice, so answers are compared as a set).
  uint32_t next = 0;
  std::vector<bool> ran(nclusters, false);
  std::map<uint32_t, std::multiset<Answer>> want;
  while (next < nclusters) {
    const uint32_t c = next++;
    ran[c] = true;
    for (int rank = 0; rank < 2; ++rank) want[c].insert(next < nclusters ? first_of(next++) : failed);
  }
  for (uint32_t c = 0; c < nclusters; ++c) {
    const Answer f = first_of(c);
    std::multiset<Answer> got;
    for (uint32_t rank = 0; rank < 2; ++rank) {
      const uint32_t id = (f[3] * grid.y + f[2]) * grid.x + f[1] + rank;
      got.insert(Answer{r.out[4 * id], r.out[4 * id + 1], r.out[4 * id + 2], r.out[4 * id + 3]});
    }
    const std::multiset<Answer> expected = ran[c] ? want[c] : std::multiset<Answer>{poison, poison};
    EXPECT_EQ(got, expected) << "cluster " << c;
  }
}

TEST(ClusterLaunchControl, ACoResidentGridHasNoClusterToCancel) {
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = mem.allocate(3 * 16);
  Params p;
  p.add(out);
  auto prog = ptxsim::load_program(kernel(kAsk), "clc.ptx");
  ptxsim::LaunchConfig cfg;
  cfg.grid = {3, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.co_resident = true;
  std::ostringstream os;
  auto r = ptxsim::launch(*prog, "k", cfg, p.bytes, mem, &os);
  ASSERT_EQ(r.status, ptxsim::RunStatus::Completed) << r.report;
  std::vector<uint32_t> got(12);
  mem.read(out, got.data(), 48);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[4 * i], 0u) << "CTA " << i;
}

TEST(ClusterLaunchControl, UndefinedUsesAreFaults) {
  auto fault = [](const std::string& ptx, ptxsim::Dim3 grid = {1, 1, 1}) {
    ClcRun r = run(ptx, grid);
    EXPECT_EQ(r.l.result.status, ptxsim::RunStatus::Fault) << r.l.all_diagnostics();
    return r.l.result.report;
  };
  // A value that is not a response.
  std::string rep = fault(kernel(kAsk, "mov.b128 %q1, {%rd5, %rd5};"));
  EXPECT_NE(rep.find("clusterlaunchcontrol.query_cancel: the operand (lane 0: 0x00000000000000000000000000000000) is not a response "
                     "written by clusterlaunchcontrol.try_cancel"),
            std::string::npos)
      << rep;
  // The first ctaid of a failed response (a grid of one cluster has nothing to cancel).
  rep = fault(kernel(kAsk, "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r30, %q1;"));
  EXPECT_NE(rep.find("clusterlaunchcontrol.query_cancel.get_first_ctaid: the response (lane 0) is of a try_cancel that "
                     "failed, whose first ctaid is undefined in the PTX ISA; test query_cancel.is_canceled first"),
            std::string::npos)
      << rep;
  // Misaligned response, and an mbarrier that was never initialised.
  rep = fault(kernel("add.u32 %r2, %r2, 8;\n  " + kAsk));
  EXPECT_NE(rep.find("clusterlaunchcontrol.try_cancel: response address"), std::string::npos) << rep;
  EXPECT_NE(rep.find("is not 16-byte aligned"), std::string::npos) << rep;
  rep = fault(kernel("add.u32 %r3, %r2, 16;\n  " + kAsk));
  EXPECT_NE(rep.find("holds no initialised mbarrier for the complete-tx"), std::string::npos) << rep;
}

TEST(ClusterLaunchControl, DecodeChecksAgreeWithPtxas) {
  auto err = [](const std::string& body, const std::string& target = "sm_100a") {
    std::string ptx = ".version 8.6\n.target " + target +
                      "\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
                      "  .reg .pred %p<2>;\n  .reg .b128 %q<2>;\n  " +
                      body + "\n  ret;\n}\n";
    try {
      ptxsim::load_program(ptx, "t.ptx");
      return std::string("accepted");
    } catch (const ptxsim::PtxError& e) {
      return std::string(e.what());
    }
  };
  const std::string tc = "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes";
  const std::string q = "clusterlaunchcontrol.query_cancel";
  EXPECT_EQ(err(tc + ".b128 [%r1], [%r2];"), "accepted");
  EXPECT_EQ(err("clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd2];"), "accepted");
  EXPECT_EQ(err(tc + ".multicast::cluster::all.b128 [%r1], [%r2];"), "accepted");
  EXPECT_EQ(err(q + ".get_first_ctaid.v4.b32.b128 {%r0, %r1, %r2, %r3}, %q1;"), "accepted");
  EXPECT_NE(err(tc + ".multicast::cluster::all.b128 [%r1], [%r2];", "sm_100").find("not supported on .target 'sm_100'"),
            std::string::npos);
  EXPECT_NE(err(tc + ".b128 [%r1], [%r2];", "sm_90a").find("sm_90a"), std::string::npos);
  EXPECT_NE(err("clusterlaunchcontrol.try_cancel.async.shared::cta.b128 [%r1], [%r2];")
                .find(".mbarrier::complete_tx::bytes modifier required for instruction "
                      "'clusterlaunchcontrol.try_cancel.async'"),
            std::string::npos);
  EXPECT_NE(err(tc + " [%r1], [%r2];").find("Unexpected instruction types specified for 'clusterlaunchcontrol.try_cancel.async'"),
            std::string::npos);
  EXPECT_NE(err(q + ".get_first_ctaid.v4.b32.b128 {%r0, %r1, %r2}, %q1;")
                .find("Vector of size 4 is expected for argument 0 of instruction 'clusterlaunchcontrol.query_cancel'"),
            std::string::npos);
  EXPECT_NE(err(q + ".get_first_ctaid.b32.b128 %r1, %q1;").find("Vector of size 4 is expected"), std::string::npos);
  EXPECT_NE(err(q + ".get_first_ctaid::x.b32.b128 %rd1, %q1;").find("Arguments mismatch for instruction 'clusterlaunchcontrol.query_cancel'"),
            std::string::npos);
  EXPECT_NE(err(q + ".is_canceled.pred.b128 %p1, %rd1;").find("Arguments mismatch"), std::string::npos);
  EXPECT_NE(err(q + ".is_canceled.b128 %p1, %q1;").find("Unexpected instruction types specified for 'clusterlaunchcontrol.query_cancel'"),
            std::string::npos);
}

}  // namespace
