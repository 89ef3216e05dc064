// The weight-stationary MMA's zero-column-mask descriptor (PTX ISA 9.7.16.4.3; ptx-facts.md §5.6;
// CUTLASS cute/arch/mma_sm100_desc.hpp UMMA::MaskAndShiftB uses the same bit positions), the
// optional last operand of tcgen05.mma.ws / .ws.sp. A 1 bit of the mask it generates forces a whole
// column of B to zero; its column shift s makes the MMA read B's columns s .. s + N - 1 (PTX Table 45
// example 4: "If N = 128 then B Matrix with columns from 2 to 129 will be used for the MMA operation,
// due to the shift of 2"), at most 16 for M = 32 and 32 otherwise. The mask applies to the MMA's N
// columns (the ISA's examples generate it without regard to the shift); CUTLASS's
// make_column_zero_mask shifts by the filter tap (0, 1, 2) and leaves the instruction
// descriptor's max shift (bits 31:30, for B reuse) at 0, so the two are not checked against each
// other.
//
// The mask (non-zero-mask enable, bit 39, = 1; else every column is used) is N bits, cut into
// 128/M sub-masks of N*M/128 columns (M = 128: one, 64: two, 32: four), sub-mask i for columns
// [i*N*M/128, (i+1)*N*M/128), lowest column in its LSB. Each is a periodic pattern of spans: a
// "skip" span of skip_span + 1 columns forced to zero and a "use" span of use_span + 1 columns read
// from B, alternating; sub-mask i starts in the skip span if fs_i = 1 (else the use span) with sc_i
// of that span's columns already behind it. Sources: PTX Table 45 (fields, "LSBs that must be
// skipped", "starting value"), whose prose swaps the two spans' descriptions; CUTLASS
// cute/arch/mma_sm100_desc.hpp make_column_zero_mask, which builds these fields for convolutions
// (skip = the padding columns, use = the image columns, start count = how far into its first span
// a sub-mask begins) and names the spans as above; ptx-facts.md §5.6's example (skip 2, use 3:
// 1110000...) and the ISA's four worked examples (Table 45), which it reproduces. A start count not
// inside its first span (CUTLASS never makes one) is reported as not simulated.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::model::tcgen05 {

struct ZeroColumnMaskDescriptor {
  uint32_t start_count[4] = {};  // 31:0  four 8-bit start counts sc0..sc3 (sc_i in bits 8i+7:8i)
  uint32_t first_span = 0;       // 35:32 first-span flags fs0..fs3
  uint32_t reserved36 = 0;       // 38:36
  uint32_t nonzero_mask = 0;     // 39    0: the mask is all zeros (every B column used)
  uint32_t skip_span = 0;        // 47:40 consecutive zero-forced columns - 1
  uint32_t use_span = 0;         // 55:48 consecutive used columns - 1
  uint32_t column_shift = 0;     // 61:56
  uint32_t reserved62 = 0;       // 63:62

  static ZeroColumnMaskDescriptor decode(uint64_t w);
  uint64_t encode() const;
};
// Reserved bits, the shift bound, then ptxsim's limit (start counts inside their spans); M is the
// MMA's M.
std::optional<std::string> validate(const ZeroColumnMaskDescriptor& d, uint32_t M);
// The generated mask: zero[n] = 1 when column n of B is forced to zero (all 0 without bit 39).
std::vector<uint8_t> zero_columns(const ZeroColumnMaskDescriptor& d, uint32_t M, uint32_t N);
// The column shift of an optional descriptor (0 when the operand is absent: the word is then 0).
inline uint32_t column_shift(uint64_t zero_column_mask) { return uint32_t(zero_column_mask >> 56) & 0x3F; }

}  // namespace ptxsim::model::tcgen05
