// Block-wide inclusive scan: Hillis-Steele with __shfl_up_sync inside each warp, the warp totals
// scanned by warp 0 through shared memory, then added back. Each block scans its own blockDim
// elements; block totals go to `totals`.
//
// Operation order (the float host reference in scan_test.cpp repeats it exactly):
//   1. v = in[i] (0 past n); for off = 1, 2, 4, 8, 16: y = shfl_up(v, off); if lane >= off: v = v + y
//   2. lane 31 of warp w stores v to wsum[w]
//   3. warp 0: u = wsum[lane] (0 for lane >= warps); the same shfl_up scan on u; wsum[lane] = u
//   4. warp w > 0: v = v + wsum[w - 1]
// blockDim must be a multiple of 32 and at most 1024.

template <class T>
__device__ T warp_inclusive_scan(T v) {
  unsigned lane = threadIdx.x & 31;
  for (int off = 1; off < 32; off <<= 1) {
    T y = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v = v + y;
  }
  return v;
}

template <class T>
__device__ void block_scan(const T* __restrict__ in, T* __restrict__ out, T* __restrict__ totals, int n) {
  __shared__ T wsum[32];
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = i < n ? in[i] : T(0);
  v = warp_inclusive_scan(v);
  if (lane == 31) wsum[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T u = lane < nwarps ? wsum[lane] : T(0);
    u = warp_inclusive_scan(u);
    wsum[lane] = u;
  }
  __syncthreads();
  if (warp > 0) v = v + wsum[warp - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == blockDim.x - 1) totals[blockIdx.x] = v;
}

extern "C" __global__ void scan_int(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ totals, int n) {
  block_scan<int>(in, out, totals, n);
}

extern "C" __global__ void scan_float(const float* __restrict__ in, float* __restrict__ out, float* __restrict__ totals,
                                      int n) {
  block_scan<float>(in, out, totals, n);
}
