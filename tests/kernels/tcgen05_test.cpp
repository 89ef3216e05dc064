// tests/kernels/tcgen05.cu on sm_100a: a bf16 GEMM through Tensor Memory checked against a CPU
// reference, and the broken kernels with the reports ptxsim must give. (On sm_90a the kernels are
// empty; only their loading is checked.)
#include <bit>
#include <cmath>
#include <fstream>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

class Tcgen05Kernel : public KernelTest {
 protected:
  bool sm100() const { return GetParam() == "sm_100a"; }
};

constexpr int kM = 128, kN = 64, kK = 64;

const Diagnostic* first_error(const RunResult& r) {
  for (const auto& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::Error) return &d;
  return nullptr;
}
bool has_warning(const RunResult& r, const std::string& text) {
  for (const auto& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::Warning && d.message.find(text) != std::string::npos) return true;
  return false;
}

struct GemmData {
  std::vector<uint16_t> a, bt;
  std::vector<float> want;
};

// bf16 inputs are small integers (exact products and sums), so the reference is exact: each
// output is the plain sum of products in double.
GemmData make_gemm(uint64_t seed) {
  std::mt19937_64 rng(seed);
  GemmData g;
  auto bf16 = [](int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); };
  std::vector<int> A(kM * kK), B(kN * kK);
  for (int& x : A) x = int(rng() % 17) - 8;
  for (int& x : B) x = int(rng() % 17) - 8;
  for (int x : A) g.a.push_back(bf16(x));
  for (int x : B) g.bt.push_back(bf16(x));
  g.want.resize(kM * kN);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      double s = 0;
      for (int k = 0; k < kK; ++k) s += double(A[m * kK + k]) * B[n * kK + k];
      g.want[m * kN + n] = float(s);
    }
  return g;
}

TEST_P(Tcgen05Kernel, Bf16GemmThroughTensorMemory) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  GemmData g = make_gemm(seed);
  const uint64_t a = h.upload(g.a, "A"), bt = h.upload(g.bt, "Bt"), d = h.alloc_n<float>(kM * kN, "D");
  RunResult r = h.launch("tc5_gemm_bf16", {1, 1, 1}, {128, 1, 1}, h.params("tc5_gemm_bf16", a, bt, d), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_TRUE(compare_float_bits("D", h.download<float>(d, kM * kN), g.want));
}

TEST_P(Tcgen05Kernel, Bf16GemmOverACtaPair) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  // D[2kM x kN] = A[2kM x kK] * Bt^T, exact small integers as above.
  std::mt19937_64 rng(seed);
  auto bf16 = [](int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); };
  std::vector<int> A(2 * kM * kK), B(kN * kK);
  for (int& x : A) x = int(rng() % 17) - 8;
  for (int& x : B) x = int(rng() % 17) - 8;
  std::vector<uint16_t> a, bt;
  for (int x : A) a.push_back(bf16(x));
  for (int x : B) bt.push_back(bf16(x));
  std::vector<float> want(2 * kM * kN);
  for (int m = 0; m < 2 * kM; ++m)
    for (int n = 0; n < kN; ++n) {
      double s = 0;
      for (int k = 0; k < kK; ++k) s += double(A[m * kK + k]) * B[n * kK + k];
      want[m * kN + n] = float(s);
    }
  const uint64_t ga = h.upload(a, "A"), gbt = h.upload(bt, "Bt"), gd = h.alloc_n<float>(2 * kM * kN, "D");
  const uint64_t flag = h.upload(std::vector<uint32_t>{0}, "flag");
  LaunchConfig cfg;
  cfg.grid = {2, 1, 1};
  cfg.block = {128, 1, 1};
  cfg.cluster = {2, 1, 1};
  cfg.cluster_given = true;
  cfg.schedule_seed = seed;
  const std::string k = h.kernel_named("tc5_pair_gemm_bf16");
  std::ostringstream out;
  RunResult r = ptxsim::launch(h.program(), k, cfg, h.params(k, ga, gbt, gd, flag), h.memory(), &out);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_TRUE(compare_float_bits("D", h.download<float>(gd, 2 * kM * kN), want));
}

TEST_P(Tcgen05Kernel, ReadingDBeforeTheMbarrierWaitIsReported) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  GemmData g = make_gemm(seed);
  const uint64_t a = h.upload(g.a, "A"), bt = h.upload(g.bt, "Bt"), d = h.alloc_n<float>(kM * kN, "D");
  RunResult r = h.launch("tc5_read_before_wait", {1, 1, 1}, {128, 1, 1},
                         h.params("tc5_read_before_wait", a, bt, d), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(has_warning(r, "tcgen05 hazard: tcgen05.ld reads TMEM lanes 0..31, columns 0..15, the D of the tcgen05.mma at line"))
      << describe(r);
  EXPECT_TRUE(has_warning(r, "which has not completed: wait on the mbarrier its tcgen05.commit arrives on before reading D"))
      << describe(r);
}

// The 1-based numbers of the lines containing `needle` in the body of entry `entry` of the PTX text
// nvcc produced for `name`.
std::vector<uint32_t> ptx_lines_in_entry(const std::string& name, const std::string& arch, const std::string& entry,
                                         const std::string& needle) {
  std::ifstream in(ptx_path(name, arch));
  std::string line;
  std::vector<uint32_t> found;
  bool inside = false;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find(".entry ") != std::string::npos) inside = line.find(".entry " + entry + "(") != std::string::npos;
    else if (inside && line.find(needle) != std::string::npos) found.push_back(n);
  }
  return found;
}

TEST_P(Tcgen05Kernel, ReadingDOfAnUncommittedMmaIsReported) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  GemmData g = make_gemm(seed);
  const uint64_t a = h.upload(g.a, "A"), bt = h.upload(g.bt, "Bt"), d = h.alloc_n<float>(kM * kN, "D");
  RunResult r = h.launch("tc5_missing_commit", {1, 1, 1}, {128, 1, 1}, h.params("tc5_missing_commit", a, bt, d), 0,
                         nullptr, seed);
  // Four MMAs (K = 16 each) into one D, then four tcgen05.ld per warp, columns 16j..16j+15, then the
  // dealloc of D, which no commit ordered after the MMAs: a fault (first in the list).
  const auto mma_lines = ptx_lines_in_entry("tcgen05", GetParam(), "tc5_missing_commit", "tcgen05.mma");
  const auto ld_lines = ptx_lines_in_entry("tcgen05", GetParam(), "tc5_missing_commit", "tcgen05.ld");
  const auto dealloc_lines = ptx_lines_in_entry("tcgen05", GetParam(), "tc5_missing_commit", "tcgen05.dealloc");
  ASSERT_EQ(mma_lines.size(), 4u);
  ASSERT_EQ(ld_lines.size(), 4u);
  ASSERT_EQ(dealloc_lines.size(), 1u);
  ASSERT_EQ(r.status, RunStatus::Fault) << describe(r);
  ASSERT_EQ(r.diagnostics.size(), 5u) << describe(r);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Error);
  EXPECT_EQ(r.diagnostics[0].loc.line, dealloc_lines[0]);
  EXPECT_EQ(r.diagnostics[0].message, "tcgen05.dealloc: columns [0, 64) include the D of the tcgen05.mma at line " +
                                          std::to_string(mma_lines[0]) +
                                          " (TMEM lanes 0..127, columns 0..63), which no tcgen05.commit covers: commit "
                                          "it to an mbarrier and wait on that before freeing them [CTA (0,0,0) warp 0 "
                                          "lanes 0xffffffff]");
  // One warning per tcgen05.ld (ptxsim reports each instruction once, for the first warp that
  // executes it), naming the first MMA whose D it overlaps.
  for (size_t j = 0; j < 4; ++j) {
    const Diagnostic& dg = r.diagnostics[j + 1];
    SCOPED_TRACE(dg.format());
    EXPECT_EQ(dg.severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(dg.loc.line, ld_lines[j]);
    bool matched = false;
    for (int w = 0; w < 4; ++w)
      matched |= dg.message == "tcgen05 hazard: tcgen05.ld reads TMEM lanes " + std::to_string(32 * w) + ".." +
                                   std::to_string(32 * w + 31) + ", columns " + std::to_string(16 * j) + ".." +
                                   std::to_string(16 * j + 15) + ", the D of the tcgen05.mma at line " +
                                   std::to_string(mma_lines[0]) +
                                   ", which no tcgen05.commit covers: commit it to an mbarrier and wait on that before "
                                   "reading D";
    EXPECT_TRUE(matched) << dg.message;
  }
}

TEST_P(Tcgen05Kernel, AllocAfterRelinquishIsAFault) {
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  const uint64_t out = h.alloc_n<uint32_t>(32);
  RunResult r = h.launch("tc5_alloc_after_relinquish", {1, 1, 1}, {32, 1, 1}, h.params("tc5_alloc_after_relinquish", out));
  ASSERT_EQ(r.status, RunStatus::Fault) << describe(r);
  const Diagnostic* e = first_error(r);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("tcgen05.alloc: alloc after tcgen05.relinquish_alloc_permit"), std::string::npos) << e->message;
  EXPECT_NE(e->source_line.find("tcgen05.alloc"), std::string::npos) << e->source_line;
}

TEST_P(Tcgen05Kernel, LeakAtExitIsAFault) {
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  const uint64_t out = h.alloc_n<uint32_t>(32);
  RunResult r = h.launch("tc5_leak", {2, 1, 1}, {32, 1, 1}, h.params("tc5_leak", out));
  ASSERT_EQ(r.status, RunStatus::Fault) << describe(r);
  const Diagnostic* e = first_error(r);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("CTA (0,0,0) exits with Tensor Memory still allocated: columns [0, 128) from the tcgen05.alloc at line"),
            std::string::npos)
      << e->message;
}

TEST_P(Tcgen05Kernel, WrongWarpTouchingALaneQuarterIsAFault) {
  KTEST_LOAD(h, "tcgen05");
  if (!sm100()) return;
  const uint64_t out = h.alloc_n<uint32_t>(64);
  RunResult r = h.launch("tc5_wrong_quarter", {1, 1, 1}, {64, 1, 1}, h.params("tc5_wrong_quarter", out));
  ASSERT_EQ(r.status, RunStatus::Fault) << describe(r);
  const Diagnostic* e = first_error(r);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("tcgen05.ld: warp 1 (warp 1 of its warpgroup) may access only TMEM lanes 32..63"), std::string::npos)
      << e->message;
  EXPECT_NE(e->source_line.find("tcgen05.ld"), std::string::npos) << e->source_line;
}

}  // namespace

KTEST_INSTANTIATE(Tcgen05Kernel);

}  // namespace ptxsim::ktest
