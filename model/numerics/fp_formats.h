// Codecs for every PTX floating-point storage format and the scalar float-to-float conversions
// of cvt (PTX ISA 9.7.9.21), bit-exact.
//
// Formats (see rounding.h for the FloatFormat descriptors):
//   f16 (1.5.10, bias 15), bf16 (1.8.7, bias 127), tf32 (f32 layout, low 13 bits zero),
//   e4m3 (1.4.3, bias 7, max 448, no Inf, NaN = S.1111.111), e5m2 (1.5.2, bias 15, IEEE),
//   e3m2 (1.3.2, bias 3, max 28), e2m3 (1.2.3, bias 1, max 7.5), e2m1 (1.2.1, bias 1, max 6)
//   (these three: no Inf/NaN, stored in the low 6 / 4 bits), ue8m0 (2^(e-127), 0xFF = NaN, no
//   zero), ue4m3 (unsigned e4m3 in 7 bits, 0x7F = NaN, bit 7 ignored on decode).
//
// Decoders are exact. Encoders round once from the exact input value.
// NaN results: f32 0x7FFFFFFF, f16/bf16 0x7FFF, e4m3/e5m2 0x7F, ue8m0 0xFF, ue4m3 0x7F; formats
// without NaN give +MAX_NORM (PTX .satfinite rule). .relu turns negative results (and -0) into +0
// and NaN into the canonical NaN.
#pragma once
#include <cstdint>

#include <bit>

#include "model/numerics/bits.h"
#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

struct CvtOpts {
  bool satfinite = false;  // .satfinite: |x| > MAX_NORM (Inf included) -> +-MAX_NORM
  bool relu = false;       // .relu
  bool ftz = false;        // .ftz: flush f32 subnormal inputs (and f32 subnormal results)
};

// ---- exact decoders ----------------------------------------------------------------------------
// (f16_to_f32 and f16_to_f32_bits are inline below: f16 arithmetic runs through them.)
float bf16_to_f32(uint16_t h);           // NaN -> canonical f32 NaN
uint32_t bf16_to_f32_bits(uint16_t h);
float tf32_to_f32(uint32_t t);           // low 13 bits are ignored
float e4m3_to_f32(uint8_t v);
float e5m2_to_f32(uint8_t v);
float e3m2_to_f32(uint8_t v);            // bits 7:6 ignored
float e2m3_to_f32(uint8_t v);            // bits 7:6 ignored
float e2m1_to_f32(uint8_t v);            // bits 7:4 ignored
float ue8m0_to_f32(uint8_t v);           // 0x00 -> 2^-127 (an f32 subnormal), 0xFF -> NaN
float ue4m3_to_f32(uint8_t v);           // bit 7 ignored
// Exact widening to f16 (used by cvt.rn.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}); NaN -> 0x7FFF.
uint16_t e4m3_to_f16(uint8_t v);
uint16_t e5m2_to_f16(uint8_t v);
uint16_t e3m2_to_f16(uint8_t v);
uint16_t e2m3_to_f16(uint8_t v);
uint16_t e2m1_to_f16(uint8_t v);
// cvt.rn.bf16x2.ue8m0x2 element: exact, 0xFF -> 0x7FFF, 0x00 -> 0x0040 (2^-127).
uint16_t ue8m0_to_bf16(uint8_t v);

// ---- widening float conversions (exact) --------------------------------------------------------
// cvt.f64.f32: NaN keeps sign and payload (quiet bit set). ftz flushes a subnormal input.
uint64_t f32_to_f64(uint32_t a, bool ftz = false);
uint64_t f16_to_f64(uint16_t h);   // NaN -> f64 image of the canonical f32 NaN
uint64_t bf16_to_f64(uint16_t h);
// cvt.f32.f16 / cvt.f32.bf16 with .ftz: subnormal results flushed (only bf16 can produce them).
uint32_t f16_to_f32_cvt(uint16_t h, bool ftz);
uint32_t bf16_to_f32_cvt(uint16_t h, bool ftz);

// ---- narrowing float conversions (one rounding) ------------------------------------------------
uint32_t f64_to_f32(uint64_t a, Round rm, bool ftz = false, bool sat = false);
uint16_t f32_to_f16(uint32_t a, Round rm, CvtOpts o = {});
// (f32_to_f16_rn, the Round::RN case without options, is inline below.)
uint16_t f64_to_f16(uint64_t a, Round rm, CvtOpts o = {});
uint16_t f32_to_bf16(uint32_t a, Round rm, CvtOpts o = {});
uint16_t f64_to_bf16(uint64_t a, Round rm, CvtOpts o = {});
uint16_t f16_to_bf16(uint16_t a, Round rm, CvtOpts o = {});
uint16_t bf16_to_f16(uint16_t a, Round rm, CvtOpts o = {});
// cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32: result in f32 layout with the low 13 bits zero.
uint32_t f32_to_tf32(uint32_t a, Round rm, CvtOpts o = {});

// 8/6/4-bit encoders. PTX only has .rn.satfinite forms (satfinite is mandatory), which are the
// defaults; other modes are accepted for completeness.
uint8_t f32_to_e4m3(uint32_t a, bool relu = false, Round rm = Round::RN, bool satfinite = true);
uint8_t f32_to_e5m2(uint32_t a, bool relu = false, Round rm = Round::RN, bool satfinite = true);
uint8_t f32_to_e3m2(uint32_t a, bool relu = false, Round rm = Round::RN);
uint8_t f32_to_e2m3(uint32_t a, bool relu = false, Round rm = Round::RN);
uint8_t f32_to_e2m1(uint32_t a, bool relu = false, Round rm = Round::RN);
uint8_t f16_to_e4m3(uint16_t a, bool relu = false);
uint8_t f16_to_e5m2(uint16_t a, bool relu = false);
uint8_t f16_to_e3m2(uint16_t a, bool relu = false);
uint8_t f16_to_e2m3(uint16_t a, bool relu = false);
uint8_t f16_to_e2m1(uint16_t a, bool relu = false);
uint8_t bf16_to_e4m3(uint16_t a, bool relu = false);
uint8_t bf16_to_e5m2(uint16_t a, bool relu = false);
uint8_t bf16_to_e3m2(uint16_t a, bool relu = false);
uint8_t bf16_to_e2m3(uint16_t a, bool relu = false);
uint8_t bf16_to_e2m1(uint16_t a, bool relu = false);
// ue8m0 (cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2}): the sign is ignored, |x| is rounded to a
// power of two (rz: 2^floor(log2|x|), rp: 2^ceil(log2|x|)), clamped below at 2^-127 (0x00; zero
// also gives 0x00). NaN -> 0xFF. Too large (Inf, or rp above 2^127) -> 0xFF, or 0xFE with
// .satfinite. This matches NVIDIA's host-side reference in cuda_fp8.hpp.
uint8_t f32_to_ue8m0(uint32_t a, Round rm, bool satfinite);
uint8_t bf16_to_ue8m0(uint16_t a, Round rm, bool satfinite);
// ue4m3 scale encoder (no cvt exists in PTX; provided for building NVFP4 scales): the sign is
// ignored, RN to the nearest e4m3 magnitude, satfinite to 448, NaN -> 0x7F.
uint8_t f32_to_ue4m3(uint32_t a, Round rm = Round::RN, bool satfinite = true);

// Generic entry point used by all of the above: convert bits of `src` into `dst` applying NaN,
// .relu and .satfinite rules (no ftz handling).
uint64_t convert_float(const FloatFormat& dst, const FloatFormat& src, uint64_t a, Round rm,
                       bool satfinite, bool relu);

// ---- inline definitions (the f16 hot paths) ------------------------------------------------------
inline uint32_t f16_to_f32_bits(uint16_t h) {
  if (f16_is_nan(h)) return kF32CanonicalNaN;
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, E = (h >> 10) & 0x1Fu, M = h & 0x3FFu;
  if (E == 0x1F) return sign | 0x7F800000u;                       // infinity
  if (E != 0) return sign | (E + 112) << 23 | M << 13;             // normal: 127 - 15 = 112
  if (M == 0) return sign;                                         // signed zero
  const int top = std::bit_width(M) - 1;                           // M = 2^top * 1.f
  return sign | uint32_t(top - 24 + 127) << 23 | (M << (23 - top) & 0x7FFFFFu);
}
// NaN -> the canonical f32 NaN.
inline float f16_to_f32(uint16_t h) { return f32_from(f16_to_f32_bits(h)); }

// f32_to_f16 for Round::RN without options (the hot case: cvt.rn.f16.f32, and f16 arithmetic done
// in f32 in half_ops.cpp), NaN -> the canonical 0x7FFF. Round to nearest even by fields: a normal
// f16 result keeps the top 10 fraction bits, rounded by adding 0xFFF plus the lowest kept bit (a
// carry into the exponent is the next binade, and from the top binade it gives exactly Inf's
// bits); a subnormal or zero result is the f32 plus 0.5, whose ulp (2^-24) is the f16 subnormal
// quantum, so the host's addition (round to nearest even, never changed) does the rounding and
// the fraction field holds the result.
inline uint16_t f32_to_f16_rn(uint32_t a) {
  const uint32_t sign = (a >> 16) & 0x8000u, mag = a & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return 0x7FFFu;                       // NaN: the canonical f16 NaN
  if (mag >= 0x47800000u) return uint16_t(sign | 0x7C00u);     // 2^16 and above, Inf: Inf
  if (mag >= 0x38800000u) {                                    // 2^-14 and above: a normal f16 (or Inf)
    const uint32_t r = mag + 0xFFFu + ((mag >> 13) & 1u);
    return uint16_t(sign | ((r >> 13) - (112u << 10)));
  }
  const float half = 0.5f;
  const uint32_t sum = f32_bits(f32_from(mag) + half);
  return uint16_t(sign | (sum - f32_bits(half)));
}

}  // namespace ptxsim::model::num
