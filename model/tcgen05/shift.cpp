#include "model/tcgen05/shift.h"

namespace ptxsim::model::tcgen05 {

void shift_rows_down(tmem::Tmem& t, uint32_t lane0, uint32_t lanes, uint32_t column, uint32_t columns) {
  for (uint32_t g = lane0; g < lane0 + lanes; g += tmem::kLanesPerWarp)
    for (uint32_t r = 0; r + 1 < tmem::kLanesPerWarp; ++r)
      for (uint32_t c = column; c < column + columns; ++c) t.write(g + r, c, t.read(g + r + 1, c));
}

std::optional<std::string> check_shift(uint32_t taddr, const std::function<bool(uint32_t, uint32_t)>& allocated) {
  const tmem::TmemAddr a = tmem::TmemAddr::decode(taddr);
  if (a.lane % tmem::kLanesPerWarp != 0 || a.lane >= tmem::kLanes)
    return "taddr " + tmem::to_string(a) + ": its lane must be 0, 32, 64 or 96 (aligned to 32)";
  const std::string cols = "columns " + std::to_string(a.column) + ".." + std::to_string(a.column + kShiftColumns - 1);
  if (a.column + kShiftColumns > tmem::kColumns) return cols + " are beyond the 512 columns of Tensor Memory";
  if (!allocated(a.column, kShiftColumns)) return cols + " are not allocated (tcgen05.alloc)";
  return std::nullopt;
}

void execute_shift(uint32_t taddr, tmem::Tmem& t) {
  const tmem::TmemAddr a = tmem::TmemAddr::decode(taddr);
  shift_rows_down(t, a.lane, tmem::kLanesPerWarp, a.column, kShiftColumns);
}

}  // namespace ptxsim::model::tcgen05
