// cvt (PTX ISA 9.7.9.21) and cvt.pack (9.7.9.22).
//
// Which modifier combinations each type pair takes is what ptxas 13 accepts (an exhaustive sweep
// of rounding x .ftz x .sat over every scalar type pair; see tests/unit/cvt_test.cpp):
//   int <- int     no rounding; .sat only when the source range is not inside the destination's
//   float <- int   .rn .rz .rm .rp required; .sat for f16/f32/f64; .ftz for f32 (no effect)
//   int <- float   .rni .rzi .rmi .rpi required; .ftz for f32 sources; .sat (redundant: float to
//                  int always saturates) except from bf16
//   float <- float narrowing needs .rn .rz .rm .rp; widening takes none (bf16 sources accept one,
//                  which changes nothing); same type takes none or an integer rounding; .relu and
//                  .satfinite (with .rn/.rz) only for f16/bf16 <- f32
// Results are stored zero-extended, except signed integer destinations, which are sign-extended
// from their width; sources are read from the low bits of their registers.
#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "sim/sem/float_util.h"

namespace ptxsim {

namespace {

using namespace fsem;
using M = const FMods&;
using u64 = uint64_t;

// ---- int <- int ---------------------------------------------------------------------------------

template <class D, class S>
D clamp_to(S s) {
  if (std::cmp_less(s, std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
  if (std::cmp_greater(s, std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
  return D(s);
}

template <class D, class S, bool Sat>
void exec_cvt_ii(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    const S s = S(a[l]);  // the low bits of the register, as the source type
    const D v = Sat ? clamp_to<D>(s) : D(s);
    if constexpr (std::is_signed_v<D>) d[l] = uint64_t(int64_t(v));
    else d[l] = uint64_t(v);
  });
}

template <class D, class S>
ExecFn pick_ii_2(bool sat) {
  if constexpr (std::is_void_v<D> || std::is_void_v<S>) {
    return nullptr;
  } else {
    return sat ? exec_cvt_ii<D, S, true> : exec_cvt_ii<D, S, false>;
  }
}

ExecFn pick_ii(DType dt, DType st, bool sat) {
  return sem::with_int_type(dt, [&]<class D>() {
    return sem::with_int_type(st, [&]<class S>() { return pick_ii_2<D, S>(sat); });
  });
}

// Whether every value of integer type s fits in integer type d (then .sat is not allowed).
bool int_range_inside(DType s, DType d) {
  uint32_t ws = dtype_bits(s), wd = dtype_bits(d);
  bool ss = is_signed_int(s), sd = is_signed_int(d);
  if (ss && !sd) return false;
  if (!ss && sd) return ws < wd;
  return ws <= wd;
}

num::IntType int_type(DType t) {
  switch (t) {
    case DType::S8: return num::IntType::S8;
    case DType::S16: return num::IntType::S16;
    case DType::S32: return num::IntType::S32;
    case DType::S64: return num::IntType::S64;
    case DType::U8: return num::IntType::U8;
    case DType::U16: return num::IntType::U16;
    case DType::U32: return num::IntType::U32;
    default: return num::IntType::U64;
  }
}

// ---- float <- int -------------------------------------------------------------------------------

// Round-to-nearest f32/f64 from 32/64-bit integers: the host conversion is correctly rounded.
template <class S, class F>
void exec_cvt_fi_rn(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = as_bits(F(S(a[l]))); });
}

ExecFn pick_fi(DType dt, DType st, num::Round rnd, bool sat) {
  if (rnd == num::Round::RN && !sat && (dt == DType::F32 || dt == DType::F64)) {
    const bool f32 = dt == DType::F32;
    switch (st) {
      case DType::S32: return f32 ? exec_cvt_fi_rn<int32_t, float> : exec_cvt_fi_rn<int32_t, double>;
      case DType::U32: return f32 ? exec_cvt_fi_rn<uint32_t, float> : exec_cvt_fi_rn<uint32_t, double>;
      case DType::S64: return f32 ? exec_cvt_fi_rn<int64_t, float> : exec_cvt_fi_rn<int64_t, double>;
      case DType::U64: return f32 ? exec_cvt_fi_rn<uint64_t, float> : exec_cvt_fi_rn<uint64_t, double>;
      default: break;
    }
  }
  switch (dt) {
    case DType::F32:
      return exec1<[](u64 a, M m) -> u64 {
        uint32_t r = num::int_to_f32(a, num::IntType(m.aux), m.rnd);
        return m.sat ? num::sat_f32(r) : r;
      }>;
    case DType::F64:
      return exec1<[](u64 a, M m) -> u64 {
        uint64_t r = num::int_to_f64(a, num::IntType(m.aux), m.rnd);
        return m.sat ? num::sat_f64(r) : r;
      }>;
    case DType::F16:
      return exec1<[](u64 a, M m) -> u64 {
        uint16_t r = num::int_to_f16(a, num::IntType(m.aux), m.rnd);
        return m.sat ? num::sat_f16(r) : r;
      }>;
    default: return exec1<[](u64 a, M m) -> u64 { return num::int_to_bf16(a, num::IntType(m.aux), m.rnd); }>;
  }
}

// ---- int <- float -------------------------------------------------------------------------------

ExecFn pick_if(DType st) {
  switch (st) {
    case DType::F32: return exec1<[](u64 a, M m) -> u64 { return num::f32_to_int(a, num::IntType(m.aux), m.irnd, m.ftz); }>;
    case DType::F64: return exec1<[](u64 a, M m) -> u64 { return num::f64_to_int(a, num::IntType(m.aux), m.irnd); }>;
    case DType::F16: return exec1<[](u64 a, M m) -> u64 { return num::f16_to_int(a, num::IntType(m.aux), m.irnd); }>;
    default: return exec1<[](u64 a, M m) -> u64 { return num::bf16_to_int(a, num::IntType(m.aux), m.irnd); }>;
  }
}

// ---- float <- float -----------------------------------------------------------------------------

void exec_copy(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  const uint32_t bits = in.d;
  for_lanes(mask, [&](int l) { d[l] = sem::zext(a[l], bits); });
}

num::CvtOpts opts(M m, bool ftz) {
  num::CvtOpts o;
  o.satfinite = m.satfinite;
  o.relu = m.relu;
  o.ftz = ftz && m.ftz;
  return o;
}

// Same-type cvt: none (a move), .sat, an integer rounding, .ftz (f32).
ExecFn pick_same(DType t, bool irnd, uint8_t flags) {
  switch (t) {
    case DType::F32:
      if (irnd) return exec1<[](u64 a, M m) -> u64 { return num::rint_f32(a, m.irnd, m.ftz, m.sat); }>;
      if (flags == 0) return exec_copy;  // cvt.f32.f32 is a move (ptxas emits the same code as mov)
      return exec1<[](u64 a, M m) -> u64 { return num::cvt_f32_f32(a, m.ftz, m.sat); }>;
    case DType::F64:
      if (irnd) return exec1<[](u64 a, M m) -> u64 { return num::rint_f64(a, m.irnd, m.sat); }>;
      if (flags == 0) return exec_copy;
      return exec1<[](u64 a, M) -> u64 { return num::sat_f64(a); }>;
    case DType::F16:
      if (irnd) return exec1<[](u64 a, M m) -> u64 { return num::rint_f16(a, m.irnd, m.sat); }>;
      if (flags == 0) return exec_copy;
      return exec1<[](u64 a, M) -> u64 { return num::sat_f16(a); }>;
    default:
      if (irnd) return exec1<[](u64 a, M m) -> u64 { return num::rint_bf16(a, m.irnd); }>;
      return exec_copy;
  }
}

// Different float types. `.ftz` on f16 <- f32 has no effect (ptxas emits identical code with and
// without it), so it is not applied there.
ExecFn pick_ff(DType dt, DType st) {
  using T = DType;
  if (dt == T::F16 && st == T::F32)
    return exec1<[](u64 a, M m) -> u64 {
      uint16_t r = num::f32_to_f16(a, m.rnd, opts(m, false));
      return m.sat ? num::sat_f16(r) : r;
    }>;
  if (dt == T::BF16 && st == T::F32) return exec1<[](u64 a, M m) -> u64 { return num::f32_to_bf16(a, m.rnd, opts(m, true)); }>;
  if (dt == T::F16 && st == T::F64)
    return exec1<[](u64 a, M m) -> u64 {
      uint16_t r = num::f64_to_f16(a, m.rnd);
      return m.sat ? num::sat_f16(r) : r;
    }>;
  if (dt == T::BF16 && st == T::F64) return exec1<[](u64 a, M m) -> u64 { return num::f64_to_bf16(a, m.rnd); }>;
  if (dt == T::F32 && st == T::F64) return exec1<[](u64 a, M m) -> u64 { return num::f64_to_f32(a, m.rnd, m.ftz, m.sat); }>;
  if (dt == T::F16 && st == T::BF16) return exec1<[](u64 a, M m) -> u64 { return num::bf16_to_f16(a, m.rnd); }>;
  if (dt == T::BF16 && st == T::F16) return exec1<[](u64 a, M m) -> u64 { return num::f16_to_bf16(a, m.rnd); }>;
  if (dt == T::F32 && st == T::F16)
    return exec1<[](u64 a, M m) -> u64 {
      uint32_t r = num::f16_to_f32_cvt(a, m.ftz);
      return m.sat ? num::sat_f32(r) : r;
    }>;
  if (dt == T::F32 && st == T::BF16) return exec1<[](u64 a, M m) -> u64 { return num::bf16_to_f32_cvt(a, m.ftz); }>;
  if (dt == T::F64 && st == T::F16)
    return exec1<[](u64 a, M m) -> u64 {
      uint64_t r = num::f16_to_f64(a);
      return m.sat ? num::sat_f64(r) : r;
    }>;
  if (dt == T::F64 && st == T::BF16) return exec1<[](u64 a, M) -> u64 { return num::bf16_to_f64(a); }>;
  if (dt == T::F64 && st == T::F32)
    return exec1<[](u64 a, M m) -> u64 {
      uint64_t r = num::f32_to_f64(a, m.ftz);
      return m.sat ? num::sat_f64(r) : r;
    }>;
  return nullptr;
}

bool scalar_float(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64; }

// Rank by range/precision for deciding narrowing vs widening among f16, bf16, f32, f64.
int float_rank(DType t) { return t == DType::F64 ? 3 : t == DType::F32 ? 2 : 1; }

// ---- the scalar binder --------------------------------------------------------------------------

void no_relu_satfinite(const Binder& b) {
  if (b.has(".relu") || b.has(".satfinite")) bad_types(b);
}

void bind_scalar(Binder& b, DType dt, DType st) {
  const Rounding r = rounding_of(b);
  const bool di = is_int(dt), si = is_int(st);
  b.require_ops(2, 2);
  if (b.has(".rs")) illegal_rounding(b);
  if (dt == DType::BF16 || st == DType::BF16) {
    // bf16 <-> f32 arrived with sm_80, every other bf16 conversion with sm_90.
    bool sm80 = (dt == DType::BF16 && st == DType::F32) || (st == DType::BF16 && dt == DType::F32 && !b.has(".ftz"));
    require_target(b, sm80 ? "sm_80" : "sm_90", "'cvt." + std::string(dtype_name(dt)) + "." + std::string(dtype_name(st)) + "'");
  }
  uint8_t flags = flags_of(b);
  num::Round rnd = num::Round::RN;
  num::IntRound irnd = num::IntRound::RNI;
  ExecFn fn = nullptr;
  if (di && si) {
    if (r.code != kRndNone) illegal_rounding(b);
    allow(b, ".ftz", false);
    no_relu_satfinite(b);
    allow(b, ".sat", !int_range_inside(st, dt));
    fn = pick_ii(dt, st, b.has(".sat"));
  } else if (!di && si) {
    if (r.code == kRndNone) rounding_required(b);
    if (!r.is_float() || r.code == kRndRna) illegal_rounding(b);
    allow(b, ".ftz", dt == DType::F32);
    allow(b, ".sat", dt != DType::BF16);
    no_relu_satfinite(b);
    rnd = r.fp();
    b.in.d = uint8_t(int_type(st));
    fn = pick_fi(dt, st, rnd, b.has(".sat"));
  } else if (di && !si) {
    if (r.code == kRndNone) rounding_required(b);
    if (!r.is_int()) illegal_rounding(b);
    allow(b, ".ftz", st == DType::F32);
    allow(b, ".sat", st != DType::BF16);
    no_relu_satfinite(b);
    irnd = r.integer();
    b.in.d = uint8_t(int_type(dt));
    fn = pick_if(st);
  } else if (dt == st) {
    if (r.code != kRndNone && !r.is_int()) illegal_rounding(b);
    allow(b, ".ftz", dt == DType::F32);
    allow(b, ".sat", dt != DType::BF16);
    no_relu_satfinite(b);
    irnd = r.integer();
    b.in.d = uint8_t(dtype_bits(dt));
    fn = pick_same(dt, r.is_int(), flags);
  } else {
    const bool half_pair = float_rank(dt) == 1 && float_rank(st) == 1;  // f16 <-> bf16
    const bool narrowing = float_rank(dt) < float_rank(st);
    if (r.code != kRndNone && (!r.is_float() || r.code == kRndRna)) illegal_rounding(b);
    if (narrowing && r.code == kRndNone) rounding_required(b);
    if (!narrowing && !half_pair && r.code != kRndNone && st != DType::BF16) illegal_rounding(b);
    const bool from_f32_to_half = st == DType::F32 && (dt == DType::F16 || dt == DType::BF16);
    if (from_f32_to_half) {
      if ((b.has(".relu") || b.has(".satfinite")) && r.code != kRndRn && r.code != kRndRz) illegal_rounding(b);
      exclusive(b, ".ftz", ".relu");
      exclusive(b, ".ftz", ".satfinite");
      exclusive(b, ".sat", ".relu");
      exclusive(b, ".sat", ".satfinite");
    } else {
      no_relu_satfinite(b);
    }
    // .ftz: an f32 source or destination; .sat: neither side bf16.
    allow(b, ".ftz", st == DType::F32 || dt == DType::F32);
    allow(b, ".sat", dt != DType::BF16 && st != DType::BF16);
    rnd = r.code == kRndNone ? num::Round::RN : r.fp();
    fn = pick_ff(dt, st);
  }
  if (!fn) bad_types(b);
  // Operands: registers at least as wide as the types (ptxas: wider b-registers are allowed).
  check_dst(b, 0, dtype_bits(dt), false);
  check_src(b, 1, st, false);
  store_mods(b, rnd, flags, irnd);
  b.in.fn = fn;
}

// ---- packed and narrow formats ------------------------------------------------------------------

constexpr const char* kNarrowFamily = "sm_100f|sm_110f|sm_120f";

bool is_f8x2(DType t) { return t == DType::E4M3x2 || t == DType::E5M2x2; }
bool is_f6x2(DType t) { return t == DType::E2M3x2 || t == DType::E3M2x2; }
bool is_x4(DType t) {
  return t == DType::E4M3x4 || t == DType::E5M2x4 || t == DType::E2M3x4 || t == DType::E3M2x4 || t == DType::E2M1x4;
}

std::string pair_name(DType dt, DType st) {
  return "'cvt." + std::string(dtype_name(dt)) + "." + std::string(dtype_name(st)) + "'";
}

void require_rounding(const Binder& b, std::initializer_list<uint8_t> ok) {
  const uint8_t code = b.rounding();
  if (code == kRndNone) rounding_required(b);
  for (uint8_t c : ok)
    if (c == code) return;
  illegal_rounding(b);
}

void require_satfinite(const Binder& b, DType dt) {
  if (!b.has(".satfinite"))
    b.error("'.satfinite' modifier required for instruction 'cvt' with destination type '." + std::string(dtype_name(dt)) + "'");
}

template <num::F8Kind K>
ExecFn f8_fns(DType st, bool to_f8) {
  if (!to_f8) return exec1<[](u64 a, M m) -> u64 { return num::cvt_f16x2_f8x2(K, a, m.relu); }>;
  if (st == DType::F32) return exec2<[](u64 a, u64 c, M m) -> u64 { return num::cvt_f8x2_f32(K, a, c, m.relu); }>;
  return exec1<[](u64 a, M m) -> u64 { return num::cvt_f8x2_f16x2(K, a, m.relu); }>;
}

template <num::F6Kind K>
ExecFn f6_fns(bool to_f6) {
  if (!to_f6) return exec1<[](u64 a, M m) -> u64 { return num::cvt_f16x2_f6x2(K, a, m.relu); }>;
  return exec2<[](u64 a, u64 c, M m) -> u64 { return num::cvt_f6x2_f32(K, a, c, m.relu); }>;
}

void exec_cvt_rs(ExecCtx& c, const Instr& in, uint32_t mask) {
  const FMods m = mods_of(in);
  const num::CvtOpts o = opts(m, false);
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* bb = c.col(in.op[2]);
  const uint64_t* r = c.col(in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  const bool bf = in.d != 0;
  for_lanes(mask, [&](int l) {
    d[l] = bf ? num::cvt_rs_bf16x2_f32(a[l], bb[l], r[l], o) : num::cvt_rs_f16x2_f32(a[l], bb[l], r[l], o);
  });
}

void bind_packed(Binder& b, DType dt, DType st) {
  const uint8_t flags = flags_of(b);
  allow(b, ".ftz", false);
  allow(b, ".sat", false);
  const Rounding r = rounding_of(b);
  ExecFn fn = nullptr;
  num::Round rnd = num::Round::RN;
  if (is_x4(dt)) {
    if (!b.has(".rs")) illegal_rounding(b);
    b.unimplemented("the .rs x4 conversions (" + pair_name(dt, st) + ") are not modelled");
  }
  if ((dt == DType::F16x2 || dt == DType::BF16x2) && st == DType::F32) {
    // cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b   (a -> upper half)
    // cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits
    require_target(b, "sm_80", pair_name(dt, st));
    if (r.code == kRndRs) {
      b.require_ops(4, 4);
      check_dst(b, 0, 32, false);
      check_src(b, 1, DType::F32);
      check_src(b, 2, DType::F32);
      check_src(b, 3, DType::B32);
      store_mods(b, rnd, flags);
      b.in.d = dt == DType::BF16x2;
      b.in.fn = exec_cvt_rs;
      return;
    }
    require_rounding(b, {kRndRn, kRndRz});
    rnd = r.fp();
    b.require_ops(3, 3);
    check_dst(b, 0, 32, false);
    check_src(b, 1, DType::F32);
    check_src(b, 2, DType::F32);
    store_mods(b, rnd, flags);
    if (dt == DType::F16x2)
      b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::cvt_f16x2_f32(a, c, m.rnd, opts(m, false)); }>;
    else
      b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::cvt_bf16x2_f32(a, c, m.rnd, opts(m, false)); }>;
    return;
  }
  if (b.has(".rs")) illegal_rounding(b);
  if (dt == DType::TF32) {
    // cvt.rna{.satfinite}.tf32.f32, cvt.{rn,rz}{.relu}{.satfinite}.tf32.f32 (satfinite: sm_100).
    if (st != DType::F32) bad_types(b);
    require_rounding(b, {kRndRna, kRndRn, kRndRz});
    if (r.code == kRndRna) {
      require_target(b, "sm_80", "'cvt.rna.tf32.f32'");
      exclusive(b, ".rna", ".relu");
    } else {
      require_target(b, "sm_90", "'cvt.tf32.f32' with .rn/.rz");
      if (b.has(".satfinite")) {
        require_target(b, "sm_100", "Modifier '.satfinite' of 'cvt.tf32.f32' with .rn/.rz");
        require_ptx(b, 86, "Modifier '.satfinite' of 'cvt.tf32.f32' with .rn/.rz");
      }
    }
    b.require_ops(2, 2);
    check_dst(b, 0, 32);
    check_src(b, 1, DType::F32);
    store_mods(b, r.fp(), flags);
    b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::f32_to_tf32(a, m.rnd, opts(m, false)); }>;
    return;
  }
  if (is_f8x2(dt) || dt == DType::E2M1x2 || is_f6x2(dt)) {
    // cvt.rn.satfinite{.relu}.<narrow>x2.f32 d, a, b / .f16x2 d, a (e4m3x2, e5m2x2, e2m1x2)
    require_rounding(b, {kRndRn});
    require_satfinite(b, dt);
    const bool from_f32 = st == DType::F32;
    if (!from_f32 && !(st == DType::F16x2 && !is_f6x2(dt))) bad_types(b);
    if (is_f8x2(dt)) require_target(b, "sm_89", pair_name(dt, st));
    else {
      require_target(b, kNarrowFamily, pair_name(dt, st));
      require_ptx(b, 86, pair_name(dt, st));
    }
    b.require_ops(from_f32 ? 3 : 2, from_f32 ? 3 : 2);
    check_dst(b, 0, dt == DType::E2M1x2 ? 8 : 16);
    if (from_f32) {
      check_src(b, 1, DType::F32);
      check_src(b, 2, DType::F32);
    } else {
      check_src_bits(b, 1, 32);
    }
    store_mods(b, rnd, flags);
    if (dt == DType::E4M3x2) fn = f8_fns<num::F8Kind::E4M3>(st, true);
    else if (dt == DType::E5M2x2) fn = f8_fns<num::F8Kind::E5M2>(st, true);
    else if (dt == DType::E2M3x2) fn = f6_fns<num::F6Kind::E2M3>(true);
    else if (dt == DType::E3M2x2) fn = f6_fns<num::F6Kind::E3M2>(true);
    else if (from_f32) fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::cvt_e2m1x2_f32(a, c, m.relu); }>;
    else fn = exec1<[](u64 a, M m) -> u64 { return num::cvt_e2m1x2_f16x2(a, m.relu); }>;
    b.in.fn = fn;
    return;
  }
  if (dt == DType::F16x2 && (is_f8x2(st) || is_f6x2(st) || st == DType::E2M1x2)) {
    // cvt.rn{.relu}.f16x2.<narrow>x2 d, a
    require_rounding(b, {kRndRn});
    allow(b, ".satfinite", false);
    if (is_f8x2(st)) require_target(b, "sm_89", pair_name(dt, st));
    else {
      require_target(b, kNarrowFamily, pair_name(dt, st));
      require_ptx(b, 86, pair_name(dt, st));
    }
    b.require_ops(2, 2);
    check_dst(b, 0, 32);
    check_src_bits(b, 1, st == DType::E2M1x2 ? 8 : 16);
    store_mods(b, rnd, flags);
    if (st == DType::E4M3x2) fn = f8_fns<num::F8Kind::E4M3>(st, false);
    else if (st == DType::E5M2x2) fn = f8_fns<num::F8Kind::E5M2>(st, false);
    else if (st == DType::E2M3x2) fn = f6_fns<num::F6Kind::E2M3>(false);
    else if (st == DType::E3M2x2) fn = f6_fns<num::F6Kind::E3M2>(false);
    else fn = exec1<[](u64 a, M m) -> u64 { return num::cvt_f16x2_e2m1x2(a, m.relu); }>;
    b.in.fn = fn;
    return;
  }
  if (dt == DType::UE8M0x2) {
    // cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b / .bf16x2 d, a
    if (st != DType::F32 && st != DType::BF16x2) bad_types(b);
    require_rounding(b, {kRndRz, kRndRp});
    allow(b, ".relu", false);
    require_target(b, kNarrowFamily, pair_name(dt, st));
    require_ptx(b, 86, pair_name(dt, st));
    const bool from_f32 = st == DType::F32;
    b.require_ops(from_f32 ? 3 : 2, from_f32 ? 3 : 2);
    check_dst(b, 0, 16);
    if (from_f32) {
      check_src(b, 1, DType::F32);
      check_src(b, 2, DType::F32);
    } else {
      check_src_bits(b, 1, 32);
    }
    store_mods(b, r.fp(), flags);
    if (from_f32) b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::cvt_ue8m0x2_f32(a, c, m.rnd, m.satfinite); }>;
    else b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::cvt_ue8m0x2_bf16x2(a, m.rnd, m.satfinite); }>;
    return;
  }
  if (dt == DType::BF16x2 && st == DType::UE8M0x2) {
    // cvt.rn.bf16x2.ue8m0x2 d, a
    require_rounding(b, {kRndRn});
    allow(b, ".relu", false);
    allow(b, ".satfinite", false);
    require_target(b, kNarrowFamily, pair_name(dt, st));
    require_ptx(b, 86, pair_name(dt, st));
    b.require_ops(2, 2);
    check_dst(b, 0, 32);
    check_src_bits(b, 1, 16);
    store_mods(b, rnd, flags);
    b.in.fn = exec1<[](u64 a, M) -> u64 { return num::cvt_bf16x2_ue8m0x2(a); }>;
    return;
  }
  bad_types(b);
}

}  // namespace

void bind_cvt(Binder& b) {
  if (b.type_count() != 2) b.error("'cvt' expects 2 type modifiers (destination and source)");
  const DType dt = b.type(0), st = b.type(1);
  const bool ds = is_int(dt) || scalar_float(dt), ss = is_int(st) || scalar_float(st);
  if (ds && ss) bind_scalar(b, dt, st);
  else bind_packed(b, dt, st);
}

// ---- cvt.pack.sat -------------------------------------------------------------------------------
// cvt.pack.sat.{u16,s16}.s32 d, a, b:             d = sat(a) << 16 | sat(b)
// cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c: d = c << 2n | sat(a) << n | sat(b) (32 bits)
// in.d = element width n; in.c = 1 for signed elements.

namespace {

void exec_cvt_pack(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint32_t n = in.d;
  const bool sgn = in.c != 0;
  const int64_t lo = sgn ? -(int64_t(1) << (n - 1)) : 0;
  const int64_t hi = sgn ? (int64_t(1) << (n - 1)) - 1 : (int64_t(1) << n) - 1;
  const uint32_t m = (1u << n) - 1;
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  const uint64_t* cc = in.nops > 3 ? c.col(in.op[3]) : nullptr;
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    auto sat = [&](uint64_t v) { return uint32_t(std::clamp<int64_t>(int32_t(v), lo, hi)) & m; };
    uint32_t r = (sat(a[l]) << n) | sat(b[l]);
    if (cc && n < 16) r |= uint32_t(cc[l]) << (2 * n);
    d[l] = r;
  });
}

}  // namespace

void bind_cvt_pack(Binder& b) {
  if (!b.has(".sat")) b.error(".sat modifier required for instruction 'cvt.pack'");
  static const std::tuple<const char*, uint8_t, bool> kinds[] = {
      {".u16", 16, false}, {".s16", 16, true}, {".u8", 8, false}, {".s8", 8, true},
      {".u4", 4, false},   {".s4", 4, true},   {".u2", 2, false}, {".s2", 2, true}};
  int found = -1;
  for (int i = 0; i < 8; ++i)
    if (b.has(std::get<0>(kinds[i]))) {
      if (found >= 0) bad_types(b);
      found = i;
    }
  if (found < 0) bad_types(b);
  const uint8_t n = std::get<1>(kinds[found]);
  if (!b.has(".s32")) bad_types(b);
  if (n == 16) {
    if (b.has(".b32")) bad_types(b);
    b.require_ops(3, 3);
  } else {
    if (!b.has(".b32")) bad_types(b);
    b.require_ops(4, 4);
    check_src(b, 3, DType::B32, false);
  }
  check_dst(b, 0, 32, false);
  check_src(b, 1, DType::S32, false);
  check_src(b, 2, DType::S32, false);
  b.in.d = n;
  b.in.c = std::get<2>(kinds[found]) ? 1 : 0;
  b.in.fn = exec_cvt_pack;
}

}  // namespace ptxsim
