// Block-scaled tensor-core dot products (tcgen05.mma .kind::mxf8f6f4 / mxf4 / mxf4nvf4 with
// .block_scale): d = sum_k (a_k * sA(k)) * (b_k * sB(k)) + c, where sA(k) / sB(k) is the scale
// factor of the block of `vec` consecutive k that k falls in (PTX ISA 9.7.16.10.7).
//
// The arithmetic is MMA-Sim's model (arXiv 2511.10909, code microsoft/MMA-Sim
// simulator/arithmetic.py fused_dot_add / nv_fused_dot_add_with_block_scale), restated in
// shared/reference/tensor-core-numerics.md, in one of two term shapes (a row's TermShape):
//   ScaledProducts  every product a_k * b_k * sA * sB is one term with alignment exponent
//                   e(a) + e(b) + e(sA) + e(sB) (mxf8f6f4, 32 products + c in one T-FDPA);
//   ScaledGroups    every run of `group` consecutive products is summed exactly, multiplied by
//                   sA * sB, and is one term with alignment exponent e(sA) + e(sB) only
//                   (mxf4 / mxf4nvf4: 4 groups of 16 fp4 products + c in one T-FDPA).
// Then as in tensorcore.h: E = the largest term exponent (a zero product, a group whose products
// are all zero or whose scale product is zero, and a zero c count as e_zero), every term truncated
// toward zero to a multiple of 2^(E - F), exact sum, RZ to f32. A NaN scale (UE8M0 0xFF, UE4M3
// 0x7F) or a NaN c gives the canonical NaN; NaN / Inf elements behave as in tc::fdpa.
// UE4M3 scales are read without their sign bit (MMA-Sim: abs()).
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "model/tensorcore/tensorcore.h"

namespace ptxsim::model::tc {

enum class ScaleFmt : uint8_t { UE8M0, UE4M3 };
const char* fmt_name(ScaleFmt f);

// A scale factor as m * 2^q with alignment exponent e (UE8M0: m = 1, q = e = x - 127;
// UE4M3: an unsigned e4m3, emin -6). cls is Zero (UE4M3 0x00 only), Finite or NaN.
Value decode_scale(ScaleFmt f, uint8_t bits);

enum class TermShape : uint8_t { ScaledProducts, ScaledGroups };

struct BlockScaledModel {
  const char* id;       // e.g. "sm100.tcgen05.mxf4nvf4"
  const char* kind;     // the instruction kind: "mxf8f6f4", "mxf4", "mxf4nvf4"
  Arch arch;
  Unit unit;
  uint32_t a_types;     // fmt_bit(...) of the element types the row covers
  uint32_t b_types;
  uint32_t scale_types; // bit (1 << ScaleFmt)
  TermShape shape;
  int group;            // ScaledGroups: products summed exactly per term
  FdpaParams fdpa;      // L = K of one instruction (all of it is one T-FDPA), F, output, e_zero
  Evidence evidence;
  const char* source;
};
inline constexpr uint32_t scale_bit(ScaleFmt f) { return 1u << unsigned(f); }

std::span<const BlockScaledModel> all_block_scaled_models();
const BlockScaledModel* find_block_scaled_model(Arch arch, Unit unit, std::string_view kind, ElemFmt a, ElemFmt b,
                                                ScaleFmt s);

// One output element: K elements of A and B (raw bits, value in the low bits), K / vec scale
// factors for each, c and the result as f32 bits.
uint32_t block_scaled_dot(const BlockScaledModel& m, ElemFmt fa, const uint32_t* a, ElemFmt fb, const uint32_t* b,
                          int K, ScaleFmt sf, const uint8_t* sa, const uint8_t* sb, int vec, uint32_t c);

// A whole tile: a M x K, bt N x K (B transposed), sfa M x (K / vec), sfb N x (K / vec), c and d
// M x N f32 bits (d may alias c).
void mma_tile_block_scaled(const BlockScaledModel& m, ElemFmt fa, ElemFmt fb, ScaleFmt sf, int vec, int M, int N,
                           int K, const uint32_t* a, const uint32_t* bt, const uint8_t* sfa, const uint8_t* sfb,
                           const uint32_t* c, uint32_t* d);

}  // namespace ptxsim::model::tc
