#include "model/numerics/fp_formats.h"

#include <bit>
#include <cmath>

#include "model/numerics/bits.h"
#include "model/numerics/softfloat.h"

namespace ptxsim::model::num {

namespace {

// Exact decode of a finite/inf value of `f` into a double (every format here fits exactly).
double decode_to_double(const FloatFormat& f, uint64_t bits) {
  Unpacked u = unpack(f, bits);
  double v = 0.0;
  switch (u.cls) {
    case Unpacked::Zero: v = 0.0; break;
    case Unpacked::Inf: v = INFINITY; break;
    case Unpacked::NaN: return NAN;
    case Unpacked::Finite: v = std::ldexp(static_cast<double>(u.mant), u.exp); break;
  }
  return u.neg ? -v : v;
}

// Exact decode into f32 (every small format fits); NaN -> canonical f32 NaN.
float dec32(const FloatFormat& f, uint64_t bits) {
  double d = decode_to_double(f, bits);
  if (std::isnan(d)) return f32_from(kF32CanonicalNaN);
  return static_cast<float>(d);
}

// Exact widening of a small format into f16 bits (NaN -> 0x7FFF).
uint16_t small_to_f16(const FloatFormat& f, uint8_t bits) {
  SfResult r = sf_convert(kF16, f, bits, Round::RN);
  return r.is_nan ? kF16CanonicalNaN : static_cast<uint16_t>(r.bits);
}

uint8_t encode8(const FloatFormat& dst, const FloatFormat& src, uint64_t a, bool relu, Round rm,
                bool satfinite) {
  return static_cast<uint8_t>(convert_float(dst, src, a, rm, satfinite, relu));
}

}  // namespace

uint64_t convert_float(const FloatFormat& dst, const FloatFormat& src, uint64_t a, Round rm,
                       bool satfinite, bool relu) {
  SfResult r = sf_convert(dst, src, a, rm, satfinite ? Overflow::SatFinite : Overflow::IEEE);
  if (r.is_nan) {
    // Formats without NaN: +MAX_NORM (PTX .satfinite wording, also used for .relu).
    return dst.has_nan() ? dst.canonical_nan() : dst.max_finite();
  }
  uint64_t bits = r.bits;
  if (relu && (bits & dst.sign_mask())) {
    // NaN (only an unsaturated e4m3 overflow can make one here) -> canonical NaN; any other
    // negative result, -0 included, -> +0.
    bits = unpack(dst, bits).cls == Unpacked::NaN ? dst.canonical_nan() : 0;
  }
  return bits;
}

// ---- decoders ----------------------------------------------------------------------------------
// Every f16 value is an f32 value, so the widening only moves fields: the exponent re-biased (15
// to 127), the fraction shifted up 13 bits, a subnormal's fraction normalised (its value is M *
// 2^-24, M below 2^10). It runs for every cvt.f32.f16 and f16 operand, hence no general path here.
uint32_t bf16_to_f32_bits(uint16_t h) {
  if (bf16_is_nan(h)) return kF32CanonicalNaN;
  return static_cast<uint32_t>(h) << 16;
}
float bf16_to_f32(uint16_t h) { return f32_from(bf16_to_f32_bits(h)); }
float tf32_to_f32(uint32_t t) {
  if (f32_is_nan(t)) return f32_from(kF32CanonicalNaN);
  return f32_from(t & 0xFFFFE000u);
}
float e4m3_to_f32(uint8_t v) { return dec32(kE4M3, v); }
float e5m2_to_f32(uint8_t v) { return dec32(kE5M2, v); }
float e3m2_to_f32(uint8_t v) { return dec32(kE3M2, v & 0x3F); }
float e2m3_to_f32(uint8_t v) { return dec32(kE2M3, v & 0x3F); }
float e2m1_to_f32(uint8_t v) { return dec32(kE2M1, v & 0x0F); }
float ue8m0_to_f32(uint8_t v) {
  if (v == 0xFF) return f32_from(kF32CanonicalNaN);
  return std::ldexp(1.0f, static_cast<int>(v) - 127);
}
float ue4m3_to_f32(uint8_t v) { return dec32(kUE4M3, v & 0x7F); }

uint16_t e4m3_to_f16(uint8_t v) { return small_to_f16(kE4M3, v); }
uint16_t e5m2_to_f16(uint8_t v) { return small_to_f16(kE5M2, v); }
uint16_t e3m2_to_f16(uint8_t v) { return small_to_f16(kE3M2, v & 0x3F); }
uint16_t e2m3_to_f16(uint8_t v) { return small_to_f16(kE2M3, v & 0x3F); }
uint16_t e2m1_to_f16(uint8_t v) { return small_to_f16(kE2M1, v & 0x0F); }
uint16_t ue8m0_to_bf16(uint8_t v) {
  if (v == 0xFF) return kBF16CanonicalNaN;
  if (v == 0) return 0x0040;  // 2^-127 is a bf16 subnormal
  return static_cast<uint16_t>(v << 7);
}

// ---- widening ----------------------------------------------------------------------------------
uint64_t f32_to_f64(uint32_t a, bool ftz) {
  if (ftz) a = f32_flush(a);
  if (f32_is_nan(a)) {
    uint64_t sign = static_cast<uint64_t>(a >> 31) << 63;
    uint64_t payload = static_cast<uint64_t>(a & 0x007FFFFFu) << 29;
    return sign | kF64Inf | payload | (uint64_t{1} << 51);
  }
  // Exact, so only the fields move (as f16_to_f32_bits): re-biased by 1023 - 127 = 896, the fraction
  // shifted up 29 bits, a subnormal's (M * 2^-149) normalised.
  const uint64_t sign = uint64_t(a >> 31) << 63, E = a >> 23 & 0xFFu, M = a & 0x7FFFFFu;
  if (E == 0xFF) return sign | kF64Inf;
  if (E != 0) return sign | (E + 896) << 52 | M << 29;
  if (M == 0) return sign;
  const int top = std::bit_width(M) - 1;
  return sign | uint64_t(top - 149 + 1023) << 52 | (M << (52 - top) & ((uint64_t{1} << 52) - 1));
}
uint64_t f16_to_f64(uint16_t h) { return f32_to_f64(f16_to_f32_bits(h)); }
uint64_t bf16_to_f64(uint16_t h) { return f32_to_f64(bf16_to_f32_bits(h)); }
uint32_t f16_to_f32_cvt(uint16_t h, bool ftz) {
  uint32_t r = f16_to_f32_bits(h);
  return ftz ? f32_flush(r) : r;
}
uint32_t bf16_to_f32_cvt(uint16_t h, bool ftz) {
  uint32_t r = bf16_to_f32_bits(h);
  return ftz ? f32_flush(r) : r;
}

// ---- narrowing ---------------------------------------------------------------------------------
uint32_t f64_to_f32(uint64_t a, Round rm, bool ftz, bool sat) {
  SfResult r = sf_convert(kF32, kF64, a, rm);
  uint32_t b = r.is_nan ? kF32CanonicalNaN : static_cast<uint32_t>(r.bits);
  if (ftz) b = f32_flush(b);
  if (sat) {
    if (f32_is_nan(b) || f32_sign(b)) b = 0;
    else if (b > kF32One) b = kF32One;
  }
  return b;
}


uint16_t f32_to_f16(uint32_t a, Round rm, CvtOpts o) {
  if (o.ftz) a = f32_flush(a);
  if (rm == Round::RN && !o.satfinite && !o.relu) return f32_to_f16_rn(a);
  return static_cast<uint16_t>(convert_float(kF16, kF32, a, rm, o.satfinite, o.relu));
}
uint16_t f64_to_f16(uint64_t a, Round rm, CvtOpts o) {
  return static_cast<uint16_t>(convert_float(kF16, kF64, a, rm, o.satfinite, o.relu));
}
uint16_t f32_to_bf16(uint32_t a, Round rm, CvtOpts o) {
  if (o.ftz) a = f32_flush(a);
  return static_cast<uint16_t>(convert_float(kBF16, kF32, a, rm, o.satfinite, o.relu));
}
uint16_t f64_to_bf16(uint64_t a, Round rm, CvtOpts o) {
  return static_cast<uint16_t>(convert_float(kBF16, kF64, a, rm, o.satfinite, o.relu));
}
uint16_t f16_to_bf16(uint16_t a, Round rm, CvtOpts o) {
  return static_cast<uint16_t>(convert_float(kBF16, kF16, a, rm, o.satfinite, o.relu));
}
uint16_t bf16_to_f16(uint16_t a, Round rm, CvtOpts o) {
  return static_cast<uint16_t>(convert_float(kF16, kBF16, a, rm, o.satfinite, o.relu));
}
uint32_t f32_to_tf32(uint32_t a, Round rm, CvtOpts o) {
  if (o.ftz) a = f32_flush(a);
  if (f32_is_nan(a)) return kF32CanonicalNaN;
  uint64_t t = convert_float(kTF32, kF32, a, rm, o.satfinite, o.relu);
  return static_cast<uint32_t>(t) << 13;
}

uint8_t f32_to_e4m3(uint32_t a, bool relu, Round rm, bool sf) { return encode8(kE4M3, kF32, a, relu, rm, sf); }
uint8_t f32_to_e5m2(uint32_t a, bool relu, Round rm, bool sf) { return encode8(kE5M2, kF32, a, relu, rm, sf); }
uint8_t f32_to_e3m2(uint32_t a, bool relu, Round rm) { return encode8(kE3M2, kF32, a, relu, rm, true); }
uint8_t f32_to_e2m3(uint32_t a, bool relu, Round rm) { return encode8(kE2M3, kF32, a, relu, rm, true); }
uint8_t f32_to_e2m1(uint32_t a, bool relu, Round rm) { return encode8(kE2M1, kF32, a, relu, rm, true); }
uint8_t f16_to_e4m3(uint16_t a, bool relu) { return encode8(kE4M3, kF16, a, relu, Round::RN, true); }
uint8_t f16_to_e5m2(uint16_t a, bool relu) { return encode8(kE5M2, kF16, a, relu, Round::RN, true); }
uint8_t f16_to_e3m2(uint16_t a, bool relu) { return encode8(kE3M2, kF16, a, relu, Round::RN, true); }
uint8_t f16_to_e2m3(uint16_t a, bool relu) { return encode8(kE2M3, kF16, a, relu, Round::RN, true); }
uint8_t f16_to_e2m1(uint16_t a, bool relu) { return encode8(kE2M1, kF16, a, relu, Round::RN, true); }
uint8_t bf16_to_e4m3(uint16_t a, bool relu) { return encode8(kE4M3, kBF16, a, relu, Round::RN, true); }
uint8_t bf16_to_e5m2(uint16_t a, bool relu) { return encode8(kE5M2, kBF16, a, relu, Round::RN, true); }
uint8_t bf16_to_e3m2(uint16_t a, bool relu) { return encode8(kE3M2, kBF16, a, relu, Round::RN, true); }
uint8_t bf16_to_e2m3(uint16_t a, bool relu) { return encode8(kE2M3, kBF16, a, relu, Round::RN, true); }
uint8_t bf16_to_e2m1(uint16_t a, bool relu) { return encode8(kE2M1, kBF16, a, relu, Round::RN, true); }

uint8_t f32_to_ue8m0(uint32_t a, Round rm, bool satfinite) {
  const uint32_t mag = a & 0x7FFFFFFFu;
  if (mag > kF32Inf) return kUE8M0NaN;
  if (mag == kF32Inf) return satfinite ? 0xFE : 0xFF;
  uint32_t e = mag >> 23;                    // biased exponent: |x| in [2^(e-127), 2^(e-126))
  if (e == 0) {
    // Subnormal or zero: |x| < 2^-126. rz -> 2^-127; rp -> 2^-126 if |x| > 2^-127.
    if (rm == Round::RP && mag > 0x00400000u) return 0x01;
    return 0x00;
  }
  if (rm == Round::RP && (mag & 0x007FFFFFu) != 0) ++e;  // not a power of two: round up
  if (e >= 0xFF) return satfinite ? 0xFE : 0xFF;
  return static_cast<uint8_t>(e);
}

uint8_t bf16_to_ue8m0(uint16_t a, Round rm, bool satfinite) {
  return f32_to_ue8m0(static_cast<uint32_t>(a) << 16, rm, satfinite);
}

uint8_t f32_to_ue4m3(uint32_t a, Round rm, bool satfinite) {
  if (f32_is_nan(a)) return kUE4M3NaN;
  return static_cast<uint8_t>(
      convert_float(kUE4M3, kF32, a & 0x7FFFFFFFu, rm, satfinite, false));
}

}  // namespace ptxsim::model::num
