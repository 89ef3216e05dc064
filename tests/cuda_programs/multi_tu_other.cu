// The second translation unit of multi_tu_main.cu.
#include <cuda_runtime.h>

#include "check.h"

__constant__ int offset_b[4];
__device__ int result_b[4];
__global__ void add_b() { result_b[threadIdx.x] = 2 * offset_b[threadIdx.x] + int(threadIdx.x); }

void run_b(const int* offsets, int* results) {
  CHECK(cudaMemcpyToSymbol(offset_b, offsets, 4 * sizeof(int)));
  add_b<<<1, 4>>>();
  CHECK(cudaMemcpyFromSymbol(results, result_b, 4 * sizeof(int)));
}
