// cvt between integers and floats, and float round-to-integral (PTX ISA 9.7.9.21), bit-exact.
//
// Float -> integer (cvt.{rni,rzi,rmi,rpi}{.ftz}.{s,u}{8,16,32,64}.{f16,bf16,f32,f64}):
//  * the value is rounded to an integer with the given mode, then clamped to the destination
//    range (PTX: float-to-int conversions saturate by default; .sat is redundant);
//  * NaN -> 0 when the source is not f64 and the destination is not 64-bit; otherwise
//    1 << (width-1) (the PTX ISA rule, e.g. f64 NaN -> s32 gives 0x80000000);
//  * .ftz (f32 source only) reads subnormal inputs as signed zero.
// The result is returned in a uint64_t: signed destinations sign-extended from their width,
// unsigned ones zero-extended (the caller chops/extends for the register per PTX Table 15).
//
// Integer -> float (cvt.{rn,rz,rm,rp}.{f16,bf16,f32,f64}.{s,u}{8..64}): one rounding of the
// exact integer. Overflow (only possible into f16) follows IEEE: Inf for rn, 65504 for rz.
//
// Float -> same float rounded to an integral value (cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.f32.f32,
// .f64.f64, .f16.f16, .bf16.bf16): the sign of zero is kept (-0.4 rni -> -0); NaN -> canonical NaN
// (f64: passed through).
#pragma once
#include <cstdint>

#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

enum class IntType : uint8_t { S8, S16, S32, S64, U8, U16, U32, U64 };
constexpr int int_width(IntType t) {
  switch (t) {
    case IntType::S8: case IntType::U8: return 8;
    case IntType::S16: case IntType::U16: return 16;
    case IntType::S32: case IntType::U32: return 32;
    case IntType::S64: case IntType::U64: return 64;
  }
  return 0;
}
constexpr bool int_signed(IntType t) {
  return t == IntType::S8 || t == IntType::S16 || t == IntType::S32 || t == IntType::S64;
}

uint64_t f32_to_int(uint32_t a, IntType dst, IntRound rm, bool ftz = false);
uint64_t f64_to_int(uint64_t a, IntType dst, IntRound rm);
uint64_t f16_to_int(uint16_t a, IntType dst, IntRound rm);
uint64_t bf16_to_int(uint16_t a, IntType dst, IntRound rm);

// `v` holds the source integer in its low int_width(src) bits (higher bits ignored).
uint32_t int_to_f32(uint64_t v, IntType src, Round rm = Round::RN);
uint64_t int_to_f64(uint64_t v, IntType src, Round rm = Round::RN);
uint16_t int_to_f16(uint64_t v, IntType src, Round rm = Round::RN);
uint16_t int_to_bf16(uint64_t v, IntType src, Round rm = Round::RN);

// Round to integral in the same format.
uint32_t rint_f32(uint32_t a, IntRound rm, bool ftz = false, bool sat = false);
uint64_t rint_f64(uint64_t a, IntRound rm, bool sat = false);
uint16_t rint_f16(uint16_t a, IntRound rm, bool sat = false);
uint16_t rint_bf16(uint16_t a, IntRound rm);

// cvt{.ftz}{.sat}.f32.f32 without integer rounding: ftz flush, .sat clamp, NaN canonicalized.
uint32_t cvt_f32_f32(uint32_t a, bool ftz, bool sat);
// cvt.sat.f64.f64 / cvt.sat.f16.f16 style clamps to [0, 1] (NaN -> +0).
uint64_t sat_f64(uint64_t a);
uint16_t sat_f16(uint16_t a);

}  // namespace ptxsim::model::num
