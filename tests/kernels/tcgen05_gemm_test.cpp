// tests/kernels/tcgen05_gemm.cu on sm_100a: the tiled bf16 GEMM the benchmark runs (128 x 128 tiles
// of D in Tensor Memory, K in 64-wide blocks reusing shared memory behind an mbarrier), on a
// 256 x 128 x 192 problem with small-integer inputs, so the exact CPU sum is the reference; and its
// TMA-fed variant tc5_gemm_bf16_tma (tensor maps encoded by model/tensormap's encoder, 128B swizzle).
#include <bit>

#include "model/tensormap/encoder.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

class Tcgen05GemmKernel : public KernelTest {};

constexpr int M = 256, N = 128, K = 192;

struct Problem {
  std::vector<uint16_t> a, bt;  // bf16 bits
  std::vector<float> want;      // the exact sum
};

Problem small_integer_problem(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto bf16 = [](int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); };
  std::vector<int> A(M * K), B(N * K);
  for (int& x : A) x = int(rng() % 17) - 8;
  for (int& x : B) x = int(rng() % 17) - 8;
  Problem p;
  for (int x : A) p.a.push_back(bf16(x));
  for (int x : B) p.bt.push_back(bf16(x));
  p.want.resize(M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(A[m * K + k]) * B[n * K + k];
      p.want[m * N + n] = float(s);
    }
  return p;
}

TEST_P(Tcgen05GemmKernel, TiledBf16GemmMatchesTheExactSum) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_gemm");
  if (GetParam() != "sm_100a") return;
  const Problem p = small_integer_problem(seed);
  const uint64_t ga = h.upload(p.a, "A"), gbt = h.upload(p.bt, "Bt"), gd = h.alloc_n<float>(M * N, "D");
  RunResult r = h.launch("tc5_gemm_bf16_tiled", {N / 128, M / 128, 1}, {128, 1, 1},
                         h.params("tc5_gemm_bf16_tiled", ga, gbt, gd, M, N, K), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_TRUE(compare_float_bits("D", h.download<float>(gd, M * N), p.want));
}

TEST_P(Tcgen05GemmKernel, TmaFedBf16GemmMatchesTheExactSum) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_gemm");
  if (GetParam() != "sm_100a") return;
  const Problem p = small_integer_problem(seed);
  const uint64_t ga = h.upload(p.a, "A"), gbt = h.upload(p.bt, "Bt"), gd = h.alloc_n<float>(M * N, "D");
  namespace tmap = model::tmap;
  auto map_of = [](uint64_t addr, uint64_t rows) {  // {K, rows} bf16, box {64, 128}, 128B swizzle
    tmap::CUtensorMap m{};
    const uint64_t dims[2] = {uint64_t(K), rows}, strides[1] = {uint64_t(K) * 2};
    const uint32_t box[2] = {64, 128}, es[2] = {1, 1};
    const auto r = tmap::encode_tiled(&m, tmap::DataType::kBFloat16, 2, addr, dims, strides, box, es,
                                      tmap::Interleave::kNone, tmap::Swizzle::k128B, tmap::L2Promotion::kNone,
                                      tmap::OobFill::kNone);
    EXPECT_TRUE(r.ok()) << r.message;
    return m;
  };
  const tmap::CUtensorMap ta = map_of(ga, M), tb = map_of(gbt, N);
  RunResult r = h.launch("tc5_gemm_bf16_tma", {N / 128, M / 128, 1}, {128, 1, 1},
                         h.params("tc5_gemm_bf16_tma", ta, tb, gd, M, N, K), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_TRUE(compare_float_bits("D", h.download<float>(gd, M * N), p.want));
}

}  // namespace

KTEST_INSTANTIATE(Tcgen05GemmKernel);

}  // namespace ptxsim::ktest
