// Row shifts in Tensor Memory: tcgen05.shift (PTX ISA 9.7.16.9.3) and the .ashift qualifier of
// tcgen05.mma (PTX 9.7.16.10.9.1), which "shift ... down by one row, except the last row".
//
// Within each 32-lane subpartition the row at lane r takes the value of the row at lane r + 1
// (r = 0..30) and the last row (lane 31 of the subpartition) keeps its value. The direction and
// the per-subpartition scope are not in the PTX text; they are NVIDIA's observation on B200,
// written into CUTLASS's CuTeDSL (examples/python/CuTeDSL/experimental/primitives/tcgen05/
// 1cta_mma_a_from_tmem.py: "shifted[r] = A[r+1] for r % 32 != 31, else A[r]", checked there
// against a torch reference; python/CuTeDSL/cutlass/experimental/primitives/nvvm_wrapper.py
// documents tcgen05.shift with the same words). It is what tcgen05.cp .4x256b then refreshes:
// one row per subpartition (cp.h).
//
// tcgen05.shift moves one subpartition (31x256b: rows 0..30 of the 32 lanes at taddr, 8 columns);
// .ashift moves the 8 columns of A of every subpartition A occupies, after the MMA has read A.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/tmem/tmem.h"

namespace ptxsim::model::tcgen05 {

constexpr uint32_t kShiftColumns = 8;  // 256 bits

// Shifts rows down by one in every 32-lane subpartition of lanes [lane0, lane0 + lanes) (lane0 and
// lanes multiples of 32), columns [column, column + columns).
void shift_rows_down(tmem::Tmem& t, uint32_t lane0, uint32_t lanes, uint32_t column, uint32_t columns);

// tcgen05.shift at `taddr`: the rule broken (lane not a multiple of 32, columns outside Tensor
// Memory or not allocated), or nullopt.
std::optional<std::string> check_shift(uint32_t taddr, const std::function<bool(uint32_t, uint32_t)>& allocated);
void execute_shift(uint32_t taddr, tmem::Tmem& t);

}  // namespace ptxsim::model::tcgen05
