// Benchmark kernel (ptxsim bench "mma_sync_gemm"): an sm_80-style bf16 GEMM, C (M x N, f32) =
// A (M x K, bf16, row-major) * B, with B given transposed (Bt, N x K row-major) so that both
// operands are K-major.
//
// One CTA of 128 threads (four warps, 2 x 2) computes a 64 x 64 tile of C; each warp a 32 x 32
// sub-tile as 2 x 4 mma.sync.m16n8k16 (f32 accumulators in registers). K advances in 32-wide
// blocks, double-buffered in shared memory: cp.async.cg (16 bytes per copy) fetches block kb + 1
// while block kb is multiplied, cp.async.wait_group 1 / __syncthreads hand a block over. Shared
// rows are padded to 40 bf16 (80 bytes) so that the eight row addresses of an ldmatrix fall in
// distinct banks; ldmatrix.x4 loads the A fragments (16 x 16) and two n8 B fragments at a time.
// Requirements: M, N multiples of 64, K a multiple of 32; grid (N / 64, M / 64), block 128.
#include <cstdint>

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 32, kLds = kBK + 8;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
    mma_sync_gemm_bf16(const uint16_t* __restrict__ A, const uint16_t* __restrict__ Bt, float* __restrict__ C,
                       int M, int N, int K) {
  __shared__ alignas(128) uint16_t As[2][kBM * kLds];
  __shared__ alignas(128) uint16_t Bs[2][kBN * kLds];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;

  auto load = [&](int stage, int k0) {
    for (int c = tid; c < kBM * kBK / 8; c += 128) {  // 64 rows x 4 chunks of 8 bf16, for A and for Bt
      const int r = c / 4, j = c % 4;
      cp_async16(&As[stage][r * kLds + j * 8], A + size_t(m0 + r) * K + k0 + j * 8);
      cp_async16(&Bs[stage][r * kLds + j * 8], Bt + size_t(n0 + r) * K + k0 + j * 8);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  float acc[2][4][4];
#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

  const int blocks = K / kBK;
  load(0, 0);
  for (int kb = 0; kb < blocks; ++kb) {
    if (kb + 1 < blocks) {
      load((kb + 1) & 1, (kb + 1) * kBK);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
    const uint16_t* as = As[kb & 1];
    const uint16_t* bs = Bs[kb & 1];
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      const int j = lane / 8;
      uint32_t a[2][4], b[4][2];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)  // matrices: rows 0-7 / 8-15 (j % 2) x k 0-7 / 8-15 (j / 2)
        ldmatrix_x4(a[mi], &as[(wm + mi * 16 + (j % 2) * 8 + lane % 8) * kLds + kk + (j / 2) * 8]);
#pragma unroll
      for (int np = 0; np < 2; ++np) {  // matrices: n-tile 2np / 2np+1 (j / 2) x k 0-7 / 8-15 (j % 2)
        uint32_t r[4];
        ldmatrix_x4(r, &bs[(wn + np * 16 + (j / 2) * 8 + lane % 8) * kLds + kk + (j % 2) * 8]);
        b[2 * np][0] = r[0];
        b[2 * np][1] = r[1];
        b[2 * np + 1][0] = r[2];
        b[2 * np + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma_bf16(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
    __syncthreads();  // every warp is done with this stage before it is refilled
  }

  // D fragment: d0, d1 at row g, columns 2t, 2t + 1; d2, d3 at row g + 8.
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const int row = m0 + wm + mi * 16 + g, col = n0 + wn + ni * 8 + 2 * t;
      *reinterpret_cast<float2*>(&C[size_t(row) * N + col]) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(&C[size_t(row + 8) * N + col]) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
    }
}
