#include "model/memory/global_memory.h"

#include <cstring>

namespace ptxsim::model {

namespace {
constexpr uint64_t kGuard = 4096;  // unmapped gap between allocations
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

uint64_t GlobalMemory::allocate(size_t bytes, size_t align, std::string name) {
  if (align < 256) align = 256;
  uint64_t base = align_up(next_, align);
  auto a = std::make_unique<Allocation>();
  a->base = base;
  a->bytes.assign(bytes, 0);
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
  a->bytes.assign(bytes, 0);
  a->name = std::move(name);
  allocs_[addr] = std::move(a);
  return true;
}

bool GlobalMemory::free(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end()) return false;
  if (last_ == it->second.get()) last_ = nullptr;
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

uint8_t* GlobalMemory::translate_slow(uint64_t addr, size_t bytes) {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  Allocation* a = std::prev(it)->second.get();
  uint64_t off = addr - a->base;
  if (off >= a->bytes.size() || bytes > a->bytes.size() - off) {
    // A zero-byte range exactly at the end is still inside.
    if (!(bytes == 0 && off == a->bytes.size())) return nullptr;
  }
  last_ = a;
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
