// tcgen05.cp (PTX ISA 9.7.16.9.2): an asynchronous copy of a matrix in shared memory, described by
// a 64-bit shared-memory descriptor (descriptors.h), into Tensor Memory.
//
// The source is R rows of W bits laid out like a K-major operand with 1-byte elements
// (mma.h element_address: row r starts at (r%8)*SW + (r/8)*SBO before the swizzle, 16-byte chunks
// of a non-swizzled row LBO apart); byte j of row r goes to byte j%4 of column taddr.column + j/4.
// Rows go to lanes (ptx-facts.md §5.8):
//   128x256b, 128x128b     row r -> lane r
//   64x128b.warpx2::02_13  row r -> lanes r and r + 64
//   64x128b.warpx2::01_23  row r -> lanes 64*(r/32) + r%32 and that + 32
//   32x128b.warpx4         row r -> lanes r, r + 32, r + 64, r + 96
//   4x256b                 row r -> lane 32 * r (+ taddr's lane, which must be 0..31)
// The 4x256b map is CUTLASS's Copy_Traits<SM100_UTCCP_4dp256bit_1cta> (cute/atom/
// copy_traits_sm100.hpp: Src/DstLayout (4, 256) : (32, 128) in (lane, bit) of the 128 x 256b
// atom, i.e. row r at lane 32r); the PTX gives it only as a figure. CUTLASS calls the shape a
// "refresh" of one row per 32-lane subpartition, the row tcgen05.shift leaves stale (shift.h).
// With .b8x16.b6x16_p32 / .b8x16.b4x16_p64 each 16-byte chunk of a row is widened on the way
// (decompress.h).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/tcgen05/decompress.h"
#include "model/tcgen05/descriptors.h"
#include "model/tmem/tmem.h"

namespace ptxsim::model::tcgen05 {

enum class CpShape : uint8_t { k128x256b, k128x128b, k64x128b_02_13, k64x128b_01_23, k32x128b_warpx4, k4x256b };
const char* cp_shape_name(CpShape s);
uint32_t cp_rows(CpShape s);
uint32_t cp_row_bytes(CpShape s);  // 32 or 16
// The destination lanes (relative to taddr's lane) of source row r.
std::vector<uint32_t> cp_lanes(CpShape s, uint32_t r);

struct CpOp {
  CpShape shape = CpShape::k128x256b;
  uint32_t taddr = 0;
  uint64_t desc = 0;
  CpSrcFmt src = CpSrcFmt::kNone;
};

// The descriptor, the source inside `smem_size` bytes, the destination inside TMEM and allocated.
std::optional<std::string> check(const CpOp& op, uint32_t smem_size, const std::function<bool(uint32_t, uint32_t)>& allocated);
// The TMEM columns the copy writes.
uint32_t cp_columns(CpShape s);
void execute(const CpOp& op, tmem::Tmem& t, std::span<const uint8_t> smem);

}  // namespace ptxsim::model::tcgen05
