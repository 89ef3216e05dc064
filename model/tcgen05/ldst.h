// Where tcgen05.ld / tcgen05.st move each register (PTX ISA 9.7.16.8.3-4 and the data-movement
// shapes of 9.7.16.2.3; per-thread mapping restated in shared/reference/ptx-facts.md §5.3).
// A warp moves, per repetition (.num = xN), a block of TMEM lanes x 32-bit columns:
//   32x32b   32 lanes x 1 column     thread t, register i: lane t,                   column i
//   16x64b   16 lanes x 2 columns    lane t/4 + 8(t%2),       column (t/2)%2 + 2i
//   16x128b  16 lanes x 4 columns    register 2i+h: lane t/4 + 8h,     column t%4 + 4i
//   16x256b  16 lanes x 8 columns    register 4i+2h+k: lane t/4 + 8h,  column 2(t%4) + k + 8i
//   16x32bx2 two 16 x 1 halves       lane t%16, column i (+ immHalfSplitoff for t >= 16)
// With .pack::16b / .unpack::16b each register holds the low 16 bits of two adjacent columns
// (bits 15:0 from column 2c, 31:16 from 2c+1 where c is the column above), doubling the span.
#pragma once
#include <cstdint>

namespace ptxsim::model::tcgen05 {

enum class LdStShape : uint8_t { k32x32b, k16x64b, k16x128b, k16x256b, k16x32bx2 };
const char* shape_name(LdStShape s);

// Registers per thread for `num` repetitions (1, 2, 4, ... 128), or 0 when the shape does not
// allow that many (PTX Tables 49/50: at most 128 registers).
uint32_t regs_per_thread(LdStShape s, uint32_t num);
// TMEM lanes one access touches (32 or 16).
uint32_t lanes_touched(LdStShape s);
// Columns (32-bit, before packing) one access spans.
uint32_t columns_spanned(LdStShape s, uint32_t num, uint32_t half_splitoff);

struct CellOffset {
  uint32_t lane = 0;    // added to the lane of taddr
  uint32_t column = 0;  // added to the column of taddr (unpacked)
};
// The cell of register `reg` of thread `t` (unpacked).
CellOffset cell_of(LdStShape s, uint32_t t, uint32_t reg, uint32_t half_splitoff);

}  // namespace ptxsim::model::tcgen05
