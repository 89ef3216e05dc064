#include "model/numerics/minmax.h"

#include "model/numerics/bits.h"

namespace ptxsim::model::num {

namespace {

// A sign-magnitude type of width W with `inf` as the positive infinity pattern.
template <class T>
struct Fmt {
  T sign;
  T inf;
  T exp_mask;  // exponent field mask
  T canon_nan;
};

constexpr Fmt<uint32_t> kFmt32{0x80000000u, 0x7F800000u, 0x7F800000u, kF32CanonicalNaN};
constexpr Fmt<uint64_t> kFmt64{kF64Sign, kF64Inf, kF64Inf, kF64CanonicalNaN};
constexpr Fmt<uint16_t> kFmtF16{0x8000u, 0x7C00u, 0x7C00u, kF16CanonicalNaN};
constexpr Fmt<uint16_t> kFmtBF16{0x8000u, 0x7F80u, 0x7F80u, kBF16CanonicalNaN};

template <class T>
bool isnan_(const Fmt<T>& f, T x) {
  return static_cast<T>(x & ~f.sign) > f.inf;
}
template <class T>
T flush_(const Fmt<T>& f, T x) {
  if ((x & f.exp_mask) == 0 && (x & ~f.sign) != 0) return static_cast<T>(x & f.sign);
  return x;
}
// Total order key for non-NaN values in which -0 < +0.
template <class T>
T key(const Fmt<T>& f, T x) {
  return (x & f.sign) ? static_cast<T>(~x) : static_cast<T>(x | f.sign);
}
template <class T>
bool less_(const Fmt<T>& f, T x, T y) {
  return key(f, x) < key(f, y);
}

template <class T>
T two(const Fmt<T>& f, T a, T b, bool is_max, bool nan_mode) {
  bool na = isnan_(f, a), nb = isnan_(f, b);
  if (na || nb) {
    if (nan_mode || (na && nb)) return f.canon_nan;
    return na ? b : a;
  }
  bool pick_b = is_max ? less_(f, a, b) : less_(f, b, a);
  return pick_b ? b : a;
}

template <class T>
T minmax2(const Fmt<T>& f, T a, T b, bool is_max, MinMaxMods m, bool ftz_allowed) {
  if (m.ftz && ftz_allowed) {
    a = flush_(f, a);
    b = flush_(f, b);
  }
  T xs = static_cast<T>((a ^ b) & f.sign);
  if (m.xorsign_abs || m.abs) {
    a = static_cast<T>(a & ~f.sign);
    b = static_cast<T>(b & ~f.sign);
  }
  T d = two(f, a, b, is_max, m.nan);
  if (m.xorsign_abs && !isnan_(f, d)) d = static_cast<T>((d & ~f.sign) | xs);
  return d;
}

template <class T>
T minmax3(const Fmt<T>& f, T a, T b, T c, bool is_max, MinMaxMods m) {
  if (m.ftz) {
    a = flush_(f, a);
    b = flush_(f, b);
    c = flush_(f, c);
  }
  if (m.abs) {
    a = static_cast<T>(a & ~f.sign);
    b = static_cast<T>(b & ~f.sign);
    c = static_cast<T>(c & ~f.sign);
  }
  return two(f, two(f, a, b, is_max, m.nan), c, is_max, m.nan);
}

template <class T>
FpOrder cmp(const Fmt<T>& f, T a, T b, bool ftz) {
  if (ftz) {
    a = flush_(f, a);
    b = flush_(f, b);
  }
  if (isnan_(f, a) || isnan_(f, b)) return FpOrder::Unordered;
  if ((a & ~f.sign) == 0 && (b & ~f.sign) == 0) return FpOrder::Equal;
  if (a == b) return FpOrder::Equal;
  return less_(f, a, b) ? FpOrder::Less : FpOrder::Greater;
}

}  // namespace

uint32_t min_f32(uint32_t a, uint32_t b, MinMaxMods m) { return minmax2(kFmt32, a, b, false, m, true); }
uint32_t max_f32(uint32_t a, uint32_t b, MinMaxMods m) { return minmax2(kFmt32, a, b, true, m, true); }
uint32_t min3_f32(uint32_t a, uint32_t b, uint32_t c, MinMaxMods m) {
  return minmax3(kFmt32, a, b, c, false, m);
}
uint32_t max3_f32(uint32_t a, uint32_t b, uint32_t c, MinMaxMods m) {
  return minmax3(kFmt32, a, b, c, true, m);
}

uint64_t min_f64(uint64_t a, uint64_t b) {
  if (f64_is_nan(a) && f64_is_nan(b)) return b;
  return minmax2(kFmt64, a, b, false, {}, false);
}
uint64_t max_f64(uint64_t a, uint64_t b) {
  if (f64_is_nan(a) && f64_is_nan(b)) return b;
  return minmax2(kFmt64, a, b, true, {}, false);
}

uint16_t min_f16(uint16_t a, uint16_t b, MinMaxMods m) { return minmax2(kFmtF16, a, b, false, m, true); }
uint16_t max_f16(uint16_t a, uint16_t b, MinMaxMods m) { return minmax2(kFmtF16, a, b, true, m, true); }
uint16_t min_bf16(uint16_t a, uint16_t b, MinMaxMods m) {
  return minmax2(kFmtBF16, a, b, false, m, false);
}
uint16_t max_bf16(uint16_t a, uint16_t b, MinMaxMods m) {
  return minmax2(kFmtBF16, a, b, true, m, false);
}
uint32_t min_f16x2(uint32_t a, uint32_t b, MinMaxMods m) {
  return pack16(min_f16(hi16(a), hi16(b), m), min_f16(lo16(a), lo16(b), m));
}
uint32_t max_f16x2(uint32_t a, uint32_t b, MinMaxMods m) {
  return pack16(max_f16(hi16(a), hi16(b), m), max_f16(lo16(a), lo16(b), m));
}
uint32_t min_bf16x2(uint32_t a, uint32_t b, MinMaxMods m) {
  return pack16(min_bf16(hi16(a), hi16(b), m), min_bf16(lo16(a), lo16(b), m));
}
uint32_t max_bf16x2(uint32_t a, uint32_t b, MinMaxMods m) {
  return pack16(max_bf16(hi16(a), hi16(b), m), max_bf16(lo16(a), lo16(b), m));
}

FpOrder compare_f32(uint32_t a, uint32_t b, bool ftz) { return cmp(kFmt32, a, b, ftz); }
FpOrder compare_f64(uint64_t a, uint64_t b) { return cmp(kFmt64, a, b, false); }
FpOrder compare_f16(uint16_t a, uint16_t b, bool ftz) { return cmp(kFmtF16, a, b, ftz); }
FpOrder compare_bf16(uint16_t a, uint16_t b) { return cmp(kFmtBF16, a, b, false); }

}  // namespace ptxsim::model::num
