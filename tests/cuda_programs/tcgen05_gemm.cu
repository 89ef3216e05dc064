// A Blackwell (sm_100a) GEMM as a whole program: the host encodes 128-byte-swizzled tensor maps for
// A and B through cudaGetDriverEntryPoint("cuTensorMapEncodeTiled"); each CTA computes a
// 128 x 64 tile of D = A * B^T by streaming K blocks of 64 through shared memory with TMA loads
// (mbarrier complete_tx), issuing tcgen05.mma (kind::f16, BF16 in, F32 accumulator in Tensor
// Memory), committing to an mbarrier, and finally reading the accumulator with tcgen05.ld. The host
// checks every element against a CPU GEMM (inputs are small multiples of 1/8, so sums are exact).
// Build: -gencode arch=compute_100a,code=compute_100a; run: ptxsim exec --arch sm_100a --device b200.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

constexpr int kTileM = 128, kTileN = 64, kBlockK = 64;  // K block: one 128-byte swizzle row of BF16
constexpr int kThreads = 128;                           // 4 warps: one per 32 Tensor Memory lanes

__device__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Shared-memory matrix descriptor for a K-major operand as TMA's 128-byte swizzle lays it out
// (row r at r*128 bytes, 16-byte chunk c at c ^ (r % 8)): start >> 4 (bits 13:0), leading byte
// offset 16 (29:16, unused with swizzling), stride byte offset 1024 = 8 rows (45:32), version 1
// (bit 46), swizzle mode 2 = 128B (63:61).
__device__ uint64_t smem_desc(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(16 >> 4) << 16 | uint64_t(1024 >> 4) << 32 | 1ull << 46 |
         2ull << 61;
}

// Instruction descriptor for kind::f16: D is F32 (bits 5:4 = 1), A and B are BF16 (9:7 = 1,
// 12:10 = 1), both K-major (bits 15, 16 = 0), N >> 3 (22:17), M >> 4 (28:24).
constexpr uint32_t kIdesc = 1u << 4 | 1u << 7 | 1u << 10 | uint32_t(kTileN >> 3) << 17 | uint32_t(kTileM >> 4) << 24;

__device__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "$wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra $wait_%=;\n}" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

__device__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(smem_u32(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar))
      : "memory");
}

// D[M x N] (f32, row-major) = A[M x K] (bf16, row-major) * B where B is given as Bt[N x K].
__global__ void __launch_bounds__(kThreads) gemm_tcgen05(const __grid_constant__ CUtensorMap map_a,
                                                         const __grid_constant__ CUtensorMap map_bt, float* d,
                                                         int n, int k) {
  __shared__ alignas(1024) uint8_t sa[kTileM * 128];
  __shared__ alignas(1024) uint8_t sb[kTileN * 128];
  __shared__ alignas(8) uint64_t loaded, mma_done;
  __shared__ uint32_t tmem_slot;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(&tmem_slot)),
                 "r"(kTileN));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&loaded)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&mma_done)));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_slot;

  for (int kb = 0; kb < k / kBlockK; ++kb) {
    const uint32_t parity = uint32_t(kb & 1);
    if (tid == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&loaded)),
                   "r"(int(sizeof sa + sizeof sb)));
      tma_load_2d(sa, &map_a, kb * kBlockK, m0, &loaded);
      tma_load_2d(sb, &map_bt, kb * kBlockK, n0, &loaded);
      mbar_wait(&loaded, parity);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
      for (int kk = 0; kk < kBlockK / 16; ++kk) {  // K = 16 per MMA: 32 bytes along the swizzled row
        const uint32_t accumulate = kb > 0 || kk > 0;
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
            " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem),
            "l"(smem_desc(smem_u32(sa) + 32 * kk)), "l"(smem_desc(smem_u32(sb) + 32 * kk)), "r"(kIdesc),
            "r"(accumulate));
      }
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                       smem_u32(&mma_done))
                   : "memory");
      mbar_wait(&mma_done, parity);  // the MMAs have read sa/sb: the next K block may overwrite them
    }
    __syncwarp();
  }
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  // Warp w reads Tensor Memory lanes 32w..32w+31 (accumulator rows); thread = row, 16 columns a time.
  const int row = m0 + warp * 32 + lane;
  for (int c = 0; c < kTileN; c += 16) {
    uint32_t v[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15}, [%16];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]),
          "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
        : "r"(tmem + (uint32_t(warp * 32) << 16) + uint32_t(c)));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int j = 0; j < 16; ++j) d[size_t(row) * n + n0 + c + j] = __uint_as_float(v[j]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem), "r"(kTileN));
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// A K-major BF16 matrix [rows x k] with a box of [box_rows x 64] and the 128-byte swizzle.
CUtensorMap encode_k_major(EncodeTiled encode, void* base, int rows, int k, int box_rows) {
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)}, strides[1] = {cuuint64_t(k) * 2};
  cuuint32_t box[2] = {kBlockK, cuuint32_t(box_rows)}, elem_strides[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, elem_strides,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT(r == CUDA_SUCCESS);
  return map;
}

uint16_t to_bf16(float f) {  // exact for the values used here
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t(u >> 16);
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const int m = kTileM * (1 + int(rng() % 2)), n = kTileN * (1 + int(rng() % 2)), k = kBlockK * (2 + int(rng() % 2));
  std::printf("D[%d x %d] = A[%d x %d] * B[%d x %d]\n", m, n, m, k, k, n);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.major == 10);

  std::vector<float> a(size_t(m) * k), bt(size_t(n) * k);
  for (float& v : a) v = float(int(rng() % 17) - 8) / 8.f;
  for (float& v : bt) v = float(int(rng() % 17) - 8) / 8.f;
  std::vector<uint16_t> a16(a.size()), bt16(bt.size());
  for (size_t i = 0; i < a.size(); ++i) a16[i] = to_bf16(a[i]);
  for (size_t i = 0; i < bt.size(); ++i) bt16[i] = to_bf16(bt[i]);

  uint16_t *da, *dbt;
  float* dd;
  CHECK(cudaMalloc(&da, a16.size() * 2));
  CHECK(cudaMalloc(&dbt, bt16.size() * 2));
  CHECK(cudaMalloc(&dd, size_t(m) * n * sizeof(float)));
  CHECK(cudaMemcpy(da, a16.data(), a16.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbt, bt16.data(), bt16.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dd, 0xff, size_t(m) * n * sizeof(float)));  // NaN poison

  void* fn = nullptr;
  CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault));
  const EncodeTiled encode = reinterpret_cast<EncodeTiled>(fn);
  const CUtensorMap map_a = encode_k_major(encode, da, m, k, kTileM);
  const CUtensorMap map_bt = encode_k_major(encode, dbt, n, k, kTileN);

  gemm_tcgen05<<<dim3(n / kTileN, m / kTileM), kThreads>>>(map_a, map_bt, dd, n, k);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> d(size_t(m) * n);
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost));

  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int kk = 0; kk < k; ++kk) want += a[size_t(i) * k + kk] * bt[size_t(j) * k + kk];
      const float got = d[size_t(i) * n + j];
      if (got != want) {
        std::fprintf(stderr, "D[%d][%d] = %g, expected %g\n", i, j, got, want);
        return 1;
      }
    }
  std::printf("tcgen05_gemm: PASS\n");
  return 0;
}
