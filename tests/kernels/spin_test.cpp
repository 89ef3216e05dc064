// spin.cu: a spin-wait nothing can end is a deadlock (status deadlock, exit code 2) whose report
// names the loop and the polled address, found long before the instruction budget; the same loops
// complete when their releaser runs.
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using SpinTest = KernelTest;

bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

TEST_P(SpinTest, FlagNobodySets) {
  KTEST_LOAD(h, "spin");
  for (int hang : {0, 1}) {
    SCOPED_TRACE("hang=" + std::to_string(hang));
    const uint64_t flag = h.upload(std::vector<int32_t>{0}, "flag"), out = h.upload(std::vector<int32_t>{0, 0}, "out");
    const std::string k = h.kernel_named("spin_flag");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, flag, out, int32_t(hang)));
    if (!hang) {
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      EXPECT_EQ(h.download<int32_t>(out, 1)[0], 7);
      continue;
    }
    ASSERT_EQ(r.status, RunStatus::Deadlock) << describe(r);
    EXPECT_EQ(exit_code_for(r.status), 2);
    const Diagnostic& d = r.diagnostics.at(0);
    EXPECT_EQ(d.message.rfind("deadlock: spin-wait hang: warp 0 lanes 0x1 of CTA (0,0,0) loops forever in lines ", 0), 0u)
        << d.message;
    EXPECT_TRUE(has(d.message, "polling global address " + hex(flag) + " (allocation 'flag' + 0x0), which nothing can change"))
        << d.message;
    EXPECT_TRUE(has(d.source_line, "bra")) << d.source_line;  // located at the loop's backward branch
    EXPECT_TRUE(has(r.report, "why nothing can change it: the loop repeated the same register state with no write"))
        << r.report;
    EXPECT_FALSE(has(r.report, "later clusters")) << r.report;
    EXPECT_LT(r.stats.thread_instructions, 100000u);  // found at once, not at the budget
  }
}

TEST_P(SpinTest, SemaphoreWhoseHolderExited) {
  KTEST_LOAD(h, "spin");
  for (int hang : {0, 1}) {
    SCOPED_TRACE("hang=" + std::to_string(hang));
    const uint64_t sem = h.upload(std::vector<int32_t>{0}, "sem"), out = h.upload(std::vector<int32_t>{0, 0}, "out");
    const std::string k = h.kernel_named("spin_semaphore");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, sem, out, int32_t(hang)));
    if (!hang) {
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      EXPECT_EQ(h.download<int32_t>(out, 2), (std::vector<int32_t>{1, 2}));
      continue;
    }
    ASSERT_EQ(r.status, RunStatus::Deadlock) << describe(r);
    const Diagnostic& d = r.diagnostics.at(0);
    EXPECT_TRUE(has(d.message, "spin-wait hang: warp 1 lanes 0x1 of CTA (0,0,0) loops forever")) << d.message;
    EXPECT_TRUE(has(d.message, "polling global address " + hex(sem) + " (allocation 'sem' + 0x0)")) << d.message;
    EXPECT_LT(r.stats.thread_instructions, 100000u);
  }
}

TEST_P(SpinTest, GridBarrierInANonCooperativeLaunch) {
  KTEST_LOAD(h, "spin");
  const uint64_t counter = h.upload(std::vector<int32_t>{0}, "counter"), out = h.upload(std::vector<int32_t>{0, 0}, "out");
  const std::string k = h.kernel_named("spin_grid_barrier");
  RunResult r = h.launch(k, {2}, {32}, h.params(k, counter, out));
  ASSERT_EQ(r.status, RunStatus::Deadlock) << describe(r);
  EXPECT_TRUE(has(r.diagnostics.at(0).message, "polling global address " + hex(counter) + " (allocation 'counter' + 0x0)"))
      << r.diagnostics.at(0).message;
  EXPECT_TRUE(has(r.report, "later clusters of the grid are not resident until this one finishes")) << r.report;
}

}  // namespace

KTEST_INSTANTIATE(SpinTest);

}  // namespace ptxsim::ktest
