// A grid-wide barrier (cooperative_groups grid sync) is not simulated: the cooperative launch
// returns cudaErrorNotSupported with an explanation instead of hanging or trapping.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "check.h"

namespace cg = cooperative_groups;

__global__ void count_then_publish(int* p) {
  cg::grid_group grid = cg::this_grid();
  atomicAdd(p, 1);
  grid.sync();
  if (grid.thread_rank() == 0) p[1] = p[0];
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 2 * sizeof(int)));
  void* args[] = {&d};
  cudaError_t e = cudaLaunchCooperativeKernel((void*)count_then_publish, 4, 64, args, 0, nullptr);
  std::printf("cudaLaunchCooperativeKernel: %s\n", cudaGetErrorName(e));
  CHECK(cudaDeviceSynchronize());  // not sticky: the device is still usable
  return e == cudaErrorNotSupported ? 0 : 1;
}
