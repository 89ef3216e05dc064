// What each instruction of a decoded function does to its registers, and the function's basic
// blocks: the facts both register analyses of the decoder share (which registers a new frame must
// zero, sim/exec/reg_init.h; which registers may share a slot, sim/exec/reg_alloc.h).
//
// An instruction *defines* a register when the register is a destination operand of its form
// ("d", "p", or setp / lop3's "v"), the instruction has no guard predicate, and its family writes
// its destinations when it executes (not wgmma and tcgen05, whose results land later, nor call).
// Every other register operand, the guard included, is a read: a guarded write leaves the lanes
// whose guard is false as they were, so for them the old value flows on.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/exec/program.h"

namespace ptxsim {

struct RegEffect {
  std::vector<uint32_t> reads, defines;  // slots
  std::vector<uint32_t> next;            // successor pcs (may include code.size(): the end)
};

// Whether a family's destination operands are written when the instruction executes.
bool writes_when_executed(std::string_view opcode);

RegEffect reg_effect(const Function& f, uint32_t pc);

// Every register slot instruction `pc` names, whatever its role (a 128-bit register's two slots).
void named_slots(const Function& f, uint32_t pc, std::vector<uint32_t>& out);

// The basic blocks of a function, from the effects of its instructions.
struct BasicBlocks {
  std::vector<uint32_t> start;     // block b is [start[b], start[b + 1]); start.back() == code size
  std::vector<uint32_t> block_of;  // pc → block
  std::vector<std::vector<uint32_t>> preds, succs;
  uint32_t count() const { return uint32_t(start.size() - 1); }
};
BasicBlocks basic_blocks(const std::vector<RegEffect>& fx);

// A set of slots, one bit each.
struct SlotSet {
  std::vector<uint64_t> w;
  explicit SlotSet(size_t n = 0, bool full = false) : w((n + 63) / 64, full ? ~uint64_t{0} : 0) {}
  bool has(uint32_t s) const { return w[s / 64] >> (s % 64) & 1; }
  void add(uint32_t s) { w[s / 64] |= uint64_t{1} << (s % 64); }
  void remove(uint32_t s) { w[s / 64] &= ~(uint64_t{1} << (s % 64)); }
  // this &= o; whether it changed.
  bool meet(const SlotSet& o) {
    bool changed = false;
    for (size_t i = 0; i < w.size(); ++i) {
      const uint64_t x = w[i] & o.w[i];
      changed |= x != w[i];
      w[i] = x;
    }
    return changed;
  }
  // this |= o; whether it changed.
  bool join(const SlotSet& o) {
    bool changed = false;
    for (size_t i = 0; i < w.size(); ++i) {
      const uint64_t x = w[i] | o.w[i];
      changed |= x != w[i];
      w[i] = x;
    }
    return changed;
  }
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < w.size(); ++i)
      for (uint64_t b = w[i]; b; b &= b - 1) f(uint32_t(i * 64 + size_t(__builtin_ctzll(b))));
  }
};

}  // namespace ptxsim
