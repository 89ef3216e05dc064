// Benchmark kernel (ptxsim bench "collatz_hist"): for every element x[i] (>= 1) count the Collatz
// steps to reach 1 (x -> x / 2 if even, 3x + 1 if odd; 64-bit arithmetic, the trajectories of
// 32-bit starts leave 32 bits), store the count in steps[i] and add one to
// hist[min(steps, bins - 1)] with a global atomicAdd. Data-dependent trip counts make the warps
// diverge; the histogram makes every thread contend on a few global words.
// Block 256, grid ceil(n / 256).
#include <cstdint>

extern "C" __global__ void __launch_bounds__(256)
    collatz_hist(int n, const uint32_t* __restrict__ x, uint32_t* __restrict__ steps, uint32_t* hist, int bins) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t v = x[i];
  uint32_t s = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v >> 1;
    ++s;
  }
  steps[i] = s;
  atomicAdd(&hist[s < uint32_t(bins) ? s : uint32_t(bins - 1)], 1u);
}
