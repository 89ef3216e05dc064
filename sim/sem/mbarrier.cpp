// mbarrier.* (PTX §9.7.13.15). The architectural state lives in model::Mbarrier, bound to its
// 8 bytes of shared memory (Cta::mbars); these semantics add who arrived, who waits, and the
// errors the ISA calls undefined behaviour.
#include <bit>

#include "sim/exec/racecheck.h"
#include "sim/exec/engine.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace {

using model::Mbarrier;

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// The live mbarrier at address `addr` (lane l's), with its CTA.
std::pair<Cta*, MbarrierSlot*> find_bar_at(ExecCtx& c, const Instr& in, uint64_t addr, int l, bool must_be_live) {
  if (addr & 7) c.fault("misaligned address", "mbarrier address " + hex32(uint32_t(addr)) + " is not 8-byte aligned");
  auto [cta, off] = c.eng->resolve_shared(c, in.space, addr, 8, l);
  auto it = cta->mbars.find(off);
  if (it == cta->mbars.end() || (must_be_live && !it->second.bar.live()))
    c.fault("error", "mbarrier operation on shared address " + hex32(off) +
                         ", which holds no initialised mbarrier (mbarrier.init it first)");
  return {cta, &it->second};
}
// The live mbarrier at the address of operand `a` for lane l, with its CTA.
std::pair<Cta*, MbarrierSlot*> find_bar(ExecCtx& c, const Instr& in, const Operand& a, int l, bool must_be_live) {
  return find_bar_at(c, in, sem::addr_of(c, a, l), l, must_be_live);
}

[[noreturn]] void bar_error(ExecCtx& c, const MbarrierSlot& m, Mbarrier::Error e) {
  c.fault("error", std::string("mbarrier at shared address ") + hex32(m.offset) + ": " + Mbarrier::describe(e));
}

void exec_init(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    uint64_t addr = sem::addr_of(c, in.op[0], l);
    if (addr & 7) c.fault("misaligned address", "mbarrier address " + hex32(uint32_t(addr)) + " is not 8-byte aligned");
    auto [cta, off] = c.eng->resolve_shared(c, in.space, addr, 8, l);
    MbarrierSlot& m = cta->mbars[off];
    Mbarrier::Error e = m.bar.init(int64_t(uint32_t(c.col(in.op[1])[l])));
    if (e != Mbarrier::Error::None) bar_error(c, m, e);
    m.offset = off;
    m.init_line = in.line;
    m.arrived_now.assign(cta->threads, 0);
    m.arrived_ever.assign(cta->threads, 0);
    m.tx_expected_total = m.tx_completed_total = 0;
    m.remote_arrivals = 0;
    cta->mbar_word[off / 8] = 1;
    cta->live_mbars++;
    c.eng->mbarrier_changed(m);
  });
}

void exec_inval(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    auto [cta, m] = find_bar(c, in, in.op[0], l, true);
    m->bar.inval();
    cta->mbar_word[m->offset / 8] = 0;
    cta->live_mbars--;
    c.eng->mbarrier_changed(*m);
  });
}

// in.a: 1 = .expect_tx (third operand is the tx count); in.b: .noComplete; in.c: arrive_drop.
//
// The lanes of one warp-instruction that arrive on the same mbarrier form one arrive operation:
// each gets the token of the state before all of them arrived. Measured on an H200 (conformance
// case mbarrier_warp_arrive): 16 active lanes arriving together each read the same pending
// count, the count before the 16 arrivals; lanes arriving one by one would read 16 different ones.
void exec_arrive(ExecCtx& c, const Instr& in, uint32_t mask) {
  struct Group {
    const MbarrierSlot* bar;
    uint64_t token;
  };
  Group groups[4];
  int ngroups = 0;
  auto group_token = [&](const MbarrierSlot* bar, uint64_t token) {
    // A group lasts while its phase does: an arrival past the end of the phase starts a new one.
    for (int i = 0; i < ngroups; ++i)
      if (groups[i].bar == bar) {
        if (Mbarrier::Token::phase(groups[i].token) == Mbarrier::Token::phase(token)) return groups[i].token;
        groups[i].token = token;
        return token;
      }
    if (ngroups < 4) groups[ngroups++] = {bar, token};
    return token;
  };
  for_lanes(mask, [&](int l) {
    auto [cta, m] = find_bar(c, in, in.op[1], l, true);
    int64_t count = 1, tx = 0;
    if (in.nops >= 3) {
      int64_t v = int64_t(uint32_t(c.col(in.op[2])[l]));
      if (in.a) tx = v;
      else count = v;
    }
    auto r = m->bar.arrive(count, tx, in.b != 0, in.c != 0);
    if (r.error != Mbarrier::Error::None) bar_error(c, *m, r.error);
    if (cta == c.cta) m->arrived_now[c.warp->index * 32 + uint32_t(l)] = 1;
    else m->remote_arrivals++;
    m->tx_expected_total += uint64_t(tx);
    if (in.op[0].kind != Operand::Kind::Sink) c.col(in.op[0])[l] = group_token(m, r.token);
    if (r.completed) c.eng->mbarrier_phase_completed(*cta, *m);
    c.eng->mbarrier_changed(*m);
  });
}

// in.a: 0 expect_tx, 1 complete_tx.
void exec_tx(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    auto [cta, m] = find_bar(c, in, in.op[0], l, true);
    int64_t n = int64_t(uint32_t(c.col(in.op[1])[l]));
    if (in.a == 0) {
      Mbarrier::Error e = m->bar.expect_tx(n);
      if (e != Mbarrier::Error::None) bar_error(c, *m, e);
      m->tx_expected_total += uint64_t(n);
    } else {
      auto r = m->bar.complete_tx(n);
      if (r.error != Mbarrier::Error::None) bar_error(c, *m, r.error);
      m->tx_completed_total += uint64_t(n);
      if (r.completed) c.eng->mbarrier_phase_completed(*cta, *m);
    }
    c.eng->mbarrier_changed(*m);
  });
}

// in.a: 1 = .parity; in.b: 1 = try_wait (may suspend), 0 = test_wait.
void exec_wait(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  MbarrierSlot* first_pending = nullptr;
  uint32_t done = 0;
  // (The lanes of a warp wait on one mbarrier, as a rule: it is looked up again only where a lane's
  // address differs from the previous lane's.)
  uint64_t prev_addr = 0;
  MbarrierSlot* m = nullptr;  // the mbarrier at prev_addr (null: none looked up yet)
  auto test = [&](int l) {
    const uint64_t addr = sem::addr_of(c, in.op[1], l);
    if (!m || addr != prev_addr) m = find_bar_at(c, in, addr, l, true).second, prev_addr = addr;
    uint64_t v = c.col(in.op[2])[l];
    bool ok;
    if (in.a) {
      ok = m->bar.wait_parity(uint32_t(v));
    } else {
      Mbarrier::Error e;
      ok = m->bar.wait_token(v, &e);
      if (e != Mbarrier::Error::None)
        c.fault("error", "mbarrier at shared address " + hex32(m->offset) + " (phase " + std::to_string(m->bar.phase()) +
                             "): wait with a state token of phase " + std::to_string(Mbarrier::Token::phase(v)) + ": " +
                             Mbarrier::describe(e));
    }
    if (ok) done |= 1u << l;
    else if (!first_pending) first_pending = m;
    if (ok && c.race) c.race->mbar_acquire(c, *m);  // the completed phase's clocks (racecheck)
    return ok;
  };
  // Every lane naming the same address and phase (or token) is the rule: the first lane's test then
  // answers for all of them. (--racecheck acquires per thread, lane by lane.)
  const auto same_in_every_lane = [&](const Operand& o) {
    const uint64_t* col = &c.regs[size_t(o.slot) * 32];
    const uint64_t v = col[std::countr_zero(mask)];
    bool same = true;
    for_lanes(mask, [&](int l) { same &= col[l] == v; });
    return same;
  };
  if (mask && !c.race && same_in_every_lane(in.op[1]) && same_in_every_lane(in.op[2])) {
    if (test(std::countr_zero(mask))) done = mask;
  } else {
    for_lanes(mask, test);
  }
  Group& g = *c.group;
  if (first_pending && in.b && g.timed_out) {
    g.timed_out = false;  // the suspend time limit expired: try_wait returns false
  } else if (first_pending && in.b) {
    // try_wait: the thread suspends until the barrier changes; it is re-executed then. Unless it
    // came straight back to this try_wait with the barrier unchanged (a spin loop, which only the
    // barrier can end), the suspension may time out when nothing else can progress: a try_wait
    // used as a probe (CUTLASS's producer_try_acquire) returns false on the hardware then.
    const bool spinning = g.spin_pc == c.pc && g.spin_version == first_pending->wait_version;
    g.spin_pc = c.pc;
    g.spin_version = first_pending->wait_version;
    c.eng->block(c, WaitKind::Mbarrier, uint64_t(reinterpret_cast<uintptr_t>(first_pending)), first_pending->wait_version + 1);
    g.may_time_out = !spinning;
    c.hold = true;
    return;
  }
  if (first_pending && !in.b) {
    if (g.spin_pc == c.pc && g.spin_version == first_pending->wait_version) {
      // The group came back to the same test_wait with the barrier unchanged: it is spinning.
      c.eng->block(c, WaitKind::Mbarrier, uint64_t(reinterpret_cast<uintptr_t>(first_pending)), first_pending->wait_version + 1);
      c.hold = true;
      return;
    }
    g.spin_pc = c.pc;
    g.spin_version = first_pending->wait_version;
  }
  for_lanes(mask, [&](int l) { d[l] = (done >> l) & 1; });
}

void exec_pending_count(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* s = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = Mbarrier::Token::pending(s[l]); });
}

void common(Binder& b, size_t addr_op) {
  if (addr_op >= b.op_count() || b.op_kind(addr_op) != Operand::Kind::Addr)
    b.error("'" + b.src.opcode + "' needs an mbarrier address operand [..]");
  b.in.space = sem::space_of(b);
  if (b.in.space == Space::Generic) {
    Operand& o = b.in.op[addr_op];
    if (o.space == Space::Shared && !o.frame_rel) o.imm += int64_t(kSharedWindow);
  }
}

}  // namespace

void bind_mbarrier_init(Binder& b) {
  b.require_ops(2, 2);
  common(b, 0);
  b.in.fn = exec_init;
}

void bind_mbarrier_inval(Binder& b) {
  b.require_ops(1, 1);
  common(b, 0);
  b.in.fn = exec_inval;
}

void bind_mbarrier_arrive(Binder& b) {
  b.require_ops(2, 3);
  common(b, 1);
  b.in.a = b.has(".expect_tx");
  b.in.b = b.has(".noComplete");
  b.in.c = std::string_view(b.form.opcode) == "mbarrier.arrive_drop";
  if (b.in.a && b.op_count() != 3) b.error("'" + b.src.opcode + "' needs a transaction count operand");
  if (b.in.b && b.op_count() != 3) b.error("'" + b.src.opcode + "' with .noComplete needs a count operand");
  if (b.in.b && b.has(".relaxed")) b.error(".noComplete is only allowed with .release.cta");
  if (b.in.space == Space::SharedCluster && b.op_kind(0) != Operand::Kind::Sink)
    b.error("an arrive on a .shared::cluster mbarrier cannot return a state: its destination must be '_'");
  b.in.fn = exec_arrive;
}

void bind_mbarrier_tx(Binder& b) {
  b.require_ops(2, 2);
  common(b, 0);
  b.in.a = std::string_view(b.form.opcode) == "mbarrier.complete_tx";
  b.in.fn = exec_tx;
}

void bind_mbarrier_wait(Binder& b) {
  b.require_ops(3, 4);
  common(b, 1);
  b.in.a = b.has(".parity");
  b.in.b = std::string_view(b.form.opcode) == "mbarrier.try_wait";
  if (b.op_kind(0) == Operand::Kind::Vec) b.error("'" + b.src.opcode + "' has one predicate destination");
  b.in.fn = exec_wait;
}

void bind_mbarrier_pending_count(Binder& b) {
  b.require_ops(2, 2);
  b.in.fn = exec_pending_count;
}

}  // namespace ptxsim
