// The arithmetic of a warp-level MMA on whole matrices, shared by mma.sync (mma_sync.cpp) and
// wmma.mma (wmma.cpp), which differ only in how fragments map to registers. Matrices are
// row-major arrays of element bits: A is M x K, B is K x N, C and D are M x N; D must not alias
// A, B or C.
#pragma once
#include <cstdint>

#include "model/numerics/rounding.h"
#include "model/tensorcore/tensorcore.h"

namespace ptxsim::sem {

struct MmaExtent {
  int m, n, k;
};

// Floating-point multiplicands: each D element is one tensor-core dot of K products (the model row).
void float_mma(const model::tc::DotModel& model, model::tc::ElemFmt fa, model::tc::ElemFmt fb, MmaExtent e,
               const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D);
// .s8/.u8/.s4/.u4 (`bits` wide): exact products and sum into the s32 C, wrapping modulo 2^32 or,
// with `saturate` (.satfinite), clamped to the s32 range.
void int_mma(int bits, bool a_signed, bool b_signed, bool saturate, MmaExtent e, const uint64_t* A, const uint64_t* B,
             const uint64_t* C, uint64_t* D);
// .b1: d = c + sum_k popc(a_k AND b_k) (or XOR), wrapping (PTX ISA: "the popc of the bitwise AND / XOR").
void bit_mma(bool use_xor, MmaExtent e, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D);
// .f64: the k-ordered chain of fma in rounding mode rm, starting from C.
void f64_mma(model::num::Round rm, MmaExtent e, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D);

}  // namespace ptxsim::sem
