// ldmatrix_mma.cu: every m8n8 b16 ldmatrix/stmatrix form (x1/x2/x4, with and without .trans)
// against the PTX ISA's fragment layout, written out here independently of model/fragments
// ("Matrix fragments for ldmatrix": thread l holds row l/4, columns 2(l%4) and 2(l%4)+1 of each
// matrix, or of its transpose with .trans), stmatrix as the exact inverse, and an mma.sync
// m16n8k16 bf16 GEMM fed by ldmatrix against an exact CPU product.
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using LdmatrixMmaTest = KernelTest;

struct Form {
  const char* kernel;
  int num;
  bool trans;
};
constexpr Form kForms[] = {{"ldst_x1", 1, false}, {"ldst_x1_trans", 1, true}, {"ldst_x2", 2, false},
                           {"ldst_x2_trans", 2, true}, {"ldst_x4", 4, false},  {"ldst_x4_trans", 4, true}};

TEST_P(LdmatrixMmaTest, LdmatrixFragmentsAndStmatrixRoundTripForEveryForm) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "ldmatrix_mma");
  std::mt19937_64 rng(seed);
  for (const Form& f : kForms) {
    SCOPED_TRACE(f.kernel);
    std::vector<uint16_t> in(4 * 64);
    for (auto& v : in) v = uint16_t(rng());
    const uint64_t gin = h.upload(in, "in"), regs = h.alloc_n<uint32_t>(32 * 4, "regs"),
                   out = h.alloc_n<uint16_t>(4 * 64, "out");
    RunResult r = h.launch(f.kernel, {1}, {32}, h.params(f.kernel, gin, regs, out), 0, nullptr, seed);
    KTEST_EXPECT_COMPLETED(r);
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
    std::vector<uint32_t> want_regs(32 * 4, 0);
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < f.num; ++i) {
        auto elem = [&](int row, int col) -> uint32_t { return in[i * 64 + row * 8 + col]; };
        const int g = l / 4, c = 2 * (l % 4);
        want_regs[l * 4 + i] = f.trans ? (elem(c, g) | elem(c + 1, g) << 16) : (elem(g, c) | elem(g, c + 1) << 16);
      }
    EXPECT_TRUE(compare_exact("registers", h.download<uint32_t>(regs, 32 * 4), want_regs));
    std::vector<uint16_t> want_out = in;
    for (size_t i = size_t(f.num) * 64; i < want_out.size(); ++i) want_out[i] = 0xDEAD;
    EXPECT_TRUE(compare_exact("stmatrix output", h.download<uint16_t>(out, 4 * 64), want_out));
  }
}

uint16_t bf16_of_int(int v) {
  float f = float(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return uint16_t(b >> 16);  // small integers are exact in bf16
}

TEST_P(LdmatrixMmaTest, MmaSyncGemmFedByLdmatrixIsExact) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "ldmatrix_mma");
  std::mt19937_64 rng(seed);
  for (int k_tiles : {1, 4, 16}) {
    const int K = 16 * k_tiles;
    std::vector<int> A(16 * K), Bt(8 * K);
    for (int& x : A) x = int(rng() % 33) - 16;
    for (int& x : Bt) x = int(rng() % 33) - 16;
    std::vector<uint16_t> a, bt;
    for (int x : A) a.push_back(bf16_of_int(x));
    for (int x : Bt) bt.push_back(bf16_of_int(x));
    std::vector<float> want(16 * 8);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        long s = 0;
        for (int k = 0; k < K; ++k) s += long(A[m * K + k]) * Bt[n * K + k];
        want[m * 8 + n] = float(s);  // |s| <= 256 * 256: exact in f32 and in every partial sum
      }
    const uint64_t ga = h.upload(a, "A"), gbt = h.upload(bt, "Bt"), gd = h.alloc_n<float>(16 * 8, "D");
    RunResult r = h.launch("mma_gemm_bf16", {1}, {32}, h.params("mma_gemm_bf16", ga, gbt, gd, int32_t(k_tiles)), 0,
                           nullptr, seed);
    KTEST_EXPECT_COMPLETED(r);
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
    EXPECT_TRUE(compare_float_bits("D (K = " + std::to_string(K) + ")", h.download<float>(gd, 16 * 8), want));
  }
}

KTEST_INSTANTIATE(LdmatrixMmaTest);

}  // namespace
}  // namespace ptxsim::ktest
