// tcgen05.mma for every kind, CTA group and A source (sm_100a), for tcgen05_kinds_test.cpp.
//
// One kernel body, instantiated once per (kind qualifier, cta_group); everything else is a
// runtime parameter: the instruction descriptor (types, M, N, negation, saturation, scale-factor
// IDs), whether A comes from shared memory or Tensor Memory, whether D starts from a given value,
// and how the scale factors reach Tensor Memory (tcgen05.st, or tcgen05.cp .128x128b or
// .32x128b.warpx4). On other targets the
// kernels are empty.
//
// Each CTA (v = its rank in the pair for cta_group::2) gets from global memory:
//   a_rows  [rows][128 B]   its rows of A, K-major: 128 bytes of K per row, the storage of 4 MMAs
//                           (32 bytes = 256 bits of K each; 4/6-bit f8f6f4 types already padded
//                           into 16-byte chunks, mxf4 types two per byte)
//   b_rows  [n_rows][128 B] its rows of B^T (N x K), likewise
//   a_tmem  [128][32]       words for TMEM lanes 0-127, columns 128-159 (A in TMEM), or null
//   sfa/sfb [128][16]       words for TMEM columns 160-175 / 176-191 (scale factors), or null
//   d_init  [128][d_cols]   words for TMEM columns 0.. (D before the first MMA), or null
//   descs   [8]             null, or: a_rows / b_rows are shared-memory images in any canonical
//                           layout, copied as they are, and these are the descriptors of MMA 0-3's
//                           A and B with start addresses relative to the buffers
// and writes d_out [128][d_cols], TMEM lanes 0-127, columns 0..d_cols-1 after the 4 MMAs.
// The host maps matrix rows and columns to lanes and columns; this kernel only moves words.
// A and B go to shared memory with the 128-byte swizzle (row r at r*128, 16-byte chunk c at
// chunk c ^ (r % 8)); MMA s (s = 0..3) reads bytes [32s, 32s + 32) of every row: its descriptors
// advance the start address by 32 bytes, its A (in TMEM) is columns 128 + 8s.., its scale factors
// columns 160 + 4s.. and 176 + 4s... cta_group::2 runs on a cluster of 2 CTAs (given at launch);
// CTA 0's thread 0 issues the MMAs and commits them to the mbarrier of both CTAs.
#include <cstdint>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TC5 1
#endif

// The block-scaled kinds with .scale_vec::NX and with the .block32 / .block16 spellings (PTX 8.8).
enum KindId {
  kF16, kTF32, kF8F6F4, kI8,
  kMXF8F6F4_1X, kMXF4_2X, kMXF4NVF4_2X, kMXF4NVF4_4X, kMXF8F6F4_B32, kMXF4_B32, kMXF4NVF4_B16
};

#ifdef TC5
namespace {

constexpr uint32_t kTmemCols = 256, kAcol = 128, kSfaCol = 160, kSfbCol = 176, kMmas = 4;

__device__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Shared-memory descriptor (PTX 9.7.16.4.1): start >> 4 (13:0), LBO >> 4 (29:16), SBO >> 4
// (45:32), version 1 (bit 46), layout (63:61: 2 = 128B swizzle, 0 = none).
__device__ uint64_t sdesc(uint32_t addr, uint32_t lbo, uint32_t sbo, uint32_t layout) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32 | 1ull << 46 |
         uint64_t(layout) << 61;
}

__device__ void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ void fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

template <int CG>
__device__ void sync_group() {  // every thread of the CTA (CG = 1) or of the pair (CG = 2)
  fence_before();
  if constexpr (CG == 1) {
    __syncthreads();
  } else {
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
  }
  fence_after();
}

// 32 lanes x 16 columns: this thread's lane (32 * warp + lane of the warp), columns taddr.column..+15.
__device__ void tmem_st16(uint32_t taddr, const uint32_t* v) {
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16};" ::"r"(taddr),
      "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7]), "r"(v[8]), "r"(v[9]),
      "r"(v[10]), "r"(v[11]), "r"(v[12]), "r"(v[13]), "r"(v[14]), "r"(v[15])
      : "memory");
}
__device__ void tmem_ld16(uint32_t taddr, uint32_t (&v)[16]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "[%16];\n tcgen05.wait::ld.sync.aligned;"
      : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]),
        "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
      : "r"(taddr)
      : "memory");
}

// Copies `cols` (a multiple of 16) words per lane from img[lane][..] into this warp's 32 lanes,
// columns col0.., then waits for the stores.
__device__ void tmem_fill(uint32_t tmem, uint32_t col0, const uint32_t* img, uint32_t cols) {
  const uint32_t lane = threadIdx.x % 128, warp = lane / 32;
#pragma unroll 1
  for (uint32_t c = 0; c < cols; c += 16) tmem_st16(tmem + ((warp * 32) << 16) + col0 + c, img + lane * cols + c);
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
}

// One tcgen05.mma of kind K. The kind qualifier and the operand list are part of the instruction
// text, so each form is written out.
#define TC5K_PRED "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n "
#define TC5K_MMA_SS(CG, KS)                                                                         \
  asm volatile(TC5K_PRED "tcgen05.mma.cta_group::" CG ".kind::" KS " [%0], %1, %2, %3, p;\n}" ::"r"(d), \
               "l"(adesc), "l"(bdesc), "r"(idesc), "r"(acc) : "memory")
#define TC5K_MMA_TS(CG, KS)                                                                           \
  asm volatile(TC5K_PRED "tcgen05.mma.cta_group::" CG ".kind::" KS " [%0], [%1], %2, %3, p;\n}" ::"r"(d), \
               "r"(atmem), "l"(bdesc), "r"(idesc), "r"(acc) : "memory")
#define TC5K_BS_PRED "{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n "
#define TC5K_MMA_BS_SS(CG, KS)                                                                                    \
  asm volatile(TC5K_BS_PRED "tcgen05.mma.cta_group::" CG ".kind::" KS " [%0], %1, %2, %3, [%4], [%5], p;\n}" ::"r"(d), \
               "l"(adesc), "l"(bdesc), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc) : "memory")
#define TC5K_MMA_BS_TS(CG, KS)                                                                                      \
  asm volatile(TC5K_BS_PRED "tcgen05.mma.cta_group::" CG ".kind::" KS " [%0], [%1], %2, %3, [%4], [%5], p;\n}" ::"r"(d), \
               "r"(atmem), "l"(bdesc), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc) : "memory")
#define TC5K_DENSE(CG, KS) \
  if (a_in_tmem) TC5K_MMA_TS(CG, KS); else TC5K_MMA_SS(CG, KS)
#define TC5K_SCALED(CG, KS) \
  if (a_in_tmem) TC5K_MMA_BS_TS(CG, KS); else TC5K_MMA_BS_SS(CG, KS)
#define TC5K_ALL(CG)                                                                          \
  if constexpr (K == kF16) { TC5K_DENSE(CG, "f16"); }                                         \
  else if constexpr (K == kTF32) { TC5K_DENSE(CG, "tf32"); }                                  \
  else if constexpr (K == kF8F6F4) { TC5K_DENSE(CG, "f8f6f4"); }                              \
  else if constexpr (K == kI8) { TC5K_DENSE(CG, "i8"); }                                      \
  else if constexpr (K == kMXF8F6F4_1X) { TC5K_SCALED(CG, "mxf8f6f4.block_scale.scale_vec::1X"); } \
  else if constexpr (K == kMXF4_2X) { TC5K_SCALED(CG, "mxf4.block_scale.scale_vec::2X"); }      \
  else if constexpr (K == kMXF4NVF4_2X) { TC5K_SCALED(CG, "mxf4nvf4.block_scale.scale_vec::2X"); } \
  else if constexpr (K == kMXF4NVF4_4X) { TC5K_SCALED(CG, "mxf4nvf4.block_scale.scale_vec::4X"); } \
  else if constexpr (K == kMXF8F6F4_B32) { TC5K_SCALED(CG, "mxf8f6f4.block_scale.block32"); }     \
  else if constexpr (K == kMXF4_B32) { TC5K_SCALED(CG, "mxf4.block_scale.block32"); }             \
  else { TC5K_SCALED(CG, "mxf4nvf4.block_scale.block16"); }

template <int K, int CG>
__device__ void mma(uint32_t d, bool a_in_tmem, uint64_t adesc, uint32_t atmem, uint64_t bdesc, uint32_t idesc,
                    uint32_t sfa, uint32_t sfb, uint32_t acc) {
  (void)sfa, (void)sfb, (void)atmem, (void)adesc;
  if constexpr (CG == 1) {
    TC5K_ALL("1")
  } else {
    TC5K_ALL("2")
  }
}

// 16-byte chunks of `rows` rows of 128 bytes into the 128B-swizzled buffer `s` (1024-aligned).
__device__ void to_swizzled(uint8_t* s, const uint8_t* g, uint32_t rows) {
  for (uint32_t i = threadIdx.x; i < rows * 8; i += blockDim.x) {
    const uint32_t r = i / 8, c = i % 8;
    *reinterpret_cast<uint4*>(s + r * 128 + ((c ^ (r % 8)) * 16)) = reinterpret_cast<const uint4*>(g)[i];
  }
}

__device__ void copy_raw(uint8_t* s, const uint8_t* g, uint32_t bytes) {
  for (uint32_t i = threadIdx.x; i < bytes / 16; i += blockDim.x)
    reinterpret_cast<uint4*>(s)[i] = reinterpret_cast<const uint4*>(g)[i];
}

// A scale-factor image [128 lanes][16 columns] as four 128-row x 16-byte blocks (columns 4q..4q+3
// in block q, row = lane), the source of tcgen05.cp .128x128b.
__device__ void to_cp_blocks(uint8_t* s, const uint32_t* img) {
  for (uint32_t i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    const uint32_t lane = i / 16, col = i % 16;
    reinterpret_cast<uint32_t*>(s + (col / 4) * 2048 + lane * 16)[col % 4] = img[i];
  }
}

// Copies a staged scale-factor image to TMEM columns taddr..taddr+15: with .128x128b, block q to
// lanes 0-127 of columns 4q..4q+3; with .32x128b.warpx4 (`warpx4`), rows 0-31 of block q to each
// 32-lane partition (the image must then be the same in every partition).
template <int CG>
__device__ void cp_sf(uint32_t taddr, const uint8_t* blocks, bool warpx4) {
#pragma unroll 1
  for (uint32_t q = 0; q < 4; ++q) {
    // 128 rows of 16 bytes, K-major without swizzle: row r at (r%8)*16 + (r/8)*SBO, SBO = 128.
    const uint64_t desc = sdesc(smem_u32(blocks + q * 2048), 16, 128, 0);
    if (warpx4) {
      if constexpr (CG == 1)
        asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(taddr + 4 * q), "l"(desc) : "memory");
      else
        asm volatile("tcgen05.cp.cta_group::2.32x128b.warpx4 [%0], %1;" ::"r"(taddr + 4 * q), "l"(desc) : "memory");
    } else {
      if constexpr (CG == 1)
        asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" ::"r"(taddr + 4 * q), "l"(desc) : "memory");
      else
        asm volatile("tcgen05.cp.cta_group::2.128x128b [%0], %1;" ::"r"(taddr + 4 * q), "l"(desc) : "memory");
    }
  }
}

// Shared memory at module scope: one set of variables that every kernel of this file uses.
__shared__ alignas(1024) uint8_t sa[128 * 128];   // A, 128B-swizzled
__shared__ alignas(1024) uint8_t sb[64 * 128];    // B^T, 128B-swizzled
__shared__ alignas(128) uint8_t ssf[2 * 4 * 2048];  // scale factors staged for tcgen05.cp
__shared__ uint64_t bar;
__shared__ uint32_t tmem_slot;

struct Params {
  const uint8_t *a_rows, *b_rows;
  const uint32_t *a_tmem, *sfa, *sfb, *d_init;
  const uint64_t* descs;  // null, or the shared-memory descriptors of A (MMA 0-3) and B (4-7), start relative
  uint32_t* d_out;
  uint32_t idesc, a_rows_n, b_rows_n, d_cols, sf_path;  // sf_path: 0 tcgen05.st, 1 cp .128x128b, 2 cp .32x128b.warpx4
};

template <int K, int CG>
__device__ void body(const Params& p) {
  constexpr bool kScaled = K >= kMXF8F6F4_1X;
  const uint32_t tid = threadIdx.x, warp = tid / 32;
  uint32_t rank = 0;
  if constexpr (CG == 2) asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const uint32_t d_words = 128 * p.d_cols;
  if (p.descs) {  // images already in their layout: copy as they are
    copy_raw(sa, p.a_rows + rank * p.a_rows_n * 128, p.a_rows_n * 128);
    copy_raw(sb, p.b_rows + rank * p.b_rows_n * 128, p.b_rows_n * 128);
  } else {
    to_swizzled(sa, p.a_rows + rank * p.a_rows_n * 128, p.a_rows_n);
    to_swizzled(sb, p.b_rows + rank * p.b_rows_n * 128, p.b_rows_n);
  }
  const bool sf_cp = kScaled && p.sf_path != 0;
  if constexpr (kScaled) {
    if (sf_cp) {
      to_cp_blocks(ssf, p.sfa + rank * 128 * 16);
      to_cp_blocks(ssf + 4 * 2048, p.sfb + rank * 128 * 16);
    }
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (warp == 0) {
    if constexpr (CG == 1)
      asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(&tmem_slot)),
                   "r"(kTmemCols));
    else
      asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(&tmem_slot)),
                   "r"(kTmemCols));
  }
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = tmem_slot;
  // Every warp fills its quarter of the TMEM operands given as images.
  const bool a_in_tmem = p.a_tmem != nullptr;
  if (a_in_tmem) tmem_fill(tmem, kAcol, p.a_tmem + rank * 128 * 32, 32);
  if (kScaled && !sf_cp) {
    tmem_fill(tmem, kSfaCol, p.sfa + rank * 128 * 16, 16);
    tmem_fill(tmem, kSfbCol, p.sfb + rank * 128 * 16, 16);
  }
  if (p.d_init) tmem_fill(tmem, 0, p.d_init + rank * d_words, p.d_cols);
  sync_group<CG>();
  if (rank == 0 && tid == 0) {
    if constexpr (kScaled) {
      if (sf_cp) {
        cp_sf<CG>(tmem + kSfaCol, ssf, p.sf_path == 2);
        cp_sf<CG>(tmem + kSfbCol, ssf + 4 * 2048, p.sf_path == 2);
      }
    }
    const uint64_t ad = sdesc(smem_u32(sa), 16, 1024, 2), bd = sdesc(smem_u32(sb), 16, 1024, 2);
#pragma unroll 1
    for (uint32_t s = 0; s < kMmas; ++s) {
      // Own layout: + 32 bytes = + 2 in the start-address field per MMA. Given descriptors: their
      // start addresses are relative to the buffers.
      const uint64_t as = p.descs ? p.descs[s] + (smem_u32(sa) >> 4) : ad + 2 * s;
      const uint64_t bs = p.descs ? p.descs[kMmas + s] + (smem_u32(sb) >> 4) : bd + 2 * s;
      mma<K, CG>(tmem, a_in_tmem, as, tmem + kAcol + 8 * s, bs, p.idesc, tmem + kSfaCol + 4 * s,
                 tmem + kSfbCol + 4 * s, s > 0 || p.d_init != nullptr);
    }
    if constexpr (CG == 1)
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_u32(&bar))
                   : "memory");
    else
      asm volatile(
          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
              smem_u32(&bar)),
          "h"(uint16_t(3))
          : "memory");
  }
  asm volatile(
      "{\n .reg .pred p;\n"
      "$wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
      " @!p bra $wait_%=;\n}" ::"r"(smem_u32(&bar))
      : "memory");
  fence_after();
  uint32_t* out = p.d_out + rank * d_words;
  const uint32_t lane = tid % 128;
#pragma unroll 1
  for (uint32_t c = 0; c < p.d_cols; c += 16) {
    uint32_t v[16];
    tmem_ld16(tmem + ((warp * 32) << 16) + c, v);
    for (int j = 0; j < 16; ++j) out[lane * p.d_cols + c + j] = v[j];
  }
  sync_group<CG>();
  if (warp == 0) {
    if constexpr (CG == 1) {
      asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem), "r"(kTmemCols));
      asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    } else {
      asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(tmem), "r"(kTmemCols));
      asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
    }
  }
}

}  // namespace
#endif

// One entry per (kind qualifiers, CTA group), 128 threads per CTA.
#ifdef TC5
#define TC5K_BODY(K, CG) \
  body<K, CG>({a_rows, b_rows, a_tmem, sfa, sfb, d_init, descs, d_out, idesc, a_rows_n, b_rows_n, d_cols, sf_path})
#else
#define TC5K_BODY(K, CG)
#endif
#define TC5K_ENTRY(NAME, K, CG)                                                                                  \
  extern "C" __global__ void __launch_bounds__(128)                                                              \
      NAME(const uint8_t* a_rows, const uint8_t* b_rows, const uint32_t* a_tmem, const uint32_t* sfa,           \
           const uint32_t* sfb, const uint32_t* d_init, const uint64_t* descs, uint32_t* d_out, uint32_t idesc,   \
           uint32_t a_rows_n, uint32_t b_rows_n, uint32_t d_cols, uint32_t sf_path) {                            \
    TC5K_BODY(K, CG);                                                                                            \
  }

TC5K_ENTRY(tc5k_f16_cg1, kF16, 1)
TC5K_ENTRY(tc5k_f16_cg2, kF16, 2)
TC5K_ENTRY(tc5k_tf32_cg1, kTF32, 1)
TC5K_ENTRY(tc5k_tf32_cg2, kTF32, 2)
TC5K_ENTRY(tc5k_f8f6f4_cg1, kF8F6F4, 1)
TC5K_ENTRY(tc5k_f8f6f4_cg2, kF8F6F4, 2)
TC5K_ENTRY(tc5k_i8_cg1, kI8, 1)
TC5K_ENTRY(tc5k_i8_cg2, kI8, 2)
TC5K_ENTRY(tc5k_mxf8f6f4_1x_cg1, kMXF8F6F4_1X, 1)
TC5K_ENTRY(tc5k_mxf8f6f4_1x_cg2, kMXF8F6F4_1X, 2)
TC5K_ENTRY(tc5k_mxf4_2x_cg1, kMXF4_2X, 1)
TC5K_ENTRY(tc5k_mxf4_2x_cg2, kMXF4_2X, 2)
TC5K_ENTRY(tc5k_mxf4nvf4_2x_cg1, kMXF4NVF4_2X, 1)
TC5K_ENTRY(tc5k_mxf4nvf4_2x_cg2, kMXF4NVF4_2X, 2)
TC5K_ENTRY(tc5k_mxf4nvf4_4x_cg1, kMXF4NVF4_4X, 1)
TC5K_ENTRY(tc5k_mxf4nvf4_4x_cg2, kMXF4NVF4_4X, 2)
TC5K_ENTRY(tc5k_mxf8f6f4_block32_cg1, kMXF8F6F4_B32, 1)
TC5K_ENTRY(tc5k_mxf8f6f4_block32_cg2, kMXF8F6F4_B32, 2)
TC5K_ENTRY(tc5k_mxf4_block32_cg1, kMXF4_B32, 1)
TC5K_ENTRY(tc5k_mxf4_block32_cg2, kMXF4_B32, 2)
TC5K_ENTRY(tc5k_mxf4nvf4_block16_cg1, kMXF4NVF4_B16, 1)
TC5K_ENTRY(tc5k_mxf4nvf4_block16_cg2, kMXF4NVF4_B16, 2)
