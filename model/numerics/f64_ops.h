// Double-precision arithmetic with PTX semantics (PTX ISA 9.7.3), bit-exact.
//
// All functions take and return f64 bit patterns. Subnormals are always supported (no .ftz on
// f64 IEEE instructions). Rounding as in f32_ops.h: RN on the host (SSE binary64), directed
// modes by exact integer arithmetic.
//
// NaN rules (PTX: "NaN payloads are supported for double-precision instructions"):
//  * a NaN operand is returned unchanged (payload and sign kept, signalling NaNs not quieted:
//    the GPU treats sNaN as quiet). With several NaN operands the priority is the one envytools
//    measured on NVIDIA DADD/DFMA hardware: add/sub/mul/div: b, then a; fma: b, then c, then a.
//  * an invalid operation (Inf-Inf, 0*Inf, 0/0, Inf/Inf, sqrt(<0)) returns kF64DefaultNaN
//    (0xFFF8000000000000).
//  * abs/neg pass a NaN through unchanged (CUDA Programming Guide: f64 abs/neg are not
//    IEEE-compliant with respect to NaNs).
#pragma once
#include <cstdint>

#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

uint64_t add_f64(uint64_t a, uint64_t b, Round rm = Round::RN);
uint64_t sub_f64(uint64_t a, uint64_t b, Round rm = Round::RN);
uint64_t mul_f64(uint64_t a, uint64_t b, Round rm = Round::RN);
uint64_t fma_f64(uint64_t a, uint64_t b, uint64_t c, Round rm = Round::RN);
uint64_t div_f64(uint64_t a, uint64_t b, Round rm = Round::RN);
uint64_t rcp_f64(uint64_t a, Round rm = Round::RN);
uint64_t sqrt_f64(uint64_t a, Round rm = Round::RN);
uint64_t abs_f64(uint64_t a);
uint64_t neg_f64(uint64_t a);

}  // namespace ptxsim::model::num
