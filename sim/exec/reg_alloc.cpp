#include "sim/exec/reg_alloc.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string_view>

#include "sim/exec/reg_effects.h"

namespace ptxsim {

namespace {

// Families whose named registers keep their own slots (reg_alloc.h says why).
bool keeps_own_slots(std::string_view opcode) { return !writes_when_executed(opcode) || opcode == "atom"; }

}  // namespace

SlotSharing share_register_slots(const Function& f, const std::vector<uint8_t>& candidate) {
  const uint32_t n = f.num_slots;
  const uint32_t N = uint32_t(f.code.size());
  SlotSharing out;
  out.shared.assign(n, kNoSlot);

  std::vector<RegEffect> fx(N);
  std::vector<std::vector<uint32_t>> named(N);
  std::vector<uint8_t> member(n, 0);
  for (uint32_t s = 0; s < n && s < candidate.size(); ++s) member[s] = candidate[s];
  for (uint32_t pc = 0; pc < N; ++pc) {
    fx[pc] = reg_effect(f, pc);
    named_slots(f, pc, named[pc]);
    if (keeps_own_slots(InstrTable::get().forms()[f.code[pc].form].opcode))
      for (uint32_t s : named[pc])
        if (s < n) member[s] = 0;
  }
  // Members get dense indices; the sets below hold only them.
  std::vector<uint32_t> index(n, kNoSlot), slot_of;
  for (uint32_t s = 0; s < n; ++s)
    if (member[s]) {
      index[s] = uint32_t(slot_of.size());
      slot_of.push_back(s);
    }
  const uint32_t m = uint32_t(slot_of.size());
  const BasicBlocks bb = basic_blocks(fx);
  const uint32_t B = bb.count();
  if (m == 0 || uint64_t(B) * ((m + 63) / 64) * 8 * 4 > (uint64_t{64} << 20)) return out;

  // Per block: members read before any definition in it (gen) and members it defines (kill).
  std::vector<SlotSet> gen(B, SlotSet(m)), kill(B, SlotSet(m)), live_in(B, SlotSet(m)), live_out(B, SlotSet(m));
  for (uint32_t b = 0; b < B; ++b)
    for (uint32_t pc = bb.start[b + 1]; pc-- > bb.start[b];) {
      for (uint32_t s : fx[pc].defines)
        if (s < n && member[s]) kill[b].add(index[s]), gen[b].remove(index[s]);
      for (uint32_t s : fx[pc].reads)
        if (s < n && member[s]) gen[b].add(index[s]);
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = B; b-- > 0;) {
      for (uint32_t t : bb.succs[b]) live_out[b].join(live_in[t]);
      SlotSet in = live_out[b];
      for (size_t i = 0; i < in.w.size(); ++i) in.w[i] = (in.w[i] & ~kill[b].w[i]) | gen[b].w[i];
      changed |= live_in[b].join(in);
    }
  }

  // Each member's interval: every pc where it is live before or after, or named.
  std::vector<uint32_t> lo(m, UINT32_MAX), hi(m, 0);
  auto touch = [&](uint32_t i, uint32_t pc) {
    lo[i] = std::min(lo[i], pc);
    hi[i] = std::max(hi[i], pc);
  };
  for (uint32_t b = 0; b < B; ++b) {
    SlotSet live = live_out[b];
    for (uint32_t pc = bb.start[b + 1]; pc-- > bb.start[b];) {
      live.for_each([&](uint32_t i) { touch(i, pc); });
      for (uint32_t s : named[pc])
        if (s < n && member[s]) touch(index[s], pc);
      for (uint32_t s : fx[pc].defines)
        if (s < n && member[s]) live.remove(index[s]);
      for (uint32_t s : fx[pc].reads)
        if (s < n && member[s]) live.add(index[s]);
    }
  }

  // Interval colouring in order of first pc: a slot is free again once the interval holding it
  // has ended before the next one starts. Members no instruction names take slot 0 (never accessed).
  std::vector<uint32_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return lo[a] < lo[b]; });
  using Busy = std::pair<uint32_t, uint32_t>;  // (last pc, slot)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> free_slots;
  for (uint32_t i : order) {
    uint32_t slot = 0;
    if (lo[i] != UINT32_MAX) {
      while (!busy.empty() && busy.top().first < lo[i]) {
        free_slots.push(busy.top().second);
        busy.pop();
      }
      if (free_slots.empty()) {
        slot = out.count++;
      } else {
        slot = free_slots.top();
        free_slots.pop();
      }
      busy.push({hi[i], slot});
    }
    out.shared[slot_of[i]] = slot;
  }
  if (out.count == 0) out.count = 1;  // only unnamed members: they share slot 0
  out.members = m;
  return out;
}

}  // namespace ptxsim
