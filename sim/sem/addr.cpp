// Address-space queries and cache-control instructions: isspacep, mapa, getctarank, prefetch,
// prefetchu, applypriority, discard, createpolicy.
//
// ptxsim's address layout (sim/exec/address_space.h): global addresses are GlobalMemory's own; a
// shared address has bits 31:24 = (CTA rank in the cluster + 1), or 0 for the executing CTA, and
// bits 23:0 the offset; generic addresses of shared, local and kernel-parameter memory are fixed
// windows. The cache instructions change nothing the simulated program can observe: they only
// validate what they are given.
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "sim/exec/engine.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {
// ldst.cpp: generic addresses of variables named in generic accesses, and ptxas's address checks.
void generic_symbol(Binder& b, size_t i);
void check_address(Binder& b, size_t i, Space sp);
}  // namespace sem

namespace {

using sem::addr_of;
using sem::val;

using sem::hex;

// Makes value operand i carry a generic address when it names a variable: a shared variable or a
// kernel parameter gets its window added here; a frame variable (whose offset the semantics add
// to the frame base) gets kLocalWindow through in.imm, which the semantics add to every value.
void generic_value(Binder& b, size_t i) {
  Operand& o = b.in.op[i];
  b.in.imm = 0;
  if (o.kind != Operand::Kind::Imm) return;
  if (o.frame_rel) {
    b.in.imm = kLocalWindow;
    return;
  }
  if (o.space == Space::Shared) o.slot = b.dec.shared_slot(uint64_t(o.imm) + kSharedWindow, o.dyn_shared);
  else if (o.space == Space::Param) o.slot = b.dec.const_slot(uint64_t(o.imm) + kParamWindow);
}

// The value of operand o for lane l as an address: 32-bit registers are read as 32 bits.
inline uint64_t addr_value(const ExecCtx& c, const Instr& in, const Operand& o, int l) {
  uint64_t v = val(c, o, l);
  if (o.kind == Operand::Kind::Reg && o.width == 32) v = uint32_t(v);
  return v + in.imm;
}

// ---- isspacep ---------------------------------------------------------------------------------

enum SpaceTest : uint8_t { kIsGlobal, kIsConst, kIsLocal, kIsSharedCta, kIsSharedCluster, kIsParam };

void exec_isspacep(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  const Operand& a = in.op[1];
  const uint32_t own = c.cta->rank, nctas = uint32_t(c.eng->ctas.size());
  for_lanes(mask, [&](int l) {
    const uint64_t v = addr_value(c, in, a, l);
    bool r = false;
    switch (SpaceTest(in.a)) {
      case kIsGlobal:  // the .param window lies inside the .global window (PTX ISA)
        r = !in_window(v, kSharedWindow) && !in_window(v, kLocalWindow);
        break;
      case kIsConst:
        for (const auto& mv : c.eng->prog.module_vars)
          if (mv.is_const && v - mv.address < mv.init.size()) r = true;
        break;
      case kIsLocal: r = in_window(v, kLocalWindow); break;
      case kIsSharedCta:
      case kIsSharedCluster: {
        if (!in_window(v, kSharedWindow)) break;
        const uint32_t rank = uint32_t(v - kSharedWindow) >> kSharedRankShift;
        r = in.a == kIsSharedCta ? rank == own : rank < nctas;
        break;
      }
      case kIsParam: r = in_window(v, kParamWindow); break;
    }
    d[l] = r ? 1 : 0;
  });
}

// ---- mapa / getctarank ------------------------------------------------------------------------

// The 32-bit shared::cluster address of lane l's operand: from a shared address (in.b == 0) or a
// generic address (in.b == 1, which must be in the shared window).
uint32_t shared_address(ExecCtx& c, const Instr& in, const Operand& o, int l, const char* what) {
  const uint64_t v = addr_value(c, in, o, l);
  if (!in.b) return uint32_t(v);
  if (!in_window(v, kSharedWindow))
    c.fault("illegal address", std::string(what) + ": generic address " + hex(v) + " (lane " + std::to_string(l) +
                                   ") does not point to shared memory");
  return uint32_t(v - kSharedWindow);
}

uint32_t checked_rank(ExecCtx& c, uint32_t field, uint64_t addr, int l, const char* what) {
  if (field >= c.eng->ctas.size())
    c.fault("illegal address", std::string(what) + ": shared address " + hex(addr) + " (lane " + std::to_string(l) +
                                   ") names CTA rank " + std::to_string(field) + " outside the cluster of " +
                                   std::to_string(c.eng->ctas.size()) + " CTAs");
  return field;
}

// mapa: in.b = generic form; types[0] = .u32 or .u64.
void exec_mapa(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  const uint64_t* rk = c.col(in.op[2]);
  const bool narrow = in.types[0] == DType::U32;
  const uint32_t nctas = uint32_t(c.eng->ctas.size());
  for_lanes(mask, [&](int l) {
    const uint32_t s = shared_address(c, in, in.op[1], l, "mapa");
    const uint32_t r = uint32_t(rk[l]);
    if (r >= nctas)
      c.fault("error", "mapa: target CTA rank " + std::to_string(r) + " (lane " + std::to_string(l) +
                           ") is outside the cluster of " + std::to_string(nctas) + " CTAs");
    const uint32_t m = (r << kSharedRankShift) | (s & kSharedOffsetMask);
    uint64_t v = in.b ? kSharedWindow + m : m;
    d[l] = narrow ? uint32_t(v) : v;
  });
}

void exec_getctarank(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    const uint32_t s = shared_address(c, in, in.op[1], l, "getctarank");
    d[l] = checked_rank(c, s >> kSharedRankShift, s, l, "getctarank");
  });
}

// ---- cache control ----------------------------------------------------------------------------

void exec_nop(ExecCtx&, const Instr&, uint32_t) {}

// applypriority / discard [a], 128: the 128 bytes at a must be a 128-byte-aligned range of one
// global allocation. discard makes the data "unstable indeterminate" in the ISA; ptxsim keeps the
// bytes (any value is allowed, and keeping them is the reproducible choice).
template <Access Acc>
void exec_l2_range(ExecCtx& c, const Instr& in, uint32_t mask) {
  const char* what = Acc == Access::Read ? "applypriority" : "discard";
  const Operand& a = in.op[0];
  for_lanes(mask, [&](int l) {
    const uint64_t addr = addr_of(c, a, l);
    if (in.space == Space::Generic &&
        (in_window(addr, kSharedWindow) || in_window(addr, kLocalWindow) || in_window(addr, kParamWindow)))
      c.fault("illegal address", std::string(what) + ": generic address " + hex(addr) + " (lane " + std::to_string(l) +
                                     ") is not in the .global window");
    c.mem(Space::Global, addr, 128, 128, l, Acc);
  });
}

// ---- createpolicy -----------------------------------------------------------------------------
// The policy is an opaque 64-bit value; ptxsim's is deterministic and records what was asked:
//   bits 63:62  kind: 1 fractional, 2 range, 3 cvt
//   bits 61:60  primary priority, 59:58 secondary (0 evict_normal, 1 evict_first, 2 evict_last,
//               3 evict_unchanged)
//   fractional: bits 31:0 the fraction as f32 bits
//   range:      bits 57:0 a hash of (address, primary size, total size)
//   cvt:        bits 57:0 a hash of the access property
enum PolicyKind : uint8_t { kFractional = 1, kRange = 2, kCvt = 3 };
enum Priority : uint8_t { kEvictNormal, kEvictFirst, kEvictLast, kEvictUnchanged };

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline uint64_t policy_head(const Instr& in) {
  return uint64_t(in.a) << 62 | uint64_t(in.b & 3) << 60 | uint64_t(in.c & 3) << 58;
}
constexpr uint64_t kLow58 = (1ull << 58) - 1;

// in.d = 1: the fraction is in a register (f32 bits), checked per lane; else in.imm holds its bits.
void exec_createpolicy_fractional(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    uint32_t f = uint32_t(in.imm);
    if (in.d) {
      f = uint32_t(c.col(in.op[1])[l]);
      const float x = std::bit_cast<float>(f);
      if (!(x > 0.0f && x <= 1.0f))
        c.fault("error", "createpolicy.fractional: fraction " + std::to_string(x) + " (lane " + std::to_string(l) +
                             ") is outside (0, 1]");
    }
    d[l] = policy_head(in) | f;
  });
}

void exec_createpolicy_range(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    const uint64_t a = addr_of(c, in.op[1], l);
    const uint32_t primary = uint32_t(val(c, in.op[2], l)), total = uint32_t(val(c, in.op[3], l));
    if (primary > total)
      c.fault("error", "createpolicy.range: primary size " + std::to_string(primary) + " (lane " + std::to_string(l) +
                           ") exceeds the total size " + std::to_string(total));
    d[l] = policy_head(in) | (mix64(a ^ mix64(uint64_t(primary) << 32 | total)) & kLow58);
  });
}

void exec_createpolicy_cvt(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = policy_head(in) | (mix64(val(c, in.op[1], l)) & kLow58); });
}

}  // namespace

// ---- binders ----------------------------------------------------------------------------------

void bind_isspacep(Binder& b) {
  b.require_ops(2, 2);
  if (b.op_kind(0) != Operand::Kind::Reg) b.error("the destination of 'isspacep' must be a predicate register");
  if (b.op_kind(1) != Operand::Kind::Reg) b.error("the address operand of 'isspacep' must be a register");
  SpaceTest t;
  if (b.has(".global")) t = kIsGlobal;
  else if (b.has(".const")) t = kIsConst;
  else if (b.has(".local")) t = kIsLocal;
  else if (b.has(".shared::cluster")) t = kIsSharedCluster;
  else if (b.has(".shared") || b.has(".shared::cta")) t = kIsSharedCta;
  else if (b.has(".param") || b.has(".param::entry")) t = kIsParam;
  else b.error("'isspacep' needs a state space (.global .const .local .shared{::cta,::cluster} .param{::entry})");
  int spaces = b.has(".global") + b.has(".const") + b.has(".local") + b.has(".shared") + b.has(".shared::cta") +
               b.has(".shared::cluster") + b.has(".param") + b.has(".param::entry");
  if (spaces > 1) b.error("'isspacep' takes one state space");
  generic_value(b, 1);
  b.in.a = t;
  b.in.fn = exec_isspacep;
}

void bind_mapa(Binder& b) {
  b.require_ops(3, 3);
  b.require_types(1);
  if (b.op_kind(0) != Operand::Kind::Reg) b.error("the destination of 'mapa' must be a register");
  if (b.op_kind(1) != Operand::Kind::Reg && b.op_kind(1) != Operand::Kind::Imm)
    b.error("the source of 'mapa' must be a register or a shared variable");
  if (b.op_kind(2) != Operand::Kind::Reg && b.op_kind(2) != Operand::Kind::Imm)
    b.error("the CTA rank of 'mapa' must be a 32-bit register or immediate");
  const bool generic = !b.has(".shared::cluster");
  if (generic) generic_value(b, 1);
  else if (b.in.op[1].kind == Operand::Kind::Imm && b.in.op[1].space != Space::Shared)
    b.error("'mapa.shared::cluster' needs a shared-memory address or variable");
  if (generic && b.in.op[1].kind == Operand::Kind::Imm && b.in.op[1].space != Space::Shared)
    b.error("generic 'mapa' needs a register holding a generic shared-memory address");
  b.in.b = generic ? 1 : 0;
  b.in.fn = exec_mapa;
}

void bind_getctarank(Binder& b) {
  b.require_ops(2, 2);
  b.require_types(1);
  if (b.op_kind(0) != Operand::Kind::Reg) b.error("the destination of 'getctarank' must be a register");
  if (b.op_kind(1) != Operand::Kind::Reg && b.op_kind(1) != Operand::Kind::Imm)
    b.error("the source of 'getctarank' must be a register or a shared variable");
  const bool generic = !b.has(".shared::cluster");
  if (generic) generic_value(b, 1);
  else if (b.in.op[1].kind == Operand::Kind::Imm && b.in.op[1].space != Space::Shared)
    b.error("'getctarank.shared::cluster' needs a shared-memory address or variable");
  if (generic && b.in.op[1].kind == Operand::Kind::Imm && b.in.op[1].space != Space::Shared)
    b.error("generic 'getctarank' needs a register holding a generic shared-memory address");
  b.in.b = generic ? 1 : 0;
  b.in.fn = exec_getctarank;
}

// prefetch{.global,.local}.{L1,L2} [a]; prefetch.global.L2::evict_{last,normal} [a]; prefetchu.L1 [a].
// A prefetch is a hint: it never faults (prefetching past the end of an array is a common pattern)
// and changes nothing.
//
// prefetch{.const,.param}.tensormap [a] brings a CUtensorMap into the tensormap cache: a hint as
// well (the TMA operation reads the map through the tensormap proxy when it runs, tma_common.cpp).
void bind_prefetch(Binder& b) {
  b.require_ops(1, 1);
  if (b.op_kind(0) != Operand::Kind::Addr) b.error("'" + b.src.opcode + "' needs an address operand [..]");
  if (b.has(".tensormap")) {
    if (b.has(".global") || b.has(".local"))
      b.error(std::string("Modifier '.tensormap' cannot be applied to '") + (b.has(".global") ? ".global" : ".local") +
              "' space for instruction 'prefetch'");
    if (b.has(".L1") || b.has(".L2") || b.has(".L2::evict_last") || b.has(".L2::evict_normal"))
      b.error("'prefetch.tensormap' takes no cache level");
    // As ptxas: a named variable must be in the space written; without one the address is generic,
    // which .global, .shared and .local variables have and .param and .const variables do not.
    if (b.has(".const"))
      sem::check_symbol_space(b, 0, {Space::Const}, "'prefetch.const.tensormap' needs a .const address");
    else if (b.has(".param"))
      sem::check_symbol_space(b, 0, {Space::Param, Space::Local}, "'prefetch.param.tensormap' needs a .param address");
    else
      sem::check_symbol_space(b, 0, {Space::Global, Space::Shared, Space::Local},
                              "'prefetch.tensormap' needs a generic address (prefetch.param.tensormap or "
                              "prefetch.const.tensormap names a parameter or constant directly)");
    b.in.fn = exec_nop;
    return;
  }
  int levels = b.has(".L1") + b.has(".L2") + b.has(".L2::evict_last") + b.has(".L2::evict_normal");
  if (levels != 1) b.error("'" + b.src.opcode + "' needs one cache level (.L1, .L2, .L2::evict_last or .L2::evict_normal)");
  if ((b.has(".L2::evict_last") || b.has(".L2::evict_normal")) && b.has(".local"))
    b.error("prefetch with an eviction priority needs a .global (or generic) address");
  if (b.has(".const") || b.has(".param")) b.error(".const and .param prefetches exist only with .tensormap");
  if (b.has(".global") && b.has(".local")) b.error("'prefetch' takes one state space");
  sem::check_address(b, 0, b.has(".global") ? Space::Global : b.has(".local") ? Space::Local : Space::Generic);
  b.in.fn = exec_nop;
}

namespace {
void bind_l2_range(Binder& b, const char* what, ExecFn fn) {
  b.require_ops(2, 2);
  if (b.op_kind(0) != Operand::Kind::Addr) b.error(std::string("'") + what + "' needs an address operand [..]");
  if (b.imm(1) != 128) b.error(std::string("the size operand of '") + what + "' must be 128 (the only supported size)");
  b.in.space = b.has(".global") ? Space::Global : Space::Generic;
  if (b.in.op[0].frame_rel) b.error(std::string("'") + what + "' needs a global address");
  sem::check_address(b, 0, b.in.space);
  sem::generic_symbol(b, 0);
  b.in.fn = fn;
}
}  // namespace

void bind_applypriority(Binder& b) {
  if (!b.has(".L2::evict_normal")) b.error("'applypriority' needs .L2::evict_normal");
  bind_l2_range(b, "applypriority", exec_l2_range<Access::Read>);
}

void bind_discard(Binder& b) {
  if (!b.has(".L2")) b.error("'discard' needs the cache level .L2");
  bind_l2_range(b, "discard", exec_l2_range<Access::Write>);
}

void bind_createpolicy(Binder& b) {
  const int kinds = b.has(".fractional") + b.has(".range") + b.has(".cvt");
  if (kinds != 1) b.error("'createpolicy' needs one of .fractional, .range and .cvt");
  if (!b.has(".b64")) b.error("'createpolicy' needs the type .b64");
  if (b.op_kind(0) != Operand::Kind::Reg) b.error("the destination of 'createpolicy' must be a 64-bit register");
  if (b.has(".cvt")) {
    if (!b.has(".L2")) b.error("'createpolicy.cvt' needs .L2");
    b.require_ops(2, 2);
    if (b.op_kind(1) != Operand::Kind::Reg && b.op_kind(1) != Operand::Kind::Imm)
      b.error("the access property of 'createpolicy.cvt' must be a 64-bit register");
    b.in.a = kCvt;
    b.in.fn = exec_createpolicy_cvt;
    return;
  }
  if (b.has(".L2")) b.error("'.L2' applies only to createpolicy.cvt; use an .L2::evict_* priority");
  if (b.has(".global") && !b.has(".range")) b.error(".global applies only to createpolicy.range");
  // Priorities in the order written: the first is primary, a second one secondary.
  std::vector<Priority> pr;
  std::string_view op = b.src.opcode;
  for (size_t i = 0; i < op.size();) {
    size_t j = op.find('.', i);
    if (j == std::string_view::npos) j = op.size();
    std::string_view part = op.substr(i, j - i);
    if (part == "L2::evict_normal") pr.push_back(kEvictNormal);
    else if (part == "L2::evict_first") pr.push_back(kEvictFirst);
    else if (part == "L2::evict_last") pr.push_back(kEvictLast);
    else if (part == "L2::evict_unchanged") pr.push_back(kEvictUnchanged);
    i = j + 1;
  }
  if (pr.empty()) b.error("'createpolicy' needs a primary priority (.L2::evict_last .L2::evict_normal .L2::evict_first .L2::evict_unchanged)");
  if (pr.size() > 2) b.error("'createpolicy' takes a primary and at most one secondary priority");
  if (pr.size() == 2 && pr[0] == pr[1]) b.error("'createpolicy' names the same priority twice");
  if (pr.size() == 2 && pr[1] != kEvictFirst && pr[1] != kEvictUnchanged)
    b.error("the secondary priority of 'createpolicy' must be .L2::evict_first or .L2::evict_unchanged");
  b.in.b = pr[0];
  b.in.c = pr.size() == 2 ? pr[1] : kEvictUnchanged;
  if (b.has(".range")) {
    b.require_ops(4, 4);
    if (b.op_kind(1) != Operand::Kind::Addr) b.error("'createpolicy.range' needs an address operand [..]");
    if (b.in.op[1].frame_rel) b.error("'createpolicy.range' needs a global address");
    b.in.space = b.has(".global") ? Space::Global : Space::Generic;
    sem::check_address(b, 1, b.in.space);
    sem::generic_symbol(b, 1);
    for (size_t i : {size_t(2), size_t(3)})
      if (b.op_kind(i) != Operand::Kind::Reg && b.op_kind(i) != Operand::Kind::Imm)
        b.error("the sizes of 'createpolicy.range' must be 32-bit registers or immediates");
    if (b.op_kind(2) == Operand::Kind::Imm && b.op_kind(3) == Operand::Kind::Imm &&
        uint64_t(b.imm(2)) > uint64_t(b.imm(3)))
      b.error("the primary size of 'createpolicy.range' exceeds its total size");
    if (b.op_kind(3) == Operand::Kind::Imm && uint64_t(b.imm(3)) > 0xffffffffull)
      b.error("the total size of 'createpolicy.range' must be below 4 GB");
    b.in.a = kRange;
    b.in.fn = exec_createpolicy_range;
    return;
  }
  // Fractional: the optional fraction (default 1.0) must lie in (0, 1].
  b.require_ops(1, 2);
  b.in.a = kFractional;
  b.in.fn = exec_createpolicy_fractional;
  float f = 1.0f;
  if (b.op_count() == 2) {
    const auto& src = b.src.operands[1];
    if (b.op_kind(1) == Operand::Kind::Reg) {
      b.in.d = 1;
      return;
    }
    if (b.op_kind(1) != Operand::Kind::Imm) b.error("the fraction of 'createpolicy.fractional' must be a floating-point immediate");
    using K = ast::Operand::Kind;
    if (src.kind == K::F32) f = std::bit_cast<float>(uint32_t(src.value));
    else if (src.kind == K::F64) f = float(std::bit_cast<double>(uint64_t(src.value)));
    else b.error("the fraction of 'createpolicy.fractional' must be a floating-point immediate");
    if (!(f > 0.0f && f <= 1.0f)) b.error("the fraction of 'createpolicy.fractional' must lie in (0.0, 1.0]");
  }
  b.in.imm = std::bit_cast<uint32_t>(f);
}

}  // namespace ptxsim
