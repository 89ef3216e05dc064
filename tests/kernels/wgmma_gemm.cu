// A wgmma GEMM of our own for sm_90a: C (M x N, f32) = A (M x K, bf16, row-major) * B (K x N, bf16),
// with B given transposed (Bt, N x K row-major), i.e. both operands K-major.
//
// One CTA of 128 threads (one warpgroup) computes a 64 x 64 tile of C. For every 64-wide K block it
// stages A and B tiles (64 rows x 128 bytes each) in shared memory with the 128-byte swizzle
// written by hand (16-byte chunk j of row r goes to chunk j ^ (r % 8)), makes them visible to the
// async proxy (fence.proxy.async), and issues four wgmma.mma_async.m64n64k16 whose descriptors
// advance the start address by 32 bytes per K step inside the swizzle row, as CUTLASS does.
// Descriptors are built here from the PTX ISA's matrix-descriptor format: start address >> 4 in
// bits 13:0, leading byte offset 1 (unused for swizzled K-major), stride byte offset 1024 >> 4
// (8 rows x 128 B) in bits 45:32, layout 1 (128B swizzle) in bits 63:62.
// Requirements: M, N multiples of 64, K a multiple of 64; grid (N/64, M/64), block 128.
// wgmma_gemm_bf16 stages the tiles with plain shared stores; wgmma_gemm_bf16_tma loads them with
// the TMA (cp.async.bulk.tensor, 128B swizzle) on an mbarrier; wgmma_gemm_bf16_cp_async with
// per-thread cp.async and no CTA barrier before the wgmma.
// Compiled for every kernel target; the body exists only for sm_90a (wgmma is sm_90a-only).
#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PTXSIM_HAVE_WGMMA 1
#endif

#ifdef PTXSIM_HAVE_WGMMA
__device__ __forceinline__ uint64_t smem_desc_128b(const void* p) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  uint64_t d = uint64_t((addr & 0x3FFFF) >> 4);  // bits 13:0  start address
  d |= uint64_t(1) << 16;                         // bits 29:16 leading byte offset (unused here)
  d |= uint64_t(1024 >> 4) << 32;                 // bits 45:32 stride byte offset
  d |= uint64_t(1) << 62;                         // bits 63:62 128B swizzle
  return d;
}

// Four k16 steps over one 64-wide K block of 128B-swizzled A and B tiles, accumulating into d.
__device__ __forceinline__ void mma_k64(float (&d)[32], const uint8_t* sA, const uint8_t* sB) {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    const uint64_t da = smem_desc_128b(sA + kk * 32), db = smem_desc_128b(sB + kk * 32);
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
      "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
        "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
        "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
        "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "r"(1));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// Calls f(dst, r, j) for this thread's share of the 64 rows x 8 chunks of 16 bytes of a K block:
// chunk j of row r lands at byte dst of a 128B-swizzled tile (chunk j ^ (r % 8) of row r).
template <class F>
__device__ __forceinline__ void for_each_swizzled_chunk(F f) {
  for (int c = threadIdx.x; c < 512; c += 128) {
    const int r = c / 8, j = c % 8;
    f(r * 128 + ((j ^ (r % 8)) * 16), r, j);
  }
}

// D fragment: register i of lane l in warp w is element (16w + l/4 + 8*((i/2)%2), 8*(i/4) + 2*(l%4) + i%2).
__device__ __forceinline__ void store_d(const float (&d)[32], float* C, int N, int m0, int n0) {
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const int row = 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
    C[size_t(m0 + row) * N + n0 + col] = d[i];
  }
}
#endif

extern "C" __global__ void __launch_bounds__(128)
    wgmma_gemm_bf16(const uint16_t* __restrict__ A, const uint16_t* __restrict__ Bt, float* __restrict__ C, int M,
                    int N, int K) {
#ifdef PTXSIM_HAVE_WGMMA
  __shared__ __align__(1024) uint8_t sA[64 * 128];
  __shared__ __align__(1024) uint8_t sB[64 * 128];
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  for (int k0 = 0; k0 < K; k0 += 64) {
    for_each_swizzled_chunk([&](int dst, int r, int j) {
      *reinterpret_cast<uint4*>(sA + dst) = *reinterpret_cast<const uint4*>(A + size_t(m0 + r) * K + k0 + j * 8);
      *reinterpret_cast<uint4*>(sB + dst) = *reinterpret_cast<const uint4*>(Bt + size_t(n0 + r) * K + k0 + j * 8);
    });
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    mma_k64(d, sA, sB);
    __syncthreads();
  }
  store_d(d, C, N, m0, n0);
#endif
}

// The same GEMM with the tiles staged by cp.async, as CUTLASS's cute/tutorial/hopper/wgmma_sm90.cu
// does: every thread copies its 16-byte chunks, waits for its own copies only (cp.async.wait_group
// 0, no __syncthreads, no fence.proxy.async) and the warpgroup's wgmma then reads chunks the other
// three warps copied. That is ordered because the four warps' n-th wgmma.mma_async are one
// operation, which starts when the last of them has issued it.
extern "C" __global__ void __launch_bounds__(128)
    wgmma_gemm_bf16_cp_async(const uint16_t* __restrict__ A, const uint16_t* __restrict__ Bt, float* __restrict__ C,
                             int M, int N, int K) {
#ifdef PTXSIM_HAVE_WGMMA
  __shared__ __align__(1024) uint8_t sA[64 * 128];
  __shared__ __align__(1024) uint8_t sB[64 * 128];
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  for (int k0 = 0; k0 < K; k0 += 64) {
    for_each_swizzled_chunk([&](int dst, int r, int j) {
      const uint32_t sa = static_cast<uint32_t>(__cvta_generic_to_shared(sA + dst));
      const uint32_t sb = static_cast<uint32_t>(__cvta_generic_to_shared(sB + dst));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(A + size_t(m0 + r) * K + k0 + j * 8)
                   : "memory");
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb), "l"(Bt + size_t(n0 + r) * K + k0 + j * 8)
                   : "memory");
    });
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    mma_k64(d, sA, sB);
    __syncthreads();  // every warp's wgmma is complete before the next copies overwrite the tiles
  }
  store_d(d, C, N, m0, n0);
#endif
}

// The same GEMM fed by the TMA: tA / tB are 2-D tensor maps (dims {K, rows}, bf16, box {64, 64},
// 128B swizzle) encoded on the host; thread 0 issues both tile loads for a K block on one
// mbarrier (expect-tx 16 KiB) and the warpgroup waits on its phase before the wgmmas.
struct alignas(64) TensorMap128 {
  unsigned char bytes[128];
};

extern "C" __global__ void __launch_bounds__(128)
    wgmma_gemm_bf16_tma(const __grid_constant__ TensorMap128 tA, const __grid_constant__ TensorMap128 tB,
                        float* __restrict__ C, int M, int N, int K) {
#ifdef PTXSIM_HAVE_WGMMA
  __shared__ __align__(1024) uint8_t sA[64 * 128];
  __shared__ __align__(1024) uint8_t sB[64 * 128];
  __shared__ __align__(8) uint64_t bar;
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  const int tid = threadIdx.x, m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t a_addr = static_cast<uint32_t>(__cvta_generic_to_shared(sA));
  const uint32_t b_addr = static_cast<uint32_t>(__cvta_generic_to_shared(sB));
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  uint32_t phase = 0;
  for (int k0 = 0; k0 < K; k0 += 64) {
    if (tid == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;" ::"r"(bar_addr) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(a_addr), "l"(&tA), "r"(k0), "r"(m0), "r"(bar_addr) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(b_addr), "l"(&tB), "r"(k0), "r"(n0), "r"(bar_addr) : "memory");
    }
    uint32_t done = 0;
    while (!done)
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done) : "r"(bar_addr), "r"(phase) : "memory");
    phase ^= 1;
    mma_k64(d, sA, sB);
    __syncthreads();  // every warp is done reading the tiles before the next loads overwrite them
  }
  store_d(d, C, N, m0, n0);
#endif
}
