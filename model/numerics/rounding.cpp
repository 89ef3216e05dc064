#include "model/numerics/rounding.h"

#include <cassert>
#include <cfenv>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace ptxsim::model::num {

Unpacked unpack(const FloatFormat& f, uint64_t bits) {
  Unpacked u{};
  u.neg = f.is_signed && (bits & f.sign_mask()) != 0;
  uint64_t e = (bits >> f.man_bits) & f.exp_field_max();
  uint64_t m = bits & f.man_mask();
  if (e == f.exp_field_max()) {
    if (f.special == Special::IEEE) {
      u.cls = m ? Unpacked::NaN : Unpacked::Inf;
      return u;
    }
    if (f.special == Special::NanOnly && m == f.man_mask()) {
      u.cls = Unpacked::NaN;
      return u;
    }
  }
  if (e == 0) {
    if (m == 0) {
      u.cls = Unpacked::Zero;
      return u;
    }
    u.cls = Unpacked::Finite;
    u.exp = f.emin() - f.man_bits;
    u.mant = m;
    return u;
  }
  u.cls = Unpacked::Finite;
  u.exp = static_cast<int32_t>(e) - f.bias - f.man_bits;
  u.mant = m | (uint64_t{1} << f.man_bits);
  return u;
}

uint64_t round_pack(const FloatFormat& f, const Exact& x, Round rm, Overflow ovf) {
  const uint64_t sign = x.neg ? f.sign_mask() : 0;
  if (x.mant == 0) {
    assert(!x.sticky);
    return sign;
  }
  const int m = f.man_bits;
  const int top = msb128(x.mant);
  const int e = x.exp + top;                 // exponent of the leading bit
  const bool subnormal = e < f.emin();
  const int q = (subnormal ? f.emin() : e) - m;  // exponent of one ulp of the result
  const int shift = q - x.exp;

  u128 kept;
  bool guard, lower;
  if (shift <= 0) {
    assert(!x.sticky && "Exact value with sticky bit lacks precision for this format");
    kept = x.mant << -shift;
    guard = false;
    lower = x.sticky;
  } else if (shift > 128) {
    kept = 0;
    guard = false;
    lower = true;
  } else if (shift == 128) {
    kept = 0;
    guard = (x.mant >> 127) != 0;
    lower = (x.mant & ((u128{1} << 127) - 1)) != 0 || x.sticky;
  } else {
    kept = x.mant >> shift;
    guard = ((x.mant >> (shift - 1)) & 1) != 0;
    lower = (shift > 1 && (x.mant & ((u128{1} << (shift - 1)) - 1)) != 0) || x.sticky;
  }

  bool up = false;
  switch (rm) {
    case Round::RN: up = guard && (lower || (kept & 1)); break;
    case Round::RNA: up = guard; break;
    case Round::RZ: up = false; break;
    case Round::RP: up = !x.neg && (guard || lower); break;
    case Round::RM: up = x.neg && (guard || lower); break;
  }
  kept += up ? 1 : 0;

  uint64_t mag;
  bool overflow = false;
  if (subnormal) {
    // kept <= 2^m; kept == 2^m is exactly the smallest normal's encoding.
    mag = static_cast<uint64_t>(kept);
  } else {
    int64_t biased = static_cast<int64_t>(e) + f.bias;
    if (kept == (u128{1} << (m + 1))) {
      kept >>= 1;
      ++biased;
    }
    if (biased > static_cast<int64_t>(f.exp_field_max())) {
      overflow = true;
      mag = 0;
    } else {
      mag = (static_cast<uint64_t>(biased) << m) | (static_cast<uint64_t>(kept) & f.man_mask());
    }
  }
  if (overflow || mag > f.max_finite()) {
    bool to_inf = false;
    if (ovf == Overflow::IEEE) {
      to_inf = rm == Round::RN || rm == Round::RNA || (rm == Round::RP && !x.neg) ||
               (rm == Round::RM && x.neg);
    }
    if (!to_inf) return sign | f.max_finite();
    switch (f.special) {
      case Special::IEEE: return sign | f.inf();
      case Special::NanOnly: return sign | f.canonical_nan();
      case Special::None: return sign | f.max_finite();
    }
  }
  return sign | mag;
}

bool host_fp_environment_ok() {
  if (std::fegetround() != FE_TONEAREST) return false;
#if defined(__x86_64__) || defined(__i386__)
  constexpr unsigned kFtz = 0x8000, kDaz = 0x0040;
  if (_mm_getcsr() & (kFtz | kDaz)) return false;
#elif defined(__aarch64__)
  // FPCR.FZ (bit 24) flushes subnormal inputs and results; FPCR.FIZ (bit 0, FEAT_AFP) inputs.
  uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  if (fpcr & ((1u << 24) | 1u)) return false;
#endif
  return true;
}

}  // namespace ptxsim::model::num
