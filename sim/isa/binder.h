// What a family's binder sees while the decoder turns one parsed instruction into an Instr: the
// modifiers and types written, the decoded operands, and ways to reject the combination.
// A binder validates what the table cannot express (operand kinds, type combinations) and sets
// Instr::fn to the semantics specialised for this form.
#pragma once
#include <string>
#include <string_view>

#include "sim/exec/instr.h"
#include "sim/isa/table.h"
#include "sim/ptx/ast.h"

namespace ptxsim {

class Decoder;

struct Binder {
  Instr& in;
  const FormSpec& form;
  const ast::Instruction& src;
  Decoder& dec;

  // Whether modifier `mod` (with its dot: ".rn") was written.
  bool has(std::string_view mod) const;
  // The i-th type modifier as written (".cvt.f32.f16": type(0)=F32, type(1)=F16); None if absent.
  DType type(size_t i = 0) const { return i < in.ntypes ? in.types[i] : DType::None; }
  size_t type_count() const { return in.ntypes; }
  size_t op_count() const { return in.nops; }
  Operand::Kind op_kind(size_t i) const { return in.op[i].kind; }
  // The immediate value of operand i; an error if it is not an immediate.
  int64_t imm(size_t i) const;
  // Rounding modifier written: 0 none, else one of the kRnd* codes below.
  uint8_t rounding() const;

  // Rejects the instruction at its source location with `msg`.
  [[noreturn]] void error(const std::string& msg) const;
  // Rejects a recognised but unimplemented form: "unimplemented: '<opcode>' (<detail>)".
  [[noreturn]] void unimplemented(const std::string& detail = "") const;
  void require_ops(size_t lo, size_t hi) const;
  void require_types(size_t n) const;
};

enum RoundCode : uint8_t { kRndNone = 0, kRndRn, kRndRz, kRndRm, kRndRp, kRndRna, kRndRni, kRndRzi, kRndRmi, kRndRpi, kRndRs };

// Picks semantics for recognised but unimplemented forms: always rejects with unimplemented().
void bind_unimplemented(Binder& b);

}  // namespace ptxsim
