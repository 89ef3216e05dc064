#include "sim/exec/order_dependence.h"

#include <set>
#include <string_view>
#include <vector>

#include "sim/exec/program.h"
#include "sim/isa/table.h"

namespace ptxsim {

namespace {

// The modifiers an instruction was written with, by token.
struct Mods {
  const Instr& in;
  bool has(std::string_view tok) const {
    const int id = InstrTable::get().mod_id(tok);
    return id >= 0 && in.mods.test(size_t(id));
  }
  bool any(std::initializer_list<std::string_view> toks) const {
    for (auto t : toks)
      if (has(t)) return true;
    return false;
  }
  // The access may reach global memory: no state space that stays inside the cluster or thread.
  bool global_or_generic() const {
    return !any({".shared", ".shared::cta", ".shared::cluster", ".local", ".param", ".param::entry",
                 ".param::func", ".const"});
  }
  bool floating() const { return any({".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64"}); }
  // The reduction operation, when it is one whose result does not depend on the order of the
  // updates (integer add wraps; and/or/xor/min/max are exact); "" otherwise (inc/dec/cas/exch).
  std::string_view commutative_op() const {
    for (std::string_view op : {".add", ".min", ".max", ".and", ".or", ".xor"})
      if (has(op)) return op;
    return "";
  }
};

// How many operands of `fn` name each register slot (a definition counts as one).
std::vector<uint32_t> slot_uses(const Function& fn) {
  std::vector<uint32_t> uses(fn.num_slots + 1, 0);
  auto count = [&](uint32_t slot) {
    if (slot < fn.num_slots) ++uses[slot];
  };
  auto operand = [&](const Operand& o, auto& self) -> void {
    switch (o.kind) {
      case Operand::Kind::Reg: count(o.slot); break;
      case Operand::Kind::Addr:
        count(o.slot);
        if (o.aux != kNoSlot)
          for (uint32_t i = 0; i < o.count; ++i) self(fn.vec_pool[o.aux + i], self);
        break;
      case Operand::Kind::Vec:
        for (uint32_t i = 0; i < o.count; ++i) self(fn.vec_pool[o.slot + i], self);
        break;
      default: break;
    }
  };
  for (const Instr& in : fn.code) {
    if (in.guard != kNoSlot) count(in.guard);
    for (uint32_t i = 0; i < in.nops; ++i) operand(in.op[i], operand);
  }
  return uses;
}

// Whether the destination of `in` (operand 0) is read anywhere: any register it writes is named by
// another operand of the function. Conservative: a register defined twice counts as used.
bool result_used(const Function& fn, const Instr& in, const std::vector<uint32_t>& uses) {
  const Operand& d = in.op[0];
  auto used = [&](const Operand& o) { return o.kind == Operand::Kind::Reg && o.slot < fn.num_slots && uses[o.slot] > 1; };
  if (d.kind == Operand::Kind::Vec) {
    for (uint32_t i = 0; i < d.count; ++i)
      if (used(fn.vec_pool[d.slot + i])) return true;
    return false;
  }
  return used(d);
}

// Why `in` makes the order of clusters observable, or "". `ops` collects the operations of the
// order-independent global reductions, which are only order-independent among themselves.
std::string instruction_reason(const Function& fn, const Instr& in, const std::vector<uint32_t>& uses,
                               std::set<std::string_view>& ops) {
  const std::string_view opcode = InstrTable::get().forms()[in.form].opcode;
  const Mods m{in};
  if (opcode == "clusterlaunchcontrol.try_cancel") return "clusterlaunchcontrol.try_cancel (cluster launch control)";
  if ((opcode == "ld" || opcode == "ldu") && m.global_or_generic() &&
      (m.has(".volatile") || (m.any({".relaxed", ".acquire"}) && !m.any({".cta", ".cluster"}))))
    return "a volatile, relaxed or acquire load from global memory (a flag another cluster may set)";
  const bool atom = opcode == "atom", red = opcode == "red";
  const bool bulk = opcode == "cp.reduce.async.bulk" && m.has(".global");
  const bool tensor = opcode == "cp.reduce.async.bulk.tensor";
  if (!((atom || red) && m.global_or_generic()) && !bulk && !tensor) return "";
  if (atom && result_used(fn, in, uses)) return "an atom on global memory whose result is used";
  // The bulk copy engine's read-modify-writes of global memory are not atomic between host threads
  // (and a tensor map's element type, known only at run time, may be a float).
  if (bulk || tensor) return "a bulk reduction (cp.reduce.async.bulk) into global memory";
  if (m.floating()) return "a floating-point reduction on global memory (its rounding depends on the order)";
  const std::string_view op = m.commutative_op();
  if (op.empty()) return "an order-dependent atomic operation on global memory (inc, dec, cas or exch)";
  ops.insert(op);
  if (ops.size() > 1) return "global reductions with different operations (they do not commute with each other)";
  return "";
}

}  // namespace

std::string order_dependence(const Program& prog, const Function& kernel) {
  std::vector<const Function*> todo{&kernel};
  std::set<const Function*> seen{&kernel};
  std::set<std::string_view> ops;
  while (!todo.empty()) {
    const Function& fn = *todo.back();
    todo.pop_back();
    const std::vector<uint32_t> uses = slot_uses(fn);
    for (const Instr& in : fn.code) {
      for (uint32_t i = 0; i < in.nops; ++i)
        if (in.op[i].kind == Operand::Kind::Func && in.op[i].slot < prog.functions.size()) {
          const Function* callee = &prog.functions[in.op[i].slot];
          if (seen.insert(callee).second) todo.push_back(callee);
        }
      if (std::string why = instruction_reason(fn, in, uses, ops); !why.empty())
        return why + " at " + prog.file_name + ":" + std::to_string(in.line) + " in '" + fn.name + "'";
    }
  }
  return "";
}

}  // namespace ptxsim
