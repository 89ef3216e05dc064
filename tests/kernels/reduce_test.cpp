// reduce.cu: block sums (shared-memory tree + __shfl_down_sync) and warp reductions (__shfl_xor_sync,
// __shfl_down_sync + __shfl_sync broadcast), compared bit for bit against host code that performs
// the kernel's additions in the kernel's order (see the comment at the top of reduce.cu).
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using ReduceTest = KernelTest;

// Random floats of widely varying magnitude and both signs, so that the order of additions
// changes the rounded result.
std::vector<float> random_floats(std::mt19937_64& rng, size_t n) {
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-12, 12), sign(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = std::ldexp(mant(rng), ex(rng)) * (sign(rng) ? -1.0f : 1.0f);
  return v;
}

template <class T>
std::vector<T> ref_block_sum(const std::vector<T>& in, uint32_t grid, uint32_t block) {
  std::vector<T> out(grid);
  size_t n = in.size();
  for (uint32_t b = 0; b < grid; ++b) {
    std::vector<T> s(block);
    for (uint32_t t = 0; t < block; ++t) {
      T acc = 0;
      for (size_t i = size_t(b) * block + t; i < n; i += size_t(grid) * block) acc += in[i];
      s[t] = acc;
    }
    for (uint32_t sz = block / 2; sz > 32; sz >>= 1)
      for (uint32_t t = 0; t < sz; ++t) s[t] = s[t] + s[t + sz];
    std::array<T, 32> v;
    for (int l = 0; l < 32; ++l) v[l] = s[l] + s[l + 32];
    for (int off = 16; off > 0; off >>= 1) {
      std::array<T, 32> nv;
      for (int l = 0; l < 32; ++l) nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
      v = nv;
    }
    out[b] = v[0];
  }
  return out;
}

template <class T>
void run_block_sum(const char* kernel, const std::vector<T>& in, uint32_t grid, uint32_t block,
                   uint64_t seed, Harness& h) {
  int n = int(in.size());
  uint64_t d_in = h.upload(in, "in");
  uint64_t d_out = h.alloc_n<T>(grid + 8, "out");  // 8 spare elements must stay poisoned
  RunResult r = h.launch(kernel, {grid}, {block}, h.params(kernel, d_in, d_out, n), block * sizeof(T), nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<T> got = h.download<T>(d_out, grid + 8);
  std::vector<T> tail(got.begin() + grid, got.end());
  got.resize(grid);
  std::vector<T> want = ref_block_sum(in, grid, block);
  if constexpr (std::is_same_v<T, float>) EXPECT_TRUE(compare_float_bits(kernel, got, want));
  else EXPECT_TRUE(compare_exact(kernel, got, want));
  std::vector<uint8_t> tb(tail.size() * sizeof(T));
  std::memcpy(tb.data(), tail.data(), tb.size());
  EXPECT_TRUE(std::all_of(tb.begin(), tb.end(), [](uint8_t b) { return b == kPoison; }))
      << kernel << " wrote past out[gridDim.x - 1]";
}

TEST_P(ReduceTest, BlockSumInt) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "reduce");
  std::mt19937_64 rng(seed);
  // Block sizes from one warp pair (no shared-memory tree steps) to the 1024-thread maximum.
  for (auto [grid, block] : {std::pair<uint32_t, uint32_t>{6, 256}, {2, 1024}, {7, 64}}) {
    SCOPED_TRACE(std::to_string(grid) + " CTAs x " + std::to_string(block) + " threads");
    size_t n = grid * block * 3 + std::uniform_int_distribution<size_t>(0, block - 1)(rng);
    std::uniform_int_distribution<int> d(-200000, 200000);
    std::vector<int> in(n);
    for (auto& x : in) x = d(rng);
    run_block_sum("block_sum_int", in, grid, block, seed, h);
  }
}

TEST_P(ReduceTest, BlockSumFloat) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "reduce");
  std::mt19937_64 rng(seed);
  for (auto [grid, block] : {std::pair<uint32_t, uint32_t>{5, 128}, {2, 512}, {4, 64}}) {
    SCOPED_TRACE(std::to_string(grid) + " CTAs x " + std::to_string(block) + " threads");
    size_t n = grid * block * 4 + std::uniform_int_distribution<size_t>(0, block - 1)(rng);
    run_block_sum("block_sum_float", random_floats(rng, n), grid, block, seed, h);
  }
}

TEST_P(ReduceTest, WarpReduce) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "reduce");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 4, block = 128;
  int n = int(grid * block) - std::uniform_int_distribution<int>(1, 40)(rng);  // a partial last warp
  std::vector<float> fin = random_floats(rng, n);
  std::vector<int> iin(n);
  std::uniform_int_distribution<int> d(INT_MIN, INT_MAX);
  for (auto& x : iin) x = d(rng);
  uint64_t d_f = h.upload(fin), d_i = h.upload(iin);
  uint64_t d_sums = h.alloc_n<float>(n), d_max = h.alloc_n<int>(n);
  RunResult r = h.launch("warp_reduce", {grid}, {block}, h.params("warp_reduce", d_f, d_sums, d_i, d_max, n), 0,
                         nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<float> want_sum(n);
  std::vector<int> want_max(n);
  for (int w0 = 0; w0 < n; w0 += 32) {
    std::array<float, 32> v;
    std::array<int, 32> x;
    for (int l = 0; l < 32; ++l) {
      v[l] = w0 + l < n ? fin[w0 + l] : 0.0f;
      x[l] = w0 + l < n ? iin[w0 + l] : INT_MIN;
    }
    for (int m = 1; m < 32; m <<= 1) {
      std::array<float, 32> nv;
      for (int l = 0; l < 32; ++l) nv[l] = v[l] + v[l ^ m];
      v = nv;
    }
    for (int off = 16; off > 0; off >>= 1) {
      std::array<int, 32> nx;
      for (int l = 0; l < 32; ++l) nx[l] = std::max(x[l], l + off < 32 ? x[l + off] : x[l]);
      x = nx;
    }
    for (int l = 0; l < 32 && w0 + l < n; ++l) {
      want_sum[w0 + l] = v[l];
      want_max[w0 + l] = x[0];
    }
  }
  EXPECT_TRUE(compare_float_bits("warp sums (shfl.bfly)", h.download<float>(d_sums, n), want_sum));
  EXPECT_TRUE(compare_exact("warp max (shfl.down + shfl.idx)", h.download<int>(d_max, n), want_max));
}

KTEST_INSTANTIATE(ReduceTest);

}  // namespace
}  // namespace ptxsim::ktest
