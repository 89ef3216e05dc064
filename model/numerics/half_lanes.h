// f16 add, sub and mul rounding to nearest even (no .ftz, no .sat) on 32 lanes at once, for the
// plain forms PTX programs use most (CUTLASS's epilogues scale f16 accumulators this way). Each
// operand and result is an f16 in the low 16 bits of a 64-bit slot (a register column; results
// zero-extended, operands' upper bits ignored); NaN results are the canonical 0x7FFF. The results
// equal add_f16 / sub_f16 / mul_f16 (half_ops.h) bit for bit: both round the exact f32 result of
// the f16 operands once more to f16 (half_ops.cpp: why that is the correctly rounded result).
#pragma once
#include <cstdint>
#include <vector>

namespace ptxsim::model::num {

enum class HalfOp : uint8_t { Add, Sub, Mul };
// d[l] = a[l] op b[l] for l < 32 (d may be a or b). nullptr where the host lacks the vector
// conversions (F16C's vcvtph2ps / vcvtps2ph, with AVX-512's vpmovqw or else AVX2).
using HalfLanesFn = void (*)(const uint64_t* a, const uint64_t* b, uint64_t* d);
HalfLanesFn half_lanes(HalfOp op);
// Every version the host can run, fastest first (for tests: each must give the same bits).
std::vector<HalfLanesFn> half_lanes_variants(HalfOp op);

}  // namespace ptxsim::model::num
