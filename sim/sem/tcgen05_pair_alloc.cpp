// .cta_group::2 tcgen05.alloc / dealloc / relinquish_alloc_permit (PTX ISA 9.7.16.7.1, Table 46):
// "one warp from each of the peer CTAs must collectively perform the allocation and
// de-allocation ... the first warp to perform the operation could block until the second warp in
// the Peer CTA also performs the operation".
//
// The collective rule names allocation and de-allocation only. relinquish_alloc_permit.cta_group::2
// does not wait for the peer: each CTA's warp gives up its own CTA's permit for pair allocations
// when it issues it (a later alloc.cta_group::2 then fails in that CTA). CUTLASS's block-scaled
// 2-SM kernels (example 72c) relinquish in the peer CTA long before the leader's MMA warp does, and
// the leader's progress depends on the peer's, so a blocking relinquish would hang them.
//
// For alloc and dealloc ptxsim takes the blocking reading, the one that exposes the ISA's Table 48
// hang every time: the first warp to arrive waits (WaitKind::Custom on its CTA's pair_op) until the peer CTA's warp
// issues the same operation; that second warp performs it for both CTAs and wakes the first. An
// allocation takes the same columns in both CTAs (the MMAs of the pair use one TMEM address for
// both), and when they do not fit, the second warp waits for a dealloc as a .cta_group::1 alloc
// does. Reported as faults: a peer CTA missing from the cluster; the two warps disagreeing on
// nCols or taddr; a warp starting another pair operation while one of its CTA waits for the peer;
// and the allocator's own rules (nCols, relinquished permit, dealloc of a non-allocation).
#include <bit>

#include "sim/exec/racecheck.h"
#include "sim/sem/sem_util.h"
#include "sim/sem/tcgen05_internal.h"

namespace ptxsim {

namespace {

namespace tm = model::tmem;
namespace s5 = sem::tcgen05;

enum PairKind : uint8_t { kNone = 0, kAlloc = 1, kDealloc = 2, kRelinquish = 3 };

const char* name_of(uint8_t k) {
  return k == kAlloc ? "tcgen05.alloc.cta_group::2" : k == kDealloc ? "tcgen05.dealloc.cta_group::2"
                                                                    : "tcgen05.relinquish_alloc_permit.cta_group::2";
}

uint64_t key(const void* p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }

// The warp's own share of a completed operation: an alloc writes the address to its [dst].
void finish(ExecCtx& c, const Instr& in, uint32_t mask, const Tcgen05Cta::PairOp& op) {
  if (op.kind != kAlloc) return;
  const int l = std::countr_zero(mask);
  const uint64_t dst = sem::addr_of(c, in.op[0], l);
  store_le(c.mem(in.space, dst, 4, 4, l, Access::Write), tm::TmemAddr{0, op.column}.encode(), 4);
  if (c.race) c.race->warp_sync(c);  // the warp's write, not one lane's (docs/racecheck.md)
}

}  // namespace

namespace sem::tcgen05 {

void exec_pair_alloc_op(ExecCtx& c, const Instr& in, uint32_t mask, uint8_t kind) {
  const std::string what = name_of(kind);
  Tcgen05Cta& st = state(c);
  use_cta_group(c, what.c_str(), 2);
  if (kind == kRelinquish) {  // not collective: this CTA's permit, now (see the top of the file)
    (void)cta_group_ctas(c, 2, what);  // the peer CTA must exist
    if (auto e = st.alloc.relinquish(2)) c.fault("error", what + ": " + *e);
    return;
  }
  Tcgen05Cta::PairOp& mine = st.pair_op;
  // Woken after the peer performed it.
  if (mine.kind == kind && mine.done) {
    finish(c, in, mask, mine);
    mine = {};
    return;
  }
  Tcgen05Cta::PairOp op;
  op.kind = kind;
  op.line = in.line;
  if (kind == kAlloc) {
    op.ncols = uniform_u32(c, in.op[1], mask, "tcgen05.alloc: nCols");
    if (auto e = tm::TmemAllocator::check_ncols(op.ncols)) c.fault("error", what + ": " + *e);
  } else if (kind == kDealloc) {
    const tm::TmemAddr a = tm::TmemAddr::decode(uniform_u32(c, in.op[0], mask, "tcgen05.dealloc: taddr"));
    op.ncols = uniform_u32(c, in.op[1], mask, "tcgen05.dealloc: nCols");
    if (a.lane != 0) c.fault("error", what + ": taddr " + tm::to_string(a) + " must be lane 0 of the allocation");
    op.column = a.column;
  }
  if (mine.kind != kNone && !(mine.kind == kind && mine.line == in.line))
    c.fault("error", what + ": the " + name_of(mine.kind) + " at line " + std::to_string(mine.line) +
                         " of this CTA still waits for the peer CTA's warp; a CTA has one pair operation in flight");
  mine = op;

  const std::vector<Cta*> pair = cta_group_ctas(c, 2, what);
  Cta* peer = pair[0] == c.cta ? pair[1] : pair[0];
  Tcgen05Cta* ps = peer->tcgen05.get();
  if (!ps || ps->pair_op.kind == kNone || ps->pair_op.done) {
    // First to arrive: wait for the peer's warp.
    c.hold = true;
    c.eng->block(c, WaitKind::Custom, key(&st.pair_op), st.pair_version + 1);
    return;
  }
  Tcgen05Cta::PairOp& theirs = ps->pair_op;
  const std::string peer_at = " at line " + std::to_string(theirs.line) + " of the peer CTA (rank " + std::to_string(peer->rank) + ")";
  if (theirs.kind != kind)
    c.fault("error", what + " meets the " + name_of(theirs.kind) + peer_at + "; the two warps must issue the same operation");
  if (theirs.ncols != mine.ncols)
    c.fault("error", what + ": nCols = " + std::to_string(mine.ncols) + " differs from nCols = " + std::to_string(theirs.ncols) +
                         " of the one" + peer_at);
  if (kind == kDealloc && theirs.column != mine.column)
    c.fault("error", what + ": taddr column " + std::to_string(mine.column) + " differs from column " +
                         std::to_string(theirs.column) + " of the one" + peer_at);

  // Second to arrive: perform it in both CTAs, even CTA first.
  Tcgen05Cta* both[2] = {pair[0]->tcgen05.get(), pair[1]->tcgen05.get()};
  if (kind == kAlloc) {
    uint32_t got[2] = {};
    for (int v = 0; v < 2; ++v) {
      auto r = both[v]->alloc.alloc(mine.ncols, 2, both[v]->pair_op.line);
      if (r.status == tm::TmemAllocator::Status::Error) c.fault("error", what + ": " + r.message);
      if (r.status == tm::TmemAllocator::Status::Blocked) {
        if (v == 1) (void)both[0]->alloc.dealloc(got[0], mine.ncols, 2);  // undo the even CTA's half
        c.hold = true;  // not enough free columns: wait for a dealloc in this CTA (pair deallocs free both)
        c.eng->block(c, WaitKind::Custom, key(&st.alloc), st.alloc.version() + 1);
        return;
      }
      got[v] = r.column;
    }
    if (got[0] != got[1])
      c.fault("error", what + ": the two CTAs' free columns differ (" + std::to_string(got[0]) + " and " +
                           std::to_string(got[1]) + "); a pair's allocations must be collective from the start");
    mine.column = theirs.column = got[0];
  } else if (kind == kDealloc) {
    for (int v = 0; v < 2; ++v)
      if (auto e = columns_in_use(*both[v], mine.column, mine.ncols))
        c.fault("error", what + ": in CTA rank " + std::to_string(pair[v]->rank) + ": " + *e);
    for (int v = 0; v < 2; ++v) {
      if (auto e = both[v]->alloc.dealloc(mine.column, mine.ncols, 2))
        c.fault("error", what + ": in CTA rank " + std::to_string(pair[v]->rank) + ": " + *e);
      c.eng->wake(WaitKind::Custom, key(&both[v]->alloc), both[v]->alloc.version());
    }
  }
  theirs.done = true;
  c.eng->wake(WaitKind::Custom, key(&ps->pair_op), ++ps->pair_version);
  finish(c, in, mask, mine);
  mine = {};
}

std::string describe_wait(const Cta& cta, uint64_t obj) {
  const Tcgen05Cta& st = *cta.tcgen05;
  if (obj == key(&st.alloc))
    return "    waiting for a tcgen05.dealloc to free enough Tensor Memory columns (" + std::to_string(st.alloc.free_columns()) +
           " of 512 free)\n";
  if (obj == key(&st.pair_op))
    return std::string("    waiting for the peer CTA (rank ") + std::to_string(cta.rank ^ 1u) + ") to issue its " +
           name_of(st.pair_op.kind) + " (.cta_group::2 allocation operations are collective)\n";
  return "";
}

}  // namespace sem::tcgen05

}  // namespace ptxsim
