// The tcgen05 family on sm_100a (PTX ISA 9.7.16): Tensor Memory allocation, tcgen05.ld / st and
// their waits, tcgen05.mma, tcgen05.commit and the fences. The hardware units are in model/tmem
// (TMEM cells, allocator) and model/tcgen05 (descriptors, ld/st shapes, the MMA datapath); this
// file decodes operands, applies the ISA's access rules, and schedules the asynchronous parts:
//   alloc / dealloc / relinquish  synchronous; an alloc that does not fit blocks until a dealloc
//   ld / st                       move data at issue. A register written by tcgen05.ld may be read
//                                 before tcgen05.wait::ld (the ISA honours true register dependencies
//                                 within a thread); a tcgen05.st of the warp to cells a pending ld
//                                 reads is reported (that anti-dependency needs the wait)
//   mma, commit                   checked at issue, executed in issue order through the engine's
//                                 async queue (Tcgen05Cta::pipe); commit arrives on its mbarrier(s)
//                                 once every earlier mma of the CTA has completed
//   mma.sp / .ws / .ws.sp         the same path: the operand lists differ (sp-meta-tmem, the zero-column
//                                 mask), model/tcgen05/{sparse,ws}.h do the rest; the collector
//                                 buffers' state is checked at issue (model/tcgen05/collector.h)
// Reading D with tcgen05.ld while an MMA writing it has not completed, or was never committed to
// an mbarrier, is reported; so is an MMA reading shared memory written by generic-proxy stores
// with no fence.proxy.async since (and not overwritten by an async-proxy write since: Cta::generic_writes). Faults: a tcgen05.dealloc of columns that an unsettled mma / cp /
// shift uses (writes or reads), a CTA exiting under one, and a CTA exiting with TMEM still allocated.
#include <algorithm>
#include <memory>

#include "model/tcgen05/cp.h"
#include "model/tcgen05/ldst.h"
#include "sim/exec/racecheck.h"
#include "sim/exec/tcgen05_state.h"
#include "sim/sem/tcgen05_internal.h"
#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace {

namespace t5 = model::tcgen05;
namespace tm = model::tmem;
using sem::hex;

// ---- per-CTA state -------------------------------------------------------------------------------

// Why an operation is not settled, and what the program must do (the ld, dealloc and exit reports
// end with "before <doing that>").
std::string why_unsettled(const Tcgen05Cta::MmaRecord& m) {
  return m.committed ? ", which has not completed: wait on the mbarrier its tcgen05.commit arrives on"
                     : ", which no tcgen05.commit covers: commit it to an mbarrier and wait on that";
}

// "<role> at line N (TMEM lanes .., columns ..), which ...": the dealloc and exit reports.
std::string describe_unsettled(const Tcgen05Cta::MmaRecord& m) {
  return std::string(m.role) + " at line " + std::to_string(m.line) + " (TMEM lanes " + std::to_string(m.d.lane) + ".." +
         std::to_string(m.d.lane + m.d.lanes - 1) + ", columns " + std::to_string(m.d.column) + ".." +
         std::to_string(m.d.column + m.d.columns - 1) + ")" + why_unsettled(m);
}

// The first unsettled operation using cells in columns [column, column + ncols), if any.
const Tcgen05Cta::MmaRecord* unsettled_in(const Tcgen05Cta& st, uint32_t column, uint32_t ncols) {
  const t5::TmemRect cols{0, tm::kLanes, column, ncols};
  for (const auto& m : st.mmas)
    if (!(m.completed && m.committed) && m.d.overlaps(cols)) return &m;
  return nullptr;
}

// At the exit of the CTA's last warp: an asynchronous tcgen05 operation still using its Tensor
// Memory (PTX 9.7.16.6: undefined), then any allocation still live.
void leak_check(Engine&, Cta& cta) {
  const std::string who = "CTA (" + std::to_string(cta.id.x) + "," + std::to_string(cta.id.y) + "," + std::to_string(cta.id.z) + ")";
  if (const auto* m = unsettled_in(*cta.tcgen05, 0, tm::kColumns))
    throw KernelFault{who + " exits while Tensor Memory holds " + describe_unsettled(*m) + " before exiting", "error"};
  const auto& live = cta.tcgen05->alloc.live();
  if (live.empty()) return;
  std::string s;
  for (const auto& a : live)
    s += (s.empty() ? "" : ", ") + std::string("columns [") + std::to_string(a.column) + ", " +
         std::to_string(a.column + a.ncols) + ") from the tcgen05.alloc at line " + std::to_string(a.line);
  throw KernelFault{who + " exits with Tensor Memory still allocated: " + s +
                        " (every allocation must be freed with tcgen05.dealloc before the kernel exits)",
                    "error"};
}

Tcgen05Cta& state(ExecCtx& c) {
  Cta& cta = *c.cta;
  if (!cta.tcgen05) {
    cta.tcgen05 = std::make_shared<Tcgen05Cta>();
    cta.tcgen05->pending_ld.resize(cta.warps.size());
    cta.on_exit = leak_check;
    cta.describe_custom_wait = sem::tcgen05::describe_wait;
  }
  return *cta.tcgen05;
}

void use_cta_group(ExecCtx& c, const char* what, unsigned g) {
  if (auto e = state(c).alloc.use_cta_group(g)) c.fault("error", std::string(what) + " " + *e);
}

uint32_t uniform_u32(ExecCtx& c, const Operand& o, uint32_t mask, const char* what, uint64_t add = 0) {
  const int first = std::countr_zero(mask);
  const uint64_t v = c.col(o)[first] + add;
  for_lanes(mask, [&](int l) {
    if (c.col(o)[l] + add != v)
      c.fault("error", std::string(what) + " differs between the threads of the warp (lane " + std::to_string(first) +
                           ": " + hex(uint32_t(v)) + ", lane " + std::to_string(l) + ": " + hex(uint32_t(c.col(o)[l] + add)) +
                           "); it must be the same in all of them");
  });
  return uint32_t(v);
}

// ---- alloc / dealloc / relinquish_alloc_permit -----------------------------------------------------

// in.d: cta_group.
void exec_alloc(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  if (in.d == 2) return sem::tcgen05::exec_pair_alloc_op(c, in, mask, 1);
  Tcgen05Cta& st = state(c);
  const uint32_t ncols = uniform_u32(c, in.op[1], mask, "tcgen05.alloc: nCols");
  const uint64_t dst = sem::addr_of(c, in.op[0], std::countr_zero(mask));
  auto r = st.alloc.alloc(ncols, in.d, in.line);
  if (r.status == tm::TmemAllocator::Status::Error) c.fault("error", "tcgen05.alloc: " + r.message);
  if (r.status == tm::TmemAllocator::Status::Blocked) {
    // Not enough free columns: wait for a dealloc (a deadlock if none comes).
    c.hold = true;
    c.eng->block(c, WaitKind::Custom, uint64_t(reinterpret_cast<uintptr_t>(&st.alloc)), st.alloc.version() + 1);
    return;
  }
  const uint32_t taddr = tm::TmemAddr{0, r.column}.encode();
  store_le(c.mem(in.space, dst, 4, 4, std::countr_zero(mask), Access::Write), taddr, 4);
  // --racecheck: the address is the warp's collective write (ptxsim makes it through its first
  // lane): every lane of the warp may read it after the alloc.
  if (c.race) c.race->warp_sync(c);
}

void exec_dealloc(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  if (in.d == 2) return sem::tcgen05::exec_pair_alloc_op(c, in, mask, 2);
  Tcgen05Cta& st = state(c);
  const tm::TmemAddr a = tm::TmemAddr::decode(uniform_u32(c, in.op[0], mask, "tcgen05.dealloc: taddr"));
  const uint32_t ncols = uniform_u32(c, in.op[1], mask, "tcgen05.dealloc: nCols");
  if (a.lane != 0) c.fault("error", "tcgen05.dealloc: taddr " + tm::to_string(a) + " must be lane 0 of the allocation");
  if (auto e = sem::tcgen05::columns_in_use(st, a.column, ncols)) c.fault("error", "tcgen05.dealloc: " + *e);
  if (auto e = st.alloc.dealloc(a.column, ncols, in.d)) c.fault("error", "tcgen05.dealloc: " + *e);
  c.eng->wake(WaitKind::Custom, uint64_t(reinterpret_cast<uintptr_t>(&st.alloc)), st.alloc.version());
}

void exec_relinquish(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  if (in.d == 2) return sem::tcgen05::exec_pair_alloc_op(c, in, mask, 3);
  if (auto e = state(c).alloc.relinquish(in.d)) c.fault("error", "tcgen05.relinquish_alloc_permit: " + *e);
}

// ---- ld / st -------------------------------------------------------------------------------------

// in.a: LdStShape; in.b: .num; in.c: 1 = .pack::16b / .unpack::16b; in.imm: registers per thread.
struct LdSt {
  const Operand* regs = nullptr;  // the register vector (elements in the function's vec_pool)
  const Operand* taddr = nullptr;
  uint32_t split = 0;
};

LdSt operands(const Instr& in, bool load) {
  LdSt o;
  const bool x2 = t5::LdStShape(in.a) == t5::LdStShape::k16x32bx2;
  o.regs = load ? &in.op[0] : &in.op[x2 ? 2 : 1];
  o.taddr = &in.op[load ? 1 : 0];
  if (x2) o.split = uint32_t(in.op[load ? 2 : 1].imm);
  return o;
}

const Operand& reg_elem(const ExecCtx& c, const Operand& v, uint32_t i) { return sem::vec_elem(c, v, i); }

// The checks shared by ld and st; returns the base address.
tm::TmemAddr check_access(ExecCtx& c, const Instr& in, const LdSt& o, uint32_t mask, const char* what) {
  Tcgen05Cta& st = state(c);
  const t5::LdStShape shape = t5::LdStShape(in.a);
  const tm::TmemAddr a =
      tm::TmemAddr::decode(uniform_u32(c, *o.taddr, mask, (std::string(what) + ": taddr").c_str(), uint64_t(o.taddr->imm)));
  const uint32_t lanes = t5::lanes_touched(shape);
  const uint32_t q = c.warp->index % 4;
  if (a.lane / tm::kLanesPerWarp != q || (a.lane + lanes - 1) / tm::kLanesPerWarp != q)
    c.fault("error", std::string(what) + ": warp " + std::to_string(c.warp->index) + " (warp " + std::to_string(q) +
                         " of its warpgroup) may access only TMEM lanes " + std::to_string(32 * q) + ".." +
                         std::to_string(32 * q + 31) + ", but " + t5::shape_name(shape) + " at " + tm::to_string(a) +
                         " touches lanes " + std::to_string(a.lane) + ".." + std::to_string(a.lane + lanes - 1));
  const uint32_t span = t5::columns_spanned(shape, in.b, o.split) * (in.c ? 2 : 1);
  if (a.column + span > tm::kColumns)
    c.fault("error", std::string(what) + ": columns " + std::to_string(a.column) + ".." + std::to_string(a.column + span - 1) +
                         " are beyond the 512 columns of Tensor Memory");
  if (!st.alloc.allocated(a.column, span))
    c.fault("error", std::string(what) + ": columns " + std::to_string(a.column) + ".." + std::to_string(a.column + span - 1) +
                         " are not allocated (tcgen05.alloc)");
  return a;
}

template <bool Pack>
uint32_t cell_column(const t5::CellOffset& off, uint32_t half) {
  return Pack ? 2 * off.column + half : off.column;
}

void exec_ld(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  Tcgen05Cta& st = state(c);
  const LdSt o = operands(in, true);
  const tm::TmemAddr a = check_access(c, in, o, mask, "tcgen05.ld");
  const t5::LdStShape shape = t5::LdStShape(in.a);
  const uint32_t nregs = uint32_t(in.imm);
  const bool pack = in.c != 0;
  // Reading D of an MMA that has not completed, or was never committed.
  const t5::TmemRect r{a.lane, t5::lanes_touched(shape), a.column, t5::columns_spanned(shape, in.b, o.split) * (pack ? 2 : 1)};
  for (const auto& m : st.mmas)
    if (m.writes && m.d.overlaps(r) && !(m.completed && m.committed)) {
      c.eng->warn(c, std::string("tcgen05 hazard: tcgen05.ld reads TMEM lanes ") + std::to_string(r.lane) + ".." +
                         std::to_string(r.lane + r.lanes - 1) + ", columns " + std::to_string(r.column) + ".." +
                         std::to_string(r.column + r.columns - 1) + ", " + m.role + " at line " + std::to_string(m.line) +
                         why_unsettled(m) + " before reading D");
      break;
    }
  if (c.race) c.race->tmem_access(c, r.lane, r.lanes, r.column, r.columns, false, std::countr_zero(mask));
  for_lanes(mask, [&](int l) {
    for (uint32_t i = 0; i < nregs; ++i) {
      const t5::CellOffset off = t5::cell_of(shape, uint32_t(l), i, o.split);
      const uint32_t lane = a.lane + off.lane;
      uint32_t v;
      if (pack) {
        v = (st.tmem.read(lane, a.column + 2 * off.column) & 0xffff) |
            (st.tmem.read(lane, a.column + 2 * off.column + 1) << 16);
      } else {
        v = st.tmem.read(lane, a.column + off.column);
      }
      c.col(reg_elem(c, *o.regs, i))[l] = v;
    }
  });
  st.pending_ld[c.warp->index].push_back({r, in.line});
}

void exec_st(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  Tcgen05Cta& st = state(c);
  const LdSt o = operands(in, false);
  const tm::TmemAddr a = check_access(c, in, o, mask, "tcgen05.st");
  const t5::LdStShape shape = t5::LdStShape(in.a);
  const uint32_t nregs = uint32_t(in.imm);
  const t5::TmemRect r{a.lane, t5::lanes_touched(shape), a.column,
                       t5::columns_spanned(shape, in.b, o.split) * (in.c ? 2 : 1)};
  for (const auto& p : st.pending_ld[c.warp->index])
    if (p.cells.overlaps(r)) {
      c.eng->warn(c, "tcgen05 hazard: tcgen05.st writes TMEM lanes " + std::to_string(r.lane) + ".." +
                         std::to_string(r.lane + r.lanes - 1) + ", columns " + std::to_string(r.column) + ".." +
                         std::to_string(r.column + r.columns - 1) + " that the tcgen05.ld at line " +
                         std::to_string(p.line) +
                         " of this warp reads, with no tcgen05.wait::ld between them (the load may see the store)");
      break;
    }
  if (c.race) c.race->tmem_access(c, r.lane, r.lanes, r.column, r.columns, true, std::countr_zero(mask));
  for_lanes(mask, [&](int l) {
    for (uint32_t i = 0; i < nregs; ++i) {
      const t5::CellOffset off = t5::cell_of(shape, uint32_t(l), i, o.split);
      const uint32_t lane = a.lane + off.lane;
      const uint32_t v = uint32_t(c.col(reg_elem(c, *o.regs, i))[l]);
      if (in.c) {
        st.tmem.write(lane, a.column + 2 * off.column, v & 0xffff);
        st.tmem.write(lane, a.column + 2 * off.column + 1, v >> 16);
      } else {
        st.tmem.write(lane, a.column + off.column, v);
      }
    }
  });
}

void exec_wait_ld(ExecCtx& c, const Instr&, uint32_t mask) {
  if (!mask || !c.cta->tcgen05) return;
  c.cta->tcgen05->pending_ld[c.warp->index].clear();
}

// tcgen05.st moves its data at issue, and the fences order nothing the simulator reorders.
void exec_nothing(ExecCtx&, const Instr&, uint32_t) {}

// ---- the asynchronous pipeline -----------------------------------------------------------------

// Queues `work` behind every earlier asynchronous tcgen05 operation of the CTA.
void enqueue(ExecCtx& c, const Instr& in, std::string what, std::function<void()> work) {
  Tcgen05Cta& st = state(c);
  if (c.race) {
    // The pipeline runs work in issue order whichever queued operation completes: each item carries
    // its own issue-time clocks.
    auto ro = c.race->new_tcgen05_op(c.warp, &in, what);
    work = [race = c.race, ro, w = std::move(work)] {
      RaceOp* old = race->set_agent(ro.get());
      w();
      race->set_agent(old);
    };
  }
  st.pipe.push_back(std::move(work));
  AsyncOp op;
  op.what = std::move(what);
  op.line = in.line;
  Tcgen05Cta* sp = &st;
  op.complete = [sp] {
    auto f = std::move(sp->pipe.front());
    sp->pipe.pop_front();
    f();
  };
  c.eng->issue_async(std::move(op));
}

void forget_settled(Tcgen05Cta& st) {
  st.mmas.erase(std::remove_if(st.mmas.begin(), st.mmas.end(), [](const auto& m) { return m.completed && m.committed; }),
                st.mmas.end());
}

// in.a: Kind; in.b: flags below; in.d: cta_group; in.imm: scale-input-d in bits 7:0, the collector
// usage (CollectorUse) in bits 9:8 and, with .ws, the B buffer in bits 11:10.
// in.c: block-scaled kinds: scale factors per row of A (1, 2 or 4).
constexpr uint8_t kATmem = 1, kDisableMask = 2, kBlockScaled = 4, kSparse = 8, kWs = 16, kZeroMask = 32;
constexpr uint8_t kAShift = 0x80;

// --racecheck: what the MMA just queued reads and writes, recorded with its pseudo-thread's clocks
// (docs/racecheck.md): the shared-memory chunks of A and B (until its tcgen05.commit's mbarrier
// completes, PTX ISA 9.7.16.6), D in Tensor Memory (written), and the TMEM operands it reads.
void race_record_mma(ExecCtx& c, const std::vector<Cta*>& pair, const t5::MmaOp& op, const t5::MmaGeometry& geo,
                     unsigned cta_group) {
  RaceOp* ro = c.race->last_op();
  if (!ro) return;
  auto smem = [&](Cta& p, uint64_t desc, bool mn_major, uint32_t rows, uint32_t units, uint32_t data_bytes) {
    t5::for_each_chunk(t5::SmemDescriptor::decode(desc), mn_major ? t5::Major::MN : t5::Major::K,
                       t5::unit_bytes(op.ctx.kind), rows, units, [&](uint32_t addr, uint32_t, uint32_t, uint32_t bytes) {
                         c.race->op_smem(*ro, p, addr, std::min(bytes, data_bytes), false);
                       });
  };
  auto tmem = [&](Cta& p, const t5::TmemRect& r, bool write) {
    c.race->op_tmem(*ro, p, r.lane, r.lanes, r.column, r.columns, write);
  };
  for (Cta* p : pair) {
    if (!op.a_in_tmem)
      smem(*p, op.a_desc, geo.a_mn_major, geo.M / cta_group, t5::k_units(op.ctx.kind), t5::smem_chunk_data_bytes(op, false));
    smem(*p, op.b_desc, geo.b_mn_major, t5::b_smem_columns(op, geo), t5::b_units(op.ctx), t5::smem_chunk_data_bytes(op, true));
    if (op.a_in_tmem) tmem(*p, t5::a_rect(op), false);
    if (t5::is_block_scaled(op.ctx.kind)) {
      tmem(*p, t5::sfa_rect(op), false);
      tmem(*p, t5::sfb_rect(op), false);
    }
    if (op.ctx.sparse) tmem(*p, t5::meta_rect(op), false);
    tmem(*p, t5::d_rect(op), true);
  }
}

void issue_mma(ExecCtx& c, const Instr& in, int l) {
  Tcgen05Cta& st = state(c);
  Cta& cta = *c.cta;
  t5::MmaOp op;
  op.ctx.kind = t5::Kind(in.a);
  op.ctx.cta_group = in.d;
  op.d_tmem = uint32_t(sem::addr_of(c, in.op[0], l));
  op.a_in_tmem = in.b & kATmem;
  op.ashift = in.b & kAShift;
  if (op.a_in_tmem) op.a_tmem = uint32_t(sem::addr_of(c, in.op[1], l));
  else op.a_desc = c.col(in.op[1])[l];
  op.b_desc = c.col(in.op[2])[l];
  op.ctx.sparse = in.b & kSparse;
  op.ctx.ws = in.b & kWs;
  size_t next = 3;
  // .sp: [d], a, b-desc, [sp-meta-tmem], idesc, ...
  if (op.ctx.sparse) op.sp_meta = uint32_t(sem::addr_of(c, in.op[next++], l));
  op.idesc = uint32_t(c.col(in.op[next++])[l]);
  if (in.b & kBlockScaled) {
    op.ctx.scale_vec = in.c;
    op.sfa_tmem = uint32_t(sem::addr_of(c, in.op[next++], l));
    op.sfb_tmem = uint32_t(sem::addr_of(c, in.op[next++], l));
  }
  if (in.b & kDisableMask) {
    const Operand& v = in.op[next++];
    for (uint32_t i = 0; i < v.count && i < 8; ++i) op.disable_lane[i] = uint32_t(c.col(sem::vec_elem(c, v, i))[l]);
  }
  op.enable_input_d = (c.col(in.op[next])[l] & 1) != 0;
  if (in.op[next].neg) op.enable_input_d = !op.enable_input_d;
  ++next;
  if (in.b & kZeroMask) op.zero_column_mask = c.col(in.op[next++])[l];
  op.scale_input_d = uint32_t(in.imm & 0xff);
  op.collector = t5::CollectorUse((in.imm >> 8) & 3);
  op.collector_b = uint8_t((in.imm >> 10) & 3);
  const std::string what = std::string("tcgen05.mma") + (op.ctx.ws ? ".ws" : "") + (op.ctx.sparse ? ".sp" : "") +
                           ".cta_group::" + std::to_string(in.d) + "." + t5::kind_name(op.ctx.kind);
  // The CTAs whose TMEM and shared memory the MMA uses: this one, or the pair (even CTA first).
  std::vector<Cta*> pair{&cta};
  if (in.d == 2) {
    Cta* even = c.eng->cta_by_rank(cta.rank & ~1u);
    Cta* odd = c.eng->cta_by_rank(cta.rank | 1u);
    if (!even || !odd)
      c.fault("error", what + ": the peer CTA (rank " + std::to_string(cta.rank ^ 1u) +
                           ") of this CTA's pair is not in the cluster; .cta_group::2 needs a cluster of CTA pairs");
    pair = {even, odd};
  }
  // The metadata's cells may still be written by an operation ahead of this MMA in the pipe
  // (tcgen05.cp -> tcgen05.mma is an ordered pair, PTX 9.7.16.6.2): validate them when it executes.
  if (op.ctx.sparse)
    for (Cta* p : pair)
      if (p->tcgen05)
        for (const auto& m : p->tcgen05->mmas)
          if (m.writes && !m.completed && m.d.overlaps(t5::meta_rect(op))) op.sp_meta_pending = true;
  std::vector<t5::MmaCta> views;
  for (Cta* p : pair) {
    if (!p->tcgen05) c.fault("error", what + ": CTA rank " + std::to_string(p->rank) + " has allocated no Tensor Memory");
    Tcgen05Cta* ps = p->tcgen05.get();
    views.push_back({&ps->tmem, std::span<const uint8_t>(p->smem), [ps](uint32_t col, uint32_t n) { return ps->alloc.allocated(col, n); }});
  }
  t5::SmemSpan a_span, b_span;  // what the operands span: the hazard check below skips the rest
  if (auto e = t5::check(op, views.data(), &a_span, &b_span)) c.fault("error", what + ": " + *e);
  // The collector buffer: a use / lastuse needs a fill still valid (checked in issue order).
  {
    const uint64_t named = op.ctx.ws ? op.b_desc : op.a_in_tmem ? op.a_tmem : op.a_desc;
    std::optional<std::string> warning;
    for (Cta* p : pair) {
      auto verdict = p->tcgen05->collector_track.issue(op.collector_ref(), op.collector, named, in.line);
      if (verdict.error) c.fault("error", what + ": " + *verdict.error);
      if (verdict.warning) warning = verdict.warning;
    }
    if (warning) c.eng->warn(c, what + ": " + *warning);
  }

  // Shared memory the MMA reads (through the async proxy) written by generic stores since the last
  // fence.proxy.async.
  // Only the bytes the MMA reads count: all of each chunk, but the first 8 / 12 bytes of the padded
  // 4- / 6-bit operands of kind::f8f6f4 / mxf8f6f4 (their padding is not read).
  const t5::MmaGeometry geo = t5::geometry(op);
  auto check_operand = [&](const Cta& from, const char* which, uint64_t desc, bool mn_major, uint32_t rows,
                           uint32_t units, uint32_t data_bytes, t5::SmemSpan span) {
    if (!from.generic_writes.may_touch(span.lo, span.hi)) return;
    const t5::SmemDescriptor sd = t5::SmemDescriptor::decode(desc);
    const uint16_t data_mask = uint16_t((1u << data_bytes) - 1);
    bool warned = false;
    t5::for_each_chunk(sd, mn_major ? t5::Major::MN : t5::Major::K, t5::unit_bytes(op.ctx.kind), rows,
                       units, [&](uint32_t addr, uint32_t, uint32_t, uint32_t bytes) {
      const bool stale = data_bytes < 16 ? from.generic_writes.any_in_chunk(addr, data_mask)
                                         : from.generic_writes.any(addr, bytes);
      if (!warned && stale) {
        c.eng->warn(c, "tcgen05 hazard: " + what + " reads " + which + " at shared address " + hex(addr) +
                           (in.d == 2 ? " of CTA rank " + std::to_string(from.rank) : std::string()) +
                           ", written by generic-proxy stores with no fence.proxy.async since (the MMA reads "
                           "through the async proxy and may see stale data)");
        warned = true;
      }
    });
  };
  for (Cta* p : pair) {
    if (!op.a_in_tmem)
      check_operand(*p, "A", op.a_desc, geo.a_mn_major, geo.M / in.d, t5::k_units(op.ctx.kind),
                    t5::smem_chunk_data_bytes(op, false), a_span);
    check_operand(*p, "B", op.b_desc, geo.b_mn_major, t5::b_smem_columns(op, geo), t5::b_units(op.ctx),
                  t5::smem_chunk_data_bytes(op, true), b_span);
  }

  Tcgen05Cta::MmaRecord rec;
  rec.id = st.next_mma++;
  rec.d = t5::d_rect(op);
  rec.line = in.line;
  rec.issuer = &cta;
  rec.thread = c.warp->index * 32 + uint32_t(l);
  for (Cta* p : pair) p->tcgen05->mmas.push_back(rec);
  if (op.ashift) {  // .ashift rewrites A's rows when the MMA completes
    Tcgen05Cta::MmaRecord ra = rec;
    ra.d = t5::a_rect(op);
    ra.role = "the A rows shifted by the tcgen05.mma .ashift";
    for (Cta* p : pair) p->tcgen05->mmas.push_back(ra);
  }
  // The TMEM operands it only reads: they must stay allocated until it completes.
  auto reads = [&](const char* role, const t5::TmemRect& r) {
    Tcgen05Cta::MmaRecord rr = rec;
    rr.d = r;
    rr.role = role;
    rr.writes = false;
    for (Cta* p : pair) p->tcgen05->mmas.push_back(rr);
  };
  if (op.a_in_tmem) reads("the A (in Tensor Memory) of the tcgen05.mma", t5::a_rect(op));
  if (in.b & kBlockScaled) {
    reads("the scale_A of the tcgen05.mma", t5::sfa_rect(op));
    reads("the scale_B of the tcgen05.mma", t5::sfb_rect(op));
  }
  if (op.ctx.sparse) reads("the sparsity metadata of the tcgen05.mma.sp", t5::meta_rect(op));
  enqueue(c, in, what + " (line " + std::to_string(in.line) + ")",
          [pair, op, rid = rec.id, issuer = &cta, what, line = in.line, eng = c.eng, fn = c.fn, pc = c.pc] {
    std::vector<t5::MmaCta> v;
    std::string note;  // an unlisted 2:4 metadata nibble that mattered (model/tcgen05/sparse.h)
    for (Cta* p : pair) v.push_back({&p->tcgen05->tmem, std::span<const uint8_t>(p->smem), {}, &note});
    if (auto e = t5::execute(op, v.data()))
      throw KernelFault{what + " (line " + std::to_string(line) + "): " + *e, "error"};
    if (!note.empty()) eng->warn_at(*fn, pc, what + ": " + note);
    for (Cta* p : pair) {
      for (auto& m : p->tcgen05->mmas)
        if (m.id == rid && m.issuer == issuer) m.completed = true;
      forget_settled(*p->tcgen05);
    }
  });
  if (c.race) race_record_mma(c, pair, op, geo, in.d);
}

void exec_mma(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask) use_cta_group(c, "tcgen05.mma", in.d);
  for_lanes(mask, [&](int l) { issue_mma(c, in, l); });
}

// in.a: CpShape; in.b: CpSrcFmt; in.d: cta_group. With .cta_group::2 each CTA of the pair copies
// from its own shared memory into its own Tensor Memory.
void issue_cp(ExecCtx& c, const Instr& in, int l) {
  Tcgen05Cta& st = state(c);
  Cta& cta = *c.cta;
  t5::CpOp op;
  op.shape = t5::CpShape(in.a);
  op.taddr = uint32_t(sem::addr_of(c, in.op[0], l));
  op.desc = c.col(in.op[1])[l];
  op.src = t5::CpSrcFmt(in.b);
  const std::string what = std::string("tcgen05.cp.cta_group::") + std::to_string(in.d) + t5::cp_shape_name(op.shape) +
                           t5::src_fmt_name(op.src);
  const std::vector<Cta*> pair = sem::tcgen05::cta_pair(c, in.d, what);
  const t5::SmemDescriptor sd = t5::SmemDescriptor::decode(op.desc);
  for (Cta* p : pair) {
    Tcgen05Cta* ps = p->tcgen05.get();
    if (auto e = t5::check(op, uint32_t(p->smem.size()), [ps](uint32_t col, uint32_t n) { return ps->alloc.allocated(col, n); }))
      c.fault("error", what + ": " + *e);
    // The bytes of each 16-byte source chunk the copy reads: all, or the packed 12 / 8 of
    // .b6x16_p32 / .b4x16_p64 (the padding is not read).
    const uint16_t data_mask = op.src == t5::CpSrcFmt::kB6x16P32   ? 0x0FFF
                               : op.src == t5::CpSrcFmt::kB4x16P64 ? 0x00FF
                                                                   : 0xFFFF;
    bool warned = false;
    for (uint32_t r = 0; r < t5::cp_rows(op.shape) && !warned; ++r)
      for (uint32_t j = 0; j < t5::cp_row_bytes(op.shape) && !warned; j += 16) {
        const uint32_t addr = t5::element_address(sd, t5::Major::K, 1, r, j);
        if (p->generic_writes.any_in_chunk(addr, data_mask)) {
          c.eng->warn(c, "tcgen05 hazard: " + what + " reads shared address " + hex(addr) +
                             ", written by generic-proxy stores with no fence.proxy.async since");
          warned = true;
        }
      }
  }
  Tcgen05Cta::MmaRecord rec;
  rec.id = st.next_mma++;
  rec.d = {0, 128, tm::TmemAddr::decode(op.taddr).column, t5::cp_columns(op.shape)};
  rec.line = in.line;
  rec.role = "the destination of the tcgen05.cp";
  rec.issuer = &cta;
  rec.thread = c.warp->index * 32 + uint32_t(l);
  for (Cta* p : pair) p->tcgen05->mmas.push_back(rec);
  enqueue(c, in, what + " (line " + std::to_string(in.line) + ")", [pair, op, rid = rec.id, issuer = &cta] {
    for (Cta* p : pair) {
      t5::execute(op, p->tcgen05->tmem, std::span<const uint8_t>(p->smem));
      for (auto& m : p->tcgen05->mmas)
        if (m.id == rid && m.issuer == issuer) m.completed = true;
      forget_settled(*p->tcgen05);
    }
  });
  if (RaceOp* ro = c.race ? c.race->last_op() : nullptr) {  // --racecheck: the source chunks, the TMEM written
    const uint32_t data_bytes = op.src == t5::CpSrcFmt::kB6x16P32 ? 12 : op.src == t5::CpSrcFmt::kB4x16P64 ? 8 : 16;
    for (Cta* p : pair) {
      for (uint32_t r = 0; r < t5::cp_rows(op.shape); ++r)
        for (uint32_t j = 0; j < t5::cp_row_bytes(op.shape); j += 16)
          c.race->op_smem(*ro, *p, t5::element_address(sd, t5::Major::K, 1, r, j), data_bytes, false);
      c.race->op_tmem(*ro, *p, rec.d.lane, rec.d.lanes, rec.d.column, rec.d.columns, true);
    }
  }
}

void exec_cp(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask) use_cta_group(c, "tcgen05.cp", in.d);
  for_lanes(mask, [&](int l) { issue_cp(c, in, l); });
}

// One arrive (count 1) on the mbarrier at `off` of `cta`, from an asynchronous operation.
void arrive_async(Engine& e, Cta& cta, uint32_t off, const std::string& what) {
  MbarrierSlot* m = sem::tma::live_mbarrier(cta, off);
  if (!m)
    throw KernelFault{what + " completed, but shared address " + hex(off) + " of CTA rank " + std::to_string(cta.rank) +
                          " no longer holds an initialised mbarrier for its arrive",
                      "error"};
  auto r = m->bar.arrive(1, 0, false, false);
  if (r.error != model::Mbarrier::Error::None)
    throw KernelFault{what + ": arrive on the mbarrier at shared address " + hex(off) + ": " +
                          model::Mbarrier::describe(r.error),
                      "error"};
  m->remote_arrivals++;
  if (r.completed) e.mbarrier_phase_completed(cta, *m);
  e.mbarrier_changed(*m);
}

// in.b: 1 = .multicast::cluster; in.d: cta_group.
void exec_commit(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask) use_cta_group(c, "tcgen05.commit", in.d);
  for_lanes(mask, [&](int l) {
    Tcgen05Cta& st = state(c);
    Engine& e = *c.eng;
    const std::string what = "tcgen05.commit (line " + std::to_string(in.line) + ")";
    const uint64_t mb = sem::addr_of(c, in.op[0], l);
    if (mb & 7) c.fault("misaligned address", "tcgen05.commit: mbarrier address " + hex(mb) + " is not 8-byte aligned");
    auto [bcta, boff] = e.resolve_shared(c, in.space, mb, 8, l);
    std::vector<Cta*> targets;
    if (in.b) {
      const uint32_t m = uint16_t(c.col(in.op[1])[l]);
      if (m >> e.ctas.size())
        c.fault("error", "tcgen05.commit: ctaMask " + hex(m) + " names CTA ranks beyond the cluster of " +
                             std::to_string(e.ctas.size()) + " CTA(s)");
      for (uint32_t r = 0; r < e.ctas.size(); ++r)
        if (m >> r & 1) targets.push_back(e.ctas[r].get());
    } else {
      targets.push_back(bcta);
    }
    for (Cta* t : targets) sem::tma::require_mbarrier(c, *t, boff, "tcgen05.commit");
    const uint32_t thread = c.warp->index * 32 + uint32_t(l);
    for (auto& cp : e.ctas)
      if (cp->tcgen05)
        for (auto& m : cp->tcgen05->mmas)
          if (m.issuer == c.cta && m.thread == thread) m.committed = true;
    Engine* ep = &e;
    const uint32_t off = boff;
    (void)st;
    enqueue(c, in, what, [ep, targets, off, what] {
      for (Cta* t : targets) arrive_async(*ep, *t, off, what);
      for (auto& cp : ep->ctas)
        if (cp->tcgen05) forget_settled(*cp->tcgen05);
    });
  });
}

// ---- binders helpers ---------------------------------------------------------------------------------

unsigned cta_group(Binder& b) {
  const bool one = b.has(".cta_group::1"), two = b.has(".cta_group::2");
  if (one == two) b.error(one ? "Multiple .cta_group modifiers specified" : std::string(".cta_group modifier required for instruction '") + b.form.opcode + "'");
  return one ? 1 : 2;
}

void require_sync_aligned(Binder& b) {
  if (!b.has(".sync") || !b.has(".aligned"))
    b.error(std::string("'.sync.aligned' modifiers required for instruction '") + b.form.opcode + "'");
}

bool is_reg_or_imm(const Operand& o) { return o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Imm; }

void expect(Binder& b, bool ok, const std::string& what) {
  if (!ok) b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) + "': " + what);
}

}  // namespace

// ---- binders ---------------------------------------------------------------------------------------

void bind_tcgen05_alloc(Binder& b) {
  require_sync_aligned(b);
  b.in.d = uint8_t(cta_group(b));
  expect(b, b.op_count() == 2 && b.op_kind(0) == Operand::Kind::Addr && b.in.op[0].aux == kNoSlot,
         "expected [dst], nCols");
  expect(b, is_reg_or_imm(b.in.op[1]), "nCols is a 32-bit register or immediate");
  b.in.space = b.has(".shared::cta") ? Space::Shared : Space::Generic;
  b.in.fn = exec_alloc;
}

void bind_tcgen05_dealloc(Binder& b) {
  require_sync_aligned(b);
  b.in.d = uint8_t(cta_group(b));
  expect(b, b.op_count() == 2 && is_reg_or_imm(b.in.op[0]) && is_reg_or_imm(b.in.op[1]), "expected taddr, nCols");
  b.in.fn = exec_dealloc;
}

void bind_tcgen05_relinquish(Binder& b) {
  require_sync_aligned(b);
  b.in.d = uint8_t(cta_group(b));
  expect(b, b.op_count() == 0, "no operands");
  b.in.fn = exec_relinquish;
}

namespace {

void bind_ldst(Binder& b, bool load) {
  const char* name = load ? "tcgen05.ld" : "tcgen05.st";
  require_sync_aligned(b);
  static const std::pair<const char*, t5::LdStShape> shapes[] = {{".32x32b", t5::LdStShape::k32x32b},
                                                                {".16x64b", t5::LdStShape::k16x64b},
                                                                {".16x128b", t5::LdStShape::k16x128b},
                                                                {".16x256b", t5::LdStShape::k16x256b},
                                                                {".16x32bx2", t5::LdStShape::k16x32bx2}};
  int ns = 0;
  t5::LdStShape shape{};
  for (auto& [tok, s] : shapes)
    if (b.has(tok)) {
      shape = s;
      ++ns;
    }
  if (ns != 1) b.error(std::string(ns ? "Multiple .shape modifiers" : ".shape modifier required") + " for instruction '" + name + "'");
  uint32_t num = 0, nn = 0;
  for (uint32_t n = 1; n <= 128; n *= 2)
    if (b.has(".x" + std::to_string(n))) {
      num = n;
      ++nn;
    }
  if (nn != 1) b.error(std::string(nn ? "Multiple .num modifiers" : ".num modifier required") + " for instruction '" + name + "'");
  const uint32_t regs = t5::regs_per_thread(shape, num);
  if (!regs)
    b.error(std::string("Modifier '.x") + std::to_string(num) + "' cannot be combined with modifier '" +
            t5::shape_name(shape) + "' for instruction '" + name + "'");
  if (!b.has(".b32")) b.error(std::string("Type .b32 required for instruction '") + name + "'");
  const bool x2 = shape == t5::LdStShape::k16x32bx2;
  const size_t reg_at = load ? 0 : (x2 ? 2 : 1), addr_at = load ? 1 : 0;
  expect(b, b.op_count() == (x2 ? 3u : 2u),
         load ? (x2 ? "expected {r...}, [taddr], immHalfSplitoff" : "expected {r...}, [taddr]")
              : (x2 ? "expected [taddr], immHalfSplitoff, {r...}" : "expected [taddr], {r...}"));
  expect(b, b.op_kind(addr_at) == Operand::Kind::Addr && b.in.op[addr_at].aux == kNoSlot, "taddr is an address [taddr]");
  if (x2) {
    const Operand& h = b.in.op[load ? 2 : 1];
    expect(b, h.kind == Operand::Kind::Imm, "immHalfSplitoff is an immediate");
  }
  const Operand& r = b.in.op[reg_at];
  if (r.kind != Operand::Kind::Vec) b.error("Vector expected for argument " + std::to_string(reg_at) + " of instruction '" + name + "'");
  const uint32_t count = r.count;
  if (count != regs)
    b.error("Argument " + std::to_string(reg_at + 1) + " of instruction '" + name + "': Argument vector size mismatch (" +
            t5::shape_name(shape) + ".x" + std::to_string(num) + " needs " + std::to_string(regs) + " registers, got " +
            std::to_string(count) + ")");
  for (uint32_t i = 0; i < count; ++i) {
    const Operand& e = b.dec.current().vec_pool[r.slot + i];
    expect(b, e.kind == Operand::Kind::Reg && (e.width == 0 || e.width == 32), "the data registers are 32-bit registers");
  }
  b.in.a = uint8_t(shape);
  b.in.b = uint8_t(num);
  b.in.c = b.has(load ? ".pack::16b" : ".unpack::16b") ? 1 : 0;
  b.in.imm = regs;
  b.in.fn = load ? exec_ld : exec_st;
}

}  // namespace

void bind_tcgen05_ld(Binder& b) { bind_ldst(b, true); }
void bind_tcgen05_st(Binder& b) { bind_ldst(b, false); }

void bind_tcgen05_wait(Binder& b) {
  require_sync_aligned(b);
  expect(b, b.op_count() == 0, "no operands");
  b.in.fn = std::string_view(b.form.opcode) == "tcgen05.wait::ld" ? exec_wait_ld : exec_nothing;
}

void bind_tcgen05_fence(Binder& b) {
  expect(b, b.op_count() == 0, "no operands");
  b.in.fn = exec_nothing;
}

namespace {

// Table 56 / 57: the scale-vector qualifier (or its default) for a block-scaled kind; .blockN
// aliases .scale_vec::(K/N)X for the dense K ptxsim simulates (K = 96 is sm_103a-only).
unsigned scale_vec_size(Binder& b, t5::Kind kind) {
  static const std::pair<const char*, unsigned> quals[] = {
      {".scale_vec::1X", 1}, {".scale_vec::2X", 2}, {".scale_vec::4X", 4}, {".block16", 16}, {".block32", 32}};
  const char* name = nullptr;
  unsigned v = 0;
  for (auto& [q, x] : quals)
    if (b.has(q)) {
      if (name) b.error("Multiple .scale_vectorsize modifiers specified for instruction 'tcgen05.mma'");
      name = q;
      v = x;
    }
  const unsigned K = t5::dense_k(kind);
  if (!name) {
    if (kind == t5::Kind::MXF4NVF4)
      b.error("Modifier '.kind::mxf4nvf4' requires modifier '.scale_vectorsize' for instruction 'tcgen05.mma'");
    return kind == t5::Kind::MXF8F6F4 ? 1 : 2;  // the default is .block32
  }
  const unsigned n = v >= 16 ? K / v : v;
  const bool ok = kind == t5::Kind::MXF8F6F4 ? n == 1 : kind == t5::Kind::MXF4 ? n == 2 : (n == 2 || n == 4);
  if (!ok)
    b.error(std::string("Modifier '.") + t5::kind_name(kind) + "' cannot be combined with modifier '" + name + "'");
  return n;
}

}  // namespace

namespace {

// .collector_usage: at most one; .collector::a::* for tcgen05.mma(.sp), .collector::b0..b3::* for
// .ws(.sp). Returns CollectorUse in bits 1:0 and the B buffer in bits 3:2 (in.imm bits 9:8, 11:10).
uint64_t collector_usage(Binder& b, bool ws, const char* iname) {
  static const char* uses[] = {"discard", "fill", "use", "lastuse"};
  uint64_t code = 0;
  int n = 0;
  for (int buf = -1; buf < 4; ++buf)
    for (uint64_t u = 0; u < 4; ++u) {
      const std::string q = std::string(".collector::") + (buf < 0 ? "a" : "b" + std::to_string(buf)) + "::" + uses[u];
      if (!b.has(q)) continue;
      if (++n > 1) b.error("Multiple .collector_usage modifiers specified");
      if ((buf >= 0) != ws) b.error("Illegal modifier '" + q + "' for instruction '" + iname + "'");
      code = u | uint64_t(buf < 0 ? 0 : buf) << 2;
    }
  return code;
}

}  // namespace

void bind_tcgen05_mma(Binder& b) {
  const std::string_view op = b.form.opcode;
  const bool ws = op.starts_with("tcgen05.mma.ws"), sparse = op.ends_with(".sp");
  const char* iname = ws ? "tcgen05.mma.ws" : "tcgen05.mma";  // ptxas's name in its messages
  if (ws)
    for (const char* q : {".cta_group::2", ".ashift"})
      if (b.has(q)) b.error(std::string("Illegal modifier '") + q + "' for instruction 'tcgen05.mma.ws'");
  const uint64_t collector = collector_usage(b, ws, iname);
  const unsigned g = cta_group(b);
  static const std::pair<const char*, t5::Kind> kinds[] = {
      {".kind::f16", t5::Kind::F16},           {".kind::tf32", t5::Kind::TF32}, {".kind::f8f6f4", t5::Kind::F8F6F4},
      {".kind::i8", t5::Kind::I8},             {".kind::mxf8f6f4", t5::Kind::MXF8F6F4},
      {".kind::mxf4", t5::Kind::MXF4},         {".kind::mxf4nvf4", t5::Kind::MXF4NVF4}};
  int nk = 0;
  t5::Kind kind{};
  for (auto& [tok, k] : kinds)
    if (b.has(tok)) {
      kind = k;
      ++nk;
    }
  if (nk != 1) b.error(std::string(nk ? "Multiple .kind modifiers" : ".kind modifier required") + " for instruction 'tcgen05.mma'");
  const bool block_scale = b.has(".block_scale");
  if (ws && (block_scale || t5::is_block_scaled(kind))) b.error("Arguments mismatch for instruction 'tcgen05.mma.ws'");
  if (t5::is_block_scaled(kind) != block_scale)
    b.error(block_scale ? "Block scale is not supported for f16, tf32, f8f6f4, and i8 types"
                        : std::string(".block_scale modifier required for instruction 'tcgen05.mma'"));
  if (!block_scale)
    for (const char* q : {".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X", ".block16", ".block32"})
      if (b.has(q)) b.error(std::string("Modifier '") + q + "' requires modifier '.block_scale' for instruction 'tcgen05.mma'");
  // Operands: [d], a-desc | [a-tmem], b-desc, {[sp-meta-tmem],} idesc, then
  //   tcgen05.mma(.sp)      {disable-output-lane,} enable-input-d {, scale-input-d}
  //                         or, block-scaled, [scale-A-tmem], [scale-B-tmem], enable-input-d
  //   tcgen05.mma.ws(.sp)   enable-input-d {, zero-column-mask-desc}
  const size_t n = b.op_count();
  const size_t sp = sparse ? 1 : 0;
  if (ws && !(n == 5 + sp || n == 6 + sp)) b.error("Arguments mismatch for instruction 'tcgen05.mma.ws'");
  expect(b, n >= 5 + sp && b.op_kind(0) == Operand::Kind::Addr,
         sparse ? "expected [d-tmem], a-desc|[a-tmem], b-desc, [sp-meta-tmem], idesc, ..."
                : "expected [d-tmem], a-desc|[a-tmem], b-desc, idesc, ...");
  const bool a_tmem = b.op_kind(1) == Operand::Kind::Addr;
  expect(b, a_tmem || is_reg_or_imm(b.in.op[1]), "a-desc is a 64-bit register or [a-tmem]");
  if (sparse) expect(b, b.op_kind(3) == Operand::Kind::Addr && b.in.op[3].aux == kNoSlot, "sp-meta-tmem is an address [sp-meta-tmem]");
  expect(b, is_reg_or_imm(b.in.op[2]) && is_reg_or_imm(b.in.op[3 + sp]), "b-desc and idesc are registers or immediates");
  size_t next = 4 + sp;
  uint8_t flags = uint8_t((a_tmem ? kATmem : 0) | (sparse ? kSparse : 0) | (ws ? kWs : 0));
  if (ws) {
    expect(b, is_reg_or_imm(b.in.op[next]), "enable-input-d is a predicate");
    if (++next < n) {
      expect(b, is_reg_or_imm(b.in.op[next]), "zero-column-mask-desc is a 64-bit register or immediate");
      flags |= kZeroMask;
    }
    b.in.a = uint8_t(kind);
    b.in.b = flags;
    b.in.d = uint8_t(g);
    b.in.imm = collector << 8;
    b.in.fn = exec_mma;
    return;
  }
  if (t5::is_block_scaled(kind)) {
    b.in.c = uint8_t(scale_vec_size(b, kind));
    expect(b, n == 7 + sp && b.op_kind(4 + sp) == Operand::Kind::Addr && b.op_kind(5 + sp) == Operand::Kind::Addr,
           sparse ? "expected [d-tmem], a-desc|[a-tmem], b-desc, [sp-meta-tmem], idesc, [scale-A-tmem], [scale-B-tmem], "
                    "enable-input-d"
                  : "expected [d-tmem], a-desc|[a-tmem], b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d");
    flags |= kBlockScaled;
    next = 6 + sp;
  } else if (b.op_kind(next) == Operand::Kind::Vec) {
    const uint32_t want = g == 1 ? 4 : 8;
    if (b.in.op[next].count != want)
      b.error("Argument " + std::to_string(next + 1) + " of instruction 'tcgen05.mma': disable-output-lane has " +
              std::to_string(want) + " elements with .cta_group::" + std::to_string(g));
    flags |= kDisableMask;
    ++next;
  }
  expect(b, next < n && (b.op_kind(next) == Operand::Kind::Reg || b.op_kind(next) == Operand::Kind::Imm),
         "enable-input-d is a predicate");
  ++next;
  if (next < n && !t5::is_block_scaled(kind)) {
    const int64_t s = b.imm(next);
    if (!(kind == t5::Kind::F16 || kind == t5::Kind::TF32))
      b.error("Scale input accumulator can only be used with f16 and tf32 types");
    if (!target_satisfies(b.dec.program().target, "sm_100f"))
      b.error("Feature 'argument scale-inp-d-imm' not supported on .target '" + b.dec.program().target.name() + "'");
    if (s < 0 || s > 15) b.error("scale-input-d must be in 0..15");
    b.in.imm = uint64_t(s);
    ++next;
  }
  expect(b, next == n, "too many operands");
  if (b.has(".ashift")) {  // ptxas 13.0's rules and words
    for (const char* q : {".collector::a::fill", ".collector::a::use"})
      if (b.has(q)) b.error(std::string("Modifier '") + q + "' cannot be combined with modifier '.ashift'");
    if (!a_tmem || t5::is_block_scaled(kind)) b.error("Illegal modifier '.ashift' for instruction 'tcgen05.mma'");
    flags |= kAShift;
  }
  b.in.a = uint8_t(kind);
  b.in.b = flags;
  b.in.d = uint8_t(g);
  b.in.imm |= collector << 8;
  b.in.fn = exec_mma;
}

void bind_tcgen05_cp(Binder& b) {
  const unsigned g = cta_group(b);
  // .dst_fmt.src_fmt: both or neither (ptxas's words).
  const bool b8 = b.has(".b8x16"), b6 = b.has(".b6x16_p32"), b4 = b.has(".b4x16_p64");
  if (int(b8) + int(b6) + int(b4) != 0 && (!b8 || int(b6) + int(b4) != 1))
    b.error("Unexpected number of 'format conversion' modifiers specified for instruction 'tcgen05.cp'");
  const bool w0213 = b.has(".warpx2::02_13"), w0123 = b.has(".warpx2::01_23"), w4 = b.has(".warpx4");
  const int nw = int(w0213) + int(w0123) + int(w4);
  if (nw > 1) b.error("Multiple .warptype modifiers specified for instruction 'tcgen05.cp'");
  t5::CpShape shape{};
  const char* sname = "";
  int ns = 0;
  for (const char* s : {".128x256b", ".4x256b", ".128x128b", ".64x128b", ".32x128b"})
    if (b.has(s)) {
      sname = s;
      ++ns;
    }
  if (ns != 1) b.error(std::string(ns ? "Multiple .shape modifiers" : ".shape modifier required") + " for instruction 'tcgen05.cp'");
  const std::string sh = sname;
  const bool needs_warp = sh == ".64x128b" || sh == ".32x128b";
  if (needs_warp && nw == 0)
    b.error("Modifier '.warptype' require for instruction tcgen05.cp with shape '" + sh + "'");
  if (!needs_warp && nw)
    b.error("Modifier .warptype not allowed for instruction tcgen05.cp with shape '" + sh + "'");
  if ((sh == ".64x128b" && w4) || (sh == ".32x128b" && !w4))
    b.error("Modifier .warptype not allowed for instruction tcgen05.cp with shape '" + sh + "'");
  shape = sh == ".4x256b"     ? t5::CpShape::k4x256b
          : sh == ".128x256b" ? t5::CpShape::k128x256b
          : sh == ".128x128b" ? t5::CpShape::k128x128b
          : sh == ".32x128b" ? t5::CpShape::k32x128b_warpx4
          : w0213 ? t5::CpShape::k64x128b_02_13
                  : t5::CpShape::k64x128b_01_23;
  expect(b, b.op_count() == 2 && b.op_kind(0) == Operand::Kind::Addr && b.in.op[0].aux == kNoSlot && is_reg_or_imm(b.in.op[1]),
         "expected [taddr], s-desc");
  b.in.a = uint8_t(shape);
  b.in.b = uint8_t(b6 ? t5::CpSrcFmt::kB6x16P32 : b4 ? t5::CpSrcFmt::kB4x16P64 : t5::CpSrcFmt::kNone);
  b.in.d = uint8_t(g);
  b.in.fn = exec_cp;
}

void bind_tcgen05_commit(Binder& b) {
  const unsigned g = cta_group(b);
  if (!b.has(".mbarrier::arrive::one"))
    b.error(".completion_mechanism modifier required for instruction 'tcgen05.commit'");
  if (!b.has(".b64")) b.error("Type .b64 required for instruction 'tcgen05.commit'");
  const bool mc = b.has(".multicast::cluster");
  expect(b, b.op_count() == (mc ? 2u : 1u) && b.op_kind(0) == Operand::Kind::Addr,
         mc ? "expected [mbar], ctaMask" : "expected [mbar]");
  if (mc) expect(b, is_reg_or_imm(b.in.op[1]), "ctaMask is a 16-bit register or immediate");
  b.in.space = b.has(".shared::cluster") ? Space::SharedCluster : Space::Generic;
  b.in.b = mc ? 1 : 0;
  b.in.d = uint8_t(g);
  b.in.fn = exec_commit;
}

// ---- shared with the other tcgen05 semantics files (tcgen05_internal.h) ------------------------------

namespace sem::tcgen05 {

Tcgen05Cta& state(ExecCtx& c) { return ::ptxsim::state(c); }
void use_cta_group(ExecCtx& c, const char* what, unsigned g) { ::ptxsim::use_cta_group(c, what, g); }
void enqueue(ExecCtx& c, const Instr& in, std::string what, std::function<void()> work) {
  ::ptxsim::enqueue(c, in, std::move(what), std::move(work));
}
void forget_settled(Tcgen05Cta& st) { ::ptxsim::forget_settled(st); }
std::optional<std::string> columns_in_use(const Tcgen05Cta& st, uint32_t column, uint32_t ncols) {
  const Tcgen05Cta::MmaRecord* m = ::ptxsim::unsettled_in(st, column, ncols);
  if (!m) return std::nullopt;
  return "columns [" + std::to_string(column) + ", " + std::to_string(column + ncols) + ") include " +
         ::ptxsim::describe_unsettled(*m) + " before freeing them";
}
uint32_t uniform_u32(ExecCtx& c, const Operand& o, uint32_t mask, const char* what) {
  return ::ptxsim::uniform_u32(c, o, mask, what);
}
unsigned cta_group(Binder& b) { return ::ptxsim::cta_group(b); }
void expect(Binder& b, bool ok, const std::string& what) { ::ptxsim::expect(b, ok, what); }

std::vector<Cta*> cta_group_ctas(ExecCtx& c, unsigned group, const std::string& what) {
  Cta& cta = *c.cta;
  if (group != 2) return {&cta};
  Cta* even = c.eng->cta_by_rank(cta.rank & ~1u);
  Cta* odd = c.eng->cta_by_rank(cta.rank | 1u);
  if (!even || !odd)
    c.fault("error", what + ": the peer CTA (rank " + std::to_string(cta.rank ^ 1u) +
                         ") of this CTA's pair is not in the cluster; .cta_group::2 needs a cluster of CTA pairs");
  return {even, odd};
}

std::vector<Cta*> cta_pair(ExecCtx& c, unsigned group, const std::string& what) {
  const std::vector<Cta*> pair = cta_group_ctas(c, group, what);
  for (Cta* p : pair)
    if (!p->tcgen05) c.fault("error", what + ": CTA rank " + std::to_string(p->rank) + " has allocated no Tensor Memory");
  return pair;
}

}  // namespace sem::tcgen05

}  // namespace ptxsim
