// Device printf from a kernel that then faults: what the threads printed before the fault still
// reaches stdout, and the fault surfaces as cudaErrorIllegalAddress with ptxsim's report.
#include <cuda_runtime.h>

#include "check.h"

__global__ void print_then_overrun(int* p, int n) {
  printf("block %d thread %d: value %d\n", blockIdx.x, threadIdx.x, p[threadIdx.x]);
  __syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 7) p[n] = -1;  // one element past the end of p
}

int main() {
  int host[32];
  for (int i = 0; i < 32; ++i) host[i] = 1000 + i;
  int* d;
  CHECK(cudaMalloc(&d, sizeof host));
  CHECK(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));
  print_then_overrun<<<2, 32>>>(d, 32);
  cudaError_t e = cudaDeviceSynchronize();
  std::fflush(stdout);
  std::fprintf(stderr, "cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
  return e == cudaErrorIllegalAddress ? 5 : 1;
}
