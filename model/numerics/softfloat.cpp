#include "model/numerics/softfloat.h"

#include <cassert>
#include <cmath>
#include <utility>

namespace ptxsim::model::num {

namespace {

uint64_t zero_of(const FloatFormat& f, bool neg) { return neg ? f.sign_mask() : 0; }
uint64_t inf_of(const FloatFormat& f, bool neg) { return zero_of(f, neg) | f.inf(); }
constexpr SfResult kNaN{0, true};

Exact to_exact(const Unpacked& u) { return Exact{u.neg, u.exp, u.mant, false}; }

// Sign of an exact zero produced by adding two values of signs sa and sb (IEEE 754 6.3).
bool zero_sum_sign(bool sa, bool sb, Round rm) {
  if (sa == sb) return sa;
  return rm == Round::RM;
}

}  // namespace

Exact exact_sum(const Exact& a_in, const Exact& b_in) {
  assert(!a_in.sticky && !b_in.sticky);
  if (a_in.mant == 0) return b_in;
  if (b_in.mant == 0) return a_in;
  Exact a = a_in, b = b_in;
  // Let a be the term whose leading bit is higher.
  if (b.exp + msb128(b.mant) > a.exp + msb128(a.mant)) std::swap(a, b);
  // Normalize a so that its leading bit is bit 125 (exact: a.mant < 2^107).
  const int sa = 125 - msb128(a.mant);
  a.mant <<= sa;
  a.exp -= sa;
  // Align b to a's exponent.
  const int d = b.exp - a.exp;
  u128 bb;
  bool sticky = false;
  if (d >= 0) {
    bb = b.mant << d;  // b's leading bit is not above bit 125: no overflow
  } else if (-d >= 128) {
    bb = 0;
    sticky = true;
  } else {
    bb = b.mant >> -d;
    sticky = (b.mant & ((u128{1} << -d) - 1)) != 0;
  }
  Exact r{a.neg, a.exp, 0, sticky};
  if (a.neg == b.neg) {
    r.mant = a.mant + bb;  // < 2^127
  } else if (!sticky) {
    if (a.mant >= bb) {
      r.mant = a.mant - bb;
    } else {
      r.mant = bb - a.mant;
      r.neg = b.neg;
    }
  } else {
    // b was truncated, so b lies far below a (b's mantissa has < 107 bits and sits entirely
    // below bit 125 - 18): a - (bb + t) = (a - bb - 1) + (1 - t) with 0 < 1 - t < 1.
    r.mant = a.mant - bb - 1;
  }
  return r;
}

uint64_t isqrt128(u128 n) {
  if (n == 0) return 0;
  long double approx = std::sqrt(static_cast<long double>(n));
  u128 x = static_cast<u128>(approx);
  if (x > 0xFFFFFFFFFFFFFFFFull) x = 0xFFFFFFFFFFFFFFFFull;
  while (x * x > n) --x;
  while (x < 0xFFFFFFFFFFFFFFFFull && (x + 1) * (x + 1) <= n) ++x;
  return static_cast<uint64_t>(x);
}

SfResult sf_add(const FloatFormat& f, uint64_t a, uint64_t b, Round rm) {
  Unpacked ua = unpack(f, a), ub = unpack(f, b);
  if (ua.cls == Unpacked::NaN || ub.cls == Unpacked::NaN) return kNaN;
  if (ua.cls == Unpacked::Inf || ub.cls == Unpacked::Inf) {
    if (ua.cls == Unpacked::Inf && ub.cls == Unpacked::Inf && ua.neg != ub.neg) return kNaN;
    return {inf_of(f, ua.cls == Unpacked::Inf ? ua.neg : ub.neg), false};
  }
  if (ua.cls == Unpacked::Zero && ub.cls == Unpacked::Zero)
    return {zero_of(f, zero_sum_sign(ua.neg, ub.neg, rm)), false};
  Exact ea = ua.cls == Unpacked::Zero ? Exact{ua.neg, 0, 0, false} : to_exact(ua);
  Exact eb = ub.cls == Unpacked::Zero ? Exact{ub.neg, 0, 0, false} : to_exact(ub);
  Exact s = exact_sum(ea, eb);
  if (s.mant == 0 && !s.sticky) return {zero_of(f, zero_sum_sign(ua.neg, ub.neg, rm)), false};
  return {round_pack(f, s, rm), false};
}

SfResult sf_mul(const FloatFormat& f, uint64_t a, uint64_t b, Round rm) {
  Unpacked ua = unpack(f, a), ub = unpack(f, b);
  if (ua.cls == Unpacked::NaN || ub.cls == Unpacked::NaN) return kNaN;
  const bool neg = ua.neg != ub.neg;
  if (ua.cls == Unpacked::Inf || ub.cls == Unpacked::Inf) {
    if (ua.cls == Unpacked::Zero || ub.cls == Unpacked::Zero) return kNaN;
    return {inf_of(f, neg), false};
  }
  if (ua.cls == Unpacked::Zero || ub.cls == Unpacked::Zero) return {zero_of(f, neg), false};
  Exact p{neg, ua.exp + ub.exp, u128{ua.mant} * ub.mant, false};
  return {round_pack(f, p, rm), false};
}

SfResult sf_fma(const FloatFormat& f, uint64_t a, uint64_t b, uint64_t c, Round rm) {
  Unpacked ua = unpack(f, a), ub = unpack(f, b), uc = unpack(f, c);
  if (ua.cls == Unpacked::NaN || ub.cls == Unpacked::NaN || uc.cls == Unpacked::NaN) return kNaN;
  const bool pneg = ua.neg != ub.neg;
  const bool pinf = ua.cls == Unpacked::Inf || ub.cls == Unpacked::Inf;
  const bool pzero = ua.cls == Unpacked::Zero || ub.cls == Unpacked::Zero;
  if (pinf && pzero) return kNaN;  // 0 * Inf, whatever c is
  if (pinf) {
    if (uc.cls == Unpacked::Inf && uc.neg != pneg) return kNaN;
    return {inf_of(f, pneg), false};
  }
  if (uc.cls == Unpacked::Inf) return {inf_of(f, uc.neg), false};
  if (pzero && uc.cls == Unpacked::Zero) return {zero_of(f, zero_sum_sign(pneg, uc.neg, rm)), false};
  Exact p = pzero ? Exact{pneg, 0, 0, false}
                  : Exact{pneg, ua.exp + ub.exp, u128{ua.mant} * ub.mant, false};
  Exact ec = uc.cls == Unpacked::Zero ? Exact{uc.neg, 0, 0, false} : to_exact(uc);
  Exact s = exact_sum(p, ec);
  if (s.mant == 0 && !s.sticky) return {zero_of(f, zero_sum_sign(pneg, uc.neg, rm)), false};
  return {round_pack(f, s, rm), false};
}

SfResult sf_div(const FloatFormat& f, uint64_t a, uint64_t b, Round rm) {
  Unpacked ua = unpack(f, a), ub = unpack(f, b);
  if (ua.cls == Unpacked::NaN || ub.cls == Unpacked::NaN) return kNaN;
  const bool neg = ua.neg != ub.neg;
  if (ua.cls == Unpacked::Inf) {
    if (ub.cls == Unpacked::Inf) return kNaN;
    return {inf_of(f, neg), false};
  }
  if (ub.cls == Unpacked::Inf) return {zero_of(f, neg), false};
  if (ub.cls == Unpacked::Zero) {
    if (ua.cls == Unpacked::Zero) return kNaN;
    return {inf_of(f, neg), false};  // division by zero
  }
  if (ua.cls == Unpacked::Zero) return {zero_of(f, neg), false};
  const int sh = 125 - msb128(ua.mant);
  u128 num = u128{ua.mant} << sh;
  u128 q = num / ub.mant;
  u128 r = num % ub.mant;
  Exact x{neg, ua.exp - sh - ub.exp, q, r != 0};  // q has >= 72 significant bits
  return {round_pack(f, x, rm), false};
}

SfResult sf_sqrt(const FloatFormat& f, uint64_t a, Round rm) {
  Unpacked ua = unpack(f, a);
  if (ua.cls == Unpacked::NaN) return kNaN;
  if (ua.cls == Unpacked::Zero) return {a, false};  // sqrt(+-0) = +-0
  if (ua.neg) return kNaN;
  if (ua.cls == Unpacked::Inf) return {a, false};
  int sh = 124 - msb128(ua.mant);
  if ((ua.exp - sh) & 1) ++sh;
  u128 n = u128{ua.mant} << sh;
  uint64_t r = isqrt128(n);  // >= 2^62
  bool sticky = u128{r} * r != n;
  Exact x{false, (ua.exp - sh) / 2, r, sticky};
  return {round_pack(f, x, rm), false};
}

SfResult sf_convert(const FloatFormat& dst, const FloatFormat& src, uint64_t a, Round rm,
                    Overflow ovf) {
  Unpacked u = unpack(src, a);
  switch (u.cls) {
    case Unpacked::NaN: return kNaN;
    case Unpacked::Zero: return {zero_of(dst, u.neg), false};
    case Unpacked::Inf:
      if (ovf == Overflow::SatFinite || dst.special != Special::IEEE) {
        // Inf into a format without Inf: .satfinite -> max finite; otherwise NaN if the format
        // has one (e4m3), else max finite.
        if (ovf == Overflow::SatFinite || dst.special == Special::None)
          return {zero_of(dst, u.neg) | dst.max_finite(), false};
        return {zero_of(dst, u.neg) | dst.canonical_nan(), false};
      }
      return {inf_of(dst, u.neg), false};
    case Unpacked::Finite: break;
  }
  return {round_pack(dst, to_exact(u), rm, ovf), false};
}

}  // namespace ptxsim::model::num
