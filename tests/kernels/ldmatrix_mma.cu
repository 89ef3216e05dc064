// ldmatrix / stmatrix round trips and an mma.sync GEMM fed by ldmatrix, for ldmatrix_mma_test.cpp.
//   ldst_roundtrip<NUM, TRANS>: 32 threads load NUM 8x8 b16 matrices from shared memory with
//     ldmatrix (row addresses from threads 8i..8i+7 for matrix i), dump every thread's registers,
//     and store them back with stmatrix of the same shape into a second buffer.
//   mma_gemm_bf16: D[16][8] = A[16][K] * B[K][8] (+ 0), K = 16 * k_tiles, with A and B^T in shared
//     memory, fragments loaded by ldmatrix.x4 / .x2 and multiplied by mma.sync m16n8k16 bf16 -> f32.
#include <cstdint>

template <int NUM, bool TRANS>
__device__ void ldmatrix(uint32_t (&r)[4], uint32_t addr) {
  if constexpr (NUM == 1 && !TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if constexpr (NUM == 1 && TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if constexpr (NUM == 2 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if constexpr (NUM == 2 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if constexpr (NUM == 4 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  if constexpr (NUM == 4 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

template <int NUM, bool TRANS>
__device__ void stmatrix(const uint32_t (&r)[4], uint32_t addr) {
  if constexpr (NUM == 1 && !TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
  if constexpr (NUM == 1 && TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
  if constexpr (NUM == 2 && !TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1]) : "memory");
  if constexpr (NUM == 2 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1]) : "memory");
  if constexpr (NUM == 4 && !TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]), "r"(r[1]),
                 "r"(r[2]), "r"(r[3]) : "memory");
  if constexpr (NUM == 4 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}

__device__ uint32_t smem_addr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

template <int NUM, bool TRANS>
__device__ void roundtrip(const uint16_t* in, uint32_t* regs_out, uint16_t* out) {
  __shared__ alignas(16) uint16_t a[4 * 64], b[4 * 64];
  const int lane = threadIdx.x;
  for (int i = lane; i < 4 * 64; i += 32) {
    a[i] = in[i];
    b[i] = 0xDEAD;
  }
  __syncwarp();
  // Thread l supplies the address of row l % 8 of matrix l / 8 (threads 8*NUM.. are ignored).
  const int m = (lane / 8) % NUM, row = lane % 8;
  uint32_t r[4] = {0, 0, 0, 0};
  ldmatrix<NUM, TRANS>(r, smem_addr(&a[m * 64 + row * 8]));
  for (int i = 0; i < 4; ++i) regs_out[lane * 4 + i] = r[i];
  stmatrix<NUM, TRANS>(r, smem_addr(&b[m * 64 + row * 8]));
  __syncwarp();
  for (int i = lane; i < 4 * 64; i += 32) out[i] = b[i];
}

__global__ void ldst_x1(const uint16_t* in, uint32_t* regs, uint16_t* out) { roundtrip<1, false>(in, regs, out); }
__global__ void ldst_x1_trans(const uint16_t* in, uint32_t* regs, uint16_t* out) { roundtrip<1, true>(in, regs, out); }
__global__ void ldst_x2(const uint16_t* in, uint32_t* regs, uint16_t* out) { roundtrip<2, false>(in, regs, out); }
__global__ void ldst_x2_trans(const uint16_t* in, uint32_t* regs, uint16_t* out) { roundtrip<2, true>(in, regs, out); }
__global__ void ldst_x4(const uint16_t* in, uint32_t* regs, uint16_t* out) { roundtrip<4, false>(in, regs, out); }
__global__ void ldst_x4_trans(const uint16_t* in, uint32_t* regs, uint16_t* out) { roundtrip<4, true>(in, regs, out); }

constexpr int kMaxK = 256;

__global__ void mma_gemm_bf16(const uint16_t* A, const uint16_t* Bt, float* D, int k_tiles) {
  __shared__ alignas(16) uint16_t a[16 * kMaxK], bt[8 * kMaxK];
  const int lane = threadIdx.x, K = 16 * k_tiles;
  for (int i = lane; i < 16 * K; i += 32) a[i] = A[i];
  for (int i = lane; i < 8 * K; i += 32) bt[i] = Bt[i];
  __syncwarp();
  float d[4] = {0, 0, 0, 0};
  for (int kt = 0; kt < k_tiles; ++kt) {
    // A fragments: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
    uint32_t ra[4], rb[4];
    const int am = lane / 8, arow = (am % 2) * 8 + lane % 8, acol = kt * 16 + (am / 2) * 8;
    ldmatrix<4, false>(ra, smem_addr(&a[arow * K + acol]));
    // B^T fragments: matrices (n 0-7, k 0-7), (n 0-7, k 8-15); threads 16-31 repeat 0-15.
    const int bm = (lane / 8) % 2, brow = lane % 8, bcol = kt * 16 + bm * 8;
    ldmatrix<2, false>(rb, smem_addr(&bt[brow * K + bcol]));
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  }
  // D fragment: d0, d1 at row g, columns 2t, 2t+1; d2, d3 at row g + 8.
  const int g = lane / 4, t = lane % 4;
  D[g * 8 + 2 * t] = d[0];
  D[g * 8 + 2 * t + 1] = d[1];
  D[(g + 8) * 8 + 2 * t] = d[2];
  D[(g + 8) * 8 + 2 * t + 1] = d[3];
}
