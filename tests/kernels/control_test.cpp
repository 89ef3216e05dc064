// control.cu: data-dependent loops with continue/break and a Collatz while loop, and a nested
// if/else ladder with a non-inlined call and a switch, against the same code run on the host.
#include <climits>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using ControlTest = KernelTest;

TEST_P(ControlTest, DivergentLoop) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "control");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 4, block = 256;
  int n = int(grid * block) - std::uniform_int_distribution<int>(1, 60)(rng);
  std::vector<unsigned> trips(n), data(n);
  for (auto& t : trips) t = uint32_t(rng());
  for (auto& d : data) d = uint32_t(rng());
  uint64_t d_t = h.upload(trips), d_d = h.upload(data), d_out = h.alloc_n<unsigned>(n), d_steps = h.alloc_n<unsigned>(n);
  RunResult r = h.launch("divergent_loop", {grid}, {block}, h.params("divergent_loop", d_t, d_d, d_out, d_steps, n), 0,
                         nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<unsigned> want(n), want_steps(n);
  for (int i = 0; i < n; ++i) {
    unsigned t = trips[i] % 48u, acc = 0, k = 0;
    for (; k < t; ++k) {
      unsigned v = data[(unsigned(i) + k * 7u) % unsigned(n)];
      if (v % 5u == 0) continue;
      if (v % 11u == 0 && k > 2) break;
      acc = acc * 3u + (v ^ k);
    }
    want[i] = acc;
    unsigned x = (data[i] & 0x3ffu) + 1u, s = 0;
    while (x != 1u && s < 200u) {
      x = (x & 1u) ? 3u * x + 1u : x >> 1;
      ++s;
    }
    want_steps[i] = s * 64u + k;
  }
  EXPECT_TRUE(compare_exact("loop accumulators", h.download<unsigned>(d_out, n), want));
  EXPECT_TRUE(compare_exact("collatz steps * 64 + loop exit k", h.download<unsigned>(d_steps, n), want_steps));
}

int ladder_helper(int x, const std::vector<int>& table) {
  if (x & 1) return table[x & 15] - x;
  return table[(x >> 4) & 15] + x;
}

int ladder(int x, const std::vector<int>& table) {
  int r;
  if (x < -1000000) {
    r = table[(-(x + 1)) & 15] * 2;
  } else if (x < 0) {
    if (x & 1) r = -x;
    else if (x & 2) r = x + table[3];
    else r = ladder_helper(x, table);
  } else if (x == 0) {
    r = 42;
  } else if (x < 100) {
    r = x * x;
    for (int j = 0; j < (x & 7); ++j) r += table[j];
  } else if (x < 1000000) {
    r = x / 3;
    if (r & 4) r ^= 0x55;
    else r = ladder_helper(r, table);
  } else {
    r = x - 1000000;
  }
  switch (x & 7) {
    case 0: r += 1; break;
    case 1: r -= table[1]; break;
    case 2: r ^= 0x1234; break;
    case 3: r = int(unsigned(r) * 5u); break;
    case 5: r = r >> 3; break;
    case 6: r = ~r; break;
    default: break;
  }
  return r;
}

TEST_P(ControlTest, IfElseLadder) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "control");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 8, block = 128;
  int n = int(grid * block) - 5;
  std::vector<int> table(16), in(n);
  for (auto& t : table) t = std::uniform_int_distribution<int>(-1000, 1000)(rng);
  const std::pair<int, int> ranges[] = {{INT_MIN, -1000001}, {-1000000, -1}, {0, 0},
                                        {1, 99},           {100, 999999}, {1000000, INT_MAX}};
  for (auto& x : in) {
    auto [lo, hi] = ranges[std::uniform_int_distribution<int>(0, 5)(rng)];
    x = std::uniform_int_distribution<int>(lo, hi)(rng);
  }
  uint64_t d_in = h.upload(in), d_tab = h.upload(table), d_out = h.alloc_n<int>(n);
  RunResult r = h.launch("if_ladder", {grid}, {block}, h.params("if_ladder", d_in, d_tab, d_out, n), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = ladder(in[i], table);
  EXPECT_TRUE(compare_exact("if_ladder", h.download<int>(d_out, n), want));
}

KTEST_INSTANTIATE(ControlTest);

}  // namespace
}  // namespace ptxsim::ktest
