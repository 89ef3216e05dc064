// The pool behind RegPoolAllocator (reg_pool.h).
#include "sim/exec/reg_pool.h"

#include <mutex>
#include <utility>
#include <vector>

namespace ptxsim::reg_pool {

namespace {

constexpr size_t kMinBytes = size_t{256} << 10;  // smaller blocks: the ordinary heap reuses them well
constexpr size_t kMaxBytes = size_t{256} << 20;  // most bytes kept while no frame uses them

struct Pool {
  std::mutex mu;
  std::vector<std::pair<size_t, void*>> blocks;  // (bytes, block)
  size_t bytes = 0;
};

// Never destroyed: frames may be freed during static destruction at exit.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void* take(size_t bytes) {
  if (bytes >= kMinBytes) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    for (size_t i = 0; i < p.blocks.size(); ++i)
      if (p.blocks[i].first == bytes) {
        void* b = p.blocks[i].second;
        p.blocks[i] = p.blocks.back();
        p.blocks.pop_back();
        p.bytes -= bytes;
        return b;
      }
    // A size the pool lacks: another kernel is starting, whose frames will not fit the blocks kept
    // from earlier ones; free those so the pool never holds more than one kernel's worth.
    for (auto& [n, b] : p.blocks) ::operator delete(b);
    p.blocks.clear();
    p.bytes = 0;
  }
  return ::operator new(bytes);
}

void give(void* b, size_t bytes) {
  if (bytes >= kMinBytes) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.bytes + bytes <= kMaxBytes) {
      p.blocks.emplace_back(bytes, b);
      p.bytes += bytes;
      return;
    }
  }
  ::operator delete(b);
}

}  // namespace ptxsim::reg_pool
