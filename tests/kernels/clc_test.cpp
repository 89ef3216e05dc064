// tests/kernels/clc.cu on sm_100a: a persistent kernel scheduling its tiles with cluster launch
// control, alone and in clusters of two with a multicast response; and the fault for asking again
// after a failed request. (On sm_90a the kernels are empty; only their loading is checked.)
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

class ClcKernel : public KernelTest {
 protected:
  bool sm100() const { return GetParam() == "sm_100a"; }
};

struct TileRun {
  RunResult r;
  std::vector<int> owner, work, steals;
};

// Launches `kernel` over `ntiles` CTAs (clusters of `cluster` CTAs) with outputs poisoned.
TileRun run_tiles(Harness& h, const std::string& kernel, uint32_t ntiles, uint32_t cluster, uint64_t seed) {
  const uint64_t owner = h.alloc_n<int>(ntiles, "owner");
  const uint64_t work = h.upload(std::vector<int>(ntiles, 0), "work");
  const uint64_t steals = h.upload(std::vector<int>{0}, "steals");
  LaunchConfig cfg;
  cfg.grid = {ntiles, 1, 1};
  cfg.block = {64, 1, 1};
  cfg.cluster = {cluster, 1, 1};
  cfg.cluster_given = cluster > 1;
  cfg.schedule_seed = seed;
  const std::string k = h.kernel_named(kernel);
  std::ostringstream out;
  TileRun t;
  t.r = ptxsim::launch(h.program(), k, cfg, h.params(k, owner, work, steals), h.memory(), &out);
  t.owner = h.download<int>(owner, ntiles);
  t.work = h.download<int>(work, ntiles);
  t.steals = h.download<int>(steals, 1);
  return t;
}

TEST_P(ClcKernel, PersistentKernelDoesEveryTileOnceByCancellingClusters) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "clc");
  if (!sm100()) return;
  const uint32_t ntiles = 5 + uint32_t(seed % 12);
  TileRun t = run_tiles(h, "clc_persistent", ntiles, 1, seed);
  KTEST_EXPECT_COMPLETED(t.r);
  EXPECT_TRUE(t.r.diagnostics.empty()) << describe(t.r);
  EXPECT_TRUE(compare_exact("work", t.work, std::vector<int>(ntiles, 1)));
  // ptxsim launches clusters in order, so the first CTA takes every other tile.
  EXPECT_TRUE(compare_exact("owner", t.owner, std::vector<int>(ntiles, 1)));
  EXPECT_EQ(t.steals[0], int(ntiles - 1));
}

TEST_P(ClcKernel, MulticastResponseReachesBothCtasOfTheCluster) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "clc");
  if (!sm100()) return;
  const uint32_t nclusters = 2 + uint32_t(seed % 6), ntiles = 2 * nclusters;
  TileRun t = run_tiles(h, "clc_persistent_multicast", ntiles, 2, seed);
  KTEST_EXPECT_COMPLETED(t.r);
  EXPECT_TRUE(t.r.diagnostics.empty()) << describe(t.r);
  EXPECT_TRUE(compare_exact("work", t.work, std::vector<int>(ntiles, 1)));
  std::vector<int> want(ntiles);
  for (uint32_t i = 0; i < ntiles; ++i) want[i] = 1 + int(i % 2);  // CTA rank r does tile 2c + r
  EXPECT_TRUE(compare_exact("owner", t.owner, want));
  EXPECT_EQ(t.steals[0], int(nclusters - 1));
}

TEST_P(ClcKernel, AskingAgainAfterAFailedRequestIsAFault) {
  KTEST_LOAD(h, "clc");
  if (!sm100()) return;
  const uint64_t out = h.alloc_n<int>(1, "out");
  const std::string k = h.kernel_named("clc_ask_after_failure");
  RunResult r = h.launch(k, {1, 1, 1}, {32, 1, 1}, h.params(k, out));
  ASSERT_EQ(r.status, RunStatus::Fault) << describe(r);
  const uint32_t line = source_line_containing("clc.cu", "ptx::clusterlaunchcontrol_try_cancel(&response, &bar);\n    while");
  (void)line;
  EXPECT_NE(r.report.find("clusterlaunchcontrol.try_cancel: a try_cancel of this CTA (line "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find(") already completed with a failed response; issuing another is undefined behaviour in the PTX "
                          "ISA (stop asking once a request fails)"),
            std::string::npos)
      << r.report;
}

KTEST_INSTANTIATE(ClcKernel);

}  // namespace
}  // namespace ptxsim::ktest
