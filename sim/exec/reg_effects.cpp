#include "sim/exec/reg_effects.h"

namespace ptxsim {

namespace {

// The slots a register operand covers: two for a 128-bit register.
void slots_of(const Operand& o, std::vector<uint32_t>& out) {
  if (o.kind != Operand::Kind::Reg || o.slot == kNoSlot) return;
  out.push_back(o.slot);
  if (o.width > 64) out.push_back(o.slot + 1);
}

// Every slot operand `o` reads (registers, a vector's registers, an address's base and extra
// elements). Immediates name constant slots, which frames fill anyway.
void reads_of(const Function& f, const Operand& o, std::vector<uint32_t>& out) {
  switch (o.kind) {
    case Operand::Kind::Reg: slots_of(o, out); break;
    case Operand::Kind::Vec:
      for (uint32_t i = 0; i < o.count; ++i) reads_of(f, f.vec_pool[o.slot + i], out);
      break;
    case Operand::Kind::Addr:
      if (o.slot != kNoSlot) out.push_back(o.slot);
      if (o.aux != kNoSlot)
        for (uint32_t i = 0; i < o.count; ++i) reads_of(f, f.vec_pool[o.aux + i], out);
      break;
    default: break;
  }
}

// Labels operand `o` names (a bra target, a brx.idx table).
void labels_of(const Function& f, const Operand& o, std::vector<uint32_t>& out) {
  if (o.kind == Operand::Kind::Label) out.push_back(o.slot);
  if (o.kind == Operand::Kind::Vec)
    for (uint32_t i = 0; i < o.count; ++i) labels_of(f, f.vec_pool[o.slot + i], out);
}

}  // namespace

bool writes_when_executed(std::string_view opcode) {
  return !opcode.starts_with("wgmma") && !opcode.starts_with("tcgen05") && opcode != "call";
}

RegEffect reg_effect(const Function& f, uint32_t pc) {
  const Instr& in = f.code[pc];
  const FormSpec& form = InstrTable::get().forms()[in.form];
  const std::string_view opcode = form.opcode;
  RegEffect e;
  if (in.guard != kNoSlot) e.reads.push_back(in.guard);
  // The form's operand roles, one token per operand ("d", "a?", ...; none past a "...").
  std::vector<std::string_view> roles;
  for (std::string_view spec = form.operands; !spec.empty();) {
    const size_t comma = spec.find(',');
    roles.push_back(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
  }
  const bool defines = in.guard == kNoSlot && writes_when_executed(opcode);
  for (size_t i = 0; i < in.nops; ++i) {
    const Operand& o = in.op[i];
    const char role = i < roles.size() && roles[i] != "..." ? roles[i][0] : '?';
    const bool dest = role == 'd' || role == 'p' || (role == 'v' && (opcode == "setp" || opcode == "lop3"));
    if (dest && defines && (o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Vec)) {
      if (o.kind == Operand::Kind::Reg) slots_of(o, e.defines);
      else
        for (uint32_t k = 0; k < o.count; ++k) slots_of(f.vec_pool[o.slot + k], e.defines);
    } else {
      reads_of(f, o, e.reads);
    }
    labels_of(f, o, e.next);
  }
  // Falls through unless it is an unconditional branch, return or exit.
  const bool ends = in.guard == kNoSlot && (opcode == "bra" || opcode == "brx.idx" || opcode == "ret" ||
                                            opcode == "exit" || opcode == "trap" || opcode == "brkpt");
  if (!ends) e.next.push_back(pc + 1);
  return e;
}

void named_slots(const Function& f, uint32_t pc, std::vector<uint32_t>& out) {
  const Instr& in = f.code[pc];
  if (in.guard != kNoSlot) out.push_back(in.guard);
  for (size_t i = 0; i < in.nops; ++i) reads_of(f, in.op[i], out);
}

BasicBlocks basic_blocks(const std::vector<RegEffect>& fx) {
  const uint32_t N = uint32_t(fx.size());
  BasicBlocks bb;
  // Leaders: 0, branch targets, and the instruction after one with a successor other than the next.
  std::vector<uint8_t> leader(N + 1, 0);
  leader[0] = 1;
  for (uint32_t pc = 0; pc < N; ++pc)
    for (uint32_t t : fx[pc].next)
      if (t != pc + 1 || fx[pc].next.size() > 1) {
        if (t <= N) leader[t] = 1;
        leader[pc + 1] = 1;
      }
  bb.block_of.assign(N + 1, 0);
  for (uint32_t pc = 0; pc < N; ++pc) {
    if (leader[pc]) bb.start.push_back(pc);
    bb.block_of[pc] = uint32_t(bb.start.size() - 1);
  }
  const uint32_t B = uint32_t(bb.start.size());
  bb.start.push_back(N);
  bb.preds.resize(B);
  bb.succs.resize(B);
  for (uint32_t b = 0; b < B; ++b)
    for (uint32_t t : fx[bb.start[b + 1] - 1].next)
      if (t < N) {
        bb.succs[b].push_back(bb.block_of[t]);
        bb.preds[bb.block_of[t]].push_back(b);
      }
  return bb;
}

}  // namespace ptxsim
