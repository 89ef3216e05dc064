// printf.cu and assert.cu: device printf captured through launch's printf stream, and device-side
// assert() faulting the launch with CUDA's message.
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using PrintfTest = KernelTest;
using AssertTest = KernelTest;

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string l;
  while (std::getline(is, l)) out.push_back(l);
  return out;
}

template <class... A>
std::string format(const char* fmt, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, a...);
  return buf;
}

TEST_P(PrintfTest, EveryThread) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "printf");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 2, block = 96;
  std::vector<int> in(grid * block);
  for (auto& x : in) x = int(uint32_t(rng())) >> std::uniform_int_distribution<int>(0, 31)(rng);
  uint64_t d_in = h.upload(in);
  std::ostringstream out;
  RunResult r = h.launch("printf_all", {grid}, {block}, h.params("printf_all", d_in), 0, &out, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<std::string> got = lines_of(out.str());
  ASSERT_EQ(out.str().empty() ? '\n' : out.str().back(), '\n') << "output does not end with a newline";
  std::vector<std::string> want;
  for (size_t i = 0; i < in.size(); ++i) want.push_back(format("tid %d value %d", int(i), in[i]));
  // Each warp prints its 32 lanes together, in lane order; the order of the warps is not fixed.
  ASSERT_EQ(got.size(), want.size()) << "output:\n" << out.str();
  for (size_t k = 0; k < got.size(); k += 32) {
    int tid = -1;
    std::sscanf(got[k].c_str(), "tid %d", &tid);
    ASSERT_TRUE(tid >= 0 && tid % 32 == 0 && size_t(tid) < want.size())
        << "line " << k << " should start a warp's group: " << got[k] << "\noutput:\n" << out.str();
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(got[k + l], want[tid + l]) << "line " << k + l << " (lane " << l << " of the warp starting at tid "
                                           << tid << ")";
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST_P(PrintfTest, DivergentSubset) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "printf");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 3, block = 64;
  std::vector<unsigned> in(grid * block);
  for (auto& x : in) x = uint32_t(rng());
  uint64_t d_in = h.upload(in);
  std::ostringstream out;
  RunResult r = h.launch("printf_divergent", {grid}, {block}, h.params("printf_divergent", d_in), 0, &out, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<std::string> got = lines_of(out.str()), want;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] & 1)
      want.push_back(format("block %d warp %d lane %d odd %u hex %08x", int(i / block), int(i % block / 32),
                            int(i % 32), in[i], in[i]));
  // Within one warp the lines come in lane order.
  std::map<std::pair<int, int>, int> last_lane;
  for (auto& l : got) {
    int b = -1, w = -1, lane = -1;
    std::sscanf(l.c_str(), "block %d warp %d lane %d", &b, &w, &lane);
    auto it = last_lane.find({b, w});
    if (it != last_lane.end()) {
      EXPECT_LT(it->second, lane) << "lines of block " << b << " warp " << w << " out of lane order";
    }
    last_lane[{b, w}] = lane;
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want) << "output:\n" << out.str();
}

TEST_P(PrintfTest, Formats) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "printf");
  std::mt19937_64 rng(seed);
  int a = int(uint32_t(rng())) >> 12;
  unsigned b = uint32_t(rng());
  long long c = int64_t(rng());
  unsigned long long d = rng();
  double e = std::uniform_real_distribution<double>(-1e4, 1e4)(rng);
  const char* text = "hello, device";
  char ch = char('a' + rng() % 26);
  std::vector<char> s(text, text + std::strlen(text) + 1);
  uint64_t d_s = h.upload(s);
  std::ostringstream out;
  RunResult r = h.launch("printf_formats", {2}, {64}, h.params("printf_formats", a, b, c, d, e, d_s, ch), 0, &out, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::string want = format("int %d|%5d|%-5d|%+d unsigned %u hex %x %X %#x\n", a, a, a, a, b, b, b, b) +
                     format("long %lld ulong %llu hex %llx\n", c, d, d) +
                     format("double %f %.3f %e %g %10.2f\n", e, e, e, e, e) +
                     format("string [%s] [%10s] char %c percent %%\n", text, text, ch);
  EXPECT_EQ(out.str(), want);
}

TEST_P(AssertTest, PassingAssertCompletes) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "assert");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 4, block = 128;
  int n = int(grid * block) - 9;
  std::vector<int> in(n), want(n);
  for (int i = 0; i < n; ++i) {
    in[i] = -std::uniform_int_distribution<int>(1, 1 << 30)(rng);
    want[i] = -in[i];
  }
  uint64_t d_in = h.upload(in), d_out = h.alloc_n<int>(n);
  RunResult r = h.launch("check_negative", {grid}, {block}, h.params("check_negative", d_in, d_out, n), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(compare_exact("out", h.download<int>(d_out, n), want));
}

TEST_P(AssertTest, FailingAssertFaultsWithCudaMessage) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "assert");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 4, block = 128;
  int n = int(grid * block) - 9;
  std::vector<int> in(n);
  for (auto& x : in) x = -std::uniform_int_distribution<int>(1, 1 << 30)(rng);
  int bad = std::uniform_int_distribution<int>(0, n - 1)(rng);
  in[bad] = std::uniform_int_distribution<int>(0, 1000)(rng);
  uint64_t d_in = h.upload(in), d_out = h.alloc_n<int>(n);
  RunResult r = h.launch("check_negative", {grid}, {block}, h.params("check_negative", d_in, d_out, n), 0, nullptr, seed);
  ASSERT_EQ(r.status, RunStatus::Fault) << describe(r);
  uint32_t line = source_line_containing("assert.cu", "assert(x < 0);");
  ASSERT_NE(line, 0u);
  std::string want = source_path("assert.cu") + ":" + std::to_string(line) +
                     ": void check_negative(const int *, int *, int): block: [" + std::to_string(bad / int(block)) +
                     ",0,0], thread: [" + std::to_string(bad % int(block)) + ",0,0] Assertion `x < 0` failed.";
  EXPECT_NE(r.report.find("Assertion `x < 0` failed."), std::string::npos) << r.report;
  EXPECT_NE(r.report.find(want), std::string::npos) << "expected the report to contain\n  " << want << "\nreport:\n"
                                                    << r.report;
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics.front().message.find(want), std::string::npos) << r.diagnostics.front().format();
}

KTEST_INSTANTIATE(PrintfTest);
KTEST_INSTANTIATE(AssertTest);

}  // namespace
}  // namespace ptxsim::ktest
