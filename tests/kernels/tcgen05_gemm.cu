// A full-size bf16 GEMM through tcgen05 on sm_100a (the benchmark's engine kernel, see
// bench/gemm_bench.cpp): D[M x N] (f32, row-major) = A[M x K] (bf16, row-major) * B, with B given
// as Bt[N x K] (bf16, row-major). Each CTA of 128 threads computes a 128 x 128 tile of D in Tensor
// Memory: for every 64-wide K block it copies A's and B's 128 x 64 slices into 128B-swizzled
// shared memory (16-byte chunks), issues four tcgen05.mma kind::f16 (M = 128, N = 128, K = 16) from
// one thread, commits them to an mbarrier and waits before the next block overwrites the operands;
// at the end every warp reads its 32 lanes of D with tcgen05.ld. M, N multiples of 128, K of 64.
// tc5_gemm_bf16_tma is the same GEMM fed by the TMA (the benchmark suite's TMA + tcgen05 kernel,
// `ptxsim bench`): A and B come as 2-D tensor maps (dims {K, rows}, bf16, box {64, 128}, 128B
// swizzle, the layout load_tile writes by hand), and one thread runs the main loop.
// On other targets the kernels are empty.
#include <cstdint>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TC5 1
#endif

#ifdef TC5
namespace {

constexpr int kTile = 128, kKBlock = 64;  // a 64-wide bf16 row is one 128-byte swizzle row

__device__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Shared-memory descriptor, K-major 128B swizzle: start >> 4, LBO 16 B (unused), SBO 1024 B (8 rows),
// version 1 (bit 46), layout 2 (bits 63:61).
__device__ uint64_t smem_desc(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 | 1ull << 46 | 2ull << 61;
}

// kind::f16: D F32 (5:4 = 1), A and B BF16 (9:7, 12:10 = 1), K-major, N >> 3 (22:17), M >> 4 (28:24).
constexpr uint32_t kIdesc = 1u << 4 | 1u << 7 | 1u << 10 | uint32_t(kTile >> 3) << 17 | uint32_t(kTile >> 4) << 24;

__device__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "$wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra $wait_%=;\n}" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// Copies rows [row0, row0 + 128) x K [k0, k0 + 64) of a row-major bf16 matrix with `ld` columns into
// a 128B-swizzled K-major tile: row r at r * 128 bytes, 16-byte chunk c at chunk c ^ (r % 8).
__device__ void load_tile(uint8_t* dst, const uint16_t* src, int ld, int row0, int k0) {
  for (int i = threadIdx.x; i < kTile * 8; i += blockDim.x) {
    const int r = i / 8, c = i % 8;
    const uint4 v = *reinterpret_cast<const uint4*>(src + size_t(row0 + r) * ld + k0 + 8 * c);
    *reinterpret_cast<uint4*>(dst + r * 128 + ((c ^ (r & 7)) << 4)) = v;
  }
}

// One 64-wide K block: four tcgen05.mma (K = 16 each: 32 bytes along the swizzled rows) into the
// accumulator at `tmem` (overwritten by the first unless `accumulate`), committed to mbarrier `bar`.
__device__ void mma_k_block(uint32_t tmem, const uint8_t* sa, const uint8_t* sb, bool accumulate, uint32_t bar) {
  for (int kk = 0; kk < kKBlock / 16; ++kk) {
    const uint32_t acc = accumulate || kk > 0;
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
        " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem),
        "l"(smem_desc(smem_u32(sa) + 32 * kk)), "l"(smem_desc(smem_u32(sb) + 32 * kk)), "r"(kIdesc), "r"(acc));
  }
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
}

// The epilogue of both kernels (after the last MMA's commit was waited for and the CTA barrier):
// every warp reads its 32 lanes of D with tcgen05.ld and stores them; then warp 0 frees the columns.
__device__ void read_d_and_dealloc(uint32_t tmem, float* d, int N, int m0, int n0) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = m0 + warp * 32 + lane;
  for (int c = 0; c < kTile; c += 16) {
    uint32_t v[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15}, [%16];\n tcgen05.wait::ld.sync.aligned;"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]),
          "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
        : "r"(tmem + (uint32_t(warp * 32) << 16) + uint32_t(c))
        : "memory");
    for (int j = 0; j < 16; j += 4)
      *reinterpret_cast<float4*>(d + size_t(row) * N + n0 + c + j) =
          make_float4(__uint_as_float(v[j]), __uint_as_float(v[j + 1]), __uint_as_float(v[j + 2]),
                      __uint_as_float(v[j + 3]));
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem), "r"(kTile));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
}

}  // namespace
#endif

extern "C" __global__ void __launch_bounds__(128)
    tc5_gemm_bf16_tiled(const uint16_t* a, const uint16_t* bt, float* d, int M, int N, int K) {
#ifdef TC5
  __shared__ alignas(1024) uint8_t sa[kTile * 128];
  __shared__ alignas(1024) uint8_t sb[kTile * 128];
  __shared__ uint64_t bar;
  __shared__ uint32_t tmem_slot;
  const int tid = threadIdx.x, warp = tid / 32;
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  const uint32_t bar_addr = smem_u32(&bar);
  if (warp == 0)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(&tmem_slot)),
                 "r"(kTile));
  if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_slot;
  const int blocks = K / kKBlock;
  for (int kb = 0; kb < blocks; ++kb) {
    if (kb > 0) mbar_wait(bar_addr, uint32_t(kb - 1) & 1);  // the previous block's MMAs are done
    load_tile(sa, a, K, m0, kb * kKBlock);
    load_tile(sb, bt, K, n0, kb * kKBlock);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    if (tid == 0) {
      mma_k_block(tmem, sa, sb, kb > 0, bar_addr);
    }
  }
  mbar_wait(bar_addr, uint32_t(blocks - 1) & 1);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  read_d_and_dealloc(tmem, d, N, m0, n0);
#endif
}

// The TMA-fed variant: thread 0 loads each K block's A and B tiles with two TMA loads on the
// `full` mbarrier (expect-tx 32 KiB), waits for them, issues the four MMAs and commits them to the
// `done` mbarrier, which it waits on before the next block's loads overwrite the operands. The
// other threads wait at the CTA barrier; then every warp reads its lanes of D as above.
struct alignas(64) Tc5TensorMap {
  unsigned char bytes[128];
};

extern "C" __global__ void __launch_bounds__(128)
    tc5_gemm_bf16_tma(const __grid_constant__ Tc5TensorMap ta, const __grid_constant__ Tc5TensorMap tb, float* d,
                      int M, int N, int K) {
#ifdef TC5
  __shared__ alignas(1024) uint8_t sa[kTile * 128];
  __shared__ alignas(1024) uint8_t sb[kTile * 128];
  __shared__ uint64_t full, done;
  __shared__ uint32_t tmem_slot;
  const int tid = threadIdx.x, warp = tid / 32;
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  const uint32_t full_addr = smem_u32(&full), done_addr = smem_u32(&done);
  if (warp == 0)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(&tmem_slot)),
                 "r"(kTile));
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full_addr));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(done_addr));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_slot;
  const int blocks = K / kKBlock;
  if (tid == 0) {
    for (int kb = 0; kb < blocks; ++kb) {
      if (kb > 0) mbar_wait(done_addr, uint32_t(kb - 1) & 1);  // the previous block's MMAs are done
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full_addr), "r"(2 * kTile * 128)
                   : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(smem_u32(sa)), "l"(&ta), "r"(kb * kKBlock), "r"(m0), "r"(full_addr) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(smem_u32(sb)), "l"(&tb), "r"(kb * kKBlock), "r"(n0), "r"(full_addr) : "memory");
      mbar_wait(full_addr, uint32_t(kb) & 1);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
      mma_k_block(tmem, sa, sb, kb > 0, done_addr);
    }
    mbar_wait(done_addr, uint32_t(blocks - 1) & 1);
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  read_d_and_dealloc(tmem, d, N, m0, n0);
#endif
}
