// sim/exec/async_ranges.h AsyncRangeCounts: the per-chunk and per-block counts of in-flight async
// operations' shared-memory ranges. Random issues and completions (TMA boxes, bulk copies and
// stores' sources, cp.async lanes' single chunks; every size and alignment, ranges past the end)
// against a plain list of what is in flight; overlaps() must agree with the list on random queries,
// reads and writes, small and kilobytes long.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "sim/exec/async_ranges.h"

namespace ptxsim {
namespace {

struct Op {
  uint32_t off, bytes;
  bool src_only;
};

// Whether any op in flight overlaps [off, off + size), at 16-byte chunk granularity, within
// `smem` bytes: one writing it, or, for a write, one reading it.
bool reference(const std::vector<Op>& ops, uint32_t off, uint32_t size, bool write, uint32_t smem) {
  const uint32_t chunks = (smem + 15) / 16;
  for (const Op& o : ops) {
    if (o.bytes == 0 || (o.src_only && !write)) continue;
    const uint32_t lo = std::max(o.off / 16, off / 16);
    const uint32_t hi = std::min({(o.off + o.bytes - 1) / 16, (off + size - 1) / 16, chunks - 1});
    if (lo <= hi) return true;
  }
  return false;
}

TEST(AsyncRangeCounts, OverlapsMatchesTheOperationsInFlight) {
  uint64_t seed = std::random_device{}();
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) seed = std::strtoull(e, nullptr, 0);
  std::cout << "[ seed     ] PTXSIM_TEST_SEED=" << seed << "\n";
  std::mt19937_64 rng(seed);
  constexpr uint32_t kSmem = 9000;  // not a whole number of blocks
  AsyncRangeCounts counts;
  counts.reset(kSmem);
  std::vector<Op> ops;
  int hits = 0;
  for (int step = 0; step < 6000; ++step) {
    if (!ops.empty() && (ops.size() > 12 || rng() % 2 == 0)) {
      const size_t i = rng() % ops.size();
      const Op o = ops[i];
      counts.add(o.off, o.bytes, o.src_only, -1);
      ops.erase(ops.begin() + long(i));
    } else if (rng() % 4 == 0) {  // a cp.async lane: 4, 8 or 16 bytes inside one chunk
      const Op o{uint32_t(rng() % kSmem), 1, false};
      counts.add(o.off, o.bytes, o.src_only, +1);
      ops.push_back(o);
    } else if (rng() % 4 == 0) {  // a warp's cp.async: lanes of a mask, each one chunk (runs, strides, scatter)
      uint32_t offs[32];
      const uint32_t base = uint32_t(rng() % kSmem), stride = uint32_t(rng() % 3 == 0 ? rng() % 300 : 16);
      for (uint32_t l = 0; l < 32; ++l) offs[l] = uint32_t((base + l * stride) % kSmem);
      const uint32_t mask = rng() % 2 ? ~0u : uint32_t(rng());
      counts.add_chunk_writes(offs, mask, +1);
      for (uint32_t l = 0; l < 32; ++l)
        if (mask >> l & 1) ops.push_back({offs[l], 1, false});
      if (rng() % 2) {  // completes at once, as the engine does (the whole warp's copy at a time)
        counts.add_chunk_writes(offs, mask, -1);
        ops.resize(ops.size() - size_t(std::popcount(mask)));
      }
    } else {
      const bool big = rng() % 3 == 0;
      const Op o{uint32_t(rng() % kSmem), uint32_t(2 + rng() % (big ? 4000 : 100)), rng() % 3 == 0};
      counts.add(o.off, o.bytes, o.src_only, +1);
      ops.push_back(o);
    }
    for (int q = 0; q < 4; ++q) {
      const uint32_t qo = uint32_t(rng() % kSmem), qn = uint32_t(1 + rng() % (q % 2 ? 3000 : 64));
      const bool write = rng() % 2 == 0;
      const bool want = reference(ops, qo, qn, write, kSmem);
      hits += want;
      ASSERT_EQ(counts.overlaps(qo, qn, write), want)
          << "step " << step << " " << (write ? "write" : "read") << " [" << qo << ", +" << qn << ") with "
          << ops.size() << " in flight (seed " << seed << ")";
    }
  }
  // Both answers must have been exercised.
  EXPECT_GT(hits, 1000);
  EXPECT_LT(hits, 23000);
}

}  // namespace
}  // namespace ptxsim
