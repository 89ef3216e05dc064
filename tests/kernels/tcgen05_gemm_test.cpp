// tests/kernels/tcgen05_gemm.cu on sm_100a: the tiled bf16 GEMM the benchmark runs (128 x 128 tiles
// of D in Tensor Memory, K in 64-wide blocks reusing shared memory behind an mbarrier), on a
// 256 x 128 x 192 problem with small-integer inputs, so the exact CPU sum is the reference.
#include <bit>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

class Tcgen05GemmKernel : public KernelTest {};

TEST_P(Tcgen05GemmKernel, TiledBf16GemmMatchesTheExactSum) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_gemm");
  if (GetParam() != "sm_100a") return;
  constexpr int M = 256, N = 128, K = 192;
  std::mt19937_64 rng(seed);
  auto bf16 = [](int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); };
  std::vector<int> A(M * K), B(N * K);
  for (int& x : A) x = int(rng() % 17) - 8;
  for (int& x : B) x = int(rng() % 17) - 8;
  std::vector<uint16_t> a, bt;
  for (int x : A) a.push_back(bf16(x));
  for (int x : B) bt.push_back(bf16(x));
  std::vector<float> want(M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(A[m * K + k]) * B[n * K + k];
      want[m * N + n] = float(s);
    }
  const uint64_t ga = h.upload(a, "A"), gbt = h.upload(bt, "Bt"), gd = h.alloc_n<float>(M * N, "D");
  RunResult r = h.launch("tc5_gemm_bf16_tiled", {N / 128, M / 128, 1}, {128, 1, 1},
                         h.params("tc5_gemm_bf16_tiled", ga, gbt, gd, M, N, K), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_TRUE(compare_float_bits("D", h.download<float>(gd, M * N), want));
}

}  // namespace

KTEST_INSTANTIATE(Tcgen05GemmKernel);

}  // namespace ptxsim::ktest
