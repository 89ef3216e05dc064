// wgmma_gemm.cu: a bf16 GEMM through wgmma.mma_async with 128B-swizzled shared-memory operands and
// descriptors built in the kernel (sm_90a only; the sm_100a build of the kernel has an empty body
// and the test is skipped there).
//
// References:
//  * exact: A and B hold small integers, so every product and partial sum is an integer far below
//    2^24 and the tensor-core arithmetic is exact; C must equal the plain integer GEMM;
//  * the TMA-fed kernel (tensor maps encoded by model/tensormap's cuTensorMapEncodeTiled model,
//    128B swizzle) must give the same exact integer GEMM;
//  * random: bf16 values of varied magnitude and sign; each C element must equal the sm_90 wgmma
//    bf16 -> f32 model (tc::dot with the Unit::Wgmma row over the whole K: the chain of K=16 wgmma
//    steps is the chain of L=16 groups).
#include <cstring>
#include <functional>
#include <random>

#include "model/tensorcore/tensorcore.h"
#include "model/tensormap/encoder.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

namespace tc = model::tc;
using WgmmaGemmTest = KernelTest;

constexpr int M = 128, N = 128, K = 256;

uint16_t bf16_of_int(int v) {
  const float f = float(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t(u >> 16);  // small integers are exact in bf16
}

void run_gemm(Harness& h, const std::vector<uint16_t>& A, const std::vector<uint16_t>& Bt, std::vector<float>& C,
              const char* kernel = "wgmma_gemm_bf16") {
  const uint64_t da = h.upload(A, "A"), db = h.upload(Bt, "B"), dc = h.alloc_n<float>(size_t(M) * N, "C");
  const int m = M, n = N, k = K;
  RunResult r = h.launch(kernel, {N / 64, M / 64}, {128}, h.params(kernel, da, db, dc, m, n, k));
  KTEST_EXPECT_COMPLETED(r);
  for (const auto& d : r.diagnostics) ADD_FAILURE() << "unexpected diagnostic: " << d.format();
  C = h.download<float>(dc, size_t(M) * N);
}

// Random small integers: every product and partial sum is exact; the plain integer GEMM is C.
// `run` computes C from A and Bt (bf16 bits) through one of the kernels.
using GemmRun = std::function<std::vector<float>(const std::vector<uint16_t>& A, const std::vector<uint16_t>& Bt)>;

void exact_integer_gemm(uint64_t seed, const GemmRun& run) {
  std::mt19937_64 rng(seed);
  std::vector<int> a(size_t(M) * K), b(size_t(N) * K);
  for (auto& x : a) x = int(rng() % 17) - 8;
  for (auto& x : b) x = int(rng() % 17) - 8;
  std::vector<uint16_t> A(a.size()), Bt(b.size());
  for (size_t i = 0; i < a.size(); ++i) A[i] = bf16_of_int(a[i]);
  for (size_t i = 0; i < b.size(); ++i) Bt[i] = bf16_of_int(b[i]);
  const std::vector<float> C = run(A, Bt);
  std::vector<float> want(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long acc = 0;
      for (int kk = 0; kk < K; ++kk) acc += long(a[size_t(i) * K + kk]) * b[size_t(j) * K + kk];
      want[size_t(i) * N + j] = float(acc);
    }
  EXPECT_TRUE(compare_exact("C", C, want));
}

// The same through a kernel taking A, Bt and C pointers (run_gemm).
void exact_integer_gemm(Harness& h, uint64_t seed, const char* kernel) {
  exact_integer_gemm(seed, [&](const std::vector<uint16_t>& A, const std::vector<uint16_t>& Bt) {
    std::vector<float> C;
    run_gemm(h, A, Bt, C, kernel);
    return C;
  });
}

// Each thread waits for its own cp.async copies only; the warpgroup's wgmma reads the others'
// (CUTLASS's wgmma_sm90 tutorial): correct, and without a warning.
TEST_P(WgmmaGemmTest, CpAsyncStagedWithoutCtaBarrier) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "wgmma_gemm");
  exact_integer_gemm(h, seed, "wgmma_gemm_bf16_cp_async");
  // Race-free as well: the operation reads once all four warps (each past its own copies' wait)
  // have issued it (run_gemm fails on any diagnostic).
  h.racecheck = true;
  exact_integer_gemm(h, seed, "wgmma_gemm_bf16_cp_async");
}

TEST_P(WgmmaGemmTest, ExactIntegerGemm) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "wgmma_gemm");
  exact_integer_gemm(h, seed, "wgmma_gemm_bf16");
}

TEST_P(WgmmaGemmTest, RandomBf16MatchesTheWgmmaModel) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "wgmma_gemm");
  std::mt19937_64 rng(seed);
  std::vector<uint16_t> A(size_t(M) * K), Bt(size_t(N) * K);
  auto rnd = [&] {  // sign, exponent 2^-10 .. 2^10, random fraction
    const uint64_t r = rng();
    return uint16_t((r & 1) << 15 | uint16_t(117 + (r >> 8) % 21) << 7 | ((r >> 16) & 0x7F));
  };
  for (auto& x : A) x = rnd();
  for (auto& x : Bt) x = rnd();
  std::vector<float> C;
  run_gemm(h, A, Bt, C);
  const tc::DotModel* model =
      tc::find_model(tc::Arch::SM90, tc::Unit::Wgmma, tc::ElemFmt::BF16, tc::ElemFmt::BF16, tc::AccFmt::F32);
  ASSERT_NE(model, nullptr);
  std::vector<float> want(size_t(M) * N);
  std::vector<tc::Value> va(static_cast<size_t>(K)), vb(static_cast<size_t>(K));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      for (int kk = 0; kk < K; ++kk) {
        va[size_t(kk)] = tc::decode_a(*model, tc::ElemFmt::BF16, A[size_t(i) * K + kk]);
        vb[size_t(kk)] = tc::decode_b(*model, tc::ElemFmt::BF16, Bt[size_t(j) * K + kk]);
      }
      const uint32_t bits = tc::dot(*model, va.data(), vb.data(), K, 0);
      std::memcpy(&want[size_t(i) * N + j], &bits, 4);
    }
  EXPECT_TRUE(compare_exact("C", C, want));
}

// The TMA-fed kernel: A and Bt through 2-D tensor maps (box 64 x 64, 128B swizzle).
void run_gemm_tma(Harness& h, const std::vector<uint16_t>& A, const std::vector<uint16_t>& Bt, std::vector<float>& C) {
  const uint64_t da = h.upload(A, "A"), db = h.upload(Bt, "B"), dc = h.alloc_n<float>(size_t(M) * N, "C");
  namespace tmap = model::tmap;
  auto map_of = [](uint64_t addr, uint64_t rows) {
    tmap::CUtensorMap m{};
    const uint64_t dims[2] = {uint64_t(K), rows}, strides[1] = {uint64_t(K) * 2};
    const uint32_t box[2] = {64, 64}, es[2] = {1, 1};
    const auto r = tmap::encode_tiled(&m, tmap::DataType::kBFloat16, 2, addr, dims, strides, box, es,
                                      tmap::Interleave::kNone, tmap::Swizzle::k128B, tmap::L2Promotion::kNone,
                                      tmap::OobFill::kNone);
    EXPECT_TRUE(r.ok()) << r.message;
    return m;
  };
  const tmap::CUtensorMap ta = map_of(da, M), tb = map_of(db, N);
  const int m = M, n = N, k = K;
  RunResult r = h.launch("wgmma_gemm_bf16_tma", {N / 64, M / 64}, {128},
                         h.params("wgmma_gemm_bf16_tma", ta, tb, dc, m, n, k));
  KTEST_EXPECT_COMPLETED(r);
  for (const auto& d : r.diagnostics) ADD_FAILURE() << "unexpected diagnostic: " << d.format();
  C = h.download<float>(dc, size_t(M) * N);
}

TEST_P(WgmmaGemmTest, TmaFedExactIntegerGemm) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "wgmma_gemm");
  exact_integer_gemm(seed, [&](const std::vector<uint16_t>& A, const std::vector<uint16_t>& Bt) {
    std::vector<float> C;
    run_gemm_tma(h, A, Bt, C);
    return C;
  });
}

// wgmma exists only on sm_90a (sm_100a rejects it; the gate tests cover that), so one arch.
INSTANTIATE_TEST_SUITE_P(Arch, WgmmaGemmTest, ::testing::Values(std::string("sm_90a")), ::ptxsim::ktest::arch_test_name);

}  // namespace
}  // namespace ptxsim::ktest
