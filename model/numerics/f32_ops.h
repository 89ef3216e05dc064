// Single-precision arithmetic with PTX semantics (PTX ISA 9.7.3, 9.7.5), bit-exact.
//
// All functions take and return f32 bit patterns.
//  * Round: .rn .rz .rm .rp (RNA is accepted and rounds to nearest, ties away).
//  * ftz (.ftz): subnormal inputs are read as zero of the same sign, and a result that is
//    subnormal *after rounding* is written as zero of the same sign.
//  * sat (.sat): the result is clamped to [+0.0, 1.0]; NaN and -0.0 become +0.0.
//  * Any NaN result is the canonical NaN 0x7FFFFFFF.
// The RN path uses host SSE arithmetic (exact IEEE binary32, requires the host to be in its
// default round-to-nearest mode with FTZ/DAZ off); the directed modes use exact integer
// arithmetic (softfloat.h), so the host rounding mode is never changed.
#pragma once
#include <cstdint>

#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

uint32_t add_f32(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint32_t sub_f32(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint32_t mul_f32(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
// fma / mad (sm_20+): a*b+c rounded once.
uint32_t fma_f32(uint32_t a, uint32_t b, uint32_t c, Round rm = Round::RN, bool ftz = false,
                 bool sat = false);
// div.rnd / rcp.rnd / sqrt.rnd: IEEE 754 correctly rounded.
uint32_t div_f32(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false);
uint32_t rcp_f32(uint32_t a, Round rm = Round::RN, bool ftz = false);
uint32_t sqrt_f32(uint32_t a, Round rm = Round::RN, bool ftz = false);

// abs / neg: NaN -> canonical NaN, otherwise a sign-bit operation (after ftz).
uint32_t abs_f32(uint32_t a, bool ftz = false);
uint32_t neg_f32(uint32_t a, bool ftz = false);
// .sat clamp on its own (also cvt.sat.f32.f32): NaN, negatives and -0 -> +0; > 1 -> 1.
uint32_t sat_f32(uint32_t a);

// f32x2 (sm_100+): element 0 in bits 31:0, element 1 in bits 63:32.
uint64_t add_f32x2(uint64_t a, uint64_t b, Round rm = Round::RN, bool ftz = false);
uint64_t sub_f32x2(uint64_t a, uint64_t b, Round rm = Round::RN, bool ftz = false);
uint64_t mul_f32x2(uint64_t a, uint64_t b, Round rm = Round::RN, bool ftz = false);
uint64_t fma_f32x2(uint64_t a, uint64_t b, uint64_t c, Round rm = Round::RN, bool ftz = false);

// Mixed precision (sm_100+, PTX 9.7.5): the f16/bf16 operand(s) are widened exactly to f32.
// No .ftz. add: d = cvt(a) + c; sub: d = cvt(a) - c; fma: d = cvt(a)*cvt(b) + c.
uint32_t add_f32_f16(uint16_t a, uint32_t c, Round rm = Round::RN, bool sat = false);
uint32_t add_f32_bf16(uint16_t a, uint32_t c, Round rm = Round::RN, bool sat = false);
uint32_t sub_f32_f16(uint16_t a, uint32_t c, Round rm = Round::RN, bool sat = false);
uint32_t sub_f32_bf16(uint16_t a, uint32_t c, Round rm = Round::RN, bool sat = false);
uint32_t fma_f32_f16(uint16_t a, uint16_t b, uint32_t c, Round rm = Round::RN, bool sat = false);
uint32_t fma_f32_bf16(uint16_t a, uint16_t b, uint32_t c, Round rm = Round::RN,
                      bool sat = false);

}  // namespace ptxsim::model::num
