#include "model/tcgen05/cp.h"

#include <functional>

#include "model/tcgen05/mma.h"

namespace ptxsim::model::tcgen05 {

const char* cp_shape_name(CpShape s) {
  switch (s) {
    case CpShape::k128x256b: return ".128x256b";
    case CpShape::k128x128b: return ".128x128b";
    case CpShape::k64x128b_02_13: return ".64x128b.warpx2::02_13";
    case CpShape::k64x128b_01_23: return ".64x128b.warpx2::01_23";
    case CpShape::k32x128b_warpx4: return ".32x128b.warpx4";
    case CpShape::k4x256b: return ".4x256b";
  }
  return "?";
}

uint32_t cp_rows(CpShape s) {
  switch (s) {
    case CpShape::k128x256b:
    case CpShape::k128x128b: return 128;
    case CpShape::k64x128b_02_13:
    case CpShape::k64x128b_01_23: return 64;
    case CpShape::k32x128b_warpx4: return 32;
    case CpShape::k4x256b: return 4;
  }
  return 0;
}

uint32_t cp_row_bytes(CpShape s) { return s == CpShape::k128x256b || s == CpShape::k4x256b ? 32 : 16; }
uint32_t cp_columns(CpShape s) { return cp_row_bytes(s) / 4; }

std::vector<uint32_t> cp_lanes(CpShape s, uint32_t r) {
  switch (s) {
    case CpShape::k128x256b:
    case CpShape::k128x128b: return {r};
    case CpShape::k64x128b_02_13: return {r, r + 64};
    case CpShape::k64x128b_01_23: return {64 * (r / 32) + r % 32, 64 * (r / 32) + r % 32 + 32};
    case CpShape::k32x128b_warpx4: return {r, r + 32, r + 64, r + 96};
    case CpShape::k4x256b: return {32 * r};
  }
  return {};
}

std::optional<std::string> check(const CpOp& op, uint32_t smem_size, const std::function<bool(uint32_t, uint32_t)>& allocated) {
  const SmemDescriptor d = SmemDescriptor::decode(op.desc);
  if (auto e = validate(d)) return "source " + *e;
  const tmem::TmemAddr a = tmem::TmemAddr::decode(op.taddr);
  if (op.shape == CpShape::k4x256b) {
    if (a.lane >= tmem::kLanesPerWarp)
      return "taddr " + tmem::to_string(a) + " must be in lanes 0..31: .4x256b writes that lane of each of the 4 subpartitions";
  } else if (a.lane != 0) {
    return "taddr " + tmem::to_string(a) + " must be lane 0 (the copy spans all 128 lanes)";
  }
  if (a.column + cp_columns(op.shape) > tmem::kColumns)
    return "columns " + std::to_string(a.column) + ".." + std::to_string(a.column + cp_columns(op.shape) - 1) +
           " are beyond the 512 columns of Tensor Memory";
  if (!allocated(a.column, cp_columns(op.shape)))
    return "columns " + std::to_string(a.column) + ".." + std::to_string(a.column + cp_columns(op.shape) - 1) +
           " are not allocated (tcgen05.alloc)";
  for (uint32_t r = 0; r < cp_rows(op.shape); ++r)
    for (uint32_t j = 0; j < cp_row_bytes(op.shape); ++j)
      if (element_address(d, Major::K, 1, r, j) >= smem_size)
        return "source row " + std::to_string(r) + " byte " + std::to_string(j) + " at shared address " +
               std::to_string(element_address(d, Major::K, 1, r, j)) + " is beyond the CTA's " + std::to_string(smem_size) +
               " bytes of shared memory";
  return std::nullopt;
}

void execute(const CpOp& op, tmem::Tmem& t, std::span<const uint8_t> smem) {
  const SmemDescriptor d = SmemDescriptor::decode(op.desc);
  const tmem::TmemAddr a = tmem::TmemAddr::decode(op.taddr);
  // Whole 16-byte chunks (the unit the layouts move and the decompression widens).
  for (uint32_t r = 0; r < cp_rows(op.shape); ++r)
    for (uint32_t q = 0; q < cp_row_bytes(op.shape); q += 16) {
      uint8_t raw[16], out[16];
      for (uint32_t i = 0; i < 16; ++i) raw[i] = smem[element_address(d, Major::K, 1, r, q + i)];
      widen_chunk(op.src, raw, out);
      for (uint32_t c = 0; c < 4; ++c) {
        const uint32_t v = uint32_t(out[4 * c]) | uint32_t(out[4 * c + 1]) << 8 | uint32_t(out[4 * c + 2]) << 16 |
                           uint32_t(out[4 * c + 3]) << 24;
        for (uint32_t lane : cp_lanes(op.shape, r)) t.write(a.lane + lane, a.column + q / 4 + c, v);
      }
    }
}

}  // namespace ptxsim::model::tcgen05
