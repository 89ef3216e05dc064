// Dynamic shared memory beyond 48 KiB needs cudaFuncAttributeMaxDynamicSharedMemorySize first, and
// the attribute is bounded by the device's opt-in limit (227 KiB), as on a GPU.
#include <cuda_runtime.h>

#include <vector>

#include "check.h"

// Stages the input in shared memory and writes it back reversed.
__global__ void reverse(const unsigned* in, unsigned* out, int n) {
  extern __shared__ unsigned stage[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) stage[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = stage[n - 1 - i];
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const int n = 25000 + int(rng() % 20000);  // 100..180 KB of shared memory
  const size_t smem = n * sizeof(unsigned);
  std::vector<unsigned> in(n), out(n);
  for (unsigned& v : in) v = unsigned(rng());
  unsigned *din, *dout;
  CHECK(cudaMalloc(&din, smem));
  CHECK(cudaMalloc(&dout, smem));
  CHECK(cudaMemcpy(din, in.data(), smem, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, smem));

  reverse<<<1, 256, smem>>>(din, dout, n);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  EXPECT(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448 + 4) ==
         cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, reverse));
  EXPECT(attr.maxDynamicSharedSizeBytes == int(smem));
  reverse<<<1, 256, smem>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, smem, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(out[i] == in[n - 1 - i]);
  std::printf("dynamic_smem: PASS\n");
  return 0;
}
