// model/tensorcore/tile.h: mma_tile must equal tc::dot per output element, bit for bit, for every
// model row and every A/B type the row covers, on random bit patterns (zeros, subnormals, Inf and
// NaN included, and C values large enough to overflow the chain). >= 10^5 outputs per row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"
#include "tensorcore_test_util.h"

namespace ptxsim::model::tc {
namespace {

uint64_t seed_for_test() {
  uint64_t s;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  else s = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  std::cout << "[ seed     ] PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

int width(ElemFmt f) {
  switch (f) {
    case ElemFmt::F16:
    case ElemFmt::BF16: return 16;
    case ElemFmt::TF32:
    case ElemFmt::F32: return 32;
    case ElemFmt::E4M3:
    case ElemFmt::E5M2: return 8;
    case ElemFmt::E3M2:
    case ElemFmt::E2M3: return 6;
    case ElemFmt::E2M1: return 4;
  }
  return 8;
}

// Random element bits; `finite` tiles avoid Inf/NaN so the fast path (not the fallback) is tested.
uint32_t elem(std::mt19937_64& rng, ElemFmt f, bool finite) {
  for (;;) {
    const uint64_t r = rng();
    if (r % 16 == 0) return (r >> 8) % 2 ? 0u : (1u << (width(f) - 1));  // +-0
    const uint32_t bits = uint32_t(r >> 16) & uint32_t((uint64_t{1} << width(f)) - 1);
    if (!finite) return bits;
    const Value v = decode(f, bits);
    if (v.cls != Value::Inf && v.cls != Value::NaN) return bits;
  }
}

uint32_t acc_elem(std::mt19937_64& rng, AccFmt f, bool finite) {
  for (;;) {
    const uint64_t r = rng();
    uint32_t bits = f == AccFmt::F32 ? uint32_t(r) : uint32_t(r) & 0xFFFF;
    if (r % 16 == 1) bits = 0;
    const Value v = decode(f, bits);
    if (!finite || (v.cls != Value::Inf && v.cls != Value::NaN)) return bits;
  }
}

class TilePropRow : public ::testing::TestWithParam<const DotModel*> {};

// mma_tile against tc::dot per output on `want_outputs` random outputs of `model`.
void check_row(const DotModel& model, uint64_t seed, size_t want_outputs) {
  std::mt19937_64 rng(seed);
  {
    std::vector<std::pair<ElemFmt, ElemFmt>> combos;
    for (int a = 0; a < 9; ++a)
      for (int b = 0; b < 9; ++b)
        if ((model.a_types >> a & 1) && (model.b_types >> b & 1)) combos.emplace_back(ElemFmt(a), ElemFmt(b));
    ASSERT_FALSE(combos.empty()) << model.id;
    size_t outputs = 0, mismatches = 0;
    for (int t = 0; outputs < want_outputs; ++t) {
      const auto [fa, fb] = combos[size_t(t) % combos.size()];
      // Every fifth tile a multiple of sixteen rows tall and narrower than sixteen columns, as
      // mma.sync's m16n8 (mma_tile runs those transposed).
      const bool tall = t % 5 == 1;
      const int M = tall ? 16 * (1 + int(rng() % 4)) : 16 + int(rng() % 49);
      const int N = tall ? 1 + int(rng() % 15) : 16 + int(rng() % 49), K = 1 + int(rng() % 40);
      const bool finite = t % 4 != 0;
      std::vector<uint32_t> a(size_t(M * K)), b(size_t(N * K)), c(size_t(M * N)), d(size_t(M * N), 0xDEADBEEF);
      for (auto& x : a) x = elem(rng, fa, finite);
      for (auto& x : b) x = elem(rng, fb, finite);
      for (auto& x : c) x = acc_elem(rng, model.acc, finite);
      if (t % 7 == 3)  // large C: overflow to Inf inside the chain
        for (auto& x : c) x = model.acc == AccFmt::F32 ? (x & 0x80000000u) | 0x7F7FFFF0u : (x & 0x8000u) | 0x7BFFu;
      // A quarter of the tiles packed; half with rows ldc / ldd apart (strided mma_tile), C and D in
      // buffers of their own or D written over C, the gaps between rows holding garbage that must
      // stay as it is; a quarter with C and D transposed (mma_tile_cd_transposed), D in a poisoned
      // buffer or over C. `d` then receives the packed result.
      const int layout = int(rng() % 4);
      if (layout == 0) {
        mma_tile(model, fa, fb, M, N, K, a.data(), b.data(), c.data(), d.data());
      } else if (layout == 3) {
        std::vector<uint32_t> ct(size_t(M * N)), dt(size_t(M * N), 0xDEADBEEF);
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) ct[size_t(n * M + m)] = c[size_t(m * N + n)];
        const bool over_c = rng() % 2;
        const std::vector<uint32_t> ct0 = ct;
        mma_tile_cd_transposed(model, fa, fb, M, N, K, a.data(), b.data(), ct.data(), over_c ? ct.data() : dt.data());
        if (!over_c) {
          ASSERT_EQ(ct, ct0) << "C was written (PTXSIM_TEST_SEED=" << seed << ")";
        }
        const std::vector<uint32_t>& got = over_c ? ct : dt;
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) d[size_t(m * N + n)] = got[size_t(n * M + m)];
      } else {
        const size_t ldc = size_t(N) + rng() % 9, ldd = layout == 1 ? size_t(N) + rng() % 9 : ldc;
        std::vector<uint32_t> cs(size_t(M) * ldc), ds(size_t(M) * ldd);
        for (auto& x : cs) x = uint32_t(rng());
        for (auto& x : ds) x = uint32_t(rng());
        for (int m = 0; m < M; ++m) std::copy_n(c.begin() + m * N, N, cs.begin() + ptrdiff_t(size_t(m) * ldc));
        const std::vector<uint32_t> cs0 = cs, ds0 = ds;
        uint32_t* dp = layout == 1 ? ds.data() : cs.data();
        mma_tile(model, fa, fb, M, N, K, a.data(), b.data(), cs.data(), ldc, dp, ldd);
        const std::vector<uint32_t>& after = layout == 1 ? ds : cs;
        const std::vector<uint32_t>& before = layout == 1 ? ds0 : cs0;
        for (int m = 0; m < M; ++m) {
          std::copy_n(after.begin() + ptrdiff_t(size_t(m) * ldd), N, d.begin() + m * N);
          for (size_t n = size_t(N); n < ldd; ++n)
            ASSERT_EQ(after[size_t(m) * ldd + n], before[size_t(m) * ldd + n])
                << "a gap between rows of D was written (ldd " << ldd << ", PTXSIM_TEST_SEED=" << seed << ")";
        }
        if (layout == 1) {
          ASSERT_EQ(cs, cs0) << "C was written (PTXSIM_TEST_SEED=" << seed << ")";
        }
      }
      std::vector<Value> va(static_cast<size_t>(K)), vb(static_cast<size_t>(K));
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          for (int k = 0; k < K; ++k) {
            va[size_t(k)] = decode_a(model, fa, a[size_t(m * K + k)]);
            vb[size_t(k)] = decode_b(model, fb, b[size_t(n * K + k)]);
          }
          const uint32_t want = dot(model, va.data(), vb.data(), K, c[size_t(m * N + n)]);
          const uint32_t got = d[size_t(m * N + n)];
          if (got != want && ++mismatches <= 3)
            ADD_FAILURE() << model.id << " " << fmt_name(fa) << "x" << fmt_name(fb) << " K=" << K << " (" << m << ", "
                          << n << "): got 0x" << std::hex << got << " want 0x" << want << std::dec
                          << " (PTXSIM_TEST_SEED=" << seed << ")";
        }
      outputs += size_t(M * N);
    }
    EXPECT_EQ(mismatches, 0u) << model.id;
  }
}

// One test per model row (ctest runs them in parallel), with the lane loops the processor gets.
TEST_P(TilePropRow, MmaTileEqualsPerElementDot) { check_row(*GetParam(), seed_for_test(), 100000); }

// The builds of the lane loops this processor can run below its best one (which runs in the other
// tests), and a cap on the build that is lifted however the test ends.
std::vector<LaneIsa> lower_lane_builds() {
  std::vector<LaneIsa> builds;
  for (LaneIsa isa : {LaneIsa::Baseline, LaneIsa::Avx2})
    if (int(isa) < int(lanes_isa())) builds.push_back(isa);
  return builds;
}
struct CapLanes {
  explicit CapLanes(LaneIsa isa) { force_lanes(isa); }
  ~CapLanes() { force_lanes(LaneIsa::Avx512); }
};

// The same with each lower build of the lane loops (an AVX-512 machine runs its sixteen-lane build
// above; the AVX2 and baseline builds must give the same bits).
TEST_P(TilePropRow, LowerIsaMmaTileEqualsPerElementDot) {
  std::cout << "[ lanes    ] the processor's default build: " << lane_isa_name(lanes_isa()) << "\n";
  for (const LaneIsa isa : lower_lane_builds()) {
    CapLanes cap(isa);
    ASSERT_EQ(lanes_isa(), isa);
    check_row(*GetParam(), seed_for_test() + uint64_t(isa), 25000);
  }
}

INSTANTIATE_TEST_SUITE_P(TileProp, TilePropRow, ::testing::ValuesIn(test::dot_rows()), test::row_name<DotModel>);

// Element bits whose nonzero finite values have alignment exponents in [lo, hi] (formats of 16 bits
// and more; narrower formats have a small range and take any finite bits).
uint32_t elem_in(std::mt19937_64& rng, ElemFmt f, int lo, int hi) {
  for (;;) {
    const uint32_t bits = elem(rng, f, true);
    const Value v = decode(f, bits);
    if (width(f) < 16 || v.cls == Value::Zero || (v.e >= lo && v.e <= hi)) return bits;
  }
}

// The positive element of format f with alignment exponent e (clamped to the format's range) and
// the largest significand: a group of L such products sums to nearly 2^(F+2) * L, the top of the
// int32 the narrow lanes sum in (with c's term, beyond it).
uint32_t widest_at(ElemFmt f, int e) {
  uint32_t best = 0;
  int best_e = 0;
  uint64_t best_m = 0;
  bool found = false;
  for (uint32_t x = 0; x < (uint32_t{1} << std::min(width(f), 16)); ++x) {
    const uint32_t bits = width(f) == 32 ? x << 16 : x;  // tf32: the top 16 bits of an f32 suffice here
    const Value v = decode(f, bits);
    if (v.cls != Value::Finite || v.neg) continue;
    const int d = std::abs(v.e - e), bd = std::abs(best_e - e);
    if (!found || d < bd || (d == bd && v.e == best_e && v.m > best_m)) {
      found = true;
      best = bits;
      best_e = v.e;
      best_m = v.m;
    }
  }
  return best | (width(f) == 32 ? 0xE000u : 0);  // tf32: its three low fraction bits set too
}

// The narrow (single-precision) path of mma_tile against tc::dot per output: operands drawn with
// exponents in a window around a random centre per tile, so most tiles take that path (f32
// accumulator rows with an RZ output and f16 accumulator rows with their RNE output, groups of at
// most 16), with the cases it must hand back:
// products and sums that underflow to subnormal or zero results, overflow to Inf, exact
// cancellation (pairs of equal and opposite products), zero, subnormal, huge, Inf and NaN c,
// subnormal operands (which make the tile wide), Inf/NaN operands, tiles with and without zero
// operands, and widths that are not a multiple of eight (or of sixteen). Every build of the lane
// loops the processor has; the test also checks the path was taken.
void check_narrow_row(const DotModel& model, uint64_t seed, size_t want_outputs) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<ElemFmt, ElemFmt>> combos;
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b)
      if ((model.a_types >> a & 1) && (model.b_types >> b & 1)) combos.emplace_back(ElemFmt(a), ElemFmt(b));
  ASSERT_FALSE(combos.empty()) << model.id;
  const bool f16_acc = model.acc == AccFmt::F16;
  const bool eligible = (f16_acc ? model.fdpa.out == OutRound::RNE_F16 : model.fdpa.out != OutRound::RNE_F16) &&
                        (int64_t{model.fdpa.L} << (model.fdpa.F + 2)) <= (int64_t{1} << 31) &&
                        model.split == KSplit::Consecutive && !model.c_last && model.a_as == kSame &&
                        model.b_as == kSame && model.fdpa.edges == kPtxsimEdgeRules;
  const uint64_t blocks0 = narrow_blocks_done();
  size_t outputs = 0, mismatches = 0;
  for (int t = 0; outputs < want_outputs; ++t) {
    const auto [fa, fb] = combos[size_t(t) % combos.size()];
    const int M = 1 + int(rng() % 24), N = t % 3 ? 8 * (1 + int(rng() % 6)) : 1 + int(rng() % 48);
    const int K = t % 2 ? model.fdpa.L * (1 + int(rng() % 3)) : 1 + int(rng() % 40);
    // Exponent windows: centres from deep underflow (products near 2^-149) to overflow (2^125).
    // (f16 spans 2^-24 .. 2^15: its centres are scaled into that range.)
    int ca = -75 + int(rng() % 140), cb = -75 + int(rng() % 140);
    const int w = int(rng() % 6);
    if (fa == ElemFmt::F16) ca = std::clamp(ca / 5, -14, 15);
    if (fb == ElemFmt::F16) cb = std::clamp(cb / 5, -14, 15);
    std::vector<uint32_t> a(size_t(M * K)), b(size_t(N * K)), c(size_t(M * N)), d(size_t(M * N), 0xDEADBEEF);
    // Every fourth tile has no zero operand (the lanes then skip the zero-product check).
    const bool no_zeros = t % 4 == 1;
    auto draw = [&](ElemFmt f, int centre) {
      for (;;) {
        const uint32_t x = elem_in(rng, f, centre - w, centre + w);
        if (!no_zeros || decode(f, x).cls != Value::Zero) return x;
      }
    };
    for (auto& x : a) x = draw(fa, ca);
    for (auto& x : b) x = draw(fb, cb);
    if (t % 3 == 0)  // cancellation: a[k + 1] * b[k + 1] = -(a[k] * b[k])
      for (int k = 0; k + 1 < K; k += 2) {
        for (int m = 0; m < M; ++m) a[size_t(m * K + k + 1)] = a[size_t(m * K + k)];
        for (int n = 0; n < N; ++n) b[size_t(n * K + k + 1)] = b[size_t(n * K + k)] ^ (1u << (width(fb) - 1));
      }
    if (t % 5 == 4) a[rng() % a.size()] = 1;  // the smallest subnormal (e4m3 and the like: a small normal)
    if (t % 11 == 10) b[rng() % b.size()] = elem(rng, fb, false) | uint32_t((uint64_t{1} << width(fb)) - 1) >> 1;
    if (t % 13 == 12) a[rng() % a.size()] = uint32_t((uint64_t{1} << width(fa)) - 1) >> 1;  // NaN (or max)
    if (t % 17 == 16) {  // full groups of the largest significand at one exponent: sums near 2^31
      std::fill(a.begin(), a.end(), widest_at(fa, ca));
      std::fill(b.begin(), b.end(), widest_at(fb, cb));
    }
    for (auto& x : c) {
      const uint64_t r = rng();
      if (f16_acc) {  // f16 bits: zeros, subnormals, the largest finite, Inf / NaN, or near the products
        const int he = std::clamp(ca + cb + int(r % 21) - 10, -14, 15);
        switch (r >> 60) {
          case 0: x = 0; break;
          case 1: x = 0x8000u; break;
          case 2: x = uint32_t(r >> 8) & 0x83FFu; break;                          // subnormal
          case 3: x = t % 7 == 3 ? 0x7BFFu : (uint32_t(r >> 8) & 0x83FFu) | 0x7800u; break;  // huge
          case 4: x = t % 9 == 8 ? 0x7C00u | uint32_t(r >> 40 & 1) : 0; break;     // Inf / NaN
          default: x = (uint32_t(r >> 8) & 0x83FFu) | uint32_t(he + 15) << 10;
        }
        continue;
      }
      const int ce = std::clamp(ca + cb + int(r % 21) - 10, -149, 127);
      switch (r >> 60) {
        case 0: x = 0; break;
        case 1: x = 0x80000000u; break;
        case 2: x = uint32_t(r >> 8) & 0x807FFFFFu; break;                  // subnormal
        case 3: x = t % 7 == 3 ? 0x7F7FFFFFu : uint32_t(r >> 8) | 0x7F000000u; break;  // huge
        case 4: x = t % 9 == 8 ? 0x7F800000u | uint32_t(r >> 40 & 1) : 0; break;      // Inf / NaN
        default: {
          const float v = std::ldexp(float(int32_t(r >> 8) % 4096) / 2048.0f, ce);
          std::memcpy(&x, &v, 4);
        }
      }
    }
    mma_tile(model, fa, fb, M, N, K, a.data(), b.data(), c.data(), d.data());
    std::vector<Value> va(static_cast<size_t>(K)), vb(static_cast<size_t>(K));
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        for (int k = 0; k < K; ++k) {
          va[size_t(k)] = decode_a(model, fa, a[size_t(m * K + k)]);
          vb[size_t(k)] = decode_b(model, fb, b[size_t(n * K + k)]);
        }
        const uint32_t want = dot(model, va.data(), vb.data(), K, c[size_t(m * N + n)]);
        const uint32_t got = d[size_t(m * N + n)];
        if (got != want && ++mismatches <= 3)
          ADD_FAILURE() << model.id << " " << fmt_name(fa) << "x" << fmt_name(fb) << " t=" << t << " K=" << K << " ("
                        << m << ", " << n << "): got 0x" << std::hex << got << " want 0x" << want << std::dec
                        << " (PTXSIM_TEST_SEED=" << seed << ")";
      }
    outputs += size_t(M * N);
  }
  EXPECT_EQ(mismatches, 0u) << model.id;
  const uint64_t blocks = narrow_blocks_done() - blocks0;
  std::cout << "[ narrow   ] " << blocks << " blocks of eight outputs took the single-precision path\n";
  if (eligible) EXPECT_GT(blocks, want_outputs / 80) << model.id;
  else EXPECT_EQ(blocks, 0u) << model.id;
}

TEST_P(TilePropRow, NarrowTilesEqualPerElementDot) {
  const uint64_t seed = seed_for_test();
  check_narrow_row(*GetParam(), seed, 60000);
  for (const LaneIsa isa : lower_lane_builds()) {
    CapLanes cap(isa);
    check_narrow_row(*GetParam(), seed + 1 + uint64_t(isa), 20000);
  }
}

// One row of eight outputs (M = 1, N = 8) through mma_tile in every build of the lane loops the
// processor has, and the same eight columns twice (N = 16, which the AVX-512 build runs as one
// sixteen-lane block): every output must equal tc::dot and `expect` (worked out by hand);
// narrow >= 0: the number of blocks of eight that must take the narrow lanes (twice that for N = 16).
void check_block(const DotModel& m, ElemFmt f, int K, const std::vector<uint32_t>& a, const std::vector<uint32_t>& bt,
                 const std::vector<uint32_t>& c, const uint32_t (&expect)[8], int narrow = -1) {
  std::vector<LaneIsa> builds = lower_lane_builds();
  builds.push_back(lanes_isa());
  for (const LaneIsa isa : builds)
    for (const int copies : {1, 2}) {
      CapLanes cap(isa);
      const int N = 8 * copies;
      const std::string build = std::string(lane_isa_name(isa)) + " N=" + std::to_string(N);
      std::vector<uint32_t> b2, c2;
      for (int i = 0; i < copies; ++i) {
        b2.insert(b2.end(), bt.begin(), bt.end());
        c2.insert(c2.end(), c.begin(), c.end());
      }
      std::vector<uint32_t> d(size_t(N), 0xDEADBEEF);
      const uint64_t blocks0 = narrow_blocks_done();
      mma_tile(m, f, f, 1, N, K, a.data(), b2.data(), c2.data(), d.data());
      if (narrow >= 0) {
        EXPECT_EQ(narrow_blocks_done() - blocks0, uint64_t(narrow * copies)) << build;
      }
      for (int n = 0; n < N; ++n) {
        std::vector<Value> va, vb;
        for (int k = 0; k < K; ++k) {
          va.push_back(decode_a(m, f, a[size_t(k)]));
          vb.push_back(decode_b(m, f, b2[size_t(n * K + k)]));
        }
        EXPECT_EQ(d[size_t(n)], dot(m, va.data(), vb.data(), K, c2[size_t(n)])) << "lane " << n << " " << build;
        EXPECT_EQ(d[size_t(n)], expect[n % 8]) << "lane " << n << " " << build;
      }
    }
}

// Directed lane cases: one block of eight outputs where each lane takes a different branch of the
// lane loop (normal RZ result, overflow to Inf in the first group then the per-element path, a
// subnormal result redone by fdpa_round and chained on, exact cancellation to +0, a negative result
// with a -0 c, an Inf c, a NaN in B's column, an f32-max c), across two groups (K = 32, L = 16);
// every lane must equal tc::dot and the value worked out by hand, in every build of the lane loops.
TEST(TileProp, LaneBranchesEqualPerElementDot) {
  const DotModel& m = *find_model(Arch::SM90, Unit::Wgmma, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32);
  constexpr int N = 8, K = 32;
  const uint32_t one = 0x3F80, two_m75 = 0x1A00, big = 0x7F00 /* 2^127 */;
  std::vector<uint32_t> a(K, 0), bt(size_t(N) * K, 0), c(N, 0);
  a[0] = one;
  a[1] = one;
  a[16] = one;
  auto col = [&](int n) { return bt.begin() + n * K; };
  col(0)[0] = 0x4000;  // lane 0: 2, then + 1.5 in the second group: 3.5
  col(0)[16] = 0x3FC0;
  col(1)[0] = big;  // lane 1: 2^127 + 2^127 = 2^128: Inf after the first group, per element after that
  col(1)[1] = big;
  col(2)[0] = 0x0001;   // lane 2: 2^-133 (bf16 subnormal): a subnormal f32 c for the second group,
  col(2)[16] = 0x0008;  // which adds 2^-130: 9 * 2^-133
  col(3)[0] = one;  // lane 3: 1 - 1 = +0 (an exactly zero sum), still +0 after the second group
  col(3)[1] = 0xBF80;
  col(4)[0] = 0x8000 | two_m75;  // lane 4: -2^-75 + (-0)
  col(5)[16] = one;  // lane 5: c = +Inf
  col(6)[3] = 0x7FC1;  // lane 6: a NaN in B's column (times a[3] = 0: still NaN)
  col(7)[0] = one;  // lane 7: FLT_MAX + 1 = FLT_MAX (RZ)
  c[2] = 0x00000000;
  c[4] = 0x80000000;     // -0
  c[5] = 0x7F800000;     // +Inf
  c[7] = 0x7F7FFFFF;     // FLT_MAX
  const uint32_t expect[N] = {0x40600000, 0x7F800000, 0x00090000, 0, 0x9A000000, 0x7F800000, 0x7FFFFFFF, 0x7F7FFFFF};
  check_block(m, ElemFmt::BF16, K, a, bt, c, expect);
}

// A model whose e_zero (-80) lies above c's smallest exponent, so that a group's zero products raise
// its alignment exponent E to e_zero (the narrow lanes' smallest-product test, which the table's
// models never need): a = 1, K = 16, L = 16, F = 25. Lane 0: one product (1 + 2^-7) * 2^-100 and 15
// zero ones: E = -80, lsb = -105, the product's term 32.25 truncates to 32: 2^-100. Lane 1: sixteen
// such products, none zero, and c = 2^-96: E = -96, exact: (1 + 2^-8) * 2^-95. Lane 2: products 1 and the tiny
// one, which truncates away: 1. Lane 3: zero products and c = 2^-120, which truncates away: +0.
// Lane 4: the tiny product and c = 2^-90: E = -80, 2^-90 + 2^-100 (unraised: 2^-90 * (1 + 2^-10 +
// 2^-17)). Lanes 5-7: zeros, +0. Each lane must equal tc::dot and the value by hand, and take the
// narrow lanes, in every build.
TEST(TileProp, ZeroProductsRaiseTheGroupExponent) {
  DotModel m = *find_model(Arch::SM90, Unit::Wgmma, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32);
  m.fdpa.e_zero = -80;
  constexpr int N = 8, K = 16;
  const uint32_t one = 0x3F80, tiny = 0x0D81;  // 1, (1 + 2^-7) * 2^-100
  std::vector<uint32_t> a(K, one), bt(size_t(N) * K, 0), c(N, 0);
  auto col = [&](int n) { return bt.begin() + n * K; };
  col(0)[0] = tiny;
  std::fill(col(1), col(1) + K, tiny);
  c[1] = 0x0F800000;  // 2^-96
  col(2)[0] = one, col(2)[1] = tiny;
  c[3] = 0x03800000;  // 2^-120
  col(4)[0] = tiny;
  c[4] = 0x12800000;  // 2^-90
  const uint32_t expect[N] = {0x0D800000, 0x10008000, 0x3F800000, 0, 0x12802000, 0, 0, 0};
  check_block(m, ElemFmt::BF16, K, a, bt, c, expect, 1);
}

// Results at the bottom of the f32 range on the narrow lanes (wgmma bf16 -> f32, K = 16): the lanes
// scale their sum by adding lsb to its exponent, which is exact only for normal results. Each lane
// sums 2^-102 - 2^-102 + 2^-126 (E = -102, lsb = -127, S = 2): the smallest normal, which the lanes
// finish (one narrow block). Then lane 0 sums 2^-102 - 2^-102 + 2^-127 (S = 1): the subnormal
// 2^-127, which they must leave to the per-element path (no narrow block). Each lane must equal
// tc::dot and the value by hand, in every build.
TEST(TileProp, NarrowLanesLeaveSubnormalResults) {
  const DotModel& m = *find_model(Arch::SM90, Unit::Wgmma, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32);
  constexpr int N = 8, K = 16;
  const uint32_t p51 = 0x2600, n51 = 0xA600, p62 = 0x2080, p63 = 0x2000, p64 = 0x1F80;  // +-2^-51, 2^-62 ..
  std::vector<uint32_t> a(K, 0), bt(size_t(N) * K, 0), c(N, 0);
  a[0] = p51, a[1] = n51, a[2] = p64;
  for (int n = 0; n < N; ++n) bt[size_t(n * K)] = p51, bt[size_t(n * K + 1)] = p51, bt[size_t(n * K + 2)] = p62;
  const uint32_t normal[N] = {0x00800000, 0x00800000, 0x00800000, 0x00800000,
                              0x00800000, 0x00800000, 0x00800000, 0x00800000};
  check_block(m, ElemFmt::BF16, K, a, bt, c, normal, 1);
  bt[2] = p63;
  const uint32_t subnormal[N] = {0x00400000, 0x00800000, 0x00800000, 0x00800000,
                                 0x00800000, 0x00800000, 0x00800000, 0x00800000};
  check_block(m, ElemFmt::BF16, K, a, bt, c, subnormal, 0);
}

// Lanes with no nonzero term on the narrow lanes (wgmma bf16 -> f32, K = 16), as the rows and
// columns of a zero-padded tile give: their lsb, e_zero - F = -158, lies below the lanes' scale.
// A = (1, 0, ..., 0). Lanes 0-3: B column (1, 0, ...), c = 0: 1. Lane 4: a zero column and c = +0:
// +0. Lane 5: a zero column and c = -0: +0 (an exactly zero sum is +0). Lane 6: a zero column and
// c = 2^-100: 2^-100. Lane 7: a zero column and c = -1: -1. Each lane must equal tc::dot and the
// value by hand, in every build, and the block must stay on the narrow lanes (before, lanes 4
// and 5 sent it to the per-element path).
TEST(TileProp, NarrowLanesFinishLanesWithoutTerms) {
  const DotModel& m = *find_model(Arch::SM90, Unit::Wgmma, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32);
  constexpr int N = 8, K = 16;
  const uint32_t one = 0x3F80;
  std::vector<uint32_t> a(K, 0), bt(size_t(N) * K, 0), c(N, 0);
  a[0] = one;
  for (int n = 0; n < 4; ++n) bt[size_t(n * K)] = one;
  c[5] = 0x80000000u, c[6] = 0x0D800000u, c[7] = 0xBF800000u;
  const uint32_t expect[N] = {0x3F800000, 0x3F800000, 0x3F800000, 0x3F800000, 0, 0, 0x0D800000, 0xBF800000};
  check_block(m, ElemFmt::BF16, K, a, bt, c, expect, 1);
}

// Directed f16 cases for the narrow lanes' RNE step (mma.sync .f16 accumulator, L = 16, K = 32): one
// block of eight outputs, every lane a normal f16 result that the lanes finish themselves: ties to
// even down and up, a round up that is not a tie, a round up that carries into the next binade, a
// negative tie, rounding per group (the second group's tie lands on the first group's rounded c), a
// normal c with the smallest normal result, and a tie at the top binade. Each lane must equal
// tc::dot and the value worked out by hand, in every build, and the block must take the narrow lanes.
TEST(TileProp, F16NarrowLanesRoundToNearestEven) {
  const DotModel& m = *find_model(Arch::SM90, Unit::MmaSync, ElemFmt::F16, ElemFmt::F16, AccFmt::F16);
  constexpr int N = 8, K = 32;
  const uint32_t one = 0x3C00, m10 = 0x1400 /* 2^-10 */, m11 = 0x1000, m12 = 0x0C00, m13 = 0x0800;
  std::vector<uint32_t> a(K, 0), bt(size_t(N) * K, 0), c(N, 0);
  for (int k : {0, 1, 2, 16}) a[size_t(k)] = one;
  auto col = [&](int n) { return bt.begin() + n * K; };
  col(0)[0] = one, col(0)[1] = m11;                    // 1 + 2^-11: a tie, down to 1
  col(1)[0] = one, col(1)[1] = m10, col(1)[2] = m11;   // 1 + 2^-10 + 2^-11: a tie, up to 1 + 2^-9
  col(2)[0] = one, col(2)[1] = m11, col(2)[2] = m12;   // beyond the tie (and a subnormal c): 1 + 2^-10
  c[2] = 0x0001;                                       // 2^-24
  col(3)[0] = one, col(3)[1] = 0x3BFF;                 // 1 + (1 - 2^-11) = 2 - 2^-11: up to 2
  col(4)[0] = 0xBC00, col(4)[1] = 0x9000;              // -(1 + 2^-11): -1
  col(5)[0] = one, col(5)[1] = m11, col(5)[16] = m11;  // 1 after the first group, 1 again after the second
  col(6)[0] = m13;                                     // 2^-13 + c = -2^-14: 2^-14, the smallest normal
  c[6] = 0x8400;
  col(7)[0] = 0x7800, col(7)[1] = 0x4C00;              // 2^15 + 16: a tie, down to 2^15
  const uint32_t expect[N] = {0x3C00, 0x3C02, 0x3C01, 0x4000, 0xBC00, 0x3C00, 0x0400, 0x7800};
  check_block(m, ElemFmt::F16, K, a, bt, c, expect, 1);
}

TEST(TileProp, IntegerTileMatchesLoops) {
  std::mt19937_64 rng(seed_for_test());
  for (int t = 0; t < 40; ++t) {
    const bool as = t & 1, bs = t & 2, sat = t & 4;
    const int M = 16, N = 8 + int(rng() % 64), K = 32 * (1 + int(rng() % 4));
    std::vector<uint8_t> a(size_t(M * K)), b(size_t(N * K));
    for (auto& x : a) x = uint8_t(rng());
    for (auto& x : b) x = uint8_t(rng());
    std::vector<int32_t> c(size_t(M * N)), d(size_t(M * N));
    for (auto& x : c) x = t % 8 == 7 ? INT32_MAX - int32_t(rng() % 100) : int32_t(rng());
    mma_tile_int(as, bs, sat, M, N, K, a.data(), b.data(), c.data(), d.data());
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        int64_t acc = c[size_t(m * N + n)];
        for (int k = 0; k < K; ++k)
          acc += (as ? int64_t(int8_t(a[size_t(m * K + k)])) : int64_t(a[size_t(m * K + k)])) *
                 (bs ? int64_t(int8_t(b[size_t(n * K + k)])) : int64_t(b[size_t(n * K + k)]));
        if (sat) acc = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
        ASSERT_EQ(d[size_t(m * N + n)], int32_t(uint32_t(acc))) << t;
      }
  }
}

}  // namespace
}  // namespace ptxsim::model::tc
