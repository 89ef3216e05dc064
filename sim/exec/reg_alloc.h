// Which registers of a function may share one register slot (the decoder then decodes the function
// a second time, giving them that slot).
//
// Why: nvcc's PTX is close to SSA, so a CUTLASS kernel declares thousands of virtual registers, of
// which a few hundred are live at once. With one slot each, a warp's register file (32 lanes x
// 8 bytes per slot) was about a megabyte, larger than the host core's second-level cache: loads of
// register columns missed it, 10 % of the CuTe sgemm_sm80 tutorial's time.
//
// How: liveness over the basic blocks (sim/exec/reg_effects.h), then each register's live range is
// widened to one interval of pcs, [first, last], covering every instruction at which it is live
// (before or after) or named. Registers whose intervals do not overlap share a slot (interval
// colouring, which needs no more slots than the most intervals overlapping at one pc). This is sound
// for every path each lane may take: when a value of register v written at pc D is read at pc U,
// v is live at every instruction the lane executes between them, so a write of another register w
// there lies in both intervals, and they do not share. A register some path reads before writing
// is live from the entry on that path, so no register written there shares its (zeroed) slot.
//
// Which registers take part: scalar registers up to 64 bits (not vector or 128-bit registers, whose
// slots are consecutive) that no wgmma, tcgen05, call or atom instruction names. wgmma and
// tcgen05.ld write their destinations, and wgmma reads its A fragment, while later instructions
// run (and the wgmma hazard reports name those registers by their slots); call's are kept apart for
// the same reason of caution; an atom's destination because the order-dependence check
// (sim/exec/order_dependence.h) asks whether its slot is named anywhere else.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/exec/program.h"

namespace ptxsim {

struct SlotSharing {
  // Per slot of the function: the shared slot, in [0, count), of a register that takes part, or
  // kNoSlot for one that keeps its own slot.
  std::vector<uint32_t> shared;
  uint32_t count = 0;
  uint32_t members = 0;  // how many slots take part (count < members when anything is shared)
};

// `candidate[s]`: slot s is a scalar register the function declares. A function too large to
// analyse in 64 MiB gets no sharing (members == 0).
SlotSharing share_register_slots(const Function& f, const std::vector<uint8_t>& candidate);

}  // namespace ptxsim
