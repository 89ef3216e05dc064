// Moving matrix fragments between register columns (one uint64_t per lane) and element arrays four
// lanes at a time, in 16-byte vectors (GCC vector extensions: the baseline x86-64's SSE2 registers).
// mma.sync and wgmma share these: their f32 accumulators keep a row's eight consecutive elements
// in a quad of lanes (4q .. 4q+3) of a register pair, the even columns in the first register and
// the odd ones in the second. (Vectors are filled and stored through memcpy.)
#pragma once
#include <cstdint>
#include <cstring>

namespace ptxsim::sem {

using U64x2 [[gnu::vector_size(16)]] = uint64_t;
using U32x4 [[gnu::vector_size(16)]] = uint32_t;
using U16x8 [[gnu::vector_size(16)]] = uint16_t;

// The low halves of four lanes' registers.
[[gnu::always_inline]] inline U32x4 low_words(const uint64_t* col) {
  U32x4 x, y;
  std::memcpy(&x, col, 16);
  std::memcpy(&y, col + 2, 16);
  return __builtin_shufflevector(x, y, 0, 2, 4, 6);
}
// Four 32-bit values as four lanes' registers (zero-extended).
[[gnu::always_inline]] inline void store_lanes(uint64_t* col, U32x4 v) {
  const U32x4 z = {};
  const U32x4 lo = __builtin_shufflevector(v, z, 0, 4, 1, 5), hi = __builtin_shufflevector(v, z, 2, 6, 3, 7);
  std::memcpy(col, &lo, 16);
  std::memcpy(col + 2, &hi, 16);
}
// Eight consecutive elements run[0..7] from four lanes of a register pair: lane j of `even` holds
// run[2j], of `odd` run[2j + 1].
[[gnu::always_inline]] inline void lanes_to_pairs(const uint64_t* even, const uint64_t* odd, uint32_t* run) {
  const U32x4 a = low_words(even), b = low_words(odd);
  const U32x4 lo = __builtin_shufflevector(a, b, 0, 4, 1, 5), hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  std::memcpy(run, &lo, 16);
  std::memcpy(run + 4, &hi, 16);
}
// The inverse.
[[gnu::always_inline]] inline void pairs_to_lanes(const uint32_t* run, uint64_t* even, uint64_t* odd) {
  U32x4 lo, hi;
  std::memcpy(&lo, run, 16);
  std::memcpy(&hi, run + 4, 16);
  store_lanes(even, __builtin_shufflevector(lo, hi, 0, 2, 4, 6));
  store_lanes(odd, __builtin_shufflevector(lo, hi, 1, 3, 5, 7));
}

// The 4 x 4 transpose of x[0..3] (x[i][j] becomes x[j][i]).
[[gnu::always_inline]] inline void transpose4(U32x4* x) {
  const U32x4 t0 = __builtin_shufflevector(x[0], x[1], 0, 4, 1, 5), t1 = __builtin_shufflevector(x[0], x[1], 2, 6, 3, 7);
  const U32x4 t2 = __builtin_shufflevector(x[2], x[3], 0, 4, 1, 5), t3 = __builtin_shufflevector(x[2], x[3], 2, 6, 3, 7);
  x[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  x[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  x[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  x[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

}  // namespace ptxsim::sem
