// tcgen05.cp's optional decompression (PTX ISA 9.7.16.9.1), and the 8-bit container ("holder") it
// produces, which is the one tcgen05.mma reads 4- and 6-bit A elements of kind::f8f6f4 /
// mxf8f6f4 from in Tensor Memory (PTX 9.7.16.10.4.3).
//
// The source is the padded shared-memory format of kind::f8f6f4 / mxf8f6f4 operands (PTX
// 9.7.16.10.4.4, the driver's CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B / 16U4_ALIGN16B): a 16-byte
// chunk holds 16 six-bit elements in its first 12 bytes (.b6x16_p32) or 16 four-bit elements in
// its first 8 bytes (.b4x16_p64), element i in bits [w*i, w*i + w) read little-endian, then
// padding. The copy widens each chunk in place of 16 bytes: element i becomes byte i, the value in
// the middle of the byte and the other bits zero:
//   .b6x16_p32   0vvvvvv0   bits 6:1
//   .b4x16_p64   00vvvv00   bits 5:2
// Source footprint and destination columns are those of the plain copy of the same shape.
//
// Evidence: NVIDIA's CuTeDSL example experimental/primitives/tcgen05/cp_narrow_a_to_tmem_mma.py,
// which copies narrow A with these two forms and feeds it to tcgen05.mma kind::mxf8f6f4 from
// Tensor Memory, states the "middle-bit holder layout" as the behaviour under test ("FP4 UTCCP
// holder byte: 00xxxx00 (payload bits [5:2]); FP6 UTCCP holder byte: 0xxxxxx0 (payload bits
// [6:1])"). Its data (all ones) cannot tell placements apart, so this is medium evidence. The
// 4-bit placement agrees with the 8-bit register container of mma.sync .kind::f8f6f4 (E2M1 in
// bits 5:2; CUTLASS fp4_shift_A); the 6-bit one differs from mma.sync's register container (bits
// 5:0, PTX 9.7.14.5.14, and what ldmatrix .b6x16_p32 produces): Tensor Memory and registers are
// different containers, and ptxsim follows the tcgen05 source for tcgen05.
#pragma once
#include <cstdint>

namespace ptxsim::model::tcgen05 {

enum class CpSrcFmt : uint8_t { kNone, kB6x16P32, kB4x16P64 };
const char* src_fmt_name(CpSrcFmt f);  // "", ".b8x16.b6x16_p32" or ".b8x16.b4x16_p64"

// Where a w-bit element (w = 4 or 6) sits in its Tensor Memory holder byte.
constexpr uint32_t holder_shift(uint32_t w) { return w == 6 ? 1 : w == 4 ? 2 : 0; }
constexpr uint8_t to_holder(uint32_t value, uint32_t w) { return uint8_t((value & ((1u << w) - 1)) << holder_shift(w)); }
constexpr uint32_t from_holder(uint8_t holder, uint32_t w) { return (uint32_t(holder) >> holder_shift(w)) & ((1u << w) - 1); }

// Widens one 16-byte source chunk to 16 bytes of holders (src and dst may not overlap).
void widen_chunk(CpSrcFmt f, const uint8_t* src, uint8_t* dst);

}  // namespace ptxsim::model::tcgen05
