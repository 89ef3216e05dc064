// Benchmark kernels (ptxsim bench "sgemm_naive", "sgemm_tiled"): C = A * B in f32, all row-major,
// A M x K, B K x N, C M x N. Both accumulate c = fma(A[i][k], B[k][j], c) for k = 0 .. K-1 in
// order from c = 0, so their results are bit-identical to each other and to the CPU reference.
//   sgemm_naive: one thread per output; block 16 x 16, grid (N / 16, M / 16).
//   sgemm_tiled: 16 x 16 tiles of A and B staged in shared memory with __syncthreads; one thread
//                per output; block 16 x 16, grid (N / 16, M / 16); M, N, K multiples of 16.
constexpr int kTile = 16;

extern "C" __global__ void __launch_bounds__(kTile * kTile)
    sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                int K) {
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  if (row >= M || col >= N) return;
  float c = 0.0f;
  for (int k = 0; k < K; ++k) c = fmaf(A[row * K + k], B[k * N + col], c);
  C[row * N + col] = c;
}

extern "C" __global__ void __launch_bounds__(kTile * kTile)
    sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float c = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) c = fmaf(As[ty][k], Bs[k][tx], c);
    __syncthreads();
  }
  C[row * N + col] = c;
}
