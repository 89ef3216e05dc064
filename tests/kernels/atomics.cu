// Atomics: a histogram with atomicAdd on shared memory merged into global memory, a direct global
// histogram, an atomicCAS loop computing a float maximum and a 64-bit maximum, atomicExch, the
// wrapping atomicInc/atomicDec, and the integer min/max/and/or/xor atomics. Every checked result is
// independent of the order in which threads perform their atomics.

#define NBINS 64

extern "C" __global__ void histogram(const unsigned* __restrict__ in, unsigned* shared_hist, unsigned* global_hist,
                                     int n) {
  __shared__ unsigned bins[NBINS];
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i];
    atomicAdd(&bins[v % NBINS], 1u);
    atomicAdd(&global_hist[(v >> 8) % NBINS], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
    if (bins[b]) atomicAdd(&shared_hist[b], bins[b]);
}

__device__ void atomic_max_float(float* addr, float v) {
  int* a = reinterpret_cast<int*>(addr);
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(a, assumed, __float_as_int(v));
  } while (assumed != old);
}

__device__ void atomic_max_u64(unsigned long long* addr, unsigned long long v) {
  unsigned long long old = *addr, assumed;
  do {
    assumed = old;
    if (assumed >= v) break;
    old = atomicCAS(addr, assumed, v);
  } while (assumed != old);
}

// result layout (unsigned words):
//   [0] float max (CAS loop)         [1] atomicInc counter   [2] atomicDec counter
//   [3] atomicMin(int)  [4] atomicMax(int)  [5] atomicAnd  [6] atomicOr  [7] atomicXor
//   [8] atomicAdd(float) of small integers (exact)   [9] atomicMin(unsigned)  [10] atomicMax(unsigned)
//   [11] atomicExch slot
// u64max: one unsigned long long, CAS-loop maximum.
// per thread: inc_old[i], dec_old[i], exch_old[i] (the values the atomics returned).
extern "C" __global__ void atomics_misc(const float* __restrict__ fin, const int* __restrict__ iin,
                                        const unsigned long long* __restrict__ lin, unsigned* result,
                                        unsigned long long* u64max, unsigned* __restrict__ inc_old,
                                        unsigned* __restrict__ dec_old, unsigned* __restrict__ exch_old,
                                        unsigned inc_limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomic_max_float(reinterpret_cast<float*>(&result[0]), fin[i]);
  atomic_max_u64(u64max, lin[i]);
  inc_old[i] = atomicInc(&result[1], inc_limit);
  dec_old[i] = atomicDec(&result[2], inc_limit);
  int x = iin[i];
  atomicMin(reinterpret_cast<int*>(&result[3]), x);
  atomicMax(reinterpret_cast<int*>(&result[4]), x);
  atomicAnd(&result[5], unsigned(x) | 0x80000001u);
  atomicOr(&result[6], unsigned(x) & 0x00ff00f0u);
  atomicXor(&result[7], unsigned(x));
  atomicAdd(reinterpret_cast<float*>(&result[8]), float(x & 15));
  atomicMin(&result[9], unsigned(x));
  atomicMax(&result[10], unsigned(x));
  exch_old[i] = atomicExch(&result[11], unsigned(i) * 2654435761u);
}
