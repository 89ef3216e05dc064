// Correctly rounded IEEE arithmetic on any FloatFormat by exact integer arithmetic.
//
// These are the reference engines behind the directed-rounding paths of f32/f64 and behind all
// f16/bf16 arithmetic: operands are decoded exactly, the exact result (or exact prefix plus a
// sticky bit) is formed in 128-bit integers and rounded once by round_pack(). They never touch
// the host floating-point environment.
//
// NaN policy is the caller's: when an operand is NaN or the operation is invalid (Inf-Inf,
// 0*Inf, 0/0, Inf/Inf, sqrt of a negative), the result has is_nan set and bits is unspecified.
// Signed-zero rules follow IEEE 754 (an exact zero sum is +0, or -0 under .rm, unless both
// addends are -0).
#pragma once
#include <cstdint>

#include "model/numerics/rounding.h"

namespace ptxsim::model::num {

struct SfResult {
  uint64_t bits;
  bool is_nan;
};

SfResult sf_add(const FloatFormat& f, uint64_t a, uint64_t b, Round rm);
SfResult sf_mul(const FloatFormat& f, uint64_t a, uint64_t b, Round rm);
SfResult sf_fma(const FloatFormat& f, uint64_t a, uint64_t b, uint64_t c, Round rm);
SfResult sf_div(const FloatFormat& f, uint64_t a, uint64_t b, Round rm);
SfResult sf_sqrt(const FloatFormat& f, uint64_t a, Round rm);

// Re-rounds a value of format `src` into format `dst` (one rounding). NaN input -> is_nan.
SfResult sf_convert(const FloatFormat& dst, const FloatFormat& src, uint64_t a, Round rm,
                    Overflow ovf = Overflow::IEEE);

// Building blocks, exposed for the tests and for the conversion code.
// Exact sum of two exact terms whose mantissas are below 2^107. Returns mant == 0 for an exact
// zero (sign left to the caller).
Exact exact_sum(const Exact& a, const Exact& b);
// floor(sqrt(n)) for any 128-bit n.
uint64_t isqrt128(u128 n);

}  // namespace ptxsim::model::num
