// The classic tensor-core GEMM of CUDA tutorials as a whole program: C = alpha * A * B + beta * C
// with nvcuda::wmma, one warp per 16 x 16 tile of C, A row-major and B column-major (M x K and
// K x N, half), C float. The host checks every element against a CPU GEMM (inputs are small
// integers, so every sum is exact).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <vector>

#include "check.h"

using namespace nvcuda;

constexpr int kT = 16;

__global__ void wmma_gemm(const half* a, const half* b, float* c, int m, int n, int k, float alpha, float beta) {
  const int warp = int(blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_m = warp / (n / kT), tile_n = warp % (n / kT);
  if (tile_m >= m / kT) return;
  wmma::fragment<wmma::matrix_a, kT, kT, kT, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, kT, kT, kT, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, kT, kT, kT, float> acc, fc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += kT) {
    wmma::load_matrix_sync(fa, a + size_t(tile_m) * kT * k + kk, k);
    wmma::load_matrix_sync(fb, b + size_t(tile_n) * kT * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  float* ct = c + size_t(tile_m) * kT * n + size_t(tile_n) * kT;
  wmma::load_matrix_sync(fc, ct, n, wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
  wmma::store_matrix_sync(ct, fc, n, wmma::mem_row_major);
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const int m = 64, n = 48, k = 128;
  const float alpha = 2.0f, beta = -1.0f;
  std::vector<float> af(size_t(m) * k), bf(size_t(k) * n), cf(size_t(m) * n);  // B column-major: (kk, j) at j * k + kk
  for (auto& x : af) x = float(int(rng() % 9) - 4);
  for (auto& x : bf) x = float(int(rng() % 9) - 4);
  for (auto& x : cf) x = float(int(rng() % 17) - 8);
  std::vector<half> ah(af.begin(), af.end()), bh(bf.begin(), bf.end());
  half *da, *db;
  float* dc;
  CHECK(cudaMalloc(&da, ah.size() * sizeof(half)));
  CHECK(cudaMalloc(&db, bh.size() * sizeof(half)));
  CHECK(cudaMalloc(&dc, cf.size() * sizeof(float)));
  CHECK(cudaMemcpy(da, ah.data(), ah.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bh.data(), bh.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, cf.data(), cf.size() * sizeof(float), cudaMemcpyHostToDevice));
  const int warps = (m / kT) * (n / kT);
  wmma_gemm<<<(warps * 32 + 127) / 128, 128>>>(da, db, dc, m, n, k, alpha, beta);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> c(cf.size());
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int kk = 0; kk < k; ++kk) s += af[size_t(i) * k + kk] * bf[size_t(j) * k + kk];
      const float want = alpha * s + beta * cf[size_t(i) * n + j];
      if (c[size_t(i) * n + j] != want) {
        std::fprintf(stderr, "C[%d][%d] = %g, expected %g\n", i, j, c[size_t(i) * n + j], want);
        return 1;
      }
    }
  std::printf("wmma_gemm: PASS\n");
  return 0;
}
