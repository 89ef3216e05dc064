// A device assert that fails in one thread: the launch surfaces as cudaErrorAssert, the error is
// sticky (later calls keep returning it), and the assertion's text reaches stderr.
#include <cuda_runtime.h>

#include <cassert>

#include "check.h"

__global__ void check_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const int n = 256;
  int h[n];
  for (int& x : h) x = 1 + int(rng() % 100);
  const int bad = int(rng() % n);
  h[bad] = -7;
  std::printf("element %d is negative\n", bad);
  int* d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  check_positive<<<2, 128>>>(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
  void* p = nullptr;
  cudaError_t again = cudaMalloc(&p, 16);  // sticky: the context is unusable now
  std::fprintf(stderr, "cudaMalloc after the assert: %s\n", cudaGetErrorName(again));
  return e == cudaErrorAssert && again == cudaErrorAssert ? 3 : 1;
}
