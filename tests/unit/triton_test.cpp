// Triton-compiled kernels through the engine: ptxsim's own Triton sources (tests/triton/kernels.py),
// compiled for sm_90a and sm_100a by scripts/gen_triton_ptx.py (the PTX is committed), run on
// fresh random inputs with poisoned outputs and checked against references written here:
// exact for GEMMs of small integers (bf16 through wgmma / tcgen05, fp8 e4m3, and an f16 GEMM fed
// by TMA with tensor maps the kernel builds on the device), within stated bounds for softmax and
// causal flash attention (approximate exp2 and f16 probabilities). Every run must also be free
// of warnings: these are correct kernels, so a hazard report would be a false positive.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

const std::string kDir = std::string(PTXSIM_SOURCE_DIR) + "/tests/triton/";

struct Compiled {
  std::string ptx, entry;
  uint32_t threads = 0, shared = 0, scratch = 0;
};

Compiled compiled(const std::string& name, const std::string& arch) {
  std::ifstream mf(kDir + "manifest.json");
  const nlohmann::json m = nlohmann::json::parse(mf).at("kernels").at(name + "." + arch);
  std::ifstream pf(kDir + name + "." + arch + ".ptx");
  std::stringstream ss;
  ss << pf.rdbuf();
  return {ss.str(), m.at("entry"), m.at("threads"), m.at("shared"), m.at("global_scratch")};
}

// Independent element codecs for the inputs (small values, exact).
uint16_t bf16_of(float v) { return uint16_t(std::bit_cast<uint32_t>(v) >> 16); }  // exact for these inputs
uint16_t f16_of_int(int v) {  // |v| < 2048: exact
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  uint32_t a = uint32_t(std::abs(v));
  int e = std::bit_width(a) - 1;
  return uint16_t(sign | uint32_t(e + 15) << 10 | ((a << (10 - e)) & 0x3FF));
}
uint8_t e4m3_of_int(int v) {  // |v| <= 16: exact (3 fraction bits)
  if (v == 0) return 0;
  const uint8_t sign = v < 0 ? 0x80 : 0;
  uint32_t a = uint32_t(std::abs(v));
  int e = std::bit_width(a) - 1;
  return uint8_t(sign | uint32_t(e + 7) << 3 | ((a << (3 - e)) & 0x7));
}
float f16_value(uint16_t h) {  // normal and subnormal f16 to float
  const int e = (h >> 10) & 31, f = h & 0x3FF;
  const float mag = e ? std::ldexp(float(1024 + f), e - 25) : std::ldexp(float(f), -24);
  return (h & 0x8000) ? -mag : mag;
}
uint16_t f16_round(double v) {  // round to nearest even, |v| <= 65504 (subnormals included)
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  double a = std::fabs(v);
  if (a < std::ldexp(1.0, -14)) return uint16_t(sign | uint32_t(std::nearbyint(std::ldexp(a, 24))));  // may round up to 2^-14
  int e = int(std::floor(std::log2(a)));
  double scaled = std::ldexp(a, 10 - e);  // in [1024, 2048)
  double r = std::nearbyint(scaled);
  if (r == 2048) {
    r = 1024;
    ++e;
  }
  return uint16_t(sign | uint32_t(e + 15) << 10 | (uint32_t(r) & 0x3FF));
}

struct Out {
  Launched l;
  ptxsim::model::GlobalMemory mem;
};

class TritonKernel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    seed_ = test_seed();
    rng_.seed(seed_);
  }
  // Launches `name` with pointer/scalar parameters already in `p` (the two Triton scratch pointers
  // are appended: a global scratch buffer when the kernel needs one, and no profiling buffer).
  Launched run(ptxsim::model::GlobalMemory& mem, const std::string& name, Params p, ptxsim::Dim3 grid) {
    const Compiled k = compiled(name, GetParam());
    const uint64_t scratch = k.scratch ? mem.allocate(size_t(k.scratch) * grid.count(), 128) : 0;
    p.add(scratch).add(uint64_t(0));
    auto prog = ptxsim::load_program(k.ptx, name + "." + GetParam() + ".ptx");
    ptxsim::LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = {k.threads, 1, 1};
    cfg.dynamic_shared_bytes = k.shared;
    cfg.schedule_seed = seed_;
    std::ostringstream os;
    Launched l;
    l.result = ptxsim::launch(*prog, k.entry, cfg, p.bytes, mem, &os);
    l.printf_out = os.str();
    return l;
  }
  template <class T>
  uint64_t upload(ptxsim::model::GlobalMemory& mem, const std::vector<T>& v) {
    const uint64_t a = mem.allocate(v.size() * sizeof(T));
    mem.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  uint64_t poisoned(ptxsim::model::GlobalMemory& mem, size_t bytes) {
    const uint64_t a = mem.allocate(bytes);
    std::vector<uint8_t> p(bytes, 0xAB);
    mem.write(a, p.data(), bytes);
    return a;
  }
  template <class T>
  std::vector<T> download(ptxsim::model::GlobalMemory& mem, uint64_t a, size_t n) {
    std::vector<T> v(n);
    mem.read(a, v.data(), n * sizeof(T));
    return v;
  }
  std::vector<int> small_ints(size_t n, int lo, int hi) {
    std::vector<int> v(n);
    for (int& x : v) x = lo + int(rng_() % uint64_t(hi - lo + 1));
    return v;
  }
  void expect_clean(const Launched& l) {
    ASSERT_EQ(l.result.status, ptxsim::RunStatus::Completed) << l.all_diagnostics();
    EXPECT_EQ(l.warning_count(), 0u) << l.all_diagnostics();
  }
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

#define TRITON_SEED() SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed_))

// C = A @ B in exact integer arithmetic (A is M x K row-major, B is K x N row-major, or N x K when bt).
std::vector<float> int_gemm(const std::vector<int>& A, const std::vector<int>& B, int M, int N, int K, bool bt) {
  std::vector<float> C(size_t(M) * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int64_t s = 0;
      for (int k = 0; k < K; ++k) s += int64_t(A[size_t(m) * K + k]) * B[bt ? size_t(n) * K + k : size_t(k) * N + n];
      C[size_t(m) * N + n] = float(s);
    }
  return C;
}

void expect_equal_floats(const std::vector<float>& got, const std::vector<float>& want) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i]) && !bad++) first = i;
  EXPECT_EQ(bad, 0u) << "first mismatch at " << first << ": got " << got[first] << ", expected " << want[first];
}

// Row-major strided GEMM (tl.dot in a K loop): bf16 and fp8 e4m3 inputs of small integers, so every
// product and partial sum is exact in the tensor-core datapath and the result is the integer sum.
TEST_P(TritonKernel, MatmulBf16IsExact) {
  TRITON_SEED();
  const int M = 256, N = 256, K = 128;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(K) * N, -8, 8);
  std::vector<uint16_t> a, b;
  for (int x : A) a.push_back(bf16_of(float(x)));
  for (int x : B) b.push_back(bf16_of(float(x)));
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, a), gb = upload(mem, b), gc = poisoned(mem, size_t(M) * N * 4);
  Params p;
  p.add(ga).add(gb).add(gc);
  for (int v : {M, N, K, K, 1, N, 1, N, 1}) p.add(uint32_t(v));
  Launched l = run(mem, "matmul_bf16", p, {uint32_t(M / 128), uint32_t(N / 128), 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, false));
}

TEST_P(TritonKernel, MatmulFp8IsExact) {
  TRITON_SEED();
  const int M = 256, N = 128, K = 256;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(K) * N, -8, 8);
  std::vector<uint8_t> a, b;
  for (int x : A) a.push_back(e4m3_of_int(x));
  for (int x : B) b.push_back(e4m3_of_int(x));
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, a), gb = upload(mem, b), gc = poisoned(mem, size_t(M) * N * 4);
  Params p;
  p.add(ga).add(gb).add(gc);
  for (int v : {M, N, K, K, 1, N, 1, N, 1}) p.add(uint32_t(v));
  Launched l = run(mem, "matmul_fp8", p, {uint32_t(M / 128), uint32_t(N / 64), 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, false));
}

// tl.dot_scaled with e4m3 operands and UE8M0 scales (one per 32 elements of K): on sm_100a the
// block-scaled tcgen05.mma with its scale factors copied into TMEM, on sm_90a Triton's software
// scaling into bf16 and wgmma. Scales within 2^+-1 keep every product and sum exact.
TEST_P(TritonKernel, BlockScaledMatmulIsExact) {
  TRITON_SEED();
  const int M = 256, N = 256, K = 256;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(K) * N, -8, 8);
  auto SA = small_ints(size_t(M) * K / 32, 126, 128), SB = small_ints(size_t(N) * K / 32, 126, 128);
  std::vector<uint8_t> a, b, sa(SA.begin(), SA.end()), sb(SB.begin(), SB.end());
  for (int x : A) a.push_back(e4m3_of_int(x));
  for (int x : B) b.push_back(e4m3_of_int(x));
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, a), gb = upload(mem, b), gsa = upload(mem, sa), gsb = upload(mem, sb),
                 gc = poisoned(mem, size_t(M) * N * 4);
  Params p;
  p.add(ga).add(gb).add(gsa).add(gsb).add(gc).add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "matmul_mx", p, {uint32_t(M / 128), uint32_t(N / 128), 1});
  expect_clean(l);
  std::vector<float> want(size_t(M) * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += std::ldexp(double(A[size_t(m) * K + k]) * B[size_t(k) * N + n],
                        SA[size_t(m) * (K / 32) + k / 32] + SB[size_t(n) * (K / 32) + k / 32] - 254);
      want[size_t(m) * N + n] = float(s);
    }
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), want);
}

// Three programs loop over the 4 x 2 tiles (tl.range with a stride): loop-carried pipelines across
// tiles.
TEST_P(TritonKernel, PersistentMatmulIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 192;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(K) * N, -8, 8);
  std::vector<uint16_t> a, b;
  for (int x : A) a.push_back(bf16_of(float(x)));
  for (int x : B) b.push_back(bf16_of(float(x)));
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, a), gb = upload(mem, b), gc = poisoned(mem, size_t(M) * N * 4);
  Params p;
  p.add(ga).add(gb).add(gc).add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "matmul_persistent", p, {3, 1, 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, false));
}

// Warp-specialized persistent GEMM with device-built descriptors: on sm_100a 8 warps in
// partitions (TMA producer, MMA issuer, epilogue) with setmaxnreg and mbarrier handshakes, on
// sm_90a Triton's non-specialized fallback. C is f16: the exact sum rounded to nearest even.
TEST_P(TritonKernel, WarpSpecializedMatmulIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 192;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(N) * K, -8, 8);
  std::vector<uint16_t> a, b;
  for (int x : A) a.push_back(f16_of_int(x));
  for (int x : B) b.push_back(f16_of_int(x));
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, a), gb = upload(mem, b), gc = poisoned(mem, size_t(M) * N * 2);
  Params p;
  p.add(ga).add(gb).add(gc).add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "matmul_ws", p, {3, 1, 1});
  expect_clean(l);
  const auto exact = int_gemm(A, B, M, N, K, true);
  const auto got = download<uint16_t>(mem, gc, size_t(M) * N);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != f16_round(double(exact[i])) && !bad++) first = i;
  EXPECT_EQ(bad, 0u) << "first mismatch at " << first << ": got 0x" << std::hex << got[first] << ", expected 0x"
                     << f16_round(double(exact[first]));
}

// Tensor descriptors built on the device (tensormap.replace on a scratch copy, the tensormap proxy
// fences), TMA loads into swizzled shared memory and a TMA store of C.
TEST_P(TritonKernel, MatmulWithDeviceBuiltTensorMapsIsExact) {
  TRITON_SEED();
  const int M = 256, N = 128, K = 192;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(N) * K, -8, 8);
  std::vector<uint16_t> a, b;
  for (int x : A) a.push_back(f16_of_int(x));
  for (int x : B) b.push_back(f16_of_int(x));
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, a), gb = upload(mem, b), gc = poisoned(mem, size_t(M) * N * 4);
  Params p;
  p.add(ga).add(gb).add(gc).add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "matmul_tma", p, {uint32_t(M / 128), uint32_t(N / 64), 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, true));
}

// Softmax over rows of 1000 (masked to a 1024-wide block): ex2.approx.ftz.f32 has a relative
// error below 2^-22 and the division and sums add a few ulps, so 1e-5 relative is a tight bound.
TEST_P(TritonKernel, SoftmaxMatchesTheDefinition) {
  TRITON_SEED();
  const int R = 6, C = 1000;
  std::normal_distribution<float> nd(0.f, 4.f);
  std::vector<float> x(size_t(R) * C);
  for (float& v : x) v = nd(rng_);
  ptxsim::model::GlobalMemory mem;
  const uint64_t gx = upload(mem, x), gy = poisoned(mem, x.size() * 4);
  Params p;
  p.add(gx).add(gy).add(uint32_t(C));
  Launched l = run(mem, "softmax", p, {uint32_t(R), 1, 1});
  expect_clean(l);
  const auto y = download<float>(mem, gy, x.size());
  for (int r = 0; r < R; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < C; ++c) mx = std::max(mx, double(x[size_t(r) * C + c]));
    for (int c = 0; c < C; ++c) sum += std::exp(double(x[size_t(r) * C + c]) - mx);
    for (int c = 0; c < C; ++c) {
      const double want = std::exp(double(x[size_t(r) * C + c]) - mx) / sum;
      ASSERT_NEAR(y[size_t(r) * C + c], want, 1e-5 * want) << "row " << r << " col " << c;
    }
  }
}

// Causal flash attention, one head of 64, sequence 256: f16 Q/K/V, two tl.dot per block (QK^T,
// then f16 probabilities times V), online softmax with exp2. Reference in double from the
// definition; the bound covers the f16 rounding of P (2^-11 relative per term) and of O.
TEST_P(TritonKernel, CausalAttentionMatchesTheDefinition) {
  TRITON_SEED();
  const int S = 256, H = 64;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> q(size_t(S) * H), k(q.size()), v(q.size());
  for (auto& e : q) e = f16_round(0.5 * nd(rng_));
  for (auto& e : k) e = f16_round(0.5 * nd(rng_));
  for (auto& e : v) e = f16_round(nd(rng_));
  ptxsim::model::GlobalMemory mem;
  const uint64_t gq = upload(mem, q), gk = upload(mem, k), gv = upload(mem, v), go = poisoned(mem, q.size() * 2);
  Params p;
  p.add(gq).add(gk).add(gv).add(go).add(uint32_t(S)).add(0.125f);
  Launched l = run(mem, "attention_fwd", p, {uint32_t(S / 64), 1, 1});
  expect_clean(l);
  const auto o = download<uint16_t>(mem, go, q.size());
  double worst = 0;
  for (int i = 0; i < S; ++i) {
    std::vector<double> s(size_t(i) + 1);
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j <= i; ++j) {
      double d = 0;
      for (int h = 0; h < H; ++h) d += double(f16_value(q[size_t(i) * H + h])) * f16_value(k[size_t(j) * H + h]);
      s[size_t(j)] = d * 0.125;
      mx = std::max(mx, s[size_t(j)]);
    }
    for (double& e : s) sum += (e = std::exp(e - mx));
    for (int h = 0; h < H; ++h) {
      double want = 0;
      for (int j = 0; j <= i; ++j) want += s[size_t(j)] / sum * f16_value(v[size_t(j) * H + h]);
      const double got = f16_value(o[size_t(i) * H + h]);
      worst = std::max(worst, std::fabs(got - want));
      ASSERT_LE(std::fabs(got - want), 4e-3 + 4e-3 * std::fabs(want)) << "row " << i << " col " << h;
    }
  }
  RecordProperty("max_abs_error", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(Arch, TritonKernel, ::testing::Values("sm_90a", "sm_100a"),
                         [](const auto& info) { return info.param; });

}  // namespace
