// Planted races on the tensor-core paths and their race-free twins, for --racecheck
// (racecheck_tc_test.cpp): wgmma.mma_async's shared-memory operands (sm_90a), tcgen05.mma's
// shared-memory operands and Tensor Memory (sm_100a). `racy` 0 is the correct kernel, which must
// stay silent; other values plant one mistake each. On the other target the kernels are empty.
#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RC_WGMMA 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define RC_TC5 1
#endif

namespace {

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// K-major operand tile with the 128-byte swizzle (rows of 128 bytes, 16-byte chunk j of row r at
// chunk j ^ (r % 8); the buffer is 1024-aligned): the byte offset of element (r, k) of 2 bytes.
__device__ inline uint32_t swizzled(int r, int k) {
  const int byte = k * 2;
  return uint32_t(r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15)));
}

}  // namespace

// C (64 x 64, f32) = A (64 x 32, bf16, row-major) * B (given as Bt, 64 x 32 row-major), as two K
// steps of 16: each stages its 64 x 16 slices of A and B in shared memory, then one
// wgmma.mma_async.m64n64k16 reads them. racy 1: the second step's stores overwrite the stage
// while the first wgmma may still read it (wgmma.wait_group only after the loop). racy 2: no
// fence.proxy.async between the generic stores and the wgmma (async-proxy read).
extern "C" __global__ void __launch_bounds__(128)
    race_wgmma_stage(const uint16_t* A, const uint16_t* Bt, float* C, int racy) {
#ifdef RC_WGMMA
  __shared__ __align__(1024) uint8_t sA[64 * 128];
  __shared__ __align__(1024) uint8_t sB[64 * 128];
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  const int tid = threadIdx.x;
  for (int k0 = 0; k0 < 32; k0 += 16) {
    // 64 rows x 2 chunks of 16 bytes per operand: one chunk of each per thread.
    const int r = tid / 2, j = tid % 2;
    *reinterpret_cast<uint4*>(sA + swizzled(r, 8 * j)) = *reinterpret_cast<const uint4*>(A + r * 32 + k0 + 8 * j);
    *reinterpret_cast<uint4*>(sB + swizzled(r, 8 * j)) = *reinterpret_cast<const uint4*>(Bt + r * 32 + k0 + 8 * j);
    if (racy != 2) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const uint64_t desc_tail = uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 | uint64_t(1) << 62;
    const uint64_t da = ((smem(sA) & 0x3FFFF) >> 4) | desc_tail, db = ((smem(sB) & 0x3FFFF) >> 4) | desc_tail;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "r"(1));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (racy != 1) asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const int w = tid / 32, lane = tid % 32;
  for (int i = 0; i < 32; ++i) {
    const int row = 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
    C[row * 64 + col] = d[i];
  }
#endif
}

#ifdef RC_TC5
namespace {

__device__ inline void tc5_fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ inline void tc5_fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }
__device__ inline void tc5_sync() {  // the ISA's pattern around a thread synchronisation
  tc5_fence_before();
  __syncthreads();
  tc5_fence_after();
}
__device__ inline void tmem_alloc32(uint32_t* slot) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(smem(slot)) : "memory");
}
__device__ inline void tmem_free32(uint32_t taddr) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(taddr));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
}
__device__ inline void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "$wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra $wait_%=;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

}  // namespace
#endif

// Warp 0 stores one column of Tensor Memory (its 32 lanes) with tcgen05.st; warp 4 (the same lane
// quarter) loads it with tcgen05.ld into out[0..31]. racy: no tcgen05.wait::st and thread
// synchronisation between them.
extern "C" __global__ void __launch_bounds__(256) race_tmem_st_ld(uint32_t* out, int racy) {
#ifdef RC_TC5
  __shared__ uint32_t slot;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) tmem_alloc32(&slot);
  tc5_sync();
  const uint32_t tmem = slot;
  if (warp == 0) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(tmem), "r"(uint32_t(lane * 3 + 1)) : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  }
  if (!racy) tc5_sync();
  if (warp == 4) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    out[lane] = v;
  }
  tc5_sync();
  if (warp == 0) tmem_free32(tmem);
#endif
}

// D (128 x 32, f32) = A (128 x 16, bf16) * B (Bt 32 x 16) with one tcgen05.mma.kind::f16 issued by
// thread 0 and committed to an mbarrier; every warp then loads its 32 rows of D. racy 1: warp 1
// overwrites B in shared memory before waiting on the mbarrier (the MMA may still read it).
// racy 2: warps 1-3 read D after a __syncwarp only: warp 0 waited on the mbarrier, they did not.
extern "C" __global__ void __launch_bounds__(128) race_tc5_mma(const uint16_t* a, const uint16_t* bt, float* d, int racy) {
#ifdef RC_TC5
  __shared__ alignas(1024) uint8_t sa[128 * 128];
  __shared__ alignas(1024) uint8_t sb[32 * 128];
  __shared__ uint64_t bar;
  __shared__ uint32_t slot;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  for (int i = tid; i < 128 * 16; i += 128) *reinterpret_cast<uint16_t*>(sa + swizzled(i / 16, i % 16)) = a[i];
  for (int i = tid; i < 32 * 16; i += 128) *reinterpret_cast<uint16_t*>(sb + swizzled(i / 16, i % 16)) = bt[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (warp == 0) tmem_alloc32(&slot);
  if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)) : "memory");
  tc5_sync();
  const uint32_t tmem = slot;
  if (tid == 0) {
    // Descriptors: start >> 4, LBO 16 B, SBO 1024 B, version 1, 128B swizzle. Instruction
    // descriptor: D f32, A and B bf16, K-major, N = 32, M = 128.
    const uint64_t tail = uint64_t(16 >> 4) << 16 | uint64_t(1024 >> 4) << 32 | 1ull << 46 | 2ull << 61;
    const uint32_t idesc = 1u << 4 | 1u << 7 | 1u << 10 | uint32_t(32 >> 3) << 17 | uint32_t(128 >> 4) << 24;
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, 0, 0;\n"
        " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem),
        "l"(uint64_t((smem(sa) & 0x3FFFF) >> 4) | tail), "l"(uint64_t((smem(sb) & 0x3FFFF) >> 4) | tail), "r"(idesc)
        : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem(&bar))
                 : "memory");
  }
  if (racy == 1 && warp == 1) sb[lane * 4] = 0;
  if (racy != 2 || warp == 0) mbar_wait(&bar, 0);
  __syncwarp();
  tc5_fence_after();
  for (int c = 0; c < 32; c += 8) {
    uint32_t v[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
                 : "r"(tmem + (uint32_t(warp * 32) << 16) + uint32_t(c))
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int j = 0; j < 8; ++j) d[(warp * 32 + lane) * 32 + c + j] = __uint_as_float(v[j]);
  }
  tc5_sync();
  if (warp == 0) tmem_free32(tmem);
#endif
}
