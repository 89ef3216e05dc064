// A Hopper (sm_90a) GEMM as a whole program: the host encodes 128-byte-swizzled tensor maps for A
// and Bt through cudaGetDriverEntryPoint("cuTensorMapEncodeTiled"); each CTA (one warpgroup)
// computes a 64 x 64 tile of D = A * B by loading 64-wide K blocks with the TMA on an mbarrier and
// issuing four wgmma.mma_async.m64n64k16 (BF16 in, F32 accumulators in registers) per block. The
// host checks every element against a CPU GEMM (inputs are small multiples of 1/8: sums are exact).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

constexpr int kTile = 64, kBlockK = 64;  // K block: one 128-byte swizzle row of BF16

// wgmma matrix descriptor, K-major with the 128-byte swizzle: start >> 4 (bits 13:0), leading byte
// offset 1 (29:16, unused), stride byte offset 1024 >> 4 = 8 rows (45:32), layout 1 = 128B (63:62).
__device__ uint64_t smem_desc(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 | uint64_t(1) << 62;
}

__device__ void mma_k64(float (&d)[32], uint32_t sa, uint32_t sb) {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)  // K = 16 per wgmma: 32 bytes along the swizzled row
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, 1, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(smem_desc(sa + 32 * kk)), "l"(smem_desc(sb + 32 * kk)));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

__global__ void __launch_bounds__(128) gemm_wgmma(const __grid_constant__ CUtensorMap map_a,
                                                  const __grid_constant__ CUtensorMap map_bt, float* d_out, int n,
                                                  int k) {
  __shared__ alignas(1024) uint8_t sa[kTile * 128];
  __shared__ alignas(1024) uint8_t sb[kTile * 128];
  __shared__ alignas(8) uint64_t bar;
  const int tid = threadIdx.x, m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  const uint32_t bar_addr = uint32_t(__cvta_generic_to_shared(&bar));
  const uint32_t a_addr = uint32_t(__cvta_generic_to_shared(sa)), b_addr = uint32_t(__cvta_generic_to_shared(sb));
  if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
  __syncthreads();
  float d[32] = {};
  for (int kb = 0; kb < k / kBlockK; ++kb) {
    if (tid == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(int(sizeof sa + sizeof sb))
                   : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(a_addr), "l"(&map_a), "r"(kb * kBlockK), "r"(m0), "r"(bar_addr) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(b_addr), "l"(&map_bt), "r"(kb * kBlockK), "r"(n0), "r"(bar_addr) : "memory");
    }
    asm volatile(
        "{\n .reg .pred p;\n"
        "$wait_%=:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        " @!p bra $wait_%=;\n}" ::"r"(bar_addr),
        "r"(uint32_t(kb & 1))
        : "memory");
    mma_k64(d, a_addr, b_addr);
    __syncthreads();  // every warp has finished reading the tiles before the next loads overwrite them
  }
  // Accumulator fragment: register i of lane l in warp w is element
  // (16w + l/4 + 8*((i/2)%2), 8*(i/4) + 2*(l%4) + i%2).
  const int w = tid / 32, lane = tid % 32;
  for (int i = 0; i < 32; ++i) {
    const int row = 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
    d_out[size_t(m0 + row) * n + n0 + col] = d[i];
  }
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// A K-major BF16 matrix [rows x k], box [64 rows x 64], 128-byte swizzle.
CUtensorMap encode_k_major(EncodeTiled encode, void* base, int rows, int k) {
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)}, strides[1] = {cuuint64_t(k) * 2};
  cuuint32_t box[2] = {kBlockK, kTile}, elem_strides[2] = {1, 1};
  EXPECT(encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, elem_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  return map;
}

uint16_t to_bf16(float f) {  // exact for the values used here
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t(u >> 16);
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const int m = kTile * (1 + int(rng() % 2)), n = kTile * (1 + int(rng() % 2)), k = kBlockK * (2 + int(rng() % 2));
  std::printf("D[%d x %d] = A[%d x %d] * B[%d x %d]\n", m, n, m, k, k, n);

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
  const CUtensorMap map_a = encode_k_major(encode, da, m, k), map_bt = encode_k_major(encode, dbt, n, k);

  gemm_wgmma<<<dim3(n / kTile, m / kTile), 128>>>(map_a, map_bt, dd, n, k);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> d(size_t(m) * n);
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int kk = 0; kk < k; ++kk) want += a[size_t(i) * k + kk] * bt[size_t(j) * k + kk];
      if (d[size_t(i) * n + j] != want) {
        std::fprintf(stderr, "D[%d][%d] = %g, expected %g\n", i, j, d[size_t(i) * n + j], want);
        return 1;
      }
    }
  std::printf("wgmma_gemm: PASS\n");
  return 0;
}
