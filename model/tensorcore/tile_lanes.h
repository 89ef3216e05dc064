// The lane loops of tc::mma_tile: what they share (operand layouts, decoded operands, the rules for
// the narrow lanes). The loops themselves are in tile_lane_kit.inc. Internal to tile.cpp, which
// compiles the loops once per instruction set (see there); nothing else includes this header.
//
// Fast path (rows with consecutive K groups and C chained through every group, i.e. every wgmma and
// tcgen05 row and the non-fp8 mma.sync rows). Every operand is decoded once into two arrays: its
// exact value as a double and its alignment exponent e (tensorcore.h). Each output element then runs
// the T-FDPA of tensorcore.h group by group:
//   E   = max(e of c (e_zero for a zero c), e_a + e_b over the group, e_zero if a product is zero)
//   S   = trunc(c * 2^-(E-F)) + sum over the group of trunc(a * b * 2^-(E-F))
//   out = S * 2^(E-F) converted to the output (step 4), which is the next group's c.
// Why doubles are exact here: every multiplicand format has at most 11 significand bits (tf32), so
// a product has at most 22 and is exact in a double; scaling by the power of two 2^-(E-F) is exact
// (no product of these formats comes near the double's subnormal range); each scaled term is below
// 2^(F+2) <= 2^27 for F <= 25 (a product of two significands below 2 each, aligned below 2^E), so
// truncating it through an int32 conversion is exact, 16 of them sum below 2^31 in an int32, and
// S (below 2^33) is exact in a double. Step 4 for an RZ output whose result is a normal f32 is the
// double S with its significand cut to the output's precision (clearing low bits truncates toward
// zero), times 2^(E-F); f16 outputs round in round_f16; other results (zero, subnormal, overflow)
// use fdpa_round.
// Tiles whose products are all exact in a float take narrower lanes (narrow_tile below): the same
// steps on floats and int32 sums, two blocks of W outputs per loop body (their exponent maximum in
// int16 lanes), for f32 RZ and f16 RNE outputs. In the builds with F16C (AVX2, AVX-512) the f16
// outputs' step 4 rounds the sum to odd at 24 bits and converts once to f16 (f16_step4_f16c), and
// f16 c values and operands convert in through F16C too.
// A zero operand has value 0 and e = kZeroExp far below every real exponent, so it adds nothing to
// S or to the maximum; the group's smallest e_a + e_b tells whether a zero product brings e_zero in.
//
// Layout of the work: W outputs of one row of D (W columns of B; W is 8, or 16 in the AVX-512
// build) advance together, one lane each, so every step above is the same operation on W lanes
// with no branch, and the compiler turns the lane loops into vector instructions (B is stored
// k-major for that, in panels of W rows).
// Outputs whose A row or B column holds an Inf or NaN, and any chain whose c becomes Inf or NaN,
// go through tc::dot (exactly the per-element definition), as do the rows the fast path does not
// cover (KSplit::Pairs4, c_last). The property test (tests/unit/tile_prop_test.cpp) compares this
// path with tc::dot on random bit patterns for every row and type pair.
#pragma once
#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/tensorcore/tensorcore.h"

namespace ptxsim::model::tc::lanes {

constexpr int16_t kZeroExp = -15000;  // e of a zero operand: far below every real sum of exponents
constexpr int16_t kHasZero = -7000;   // a sum of exponents below this involves a zero operand

// Bit layout of the formats the inline decoder handles.
struct Layout {
  int ebits, mbits, bias;
  enum Spec : uint8_t { IEEE, NanOnly, None } spec;  // all-ones exponent: Inf/NaN; S.1111.111 NaN; none
  int shift = 0;                                     // tf32: bits 31:13 of an f32
};
inline bool inline_layout(ElemFmt f, Layout& l) {
  switch (f) {
    case ElemFmt::F16: l = {5, 10, 15, Layout::IEEE}; return true;
    case ElemFmt::BF16: l = {8, 7, 127, Layout::IEEE}; return true;
    case ElemFmt::TF32: l = {8, 10, 127, Layout::IEEE, 13}; return true;
    case ElemFmt::E4M3: l = {4, 3, 7, Layout::NanOnly}; return true;
    case ElemFmt::E5M2: l = {5, 2, 15, Layout::IEEE}; return true;
    case ElemFmt::E3M2: l = {3, 2, 3, Layout::None}; return true;
    case ElemFmt::E2M3: l = {2, 3, 1, Layout::None}; return true;
    case ElemFmt::E2M1: l = {2, 1, 1, Layout::None}; return true;
    default: return false;
  }
}

// 2^x as a double, for x in the normal range.
inline double pow2(int64_t x) { return std::bit_cast<double>(uint64_t(x + 1023) << 52); }

// Decoded operands of one matrix (rows x K), structure of arrays. Element (r, k) is at r * K + k,
// or, k-major, at panel<width>(r - r % width, k) + r % width (rows padded to `stride`, a multiple
// of width, with zeros). fill<W> in tile_lane_kit.inc makes one.
struct Decoded {
  std::vector<float> v;              // exact value (0 for zeros and for Inf/NaN; every format fits a float)
  std::vector<int32_t> e;            // alignment exponent, kZeroExp for zeros and Inf/NaN
  // k-major: e again as int16 (every e and every sum of two fits), in panels of 2 * width rows
  // (element (r, k) at (r / 2w) * 2w * K + k * 2w + r % 2w), for the rows of whole double panels:
  // the narrow lanes take the exponent maximum of two blocks in one vector of twice the lanes.
  std::vector<int16_t> e16;
  std::vector<int32_t> special_row;  // per row: -1 when an Inf or NaN is in it (and for padding rows)
  int emin = 0, emax = 0;            // range of e over the nonzero finite elements (emin > emax: none)
  int mbits = 0;                     // the format's fraction bits: a value is a multiple of 2^(e - mbits)
  bool has_zero = false;             // a zero element (padding rows aside)
  int width = 0;                     // k-major: the panel width W
};

// An accumulator value as a group's c: exact value (signed zero kept), alignment exponent (e_zero
// for a zero), and whether it is Inf or NaN.
struct AccIn {
  double v;
  int32_t e;
  bool special;
};
inline AccIn acc_in(AccFmt f, uint32_t bits, int e_zero) {
  if (f == AccFmt::F32) {
    const uint32_t E = (bits >> 23) & 0xFF;
    if (E == 0xFF) return {0, e_zero, true};
    const int32_t e = (bits & 0x7FFFFFFF) == 0 ? e_zero : E ? int32_t(E) - 127 : -126;
    return {double(std::bit_cast<float>(bits)), e, false};
  }
  const uint32_t E = (bits >> 10) & 0x1F, M = bits & 0x3FF;
  if (E == 0x1F) return {0, e_zero, true};
  const double mag = E ? double(M | 0x400) * pow2(int(E) - 25) : double(M) * pow2(-24);
  return {(bits & 0x8000) ? -mag : mag, E == 0 && M == 0 ? e_zero : E ? int32_t(E) - 15 : -14, false};
}

// The per-element definition, for outputs the fast path does not take (tile.cpp).
uint32_t fallback_dot(const DotModel& model, ElemFmt fa, ElemFmt fb, const uint32_t* a, const uint32_t* bt, int K,
                      uint32_t c);

// Whether the rows of `model` can take the narrow lanes: an f32 accumulator with an RZ output (f32 or
// e8m13) or an f16 accumulator with its RNE output, and groups whose L truncated terms, each below
// 2^(F+2), sum in an int32.
inline bool narrow_model(const DotModel& model) {
  const FdpaParams& p = model.fdpa;
  const bool f32_rz = model.acc == AccFmt::F32 && p.out != OutRound::RNE_F16;
  const bool f16_rne = model.acc == AccFmt::F16 && p.out == OutRound::RNE_F16;
  return (f32_rz || f16_rne) && p.F <= 25 && p.L > 0 && (int64_t{p.L} << (p.F + 2)) <= (int64_t{1} << 31);
}

// Whether the tile can take the narrow lanes: narrow_model, and operands whose every product a * b is
// exact in a float (below 2^128, a multiple of 2^-149).
inline bool narrow_tile(const DotModel& model, const Decoded& A, const Decoded& B) {
  if (!narrow_model(model)) return false;
  if (A.emin > A.emax || B.emin > B.emax) return true;  // no nonzero product at all
  return A.emax + B.emax <= 125 && A.emin + B.emin - A.mbits - B.mbits >= -149;
}

// Whether a group's zero products can change its alignment exponent on the narrow lanes. E is raised
// to e_zero only where it lies below e_zero, and E is at least c's exponent, which on the narrow
// lanes is e_zero for a zero c and otherwise at least -126 (f32 and e8m13 results: subnormals align
// at -126) or -14 (f16 results). So where e_zero is at or below that floor (every model of the
// table: -133, or -22 with an f16 accumulator), no group is ever raised and the lanes skip the
// smallest-product test (a vector minimum per product).
inline bool zeros_can_raise(const DotModel& model, const Decoded& A, const Decoded& B) {
  if (!A.has_zero && !B.has_zero) return false;
  return model.fdpa.e_zero > (model.acc == AccFmt::F16 ? -14 : -126);
}

// How many blocks of eight outputs this thread finished in the narrow lanes (narrow_blocks_done).
inline thread_local uint64_t t_narrow_blocks = 0;

}  // namespace ptxsim::model::tc::lanes
