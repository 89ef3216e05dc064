// Block-scaled T-FDPA (see block_scaled.h): integer significands and one int64 sum, like
// tensorcore.cpp. Bounds: a ScaledProducts term is below 2^(F + 2) after alignment (as in tc::fdpa);
// a ScaledGroups term is an exact fp4 group sum (|sum| <= 16 * 36 < 2^10) times a scale product
// below 2^(e(sA) + e(sB) + 2), so below 2^(F + 12) = 2^47 after alignment; five terms fit in int64.
#include "model/tensorcore/block_scaled.h"

#include <algorithm>
#include <array>
#include <bit>
#include <initializer_list>
#include <vector>

namespace ptxsim::model::tc {

namespace {

constexpr uint32_t kF32Nan = 0x7FFFFFFFu, kF32Inf = 0x7F800000u;

constexpr uint32_t kFP8 = fmt_bit(ElemFmt::E4M3) | fmt_bit(ElemFmt::E5M2);
constexpr uint32_t kF8F6F4 = kFP8 | fmt_bit(ElemFmt::E3M2) | fmt_bit(ElemFmt::E2M3) | fmt_bit(ElemFmt::E2M1);
constexpr uint32_t kE2M1 = fmt_bit(ElemFmt::E2M1);
constexpr uint32_t kUE8M0 = scale_bit(ScaleFmt::UE8M0), kUE4M3 = scale_bit(ScaleFmt::UE4M3);

// Edge rules from the one table of tensorcore.h (kEdgeRuleRows).
constexpr FdpaParams kMx8{32, 25, OutRound::RZ_F32, -133, edge_rules(Arch::SM100, Unit::Tcgen05, "mxf8f6f4")};
constexpr FdpaParams kMx4{64, 35, OutRound::RZ_F32, -139, edge_rules(Arch::SM100, Unit::Tcgen05, "mxf4nvf4")};
constexpr FdpaParams kMxf4{64, 35, OutRound::RZ_F32, -139, edge_rules(Arch::SM100, Unit::Tcgen05, "mxf4")};

constexpr const char* kMmaSimMx =
    "MMA-Sim (arXiv 2511.10909) B200-validated block-scaled model; e_zero per FPy nv.py / tensor-core-numerics.md";

// Rows, most specific first. MMA-Sim's equivalence tests cover tcgen05 mxf8f6f4 with same-type
// e4m3 / e5m2 and mxf4nvf4 (ue8m0 and ue4m3 scales); everything else is an extrapolation.
constexpr std::array kRows = {
    BlockScaledModel{"sm100.tcgen05.mxf8f6f4.e4m3", "mxf8f6f4", Arch::SM100, Unit::Tcgen05, fmt_bit(ElemFmt::E4M3),
                     fmt_bit(ElemFmt::E4M3), kUE8M0, TermShape::ScaledProducts, 1, kMx8, Evidence::Published, kMmaSimMx},
    BlockScaledModel{"sm100.tcgen05.mxf8f6f4.e5m2", "mxf8f6f4", Arch::SM100, Unit::Tcgen05, fmt_bit(ElemFmt::E5M2),
                     fmt_bit(ElemFmt::E5M2), kUE8M0, TermShape::ScaledProducts, 1, kMx8, Evidence::Published, kMmaSimMx},
    BlockScaledModel{"sm100.tcgen05.mxf8f6f4", "mxf8f6f4", Arch::SM100, Unit::Tcgen05, kF8F6F4, kF8F6F4, kUE8M0,
                     TermShape::ScaledProducts, 1, kMx8, Evidence::Unvalidated,
                     "extrapolated from the fp8 mxf8f6f4 rows: fp6, fp4 and mixed types are untested"},
    BlockScaledModel{"sm100.tcgen05.mxf4nvf4", "mxf4nvf4", Arch::SM100, Unit::Tcgen05, kE2M1, kE2M1,
                     kUE8M0 | kUE4M3, TermShape::ScaledGroups, 16, kMx4, Evidence::Published, kMmaSimMx},
    // MMA-Sim models kind::mxf4 as the mxf4nvf4 datapath; no published test checks that.
    BlockScaledModel{"sm100.tcgen05.mxf4", "mxf4", Arch::SM100, Unit::Tcgen05, kE2M1, kE2M1, kUE8M0,
                     TermShape::ScaledGroups, 16, kMxf4, Evidence::Unvalidated,
                     "assumed equal to the mxf4nvf4 row (as MMA-Sim does); untested"},
};

// A term with a zero factor (element or scale) under edge rule 1: e_zero, or each zero factor
// counted as -126 and the others with their alignment exponents (MMA-Sim's fused_dot_add).
int zero_term_exp(const FdpaParams& p, std::initializer_list<const Value*> factors) {
  if (p.edges.zero_product == ZeroProductExp::BelowSubnormal) return p.e_zero;
  int e = 0;
  for (const Value* v : factors) e += v->cls == Value::Zero ? kMinNormalExp : v->e;
  return e;
}

inline uint64_t shift_trunc(uint64_t m, int s) {
  // Only a zero magnitude sits 64 or more bits above the alignment point (a zero product placed at
  // the exponent its edge rule gives, which may exceed every other term's): it stays zero.
  if (s >= 64) return 0;
  if (s >= 0) return m << s;
  if (s <= -64) return 0;
  return m >> -s;
}

}  // namespace

const char* fmt_name(ScaleFmt f) { return f == ScaleFmt::UE8M0 ? "ue8m0" : "ue4m3"; }

Value decode_scale(ScaleFmt f, uint8_t bits) {
  if (f == ScaleFmt::UE4M3) return decode(ElemFmt::E4M3, bits & 0x7Fu);  // the sign bit is ignored
  Value v;
  if (bits == 0xFF) {
    v.cls = Value::NaN;
    return v;
  }
  v.cls = Value::Finite;
  v.m = 1;
  v.q = v.e = int(bits) - 127;
  return v;
}

std::span<const BlockScaledModel> all_block_scaled_models() { return kRows; }

const BlockScaledModel* find_block_scaled_model(Arch arch, Unit unit, std::string_view kind, ElemFmt a, ElemFmt b,
                                                ScaleFmt s) {
  for (const BlockScaledModel& m : kRows)
    if (m.arch == arch && kind == m.kind && m.unit == unit && (m.a_types & fmt_bit(a)) && (m.b_types & fmt_bit(b)) &&
        (m.scale_types & scale_bit(s)))
      return &m;
  return nullptr;
}

uint32_t block_scaled_dot(const BlockScaledModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b,
                          int K, ScaleFmt sf, const uint8_t* sa, const uint8_t* sb, int vec, uint32_t c) {
  const FdpaParams& p = m.fdpa;
  const Value cv = decode(AccFmt::F32, c);
  thread_local std::vector<Value> va, vb;
  va.resize(size_t(K));
  vb.resize(size_t(K));
  for (int k = 0; k < K; ++k) {
    va[size_t(k)] = decode(fa, a[k]);
    vb[size_t(k)] = decode(fb, b[k]);
  }
  const int nsf = K / vec;
  Value xa[8], xb[8];
  for (int j = 0; j < nsf; ++j) {
    xa[j] = decode_scale(sf, sa[j]);
    xb[j] = decode_scale(sf, sb[j]);
  }
  // Special values: a NaN anywhere (element, scale, c), Inf * 0 (a zero scale counts), +Inf + -Inf.
  bool nan = cv.cls == Value::NaN, pinf = cv.cls == Value::Inf && !cv.neg, ninf = cv.cls == Value::Inf && cv.neg;
  for (int j = 0; j < nsf; ++j) nan |= xa[j].cls == Value::NaN || xb[j].cls == Value::NaN;
  for (int k = 0; k < K && !nan; ++k) {
    const Value &x = va[size_t(k)], &y = vb[size_t(k)];
    if (x.cls == Value::NaN || y.cls == Value::NaN) {
      nan = true;
    } else if (x.cls == Value::Inf || y.cls == Value::Inf) {
      const int j = k / vec;
      if (x.cls == Value::Zero || y.cls == Value::Zero || xa[j].cls == Value::Zero || xb[j].cls == Value::Zero) nan = true;
      else (x.neg != y.neg ? ninf : pinf) = true;
    }
  }
  if (nan || (pinf && ninf)) return kF32Nan;
  if (pinf || ninf) return (ninf ? 0x80000000u : 0u) | kF32Inf;

  // The terms: |value| = mag * 2^q, alignment exponent e, sign.
  struct Term {
    uint64_t mag;
    int q, e;
    bool neg;
  };
  Term terms[65];
  int nt = 0;
  if (m.shape == TermShape::ScaledProducts) {
    for (int k = 0; k < K; ++k) {
      const Value &x = va[size_t(k)], &y = vb[size_t(k)], &s = xa[k / vec], &t = xb[k / vec];
      if (x.cls == Value::Zero || y.cls == Value::Zero || s.cls == Value::Zero || t.cls == Value::Zero)
        terms[nt++] = {0, 0, zero_term_exp(p, {&x, &y, &s, &t}), false};
      else
        terms[nt++] = {x.m * y.m * s.m * t.m, x.q + y.q + s.q + t.q, x.e + y.e + s.e + t.e, x.neg != y.neg};
    }
  } else {
    // Exact group sums in units of the smallest product quantum.
    const int qmin = decode(fa, 1).q + decode(fb, 1).q;  // q of each format's smallest subnormal
    for (int k0 = 0; k0 < K; k0 += m.group) {
      const Value &s = xa[k0 / vec], &t = xb[k0 / vec];
      int64_t G = 0;
      bool all_zero = true;
      for (int k = k0; k < k0 + m.group; ++k) {
        const Value &x = va[size_t(k)], &y = vb[size_t(k)];
        if (x.cls == Value::Zero || y.cls == Value::Zero) continue;
        all_zero = false;
        const int64_t prod = int64_t((x.m * y.m) << (x.q + y.q - qmin));
        G += x.neg != y.neg ? -prod : prod;
      }
      if (s.cls == Value::Zero || t.cls == Value::Zero)
        terms[nt++] = {0, 0, zero_term_exp(p, {&s, &t}), false};
      else if (all_zero)
        // MinNormal: a group is aligned on its scales only, whatever its sum (MMA-Sim
        // nv_fused_dot_add_with_block_scale); BelowSubnormal: e_zero.
        terms[nt++] = {0, 0, p.edges.zero_product == ZeroProductExp::MinNormal ? s.e + t.e : p.e_zero, false};
      else
        terms[nt++] = {uint64_t(G < 0 ? -G : G) * s.m * t.m, qmin + s.q + t.q, s.e + t.e, G < 0};
    }
  }
  int E = cv.cls == Value::Zero ? zero_addend_exp(p) : cv.e;
  for (int i = 0; i < nt; ++i) E = std::max(E, terms[i].e);
  const int lsb = E - p.F;
  int64_t S = 0;
  for (int i = 0; i < nt; ++i) {
    const int64_t T = int64_t(shift_trunc(terms[i].mag, terms[i].q - lsb));
    S += terms[i].neg ? -T : T;
  }
  if (cv.cls == Value::Finite) {
    const int64_t T = int64_t(shift_trunc(cv.m, cv.q - lsb));
    S += cv.neg ? -T : T;
  }
  return fdpa_round(S, lsb, p.out, p.edges.underflow_sign);
}

void mma_tile_block_scaled(const BlockScaledModel& m, ElemFmt fa, ElemFmt fb, ScaleFmt sf, int vec, int M, int N,
                           int K, const uint32_t* a, const uint32_t* bt, const uint8_t* sfa, const uint8_t* sfb,
                           const uint32_t* c, uint32_t* d) {
  const int nsf = K / vec;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const size_t o = size_t(i) * size_t(N) + size_t(j);
      d[o] = block_scaled_dot(m, fa, a + size_t(i) * size_t(K), fb, bt + size_t(j) * size_t(K), K, sf,
                              sfa + size_t(i) * size_t(nsf), sfb + size_t(j) * size_t(nsf), vec, c[o]);
    }
}

}  // namespace ptxsim::model::tc
