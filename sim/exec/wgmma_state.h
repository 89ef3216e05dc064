// Per-warp state of the wgmma asynchronous pipeline (sim/sem/wgmma.cpp): the wgmma-groups of PTX
// ISA 9.7.15.6 ("wgmma.commit_group", "wgmma.wait_group") and what the register-hazard checks need.
//
// The n-th wgmma.mma_async of the four warps of a warpgroup is one operation: a warp that issues it
// waits until the other three have issued it too, each then computes its 16 rows (reading the
// shared-memory operands and its A registers then), and none goes on before all four have (the
// operation is complete for all of them at once). The result is kept in flight; the accumulator registers receive it when a
// wgmma.wait_group covering its group completes. Any instruction touching an in-flight
// accumulator register (or writing an in-flight A register) in between is reported as a hazard.
// The B operand, the same for all four warps, is gathered from shared memory by the first of them
// to compute and reused by the other three (WgmmaGroupB, kept on the warpgroup's first warp).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

namespace ptxsim {

struct ExecCtx;
struct Instr;
struct Function;

struct WgmmaInFlight {
  uint64_t group = 0;                 // the wgmma-group (commit count at issue)
  uint32_t line = 0;                  // PTX line of the mma_async
  const Function* fn = nullptr;       // frame the registers belong to
  std::vector<uint32_t> d_slots;      // accumulator registers, in operand order
  uint32_t slot_lo = 0, slot_hi = 0;  // the least and greatest of d_slots (overlap tests)
  std::vector<uint64_t> d_values;     // d_slots.size() x 32 lanes: the result
  std::vector<uint32_t> d_rows;       // the warp's 16 x N result, row-major (f16 D: the bits in the low
                                      // half), the next mma_async's C when it names the same registers
  bool f16 = false;                   // an f16 D: two elements per register
  bool values_ready = true;           // d_values filled (from d_rows when first read)
  std::vector<uint32_t> a_slots;      // A-fragment registers (register-A forms)
};

// The warpgroup's B operand of one operation, as the first warp to compute it gathered it (element
// bits, negated when the instruction says so), and what that read touched in shared memory: the
// other three warps' reads of the same operation reuse it, and repeat the read's checks.
struct WgmmaGroupB {
  uint64_t op = 0;                 // the operation's number + 1 (0: none held)
  uint64_t desc = 0;               // its B descriptor
  const void* config = nullptr;    // its interned instruction configuration
  uint32_t lo = 0, hi = 0;         // the shared-memory range of the chunks read
  bool generic_written = false;    // a chunk read held a generic-proxy write not yet fenced
  std::vector<uint32_t> bits;
};

// Which registers of a function some wgmma.mma_async of it uses as its accumulator or A fragment,
// and which of its instructions write or name one: the same for every warp running the function,
// so worked out once per function and launch (Engine::wgmma_register_facts), not per warp.
struct WgmmaRegisterFacts {
  static constexpr uint32_t kNone = ~0u;
  // Per slot: its number among the registers some mma_async of fn uses as D or A (the index of the
  // per-warp arrays below), or kNone. A CUTLASS kernel has thousands of registers, a few hundred of
  // them such; each warp of each launch sized and zeroed its arrays by all of them.
  std::vector<uint32_t> index;
  uint32_t count = 0;
  uint32_t at(uint32_t slot) const { return slot < index.size() ? index[slot] : kNone; }
  bool is_wgmma(uint32_t slot) const { return at(slot) != kNone; }
  std::vector<uint8_t> writes_wgmma_reg;   // per pc of fn: the instruction's destination is such a register
  std::vector<uint8_t> touches_wgmma_reg;  // per pc of fn: it names such a register, or ends the warp
};

struct WgmmaWarpState {
  uint64_t committed = 0;             // wgmma.commit_group count: the open group's number
  bool fenced = false;                // a wgmma.fence since the warp's last non-wgmma register write
  std::deque<WgmmaInFlight> in_flight;  // issue order
  // Per wgmma register of `fn` (by WgmmaRegisterFacts::index): the newest in-flight result for it
  // (32 lanes) or null, how many in-flight operations read it as A, and the line of the last
  // non-wgmma write since the last wgmma.fence (0 = none).
  const Function* fn = nullptr;
  std::vector<const uint64_t*> d_latest;
  std::vector<uint16_t> a_in_flight;
  std::vector<uint32_t> written_line;
  std::vector<uint32_t> written_slots;  // the indices whose written_line is nonzero (wgmma.fence clears just these)
  // The D rows of the last operations retired on distinct accumulators, while their registers
  // still hold exactly them: the next mma_async on such registers takes its C from here instead of
  // gathering it back (CUTLASS's tiles keep several accumulators, each retired in turn). Retiring
  // an operation drops the held rows of registers it overlaps; any other write to a register some
  // mma_async uses drops them all (note_write: holding false).
  struct HeldRows {
    std::vector<uint32_t> rows, slots;
    uint32_t slot_lo = 0, slot_hi = 0;  // the least and greatest of slots
    const uint64_t* col = nullptr;      // the first register's column (which frame's registers)
    bool f16 = false;
  };
  static constexpr size_t kMaxHeld = 8;
  std::vector<HeldRows> held;
  bool holding = false;
  const WgmmaRegisterFacts* regs = nullptr;  // of fn (the engine keeps them, one per function)
  // The index of register `slot` in the arrays above, or WgmmaRegisterFacts::kNone.
  uint32_t at(uint32_t slot) const { return regs->at(slot); }
  [[gnu::always_inline]] void note_write(uint32_t slot, uint32_t line) {
    const uint32_t i = at(slot);
    if (i == WgmmaRegisterFacts::kNone) return;
    holding = false;
    if (line == 0) return;
    if (!written_line[i]) written_slots.push_back(i);
    written_line[i] = line;
  }
  std::vector<uint32_t> issued_pcs;   // pc of every mma_async issued (warpgroup .aligned check)
  uint64_t arrived = 0;               // mma_async instructions reached, waiting for peers included
  uint64_t computed = 0;              // mma_async instructions whose rows this warp has computed
  WgmmaGroupB group_b;                // on the warpgroup's first warp: the B read most recently
};

// Called by the engine before an instruction of a warp that has used wgmma when
// wgmma_watch_needed says so: the instruction (at `pc` of `fn`) names a register some
// wgmma.mma_async of fn uses, or ends the warp, and operations are in flight (the hazard checks) or
// it writes such a register (the fence check). (The wgmma instructions themselves are left alone.)
void wgmma_watch(ExecCtx& c, const Instr& in, uint32_t mask);
inline bool wgmma_watch_needed(const WgmmaWarpState& s, const Function* fn, uint32_t pc) {
  return s.fn == fn && s.regs->touches_wgmma_reg[pc] && (!s.in_flight.empty() || s.regs->writes_wgmma_reg[pc]);
}

}  // namespace ptxsim
