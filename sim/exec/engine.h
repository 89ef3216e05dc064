// The execution engine: CTAs of a cluster, their warps, and the thread groups inside each warp.
//
// Independent thread scheduling: a warp is a set of thread groups, each with its own pc and call
// frame. Lanes that share a pc and frame form one group and execute together (the converged fast
// path is a warp with a single group). A branch that splits lanes creates a second group; groups
// that reach the same pc in the same frame merge again. The scheduler runs the group with the
// deepest frame and lowest pc first (which reconverges if/else shapes early) and, while a warp is
// diverged, rotates to the least recently run group now and then (often when the lowest-pc group
// looks like a spin, Engine::pick) so a spinning path never starves another. Groups that wait
// (barriers, warp-collectives missing lanes, later mbarriers) are Blocked and cost nothing until
// woken; when nothing can run, the launch is a deadlock.
#pragma once
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/mbarrier/mbarrier.h"
#include "model/memory/global_memory.h"
#include "sim/api.h"
#include "sim/exec/async_ranges.h"
#include "sim/exec/exec_ctx.h"
#include "sim/exec/launch_shared.h"
#include "sim/exec/program.h"
#include "sim/exec/reg_pool.h"
#include "sim/exec/wgmma_state.h"

namespace ptxsim {

struct Frame {
  const Function* fn = nullptr;
  std::vector<uint64_t, RegPoolAllocator<uint64_t>> regs;  // fn->num_slots × 32 (reg_pool.h: why pooled)
  std::shared_ptr<Frame> parent;
  uint32_t ret_pc = 0;              // pc in the parent to resume at
  uint32_t call_pc = 0;             // pc of the call in the parent (for return values)
  uint32_t local_base = 0;          // this frame's offset in each lane's stack
  uint32_t depth = 0;
};

enum class GroupState : uint8_t { Ready, Blocked, Converge };
enum class WaitKind : uint8_t { None, CtaBarrier, ClusterBarrier, Collective, Mbarrier, Custom, BulkGroup };

struct Group {
  uint32_t mask = 0;
  uint32_t pc = 0;
  std::shared_ptr<Frame> frame;
  GroupState state = GroupState::Ready;
  WaitKind wait = WaitKind::None;
  uint64_t wait_obj = 0, wait_gen = 0;
  uint64_t last_run = 0;
  bool resumed = false;             // woken from Blocked; cleared after its next instruction
  bool sync_passed = false;         // released from a kFlagAnyPcSync wait; cleared after it executes
  // A test_wait that returned false: if the group comes back to the same pc while the barrier is
  // unchanged, it is spinning, and it blocks until the barrier changes.
  uint32_t spin_pc = ~0u;
  uint64_t spin_version = 0;
  // mbarrier.try_wait suspends "until the phase completes or the suspend time limit expires". A
  // group blocked in a try_wait that may time out (not a spin back into the same try_wait) is
  // released with `timed_out` when nothing else can progress, and the try_wait then returns false.
  bool may_time_out = false;
  bool timed_out = false;
  // Spin-wait detection (sim/exec/spin.cpp): the backward branch the group last took, how often in a
  // row with no memory write anywhere (MemEvents::writes unchanged since `loop_writes`), a hash of
  // its registers there, and whether the loop was found repeating an identical state.
  uint32_t loop_pc = ~0u, loop_count = 0;
  uint64_t loop_writes = ~0ull, loop_hash = 0;
  bool spinning = false;
  // The address its last iteration (up to that backward branch) read last, and whether the
  // iteration before read the same one: what a loop polling a flag does (Engine::pick).
  uint64_t loop_read = ~0ull;
  bool loop_polls = false;
  uint64_t spin_addr = 0;           // the address its last load in the loop read
};

struct Cta;
struct Tcgen05Cta;
class RaceCheck;   // sim/exec/racecheck.h
struct RaceCluster;
struct RaceOp;  // sim/exec/tcgen05_state.h

// Bulk async-groups of one thread (cp{.reduce}.async.bulk*.bulk_group, PTX 9.7.9.25.6): operations
// issued but not yet committed belong to group `committed`; `pending` lists (group, operations not
// complete yet) for groups with any. Maintained by sim/sem/tma_common.cpp.
struct BulkGroups {
  uint64_t committed = 0;
  std::vector<std::pair<uint64_t, uint32_t>> pending;
};

// Ampere cp.async state of one thread (sim/sem/cp_async.cpp): its cp.async-groups, and the latest
// due time of its copies in flight (a cp.async.mbarrier.arrive completes after them).
struct CpAsyncLane {
  BulkGroups groups;
  uint64_t last_due = 0;
};

struct Warp {
  uint32_t index = 0;               // warp index within the CTA
  uint32_t valid = 0;               // lanes that exist (the last warp may be partial)
  uint32_t exited = 0;
  std::vector<Group> groups;        // at most 32; reserved so pointers stay valid
  std::array<std::vector<uint8_t>, 32> stack;  // per-lane local memory
  std::array<BulkGroups, 32> bulk;             // per-lane bulk async-groups
  std::array<CpAsyncLane, 32> cp_async;        // per-lane cp.async-groups
  Cta* cta = nullptr;
  uint64_t diverged_steps = 0;
  std::unique_ptr<WgmmaWarpState> wgmma;       // created by the warp's first wgmma instruction
  bool done() const { return groups.empty(); }
};

struct CtaBarrier {
  uint32_t expected = 0;            // thread count named by the instruction (0 = every thread)
  uint32_t arrived = 0;             // threads arrived in this generation
  uint64_t generation = 0;
  uint32_t red_popc = 0;            // bar.red accumulators of this generation
  bool red_and = true, red_or = false;
  uint32_t last_popc = 0;           // results of the generation that just completed
  bool last_and = true, last_or = false;
  std::vector<uint32_t> arrived_warps;  // warp index per arrival, for deadlock reports
};

// The cluster barrier of barrier.cluster.arrive/wait (sim/sem/cluster_barrier.cpp). Threads are
// numbered rank * threads-per-CTA + tid. A phase completes when every non-exited thread arrived.
struct ClusterBarrier {
  uint64_t generation = 0;           // completed phases
  uint32_t pending = 0;              // non-exited threads not arrived in this phase
  std::vector<uint8_t> arrived;      // per thread: arrived in this phase
  std::vector<uint64_t> arrive_phase;  // per thread: generation + 1 at its last arrival not yet waited on (0: none)
};

// An mbarrier bound to its 8 bytes of shared memory, with what the deadlock report needs.
struct MbarrierSlot {
  model::Mbarrier bar;
  uint32_t offset = 0;             // shared::cta address
  // Bumped when a wait's outcome can change: a phase completes, or the barrier is initialized or
  // invalidated (arrivals and transaction counts that leave the phase open wake nobody). Waits
  // block on it and their spin detection compares it.
  uint64_t wait_version = 0;
  uint64_t wait_state = 0;         // phase * 2 + live, as of the last wait_version
  uint32_t init_line = 0;
  std::vector<uint8_t> arrived_now;   // per CTA thread: arrived in the current phase
  std::vector<uint8_t> arrived_ever;  // per CTA thread: arrived in some earlier phase
  uint64_t tx_expected_total = 0;     // expect-tx bytes announced in the current phase
  uint64_t tx_completed_total = 0;    // complete-tx bytes delivered in the current phase
  uint32_t remote_arrivals = 0;       // arrivals from other CTAs in the current phase
};

// Which bytes of a CTA's shared memory hold generic-proxy writes that the async proxy may not see:
// written by the generic proxy (st.shared, atomics, tcgen05.alloc's address, st.async, cp.async)
// since the CTA's last fence.proxy.async, and not overwritten since by an async-proxy write (a TMA
// or bulk copy landing there). An async-proxy operation (bulk copy, TMA store, wgmma, tcgen05.mma /
// cp) reading such a byte is a hazard (sim/sem/tma_common.cpp). An async-proxy write supersedes the
// generic value: once it completes, and is ordered before the reader (the mbarrier wait that
// publishes it), the reader sees the async write's bytes whatever happened to the older generic
// store, so no fence is needed for them.
//
// Tracked per byte (one bit per byte, 16 bits per 16-byte chunk) rather than per chunk: the padded
// sub-byte TMA loads (16U4_ALIGN16B / 16U6_ALIGN16B) write only the first 8 / 12 bytes of each
// 16-byte chunk and leave the padding alone, and tcgen05.mma / tcgen05.cp read only those bytes of
// such operands. A per-chunk flag could either never be cleared by those loads (a false report
// after every generic write that a padded load overwrote) or be cleared by them while a stale
// padding byte remained; per-byte bits are exact for both, at 1/8 of the shared memory's size.
class GenericWrites {
 public:
  void reset(size_t smem_bytes) {
    bits_.assign((smem_bytes + 15) / 16, 0);
    lo_ = hi_ = 0;
  }
  void clear_all() {
    if (lo_ < hi_) std::fill(bits_.begin(), bits_.end(), uint16_t(0));
    lo_ = hi_ = 0;
  }
  // A generic-proxy write of [off, off + n).
  void mark(uint32_t off, uint32_t n) {
    for_chunks(off, n, [&](uint32_t ch, uint16_t m) { bits_[ch] |= m; });
    if (n == 0) return;
    const uint32_t end = uint32_t(std::min<uint64_t>(uint64_t(off) + n, UINT32_MAX));
    lo_ = lo_ < hi_ ? std::min(lo_, off) : off;
    hi_ = std::max(hi_, end);
  }
  // An async-proxy write of [off, off + n) has landed. (The chunks it covers whole are cleared in
  // one fill: a TMA box is kilobytes.)
  void clear(uint32_t off, uint32_t n) {
    if (!may_touch(off, uint32_t(std::min<uint64_t>(uint64_t(off) + n, UINT32_MAX)))) return;  // nothing marked there
    const auto unmark = [&](uint32_t ch, uint16_t m) { bits_[ch] &= uint16_t(~m); };
    const uint64_t end = std::min<uint64_t>(uint64_t(off) + n, uint64_t(bits_.size()) * 16);
    const uint64_t whole_lo = (uint64_t(off) + 15) / 16, whole_hi = end / 16;
    if (whole_hi <= whole_lo + 1) return for_chunks(off, n, unmark);
    std::fill(bits_.begin() + long(whole_lo), bits_.begin() + long(whole_hi), uint16_t(0));
    if (off % 16) for_chunks(off, uint32_t(whole_lo * 16 - off), unmark);
    if (end % 16) for_chunks(uint32_t(whole_hi * 16), uint32_t(end - whole_hi * 16), unmark);
  }
  // Whether any byte of [off, off + n) is marked.
  bool any(uint32_t off, uint32_t n) const {
    bool hit = false;
    for_chunks(off, n, [&](uint32_t ch, uint16_t m) { hit = hit || (bits_[ch] & m); });
    return hit;
  }
  // Whether any byte of the 16-byte chunk holding `off` that `bytes` selects (bit i: byte i of the
  // chunk) is marked.
  bool any_in_chunk(uint32_t off, uint16_t bytes) const {
    return off / 16 < bits_.size() && (bits_[off / 16] & bytes);
  }
  // Whether [lo, hi) may hold a marked byte: it meets the range the marks since the last clear_all
  // span (async-proxy landings clear bytes without shrinking that range). Lets an operation skip
  // testing each of its chunks when it reads nowhere near a generic write.
  bool may_touch(uint32_t lo, uint32_t hi) const { return lo < hi_ && lo_ < hi && lo < hi; }
  // The marks of every chunk, one 16-bit mask per 16 bytes (for loops that test many chunks).
  const uint16_t* chunk_marks() const { return bits_.data(); }
  size_t chunks() const { return bits_.size(); }

 private:
  // f(chunk, byte mask) for every chunk [off, off + n) touches, within the tracked range.
  template <class F>
  void for_chunks(uint32_t off, uint32_t n, F&& f) const {
    const uint64_t end = std::min<uint64_t>(uint64_t(off) + n, uint64_t(bits_.size()) * 16);
    for (uint64_t a = off; a < end;) {
      const uint32_t ch = uint32_t(a / 16), lo = uint32_t(a % 16);
      const uint32_t hi = uint32_t(std::min<uint64_t>(end - uint64_t(ch) * 16, 16));
      f(ch, uint16_t(((1u << (hi - lo)) - 1) << lo));
      a = uint64_t(ch) * 16 + 16;
    }
  }
  std::vector<uint16_t> bits_;
  uint32_t lo_ = 0, hi_ = 0;  // the bytes [lo_, hi_) hold every mark since the last clear_all
};

struct Cta {
  Dim3 id;                          // %ctaid
  uint32_t rank = 0;                // %cluster_ctarank
  Dim3 cluster_ctaid;
  std::vector<uint8_t> smem;        // shared memory including the reserved first kSharedReserved bytes
  std::vector<Warp> warps;
  std::array<CtaBarrier, 16> bars;
  uint32_t threads = 0, exited_threads = 0;
  uint32_t live_warps = 0;
  std::unordered_map<uint32_t, MbarrierSlot> mbars;  // by shared::cta offset (stable addresses)
  std::vector<uint8_t> mbar_word;   // per 8-byte word of smem: 1 while a live mbarrier is there
  uint32_t live_mbars = 0;
  uint32_t async_dst = 0;           // in-flight async operations with a range in this CTA's shared memory
  // The shared-memory ranges in-flight async operations write or read (the plain accesses' race check).
  AsyncRangeCounts async_ranges;
  bool async_overlaps(uint32_t off, uint32_t size, bool write) const { return async_ranges.overlaps(off, size, write); }
  // Bytes of smem written through the generic proxy since the last fence.proxy.async and not
  // overwritten through the async proxy since (an async-proxy read of them is a hazard).
  GenericWrites generic_writes;
  // Tensor maps in global memory as this CTA's last fence.proxy.tensormap::generic.acquire saw
  // them (the tensormap proxy's view; sim/sem/tma_common.cpp).
  std::unordered_map<uint64_t, std::array<uint8_t, 128>> tmap_acquired;
  // Tensor Memory and the tcgen05 pipeline, created by the first tcgen05 instruction.
  std::shared_ptr<Tcgen05Cta> tcgen05;
  // Called when the last warp of the CTA exits (e.g. the TMEM leak check); may throw KernelFault.
  void (*on_exit)(Engine& e, Cta& cta) = nullptr;
  // A clusterlaunchcontrol.try_cancel of this CTA completed with a failed response (a later one is
  // undefined behaviour; sim/sem/cluster_launch_control.cpp): the line of that try_cancel, or 0.
  uint32_t clc_failed_line = 0;
  // Says what a warp of this CTA blocked on WaitKind::Custom object `obj` waits for, in the
  // deadlock report ("    waiting ...\n"), or "" if the object is not the owner's.
  std::string (*describe_custom_wait)(const Cta& cta, uint64_t obj) = nullptr;
  std::shared_ptr<RaceCluster> race;  // --racecheck's state of this CTA's cluster
};

// An asynchronous operation in flight (TMA, bulk copies): issued now, completed later. It takes
// effect when the simulated clock reaches `due`; the order among operations due together is the
// issue order. Reports name what is in flight.
struct AsyncOp {
  uint64_t due = 0;
  uint64_t seq = 0;
  std::function<void()> complete;   // moves the data and signals (may throw KernelFault)
  // For reports: "cp.async.bulk.tensor.2d load of 16384 bytes ...", either `what`, set at issue, or,
  // where formatting a sentence for every operation would cost more than moving its data (TMA
  // loads: a GEMM issues thousands), built by describe(*this) from `label` and `detail`.
  std::string what;
  std::string (*describe)(const AsyncOp&) = nullptr;
  const char* label = nullptr;
  uint32_t detail[2] = {};
  const MbarrierSlot* bar = nullptr;  // the mbarrier it completes on, if any
  uint32_t bytes = 0;
  Cta* dst_cta = nullptr;           // shared-memory destination, for the race check
  uint32_t dst_off = 0, dst_bytes = 0;
  bool src_only = false;            // the range is a source the operation reads: only plain writes race
  uint32_t line = 0;                // issuing instruction
  uint64_t min_due = 0;             // completes no earlier than this (ordering after earlier operations)
  std::shared_ptr<RaceOp> race;     // --racecheck: its clocks (null without)
  std::string description() const { return describe ? describe(*this) : what; }
};

// One warp instruction's cp.async in flight (sim/sem/cp_async.cpp): the copies of its active lanes
// (`mask`), each of `bytes` bytes to shared offset dst_off[l] of dst_cta (the executing CTA) for
// the lane's cp.async-group group[l], read at issue into data[l]. The lanes complete together: the
// PTX ISA orders a thread's copies only through its groups, and other threads see a destination
// only after a wait and a barrier, so a common completion time changes nothing a race-free program
// can observe, and a racy one is reported as for per-lane times. One record and one place in the
// wheel instead of 32. `complete` stores the data and signals the groups. Lane l's copy is described
// as "<label> of <bytes> bytes to shared address <dst_off[l]>".
struct WarpCopy {
  uint64_t due = 0, seq = 0;
  void (*complete)(Engine&, const WarpCopy&) = nullptr;
  const char* label = nullptr;
  Cta* dst_cta = nullptr;
  Warp* warp = nullptr;
  uint32_t mask = 0, line = 0, bytes = 0;
  std::array<uint32_t, 32> dst_off{};
  std::array<uint64_t, 32> group{};
  std::array<std::array<uint8_t, 16>, 32> data{};
};

// Whether warning `w` repeats one already in `diags` (same line, same message start): a launch
// reports each once, so the merge of clusters' diagnostics applies the rule across clusters too.
bool repeats_warning(const std::vector<Diagnostic>& diags, const Diagnostic& w);

// The report of a launch that ran out of its instruction budget.
std::string budget_report(uint64_t max_instructions);

// What running one cluster gave (Engine::run_cluster): merged in cluster order into the launch's
// RunResult by sim/exec/cluster_pool.cpp.
struct ClusterOutcome {
  uint64_t cluster = 0;
  RunStatus status = RunStatus::Completed;  // Completed, or how the cluster failed
  bool abandoned = false;                   // stopped because a lower cluster failed: meaningless
  std::string report;
  std::vector<Diagnostic> diagnostics;      // in order; a failure's own diagnostic first
  uint64_t thread_instructions = 0, warp_instructions = 0;
  std::string printed;                      // printf output, when the engine buffers it
};

// Simulates clusters of one launch. One engine runs a launch on one thread; a launch on N threads
// has N engines, each running whole clusters (sim/exec/cluster_pool.cpp), so everything below is
// one worker's, apart from what `shared` holds.
class Engine {
 public:
  // With `buffer_printf`, kernel printf output is collected per cluster (ClusterOutcome::printed)
  // instead of written to `out` as it happens.
  Engine(const Program& prog, const Function& kernel, const LaunchConfig& cfg,
         const std::vector<uint8_t>& params, model::GlobalMemory& mem, std::ostream& out,
         LaunchShared& shared, bool buffer_printf);
  // Sets up cluster `cluster_linear` and runs it to completion, fault, deadlock or timeout. Its
  // clock and schedule depend only on the seed and the cluster's number, never on other clusters.
  ClusterOutcome run_cluster(uint64_t cluster_linear);
  // A cooperative launch: every cluster resident at once on this thread.
  RunResult run_co_resident();

  // ---- services for semantics -----------------------------------------------------------------
  const Program& prog;
  // Per function of this launch: the wgmma register facts its warps share (sim/sem/wgmma.cpp).
  std::unordered_map<const Function*, std::unique_ptr<WgmmaRegisterFacts>> wgmma_register_facts;
  const Function& kernel;
  const LaunchConfig& cfg;
  const std::vector<uint8_t>& params;
  model::GlobalView global;
  std::ostringstream printed;  // the current cluster's printf output when buffered
  std::ostream& out;           // where kernel printf writes: `printed` or the launch's stream
  Dim3 cluster_dim;
  std::vector<std::unique_ptr<Cta>> ctas;  // the CTAs of the cluster being simulated
  // With cfg.co_resident, the other clusters of the grid, swapped with ctas/cluster_barrier while
  // their warps run (sim/exec/engine.cpp, run()).
  struct ParkedCluster {
    std::vector<std::unique_ptr<Cta>> ctas;
    ClusterBarrier barrier;
  };
  std::vector<ParkedCluster> parked;
  uint64_t steps = 0;                      // warp-instructions of this cluster so far (its simulated clock)
  // Cluster launch control: clusters launch one after another in linear order; a successful
  // clusterlaunchcontrol.try_cancel takes the next one not launched yet, which then never runs.
  // Returns the %ctaid of its first CTA, or nothing when every cluster has been launched or
  // cancelled already (also always with a co-resident launch, whose clusters all start together).
  std::optional<Dim3> cancel_next_cluster();
  ClusterBarrier cluster_barrier;          // of the cluster being simulated

  // Lanes `taken` of the current group continue at `target`; the rest at pc + 1.
  void branch(ExecCtx& c, uint32_t taken, uint32_t target);
  [[gnu::noinline]] void split_branch(ExecCtx& c, uint32_t taken, uint32_t target);  // branch() that splits the group
  // Splits the lanes not in `mask` off the current group at pc + 1 (guarded control flow).
  void split_off_inactive(ExecCtx& c, uint32_t mask);
  // Lanes in `mask` exit.
  void exit_lanes(ExecCtx& c, uint32_t mask);
  void call(ExecCtx& c, const Function& callee, const Operand* rets, uint32_t nrets,
            const Operand* args, uint32_t nargs);
  void ret(ExecCtx& c);
  // Blocks the current group until woken.
  void block(ExecCtx& c, WaitKind kind, uint64_t obj, uint64_t gen);
  // Wakes every group in the cluster waiting on (kind, obj) with a generation below `gen`.
  void wake(WaitKind kind, uint64_t obj, uint64_t gen);
  // The same for the groups of warp w alone: for objects only w's threads wait on (its cp.async-
  // groups), where looking through every warp per completed copy cost more than the copy.
  void wake_in(Warp& w, WaitKind kind, uint64_t obj, uint64_t gen);
  // bar.sync/bar.arrive/bar.red on CTA barrier `id` for the current group's lanes `mask`.
  // Returns true if the caller must block.
  bool barrier_arrive(ExecCtx& c, uint32_t id, uint32_t count, uint32_t mask, bool aligned);
  // The cluster barrier's phase completes: wakes its waiters and starts the next phase.
  void complete_cluster_barrier();
  Cta* cta_by_rank(uint32_t rank) { return rank < ctas.size() ? ctas[rank].get() : nullptr; }
  // The CTA and shared::cta offset a shared (or generic-shared) address names; faults when it is not
  // a shared address of this cluster or is out of range for `size` bytes.
  std::pair<Cta*, uint32_t> resolve_shared(ExecCtx& c, Space space, uint64_t addr, uint32_t size, int lane);
  // Completion of an mbarrier phase or any change of its state: wakes its waiters.
  void mbarrier_changed(MbarrierSlot& m);
  void mbarrier_phase_completed(Cta& cta, MbarrierSlot& m);
  uint64_t frame_local_base(const ExecCtx& c) const;
  void note(Diagnostic d) { diags_.push_back(std::move(d)); }
  // Queues an asynchronous operation; it completes after a delay drawn from the schedule seed.
  // Returns the simulated time at which it is due.
  uint64_t issue_async(AsyncOp&& op);
  // The same for one warp instruction's cp.async, filled in place: the record to fill, then
  // issue_warp_copy() to queue it (returns its due time).
  WarpCopy& new_warp_copy();
  uint64_t issue_warp_copy(WarpCopy& wc);
  // Lane l's copy of wc, for reports.
  static std::string describe(const WarpCopy& wc, int lane);
  // A plain shared-memory access overlapping a destination still being written asynchronously.
  void check_async_race(ExecCtx& c, Cta& cta, uint32_t off, uint32_t size, bool write);
  // A warning at the current instruction (hazards that do not stop the run).
  void warn(ExecCtx& c, const std::string& msg);
  // The same at instruction `pc` of `fn` (for an asynchronous operation completing later).
  void warn_at(const Function& fn, uint32_t pc, const std::string& msg);
  Diagnostic located(const Function& fn, uint32_t pc, std::string msg) const;
  RaceCheck* racecheck() const { return race_.get(); }
  // Lanes of the current group took a backward branch from c.pc (sim/exec/spin.cpp).
  void back_edge(ExecCtx& c);
  MemEvents mem_events;             // writes so far (anything that can change what a load returns)

 private:
  void setup_cluster(uint64_t cluster_linear);
  Dim3 first_ctaid(uint64_t cluster_linear) const;
  // Runs the resident warps (the current cluster, or with cfg.co_resident every parked one) until
  // they finish or fail; a failure's diagnostic goes first in diags_ and its text into `report`.
  RunStatus simulate(std::string& report);
  LaunchShared& shared_;
  uint64_t cluster_ = 0;             // the cluster being run (0 for a cooperative launch)
  uint64_t limit_ = 0;               // thread-instructions this cluster may execute (the budget)
  bool abandoned_ = false;           // simulate() stopped because a lower cluster failed
  uint64_t clock_base_ = 0;          // timeline time of this cluster's clock 0 (earlier clusters' clocks)
  uint64_t timeline_time() const { return clock_base_ + steps; }
  std::shared_ptr<Frame> new_frame(const Function& fn, Warp& w, Cta& cta, uint32_t local_base);
  int pick(Warp& w);
  uint64_t run_warp(Warp& w, uint64_t budget);
  // What semantics see while group g runs in its current frame (ExecCtx). It stays valid while the
  // group keeps running in that frame, so the loops below build it once for many steps.
  ExecCtx context(Warp& w, Group& g);
  // The lane count of a group's mask, recounted only when the mask changes: a loop running one group
  // keeps one (a portable build has no popcnt instruction, and lane_count is a dozen operations).
  struct LaneCounter {
    uint32_t mask = 0, lanes = 0;
    uint32_t count(uint32_t m) {
      if (m != mask) {
        mask = m;
        lanes = lane_count(m);
      }
      return lanes;
    }
  };
  // One warp-step of group g with a context already built for g's frame: false when it could not
  // execute (a collective waiting for lanes).
  bool execute(ExecCtx& c, Warp& w, Group* g, LaneCounter& lc);
  // A converged warp (one group) runs on until the budget is spent, the group waits, splits or
  // exits; false when it could not run (run_warp then ends the warp's turn).
  bool run_alone(Warp& w, uint64_t budget, uint64_t& n);
  bool collective_ready(Warp& w, Group& g, const Instr& in, ExecCtx& c, uint32_t exec);
  void merge(Warp& w, size_t gi);
  bool time_out_try_waits();
  // Calls f(group) for every group of the current cluster's warps and, with `parked_too`, of the
  // parked clusters' (cooperative launches).
  template <class F>
  void each_group(bool parked_too, F&& f) {
    auto in = [&](std::vector<std::unique_ptr<Cta>>& cs) {
      for (auto& cta : cs)
        for (auto& w : cta->warps)
          for (auto& g : w.groups) f(g);
    };
    in(ctas);
    if (parked_too)
      for (auto& p : parked) in(p.ctas);
  }
  // A diverged warp's group gi (pick's choice) runs one warp-step, and on while nothing else could
  // be picked; false when its step could not execute (a collective waiting for lanes).
  bool run_picked(Warp& w, size_t gi, uint64_t budget, uint64_t& n);
  void remove_empty(Warp& w);
  // After a diverged group's run: drops empty groups and merges groups at the same pc (skipping the
  // work when there is none).
  void settle(Warp& w);
  void on_threads_exit(Cta& cta, Warp& w, uint32_t lanes);
  std::string describe_cluster_barrier();
  void complete_barrier(CtaBarrier& b);
  std::string deadlock_report();
  std::string describe_mbarrier_wait(const Group& g);
  void check_stuck_warp(Warp& w);
  void release_any_pc_syncs(Warp& w);

  // What is executing now, so a fault is reported at the right instruction and thread.
  const Function* cur_fn_ = nullptr;
  uint32_t cur_pc_ = 0;
  const Warp* cur_warp_ = nullptr;
  uint32_t cur_mask_ = 0;
  std::vector<Diagnostic> diags_;
  // In flight: the operations in stable, reused slots, and a timing wheel of those slots. Bucket
  // `due % size` lists, in issue order, the slots due then; every due lies in [wheel_base_,
  // wheel_base_ + size) (the wheel grows when one would not), so a bucket holds one due. Emptying
  // the buckets in turn completes operations in (due, issue order), as a heap on (due, seq) did,
  // at a constant cost per operation instead of a heap's log n (a warp's cp.async is 32 of them).
  // A slot with kCopySlot set is warp_copies_[slot - kCopySlot], else async_ops_[slot].
  static constexpr uint32_t kCopySlot = 0x80000000u;
  std::vector<std::vector<uint32_t>> wheel_ = std::vector<std::vector<uint32_t>>(1024);
  uint64_t wheel_base_ = 0;          // no operation in flight is due before this step
  size_t in_flight_ = 0;
  std::vector<uint32_t> due_now_;     // the bucket being completed (completions may issue more)
  std::deque<AsyncOp> async_ops_;    // a deque: a completion may issue more while its slot is in use
  std::vector<uint32_t> async_free_;  // slots of async_ops_ not in use
  std::deque<WarpCopy> warp_copies_;  // (a deque, as async_ops_)
  std::vector<uint32_t> copy_free_;    // slots of warp_copies_ not in use
  void clear_async();
  void grow_wheel(uint64_t due);
  uint64_t next_due() const;
  uint64_t due_of(uint32_t slot) const {
    return slot & kCopySlot ? warp_copies_[slot - kCopySlot].due : async_ops_[slot].due;
  }
  // Places an issued operation's slot in the wheel.
  void schedule_slot(uint32_t slot, uint64_t due);
  // Draws an operation's completion time (the schedule seed's delay) and sequence number.
  std::pair<uint64_t, uint64_t> draw_due(uint64_t min_due);
  // Calls f(op) for every operation in flight (each lane of a warp copy as the AsyncOp it stands for).
  template <class F>
  void each_in_flight(F&& f) const {
    for (const auto& b : wheel_)
      for (uint32_t slot : b) {
        if (!(slot & kCopySlot)) {
          f(async_ops_[slot]);
          continue;
        }
        const WarpCopy& wc = warp_copies_[slot - kCopySlot];
        for (int l = 0; l < 32; ++l)
          if (wc.mask >> l & 1) f(as_async_op(wc, l));
      }
  }
  static AsyncOp as_async_op(const WarpCopy& wc, int lane);
  void count_async_range(const AsyncOp& op, int delta);
  void count_async_range(Cta& cta, uint32_t off, uint32_t bytes, bool src_only, int delta);
  void count_warp_copy(const WarpCopy& wc, int delta);
  uint64_t async_seq_ = 0;
  uint64_t rng_ = 0;                 // schedule-seeded delay generator
  uint32_t dynamic_shared_base_ = 0;  // where the launched kernel's dynamic shared memory starts
  bool complete_due_async(bool force_one);
  uint64_t thread_instr_ = 0;
  uint64_t warp_instr_ = 0;          // warp-instructions issued (steps also counts skipped time)
  std::shared_ptr<RaceCheck> race_;  // --racecheck (sim/exec/racecheck.h); null without
  // Spin-wait hangs (sim/exec/spin.cpp): the write count at the last confirmed spinner (the check
  // runs only while it is current), and the check itself: a report, or "" when some thread can
  // still change something.
  uint64_t spin_confirmed_writes_ = ~0ull;
  std::string spin_hang_report(Diagnostic& d);
};

}  // namespace ptxsim
