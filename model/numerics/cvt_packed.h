// Packed cvt forms (PTX ISA 9.7.9.21), bit-exact. Packing follows the ISA's semantics block:
// with two f32 sources a and b, the value converted from a goes to the UPPER element of d and b
// to the lower; with a packed source, the upper source element maps to the upper result element.
//
//   cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32      d, a, b   -> cvt_f16x2_f32 / bf16x2
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32            d, a, b   -> cvt_e4m3x2_f32 ...
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f16x2,bf16x2} d, a      -> cvt_e4m3x2_f16x2 ...
//   cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}                     d, a      -> cvt_f16x2_e4m3x2 ...
//   cvt.rn.satfinite{.relu}.{e2m3x2,e3m2x2}.{f32,f16x2,bf16x2}        (6-bit fields, 2 MSBs zero)
//   cvt.rn.satfinite{.relu}.e2m1x2.{f32,f16x2,bf16x2}       d is .b8: a -> bits 7:4, b -> 3:0
//   cvt.rn{.relu}.f16x2.{e2m3x2,e3m2x2,e2m1x2}
//   cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2}
//   cvt.rn.bf16x2.ue8m0x2
//   cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32           d, a, b, rbits
// The .rs x4 forms (e4m3x4, e5m2x4, e2m3x4, e3m2x4, e2m1x4) and s2f6x2 are not modelled.
#pragma once
#include <cstdint>

#include "model/numerics/fp_formats.h"
#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

uint32_t cvt_f16x2_f32(uint32_t a, uint32_t b, Round rm, CvtOpts o = {});
uint32_t cvt_bf16x2_f32(uint32_t a, uint32_t b, Round rm, CvtOpts o = {});

enum class F8Kind : uint8_t { E4M3, E5M2 };
enum class F6Kind : uint8_t { E2M3, E3M2 };

uint16_t cvt_f8x2_f32(F8Kind k, uint32_t a, uint32_t b, bool relu = false);
uint16_t cvt_f8x2_f16x2(F8Kind k, uint32_t a, bool relu = false);
uint16_t cvt_f8x2_bf16x2(F8Kind k, uint32_t a, bool relu = false);
uint32_t cvt_f16x2_f8x2(F8Kind k, uint16_t a, bool relu = false);

uint16_t cvt_f6x2_f32(F6Kind k, uint32_t a, uint32_t b, bool relu = false);
uint16_t cvt_f6x2_f16x2(F6Kind k, uint32_t a, bool relu = false);
uint16_t cvt_f6x2_bf16x2(F6Kind k, uint32_t a, bool relu = false);
uint32_t cvt_f16x2_f6x2(F6Kind k, uint16_t a, bool relu = false);

uint8_t cvt_e2m1x2_f32(uint32_t a, uint32_t b, bool relu = false);
uint8_t cvt_e2m1x2_f16x2(uint32_t a, bool relu = false);
uint8_t cvt_e2m1x2_bf16x2(uint32_t a, bool relu = false);
uint32_t cvt_f16x2_e2m1x2(uint8_t a, bool relu = false);

// cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits (sm_100a/sm_103a). rbits[31:16]
// are the random bits of a and rbits[15:0] those of b (f16: 13 LSBs used; bf16: all 16). Model:
// the random bits are added to the discarded low-order bits of |x|'s significand, aligned so
// that their MSB sits just below the kept LSB; a carry out of the discarded field rounds away from
// zero, otherwise the result is truncated. For normal results this is exactly the 13 (f16) or 16
// (bf16) discarded f32 mantissa bits; how hardware aligns the bits for subnormal results is not
// documented (the ISA's layout figures are images) and this alignment is our choice. An exact
// result is not changed. Overflow gives Inf (.satfinite: MAX_NORM); NaN -> canonical NaN.
uint32_t cvt_rs_f16x2_f32(uint32_t a, uint32_t b, uint32_t rbits, CvtOpts o = {});
uint32_t cvt_rs_bf16x2_f32(uint32_t a, uint32_t b, uint32_t rbits, CvtOpts o = {});
// The scalar core: f32 -> dst with `width` random bits.
uint64_t stochastic_round_f32(const FloatFormat& dst, uint32_t a, uint32_t rbits, int width,
                              CvtOpts o = {});

uint16_t cvt_ue8m0x2_f32(uint32_t a, uint32_t b, Round rm, bool satfinite);
uint16_t cvt_ue8m0x2_bf16x2(uint32_t a, Round rm, bool satfinite);
uint32_t cvt_bf16x2_ue8m0x2(uint16_t a);

}  // namespace ptxsim::model::num
