// Half-precision (f16) and bfloat16 arithmetic, scalar and packed x2 (PTX ISA 9.7.4), bit-exact.
//
// Operands are bit patterns: uint16_t for scalars, uint32_t for x2 (element 0 in bits 15:0,
// element 1 in bits 31:16; the two lanes are independent).
// Every result is correctly rounded from the exact value (a*b+c is rounded once) by exact
// integer arithmetic. PTX only defines .rn for these instructions; other modes are accepted.
//  * ftz (f16 only): subnormal inputs read as signed zero, subnormal results (after rounding)
//    written as signed zero.
//  * sat (f16 add/sub/mul/fma): clamp to [+0, 1]; NaN and -0 -> +0.
//  * relu (fma f16/bf16): negative results and -0 -> +0; NaN -> canonical NaN.
//  * NaN results are the canonical 0x7FFF.
#pragma once
#include <cstdint>

#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

// ---- f16 ---------------------------------------------------------------------------------------
uint16_t add_f16(uint16_t a, uint16_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint16_t sub_f16(uint16_t a, uint16_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint16_t mul_f16(uint16_t a, uint16_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint16_t fma_f16(uint16_t a, uint16_t b, uint16_t c, Round rm = Round::RN, bool ftz = false,
                 bool sat = false, bool relu = false);
uint16_t neg_f16(uint16_t a, bool ftz = false);  // NaN -> canonical NaN
uint16_t abs_f16(uint16_t a, bool ftz = false);

uint32_t add_f16x2(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint32_t sub_f16x2(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint32_t mul_f16x2(uint32_t a, uint32_t b, Round rm = Round::RN, bool ftz = false, bool sat = false);
uint32_t fma_f16x2(uint32_t a, uint32_t b, uint32_t c, Round rm = Round::RN, bool ftz = false,
                   bool sat = false, bool relu = false);
uint32_t neg_f16x2(uint32_t a, bool ftz = false);
uint32_t abs_f16x2(uint32_t a, bool ftz = false);

// ---- bf16 (no .ftz, no .sat) -------------------------------------------------------------------
uint16_t add_bf16(uint16_t a, uint16_t b, Round rm = Round::RN);
uint16_t sub_bf16(uint16_t a, uint16_t b, Round rm = Round::RN);
uint16_t mul_bf16(uint16_t a, uint16_t b, Round rm = Round::RN);
uint16_t fma_bf16(uint16_t a, uint16_t b, uint16_t c, Round rm = Round::RN, bool relu = false);
uint16_t neg_bf16(uint16_t a);
uint16_t abs_bf16(uint16_t a);

uint32_t add_bf16x2(uint32_t a, uint32_t b, Round rm = Round::RN);
uint32_t sub_bf16x2(uint32_t a, uint32_t b, Round rm = Round::RN);
uint32_t mul_bf16x2(uint32_t a, uint32_t b, Round rm = Round::RN);
uint32_t fma_bf16x2(uint32_t a, uint32_t b, uint32_t c, Round rm = Round::RN, bool relu = false);
uint32_t neg_bf16x2(uint32_t a);
uint32_t abs_bf16x2(uint32_t a);

// ---- fma.rn.oob{.relu} (sm_90+) -----------------------------------------------------------------
// The result is +0 if any operand equals the OOB-NaN pattern. PTX does not publish that pattern
// (the TMA "OOB-NaN" fill value), so the caller passes the one its TMA model writes.
uint16_t fma_oob_f16(uint16_t a, uint16_t b, uint16_t c, uint16_t oob_nan, bool relu = false);
uint16_t fma_oob_bf16(uint16_t a, uint16_t b, uint16_t c, uint16_t oob_nan, bool relu = false);
uint32_t fma_oob_f16x2(uint32_t a, uint32_t b, uint32_t c, uint16_t oob_nan, bool relu = false);
uint32_t fma_oob_bf16x2(uint32_t a, uint32_t b, uint32_t c, uint16_t oob_nan, bool relu = false);

}  // namespace ptxsim::model::num
