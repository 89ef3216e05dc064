// Spin-waits that end and spin-waits that cannot (spin_test.cpp): a hang must be reported as a
// deadlock naming the loop and the polled address, a correct spin-wait must complete.
#include <cstdint>

// Thread 0 waits for the flag; thread 32 sets it after a long computation (hang = 1: thread 32
// returns without setting it).
__global__ void spin_flag(volatile int* flag, int* out, int hang) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
    out[0] = *flag;
  } else if (threadIdx.x == 32) {
    if (hang) return;
    // Long enough that thread 0 is found looping first; the loop itself changes registers only.
    unsigned x = 1;
    for (int i = 0; i < 3000; ++i) x = x * 1664525u + 1013904223u;
    out[1] = int(x);
    *flag = 7;
  }
}

// A semaphore in global memory: thread 0 takes it, works, releases it; thread 32 then takes it.
// hang = 1: thread 0 exits holding it.
__global__ void spin_semaphore(int* sem, int* out, int hang) {
  if (threadIdx.x == 0) {
    while (atomicCAS(sem, 0, 1) != 0) {
    }
    out[0] = 1;
    if (hang) return;
    __threadfence();
    atomicExch(sem, 0);
  } else if (threadIdx.x == 32) {
    while (atomicCAS(sem, 0, 1) != 0) {
    }
    out[1] = 2;
    atomicExch(sem, 0);
  }
}

// A grid barrier built from a global counter, in a launch that is not cooperative: CTA 0 waits for
// CTA 1, which cannot start before CTA 0 finishes.
__global__ void spin_grid_barrier(int* counter, int* out) {
  if (threadIdx.x == 0) {
    atomicAdd(counter, 1);
    while (atomicAdd(counter, 0) < int(gridDim.x)) {
    }
    out[blockIdx.x] = 1;
  }
}
