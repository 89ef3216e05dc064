// Operand checks shared by the integer and comparison binders (int_*.cpp, compare.cpp), and the
// hidden per-thread carry flag (CC.CF) of add.cc/addc/sub.cc/subc/mad.cc/madc.
//
// PTX requires register operands of arithmetic instructions to have the instruction's size
// (only ld, st and cvt accept wider registers), so a mismatch is a load-time error here, as in
// ptxas. Immediates are accepted for any source; `!` only on predicate sources.
#include <string>
#include <utility>

#include "sim/exec/program.h"
#include "sim/sem/sem_util.h"

namespace ptxsim::sem {

namespace {

std::string operand_desc(const Binder& b, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Reg: {
      const Function& f = b.dec.current();
      std::string name = o.slot < f.slot_names.size() ? f.slot_names[o.slot] : std::string("?");
      if (o.width == 1) return "predicate register '" + name + "'";
      return std::to_string(o.width) + "-bit register '" + name + "'";
    }
    case Operand::Kind::Imm: return "an immediate";
    case Operand::Kind::Addr: return "an address [..]";
    case Operand::Kind::Vec: return "a vector/pair operand";
    case Operand::Kind::Label: return "a label";
    case Operand::Kind::Func: return "a function name";
    case Operand::Kind::Sink: return "'_'";
    case Operand::Kind::None: break;
  }
  return "nothing";
}

std::string want_desc(uint32_t bits) {
  return bits == 1 ? std::string("a predicate register") : "a " + std::to_string(bits) + "-bit register";
}

bool is_static_sreg(const Function& f, uint32_t slot) {
  for (auto& [s, r] : f.sregs)
    if (s == slot) return true;
  return false;
}

[[noreturn]] void operand_error(const Binder& b, size_t i, const std::string& role, const std::string& want,
                                const Operand& got) {
  b.error("operand " + std::to_string(i + 1) + " (" + role + ") of '" + b.src.opcode + "' must be " + want +
          ", got " + operand_desc(b, got));
}

}  // namespace

// Destination operand o (operand i of the instruction, or an element of it): a register of `bits`
// (1 = predicate) or, when sink_ok, '_'.
void int_dst_operand(Binder& b, const Operand& o, size_t i, uint32_t bits, bool sink_ok) {
  std::string want = want_desc(bits) + (sink_ok ? " or '_'" : "");
  if (o.kind == Operand::Kind::Sink && sink_ok) return;
  if (o.kind != Operand::Kind::Reg || o.neg) operand_error(b, i, "destination", want, o);
  if (is_static_sreg(b.dec.current(), o.slot))
    b.error("special registers are read-only (operand " + std::to_string(i + 1) + " of '" + b.src.opcode + "')");
  if (o.width != bits) operand_error(b, i, "destination", want, o);
}

void int_dst(Binder& b, size_t i, uint32_t bits, bool sink_ok) {
  if (i >= b.op_count()) b.error("'" + b.src.opcode + "' is missing operand " + std::to_string(i + 1));
  int_dst_operand(b, b.in.op[i], i, bits, sink_ok);
}

// Operand i as a pair `x|y` (a Vec operand of two elements); returns the element operands.
std::pair<Operand, Operand> int_pair(Binder& b, size_t i) {
  const Operand& o = b.in.op[i];
  if (o.kind != Operand::Kind::Vec || o.count != 2)
    b.error("operand " + std::to_string(i + 1) + " of '" + b.src.opcode + "' must be a pair 'x|y', got " + operand_desc(b, o));
  const Function& f = b.dec.current();
  return {f.vec_pool[o.slot], f.vec_pool[o.slot + 1]};
}

// Source operand i: a register of `bits` (1 = predicate, which may be written `!p`) or an immediate.
void int_src(Binder& b, size_t i, uint32_t bits) {
  if (i >= b.op_count()) b.error("'" + b.src.opcode + "' is missing operand " + std::to_string(i + 1));
  Operand& o = b.in.op[i];
  std::string want = want_desc(bits) + " or an immediate";
  if (o.neg && bits != 1) b.error("'!' applies only to predicate operands (operand " + std::to_string(i + 1) + " of '" + b.src.opcode + "')");
  if (o.kind == Operand::Kind::Imm) {
    if (o.space == Space::Reg && o.width == 0xFFFF)
      b.error("this special register can only be read with mov (operand " + std::to_string(i + 1) + " of '" + b.src.opcode + "')");
    // A frame variable's name: its frame offset, to which the frame base is added at run time.
    if (o.slot == kNoSlot) o.slot = b.dec.const_slot(uint64_t(o.imm));
    return;
  }
  if (o.kind != Operand::Kind::Reg) operand_error(b, i, "source", want, o);
  if (is_static_sreg(b.dec.current(), o.slot)) {
    if (bits == 1) operand_error(b, i, "source", want, o);
    return;  // special registers are read at any integer width
  }
  if (o.width != bits) operand_error(b, i, "source", want, o);
}

// The immediate operand i as an integer in [lo, hi].
int64_t int_imm(Binder& b, size_t i, int64_t lo, int64_t hi, const char* what) {
  if (i >= b.op_count() || b.in.op[i].kind != Operand::Kind::Imm || b.in.op[i].frame_rel || b.in.op[i].width != 0)
    b.error(std::string(what) + " (operand " + std::to_string(i + 1) + " of '" + b.src.opcode + "') must be an integer constant");
  int64_t v = b.in.op[i].imm;
  if (v < lo || v > hi)
    b.error(std::string(what) + " of '" + b.src.opcode + "' must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + std::to_string(v));
  return v;
}

// The slot of the current function's hidden carry flag CC.CF, created on first use. Every frame
// has num_slots × 32 registers, so the flag is per thread (and per frame: ptxas does not keep CC
// across calls either). Its name cannot collide with a PTX identifier.
uint32_t int_cc_slot(Binder& b) {
  static constexpr const char* kName = "%cc.cf";
  Function& f = b.dec.current();
  for (size_t s = f.slot_names.size(); s-- > 0;)
    if (f.slot_names[s] == kName) return uint32_t(s);
  uint32_t s = f.num_slots++;
  f.slot_names.push_back(kName);
  return s;
}

}  // namespace ptxsim::sem
