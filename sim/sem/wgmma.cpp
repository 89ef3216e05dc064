// wgmma (sm_90a; PTX ISA 9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
// wgmma.fence, wgmma.commit_group, wgmma.wait_group and wgmma.mma_async.
//
// A warpgroup is four consecutive warps (warps 4g..4g+3 of the CTA). wgmma.mma_async computes
// D (64 x N) = A (64 x K) * B (K x N) + D, scale-d = false dropping the old D. Warp w%4 of the
// group holds rows 16*(w%4)..+15 of D (and of A when A comes from registers), so each warp's rows
// depend only on its own A rows and on B: ptxsim computes each warp's 16 rows when that warp issues
// the instruction (B, the same for the four, is gathered once per operation: group_b) and checks
// that the warps of the group issue the same sequence of mma_async (.aligned). Operand layouts:
//  * D: register i of a lane holds element (row, col) with row = 16*(w%4) + lane/4 + 8*((i/2)%2),
//    col = 8*(i/4) + 2*(lane%4) + i%2 (PTX ISA "Register Fragments", the m16n8 accumulator tile
//    repeated N/8 times); an f16 D packs elements 2j (low half) and 2j+1 in register j;
//  * A in registers: the warp's 16 x K slice with the mma.m16n8k{16,8,32} A-fragment layout of the
//    same element width (model/fragments); .b1 uses the 8-bit layout on bytes of 8 elements;
//  * A / B from shared memory: the 64-bit matrix descriptor (model/wgmma/smem_desc.h).
// imm-scale-a/b = -1 negate A/B (a sign flip, exact); imm-trans-a/b = 1 read A/B MN-major
// (.f16/.bf16 only). Numerics: model/tensorcore rows for Unit::Wgmma through tc::mma_tile; .s8/.u8
// exact with wraparound or .satfinite clamping; .b1 D += popc(a AND b).
//
// Asynchrony: the accumulators receive the result when a wgmma.wait_group that covers the
// instruction's wgmma-group completes (sim/exec/wgmma_state.h); an instruction touching an
// in-flight accumulator, or writing an in-flight A register, is a hazard reported with its PTX line;
// an mma_async reading a register written since the last wgmma.fence (or the warp's first
// mma_async without any wgmma.fence) is warned about; shared memory written by generic stores and
// read without fence.proxy.async is warned about as for the TMA.
//
// Sparse A (wgmma.mma_async.sp, PTX ISA 9.7.15.6): A is structured-sparse (2:4; .tf32 1:2) and
// stored packed, 64 x K/2, exactly like a dense A of K/2 columns (same registers, same descriptor
// layouts); the sp-meta registers hold, per chunk of a row, where the kept elements were
// (sim/sem/sparse_a.h, model/fragments). Each output is one dense dot of the K/2 kept products with
// the B elements they select; every sparse type is simulated (.f16/.bf16 k32, .tf32 k16, 8-bit k64).
#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <string>
#include <vector>

#include "model/fragments/fragments.h"
#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"
#include "model/wgmma/smem_desc.h"
#include "sim/exec/engine.h"
#include "sim/exec/racecheck.h"
#include "sim/isa/table.h"
#include "sim/sem/quad_vectors.h"
#include "sim/sem/sem_util.h"
#include "sim/sem/sparse_a.h"
#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace sem {
void check_reg_vector(const Binder& b, size_t i, int count, uint32_t width, const char* name);
}  // namespace sem

namespace {

namespace tc = model::tc;
namespace frag = model::frag;
namespace wg = model::wgmma;

using sem::hex;

enum class Elem : uint8_t { F16, BF16, TF32, E4M3, E5M2, S8, U8, B1 };

int elem_bits(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16: return 16;
    case Elem::TF32: return 32;
    case Elem::B1: return 1;
    default: return 8;
  }
}

tc::ElemFmt elem_fmt(Elem e) {
  switch (e) {
    case Elem::F16: return tc::ElemFmt::F16;
    case Elem::BF16: return tc::ElemFmt::BF16;
    case Elem::TF32: return tc::ElemFmt::TF32;
    case Elem::E4M3: return tc::ElemFmt::E4M3;
    default: return tc::ElemFmt::E5M2;
  }
}

// Everything decode time knows about one wgmma.mma_async (interned; Instr::imm points at it).
struct Config {
  int n = 0, k = 0;
  Elem a = Elem::F16, b = Elem::F16;
  DType d = DType::F32;        // F32, F16 or S32
  bool a_in_regs = false;
  bool satfinite = false;
  bool neg_a = false, neg_b = false, trans_a = false, trans_b = false;
  bool sparse = false;         // .sp: operands 3, 4 are sp-meta and sp-sel
  uint8_t sp_sel = 0;          // the sparsity selector (immediate)
  const tc::DotModel* model = nullptr;
  bool operator==(const Config&) const = default;
  int d_regs() const { return d == DType::F16 ? n / 4 : n / 2; }
  int scale_d_op() const { return sparse ? 5 : 3; }  // operand index of scale-d
  bool is_float() const { return a != Elem::S8 && a != Elem::U8 && a != Elem::B1; }
};

const Config* intern(const Config& cfg) {
  static std::mutex mu;
  static std::deque<Config> pool;
  std::lock_guard<std::mutex> lock(mu);
  for (const Config& c : pool)
    if (c == cfg) return &c;
  pool.push_back(cfg);
  return &pool.back();
}

// ---- per-warp state -------------------------------------------------------------------------------

const std::string& slot_name(const ExecCtx& c, uint32_t slot) {
  static const std::string unnamed = "(register)";
  return slot < c.fn->slot_names.size() ? c.fn->slot_names[slot] : unnamed;
}

// Per form of the instruction table: operand 0 is a destination ("d" / "p" in the operand spec),
// and whether the form ends the thread's kernel (exit, or ret from the kernel's frame).
struct FormFacts {
  std::vector<uint8_t> op0_dest, ends;
  FormFacts() {
    for (const FormSpec& f : InstrTable::get().forms()) {
      op0_dest.push_back(f.operands[0] == 'd' || f.operands[0] == 'p');
      const std::string_view op = f.opcode;
      ends.push_back(op == "exit" || op == "ret");
    }
  }
};
const FormFacts& form_facts() {
  static const FormFacts facts;
  return facts;
}

void exec_fence(ExecCtx& c, const Instr& in, uint32_t mask);
void exec_commit(ExecCtx& c, const Instr& in, uint32_t mask);
void exec_wait(ExecCtx& c, const Instr& in, uint32_t mask);
void exec_mma(ExecCtx& c, const Instr& in, uint32_t mask);

// The registers some wgmma.mma_async of `fn` names as its accumulator or A fragment (the only ones
// whose writes the fence check needs), and per instruction whether its destination is one of them.
void find_wgmma_registers(const Function& fn, WgmmaRegisterFacts& s) {
  s.index.assign(fn.num_slots, WgmmaRegisterFacts::kNone);
  s.count = 0;
  auto mark_vec = [&](const Operand& o, uint32_t n) {
    if (o.kind != Operand::Kind::Vec) return;
    for (uint32_t e = 0; e < n && e < o.count; ++e) {
      const Operand& el = fn.vec_pool[o.slot + e];
      if (el.kind == Operand::Kind::Reg && el.slot < fn.num_slots && s.index[el.slot] == WgmmaRegisterFacts::kNone)
        s.index[el.slot] = s.count++;
    }
  };
  for (const Instr& in : fn.code) {
    if (in.fn != exec_mma || in.nops < 2) continue;
    const Config& cfg = *reinterpret_cast<const Config*>(in.imm);
    mark_vec(in.op[0], uint32_t(cfg.d_regs()));
    if (cfg.a_in_regs) mark_vec(in.op[1], 4);
  }
  const FormFacts& facts = form_facts();
  s.writes_wgmma_reg.assign(fn.code.size(), 0);
  for (size_t pc = 0; pc < fn.code.size(); ++pc) {
    const Instr& in = fn.code[pc];
    if (!facts.op0_dest[in.form] || in.nops == 0) continue;
    const Operand& o = in.op[0];
    bool hit = o.kind == Operand::Kind::Reg && s.is_wgmma(o.slot);
    if (o.kind == Operand::Kind::Vec)
      for (uint32_t e = 0; e < o.count; ++e) {
        const Operand& el = fn.vec_pool[o.slot + e];
        hit = hit || (el.kind == Operand::Kind::Reg && s.is_wgmma(el.slot));
      }
    s.writes_wgmma_reg[pc] = hit;
  }
  // Per instruction: whether any register it names (guard, operands, address bases, vector
  // elements) is one of them, or it ends the warp: only those need the in-flight watch.
  s.touches_wgmma_reg.assign(fn.code.size(), 0);
  const auto named = [&](uint32_t slot) { return s.is_wgmma(slot); };
  for (size_t pc = 0; pc < fn.code.size(); ++pc) {
    const Instr& in = fn.code[pc];
    bool hit = facts.ends[in.form] || (in.guard != kNoSlot && named(in.guard));
    for (uint32_t i = 0; i < in.nops && !hit; ++i) {
      const Operand& o = in.op[i];
      if (o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Addr) hit = named(o.slot);
      else if (o.kind == Operand::Kind::Vec)
        for (uint32_t e = 0; e < o.count; ++e) {
          const Operand& el = fn.vec_pool[o.slot + e];
          hit = hit || (el.kind == Operand::Kind::Reg && named(el.slot));
        }
    }
    s.touches_wgmma_reg[pc] = hit;
  }
}

WgmmaWarpState& state_of(ExecCtx& c) {
  auto& p = c.warp->wgmma;
  if (!p) p = std::make_unique<WgmmaWarpState>();
  if (p->fn != c.fn) {
    if (!p->in_flight.empty())
      c.fault("error", "wgmma instruction in function '" + c.fn->name + "' while wgmma.mma_async operations of '" +
                           p->fn->name + "' are in flight (ptxsim tracks one frame per warp)");
    p->fn = c.fn;
    std::unique_ptr<WgmmaRegisterFacts>& facts = c.eng->wgmma_register_facts[c.fn];
    if (!facts) {
      facts = std::make_unique<WgmmaRegisterFacts>();
      find_wgmma_registers(*c.fn, *facts);
    }
    p->regs = facts.get();
    p->d_latest.assign(facts->count, nullptr);
    p->a_in_flight.assign(facts->count, 0);
    p->written_line.assign(facts->count, 0);
    p->written_slots.clear();
    p->holding = false;
  }
  return *p;
}

bool is_wgmma(const Instr& in) {
  return in.fn == exec_fence || in.fn == exec_commit || in.fn == exec_wait || in.fn == exec_mma;
}

void require_full_warp(ExecCtx& c, uint32_t mask, const char* what) {
  if (mask != 0xffffffffu)
    c.fault("error", std::string(what) + " is .sync.aligned over the warpgroup: all 32 lanes of every warp must execute "
                     "it, but only lanes " + hex(mask) + " of warp " + std::to_string(c.warp->index) +
                     " do (inactive, exited or predicated off lanes)");
}

// ---- wgmma.fence / commit_group / wait_group ------------------------------------------------------

void exec_fence(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  require_full_warp(c, mask, "wgmma.fence");
  WgmmaWarpState& s = state_of(c);
  s.fenced = true;
  for (const uint32_t i : s.written_slots) s.written_line[i] = 0;
  s.written_slots.clear();
}

void exec_commit(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  require_full_warp(c, mask, "wgmma.commit_group");
  ++state_of(c).committed;
}

// Result buffers of retired operations, reused by the next mma_async on this thread: a fresh
// allocation per instruction lands on cold cache lines that the accumulator scatter then misses on.
struct ResultPool {
  // Buffers kept: a CTA's warps can have more operations in flight than 64 (four warps of a
  // warpgroup, each with a whole K block of mma_async issued before its wait_group), and a pool that
  // keeps fewer than the next CTA takes allocates (and zeroes) the rest again: half of the
  // operations of CuTe's wgmma_tma_sm90 tutorial did with 64. 256 of the largest D (n256: values
  // of 128 registers x 32 lanes x 8 bytes, rows of 16 x 256 x 4 bytes) are 12 MiB at most.
  static constexpr size_t kKeep = 256;
  std::vector<std::vector<uint64_t>> values;
  std::vector<std::vector<uint32_t>> rows;
  std::vector<std::vector<uint32_t>> slots;  // d_slots lists
};
ResultPool& result_pool() {
  thread_local ResultPool pool;
  return pool;
}
template <class V>
V take_from(std::vector<V>& pool) {
  if (pool.empty()) return {};
  V v = std::move(pool.back());
  pool.pop_back();
  return v;
}

template <class Reg>
void scatter_acc(const WgmmaInFlight& op, Reg reg);

// The in-flight operation whose D is the C of an mma_async on accumulator registers d_slots
// (rows elements, f16 or not): the newest one naming exactly those registers, provided no operation
// issued after it writes any of them (every register's newest value is then that operation's
// result). Null where there is none, or where a later operation's registers overlap these without
// being the same set (then C is gathered register by register).
// `untouched`: no operation in flight names a register in d_slots' range (the registers then hold
// their newest values themselves).
// (lo, hi: the least and greatest of d_slots. Operations whose ranges meet count as overlapping.)
const WgmmaInFlight* chain_source(const WgmmaWarpState& s, const std::vector<uint32_t>& d_slots, uint32_t lo,
                                  uint32_t hi, size_t rows, bool f16, bool& untouched) {
  untouched = false;
  if (d_slots.empty()) return nullptr;
  for (size_t i = s.in_flight.size(); i-- > 0;) {
    const WgmmaInFlight& op = s.in_flight[i];
    if (op.slot_lo > hi || op.slot_hi < lo) continue;
    return op.d_slots == d_slots && op.d_rows.size() == rows && op.f16 == f16 ? &op : nullptr;
  }
  untouched = true;
  return nullptr;
}

// The held rows (WgmmaWarpState::held) that registers d_slots still hold as one operation's D.
const uint32_t* held_rows(ExecCtx& c, const WgmmaWarpState& s, const std::vector<uint32_t>& d_slots, size_t rows,
                          bool f16) {
  if (!s.holding || d_slots.empty()) return nullptr;
  for (const WgmmaWarpState::HeldRows& h : s.held)
    if (h.slots == d_slots && h.f16 == f16 && h.rows.size() == rows && h.col == c.col(d_slots[0])) return h.rows.data();
  return nullptr;
}

// A result in the register layout, made when first read through d_latest: most results are only
// ever the next chained mma_async's C (d_rows) or scattered straight into the registers when they
// complete.
void materialize(WgmmaInFlight& op) {
  if (op.values_ready) return;
  scatter_acc(op, [&](int i) { return op.d_values.data() + size_t(i) * 32; });
  op.values_ready = true;
}

// The registers now hold op's D: keep its rows (WgmmaWarpState::held), dropping the held rows of
// registers it overlaps and, beyond kMaxHeld, the oldest.
void hold_rows(ExecCtx& c, WgmmaWarpState& s, WgmmaInFlight& op) {
  if (!s.holding) s.held.clear();
  s.holding = true;
  WgmmaWarpState::HeldRows entry;
  for (size_t i = 0; i < s.held.size();)
    if (s.held[i].slot_lo <= op.slot_hi && op.slot_lo <= s.held[i].slot_hi) {  // (ranges meet: may overlap)
      if (entry.rows.capacity() == 0) entry = std::move(s.held[i]);  // (its buffers reused)
      s.held.erase(s.held.begin() + long(i));
    } else {
      ++i;
    }
  if (s.held.size() >= WgmmaWarpState::kMaxHeld) s.held.erase(s.held.begin());
  std::swap(entry.rows, op.d_rows);
  entry.slots.assign(op.d_slots.begin(), op.d_slots.end());
  entry.slot_lo = op.slot_lo;
  entry.slot_hi = op.slot_hi;
  entry.col = c.col(entry.slots[0]);
  entry.f16 = op.f16;
  s.held.push_back(std::move(entry));
}

// Completes the oldest in-flight operation: its result reaches the registers, unless one of the
// next `later` operations, which complete in the same wgmma.wait_group, writes the very same
// registers (a chain of mma_async on one accumulator): that one's result would overwrite this one's
// before anything could read it.
void retire_front(ExecCtx& c, WgmmaWarpState& s, size_t later) {
  WgmmaInFlight& op = s.in_flight.front();
  bool superseded = false;
  for (size_t j = 1; j <= later && !superseded; ++j) superseded = s.in_flight[j].d_slots == op.d_slots;
  if (!superseded && !op.values_ready)
    scatter_acc(op, [&](int i) { return c.col(op.d_slots[size_t(i)]); });
  for (size_t r = 0; r < op.d_slots.size(); ++r) {
    const uint64_t* v = op.d_values.data() + r * 32;
    if (!superseded && op.values_ready) std::copy(v, v + 32, c.col(op.d_slots[r]));
    const uint64_t*& latest = s.d_latest[s.at(op.d_slots[r])];
    if (latest == v) latest = nullptr;
  }
  for (uint32_t a : op.a_slots) --s.a_in_flight[s.at(a)];
  ResultPool& pool = result_pool();
  if (!superseded && !op.d_slots.empty()) hold_rows(c, s, op);
  if (pool.values.size() < ResultPool::kKeep) pool.values.push_back(std::move(op.d_values));
  if (pool.rows.size() < ResultPool::kKeep && op.d_rows.capacity()) pool.rows.push_back(std::move(op.d_rows));
  if (pool.slots.size() < ResultPool::kKeep && op.d_slots.capacity()) pool.slots.push_back(std::move(op.d_slots));
  s.in_flight.pop_front();
}

void exec_wait(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  require_full_warp(c, mask, "wgmma.wait_group");
  WgmmaWarpState& s = state_of(c);
  // At most N committed groups stay pending: groups numbered below committed - N complete.
  const uint64_t n = in.imm;
  const uint64_t done_below = s.committed > n ? s.committed - n : 0;
  size_t count = 0;  // the operations completing now, the oldest first
  while (count < s.in_flight.size() && s.in_flight[count].group < done_below) ++count;
  for (; count > 0; --count) retire_front(c, s, count - 1);
  if (c.race) c.race->wgmma_wait(c, done_below);
}

// ---- wgmma.mma_async ------------------------------------------------------------------------------

// The warpgroup must issue the same mma_async sequence: compare this warp's n-th with its peers'.
void check_warpgroup(ExecCtx& c, WgmmaWarpState& s) {
  Cta& cta = *c.cta;
  const uint32_t w = c.warp->index, base = w & ~3u;
  if (cta.threads % 128 != 0 || base + 4 > cta.warps.size())
    c.fault("error", "wgmma.mma_async needs a whole warpgroup (4 warps, 128 threads), but the CTA has " +
                         std::to_string(cta.threads) + " threads and warp " + std::to_string(w) +
                         "'s warpgroup is incomplete");
  const size_t nth = s.issued_pcs.size();
  s.issued_pcs.push_back(c.pc);
  for (uint32_t p = base; p < base + 4; ++p) {
    if (p == w) continue;
    const Warp& peer = cta.warps[p];
    if (peer.wgmma && peer.wgmma->issued_pcs.size() > nth && peer.wgmma->issued_pcs[nth] != c.pc)
      c.fault("error", "warpgroup not converged: warp " + std::to_string(w) + " issues wgmma.mma_async #" +
                           std::to_string(nth + 1) + " at line " + std::to_string(c.fn->code[c.pc].line) +
                           " but warp " + std::to_string(p) + " issued its #" + std::to_string(nth + 1) +
                           " at line " + std::to_string(c.fn->code[peer.wgmma->issued_pcs[nth]].line) +
                           " (.aligned: all warps of the warpgroup execute the same wgmma.mma_async)");
    if (peer.exited == peer.valid && peer.valid && (!peer.wgmma || peer.wgmma->issued_pcs.size() <= nth))
      c.fault("error", "warpgroup not converged: warp " + std::to_string(w) + " issues wgmma.mma_async but warp " +
                           std::to_string(p) + " of its warpgroup has exited");
  }
}

// The warpgroup of warps base..base+3 as a wait object: its first warp.
uint64_t warpgroup_key(const Cta& cta, uint32_t base) { return uint64_t(reinterpret_cast<uintptr_t>(&cta.warps[base])); }

// The deadlock report's line for a warp waiting for its warpgroup's peers (WaitKind::Custom on the
// warpgroup's first warp), or "" for another object.
std::string describe_warpgroup_wait(const Cta& cta, uint64_t obj) {
  for (uint32_t base = 0; base + 4 <= cta.warps.size(); base += 4) {
    if (warpgroup_key(cta, base + 1) == obj)
      return "    waiting for the other warps of its warpgroup (warps " + std::to_string(base) + "-" +
             std::to_string(base + 3) + ") to compute their rows of the wgmma.mma_async it issued\n";
    if (warpgroup_key(cta, base) != obj) continue;
    uint64_t n = 0;
    for (uint32_t p = base; p < base + 4; ++p)
      if (cta.warps[p].wgmma) n = std::max(n, cta.warps[p].wgmma->arrived);
    std::string missing;
    for (uint32_t p = base; p < base + 4; ++p) {
      const Warp& w = cta.warps[p];
      if (w.wgmma && w.wgmma->arrived >= n) continue;
      missing += (missing.empty() ? "" : ", ") + std::to_string(p);
      if (w.valid && w.exited == w.valid) missing += " (exited)";
    }
    return "    waiting for warp(s) " + missing + " of its warpgroup (warps " + std::to_string(base) + "-" +
           std::to_string(base + 3) + ") to issue wgmma.mma_async #" + std::to_string(n) +
           " (the warpgroup's operation starts when all four have)\n";
  }
  return "";
}

// Whether every other warp of warp w's warpgroup has reached past its `nth` mma_async on `stage`
// (WgmmaWarpState::arrived or ::computed). A peer that exited without getting there does not hold
// the others: check_warpgroup reports it.
bool peers_passed(const Cta& cta, uint32_t w, uint64_t nth, uint64_t WgmmaWarpState::*stage) {
  const uint32_t base = w & ~3u;
  for (uint32_t p = base; p < base + 4; ++p) {
    const Warp& peer = cta.warps[p];
    if (p == w || (peer.wgmma && (*peer.wgmma).*stage > nth)) continue;
    if (peer.valid && peer.exited == peer.valid) continue;
    return false;
  }
  return true;
}

// The warpgroup's n-th wgmma.mma_async is one operation of its 128 threads (PTX ISA 9.7.15: the
// instruction is executed collectively by the warpgroup): its shared-memory operands are read once
// the last of the four warps has issued it. A warp that gets there first waits for the others (they
// may still be waiting for their own cp.async copies, as in CUTLASS's wgmma_sm90 tutorial, which
// syncs no further before the wgmma). Returns whether the operation may run now.
bool warpgroup_arrived(ExecCtx& c, WgmmaWarpState& s) {
  Cta& cta = *c.cta;
  const uint32_t w = c.warp->index, base = w & ~3u;
  if (base + 4 > cta.warps.size()) return true;  // check_warpgroup reports the incomplete warpgroup
  const uint64_t nth = s.issued_pcs.size();
  if (s.arrived <= nth) {
    s.arrived = nth + 1;
    // --racecheck: the operation's clocks join each warp's as it arrives, all four before any read.
    if (c.race) c.race->wgmma_issue(c, nth, s.committed);
  }
  if (!peers_passed(cta, w, nth, &WgmmaWarpState::arrived)) {
    if (!cta.describe_custom_wait) cta.describe_custom_wait = describe_warpgroup_wait;
    c.hold = true;  // the instruction runs again when a peer arrives
    c.eng->block(c, WaitKind::Custom, warpgroup_key(cta, base), 0);
    return false;
  }
  c.eng->wake(WaitKind::Custom, warpgroup_key(cta, base), ~0ull);
  return true;
}

// After computing its rows of the n-th operation a warp waits until the other three have computed
// theirs: a warp that went on could otherwise overwrite operands its peers have yet to read, which
// on the GPU it may, once its wgmma.wait_group has seen the one operation complete.
void warpgroup_computed(ExecCtx& c, WgmmaWarpState& s, uint64_t nth) {
  Cta& cta = *c.cta;
  const uint32_t w = c.warp->index, base = w & ~3u;
  s.computed = nth + 1;
  if (base + 4 > cta.warps.size()) return;
  if (!peers_passed(cta, w, nth, &WgmmaWarpState::computed))
    c.eng->block(c, WaitKind::Custom, warpgroup_key(cta, base + 1), 0);  // goes on after the mma_async
  else
    c.eng->wake(WaitKind::Custom, warpgroup_key(cta, base + 1), ~0ull);
}

// What reading an operand from shared memory touched: the address range of its chunks, and
// whether one of them held a generic-proxy write not yet fenced for the async proxy.
struct SmemSpan {
  uint32_t lo = ~0u, hi = 0;
  bool generic_written = false;
};

// The checks of an operand read (rows x K from `row0` through descriptor `desc_word`) that `span`
// describes: reported after the read (the operand's chunks are interleaved with others, so
// [lo, hi) may be much wider than the chunks read).
void after_smem_read(ExecCtx& c, uint64_t desc_word, char which, bool mn_major, Elem e, int row0, int rows, int K,
                     const SmemSpan& span) {
  Cta& cta = *c.cta;
  if (span.generic_written)
    sem::tma::check_generic_writes(c, cta, span.lo, span.hi - span.lo, model::tma::Swizzle::kNone,
                                   std::string("wgmma.mma_async operand ") + which);
  if (cta.async_dst) c.eng->check_async_race(c, cta, span.lo, span.hi - span.lo, false);
  // --racecheck: the chunks read, until a wgmma.wait_group covers the operation.
  if (c.race) [[unlikely]] {
    const wg::SmemDesc d = wg::decode(desc_word);
    const wg::Operand op{mn_major, elem_bits(e)};
    const int per_chunk = 128 / elem_bits(e);
    for (int r = 0; r < rows; r += mn_major ? per_chunk : 1)
      for (int k = 0; k < K; k += mn_major ? 1 : per_chunk)
        c.race->wgmma_read(c, wg::element_address(d, op, uint32_t(row0 + r), uint32_t(k)), 16);
  }
}

// The chunks at shared addresses ad[0 .. n) added to `span`: their range, and whether one holds a
// generic-proxy write not yet fenced. False, leaving span alone, when one lies outside the CTA's
// shared memory or is misaligned. (Their range and alignment are checked once for all of them.)
bool scan_chunks(const Cta& cta, const uint32_t* ad, int n, SmemSpan& span) {
  uint32_t lo = span.lo, top = 0, misfit = 0;  // top: the highest chunk address
  for (int i = 0; i < n; ++i) {
    lo = std::min(lo, ad[i]);
    top = std::max(top, ad[i]);
    misfit |= ad[i] % 16;
  }
  if (misfit || lo < kSharedReserved || uint64_t(top) + 16 > cta.smem.size()) [[unlikely]]
    return false;
  const uint32_t hi = std::max(span.hi, top + 16);
  uint16_t marked = 0;
  if (cta.generic_writes.may_touch(lo, hi)) {
    const uint16_t* const marks = cta.generic_writes.chunk_marks();
    const size_t mark_chunks = cta.generic_writes.chunks();
    for (int i = 0; i < n; ++i)
      if (ad[i] / 16 < mark_chunks) marked |= marks[ad[i] / 16];
  }
  span = SmemSpan{lo, hi, span.generic_written || marked != 0};
  return true;
}

// The 8 x 8 transpose of eight 16-bit vectors (x[j][i] becomes x[i][j]): 16-, 32- and 64-bit
// interleaves.
void transpose8x16(sem::U16x8 (&x)[8]) {
  using sem::U16x8;
  U16x8 p[8], q[8];
  for (int j = 0; j < 8; j += 2) {
    p[j] = __builtin_shufflevector(x[j], x[j + 1], 0, 8, 1, 9, 2, 10, 3, 11);
    p[j + 1] = __builtin_shufflevector(x[j], x[j + 1], 4, 12, 5, 13, 6, 14, 7, 15);
  }
  for (int h = 0; h < 8; h += 4)
    for (int j = 0; j < 2; ++j) {
      q[h + 2 * j] = __builtin_shufflevector(p[h + j], p[h + j + 2], 0, 1, 8, 9, 2, 3, 10, 11);
      q[h + 2 * j + 1] = __builtin_shufflevector(p[h + j], p[h + j + 2], 4, 5, 12, 13, 6, 7, 14, 15);
    }
  for (int j = 0; j < 4; ++j) {
    x[2 * j] = __builtin_shufflevector(q[j], q[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    x[2 * j + 1] = __builtin_shufflevector(q[j], q[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// An MN-major operand of 16-bit elements (rows and K multiples of 8) into out (rows x K, row-major,
// zero-extended): a chunk holds eight rows' elements at one k, so eight chunks (k0 .. k0 + 7) of
// one block of rows are an 8 x 8 block of out transposed. Two passes as for K-major operands: the
// chunks' addresses (their range and alignment checked once), then the generic-write marks and
// the copies. Returns false, having read nothing, when a chunk lies outside the CTA's shared memory
// or is misaligned (the caller's chunk-by-chunk loop then reports the first such chunk).
bool mn_major_16bit(const Cta& cta, const wg::SmemDesc& d, int row0, int rows, int K, uint32_t* out, uint32_t& lo,
                    uint32_t& hi, bool& generic_written) {
  const wg::MNMajorChunks address(d, 16);
  const int blocks = rows / 8;
  thread_local std::vector<uint32_t> addrs;  // chunk (block b, k) at b * K + k
  addrs.resize(size_t(blocks) * size_t(K));
  uint32_t* const ad = addrs.data();
  for (int b = 0, i = 0; b < blocks; ++b)
    for (int k = 0; k < K; ++k, ++i) ad[i] = address(uint32_t(row0 + 8 * b), uint32_t(k));
  SmemSpan got{lo, hi, generic_written};
  if (!scan_chunks(cta, ad, blocks * K, got)) [[unlikely]]
    return false;
  const uint8_t* const smem = cta.smem.data();
  const sem::U16x8 zero = {};
  for (int b = 0; b < blocks; ++b)
    for (int k0 = 0; k0 < K; k0 += 8) {
      sem::U16x8 x[8];
      for (int j = 0; j < 8; ++j) std::memcpy(&x[j], smem + ad[b * K + k0 + j], 16);
      transpose8x16(x);  // x[i]: row 8b + i, k0 .. k0 + 7
      for (int i = 0; i < 8; ++i) {
        const sem::U16x8 lo16 = __builtin_shufflevector(x[i], zero, 0, 8, 1, 9, 2, 10, 3, 11);
        const sem::U16x8 hi16 = __builtin_shufflevector(x[i], zero, 4, 12, 5, 13, 6, 14, 7, 15);
        uint32_t* o = out + size_t(8 * b + i) * size_t(K) + size_t(k0);
        std::memcpy(o, &lo16, 16);
        std::memcpy(o + 4, &hi16, 16);
      }
    }
  lo = got.lo, hi = got.hi, generic_written = got.generic_written;
  return true;
}

// Reads an operand matrix (rows x K, `row0` the first row) through a descriptor into element bits,
// then checks the read (after_smem_read); returns what it touched.
template <class T>
SmemSpan read_smem(ExecCtx& c, uint64_t desc_word, char which, bool mn_major, Elem e, int row0, int rows, int K,
               T* out) {
  const wg::SmemDesc d = wg::decode(desc_word);
  const auto problems = wg::validate(d);
  if (!problems.empty())
    c.fault("error", std::string("wgmma.mma_async: invalid ") + which + " descriptor " + hex(desc_word) + ": " +
                         problems.front());
  Cta& cta = *c.cta;
  // Every layout keeps 16-byte chunks intact and contiguous along the major dimension, so the
  // operand is read one chunk (16 bytes: 128 / element bits elements) at a time.
  const int eb = elem_bits(e), per_chunk = 128 / eb;
  const int cols = e == Elem::B1 ? K / 8 : K;      // out row length (b1: bytes of 8 elements)
  const uint32_t ebytes = e == Elem::B1 ? 1 : uint32_t(eb / 8);
  uint32_t lo = ~0u, hi = 0;
  bool generic_written = false;  // a chunk read holds a generic-proxy write not yet fenced
  // The chunk at shared address `a` holding element (row0 + r, k), checked.
  auto chunk_at = [&](uint32_t a, int r, int k) -> const uint8_t* {
    if (a < kSharedReserved || uint64_t(a) + 16 > cta.smem.size()) [[unlikely]]
      c.fault("illegal address", std::string("wgmma.mma_async: ") + which + " element (" + std::to_string(row0 + r) +
                                     ", k=" + std::to_string(k) + ") of descriptor " + hex(desc_word) + " (" +
                                     wg::layout_name(d.layout) + ") is at shared address " + hex(a) +
                                     ", outside the CTA's shared memory [" + hex(kSharedReserved) + ", " +
                                     hex(cta.smem.size()) + ")");
    if (a % 16) [[unlikely]]
      c.fault("misaligned address", std::string("wgmma.mma_async: ") + which + " descriptor " + hex(desc_word) +
                                        " places a 16-byte chunk at unaligned shared address " + hex(a) +
                                        " (the start address and offsets are multiples of 16 bytes)");
    lo = std::min(lo, a);
    hi = std::max(hi, a + 16);
    generic_written |= cta.generic_writes.any_in_chunk(a, 0xFFFF);
    return cta.smem.data() + a;
  };
  // The 16 / ebytes elements of one chunk, little-endian, to out[0], out[step], ... (fixed-size
  // loads: this is the operand-gathering hot loop).
  auto unpack_chunk = [ebytes](const uint8_t* p, T* o, int step) {
    auto run = [&](auto elem) {
      for (uint32_t i = 0; i < 16 / sizeof elem; ++i) {
        std::memcpy(&elem, p + i * sizeof elem, sizeof elem);
        o[int(i) * step] = T(elem);
      }
    };
    if (ebytes == 1) run(uint8_t{});
    else if (ebytes == 2) run(uint16_t{});
    else run(uint32_t{});
  };
  if (!mn_major) {
    // Row by row, chunk j of a row holding elements k = j * per_chunk on (wg::KMajorChunks). A
    // row's chunks land next to each other in `out`, so each is copied out with a fixed element
    // size through a local array. (The loops work on locals: a store to `out` may alias anything.)
    const wg::KMajorChunks chunk_address(d);
    const int row_chunks = (K + per_chunk - 1) / per_chunk;
    const uint8_t* const smem = cta.smem.data();
    // Two passes with few values live in each: the chunks' addresses, then their checks
    // (scan_chunks) and the copies.
    thread_local std::vector<uint32_t> addrs;
    addrs.resize(size_t(rows) * size_t(row_chunks));
    auto rows_of = [&](auto elem) {
      using E = decltype(elem);
      constexpr int n = 16 / sizeof(E);
      const wg::KMajorChunks address = chunk_address;
      uint32_t* const ad = addrs.data();
      for (int r = 0, i = 0; r < rows; ++r)
        for (int j = 0; j < row_chunks; ++j, ++i) ad[i] = address(uint32_t(row0 + r), uint32_t(j));
      SmemSpan got{lo, hi, false};
      if (!scan_chunks(cta, ad, rows * row_chunks, got)) [[unlikely]]
        for (int r = 0, i = 0; r < rows; ++r)
          for (int j = 0; j < row_chunks; ++j, ++i) chunk_at(ad[i], r, j * per_chunk);  // faults at the first
      if (cols == row_chunks * n) {  // rows back to back: one run of chunks
        T* o = out;
        for (int i = 0, total = rows * row_chunks; i < total; ++i, o += n) {
          E v[n];
          std::memcpy(v, smem + ad[i], 16);
          for (int e = 0; e < n; ++e) o[e] = T(v[e]);
        }
      } else {
        for (int r = 0, i = 0; r < rows; ++r) {
          T* o = &out[r * cols];
          for (int j = 0; j < row_chunks; ++j, ++i, o += n) {
            E v[n];
            std::memcpy(v, smem + ad[i], 16);
            for (int e = 0; e < n; ++e) o[e] = T(v[e]);
          }
        }
      }
      return got;
    };
    const SmemSpan got = ebytes == 1   ? rows_of(uint8_t{})  // 8-bit elements, and .b1 as bytes of 8
                         : ebytes == 2 ? rows_of(uint16_t{})
                                       : rows_of(uint32_t{});
    lo = got.lo, hi = got.hi, generic_written = got.generic_written;
  } else if (!(std::is_same_v<T, uint32_t> && ebytes == 2 && K % 8 == 0 && rows % 8 == 0 &&
               mn_major_16bit(cta, d, row0, rows, K, reinterpret_cast<uint32_t*>(out), lo, hi, generic_written))) {
    const wg::MNMajorChunks chunk_address(d, eb);
    for (int k = 0; k < K; ++k)
      for (int r = 0; r < rows; r += per_chunk) {
        const uint8_t* p = chunk_at(chunk_address(uint32_t(row0 + r), uint32_t(k)), r, k);
        unpack_chunk(p, &out[r * cols + k], cols);
      }
  }
  const SmemSpan span{lo, hi, generic_written};
  after_smem_read(c, desc_word, which, mn_major, e, row0, rows, K, span);
  return span;
}

frag::MmaShape a_frag_shape(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16: return frag::MmaShape::M16N8K16;
    case Elem::TF32: return frag::MmaShape::M16N8K8;
    default: return frag::MmaShape::M16N8K32;
  }
}
frag::ElemClass a_frag_class(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16: return frag::ElemClass::B16;
    case Elem::TF32: return frag::ElemClass::B32;
    default: return frag::ElemClass::B8;
  }
}

// The warp's 16 x K slice of A from its 4 fragment registers (b1: 16 x K/8 bytes).
template <class T>
void read_a_regs(ExecCtx& c, const Operand& vec, Elem e, int K, T* out) {
  const frag::MmaShape s = a_frag_shape(e);
  const frag::ElemClass cls = a_frag_class(e);
  const int per = frag::mma_elems_per_reg(cls), bits = 32 / per;
  const int cols = e == Elem::B1 ? K / 8 : K;
  for (int r = 0; r < 4; ++r) {
    const uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < per; ++i) {
        const frag::RC rc = frag::mma_map(s, frag::Operand::A, cls, lane, r * per + i);
        out[rc.row * cols + rc.col] = T((col[lane] >> (bits * i)) & ((uint64_t{1} << bits) - 1));
      }
  }
}

// The f32 accumulator fragment: register i of lane l holds element (l / 4 + 8 ((i / 2) % 2),
// 8 (i / 4) + 2 (l % 4) + i % 2) of the warp's 16 x N slice. In quads: lanes 4q..4q+3 hold row
// q + 8h, columns 8g..8g+7 of the slice in registers 4g+2h and 4g+2h+1, interleaved (lane 4q+t:
// columns 8g+2t and 8g+2t+1). The accumulator gather and scatter run once per warp per mma_async,
// so they move a row piece at a time instead of looking each element's place up (which cost as
// much as the products). reg(i) gives register i's 32 lanes.
template <class Reg>
void gather_f32_acc(int N, Reg reg, uint32_t* C) {
  for (int g = 0; g < N / 8; ++g)
    for (int h = 0; h < 2; ++h) {
      const uint64_t *s0 = reg(4 * g + 2 * h), *s1 = reg(4 * g + 2 * h + 1);
      for (int q = 0; q < 8; ++q) sem::lanes_to_pairs(s0 + 4 * q, s1 + 4 * q, C + (q + 8 * h) * N + 8 * g);
    }
}
// The inverse: to register i's 32 lanes at reg(i).
template <class Reg>
void scatter_f32_acc(int N, const uint32_t* D, Reg reg) {
  for (int g = 0; g < N / 8; ++g)
    for (int h = 0; h < 2; ++h) {
      uint64_t *d0 = reg(4 * g + 2 * h), *d1 = reg(4 * g + 2 * h + 1);
      for (int q = 0; q < 8; ++q) sem::pairs_to_lanes(D + (q + 8 * h) * N + 8 * g, d0 + 4 * q, d1 + 4 * q);
    }
}

// The f16 accumulator fragment: register i holds the f32 layout's elements 2i and 2i+1, so register
// 2g+h of lane 4q+t holds row q + 8h, columns 8g+2t (low half) and 8g+2t+1 (high half): the two
// f32 registers 4g+2h and 4g+2h+1 of the f32 layout packed into one.
template <class Reg>
void gather_f16_acc(int N, Reg reg, uint32_t* C) {
  for (int g = 0; g < N / 8; ++g)
    for (int h = 0; h < 2; ++h) {
      const uint64_t* s = reg(2 * g + h);
      for (int q = 0; q < 8; ++q) {
        uint32_t* row = C + (q + 8 * h) * N + 8 * g;
        for (int t = 0; t < 4; ++t) {
          row[2 * t] = uint32_t(s[4 * q + t]) & 0xFFFFu;
          row[2 * t + 1] = uint32_t(s[4 * q + t] >> 16) & 0xFFFFu;
        }
      }
    }
}
template <class Reg>
void scatter_f16_acc(int N, const uint32_t* D, Reg reg) {
  for (int g = 0; g < N / 8; ++g)
    for (int h = 0; h < 2; ++h) {
      uint64_t* d = reg(2 * g + h);
      for (int q = 0; q < 8; ++q) {
        const uint32_t* row = D + (q + 8 * h) * N + 8 * g;
        for (int t = 0; t < 4; ++t) d[4 * q + t] = (row[2 * t] & 0xFFFFu) | (row[2 * t + 1] & 0xFFFFu) << 16;
      }
    }
}
// An operation's D rows into registers reg(i), in its accumulator's layout.
template <class Reg>
void scatter_acc(const WgmmaInFlight& op, Reg reg) {
  const int N = int(op.d_rows.size() / 16);
  if (op.f16) scatter_f16_acc(N, op.d_rows.data(), reg);
  else scatter_f32_acc(N, op.d_rows.data(), reg);
}

uint32_t sign_mask(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16: return 0x8000u;
    case Elem::TF32: return 0x80000000u;
    default: return 0x80u;
  }
}

// Sparse A (PTX ISA 9.7.15.6): the metadata of the warp's 16 rows (layout and rules in
// model/fragments, read by sem::sparse_columns) gives the column of every packed A element; a bad
// nibble faults naming the thread of the warpgroup, the bits, the row and the chunk.
frag::SparseKind sparse_kind(Elem e) {
  return e == Elem::TF32 ? frag::SparseKind::Tf32 : elem_bits(e) == 8 ? frag::SparseKind::Byte : frag::SparseKind::Half;
}

std::vector<int> sparse_cols(ExecCtx& c, const Operand& meta, Elem e, int sp_sel, int K) {
  std::vector<int> cols;
  sem::SparseMetaError err;
  if (!sem::sparse_columns(c, meta, sparse_kind(e), sp_sel, false, K, cols, err))
    c.fault("error", "wgmma.mma_async.sp: invalid sparsity metadata " + hex(err.word) + " in thread " +
                         std::to_string(32 * (c.warp->index % 4) + uint32_t(err.lane)) + " of the warpgroup (warp " +
                         std::to_string(c.warp->index) + " lane " + std::to_string(err.lane) + ", sp-sel " +
                         std::to_string(sp_sel) + "): " + err.describe(int(16 * (c.warp->index % 4))) +
                         " (PTX ISA 9.7.15.6.1)");
  return cols;
}

// The warpgroup's B (N x K element bits, negated under imm-scale-b = -1) of the operation this warp
// computes: gathered by the first of the four warps to compute it and kept on the warpgroup's first
// warp, whose copy the other three reuse after repeating the read's checks (one operation reads
// its operands once; gathering B four times cost more than the rows' own A). The key is the
// operation's number, its B descriptor and its configuration, so a warpgroup that diverged (which
// check_warpgroup reports) never shares a B.
const std::vector<uint32_t>& group_b(ExecCtx& c, const WgmmaWarpState& s, const Config& cfg, uint64_t bdesc) {
  const uint32_t base = c.warp->index & ~3u;
  Warp& first = c.cta->warps[base];
  thread_local std::vector<uint32_t> own;  // without a first warp's state to keep it on
  if (!first.wgmma) {
    own.resize(size_t(cfg.n) * size_t(cfg.k));
    read_smem(c, bdesc, 'B', cfg.trans_b, cfg.b, 0, cfg.n, cfg.k, own.data());
    if (cfg.neg_b)
      for (uint32_t& x : own) x ^= sign_mask(cfg.b);
    return own;
  }
  WgmmaGroupB& g = first.wgmma->group_b;
  const uint64_t op = s.issued_pcs.size();  // this operation's number + 1
  if (g.op == op && g.desc == bdesc && g.config == &cfg) {
    after_smem_read(c, bdesc, 'B', cfg.trans_b, cfg.b, 0, cfg.n, cfg.k, {g.lo, g.hi, g.generic_written});
    return g.bits;
  }
  g.op = 0;  // until the read below has succeeded
  g.bits.resize(size_t(cfg.n) * size_t(cfg.k));
  const SmemSpan span = read_smem(c, bdesc, 'B', cfg.trans_b, cfg.b, 0, cfg.n, cfg.k, g.bits.data());
  if (cfg.neg_b)
    for (uint32_t& x : g.bits) x ^= sign_mask(cfg.b);
  g.op = op;
  g.desc = bdesc;
  g.config = &cfg;
  g.lo = span.lo;
  g.hi = span.hi;
  g.generic_written = span.generic_written;
  return g.bits;
}

void exec_mma(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (!mask) return;
  require_full_warp(c, mask, "wgmma.mma_async");
  const Config& cfg = *reinterpret_cast<const Config*>(in.imm);
  WgmmaWarpState& s = state_of(c);
  if (!warpgroup_arrived(c, s)) return;
  check_warpgroup(c, s);
  if (c.race) c.race->wgmma_select(c, s.issued_pcs.size() - 1);
  const uint32_t line = c.fn->code[c.pc].line;
  if (!s.fenced)
    c.eng->warn(c, "wgmma.mma_async without a preceding wgmma.fence: the warpgroup must execute wgmma.fence before "
                   "its first wgmma.mma_async (PTX ISA 9.7.15.5.1 wgmma.fence)");
  const int N = cfg.n, K = cfg.k, nd = cfg.d_regs();
  const Operand& dvec = in.op[0];
  std::vector<uint32_t> d_slots = take_from(result_pool().slots), a_slots;
  d_slots.resize(size_t(nd));
  uint32_t slot_lo = ~0u, slot_hi = 0;
  for (int r = 0; r < nd; ++r) {
    const uint32_t slot = sem::vec_elem(c, dvec, uint32_t(r)).slot;
    d_slots[size_t(r)] = slot;
    slot_lo = std::min(slot_lo, slot);
    slot_hi = std::max(slot_hi, slot);
  }
  if (cfg.a_in_regs)
    for (uint32_t r = 0; r < 4; ++r) a_slots.push_back(sem::vec_elem(c, in.op[1], r).slot);
  // Registers written by other instructions since the last wgmma.fence.
  for (const std::vector<uint32_t>* v : {&a_slots, &d_slots})
    for (uint32_t slot : *v)
      if (const uint32_t line = s.written_line[s.at(slot)]) {
        c.eng->warn(c, "wgmma.mma_async uses register " + slot_name(c, slot) + " written at line " +
                           std::to_string(line) +
                           " without a wgmma.fence in between (PTX ISA 9.7.15.5.1 wgmma.fence)");
        break;
      }

  // C: the newest in-flight value of each accumulator (chained mma_async), else the register.
  const Operand& sd_op = in.op[cfg.scale_d_op()];
  const uint64_t sd_lane0 = sem::val(c, sd_op, 0);
  bool scale_d = sd_lane0 & 1;
  const int wrow0 = 16 * int(c.warp->index % 4);
  // (C is per-thread scratch and D the new operation's result buffer, taken from the pool of
  // retired ones: every element of either is written before it is read.)
  thread_local std::vector<uint32_t> Cs;
  Cs.resize(size_t(16 * N));
  std::vector<uint32_t> D = take_from(result_pool().rows);
  D.resize(size_t(16 * N));
  const bool f16d = cfg.d == DType::F16;
  // C of a chained mma_async naming the same registers as one in flight, with no later one in flight
  // writing any of them, is that one's D: taken as it was computed, row-major, instead of gathered
  // back from the register layout. (CUTLASS's tiles run several accumulators in turn: the chain
  // then skips over the others' operations.)
  bool untouched = false;
  const WgmmaInFlight* chained = scale_d ? chain_source(s, d_slots, slot_lo, slot_hi, size_t(16 * N), f16d, untouched) : nullptr;
  // Otherwise, with nothing in flight on these registers, they may still hold the rows of the
  // operation retired on them last (WgmmaWarpState::held), which are then C as they were computed.
  const uint32_t* held_c = !chained && untouched ? held_rows(c, s, d_slots, size_t(16 * N), f16d) : nullptr;
  const bool held = held_c != nullptr;
  const uint32_t* C = chained ? chained->d_rows.data() : held ? held_c : Cs.data();
  if (!chained && !held)  // C read through d_latest below: the in-flight results in the register layout
    for (WgmmaInFlight& op : s.in_flight) materialize(op);
  if (!chained && !held) {
    const auto reg = [&](int r) {
      const uint64_t* src = s.d_latest[s.at(d_slots[size_t(r)])];
      return src ? src : c.col(d_slots[size_t(r)]);
    };
    if (!scale_d) std::fill(Cs.begin(), Cs.end(), 0u);
    else if (f16d) gather_f16_acc(N, reg, Cs.data());
    else gather_f32_acc(N, reg, Cs.data());
  }
  for (int lane = 1; lane < 32; ++lane)
    if ((sem::val(c, sd_op, lane) & 1) != (sd_lane0 & 1))
      c.fault("error", "wgmma.mma_async: scale-d differs between lanes of the warpgroup (it must be uniform)");

  const uint64_t bdesc = sem::val(c, in.op[2], 0);
  const uint64_t adesc = cfg.a_in_regs ? 0 : sem::val(c, in.op[1], 0);
  for (int lane = 1; lane < 32; ++lane)
    if (sem::val(c, in.op[2], lane) != bdesc || (!cfg.a_in_regs && sem::val(c, in.op[1], lane) != adesc))
      c.fault("error", "wgmma.mma_async: the matrix descriptors differ between lanes (they must be uniform)");

  if (cfg.is_float()) {
    // A as stored: 16 x K, or packed 16 x K/2 when sparse (negated before the zeros are placed).
    const int KA = cfg.sparse ? K / 2 : K;
    thread_local std::vector<uint32_t> A;  // scratch: read_smem / read_a_regs write every element
    A.resize(size_t(16 * KA));
    if (cfg.a_in_regs) read_a_regs(c, in.op[1], cfg.a, KA, A.data());
    else read_smem(c, adesc, 'A', cfg.trans_a, cfg.a, wrow0, 16, KA, A.data());
    if (cfg.neg_a)
      for (uint32_t& x : A) x ^= sign_mask(cfg.a);
    const std::vector<uint32_t>& Bt = group_b(c, s, cfg, bdesc);
    if (cfg.sparse) {
      // Row by row: the B elements the row's metadata selects, then one dense dot of K/2 products
      // (sim/sem/sparse_a.h).
      const std::vector<int> cols = sparse_cols(c, in.op[3], cfg.a, cfg.sp_sel, K);
      std::vector<uint32_t> Bsel(size_t(N * KA));
      for (int r = 0; r < 16; ++r) {
        for (int n = 0; n < N; ++n)
          for (int p = 0; p < KA; ++p) Bsel[size_t(n * KA + p)] = Bt[size_t(n * K + cols[size_t(r * KA + p)])];
        tc::mma_tile(*cfg.model, elem_fmt(cfg.a), elem_fmt(cfg.b), 1, N, KA, A.data() + r * KA, Bsel.data(),
                     C + r * N, D.data() + r * N);
      }
    } else {
      tc::mma_tile(*cfg.model, elem_fmt(cfg.a), elem_fmt(cfg.b), 16, N, K, A.data(), Bt.data(), C, D.data());
    }
  } else if (cfg.a != Elem::B1) {
    const int KA = cfg.sparse ? K / 2 : K;
    std::vector<uint8_t> A(size_t(16 * KA)), Bt(size_t(N * K));
    if (cfg.a_in_regs) read_a_regs(c, in.op[1], cfg.a, KA, A.data());
    else read_smem(c, adesc, 'A', false, cfg.a, wrow0, 16, KA, A.data());
    read_smem(c, bdesc, 'B', false, cfg.b, 0, N, K, Bt.data());
    if (cfg.sparse) {  // exact arithmetic: the packed elements placed in the dense A, zeros elsewhere
      const std::vector<int> cols = sparse_cols(c, in.op[3], cfg.a, cfg.sp_sel, K);
      std::vector<uint8_t> dense(size_t(16 * K), 0);
      for (int r = 0; r < 16; ++r)
        for (int p = 0; p < KA; ++p) dense[size_t(r * K + cols[size_t(r * KA + p)])] = A[size_t(r * KA + p)];
      A.swap(dense);
    }
    tc::mma_tile_int(cfg.a == Elem::S8, cfg.b == Elem::S8, cfg.satfinite, 16, N, K, A.data(), Bt.data(),
                     reinterpret_cast<const int32_t*>(C), reinterpret_cast<int32_t*>(D.data()));
  } else {
    // .b1 .and.popc: D = C + sum_k popc(a_k AND b_k), 32 bytes of 8 elements per row, wrapping.
    const int KB = K / 8;
    std::vector<uint8_t> A(size_t(16 * KB)), Bt(size_t(N * KB));
    if (cfg.a_in_regs) read_a_regs(c, in.op[1], cfg.a, K, A.data());
    else read_smem(c, adesc, 'A', false, cfg.a, wrow0, 16, K, A.data());
    read_smem(c, bdesc, 'B', false, cfg.b, 0, N, K, Bt.data());
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < N; ++n) {
        uint32_t acc = C[size_t(m * N + n)];
        for (int kb = 0; kb < KB; ++kb) acc += uint32_t(std::popcount(uint8_t(A[size_t(m * KB + kb)] & Bt[size_t(n * KB + kb)])));
        D[size_t(m * N + n)] = acc;
      }
  }

  WgmmaInFlight op;
  op.group = s.committed;
  op.line = line;
  op.fn = c.fn;
  op.d_slots = std::move(d_slots);
  op.slot_lo = slot_lo;
  op.slot_hi = slot_hi;
  op.a_slots = std::move(a_slots);
  op.d_values = take_from(result_pool().values);
  op.d_values.resize(size_t(nd) * 32);
  // d_values are filled when first needed (materialize).
  op.d_rows = std::move(D);
  op.f16 = f16d;
  op.values_ready = false;
  s.in_flight.push_back(std::move(op));
  const WgmmaInFlight& placed = s.in_flight.back();
  for (int r = 0; r < nd; ++r) s.d_latest[s.at(placed.d_slots[size_t(r)])] = placed.d_values.data() + size_t(r) * 32;
  for (uint32_t a : placed.a_slots) ++s.a_in_flight[s.at(a)];
  warpgroup_computed(c, s, s.issued_pcs.size() - 1);
}

}  // namespace

// ---- the hazard watch -----------------------------------------------------------------------------

namespace {

// wgmma_watch with operations in flight: every register the instruction reads or writes is checked
// against their accumulators and A fragments.
[[gnu::noinline]] void watch_in_flight(ExecCtx& c, const Instr& in, WgmmaWarpState& s, bool op0_dest) {
  auto touch = [&](uint32_t slot, bool write) {
    const uint32_t i = s.at(slot);
    if (i == WgmmaRegisterFacts::kNone) return;  // (neither an accumulator nor an A fragment of any mma_async)
    if (write) s.note_write(slot, in.line);
    const bool acc = s.d_latest[i] != nullptr;
    if (!acc && !(write && s.a_in_flight[i])) return;
    uint32_t issued = 0;
    for (const WgmmaInFlight& op : s.in_flight) {
      const auto& v = acc ? op.d_slots : op.a_slots;
      if (std::find(v.begin(), v.end(), slot) != v.end()) issued = op.line;
    }
    c.eng->warn(c, std::string("hazard: ") + (write ? "write of " : "read of ") + (acc ? "accumulator" : "A-fragment") +
                       " register " + slot_name(c, slot) + " of the wgmma.mma_async at line " + std::to_string(issued) +
                       " before a wgmma.wait_group covering it (PTX ISA 9.7.15.5: the register's value is undefined "
                       "until then)");
  };
  if (in.guard != kNoSlot) touch(in.guard, false);
  if (form_facts().ends[in.form] && c.fn->is_entry)
    c.eng->warn(c, "the warp ends with the wgmma.mma_async at line " + std::to_string(s.in_flight.front().line) +
                       " still in flight (no wgmma.wait_group covers it)");
  for (uint32_t i = 0; i < in.nops; ++i) {
    const Operand& o = in.op[i];
    const bool write = i == 0 && op0_dest;
    switch (o.kind) {
      case Operand::Kind::Reg: touch(o.slot, write); break;
      case Operand::Kind::Addr: touch(o.slot, false); break;
      case Operand::Kind::Vec:
        for (uint32_t e = 0; e < o.count; ++e) {
          const Operand& el = sem::vec_elem(c, o, e);
          if (el.kind == Operand::Kind::Reg) touch(el.slot, write);
        }
        break;
      default: break;
    }
  }
}

}  // namespace

// Runs before every instruction of a warp that has used wgmma, so the common case (nothing in
// flight) stays small; the hazard checks are out of line in watch_in_flight.
void wgmma_watch(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (is_wgmma(in)) return;
  WgmmaWarpState& s = *c.warp->wgmma;
  if (s.fn != c.fn) return;
  static const FormFacts& facts = form_facts();  // (a guard test here, not a call)
  const bool op0_dest = facts.op0_dest[in.form];
  if (!s.in_flight.empty()) return watch_in_flight(c, in, s, op0_dest);
  // Nothing in flight: only the registers written matter (for the fence check), only operand 0 is
  // ever written, and only the registers a wgmma.mma_async uses are checked.
  if (!op0_dest || in.nops == 0 || !s.regs->writes_wgmma_reg[c.pc]) return;
  const Operand& o = in.op[0];
  auto mark = [&](uint32_t slot) {
    s.note_write(slot, in.line);
  };
  if (o.kind == Operand::Kind::Reg) mark(o.slot);
  else if (o.kind == Operand::Kind::Vec)
    for (uint32_t e = 0; e < o.count; ++e) {
      const Operand& el = sem::vec_elem(c, o, e);
      if (el.kind == Operand::Kind::Reg) mark(el.slot);
    }
}

// ---- binders --------------------------------------------------------------------------------------

namespace {

void require_sync_aligned(Binder& b, const char* name) {
  if (!b.has(".sync")) b.error(std::string(".sync modifier required for instruction '") + name + "'");
  if (!b.has(".aligned")) b.error(std::string(".aligned modifier required for instruction '") + name + "'");
}

}  // namespace

void bind_wgmma_fence(Binder& b) {
  require_sync_aligned(b, "wgmma.fence");
  b.require_ops(0, 0);
  b.in.fn = exec_fence;
}

void bind_wgmma_commit(Binder& b) {
  require_sync_aligned(b, "wgmma.commit_group");
  b.require_ops(0, 0);
  b.in.fn = exec_commit;
}

void bind_wgmma_wait(Binder& b) {
  require_sync_aligned(b, "wgmma.wait_group");
  b.require_ops(1, 1);
  const int64_t n = b.imm(0);
  if (n < 0) b.error("wgmma.wait_group needs a non-negative integer constant");
  b.in.imm = uint64_t(n);
  b.in.fn = exec_wait;
}

void bind_wgmma_mma(Binder& b) {
  require_sync_aligned(b, "wgmma.mma_async");
  // The shape: .m64nNkK, parsed from the opcode (the table lists the valid ones).
  Config cfg;
  {
    std::string_view op = b.src.opcode;
    size_t p = op.find(".m64n");
    if (p == std::string_view::npos) b.error("a shape modifier (.m64nNkK) is required for instruction 'wgmma.mma_async'");
    std::string sh(op.substr(p + 5));
    if (size_t dot = sh.find('.'); dot != std::string::npos) sh.resize(dot);
    if (std::sscanf(sh.c_str(), "%dk%d", &cfg.n, &cfg.k) != 2) b.error("malformed wgmma shape '.m64n" + sh + "'");
  }
  const size_t nt = b.type_count();
  const bool b1 = b.has(".b1");
  if (b1) {
    if (nt != 1 || b.type(0) != DType::S32) b.error("wgmma.mma_async with .b1 needs .s32.b1.b1");
    if (!b.has(".and") || !b.has(".popc")) b.error("wgmma.mma_async with .b1 needs '.and.popc'");
    cfg.a = cfg.b = Elem::B1;
    cfg.d = DType::S32;
  } else {
    if (b.has(".and") || b.has(".popc")) b.error("'.and.popc' is only valid with .b1 for instruction 'wgmma.mma_async'");
    if (nt != 3) b.error("Unexpected instruction types specified for 'wgmma.mma_async' (need .dtype.atype.btype)");
    auto elem = [&](DType t) {
      switch (t) {
        case DType::F16: return Elem::F16;
        case DType::BF16: return Elem::BF16;
        case DType::TF32: return Elem::TF32;
        case DType::E4M3: return Elem::E4M3;
        case DType::E5M2: return Elem::E5M2;
        case DType::S8: return Elem::S8;
        case DType::U8: return Elem::U8;
        default: b.error("Unexpected instruction types specified for 'wgmma.mma_async'");
      }
    };
    cfg.d = b.type(0);
    cfg.a = elem(b.type(1));
    cfg.b = elem(b.type(2));
  }
  auto bad_types = [&] { b.error("Unexpected instruction types specified for 'wgmma.mma_async'"); };
  const bool f8 = cfg.a == Elem::E4M3 || cfg.a == Elem::E5M2;
  const bool i8 = cfg.a == Elem::S8 || cfg.a == Elem::U8;
  int want_k;
  if (cfg.a == Elem::F16 || cfg.a == Elem::BF16) {
    if (cfg.b != cfg.a) bad_types();
    if (cfg.d != DType::F32 && !(cfg.d == DType::F16 && cfg.a == Elem::F16)) bad_types();
    want_k = 16;
  } else if (cfg.a == Elem::TF32) {
    if (cfg.b != cfg.a || cfg.d != DType::F32) bad_types();
    want_k = 8;
  } else if (f8) {
    if (cfg.b != Elem::E4M3 && cfg.b != Elem::E5M2) bad_types();
    if (cfg.d != DType::F32 && cfg.d != DType::F16) bad_types();
    want_k = 32;
  } else if (i8) {
    if (cfg.b != Elem::S8 && cfg.b != Elem::U8) bad_types();
    if (cfg.d != DType::S32) bad_types();
    want_k = 32;
  } else {
    want_k = 256;
  }
  cfg.sparse = b.has(".sp");
  if (cfg.sparse) {
    if (b1) b.error("'.sp' is not valid with .b1 for instruction 'wgmma.mma_async'");
    want_k *= 2;  // A's K columns are stored packed as K/2
  }
  if (cfg.k != want_k)
    b.error("Illegal shape '.m64n" + std::to_string(cfg.n) + "k" + std::to_string(cfg.k) +
            "' for the types of instruction 'wgmma.mma_async' (K must be " + std::to_string(want_k) + ")");
  const bool int_n = i8 || b1;
  const bool n_ok = int_n ? (cfg.n >= 8 && cfg.n <= 256 && (cfg.n <= 32 ? cfg.n % 8 == 0 : cfg.n % 16 == 0))
                          : (cfg.n >= 8 && cfg.n <= 256 && cfg.n % 8 == 0);
  // ptxas names the instruction by its type family: "[Sparse ]wgmma.mma_async with <family> types".
  const std::string kind_name = std::string(cfg.sparse ? "Sparse wgmma.mma_async" : "wgmma.mma_async") + " with " +
                                (int_n ? "integer" : f8 ? "FP8" : "floating point") + " types";
  if (!n_ok)
    b.error("Illegal matrix shape '.m64n" + std::to_string(cfg.n) + "k" + std::to_string(cfg.k) +
            "' for instruction '" + kind_name + "'");
  if (i8 && cfg.a != cfg.b && b.dec.program().ptx_version < 84)
    b.error(std::string("Feature '") + (cfg.sparse ? "Sparse WGMMA" : "WGMMA") +
            " with mixed integer types' requires PTX ISA .version 8.4 or later");
  if (cfg.sparse && b.dec.program().ptx_version < 82)
    b.error(std::string("Feature 'Sparse WGMMA with ") + (cfg.is_float() ? "floating point" : "integer") +
            " types' requires PTX ISA .version 8.2 or later");
  cfg.satfinite = b.has(".satfinite");
  if (cfg.satfinite && !i8) b.error("'.satfinite' is only valid with .s8/.u8 for instruction 'wgmma.mma_async'");

  // Operands: d, a (vector of 4 or a descriptor), b-desc, [sp-meta, sp-sel,] scale-d, then the
  // immediates; `sp` shifts the operands after b-desc.
  const size_t nops = b.op_count();
  const size_t sp = cfg.sparse ? 2 : 0;
  if (nops < 4 + sp) b.error("wgmma.mma_async needs at least d, a, b-desc and scale-d operands");
  cfg.a_in_regs = b.op_kind(1) == Operand::Kind::Vec;
  const bool f16ish = cfg.a == Elem::F16 || cfg.a == Elem::BF16;
  const size_t want_ops = sp + (f16ish ? (cfg.a_in_regs ? 7 : 8) : (cfg.is_float() ? 6 : 4));
  if (nops != want_ops)
    b.error("wgmma.mma_async with these types and A " + std::string(cfg.a_in_regs ? "in registers" : "from a descriptor") +
            " takes " + std::to_string(want_ops) + " operands, got " + std::to_string(nops));
  // An immediate operand: ptxas's words for a value outside {lo, hi}.
  auto imm_in = [&](size_t i, int64_t lo, int64_t hi) {
    const int64_t v = b.imm(i);
    if (v != lo && v != hi)
      b.error("Argument " + std::to_string(i) + " of instruction '" + kind_name + "': unexpected value '" +
              std::to_string(v) + "', expected to be " + std::to_string(lo) +
              (lo == hi ? std::string() : " or " + std::to_string(hi)));
    return v;
  };
  if (cfg.sparse) {
    if (b.op_kind(3) != Operand::Kind::Reg && b.op_kind(3) != Operand::Kind::Imm)
      b.error("wgmma.mma_async.sp: operand sp-meta must be a 32-bit register");
    if (b.op_kind(4) != Operand::Kind::Imm) b.error("wgmma.mma_async.sp: operand sp-sel must be an integer constant");
    // .f16/.bf16/.tf32: a thread pair of each quad (0: lanes 0,1; 1: lanes 2,3); 8-bit: all four.
    cfg.sp_sel = uint8_t(elem_bits(cfg.a) == 8 ? imm_in(4, 0, 0) : imm_in(4, 0, 1));
  }
  if (cfg.is_float()) {
    cfg.neg_a = imm_in(4 + sp, -1, 1) == -1;  // imm-scale-a
    cfg.neg_b = imm_in(5 + sp, -1, 1) == -1;  // imm-scale-b
  }
  if (f16ish) {
    if (!cfg.a_in_regs) cfg.trans_a = imm_in(6 + sp, 0, 1) == 1;     // imm-trans-a
    cfg.trans_b = imm_in((cfg.a_in_regs ? 6 : 7) + sp, 0, 1) == 1;    // imm-trans-b
  }
  const uint32_t dw = cfg.d == DType::F16 ? 32 : 32;
  sem::check_reg_vector(b, 0, cfg.d_regs(), dw, "wgmma.mma_async");
  if (cfg.a_in_regs) sem::check_reg_vector(b, 1, 4, 32, "wgmma.mma_async");
  else if (b.op_kind(1) != Operand::Kind::Reg && b.op_kind(1) != Operand::Kind::Imm)
    b.error("wgmma.mma_async: operand a must be a vector of 4 registers or a 64-bit matrix descriptor");
  if (b.op_kind(2) != Operand::Kind::Reg && b.op_kind(2) != Operand::Kind::Imm)
    b.error("wgmma.mma_async: operand b must be a 64-bit matrix descriptor");
  if (b.op_kind(3 + sp) != Operand::Kind::Reg && b.op_kind(3 + sp) != Operand::Kind::Imm)
    b.error("wgmma.mma_async: operand scale-d must be a predicate");
  if (cfg.is_float()) {
    const tc::AccFmt acc = cfg.d == DType::F16 ? tc::AccFmt::F16 : tc::AccFmt::F32;
    cfg.model = tc::find_model(tc::Arch::SM90, tc::Unit::Wgmma, elem_fmt(cfg.a), elem_fmt(cfg.b), acc);
    if (!cfg.model) b.unimplemented("no tensor-core arithmetic model for this wgmma type combination");
  }
  b.in.imm = uint64_t(reinterpret_cast<uintptr_t>(intern(cfg)));
  b.in.fn = exec_mma;
}

}  // namespace ptxsim
