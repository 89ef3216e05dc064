// Which registers a new frame must zero (Engine::new_frame).
//
// ptxsim gives a register that no instruction has written the value 0, so that a program reading
// one (undefined in the PTX ISA) behaves the same on every run and thread count. Zeroing every
// register costs: nvcc's PTX is close to SSA, so a CUTLASS kernel declares thousands of virtual
// registers, a megabyte of register file per warp (32 lanes x 8 bytes each), and zeroing it was
// 6-7 % of the CuTe tutorials' time. Most registers are written before any read on every path, so
// their first value is never seen: only the others need zeroing.
//
// must_zero_slots works that out with a forward "definitely written" dataflow over the function's
// control-flow graph (each lane follows one path through it, so what holds on every path holds for
// every lane, whatever the divergence), from the reads and definitions of each instruction
// (sim/exec/reg_effects.h: a guarded write, or a wgmma, tcgen05 or call destination, does not
// define its register). The answer errs towards zeroing: a read it cannot place makes the
// register zeroed.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/exec/program.h"

namespace ptxsim {

// The slots of `f`'s registers that some path may read before writing them, ascending, excluding
// the slots new_frame fills anyway (constants, special registers, shared addresses). `always`:
// slots to include regardless (registers the analysis does not model, e.g. vector registers).
std::vector<uint32_t> must_zero_slots(const Function& f, const std::vector<uint32_t>& always);

}  // namespace ptxsim
