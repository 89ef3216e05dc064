// --racecheck: happens-before race detection on shared memory and Tensor Memory, and with
// --racecheck-global on global memory between the threads of the whole grid (docs/racecheck.md).
//
// Vector clocks in the FastTrack style over the *warps* of a cluster plus a pool of pseudo-threads
// for asynchronous operations (TMA, bulk copies, cp.async, st.async, wgmma and tcgen05 work). A warp
// is one thread of the clocks; the lanes of one warp are checked against each other by a per-warp
// rule (an access of another lane is ordered only by a synchronising instruction of the warp in
// between). Every shortcut here may hide a race; none may invent one: a report needs two recorded
// accesses that nothing recorded orders.
//
// Across clusters (global memory): every clock index of a cluster has a grid-wide id, the
// cluster's base (its serial number in the launch times the clock size, the same for every
// cluster) plus the index. A clock holds its own cluster's entries densely and what it has learnt
// of other clusters' threads sparsely (VClock::grid). Releases (.release / .acq_rel strong writes,
// or any strong write after a fence of the warp) publish into grid-wide per-location objects that
// any strong read or atomic acquires, so release/acquire chains order accesses of different
// clusters; relaxed atomics without a fence order only within the cluster.
//
// The engine calls the hooks only when LaunchConfig::racecheck is set (one pointer test otherwise).
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/api.h"
#include "sim/exec/exec_ctx.h"

namespace ptxsim {

class Engine;
struct Cta;
struct Warp;
struct AsyncOp;
struct MbarrierSlot;
struct CtaBarrier;

// Clock entries of other clusters' threads: (grid-wide id, clock), sorted by id.
using GridEntries = std::vector<std::pair<uint64_t, uint32_t>>;

// A vector clock: dense over the threads of its own cluster (warps, then pseudo-threads), sparse
// over other clusters' threads. The sparse part is shared and copied on write: the warps of a CTA
// that pass one barrier share one list instead of merging it again.
struct VClock {
  std::vector<uint32_t> local;
  std::shared_ptr<const GridEntries> grid;  // null: nothing of other clusters
  VClock() = default;
  VClock(size_t n, uint32_t v) : local(n, v) {}
  uint32_t& operator[](size_t i) { return local[i]; }
  uint32_t operator[](size_t i) const { return local[i]; }
  size_t size() const { return local.size(); }
  void assign(size_t n, uint32_t v) {
    local.assign(n, v);
    grid.reset();
  }
};

// One recorded access of a shared-memory byte: who (clock index `tid`, its clock `clk`) and where.
struct RaceAcc {
  uint32_t clk = 0;
  uint16_t tid = 0xffff;  // 0xffff: none
  uint8_t lane = 0;
  uint8_t pad = 0;
  const Instr* site = nullptr;
};
struct RaceCell {
  RaceAcc w, r;
};
// The same for a word of global memory, by grid-wide thread id (any cluster of the launch).
struct GlobalAcc {
  uint32_t clk = 0;
  uint8_t lane = 0;
  uint8_t bytes = 0;  // the bytes of the word accessed (bit per byte)
  uint64_t gid = ~0ull;  // ~0: none
  const Instr* site = nullptr;
};
struct GlobalCell {
  GlobalAcc w, r;
};
// A strong access's location as a synchronisation object: the clocks released into it.
struct SyncObj {
  GridEntries clocks;
  uint64_t version = 0;  // unique over the launch, new whenever clocks change (0: empty)
};

// An asynchronous operation's identity for the clocks: its pseudo-thread slot and clock there, the
// issuer's clocks at issue (everything the issuer did before is ordered before the operation).
struct RaceCluster;
struct RaceOp {
  RaceCluster* cl = nullptr;
  VClock vc;
  uint16_t tid = 0;         // pseudo-thread index (after the warps)
  uint16_t issuer = 0;      // warp clock index of the issuing thread
  uint8_t lane = 0;
  const Instr* site = nullptr;
  std::string what;
};

// Per cluster: clocks of its warps, completed-async accumulators, shadow of every CTA's shared
// memory, CTA and cluster barrier clocks, the pseudo-thread pool.
struct RaceCluster {
  uint32_t nwarps = 0, nctas = 0, nslots = 0;
  uint64_t base = 0;                // grid-wide id of clock index 0 (serial * size())
  // Strong accesses' synchronisation within the cluster, per 4-byte location (host address / 4):
  // releases of scope .cluster and wider. With more than one CTA, `strong_cta` holds every release
  // per location and releasing CTA (key | rank << 56), which is all a .cta-scoped acquire sees.
  std::unordered_map<uint64_t, VClock> strong, strong_cta;
  std::vector<uint8_t> fenced;      // per warp: the widest Scope of a fence or membar it executed
  std::vector<VClock> warp;         // by clock index rank * nwarps + warp
  std::vector<VClock> done;         // per warp: join of its completed asynchronous operations
  // Per warp: its own clock at its last synchronising instruction. Two accesses of different lanes
  // of the warp are ordered when such an instruction lies between them (the earlier one's clock is
  // at most this), else they race (docs/racecheck.md, "Lanes of one warp").
  std::vector<uint32_t> lanes_synced;
  std::vector<std::vector<RaceCell>> shadow;  // per CTA rank, per byte of shared memory
  std::vector<VClock> bar;          // per CTA rank * 16 + barrier id: releases so far (cumulative)
  std::vector<std::vector<uint16_t>> bar_waiters;  // same index: warps that arrive with bar.sync
  VClock cluster_acc, cluster_snap; // barrier.cluster: releases, and the view of the last phase
  std::vector<uint32_t> slot_clk;   // pseudo-thread clocks
  std::vector<std::string> slot_what;  // what the latest operation on each slot is, for reports
  uint32_t next_slot = 0;
  // Tensor Memory, per CTA rank: 128 lanes x 512 columns of 32-bit cells (allocated at first use).
  std::vector<std::vector<RaceCell>> tmem;
  // Per CTA rank: the clocks of its last tcgen05 pipeline operation (they run in issue order).
  std::vector<VClock> tcgen05_pipe;
  // Per warpgroup (clock index / 4): its wgmma.mma_async operations not yet waited for by all four
  // warps. The n-th mma_async of each warp of the warpgroup is one operation (one pseudo-thread).
  struct Wgmma {
    uint64_t nth, group;
    std::shared_ptr<RaceOp> op;
    uint8_t waited = 0;  // warps (bit w % 4) whose wgmma.wait_group covered it
  };
  std::unordered_map<uint32_t, std::deque<Wgmma>> wgmma;
  uint32_t size() const { return nwarps * nctas + nslots; }
};

class RaceCheck {
 public:
  explicit RaceCheck(Engine& e);
  void setup_cluster(std::vector<std::unique_ptr<Cta>>& ctas, bool fresh);

  // A plain or strong access through ExecCtx::mem (after its checks passed); p is what mem returned.
  void access(ExecCtx& c, Space space, uint64_t addr, const uint8_t* p, uint32_t size, Access acc, int lane);
  // The lanes `mask` of one warp-instruction, resolved together (sim/exec/warp_access.h): lane l
  // accesses `size` bytes at addr[l] + imm, host pointer p[l]. The same as access() per lane in
  // lane order; plain accesses to the executing CTA's shared memory are checked in one pass.
  void access_warp(ExecCtx& c, Space space, const uint64_t* addr, uint64_t imm, uint8_t* const* p, uint32_t size,
                   Access acc, uint32_t mask);
  // bar.sync / bar.arrive / bar.red, before the engine counts the arrival.
  void bar_arrive(ExecCtx& c, uint32_t id, bool waits);
  void bar_complete(CtaBarrier& b);
  void cluster_arrive(ExecCtx& c);
  void cluster_complete(Cta& any);
  void cluster_acquire(ExecCtx& c);
  // mbarrier: a state change (arrive, complete_tx, expect_tx, ...) releases the agent's clocks into
  // it; a phase completion publishes them; a successful test/try_wait acquires the last phase's.
  void mbar_release(MbarrierSlot& m, const Warp* cur);
  void mbar_phase(MbarrierSlot& m, const Warp* cur);
  void mbar_acquire(ExecCtx& c, const MbarrierSlot& m);
  // cp.async.wait_group/wait_all and cp.async.bulk.wait_group passed: the warp's completed copies.
  void async_groups_acquire(ExecCtx& c);
  void async_issue(AsyncOp& op, const Warp* cur, const Instr* site);
  void async_begin(AsyncOp& op);
  void async_end(AsyncOp& op);
  // A wrapped asynchronous work item (tcgen05 pipeline) runs with its own issue-time clocks.
  std::shared_ptr<RaceOp> new_op(const Warp* cur, const Instr* site, const std::string& what);
  // A tcgen05 pipeline operation (mma, cp, commit, shift): also ordered after the CTA's earlier ones
  // (PTX ISA 9.7.16.6.2, pipelined tcgen05 instructions execute in issue order).
  std::shared_ptr<RaceOp> new_tcgen05_op(const Warp* cur, const Instr* site, const std::string& what);
  RaceOp* last_op() const { return last_op_.get(); }  // the last new_tcgen05_op
  // What an asynchronous operation reads (or writes) when it executes, recorded with its clocks.
  void op_smem(RaceOp& op, Cta& cta, uint32_t off, uint32_t n, bool write);
  void op_tmem(RaceOp& op, Cta& cta, uint32_t lane, uint32_t lanes, uint32_t column, uint32_t columns, bool write);
  // tcgen05.ld / tcgen05.st of the executing warp (taken as done at issue).
  void tmem_access(ExecCtx& c, uint32_t lane, uint32_t lanes, uint32_t column, uint32_t columns, bool write, int tlane);
  // wgmma.mma_async of the executing warp: its warpgroup's `nth` operation in wgmma-group `group`;
  // wgmma_read records one operand chunk it reads. wgmma.wait_group completes the warpgroup's
  // operations of groups below `done_below`.
  void wgmma_issue(ExecCtx& c, uint64_t nth, uint64_t group);
  // The executing warp computes its rows of its warpgroup's `nth` operation (issued before, when
  // the warp arrived at it): wgmma_read records that operation's reads.
  void wgmma_select(ExecCtx& c, uint64_t nth);
  void wgmma_read(ExecCtx& c, uint32_t off, uint32_t n);
  void wgmma_wait(ExecCtx& c, uint64_t done_below);
  RaceOp* set_agent(RaceOp* op) {
    RaceOp* old = agent_;
    agent_ = op;
    return old;
  }
  // An async-proxy read of shared memory holding a generic-proxy write not fenced by
  // fence.proxy.async (found by sim/sem/tma_common.cpp).
  void proxy_race(ExecCtx& c, Cta& cta, uint32_t off, const std::string& what);
  // The executing instruction finished: a write-after-write whose bytes it left unchanged (the same
  // value written again) is dropped, the others reported.
  void end_instr() {
    if (!waw_.empty()) settle_waw();
    new_instr_ = true;
    strong_ticked_ = false;
  }
  // A warp-synchronous collective (bar.warp.sync, shfl/vote/match/redux/elect .sync): it orders
  // the executing warp's lanes.
  void warp_sync(ExecCtx& c);
  // fence / membar by the executing warp: its later strong writes are releases at the fence's scope.
  void thread_fence(ExecCtx& c);

 private:
  RaceCluster& cluster_of(const Cta& cta);
  uint16_t warp_tid(const Warp& w) const;
  void check_range(RaceCluster& cl, Cta& cta, uint32_t off, uint32_t n, bool write, const VClock& vc, uint16_t tid,
                   uint8_t lane, const Instr* site, bool defer_waw = false);
  void settle_waw();
  void check_global(ExecCtx& c, RaceCluster& cl, uint64_t addr, const uint8_t* p, uint32_t n, bool write,
                    uint16_t tid, uint8_t lane, const Instr* site);
  std::string global_place(uint64_t addr) const;
  // A global-memory report: both sides named with their CTA's coordinates (ranks repeat across
  // clusters); a WAW goes to waw_ with its message, decided when the instruction ends.
  std::string global_who(uint64_t gid, uint8_t lane, const Instr* site) const;
  void report_global(const char* kind, const GlobalAcc& first, bool first_write, uint64_t gid, uint8_t lane,
                     const Instr* site, bool write, uint64_t addr, const uint8_t* byte = nullptr);
  void emit(const std::string& key, const Instr* site, std::string message);
  // A WAW of the executing instruction, decided when it ends (end_instr): the byte before the write.
  struct PendingWaw {
    RaceCluster* cl;
    Cta* cta;
    uint32_t off;
    const uint8_t* byte;  // the byte written
    uint8_t before;
    RaceAcc first;
    uint16_t tid;
    uint8_t lane;
    const Instr* site;
    std::string message;  // global memory: the report, with its key (shared memory: empty)
    std::string key;
  };
  std::vector<PendingWaw> waw_;
  void check_tmem(RaceCluster& cl, Cta& cta, uint32_t lane, uint32_t lanes, uint32_t column, uint32_t columns,
                  bool write, const VClock& vc, uint16_t tid, uint8_t lane_of_thread, const Instr* site);
  void report(RaceCluster& cl, Cta& cta, uint32_t off, const char* kind, const RaceAcc& first, bool first_write,
              uint16_t tid, uint8_t lane, const Instr* site, bool write, const std::string& place = "");
  std::string who(RaceCluster& cl, uint16_t tid, uint8_t lane, const Instr* site) const;
  void strong(ExecCtx& c, const Instr& in, uint64_t key, SyncObj* grid, Access acc, bool write);
  // A clock's entries in grid-wide ids (into scratch_), and a clock joining grid-wide entries.
  const GridEntries& to_grid(const RaceCluster& cl, const VClock& vc);
  void acquire_grid(const RaceCluster& cl, VClock& vc, const GridEntries& obj);
  bool is_strong(const Instr& in) const;
  bool strong_instr(const Instr& in);  // is_strong, remembered for the lanes of one instruction
  Cta* smem_owner(ExecCtx& c, const uint8_t* p) const;
  // The scope of a strong access or fence (.cta ... .sys; the ISA's default where none is written).
  enum Scope : uint8_t { kNoScope = 0, kCta = 1, kCluster = 2, kGpu = 3, kSys = 4 };
  Scope scope_of(const Instr& in, Scope dflt) const;
  VClock& agent_vc(RaceCluster& cl, const Warp* cur, uint16_t* tid);

  // Every synchronising instruction of a warp orders its lanes: its clock now is the floor.
  void lanes_sync(RaceCluster& cl, uint16_t tid) { cl.lanes_synced[tid] = cl.warp[tid][tid]; }

  Engine& e_;
  bool new_instr_ = true;            // the next shared-memory access starts a new instruction
  RaceOp* agent_ = nullptr;          // the asynchronous operation completing now, if any
  std::shared_ptr<RaceOp> last_op_;  // the operation new_tcgen05_op made last
  std::shared_ptr<RaceOp> wgmma_op_; // the wgmma.mma_async executing now
  int mod_volatile_, mod_relaxed_, mod_acquire_, mod_release_, mod_mmio_, mod_acq_rel_;
  int mod_cta_, mod_cluster_, mod_gpu_, mod_sys_, mod_gl_;
  std::unordered_map<const MbarrierSlot*, std::pair<VClock, VClock>> mbar_;  // releases, last phase
  // Releases to other clusters (a strong write that is a release: .release / .acq_rel, or after a
  // fence of the warp), per 4-byte location of global memory, in grid-wide ids, for the launch.
  std::unordered_map<uint64_t, SyncObj> strong_global_;
  // Per grid-wide warp id: the object and version it last acquired or covered (acquiring again
  // changes nothing; the lanes of one atomic instruction mostly hit one location).
  std::unordered_map<uint64_t, std::pair<const SyncObj*, uint64_t>> seen_;
  uint64_t next_version_ = 0;
  bool strong_ticked_ = false;  // the executing instruction released already (its clock ticked)
  const Instr* strong_in_ = nullptr;  // the instruction is_strong answered for last, and its answer
  bool strong_ = false;
  uint64_t next_base_ = 0;  // the next cluster's base
  // Per cluster serial: its CTA of rank 0's coordinates; with the cluster's shape, a rank's (for
  // global reports).
  std::vector<Dim3> cluster_first_;
  Dim3 cluster_shape_;
  uint32_t clock_size_ = 0, cluster_warps_ = 0;
  // --racecheck-global: one cell per 4-byte word of global memory the launch touched (pages of 1024
  // words, allocated at first touch), grid-wide: accesses of different clusters meet here.
  std::unordered_map<uint64_t, std::unique_ptr<GlobalCell[]>> global_pages_;
  uint64_t page_index_ = ~0ull;  // the page check_global touched last (pages are never freed)
  GlobalCell* page_ = nullptr;
  GridEntries scratch_, foreign_;  // the releasing clock in grid-wide ids; entries being acquired
  std::unordered_set<std::string> reported_;
};

}  // namespace ptxsim
