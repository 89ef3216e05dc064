// tcgen05 on sm_100a: a small GEMM through Tensor Memory (alloc, shared-memory operands described
// by descriptors, tcgen05.mma, commit to an mbarrier, wait, tcgen05.ld, dealloc), and deliberately
// broken kernels whose mistakes ptxsim must report. On other targets the kernels are empty.
#include <cstdint>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TC5 1
#endif

#ifdef TC5
namespace {

constexpr int kM = 128, kN = 64, kK = 64;  // one 128B-swizzle atom column: 64 bf16 per row

__device__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// K-major operand with the 128-byte swizzle: row r at r*128 bytes, its 16-byte chunk c at chunk
// c ^ (r % 8) (the pattern repeats every 8 rows = 1024 bytes; the buffer is 1024-aligned).
__device__ uint32_t swizzled_offset(int r, int k) {
  const int byte = k * 2;
  return uint32_t(r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15)));
}

// Shared-memory descriptor: start >> 4 (bits 13:0), LBO 16 B (unused with swizzling), SBO 1024 B
// (next 8 rows), version 1 (bit 46), 128B swizzle (2 in bits 63:61).
__device__ uint64_t smem_desc(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(16 >> 4) << 16 | uint64_t(1024 >> 4) << 32 | 1ull << 46 | 2ull << 61;
}

// Instruction descriptor, kind::f16: D F32 (bits 5:4 = 1), A and B BF16 (9:7, 12:10 = 1), K-major,
// N >> 3 in 22:17, M >> 4 in 28:24.
constexpr uint32_t kIdesc = 1u << 4 | 1u << 7 | 1u << 10 | uint32_t(kN >> 3) << 17 | uint32_t(kM >> 4) << 24;

__device__ void tmem_alloc(uint32_t* slot, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(slot)), "r"(ncols));
}
__device__ void tmem_dealloc(uint32_t taddr, uint32_t ncols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols));
}
__device__ void tmem_relinquish() { asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"); }
__device__ void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ void fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }
__device__ void mbar_init(uint64_t* bar) { asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(bar))); }
__device__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "$wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra $wait_%=;\n}" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}
__device__ void mma_bf16(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
      " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(d),
      "l"(a), "l"(b), "r"(idesc), "r"(uint32_t(accumulate)));
}
__device__ void commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_u32(bar))
               : "memory");
}
// 32 lanes x 16 columns: this thread's lane, columns taddr.column .. +15.
__device__ void tmem_ld16(uint32_t taddr, uint32_t (&v)[16]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "[%16];"
      : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]),
        "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
      : "r"(taddr));
}
__device__ void tmem_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }

// How gemm_body synchronises with its MMAs: correctly (commit, wait, read D), or one of two
// mistakes: reading D before the wait, or never committing the MMAs (so no wait is possible).
enum class Sync { Correct, ReadBeforeWait, MissingCommit };

// The GEMM body: D[kM x kN] (f32, row-major) = A[kM x kK] (bf16 row-major) * B (bf16, given as
// Bt[kN x kK] row-major).
__device__ void gemm_body(const uint16_t* a, const uint16_t* bt, float* d, Sync sync) {
  __shared__ alignas(1024) uint8_t sa[kM * 128];
  __shared__ alignas(1024) uint8_t sb[kN * 128];
  __shared__ uint64_t bar;
  __shared__ uint32_t tmem_slot;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  for (int i = tid; i < kM * kK; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sa + swizzled_offset(i / kK, i % kK)) = a[i];
  for (int i = tid; i < kN * kK; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sb + swizzled_offset(i / kK, i % kK)) = bt[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (warp == 0) tmem_alloc(&tmem_slot, 64);
  if (tid == 0) mbar_init(&bar);
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = tmem_slot;
  if (tid == 0) {
    for (int kk = 0; kk < kK / 16; ++kk)  // K = 16 per MMA: advance 32 bytes along the swizzled row
      mma_bf16(tmem, smem_desc(smem_u32(sa) + 32 * kk), smem_desc(smem_u32(sb) + 32 * kk), kIdesc, kk > 0);
    if (sync != Sync::MissingCommit) commit(&bar);
  }
  if (sync == Sync::Correct) mbar_wait(&bar, 0);
  __syncwarp();
  fence_after();
  const int row = warp * 32 + lane;
  for (int c = 0; c < kN; c += 16) {
    uint32_t v[16];
    tmem_ld16(tmem + (uint32_t(warp * 32) << 16) + uint32_t(c), v);
    tmem_wait_ld();
    for (int j = 0; j < 16; ++j) d[row * kN + c + j] = __uint_as_float(v[j]);
  }
  if (sync == Sync::ReadBeforeWait) mbar_wait(&bar, 0);  // let the MMA finish before freeing its columns
  fence_before();
  __syncthreads();
  fence_after();
  if (warp == 0) {
    tmem_dealloc(tmem, 64);
    tmem_relinquish();
  }
}

}  // namespace
#endif

extern "C" __global__ void __launch_bounds__(128) tc5_gemm_bf16(const uint16_t* a, const uint16_t* bt, float* d) {
#ifdef TC5
  gemm_body(a, bt, d, Sync::Correct);
#endif
}

#ifdef TC5
namespace {

__device__ void mma_bf16_pair(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
      " tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(d),
      "l"(a), "l"(b), "r"(idesc), "r"(uint32_t(accumulate)));
}

}  // namespace
#endif

// A CTA pair (cluster of 2) computes D[2*kM x kN] = A * B with cta_group::2 MMAs (M = 256): CTA v
// holds rows [v*kM, (v+1)*kM) of A and rows [v*kN/2, (v+1)*kN/2) of Bt, and gets rows
// [v*kM, (v+1)*kM) of D in its own Tensor Memory (lane m, column n). CTA 1 tells CTA 0 that its
// operands are in place by arriving on CTA 0's `ready` mbarrier (after seeing, through `flag` in
// global memory, that CTA 0 initialised it); thread 0 of CTA 0 issues the MMAs and commits them
// with multicast to `bar` in both CTAs.
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    tc5_pair_gemm_bf16(const uint16_t* a, const uint16_t* bt, float* d, unsigned* flag) {
#ifdef TC5
  __shared__ alignas(1024) uint8_t sa[kM * 128];
  __shared__ alignas(1024) uint8_t sb[(kN / 2) * 128];
  __shared__ uint64_t bar, ready;
  __shared__ uint32_t tmem_slot;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (rank == 0 && tid == 0) {
    mbar_init(&ready);
    mbar_init(&bar);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("st.release.gpu.global.u32 [%0], 1;" ::"l"(flag) : "memory");
  }
  if (rank == 1 && tid == 0) mbar_init(&bar);
  for (int i = tid; i < kM * kK; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sa + swizzled_offset(i / kK, i % kK)) = a[rank * kM * kK + i];
  for (int i = tid; i < (kN / 2) * kK; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sb + swizzled_offset(i / kK, i % kK)) = bt[rank * (kN / 2) * kK + i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 64;" ::"r"(smem_u32(&tmem_slot)));
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = tmem_slot;
  if (rank == 1 && tid == 0) {
    unsigned f = 0;
    while (!f) asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem_u32(&ready)));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
  }
  if (rank == 0 && tid == 0) {
    asm volatile(
        "{\n .reg .pred p;\n"
        "$ready_%=:\n"
        " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
        " @!p bra $ready_%=;\n}" ::"r"(smem_u32(&ready))
        : "memory");
    fence_after();
    constexpr uint32_t idesc = 1u << 4 | 1u << 7 | 1u << 10 | uint32_t(kN >> 3) << 17 | uint32_t((2 * kM) >> 4) << 24;
    for (int kk = 0; kk < kK / 16; ++kk)
      mma_bf16_pair(tmem, smem_desc(smem_u32(sa) + 32 * kk), smem_desc(smem_u32(sb) + 32 * kk), idesc, kk > 0);
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
            smem_u32(&bar)),
        "h"(uint16_t(3))
        : "memory");
  }
  mbar_wait(&bar, 0);
  fence_after();
  const int row = rank * kM + warp * 32 + lane;
  for (int c = 0; c < kN; c += 16) {
    uint32_t v[16];
    tmem_ld16(tmem + (uint32_t(warp * 32) << 16) + uint32_t(c), v);
    tmem_wait_ld();
    for (int j = 0; j < 16; ++j) d[row * kN + c + j] = __uint_as_float(v[j]);
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 64;" ::"r"(tmem));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
  }
#endif
}

// Broken: reads D with tcgen05.ld before waiting on the mbarrier the MMA was committed to.
extern "C" __global__ void __launch_bounds__(128) tc5_read_before_wait(const uint16_t* a, const uint16_t* bt, float* d) {
#ifdef TC5
  gemm_body(a, bt, d, Sync::ReadBeforeWait);
#endif
}

// Broken: issues the MMAs but never commits them, so nothing can wait for them, then reads D.
extern "C" __global__ void __launch_bounds__(128) tc5_missing_commit(const uint16_t* a, const uint16_t* bt, float* d) {
#ifdef TC5
  gemm_body(a, bt, d, Sync::MissingCommit);
#endif
}

// Broken: allocates again after giving up the allocation permit.
extern "C" __global__ void tc5_alloc_after_relinquish(uint32_t* out) {
#ifdef TC5
  __shared__ uint32_t slot[2];
  tmem_alloc(&slot[0], 32);
  tmem_relinquish();
  tmem_alloc(&slot[1], 32);
  out[threadIdx.x] = slot[1];
#endif
}

// Broken: exits with its columns still allocated.
extern "C" __global__ void tc5_leak(uint32_t* out) {
#ifdef TC5
  __shared__ uint32_t slot;
  tmem_alloc(&slot, 128);
  out[threadIdx.x] = slot;
#endif
}

// Broken: warp 1 reads lanes 0..31, which only warp 0 (of each warpgroup) may access.
extern "C" __global__ void tc5_wrong_quarter(uint32_t* out) {
#ifdef TC5
  __shared__ uint32_t slot;
  const int warp = threadIdx.x / 32;
  if (warp == 0) tmem_alloc(&slot, 32);
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = slot;
  uint32_t v[16] = {};
  if (warp == 1) {
    tmem_ld16(tmem, v);  // lane field 0: warp 0's quarter
    tmem_wait_ld();
  }
  out[threadIdx.x] = v[threadIdx.x % 16];
  fence_before();
  __syncthreads();
  if (warp == 0) tmem_dealloc(tmem, 32);
#endif
}
