// Which bytes of a CTA's shared memory in-flight asynchronous operations write, or read as their
// source: per 16-byte chunk, how many operations do. A plain access asks whether any overlaps it
// (the race check) in time proportional to its size, not to what is in flight. A second level
// counts per 1 KiB block, so a wgmma's operand read (kilobytes, every mma_async) skips the blocks
// nothing touches instead of testing each of their 64 chunks.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

namespace ptxsim {

class AsyncRangeCounts {
 public:
  static constexpr uint32_t kChunk = 16, kChunksPerBlock = 64;

  void reset(uint32_t smem_bytes) {
    const size_t chunks = (smem_bytes + kChunk - 1) / kChunk;
    const size_t blocks = (chunks + kChunksPerBlock - 1) / kChunksPerBlock;
    writing_.assign(chunks, 0);
    reading_.assign(chunks, 0);
    writing_blocks_.assign(blocks, 0);
    reading_blocks_.assign(blocks, 0);
  }

  // An operation writing (or, src_only, only reading) [off, off + bytes) is issued (+1) or done (-1).
  void add(uint32_t off, uint32_t bytes, bool src_only, int delta) {
    if (bytes == 0 || writing_.empty()) return;
    auto& count = src_only ? reading_ : writing_;
    auto& blocks = src_only ? reading_blocks_ : writing_blocks_;
    const uint32_t first = off / kChunk;
    const uint32_t last = std::min<uint32_t>((off + bytes - 1) / kChunk, uint32_t(count.size()) - 1);
    if (first > last) return;
    for (uint32_t ch = first; ch <= last; ++ch) count[ch] += uint32_t(delta);
    for (uint32_t b = first / kChunksPerBlock; b <= last / kChunksPerBlock; ++b) {
      const auto [lo, hi] = chunks_of(b, first, last);
      blocks[b] += uint32_t(delta) * (hi - lo + 1);
    }
  }
  // add(off[l], 1, false, delta) for each lane l in `mask` (a warp's cp.async: each lane's copy lies
  // in one chunk; the chunks are mostly in one or two blocks, whose counts change once per run of
  // lanes in the same block).
  void add_chunk_writes(const uint32_t* off, uint32_t mask, int delta) {
    uint32_t block = ~0u, run = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint32_t ch = off[std::countr_zero(m)] / kChunk;
      writing_[ch] += uint32_t(delta);
      if (ch / kChunksPerBlock != block) {
        if (run) writing_blocks_[block] += uint32_t(delta) * run;
        block = ch / kChunksPerBlock;
        run = 0;
      }
      ++run;
    }
    if (run) writing_blocks_[block] += uint32_t(delta) * run;
  }

  // Whether an in-flight operation overlaps [off, off + size): one writing it, or, for a write, one
  // reading it as its source.
  bool overlaps(uint32_t off, uint32_t size, bool write) const {
    if (size == 0 || writing_.empty()) return false;
    const uint32_t first = off / kChunk;
    const uint32_t last = std::min<uint32_t>((off + size - 1) / kChunk, uint32_t(writing_.size()) - 1);
    for (uint32_t b = first / kChunksPerBlock; b <= last / kChunksPerBlock; ++b) {
      if (!writing_blocks_[b] && !(write && reading_blocks_[b])) continue;
      const auto [lo, hi] = chunks_of(b, first, last);
      for (uint32_t ch = lo; ch <= hi; ++ch)
        if (writing_[ch] || (write && reading_[ch])) return true;
    }
    return false;
  }

 private:
  // The chunks of block b within [first, last].
  static std::pair<uint32_t, uint32_t> chunks_of(uint32_t b, uint32_t first, uint32_t last) {
    return {std::max(first, b * kChunksPerBlock), std::min(last, b * kChunksPerBlock + kChunksPerBlock - 1)};
  }
  std::vector<uint32_t> writing_, reading_;                // per chunk
  std::vector<uint32_t> writing_blocks_, reading_blocks_;  // per block: the sum of its chunks' counts
};

}  // namespace ptxsim
