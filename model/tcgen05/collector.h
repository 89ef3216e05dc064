// The collector buffers of tcgen05.mma (PTX ISA 9.7.16.10.9.1, .collector_usage): the tensor core
// can keep the A matrix (tcgen05.mma, .mma.sp: `.collector::a::*`) or one of four B matrices
// (.mma.ws, .ws.sp: `.collector::b0..b3::*`) it read for a later MMA to reuse:
//   fill     read the matrix from memory and keep it in the buffer
//   use      read the matrix from the buffer ("requires a previous fill to still be valid")
//   lastuse  read it from the buffer, then the buffer's contents may be discarded
//   discard  read from memory; the buffer's contents may be discarded (the default: .collector::a::
//            discard, and for .ws .collector::b0::discard)
// ptxsim models the buffer as holding exactly what the fill read: a use / lastuse computes with
// that, whatever memory holds now. A use or lastuse with no valid fill (never filled, or emptied by
// a lastuse or discard since) breaks the ISA's requirement and is reported as an error; a use whose
// operand (descriptor or TMEM address) differs from the fill's is reported as a warning (the buffer
// holds the filled matrix, not the one the operand names).
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

// What each buffer holds when the MMAs execute: the storage units the fill gathered.
struct CollectorContents {
  std::optional<std::vector<uint32_t>> slot[5];  // a, b0..b3
  std::optional<std::vector<uint32_t>>& at(CollectorRef r) { return slot[r.b ? 1 + r.index : 0]; }
};

}  // namespace ptxsim::model::tcgen05
