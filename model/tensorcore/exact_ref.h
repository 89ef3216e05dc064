// An independent, exact evaluation of the tensor-core arithmetic of tensorcore.h, written from the
// published description (MMA-Sim's T-FDPA; shared/reference/tensor-core-numerics.md (a)) on
// Boost.Multiprecision binary floats rather than on shifted integers. It decodes raw bits itself,
// computes products and sums as exact real numbers, takes exponents with frexp, truncates with
// trunc and rounds by comparing remainders, so it shares no arithmetic with the fast path. Slow
// (tens of microseconds per dot product): for tests only.
#pragma once
#include <cstdint>

#include "model/tensorcore/block_scaled.h"
#include "model/tensorcore/tensorcore.h"

namespace ptxsim::model::tc::ref {

// d = sum_k a[k] * b[k] + c as the instruction model m defines it, from raw bits.
uint32_t dot(const DotModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b, int K, uint32_t c);

// D = A * B + C for an M x N x K tile (row-major A: MxK, B: KxN, C and D: MxN), decoding every
// operand once: the fast way to run many reference dot products.
void gemm(const DotModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b, const uint32_t* c,
          uint32_t* d, int M, int N, int K);

// The block-scaled dot product of block_scaled.h: K elements, K / vec scale factors per side.
uint32_t block_scaled_dot(const BlockScaledModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b, int K,
                          ScaleFmt sf, const uint8_t* sa, const uint8_t* sb, int vec, uint32_t c);

// Integer kinds (.s8/.u8 x .s8/.u8 -> .s32): c + sum_k a[k] * b[k] as an exact integer, wrapped
// modulo 2^32, or with `saturate` (.satfinite) clamped to [INT32_MIN, INT32_MAX] (PTX ISA "Integer
// operations"). a and b are bytes read as signed or unsigned.
int32_t int_dot(bool a_signed, bool b_signed, bool saturate, const uint8_t* a, const uint8_t* b, int K, int32_t c);

// IEEE round-to-nearest-even addition x + y in the accumulator format (canonical NaN), as FADD /
// HADD2 compute it; an independent check of model/numerics.
uint32_t add_rn(AccFmt f, uint32_t x, uint32_t y);

}  // namespace ptxsim::model::tc::ref
