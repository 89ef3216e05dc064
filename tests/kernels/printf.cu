// Device printf: every thread, a divergent subset of threads, and one thread exercising the
// conversions (%d %u %x %c %s %lld %llu %f %e %g, widths, flags, %%).
#include <cstdio>

extern "C" __global__ void printf_all(const int* __restrict__ in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("tid %d value %d\n", i, in[i]);
}

// Only threads with an odd input print; the rest skip the call.
extern "C" __global__ void printf_divergent(const unsigned* __restrict__ in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  if (v & 1u) printf("block %d warp %d lane %d odd %u hex %08x\n", blockIdx.x, threadIdx.x / 32, threadIdx.x % 32, v, v);
}

extern "C" __global__ void printf_formats(int a, unsigned b, long long c, unsigned long long d, double e, const char* s,
                                          char ch) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    printf("int %d|%5d|%-5d|%+d unsigned %u hex %x %X %#x\n", a, a, a, a, b, b, b, b);
    printf("long %lld ulong %llu hex %llx\n", c, d, d);
    printf("double %f %.3f %e %g %10.2f\n", e, e, e, e, e);
    printf("string [%s] [%10s] char %c percent %%\n", s, s, ch);
  }
}
