// tma_pipeline.cu: the 4-stage warp-specialised TMA pipeline against a CPU reference, and its
// deliberately broken variants, whose deadlock and hazard reports are asserted line for line
// where the wording is the contract (the diagnosis lines of docs/design.md's deadlock report).
#include <random>

#include "model/tensormap/encoder.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

namespace tmap = model::tmap;

using TmaPipelineTest = KernelTest;

constexpr uint32_t kBoxCols = 32, kBoxRows = 16, kTiles = 12, kCtas = 2;
constexpr uint32_t kRows = kCtas * kBoxRows, kCols = kTiles * kBoxCols;

enum Mode : int32_t { kCorrect, kWrongExpectTx, kMissingArrive, kWrongParity, kExitedProducer, kMissingFence };

tmap::CUtensorMap int32_map(uint64_t addr, uint64_t cols, uint64_t rows) {
  tmap::CUtensorMap m;
  const uint64_t dims[2] = {cols, rows}, strides[1] = {cols * 4};
  const uint32_t box[2] = {kBoxCols, kBoxRows}, es[2] = {1, 1};
  auto r = tmap::encode_tiled(&m, tmap::DataType::kInt32, 2, addr, dims, strides, box, es, tmap::Interleave::kNone,
                              tmap::Swizzle::kNone, tmap::L2Promotion::kNone, tmap::OobFill::kNone);
  EXPECT_TRUE(r.ok()) << r.message;
  return m;
}

struct PipelineRun {
  RunResult result;
  std::vector<uint32_t> a, c;
  std::string kernel;
  bool has_warning(const std::string& text) const {
    for (const auto& d : result.diagnostics)
      if (d.severity == Diagnostic::Severity::Warning && d.message.find(text) != std::string::npos) return true;
    return false;
  }
};

PipelineRun run_pipeline(Harness& h, Mode mode, uint64_t seed) {
  std::mt19937_64 rng(seed);
  PipelineRun r;
  r.a.resize(size_t(kRows) * kCols);
  for (auto& v : r.a) v = uint32_t(rng());
  const uint64_t a = h.upload(r.a, "A"), c = h.alloc_n<uint32_t>(size_t(kRows) * kBoxCols, "C");
  const tmap::CUtensorMap a_map = int32_map(a, kCols, kRows), c_map = int32_map(c, kBoxCols, kRows);
  r.kernel = h.kernel_named("tma_pipeline");
  r.result = h.launch(r.kernel, {kCtas}, {96}, h.params(r.kernel, a_map, c_map, int32_t(kTiles), int32_t(mode)), 0,
                      nullptr, seed);
  r.c = h.download<uint32_t>(c, size_t(kRows) * kBoxCols);
  return r;
}

// C[r][c] = sum over t of A[r][32 t + c] * (t + 1), in 32-bit wrap-around arithmetic.
std::vector<uint32_t> reference(const std::vector<uint32_t>& a) {
  std::vector<uint32_t> c(size_t(kRows) * kBoxCols, 0);
  for (uint32_t r = 0; r < kRows; ++r)
    for (uint32_t col = 0; col < kBoxCols; ++col)
      for (uint32_t t = 0; t < kTiles; ++t) c[r * kBoxCols + col] += a[size_t(r) * kCols + t * kBoxCols + col] * (t + 1);
  return c;
}


TEST_P(TmaPipelineTest, MatchesTheCpuReferenceOverSchedules) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_pipeline");
  for (uint64_t schedule : {seed, seed ^ 0x5555, seed + 17}) {
    PipelineRun r = run_pipeline(h, kCorrect, schedule);
    KTEST_EXPECT_COMPLETED(r.result);
    for (const auto& d : r.result.diagnostics) ADD_FAILURE() << "unexpected diagnostic: " << d.format();
    EXPECT_TRUE(compare_exact("C", r.c, reference(r.a)));
  }
}

// The expect_tx announces 4096 bytes; the box delivers 2048: the full barrier's phase 0 never
// completes and the consumers wait forever.
TEST_P(TmaPipelineTest, WrongExpectTxIsADeadlockNamingTheShortfall) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_pipeline");
  PipelineRun r = run_pipeline(h, kWrongExpectTx, seed);
  ASSERT_EQ(r.result.status, RunStatus::Deadlock) << describe(r.result);
  const std::string& rep = r.result.report;
  EXPECT_NE(rep.find("      diagnosis: tx-count short by 2048 bytes: expect_tx announced 4096 bytes in this phase but "
                     "only 2048 bytes completed\n"),
            std::string::npos)
      << rep;
  EXPECT_NE(rep.find("pending arrivals 0 of 1, tx-count 2048\n"), std::string::npos) << rep;
  EXPECT_NE(rep.find("warp 1 lanes 0xffffffff at "), std::string::npos) << rep;
}

// Consumer thread 63 (CTA thread 95) skips its arrival on "empty" for tile 5 (stage 1, phase 1):
// the producer waits for stage 1 before tile 9 forever.
TEST_P(TmaPipelineTest, MissingArriveIsADeadlockNamingTheThread) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_pipeline");
  PipelineRun r = run_pipeline(h, kMissingArrive, seed);
  ASSERT_EQ(r.result.status, RunStatus::Deadlock) << describe(r.result);
  const std::string& rep = r.result.report;
  EXPECT_NE(rep.find("phase 1 (parity 1), pending arrivals 1 of 64, tx-count 0\n"
                     "      arrived in this phase: threads 32-94\n"
                     "      arrived in an earlier phase but not in this one: threads 95\n"
                     "      diagnosis: 1 of 64 arrival(s) missing in phase 1\n"),
            std::string::npos)
      << rep;
  EXPECT_NE(rep.find("warp 0 lanes 0x1 at "), std::string::npos) << rep;  // the producer thread
}

// The producer waits on "empty" with the parity of the phase it is about to need (0) instead of
// the preceding one: phase 0 needs the consumers, who need the producer's first tile.
TEST_P(TmaPipelineTest, WrongParityIsADeadlockOnAPhaseThatNeedsTheWaiter) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_pipeline");
  PipelineRun r = run_pipeline(h, kWrongParity, seed);
  ASSERT_EQ(r.result.status, RunStatus::Deadlock) << describe(r.result);
  const std::string& rep = r.result.report;
  EXPECT_NE(rep.find("phase 0 (parity 0), pending arrivals 64 of 64, tx-count 0\n"
                     "      arrived in this phase: threads none\n"
                     "      diagnosis: 64 of 64 arrival(s) missing in phase 0\n"),
            std::string::npos)
      << rep;
  EXPECT_NE(rep.find("phase 0 (parity 0), pending arrivals 1 of 1, tx-count 0\n"
                     "      arrived in this phase: threads none\n"
                     "      diagnosis: 1 of 1 arrival(s) missing in phase 0\n"),
            std::string::npos)
      << rep;
}

// The producer thread returns before tile 5: the consumers wait for stage 1's second fill.
TEST_P(TmaPipelineTest, ExitedProducerIsADeadlockNamingTheExitedThread) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_pipeline");
  PipelineRun r = run_pipeline(h, kExitedProducer, seed);
  ASSERT_EQ(r.result.status, RunStatus::Deadlock) << describe(r.result);
  const std::string& rep = r.result.report;
  EXPECT_NE(rep.find("phase 1 (parity 1), pending arrivals 1 of 1, tx-count 0\n"
                     "      arrived in this phase: threads none\n"
                     "      arrived in an earlier phase but not in this one: threads 0\n"
                     "      of which have exited: threads 0\n"
                     "      diagnosis: 1 arrival(s) missing; threads that arrived in earlier phases have exited\n"),
            std::string::npos)
      << rep;
}

// Without fence.proxy.async the TMA store may read C's shared-memory tile before the generic
// writes reach the async proxy: a hazard warning at the store; the run still completes.
TEST_P(TmaPipelineTest, MissingProxyFenceIsReportedAtTheStore) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_pipeline");
  PipelineRun r = run_pipeline(h, kMissingFence, seed);
  KTEST_EXPECT_COMPLETED(r.result);
  bool found = false;
  for (const auto& d : r.result.diagnostics)
    if (d.severity == Diagnostic::Severity::Warning &&
        d.message.find("cp.async.bulk.tensor.2d store reads shared memory at 0x") == 0 &&
        d.message.find("(this CTA) written through the generic proxy without an intervening fence.proxy.async; the "
                       "async proxy may read stale data") != std::string::npos)
      found = true;
  EXPECT_TRUE(found) << describe(r.result);
  PipelineRun ok = run_pipeline(h, kCorrect, seed);
  EXPECT_FALSE(ok.has_warning("fence.proxy.async")) << describe(ok.result);
}

KTEST_INSTANTIATE(TmaPipelineTest);

}  // namespace
}  // namespace ptxsim::ktest
