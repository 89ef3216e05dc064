// A runtime function ptxsim does not implement returns cudaErrorNotSupported, says so on stderr
// once, and leaves the error for cudaGetLastError; the program carries on.
#include <cuda_runtime.h>

#include "check.h"

__global__ void touch(int* p) { *p = 7; }

int main() {
  int* managed = nullptr;
  cudaError_t e = cudaMallocManaged(&managed, 64);
  std::printf("cudaMallocManaged: %s\n", cudaGetErrorName(e));
  EXPECT(e == cudaErrorNotSupported);
  EXPECT(cudaGetLastError() == cudaErrorNotSupported);
  EXPECT(cudaGetLastError() == cudaSuccess);
  int* d;
  int h = 0;
  CHECK(cudaMalloc(&d, sizeof(int)));
  touch<<<1, 1>>>(d);
  CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT(h == 7);
  std::printf("unsupported: PASS\n");
  return 0;
}
