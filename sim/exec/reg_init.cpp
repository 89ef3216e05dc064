#include "sim/exec/reg_init.h"

#include "sim/exec/reg_effects.h"

namespace ptxsim {

std::vector<uint32_t> must_zero_slots(const Function& f, const std::vector<uint32_t>& always) {
  const uint32_t n = f.num_slots;
  const uint32_t N = uint32_t(f.code.size());
  std::vector<uint8_t> zero(n, 0);
  for (uint32_t s : always) zero[s] = 1;
  // Slots new_frame fills, and the sink: "written" from the start.
  SlotSet given(n);
  for (auto& [slot, v] : f.consts) given.add(slot);
  for (auto& [slot, r] : f.sregs) given.add(slot);
  for (const SharedSymbolSlot& s : f.shared_slots) given.add(s.slot);
  if (f.sink_slot != kNoSlot) given.add(f.sink_slot), given.add(f.sink_slot + 1);

  std::vector<RegEffect> fx(N);
  for (uint32_t pc = 0; pc < N; ++pc) fx[pc] = reg_effect(f, pc);
  const BasicBlocks bb = basic_blocks(fx);
  const std::vector<uint32_t>& start = bb.start;
  const uint32_t B = bb.count();
  // Two sets per block: beyond 64 MiB of them (a function far larger than compilers emit), every
  // register is zeroed instead.
  if (uint64_t(B) * ((n + 63) / 64) * 16 > (uint64_t{64} << 20)) {
    std::vector<uint32_t> all;
    for (uint32_t s = 0; s < n; ++s)
      if (!given.has(s)) all.push_back(s);
    return all;
  }
  // in[b]: slots written on every path from the entry to block b (all slots for blocks not yet
  // reached: the meet's identity).
  std::vector<SlotSet> in(B, SlotSet(n, true)), out(B, SlotSet(n, true));
  auto transfer = [&](uint32_t b) {
    SlotSet s = in[b];
    for (uint32_t pc = start[b]; pc < start[b + 1]; ++pc)
      for (uint32_t w : fx[pc].defines) s.add(w);
    const bool changed = s.w != out[b].w;
    out[b] = std::move(s);
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < B; ++b) {
      // The entry block is also entered from outside with only `given` written, and so is taken
      // to be a block no branch reaches (dead code, unless control gets there some way this
      // analysis does not know: then it errs towards zeroing).
      SlotSet s = b == 0 || bb.preds[b].empty() ? given : SlotSet(n, true);
      for (uint32_t p : bb.preds[b]) s.meet(out[p]);
      in[b] = std::move(s);
      changed |= transfer(b);
    }
  }
  for (uint32_t b = 0; b < B; ++b) {
    SlotSet s = in[b];
    for (uint32_t pc = start[b]; pc < start[b + 1]; ++pc) {
      for (uint32_t r : fx[pc].reads)
        if (r < n && !s.has(r)) zero[r] = 1;
      for (uint32_t w : fx[pc].defines) s.add(w);
    }
  }
  std::vector<uint32_t> slots;
  for (uint32_t s = 0; s < n; ++s)
    if (zero[s] && !given.has(s)) slots.push_back(s);
  return slots;
}

}  // namespace ptxsim
