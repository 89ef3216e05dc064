// scan.cu: block-wide inclusive scans (__shfl_up_sync within warps, shared memory across warps),
// compared bit for bit with host code performing the kernel's additions in the kernel's order.
#include <array>
#include <cmath>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using ScanTest = KernelTest;

template <class T>
std::array<T, 32> warp_scan(std::array<T, 32> v) {
  for (int off = 1; off < 32; off <<= 1) {
    std::array<T, 32> nv;
    for (int l = 0; l < 32; ++l) nv[l] = l >= off ? v[l] + v[l - off] : v[l];
    v = nv;
  }
  return v;
}

// Returns the per-element scan (only the first n matter) and the block totals.
template <class T>
std::pair<std::vector<T>, std::vector<T>> ref_scan(const std::vector<T>& in, uint32_t grid, uint32_t block) {
  size_t n = in.size();
  std::vector<T> out(size_t(grid) * block), totals(grid);
  uint32_t nwarps = block / 32;
  for (uint32_t b = 0; b < grid; ++b) {
    std::vector<std::array<T, 32>> v(nwarps);
    std::array<T, 32> u{};
    for (uint32_t w = 0; w < nwarps; ++w) {
      for (int l = 0; l < 32; ++l) {
        size_t i = size_t(b) * block + w * 32 + l;
        v[w][l] = i < n ? in[i] : T(0);
      }
      v[w] = warp_scan(v[w]);
    }
    for (int l = 0; l < 32; ++l) u[l] = uint32_t(l) < nwarps ? v[l][31] : T(0);
    u = warp_scan(u);
    for (uint32_t w = 0; w < nwarps; ++w)
      for (int l = 0; l < 32; ++l) out[size_t(b) * block + w * 32 + l] = w > 0 ? v[w][l] + u[w - 1] : v[w][l];
    totals[b] = out[size_t(b) * block + block - 1];
  }
  out.resize(n);
  return {out, totals};
}

template <class T>
void run_scan(const char* kernel, const std::vector<T>& in, uint32_t grid, uint32_t block, uint64_t seed, Harness& h) {
  int n = int(in.size());
  uint64_t d_in = h.upload(in), d_out = h.alloc_n<T>(n), d_tot = h.alloc_n<T>(grid);
  RunResult r = h.launch(kernel, {grid}, {block}, h.params(kernel, d_in, d_out, d_tot, n), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  auto [want, want_tot] = ref_scan(in, grid, block);
  std::vector<T> got = h.download<T>(d_out, n), got_tot = h.download<T>(d_tot, grid);
  if constexpr (std::is_same_v<T, float>) {
    EXPECT_TRUE(compare_float_bits(std::string(kernel) + " out", got, want));
    EXPECT_TRUE(compare_float_bits(std::string(kernel) + " totals", got_tot, want_tot));
  } else {
    EXPECT_TRUE(compare_exact(std::string(kernel) + " out", got, want));
    EXPECT_TRUE(compare_exact(std::string(kernel) + " totals", got_tot, want_tot));
  }
}

TEST_P(ScanTest, InclusiveScanInt) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "scan");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 6, block = 256;
  size_t n = grid * block - std::uniform_int_distribution<size_t>(0, 100)(rng);
  std::uniform_int_distribution<int> d(-1000000, 1000000);
  std::vector<int> in(n);
  for (auto& x : in) x = d(rng);
  run_scan("scan_int", in, grid, block, seed, h);
}

TEST_P(ScanTest, InclusiveScanFloat) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "scan");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 4, block = 192;  // six warps: warp 0 scans a partly empty wsum
  size_t n = grid * block - std::uniform_int_distribution<size_t>(0, 50)(rng);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-10, 10), sign(0, 1);
  std::vector<float> in(n);
  for (auto& x : in) x = std::ldexp(mant(rng), ex(rng)) * (sign(rng) ? -1.0f : 1.0f);
  run_scan("scan_float", in, grid, block, seed, h);
}

KTEST_INSTANTIATE(ScanTest);

}  // namespace
}  // namespace ptxsim::ktest
