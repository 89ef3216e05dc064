#include "model/tensorcore/exact_ref.h"

#include <algorithm>
#include <climits>
#include <iterator>
#include <limits>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <vector>

namespace ptxsim::model::tc::ref {

namespace {

namespace mp = boost::multiprecision;
// 64 significant bits: products have at most 48 (24-bit x 24-bit), truncated sums at most
// F + 2 + 7 = 44; every operation below is therefore exact.
using Real = mp::number<mp::cpp_bin_float<64, mp::digit_base_2>, mp::et_off>;

// Bit-field description of a storage format, written out here rather than taken from numerics/.
struct Layout {
  int ebits, mbits, bias;
  enum Spec { IEEE, NanOnly, NoSpecial } spec;
  int emin() const { return 1 - bias; }
};

Layout layout(ElemFmt f) {
  // Indexed by ElemFmt: F16, BF16, TF32, F32, E4M3, E5M2, E3M2, E2M3, E2M1.
  static constexpr Layout kLayouts[] = {
      {5, 10, 15, Layout::IEEE},  {8, 7, 127, Layout::IEEE},    {8, 23, 127, Layout::IEEE},
      {8, 23, 127, Layout::IEEE}, {4, 3, 7, Layout::NanOnly},   {5, 2, 15, Layout::IEEE},
      {3, 2, 3, Layout::NoSpecial}, {2, 3, 1, Layout::NoSpecial}, {2, 1, 1, Layout::NoSpecial},
  };
  return unsigned(f) < std::size(kLayouts) ? kLayouts[unsigned(f)] : kLayouts[unsigned(ElemFmt::F32)];
}
Layout layout(AccFmt f) { return layout(f == AccFmt::F32 ? ElemFmt::F32 : ElemFmt::F16); }

struct Num {
  enum Kind { Finite, Inf, NaN } kind = Finite;
  bool neg = false;
  Real mag = 0;  // |value| for Finite
};

Num decode_bits(const Layout& L, uint64_t bits) {
  const int w = 1 + L.ebits + L.mbits;
  bits &= (w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1);
  Num r;
  r.neg = (bits >> (L.ebits + L.mbits)) & 1;
  const uint64_t emax_field = (uint64_t{1} << L.ebits) - 1;
  const uint64_t E = (bits >> L.mbits) & emax_field;
  const uint64_t M = bits & ((uint64_t{1} << L.mbits) - 1);
  if (L.spec == Layout::IEEE && E == emax_field) {
    r.kind = M ? Num::NaN : Num::Inf;
    return r;
  }
  if (L.spec == Layout::NanOnly && E == emax_field && M == (uint64_t{1} << L.mbits) - 1) {
    r.kind = Num::NaN;
    return r;
  }
  if (E == 0) r.mag = ldexp(Real(M), L.emin() - L.mbits);
  else r.mag = ldexp(Real((uint64_t{1} << L.mbits) + M), int(E) - L.bias - L.mbits);
  return r;
}

Num decode_elem(ElemFmt f, uint32_t bits) {
  if (f == ElemFmt::TF32) bits = bits >> 13 << 13;  // TF32 operands are truncated to 19 bits
  return decode_bits(layout(f), bits);
}

// floor(log2 x) for x > 0.
int ilog2(const Real& x) {
  int e;
  frexp(x, &e);  // x = f * 2^e, 0.5 <= f < 1
  return e - 1;
}

// The alignment exponent: max(floor(log2 |x|), emin of the format the datapath reads x in).
int align_exp(const Real& mag, const Layout& seen) { return std::max(ilog2(mag), seen.emin()); }

uint64_t to_u64(const Real& x) { return x.convert_to<uint64_t>(); }

// Encodes an exactly representable magnitude (or an overflowing one as Inf) with a sign.
uint32_t encode(const Layout& L, bool neg, const Real& mag) {
  const uint32_t sign = uint32_t(neg) << (L.ebits + L.mbits);
  const int emax = int((uint64_t{1} << L.ebits) - 2) - L.bias;
  if (mag == 0) return sign;
  const int x = ilog2(mag);
  if (x > emax) return sign | uint32_t(((uint64_t{1} << L.ebits) - 1) << L.mbits);  // Inf
  if (x < L.emin()) return sign | uint32_t(to_u64(ldexp(mag, L.mbits - L.emin())));
  const uint64_t frac = to_u64(ldexp(mag, L.mbits - x)) - (uint64_t{1} << L.mbits);
  return sign | uint32_t(uint64_t(x + L.bias) << L.mbits) | uint32_t(frac);
}

uint32_t nan_of(const Layout& L) {
  return L.mbits == 23 ? 0x7FFFFFFFu : 0x7FFFu;  // canonical NaN of f32 / f16
}

// Rounds |s| toward zero keeping `p` fraction bits in L's exponent range.
Real round_rz(const Real& mag, const Layout& L, int p) {
  const int xe = std::max(ilog2(mag), L.emin());
  return ldexp(trunc(ldexp(mag, p - xe)), xe - p);
}

// Rounds |s| to nearest, ties to even, in L (may produce 2^(emax+1), which encode() makes Inf).
Real round_rne(const Real& mag, const Layout& L) {
  const int xe = std::max(ilog2(mag), L.emin());
  const Real q = ldexp(mag, L.mbits - xe);
  Real fl = floor(q);
  const Real frac = q - fl;
  if (frac > Real(0.5) || (frac == Real(0.5) && (to_u64(fl) & 1))) fl += 1;
  return ldexp(fl, xe - L.mbits);
}

// Edge rule 3: the sign a nonzero sum keeps when its rounded magnitude is zero.
bool zero_keeps_sign(UnderflowZeroSign r) { return r == UnderflowZeroSign::Keep; }

uint32_t convert_sum(const Real& s, OutRound out, UnderflowZeroSign zero_sign) {
  if (s == 0) return 0;  // exact zero sum: +0
  bool neg = s < 0;
  const Real mag = abs(s);
  switch (out) {
    case OutRound::RZ_F32:
    case OutRound::RZ_E8M13: {
      const Layout L = layout(ElemFmt::F32);
      if (mag >= ldexp(Real(1), 128)) return (neg ? 0x80000000u : 0u) | 0x7F800000u;
      const Real r = round_rz(mag, L, out == OutRound::RZ_E8M13 ? 13 : 23);
      if (r == 0 && !zero_keeps_sign(zero_sign)) neg = false;
      return encode(L, neg, r);
    }
    case OutRound::RNE_F16: {
      const Layout L = layout(ElemFmt::F16);
      const Real r = round_rne(mag, L);
      if (r == 0 && !zero_keeps_sign(zero_sign)) neg = false;
      return encode(L, neg, r);
    }
  }
  return 0;
}

// Edge rules 1 and 2 restated: the exponent a zero factor contributes under MinNormal, and the
// exponent of a zero c.
constexpr int kZeroFactorExp = -126;
int zero_c_exp(const FdpaParams& p) {
  return p.edges.zero_addend == ZeroAddendExp::MinNormal ? kZeroFactorExp : p.e_zero;
}

// An operand decoded once, with its alignment exponent in the format the datapath reads it in.
struct Elem {
  Num v;
  int e = 0;  // max(floor(log2|x|), emin); unused for zero and non-finite values
};

Elem make_elem(ElemFmt f, ElemFmt seen, uint32_t bits) {
  Elem r;
  r.v = decode_elem(f, bits);
  if (r.v.kind == Num::Finite && r.v.mag != 0) r.e = align_exp(r.v.mag, layout(seen == kSame ? f : seen));
  return r;
}

// The T-FDPA of the products a[i] * b[i] (i < n) and c (in the output format of p.out).
uint32_t fdpa_core(const FdpaParams& p, const Elem* const* a, const Elem* const* b, int n, uint32_t c) {
  const Layout Lc = layout(out_fmt(p.out));
  const Num C = decode_bits(Lc, c);
  // Special values. A product is NaN when a factor is NaN or it is Inf * 0; infinite when a factor
  // is infinite; then NaN + anything = NaN, Inf - Inf = NaN.
  bool any_nan = C.kind == Num::NaN, pos_inf = C.kind == Num::Inf && !C.neg, neg_inf = C.kind == Num::Inf && C.neg;
  for (int i = 0; i < n; ++i) {
    const Num& x = a[i]->v;
    const Num& y = b[i]->v;
    if (x.kind == Num::NaN || y.kind == Num::NaN) {
      any_nan = true;
    } else if (x.kind == Num::Inf || y.kind == Num::Inf) {
      const bool zero = (x.kind == Num::Finite && x.mag == 0) || (y.kind == Num::Finite && y.mag == 0);
      if (zero) any_nan = true;
      else if (x.neg != y.neg) neg_inf = true;
      else pos_inf = true;
    }
  }
  if (any_nan || (pos_inf && neg_inf)) return nan_of(Lc);
  if (pos_inf || neg_inf) return encode(Lc, neg_inf, ldexp(Real(1), 1000));  // overflows to Inf

  // Alignment: E is the largest exponent of the terms; zero products and a zero c count as the
  // edge rules say (e_zero, or a zero factor as -126 plus its partner's exponent).
  int E = C.mag == 0 ? zero_c_exp(p) : align_exp(C.mag, Lc);
  for (int i = 0; i < n; ++i) {
    const bool za = a[i]->v.mag == 0, zb = b[i]->v.mag == 0;
    int e = a[i]->e + b[i]->e;
    if (za || zb)
      e = p.edges.zero_product == ZeroProductExp::BelowSubnormal
              ? p.e_zero
              : (za ? kZeroFactorExp : a[i]->e) + (zb ? kZeroFactorExp : b[i]->e);
    E = std::max(E, e);
  }
  // Each exact term, in units of 2^(E - F), truncated toward zero; the integers add exactly.
  Real units = 0;
  for (int i = 0; i < n; ++i) {
    const Real prod = ldexp(a[i]->v.mag * b[i]->v.mag, p.F - E);
    units += (a[i]->v.neg != b[i]->v.neg) ? Real(-trunc(prod)) : trunc(prod);
  }
  const Real cu = trunc(ldexp(C.mag, p.F - E));
  units += C.neg ? Real(-cu) : cu;
  return convert_sum(ldexp(units, E - p.F), p.out, p.edges.underflow_sign);
}

// The k of each T-FDPA group of model m, in evaluation order.
std::vector<std::vector<int>> k_groups(const DotModel& m, int K) {
  std::vector<std::vector<int>> groups;
  if (m.split == KSplit::Consecutive) {
    for (int k0 = 0; k0 < K; k0 += m.fdpa.L) {
      groups.emplace_back();
      for (int k = k0; k < std::min(K, k0 + m.fdpa.L); ++k) groups.back().push_back(k);
    }
  } else {
    for (int half = 0; half < 2; ++half) {
      std::vector<int> ks;
      for (int k = 0; k < K; ++k)
        if ((k % 4 < 2) == (half == 0)) ks.push_back(k);
      for (size_t i = 0; i < ks.size(); i += size_t(m.fdpa.L))
        groups.emplace_back(ks.begin() + long(i), ks.begin() + long(std::min(ks.size(), i + size_t(m.fdpa.L))));
    }
  }
  return groups;
}

// One output element: the chain of groups, then C last where the model says so.
uint32_t chain(const DotModel& m, const std::vector<std::vector<int>>& groups, const Elem* a, int a_stride,
               const Elem* b, int b_stride, uint32_t c) {
  uint32_t acc = m.c_last ? 0u : c;
  const Elem* pa[64];
  const Elem* pb[64];
  for (const auto& g : groups) {
    int n = 0;
    for (int k : g) {
      pa[n] = a + k * a_stride;
      pb[n] = b + k * b_stride;
      ++n;
    }
    acc = fdpa_core(m.fdpa, pa, pb, n, acc);
  }
  return m.c_last ? add_rn(m.acc, c, acc) : acc;
}

// A scale factor's value and alignment exponent, from its bits (UE8M0: 2^(x - 127), 0xFF NaN;
// UE4M3: an e4m3 without its sign bit, 0x7F NaN, emin -6).
struct Scale {
  bool nan = false;
  Real mag = 0;
  int e = 0;
};
Scale make_scale(ScaleFmt f, uint8_t bits) {
  Scale s;
  if (f == ScaleFmt::UE8M0) {
    s.nan = bits == 0xFF;
    s.mag = ldexp(Real(1), int(bits) - 127);
    s.e = int(bits) - 127;
    return s;
  }
  const Layout ue4m3{4, 3, 7, Layout::NanOnly};
  const Num v = decode_bits(ue4m3, bits & 0x7Fu);
  s.nan = v.kind == Num::NaN;
  s.mag = v.mag;
  if (!s.nan && v.mag != 0) s.e = align_exp(v.mag, ue4m3);
  return s;
}

}  // namespace

uint32_t block_scaled_dot(const BlockScaledModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b, int K,
                          ScaleFmt sf, const uint8_t* sa, const uint8_t* sb, int vec, uint32_t c) {
  const FdpaParams& p = m.fdpa;
  const Layout Lc = layout(AccFmt::F32);
  const Num C = decode_bits(Lc, c);
  thread_local std::vector<Elem> A, B;  // scratch reused across calls (clear keeps the capacity)
  thread_local std::vector<Scale> SA, SB;
  thread_local std::vector<std::pair<Real, int>> terms;
  A.clear();
  B.clear();
  SA.clear();
  SB.clear();
  terms.clear();
  for (int k = 0; k < K; ++k) {
    A.push_back(make_elem(fa, kSame, a[k]));
    B.push_back(make_elem(fb, kSame, b[k]));
  }
  for (int j = 0; j < K / vec; ++j) {
    SA.push_back(make_scale(sf, sa[j]));
    SB.push_back(make_scale(sf, sb[j]));
  }
  // Special values, as in fdpa_core, with the scale factors as two more factors of each product.
  bool any_nan = C.kind == Num::NaN, pos_inf = C.kind == Num::Inf && !C.neg, neg_inf = C.kind == Num::Inf && C.neg;
  for (int j = 0; j < K / vec; ++j) any_nan |= SA[size_t(j)].nan || SB[size_t(j)].nan;
  for (int k = 0; k < K; ++k) {
    const Num &x = A[size_t(k)].v, &y = B[size_t(k)].v;
    const Scale &s = SA[size_t(k / vec)], &t = SB[size_t(k / vec)];
    if (x.kind == Num::NaN || y.kind == Num::NaN) {
      any_nan = true;
    } else if (x.kind == Num::Inf || y.kind == Num::Inf) {
      const bool zero = (x.kind == Num::Finite && x.mag == 0) || (y.kind == Num::Finite && y.mag == 0) || s.mag == 0 ||
                        t.mag == 0;
      if (zero) any_nan = true;
      else if (x.neg != y.neg) neg_inf = true;
      else pos_inf = true;
    }
  }
  if (any_nan || (pos_inf && neg_inf)) return nan_of(Lc);
  if (pos_inf || neg_inf) return encode(Lc, neg_inf, ldexp(Real(1), 1000));

  // The terms as exact signed reals with their alignment exponents.
  if (m.shape == TermShape::ScaledProducts) {
    for (int k = 0; k < K; ++k) {
      const Elem &x = A[size_t(k)], &y = B[size_t(k)];
      const Scale &s = SA[size_t(k / vec)], &t = SB[size_t(k / vec)];
      if (x.v.mag == 0 || y.v.mag == 0 || s.mag == 0 || t.mag == 0) {
        int e = p.e_zero;
        if (p.edges.zero_product == ZeroProductExp::MinNormal)
          e = (x.v.mag == 0 ? kZeroFactorExp : x.e) + (y.v.mag == 0 ? kZeroFactorExp : y.e) +
              (s.mag == 0 ? kZeroFactorExp : s.e) + (t.mag == 0 ? kZeroFactorExp : t.e);
        terms.emplace_back(Real(0), e);
        continue;
      }
      const Real v = x.v.mag * y.v.mag * s.mag * t.mag;
      terms.emplace_back(x.v.neg != y.v.neg ? Real(-v) : v, x.e + y.e + s.e + t.e);
    }
  } else {
    for (int k0 = 0; k0 < K; k0 += m.group) {
      const Scale &s = SA[size_t(k0 / vec)], &t = SB[size_t(k0 / vec)];
      Real g = 0;
      bool all_zero = true;
      for (int k = k0; k < k0 + m.group; ++k) {
        const Num &x = A[size_t(k)].v, &y = B[size_t(k)].v;
        if (x.mag == 0 || y.mag == 0) continue;
        all_zero = false;
        g += (x.neg != y.neg) ? Real(-(x.mag * y.mag)) : Real(x.mag * y.mag);
      }
      const bool min_normal = p.edges.zero_product == ZeroProductExp::MinNormal;
      const int es = (s.mag == 0 ? kZeroFactorExp : s.e) + (t.mag == 0 ? kZeroFactorExp : t.e);
      if (all_zero || s.mag == 0 || t.mag == 0) terms.emplace_back(Real(0), min_normal ? es : p.e_zero);
      else terms.emplace_back(g * s.mag * t.mag, s.e + t.e);
    }
  }
  int E = C.mag == 0 ? zero_c_exp(p) : align_exp(C.mag, Lc);
  for (const auto& t : terms) E = std::max(E, t.second);
  Real units = 0;
  for (const auto& t : terms) units += trunc(ldexp(t.first, p.F - E));  // trunc rounds toward zero
  const Real cu = trunc(ldexp(C.mag, p.F - E));
  units += C.neg ? Real(-cu) : cu;
  return convert_sum(ldexp(units, E - p.F), p.out, p.edges.underflow_sign);
}

int32_t int_dot(bool a_signed, bool b_signed, bool saturate, const uint8_t* a, const uint8_t* b, int K, int32_t c) {
  using Int = mp::cpp_int;
  Int s = c;
  for (int k = 0; k < K; ++k)
    s += Int(a_signed ? int(int8_t(a[k])) : int(a[k])) * Int(b_signed ? int(int8_t(b[k])) : int(b[k]));
  const Int lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  if (saturate) return s < lo ? INT32_MIN : s > hi ? INT32_MAX : s.convert_to<int32_t>();
  const Int two32 = Int(1) << 32;
  Int r = s % two32;  // C++ remainder: the sign of s
  if (r < 0) r += two32;
  return int32_t(r.convert_to<uint32_t>());  // two's complement of the residue
}

uint32_t add_rn(AccFmt f, uint32_t x, uint32_t y) {
  const Layout L = layout(f);
  const Num X = decode_bits(L, x), Y = decode_bits(L, y);
  if (X.kind == Num::NaN || Y.kind == Num::NaN) return nan_of(L);
  if (X.kind == Num::Inf || Y.kind == Num::Inf) {
    if (X.kind == Num::Inf && Y.kind == Num::Inf && X.neg != Y.neg) return nan_of(L);
    const bool neg = X.kind == Num::Inf ? X.neg : Y.neg;
    return encode(L, neg, ldexp(Real(1), 1000));
  }
  const Real s = (X.neg ? Real(-X.mag) : X.mag) + (Y.neg ? Real(-Y.mag) : Y.mag);
  if (s == 0) return encode(L, X.neg && Y.neg, Real(0));  // -0 only for -0 + -0 (RN)
  return encode(L, s < 0, round_rne(abs(s), L));
}

uint32_t dot(const DotModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b, int K, uint32_t c) {
  std::vector<Elem> A, B;
  for (int k = 0; k < K; ++k) {
    A.push_back(make_elem(fa, m.a_as, a[k]));
    B.push_back(make_elem(fb, m.b_as, b[k]));
  }
  return chain(m, k_groups(m, K), A.data(), 1, B.data(), 1, c);
}

void gemm(const DotModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b, const uint32_t* c,
          uint32_t* d, int M, int N, int K) {
  std::vector<Elem> A, B;
  for (int i = 0; i < M * K; ++i) A.push_back(make_elem(fa, m.a_as, a[i]));
  for (int i = 0; i < K * N; ++i) B.push_back(make_elem(fb, m.b_as, b[i]));
  const auto groups = k_groups(m, K);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      d[i * N + j] = chain(m, groups, A.data() + i * K, 1, B.data() + j, N, c[i * N + j]);
}

}  // namespace ptxsim::model::tc::ref
