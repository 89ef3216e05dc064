// The tensor-core arithmetic model (model/tensorcore): the fast paths against the independent
// Boost.Multiprecision reference (model/tensorcore/exact_ref.h) on random raw bit patterns and on
// structured stimuli, for every row of the model table and every A/B type pair that resolves to
// it (both tc::dot per element, as mma.sync uses it, and the whole-tile tc::mma_tile of wgmma and
// tcgen05.mma), and for the integer kinds (tc::mma_tile_int against ref::int_dot); plus directed
// cases from the published work (the paper's Table 8 vector, special values, RZ overflow,
// subnormal outputs) and the fp8 mma.sync composition seen in ptxas's output.
//
// Each row is its own test (TensorCoreRows/RowMatchesExactReference.*), so ctest runs them in
// parallel. Outputs per row: at least 10^5, and at least 10^4 per A/B type pair of the row;
// PTXSIM_TC_SCALE=<x> multiplies both (the long-running property test, ctest -L long, runs them
// with x = 100: 10^7 outputs per row; docs/matrix-units.md). Random inputs print their seed (also
// in every failure message); rerun one with PTXSIM_TEST_SEED=<seed>.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "model/tensorcore/exact_ref.h"
#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"
#include "tensorcore_test_util.h"

namespace ptxsim::model::tc {
namespace {

uint64_t seed_for_test() {
  uint64_t s;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  else s = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << info->test_suite_name() << "." << info->name() << ": PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

double scale() {
  if (const char* e = std::getenv("PTXSIM_TC_SCALE")) return std::strtod(e, nullptr);
  return 1.0;
}

// ---- stimuli --------------------------------------------------------------------------------------

// Field layout of each format, written here for the generator.
struct Fields {
  int width, ebits, mbits, bias;
  int top;  // largest exponent field of a finite value
};
Fields fields(ElemFmt f) {
  switch (f) {
    case ElemFmt::F16: return {16, 5, 10, 15, 30};
    case ElemFmt::BF16: return {16, 8, 7, 127, 254};
    case ElemFmt::TF32:
    case ElemFmt::F32: return {32, 8, 23, 127, 254};
    case ElemFmt::E4M3: return {8, 4, 3, 7, 15};  // S.1111.111 is NaN
    case ElemFmt::E5M2: return {8, 5, 2, 15, 30};
    case ElemFmt::E3M2: return {6, 3, 2, 3, 7};   // no Inf/NaN
    case ElemFmt::E2M3: return {6, 2, 3, 1, 3};
    case ElemFmt::E2M1: return {4, 2, 1, 1, 3};
  }
  return {32, 8, 23, 127, 254};
}
Fields fields(AccFmt f) { return fields(f == AccFmt::F32 ? ElemFmt::F32 : ElemFmt::F16); }

enum class Mix { Raw, Wide, Narrow, Cancel, Dominant, Tiny };
constexpr Mix kMixes[] = {Mix::Raw, Mix::Wide, Mix::Narrow, Mix::Cancel, Mix::Dominant, Mix::Tiny};

struct Gen {
  std::mt19937_64 rng;
  uint64_t bits(int w) { return rng() & (w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1); }
  int uniform(int lo, int hi) { return lo + int(rng() % uint64_t(hi - lo + 1)); }
  bool chance(int percent) { return int(rng() % 100) < percent; }

  // A finite value of `fl` near 2^center (unbiased exponent, +-spread), sometimes zero.
  uint32_t finite(const Fields& fl, int center, int spread, int zero_percent = 3) {
    const uint32_t sign = uint32_t(rng() & 1) << (fl.ebits + fl.mbits);
    if (chance(zero_percent)) return sign;
    const int E = std::clamp(center + uniform(-spread, spread) + fl.bias, 0, fl.top);
    uint32_t M = uint32_t(bits(fl.mbits));
    if (fl.width == 8 && fl.ebits == 4 && E == 15 && M == 7) M = 6;  // not the e4m3 NaN
    return sign | uint32_t(E) << fl.mbits | M;
  }
};

struct Tile {
  int M, N, K;
  ElemFmt fa, fb;
  std::vector<uint32_t> A, B, C;
};

// Fills a tile of model m with mix `mix`.
void fill(Gen& g, const DotModel& m, Mix mix, Tile& t) {
  const Fields fa = fields(t.fa), fb = fields(t.fb), fc = fields(m.acc);
  const int ca = std::max(0, fa.bias / 2), cb = std::max(0, fb.bias / 2);
  // Exponent centres: products land near 2^(ea + eb); c is placed relative to them.
  const int ea = g.uniform(-ca, ca), eb = g.uniform(-cb, cb);
  const int ec_lim = fc.bias;
  auto c_near = [&](int e, int spread) {
    return g.finite(fc, std::clamp(e, -ec_lim, ec_lim), spread, 10);
  };
  t.A.assign(size_t(t.M * t.K), 0);
  t.B.assign(size_t(t.K * t.N), 0);
  t.C.assign(size_t(t.M * t.N), 0);
  switch (mix) {
    case Mix::Raw:
      for (auto& x : t.A) x = uint32_t(g.bits(fa.width));
      for (auto& x : t.B) x = uint32_t(g.bits(fb.width));
      for (auto& x : t.C) x = uint32_t(g.bits(fc.width));
      return;
    case Mix::Wide:
      for (auto& x : t.A) x = g.finite(fa, 0, fa.bias + fa.mbits, 5);
      for (auto& x : t.B) x = g.finite(fb, 0, fb.bias + fb.mbits, 5);
      for (auto& x : t.C) x = g.finite(fc, 0, fc.bias, 10);
      return;
    case Mix::Narrow:
    case Mix::Cancel:
      for (auto& x : t.A) x = g.finite(fa, ea, 2);
      for (auto& x : t.B) x = g.finite(fb, eb, 2);
      for (auto& x : t.C) x = c_near(ea + eb + g.uniform(-3, 3), 2);
      if (mix == Mix::Cancel) {
        // Pairs of k whose products cancel exactly: a[k+1] = -a[k], b[k+1] = b[k].
        const uint32_t sa = 1u << (fa.ebits + fa.mbits);
        for (int k = 0; k + 1 < t.K; k += 2) {
          if (!g.chance(70)) continue;
          for (int i = 0; i < t.M; ++i) t.A[size_t(i * t.K + k + 1)] = t.A[size_t(i * t.K + k)] ^ sa;
          for (int j = 0; j < t.N; ++j) t.B[size_t((k + 1) * t.N + j)] = t.B[size_t(k * t.N + j)];
        }
      }
      return;
    case Mix::Dominant:
      // One large product per dot and small ones below it; c anywhere in between.
      for (int i = 0; i < t.M; ++i)
        for (int k = 0; k < t.K; ++k)
          t.A[size_t(i * t.K + k)] = g.finite(fa, k == i % t.K ? ea + 4 : ea - g.uniform(0, 12), 1);
      for (auto& x : t.B) x = g.finite(fb, eb, 1);
      for (auto& x : t.C) x = c_near(ea + eb + g.uniform(-30, 6), 1);
      return;
    case Mix::Tiny:
      // Products at the bottom of the range: subnormal inputs, subnormal and underflowing sums.
      for (auto& x : t.A) x = g.finite(fa, -fa.bias - g.uniform(0, fa.mbits), 1, 10);
      for (auto& x : t.B) x = g.finite(fb, -fb.bias + g.uniform(0, fb.bias / 2), 2, 10);
      for (auto& x : t.C) x = g.chance(50) ? g.finite(fc, -fc.bias - g.uniform(0, fc.mbits), 1, 30)
                                           : c_near(-fa.bias - fb.bias / 2, 3);
      return;
  }
}

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string describe(const Tile& t, const DotModel& m, int i, int j) {
  std::string s = std::string(m.id) + " " + fmt_name(t.fa) + "x" + fmt_name(t.fb) + " K=" + std::to_string(t.K) + "\n  a:";
  for (int k = 0; k < t.K; ++k) s += " " + hex(t.A[size_t(i * t.K + k)]);
  s += "\n  b:";
  for (int k = 0; k < t.K; ++k) s += " " + hex(t.B[size_t(k * t.N + j)]);
  s += "\n  c: " + hex(t.C[size_t(i * t.N + j)]);
  return s;
}

// The fast path, the way mma.sync's semantics use it: decode once, then dot per element.
void fast_gemm(const DotModel& m, const Tile& t, std::vector<uint32_t>& D) {
  std::vector<Value> va(size_t(t.M * t.K)), vbt(size_t(t.K * t.N));
  for (int i = 0; i < t.M * t.K; ++i) va[size_t(i)] = decode_a(m, t.fa, t.A[size_t(i)]);
  for (int k = 0; k < t.K; ++k)
    for (int j = 0; j < t.N; ++j) vbt[size_t(j * t.K + k)] = decode_b(m, t.fb, t.B[size_t(k * t.N + j)]);
  D.assign(size_t(t.M * t.N), 0);
  for (int i = 0; i < t.M; ++i)
    for (int j = 0; j < t.N; ++j)
      D[size_t(i * t.N + j)] = dot(m, va.data() + i * t.K, vbt.data() + j * t.K, t.K, t.C[size_t(i * t.N + j)]);
}

std::vector<ElemFmt> fmts_of(uint32_t mask) {
  std::vector<ElemFmt> v;
  for (int f = 0; f < 9; ++f)
    if (mask & (1u << f)) v.push_back(ElemFmt(f));
  return v;
}

// The K values an instruction of this row uses (two for the chained/split cases).
std::vector<int> ks_of(const DotModel& m) {
  if (m.unit == Unit::MmaSync) {
    if (m.split == KSplit::Pairs4) return {32, 16};                   // m16n8k32 / m16n8k16 fp8
    if (m.fdpa.L == 8) return {8, 4};                                 // tf32 m16n8k8 / k4
    return {16, 8};                                                   // m16n8k16 / k8
  }
  return {m.fdpa.L, 2 * m.fdpa.L};  // one group, and a chain of two
}

// The A/B type pairs of the instructions whose numerics are row m: every (fa, fb) that find_model
// resolves to m (a pair an earlier, more specific row claims is that row's).
std::vector<std::pair<ElemFmt, ElemFmt>> pairs_of(const DotModel& m) {
  std::vector<std::pair<ElemFmt, ElemFmt>> v;
  for (ElemFmt fa : fmts_of(m.a_types))
    for (ElemFmt fb : fmts_of(m.b_types))
      if (find_model(m.arch, m.unit, fa, fb, m.acc) == &m) v.emplace_back(fa, fb);
  return v;
}

constexpr long kRowOutputs = 100000;  // per row (times PTXSIM_TC_SCALE)
constexpr long kPairOutputs = 10000;  // per A/B type pair of a row (times PTXSIM_TC_SCALE)

// Runs at least `outputs` random outputs of model m with A/B types (fa, fb) through the exact
// reference, tc::dot per element and tc::mma_tile; returns the mismatch count.
long compare_pair(const DotModel& m, ElemFmt fa, ElemFmt fb, Gen& g, uint64_t seed, long outputs, long& done) {
  const auto ks = ks_of(m);
  long bad = 0, tiles = 0;
  std::vector<uint32_t> D1, D2, D3, Bt;
  done = 0;
  while (done < outputs) {
    Tile t;
    t.M = 16;
    t.N = 8;
    t.K = ks[size_t(tiles % long(ks.size()))];
    t.fa = fa;
    t.fb = fb;
    const Mix mix = kMixes[tiles % long(std::size(kMixes))];
    ++tiles;
    fill(g, m, mix, t);
    fast_gemm(m, t, D1);
    Bt.assign(size_t(t.N * t.K), 0);
    for (int k = 0; k < t.K; ++k)
      for (int j = 0; j < t.N; ++j) Bt[size_t(j * t.K + k)] = t.B[size_t(k * t.N + j)];
    D3.assign(D1.size(), 0xDEADBEEF);
    mma_tile(m, t.fa, t.fb, t.M, t.N, t.K, t.A.data(), Bt.data(), t.C.data(), D3.data());
    D2.assign(D1.size(), 0xDEADBEEF);
    ref::gemm(m, t.fa, t.A.data(), t.fb, t.B.data(), t.C.data(), D2.data(), t.M, t.N, t.K);
    for (int i = 0; i < t.M; ++i)
      for (int j = 0; j < t.N; ++j) {
        const size_t x = size_t(i * t.N + j);
        if ((D1[x] != D2[x] || D3[x] != D2[x]) && ++bad <= 5)
          ADD_FAILURE() << "tc::dot " << hex(D1[x]) << ", mma_tile " << hex(D3[x]) << " != reference " << hex(D2[x])
                        << " (PTXSIM_TEST_SEED=" << seed << ") for " << describe(t, m, i, j);
      }
    done += t.M * t.N;
  }
  return bad;
}

// ---- fast paths vs the exact reference, one test per model row -------------------------------------

class RowMatchesExactReference : public ::testing::TestWithParam<const DotModel*> {};

TEST_P(RowMatchesExactReference, RandomOutputs) {
  const DotModel& m = *GetParam();
  const uint64_t seed = seed_for_test();
  Gen g{std::mt19937_64(seed)};
  const auto pairs = pairs_of(m);
  ASSERT_FALSE(pairs.empty()) << m.id << " is shadowed by earlier rows for every type pair";
  const long per_pair = std::max(long(kPairOutputs * scale()),
                                 (long(kRowOutputs * scale()) + long(pairs.size()) - 1) / long(pairs.size()));
  long total = 0;
  std::string counts;
  for (const auto& [fa, fb] : pairs) {
    long done = 0;
    EXPECT_EQ(compare_pair(m, fa, fb, g, seed, per_pair, done), 0) << m.id << " " << fmt_name(fa) << "x" << fmt_name(fb);
    total += done;
    counts += std::string(" ") + fmt_name(fa) + "x" + fmt_name(fb) + ":" + std::to_string(done);
  }
  std::cout << "[ outputs  ] " << m.id << ": " << total << " (" << counts.substr(1) << ")\n";
  EXPECT_GE(double(total), 1e5 * scale());
}

INSTANTIATE_TEST_SUITE_P(TensorCoreRows, RowMatchesExactReference, ::testing::ValuesIn(test::dot_rows()),
                         test::row_name<DotModel>);

// Integer kinds (mma.sync / wgmma / tcgen05 .s8/.u8 -> .s32): tc::mma_tile_int against the exact
// integer reference, every signedness pair, wrapping and .satfinite, with C near the s32 limits.
class IntegerKindMatchesExactReference : public ::testing::TestWithParam<int> {};

TEST_P(IntegerKindMatchesExactReference, RandomOutputs) {
  const int kind = GetParam();
  const bool as = kind & 1, bs = kind & 2, sat = kind & 4;
  const uint64_t seed = seed_for_test();
  Gen g{std::mt19937_64(seed)};
  const long outputs = long(kRowOutputs * scale());
  long done = 0, bad = 0;
  for (int tile = 0; done < outputs; ++tile) {
    const int M = 16, N = 8 * (1 + int(g.rng() % 8)), K = 32 * (1 + int(g.rng() % 4));
    std::vector<uint8_t> a(size_t(M * K)), bt(size_t(N * K));
    // Raw bytes, or only the extremes (-128 / 127 / 255 products pile up towards the limits).
    const bool extreme = tile % 3 == 1;
    for (auto& x : a) x = extreme ? (g.chance(50) ? 0x80 : 0x7F) : uint8_t(g.rng());
    for (auto& x : bt) x = extreme ? (g.chance(50) ? 0x80 : 0xFF) : uint8_t(g.rng());
    std::vector<int32_t> c(size_t(M * N)), d(size_t(M * N), int32_t(0xDEADBEEF));
    for (auto& x : c)
      x = tile % 3 == 2 ? (g.chance(50) ? INT32_MAX - int32_t(g.rng() % 1000000) : INT32_MIN + int32_t(g.rng() % 1000000))
                        : int32_t(g.rng());
    mma_tile_int(as, bs, sat, M, N, K, a.data(), bt.data(), c.data(), d.data());
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const int32_t want = ref::int_dot(as, bs, sat, a.data() + i * K, bt.data() + j * K, K, c[size_t(i * N + j)]);
        if (d[size_t(i * N + j)] != want && ++bad <= 5)
          ADD_FAILURE() << "mma_tile_int " << d[size_t(i * N + j)] << " != reference " << want << " ("
                        << (as ? "s8" : "u8") << "x" << (bs ? "s8" : "u8") << (sat ? " satfinite" : "") << " K=" << K
                        << ", PTXSIM_TEST_SEED=" << seed << ")";
      }
    done += M * N;
  }
  std::cout << "[ outputs  ] " << (as ? "s8" : "u8") << "x" << (bs ? "s8" : "u8") << (sat ? ".satfinite" : "") << ": "
            << done << "\n";
  EXPECT_EQ(bad, 0);
}

INSTANTIATE_TEST_SUITE_P(IntegerKinds, IntegerKindMatchesExactReference, ::testing::Range(0, 8),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param & 1 ? "s8" : "u8") + (info.param & 2 ? "s8" : "u8") +
                                  (info.param & 4 ? "_satfinite" : "_wrap");
                         });

// The sm_100 mma.sync rows are the sm_90 ones (MMA-Sim models both HMMAs with F = 25, no split; the
// fp8 forms compile to the same SASS on both), so they are checked by identity, not resampled.
TEST(TensorCoreNumerics, Sm100MmaRowsEqualSm90Rows) {
  for (const DotModel& m : all_models()) {
    if (m.unit != Unit::MmaSync || m.arch != Arch::SM100) continue;
    const DotModel* h = nullptr;
    for (const DotModel& o : all_models())
      if (o.unit == Unit::MmaSync && o.arch == Arch::SM90 && o.a_types == m.a_types && o.acc == m.acc) h = &o;
    ASSERT_NE(h, nullptr) << m.id;
    EXPECT_EQ(h->fdpa.L, m.fdpa.L);
    EXPECT_EQ(h->fdpa.F, m.fdpa.F);
    EXPECT_EQ(h->fdpa.out, m.fdpa.out);
    EXPECT_EQ(h->fdpa.e_zero, m.fdpa.e_zero);
    EXPECT_EQ(h->a_as, m.a_as);
    EXPECT_EQ(h->split, m.split);
    EXPECT_EQ(h->c_last, m.c_last);
  }
}

TEST(TensorCoreNumerics, TableLookup) {
  const DotModel* m = find_model(Arch::SM90, Unit::MmaSync, ElemFmt::E4M3, ElemFmt::E5M2, AccFmt::F32);
  ASSERT_NE(m, nullptr);
  EXPECT_STREQ(m->id, "sm90.mma.fp8.f32");
  EXPECT_EQ(m->evidence, Evidence::Derived);
  EXPECT_EQ(find_model(Arch::SM90, Unit::MmaSync, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F16), nullptr);
  m = find_model(Arch::SM100, Unit::Tcgen05, ElemFmt::E4M3, ElemFmt::E5M2, AccFmt::F32);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->evidence, Evidence::Unvalidated);  // mixed fp8 on tcgen05 is untested in published work
  m = find_model(Arch::SM90, Unit::Wgmma, ElemFmt::E5M2, ElemFmt::E5M2, AccFmt::F32);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->fdpa.F, 13);
  EXPECT_EQ(m->fdpa.out, OutRound::RZ_E8M13);
}

// ---- directed cases ---------------------------------------------------------------------------------

uint32_t f32(float x) { return std::bit_cast<uint32_t>(x); }

// Runs model m on one dot product given as bits, through both paths (they must agree).
uint32_t run(const DotModel& m, ElemFmt fa, ElemFmt fb, std::vector<uint32_t> a, std::vector<uint32_t> b, uint32_t c) {
  std::vector<Value> va, vb;
  for (size_t k = 0; k < a.size(); ++k) {
    va.push_back(decode_a(m, fa, a[k]));
    vb.push_back(decode_b(m, fb, b[k]));
  }
  const uint32_t fast = dot(m, va.data(), vb.data(), int(a.size()), c);
  const uint32_t exact = ref::dot(m, fa, a.data(), fb, b.data(), int(a.size()), c);
  EXPECT_EQ(fast, exact) << m.id;
  return fast;
}

const DotModel& model(const char* id) {
  for (const DotModel& m : all_models())
    if (std::string(m.id) == id) return m;
  throw std::runtime_error(std::string("no model ") + id);
}

// f16 / bf16 / e5m2 encodings of small powers of two and simple values.
constexpr uint32_t kF16One = 0x3C00, kF16NegHalf = 0xB800, kF16NegQuarter = 0xB400, kF16NegEighth = 0xB000;

// The paper's Table 8 vector: c = 2^23, products -2^23, -0.5, -0.25, -0.125 (exact answer -0.875).
// Hopper and Blackwell f16 give -0.75 (F = 25 keeps 2 bits below 2^0), Hopper fp8 wgmma 0
// (F = 13), Blackwell fp8 -0.75.
TEST(TensorCoreNumerics, PaperTable8Vector) {
  std::vector<uint32_t> a = {0xF000 /* -2^13 */, kF16NegHalf, kF16NegQuarter, kF16NegEighth};
  std::vector<uint32_t> b = {0x6400 /* 2^10 */, kF16One, kF16One, kF16One};
  a.resize(16, 0);
  b.resize(16, 0);
  const uint32_t c = f32(8388608.0f);
  EXPECT_EQ(run(model("sm90.mma.f16.f32"), ElemFmt::F16, ElemFmt::F16, a, b, c), f32(-0.75f));
  EXPECT_EQ(run(model("sm90.wgmma.f16.f32"), ElemFmt::F16, ElemFmt::F16, a, b, c), f32(-0.75f));
  EXPECT_EQ(run(model("sm100.tcgen05.f16.f32"), ElemFmt::F16, ElemFmt::F16, a, b, c), f32(-0.75f));
  // e5m2: -2^13 = 0xF0 (S=1, E=28, M=0), 2^10 = 0x64, -0.5 = 0xB8, -0.25 = 0xB4, -0.125 = 0xB0, 1 = 0x3C.
  std::vector<uint32_t> a8 = {0xF0, 0xB8, 0xB4, 0xB0}, b8 = {0x64, 0x3C, 0x3C, 0x3C};
  a8.resize(32, 0);
  b8.resize(32, 0);
  EXPECT_EQ(run(model("sm90.wgmma.fp8.f32"), ElemFmt::E5M2, ElemFmt::E5M2, a8, b8, c), f32(0.0f));
  EXPECT_EQ(run(model("sm100.tcgen05.e5m2.f32"), ElemFmt::E5M2, ElemFmt::E5M2, a8, b8, c), f32(-0.75f));
}

TEST(TensorCoreNumerics, SpecialValues) {
  const DotModel& m = model("sm90.mma.f16.f32");
  const uint32_t inf = 0x7C00, ninf = 0xFC00, nan = 0x7E01, one = kF16One, zero = 0;
  auto d = [&](uint32_t a0, uint32_t b0, uint32_t a1, uint32_t b1, uint32_t c) {
    return run(m, ElemFmt::F16, ElemFmt::F16, {a0, a1}, {b0, b1}, c);
  };
  EXPECT_EQ(d(nan, one, one, one, 0), 0x7FFFFFFFu);              // NaN in -> canonical NaN
  EXPECT_EQ(d(inf, zero, one, one, 0), 0x7FFFFFFFu);             // Inf * 0
  EXPECT_EQ(d(inf, one, ninf, one, 0), 0x7FFFFFFFu);             // +Inf + -Inf
  EXPECT_EQ(d(inf, one, one, one, f32(1.0f)), 0x7F800000u);      // Inf wins over finite terms
  EXPECT_EQ(d(ninf, one, one, one, 0), 0xFF800000u);
  EXPECT_EQ(d(one, one, one, one, 0xFF800000u), 0xFF800000u);    // infinite c
  EXPECT_EQ(d(inf, one, one, one, 0xFF800000u), 0x7FFFFFFFu);    // +Inf product, -Inf c
  EXPECT_EQ(d(one, one, one, one, 0x7FC00000u), 0x7FFFFFFFu);    // NaN c
  // f16 output: canonical NaN 0x7FFF.
  const DotModel& h = model("sm90.mma.f16.f16");
  EXPECT_EQ(run(h, ElemFmt::F16, ElemFmt::F16, {inf}, {zero}, 0), 0x7FFFu);
  EXPECT_EQ(run(h, ElemFmt::F16, ElemFmt::F16, {ninf}, {one}, 0), 0xFC00u);
  // e4m3 has no infinity: 0x7F is NaN, 0x7E is 448.
  const DotModel& q = model("sm90.mma.fp8.f32");
  EXPECT_EQ(run(q, ElemFmt::E4M3, ElemFmt::E4M3, {0x7F, 0, 0, 0}, {0x38, 0, 0, 0}, 0), 0x7FFFFFFFu);
  EXPECT_EQ(run(q, ElemFmt::E4M3, ElemFmt::E4M3, {0x7E, 0, 0, 0}, {0x38, 0, 0, 0}, 0), f32(448.0f));
  // TF32 reads f32 bits with the low 13 bits cleared: a NaN whose payload is only there is Inf.
  const DotModel& t = model("sm90.mma.tf32.f32");
  EXPECT_EQ(run(t, ElemFmt::TF32, ElemFmt::TF32, {0x7F800001u}, {f32(1.0f)}, 0), 0x7F800000u);
}

TEST(TensorCoreNumerics, RoundingOverflowAndZeros) {
  const DotModel& m = model("sm90.mma.bf16.f32");
  const uint32_t two52 = 0x5980;  // bf16 2^52
  const uint32_t two51 = 0x5900;  // 2^51
  const uint32_t fmax = 0x7F7FFFFFu;
  // FLT_MAX + 2^104 = 2^128 exactly: overflow to Inf even in RZ.
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {two52}, {two52}, fmax), 0x7F800000u);
  // FLT_MAX + 2^102 is below 2^128: RZ keeps FLT_MAX.
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {two51}, {two51}, fmax), fmax);
  // RZ, not RN: 1 + 2.5 * 2^-24 rounds down to 1 + 2^-23.
  const uint32_t two_m12 = 0x3980, two_m13 = 0x3900;  // bf16 2^-12, 2^-13
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {two_m12, two_m12, two_m13}, {two_m12, two_m12, two_m12}, f32(1.0f)),
            f32(1.0f) + 1);
  // Terms below 2^(E - 25) are truncated away (no sticky bit): 1 + 2^-30 = 1.
  const uint32_t two_m15 = 0x3800;
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {two_m15}, {two_m15}, f32(1.0f)), f32(1.0f));
  // Subnormal output kept: 2^-70 * 2^-70 = 2^-140.
  const uint32_t two_m70 = 0x1C80;
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {two_m70}, {two_m70}, 0), 0x00000200u);
  // An exactly zero sum is +0, even from -0 and cancelling terms.
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {0x8000}, {0x3F80}, 0x80000000u), 0u);
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {0x3F80, 0xBF80}, {0x3F80, 0x3F80}, 0u), 0u);
  // A nonzero sum truncated to zero is +0, whatever its sign (as on an H200): -(2^-150) -> +0.
  const uint32_t two_m75 = 0x1A00, neg_two_m75 = 0x9A00;
  EXPECT_EQ(run(m, ElemFmt::BF16, ElemFmt::BF16, {neg_two_m75}, {two_m75}, 0), 0u);
}

// mma.sync with fp8 on sm_90/sm_100 is two f16 HMMAs plus an FADD of C (ptxas's SASS), so C is
// added with round-to-nearest after the truncating dot products: 1 + 1.5 * 2^-24 becomes
// 1 + 2^-23 here, while a fused datapath (tcgen05, F = 25, RZ) gives 1.
TEST(TensorCoreNumerics, Fp8MmaSyncAddsCLast) {
  // e5m2: 2^-12 = 0x0C (E=3), 2^-13 = 0x08 (E=2).
  std::vector<uint32_t> a = {0x0C, 0x0C}, b = {0x0C, 0x08};
  a.resize(32, 0);
  b.resize(32, 0);
  EXPECT_EQ(run(model("sm90.mma.fp8.f32"), ElemFmt::E5M2, ElemFmt::E5M2, a, b, f32(1.0f)), f32(1.0f) + 1);
  EXPECT_EQ(run(model("sm100.tcgen05.e5m2.f32"), ElemFmt::E5M2, ElemFmt::E5M2, a, b, f32(1.0f)), f32(1.0f));
  // The two halves: k mod 4 in {0,1} first (with C = 0), then {2,3}; each half is one f16 T-FDPA
  // whose RZ output is the next one's c: the second half aligns against the first half's sum.
  std::vector<uint32_t> a2(32, 0), b2(32, 0);
  a2[0] = 0x3C;  // 1.0 at k = 0 (first half)
  b2[0] = 0x3C;
  a2[2] = 0x04;  // 2^-14 at k = 2 (second half)
  b2[2] = 0x30;  // 2^-3 -> product 2^-17, kept (grid 2^-25 at E = 0)
  EXPECT_EQ(run(model("sm90.mma.fp8.f32"), ElemFmt::E5M2, ElemFmt::E5M2, a2, b2, 0), f32(1.0f + 0x1p-17f));
}

TEST(TensorCoreNumerics, ExactReferenceAddMatchesIeee) {
  Gen g{std::mt19937_64(seed_for_test())};
  for (int i = 0; i < 20000; ++i) {
    const uint32_t x = uint32_t(g.rng()), y = g.chance(50) ? uint32_t(g.rng()) : x ^ 0x80000000u ^ uint32_t(g.bits(3));
    const float fx = std::bit_cast<float>(x), fy = std::bit_cast<float>(y);
    const float s = fx + fy;
    const uint32_t want = std::isnan(s) ? 0x7FFFFFFFu : std::bit_cast<uint32_t>(s);
    ASSERT_EQ(ref::add_rn(AccFmt::F32, x, y), want) << hex(x) << " + " << hex(y);
  }
}

}  // namespace
}  // namespace ptxsim::model::tc
