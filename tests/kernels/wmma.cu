// nvcuda::wmma kernels for wmma_test.cpp: one warp computes D = 2 * (A * B + C) for one tile through
// load_matrix_sync / mma_sync / store_matrix_sync, in every shape and element type (f16 with f32 and
// f16 accumulators, bf16, tf32, s8, u8, f64, and the experimental s4, u4 and b1), with A and B in
// either layout, A read from shared memory or global memory, row strides (lda, ...) given at run
// time, C loaded and D stored in either layout. The doubling is a uniform change of the accumulator
// fragment's elements, which the PTX ISA allows without knowing the fragment's layout.
#include <cuda_bf16.h>
#include <mma.h>

#include <cstdint>

using namespace nvcuda;

template <class L>
constexpr bool is_row = std::is_same_v<L, wmma::row_major>;

// A is M x K, B is K x N, C and D are M x N; lda .. ldd are the strides of their storage layouts
// (row-major: elements from one row to the next; column-major: from one column to the next).
template <int M, int N, int K, class FA, class FB, class TAcc, class LA, class LB, class TA, class TB>
__device__ void tile(const TA* a, const TB* b, const TAcc* c, TAcc* d, int lda, int ldb, int ldc, int ldd, bool a_shared,
                     bool c_row, bool d_row) {
  wmma::fragment<wmma::matrix_a, M, N, K, FA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, FB, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
  __shared__ __align__(128) unsigned char sa[8192];
  if (a_shared) {  // copy A's storage (with its stride) to shared memory and load it from there
    const int n = (is_row<LA> ? M * lda : K * lda) * int(sizeof(TA));
    for (int i = int(threadIdx.x); i < n; i += 32) sa[i] = reinterpret_cast<const unsigned char*>(a)[i];
    __syncwarp();
    wmma::load_matrix_sync(fa, reinterpret_cast<const TA*>(sa), lda);
  } else {
    wmma::load_matrix_sync(fa, a, lda);
  }
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, c_row ? wmma::mem_row_major : wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = fc.x[i] + fc.x[i];
  wmma::store_matrix_sync(d, fc, ldd, d_row ? wmma::mem_row_major : wmma::mem_col_major);
}

#define WMMA_PARAMS(TA, TB, TC) \
  const TA *a, const TB *b, const TC *c, TC *d, int lda, int ldb, int ldc, int ldd, int a_shared, int c_row, int d_row
#define WMMA_ARGS a, b, c, d, lda, ldb, ldc, ldd, a_shared != 0, c_row != 0, d_row != 0

// Half-precision multiplicands, f32 and f16 accumulators, every shape and A/B layout.
#define F16_KERNEL(NAME, M, N, K, LA, LB, ACC)                                         \
  __global__ void NAME(WMMA_PARAMS(half, half, ACC)) {                                   \
    tile<M, N, K, half, half, ACC, wmma::LA, wmma::LB>(WMMA_ARGS);                       \
  }
F16_KERNEL(wmma_f16_m16n16k16_rr_f32, 16, 16, 16, row_major, row_major, float)
F16_KERNEL(wmma_f16_m16n16k16_rc_f32, 16, 16, 16, row_major, col_major, float)
F16_KERNEL(wmma_f16_m16n16k16_cr_f32, 16, 16, 16, col_major, row_major, float)
F16_KERNEL(wmma_f16_m16n16k16_cc_f32, 16, 16, 16, col_major, col_major, float)
F16_KERNEL(wmma_f16_m32n8k16_rc_f32, 32, 8, 16, row_major, col_major, float)
F16_KERNEL(wmma_f16_m8n32k16_cr_f32, 8, 32, 16, col_major, row_major, float)
F16_KERNEL(wmma_f16_m16n16k16_rc_f16, 16, 16, 16, row_major, col_major, half)
F16_KERNEL(wmma_f16_m32n8k16_cc_f16, 32, 8, 16, col_major, col_major, half)
F16_KERNEL(wmma_f16_m8n32k16_rr_f16, 8, 32, 16, row_major, row_major, half)

__global__ void wmma_bf16_m16n16k16_rc(WMMA_PARAMS(__nv_bfloat16, __nv_bfloat16, float)) {
  tile<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, wmma::row_major, wmma::col_major>(WMMA_ARGS);
}
__global__ void wmma_bf16_m32n8k16_cr(WMMA_PARAMS(__nv_bfloat16, __nv_bfloat16, float)) {
  tile<32, 8, 16, __nv_bfloat16, __nv_bfloat16, float, wmma::col_major, wmma::row_major>(WMMA_ARGS);
}
__global__ void wmma_bf16_m8n32k16_rr(WMMA_PARAMS(__nv_bfloat16, __nv_bfloat16, float)) {
  tile<8, 32, 16, __nv_bfloat16, __nv_bfloat16, float, wmma::row_major, wmma::row_major>(WMMA_ARGS);
}

__global__ void wmma_s8_m16n16k16_rc(WMMA_PARAMS(signed char, signed char, int)) {
  tile<16, 16, 16, signed char, signed char, int, wmma::row_major, wmma::col_major>(WMMA_ARGS);
}
__global__ void wmma_u8_m32n8k16_cr(WMMA_PARAMS(unsigned char, unsigned char, int)) {
  tile<32, 8, 16, unsigned char, unsigned char, int, wmma::col_major, wmma::row_major>(WMMA_ARGS);
}
__global__ void wmma_s8_m8n32k16_rr(WMMA_PARAMS(signed char, signed char, int)) {
  tile<8, 32, 16, signed char, signed char, int, wmma::row_major, wmma::row_major>(WMMA_ARGS);
}

__global__ void wmma_f64_m8n8k4_rc(WMMA_PARAMS(double, double, double)) {
  tile<8, 8, 4, double, double, double, wmma::row_major, wmma::col_major>(WMMA_ARGS);
}
__global__ void wmma_f64_m8n8k4_cr(WMMA_PARAMS(double, double, double)) {
  tile<8, 8, 4, double, double, double, wmma::col_major, wmma::row_major>(WMMA_ARGS);
}

// tf32: the fragments are loaded from f32 storage and rounded to tf32 element by element (a uniform
// change); the inputs of the test are exact in tf32 already.
template <class LA, class LB>
__device__ void tile_tf32(const float* a, const float* b, const float* c, float* d, int lda, int ldb, int ldc, int ldd,
                          bool c_row, bool d_row) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, LA> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, LB> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::load_matrix_sync(fc, c, ldc, c_row ? wmma::mem_row_major : wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = fc.x[i] + fc.x[i];
  wmma::store_matrix_sync(d, fc, ldd, d_row ? wmma::mem_row_major : wmma::mem_col_major);
}
__global__ void wmma_tf32_m16n16k8_rc(WMMA_PARAMS(float, float, float)) {
  tile_tf32<wmma::row_major, wmma::col_major>(a, b, c, d, lda, ldb, ldc, ldd, c_row != 0, d_row != 0);
}
__global__ void wmma_tf32_m16n16k8_cr(WMMA_PARAMS(float, float, float)) {
  tile_tf32<wmma::col_major, wmma::row_major>(a, b, c, d, lda, ldb, ldc, ldd, c_row != 0, d_row != 0);
}

// Sub-byte and single-bit (nvcuda::wmma::experimental): A row-major, B column-major, 8 x 8 tiles;
// the strides are in elements (multiples of 32 for s4/u4, 128 for b1).
template <class P>
__device__ void tile_sub(const void* a, const void* b, const int* c, int* d, int lda, int ldb, int ldc, int ldd, bool c_row,
                         bool d_row, bool use_and) {
  constexpr int K = std::is_same_v<P, wmma::experimental::precision::b1> ? 128 : 32;
  wmma::fragment<wmma::matrix_a, 8, 8, K, P, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, K, P, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, K, int> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, c_row ? wmma::mem_row_major : wmma::mem_col_major);
  if constexpr (std::is_same_v<P, wmma::experimental::precision::b1>) {
    if (use_and)
      wmma::bmma_sync(fc, fa, fb, fc, wmma::experimental::bmmaBitOpAND);
    else
      wmma::bmma_sync(fc, fa, fb, fc, wmma::experimental::bmmaBitOpXOR);
  } else {
    wmma::mma_sync(fc, fa, fb, fc);
  }
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = fc.x[i] + fc.x[i];
  wmma::store_matrix_sync(d, fc, ldd, d_row ? wmma::mem_row_major : wmma::mem_col_major);
}
__global__ void wmma_s4_m8n8k32(WMMA_PARAMS(uint8_t, uint8_t, int)) {
  tile_sub<wmma::experimental::precision::s4>(a, b, c, d, lda, ldb, ldc, ldd, c_row != 0, d_row != 0, false);
}
__global__ void wmma_u4_m8n8k32(WMMA_PARAMS(uint8_t, uint8_t, int)) {
  tile_sub<wmma::experimental::precision::u4>(a, b, c, d, lda, ldb, ldc, ldd, c_row != 0, d_row != 0, false);
}
__global__ void wmma_b1_m8n8k128(WMMA_PARAMS(uint8_t, uint8_t, int)) {
  tile_sub<wmma::experimental::precision::b1>(a, b, c, d, lda, ldb, ldc, ldd, c_row != 0, d_row != 0, a_shared != 0);
}
