// Built with SASS only (code=sm_90a): the simulator has no PTX to run, so the launch fails with
// cudaErrorNoKernelImageForDevice and ptxsim says how to rebuild.
#include <cuda_runtime.h>

#include "check.h"

__global__ void store_one(int* p) { *p = 1; }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, sizeof(int)));
  store_one<<<1, 1>>>(d);
  cudaError_t e = cudaGetLastError();
  std::printf("launch: %s\n", cudaGetErrorName(e));
  return e == cudaErrorNoKernelImageForDevice ? 0 : 1;
}
