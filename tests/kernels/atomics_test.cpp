// atomics.cu: histograms (shared- and global-memory atomicAdd), atomicCAS maximum loops (f32, u64),
// atomicExch, wrapping atomicInc/atomicDec, and the integer min/max/and/or/xor/float-add atomics.
// Only order-independent results are checked: final values and the multisets of returned values.
#include <algorithm>
#include <bit>
#include <climits>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using AtomicsTest = KernelTest;

TEST_P(AtomicsTest, Histogram) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "atomics");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 4, block = 256;
  int n = 3 * int(grid * block) + std::uniform_int_distribution<int>(0, 500)(rng);
  std::vector<unsigned> in(n);
  // Skewed values so that some bins see heavy contention.
  for (auto& v : in) v = (rng() & 3) ? uint32_t(rng()) : uint32_t(rng() % 3) * 0x101u;
  std::vector<unsigned> zeros(64, 0);
  uint64_t d_in = h.upload(in), d_sh = h.upload(zeros), d_gl = h.upload(zeros);
  RunResult r = h.launch("histogram", {grid}, {block}, h.params("histogram", d_in, d_sh, d_gl, n), 0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<unsigned> want_sh(64, 0), want_gl(64, 0);
  for (unsigned v : in) {
    ++want_sh[v % 64];
    ++want_gl[(v >> 8) % 64];
  }
  EXPECT_TRUE(compare_exact("histogram via shared memory", h.download<unsigned>(d_sh, 64), want_sh));
  EXPECT_TRUE(compare_exact("histogram via global atomics", h.download<unsigned>(d_gl, 64), want_gl));
}

TEST_P(AtomicsTest, CasMaxExchIncDecAndFriends) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "atomics");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 6, block = 128;
  int n = int(grid * block) - std::uniform_int_distribution<int>(0, 30)(rng);
  std::vector<float> fin(n);
  std::vector<int> iin(n);
  std::vector<unsigned long long> lin(n);
  for (auto& f : fin) f = std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng);
  for (auto& x : iin) x = int(uint32_t(rng()));
  for (auto& l : lin) l = rng();
  const unsigned limit = std::uniform_int_distribution<unsigned>(5, 50)(rng);
  std::vector<unsigned> init(12);
  init[0] = std::bit_cast<unsigned>(-50.0f);
  init[1] = std::uniform_int_distribution<unsigned>(0, limit + 5)(rng);
  init[2] = std::uniform_int_distribution<unsigned>(0, limit + 5)(rng);
  init[3] = INT_MAX;
  init[4] = unsigned(INT_MIN);
  init[5] = 0xffffffffu;
  init[6] = 0;
  init[7] = uint32_t(rng());
  init[8] = std::bit_cast<unsigned>(0.0f);
  init[9] = UINT_MAX;
  init[10] = 0;
  init[11] = uint32_t(rng());
  std::vector<unsigned long long> u64init = {rng() >> 8};
  uint64_t d_f = h.upload(fin), d_i = h.upload(iin), d_l = h.upload(lin), d_res = h.upload(init),
           d_u64 = h.upload(u64init), d_inc = h.alloc_n<unsigned>(n), d_dec = h.alloc_n<unsigned>(n),
           d_exch = h.alloc_n<unsigned>(n);
  RunResult r = h.launch("atomics_misc", {grid}, {block},
                         h.params("atomics_misc", d_f, d_i, d_l, d_res, d_u64, d_inc, d_dec, d_exch, limit, n), 0,
                         nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);

  std::vector<unsigned> want = init;
  float fmax = -50.0f, fsum = 0.0f;
  unsigned long long lmax = u64init[0];
  std::vector<unsigned> inc_olds, dec_olds, exch_pool = {init[11]};
  unsigned inc = init[1], dec = init[2];
  for (int i = 0; i < n; ++i) {
    fmax = std::max(fmax, fin[i]);
    lmax = std::max(lmax, lin[i]);
    inc_olds.push_back(inc);
    inc = inc >= limit ? 0 : inc + 1;
    dec_olds.push_back(dec);
    dec = (dec == 0 || dec > limit) ? limit : dec - 1;
    int x = iin[i];
    want[3] = unsigned(std::min(int(want[3]), x));
    want[4] = unsigned(std::max(int(want[4]), x));
    want[5] &= unsigned(x) | 0x80000001u;
    want[6] |= unsigned(x) & 0x00ff00f0u;
    want[7] ^= unsigned(x);
    fsum += float(x & 15);
    want[9] = std::min(want[9], unsigned(x));
    want[10] = std::max(want[10], unsigned(x));
    exch_pool.push_back(unsigned(i) * 2654435761u);
  }
  want[0] = std::bit_cast<unsigned>(fmax);
  want[1] = inc;
  want[2] = dec;
  want[8] = std::bit_cast<unsigned>(fsum);
  std::vector<unsigned> got = h.download<unsigned>(d_res, 12);
  // The exchange slot's final value is whichever exchange came last; check it via the multiset.
  want[11] = got[11];
  EXPECT_TRUE(compare_exact("result words (see atomics.cu for the layout)", got, want));
  EXPECT_EQ(h.download<unsigned long long>(d_u64, 1)[0], lmax) << "64-bit atomicCAS maximum";

  auto sorted = [](std::vector<unsigned> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_TRUE(compare_exact("sorted atomicInc return values", sorted(h.download<unsigned>(d_inc, n)), sorted(inc_olds)));
  EXPECT_TRUE(compare_exact("sorted atomicDec return values", sorted(h.download<unsigned>(d_dec, n)), sorted(dec_olds)));
  std::vector<unsigned> exch_seen = h.download<unsigned>(d_exch, n);
  exch_seen.push_back(got[11]);
  EXPECT_TRUE(compare_exact("sorted atomicExch return values plus the final value", sorted(exch_seen), sorted(exch_pool)));
}

KTEST_INSTANTIATE(AtomicsTest);

}  // namespace
}  // namespace ptxsim::ktest
