#include "sim/exec/reg_init.h"

#include <algorithm>
#include <string_view>

namespace ptxsim {

namespace {

// A set of slots, one bit each.
struct SlotSet {
  std::vector<uint64_t> w;
  explicit SlotSet(size_t n = 0, bool full = false) : w((n + 63) / 64, full ? ~uint64_t{0} : 0) {}
  bool has(uint32_t s) const { return w[s / 64] >> (s % 64) & 1; }
  void add(uint32_t s) { w[s / 64] |= uint64_t{1} << (s % 64); }
  // this &= o; whether it changed.
  bool meet(const SlotSet& o) {
    bool changed = false;
    for (size_t i = 0; i < w.size(); ++i) {
      const uint64_t x = w[i] & o.w[i];
      changed |= x != w[i];
      w[i] = x;
    }
    return changed;
  }
};

// What one instruction reads and writes (slots), and where control goes after it.
struct Effect {
  std::vector<uint32_t> reads, writes;
  std::vector<uint32_t> next;  // successor pcs (may include code.size(): the end)
};

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

// Whether a family's destination operands are written when the instruction executes.
bool writes_when_executed(std::string_view opcode) {
  return !opcode.starts_with("wgmma") && !opcode.starts_with("tcgen05") && opcode != "call";
}

Effect effect_of(const Function& f, uint32_t pc) {
  const Instr& in = f.code[pc];
  const FormSpec& form = InstrTable::get().forms()[in.form];
  const std::string_view opcode = form.opcode;
  Effect e;
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
      if (o.kind == Operand::Kind::Reg) slots_of(o, e.writes);
      else
        for (uint32_t k = 0; k < o.count; ++k) slots_of(f.vec_pool[o.slot + k], e.writes);
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

}  // namespace

std::vector<uint32_t> must_zero_slots(const Function& f, const std::vector<uint32_t>& always) {
  const uint32_t n = f.num_slots;
  const uint32_t N = uint32_t(f.code.size());
  std::vector<uint8_t> zero(n, 0);
  for (uint32_t s : always) zero[s] = 1;
  // Slots new_frame fills, and the sink: "written" from the start.
  SlotSet given(n);
  for (auto& [slot, v] : f.consts) given.add(slot);
  for (auto& [slot, r] : f.sregs) given.add(slot);
  for (const SharedSymbolSlot& s : f.shared_slots) given.add(s.slot);
  if (f.sink_slot != kNoSlot) given.add(f.sink_slot), given.add(f.sink_slot + 1);

  std::vector<Effect> fx(N);
  for (uint32_t pc = 0; pc < N; ++pc) fx[pc] = effect_of(f, pc);
  // Basic blocks: leaders at 0, at branch targets and after every instruction with a successor
  // other than the next one.
  std::vector<uint8_t> leader(N + 1, 0);
  leader[0] = 1;
  for (uint32_t pc = 0; pc < N; ++pc)
    for (uint32_t t : fx[pc].next)
      if (t != pc + 1 || fx[pc].next.size() > 1) {
        if (t <= N) leader[t] = 1;
        leader[pc + 1] = 1;
      }
  std::vector<uint32_t> start;  // block b: [start[b], start[b + 1])
  std::vector<uint32_t> block_of(N + 1, 0);
  for (uint32_t pc = 0; pc < N; ++pc) {
    if (leader[pc]) start.push_back(pc);
    block_of[pc] = uint32_t(start.size() - 1);
  }
  const uint32_t B = uint32_t(start.size());
  start.push_back(N);
  // Two sets per block: beyond 64 MiB of them (a function far larger than compilers emit), every
  // register is zeroed instead.
  if (uint64_t(B) * ((n + 63) / 64) * 16 > (uint64_t{64} << 20)) {
    std::vector<uint32_t> all;
    for (uint32_t s = 0; s < n; ++s)
      if (!given.has(s)) all.push_back(s);
    return all;
  }
  std::vector<std::vector<uint32_t>> preds(B);
  for (uint32_t b = 0; b < B; ++b)
    for (uint32_t t : fx[start[b + 1] - 1].next)
      if (t < N) preds[block_of[t]].push_back(b);

  // in[b]: slots written on every path from the entry to block b (all slots for blocks not yet
  // reached: the meet's identity).
  std::vector<SlotSet> in(B, SlotSet(n, true)), out(B, SlotSet(n, true));
  auto transfer = [&](uint32_t b) {
    SlotSet s = in[b];
    for (uint32_t pc = start[b]; pc < start[b + 1]; ++pc)
      for (uint32_t w : fx[pc].writes) s.add(w);
    const bool changed = s.w != out[b].w;
    out[b] = std::move(s);
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < B; ++b) {
      // The entry block is also entered from outside with only `given` written, and so is taken
      // to be a block no branch reaches (dead code, unless control gets there some way this
      // analysis does not know: then it errs towards zeroing).
      SlotSet s = b == 0 || preds[b].empty() ? given : SlotSet(n, true);
      for (uint32_t p : preds[b]) s.meet(out[p]);
      in[b] = std::move(s);
      changed |= transfer(b);
    }
  }
  for (uint32_t b = 0; b < B; ++b) {
    SlotSet s = in[b];
    for (uint32_t pc = start[b]; pc < start[b + 1]; ++pc) {
      for (uint32_t r : fx[pc].reads)
        if (r < n && !s.has(r)) zero[r] = 1;
      for (uint32_t w : fx[pc].writes) s.add(w);
    }
  }
  std::vector<uint32_t> slots;
  for (uint32_t s = 0; s < n; ++s)
    if (zero[s] && !given.has(s)) slots.push_back(s);
  return slots;
}

}  // namespace ptxsim
