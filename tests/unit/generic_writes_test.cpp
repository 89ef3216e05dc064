// sim/exec/engine.h GenericWrites: the per-byte record of generic-proxy writes to shared memory not
// yet covered by an async-proxy write. Random marks (st.shared) and clears (TMA boxes landing, of
// every size and alignment, partial chunks at either end included) against a plain per-byte
// reference; any() and any_in_chunk() must agree with it everywhere, and may_touch() must cover it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "sim/exec/engine.h"

namespace ptxsim {
namespace {

TEST(GenericWrites, MarksAndClearsMatchAPerByteRecord) {
  uint64_t seed = std::random_device{}();
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) seed = std::strtoull(e, nullptr, 0);
  std::cout << "[ seed     ] PTXSIM_TEST_SEED=" << seed << "\n";
  std::mt19937_64 rng(seed);
  constexpr uint32_t kBytes = 4096;
  GenericWrites gw;
  gw.reset(kBytes);
  std::vector<uint8_t> ref(kBytes, 0);
  for (int step = 0; step < 4000; ++step) {
    const uint32_t off = uint32_t(rng() % kBytes);
    const bool big = rng() % 4 == 0;
    // (Ranges may run past the end: both sides ignore what lies beyond the tracked bytes.)
    const uint32_t n = uint32_t(1 + rng() % (big ? 3000 : 40));
    const bool mark = rng() % 2 == 0;
    if (mark) gw.mark(off, n);
    else gw.clear(off, n);
    for (uint32_t i = off; i < off + n && i < kBytes; ++i) ref[i] = mark;
    const uint32_t qo = uint32_t(rng() % kBytes), qn = uint32_t(1 + rng() % 200);
    bool want = false;
    for (uint32_t i = qo; i < qo + qn && i < kBytes; ++i) want = want || ref[i];
    ASSERT_EQ(gw.any(qo, qn), want) << "step " << step << " query [" << qo << ", +" << qn << ") (seed " << seed << ")";
    // may_touch may say yes for a range holding no mark, never no for one holding a mark.
    if (want) {
      ASSERT_TRUE(gw.may_touch(qo, qo + qn)) << "step " << step << " query [" << qo << ", +" << qn << ") (seed " << seed << ")";
    }
  }
  for (uint32_t ch = 0; ch < kBytes / 16; ++ch)
    for (uint32_t b = 0; b < 16; ++b)
      ASSERT_EQ(gw.any_in_chunk(ch * 16, uint16_t(1u << b)), ref[ch * 16 + b] != 0)
          << "byte " << ch * 16 + b << " (seed " << seed << ")";
}

// The range may_touch keeps: marks grow it, clears leave it, clear_all empties it.
TEST(GenericWrites, MayTouchCoversTheMarksSinceClearAll) {
  GenericWrites gw;
  gw.reset(4096);
  EXPECT_FALSE(gw.may_touch(0, 4096));
  gw.mark(100, 8);
  gw.mark(2000, 16);
  EXPECT_TRUE(gw.may_touch(0, 101));
  EXPECT_TRUE(gw.may_touch(2015, 2016));
  EXPECT_FALSE(gw.may_touch(0, 100));       // below the first mark
  EXPECT_FALSE(gw.may_touch(2016, 4096));   // above the last
  EXPECT_FALSE(gw.may_touch(500, 500));     // an empty range
  gw.clear(0, 4096);                        // a landing clears the bytes, not the range
  EXPECT_FALSE(gw.any(0, 4096));
  EXPECT_TRUE(gw.may_touch(1000, 1001));
  gw.clear_all();
  EXPECT_FALSE(gw.may_touch(0, 4096));
  gw.mark(3000, 1);
  EXPECT_TRUE(gw.any(3000, 1));
  EXPECT_TRUE(gw.may_touch(3000, 3001));
  EXPECT_FALSE(gw.may_touch(0, 3000));
}

}  // namespace
}  // namespace ptxsim
