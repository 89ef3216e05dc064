// racecheck_tc.cu under --racecheck: the asynchronous operand reads of wgmma.mma_async and
// tcgen05.mma, and Tensor Memory. Each planted race is reported with both accesses; each race-free
// twin stays silent and computes the right result (an exact integer reference, seed printed).
#include <bit>
#include <regex>

#include "sim/exec/program.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using RacecheckTcTest = KernelTest;

std::vector<std::string> races(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::Warning && d.message.rfind("race (", 0) == 0) out.push_back(d.message);
  return out;
}
std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (auto& m : v) s += "  " + m + "\n";
  return s;
}
bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }
// "file:N" of the program for the first PTX line containing `text`.
std::string line_of(const Harness& h, const std::string& text) {
  const std::string& src = h.program().source;
  size_t line = 1, pos = 0;
  while (pos < src.size()) {
    const size_t end = src.find('\n', pos);
    const std::string l = src.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (l.find(text) != std::string::npos) return h.program().file_name + ":" + std::to_string(line);
    if (end == std::string::npos) break;
    pos = end + 1;
    ++line;
  }
  return "(no line with " + text + ")";
}

uint16_t bf16(int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); }

// A (m x k) and Bt (n x k) of small integers in bf16, and the exact product.
struct Gemm {
  std::vector<uint16_t> a, bt;
  std::vector<float> want;
};
Gemm make_gemm(uint64_t seed, int m, int n, int k) {
  std::mt19937_64 rng(seed);
  Gemm g;
  std::vector<int> A(size_t(m * k)), B(size_t(n * k));
  for (int& x : A) x = int(rng() % 17) - 8;
  for (int& x : B) x = int(rng() % 17) - 8;
  for (int x : A) g.a.push_back(bf16(x));
  for (int x : B) g.bt.push_back(bf16(x));
  g.want.assign(size_t(m * n), 0.f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int s = 0;
      for (int q = 0; q < k; ++q) s += A[size_t(i * k + q)] * B[size_t(j * k + q)];
      g.want[size_t(i * n + j)] = float(s);
    }
  return g;
}

TEST_P(RacecheckTcTest, WgmmaOperandsOverwrittenBeforeWaitGroup) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "racecheck_tc");
  if (GetParam() != "sm_90a") return;
  h.racecheck = true;
  const Gemm g = make_gemm(seed, 64, 64, 32);
  for (int racy : {0, 1, 2}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t da = h.upload(g.a), db = h.upload(g.bt), dc = h.alloc_n<float>(64 * 64);
    const std::string k = h.kernel_named("race_wgmma_stage");
    RunResult r = h.launch(k, {1}, {128}, h.params(k, da, db, dc, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    const auto v = races(r);
    // ptxsim reads the operands at issue, so even the racy kernels compute the product.
    EXPECT_EQ(h.download<float>(dc, 64 * 64), g.want);
    if (racy == 0) {
      EXPECT_TRUE(v.empty()) << list(v);
      continue;
    }
    const std::string wgmma = "wgmma.mma_async (issued at " + line_of(h, "wgmma.mma_async") + ")";
    if (racy == 1) {
      // The second step's stores of A and B (the first warp the schedule runs after the barrier
      // reports them): each a write not ordered after the first wgmma's read.
      ASSERT_EQ(v.size(), 2u) << list(v);
      for (const auto& m : v) {
        EXPECT_TRUE(has(m, "race (WAR) on shared memory of CTA (0,0,0) at offset 0x")) << m;
        EXPECT_TRUE(has(m, "is not ordered after the read by " + wgmma)) << m;
        EXPECT_TRUE(std::regex_search(m, std::regex(": write by thread [0-9]+ \\(warp [0-3], lane 0\\) of CTA rank 0 at "))) << m;
      }
      const std::string stores = h.program().file_name + ":";
      EXPECT_NE(v[0].substr(v[0].find(" at " + stores)), v[1].substr(v[1].find(" at " + stores))) << list(v);
    } else {
      ASSERT_GE(v.size(), 1u) << list(v);
      for (const auto& m : v) {
        EXPECT_TRUE(has(m, "race (RAW, async proxy) on shared memory of CTA (0,0,0)")) << m;
        EXPECT_TRUE(has(m, "wgmma.mma_async operand")) << m;
        EXPECT_TRUE(has(m, "is not followed by fence.proxy.async")) << m;
      }
    }
  }
}

TEST_P(RacecheckTcTest, TensorMemoryStoreThenLoadByAnotherWarp) {
  KTEST_LOAD(h, "racecheck_tc");
  if (GetParam() != "sm_100a") return;
  h.racecheck = true;
  for (int racy : {0, 1}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t dout = h.alloc_n<uint32_t>(32);
    const std::string k = h.kernel_named("race_tmem_st_ld");
    RunResult r = h.launch(k, {1}, {256}, h.params(k, dout, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    const auto v = races(r);
    if (!racy) {
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<uint32_t>(dout, 32);
      for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], l * 3 + 1) << l;
      continue;
    }
    // Warp 0 runs first: warp 4's load of lane 0 is the first access not ordered after the store.
    ASSERT_EQ(v.size(), 1u) << list(v);
    EXPECT_EQ(v[0], "race (RAW) on tensor memory of CTA (0,0,0) at lane 0, column 0: read by thread 128 (warp 4, lane 0) "
                    "of CTA rank 0 at " + line_of(h, "tcgen05.ld.sync.aligned.32x32b.x1.b32") +
                    " is not ordered after the write by thread 0 (warp 0, lane 0) of CTA rank 0 at " +
                    line_of(h, "tcgen05.st.sync.aligned.32x32b.x1.b32"));
  }
}

TEST_P(RacecheckTcTest, Tcgen05MmaOperandsAndAccumulator) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "racecheck_tc");
  if (GetParam() != "sm_100a") return;
  h.racecheck = true;
  const Gemm g = make_gemm(seed, 128, 32, 16);
  for (int racy : {0, 1, 2}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t da = h.upload(g.a), db = h.upload(g.bt), dd = h.alloc_n<float>(128 * 32);
    const std::string k = h.kernel_named("race_tc5_mma");
    RunResult r = h.launch(k, {1}, {128}, h.params(k, da, db, dd, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    const auto v = races(r);
    const std::string mma = "tcgen05.mma.cta_group::1.kind::f16 (line ";
    if (racy == 0) {
      EXPECT_TRUE(v.empty()) << list(v);
      EXPECT_EQ(h.download<float>(dd, 128 * 32), g.want);
    } else if (racy == 1) {
      // Warp 1's store into B: a write not ordered after the MMA's read (before the mbarrier wait).
      ASSERT_EQ(v.size(), 1u) << list(v);
      EXPECT_TRUE(has(v[0], "race (WAR) on shared memory of CTA (0,0,0) at offset 0x")) << v[0];
      EXPECT_TRUE(has(v[0], "write by thread 32 (warp 1, lane 0) of CTA rank 0 at ")) << v[0];
      EXPECT_TRUE(has(v[0], "is not ordered after the read by " + mma)) << v[0];
    } else {
      // Warps 1-3 load D without waiting: each of their loads (four, one per 8 columns) is not
      // ordered with the MMA's write of D: RAW where the MMA was issued first, WAR where the load
      // ran first (the schedule after the barrier decides). Warp 0 waited: never named.
      ASSERT_GE(v.size(), 1u) << list(v);
      const std::string ld = "\\(warp [1-3], lane 0\\) of CTA rank 0 at [^ ]+:[0-9]+";
      const std::string op = "tcgen05\\.mma\\.cta_group::1\\.kind::f16 \\(line [0-9]+\\) \\(issued at [^ ]+\\)";
      const std::regex raw("race \\(RAW\\) on tensor memory of CTA \\(0,0,0\\) at lane (32|64|96), column (0|8|16|24): read by "
                           "thread (32|64|96) " + ld + " is not ordered after the write by " + op);
      const std::regex war("race \\(WAR\\) on tensor memory of CTA \\(0,0,0\\) at lane (32|64|96), column (0|8|16|24): write by " +
                           op + " is not ordered after the read by thread (32|64|96) " + ld);
      for (const auto& m : v) EXPECT_TRUE(std::regex_match(m, raw) || std::regex_match(m, war)) << m;
    }
  }
}

}  // namespace

KTEST_INSTANTIATE(RacecheckTcTest);

}  // namespace ptxsim::ktest
