// Floating-point min and max (PTX ISA 9.7.3.11-12, 9.7.4.7-8): f32 (with .ftz, .NaN,
// .xorsign.abs), f64, f16/f16x2 (.ftz, .NaN, .xorsign.abs), bf16/bf16x2 (.NaN, .xorsign.abs), and the
// three-input f32 form (sm_100, PTX 8.8) with .ftz, .NaN, .abs.
#include "sim/sem/float_util.h"

namespace ptxsim {

namespace {

using namespace fsem;
using M = const FMods&;
using u64 = uint64_t;

inline num::MinMaxMods mm(M m) {
  num::MinMaxMods r;
  r.nan = m.nan;
  r.xorsign_abs = m.xorsign;
  r.abs = m.abs;
  r.ftz = m.ftz;
  return r;
}

template <bool Max>
ExecFn pick2(DType t) {
  switch (t) {
    case DType::F32:
      if constexpr (Max) return exec2<[](u64 a, u64 b, M m) -> u64 { return num::max_f32(a, b, mm(m)); }>;
      else return exec2<[](u64 a, u64 b, M m) -> u64 { return num::min_f32(a, b, mm(m)); }>;
    case DType::F64:
      if constexpr (Max) return exec2<[](u64 a, u64 b, M) -> u64 { return num::max_f64(a, b); }>;
      else return exec2<[](u64 a, u64 b, M) -> u64 { return num::min_f64(a, b); }>;
    case DType::F16:
      if constexpr (Max) return exec2<[](u64 a, u64 b, M m) -> u64 { return num::max_f16(a, b, mm(m)); }>;
      else return exec2<[](u64 a, u64 b, M m) -> u64 { return num::min_f16(a, b, mm(m)); }>;
    case DType::F16x2:
      if constexpr (Max) return exec2<[](u64 a, u64 b, M m) -> u64 { return num::max_f16x2(a, b, mm(m)); }>;
      else return exec2<[](u64 a, u64 b, M m) -> u64 { return num::min_f16x2(a, b, mm(m)); }>;
    case DType::BF16:
      if constexpr (Max) return exec2<[](u64 a, u64 b, M m) -> u64 { return num::max_bf16(a, b, mm(m)); }>;
      else return exec2<[](u64 a, u64 b, M m) -> u64 { return num::min_bf16(a, b, mm(m)); }>;
    case DType::BF16x2:
      if constexpr (Max) return exec2<[](u64 a, u64 b, M m) -> u64 { return num::max_bf16x2(a, b, mm(m)); }>;
      else return exec2<[](u64 a, u64 b, M m) -> u64 { return num::min_bf16x2(a, b, mm(m)); }>;
    default: return nullptr;
  }
}

template <bool Max>
void bind_minmax(Binder& b) {
  if (b.type_count() != 1) bad_types(b);
  const DType t = b.type(0);
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::F16x2 && t != DType::BF16 &&
      t != DType::BF16x2)
    bad_types(b);
  if (b.rounding() != kRndNone) illegal_rounding(b);
  const bool three = b.op_count() == 4;
  b.require_ops(3, 4);
  const std::string name = base_name(b);
  if (three) {
    if (t != DType::F32) b.error("Three-input '" + name + "' is only defined for .f32");
    require_target(b, "sm_100", "Three-input '" + name + "'");
    require_ptx(b, 88, "Three-input '" + name + "'");
    allow(b, ".xorsign", false);
  } else {
    if (b.has(".abs") && !b.has(".xorsign")) b.error("Modifier '.abs' of '" + name + "' needs three inputs or .xorsign");
  }
  if (b.has(".xorsign") && !b.has(".abs")) b.error("Modifier '.xorsign' must be followed by '.abs'");
  allow(b, ".ftz", t == DType::F32 || t == DType::F16 || t == DType::F16x2);
  if (t == DType::F64) {
    allow(b, ".NaN", false);
    allow(b, ".xorsign", false);
  }
  const uint32_t bits = dtype_bits(t);
  check_dst(b, 0, bits);
  for (size_t i = 1; i < b.op_count(); ++i) {
    if (t == DType::F32 || t == DType::F64) check_src(b, i, t);
    else check_src_bits(b, i, bits);
  }
  store_mods(b, num::Round::RN, flags_of(b));
  if (three) {
    if constexpr (Max) b.in.fn = exec3<[](u64 a, u64 c, u64 e, M m) -> u64 { return num::max3_f32(a, c, e, mm(m)); }>;
    else b.in.fn = exec3<[](u64 a, u64 c, u64 e, M m) -> u64 { return num::min3_f32(a, c, e, mm(m)); }>;
    return;
  }
  b.in.fn = pick2<Max>(t);
}

}  // namespace

void bind_fmin(Binder& b) { bind_minmax<false>(b); }
void bind_fmax(Binder& b) { bind_minmax<true>(b); }

}  // namespace ptxsim
