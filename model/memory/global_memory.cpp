#include "model/memory/global_memory.h"

#include <algorithm>
#include <cstring>

#include <sys/mman.h>

namespace ptxsim::model {

namespace {
constexpr uint64_t kGuard = 4096;  // unmapped gap between allocations
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

GlobalMemory::LazyBytes::~LazyBytes() {
  if (p_) munmap(p_, mapped_);
}

bool GlobalMemory::LazyBytes::reserve(size_t n) {
  // MAP_NORESERVE: no swap is set aside, pages come (zeroed) when touched. A zero-byte allocation
  // still gets a page so that data() is a valid pointer.
  const size_t len = std::max<size_t>(n, 1);
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  p_ = static_cast<uint8_t*>(p);
  n_ = n;
  mapped_ = len;
  return true;
}

uint64_t GlobalMemory::allocate(size_t bytes, size_t align, std::string name) {
  if (align < 256) align = 256;
  uint64_t base = align_up(next_, align);
  auto a = std::make_unique<Allocation>();
  a->base = base;
  if (!a->bytes.reserve(bytes)) return 0;
  live_bytes_ += bytes;
  a->name = std::move(name);
  next_ = align_up(base + bytes, 256) + kGuard;
  allocs_[base] = std::move(a);
  return base;
}

bool GlobalMemory::allocate_at(uint64_t addr, size_t bytes, std::string name) {
  auto it = allocs_.upper_bound(addr + (bytes ? bytes - 1 : 0));
  if (it != allocs_.begin()) {
    const Allocation* prev = std::prev(it)->second.get();
    if (prev->base + prev->bytes.size() > addr) return false;
  }
  auto a = std::make_unique<Allocation>();
  a->base = addr;
  if (!a->bytes.reserve(bytes)) return false;
  live_bytes_ += bytes;
  a->name = std::move(name);
  allocs_[addr] = std::move(a);
  return true;
}

bool GlobalMemory::free(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end()) return false;
  if (last_ == it->second.get()) last_ = nullptr;
  live_bytes_ -= it->second->bytes.size();
  allocs_.erase(it);
  return true;
}

const GlobalMemory::Allocation* GlobalMemory::find(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  const Allocation* a = it->second.get();
  return addr - a->base < a->bytes.size() ? a : nullptr;
}

const GlobalMemory::Allocation* GlobalMemory::nearest_below(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  return std::prev(it)->second.get();
}

uint8_t* GlobalMemory::translate_slow(uint64_t addr, size_t bytes, Allocation*& last) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  Allocation* a = std::prev(it)->second.get();
  uint64_t off = addr - a->base;
  if (off >= a->bytes.size() || bytes > a->bytes.size() - off) {
    // A zero-byte range exactly at the end is still inside.
    if (!(bytes == 0 && off == a->bytes.size())) return nullptr;
  }
  last = a;
  return a->bytes.data() + off;
}

bool GlobalMemory::write(uint64_t addr, const void* src, size_t bytes) {
  uint8_t* p = translate(addr, bytes);
  if (!p) return false;
  if (bytes) std::memcpy(p, src, bytes);
  return true;
}

bool GlobalMemory::read(uint64_t addr, void* dst, size_t bytes) {
  uint8_t* p = translate(addr, bytes);
  if (!p) return false;
  if (bytes) std::memcpy(dst, p, bytes);
  return true;
}

}  // namespace ptxsim::model
