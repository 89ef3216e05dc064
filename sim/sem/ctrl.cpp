// Control flow and CTA barriers: bra, brx.idx, call, ret, exit, trap, bar/barrier, setmaxnreg.
#include <bit>

#include "sim/exec/engine.h"
#include "sim/exec/racecheck.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace {

void exec_bra(ExecCtx& c, const Instr& in, uint32_t mask) { c.eng->branch(c, mask, in.op[0].slot); }

void exec_brx_idx(ExecCtx& c, const Instr& in, uint32_t mask) {
  // Lanes with the same index go to the same target; guard-false lanes fall through.
  const Operand* table = &c.fn->vec_pool[in.op[1].slot];
  const uint32_t n = in.op[1].count;
  const uint64_t* idx = c.col(in.op[0]);
  uint32_t left = mask;
  if (!left) c.group->pc = c.pc + 1;
  while (left) {
    uint32_t i = uint32_t(idx[std::countr_zero(left)]);
    if (i >= n) c.fault("error", "brx.idx index " + std::to_string(i) + " outside its " + std::to_string(n) + "-entry target list");
    uint32_t same = 0;
    for_lanes(left, [&](int k) { same |= uint32_t(uint32_t(idx[k]) == i) << k; });
    left &= ~same;
    size_t before = c.warp->groups.size();
    c.eng->branch(c, same, table[i].slot);
    if (left && c.warp->groups.size() > before) c.group = &c.warp->groups.back();  // the rest, still at this brx
  }
}

void exec_exit(ExecCtx& c, const Instr&, uint32_t mask) {
  if (mask != c.group->mask) c.eng->split_off_inactive(c, mask);
  c.eng->exit_lanes(c, mask);
}

void exec_ret(ExecCtx& c, const Instr&, uint32_t mask) {
  if (mask == 0) {
    c.group->pc = c.pc + 1;
    return;
  }
  if (mask != c.group->mask) c.eng->split_off_inactive(c, mask);
  c.eng->ret(c);
}

void exec_trap(ExecCtx& c, const Instr&, uint32_t mask) {
  if (mask == 0) {
    c.group->pc = c.pc + 1;
    return;
  }
  c.fault("trap", "the kernel executed trap");
}

void exec_nop(ExecCtx&, const Instr&, uint32_t) {}

// in.a: 0 sync, 1 arrive, 2 red; in.b: red op (0 popc, 1 and, 2 or); in.c: aligned.
// Operands: sync/arrive: id [, count]; red: dest, id [, count], pred.
void exec_bar(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  if (mask != c.group->mask) c.eng->split_off_inactive(c, mask);
  bool red = in.a == 2;
  uint32_t l0 = uint32_t(std::countr_zero(mask));
  uint32_t id = uint32_t(c.col(in.op[red ? 1 : 0])[l0]);
  uint32_t count = 0;
  if (red ? in.nops == 4 : in.nops == 2) count = uint32_t(c.col(in.op[red ? 2 : 1])[l0]);
  if (id >= 16) c.fault("error", "barrier id " + std::to_string(id) + " is out of range 0..15");
  CtaBarrier& b = c.cta->bars[id];
  auto deliver = [&] {
    uint64_t v = in.b == 0 ? b.last_popc : in.b == 1 ? b.last_and : b.last_or;
    uint64_t* d = c.col(in.op[0]);
    for_lanes(mask, [&](int l) { d[l] = v; });
  };
  if (c.group->resumed) {  // woken after the barrier completed: only the result remains
    if (red) deliver();
    return;
  }
  if (red) {
    const Operand& p = in.op[in.nops - 1];
    for_lanes(mask, [&](int l) {
      bool v = (c.col(p)[l] & 1) != uint64_t(p.neg);
      b.red_popc += v;
      b.red_and = b.red_and && v;
      b.red_or = b.red_or || v;
    });
  }
  if (c.race) c.race->bar_arrive(c, id, in.a != 1);
  bool wait = c.eng->barrier_arrive(c, id, count, mask, in.c != 0);
  if (in.a == 1) return;  // arrive: never waits
  if (wait) {
    c.eng->block(c, WaitKind::CtaBarrier, uint64_t(reinterpret_cast<uintptr_t>(&b)), b.generation + 1);
    c.hold = true;  // re-executed when woken, to finish (and collect a reduction)
    return;
  }
  if (red) deliver();
}

}  // namespace

void bind_bra(Binder& b) {
  b.require_ops(1, 1);
  if (b.op_kind(0) != Operand::Kind::Label) b.error("bra target must be a label");
  b.in.fn = exec_bra;
}

void bind_brx_idx(Binder& b) {
  b.require_ops(2, 2);
  if (b.op_kind(1) != Operand::Kind::Vec) b.error("brx.idx needs a .branchtargets list");
  b.in.fn = exec_brx_idx;
}

void bind_exit(Binder& b) {
  b.require_ops(0, 0);
  b.in.fn = exec_exit;
}
void bind_ret(Binder& b) {
  b.require_ops(0, 0);
  b.in.fn = exec_ret;
}
void bind_trap(Binder& b) {
  b.in.fn = exec_trap;
}
void bind_nop(Binder& b) { b.in.fn = exec_nop; }

// fence / membar: ordering only; --racecheck-global takes the warp's later strong writes as
// releases to other clusters (the fence + relaxed write release pattern, docs/racecheck.md).
void exec_thread_fence(ExecCtx& c, const Instr&, uint32_t mask) {
  if (c.race && mask) [[unlikely]] c.race->thread_fence(c);
}
void bind_thread_fence(Binder& b) { b.in.fn = exec_thread_fence; }

void bind_setmaxnreg(Binder& b) {
  b.require_ops(1, 1);
  int64_t n = b.imm(0);
  if (n < 24 || n > 256 || n % 8) b.error("setmaxnreg register count must be a multiple of 8 in 24..256, got " + std::to_string(n));
  if (!b.has(".inc") && !b.has(".dec")) b.error("setmaxnreg needs .inc or .dec");
  b.in.fn = exec_nop;
}

void bind_bar(Binder& b) {
  bool is_barrier = std::string_view(b.form.opcode) == "barrier";
  if (b.has(".sync")) b.in.a = 0;
  else if (b.has(".arrive")) b.in.a = 1;
  else if (b.has(".red")) b.in.a = 2;
  else b.error("'" + b.src.opcode + "' needs .sync, .arrive or .red");
  // bar.* is always warp-aligned; barrier.* only with .aligned.
  bool aligned = !is_barrier || b.has(".aligned");
  b.in.c = aligned;
  if (aligned) b.in.flags |= kFlagAligned;
  else b.in.flags &= ~uint32_t(kFlagAligned);
  if (b.in.a == 2) {
    b.require_ops(3, 4);
    if (b.has(".popc")) b.in.b = 0;
    else if (b.has(".and")) b.in.b = 1;
    else if (b.has(".or")) b.in.b = 2;
    else b.error("bar.red needs .popc, .and or .or");
  } else {
    b.require_ops(1, 2);
    if (b.in.a == 1 && b.op_count() < 2) b.error("bar.arrive needs a thread count");
  }
  b.in.fn = exec_bar;
}

}  // namespace ptxsim
