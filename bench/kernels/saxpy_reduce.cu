// Benchmark kernels (ptxsim bench "saxpy_reduce"): y = a * x + y, then a shared-memory block
// reduction of y to one partial sum per CTA. Both are written so that the CPU can replay their
// exact floating-point order (tools/ptxsim/bench_suite.cpp checks the results bit for bit):
//   saxpy:     y[i] = fma(a, x[i], y[i])  (nvcc contracts a * x + y into fma.rn.f32)
//   block_sum: thread t of CTA b adds y[b * 256 + t + k * gridDim.x * 256] for k = 0, 1, ... in
//              order; then a tree in shared memory (s[t] += s[t + h] for h = 128 .. 32, with
//              __syncthreads), then the first warp finishes with shfl.down (h = 16 .. 1).
// Block size: 256 threads for both kernels.
#include <cstdint>

constexpr int kBlock = 256;

extern "C" __global__ void __launch_bounds__(kBlock) saxpy(int n, float a, const float* __restrict__ x,
                                                           float* __restrict__ y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void __launch_bounds__(kBlock) block_sum(int n, const float* __restrict__ y,
                                                               float* __restrict__ partial) {
  __shared__ float s[kBlock];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * kBlock + t; i < n; i += gridDim.x * kBlock) acc += y[i];
  s[t] = acc;
  __syncthreads();
  for (int h = kBlock / 2; h >= 32; h /= 2) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t < 32) {
    float v = s[t];
    for (int h = 16; h >= 1; h /= 2) v += __shfl_down_sync(0xffffffffu, v, h);
    if (t == 0) partial[blockIdx.x] = v;
  }
}
