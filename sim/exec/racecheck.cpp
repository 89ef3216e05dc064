#include "sim/exec/racecheck.h"

#include <cinttypes>
#include <cstddef>
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "sim/exec/engine.h"
#include "sim/isa/table.h"

namespace ptxsim {

namespace {

constexpr uint16_t kNone = 0xffff;
// Pseudo-threads for asynchronous operations. A slot is reused round-robin; an operation that
// reuses a slot gets a higher clock there, so a thread that observed the older one is not taken to
// have observed the newer. Observing the newer one orders the older too: that can hide a race, never
// invent one.
constexpr uint32_t kSlots = 128;

constexpr uint64_t kNoGid = ~0ull;

// max-merge of two id-sorted lists into out.
void merge_max(const GridEntries& a, const GridEntries& b, GridEntries& out) {
  out.clear();
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) out.push_back(a[i++]);
    else if (i == a.size() || b[j].first < a[i].first) out.push_back(b[j++]);
    else {
      out.emplace_back(a[i].first, std::max(a[i].second, b[j].second));
      ++i, ++j;
    }
  }
}

// Whether a already holds every entry of b (both id-sorted): a binary search per entry of b, from
// where the previous one was found (b is mostly the few entries of one thread's clock, a a sync
// object's many).
bool covers(const GridEntries& a, const GridEntries& b) {
  auto from = a.begin();
  for (const auto& e : b) {
    from = std::lower_bound(from, a.end(), std::make_pair(e.first, 0u));
    if (from == a.end() || from->first != e.first || from->second < e.second) return false;
  }
  return true;
}

// a's sparse part joined with entries b (copy on write: a's list is shared).
void join_grid(std::shared_ptr<const GridEntries>& a, const GridEntries& b) {
  if (b.empty()) return;
  if (!a) {
    a = std::make_shared<const GridEntries>(b);
    return;
  }
  if (covers(*a, b)) return;
  auto m = std::make_shared<GridEntries>();
  merge_max(*a, b, *m);
  a = std::move(m);
}

void join(VClock& a, const VClock& b) {
  if (a.local.size() < b.local.size()) a.local.resize(b.local.size(), 0);
  for (size_t i = 0; i < b.local.size(); ++i) a.local[i] = std::max(a.local[i], b.local[i]);
  if (!b.grid || b.grid == a.grid) return;
  if (!a.grid) a.grid = b.grid;
  else join_grid(a.grid, *b.grid);
}

// What a clock of cluster `cl` knows of grid-wide thread gid.
uint32_t knows(const RaceCluster& cl, const VClock& vc, uint64_t gid) {
  if (gid - cl.base < vc.local.size()) return vc.local[gid - cl.base];
  if (!vc.grid) return 0;
  auto it = std::lower_bound(vc.grid->begin(), vc.grid->end(), std::make_pair(gid, 0u));
  return it != vc.grid->end() && it->first == gid ? it->second : 0;
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

}  // namespace

// ExecCtx::mem with --racecheck: the access proper, then the detector.
uint8_t* ExecCtx::mem_race(Space space, uint64_t addr, uint32_t size, uint32_t align, int lane, Access acc) {
  uint8_t* p = mem_checked(space, addr, size, align, lane, acc);
  race->access(*this, space, addr, p, size, acc, lane);
  return p;
}

RaceCheck::RaceCheck(Engine& e) : e_(e) {
  const InstrTable& t = InstrTable::get();
  mod_volatile_ = t.mod_id(".volatile");
  mod_relaxed_ = t.mod_id(".relaxed");
  mod_acquire_ = t.mod_id(".acquire");
  mod_release_ = t.mod_id(".release");
  mod_mmio_ = t.mod_id(".mmio");
  mod_acq_rel_ = t.mod_id(".acq_rel");
  mod_cta_ = t.mod_id(".cta");
  mod_cluster_ = t.mod_id(".cluster");
  mod_gpu_ = t.mod_id(".gpu");
  mod_sys_ = t.mod_id(".sys");
  mod_gl_ = t.mod_id(".gl");
}

void RaceCheck::setup_cluster(std::vector<std::unique_ptr<Cta>>& ctas, bool fresh) {
  auto cl = std::make_shared<RaceCluster>();
  cl->nctas = uint32_t(ctas.size());
  cl->nwarps = ctas.empty() ? 0 : uint32_t(ctas[0]->warps.size());
  cl->nslots = kSlots;
  const uint32_t n = cl->size();
  cl->warp.assign(cl->nwarps * cl->nctas, VClock(n, 0));
  for (uint32_t t = 0; t < cl->nwarps * cl->nctas; ++t) cl->warp[t][t] = 1;
  cl->done.assign(cl->nwarps * cl->nctas, VClock(n, 0));
  cl->lanes_synced.assign(cl->nwarps * cl->nctas, 0);
  cl->fenced.assign(cl->nwarps * cl->nctas, 0);
  cl->bar.assign(cl->nctas * 16, VClock(n, 0));
  cl->bar_waiters.assign(cl->nctas * 16, {});
  cl->cluster_acc.assign(n, 0);
  cl->cluster_snap.assign(n, 0);
  cl->slot_clk.assign(kSlots, 0);
  cl->slot_what.assign(kSlots, "");
  cl->tmem.resize(ctas.size());
  cl->tcgen05_pipe.assign(ctas.size(), VClock(n, 0));
  cl->base = next_base_;
  next_base_ += n;
  clock_size_ = n;
  cluster_warps_ = cl->nwarps;
  for (auto& cta : ctas) {
    cl->shadow.emplace_back(cta->smem.size());
    cta->race = cl;
    if (cta->rank == 0) cluster_first_.push_back(cta->id);
    if (cta->rank == cl->nctas - 1) cluster_shape_ = {cta->cluster_ctaid.x + 1, cta->cluster_ctaid.y + 1, cta->cluster_ctaid.z + 1};
  }
  if (fresh) mbar_.clear();  // the previous cluster is gone: its mbarriers with it
}

RaceCluster& RaceCheck::cluster_of(const Cta& cta) { return *cta.race; }

uint16_t RaceCheck::warp_tid(const Warp& w) const { return uint16_t(w.cta->rank * w.cta->race->nwarps + w.index); }

bool RaceCheck::strong_instr(const Instr& in) {
  if (&in != strong_in_) {  // the lanes of one instruction ask once
    strong_in_ = &in;
    strong_ = is_strong(in);
  }
  return strong_;
}

// The CTA of the cluster whose shared memory holds host byte p (mostly the executing CTA's own),
// or null.
Cta* RaceCheck::smem_owner(ExecCtx& c, const uint8_t* p) const {
  auto holds = [p](const Cta& cta) { return p >= cta.smem.data() && p < cta.smem.data() + cta.smem.size(); };
  if (holds(*c.cta)) return c.cta;
  for (const auto& cta : e_.ctas)
    if (holds(*cta)) return cta.get();
  return nullptr;
}

bool RaceCheck::is_strong(const Instr& in) const {
  auto has = [&](int id) { return id >= 0 && in.mods.test(size_t(id)); };
  return has(mod_volatile_) || has(mod_relaxed_) || has(mod_acquire_) || has(mod_release_) || has(mod_mmio_);
}

// PTX ISA, Memory Consistency Model, "Scope": .volatile and .mmio accesses are relaxed at .sys
// scope (ld / st), atomics without a scope are .gpu (atom, red), membar.gl is fence.sc.gpu.
RaceCheck::Scope RaceCheck::scope_of(const Instr& in, Scope dflt) const {
  auto has = [&](int id) { return id >= 0 && in.mods.test(size_t(id)); };
  if (has(mod_cta_)) return kCta;
  if (has(mod_cluster_)) return kCluster;
  if (has(mod_gpu_) || has(mod_gl_)) return kGpu;
  if (has(mod_sys_) || has(mod_volatile_) || has(mod_mmio_)) return kSys;
  return dflt;
}

// ---- accesses -----------------------------------------------------------------------------------

void RaceCheck::access(ExecCtx& c, Space space, uint64_t addr, const uint8_t* p, uint32_t size, Access acc,
                       int lane) {
  const Instr& in = c.fn->code[c.pc];
  const bool write = acc != Access::Read;
  Cta* const cta = smem_owner(c, p);
  if (acc == Access::Atomic || strong_instr(in)) {
    // Morally strong accesses (atomics, volatile, relaxed/acquire/release) do not race with each
    // other and carry synchronisation: a strong write releases, a strong read acquires, through
    // the location (a fence + strong access pattern of the memory model, taken generously).
    const uint64_t key = uint64_t(reinterpret_cast<uintptr_t>(p)) >> 2;
    strong(c, in, key, cta ? nullptr : &strong_global_[key], acc, write);
    return;
  }
  if (cta) {
    RaceCluster& cl = cluster_of(*cta);
    const uint16_t tid = warp_tid(*c.warp);
    if (new_instr_) {  // each instruction's accesses get their own clock: lanes of one warp tell them apart
      new_instr_ = false;
      ++cl.warp[tid][tid];
    }
    check_range(cl, *cta, uint32_t(p - cta->smem.data()), size, write, cl.warp[tid], tid, uint8_t(lane), &in, true);
    return;
  }
  const bool global = space == Space::Global ||
                      (space == Space::Generic && !in_window(addr, kLocalWindow) && !in_window(addr, kParamWindow));
  if (global && e_.cfg.racecheck_global) {
    RaceCluster& cl = cluster_of(*c.cta);
    const uint16_t tid = warp_tid(*c.warp);
    if (new_instr_) {
      new_instr_ = false;
      ++cl.warp[tid][tid];
    }
    check_global(c, cl, addr, p, size, write, tid, uint8_t(lane), &in);
  }
}

void RaceCheck::access_warp(ExecCtx& c, Space space, const uint64_t* addr, uint64_t imm, uint8_t* const* p,
                            uint32_t size, Access acc, uint32_t mask) {
  const Instr& in = c.fn->code[c.pc];
  Cta& cta = *c.cta;
  const uint8_t* base = cta.smem.data();
  bool own = acc != Access::Atomic && !strong_instr(in);
  for_lanes(mask, [&](int l) { own &= p[l] >= base && p[l] < base + cta.smem.size(); });
  if (!own) {
    for_lanes(mask, [&](int l) { access(c, space, addr[l] + imm, p[l], size, acc, l); });
    return;
  }
  RaceCluster& cl = cluster_of(cta);
  const uint16_t tid = warp_tid(*c.warp);
  if (new_instr_) {
    new_instr_ = false;
    ++cl.warp[tid][tid];
  }
  const bool write = acc != Access::Read;
  auto& sh = cl.shadow[cta.rank];
  const uint8_t* prev = nullptr;
  for_lanes(mask, [&](int l) {
    const uint32_t off = uint32_t(p[l] - base);
    if (!write && p[l] == prev) {
      // The bytes the previous lane just read: the same check again, only the last reader's lane
      // changes (a broadcast read of one address by many lanes).
      for (uint32_t i = off; i < std::min<uint32_t>(off + size, uint32_t(sh.size())); ++i) sh[i].r.lane = uint8_t(l);
      return;
    }
    prev = p[l];
    check_range(cl, cta, off, size, write, cl.warp[tid], tid, uint8_t(l), &in, true);
  });
}

std::string RaceCheck::global_place(uint64_t addr) const {
  if (const auto* al = e_.global.find(addr))
    return "global memory at address " + hex(addr) + " (allocation '" + al->name + "' + " + hex(addr - al->base) + ")";
  return "global memory at address " + hex(addr);
}

// Global memory, per 4-byte word: the same last-write / last-read check, restricted to the bytes
// of the word both accesses touched (threads writing neighbouring bytes do not conflict), by
// grid-wide thread ids: the shadow lives for the launch, so accesses of different clusters meet.
void RaceCheck::check_global(ExecCtx& c, RaceCluster& cl, uint64_t addr, const uint8_t* p, uint32_t n, bool write,
                             uint16_t tid, uint8_t lane, const Instr* site) {
  (void)c;
  const VClock& vc = cl.warp[tid];
  const uint32_t now = vc[tid];
  const uint32_t synced = cl.lanes_synced[tid];
  const uint64_t me = cl.base + tid;
  auto unordered = [&](const GlobalAcc& a, uint8_t bytes) {
    if (a.gid == kNoGid || !(a.bytes & bytes)) return false;
    if (a.gid != me) return knows(cl, vc, a.gid) < a.clk;
    return a.lane != lane && a.clk != now && a.clk > synced;
  };
  for (uint64_t w = addr >> 2; w <= (addr + n - 1) >> 2; ++w) {
    if (w >> 10 != page_index_) {  // the lanes of a warp mostly stay in one page: look it up once
      auto& page = global_pages_[w >> 10];
      if (!page) page = std::make_unique<GlobalCell[]>(1024);
      page_index_ = w >> 10;
      page_ = page.get();
    }
    GlobalCell& cell = page_[w & 1023];
    uint8_t bytes = 0;
    for (uint64_t b = std::max(addr, w << 2); b < std::min(addr + n, (w << 2) + 4); ++b) bytes |= uint8_t(1u << (b & 3));
    const uint64_t first = std::max(addr, w << 2);
    if (write) {
      if (unordered(cell.w, bytes)) report_global("WAW", cell.w, true, me, lane, site, true, first, p + (first - addr));
      if (unordered(cell.r, bytes)) report_global("WAR", cell.r, false, me, lane, site, true, first);
      cell.w = {now, lane, bytes, me, site};
      cell.r.gid = kNoGid;
    } else {
      if (unordered(cell.w, bytes)) report_global("RAW", cell.w, true, me, lane, site, false, first);
      cell.r = {now, lane, bytes, me, site};
    }
  }
}

// The releasing clock as grid-wide entries: its own cluster's (non-zero) entries, then what it
// knows of the others, in id order.
const GridEntries& RaceCheck::to_grid(const RaceCluster& cl, const VClock& vc) {
  foreign_.clear();
  for (size_t i = 0; i < vc.local.size(); ++i)
    if (vc.local[i]) foreign_.emplace_back(cl.base + i, vc.local[i]);
  if (vc.grid) merge_max(foreign_, *vc.grid, scratch_);
  else scratch_.swap(foreign_);
  return scratch_;
}

void RaceCheck::acquire_grid(const RaceCluster& cl, VClock& vc, const GridEntries& obj) {
  foreign_.clear();
  for (const auto& [gid, clk] : obj) {
    if (gid - cl.base < vc.local.size()) vc.local[gid - cl.base] = std::max(vc.local[gid - cl.base], clk);
    else foreign_.push_back({gid, clk});
  }
  join_grid(vc.grid, foreign_);
}

// A strong write or atomic releases the thread's clocks into its location, a strong read or
// atomic acquires them, when the two are morally strong: each one's scope includes the other's
// thread (PTX ISA, Memory Consistency Model, "Morally strong operations"). Within the cluster any
// strong write releases (the fence + strong write pattern taken generously) and any strong read
// acquires: a .cta one only within its CTA. To other clusters (`grid`, global memory) only a
// release of .gpu scope or wider publishes: .release / .acq_rel, or a strong write after a fence of
// the warp (released at the narrower of the fence's and the write's scopes); a strong read or
// atomic of .gpu scope or wider acquires from there.
void RaceCheck::strong(ExecCtx& c, const Instr& in, uint64_t key, SyncObj* grid, Access acc, bool write) {
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  lanes_sync(cl, tid);
  VClock& me = cl.warp[tid];
  const Scope scope = scope_of(in, acc == Access::Atomic ? kGpu : kSys);
  // One CTA in the cluster: its .cta and .cluster scopes see the same threads.
  const bool split = cl.nctas > 1;
  const uint64_t cta_key = key | uint64_t(c.cta->rank) << 56;
  if (acc == Access::Atomic || !write) {
    if (split) {
      auto it = cl.strong_cta.find(cta_key);
      if (it != cl.strong_cta.end()) join(me, it->second);
    }
    if (!split || scope >= kCluster) {
      auto it = cl.strong.find(key);
      if (it != cl.strong.end()) join(me, it->second);
    }
  }
  static std::pair<const SyncObj*, uint64_t> none;
  auto& seen = grid ? seen_[cl.base + tid] : none;
  auto holds = [&] { return seen.first == grid && seen.second == grid->version; };
  if (grid && scope >= kGpu && (acc == Access::Atomic || !write) && !grid->clocks.empty() && !holds()) {
    acquire_grid(cl, me, grid->clocks);
    seen = {grid, grid->version};
  }
  if (!write) return;
  // The lanes after the first of one instruction release the clock the first released (the
  // warp's clock ticked after it: what the warp does next is not released).
  if (strong_ticked_) --me[tid];
  if (split) join(cl.strong_cta[cta_key], me);
  if (!split || scope >= kCluster) join(cl.strong[key], me);
  auto has = [&](int id) { return id >= 0 && in.mods.test(size_t(id)); };
  const Scope release = has(mod_release_) || has(mod_acq_rel_) ? scope : std::min(scope, Scope(cl.fenced[tid]));
  if (grid && release >= kGpu) {
    const GridEntries& mine = to_grid(cl, me);
    if (!covers(grid->clocks, mine)) {
      // The warp had acquired the object before: it holds all of it after the merge too.
      const bool held = holds();
      merge_max(grid->clocks, mine, foreign_);
      grid->clocks.swap(foreign_);
      grid->version = ++next_version_;
      if (held) seen.second = grid->version;
    }
  }
  ++me[tid];
  strong_ticked_ = true;
}

// fence.{sc,acq_rel}.scope and membar.{cta,gl,sys}: the fence + strong write release pattern.
void RaceCheck::thread_fence(ExecCtx& c) {
  if (!c.cta->race) return;
  RaceCluster& cl = cluster_of(*c.cta);
  uint8_t& f = cl.fenced[warp_tid(*c.warp)];
  f = std::max<uint8_t>(f, scope_of(c.fn->code[c.pc], kGpu));
}

void RaceCheck::check_range(RaceCluster& cl, Cta& cta, uint32_t off, uint32_t n, bool write, const VClock& vc,
                            uint16_t tid, uint8_t lane, const Instr* site, bool defer_waw) {
  auto& sh = cl.shadow[cta.rank];
  const uint32_t end = std::min<uint32_t>(off + n, uint32_t(sh.size()));
  const uint32_t now = vc[tid];
  // Another lane of the same warp: ordered by a synchronising instruction of the warp between the
  // two accesses; one instruction's lanes (the same clock) are not reported against each other.
  const uint32_t synced = tid < cl.lanes_synced.size() ? cl.lanes_synced[tid] : ~0u;
  auto unordered = [&](const RaceAcc& a) __attribute__((always_inline)) {
    if (a.tid == kNone) return false;
    if (a.tid != tid) return vc[a.tid] < a.clk;
    return a.lane != lane && a.clk != now && a.clk > synced;
  };
  // The common case, a word whose bytes were last accessed together: one check for all of them
  // (a report names the first byte, as the loop below would before its repeats are dropped). A
  // write-after-write to be settled at the instruction's end takes the loop (it needs every byte).
  if (end - off > 1 && end <= sh.size()) {
    const RaceCell& first = sh[off];
    bool same = true;
    for (uint32_t i = off + 1; i < end && same; ++i) same = std::memcmp(&sh[i], &first, sizeof(RaceCell)) == 0;
    if (same && !(write && defer_waw && unordered(first.w))) {
      if (write) {
        if (unordered(first.w)) report(cl, cta, off, "WAW", first.w, true, tid, lane, site, true);
        if (unordered(first.r)) report(cl, cta, off, "WAR", first.r, false, tid, lane, site, true);
      } else if (unordered(first.w)) {
        report(cl, cta, off, "RAW", first.w, true, tid, lane, site, false);
      }
      // The new RaceAcc's first 8 bytes (clk, tid, lane, pad; little-endian) built in a register:
      // a struct assembled field by field and copied whole stalls on store forwarding per call.
      const uint64_t head = uint64_t(now) | uint64_t(tid) << 32 | uint64_t(lane) << 48;
      static_assert(sizeof(RaceAcc) == 16 && offsetof(RaceAcc, site) == 8 && std::endian::native == std::endian::little);
      for (uint32_t i = off; i < end; ++i) {
        RaceAcc& a = write ? sh[i].w : sh[i].r;
        std::memcpy(static_cast<void*>(&a), &head, 8);  // the first 8 bytes; site follows
        a.site = site;
        if (write) sh[i].r = RaceAcc{};
      }
      return;
    }
  }
  for (uint32_t i = off; i < end; ++i) {
    RaceCell& cell = sh[i];
    if (write) {
      if (unordered(cell.w)) {
        if (defer_waw) waw_.push_back({&cl, &cta, i, &cta.smem[i], cta.smem[i], cell.w, tid, lane, site, {}, {}});
        else report(cl, cta, i, "WAW", cell.w, true, tid, lane, site, true);
      }
      if (unordered(cell.r)) report(cl, cta, i, "WAR", cell.r, false, tid, lane, site, true);
      cell.w = {now, tid, lane, 0, site};
      cell.r = RaceAcc{};  // a later access ordered after this write is ordered after those reads
    } else {
      if (unordered(cell.w)) report(cl, cta, i, "RAW", cell.w, true, tid, lane, site, false);
      cell.r = {now, tid, lane, 0, site};
    }
  }
}

// Writing the value a byte already holds changes nothing any reader can see: compilers emit such
// stores from every warp (Triton's warp-specialized kernels write their shared descriptors so),
// and they are not reported. Any WAW that changed the byte is.
void RaceCheck::settle_waw() {
  for (PendingWaw& w : waw_) {
    if (*w.byte == w.before) continue;
    if (!w.message.empty()) emit(w.key, w.site, std::move(w.message));
    else report(*w.cl, *w.cta, w.off, "WAW", w.first, true, w.tid, w.lane, w.site, true);
  }
  waw_.clear();
}

// ---- reports ------------------------------------------------------------------------------------

std::string RaceCheck::who(RaceCluster& cl, uint16_t tid, uint8_t lane, const Instr* site) const {
  const uint32_t line = site ? site->line : 0;
  const std::string where = e_.prog.file_name + ":" + std::to_string(line);
  if (tid >= cl.nwarps * cl.nctas) {
    const std::string& what = cl.slot_what[tid - cl.nwarps * cl.nctas];
    return (what.empty() ? std::string("an asynchronous operation") : what) + " (issued at " + where + ")";
  }
  const uint32_t rank = tid / cl.nwarps, w = tid % cl.nwarps;
  return "thread " + std::to_string(w * 32 + lane) + " (warp " + std::to_string(w) + ", lane " + std::to_string(lane) +
         ") of CTA rank " + std::to_string(rank) + " at " + where;
}

void RaceCheck::report(RaceCluster& cl, Cta& cta, uint32_t off, const char* kind, const RaceAcc& first,
                       bool first_write, uint16_t tid, uint8_t lane, const Instr* site, bool write,
                       const std::string& place) {
  // Once per pair of instructions and kind, like compute-sanitizer's racecheck summary.
  const std::string key = std::to_string(uintptr_t(first.site)) + "/" + std::to_string(uintptr_t(site)) + kind;
  if (reported_.count(key)) return;
  const std::string cta_id =
      "CTA (" + std::to_string(cta.id.x) + "," + std::to_string(cta.id.y) + "," + std::to_string(cta.id.z) + ")";
  // place: empty (shared memory), " at lane L, column C" (Tensor Memory) or "global memory at ...".
  const std::string where = place.empty()             ? "shared memory of " + cta_id + " at offset " + hex(off)
                            : place.rfind(" at ", 0) == 0 ? "tensor memory of " + cta_id + place
                                                        : place;
  emit(key, site,
       std::string("race (") + kind + ") on " + where + ": " + (write ? "write" : "read") + " by " +
           who(cl, tid, lane, site) + " is not ordered after the " + (first_write ? "write" : "read") + " by " +
           who(cl, first.tid, first.lane, first.site));
}

void RaceCheck::emit(const std::string& key, const Instr* site, std::string message) {
  if (!reported_.insert(key).second) return;
  Diagnostic d;
  d.severity = Diagnostic::Severity::Warning;
  d.file = e_.prog.file_name;
  if (site) {
    d.loc = {site->line, site->col};
    d.source_line = source_line_of(e_.prog.source, site->line);
  }
  d.message = std::move(message);
  e_.note(std::move(d));
}

// A thread anywhere in the grid: its CTA by coordinates (CTA ranks repeat in every cluster).
std::string RaceCheck::global_who(uint64_t gid, uint8_t lane, const Instr* site) const {
  const uint64_t serial = gid / clock_size_, t = gid % clock_size_;
  const uint32_t rank = uint32_t(t / cluster_warps_), w = uint32_t(t % cluster_warps_);
  const Dim3& c = cluster_shape_;
  const Dim3 first = cluster_first_[serial];
  const Dim3 id = {first.x + rank % c.x, first.y + rank / c.x % c.y, first.z + rank / (c.x * c.y)};
  return "thread " + std::to_string(w * 32 + lane) + " (warp " + std::to_string(w) + ", lane " + std::to_string(lane) +
         ") of CTA (" + std::to_string(id.x) + "," + std::to_string(id.y) + "," + std::to_string(id.z) + ") at " +
         e_.prog.file_name + ":" + std::to_string(site ? site->line : 0);
}

// A WAW (byte given) waits for the end of the instruction: a write of the value already there is
// not reported (settle_waw).
void RaceCheck::report_global(const char* kind, const GlobalAcc& first, bool first_write, uint64_t gid, uint8_t lane,
                              const Instr* site, bool write, uint64_t addr, const uint8_t* byte) {
  const std::string key = std::to_string(uintptr_t(first.site)) + "/" + std::to_string(uintptr_t(site)) + kind;
  if (reported_.count(key)) return;
  std::string message = std::string("race (") + kind + ") on " + global_place(addr) + ": " +
                        (write ? "write" : "read") + " by " + global_who(gid, lane, site) +
                        " is not ordered after the " + (first_write ? "write" : "read") + " by " +
                        global_who(first.gid, first.lane, first.site);
  if (!byte) return emit(key, site, std::move(message));
  PendingWaw w{};
  w.byte = byte;
  w.before = *byte;
  w.site = site;
  w.message = std::move(message);
  w.key = key;
  waw_.push_back(std::move(w));
}

void RaceCheck::proxy_race(ExecCtx& c, Cta& cta, uint32_t off, const std::string& what) {
  RaceCluster& cl = cluster_of(cta);
  const RaceAcc& w = off < cl.shadow[cta.rank].size() ? cl.shadow[cta.rank][off].w : RaceAcc{};
  const Instr* site = &c.fn->code[c.pc];
  const std::string key = std::to_string(uintptr_t(w.site)) + "/" + std::to_string(uintptr_t(site)) + "proxy";
  if (!reported_.insert(key).second) return;
  Diagnostic d;
  d.severity = Diagnostic::Severity::Warning;
  d.file = e_.prog.file_name;
  d.loc = {site->line, site->col};
  d.source_line = source_line_of(e_.prog.source, site->line);
  d.message = "race (RAW, async proxy) on shared memory of CTA (" + std::to_string(cta.id.x) + "," +
              std::to_string(cta.id.y) + "," + std::to_string(cta.id.z) + ") at offset " + hex(off) + ": " + what +
              " at " + e_.prog.file_name + ":" + std::to_string(site->line) +
              " reads it through the async proxy, but the generic-proxy write" +
              (w.tid != kNone ? " by " + who(cl, w.tid, w.lane, w.site) : std::string()) +
              " is not followed by fence.proxy.async";
  e_.note(std::move(d));
}

// ---- CTA and cluster barriers -------------------------------------------------------------------

void RaceCheck::bar_arrive(ExecCtx& c, uint32_t id, bool waits) {
  if (id >= 16) return;  // the engine faults on it
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  const size_t b = size_t(c.cta->rank) * 16 + id;
  lanes_sync(cl, tid);
  join(cl.bar[b], cl.warp[tid]);
  ++cl.warp[tid][tid];
  if (waits) cl.bar_waiters[b].push_back(tid);
}

void RaceCheck::bar_complete(CtaBarrier& b) {
  for (auto& cta : e_.ctas) {
    if (&b < cta->bars.data() || &b >= cta->bars.data() + cta->bars.size()) continue;
    RaceCluster& cl = cluster_of(*cta);
    const size_t i = size_t(cta->rank) * 16 + size_t(&b - cta->bars.data());
    for (uint16_t t : cl.bar_waiters[i]) join(cl.warp[t], cl.bar[i]);
    cl.bar_waiters[i].clear();
    return;
  }
}

void RaceCheck::cluster_arrive(ExecCtx& c) {
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  lanes_sync(cl, tid);
  join(cl.cluster_acc, cl.warp[tid]);
  ++cl.warp[tid][tid];
}

void RaceCheck::cluster_complete(Cta& any) {
  RaceCluster& cl = cluster_of(any);
  cl.cluster_snap = cl.cluster_acc;
}

void RaceCheck::cluster_acquire(ExecCtx& c) {
  RaceCluster& cl = cluster_of(*c.cta);
  lanes_sync(cl, warp_tid(*c.warp));
  join(cl.warp[warp_tid(*c.warp)], cl.cluster_snap);
}

// ---- mbarriers ----------------------------------------------------------------------------------

VClock& RaceCheck::agent_vc(RaceCluster& cl, const Warp* cur, uint16_t* tid) {
  if (agent_) {
    *tid = agent_->tid;
    return agent_->vc;
  }
  *tid = warp_tid(*cur);
  return cl.warp[*tid];
}

void RaceCheck::mbar_release(MbarrierSlot& m, const Warp* cur) {
  if (!agent_ && (!cur || !cur->cta || !cur->cta->race)) return;
  RaceCluster& cl = agent_ ? *agent_->cl : cluster_of(*cur->cta);
  uint16_t tid;
  VClock& vc = agent_vc(cl, cur, &tid);
  join(mbar_[&m].first, vc);
  if (!agent_) {
    lanes_sync(cl, tid);
    ++vc[tid];
  }
}

void RaceCheck::mbar_phase(MbarrierSlot& m, const Warp* cur) {
  if (!agent_ && (!cur || !cur->cta || !cur->cta->race)) return;
  RaceCluster& cl = agent_ ? *agent_->cl : cluster_of(*cur->cta);
  uint16_t tid;
  auto& s = mbar_[&m];
  join(s.first, agent_vc(cl, cur, &tid));
  // Cumulative: a waiter that sees a later phase has seen the earlier ones.
  s.second = s.first;
}

void RaceCheck::mbar_acquire(ExecCtx& c, const MbarrierSlot& m) {
  auto it = mbar_.find(&m);
  RaceCluster& cl = cluster_of(*c.cta);
  lanes_sync(cl, warp_tid(*c.warp));
  if (it == mbar_.end()) return;
  join(cl.warp[warp_tid(*c.warp)], it->second.second);
}

// ---- asynchronous operations --------------------------------------------------------------------

void RaceCheck::op_smem(RaceOp& op, Cta& cta, uint32_t off, uint32_t n, bool write) {
  if (cta.race.get() != op.cl) return;
  check_range(*op.cl, cta, off, n, write, op.vc, op.tid, op.lane, op.site);
}

void RaceCheck::op_tmem(RaceOp& op, Cta& cta, uint32_t lane, uint32_t lanes, uint32_t column, uint32_t columns,
                        bool write) {
  if (cta.race.get() != op.cl) return;
  check_tmem(*op.cl, cta, lane, lanes, column, columns, write, op.vc, op.tid, op.lane, op.site);
}

void RaceCheck::tmem_access(ExecCtx& c, uint32_t lane, uint32_t lanes, uint32_t column, uint32_t columns, bool write,
                            int tlane) {
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  check_tmem(cl, *c.cta, lane, lanes, column, columns, write, cl.warp[tid], tid, uint8_t(tlane), &c.fn->code[c.pc]);
}

// Tensor Memory cells: the same last-write / last-read shadow as shared memory, per 32-bit cell.
void RaceCheck::check_tmem(RaceCluster& cl, Cta& cta, uint32_t lane, uint32_t lanes, uint32_t column,
                           uint32_t columns, bool write, const VClock& vc, uint16_t tid, uint8_t tlane,
                           const Instr* site) {
  constexpr uint32_t kLanes = 128, kColumns = 512;
  auto& sh = cl.tmem[cta.rank];
  if (sh.empty()) sh.resize(size_t(kLanes) * kColumns);
  const uint32_t now = vc[tid];
  auto unordered = [&](const RaceAcc& a) { return a.tid != kNone && a.tid != tid && vc[a.tid] < a.clk; };
  auto place = [](uint32_t l, uint32_t col) {
    return " at lane " + std::to_string(l) + ", column " + std::to_string(col);
  };
  for (uint32_t l = lane; l < std::min(lane + lanes, kLanes); ++l)
    for (uint32_t col = column; col < std::min(column + columns, kColumns); ++col) {
      RaceCell& cell = sh[size_t(l) * kColumns + col];
      if (write) {
        if (unordered(cell.w)) report(cl, cta, 0, "WAW", cell.w, true, tid, tlane, site, true, place(l, col));
        if (unordered(cell.r)) report(cl, cta, 0, "WAR", cell.r, false, tid, tlane, site, true, place(l, col));
        cell.w = {now, tid, tlane, 0, site};
        cell.r.tid = kNone;
      } else {
        if (unordered(cell.w)) report(cl, cta, 0, "RAW", cell.w, true, tid, tlane, site, false, place(l, col));
        cell.r = {now, tid, tlane, 0, site};
      }
    }
}

std::shared_ptr<RaceOp> RaceCheck::new_tcgen05_op(const Warp* cur, const Instr* site, const std::string& what) {
  auto op = new_op(cur, site, what);
  if (!op) return op;
  VClock& pipe = op->cl->tcgen05_pipe[cur->cta->rank];
  join(op->vc, pipe);
  pipe = op->vc;
  last_op_ = op;
  return op;
}

// wgmma.mma_async is a warpgroup operation (PTX ISA 9.7.15.5): the four warps' n-th mma_async are
// one operation, one pseudo-thread. It reads its shared-memory operands through the async proxy
// (memory model, "Proxies") and is complete only once a wgmma.wait_group covers its wgmma-group
// (9.7.15.5, as for the accumulator registers): until then the warpgroup must not touch its operands. Any warp of the
// warpgroup that passed such a wait has observed the operation (the wait is .sync.aligned).
void RaceCheck::wgmma_issue(ExecCtx& c, uint64_t nth, uint64_t group) {
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  auto& ops = cl.wgmma[tid / 4u];
  for (auto it = ops.rbegin(); it != ops.rend(); ++it)
    if (it->nth == nth) {
      join(it->op->vc, cl.warp[tid]);
      wgmma_op_ = it->op;
      return;
    }
  auto op = new_op(c.warp, &c.fn->code[c.pc], "wgmma.mma_async");
  ops.push_back({nth, group, op});
  wgmma_op_ = op;
}

void RaceCheck::wgmma_select(ExecCtx& c, uint64_t nth) {
  RaceCluster& cl = cluster_of(*c.cta);
  wgmma_op_ = nullptr;
  for (auto& w : cl.wgmma[warp_tid(*c.warp) / 4u])
    if (w.nth == nth) wgmma_op_ = w.op;
}

void RaceCheck::wgmma_read(ExecCtx& c, uint32_t off, uint32_t n) {
  if (wgmma_op_) check_range(*wgmma_op_->cl, *c.cta, off, n, false, wgmma_op_->vc, wgmma_op_->tid, 0, wgmma_op_->site);
}

void RaceCheck::wgmma_wait(ExecCtx& c, uint64_t done_below) {
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  auto it = cl.wgmma.find(tid / 4u);
  if (it == cl.wgmma.end()) return;
  auto& ops = it->second;
  lanes_sync(cl, tid);
  const uint8_t bit = uint8_t(1u << (tid % 4u));
  for (auto& w : ops)
    if (w.group < done_below && !(w.waited & bit)) {
      join(cl.warp[tid], w.op->vc);
      w.waited |= bit;
    }
  while (!ops.empty() && ops.front().waited == 0xf) ops.pop_front();
}

std::shared_ptr<RaceOp> RaceCheck::new_op(const Warp* cur, const Instr* site, const std::string& what) {
  if (!cur || !cur->cta || !cur->cta->race) return nullptr;
  RaceCluster& cl = cluster_of(*cur->cta);
  auto op = std::make_shared<RaceOp>();
  const uint32_t s = cl.next_slot++ % cl.nslots;
  const uint16_t issuer = warp_tid(*cur);
  op->cl = &cl;
  op->vc = cl.warp[issuer];
  op->tid = uint16_t(cl.nwarps * cl.nctas + s);
  op->vc[op->tid] = ++cl.slot_clk[s];
  op->issuer = issuer;
  op->site = site;
  op->what = what;
  cl.slot_what[s] = what;
  lanes_sync(cl, issuer);
  ++cl.warp[issuer][issuer];  // the issue releases: the issuer's later accesses are not ordered before it
  return op;
}

void RaceCheck::async_issue(AsyncOp& op, const Warp* cur, const Instr* site) {
  const std::string full = op.description();
  std::string what = full.substr(0, full.find(" of "));  // "cp.async.bulk.tensor.2d load"
  op.race = new_op(cur, site, what);
}

void RaceCheck::async_begin(AsyncOp& op) {
  RaceOp* r = op.race.get();
  if (!r) return;
  agent_ = r;
  if (op.dst_cta && op.dst_bytes && op.dst_cta->race.get() == r->cl)
    check_range(*r->cl, *op.dst_cta, op.dst_off, op.dst_bytes, !op.src_only, r->vc, r->tid, r->lane, r->site);
  else if (!op.dst_cta)
    // A pure signal (cp.async.mbarrier.arrive, tcgen05 work): it completes after the issuer's
    // earlier operations, so what it publishes includes theirs.
    join(r->vc, r->cl->done[r->issuer]);
}

void RaceCheck::async_end(AsyncOp& op) {
  RaceOp* r = op.race.get();
  if (!r) return;
  join(r->cl->done[r->issuer], r->vc);
  agent_ = nullptr;
}

void RaceCheck::async_groups_acquire(ExecCtx& c) {
  RaceCluster& cl = cluster_of(*c.cta);
  const uint16_t tid = warp_tid(*c.warp);
  lanes_sync(cl, tid);
  join(cl.warp[tid], cl.done[tid]);
}

void RaceCheck::warp_sync(ExecCtx& c) { lanes_sync(cluster_of(*c.cta), warp_tid(*c.warp)); }

}  // namespace ptxsim
