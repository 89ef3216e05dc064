// The sm_100a forms of ldmatrix / stmatrix (8-bit elements, and 6/4-bit elements widened to 8 bits)
// for ldmatrix_sm100_test.cpp. Each kernel is one warp: it copies 32 rows of 16 bytes into shared
// memory, loads with one ldmatrix form (lane l supplies the address of row ld_rows[l]), writes every
// lane's registers to `regs` (lane * 4 + i), stores the same registers with the stmatrix
// .m16n8.trans.b8 form of the same register count (lane l supplies row st_rows[l] of a second
// buffer, filled with 0xEE first) and copies that buffer to `out`. On other targets the kernels are
// empty.
#include <cstdint>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define LDSM100 1
#endif

#ifdef LDSM100
namespace {

__shared__ alignas(16) uint8_t rows_in[32 * 16];
__shared__ alignas(16) uint8_t rows_out[32 * 16];

__device__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ void stage(const uint8_t* in) {
  for (int i = threadIdx.x; i < 32 * 16; i += 32) {
    rows_in[i] = in[i];
    rows_out[i] = 0xEE;
  }
  __syncwarp();
}

__device__ void finish(const uint32_t (&r)[4], uint32_t* regs, uint8_t* out) {
  __syncwarp();
  for (int i = 0; i < 4; ++i) regs[threadIdx.x * 4 + i] = r[i];
  for (int i = threadIdx.x; i < 32 * 16; i += 32) out[i] = rows_out[i];
}

}  // namespace

#define LDSM_LD1(Q) asm volatile("ldmatrix.sync.aligned." Q " {%0}, [%1];" : "=r"(r[0]) : "r"(src) : "memory")
#define LDSM_LD2(Q) \
  asm volatile("ldmatrix.sync.aligned." Q " {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(src) : "memory")
#define LDSM_LD4(Q)                                                                                  \
  asm volatile("ldmatrix.sync.aligned." Q " {%0, %1, %2, %3}, [%4];"                                 \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(src) : "memory")
#define LDSM_ST1(Q) asm volatile("stmatrix.sync.aligned." Q " [%0], {%1};" ::"r"(dst), "r"(r[0]) : "memory")
#define LDSM_ST2(Q) asm volatile("stmatrix.sync.aligned." Q " [%0], {%1, %2};" ::"r"(dst), "r"(r[0]), "r"(r[1]) : "memory")
#define LDSM_ST4(Q)                                                                                               \
  asm volatile("stmatrix.sync.aligned." Q " [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(r[0]), "r"(r[1]), "r"(r[2]), \
               "r"(r[3]) : "memory")
#define LDSM_BODY(NREG, LDQ, STQ)                                        \
  stage(in);                                                             \
  uint32_t r[4] = {0, 0, 0, 0};                                          \
  const uint32_t src = smem_u32(rows_in + 16 * ld_rows[threadIdx.x]);    \
  const uint32_t dst = smem_u32(rows_out + 16 * st_rows[threadIdx.x]);   \
  LDSM_LD##NREG(LDQ);                                                    \
  LDSM_ST##NREG(STQ);                                                    \
  finish(r, regs, out);
#else
#define LDSM_BODY(NREG, LDQ, STQ)
#endif

#define LDSM_KERNEL(NAME, NREG, LDQ, STQ)                                                                      \
  extern "C" __global__ void NAME(const uint8_t* in, const uint32_t* ld_rows, const uint32_t* st_rows,         \
                                  uint32_t* regs, uint8_t* out) {                                              \
    LDSM_BODY(NREG, LDQ, STQ)                                                                                  \
  }

// m16n16 (x1: 2 registers, x2: 4) with the stmatrix m16n8 of as many registers.
LDSM_KERNEL(ldsm_m16n16_x1_b8, 2, "m16n16.x1.trans.shared.b8", "m16n8.x2.trans.shared.b8")
LDSM_KERNEL(ldsm_m16n16_x2_b8, 4, "m16n16.x2.trans.shared.b8", "m16n8.x4.trans.shared.b8")
LDSM_KERNEL(ldsm_m16n16_x1_b6, 2, "m16n16.x1.trans.shared.b8x16.b6x16_p32", "m16n8.x2.trans.shared.b8")
LDSM_KERNEL(ldsm_m16n16_x2_b6, 4, "m16n16.x2.trans.shared.b8x16.b6x16_p32", "m16n8.x4.trans.shared.b8")
LDSM_KERNEL(ldsm_m16n16_x1_b4, 2, "m16n16.x1.trans.shared.b8x16.b4x16_p64", "m16n8.x2.trans.shared.b8")
LDSM_KERNEL(ldsm_m16n16_x2_b4, 4, "m16n16.x2.trans.shared.b8x16.b4x16_p64", "m16n8.x4.trans.shared.b8")
// m8n16 (xN: N registers) with the stmatrix m16n8 .xN.
LDSM_KERNEL(ldsm_m8n16_x1_b6, 1, "m8n16.x1.shared.b8x16.b6x16_p32", "m16n8.x1.trans.shared.b8")
LDSM_KERNEL(ldsm_m8n16_x2_b6, 2, "m8n16.x2.shared.b8x16.b6x16_p32", "m16n8.x2.trans.shared.b8")
LDSM_KERNEL(ldsm_m8n16_x4_b6, 4, "m8n16.x4.shared.b8x16.b6x16_p32", "m16n8.x4.trans.shared.b8")
LDSM_KERNEL(ldsm_m8n16_x1_b4, 1, "m8n16.x1.shared.b8x16.b4x16_p64", "m16n8.x1.trans.shared.b8")
LDSM_KERNEL(ldsm_m8n16_x2_b4, 2, "m8n16.x2.shared.b8x16.b4x16_p64", "m16n8.x2.trans.shared.b8")
LDSM_KERNEL(ldsm_m8n16_x4_b4, 4, "m8n16.x4.shared.b8x16.b4x16_p64", "m16n8.x4.trans.shared.b8")
