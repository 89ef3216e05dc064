// One thread writes just past the end of its buffer: the launch surfaces as
// cudaErrorIllegalAddress, and ptxsim names the address, the allocation and the PTX line.
#include <cuda_runtime.h>

#include "check.h"

__global__ void fill(int* p, int n) { p[threadIdx.x + n] = 1; }  // n = 60: threads 4..63 overrun

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  fill<<<1, 64>>>(d, 60);
  cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
  EXPECT(cudaMemcpy(d, d, 4, cudaMemcpyDeviceToDevice) == cudaErrorIllegalAddress);  // sticky
  EXPECT(cudaDeviceReset() == cudaSuccess);  // ... until the device is reset
  CHECK(cudaMemset(d, 0, 4));
  return e == cudaErrorIllegalAddress ? 4 : 1;
}
