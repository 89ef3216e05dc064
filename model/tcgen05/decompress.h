// tcgen05.cp's optional decompression (PTX ISA 9.7.16.9.1), and the 8-bit container it produces,
// which is the one tcgen05.mma reads 6-bit A elements from in Tensor Memory (PTX 9.7.16.10.4.3).
//
// The source is the padded shared-memory format of kind::f8f6f4 / mxf8f6f4 operands (PTX
// 9.7.16.10.4.4, the driver's CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B): a 16-byte chunk holds 16
// six-bit elements in its first 12 bytes (element i in bits [6i, 6i + 6) read little-endian) and
// 4 bytes of padding. The copy widens each chunk in place of 16 bytes: element i becomes byte i,
// the value in bits 5:0 and bits 7:6 zero. Source footprint and destination columns are those of
// the plain copy of the same shape.
//
// Evidence for the container (the PTX shows it only in figures 196-198 / 200-201): mma's text
// defines the 8-bit container of .kind::f8f6f4 for E3M2 / E2M3 as "the lower 6 bits ... with
// padding in the upper 2 bits" (PTX 9.7.14.5.14), and CUTLASS (cute/atom/mma_traits_sm120.hpp,
// fp4_shift_A) notes that ldmatrix's .b8x16.b6x16_p32 widening needs no adjustment to feed that
// container. The 4-bit form (.b4x16_p64) is not simulated: for E2M1 the same two sources disagree
// (mma's container puts the value in bits 5:2; CUTLASS says the ldmatrix widening of the same name
// puts it in bits 3:0), so where tcgen05 puts it is not pinned.
#pragma once
#include <cstdint>

namespace ptxsim::model::tcgen05 {

enum class CpSrcFmt : uint8_t { kNone, kB6x16P32 };
const char* src_fmt_name(CpSrcFmt f);  // "" or ".b8x16.b6x16_p32"

// Bits 5:0 of a container hold a 6-bit element (E3M2 / E2M3); bits 7:6 are zero.
constexpr uint32_t kSixBitContainerMask = 0x3F;

// Widens one 16-byte source chunk to 16 bytes of containers (src and dst may not overlap).
void widen_chunk(CpSrcFmt f, const uint8_t* src, uint8_t* dst);

}  // namespace ptxsim::model::tcgen05
