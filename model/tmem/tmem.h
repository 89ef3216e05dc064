// Tensor Memory (PTX ISA 9.7.16.1): per CTA on sm_100a, 128 lanes x 512 columns of 32-bit cells
// (256 KiB), addressed by a 32-bit word with the lane in bits 31:16 and the column in 15:0; and
// its allocator (PTX 9.7.16.7.1: tcgen05.alloc / dealloc / relinquish_alloc_permit).
//
// The allocator gives out whole columns (all 128 lanes) in power-of-two counts from 32 to 512.
// It enforces the ISA's rules and names the one broken: an allocation that cannot be satisfied
// now blocks (Status::Blocked; the caller retries after a dealloc), an alloc after
// relinquish_alloc_permit is an error, a dealloc must name a live allocation exactly, every
// tcgen05 instruction of the CTA must use one .cta_group, and what is still allocated when the
// CTA exits is a leak (live()).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::model::tmem {

constexpr uint32_t kLanes = 128;
constexpr uint32_t kColumns = 512;
constexpr uint32_t kLanesPerWarp = 32;  // warp w % 4 owns lanes 32*(w%4) .. +31 (PTX 9.7.16.8.1)

// The 32-bit TMEM address.
struct TmemAddr {
  uint32_t lane = 0;    // bits 31:16
  uint32_t column = 0;  // bits 15:0
  static TmemAddr decode(uint32_t a) { return {a >> 16, a & 0xffffu}; }
  uint32_t encode() const { return (lane << 16) | (column & 0xffffu); }
  TmemAddr plus(uint32_t dlane, uint32_t dcol) const { return {lane + dlane, column + dcol}; }
};
std::string to_string(TmemAddr a);  // "lane 32, column 64 (0x00200040)"

// The cells of one CTA's Tensor Memory. Accesses outside the 128 x 512 array are the caller's to
// reject (in_range).
class Tmem {
 public:
  Tmem() : cells_(size_t(kLanes) * kColumns, 0) {}
  static bool in_range(uint32_t lane, uint32_t column) { return lane < kLanes && column < kColumns; }
  uint32_t read(uint32_t lane, uint32_t column) const { return cells_[size_t(lane) * kColumns + column]; }
  void write(uint32_t lane, uint32_t column, uint32_t v) { cells_[size_t(lane) * kColumns + column] = v; }
  // The cells of `lane` from `column` on, for runs along a lane (the caller keeps the run in range).
  const uint32_t* cells(uint32_t lane, uint32_t column) const { return cells_.data() + size_t(lane) * kColumns + column; }
  uint32_t* cells(uint32_t lane, uint32_t column) { return cells_.data() + size_t(lane) * kColumns + column; }

 private:
  std::vector<uint32_t> cells_;
};

struct Allocation {
  uint32_t column = 0, ncols = 0;
  uint32_t line = 0;  // PTX line of the alloc, for leak reports
};

class TmemAllocator {
 public:
  static constexpr uint32_t kGranule = 32;  // allocation unit in columns

  enum class Status { Ok, Blocked, Error };
  struct Outcome {
    Status status = Status::Ok;
    uint32_t column = 0;   // Ok: first column of the allocation (lane 0)
    std::string message;   // Error: the rule broken
  };

  // tcgen05.alloc of `ncols` columns by an instruction at `line`.
  Outcome alloc(uint32_t ncols, unsigned cta_group, uint32_t line);
  // tcgen05.dealloc of [column, column + ncols): the error, or nullopt.
  std::optional<std::string> dealloc(uint32_t column, uint32_t ncols, unsigned cta_group);
  // tcgen05.relinquish_alloc_permit.
  std::optional<std::string> relinquish(unsigned cta_group);
  // Every tcgen05 instruction of a CTA uses the same .cta_group (PTX 9.7.16.7.1): the first one
  // used fixes it. The error, or nullopt.
  std::optional<std::string> use_cta_group(unsigned cta_group);

  // Whether every column in [column, column + ncols) is allocated.
  bool allocated(uint32_t column, uint32_t ncols) const;
  const std::vector<Allocation>& live() const { return live_; }
  uint32_t free_columns() const;
  bool relinquished() const { return relinquished_; }
  // Bumped on every dealloc, so blocked allocations know when to retry.
  uint64_t version() const { return version_; }

  // The nCols rule (power of two in [32, 512]): the error, or nullopt.
  static std::optional<std::string> check_ncols(uint32_t ncols);

 private:
  std::vector<Allocation> live_;
  unsigned cta_group_ = 0;  // 0 = none used yet
  bool relinquished_ = false;
  uint64_t version_ = 0;
};

}  // namespace ptxsim::model::tmem
