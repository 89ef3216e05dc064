// Device-side assert(): completes when every input is negative, faults with CUDA's message
// otherwise.
#include <cassert>

extern "C" __global__ void check_negative(const int* __restrict__ in, int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  assert(x < 0);
  out[i] = -x;
}
