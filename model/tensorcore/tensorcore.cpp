// The fast path of the T-FDPA model (see tensorcore.h): integer significands, one int64 sum.
//
// Why an int64 is enough: every term is below 4 * 2^E (a product of two significands < 2 each,
// or c < 2), so after truncation to multiples of 2^(E - F) it is an integer below 2^(F + 2);
// with F <= 35 and at most 65 terms the sum stays below 2^44.
#include "model/tensorcore/tensorcore.h"

#include <algorithm>
#include <bit>
#include <climits>

#include "model/numerics/f32_ops.h"
#include "model/numerics/half_ops.h"
#include "model/numerics/rounding.h"

namespace ptxsim::model::tc {

namespace {

const num::FloatFormat& format_of(ElemFmt f) {
  switch (f) {
    case ElemFmt::F16: return num::kF16;
    case ElemFmt::BF16: return num::kBF16;
    case ElemFmt::TF32:
    case ElemFmt::F32: return num::kF32;
    case ElemFmt::E4M3: return num::kE4M3;
    case ElemFmt::E5M2: return num::kE5M2;
    case ElemFmt::E3M2: return num::kE3M2;
    case ElemFmt::E2M3: return num::kE2M3;
    case ElemFmt::E2M1: return num::kE2M1;
  }
  return num::kF32;
}

inline int bit_width64(uint64_t m) { return int(std::bit_width(m)); }

// The alignment exponent of a finite nonzero m * 2^q in a format with minimum exponent emin.
inline int align_exp(uint64_t m, int q, int emin) { return std::max(q + bit_width64(m) - 1, emin); }

Value decode_with(const num::FloatFormat& ff, uint64_t v) {
  const int mb = ff.man_bits;
  v &= (uint64_t{1} << ff.total_bits()) - 1;
  Value r;
  r.neg = (v & ff.sign_mask()) != 0;
  const uint64_t E = (v >> mb) & ff.exp_field_max();
  const uint64_t M = v & ff.man_mask();
  if (ff.special == num::Special::IEEE && E == ff.exp_field_max()) {
    r.cls = M == 0 ? Value::Inf : Value::NaN;
    return r;
  }
  if (ff.special == num::Special::NanOnly && E == ff.exp_field_max() && M == ff.man_mask()) {
    r.cls = Value::NaN;
    return r;
  }
  if (E == 0 && M == 0) {
    r.cls = Value::Zero;
    return r;
  }
  r.cls = Value::Finite;
  if (E == 0) {
    r.m = M;
    r.q = ff.emin() - mb;
  } else {
    r.m = M | (uint64_t{1} << mb);
    r.q = int(E) - ff.bias - mb;
  }
  r.e = align_exp(r.m, r.q, ff.emin());
  return r;
}

inline uint64_t scaled_trunc(uint64_t m, int shift) {
  if (shift >= 0) return m << shift;
  if (shift <= -64) return 0;
  return m >> -shift;
}

constexpr uint32_t kF32Nan = 0x7FFFFFFFu, kF32Inf = 0x7F800000u;
constexpr uint32_t kF16Nan = 0x7FFFu, kF16Inf = 0x7C00u;

// Converts the exact value S * 2^lsb (S != 0 or == 0) to the output; zero_sign says which sign a
// nonzero S that rounds to zero gets (edge rule 3).
uint32_t round_out(int64_t S, int lsb, OutRound out, UnderflowZeroSign zero_sign) {
  if (S == 0) return 0;  // an exactly zero sum is +0
  const bool neg = S < 0;
  const bool keep = zero_sign == UnderflowZeroSign::Keep;
  uint64_t M = neg ? uint64_t(0) - uint64_t(S) : uint64_t(S);
  const int x = bit_width64(M) - 1 + lsb;  // floor(log2 |value|)
  if (out == OutRound::RNE_F16) {
    const uint32_t sign = neg ? 0x8000u : 0u;
    if (x >= 16) return sign | kF16Inf;
    int xe = std::max(x, -14);
    const int sh = (xe - 10) - lsb;
    uint64_t r;
    if (sh > 0) {
      if (sh >= 64) {
        r = 0;  // M < 2^63 is below half a unit
      } else {
        r = M >> sh;
        const uint64_t rem = M & ((uint64_t{1} << sh) - 1), half = uint64_t{1} << (sh - 1);
        if (rem > half || (rem == half && (r & 1))) ++r;
      }
    } else {
      r = M << -sh;
    }
    if (r >= (uint64_t{1} << 11)) {
      r >>= 1;
      ++xe;
    }
    if (xe >= 16) return sign | kF16Inf;
    if (r >= (uint64_t{1} << 10)) return sign | uint32_t(xe + 15) << 10 | uint32_t(r & 0x3FF);
    return (r != 0 || keep ? sign : 0u) | uint32_t(r);
  }
  const uint32_t sign = neg ? 0x80000000u : 0u;
  if (x >= 128) return sign | kF32Inf;
  const int p = out == OutRound::RZ_E8M13 ? 13 : 23;
  const int xe = std::max(x, -126);
  const int sh = (xe - p) - lsb;
  M = sh > 0 ? (sh >= 64 ? 0 : M >> sh) : M << -sh;
  M <<= (23 - p);
  if (M >= (uint64_t{1} << 23)) return sign | uint32_t(xe + 127) << 23 | uint32_t(M & 0x7FFFFF);
  return (M != 0 || keep ? sign : 0u) | uint32_t(M);
}

}  // namespace

uint32_t fdpa_round(int64_t S, int lsb, OutRound out, UnderflowZeroSign zero_sign) {
  return round_out(S, lsb, out, zero_sign);
}

const char* rule_name(ZeroProductExp r) {
  return r == ZeroProductExp::BelowSubnormal ? "zero-product:below-subnormal" : "zero-product:min-normal";
}
const char* rule_name(ZeroAddendExp r) {
  return r == ZeroAddendExp::BelowSubnormal ? "zero-addend:below-subnormal" : "zero-addend:min-normal";
}
const char* rule_name(UnderflowZeroSign r) {
  return r == UnderflowZeroSign::Keep ? "underflow-zero:keep-sign" : "underflow-zero:positive";
}

int zero_product_exp(const FdpaParams& p, const Value& x, const Value& y) {
  if (p.edges.zero_product == ZeroProductExp::BelowSubnormal) return p.e_zero;
  // MinNormal: the zero factor(s) count as -126, the other keeps its alignment exponent.
  return (x.cls == Value::Zero ? kMinNormalExp : x.e) + (y.cls == Value::Zero ? kMinNormalExp : y.e);
}

int zero_addend_exp(const FdpaParams& p) {
  return p.edges.zero_addend == ZeroAddendExp::BelowSubnormal ? p.e_zero : kMinNormalExp;
}

const char* fmt_name(ElemFmt f) {
  switch (f) {
    case ElemFmt::F16: return "f16";
    case ElemFmt::BF16: return "bf16";
    case ElemFmt::TF32: return "tf32";
    case ElemFmt::F32: return "f32";
    case ElemFmt::E4M3: return "e4m3";
    case ElemFmt::E5M2: return "e5m2";
    case ElemFmt::E3M2: return "e3m2";
    case ElemFmt::E2M3: return "e2m3";
    case ElemFmt::E2M1: return "e2m1";
  }
  return "?";
}
const char* fmt_name(AccFmt f) { return f == AccFmt::F32 ? "f32" : "f16"; }

const char* evidence_name(Evidence e) {
  switch (e) {
    case Evidence::Published: return "published";
    case Evidence::Derived: return "derived";
    case Evidence::Unvalidated: return "unvalidated";
  }
  return "?";
}

int fmt_emin(ElemFmt f) { return format_of(f).emin(); }

AccFmt out_fmt(OutRound r) { return r == OutRound::RNE_F16 ? AccFmt::F16 : AccFmt::F32; }

Value decode(ElemFmt f, uint32_t bits) {
  if (f == ElemFmt::TF32) bits &= ~uint32_t{0x1FFF};
  return decode_with(format_of(f), bits);
}

Value decode(AccFmt f, uint32_t bits) {
  return decode_with(f == AccFmt::F32 ? num::kF32 : num::kF16, f == AccFmt::F32 ? bits : bits & 0xFFFFu);
}

Value widen(const Value& v, ElemFmt f) {
  Value r = v;
  if (r.cls == Value::Finite) r.e = align_exp(r.m, r.q, fmt_emin(f));
  return r;
}

uint32_t fdpa(const FdpaParams& p, const Value* a, const Value* b, int n, const Value& c) {
  const bool f16_out = p.out == OutRound::RNE_F16;
  // Special values: NaN in, Inf * 0, +Inf + -Inf -> NaN; otherwise an infinity wins.
  bool nan = c.cls == Value::NaN, pinf = false, ninf = false;
  if (c.cls == Value::Inf) (c.neg ? ninf : pinf) = true;
  bool special = nan || pinf || ninf;
  for (int i = 0; i < n; ++i) special |= a[i].cls >= Value::Inf || b[i].cls >= Value::Inf;
  if (special) {
    for (int i = 0; i < n; ++i) {
      if (a[i].cls == Value::NaN || b[i].cls == Value::NaN) {
        nan = true;
      } else if (a[i].cls == Value::Inf || b[i].cls == Value::Inf) {
        if (a[i].cls == Value::Zero || b[i].cls == Value::Zero) nan = true;
        else (a[i].neg != b[i].neg ? ninf : pinf) = true;
      }
    }
    if (nan || (pinf && ninf)) return f16_out ? kF16Nan : kF32Nan;
    if (f16_out) return (ninf ? 0x8000u : 0u) | kF16Inf;
    return (ninf ? 0x80000000u : 0u) | kF32Inf;
  }
  // Largest alignment exponent; zero products and a zero c count as edge rules 1 and 2 say.
  int E = c.cls == Value::Zero ? zero_addend_exp(p) : c.e;
  for (int i = 0; i < n; ++i) {
    const bool zero = a[i].cls == Value::Zero || b[i].cls == Value::Zero;
    E = std::max(E, zero ? zero_product_exp(p, a[i], b[i]) : a[i].e + b[i].e);
  }
  const int lsb = E - p.F;
  int64_t S = 0;
  for (int i = 0; i < n; ++i) {
    if (a[i].cls == Value::Zero || b[i].cls == Value::Zero) continue;
    const uint64_t T = scaled_trunc(a[i].m * b[i].m, a[i].q + b[i].q - lsb);
    S += (a[i].neg != b[i].neg) ? -int64_t(T) : int64_t(T);
  }
  if (c.cls == Value::Finite) {
    const uint64_t T = scaled_trunc(c.m, c.q - lsb);
    S += c.neg ? -int64_t(T) : int64_t(T);
  }
  return round_out(S, lsb, p.out, p.edges.underflow_sign);
}

Value decode_a(const DotModel& m, ElemFmt f, uint32_t bits) {
  Value v = decode(f, bits);
  return m.a_as == kSame ? v : widen(v, m.a_as);
}

Value decode_b(const DotModel& m, ElemFmt f, uint32_t bits) {
  Value v = decode(f, bits);
  return m.b_as == kSame ? v : widen(v, m.b_as);
}

uint32_t dot(const DotModel& m, const Value* a, const Value* b, int K, uint32_t c) {
  const FdpaParams& p = m.fdpa;
  Value acc = m.c_last ? Value{} : decode(m.acc, c);
  uint32_t out = m.c_last ? 0u : c;
  auto step = [&](const Value* ga, const Value* gb, int n) {
    out = fdpa(p, ga, gb, n, acc);
    acc = decode(m.acc, out);
  };
  if (m.split == KSplit::Consecutive) {
    for (int k0 = 0; k0 < K; k0 += p.L) step(a + k0, b + k0, std::min(p.L, K - k0));
  } else {
    // Pairs4: the products with k mod 4 in {0,1}, then those with k mod 4 in {2,3}.
    Value ga[64], gb[64];
    for (int half = 0; half < 2; ++half) {
      int n = 0;
      for (int k = 0; k < K && n < 64; ++k)
        if ((k % 4) / 2 == half) {
          ga[n] = a[k];
          gb[n] = b[k];
          ++n;
        }
      for (int k0 = 0; k0 < n; k0 += p.L) step(ga + k0, gb + k0, std::min(p.L, n - k0));
    }
  }
  if (m.c_last) {
    if (m.acc == AccFmt::F32) return num::add_f32(c, out, num::Round::RN);
    return num::add_f16(uint16_t(c), uint16_t(out), num::Round::RN);
  }
  return out;
}

}  // namespace ptxsim::model::tc
