// Device global memory as a set of tracked allocations, like the GPU's: an access that falls
// outside every live allocation, or straddles its end, is an illegal address rather than a
// silent read of neighbouring bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptxsim::model {

class GlobalMemory {
 public:
  // Simulated addresses start here: high enough to look like device pointers and never 0.
  static constexpr uint64_t kBase = 0x7f0000000000ull;

  GlobalMemory() = default;
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;

  // Allocates `bytes` (zero-filled) at an address aligned to `align` (a power of two, ≥ 256 like
  // cudaMalloc). A guard gap separates allocations so that off-by-one accesses fault. Host memory
  // is reserved, not committed: pages are backed when first touched, so a large allocation that a
  // program touches in part costs only what it touches. Returns 0 when the host cannot reserve it.
  uint64_t allocate(size_t bytes, size_t align = 256, std::string name = "");
  // Places an allocation at a fixed address (module variables); false if it overlaps another.
  bool allocate_at(uint64_t addr, size_t bytes, std::string name = "");
  // Frees a live allocation by its base address; false if `addr` is not one.
  bool free(uint64_t addr);

  // Host pointer for [addr, addr+bytes) if the whole range lies in one live allocation, else null.
  // For the host thread; the threads of a launch each translate through their own GlobalView.
  uint8_t* translate(uint64_t addr, size_t bytes) { return translate(addr, bytes, last_); }

  // Host-side copies; return false (and copy nothing) if the range is not inside one allocation.
  bool write(uint64_t addr, const void* src, size_t bytes);
  bool read(uint64_t addr, void* dst, size_t bytes);

  // Zero-filled bytes whose pages the host commits on first touch (an anonymous private mapping).
  class LazyBytes {
   public:
    LazyBytes() = default;
    LazyBytes(const LazyBytes&) = delete;
    LazyBytes& operator=(const LazyBytes&) = delete;
    ~LazyBytes();
    bool reserve(size_t n);  // false when the host refuses the mapping
    uint8_t* data() const { return p_; }
    size_t size() const { return n_; }

   private:
    uint8_t* p_ = nullptr;
    size_t n_ = 0, mapped_ = 0;
  };
  struct Allocation {
    uint64_t base = 0;
    LazyBytes bytes;
    std::string name;
  };
  // translate() with the caller's cache of the allocation it touched last (`last`): the common
  // case, an access inside that allocation, is two comparisons; a miss searches the map (read only)
  // and updates the cache.
  uint8_t* translate(uint64_t addr, size_t bytes, Allocation*& last) const {
    if (last && addr - last->base < last->bytes.size() && bytes <= last->bytes.size() - (addr - last->base))
      return last->bytes.data() + (addr - last->base);
    return translate_slow(addr, bytes, last);
  }
  // Bytes in live allocations (what cudaMemGetInfo reports as used).
  uint64_t live_bytes() const { return live_bytes_; }
  // The allocation containing addr, or null (for diagnostics).
  const Allocation* find(uint64_t addr) const;
  // The nearest allocation below addr, or null (for "N bytes past the end of X" diagnostics).
  const Allocation* nearest_below(uint64_t addr) const;
  size_t allocation_count() const { return allocs_.size(); }

 private:
  uint8_t* translate_slow(uint64_t addr, size_t bytes, Allocation*& last) const;
  uint64_t live_bytes_ = 0;
  std::map<uint64_t, std::unique_ptr<Allocation>> allocs_;  // by base
  Allocation* last_ = nullptr;
  uint64_t next_ = kBase;
};

// One thread's view of a GlobalMemory during a launch: the same lookups, with a cache of its own.
// The workers that run a launch's clusters in parallel (sim/exec/cluster_pool.h) each translate
// through their own view, so an access writes no state shared between them (the allocation map is
// only read while a launch runs: allocation and free happen on the host between launches).
//
// It remembers the two allocations it touched last: a loop that reads two arrays in turn (A and B
// of a GEMM) finds both without searching the map.
class GlobalView {
 public:
  explicit GlobalView(GlobalMemory& m) : mem_(m) {}
  uint8_t* translate(uint64_t addr, size_t bytes) {
    if (uint8_t* p = inside(recent_, addr, bytes)) return p;
    if (uint8_t* p = inside(older_, addr, bytes)) return p;
    GlobalMemory::Allocation* found = nullptr;
    uint8_t* p = mem_.translate(addr, bytes, found);
    if (p && found != recent_) {
      older_ = recent_;
      recent_ = found;
    }
    return p;
  }
  // The allocation that holds [addr, addr+bytes), found (and cached) as translate() finds it, or
  // null. A warp's access resolves its first lane here and checks the other lanes against the same
  // allocation with one comparison each (sim/exec/warp_access.h).
  const GlobalMemory::Allocation* holding(uint64_t addr, size_t bytes) {
    if (inside(recent_, addr, bytes)) return recent_;
    if (inside(older_, addr, bytes)) return older_;
    return translate(addr, bytes) ? recent_ : nullptr;
  }
  const GlobalMemory::Allocation* find(uint64_t addr) const { return mem_.find(addr); }
  const GlobalMemory::Allocation* nearest_below(uint64_t addr) const { return mem_.nearest_below(addr); }

 private:
  static uint8_t* inside(const GlobalMemory::Allocation* a, uint64_t addr, size_t bytes) {
    if (a && addr - a->base < a->bytes.size() && bytes <= a->bytes.size() - (addr - a->base))
      return a->bytes.data() + (addr - a->base);
    return nullptr;
  }
  GlobalMemory& mem_;
  GlobalMemory::Allocation* recent_ = nullptr;
  GlobalMemory::Allocation* older_ = nullptr;
};

}  // namespace ptxsim::model
