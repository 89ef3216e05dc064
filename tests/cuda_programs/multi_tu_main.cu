// Two translation units, each with its own fat binary, __constant__ and __device__ variables and
// kernels: both modules' variables must coexist in device memory.
#include <cuda_runtime.h>

#include "check.h"

__constant__ int offset_a[4];
__device__ int result_a[4];
__global__ void add_a() { result_a[threadIdx.x] = offset_a[threadIdx.x] + int(threadIdx.x); }

void run_b(const int* offsets, int* results);  // multi_tu_other.cu

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  int oa[4], ob[4], ra[4] = {}, rb[4] = {};
  for (int i = 0; i < 4; ++i) oa[i] = int(rng() % 1000), ob[i] = int(rng() % 1000);
  CHECK(cudaMemcpyToSymbol(offset_a, oa, sizeof oa));
  run_b(ob, rb);  // loads the other module, with variables of its own
  add_a<<<1, 4>>>();
  CHECK(cudaMemcpyFromSymbol(ra, result_a, sizeof ra));
  void* pa = nullptr;
  CHECK(cudaGetSymbolAddress(&pa, offset_a));
  EXPECT(pa != nullptr);
  for (int i = 0; i < 4; ++i) {
    EXPECT(ra[i] == oa[i] + i);
    EXPECT(rb[i] == ob[i] * 2 + i);
  }
  std::printf("multi_tu: PASS\n");
  return 0;
}
