// An mbarrier that expects two arrivals and gets one: every thread waits forever. ptxsim reports
// the deadlock and the launch surfaces as cudaErrorLaunchTimeout.
#include <cuda_runtime.h>

#include <cstdint>

#include "check.h"

__global__ void wait_forever(int* out) {
  __shared__ uint64_t bar;
  uint32_t addr = uint32_t(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(addr));
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(addr));
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      " @!done bra wait_%=;\n}" ::"r"(addr));
  out[threadIdx.x] = 1;
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  wait_forever<<<1, 64>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
  return e == cudaErrorLaunchTimeout ? 2 : 1;
}
