// Approximate instructions (PTX ISA 9.7.3.13-22, 9.7.4.9-10): deterministic models.
//
// Hardware results of these instructions (MUFU and friends) are not specified bit-for-bit. This
// model returns, for finite in-range inputs, the value of the exact function evaluated in double
// precision (rsqrt.approx.f64: exactly, in integers) and rounded once to nearest-even into the
// destination format, which is well inside every error bound the ISA states (see
// docs/numerics.md for the table). The
// special values are exactly those tabulated in the ISA. NaN results are canonical
// (f32 0x7FFFFFFF, f16/bf16 0x7FFF; rcp/rsqrt.approx.ftz.f64: 0x7FFFFFFF00000000).
// .ftz flushes subnormal inputs and subnormal results to signed zero.
#pragma once
#include <cstdint>

namespace ptxsim::model::num {

uint32_t ex2_approx_f32(uint32_t a, bool ftz = false);
uint32_t lg2_approx_f32(uint32_t a, bool ftz = false);
uint32_t sin_approx_f32(uint32_t a, bool ftz = false);
uint32_t cos_approx_f32(uint32_t a, bool ftz = false);
uint32_t tanh_approx_f32(uint32_t a);  // subnormals pass through (no .ftz form)
uint32_t rcp_approx_f32(uint32_t a, bool ftz = false);
uint32_t sqrt_approx_f32(uint32_t a, bool ftz = false);
uint32_t rsqrt_approx_f32(uint32_t a, bool ftz = false);
// div.approx: modelled as a * rcp(b) with rcp rounded to f32 and flushed to zero when it would be
// subnormal; this reproduces the ISA's rule for 2^126 < |b| < 2^128 (Inf/b -> NaN, else +-0).
uint32_t div_approx_f32(uint32_t a, uint32_t b, bool ftz = false);
// div.full: modelled as the correctly rounded quotient (ISA: max 2 ulp, full range).
uint32_t div_full_f32(uint32_t a, uint32_t b, bool ftz = false);

uint64_t rsqrt_approx_f64(uint64_t a);
// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: only a[63:32] (1.11.20) is used; the result is
// rounded to 1.11.20 and the low 32 bits of d are zero.
uint64_t rcp_approx_ftz_f64(uint64_t a);
uint64_t rsqrt_approx_ftz_f64(uint64_t a);

uint16_t ex2_approx_f16(uint16_t a);
uint32_t ex2_approx_f16x2(uint32_t a);
uint16_t ex2_approx_ftz_bf16(uint16_t a);
uint32_t ex2_approx_ftz_bf16x2(uint32_t a);
uint16_t tanh_approx_f16(uint16_t a);
uint32_t tanh_approx_f16x2(uint32_t a);
uint16_t tanh_approx_bf16(uint16_t a);
uint32_t tanh_approx_bf16x2(uint32_t a);

}  // namespace ptxsim::model::num
