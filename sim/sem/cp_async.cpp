// Ampere asynchronous copies (PTX 9.7.9.25.3): cp.async, cp.async.commit_group,
// cp.async.wait_group, cp.async.wait_all and cp.async.mbarrier.arrive{.noinc}.
//
//   cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | , ignore-src}{, policy}
//     copies cp-size (4, 8 or 16; .cg: 16) bytes: the first src-size bytes from global memory, the
//     rest zeros (ignore-src true: all zeros). Both addresses are aligned to cp-size. The global
//     source is read at issue (a fault names the instruction); the shared destination is written
//     when the engine completes the copy, later than its issue, so reading it before the wait is a
//     race (reported, and the data read is stale). The copy is a generic-proxy write.
//   commit_group   closes the executing thread's open cp.async-group (empty groups are allowed).
//   wait_group N   waits until at most the N most recent committed groups are pending.
//   wait_all       = commit_group; wait_group 0.
//   cp.async.mbarrier.arrive{.noinc}.b64 [mbar]
//     an arrive-on the mbarrier once every cp.async the thread issued before it has completed.
//     Without .noinc the pending count is first incremented by 1 (a net-zero arrival, so the init
//     count need not include it); with .noinc the async arrival counts like a normal one.
// Each thread's groups are Warp::cp_async (the same bookkeeping as the bulk async-groups).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <type_traits>

#include "sim/exec/racecheck.h"
#include "sim/exec/warp_access.h"
#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace {

using sem::hex;

// in.imm: cp-size; in.a: 0 none, 1 src-size operand, 2 ignore-src predicate (operand 3);
// in.b: 1 = .cg; in.c: 1 = .noinc (mbarrier.arrive).
constexpr uint8_t kSrcSize = 1, kIgnoreSrc = 2;

uint64_t groups_obj(Warp& w) { return uint64_t(reinterpret_cast<uintptr_t>(&w.cp_async)); }

[[gnu::always_inline]] inline sem::tma::BulkTicket open_ticket(ExecCtx& c, int lane) {
  BulkGroups& b = c.warp->cp_async[size_t(lane)].groups;
  sem::tma::BulkTicket t{c.warp, uint32_t(lane), b.committed};
  // The open group is the newest one, at the back when it has copies pending already.
  if (!b.pending.empty() && b.pending.back().first == t.group) {
    ++b.pending.back().second;
    return t;
  }
  for (auto& p : b.pending)
    if (p.first == t.group) {
      ++p.second;
      return t;
    }
  b.pending.emplace_back(t.group, 1);
  return t;
}

// Lane `lane` of w has one copy of its cp.async-group `group` fewer pending.
[[gnu::always_inline]] inline void copy_done(Warp& w, uint32_t lane, uint64_t group) {
  auto& v = w.cp_async[lane].groups.pending;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].first == group) {
      if (--v[i].second == 0) v.erase(v.begin() + long(i));
      break;
    }
}

// Records the due time of an operation the lane queued, so a later cp.async.mbarrier.arrive of
// the same thread completes after it.
void note_due(ExecCtx& c, int lane, uint64_t due) {
  CpAsyncLane& s = c.warp->cp_async[size_t(lane)];
  s.last_due = std::max(s.last_due, due);
}

// A warp's cp.async completes: each lane's bytes reach shared memory and its group counts it done.
void complete_copies(Engine& e, const WarpCopy& wc) {
  uint32_t lo = ~0u, hi = 0;  // the lanes' hull
  for (uint32_t m = wc.mask; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    // (Fixed sizes: a memcpy of a variable 4, 8 or 16 bytes compiles to a slow `rep movsq`.)
    const uint32_t off = wc.dst_off[size_t(l)];
    uint8_t* dst = wc.dst_cta->smem.data() + off;
    const uint8_t* src = wc.data[size_t(l)].data();
    if (wc.bytes == 16) std::memcpy(dst, src, 16);
    else if (wc.bytes == 8) std::memcpy(dst, src, 8);
    else std::memcpy(dst, src, 4);
    lo = std::min(lo, off);
    hi = std::max(hi, off + wc.bytes);
    copy_done(*wc.warp, uint32_t(l), wc.group[size_t(l)]);
  }
  // Not a generic-proxy write for the async proxy's readers: CUTLASS's cp.async mainloops
  // (sm90_mma_multistage_gmma_ss_warpspecialized, sm100_mma_cpasync_warpspecialized, the
  // wgmma_sm90 tutorial) feed wgmma / tcgen05.mma straight from cp.async after the wait, with no
  // fence.proxy.async, and the PTX ISA does not name the non-bulk copy's proxy (docs/racecheck.md
  // "Proxies"). The copies clear the generic-write marks they overwrite: lane by lane, when marks
  // lie anywhere near them.
  if (wc.dst_cta->generic_writes.may_touch(lo, hi))
    for (uint32_t m = wc.mask; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      sem::tma::async_wrote(*wc.dst_cta, wc.dst_off[size_t(l)], wc.bytes);
    }
  e.wake_in(*wc.warp, WaitKind::BulkGroup, groups_obj(*wc.warp), ~0ull);  // only its own threads wait on them
}

void exec_cp_async(ExecCtx& c, const Instr& in, uint32_t mask) {
  Engine& e = *c.eng;
  const uint32_t n = uint32_t(in.imm);
  // The name for faults, built only when one is raised (every lane of every cp.async issues one).
  auto what = [&] { return std::string(in.b ? "cp.async.cg" : "cp.async.ca") + " of " + std::to_string(n) + " bytes"; };
  // Without a src-size or ignore-src operand every lane reads n bytes of global memory, aligned to
  // n: resolved for the whole warp at once when that is plainly valid (else per lane below, with
  // its checks and faults).
  uint8_t* srcs[32];
  const bool resolved = in.a != kSrcSize && in.a != kIgnoreSrc &&
                        warp_access(c, Space::Global, in.op[1], mask, n, n, Access::Read, srcs);
  // The sources are global memory the warp has not touched for a while (cache misses): ask for
  // all of them now, so that their latencies overlap each other and the work until the copies.
  // (Copying lane by lane, each miss stalled the loop: 80 % of its time, 8 % of the sgemm_sm80
  // tutorial's.)
  if (resolved) for_lanes(mask, [&](int l) { __builtin_prefetch(srcs[l]); });
  // One record for the warp, each lane filling its own entries.
  WarpCopy& op = e.new_warp_copy();
  op.label = in.b ? "cp.async.cg" : "cp.async.ca";
  op.bytes = n;
  op.line = in.line;
  op.complete = complete_copies;
  op.warp = c.warp;
  op.dst_cta = c.cta;  // (a .shared::cta destination: resolve_shared faults on another CTA's)
  // The common case in one pass: every lane's source resolved above (aligned), its destination
  // plainly in this CTA's shared memory, no live mbarrier there to check for. Otherwise (or with a
  // src-size), lane by lane with every check.
  uint32_t doffs[32];
  if (resolved && !c.cta->live_mbars && own_shared_offsets(c, in.space, in.op[0], mask, n, n, doffs)) {
    const auto copy_in = [&](auto bytes) {
      for_lanes(mask, [&](int l) {
        std::memcpy(op.data[size_t(l)].data(), srcs[l], bytes);
        op.dst_off[size_t(l)] = doffs[l];
        op.group[size_t(l)] = open_ticket(c, l).group;
      });
    };
    if (n == 16) copy_in(std::integral_constant<size_t, 16>{});
    else if (n == 8) copy_in(std::integral_constant<size_t, 8>{});
    else copy_in(std::integral_constant<size_t, 4>{});
    op.mask = mask;
    const uint64_t due = e.issue_warp_copy(op);
    for_lanes(mask, [&](int l) { note_due(c, l, due); });
    return;
  }
  for_lanes(mask, [&](int l) {
    const uint64_t dst = sem::addr_of(c, in.op[0], l), src = sem::addr_of(c, in.op[1], l);
    uint32_t src_size = n;
    if (in.a == kSrcSize) src_size = uint32_t(c.col(in.op[3])[l]);
    if (in.a == kIgnoreSrc && ((c.col(in.op[3])[l] & 1) != uint64_t(in.op[3].neg))) src_size = 0;
    if (src_size > n)
      c.fault("error", what() + ": src-size " + std::to_string(src_size) + " (lane " + std::to_string(l) +
                           ") is larger than cp-size " + std::to_string(n));
    if (dst % n || src % n)
      c.fault("misaligned address", what() + ": " + (dst % n ? "destination " + hex(dst) : "source " + hex(src)) +
                                        " (lane " + std::to_string(l) + ") is not " + std::to_string(n) +
                                        "-byte aligned");
    const uint32_t doff = e.resolve_shared(c, in.space, dst, n, l).second;
    if (c.cta->live_mbars) sem::tma::check_no_mbarrier(c, *c.cta, doff, n, what());
    std::array<uint8_t, 16>& data = op.data[size_t(l)];
    if (src_size == n) {
      std::memcpy(data.data(), resolved ? srcs[l] : c.mem(Space::Global, src, n, 1, l, Access::Read), n);
    } else {
      data.fill(0);
      if (src_size) std::memcpy(data.data(), c.mem(Space::Global, src, src_size, 1, l, Access::Read), src_size);
    }
    op.dst_off[size_t(l)] = doff;
    op.group[size_t(l)] = open_ticket(c, l).group;
    op.mask |= 1u << l;
  });
  if (!op.mask) return;
  const uint64_t due = e.issue_warp_copy(op);
  for_lanes(mask, [&](int l) { note_due(c, l, due); });
}

void exec_commit(ExecCtx& c, const Instr&, uint32_t mask) {
  for_lanes(mask, [&](int l) { c.warp->cp_async[size_t(l)].groups.committed++; });
}

// in.imm: N; in.a: 1 = wait_all.
void exec_wait(ExecCtx& c, const Instr& in, uint32_t mask) {
  bool wait = false;
  for_lanes(mask, [&](int l) {
    const BulkGroups& b = c.warp->cp_async[size_t(l)].groups;
    const uint64_t limit = in.a ? ~0ull : b.committed > in.imm ? b.committed - in.imm : 0;
    for (auto& p : b.pending)
      if (p.first < limit) wait = true;
  });
  if (wait) {
    c.eng->block(c, WaitKind::BulkGroup, groups_obj(*c.warp), 0);
    c.hold = true;  // re-executed when a copy completes
    return;
  }
  if (c.race) c.race->async_groups_acquire(c);
  if (in.a) exec_commit(c, in, mask);  // wait_all commits the open group (now empty)
}

void exec_mbarrier_arrive(ExecCtx& c, const Instr& in, uint32_t mask) {
  Engine& e = *c.eng;
  for_lanes(mask, [&](int l) {
    const uint64_t a = sem::addr_of(c, in.op[0], l);
    if (a & 7) c.fault("misaligned address", "cp.async.mbarrier.arrive: mbarrier address " + hex(a) + " is not 8-byte aligned");
    auto [cta, off] = e.resolve_shared(c, in.space, a, 8, l);
    if (cta != c.cta) c.fault("error", "cp.async.mbarrier.arrive: the mbarrier must be in the executing CTA's shared memory");
    sem::tma::require_mbarrier(c, *cta, off, "cp.async.mbarrier.arrive");
    MbarrierSlot* m = sem::tma::live_mbarrier(*cta, off);
    if (!in.c) {
      const model::Mbarrier::Error err = m->bar.add_pending(1);
      if (err != model::Mbarrier::Error::None)
        c.fault("error", "cp.async.mbarrier.arrive: mbarrier at shared address " + hex(off) + ": " +
                             model::Mbarrier::describe(err));
    }
    AsyncOp op;
    op.what = std::string("cp.async.mbarrier.arrive") + (in.c ? ".noinc" : "") + " on the mbarrier at shared address " +
              hex(off) + " (after the thread's earlier cp.async operations)";
    op.bar = m;
    op.line = in.line;
    op.min_due = c.warp->cp_async[size_t(l)].last_due;
    Engine* ep = &e;
    Cta* bc = cta;
    const uint32_t bo = off, tid = c.warp->index * 32 + uint32_t(l), line = in.line;
    op.complete = [ep, bc, bo, tid, line] {
      MbarrierSlot* s = sem::tma::live_mbarrier(*bc, bo);
      const std::string w = "cp.async.mbarrier.arrive (line " + std::to_string(line) + ")";
      if (!s) throw KernelFault{w + ": shared address " + hex(bo) + " no longer holds an initialised mbarrier", "error"};
      auto r = s->bar.arrive(1, 0, false, false);
      if (r.error != model::Mbarrier::Error::None)
        throw KernelFault{w + ": mbarrier at shared address " + hex(bo) + ": " + model::Mbarrier::describe(r.error), "error"};
      s->arrived_now[tid] = 1;
      if (r.completed) ep->mbarrier_phase_completed(*bc, *s);
      ep->mbarrier_changed(*s);
    };
    e.issue_async(std::move(op));
  });
}

// ---- binders ------------------------------------------------------------------------------------

[[noreturn]] void mismatch(const Binder& b) { b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) + "'"); }

bool reg_or_imm(const Operand& o, uint32_t bits) {
  return o.kind == Operand::Kind::Imm || (o.kind == Operand::Kind::Reg && o.width == bits);
}

}  // namespace

void bind_cp_async(Binder& b) {
  const bool ca = b.has(".ca"), cg = b.has(".cg");
  if (ca == cg) b.error("'.ca or .cg' modifier required for instruction 'cp.async'");
  if (!b.has(".global") || !(b.has(".shared") || b.has(".shared::cta")))
    b.error("State space incorrect for instruction 'cp.async'");
  if (b.op_count() < 3 || b.op_kind(0) != Operand::Kind::Addr || b.op_kind(1) != Operand::Kind::Addr ||
      b.op_kind(2) != Operand::Kind::Imm)
    mismatch(b);
  const int64_t n = b.imm(2);
  if (cg && n != 16) b.error("Argument 2 of instruction 'cp.async': unexpected value '" + std::to_string(n) + "', expected to be 16");
  if (n != 4 && n != 8 && n != 16)
    b.error("Argument 2 of instruction 'cp.async': unexpected value '" + std::to_string(n) + "', expected to be 4 or 8 or 16");
  const bool hint = b.has(".L2::cache_hint");
  size_t next = 3;
  uint8_t src = 0;
  if (next < b.op_count() && !(hint && next + 1 == b.op_count())) {
    const Operand& o = b.in.op[next];
    if (o.kind == Operand::Kind::Reg && o.width == 1) {
      if (b.dec.program().ptx_version < 75) b.error("Feature 'igonre-src on cp.async' requires PTX ISA .version 7.5 or later");
      src = kIgnoreSrc;
    } else if (reg_or_imm(o, 32)) {
      if (o.kind == Operand::Kind::Imm && (o.imm < 0 || o.imm > n))
        b.error("Argument 3 of instruction 'cp.async': value '" + std::to_string(o.imm) +
                "' out of range, expected to be in range [0.." + std::to_string(n) + "]");
      src = kSrcSize;
    } else {
      mismatch(b);
    }
    ++next;
  }
  if (hint) {
    if (next >= b.op_count() || !reg_or_imm(b.in.op[next], 64)) mismatch(b);
    ++next;
  }
  if (next != b.op_count()) mismatch(b);
  b.in.imm = uint64_t(n);
  b.in.a = src;
  b.in.b = cg;
  b.in.space = Space::Shared;
  b.in.fn = exec_cp_async;
}

void bind_cp_async_commit_group(Binder& b) {
  if (b.op_count() != 0) mismatch(b);
  b.in.fn = exec_commit;
}

void bind_cp_async_wait_group(Binder& b) {
  const bool all = std::string_view(b.form.opcode) == "cp.async.wait_all";
  if (all ? b.op_count() != 0 : (b.op_count() != 1 || b.op_kind(0) != Operand::Kind::Imm)) mismatch(b);
  b.in.imm = all ? 0 : uint64_t(b.in.op[0].imm);
  b.in.a = all;
  b.in.fn = exec_wait;
}

void bind_cp_async_mbarrier_arrive(Binder& b) {
  if (b.op_count() != 1 || b.op_kind(0) != Operand::Kind::Addr) mismatch(b);
  if (b.type_count() != 1 || b.type(0) != DType::B64)
    b.error("Unexpected instruction types specified for 'cp.async.mbarrier.arrive'");
  b.in.c = b.has(".noinc");
  b.in.space = b.has(".shared") || b.has(".shared::cta") ? Space::Shared : Space::Generic;
  if (b.in.space == Space::Generic) {  // a shared variable named directly: its generic address
    Operand& o = b.in.op[0];
    if (o.space == Space::Shared && !o.frame_rel) o.imm += int64_t(kSharedWindow);
  }
  b.in.fn = exec_mbarrier_arrive;
}

}  // namespace ptxsim
