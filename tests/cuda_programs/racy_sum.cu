// A block of two warps swaps halves through shared memory and prints a checksum. With
// RACY_SUM=racy in the environment the __syncthreads between the writes and the reads is left out, so the checksum depends on
// how the warps interleave: `ptxsim exec --explore` lists the schedules that print another one, and
// the race-free version has none (tests/cuda_programs/CMakeLists.txt).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "check.h"

__global__ void swap_halves(const int* in, int* out, int racy) {
  __shared__ int buf[64];
  buf[threadIdx.x] = in[threadIdx.x] * 2;
  if (!racy) __syncthreads();
  out[threadIdx.x] = buf[63 - threadIdx.x];
}

int main() {
  const char* mode = std::getenv("RACY_SUM");
  const int racy = mode && std::strcmp(mode, "racy") == 0;
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i + 1;
  int *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, sizeof h));
  swap_halves<<<1, 64>>>(in, out, racy);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  unsigned long long sum = 0;  // position-weighted: a swapped half changes it
  for (int i = 0; i < 64; ++i) sum = sum * 31 + unsigned(h[i]);
  std::printf("racy_sum: checksum %llu\n", sum);
  return 0;
}
