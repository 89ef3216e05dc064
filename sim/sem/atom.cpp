// atom and red: atomic read-modify-write of .global and .shared{::cta,::cluster} memory
// (PTX ISA 9.7.13.5 atom, 9.7.13.6 red).
//
//   atom: d = *a; *a = op(*a, b [, c]);      red: *a = op(*a, b);
//   inc(r, s) = (r >= s) ? 0 : r + 1;   dec(r, s) = (r == 0 || r > s) ? s : r - 1;
//   cas(r, s, t) = (r == s) ? t : r;    exch(r, s) = s
//
// Order of lanes: ptxsim executes one warp-instruction at a time and, inside it, the active lanes
// in ascending lane order, each lane's read-modify-write completing before the next lane's starts.
// So when several lanes of one atom/red name the same address, lane 0's update is applied first,
// then lane 1's, and so on, and each lane's atom returns the value the previous lane left. (The
// hardware order is unspecified; programs must not depend on it, but ptxsim's is reproducible.)
// Vector forms update their elements in element order; each element is atomic on its own, as the
// ISA says. The simulated machine is sequentially consistent, so .sem and .scope are accepted and
// change nothing.
//
// Floating point: .add rounds to nearest even. atom/red.add.f32 on global memory flushes
// subnormal inputs and results to sign-preserving zero; on shared memory it keeps subnormals
// (ISA: "Current implementation ..."); generic addresses decide by where they point. The vector
// .f32 forms reach only global memory, so they always flush. The .noftz f16/bf16/f16x2/bf16x2
// forms keep subnormals. Vector .min/.max on half types follow min/max (a NaN operand is ignored,
// -0 < +0). NaN results are the canonical NaN of the numerics library.
#include <array>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <string>
#include <type_traits>

#include "model/numerics/f32_ops.h"
#include "model/numerics/f64_ops.h"
#include "model/numerics/half_ops.h"
#include "model/numerics/minmax.h"
#include "sim/exec/engine.h"
#include "sim/exec/warp_access.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {
// ldst.cpp: a variable named in the address of a generic access means its generic address; and the
// address checks ptxas makes (variable in the instruction's space, no absolute addresses outside
// .local, 64-bit registers for global and generic addresses).
void generic_symbol(Binder& b, size_t i);
void check_address(Binder& b, size_t i, Space sp);
}  // namespace sem

namespace {

namespace num = model::num;
using sem::addr_of;
using sem::val;

using sem::hex;

// Where lane l's address points. Faults for memory atomics cannot reach (a generic address into
// local memory or the kernel parameters; for vector forms, anything but global memory). Returns
// true for shared memory.
bool target_is_shared(ExecCtx& c, Space sp, uint64_t addr, int l, bool vector) {
  if (sp == Space::Shared || sp == Space::SharedCluster) return true;
  if (sp == Space::Global) return false;
  auto bad = [&](const char* where) {
    c.fault("illegal address", std::string("generic address ") + hex(addr) + " (lane " + std::to_string(l) +
                                   ") of an atomic operation points to " + where +
                                   (vector ? "; vector atom/red reach only .global memory"
                                           : "; atom/red reach only .global and .shared memory"));
  };
  if (in_window(addr, kSharedWindow)) {
    if (vector) bad("shared memory");
    return true;
  }
  if (in_window(addr, kLocalWindow)) bad("local memory");
  if (in_window(addr, kParamWindow)) bad("the kernel parameters");
  return false;
}

// ---- element operations ---------------------------------------------------------------------
// New memory value from the old value o, operand b, operand c (cas only) and whether the address
// is in shared memory. Results are truncated to the element width when stored.
using ElemOp = uint64_t (*)(uint64_t o, uint64_t b, uint64_t c, bool shared);

template <class U> uint64_t op_and(uint64_t o, uint64_t b, uint64_t, bool) { return U(o) & U(b); }
template <class U> uint64_t op_or(uint64_t o, uint64_t b, uint64_t, bool) { return U(o) | U(b); }
template <class U> uint64_t op_xor(uint64_t o, uint64_t b, uint64_t, bool) { return U(o) ^ U(b); }
template <class U> uint64_t op_exch(uint64_t, uint64_t b, uint64_t, bool) { return U(b); }
template <class U> uint64_t op_cas(uint64_t o, uint64_t b, uint64_t c, bool) { return U(o) == U(b) ? U(c) : U(o); }
template <class U> uint64_t op_add(uint64_t o, uint64_t b, uint64_t, bool) { return U(U(o) + U(b)); }
template <class U> uint64_t op_inc(uint64_t o, uint64_t b, uint64_t, bool) { return U(o) >= U(b) ? U(0) : U(U(o) + 1); }
template <class U> uint64_t op_dec(uint64_t o, uint64_t b, uint64_t, bool) {
  return (U(o) == 0 || U(o) > U(b)) ? U(b) : U(U(o) - 1);
}
template <class T> uint64_t op_min(uint64_t o, uint64_t b, uint64_t, bool) {
  using U = std::make_unsigned_t<T>;
  return U(T(o) < T(b) ? T(o) : T(b));
}
template <class T> uint64_t op_max(uint64_t o, uint64_t b, uint64_t, bool) {
  using U = std::make_unsigned_t<T>;
  return U(T(o) > T(b) ? T(o) : T(b));
}

uint64_t op_add_f32(uint64_t o, uint64_t b, uint64_t, bool shared) {
  return num::add_f32(uint32_t(o), uint32_t(b), num::Round::RN, /*ftz=*/!shared);
}
uint64_t op_add_f64(uint64_t o, uint64_t b, uint64_t, bool) { return num::add_f64(o, b, num::Round::RN); }
uint64_t op_add_f16(uint64_t o, uint64_t b, uint64_t, bool) { return num::add_f16(uint16_t(o), uint16_t(b)); }
uint64_t op_add_bf16(uint64_t o, uint64_t b, uint64_t, bool) { return num::add_bf16(uint16_t(o), uint16_t(b)); }
uint64_t op_add_f16x2(uint64_t o, uint64_t b, uint64_t, bool) { return num::add_f16x2(uint32_t(o), uint32_t(b)); }
uint64_t op_add_bf16x2(uint64_t o, uint64_t b, uint64_t, bool) { return num::add_bf16x2(uint32_t(o), uint32_t(b)); }
uint64_t op_min_f16(uint64_t o, uint64_t b, uint64_t, bool) { return num::min_f16(uint16_t(o), uint16_t(b)); }
uint64_t op_max_f16(uint64_t o, uint64_t b, uint64_t, bool) { return num::max_f16(uint16_t(o), uint16_t(b)); }
uint64_t op_min_bf16(uint64_t o, uint64_t b, uint64_t, bool) { return num::min_bf16(uint16_t(o), uint16_t(b)); }
uint64_t op_max_bf16(uint64_t o, uint64_t b, uint64_t, bool) { return num::max_bf16(uint16_t(o), uint16_t(b)); }
uint64_t op_min_f16x2(uint64_t o, uint64_t b, uint64_t, bool) { return num::min_f16x2(uint32_t(o), uint32_t(b)); }
uint64_t op_max_f16x2(uint64_t o, uint64_t b, uint64_t, bool) { return num::max_f16x2(uint32_t(o), uint32_t(b)); }
uint64_t op_min_bf16x2(uint64_t o, uint64_t b, uint64_t, bool) { return num::min_bf16x2(uint32_t(o), uint32_t(b)); }
uint64_t op_max_bf16x2(uint64_t o, uint64_t b, uint64_t, bool) { return num::max_bf16x2(uint32_t(o), uint32_t(b)); }

// The clusters of a launch may run on several host threads (sim/exec/cluster_pool.cpp), and the
// global reductions such a launch may hold (one commuting integer operation, order_dependence.cpp)
// must be atomic between them. One of 64 mutexes by 64-byte line (a scalar or vector atom, aligned
// to its size, never crosses one); uncontended it costs little next to simulating the instruction.
std::mutex& global_atomic_lock(uint64_t addr) {
  static std::array<std::mutex, 64> locks;
  return locks[(addr >> 6) % locks.size()];
}

// ---- semantics --------------------------------------------------------------------------------
// in.a: index of the address operand; in.b: index of operand b (c follows it for cas);
// in.c: vector element count; in.space: the state space written (Generic when none).

// Scalar atom/red of Bytes bytes. Dest: atom (writes d, op[0]); Signed: d is sign-extended.
template <uint32_t Bytes, ElemOp Op, bool Dest, bool Signed, bool Cas>
void exec_atom(ExecCtx& c, const Instr& in, uint32_t mask) {
  const Operand& a = in.op[in.a];
  const Operand& b = in.op[in.b];
  // Every lane's address checked at once when all are plainly valid (else lane by lane, as before);
  // the read-modify-writes still run one lane after another in lane order.
  uint8_t* ptrs[32];
  const bool resolved = warp_access(c, in.space, a, mask, Bytes, Bytes, Access::Atomic, ptrs);
  for_lanes(mask, [&](int l) {
    const uint64_t addr = addr_of(c, a, l);
    const bool shared = target_is_shared(c, in.space, addr, l, false);
    uint8_t* p = resolved ? ptrs[l] : c.mem(in.space, addr, Bytes, Bytes, l, Access::Atomic);
    const uint64_t bv = val(c, b, l);
    const uint64_t cv = Cas ? val(c, in.op[in.b + 1], l) : 0;
    std::unique_lock<std::mutex> lock;
    if (!shared) lock = std::unique_lock<std::mutex>(global_atomic_lock(addr));
    const uint64_t old = load_le(p, Bytes), now = Op(old, bv, cv, shared);
    store_le(p, now, Bytes);
    if (now != old) ++c.events->writes;  // spin-wait detection: only a change can end a poll
    if constexpr (Dest) c.col(in.op[0])[l] = Signed ? sem::sext(old, Bytes * 8) : old;
  });
}

// Vector atom/red: in.c elements of Bytes bytes, one access of in.c * Bytes bytes aligned to its
// size; operands b (and d) are vectors.
template <uint32_t Bytes, ElemOp Op, bool Dest>
void exec_atom_vec(ExecCtx& c, const Instr& in, uint32_t mask) {
  const Operand& a = in.op[in.a];
  const Operand& b = in.op[in.b];
  const uint32_t n = in.c, total = Bytes * n;
  for_lanes(mask, [&](int l) {
    const uint64_t addr = addr_of(c, a, l);
    const bool shared = target_is_shared(c, in.space, addr, l, true);
    uint8_t* p = c.mem(in.space, addr, total, total, l, Access::Atomic);
    ++c.events->writes;
    uint64_t bv[8], old[8];
    for (uint32_t i = 0; i < n; ++i) bv[i] = val(c, sem::vec_elem(c, b, i), l);  // all read before d is written
    std::unique_lock<std::mutex> lock;
    if (!shared) lock = std::unique_lock<std::mutex>(global_atomic_lock(addr));
    for (uint32_t i = 0; i < n; ++i) {
      old[i] = load_le(p + Bytes * i, Bytes);
      store_le(p + Bytes * i, Op(old[i], bv[i], 0, false), Bytes);
    }
    if constexpr (Dest)
      for (uint32_t i = 0; i < n; ++i) c.col(sem::vec_elem(c, in.op[0], i))[l] = old[i];
  });
}

// atom.cas.b128 / atom.exch.b128: 128-bit registers keep their high half in slot + 1.
template <bool Cas>
void exec_atom128(ExecCtx& c, const Instr& in, uint32_t mask) {
  const Operand& a = in.op[in.a];
  const uint64_t* b = c.col(in.op[in.b]);
  const uint64_t* cc = Cas ? c.col(in.op[in.b + 1]) : nullptr;
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    const uint64_t addr = addr_of(c, a, l);
    target_is_shared(c, in.space, addr, l, false);
    uint8_t* p = c.mem(in.space, addr, 16, 16, l, Access::Atomic);
    ++c.events->writes;
    const uint64_t b_lo = b[l], b_hi = b[l + 32];
    uint64_t n_lo = b_lo, n_hi = b_hi;
    if constexpr (Cas) {
      n_lo = cc[l];
      n_hi = cc[l + 32];
    }
    const uint64_t o_lo = load_le(p, 8), o_hi = load_le(p + 8, 8);
    if (!Cas || (o_lo == b_lo && o_hi == b_hi)) {
      store_le(p, n_lo, 8);
      store_le(p + 8, n_hi, 8);
    }
    d[l] = o_lo;
    d[l + 32] = o_hi;
  });
}

// ---- binding ----------------------------------------------------------------------------------

enum Op : uint8_t { kAnd, kOr, kXor, kCas, kExch, kAdd, kInc, kDec, kMin, kMax, kOpCount };
constexpr const char* kOpNames[kOpCount] = {".and", ".or", ".xor", ".cas", ".exch", ".add", ".inc", ".dec", ".min", ".max"};

template <uint32_t Bytes, ElemOp F, bool Signed = false, bool Cas = false>
ExecFn pick(bool dest) {
  return dest ? exec_atom<Bytes, F, true, Signed, Cas> : exec_atom<Bytes, F, false, Signed, Cas>;
}
template <uint32_t Bytes, ElemOp F>
ExecFn pick_vec(bool dest) {
  return dest ? exec_atom_vec<Bytes, F, true> : exec_atom_vec<Bytes, F, false>;
}

// Integer and bit-size operations on T (uint16_t only for cas.b16).
template <class T>
ExecFn int_fn(Op op, bool dest) {
  using U = std::make_unsigned_t<T>;
  constexpr uint32_t B = sizeof(T);
  constexpr bool S = std::is_signed_v<T>;
  switch (op) {
    case kAnd: return pick<B, op_and<U>, S>(dest);
    case kOr: return pick<B, op_or<U>, S>(dest);
    case kXor: return pick<B, op_xor<U>, S>(dest);
    case kCas: return pick<B, op_cas<U>, S, true>(dest);
    case kExch: return pick<B, op_exch<U>, S>(dest);
    case kAdd: return pick<B, op_add<U>, S>(dest);
    case kInc: return pick<B, op_inc<U>, S>(dest);
    case kDec: return pick<B, op_dec<U>, S>(dest);
    case kMin: return pick<B, op_min<T>, S>(dest);
    case kMax: return pick<B, op_max<T>, S>(dest);
    default: return nullptr;
  }
}

// Vector forms: .v2/.v4 .f32 .add; .v2/.v4/.v8 .f16/.bf16 and .v2/.v4 .f16x2/.bf16x2 .add .min .max.
ExecFn vec_fn(DType t, Op op, bool dest) {
  switch (t) {
    case DType::F32: return pick_vec<4, op_add_f32>(dest);
    case DType::F16: return op == kAdd ? pick_vec<2, op_add_f16>(dest) : op == kMin ? pick_vec<2, op_min_f16>(dest) : pick_vec<2, op_max_f16>(dest);
    case DType::BF16: return op == kAdd ? pick_vec<2, op_add_bf16>(dest) : op == kMin ? pick_vec<2, op_min_bf16>(dest) : pick_vec<2, op_max_bf16>(dest);
    case DType::F16x2: return op == kAdd ? pick_vec<4, op_add_f16x2>(dest) : op == kMin ? pick_vec<4, op_min_f16x2>(dest) : pick_vec<4, op_max_f16x2>(dest);
    case DType::BF16x2: return op == kAdd ? pick_vec<4, op_add_bf16x2>(dest) : op == kMin ? pick_vec<4, op_min_bf16x2>(dest) : pick_vec<4, op_max_bf16x2>(dest);
    default: return nullptr;
  }
}

void require_ptx(const Binder& b, uint32_t version, const std::string& what) {
  if (b.dec.program().ptx_version < version)
    b.error(what + " requires PTX ISA .version " + std::to_string(version / 10) + "." + std::to_string(version % 10) + " or later");
}

void require_sm(const Binder& b, uint32_t sm, const std::string& what) {
  if (b.dec.program().target.sm < sm)
    b.error(what + " not supported on .target '" + b.dec.program().target.name() + "' (needs sm_" + std::to_string(sm) + " or newer)");
}

// Registers of the data operands (d, b, c, or each vector element) must be exactly as wide as the
// element type, as ptxas requires ("Arguments mismatch").
void check_widths(const Binder& b, size_t first, size_t last, size_t skip, uint32_t bits) {
  for (size_t i = first; i <= last; ++i) {
    if (i == skip) continue;
    const Operand& o = b.in.op[i];
    const uint32_t n = o.kind == Operand::Kind::Vec ? o.count : 1;
    for (uint32_t k = 0; k < n; ++k) {
      const Operand& e = o.kind == Operand::Kind::Vec ? b.dec.current().vec_pool[o.slot + k] : o;
      if (e.kind == Operand::Kind::Reg && e.width != bits)
        b.error("operand " + std::to_string(i + 1) + " of '" + b.src.opcode + "' is a " + std::to_string(e.width) +
                "-bit register; the type needs " + std::to_string(bits) + " bits");
    }
  }
}

void bind_atomic(Binder& b, bool red) {
  const std::string name = red ? "red" : "atom";
  // The operation.
  Op op = kOpCount;
  for (uint8_t i = 0; i < kOpCount; ++i)
    if (b.has(kOpNames[i])) {
      if (op != kOpCount) b.error("'" + name + "' takes one operation; both " + kOpNames[op] + " and " + kOpNames[i] + " given");
      op = Op(i);
    }
  if (op == kOpCount)
    b.error("'" + name + "' needs an operation (" + (red ? ".and .or .xor .add .inc .dec .min .max" : ".and .or .xor .cas .exch .add .inc .dec .min .max") + ")");
  const std::string what = name + std::string(kOpNames[op]);
  b.require_types(1);
  const DType t = b.type(0);
  const std::string whatt = what + "." + std::string(dtype_name(t));
  uint32_t n = 1;
  if (b.has(".v2")) n = 2;
  if (b.has(".v4")) n = 4;
  if (b.has(".v8")) n = 8;

  // Memory-model and cache qualifiers: accepted (the simulated machine is sequentially consistent).
  if (b.has(".relaxed") || b.has(".acquire") || b.has(".release") || b.has(".acq_rel")) require_ptx(b, 60, name + ".sem");
  if (b.has(".cluster")) require_ptx(b, 78, name + ".cluster");
  if (b.has(".shared::cta") || b.has(".shared::cluster")) require_ptx(b, 78, name + ".shared::{cta,cluster}");
  const bool hint = b.has(".L2::cache_hint");
  if (hint) require_ptx(b, 74, name + ".L2::cache_hint");

  // Operands: atom d, [a], b {, c} {, cache-policy}; red [a], b {, cache-policy}.
  const size_t ai = red ? 0 : 1, bi = ai + 1;
  const size_t nops = bi + 1 + (op == kCas ? 1 : 0) + (hint ? 1 : 0);
  if (op == kCas && hint) b.error("'" + what + "' does not take .L2::cache_hint");
  b.require_ops(nops, nops);
  if (b.op_kind(ai) != Operand::Kind::Addr) b.error("'" + name + "' needs an address operand [..] as operand " + std::to_string(ai + 1));
  b.in.space = sem::space_of(b);
  if (b.in.op[ai].frame_rel)
    b.error("'" + name + "' cannot access a .local or .param variable; atomics reach only .global and .shared memory");
  if (hint && (b.in.space == Space::Shared || b.in.space == Space::SharedCluster))
    b.error(".L2::cache_hint is only supported for .global (or generic) addresses");
  if (hint && b.op_kind(nops - 1) != Operand::Kind::Reg && b.op_kind(nops - 1) != Operand::Kind::Imm)
    b.error("the cache-policy operand of '" + name + "' must be a 64-bit register or immediate");
  sem::check_address(b, ai, b.in.space);
  sem::generic_symbol(b, ai);
  b.in.a = uint8_t(ai);
  b.in.b = uint8_t(bi);
  b.in.c = uint8_t(n);
  const bool dest = !red;
  if (dest && b.op_kind(0) != Operand::Kind::Reg && b.op_kind(0) != Operand::Kind::Sink && b.op_kind(0) != Operand::Kind::Vec)
    b.error("the destination of 'atom' must be a register");

  const bool half = t == DType::F16 || t == DType::BF16 || t == DType::F16x2 || t == DType::BF16x2;
  if (b.has(".noftz") && !half) b.error(".noftz applies only to .f16, .f16x2, .bf16 and .bf16x2 atomics");
  if (half) {
    if (!b.has(".noftz")) b.error("'" + whatt + "' requires the .noftz qualifier");
    if (t == DType::BF16 || t == DType::BF16x2) require_ptx(b, 78, whatt);
    else require_ptx(b, t == DType::F16 ? 63 : 62, whatt);
  }

  if (n > 1) {
    // Vector forms (PTX 8.1, sm_90): global memory only.
    require_ptx(b, 81, "vector '" + name + "'");
    require_sm(b, 90, "vector '" + name + "'");
    if (b.in.space != Space::Global && b.in.space != Space::Generic)
      b.error("vector '" + name + "' may be used only with .global (or generic) addresses");
    const bool f16w = t == DType::F16 || t == DType::BF16;
    if (t == DType::F32) {
      if (op != kAdd) b.error("vector '" + name + ".f32' supports only .add");
      if (n == 8) b.error("'" + name + ".v8' needs a 16-bit type (.f16 or .bf16)");
    } else if (half) {
      if (op != kAdd && op != kMin && op != kMax) b.error("vector '" + whatt + "' supports only .add, .min and .max");
      if (n == 8 && !f16w) b.error("'" + name + ".v8' needs a 16-bit type (.f16 or .bf16)");
    } else {
      b.error("vector '" + name + "' needs type .f32, .f16, .bf16, .f16x2 or .bf16x2");
    }
    for (size_t i : {size_t(0), bi}) {
      if (red && i == 0) continue;
      if (b.op_kind(i) != Operand::Kind::Vec || b.in.op[i].count != n)
        b.error("'" + name + ".v" + std::to_string(n) + "' needs a vector operand of " + std::to_string(n) + " elements as operand " + std::to_string(i + 1));
    }
    check_widths(b, 0, bi, ai, dtype_bits(t));
    b.in.fn = vec_fn(t, op, dest);
    return;
  }
  for (size_t i = 0; i < nops; ++i)
    if (i != ai && b.op_kind(i) == Operand::Kind::Vec)
      b.error("'" + name + "' has a vector operand but no .v2/.v4/.v8");

  const bool bitsize = op == kAnd || op == kOr || op == kXor || op == kCas || op == kExch;
  if (t != DType::B128) check_widths(b, 0, bi + (op == kCas ? 1 : 0), ai, dtype_bits(t));
  switch (t) {
    case DType::B16:
      if (op != kCas || red) b.error("16-bit '" + name + "' exists only as atom.cas.b16");
      require_ptx(b, 63, "atom.cas.b16");
      require_sm(b, 70, "atom.cas.b16");
      b.in.fn = pick<2, op_cas<uint16_t>, false, true>(dest);
      return;
    case DType::B128:
      if (red || (op != kCas && op != kExch)) b.error("128-bit '" + name + "' exists only as atom.cas.b128 and atom.exch.b128");
      require_ptx(b, 83, "atom.b128");
      require_sm(b, 90, "atom.b128");
      for (size_t i = 0; i < nops - (hint ? 1 : 0); ++i) {
        if (i == ai) continue;
        const Operand& o = b.in.op[i];
        if (!(o.kind == Operand::Kind::Reg && o.width == 128) && !(i == 0 && o.kind == Operand::Kind::Sink))
          b.error("operand " + std::to_string(i + 1) + " of '" + whatt + "' must be a .b128 register");
      }
      b.in.fn = op == kCas ? exec_atom128<true> : exec_atom128<false>;
      return;
    case DType::F16:
    case DType::BF16:
    case DType::F16x2:
    case DType::BF16x2:
      if (op != kAdd) b.error("scalar '" + whatt + "' supports only .add (.min/.max exist as vector forms)");
      b.in.fn = t == DType::F16 ? pick<2, op_add_f16>(dest)
                : t == DType::BF16 ? pick<2, op_add_bf16>(dest)
                : t == DType::F16x2 ? pick<4, op_add_f16x2>(dest)
                                    : pick<4, op_add_bf16x2>(dest);
      return;
    case DType::F32:
    case DType::F64:
      if (op != kAdd) b.error("'" + whatt + "' is not a PTX form: floating-point atomics support only .add (use .b" +
                              std::to_string(dtype_bits(t)) + " for bit-size operations)");
      if (t == DType::F64) {
        require_ptx(b, 50, "atom.add.f64");
        require_sm(b, 60, "atom.add.f64");
        b.in.fn = pick<8, op_add_f64>(dest);
      } else {
        b.in.fn = pick<4, op_add_f32>(dest);
      }
      return;
    case DType::B32:
    case DType::B64:
      if (!bitsize) b.error("'" + whatt + "' needs an integer type: " + kOpNames[op] + " is an integer operation");
      break;
    case DType::U32:
    case DType::S32:
    case DType::U64:
    case DType::S64:
      if (bitsize)
        b.error("'" + whatt + "' is not a PTX form: " + kOpNames[op] + " is a bit-size operation and needs .b32 or .b64" +
                (op == kCas ? " (or .b16, .b128)" : op == kExch ? " (or .b128)" : ""));
      break;
    default:
      b.error("'" + name + "' does not support type ." + std::string(dtype_name(t)));
  }
  // The integer operations and their types, as ptxas accepts them.
  if ((op == kInc || op == kDec) && t != DType::U32) b.error("'" + whatt + "' is not a PTX form: .inc and .dec need .u32");
  if (op == kAdd && t == DType::S64) b.error("'" + whatt + "' is not a PTX form: 64-bit .add needs .u64");
  switch (t) {
    case DType::B32:
    case DType::U32: b.in.fn = int_fn<uint32_t>(op, dest); break;
    case DType::S32: b.in.fn = int_fn<int32_t>(op, dest); break;
    case DType::B64:
    case DType::U64: b.in.fn = int_fn<uint64_t>(op, dest); break;
    case DType::S64: b.in.fn = int_fn<int64_t>(op, dest); break;
    default: break;
  }
}

}  // namespace

void bind_atom(Binder& b) { bind_atomic(b, false); }
void bind_red(Binder& b) { bind_atomic(b, true); }

}  // namespace ptxsim
