// div, rcp, sqrt, rsqrt on f32 and f64 (PTX ISA 9.7.3.8-9.7.3.10, 9.7.3.14-9.7.3.17).
// IEEE forms (.rn .rz .rm .rp) are correctly rounded; .approx and .full use the numerics library's
// deterministic models (model/numerics/approx.h).
#include "sim/sem/float_util.h"

namespace ptxsim {

namespace {

using namespace fsem;
using M = const FMods&;
using u64 = uint64_t;

enum class Mode : uint8_t { Approx, Full, Ieee };

// The one f32/f64 type these instructions take.
DType float_type(const Binder& b) {
  if (b.type_count() != 1 || (b.type(0) != DType::F32 && b.type(0) != DType::F64)) bad_types(b);
  return b.type(0);
}

// Exactly one of .approx, .full (when allowed) or an IEEE rounding modifier.
Mode mode_of(const Binder& b, bool full_ok, Rounding& r) {
  r = rounding_of(b);
  const bool approx = b.has(".approx"), full = b.has(".full");
  if (full && !full_ok) illegal_modifier(b, ".full");
  if (r.code != kRndNone && (!r.is_float() || r.code == kRndRna)) illegal_rounding(b);
  if ((approx || full) && r.code != kRndNone) illegal_rounding(b);
  if (approx && full) b.error("Modifier '.full' cannot be combined with modifier '.approx'");
  if (approx) return Mode::Approx;
  if (full) return Mode::Full;
  if (r.code == kRndNone) rounding_required(b);
  return Mode::Ieee;
}

void check_ops(Binder& b, DType t, size_t nsrc) {
  b.require_ops(nsrc + 1, nsrc + 1);
  check_dst(b, 0, dtype_bits(t));
  for (size_t i = 1; i <= nsrc; ++i) check_src(b, i, t);
}

}  // namespace

void bind_fdiv(Binder& b) {
  const DType t = float_type(b);
  Rounding r;
  const Mode mode = mode_of(b, t == DType::F32, r);
  if (t == DType::F64) {
    if (mode == Mode::Approx) illegal_modifier(b, ".approx");
    allow(b, ".ftz", false);
  }
  check_ops(b, t, 2);
  store_mods(b, r.fp(), flags_of(b));
  if (t == DType::F64) {
    b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::div_f64(a, c, m.rnd); }>;
  } else if (mode == Mode::Approx) {
    b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::div_approx_f32(a, c, m.ftz); }>;
  } else if (mode == Mode::Full) {
    b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::div_full_f32(a, c, m.ftz); }>;
  } else {
    b.in.fn = exec2<[](u64 a, u64 c, M m) -> u64 { return num::div_f32(a, c, m.rnd, m.ftz); }>;
  }
}

// rcp.approx.ftz.f64 uses only the upper word of its operand; rcp.rnd.f64 accepts .ftz, which
// ptxas ignores (it emits the same code as without).
void bind_frcp(Binder& b) {
  const DType t = float_type(b);
  Rounding r;
  const Mode mode = mode_of(b, false, r);
  if (t == DType::F64 && mode == Mode::Approx && !b.has(".ftz"))
    b.error("'rcp.approx.f64' requires .ftz");
  check_ops(b, t, 1);
  store_mods(b, r.fp(), flags_of(b));
  if (t == DType::F64) {
    if (mode == Mode::Approx) b.in.fn = exec1<[](u64 a, M) -> u64 { return num::rcp_approx_ftz_f64(a); }>;
    else b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::rcp_f64(a, m.rnd); }>;
  } else if (mode == Mode::Approx) {
    b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::rcp_approx_f32(a, m.ftz); }>;
  } else {
    b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::rcp_f32(a, m.rnd, m.ftz); }>;
  }
}

void bind_fsqrt(Binder& b) {
  const DType t = float_type(b);
  Rounding r;
  const Mode mode = mode_of(b, false, r);
  if (t == DType::F64) {
    if (mode == Mode::Approx) illegal_modifier(b, ".approx");
    allow(b, ".ftz", false);
  }
  check_ops(b, t, 1);
  store_mods(b, r.fp(), flags_of(b));
  if (t == DType::F64) b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::sqrt_f64(a, m.rnd); }>;
  else if (mode == Mode::Approx) b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::sqrt_approx_f32(a, m.ftz); }>;
  else b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::sqrt_f32(a, m.rnd, m.ftz); }>;
}

void bind_frsqrt(Binder& b) {
  const DType t = float_type(b);
  if (b.rounding() != kRndNone) illegal_rounding(b);
  if (!b.has(".approx")) b.error("Modifier '.approx' required for instruction 'rsqrt'");
  check_ops(b, t, 1);
  store_mods(b, num::Round::RN, flags_of(b));
  if (t == DType::F64) {
    if (b.has(".ftz")) b.in.fn = exec1<[](u64 a, M) -> u64 { return num::rsqrt_approx_ftz_f64(a); }>;
    else b.in.fn = exec1<[](u64 a, M) -> u64 { return num::rsqrt_approx_f64(a); }>;
  } else {
    b.in.fn = exec1<[](u64 a, M m) -> u64 { return num::rsqrt_approx_f32(a, m.ftz); }>;
  }
}

}  // namespace ptxsim
