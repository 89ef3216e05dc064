// LaunchConfig::co_resident (cooperative launches): every CTA of the grid is resident at once, so a
// grid-wide barrier made of a global atomic and acquire loads (as cooperative_groups builds
// grid_group::sync) completes, and %envreg1/%envreg2 carry LaunchConfig::grid_workspace (high, low). Without
// co-residence the same kernel spins forever in the first CTA: a spin-wait hang (docs/racecheck.md).
#include <gtest/gtest.h>

#include "tests/unit/tma_test_util.h"

namespace {

using namespace tma_test;

// Thread 0 of each CTA publishes 7 * ctaid + 3, arrives on the workspace's counter (offset 4, as
// cooperative_groups' {wsSize, barrier}), spins until every CTA arrived, then reads the next CTA's
// value. It also records the workspace address it saw.
const char* kGridBarrierPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 vals, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %nctaid.x;
  mov.u32 %r3, %tid.x;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra DONE;
  mov.u32 %r10, %envreg1;
  mov.u32 %r11, %envreg2;
  mov.b64 %rd1, {%r11, %r10};
  ld.param.u64 %rd2, [vals];
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  mad.lo.u32 %r4, %r1, 7, 3;
  st.global.u32 [%rd5], %r4;
  atom.add.release.gpu.u32 %r5, [%rd1+4], 1;
SPIN:
  ld.acquire.gpu.u32 %r6, [%rd1+4];
  setp.lt.u32 %p2, %r6, %r2;
  @%p2 bra SPIN;
  add.u32 %r7, %r1, 1;
  rem.u32 %r7, %r7, %r2;
  mul.wide.u32 %rd6, %r7, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r8, [%rd7];
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd3, %rd8;
  st.global.v4.u32 [%rd9], {%r8, %r10, %r11, %r6};
DONE:
  ret;
}
)";

struct GridRun {
  Launched launched;
  uint64_t workspace = 0;
  std::vector<uint32_t> out;  // per CTA: next CTA's value, workspace low, high, counter seen
};

GridRun run_grid_barrier(uint32_t ctas, ptxsim::Dim3 cluster, bool co_resident, uint64_t seed,
                         uint64_t max_instructions, const std::string& ptx = kGridBarrierPtx) {
  ptxsim::model::GlobalMemory mem;
  GridRun g;
  const uint64_t vals = alloc(mem, ctas * 4, "vals"), out = alloc(mem, ctas * 16, "out");
  g.workspace = alloc(mem, 8, "workspace", 0);  // {wsSize, barrier} start at 0
  std::vector<uint32_t> poison(ctas * 4, 0xdeadbeef);
  mem.write(out, poison.data(), poison.size() * 4);
  Params p;
  p.add(vals).add(out);
  auto prog = ptxsim::load_program(ptx, "grid_barrier.ptx");
  ptxsim::LaunchConfig cfg;
  cfg.grid = {ctas, 1, 1};
  cfg.block = {64, 1, 1};
  cfg.cluster = cluster;
  cfg.cluster_given = cluster.count() > 1;
  cfg.schedule_seed = seed;
  cfg.max_instructions = max_instructions;
  cfg.co_resident = co_resident;
  cfg.grid_workspace = g.workspace;
  std::ostringstream printed;
  g.launched.result = ptxsim::launch(*prog, "k", cfg, p.bytes, mem, &printed);
  g.out.resize(ctas * 4);
  mem.read(out, g.out.data(), g.out.size() * 4);
  return g;
}

void expect_barrier_held(uint64_t seed, uint32_t ctas, ptxsim::Dim3 cluster) {
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed) + ", " + std::to_string(ctas) + " CTAs");
  GridRun g = run_grid_barrier(ctas, cluster, true, seed, 50'000'000);
  ASSERT_EQ(g.launched.result.status, ptxsim::RunStatus::Completed) << g.launched.all_diagnostics();
  for (uint32_t c = 0; c < ctas; ++c) {
    EXPECT_EQ(g.out[c * 4 + 0], (c + 1) % ctas * 7 + 3) << "CTA " << c << " read its neighbour's value";
    EXPECT_EQ(g.out[c * 4 + 1], uint32_t(g.workspace >> 32)) << "CTA " << c << " %envreg1 (high half)";
    EXPECT_EQ(g.out[c * 4 + 2], uint32_t(g.workspace)) << "CTA " << c << " %envreg2 (low half)";
    EXPECT_EQ(g.out[c * 4 + 3], ctas) << "CTA " << c << " left the barrier early";
  }
}

TEST(CoResident, GridBarrierOverGlobalAtomicsCompletes) {
  const uint64_t seed = test_seed();
  std::mt19937 rng{uint32_t(seed)};
  expect_barrier_held(seed, 2 + rng() % 40, {1, 1, 1});
}

TEST(CoResident, ClustersAreResidentTogether) {
  const uint64_t seed = test_seed();
  std::mt19937 rng{uint32_t(seed)};
  expect_barrier_held(seed, 4 * (1 + rng() % 6), {4, 1, 1});
}

// The last CTA returns without arriving: in a cooperative launch every other CTA spins on the
// barrier word for ever. A spin-wait hang (deadlock) naming the loop and the word, found long
// before the instruction budget.
TEST(CoResident, GridBarrierOneCtaNeverReachesIsASpinHang) {
  std::string ptx = kGridBarrierPtx;
  const std::string at = "  @%p1 bra DONE;\n";
  ptx.insert(ptx.find(at) + at.size(), "  add.u32 %r12, %r1, 1;\n  setp.eq.u32 %p3, %r12, %r2;\n  @%p3 bra DONE;\n");
  GridRun g = run_grid_barrier(3, {1, 1, 1}, true, test_seed(), 50'000'000, ptx);
  const auto& r = g.launched.result;
  ASSERT_EQ(r.status, ptxsim::RunStatus::Deadlock) << g.launched.all_diagnostics();
  char word[64];
  std::snprintf(word, sizeof word, "polling global address 0x%llx (allocation 'workspace' + 0x4)",
                (unsigned long long)(g.workspace + 4));
  EXPECT_NE(r.diagnostics.at(0).message.find("deadlock: spin-wait hang: warp 0 lanes 0x1 of CTA ("), std::string::npos)
      << r.diagnostics.at(0).message;
  EXPECT_NE(r.diagnostics.at(0).message.find(word), std::string::npos) << r.diagnostics.at(0).message;
  EXPECT_EQ(r.report.find("later clusters"), std::string::npos) << r.report;  // all of them are resident
  EXPECT_LT(r.stats.thread_instructions, 100'000u);
}

TEST(CoResident, WithoutCoResidenceTheBarrierNeverOpens) {
  // CTA 0 spins on the barrier word that only the later, not yet resident CTAs would change: a
  // spin-wait hang, reported as a deadlock long before the instruction budget (docs/racecheck.md).
  GridRun g = run_grid_barrier(3, {1, 1, 1}, false, test_seed(), 200'000);
  EXPECT_EQ(g.launched.result.status, ptxsim::RunStatus::Deadlock) << g.launched.all_diagnostics();
  ASSERT_FALSE(g.launched.result.diagnostics.empty());
  EXPECT_EQ(g.launched.result.diagnostics[0].message.rfind("deadlock: spin-wait hang: warp 0 lanes 0x1 of CTA (0,0,0)", 0), 0u)
      << g.launched.all_diagnostics();
  EXPECT_NE(g.launched.result.report.find("later clusters of the grid are not resident"), std::string::npos)
      << g.launched.result.report;
}

// Each CTA's thread 0 bulk-copies its 64-byte row into shared memory on an mbarrier and waits.
// The copies complete between scheduling rounds, while every cluster is parked: their wake-ups
// must reach the parked CTAs.
const char* kBulkWaitPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .shared .align 16 .b8 buf[64];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  mov.u32 %r3, bar;
  mov.u32 %r4, buf;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  ld.param.u64 %rd1, [src];
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd3, %rd1, %rd2;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd3], 64, [%r3];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra WAIT;
  ld.shared.u32 %r5, [buf+60];
  ld.param.u64 %rd4, [out];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r5;
DONE:
  ret;
}
)";

TEST(CoResident, AsyncCompletionsWakeParkedClusters) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed));
  std::mt19937 rng{uint32_t(seed)};
  const uint32_t ctas = 2 + rng() % 8;
  std::vector<uint32_t> src(ctas * 16);
  for (auto& v : src) v = uint32_t(rng());
  ptxsim::model::GlobalMemory mem;
  const uint64_t s = alloc(mem, src.size() * 4, "src"), out = alloc(mem, ctas * 4, "out");
  mem.write(s, src.data(), src.size() * 4);
  Params p;
  p.add(s).add(out);
  auto prog = ptxsim::load_program(kBulkWaitPtx, "bulk_wait.ptx");
  ptxsim::LaunchConfig cfg;
  cfg.grid = {ctas, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.schedule_seed = seed;
  cfg.max_instructions = 10'000'000;
  cfg.co_resident = true;
  std::ostringstream printed;
  ptxsim::RunResult r = ptxsim::launch(*prog, "k", cfg, p.bytes, mem, &printed);
  ASSERT_EQ(r.status, ptxsim::RunStatus::Completed) << r.report;
  std::vector<uint32_t> got(ctas);
  mem.read(out, got.data(), ctas * 4);
  for (uint32_t c = 0; c < ctas; ++c) EXPECT_EQ(got[c], src[c * 16 + 15]) << "CTA " << c;
}

}  // namespace
