// The weight-stationary MMA's zero-column-mask descriptor (PTX ISA 9.7.16.4.3; ptx-facts.md §5.6;
// CUTLASS cute/arch/mma_sm100_desc.hpp UMMA::MaskAndShiftB uses the same bit positions), the
// optional last operand of tcgen05.mma.ws / .ws.sp. A 1 bit of the mask it generates forces a whole
// column of B to zero; its column shift moves B for reuse (bounded by the instruction descriptor's
// max shift, bits 31:30).
//
// ptxsim simulates the descriptor only when it generates no mask and no shift (non-zero-mask enable
// = 0 and column shift = 0: every B column used as read). How the start counts, first-span flags and
// skip / use spans build the sub-masks, and what the shift does to B, are described in prose and
// examples that disagree with each other (ptx-facts.md §5.6), so any other descriptor is reported
// as not simulated, naming the field.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

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
// Reserved bits, then ptxsim's limit (no mask, no shift); M is the MMA's M.
std::optional<std::string> validate(const ZeroColumnMaskDescriptor& d, uint32_t M);

}  // namespace ptxsim::model::tcgen05
