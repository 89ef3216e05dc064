// The decoded instruction: what the engine executes. Decoding resolves every name once, so the hot
// path touches no strings: every source and destination is a register slot (immediates and static
// special registers live in constant slots, `_` in a sink slot), memory operands are base slot +
// offset, labels are instruction indices, and `fn` is the semantics already specialised for the
// instruction's types and modifiers.
#pragma once
#include <bitset>
#include <cstddef>
#include <cstdint>

#include "sim/isa/types.h"

namespace ptxsim {

struct ExecCtx;
struct Instr;
// Executes `in` for the lanes in `mask` (guard already applied). Control-flow semantics also move
// the current thread group's pc; all others leave that to the engine.
using ExecFn = void (*)(ExecCtx& c, const Instr& in, uint32_t mask);

constexpr uint32_t kNoSlot = 0xffffffffu;
constexpr size_t kMaxMods = 640;
using ModSet = std::bitset<kMaxMods>;

enum class Space : uint8_t { Generic, Global, Shared, SharedCluster, Local, Param, Const, Reg };

struct Operand {
  enum class Kind : uint8_t { None, Reg, Imm, Addr, Vec, Label, Func, Sink };
  Kind kind = Kind::None;
  bool neg = false;        // `!%p`
  bool frame_rel = false;  // Imm/Addr naming a frame variable: add the frame's local base at run time
  Space space = Space::Generic;  // Addr: the space of the symbol it names, when it names one
  bool dyn_shared = false; // Imm/Addr naming an .extern .shared (dynamic) variable: its address is
                           // relative to the launched kernel's dynamic shared memory
  uint16_t count = 0;      // Vec: element count; Addr with extra elements: their count
  uint32_t slot = kNoSlot; // Reg/Imm/Sink: value slot; Addr: base slot (a zero slot when absolute);
                           // Vec: index of the first element in Function::vec_pool;
                           // Label: target pc; Func: function index in Program
  int64_t imm = 0;         // Imm: the bits; Addr: byte offset including any symbol address
  uint32_t width = 0;      // Reg: declared register width in bits; symbol operands: variable bytes
  uint32_t aux = kNoSlot;  // Addr with extra elements (`[tmap, {c0, c1}]`): index of the first one
                           // in Function::vec_pool (vectors flattened), `count` of them
};

enum InstrFlag : uint32_t {
  kFlagControl = 1u << 0,    // semantics set the pc themselves
  kFlagAligned = 1u << 1,    // `.aligned`: all threads of the warp must execute it together
  kFlagSyncMask = 1u << 2,   // `.sync` with a membermask operand: named lanes execute together
  kFlagWholeWarp = 1u << 3,  // collective over every non-exited lane (e.g. bar.warp.sync w/o mask)
  kFlagAnyPcSync = 1u << 4,  // kFlagSyncMask whose lanes may meet at different instructions of the
                             // same kind (bar.warp.sync on sm_70+)
  kFlagSkipExited = 1u << 5, // kFlagSyncMask whose membermask may name exited lanes: they take no part
                             // (vote/match/redux: "all non-exited threads corresponding to membermask")
};

// Cache-line aligned, with what every step reads first: the header (fn through imm, 40 bytes) and
// the register slots and offsets of the first three operands fill two lines, so a step of an ALU
// instruction or a load touches two lines of its record, not three (a diverged warp's loop runs
// through hundreds of instructions, more records than the host's first-level cache holds).
struct alignas(64) Instr {
  ExecFn fn = nullptr;
  uint32_t flags = 0;
  uint32_t guard = kNoSlot;   // predicate slot, or kNoSlot when unguarded
  bool guard_neg = false;
  uint8_t nops = 0;
  uint8_t ntypes = 0;
  uint8_t membermask_op = 0xff;  // kFlagSyncMask: which operand holds the membermask
  DType types[4] = {DType::None, DType::None, DType::None, DType::None};  // mma.sync writes four (d, a, b, c)
  // Small decoded fields that semantics read on the hot path; their meaning is per family
  // (comparison, rounding mode, vector width, state space, bool op, ...).
  uint8_t a = 0, b = 0, c = 0, d = 0;
  Space space = Space::Generic;
  uint16_t form = 0;          // index of the form in the instruction table
  uint64_t imm = 0;           // a decoded constant the semantics need (e.g. a mask or size)
  Operand op[10];             // wgmma.mma_async.sp has ten, wgmma.mma_async eight
  uint32_t line = 0, col = 0; // PTX source position
  ModSet mods;                // every modifier written, for rarely-needed checks at run time

  DType type() const { return types[0]; }
};
static_assert(offsetof(Instr, op) == 40 && offsetof(Instr, op) + 2 * sizeof(Operand) + offsetof(Operand, imm) + 8 <= 128,
              "the header and the first three operands' slots and offsets fill two cache lines");

}  // namespace ptxsim
