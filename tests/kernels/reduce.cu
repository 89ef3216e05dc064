// Reductions: a block-wide sum through shared memory and __syncthreads finished by a warp-shuffle
// (__shfl_down_sync) step, and a pure warp reduction with __shfl_xor_sync.
//
// Operation order (the float host reference in reduce_test.cpp repeats it exactly):
//   1. thread t of block b sums a grid-stride slice, acc = 0; acc = acc + in[i] for
//      i = b*blockDim + t, then i += gridDim*blockDim, in increasing i.
//   2. tree in shared memory: for s = blockDim/2 while s > 32, s /= 2:
//        sdata[t] = sdata[t] + sdata[t + s]   for t < s
//   3. warp 0: v = sdata[lane] + sdata[lane + 32]; then for off = 16, 8, 4, 2, 1:
//        v = v + shfl_down(v, off)  (a lane whose lane+off >= 32 reads its own v)
//   4. lane 0 writes v to out[b].
// blockDim must be a power of two, at least 64.

template <class T>
__device__ T warp_sum_down(T v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

template <class T>
__device__ void block_sum(const T* __restrict__ in, T* __restrict__ out, int n) {
  extern __shared__ unsigned char smem_raw[];
  T* sdata = reinterpret_cast<T*>(smem_raw);
  unsigned t = threadIdx.x;
  T acc = 0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc += in[i];
  sdata[t] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) sdata[t] = sdata[t] + sdata[t + s];
    __syncthreads();
  }
  if (t < 32) {
    T v = sdata[t] + sdata[t + 32];
    v = warp_sum_down(v);
    if (t == 0) out[blockIdx.x] = v;
  }
}

extern "C" __global__ void block_sum_int(const int* __restrict__ in, int* __restrict__ out, int n) {
  block_sum<int>(in, out, n);
}

extern "C" __global__ void block_sum_float(const float* __restrict__ in, float* __restrict__ out, int n) {
  block_sum<float>(in, out, n);
}

// Every lane of every warp gets its warp's total through a butterfly: for m = 1, 2, 4, 8, 16:
// v = v + shfl_xor(v, m). Lanes l and l^m add the same two values (in opposite order), so all lanes
// agree. Also the warp's maximum with shfl_down followed by a broadcast from lane 0.
extern "C" __global__ void warp_reduce(const float* __restrict__ in, float* __restrict__ sums,
                                       const int* __restrict__ iin, int* __restrict__ maxes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int m = 1; m < 32; m <<= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  int x = i < n ? iin[i] : -2147483647 - 1;
  for (int off = 16; off > 0; off >>= 1) x = max(x, __shfl_down_sync(0xffffffffu, x, off));
  x = __shfl_sync(0xffffffffu, x, 0);
  if (i < n) {
    sums[i] = v;
    maxes[i] = x;
  }
}
