// A TMA tile load whose tensor map the host encodes through the driver entry point
// (cudaGetDriverEntryPoint("cuTensorMapEncodeTiled")), as CUTLASS-style programs do without linking
// libcuda. The tile hangs over the matrix edge, so the out-of-bounds part must arrive as zeros.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

// cudaGetDriverEntryPoint is deprecated in CUDA 13 in favour of ...ByVersion; programs still call it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

constexpr int kRows = 100, kCols = 72;        // row pitch 288 bytes, a multiple of 16
constexpr int kBoxRows = 16, kBoxCols = 32;

__global__ void load_tile(const __grid_constant__ CUtensorMap map, int x0, int y0, float* out) {
  __shared__ alignas(128) float tile[kBoxRows][kBoxCols];
  __shared__ alignas(8) uint64_t bar;
  uint32_t bar_addr = uint32_t(__cvta_generic_to_shared(&bar));
  uint32_t tile_addr = uint32_t(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(int(sizeof tile)));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(tile_addr), "l"(&map), "r"(x0), "r"(y0), "r"(bar_addr)
        : "memory");
  }
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      " @!done bra wait_%=;\n}" ::"r"(bar_addr)
      : "memory");
  for (int i = threadIdx.x; i < kBoxRows * kBoxCols; i += blockDim.x) out[i] = tile[i / kBoxCols][i % kBoxCols];
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  std::vector<float> m(kRows * kCols);
  for (float& v : m) v = float(rng() % 1000) / 8.f + 1.f;  // never 0, so zero fill is visible
  const int x0 = 8 * int(rng() % 7) + 40, y0 = int(rng() % 12) + 90;  // overhangs the right and bottom edges
  std::printf("tile at column %d, row %d\n", x0, y0);

  float *dm, *dout;
  CHECK(cudaMalloc(&dm, m.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, kBoxRows * kBoxCols * sizeof(float)));
  CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0xff, kBoxRows * kBoxCols * sizeof(float)));

  using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status));
  EXPECT(status == cudaDriverEntryPointSuccess && fn != nullptr);
  CUtensorMap map;
  cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * sizeof(float)};
  cuuint32_t box[2] = {kBoxCols, kBoxRows}, elem_strides[2] = {1, 1};
  CUresult r = reinterpret_cast<EncodeTiled>(fn)(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dm, dims, strides, box,
                                                 elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                 CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT(r == CUDA_SUCCESS);
  // The encoder validates like the driver: a box wider than 256 elements is rejected.
  cuuint32_t bad_box[2] = {512, kBoxRows};
  CUtensorMap bad;
  EXPECT(reinterpret_cast<EncodeTiled>(fn)(&bad, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dm, dims, strides, bad_box,
                                           elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                           CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);

  // cuTensorMapEncodeIm2col comes through the same door: an NHWC float tensor, 32 channels per pixel.
  using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                    const cuuint64_t*, const int*, const int*, cuuint32_t, cuuint32_t,
                                    const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeIm2col", &fn, cudaEnableDefault, &status));
  EXPECT(status == cudaDriverEntryPointSuccess && fn != nullptr);
  cuuint64_t nhwc[4] = {64, 8, 8, 2}, nhwc_strides[3] = {64 * 4, 64 * 4 * 8, 64 * 4 * 64};
  int lower[2] = {-1, -1}, upper[2] = {-1, -1};
  cuuint32_t ones[4] = {1, 1, 1, 1};
  CUtensorMap im2col;
  EXPECT(reinterpret_cast<EncodeIm2col>(fn)(&im2col, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, dm, nhwc, nhwc_strides, lower,
                                            upper, 32, 64, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  // An unknown driver function is "not found", not a crash.
  CHECK(cudaGetDriverEntryPoint("cuNoSuchFunction", &fn, cudaEnableDefault, &status));
  EXPECT(status == cudaDriverEntryPointSymbolNotFound && fn == nullptr);

  load_tile<<<1, 128>>>(map, x0, y0, dout);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(kBoxRows * kBoxCols);
  CHECK(cudaMemcpy(got.data(), dout, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < kBoxRows; ++r)
    for (int c = 0; c < kBoxCols; ++c) {
      int gr = y0 + r, gc = x0 + c;
      float want = gr < kRows && gc < kCols ? m[gr * kCols + gc] : 0.f;
      float have = got[r * kBoxCols + c];
      if (std::memcmp(&want, &have, 4) != 0) {
        std::fprintf(stderr, "tile[%d][%d] = %g, want %g\n", r, c, have, want);
        return 1;
      }
    }
  std::printf("tma_load: PASS\n");
  return 0;
}
