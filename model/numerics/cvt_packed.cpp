#include "model/numerics/cvt_packed.h"

#include "model/numerics/bits.h"

namespace ptxsim::model::num {

namespace {

uint16_t pack8(uint8_t hi, uint8_t lo) { return static_cast<uint16_t>((hi << 8) | lo); }

const FloatFormat& f8fmt(F8Kind k) { return k == F8Kind::E4M3 ? kE4M3 : kE5M2; }
const FloatFormat& f6fmt(F6Kind k) { return k == F6Kind::E2M3 ? kE2M3 : kE3M2; }

uint8_t enc(const FloatFormat& dst, const FloatFormat& src, uint64_t a, bool relu) {
  return static_cast<uint8_t>(convert_float(dst, src, a, Round::RN, true, relu));
}

// Narrow-format -> f16 element with the .relu rule (negative -> +0, NaN -> canonical).
uint16_t widen(const FloatFormat& src, uint8_t v, bool relu) {
  return static_cast<uint16_t>(convert_float(kF16, src, v, Round::RN, false, relu));
}

}  // namespace

uint32_t cvt_f16x2_f32(uint32_t a, uint32_t b, Round rm, CvtOpts o) {
  return pack16(f32_to_f16(a, rm, o), f32_to_f16(b, rm, o));
}
uint32_t cvt_bf16x2_f32(uint32_t a, uint32_t b, Round rm, CvtOpts o) {
  return pack16(f32_to_bf16(a, rm, o), f32_to_bf16(b, rm, o));
}

uint16_t cvt_f8x2_f32(F8Kind k, uint32_t a, uint32_t b, bool relu) {
  return pack8(enc(f8fmt(k), kF32, a, relu), enc(f8fmt(k), kF32, b, relu));
}
uint16_t cvt_f8x2_f16x2(F8Kind k, uint32_t a, bool relu) {
  return pack8(enc(f8fmt(k), kF16, hi16(a), relu), enc(f8fmt(k), kF16, lo16(a), relu));
}
uint16_t cvt_f8x2_bf16x2(F8Kind k, uint32_t a, bool relu) {
  return pack8(enc(f8fmt(k), kBF16, hi16(a), relu), enc(f8fmt(k), kBF16, lo16(a), relu));
}
uint32_t cvt_f16x2_f8x2(F8Kind k, uint16_t a, bool relu) {
  return pack16(widen(f8fmt(k), static_cast<uint8_t>(a >> 8), relu),
                widen(f8fmt(k), static_cast<uint8_t>(a), relu));
}

uint16_t cvt_f6x2_f32(F6Kind k, uint32_t a, uint32_t b, bool relu) {
  return pack8(enc(f6fmt(k), kF32, a, relu), enc(f6fmt(k), kF32, b, relu));
}
uint16_t cvt_f6x2_f16x2(F6Kind k, uint32_t a, bool relu) {
  return pack8(enc(f6fmt(k), kF16, hi16(a), relu), enc(f6fmt(k), kF16, lo16(a), relu));
}
uint16_t cvt_f6x2_bf16x2(F6Kind k, uint32_t a, bool relu) {
  return pack8(enc(f6fmt(k), kBF16, hi16(a), relu), enc(f6fmt(k), kBF16, lo16(a), relu));
}
uint32_t cvt_f16x2_f6x2(F6Kind k, uint16_t a, bool relu) {
  return pack16(widen(f6fmt(k), static_cast<uint8_t>((a >> 8) & 0x3F), relu),
                widen(f6fmt(k), static_cast<uint8_t>(a & 0x3F), relu));
}

uint8_t cvt_e2m1x2_f32(uint32_t a, uint32_t b, bool relu) {
  return static_cast<uint8_t>((enc(kE2M1, kF32, a, relu) << 4) | enc(kE2M1, kF32, b, relu));
}
uint8_t cvt_e2m1x2_f16x2(uint32_t a, bool relu) {
  return static_cast<uint8_t>((enc(kE2M1, kF16, hi16(a), relu) << 4) |
                              enc(kE2M1, kF16, lo16(a), relu));
}
uint8_t cvt_e2m1x2_bf16x2(uint32_t a, bool relu) {
  return static_cast<uint8_t>((enc(kE2M1, kBF16, hi16(a), relu) << 4) |
                              enc(kE2M1, kBF16, lo16(a), relu));
}
uint32_t cvt_f16x2_e2m1x2(uint8_t a, bool relu) {
  return pack16(widen(kE2M1, static_cast<uint8_t>(a >> 4), relu),
                widen(kE2M1, static_cast<uint8_t>(a & 0x0F), relu));
}

uint64_t stochastic_round_f32(const FloatFormat& dst, uint32_t a, uint32_t rbits, int width,
                              CvtOpts o) {
  if (o.ftz) a = f32_flush(a);
  Unpacked u = unpack(kF32, a);
  if (u.cls != Unpacked::Finite) {
    return convert_float(dst, kF32, a, Round::RN, o.satfinite, o.relu);  // NaN, Inf, zero
  }
  const int top = msb128(u.mant);
  const int e = u.exp + top;
  const int q = (e < dst.emin() ? dst.emin() : e) - dst.man_bits;  // exponent of the result ulp
  const int shift = q - u.exp;
  Exact x{u.neg, u.exp, u.mant, false};
  bool away = true;
  if (shift > 0) {
    const uint64_t r = rbits & ((uint64_t{1} << width) - 1);
    const u128 disc = shift >= 64 ? u128{u.mant} : (u128{u.mant} & ((u128{1} << shift) - 1));
    const u128 kept = shift >= 64 ? 0 : (u128{u.mant} >> shift);
    const u128 radd = shift >= width ? (u128{r} << (shift - width)) : (u128{r} >> (width - shift));
    const bool carry = shift < 127 && ((disc + radd) >> shift) != 0;
    x = Exact{u.neg, q, kept + (carry ? 1 : 0), false};
    away = carry;
  }
  // x is now exact at the result's precision; the mode only settles overflow: truncation
  // saturates at MAX_NORM (like .rz), rounding away gives Inf unless .satfinite.
  uint64_t bits = round_pack(dst, x, away ? Round::RN : Round::RZ,
                             o.satfinite ? Overflow::SatFinite : Overflow::IEEE);
  if (o.relu && (bits & dst.sign_mask())) bits = 0;
  return bits;
}

uint32_t cvt_rs_f16x2_f32(uint32_t a, uint32_t b, uint32_t rbits, CvtOpts o) {
  return pack16(static_cast<uint16_t>(stochastic_round_f32(kF16, a, (rbits >> 16) & 0x1FFF, 13, o)),
                static_cast<uint16_t>(stochastic_round_f32(kF16, b, rbits & 0x1FFF, 13, o)));
}
uint32_t cvt_rs_bf16x2_f32(uint32_t a, uint32_t b, uint32_t rbits, CvtOpts o) {
  return pack16(static_cast<uint16_t>(stochastic_round_f32(kBF16, a, rbits >> 16, 16, o)),
                static_cast<uint16_t>(stochastic_round_f32(kBF16, b, rbits & 0xFFFF, 16, o)));
}

uint16_t cvt_ue8m0x2_f32(uint32_t a, uint32_t b, Round rm, bool satfinite) {
  return pack8(f32_to_ue8m0(a, rm, satfinite), f32_to_ue8m0(b, rm, satfinite));
}
uint16_t cvt_ue8m0x2_bf16x2(uint32_t a, Round rm, bool satfinite) {
  return pack8(bf16_to_ue8m0(hi16(a), rm, satfinite), bf16_to_ue8m0(lo16(a), rm, satfinite));
}
uint32_t cvt_bf16x2_ue8m0x2(uint16_t a) {
  return pack16(ue8m0_to_bf16(static_cast<uint8_t>(a >> 8)),
                ue8m0_to_bf16(static_cast<uint8_t>(a)));
}

}  // namespace ptxsim::model::num
