#include "sim/exec/engine.h"
#include "sim/exec/timeline.h"
#include "sim/exec/racecheck.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>

namespace ptxsim {

namespace {
// "KIND: MESSAGE" for a kernel fault; the generic kind "error" adds nothing to the diagnostic's
// own "error:" severity, so it is left out (no "error: error: ...").
std::string fault_message(const KernelFault& kf) {
  return kf.kind == "error" ? kf.message : kf.kind + ": " + kf.message;
}
}  // namespace

namespace {

constexpr uint64_t kQuantum = 256;          // warp-steps a warp runs before the next warp's turn
// Rotation in a diverged warp (Engine::pick): every kRotateEvery diverged steps the least recently
// run group gets a step in place of the lowest-pc one when that one looks like a spin (it keeps
// taking one backward branch, its iterations reading the same address last, with no memory write
// anywhere in between), and every kRotateAlways steps in any case, so a spin the test misses is
// still left in time. Rotating a warp that only computes lets lanes waiting at a join point (a
// loop's exit, the end of an if) run on ahead: the warp then stays split into groups at different
// iterations of one loop and runs each apart (CUTLASS's random fills took 1.5 times the
// warp-steps of the unrotated schedule when every warp rotated every 64 steps).
constexpr uint64_t kRotateEvery = 64;
constexpr uint64_t kRotateAlways = 4096;

// Timeline hooks (sim/exec/timeline.h): the CTA's linear index in the grid.
uint64_t cta_linear(const Cta& cta, const Dim3& grid) {
  return cta.id.x + uint64_t(grid.x) * (cta.id.y + uint64_t(grid.y) * cta.id.z);
}
constexpr uint32_t kMaxStackBytes = 1u << 20;  // per-lane local memory (call stack) limit

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

const char* space_name(Space s) {
  switch (s) {
    case Space::Generic: return "generic";
    case Space::Global: return "global";
    case Space::Shared: return "shared::cta";
    case Space::SharedCluster: return "shared::cluster";
    case Space::Local: return "local";
    case Space::Param: return "param";
    case Space::Const: return "const";
    case Space::Reg: return "reg";
  }
  return "?";
}

}  // namespace

// ---- memory access --------------------------------------------------------------------------

uint8_t* ExecCtx::mem_checked(Space space, uint64_t addr, uint32_t size, uint32_t align, int lane, Access acc) {
  // Fast path: an aligned access inside the executing CTA's own shared memory that touches no live
  // mbarrier and nothing in flight (the common case of a shared-memory loop). Anything else takes
  // the full path below, which reports what is wrong.
  if (space == Space::Shared || space == Space::SharedCluster || (space == Space::Generic && in_window(addr, kSharedWindow))) {
    const uint64_t s = in_window(addr, kSharedWindow) ? addr - kSharedWindow : addr;
    const uint32_t off = uint32_t(s) & kSharedOffsetMask;
    Cta& own = *cta;
    if ((s >> kSharedRankShift) == own.rank && (align <= 1 || !(addr & (align - 1))) && off >= kSharedReserved &&
        uint64_t(off) + size <= own.smem.size() && size) {
      bool clean = true;
      if (own.live_mbars)
        for (uint32_t w = off / 8; w <= (off + size - 1) / 8; ++w) clean &= !own.mbar_word[w];
      if (own.async_dst) clean &= !own.async_overlaps(off, size, acc != Access::Read);
      if (clean) {
        if (acc != Access::Read) own.generic_writes.mark(off, size);
        return own.smem.data() + off;
      }
    }
  }
  const uint64_t orig = addr;
  const Space orig_space = space;
  if (align > 1 && (addr & (align - 1)))
    fault("misaligned address", std::string(space_name(space)) + " access of " + std::to_string(size) +
                                    " bytes at " + hex(addr) + " is not " + std::to_string(align) + "-byte aligned");
  if (space == Space::Generic) {
    if (in_window(addr, kSharedWindow)) {
      space = Space::SharedCluster;
      addr -= kSharedWindow;
    } else if (in_window(addr, kLocalWindow)) {
      space = Space::Local;
      addr -= kLocalWindow;
    } else if (in_window(addr, kParamWindow)) {
      space = Space::Param;
      addr -= kParamWindow;
    } else {
      space = Space::Global;
    }
  }
  auto illegal = [&](const std::string& why) {
    std::string m = std::string(space_name(orig_space)) + " " + (acc == Access::Read ? "read" : "write") + " of " +
                    std::to_string(size) + " bytes at " + hex(orig) + " (lane " + std::to_string(lane) + "): " + why;
    return KernelFault{m, "illegal address"};
  };
  switch (space) {
    case Space::Global:
    case Space::Const: {
      if (uint8_t* p = eng->global.translate(addr, size)) return p;
      const auto* a = eng->global.nearest_below(addr);
      if (a && addr >= a->base && addr - a->base < a->bytes.size() + 4096)
        throw illegal(std::to_string(addr + size - (a->base + a->bytes.size())) + " bytes past the end of allocation '" +
                a->name + "' (" + std::to_string(a->bytes.size()) + " bytes at " + hex(a->base) + ")");
      throw illegal("not inside any allocation");
    }
    case Space::Shared:
    case Space::SharedCluster: {
      auto [target, off] = eng->resolve_shared(*this, space, addr, size, lane);
      if (target->live_mbars) {
        // A plain access that overlaps a live mbarrier is undefined behaviour on hardware.
        for (uint32_t w = off / 8; w <= (off + size - 1) / 8; ++w)
          if (w < target->mbar_word.size() && target->mbar_word[w])
            fault("error", std::string(acc == Access::Read ? "read" : "write") + " of " + std::to_string(size) +
                               " bytes at shared address " + hex(off) + " touches the live mbarrier at " +
                               hex(uint64_t(w) * 8) + " (only mbarrier instructions may access it)");
      }
      if (target->async_dst) eng->check_async_race(*this, *target, off, size, acc != Access::Read);
      if (acc != Access::Read)  // generic-proxy write: a later bulk copy reading it needs fence.proxy.async
        target->generic_writes.mark(off, size);
      return target->smem.data() + off;
    }
    case Space::Local: {
      auto& st = warp->stack[size_t(lane)];
      if (addr > st.size() || size > st.size() - addr) throw illegal("beyond the thread's local memory");
      return st.data() + addr;
    }
    case Space::Param: {
      if (acc != Access::Read) throw illegal("kernel parameters are read-only");
      if (addr > eng->params.size() || size > eng->params.size() - addr) throw illegal("beyond the kernel's parameter buffer");
      return const_cast<uint8_t*>(eng->params.data()) + addr;
    }
    default:
      throw illegal("unsupported state space");
  }
}

std::pair<Cta*, uint32_t> Engine::resolve_shared(ExecCtx& c, Space space, uint64_t addr, uint32_t size, int lane) {
  const uint64_t orig = addr;
  if (space == Space::Generic) {
    if (!in_window(addr, kSharedWindow))
      c.fault("illegal address", "generic address " + hex(orig) + " (lane " + std::to_string(lane) +
                                     ") is not in the shared-memory window");
    addr -= kSharedWindow;
    space = Space::SharedCluster;
  } else if (in_window(addr, kSharedWindow)) {
    // A generic shared-window address in an operand that names .shared::cta / .shared::cluster
    // (a 64-bit register holding cvta.shared's result): shared addresses are 32 bits wide, so the
    // hardware uses the register's low 32 bits, which is the shared address (the window is 4 GiB
    // aligned). docs/design.md "Shared memory addresses".
    addr -= kSharedWindow;
  }
  auto bad = [&](const std::string& why) {
    c.fault("illegal address", std::string(space_name(space)) + " access of " + std::to_string(size) + " bytes at " +
                                   hex(orig) + " (lane " + std::to_string(lane) + "): " + why);
  };
  if (addr >> 32) bad("not a shared-memory address");
  const uint32_t rank = uint32_t(addr) >> kSharedRankShift;
  const uint32_t off = uint32_t(addr) & kSharedOffsetMask;
  Cta* target = rank == c.cta->rank ? c.cta : cta_by_rank(rank);
  if (!target) bad("names CTA rank " + std::to_string(rank) + " outside the cluster of " + std::to_string(ctas.size()));
  if (space == Space::Shared && target != c.cta)
    bad("a shared::cta address of CTA rank " + std::to_string(rank) + ", not of the executing CTA (rank " +
        std::to_string(c.cta->rank) + "); use .shared::cluster to reach another CTA's shared memory");
  if (off < kSharedReserved) bad("inside the reserved first " + std::to_string(kSharedReserved) + " bytes of shared memory");
  if (uint64_t(off) + size > target->smem.size())
    bad("beyond the CTA's " + std::to_string(target->smem.size() - kSharedReserved) + " bytes of shared memory");
  return {target, off};
}

void Engine::mbarrier_changed(MbarrierSlot& m) {
  ++mem_events.writes;
  if (race_) [[unlikely]] race_->mbar_release(m, cur_warp_);
  if (TimelineSink* tl = current_timeline(); tl && cur_warp_)
    tl->mbarrier_event(cta_linear(*cur_warp_->cta, cfg.grid), m.offset, false, timeline_time());
  // A waiter re-executes only when its wait may now succeed (or the barrier is gone): waking it on
  // every arrival and transaction count re-ran each try_wait three times per phase of a TMA
  // pipeline (one expect_tx and two loads).
  const uint64_t state = uint64_t(m.bar.phase()) * 2 + (m.bar.live() ? 1 : 0);
  if (state == m.wait_state) return;
  m.wait_state = state;
  ++m.wait_version;
  wake(WaitKind::Mbarrier, uint64_t(reinterpret_cast<uintptr_t>(&m)), m.wait_version);
}

void Engine::mbarrier_phase_completed(Cta& cta, MbarrierSlot& m) {
  if (race_) [[unlikely]] race_->mbar_phase(m, cur_warp_);
  for (size_t t = 0; t < m.arrived_now.size(); ++t)
    if (m.arrived_now[t]) m.arrived_ever[t] = 1;
  std::fill(m.arrived_now.begin(), m.arrived_now.end(), 0);
  m.tx_expected_total = m.tx_completed_total = 0;
  m.remote_arrivals = 0;
  if (TimelineSink* tl = current_timeline()) tl->mbarrier_event(cta_linear(cta, cfg.grid), m.offset, true, timeline_time());
}

void Engine::count_async_range(Cta& cta, uint32_t off, uint32_t bytes, bool src_only, int delta) {
  cta.async_dst += uint32_t(delta);
  cta.async_ranges.add(off, bytes, src_only, delta);
}

void Engine::count_async_range(const AsyncOp& op, int delta) {
  if (op.dst_cta) count_async_range(*op.dst_cta, op.dst_off, op.dst_bytes, op.src_only, delta);
}

std::pair<uint64_t, uint64_t> Engine::draw_due(uint64_t min_due) {
  // splitmix64 of the seed and sequence: deterministic, adjustable with --seed.
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return {std::max(steps + 64 + z % 512, min_due), async_seq_++};
}

void Engine::schedule_slot(uint32_t slot, uint64_t due) {
  // With nothing in flight the wheel may start anywhere; due >= steps + 64 >= wheel_base_ otherwise.
  if (in_flight_ == 0) wheel_base_ = steps;
  if (due - wheel_base_ >= wheel_.size()) grow_wheel(due);
  wheel_[due & (wheel_.size() - 1)].push_back(slot);  // after the same due's earlier issues
  ++in_flight_;
}

uint64_t Engine::issue_async(AsyncOp&& op) {
  std::tie(op.due, op.seq) = draw_due(op.min_due);
  count_async_range(op, +1);
  if (race_) [[unlikely]] race_->async_issue(op, cur_warp_, cur_fn_ && cur_pc_ < cur_fn_->code.size() ? &cur_fn_->code[cur_pc_] : nullptr);
  if (TimelineSink* tl = current_timeline()) tl->async_issued(op.seq, op.description(), op.bytes, timeline_time());
  const uint64_t due = op.due;
  uint32_t slot;
  if (async_free_.empty()) {
    slot = uint32_t(async_ops_.size());
    async_ops_.push_back(std::move(op));
  } else {
    slot = async_free_.back();
    async_ops_[slot] = std::move(op);
    async_free_.pop_back();
  }
  schedule_slot(slot, due);
  return due;
}

AsyncOp Engine::as_async_op(const WarpCopy& wc, int lane) {
  AsyncOp op;
  op.due = wc.due;
  op.seq = wc.seq;
  op.what = describe(wc, lane);
  op.bytes = op.dst_bytes = wc.bytes;
  op.dst_cta = wc.dst_cta;
  op.dst_off = wc.dst_off[size_t(lane)];
  op.line = wc.line;
  return op;
}

void Engine::count_warp_copy(const WarpCopy& wc, int delta) {
  // count_async_range per lane, where each lane's copy (4, 8 or 16 bytes, aligned to its size) lies
  // in one 16-byte chunk.
  Cta& cta = *wc.dst_cta;
  cta.async_dst += uint32_t(delta * std::popcount(wc.mask));
  cta.async_ranges.add_chunk_writes(wc.dst_off.data(), wc.mask, delta);
}

WarpCopy& Engine::new_warp_copy() {
  // The record is the next free slot's; it is taken only when issued (a fault while filling it
  // leaves it free).
  if (copy_free_.empty()) {
    copy_free_.push_back(uint32_t(warp_copies_.size()));
    warp_copies_.emplace_back();
  }
  WarpCopy& wc = warp_copies_[copy_free_.back()];
  wc.mask = 0;
  return wc;
}

uint64_t Engine::issue_warp_copy(WarpCopy& wc) {
  if (race_) [[unlikely]] {
    // The race detector keeps clocks per AsyncOp: each lane's copy goes as one (with its own
    // completion time), completing the same way. Returns the latest.
    uint64_t last = 0;
    for (int l = 0; l < 32; ++l) {
      if (!(wc.mask >> l & 1)) continue;
      AsyncOp op = as_async_op(wc, l);
      WarpCopy one = wc;
      one.mask = 1u << l;
      op.complete = [this, one] { one.complete(*this, one); };
      last = std::max(last, issue_async(std::move(op)));
    }
    return last;
  }
  const uint32_t slot = copy_free_.back();
  copy_free_.pop_back();
  std::tie(wc.due, wc.seq) = draw_due(0);
  count_warp_copy(wc, +1);
  if (TimelineSink* tl = current_timeline())
    tl->async_issued(wc.seq, std::string(wc.label) + " of " + std::to_string(wc.bytes) + " bytes by each of " +
                                 std::to_string(std::popcount(wc.mask)) + " threads",
                     wc.bytes * uint32_t(std::popcount(wc.mask)), timeline_time());
  schedule_slot(slot | kCopySlot, wc.due);
  return wc.due;
}

void Engine::grow_wheel(uint64_t due) {
  size_t size = wheel_.size();
  while (due - wheel_base_ >= size) size *= 2;
  // Each old bucket holds one due and becomes that due's new bucket whole, in its issue order.
  std::vector<std::vector<uint32_t>> grown(size);
  for (auto& b : wheel_)
    if (!b.empty()) grown[due_of(b.front()) & (size - 1)] = std::move(b);
  wheel_ = std::move(grown);
}

uint64_t Engine::next_due() const {
  for (uint64_t t = wheel_base_;; ++t)
    if (!wheel_[t & (wheel_.size() - 1)].empty()) return t;  // in_flight_ > 0: within one turn
}

void Engine::clear_async() {
  for (auto& b : wheel_) b.clear();
  due_now_.clear();
  wheel_base_ = 0;
  in_flight_ = 0;
  async_ops_.clear();
  async_free_.clear();
  warp_copies_.clear();
  copy_free_.clear();
}

bool Engine::complete_due_async(bool force_one) {
  bool any = false;
  while (in_flight_) {
    if (wheel_base_ > steps) {
      if (!force_one || any) return any;
      steps = next_due();  // nothing else can run: let time pass to the next completion
      wheel_base_ = steps;
    }
    const uint64_t now = wheel_base_;
    std::vector<uint32_t>& bucket = wheel_[now & (wheel_.size() - 1)];
    if (bucket.empty()) {
      ++wheel_base_;
      continue;
    }
    // Completions issue only later dues (>= steps + 64), never into this bucket; it is moved out
    // all the same, as issuing may grow the wheel (or, once nothing else is in flight, move
    // wheel_base_ on to steps).
    due_now_.swap(bucket);
    for (size_t i = 0; i < due_now_.size(); ++i) {
      const uint32_t slot = due_now_[i];
      --in_flight_;
      ++mem_events.writes;
      if (slot & kCopySlot) {
        const WarpCopy& wc = warp_copies_[slot - kCopySlot];  // (stays in place: a deque)
        count_warp_copy(wc, -1);
        wc.complete(*this, wc);  // (plain copies: they cannot fail)
        if (TimelineSink* tl = current_timeline()) tl->async_completed(wc.seq, timeline_time());
        copy_free_.push_back(slot - kCopySlot);
        any = true;
        continue;
      }
      AsyncOp& op = async_ops_[slot];  // stays in place: a deque keeps it there while more are issued
      count_async_range(op, -1);
      if (race_) [[unlikely]] race_->async_begin(op);
      try {
        op.complete();
      } catch (...) {
        // The rest of this due stays in flight (reports list what is).
        std::vector<uint32_t>& back = wheel_[now & (wheel_.size() - 1)];
        back.insert(back.begin(), due_now_.begin() + long(i) + 1, due_now_.end());
        due_now_.clear();
        throw;
      }
      if (race_) [[unlikely]] race_->async_end(op);
      if (TimelineSink* tl = current_timeline()) tl->async_completed(op.seq, timeline_time());
      // What the operation holds goes now, as when it was destroyed here (the slot waits for reuse).
      op.complete = nullptr;
      op.race.reset();
      async_free_.push_back(slot);
      any = true;
    }
    due_now_.clear();
    due_now_.swap(wheel_[now & (wheel_.size() - 1)]);  // keeps both buffers' capacity
    wheel_base_ = std::max(wheel_base_, now + 1);
  }
  return any;
}

std::string Engine::describe(const WarpCopy& wc, int lane) {
  return std::string(wc.label) + " of " + std::to_string(wc.bytes) + " bytes to shared address " +
         hex(wc.dst_off[size_t(lane)]);
}

void Engine::check_async_race(ExecCtx& c, Cta& cta, uint32_t off, uint32_t size, bool write) {
  // The per-chunk counts say whether anything in flight overlaps; only then look for which.
  if (!cta.async_overlaps(off, size, write)) return;
  std::optional<AsyncOp> first;  // the earliest issued of the overlapping operations
  each_in_flight([&](const AsyncOp& op) {
    if (op.dst_cta != &cta || off + size <= op.dst_off || off >= op.dst_off + op.dst_bytes) return;
    if (op.src_only && !write) return;
    if (!first || op.seq < first->seq) first = op;
  });
  if (!first) return;
  const AsyncOp& op = *first;
  if (op.src_only) {
    warn(c, "race on an asynchronous copy's source: plain write of " + std::to_string(size) +
                " bytes at shared address " + hex(off) + " while " + op.description() + " (issued at line " +
                std::to_string(op.line) + ") may still be reading it (wait with cp.async.bulk.wait_group.read first)");
    return;
  }
  warn(c, std::string("race on an asynchronous copy's destination: plain ") + (write ? "write" : "read") + " of " +
              std::to_string(size) + " bytes at shared address " + hex(off) + " while " + op.description() +
              " (issued at line " + std::to_string(op.line) + ") is still in flight" +
              (write ? "" : "; the data read is stale"));
}

bool repeats_warning(const std::vector<Diagnostic>& diags, const Diagnostic& w) {
  // One warning per instruction and message is enough.
  if (w.severity != Diagnostic::Severity::Warning) return false;
  for (const auto& d : diags)
    if (d.severity == Diagnostic::Severity::Warning && d.loc.line == w.loc.line &&
        d.message.rfind(w.message.substr(0, 40), 0) == 0)
      return true;
  return false;
}

void Engine::warn(ExecCtx& c, const std::string& msg) { warn_at(*c.fn, c.pc, msg); }

void Engine::warn_at(const Function& fn, uint32_t pc, const std::string& msg) {
  Diagnostic d = located(fn, pc, msg);
  d.severity = Diagnostic::Severity::Warning;
  if (!repeats_warning(diags_, d)) diags_.push_back(std::move(d));
}

// ---- setup ----------------------------------------------------------------------------------

Engine::Engine(const Program& p, const Function& k, const LaunchConfig& c, const std::vector<uint8_t>& pa,
               model::GlobalMemory& m, std::ostream& o, LaunchShared& sh, bool buffer_printf)
    : prog(p), kernel(k), cfg(c), params(pa), global(m), out(buffer_printf ? printed : o), shared_(sh),
      rng_(c.schedule_seed * 0x2545f4914f6cdd1dull + 1), dynamic_shared_base_(p.dynamic_shared_base(k)) {
  if (c.racecheck) race_ = std::make_shared<RaceCheck>(*this);
}

static uint64_t sreg_value(Sreg r, const Engine& e, const Cta& cta, const Warp& w, uint32_t lane) {
  const Dim3& b = e.cfg.block;
  uint32_t t = w.index * 32 + lane;
  switch (r) {
    case Sreg::TidX: return t % b.x;
    case Sreg::TidY: return (t / b.x) % b.y;
    case Sreg::TidZ: return t / (b.x * b.y);
    case Sreg::NtidX: return b.x;
    case Sreg::NtidY: return b.y;
    case Sreg::NtidZ: return b.z;
    case Sreg::CtaidX: return cta.id.x;
    case Sreg::CtaidY: return cta.id.y;
    case Sreg::CtaidZ: return cta.id.z;
    case Sreg::NctaidX: return e.cfg.grid.x;
    case Sreg::NctaidY: return e.cfg.grid.y;
    case Sreg::NctaidZ: return e.cfg.grid.z;
    case Sreg::LaneId: return lane;
    case Sreg::WarpId: return w.index;
    case Sreg::NWarpId: return 64;
    case Sreg::SmId: return 0;
    case Sreg::NSmId: case Sreg::NsmId: return 132;
    case Sreg::GridId: return 1;
    case Sreg::LanemaskEq: return 1u << lane;
    case Sreg::LanemaskLe: return lane == 31 ? 0xffffffffu : (2u << lane) - 1;
    case Sreg::LanemaskLt: return (1u << lane) - 1;
    case Sreg::LanemaskGe: return ~((1u << lane) - 1) & 0xffffffffu;
    case Sreg::LanemaskGt: return lane == 31 ? 0 : ~((2u << lane) - 1) & 0xffffffffu;
    case Sreg::ClusterIdX: return cta.id.x / e.cluster_dim.x;
    case Sreg::ClusterIdY: return cta.id.y / e.cluster_dim.y;
    case Sreg::ClusterIdZ: return cta.id.z / e.cluster_dim.z;
    case Sreg::NClusterIdX: return e.cfg.grid.x / e.cluster_dim.x;
    case Sreg::NClusterIdY: return e.cfg.grid.y / e.cluster_dim.y;
    case Sreg::NClusterIdZ: return e.cfg.grid.z / e.cluster_dim.z;
    case Sreg::ClusterCtaidX: return cta.cluster_ctaid.x;
    case Sreg::ClusterCtaidY: return cta.cluster_ctaid.y;
    case Sreg::ClusterCtaidZ: return cta.cluster_ctaid.z;
    case Sreg::ClusterNctaidX: return e.cluster_dim.x;
    case Sreg::ClusterNctaidY: return e.cluster_dim.y;
    case Sreg::ClusterNctaidZ: return e.cluster_dim.z;
    case Sreg::ClusterCtarank: return cta.rank;
    case Sreg::ClusterNctarank: return e.cluster_dim.count();
    case Sreg::IsExplicitCluster: return e.cfg.cluster_given ? 1 : 0;
    case Sreg::DynamicSmemSize: return e.cfg.dynamic_shared_bytes;
    case Sreg::TotalSmemSize: return cta.smem.size();
    case Sreg::AggrSmemSize: return cta.smem.size();
    case Sreg::ReservedSmemOffsetBegin: return 0;
    case Sreg::ReservedSmemOffsetEnd: return kSharedReserved;
    case Sreg::ReservedSmemOffsetCap: return kSharedReserved;
    case Sreg::ReservedSmemOffset0: return 0;
    case Sreg::ReservedSmemOffset1: return 0;
    default:
      // cooperative_groups reads the grid workspace as load_env_reg64<1, 2>: %envreg1 is the high
      // half. Every other %envregN reads 0.
      if (int(r) == int(Sreg::EnvReg0) + 1) return uint32_t(e.cfg.grid_workspace >> 32);
      if (int(r) == int(Sreg::EnvReg0) + 2) return uint32_t(e.cfg.grid_workspace);
      return 0;
  }
}

// Whether special register r reads the same in every lane of a warp (new_frame then works it out
// once per warp instead of once per lane).
static bool same_in_every_lane(Sreg r) {
  switch (r) {
    case Sreg::TidX: case Sreg::TidY: case Sreg::TidZ: case Sreg::LaneId:
    case Sreg::LanemaskEq: case Sreg::LanemaskLe: case Sreg::LanemaskLt: case Sreg::LanemaskGe: case Sreg::LanemaskGt:
      return false;
    default: return true;
  }
}

// PTXSIM_POISON_REGISTERS: fill the registers new_frame does not zero with a pattern, so that a
// register the analysis wrongly left out shows (tests run with it set).
static bool poison_registers() {
  static const bool on = [] {
    const char* v = std::getenv("PTXSIM_POISON_REGISTERS");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

std::shared_ptr<Frame> Engine::new_frame(const Function& fn, Warp& w, Cta& cta, uint32_t local_base) {
  auto f = std::make_shared<Frame>();
  f->fn = &fn;
  // Only the registers some path may read before writing are zeroed (sim/exec/reg_init.h); with
  // PTXSIM_POISON_REGISTERS set (a check of that analysis) the others get a pattern instead.
  f->regs.resize(size_t(fn.num_slots) * 32);
  if (poison_registers()) [[unlikely]]
    std::fill(f->regs.begin(), f->regs.end(), 0xB0BAFE77DEADBEEFull);
  for (const uint32_t slot : fn.zero_slots) std::fill_n(f->regs.begin() + size_t(slot) * 32, 32, 0);
  for (auto& [slot, v] : fn.consts) std::fill_n(f->regs.begin() + size_t(slot) * 32, 32, v);
  for (auto& [slot, r] : fn.sregs) {
    uint64_t* lanes = f->regs.data() + size_t(slot) * 32;
    if (same_in_every_lane(r)) std::fill_n(lanes, 32, sreg_value(r, *this, cta, w, 0));
    else
      for (uint32_t l = 0; l < 32; ++l) lanes[l] = sreg_value(r, *this, cta, w, l);
  }
  const uint64_t window = uint64_t(cta.rank) << kSharedRankShift;
  for (const SharedSymbolSlot& s : fn.shared_slots)
    std::fill_n(f->regs.begin() + size_t(s.slot) * 32, 32, s.value + window + (s.dynamic ? dynamic_shared_base_ : 0));
  f->local_base = local_base;
  return f;
}

Dim3 Engine::first_ctaid(uint64_t cl) const {
  Dim3 ncl{cfg.grid.x / cluster_dim.x, cfg.grid.y / cluster_dim.y, cfg.grid.z / cluster_dim.z};
  Dim3 cid{uint32_t(cl % ncl.x), uint32_t(cl / ncl.x % ncl.y), uint32_t(cl / (uint64_t(ncl.x) * ncl.y))};
  return {cid.x * cluster_dim.x, cid.y * cluster_dim.y, cid.z * cluster_dim.z};
}

std::optional<Dim3> Engine::cancel_next_cluster() {
  if (cfg.co_resident) return std::nullopt;
  const uint64_t k = shared_.take();
  if (k >= shared_.nclusters) return std::nullopt;
  return first_ctaid(k);
}

void Engine::setup_cluster(uint64_t cl) {
  const Dim3 first = first_ctaid(cl);
  ctas.clear();
  uint32_t threads = uint32_t(cfg.block.count());
  uint32_t nwarps = (threads + 31) / 32;
  size_t smem_bytes = cfg.dynamic_shared_bytes ? dynamic_shared_base_ + cfg.dynamic_shared_bytes : kernel.static_shared_end;
  for (uint32_t r = 0; r < cluster_dim.count(); ++r) {
    auto cta = std::make_unique<Cta>();
    cta->rank = r;
    cta->cluster_ctaid = {r % cluster_dim.x, r / cluster_dim.x % cluster_dim.y, r / (cluster_dim.x * cluster_dim.y)};
    cta->id = {first.x + cta->cluster_ctaid.x, first.y + cta->cluster_ctaid.y, first.z + cta->cluster_ctaid.z};
    cta->smem.assign(smem_bytes, 0);
    cta->mbar_word.assign((smem_bytes + 7) / 8, 0);
    cta->generic_writes.reset(smem_bytes);
    cta->async_ranges.reset(uint32_t(smem_bytes));
    cta->threads = threads;
    cta->warps.resize(nwarps);
    cta->live_warps = nwarps;
    ctas.push_back(std::move(cta));
  }
  cluster_barrier = ClusterBarrier{};
  cluster_barrier.pending = threads * uint32_t(ctas.size());
  cluster_barrier.arrived.assign(cluster_barrier.pending, 0);
  cluster_barrier.arrive_phase.assign(cluster_barrier.pending, 0);
  if (race_) race_->setup_cluster(ctas, !cfg.co_resident);
  for (auto& cta : ctas) {
    for (uint32_t wi = 0; wi < nwarps; ++wi) {
      Warp& w = cta->warps[wi];
      w.index = wi;
      w.cta = cta.get();
      uint32_t lanes = std::min<uint32_t>(32, threads - wi * 32);
      w.valid = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
      w.groups.reserve(32);
      Group g;
      g.mask = w.valid;
      g.frame = new_frame(kernel, w, *cta, 0);
      w.groups.push_back(std::move(g));
      for (uint32_t l = 0; l < 32; ++l) w.stack[l].assign(kernel.frame_bytes, 0);
    }
  }
}

Diagnostic Engine::located(const Function& fn, uint32_t pc, std::string msg) const {
  Diagnostic d;
  d.file = prog.file_name;
  if (pc < fn.code.size()) {
    d.loc = {fn.code[pc].line, fn.code[pc].col};
    d.source_line = source_line_of(prog.source, d.loc.line);
  }
  d.message = std::move(msg);
  return d;
}

// ---- control flow services ------------------------------------------------------------------

void Engine::branch(ExecCtx& c, uint32_t taken, uint32_t target) {
  Group& g = *c.group;
  uint32_t rest = g.mask & ~taken;
  if (taken == 0) {
    g.pc = c.pc + 1;
  } else if (rest == 0) {
    g.pc = target;
    if (target <= c.pc) back_edge(c);
  } else {
    split_branch(c, taken, target);
  }
}

// Kept out of branch(): building a Group is the rare case, and inlined it would make every uniform
// branch pay for saving the registers it needs.
void Engine::split_branch(ExecCtx& c, uint32_t taken, uint32_t target) {
  Group& g = *c.group;
  Group ng;
  ng.mask = g.mask & ~taken;
  ng.pc = c.pc + 1;
  ng.frame = g.frame;
  ng.last_run = g.last_run;
  g.mask = taken;
  g.pc = target;
  c.warp->groups.push_back(std::move(ng));
  c.group = &c.warp->groups[size_t(&g - c.warp->groups.data())];
}

void Engine::split_off_inactive(ExecCtx& c, uint32_t mask) {
  Group& g = *c.group;
  uint32_t rest = g.mask & ~mask;
  if (!rest) return;
  Group ng;
  ng.mask = rest;
  ng.pc = c.pc + 1;
  ng.frame = g.frame;
  ng.last_run = g.last_run;
  g.mask = mask;
  c.warp->groups.push_back(std::move(ng));
}

void Engine::exit_lanes(ExecCtx& c, uint32_t mask) {
  Group& g = *c.group;
  mask &= g.mask;
  g.mask &= ~mask;
  g.pc = c.pc + 1;
  Warp& w = *c.warp;
  w.exited |= mask;
  ++mem_events.writes;
  c.cta->exited_threads += uint32_t(std::popcount(mask));
  if ((w.exited & w.valid) == w.valid && --c.cta->live_warps == 0 && c.cta->on_exit) c.cta->on_exit(*this, *c.cta);
  // Groups waiting to converge may have waited for these lanes: let them re-evaluate (they run
  // now, or fault because their membermask names exited lanes).
  for (auto& o : w.groups)
    if (o.state == GroupState::Converge) {
      o.state = GroupState::Ready;
      o.wait = WaitKind::None;
    }
  on_threads_exit(*c.cta, w, mask);
}

void Engine::on_threads_exit(Cta& cta, Warp& w, uint32_t lanes) {
  // The cluster barrier waits for the non-exited threads: exiting ones that had not arrived are no
  // longer expected.
  ClusterBarrier& cb = cluster_barrier;
  const uint32_t t0 = cta.rank * cta.threads + w.index * 32;
  for_lanes(lanes, [&](int l) {
    if (!cb.arrived[t0 + uint32_t(l)]) --cb.pending;
  });
  if (cb.pending == 0 && std::find(cb.arrived.begin(), cb.arrived.end(), 1) != cb.arrived.end())
    complete_cluster_barrier();
  // A CTA-wide barrier waits for the non-exited threads; an exit can be the arrival it waited for.
  for (uint32_t id = 0; id < cta.bars.size(); ++id) {
    CtaBarrier& b = cta.bars[id];
    if (b.arrived == 0 || b.expected != 0) continue;
    if (b.arrived >= cta.threads - cta.exited_threads) complete_barrier(b);
  }
}

void Engine::complete_cluster_barrier() {
  ClusterBarrier& b = cluster_barrier;
  b.generation++;
  std::fill(b.arrived.begin(), b.arrived.end(), 0);
  b.pending = 0;
  for (auto& cta : ctas) b.pending += cta->threads - cta->exited_threads;
  if (race_) [[unlikely]] race_->cluster_complete(*ctas[0]);
  wake(WaitKind::ClusterBarrier, uint64_t(reinterpret_cast<uintptr_t>(&b)), b.generation);
}

void Engine::complete_barrier(CtaBarrier& b) {
  ++mem_events.writes;
  if (race_) [[unlikely]] race_->bar_complete(b);
  b.generation++;
  b.arrived = 0;
  b.arrived_warps.clear();
  b.last_popc = b.red_popc;
  b.last_and = b.red_and;
  b.last_or = b.red_or;
  b.red_popc = 0;  // the next generation's reduction starts afresh
  b.red_and = true;
  b.red_or = false;
  wake(WaitKind::CtaBarrier, uint64_t(reinterpret_cast<uintptr_t>(&b)), b.generation);
}

void Engine::call(ExecCtx& c, const Function& callee, const Operand* rets, uint32_t nrets, const Operand* args,
                  uint32_t nargs) {
  Group& g = *c.group;
  Frame& cur = *g.frame;
  uint32_t base = cur.local_base + cur.fn->frame_bytes;
  uint32_t end = base + callee.frame_bytes;
  if (end > kMaxStackBytes) c.fault("stack overflow", "call to '" + callee.name + "' exceeds the " +
                                                          std::to_string(kMaxStackBytes) + "-byte per-thread stack");
  Warp& w = *c.warp;
  auto nf = new_frame(callee, w, *c.cta, base);
  nf->parent = g.frame;
  nf->ret_pc = c.pc + 1;
  nf->call_pc = c.pc;
  nf->depth = cur.depth + 1;
  for_lanes(g.mask, [&](int l) {
    auto& st = w.stack[size_t(l)];
    if (st.size() < end) st.resize(end, 0);
    for (uint32_t i = 0; i < nargs && i < callee.param_offsets.size(); ++i) {
      const Operand& a = args[i];
      uint8_t* dst = st.data() + base + callee.param_offsets[i];
      uint32_t n = callee.param_sizes[i];
      if (a.frame_rel) {
        std::memmove(dst, st.data() + cur.local_base + a.imm, std::min(n, a.width ? a.width : n));
      } else {
        uint64_t v = cur.regs[size_t(a.slot) * 32 + size_t(l)];
        std::memcpy(dst, &v, std::min<uint32_t>(n, 8));
      }
    }
  });
  (void)rets;
  (void)nrets;
  g.frame = std::move(nf);
  g.pc = 0;
}

void Engine::ret(ExecCtx& c) {
  Group& g = *c.group;
  Frame& cur = *g.frame;
  if (!cur.parent) {
    exit_lanes(c, g.mask);
    return;
  }
  Frame& parent = *cur.parent;
  const Instr& call = parent.fn->code[cur.call_pc];
  // The call's first operand, when a list, names the caller's return variables.
  if (call.nops > 0 && call.op[0].kind == Operand::Kind::Vec && call.a == 1) {
    const Operand* rets = &parent.fn->vec_pool[call.op[0].slot];
    Warp& w = *c.warp;
    for_lanes(g.mask, [&](int l) {
      auto& st = w.stack[size_t(l)];
      for (uint32_t i = 0; i < call.op[0].count && i < cur.fn->ret_offsets.size(); ++i) {
        const Operand& r = rets[i];
        uint32_t n = cur.fn->ret_sizes[i];
        const uint8_t* src = st.data() + cur.local_base + cur.fn->ret_offsets[i];
        if (r.frame_rel) std::memmove(st.data() + parent.local_base + r.imm, src, std::min(n, r.width ? r.width : n));
        else {
          uint64_t v = 0;
          std::memcpy(&v, src, std::min<uint32_t>(n, 8));
          parent.regs[size_t(r.slot) * 32 + size_t(l)] = v;
        }
      }
    });
  }
  g.pc = cur.ret_pc;
  g.frame = cur.parent;
}

void Engine::block(ExecCtx& c, WaitKind kind, uint64_t obj, uint64_t gen) {
  Group& g = *c.group;
  g.state = GroupState::Blocked;
  g.wait = kind;
  g.wait_obj = obj;
  g.wait_gen = gen;
  g.may_time_out = false;  // only a try_wait sets it, after blocking
}

namespace {
void wake_group(Group& g, WaitKind kind, uint64_t obj, uint64_t gen) {
  if (g.state == GroupState::Blocked && g.wait == kind && g.wait_obj == obj && g.wait_gen <= gen) {
    g.state = GroupState::Ready;
    g.wait = WaitKind::None;
    g.resumed = true;
  }
}
}  // namespace

void Engine::wake(WaitKind kind, uint64_t obj, uint64_t gen) {
  // Async completions run while no cluster is swapped in. Every cluster's barrier.cluster lives at
  // &cluster_barrier, so that object is not unique to a parked cluster (and only its own threads,
  // swapped in, complete it).
  each_group(kind != WaitKind::ClusterBarrier, [&](Group& g) { wake_group(g, kind, obj, gen); });
}

void Engine::wake_in(Warp& w, WaitKind kind, uint64_t obj, uint64_t gen) {
  for (Group& g : w.groups) wake_group(g, kind, obj, gen);
}

bool Engine::barrier_arrive(ExecCtx& c, uint32_t id, uint32_t count, uint32_t mask, bool aligned) {
  Cta& cta = *c.cta;
  if (id >= cta.bars.size()) c.fault("error", "barrier id " + std::to_string(id) + " is out of range 0..15");
  CtaBarrier& b = cta.bars[id];
  if (count && count % 32) c.fault("error", "barrier thread count " + std::to_string(count) + " is not a multiple of 32");
  if (b.arrived == 0) {
    b.expected = count;
  } else if (b.expected != count) {
    c.fault("error", "barrier " + std::to_string(id) + " used with thread count " + std::to_string(count) +
                         " while " + std::to_string(b.arrived) + " threads already arrived expecting " +
                         (b.expected ? std::to_string(b.expected) : std::string("all threads")));
  }
  // A thread count is in warp-size units for .aligned arrivals (the whole warp counts); without a
  // count the barrier waits for every non-exited thread of the CTA, so arrivals count threads: an
  // aligned arrival brings the warp's non-exited lanes.
  const uint32_t live = c.warp->valid & ~c.warp->exited;
  if (b.expected) b.arrived += aligned ? 32 : uint32_t(std::popcount(mask));
  else b.arrived += uint32_t(std::popcount(aligned ? live : mask));
  b.arrived_warps.push_back(c.warp->index);
  uint32_t needed = b.expected ? b.expected : cta.threads - cta.exited_threads;
  if (TimelineSink* tl = current_timeline())
    tl->barrier_arrived(cta_linear(cta, cfg.grid), id, c.warp->index, b.generation, b.arrived >= needed, timeline_time());
  if (b.arrived >= needed) {
    complete_barrier(b);
    return false;
  }
  return true;
}

// ---- scheduling -----------------------------------------------------------------------------

bool Engine::collective_ready(Warp& w, Group& g, const Instr& in, ExecCtx& c, uint32_t exec) {
  uint32_t required;
  if (in.flags & kFlagSyncMask) {
    // Every predicated-on lane names its own membermask (logical sub-warps pass one each); all
    // lanes named by any of them must be here. Guard-false lanes take no part.
    const uint64_t* mm = c.col(in.op[in.membermask_op].slot);
    required = 0;
    uint32_t outside = 0;
    for_lanes(exec, [&](int l) {
      const uint32_t m = uint32_t(mm[l]);
      required |= m;
      if (!(m >> l & 1)) outside |= 1u << l;
    });
    if (outside) {
      const int l = std::countr_zero(outside);
      c.fault("error", "lanes " + hex(outside) + " execute a .sync instruction whose membermask does not name them (lane " +
                           std::to_string(l) + ": membermask " + hex(uint32_t(mm[l])) + ")");
    }
    if (required & ~w.valid)
      c.fault("error", "membermask " + hex(required) + " names lanes " + hex(required & ~w.valid) +
                           " that do not exist in this warp");
    if (in.flags & kFlagSkipExited) required &= ~w.exited;
  } else {
    required = w.valid & ~w.exited;
  }
  if ((required & ~g.mask) == 0) return true;
  if (required & w.exited)
    c.fault("error", "membermask " + hex(required) + " names lanes " + hex(required & w.exited) + " that have exited");
  g.state = GroupState::Converge;
  g.wait = WaitKind::Collective;
  return false;
}

void Engine::merge(Warp& w, size_t gi) {
  Group& g = w.groups[gi];
  for (size_t j = 0; j < w.groups.size(); ++j) {
    if (j == gi) continue;
    Group& o = w.groups[j];
    if (o.pc == g.pc && o.frame == g.frame && o.state != GroupState::Blocked && g.state != GroupState::Blocked &&
        o.resumed == g.resumed && o.sync_passed == g.sync_passed) {
      g.mask |= o.mask;
      g.state = GroupState::Ready;
      g.wait = WaitKind::None;
      w.groups.erase(w.groups.begin() + long(j));
      return;
    }
  }
}

bool Engine::time_out_try_waits() {
  bool any = false;
  each_group(true, [&](Group& g) {
    if (g.state == GroupState::Blocked && g.may_time_out) {
      g.state = GroupState::Ready;
      g.wait = WaitKind::None;
      g.resumed = true;
      g.may_time_out = false;
      g.timed_out = true;
      any = true;
    }
  });
  return any;
}

// One step of the diverged warp's group gi (pick's choice): false when it could not execute. Then,
// while it stays strictly below every other group's pc (all in frames of one depth), pick would
// choose it again and no merge can involve it, so it runs on without the per-instruction passes
// over the groups. Exactly the schedule of the plain loop: it stops where pick would rotate, and on
// any split, block, exit, call or return. One context serves the first step and the run after it.
bool Engine::run_picked(Warp& w, size_t gi, uint64_t budget, uint64_t& n) {
  Group& g = w.groups[gi];  // stays in place: nothing is erased while it runs, and groups has room for 32
  const Frame* const first_frame = g.frame.get();
  ExecCtx c = context(w, g);
  LaneCounter lc;
  if (!execute(c, w, &g, lc)) return false;
  ++n;
  const size_t count = w.groups.size();
  if (count < 2) return true;
  const Frame* frame = g.frame.get();
  uint32_t limit = ~0u;
  for (size_t j = 0; j < count; ++j) {
    if (j == gi) continue;
    const Group& o = w.groups[j];
    if (o.frame.get() != frame && o.frame->depth != frame->depth) return true;  // pick weighs depths: leave it to the plain loop
    limit = std::min(limit, o.pc);
  }
  // Steps until pick's next rotation (it rotates at the step that makes diverged_steps a multiple
  // of kRotateEvery). The loop stops when the frame changes, so a first step that called or
  // returned needs the context of its new frame.
  const uint64_t stop = n + std::min<uint64_t>(budget - std::min(budget, n), kRotateEvery - 1 - w.diverged_steps % kRotateEvery);
  if (frame != first_frame) c = context(w, g);
  uint64_t steps_run = n;  // a local the indirect calls cannot change: not re-read from memory each step
  const Group* const groups_end = w.groups.data() + count;  // compared as pointers: no division per step
  while (steps_run < stop && w.groups.data() + w.groups.size() == groups_end) {
    if (g.state != GroupState::Ready || g.mask == 0 || g.frame.get() != frame || g.pc >= limit) break;
    ++w.diverged_steps;  // as pick would count it
    if (!execute(c, w, &g, lc)) break;
    ++steps_run;
  }
  n = steps_run;
  return true;
}

void Engine::settle(Warp& w) {
  // Only groups at the same pc can merge, and usually no group is empty and no two share a pc. One
  // branch-free pass over the groups finds that out from their masks and a 64-bit set of their pcs
  // modulo 64 (`shared`: residues seen twice; a warp has at most 32 groups).
  const auto scan = [&w](bool& empty) {
    uint64_t seen = 0, shared = 0;
    for (const Group& g : w.groups) {
      const uint64_t bit = 1ull << (g.pc & 63);
      empty |= g.mask == 0;
      shared |= seen & bit;
      seen |= bit;
    }
    return shared;
  };
  bool empty = false;
  uint64_t shared = scan(empty);
  if (empty) {
    remove_empty(w);
    shared = scan(empty);
  }
  // Merge the groups whose pc residue another group shares (merge would find no partner for the
  // others; merges only remove groups, so a pc alone stays alone).
  if (!shared) return;
  for (size_t i = 0; i < w.groups.size(); ++i)
    if (shared >> (w.groups[i].pc & 63) & 1) merge(w, i);
}

void Engine::remove_empty(Warp& w) {
  w.groups.erase(std::remove_if(w.groups.begin(), w.groups.end(), [](const Group& g) { return g.mask == 0; }),
                 w.groups.end());
}

int Engine::pick(Warp& w) {
  if (w.groups.size() == 1) return w.groups[0].state == GroupState::Ready ? 0 : -1;
  // The deepest frame first, then the lowest pc (the best so far kept in locals, not re-read); and
  // the least recently run group, for a rotation.
  int low = -1, oldest = -1;
  const bool tick = ++w.diverged_steps % kRotateEvery == 0;
  const Frame* low_frame = nullptr;
  uint32_t low_pc = 0;
  for (size_t i = 0; i < w.groups.size(); ++i) {
    const Group& g = w.groups[i];
    if (g.state != GroupState::Ready) continue;
    if (tick && (oldest < 0 || g.last_run < w.groups[size_t(oldest)].last_run)) oldest = int(i);
    const Frame* f = g.frame.get();
    if (low >= 0 && !(f == low_frame || f->depth == low_frame->depth ? g.pc < low_pc : f->depth > low_frame->depth))
      continue;
    low = int(i);
    low_frame = f;
    low_pc = g.pc;
  }
  if (!tick || low < 0) return low;
  const Group& l = w.groups[size_t(low)];
  const bool spin_like = l.loop_count > 0 && l.loop_polls && l.loop_writes == mem_events.writes;
  return spin_like || w.diverged_steps % kRotateAlways == 0 ? oldest : low;
}

// bar.warp.sync on sm_70+: lanes may meet at different bar.warp.sync instructions (and frames).
// Releases every group waiting at such an instruction whose lanes' membermasks are covered by the
// lanes waiting at such instructions; each then executes its own instruction once.
void Engine::release_any_pc_syncs(Warp& w) {
  auto waiting = [](const Group& g) {
    const auto& code = g.frame->fn->code;
    return g.state == GroupState::Converge && g.pc < code.size() && (code[g.pc].flags & kFlagAnyPcSync);
  };
  auto needs = [](const Group& g) {
    const Instr& in = g.frame->fn->code[g.pc];
    const uint64_t* mm = g.frame->regs.data() + size_t(in.op[in.membermask_op].slot) * 32;
    uint32_t m = 0;
    for_lanes(g.mask, [&](int l) { m |= uint32_t(mm[l]); });
    return m;
  };
  uint32_t set = 0;
  for (auto& g : w.groups)
    if (waiting(g)) set |= g.mask;
  for (bool changed = true; changed && set;) {  // drop groups that need lanes outside the set
    changed = false;
    for (auto& g : w.groups)
      if (waiting(g) && (g.mask & set) && (needs(g) & ~set)) {
        set &= ~g.mask;
        changed = true;
      }
  }
  for (auto& g : w.groups)
    if (waiting(g) && (g.mask & set)) {
      g.state = GroupState::Ready;
      g.wait = WaitKind::None;
      g.sync_passed = true;
    }
}

void Engine::check_stuck_warp(Warp& w) {
  // A warp whose only unfinished groups wait to converge, with nothing blocked that could still
  // arrive, will never converge: a divergent warp reached a collective instruction.
  bool any_blocked = false, any_conv = false;
  for (auto& g : w.groups) {
    any_blocked |= g.state == GroupState::Blocked;
    any_conv |= g.state == GroupState::Converge;
  }
  if (!any_conv || any_blocked) return;
  const Group& g = *std::find_if(w.groups.begin(), w.groups.end(), [](const Group& x) { return x.state == GroupState::Converge; });
  std::string where;
  for (auto& o : w.groups)
    where += "\n  lanes " + hex(o.mask) + " at line " + std::to_string(o.pc < o.frame->fn->code.size() ? o.frame->fn->code[o.pc].line : 0);
  Diagnostic d = located(*g.frame->fn, g.pc,
                         "warp " + std::to_string(w.index) + " of CTA (" + std::to_string(w.cta->id.x) + "," +
                             std::to_string(w.cta->id.y) + "," + std::to_string(w.cta->id.z) +
                             ") reached a warp-collective instruction diverged; its lanes are at:" + where);
  throw d;
}

ExecCtx Engine::context(Warp& w, Group& g) {
  Frame& f = *g.frame;
  ExecCtx c;
  c.eng = this;
  c.global = &global;
  c.warp = &w;
  c.cta = w.cta;
  c.group = &g;
  c.fn = f.fn;
  c.regs = f.regs.data();
  c.local_base = f.local_base;
  c.race = race_.get();
  c.events = &mem_events;
  return c;
}

// Inlined into the loops that run one group step after step (run_alone, run_picked), which build
// the context once for many steps.
[[gnu::always_inline]] inline bool Engine::execute(ExecCtx& c, Warp& w, Group* g, LaneCounter& lc) {
  const Function& fn = *c.fn;
  c.group = g;
  c.pc = g->pc;
  c.hold = false;
  g->last_run = steps;
  // pc is at most the code's size (branch targets are labels, pc + 1 past the last instruction is the
  // end): a pointer comparison, not a division by the record's size.
  const Instr* const code_end = fn.code.data() + fn.code.size();
  if (fn.code.data() + c.pc >= code_end) {  // fell off the end: return
    ret(c);
    return true;
  }
  const Instr& in = fn.code[c.pc];
  const uint32_t lanes = lc.count(g->mask);  // the group's lanes (thread-instructions), guard or not
  uint32_t mask = g->mask;
  if (in.guard != kNoSlot) {
    // A diverged group of a few lanes reads just their predicates, not the whole column.
    const uint64_t* p = c.col(in.guard);
    uint32_t m = 0;
    if (lanes <= 4) for_lanes(mask, [&](int l) { m |= uint32_t(p[l] & 1) << l; });
    else m = pred_lanes(p);
    mask = in.guard_neg ? (mask & ~m) : (mask & m);
  }
  cur_fn_ = &fn;
  cur_pc_ = c.pc;
  cur_warp_ = &w;
  cur_mask_ = mask;
  if ((in.flags & (kFlagAligned | kFlagSyncMask)) && mask && !g->sync_passed && !collective_ready(w, *g, in, c, mask)) {
    if (in.flags & kFlagAnyPcSync) release_any_pc_syncs(w);
    return false;
  }
  g->sync_passed = false;
  if (w.wgmma && wgmma_watch_needed(*w.wgmma, &fn, c.pc)) [[unlikely]] wgmma_watch(c, in, mask);
  in.fn(c, in, mask);
  if (race_) [[unlikely]] race_->end_instr();
  g = c.group;
  if (!(in.flags & kFlagControl) && !c.hold) g->pc = c.pc + 1;
  if (g->state == GroupState::Ready) g->resumed = false;
  thread_instr_ += lanes;
  ++warp_instr_;
  ++steps;
  return true;
}

bool Engine::run_alone(Warp& w, uint64_t budget, uint64_t& n) {
  Group& g = w.groups[0];  // stays in place: nothing is erased while it runs, and groups has room for 32
  const Frame* frame = g.frame.get();
  ExecCtx c = context(w, g);
  LaneCounter lc;
  while (n < budget) {
    if (g.state != GroupState::Ready) return false;
    if (g.frame.get() != frame) {  // a call or return: the context of the new frame
      frame = g.frame.get();
      c = context(w, g);
    }
    if (!execute(c, w, &g, lc)) return false;
    ++n;
    if (w.groups.size() != 1) {  // a split: the diverged loop takes over
      remove_empty(w);
      return true;
    }
    if (g.mask == 0) {  // every lane exited
      w.groups.clear();
      return true;
    }
  }
  return true;
}

uint64_t Engine::run_warp(Warp& w, uint64_t budget) {
  uint64_t n = 0;
  while (n < budget && !w.groups.empty()) {
    if (w.groups.size() == 1) {
      // Converged fast path: one group, nothing to pick or merge.
      if (!run_alone(w, budget, n)) break;
      continue;
    }
    int gi = pick(w);
    if (gi < 0) {
      check_stuck_warp(w);
      break;
    }
    run_picked(w, size_t(gi), budget, n);
    settle(w);
  }
  return n;
}

namespace {

// "0-31" style ranges of the set bits of a per-thread byte vector, with warp/lane names.
std::string thread_ranges(const std::vector<uint8_t>& v, bool want) {
  std::string out;
  size_t t = 0;
  while (t < v.size()) {
    if ((v[t] != 0) != want) {
      ++t;
      continue;
    }
    size_t e = t;
    while (e + 1 < v.size() && (v[e + 1] != 0) == want) ++e;
    if (!out.empty()) out += ", ";
    out += e == t ? std::to_string(t) : std::to_string(t) + "-" + std::to_string(e);
    t = e + 1;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string Engine::describe_mbarrier_wait(const Group& g) {
  std::ostringstream os;
  const MbarrierSlot* m = reinterpret_cast<const MbarrierSlot*>(uintptr_t(g.wait_obj));
  const Cta* owner = nullptr;
  for (auto& cta : ctas)
    for (auto& [off, slot] : cta->mbars)
      if (&slot == m) owner = cta.get();
  if (!owner) return "    waiting on an mbarrier that no longer exists\n";
  const model::Mbarrier& b = m->bar;
  os << "    waiting on mbarrier at shared address " << hex(m->offset) << " of CTA rank " << owner->rank
     << " (initialised at line " << m->init_line << "): phase " << b.phase() << " (parity " << (b.phase() & 1)
     << "), pending arrivals " << b.pending() << " of " << b.expected() << ", tx-count " << b.tx_count() << "\n";
  os << "      arrived in this phase: threads " << thread_ranges(m->arrived_now, true);
  if (m->remote_arrivals) os << " and " << m->remote_arrivals << " arrivals from other CTAs";
  os << "\n";
  // Threads that arrived in an earlier phase but not in this one are the likely missing arrivals.
  std::vector<uint8_t> missing(m->arrived_ever.size(), 0), exited(m->arrived_ever.size(), 0);
  bool any_missing = false, any_exited = false;
  for (size_t t = 0; t < missing.size(); ++t) {
    if (m->arrived_ever[t] && !m->arrived_now[t]) {
      missing[t] = 1;
      any_missing = true;
      const Warp& w = owner->warps[t / 32];
      if (w.exited >> (t % 32) & 1) {
        exited[t] = 1;
        any_exited = true;
      }
    }
  }
  if (any_missing) os << "      arrived in an earlier phase but not in this one: threads " << thread_ranges(missing, true) << "\n";
  if (any_exited) os << "      of which have exited: threads " << thread_ranges(exited, true) << "\n";
  os << "      diagnosis: ";
  if (b.pending() == 0 && b.tx_count() > 0)
    os << "tx-count short by " << b.tx_count() << " bytes: expect_tx announced " << m->tx_expected_total
       << " bytes in this phase but only " << m->tx_completed_total << " bytes completed\n";
  else if (b.tx_count() < 0)
    os << "tx-count is negative (" << b.tx_count() << "): " << m->tx_completed_total
       << " bytes completed in this phase but expect_tx announced only " << m->tx_expected_total
       << " (a missing or short expect_tx)\n";
  else if (any_exited)
    os << b.pending() << " arrival(s) missing; threads that arrived in earlier phases have exited\n";
  else
    os << b.pending() << " of " << b.expected() << " arrival(s) missing in phase " << b.phase() << "\n";
  return os.str();
}

std::string Engine::deadlock_report() {
  std::ostringstream os;
  os << "deadlock: no thread can make progress\n";
  bool cluster_waiters = false;
  for (auto& cta : ctas) {
    for (auto& w : cta->warps) {
      for (auto& g : w.groups) {
        const Function& fn = *g.frame->fn;
        // Blocking instructions re-execute when woken, so a waiting group's pc is the instruction.
        uint32_t line = g.pc < fn.code.size() ? fn.code[g.pc].line : 0;
        os << "  CTA (" << cta->id.x << "," << cta->id.y << "," << cta->id.z << ") warp " << w.index << " lanes "
           << hex(g.mask) << " at " << prog.file_name << ":" << line << ": ";
        os << source_line_of(prog.source, line) << "\n";
        if (g.wait == WaitKind::CtaBarrier) {
          for (uint32_t id = 0; id < cta->bars.size(); ++id) {
            const CtaBarrier& b = cta->bars[id];
            if (uint64_t(reinterpret_cast<uintptr_t>(&b)) != g.wait_obj) continue;
            uint32_t needed = b.expected ? b.expected : cta->threads - cta->exited_threads;
            os << "    waiting on CTA barrier " << id << ": " << b.arrived << " of " << needed
               << " threads arrived in this phase";
            if (!b.expected) os << " (" << cta->live_warps << " live warps, " << (cta->warps.size() - cta->live_warps) << " exited)";
            os << "\n";
          }
        } else if (g.wait == WaitKind::Mbarrier) {
          os << describe_mbarrier_wait(g);
        } else if (g.wait == WaitKind::ClusterBarrier) {
          cluster_waiters = true;
          os << "    waiting on the cluster barrier (barrier.cluster) to complete phase " << cluster_barrier.generation
             << "\n";
        } else if (g.wait == WaitKind::Collective) {
          os << "    waiting for the rest of its warp to reach this warp-collective instruction\n";
        } else if (g.wait == WaitKind::Custom && cta->describe_custom_wait) {
          os << cta->describe_custom_wait(*cta, g.wait_obj);
        }
      }
    }
    // Warps that never arrived at a barrier somebody is waiting on.
    for (uint32_t id = 0; id < cta->bars.size(); ++id) {
      const CtaBarrier& b = cta->bars[id];
      if (b.arrived == 0) continue;
      std::vector<bool> arrived(cta->warps.size());
      for (uint32_t wi : b.arrived_warps) arrived[wi] = true;
      std::string missing;
      for (auto& w : cta->warps)
        if (!arrived[w.index] && !w.done()) missing += " " + std::to_string(w.index);
      if (!missing.empty()) os << "  CTA barrier " << id << " still expects warps:" << missing << "\n";
    }
  }
  if (cluster_waiters) os << describe_cluster_barrier();
  return os.str();
}

std::string Engine::describe_cluster_barrier() {
  // Per CTA: which threads arrived in this phase, which (non-exited) have not, and which of those
  // wait at barrier.cluster.wait without having arrived.
  const ClusterBarrier& b = cluster_barrier;
  std::ostringstream os;
  uint32_t live = 0, arrived = 0, exited = 0;
  std::string not_arrived, waiting_unarrived;
  for (auto& cta : ctas) {
    const uint32_t t0 = cta->rank * cta->threads;
    std::vector<uint8_t> yes(cta->threads), no(cta->threads), wait_no(cta->threads, 0);
    for (uint32_t t = 0; t < cta->threads; ++t) {
      const bool gone = cta->warps[t / 32].exited >> (t % 32) & 1;
      yes[t] = b.arrived[t0 + t];
      no[t] = !gone && !b.arrived[t0 + t];
      live += !gone;
      arrived += yes[t] && !gone;
      exited += gone;
    }
    for (auto& w : cta->warps)
      for (auto& g : w.groups)
        if (g.wait == WaitKind::ClusterBarrier)
          for_lanes(g.mask, [&](int l) {
            if (!b.arrived[t0 + w.index * 32 + uint32_t(l)]) wait_no[w.index * 32 + uint32_t(l)] = 1;
          });
    const std::string rank = "CTA rank " + std::to_string(cta->rank);
    os << "  cluster barrier phase " << b.generation << ", " << rank << ": arrived: threads " << thread_ranges(yes, true) << "; not arrived: threads " << thread_ranges(no, true)
       << "\n";
    if (std::find(no.begin(), no.end(), 1) != no.end())
      not_arrived += (not_arrived.empty() ? "" : ", ") + rank + " threads " + thread_ranges(no, true);
    if (std::find(wait_no.begin(), wait_no.end(), 1) != wait_no.end())
      waiting_unarrived += (waiting_unarrived.empty() ? "" : ", ") + rank + " threads " + thread_ranges(wait_no, true);
  }
  os << "  cluster barrier: " << arrived << " of " << live << " non-exited threads of the cluster arrived in phase "
     << b.generation;
  if (exited) os << " (" << exited << " exited threads are not waited for)";
  os << "\n";
  os << "    diagnosis: ";
  if (!waiting_unarrived.empty())
    os << waiting_unarrived
       << " wait at barrier.cluster.wait without a barrier.cluster.arrive in this phase; the phase needs their own "
          "arrival, so it can never complete\n";
  else
    os << "missing barrier.cluster.arrive from " << not_arrived << "\n";
  return os.str();
}

RunStatus Engine::simulate(std::string& report) {
  // A cooperative launch sets up every cluster first and parks it; each round then swaps the
  // clusters in turn into ctas/cluster_barrier (what the semantics see as "the cluster") and runs
  // their warps, so all CTAs of the grid are resident together.
  struct SwapIn {
    Engine& e;
    ParkedCluster& p;
    SwapIn(Engine& e, ParkedCluster& p) : e(e), p(p) { swap(); }
    ~SwapIn() { swap(); }
    void swap() {
      std::swap(e.ctas, p.ctas);
      std::swap(e.cluster_barrier, p.barrier);
    }
  };
  uint64_t explore_state = cfg.schedule_seed ^ 0x5851f42d4c957f2dull;
  auto explore_rng = [&] {  // splitmix64
    uint64_t z = (explore_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto each_cluster = [&](auto&& fn) {
    if (!cfg.co_resident) return fn();
    for (ParkedCluster& p : parked) {
      SwapIn in(*this, p);
      fn();
    }
  };
  auto fault = [&](Diagnostic d) {
    diags_.insert(diags_.begin(), d);
    report = d.format();
    return RunStatus::Fault;
  };
  for (;;) {
    uint64_t progress = 0;
    bool all_done = true;
    try {
      each_cluster([&] {
        // One turn of warp w; false once the instruction budget is spent.
        auto turn = [&](Cta& cta, Warp& w, uint64_t quantum) {
          if (w.done()) return true;
          // Never overshoot the instruction budget by more than one warp-instruction.
          uint64_t left = thread_instr_ < limit_ ? limit_ - thread_instr_ : 0;
          const uint64_t begin = timeline_time();
          const uint64_t ran = run_warp(w, std::min<uint64_t>(quantum, left / 32 + 1));
          progress += ran;
          if (TimelineSink* tl = current_timeline(); tl && ran)
            tl->warp_ran(cta_linear(cta, cfg.grid), w.index, begin, timeline_time(), ran);
          all_done &= w.done();
          return thread_instr_ <= limit_;
        };
        if (!cfg.vary_warps) {
          for (auto& cta : ctas)
            for (auto& w : cta->warps)
              if (!turn(*cta, w, kQuantum)) break;  // the next CTA's warps still get their turn
          return;
        }
        // --explore: this round's warp order and turn lengths come from the schedule seed.
        std::vector<std::pair<Cta*, Warp*>> order;
        for (auto& cta : ctas)
          for (auto& w : cta->warps) order.push_back({cta.get(), &w});
        for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[explore_rng() % i]);
        for (auto [cta, w] : order)
          if (!turn(*cta, *w, 1 + explore_rng() % (2 * kQuantum))) return;
      });
    } catch (KernelFault& kf) {
      Diagnostic d;
      d.message = fault_message(kf);
      if (cur_fn_) {
        d = located(*cur_fn_, cur_pc_, d.message);
        d.message += " [CTA (" + std::to_string(cur_warp_->cta->id.x) + "," + std::to_string(cur_warp_->cta->id.y) +
                     "," + std::to_string(cur_warp_->cta->id.z) + ") warp " + std::to_string(cur_warp_->index) +
                     " lanes " + hex(cur_mask_) + "]";
      }
      return fault(d);
    } catch (Diagnostic& d) {
      return fault(d);
    }
    if (!all_done || thread_instr_ > limit_) {  // a budget break may skip warps
      all_done = true;
      each_cluster([&] {
        for (auto& cta : ctas)
          for (auto& w : cta->warps) all_done &= w.done();
      });
    }
    bool async_progress = false;
    try {
      async_progress = complete_due_async(progress == 0);
    } catch (KernelFault& kf) {
      Diagnostic d;
      d.file = prog.file_name;
      d.message = fault_message(kf);
      return fault(d);
    }
    if (all_done && in_flight_ == 0) return RunStatus::Completed;
    if (all_done) continue;  // let in-flight operations finish
    // Every thread that can run spins in a loop nothing can end: a hang, as a deadlock. With clusters
    // on several threads, only once every lower cluster has finished: until then one of them, on
    // another thread, may still write what this one polls (on one thread they all ran before it).
    if (progress && !async_progress && in_flight_ == 0 && spin_confirmed_writes_ == mem_events.writes &&
        shared_.finished_below.load(std::memory_order_acquire) >= cluster_) {
      Diagnostic d;
      const std::string rep = spin_hang_report(d);
      if (!rep.empty()) {
        report = rep;
        each_cluster([&] { report += deadlock_report(); });
        diags_.insert(diags_.begin(), d);
        return RunStatus::Deadlock;
      }
    }
    // Nothing can progress: suspended try_waits reach their time limit first (they return false).
    if (progress == 0 && !async_progress && time_out_try_waits()) continue;
    if (progress == 0 && !async_progress) {
      report.clear();
      each_cluster([&] { report += deadlock_report(); });
      Diagnostic d;
      d.file = prog.file_name;
      d.message = "deadlock: no thread can make progress";
      diags_.insert(diags_.begin(), d);
      return RunStatus::Deadlock;
    }
    if (thread_instr_ > limit_) {
      report = budget_report(cfg.max_instructions);
      return RunStatus::Timeout;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - shared_.start).count() > cfg.max_seconds) {
      report = "timeout: wall-time budget of " + std::to_string(cfg.max_seconds) + " s exhausted\n";
      return RunStatus::Timeout;
    }
    if (shared_.moot(cluster_)) {  // a lower cluster failed: this one's outcome cannot matter
      abandoned_ = true;
      return RunStatus::Completed;
    }
  }
}

ClusterOutcome Engine::run_cluster(uint64_t cl) {
  // Everything a cluster's simulation depends on starts afresh from the seed and the cluster's
  // number, so its schedule is the same whichever clusters ran before it on this worker.
  cluster_ = cl;
  cluster_dim = cfg.cluster;
  clock_base_ += steps;
  steps = 0;
  rng_ = cfg.schedule_seed * 0x2545f4914f6cdd1dull + 1 + cl * 0xd1b54a32d192ed03ull;
  thread_instr_ = warp_instr_ = 0;
  diags_.clear();
  abandoned_ = false;
  cur_fn_ = nullptr;
  cur_warp_ = nullptr;
  printed.str("");
  // The clusters merged so far are all below this one: what the budget has left is at most this.
  const uint64_t before = shared_.merged_instructions.load(std::memory_order_relaxed);
  limit_ = before < cfg.max_instructions ? cfg.max_instructions - before : 0;
  setup_cluster(cl);
  ClusterOutcome o;
  o.cluster = cl;
  o.status = simulate(o.report);
  o.abandoned = abandoned_;
  o.diagnostics = std::move(diags_);
  diags_.clear();
  o.thread_instructions = thread_instr_;
  o.warp_instructions = warp_instr_;
  o.printed = printed.str();
  // A failed cluster may leave operations in flight on CTAs that go away now.
  clear_async();
  ctas.clear();
  return o;
}

RunResult Engine::run_co_resident() {
  cluster_dim = cfg.cluster;
  limit_ = cfg.max_instructions;
  for (uint64_t cl = 0; cl < shared_.nclusters; ++cl) {
    setup_cluster(cl);
    parked.push_back({std::move(ctas), std::move(cluster_barrier)});
    ctas.clear();
  }
  RunResult res;
  res.status = simulate(res.report);
  res.stats.thread_instructions = thread_instr_;
  res.stats.warp_instructions = warp_instr_;
  res.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - shared_.start).count();
  res.diagnostics = diags_;
  return res;
}

std::string budget_report(uint64_t max_instructions) {
  return "timeout: instruction budget of " + std::to_string(max_instructions) + " thread-instructions exhausted\n";
}

uint64_t Engine::frame_local_base(const ExecCtx& c) const { return c.local_base; }

TimelineSink*& current_timeline() {
  thread_local TimelineSink* sink = nullptr;
  return sink;
}

}  // namespace ptxsim
