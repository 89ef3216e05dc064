// The collector buffers of tcgen05.mma (PTX ISA 9.7.16.10.9.1, .collector_usage): the tensor core
// can keep the A matrix (tcgen05.mma, .mma.sp: `.collector::a::*`) or one of four B matrices
// (.mma.ws, .ws.sp: `.collector::b0..b3::*`) it read for a later MMA to reuse:
//   fill     read the matrix from memory and keep it in the buffer
//   use      read the matrix from the buffer ("requires a previous fill to still be valid")
//   lastuse  read it from the buffer, then the buffer's contents may be discarded
//   discard  read from memory; the buffer's contents may be discarded (the default: .collector::a::
//            discard, and for .ws .collector::b0::discard)
// Reuse is a permission, not a guarantee: the hardware may read memory again (CuTe DSL: "treat the
// collector strictly as a performance hint"), and CUTLASS's example 1cta_mma_basic.py (COLLECTOR = 2)
// overwrites row 0 of A in shared memory between a fill and its lastuse and expects the lastuse to
// see the new row. So the MMA always computes with the matrix its operand names, as it is in memory
// when the MMA executes; what ptxsim adds is the ISA's requirement, checked in issue order: a use or
// lastuse with no valid fill (never filled, or ended by a lastuse or discard since) is an error, and
// a use whose operand (descriptor or TMEM address) differs from the fill's is a warning (the buffer
// holds another matrix, and which one the hardware reads is not defined).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::model::tcgen05 {

enum class CollectorUse : uint8_t { Discard, Fill, Use, LastUse };
const char* collector_use_name(CollectorUse u);  // "discard"

// Which buffer an MMA names: A (buffer 0 of the A kind) or B0..B3 (.ws).
struct CollectorRef {
  bool b = false;
  uint8_t index = 0;
  std::string name() const;  // "collector::a", "collector::b2"
};

// Issue-order state (checked when the MMA is issued, in program order of the CTA's MMAs).
class CollectorTracker {
 public:
  struct Verdict {
    std::optional<std::string> error, warning;
  };
  // `operand` identifies the matrix the MMA names (a-desc, A's TMEM address, or b-desc).
  Verdict issue(CollectorRef ref, CollectorUse use, uint64_t operand, uint32_t line);

 private:
  struct Slot {
    bool valid = false;
    uint64_t operand = 0;
    uint32_t fill_line = 0, end_line = 0;
    CollectorUse ended_by = CollectorUse::Discard;
  };
  Slot slots_[5];  // a, b0..b3
};

}  // namespace ptxsim::model::tcgen05
