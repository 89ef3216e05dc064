// min / max (PTX ISA 9.7.3.11-12, 9.7.4.7-8) and ordered comparison for f32, f64, f16, bf16 and
// the packed x2 forms.
//
// Semantics (all types):
//  * -0.0 < +0.0.
//  * Default (minNum/maxNum): a NaN operand is ignored; if both are NaN the result is NaN.
//  * .NaN: any NaN operand gives the canonical NaN.
//  * .xorsign.abs: the magnitudes are compared and the result takes sign(a) XOR sign(b); if the
//    result is NaN, .xorsign and .abs are ignored.
//  * 3-input forms (f32, sm_100+) min(min(a, b), c), optionally on |a|, |b|, |c| (.abs).
//  * .ftz (f32, f16): subnormal inputs read as signed zero (and so results are never subnormal).
// NaN results: f32 0x7FFFFFFF, f16/bf16 0x7FFF. f64 (no .NaN form): both NaN -> b unchanged,
// matching the payload-propagation rule of f64_ops.h.
#pragma once
#include <cstdint>

namespace ptxsim::model::num {

struct MinMaxMods {
  bool nan = false;          // .NaN
  bool xorsign_abs = false;  // .xorsign.abs (2-input only)
  bool abs = false;          // .abs (3-input f32 form)
  bool ftz = false;          // .ftz (f32, f16 only; ignored for bf16/f64)
};

uint32_t min_f32(uint32_t a, uint32_t b, MinMaxMods m = {});
uint32_t max_f32(uint32_t a, uint32_t b, MinMaxMods m = {});
uint32_t min3_f32(uint32_t a, uint32_t b, uint32_t c, MinMaxMods m = {});
uint32_t max3_f32(uint32_t a, uint32_t b, uint32_t c, MinMaxMods m = {});
uint64_t min_f64(uint64_t a, uint64_t b);
uint64_t max_f64(uint64_t a, uint64_t b);
uint16_t min_f16(uint16_t a, uint16_t b, MinMaxMods m = {});
uint16_t max_f16(uint16_t a, uint16_t b, MinMaxMods m = {});
uint16_t min_bf16(uint16_t a, uint16_t b, MinMaxMods m = {});
uint16_t max_bf16(uint16_t a, uint16_t b, MinMaxMods m = {});
uint32_t min_f16x2(uint32_t a, uint32_t b, MinMaxMods m = {});
uint32_t max_f16x2(uint32_t a, uint32_t b, MinMaxMods m = {});
uint32_t min_bf16x2(uint32_t a, uint32_t b, MinMaxMods m = {});
uint32_t max_bf16x2(uint32_t a, uint32_t b, MinMaxMods m = {});

// IEEE comparison (for setp/set/slct): +0 == -0, NaN unordered. ftz flushes subnormal inputs
// (setp.ftz.f32, setp.ftz.f16).
enum class FpOrder : uint8_t { Less, Equal, Greater, Unordered };
FpOrder compare_f32(uint32_t a, uint32_t b, bool ftz = false);
FpOrder compare_f64(uint64_t a, uint64_t b);
FpOrder compare_f16(uint16_t a, uint16_t b, bool ftz = false);
FpOrder compare_bf16(uint16_t a, uint16_t b);

}  // namespace ptxsim::model::num
