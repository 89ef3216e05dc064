// Triton-compiled kernels through the engine: ptxsim's own Triton sources (tests/triton/kernels.py),
// compiled for sm_90a and sm_100a by scripts/gen_triton_ptx.py (the PTX is committed), run on
// fresh random inputs with poisoned outputs and checked against references written here:
// exact for GEMMs of small integers (bf16 through wgmma / tcgen05, fp8 e4m3, and an f16 GEMM fed
// by TMA with tensor maps the kernel builds on the device), within stated bounds for softmax and
// causal flash attention (approximate exp2 and f16 probabilities). Then kernels in the style of
// Triton's tutorials: persistent matmuls with host-side (CUtensorMap parameters) and device-side
// tensor descriptors, attention over heads with TMA descriptors, tl.dot_scaled mxfp8 / nvfp4 /
// mxfp8 x mxfp4 (the fp4 operand through a padded 16U4_ALIGN16B map), grouped GEMM over pointer
// arrays, and Gluon kernels for sm_100a (tcgen05 MMA with A in TMEM, tcgen05.cp of scale factors,
// warp specialization, cluster launch control, 2-CTA MMA and multicast TMA in clusters of 2). Every
// run must also be free of diagnostics: these are correct kernels, so a report would be a false
// positive. Each run prints its simulated thread-instructions and seconds ("[ stats    ]").
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

const std::string kDir = std::string(PTXSIM_SOURCE_DIR) + "/tests/triton/";

// What Triton's launcher needs to encode a host-side tensor descriptor's CUtensorMap (the compiled
// kernel's tensordesc_meta, recorded by scripts/gen_triton_ptx.py).
struct DescMeta {
  uint32_t dtype = 0, elem_size = 0, swizzle = 0;  // CUtensorMapDataType, bytes, CUtensorMapSwizzle
  std::vector<uint32_t> block;                      // outermost first, in elements (4-bit ones when padded)
  bool fp4_padded = false;
};

struct Compiled {
  std::string ptx, entry;
  uint32_t threads = 0, shared = 0, scratch = 0;
  uint32_t cluster = 1;  // CTAs per cluster (Triton's num_ctas): grid.x is multiplied by it
  std::vector<DescMeta> descs;
};

Compiled compiled(const std::string& name, const std::string& arch) {
  std::ifstream mf(kDir + "manifest.json");
  const nlohmann::json m = nlohmann::json::parse(mf).at("kernels").at(name + "." + arch);
  std::ifstream pf(kDir + name + "." + arch + ".ptx");
  std::stringstream ss;
  ss << pf.rdbuf();
  Compiled c;
  c.ptx = ss.str();
  c.entry = m.at("entry");
  c.threads = m.at("threads");
  c.shared = m.at("shared");
  c.scratch = m.at("global_scratch");
  if (m.contains("cluster")) c.cluster = m.at("cluster").at(0);
  if (m.contains("tensordesc"))
    for (const auto& d : m.at("tensordesc"))
      c.descs.push_back({d.at("dtype"), d.at("elem_size"), d.at("swizzle"), d.at("block").get<std::vector<uint32_t>>(),
                         d.at("fp4_padded")});
  return c;
}

// A host-side tensor descriptor argument as Triton's launcher passes it (driver.py
// make_tensordesc_arg, driver.c fillTMADescriptorTiled): the CUtensorMap (128 bytes, 64-aligned)
// encoded with the dimensions innermost first, byte strides elem_size * stride, element strides 1,
// no interleave, the kernel's swizzle, L2 promotion 128B, zero OOB fill; an fp4-padded descriptor
// of packed bytes doubles the innermost extent (16U4_ALIGN16B counts 4-bit elements). Then the
// shape (i32 each) and the strides (i64 each) as the user gave them.
void add_desc(Params& p, const DescMeta& d, uint64_t base, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides) {
  const size_t rank = shape.size();
  ASSERT_EQ(d.block.size(), rank);
  std::vector<uint64_t> dims(rank), gstrides(rank > 1 ? rank - 1 : 0);
  std::vector<uint32_t> box(rank), es(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    dims[i] = uint64_t(shape[rank - 1 - i]) * (i == 0 && d.fp4_padded ? 2 : 1);
    box[i] = d.block[rank - 1 - i];
  }
  for (size_t i = 0; i + 1 < rank; ++i) gstrides[rank - 2 - i] = uint64_t(d.elem_size) * uint64_t(strides[i]);
  tmap::CUtensorMap m;
  auto e = tmap::encode_tiled(&m, tmap::DataType(d.dtype), uint32_t(rank), base, dims.data(),
                              gstrides.empty() ? nullptr : gstrides.data(), box.data(), es.data(),
                              tmap::Interleave::kNone, tmap::Swizzle(d.swizzle), tmap::L2Promotion::k128B,
                              tmap::OobFill::kNone);
  ASSERT_TRUE(e.ok()) << e.message;
  p.add_bytes(&m, 128, 64);
  for (int64_t v : shape) p.add(int32_t(v));
  for (int64_t v : strides) p.add(int64_t(v));
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
  // `grid` counts programs; a kernel compiled with num_ctas > 1 runs num_ctas CTAs per program in
  // clusters along x, as Triton's launcher does.
  Launched run(ptxsim::model::GlobalMemory& mem, const std::string& name, Params p, ptxsim::Dim3 grid) {
    const Compiled k = compiled(name, GetParam());
    grid.x *= k.cluster;
    const uint64_t scratch = k.scratch ? mem.allocate(size_t(k.scratch) * grid.count(), 128) : 0;
    p.add(scratch).add(uint64_t(0));
    auto prog = ptxsim::load_program(k.ptx, name + "." + GetParam() + ".ptx");
    ptxsim::LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = {k.threads, 1, 1};
    cfg.cluster = {k.cluster, 1, 1};
    cfg.cluster_given = k.cluster > 1;
    cfg.dynamic_shared_bytes = k.shared;
    cfg.schedule_seed = seed_;
    std::ostringstream os;
    Launched l;
    l.result = ptxsim::launch(*prog, k.entry, cfg, p.bytes, mem, &os);
    l.printf_out = os.str();
    const auto& st = l.result.stats;
    RecordProperty("thread_instructions", std::to_string(st.thread_instructions));
    RecordProperty("simulated_seconds", std::to_string(st.seconds));
    std::printf("[ stats    ] %s.%s: %llu thread-instructions, %.2f s\n", name.c_str(), GetParam().c_str(),
                (unsigned long long)st.thread_instructions, st.seconds);
    return l;
  }
  // The tensor-descriptor metadata of `name` for this architecture.
  std::vector<DescMeta> descs(const std::string& name) { return compiled(name, GetParam()).descs; }
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
  // Completed, and not a single diagnostic (warning, note or hazard report): these kernels are
  // correct, so anything reported would be a false positive.
  void expect_clean(const Launched& l) {
    ASSERT_EQ(l.result.status, ptxsim::RunStatus::Completed) << l.all_diagnostics();
    EXPECT_EQ(l.warning_count(), 0u) << l.all_diagnostics();
    EXPECT_TRUE(l.result.diagnostics.empty()) << l.all_diagnostics();
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

// ---- Kernels in the style of Triton's tutorials -------------------------------------------------

std::vector<uint16_t> f16_of_ints(const std::vector<int>& v) {
  std::vector<uint16_t> r;
  for (int x : v) r.push_back(f16_of_int(x));
  return r;
}
std::vector<uint8_t> e4m3_of_ints(const std::vector<int>& v) {
  std::vector<uint8_t> r;
  for (int x : v) r.push_back(e4m3_of_int(x));
  return r;
}
// E2M1 (fp4): sign, 2 exponent bits (bias 1), 1 mantissa bit; no inf/NaN.
double e2m1_value(uint8_t code) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (code & 8) ? -mag[code & 7] : mag[code & 7];
}
// E4M3 (fn) scale value; the test only draws normal values.
double e4m3_value(uint8_t c) {
  const int e = (c >> 3) & 15, m = c & 7;
  const double mag = e ? std::ldexp(8.0 + m, e - 10) : std::ldexp(double(m), -9);
  return (c & 0x80) ? -mag : mag;
}
// Rows x K fp4 codes packed two per byte along K, the even element in the low nibble.
std::vector<uint8_t> pack_fp4(const std::vector<uint8_t>& codes) {
  std::vector<uint8_t> r(codes.size() / 2);
  for (size_t i = 0; i < r.size(); ++i) r[i] = uint8_t(codes[2 * i] | codes[2 * i + 1] << 4);
  return r;
}
// Scales s[r][g] (rows x groups) in the packed 5D layout [rows/128, groups/4, 32, 4, 4].
std::vector<uint8_t> pack_scales(const std::vector<uint8_t>& s, int rows, int groups) {
  std::vector<uint8_t> r(s.size());
  for (int row = 0; row < rows; ++row)
    for (int g = 0; g < groups; ++g) {
      const size_t at = (((size_t(row / 128) * (groups / 4) + g / 4) * 32 + row % 32) * 4 + (row % 128) / 32) * 4 + g % 4;
      r[at] = s[size_t(row) * groups + g];
    }
  return r;
}

// Persistent matmul with host-side tensor descriptors: three CUtensorMap parameters (A, B and an
// f32 C that Triton stores in 128 x 32 boxes), each followed by its shape and strides.
TEST_P(TritonKernel, PersistentMatmulWithHostTensorDescriptorsIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 192;
  auto A = small_ints(size_t(M) * K, -8, 8), B = small_ints(size_t(N) * K, -8, 8);
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, f16_of_ints(A)), gb = upload(mem, f16_of_ints(B)),
                 gc = poisoned(mem, size_t(M) * N * 4);
  const auto d = descs("matmul_tma_persistent");
  ASSERT_EQ(d.size(), 3u);
  Params p;
  add_desc(p, d[0], ga, {M, K}, {K, 1});
  add_desc(p, d[1], gb, {N, K}, {K, 1});
  add_desc(p, d[2], gc, {M, N}, {N, 1});
  p.add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "matmul_tma_persistent", p, {3, 1, 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, true));
}

// Persistent e4m3 matmul with descriptors made on the device (tl.make_tensor_descriptor), tiles in
// column-major order, the f16 epilogue stored as two halves through a 128 x 64 descriptor.
TEST_P(TritonKernel, PersistentFp8MatmulWithDeviceTensorDescriptorsIsExact) {
  TRITON_SEED();
  const int M = 384, N = 256, K = 256;
  auto A = small_ints(size_t(M) * K, -6, 6), B = small_ints(size_t(N) * K, -6, 6);
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, e4m3_of_ints(A)), gb = upload(mem, e4m3_of_ints(B)),
                 gc = poisoned(mem, size_t(M) * N * 2);
  Params p;
  p.add(ga).add(gb).add(gc).add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "matmul_device_tma_persistent", p, {3, 1, 1});
  expect_clean(l);
  const auto exact = int_gemm(A, B, M, N, K, true);
  const auto got = download<uint16_t>(mem, gc, size_t(M) * N);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != f16_round(double(exact[i])) && !bad++) first = i;
  EXPECT_EQ(bad, 0u) << "first mismatch at " << first << ": got 0x" << std::hex << got[first] << ", expected 0x"
                     << f16_round(double(exact[first]));
}

// Causal flash attention over 2 heads of 256 rows with host-side descriptors for Q, K, V and O
// (one (heads * seq) x 64 tensor each): the unmasked blocks left of the diagonal, then the masked
// band. Same bound and reasoning as CausalAttentionMatchesTheDefinition.
TEST_P(TritonKernel, CausalAttentionWithTensorDescriptorsMatchesTheDefinition) {
  TRITON_SEED();
  const int S = 256, H = 64, HEADS = 2;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> q(size_t(HEADS) * S * H), k(q.size()), v(q.size());
  for (auto& e : q) e = f16_round(0.5 * nd(rng_));
  for (auto& e : k) e = f16_round(0.5 * nd(rng_));
  for (auto& e : v) e = f16_round(nd(rng_));
  ptxsim::model::GlobalMemory mem;
  const uint64_t gq = upload(mem, q), gk = upload(mem, k), gv = upload(mem, v), go = poisoned(mem, q.size() * 2);
  const auto d = descs("attention_tma");
  ASSERT_EQ(d.size(), 4u);
  Params p;
  const uint64_t bases[4] = {gq, gk, gv, go};
  for (size_t i = 0; i < 4; ++i) add_desc(p, d[i], bases[i], {HEADS * S, H}, {H, 1});
  p.add(uint32_t(S)).add(0.125f);
  Launched l = run(mem, "attention_tma", p, {uint32_t(S / 128), uint32_t(HEADS), 1});
  expect_clean(l);
  const auto o = download<uint16_t>(mem, go, q.size());
  double worst = 0;
  for (int hd = 0; hd < HEADS; ++hd)
    for (int i = 0; i < S; ++i) {
      const size_t r = size_t(hd) * S + size_t(i);
      std::vector<double> sc(size_t(i) + 1);
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double dot = 0;
        for (int h = 0; h < H; ++h)
          dot += double(f16_value(q[r * H + size_t(h)])) * f16_value(k[(size_t(hd) * S + size_t(j)) * H + size_t(h)]);
        sc[size_t(j)] = dot * 0.125;
        mx = std::max(mx, sc[size_t(j)]);
      }
      for (double& e : sc) sum += (e = std::exp(e - mx));
      for (int h = 0; h < H; ++h) {
        double want = 0;
        for (int j = 0; j <= i; ++j) want += sc[size_t(j)] / sum * f16_value(v[(size_t(hd) * S + size_t(j)) * H + size_t(h)]);
        const double got = f16_value(o[r * H + size_t(h)]);
        worst = std::max(worst, std::fabs(got - want));
        ASSERT_LE(std::fabs(got - want), 4e-3 + 4e-3 * std::fabs(want)) << "head " << hd << " row " << i << " col " << h;
      }
    }
  RecordProperty("max_abs_error", std::to_string(worst));
}

// Block-scaled GEMMs through tl.dot_scaled with A and B from host-side descriptors and the scales in
// the packed 5D layout. `a_fp4` / `b_fp4`: the operand is E2M1 (packed two per byte along K), else
// E4M3 small integers; `nv`: E4M3 scales per 16 (nvfp4), else UE8M0 per 32. Every product and
// partial sum is exactly representable in f32, so C is exact.
struct ScaledCase {
  const char* kernel;
  bool a_fp4, b_fp4, nv;
};

void run_block_scaled(ptxsim::model::GlobalMemory& mem, const ScaledCase& c,
                      std::mt19937_64& rng, const std::function<Launched(Params)>& launch,
                      const std::vector<DescMeta>& d) {
  const int M = 256, N = 256, K = 256, VEC = c.nv ? 16 : 32, G = K / VEC;
  auto draw = [&](size_t n, bool fp4, std::vector<double>& val) {
    std::vector<uint8_t> bytes(n);
    val.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (fp4) {
        bytes[i] = uint8_t(rng() % 16);
        val[i] = e2m1_value(bytes[i]);
      } else {
        const int x = int(rng() % 17) - 8;
        bytes[i] = e4m3_of_int(x);
        val[i] = x;
      }
    }
    return fp4 ? pack_fp4(bytes) : bytes;
  };
  // nvfp4 scales: E4M3 values with one mantissa bit in [0.5, 3]; MX: UE8M0 2^-1..2^1.
  static const uint8_t kNvScales[] = {0x30, 0x34, 0x38, 0x3C, 0x40, 0x44};
  auto scales = [&](int rows, std::vector<double>& val) {
    std::vector<uint8_t> s(size_t(rows) * G);
    val.resize(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      s[i] = c.nv ? kNvScales[rng() % 6] : uint8_t(126 + rng() % 3);
      val[i] = c.nv ? e4m3_value(s[i]) : std::ldexp(1.0, int(s[i]) - 127);
    }
    return pack_scales(s, rows, G);
  };
  std::vector<double> av, bv, sav, sbv;
  const auto a = draw(size_t(M) * K, c.a_fp4, av), b = draw(size_t(N) * K, c.b_fp4, bv);
  const auto sa = scales(M, sav), sb = scales(N, sbv);
  const uint64_t ga = mem.allocate(a.size(), 256), gb = mem.allocate(b.size(), 256);
  mem.write(ga, a.data(), a.size());
  mem.write(gb, b.data(), b.size());
  const uint64_t gsa = mem.allocate(sa.size()), gsb = mem.allocate(sb.size());
  mem.write(gsa, sa.data(), sa.size());
  mem.write(gsb, sb.data(), sb.size());
  const uint64_t gc = mem.allocate(size_t(M) * N * 4);
  std::vector<uint8_t> poison(size_t(M) * N * 4, 0xAB);
  mem.write(gc, poison.data(), poison.size());
  ASSERT_EQ(d.size(), 3u);
  const int ka = c.a_fp4 ? K / 2 : K, kb = c.b_fp4 ? K / 2 : K;
  Params p;
  add_desc(p, d[0], ga, {M, ka}, {ka, 1});
  p.add(gsa);
  add_desc(p, d[1], gb, {N, kb}, {kb, 1});
  p.add(gsb);
  add_desc(p, d[2], gc, {M, N}, {N, 1});
  p.add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = launch(p);
  ASSERT_EQ(l.result.status, ptxsim::RunStatus::Completed) << l.all_diagnostics();
  EXPECT_TRUE(l.result.diagnostics.empty()) << l.all_diagnostics();
  std::vector<float> want(size_t(M) * N), got(want.size());
  mem.read(gc, got.data(), got.size() * 4);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += av[size_t(m) * K + k] * sav[size_t(m) * G + k / VEC] * bv[size_t(n) * K + k] * sbv[size_t(n) * G + k / VEC];
      want[size_t(m) * N + n] = float(s);
    }
  expect_equal_floats(got, want);
}

TEST_P(TritonKernel, Mxfp8MatmulWithTensorDescriptorsIsExact) {
  TRITON_SEED();
  ptxsim::model::GlobalMemory mem;
  run_block_scaled(mem, {"matmul_mxfp8", false, false, false}, rng_,
                   [&](Params p) { return run(mem, "matmul_mxfp8", p, {2, 2, 1}); }, descs("matmul_mxfp8"));
}

// Grouped GEMM: three problems of different shapes (partial tiles masked) in one launch of four
// programs, each problem named by entries of pointer arrays in global memory.
TEST_P(TritonKernel, GroupedGemmIsExact) {
  TRITON_SEED();
  const int shapes[3][3] = {{160, 256, 128}, {64, 200, 64}, {256, 96, 192}};
  ptxsim::model::GlobalMemory mem;
  std::vector<uint64_t> pa, pb, pc;
  std::vector<int32_t> sizes, lds;
  std::vector<std::vector<int>> As, Bs;
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    As.push_back(small_ints(size_t(M) * K, -8, 8));
    Bs.push_back(small_ints(size_t(K) * N, -8, 8));
    std::vector<uint16_t> a, b;
    for (int x : As.back()) a.push_back(bf16_of(float(x)));
    for (int x : Bs.back()) b.push_back(bf16_of(float(x)));
    pa.push_back(upload(mem, a));
    pb.push_back(upload(mem, b));
    pc.push_back(poisoned(mem, size_t(M) * N * 4));
    sizes.insert(sizes.end(), {M, N, K});
    lds.insert(lds.end(), {K, N, N});
  }
  Params p;
  p.add(upload(mem, pa)).add(upload(mem, pb)).add(upload(mem, pc)).add(upload(mem, sizes)).add(upload(mem, lds));
  Launched l = run(mem, "grouped_gemm", p, {4, 1, 1});
  expect_clean(l);
  for (int g = 0; g < 3; ++g) {
    SCOPED_TRACE("problem " + std::to_string(g));
    const int M = shapes[g][0], N = shapes[g][1], K = shapes[g][2];
    expect_equal_floats(download<float>(mem, pc[size_t(g)], size_t(M) * N), int_gemm(As[size_t(g)], Bs[size_t(g)], M, N, K, false));
  }
}

INSTANTIATE_TEST_SUITE_P(Arch, TritonKernel, ::testing::Values("sm_90a", "sm_100a"),
                         [](const auto& info) { return info.param; });

// Kernels only for sm_100a: nvfp4 and mixed-precision block scaling, and the Gluon kernels.
class TritonBlackwell : public TritonKernel {};

// nvfp4: E2M1 x E2M1 with E4M3 scales per 16 (tcgen05.mma kind::mxf4nvf4.block_scale.block16).
// Regression (fixed in session 5): ptxsim faulted on Triton's
// tcgen05.cp of the scale factors, "source shared-memory descriptor 0x...: base offset (bits 51:49)
// must be 0 without swizzling"; an unswizzled descriptor's base offset is not a fault.
TEST_P(TritonBlackwell, Nvfp4MatmulIsExact) {
  TRITON_SEED();
  ptxsim::model::GlobalMemory mem;
  run_block_scaled(mem, {"matmul_nvfp4", true, true, true}, rng_,
                   [&](Params p) { return run(mem, "matmul_nvfp4", p, {2, 2, 1}); }, descs("matmul_nvfp4"));
}

// Mixed mxfp8 x mxfp4: E4M3 A, E2M1 B. Triton loads the fp4 operand of a mixed-precision MMA
// through a 16U4_ALIGN16B tensor map (each 8 packed bytes land in 16 bytes of shared memory), which
// kind::mxf8f6f4 reads as its padded 4-bit layout.
// Regression (fixed in session 5): ptxsim completed the padded
// load with the padded image's bytes (16384 per 128 x 128 box) instead of the packed 8192 that
// Triton's expect_tx announces, and the run deadlocked with "tx-count is negative (-8192)".
TEST_P(TritonBlackwell, MixedFp8Fp4MatmulWithPaddedFp4LoadsIsExact) {
  TRITON_SEED();
  ptxsim::model::GlobalMemory mem;
  const auto d = descs("matmul_mixed_fp8_fp4");
  ASSERT_TRUE(d.at(1).fp4_padded);
  ASSERT_EQ(d.at(1).dtype, uint32_t(tmap::DataType::k16U4Align16B));
  run_block_scaled(mem, {"matmul_mixed_fp8_fp4", false, true, false}, rng_,
                   [&](Params p) { return run(mem, "matmul_mixed_fp8_fp4", p, {2, 2, 1}); }, d);
}

// ---- Gluon kernels (tests/triton/gluon_kernels.py), sm_100a ---------------------------------------

// A GEMM through host descriptors for A (M x K) and B (N x K), f16 small integers; returns the
// parameters so far (the descriptors) and fills A, B.
Params f16_operands(ptxsim::model::GlobalMemory& mem, const std::vector<DescMeta>& d, std::vector<int>& A,
                    std::vector<int>& B, int M, int N, int K, const std::function<std::vector<int>(size_t)>& draw) {
  A = draw(size_t(M) * K);
  B = draw(size_t(N) * K);
  const auto a = f16_of_ints(A), b = f16_of_ints(B);
  const uint64_t ga = mem.allocate(a.size() * 2, 256), gb = mem.allocate(b.size() * 2, 256);
  mem.write(ga, a.data(), a.size() * 2);
  mem.write(gb, b.data(), b.size() * 2);
  Params p;
  add_desc(p, d.at(0), ga, {M, K}, {K, 1});
  add_desc(p, d.at(1), gb, {N, K}, {K, 1});
  return p;
}

// Y = (X @ W1^T) @ W2^T with the intermediate rounded to f16 and written to tensor memory, where the
// second MMA reads it as A (tcgen05.mma [d], [a_tmem], b_desc). |X @ W1^T| <= 1024 is exact in f16.
// Regression (fixed in session 5): the kernel's first TMA load
// overwrites the shared-memory word tcgen05.alloc wrote the TMEM address to (Triton puts both at
// the start of dynamic shared memory), and ptxsim used to report the MMA's read of it as "written by
// generic-proxy stores with no fence.proxy.async since"; the async-proxy write supersedes them.
TEST_P(TritonBlackwell, GluonMmaWithAInTensorMemoryIsExact) {
  TRITON_SEED();
  const int M = 256, K1 = 64, N1 = 64, N2 = 128;
  auto X = small_ints(size_t(M) * K1, -4, 4), W1 = small_ints(size_t(N1) * K1, -4, 4),
       W2 = small_ints(size_t(N2) * N1, -4, 4);
  ptxsim::model::GlobalMemory mem;
  const auto d = descs("gluon_tmem_operand");
  ASSERT_EQ(d.size(), 3u);
  const uint64_t gy = poisoned(mem, size_t(M) * N2 * 4);
  Params p;
  add_desc(p, d[0], upload(mem, f16_of_ints(X)), {M, K1}, {K1, 1});
  add_desc(p, d[1], upload(mem, f16_of_ints(W1)), {N1, K1}, {K1, 1});
  add_desc(p, d[2], upload(mem, f16_of_ints(W2)), {N2, N1}, {N1, 1});
  p.add(gy).add(uint32_t(N2));
  Launched l = run(mem, "gluon_tmem_operand", p, {uint32_t(M / 128), 1, 1});
  expect_clean(l);
  const auto H = int_gemm(X, W1, M, N1, K1, true);
  std::vector<int> Hi(H.begin(), H.end());
  expect_equal_floats(download<float>(mem, gy, size_t(M) * N2), int_gemm(Hi, W2, M, N2, N1, true));
}

// Block-scaled tcgen05_mma_scaled in Gluon: A, B through 2D descriptors, the scales through 5D
// descriptors over the packed layout ([1, MN/128, K/VEC/4, 2, 256], unswizzled), then tcgen05.cp
// (32x128b.warpx4) from the permuted shared-memory view into tensor memory. mxfp8: e4m3 small
// integers, UE8M0 scales per 32; nvfp4: E2M1 packed along K, E4M3 scales per 16 (values as in
// run_block_scaled, so C is exact).
void gluon_scaled(bool nv, std::mt19937_64& rng,
                  const std::vector<DescMeta>& d, ptxsim::model::GlobalMemory& mem,
                  const std::function<Launched(Params)>& launch) {
  const int M = 256, N = 256, K = 256, VEC = nv ? 16 : 32, G = K / VEC;
  static const uint8_t kNvScales[] = {0x30, 0x34, 0x38, 0x3C, 0x40, 0x44};
  ASSERT_EQ(d.size(), 4u);
  std::vector<double> av(size_t(M) * K), bv(size_t(N) * K), sav(size_t(M) * G), sbv(size_t(N) * G);
  auto operand = [&](std::vector<double>& val) {
    std::vector<uint8_t> bytes(val.size());
    for (size_t i = 0; i < val.size(); ++i) {
      if (nv) {
        bytes[i] = uint8_t(rng() % 16);
        val[i] = e2m1_value(bytes[i]);
      } else {
        const int x = int(rng() % 17) - 8;
        bytes[i] = e4m3_of_int(x);
        val[i] = x;
      }
    }
    return nv ? pack_fp4(bytes) : bytes;
  };
  auto scales = [&](std::vector<double>& val, int rows) {
    std::vector<uint8_t> sc(val.size());
    for (size_t i = 0; i < sc.size(); ++i) {
      sc[i] = nv ? kNvScales[rng() % 6] : uint8_t(126 + rng() % 3);
      val[i] = nv ? e4m3_value(sc[i]) : std::ldexp(1.0, int(sc[i]) - 127);
    }
    return pack_scales(sc, rows, G);
  };
  auto put = [&](const std::vector<uint8_t>& v) {
    const uint64_t a = mem.allocate(v.size(), 256);
    mem.write(a, v.data(), v.size());
    return a;
  };
  const int kb = nv ? K / 2 : K;
  const auto a = operand(av), b = operand(bv), sa = scales(sav, M), sb = scales(sbv, N);
  const uint64_t gc = mem.allocate(size_t(M) * N * 4);
  std::vector<uint8_t> poison(size_t(M) * N * 4, 0xAB);
  mem.write(gc, poison.data(), poison.size());
  Params p;
  add_desc(p, d[0], put(a), {M, kb}, {kb, 1});
  add_desc(p, d[1], put(b), {N, kb}, {kb, 1});
  add_desc(p, d[2], put(sa), {1, M / 128, G / 4, 2, 256}, {int64_t(sa.size()), (G / 4) * 512, 512, 256, 1});
  add_desc(p, d[3], put(sb), {1, N / 128, G / 4, 2, 256}, {int64_t(sb.size()), (G / 4) * 512, 512, 256, 1});
  p.add(gc).add(uint32_t(N)).add(uint32_t(K));
  Launched l = launch(p);
  ASSERT_EQ(l.result.status, ptxsim::RunStatus::Completed) << l.all_diagnostics();
  EXPECT_TRUE(l.result.diagnostics.empty()) << l.all_diagnostics();
  std::vector<float> want(size_t(M) * N), got(want.size());
  mem.read(gc, got.data(), got.size() * 4);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += av[size_t(m) * K + k] * sav[size_t(m) * G + k / VEC] * bv[size_t(n) * K + k] * sbv[size_t(n) * G + k / VEC];
      want[size_t(m) * N + n] = float(s);
    }
  expect_equal_floats(got, want);
}

// Regression (fixed in session 5): the kernel's first TMA load
// overwrites the shared-memory word tcgen05.alloc wrote the TMEM address to (Triton puts both at
// the start of dynamic shared memory), and ptxsim used to report the MMA's read of it as "written by
// generic-proxy stores with no fence.proxy.async since"; the async-proxy write supersedes them.
TEST_P(TritonBlackwell, GluonMxfp8ScaledMmaWithScalesCopiedToTensorMemoryIsExact) {
  TRITON_SEED();
  ptxsim::model::GlobalMemory mem;
  gluon_scaled(false, rng_, descs("gluon_mma_scaled"), mem,
               [&](Params p) { return run(mem, "gluon_mma_scaled", p, {2, 2, 1}); });
}

// Regression (fixed in session 5): ptxsim faulted on the
// tcgen05.cp of the scales, "source shared-memory descriptor 0x0008400800000460: base offset (bits
// 51:49) must be 0 without swizzling"; an unswizzled descriptor's base offset is not a fault.
TEST_P(TritonBlackwell, GluonNvfp4ScaledMmaWithScalesCopiedToTensorMemoryIsExact) {
  TRITON_SEED();
  ptxsim::model::GlobalMemory mem;
  gluon_scaled(true, rng_, descs("gluon_mma_scaled_nvfp4"), mem,
               [&](Params p) { return run(mem, "gluon_mma_scaled_nvfp4", p, {2, 2, 1}); });
}

// gl.warp_specialize: a TMA-producer warp, an MMA warp and 4 epilogue warps (setmaxnreg), mbarrier
// rings between them, two TMEM accumulators; three programs over 8 tiles; C is f16 (the exact sum
// rounded to nearest even).
// Regression (fixed in session 5): the kernel's first TMA load
// overwrites the shared-memory word tcgen05.alloc wrote the TMEM address to (Triton puts both at
// the start of dynamic shared memory), and ptxsim used to report the MMA's read of it as "written by
// generic-proxy stores with no fence.proxy.async since"; the async-proxy write supersedes them.
TEST_P(TritonBlackwell, GluonWarpSpecializedMatmulIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 192;
  ptxsim::model::GlobalMemory mem;
  const auto d = descs("gluon_warp_specialized_matmul");
  ASSERT_EQ(d.size(), 3u);
  std::vector<int> A, B;
  Params p = f16_operands(mem, d, A, B, M, N, K, [&](size_t n) { return small_ints(n, -8, 8); });
  const uint64_t gc = poisoned(mem, size_t(M) * N * 2);
  add_desc(p, d[2], gc, {M, N}, {N, 1});
  p.add(uint32_t(M)).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "gluon_warp_specialized_matmul", p, {3, 1, 1});
  expect_clean(l);
  const auto exact = int_gemm(A, B, M, N, K, true);
  const auto got = download<uint16_t>(mem, gc, size_t(M) * N);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != f16_round(double(exact[i])) && !bad++) first = i;
  EXPECT_EQ(bad, 0u) << "first mismatch at " << first << ": got 0x" << std::hex << got[first] << ", expected 0x"
                     << f16_round(double(exact[first]));
}

// Cluster launch control: 8 programs for 8 tiles; a running program cancels programs not launched
// yet (clusterlaunchcontrol.try_cancel, query_cancel) and computes their tiles. Every tile must be
// written exactly once with the right values, whichever program took it.
TEST_P(TritonBlackwell, GluonClusterLaunchControlMatmulIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 128;
  ptxsim::model::GlobalMemory mem;
  const auto d = descs("gluon_clc_matmul");
  ASSERT_EQ(d.size(), 2u);
  std::vector<int> A, B;
  Params p = f16_operands(mem, d, A, B, M, N, K, [&](size_t n) { return small_ints(n, -8, 8); });
  const uint64_t gc = poisoned(mem, size_t(M) * N * 4);
  p.add(gc).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "gluon_clc_matmul", p, {uint32_t(M / 128 * (N / 128)), 1, 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, true));
}

// Clusters of 2 (Triton's num_ctas=2): the pair computes a 256 x 128 tile.
//   2-CTA: tcgen05.mma.cta_group::2 issued by the even CTA over both CTAs' A and B halves, TMA loads
//   with .cta_group::2 completing on the pair's barrier, the commit multicast to the pair.
//   Multicast: B broadcast to both CTAs by one .multicast::cluster TMA, cta_group::1 MMAs per CTA.
// Regression (fixed in session 5): the kernel's first TMA load
// overwrites the shared-memory word tcgen05.alloc wrote the TMEM address to (Triton puts both at
// the start of dynamic shared memory), and ptxsim used to report the MMA's read of it as "written by
// generic-proxy stores with no fence.proxy.async since"; the async-proxy write supersedes them.
TEST_P(TritonBlackwell, GluonTwoCtaMmaInAClusterOfTwoIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 128;
  ptxsim::model::GlobalMemory mem;
  const auto d = descs("gluon_2cta_matmul");
  ASSERT_EQ(d.size(), 2u);
  std::vector<int> A, B;
  Params p = f16_operands(mem, d, A, B, M, N, K, [&](size_t n) { return small_ints(n, -8, 8); });
  const uint64_t gc = poisoned(mem, size_t(M) * N * 4);
  p.add(gc).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "gluon_2cta_matmul", p, {uint32_t(M / 256), uint32_t(N / 128), 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, true));
}

// Regression (fixed in session 5): the kernel's first TMA load
// overwrites the shared-memory word tcgen05.alloc wrote the TMEM address to (Triton puts both at
// the start of dynamic shared memory), and ptxsim used to report the MMA's read of it as "written by
// generic-proxy stores with no fence.proxy.async since"; the async-proxy write supersedes them.
TEST_P(TritonBlackwell, GluonMulticastTmaInAClusterOfTwoIsExact) {
  TRITON_SEED();
  const int M = 512, N = 256, K = 128;
  ptxsim::model::GlobalMemory mem;
  const auto d = descs("gluon_multicast_matmul");
  ASSERT_EQ(d.size(), 2u);
  std::vector<int> A, B;
  Params p = f16_operands(mem, d, A, B, M, N, K, [&](size_t n) { return small_ints(n, -8, 8); });
  const uint64_t gc = poisoned(mem, size_t(M) * N * 4);
  p.add(gc).add(uint32_t(N)).add(uint32_t(K));
  Launched l = run(mem, "gluon_multicast_matmul", p, {uint32_t(M / 256), uint32_t(N / 128), 1});
  expect_clean(l);
  expect_equal_floats(download<float>(mem, gc, size_t(M) * N), int_gemm(A, B, M, N, K, true));
}

INSTANTIATE_TEST_SUITE_P(Arch, TritonBlackwell, ::testing::Values("sm_100a"), [](const auto& info) { return info.param; });

}  // namespace
