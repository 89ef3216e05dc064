// Whole-tile tensor-core products: D = A * B + C for an M x N x K tile in one call.
//
// This is the matrix hot path shared by wgmma and tcgen05.mma (and usable by mma.sync): callers
// gather the element bits of one instruction's operands into plain arrays and get the output bits
// back, so the datapath can decode each operand once and keep its inner loop free of the
// instruction-level plumbing. Results are bit-identical to calling tc::dot per output element
// (the tests compare the two); only the speed differs.
#pragma once
#include <cstddef>
#include <cstdint>

#include "model/tensorcore/tensorcore.h"

namespace ptxsim::model::tc {

// Float kinds. a: M x K element bits, row-major (a[m*K + k]); bt: N x K, i.e. B transposed
// (bt[n*K + k] = B[k][n]); c and d: M x N accumulator bits, row-major (f16 in the low 16 bits).
// d may alias c. fa / fb are the instruction's A and B element types.
void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, uint32_t* d);
// The same with row m of C at c + m * ldc and of D at d + m * ldd (ldc, ldd >= N; d may be c with
// ldd == ldc): accumulators read and written where they live (tcgen05: rows of Tensor Memory).
void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, size_t ldc, uint32_t* d, size_t ldd);
// The same with C and D transposed: ct and dt are N x M (C's element (m, n) at ct[n * M + m]; dt may
// alias ct). Tiles narrower than 16 columns and a multiple of 16 rows tall (mma.sync's m16n8) run
// transposed inside (tile.cpp), so a caller that can hold C and D this way saves two transposes.
// Whether an M x N tile runs transposed inside (then mma_tile_cd_transposed moves no C or D).
inline bool tile_runs_transposed(int M, int N) { return N % 16 != 0 && M % 16 == 0; }
void mma_tile_cd_transposed(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
                            const uint32_t* bt, const uint32_t* ct, uint32_t* dt);

// mma_tile's lane loops exist as a baseline-ISA build and, on x86-64 with GCC, an AVX2
// (x86-64-v3) and an AVX-512 (x86-64-v4) build; the best one the processor has runs. Tests cap the
// build (force_lanes) to check every one gives the same bits; lanes_isa says which runs now.
enum class LaneIsa { Baseline, Avx2, Avx512 };
void force_lanes(LaneIsa max);  // LaneIsa::Avx512: no cap
LaneIsa lanes_isa();
const char* lane_isa_name(LaneIsa isa);
// How many blocks of eight outputs this thread's mma_tile calls finished in single precision (the
// narrow path in tile.cpp); tests use it to show their inputs reach that path.
uint64_t narrow_blocks_done();

// Integer kinds (s8/u8 x s8/u8 -> s32): exact products summed into a 64-bit accumulator with C,
// then wrapped to 32 bits, or clamped to the s32 range when `saturate`.
void mma_tile_int(bool a_signed, bool b_signed, bool saturate, int M, int N, int K, const uint8_t* a,
                  const uint8_t* bt, const int32_t* c, int32_t* d);

}  // namespace ptxsim::model::tc
