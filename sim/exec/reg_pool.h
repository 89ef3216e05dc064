// The allocator of frames' register files (Frame::regs): large blocks are kept for reuse.
//
// Why: a frame holds num_slots x 32 registers, megabytes per warp for kernels with many virtual
// registers (CUTLASS's). Freed at the end of every launch, blocks that large go back to the
// operating system (glibc unmaps or trims them), so the next launch page-faults them in again while
// zeroing them: a quarter of the CUTLASS sgemm_sm80 tutorial's time (101 launches). Blocks of at
// least kMinBytes are therefore kept in one process-wide pool, matched by exact size (the next
// launch of the same kernel asks for the same sizes), up to kMaxBytes in all; a size the pool lacks
// (another kernel) frees the blocks kept, so the pool holds at most one kernel's worth. Frame creation is
// rare (per warp per launch, and per call), so a mutex is cheap enough and keeps the pool right when
// launches run on several host threads.
#pragma once
#include <cstddef>
#include <new>
#include <utility>

namespace ptxsim {

namespace reg_pool {
void* take(size_t bytes);
void give(void* p, size_t bytes);
}  // namespace reg_pool

template <typename T>
struct RegPoolAllocator {
  using value_type = T;
  RegPoolAllocator() = default;
  template <typename U>
  RegPoolAllocator(const RegPoolAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(reg_pool::take(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { reg_pool::give(p, n * sizeof(T)); }
  // resize() default-initialises (for uint64_t: leaves the bits as they are): new_frame writes
  // the registers that need a value itself (sim/exec/reg_init.h).
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const RegPoolAllocator<U>&) const { return true; }
};

}  // namespace ptxsim
