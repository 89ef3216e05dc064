// One warp-instruction's memory access resolved for all its lanes at once: the fast path of ld, st
// and atom when every lane's address is plainly valid.
//
// ExecCtx::mem resolves one lane at a time and re-reads everything it consults for each; here the
// per-instruction facts (the space, the CTA's shared memory and whether anything in it needs a
// closer look, the global allocation cache) are read once, and each lane costs an add and a few
// comparisons. The fast path either resolves every lane or changes nothing and answers false: the
// caller then runs its per-lane loop through ExecCtx::mem, which faults, diagnoses and checks
// exactly as before. So results, faults and warnings are the same whichever path runs. With
// --racecheck the detector sees each lane's access after the warp's are resolved, in lane order,
// as the per-lane path (ExecCtx::mem_race) shows them to it.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "sim/exec/engine.h"
#include "sim/exec/racecheck.h"

namespace ptxsim {

// The offsets in the executing CTA's shared memory (off[l] for lane l; other entries untouched) of
// an access of `size` bytes aligned to `align` at register `a`'s address + offset in space `sp` (a
// shared space, or generic addresses in the shared window), or false when some lane's address is
// not plainly one of them (another CTA's, out of bounds, misaligned, a frame variable): the caller
// then takes its per-lane path (Engine::resolve_shared), which resolves or faults exactly.
inline bool own_shared_offsets(ExecCtx& c, Space sp, const Operand& a, uint32_t mask, uint32_t size, uint32_t align,
                               uint32_t* off) {
  if (!mask || a.frame_rel) return false;
  const Cta& own = *c.cta;
  const uint64_t end = own.smem.size();
  if (end > uint64_t(kSharedOffsetMask) + 1 || end < uint64_t(kSharedReserved) + size) return false;
  // Lane l is fine when its offset `o` in this CTA's window satisfies reserved <= o and o + size <=
  // end: one unsigned comparison of o - reserved with `last`. (A different rank puts o outside
  // [0, 2^24), hence past `last`.) A .shared operand may hold a generic shared-window address
  // (resolve_shared: its low 32 bits name the shared address); a generic operand must.
  const uint64_t* base = c.col(a);
  const uint64_t imm = uint64_t(a.imm), misaligned = align - 1;
  const uint64_t rank_base = uint64_t(own.rank) << kSharedRankShift;
  const uint64_t last = end - size - kSharedReserved;
  const bool generic = sp == Space::Generic;
  uint64_t bad = 0;
  for_lanes(mask, [&](int l) {
    const uint64_t addr = base[l] + imm;
    const uint64_t w = addr - kSharedWindow;
    const uint64_t o = ((generic || w < kWindowSize) ? w : addr) - rank_base;
    bad |= uint64_t(o - kSharedReserved > last) | (addr & misaligned);
    off[l] = uint32_t(o);
  });
  return !bad;
}

// Host pointers of lanes `mask` (p[l] for lane l; other entries untouched) for an access of `size`
// bytes aligned to `align` at register `a`'s address + offset in space `sp`, or false when some
// lane needs the per-lane path. On success it does what ExecCtx::mem would have done for each lane
// in ascending order: counts writes, notes the last address read, marks shared bytes written
// through the generic proxy.
inline bool warp_access(ExecCtx& c, Space sp, const Operand& a, uint32_t mask, uint32_t size, uint32_t align,
                        Access acc, uint8_t** p) {
  if (!mask || a.frame_rel) return false;  // frame variables live in the per-lane stacks
  const uint64_t* base = c.col(a);
  const uint64_t imm = uint64_t(a.imm);
  const int first = std::countr_zero(mask);
  const uint64_t addr0 = base[first] + imm;
  enum { Shared, Global, Param, Local } where;
  switch (sp) {
    case Space::Shared:
    case Space::SharedCluster: where = Shared; break;
    case Space::Global:
    case Space::Const: where = Global; break;
    case Space::Param: where = Param; break;
    case Space::Local: where = Local; break;
    case Space::Generic:
      // Every lane must be in the space the first lane is in; a lane that is not fails the checks
      // below (a global allocation never lies in a window, a window address is not this CTA's
      // shared memory unless it is in the shared window, nor a parameter or a lane's local memory
      // unless in theirs: a local stack is at most 1 MiB, far below a window's size).
      if (in_window(addr0, kSharedWindow)) where = Shared;
      else if (in_window(addr0, kParamWindow)) where = Param;
      else if (in_window(addr0, kLocalWindow)) where = Local;
      else where = Global;
      break;
    default: return false;
  }
  const uint64_t misaligned = align - 1;
  if (where == Param) {  // the kernel's parameter buffer: read only
    if (acc != Access::Read) return false;
    const uint64_t window = sp == Space::Generic ? kParamWindow : 0;
    uint8_t* const params = const_cast<uint8_t*>(c.eng->params.data());
    const uint64_t end = c.eng->params.size();
    bool ok = true;
    for_lanes(mask, [&](int l) {
      const uint64_t off = base[l] + imm - window;
      ok &= !((base[l] + imm) & misaligned) && off <= end && size <= end - off;
      p[l] = params + off;
    });
    if (!ok) return false;
  } else if (where == Shared) {
    Cta& own = *c.cta;
    uint8_t* const smem = own.smem.data();
    uint32_t offs[32];
    if (!own_shared_offsets(c, sp, a, mask, size, align, offs)) return false;
    uint32_t lo = ~0u, hi = 0;  // the lanes' hull: the checks below look at each lane only when it has a hit
    for_lanes(mask, [&](int l) {
      p[l] = smem + offs[l];
      lo = std::min(lo, offs[l]);
      hi = std::max(hi, offs[l] + size);
    });
    // (The words are 0 or 1: a byte search finds a live one.)
    if (own.live_mbars && std::memchr(own.mbar_word.data() + lo / 8, 1, (hi - 1) / 8 - lo / 8 + 1)) {
      bool ok = true;  // a plain access touching a live mbarrier is an error the full path reports
      for_lanes(mask, [&](int l) {
        const uint32_t off = uint32_t(p[l] - smem);
        for (uint32_t w = off / 8; w <= (off + size - 1) / 8; ++w) ok &= !own.mbar_word[w];
      });
      if (!ok) return false;
    }
    if (own.async_dst && own.async_overlaps(lo, hi - lo, acc != Access::Read)) {
      bool ok = true;  // something in flight overlaps a lane: the full path warns
      for_lanes(mask, [&](int l) { ok &= !own.async_overlaps(uint32_t(p[l] - smem), size, acc != Access::Read); });
      if (!ok) return false;
    }
    if (acc != Access::Read) for_lanes(mask, [&](int l) { own.generic_writes.mark(uint32_t(p[l] - smem), size); });
  } else if (where == Local) {  // each lane's own stack: a lane's address is an offset into it
    const uint64_t window = sp == Space::Generic ? kLocalWindow : 0;
    bool ok = true;
    for_lanes(mask, [&](int l) {
      const uint64_t addr = base[l] + imm;
      const uint64_t off = addr - window;
      std::vector<uint8_t>& st = c.warp->stack[size_t(l)];
      ok &= !(addr & misaligned) && off <= st.size() && size <= st.size() - off;
      p[l] = st.data() + off;
    });
    if (!ok) return false;
  } else {
    // Lanes almost always address one allocation (a table, an array): found once for the first
    // lane, each lane then costs a subtraction and a comparison. A warp spread over several
    // allocations resolves lane by lane.
    model::GlobalView& g = *c.global;
    const model::GlobalMemory::Allocation* al = (addr0 & misaligned) ? nullptr : g.holding(addr0, size);
    if (!al) return false;
    const uint64_t lo = al->base, last = al->bytes.size() - size;  // holding() ensured size fits
    uint8_t* const host = al->bytes.data();
    uint64_t bad = 0;
    for_lanes(mask, [&](int l) {
      const uint64_t addr = base[l] + imm;
      const uint64_t off = addr - lo;
      bad |= uint64_t(off > last) | (addr & misaligned);
      p[l] = host + off;
    });
    if (bad) {
      bool ok = true;
      for_lanes(mask, [&](int l) {
        const uint64_t addr = base[l] + imm;
        uint8_t* q = (addr & misaligned) ? nullptr : g.translate(addr, size);
        ok &= q != nullptr;
        p[l] = q;
      });
      if (!ok) return false;
    }
  }
  if (acc == Access::Write) c.events->writes += lane_count(mask);
  else c.events->last_read = base[31 - std::countl_zero(mask)] + imm;
  if (c.race) [[unlikely]] c.race->access_warp(c, sp, base, imm, p, size, acc, mask);
  return true;
}

// A scalar load of `Bytes` per lane from .global or .const memory straight into register column
// `dst` (which must not be the address column `a`): one pass that checks each lane against the
// first lane's allocation and loads, instead of warp_access's resolving pass plus a loading pass.
// False at the first lane (ascending) that needs a closer look: lanes below it were written with
// exactly what the careful path then writes again (the addresses, read from another column, and
// memory are unchanged), and that path writes them too before any fault, so the outcome is the
// same. With --racecheck or a frame variable it answers false at once, having written nothing.
template <uint32_t Bytes, bool Signed>
inline bool warp_load_global(ExecCtx& c, const Operand& a, uint32_t mask, uint64_t* dst) {
  if (!mask || a.frame_rel || c.race) return false;
  const uint64_t* base = c.col(a);
  const uint64_t imm = uint64_t(a.imm);
  const uint64_t addr0 = base[std::countr_zero(mask)] + imm;
  const model::GlobalMemory::Allocation* al = c.global->holding(addr0, Bytes);
  if (!al || (al->base & (Bytes - 1))) return false;
  const uint64_t lo = al->base;
  // Lane l's offset in the allocation is base[l] + rel. Rotated right by log2(Bytes) bits, an
  // aligned offset becomes its element index and a misaligned one a number above every index, so
  // one comparison with the last element's index checks both bounds and alignment.
  constexpr int k = std::countr_zero(Bytes);
  const uint64_t rel = imm - lo, last = (al->bytes.size() - Bytes) >> k;  // holding() ensured Bytes fits
  const uint8_t* const host = al->bytes.data();
  for (uint32_t m = mask; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t off = base[l] + rel;
    if (std::rotr(off, k) > last) [[unlikely]] return false;
    uint64_t v = load_le(host + off, Bytes);
    if constexpr (Signed) {
      constexpr uint32_t shift = 64 - Bytes * 8;
      if constexpr (shift) v = uint64_t(int64_t(v << shift) >> shift);
    }
    dst[l] = v;
  }
  c.events->last_read = base[31 - std::countl_zero(mask)] + imm;  // the highest lane's, as the per-lane path leaves it
  return true;
}

}  // namespace ptxsim
