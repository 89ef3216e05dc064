#include "model/tcgen05/collector.h"

#include <cstdio>

namespace ptxsim::model::tcgen05 {

const char* collector_use_name(CollectorUse u) {
  switch (u) {
    case CollectorUse::Fill: return "fill";
    case CollectorUse::Use: return "use";
    case CollectorUse::LastUse: return "lastuse";
    default: return "discard";
  }
}

std::string CollectorRef::name() const { return b ? "collector::b" + std::to_string(index) : "collector::a"; }

CollectorTracker::Verdict CollectorTracker::issue(CollectorRef ref, CollectorUse use, uint64_t operand, uint32_t line) {
  Verdict v;
  Slot& s = slots_[ref.b ? 1 + ref.index : 0];
  const std::string q = "." + ref.name() + "::" + collector_use_name(use);
  if (use == CollectorUse::Use || use == CollectorUse::LastUse) {
    if (!s.valid) {
      v.error = q + " reads the " + ref.name() + " buffer, which holds nothing: " +
                (s.fill_line == 0 ? std::string("no MMA filled it (.") + ref.name() + "::fill)"
                                  : "the fill at line " + std::to_string(s.fill_line) + " was ended by the ." + ref.name() +
                                        "::" + collector_use_name(s.ended_by) + " at line " + std::to_string(s.end_line)) +
                " (the ISA requires a previous fill to still be valid)";
      return v;
    }
    if (operand != s.operand)
      v.warning = q + " names a different matrix (operand 0x" + [](uint64_t x) {
        char b[24];
        std::snprintf(b, sizeof b, "%llx", (unsigned long long)x);
        return std::string(b);
      }(operand) + ") from the fill at line " + std::to_string(s.fill_line) +
                  ", whose matrix the buffer holds; which of the two the hardware reads is not defined (ptxsim "
                  "reads the one the operand names)";
  }
  switch (use) {
    case CollectorUse::Fill:
      s.valid = true;
      s.operand = operand;
      s.fill_line = line;
      break;
    case CollectorUse::Use: break;
    default:
      if (s.valid) {
        s.valid = false;
        s.end_line = line;
        s.ended_by = use;
      }
  }
  return v;
}

}  // namespace ptxsim::model::tcgen05
