// The tensor-core dot-product arithmetic (namespace ptxsim::model::tc): how one output element
// d = sum_k a_k * b_k + c of mma.sync / wgmma / tcgen05.mma is computed, bit-exact.
//
// The arithmetic is the "truncated fused dot-product-add" (T-FDPA) of MMA-Sim (Xie et al.,
// arXiv 2511.10909), which Khattak & Mikaitis (arXiv 2512.07004) reproduce independently; see
// shared/reference/tensor-core-numerics.md and docs/matrix-units.md. One T-FDPA of n <= L products:
//   1. every operand x is read as m * 2^q exactly, with an alignment exponent
//      e(x) = max(floor(log2|x|), emin of its format); a product's exponent is e(a) + e(b);
//      a zero product, or a zero c, has exponent e_zero;
//   2. E = the largest exponent of all terms (products and c);
//   3. every term is truncated toward zero to a multiple of 2^(E - F) and the terms are summed
//      exactly (an exactly zero sum is +0);
//   4. the sum is converted to the output: RZ to f32 (or to 13 fraction bits, "e8m13"), keeping
//      subnormals, overflow giving +-Inf; or RNE to f16;
//   5. special values: a NaN operand, Inf * 0 or +Inf + -Inf give the canonical NaN (0x7FFFFFFF,
//      0x7FFF); otherwise an infinite product or c gives that infinity.
// K > L products are chained: each group of L is one T-FDPA whose rounded output is the next c.
//
// The parameters (L, F, rounding, e_zero, how K is grouped, conversions) are data: a table of
// DotModel rows keyed by (architecture, unit, A type, B type, accumulator type) in
// tensorcore_models.cpp. An independent exact evaluation of the same definitions on
// Boost.Multiprecision lives in exact_ref.h; tests compare the two.
#pragma once
#include <cstdint>
#include <span>

namespace ptxsim::model::tc {

// Element formats of multiplicands (E3M2, E2M3: value in bits 5:0; E2M1: value in bits 3:0).
enum class ElemFmt : uint8_t { F16, BF16, TF32, F32, E4M3, E5M2, E3M2, E2M3, E2M1 };
// Accumulator / output formats (f16 in the low 16 bits).
enum class AccFmt : uint8_t { F32, F16 };

const char* fmt_name(ElemFmt f);
const char* fmt_name(AccFmt f);
// Minimum normal exponent of a format (the floor of the alignment exponent e(x)).
int fmt_emin(ElemFmt f);

// A decoded operand: (-1)^neg * m * 2^q, with its alignment exponent e (see above).
struct Value {
  enum Cls : uint8_t { Zero, Finite, Inf, NaN };
  Cls cls = Zero;
  bool neg = false;
  uint64_t m = 0;
  int q = 0;
  int e = 0;
};

// Exact decoders. TF32 reads an f32 bit pattern with its low 13 bits cleared (truncation).
Value decode(ElemFmt f, uint32_t bits);
Value decode(AccFmt f, uint32_t bits);
// The same value read by a datapath working in format `f` (an exact widening such as e4m3 ->
// f16): only the alignment exponent changes.
Value widen(const Value& v, ElemFmt f);

enum class OutRound : uint8_t {
  RZ_F32,    // round toward zero to f32, subnormals kept, overflow -> +-Inf
  RZ_E8M13,  // round toward zero to 13 fraction bits in f32's exponent range (Hopper fp8 wgmma)
  RNE_F16,   // round to nearest even to f16
};
AccFmt out_fmt(OutRound r);

struct FdpaParams {
  int L;          // products per fused group
  int F;          // fraction bits kept below the largest exponent
  OutRound out;   // conversion of the fused sum
  int e_zero;     // alignment exponent of a zero product or zero c
};

// Step 4 alone: the exact sum S * 2^lsb converted to the output bits (shared with the tile fast path).
uint32_t fdpa_round(int64_t S, int lsb, OutRound out);

// One T-FDPA of n (<= L) products a[i]*b[i] plus c (already decoded, c in the output format).
// Returns the output bits.
uint32_t fdpa(const FdpaParams& p, const Value* a, const Value* b, int n, const Value& c);

// ---- instruction-level models -------------------------------------------------------------------

enum class Arch : uint8_t { SM90, SM100 };
enum class Unit : uint8_t { MmaSync, Wgmma, Tcgen05 };
// How the K products of one output element are split into T-FDPA groups.
enum class KSplit : uint8_t {
  Consecutive,  // groups of L consecutive k, in increasing k
  Pairs4,       // two groups: {k : k mod 4 in {0,1}}, then {k : k mod 4 in {2,3}}
};
// How strong the evidence for a row is.
enum class Evidence : uint8_t {
  Published,    // bit-exact model validated on hardware in published work (MMA-Sim, Khattak)
  Derived,      // composed from published models and the SASS ptxas emits for the instruction
  Unvalidated,  // an extrapolation; no published validation
};
const char* evidence_name(Evidence e);

struct DotModel {
  const char* id;         // e.g. "sm90.mma.f16.f32"
  Arch arch;
  Unit unit;
  uint32_t a_types;       // bit (1 << ElemFmt) for every A type the row covers
  uint32_t b_types;
  AccFmt acc;
  FdpaParams fdpa;
  ElemFmt a_as, b_as;     // format the datapath reads A and B in (exact widening), or kSame
  KSplit split;
  bool c_last;            // the chain starts at +0 and C is added at the end (RN add in acc format)
  Evidence evidence;
  const char* source;
};
inline constexpr uint32_t fmt_bit(ElemFmt f) { return 1u << unsigned(f); }
// Marks a_as / b_as as "the instruction's own type".
inline constexpr ElemFmt kSame = ElemFmt(0xff);

std::span<const DotModel> all_models();
// The row for an instruction, or null when ptxsim has no model for the combination.
const DotModel* find_model(Arch arch, Unit unit, ElemFmt a, ElemFmt b, AccFmt acc);

// Decodes an A (or B) element of instruction type `f` the way model `m` reads it.
Value decode_a(const DotModel& m, ElemFmt f, uint32_t bits);
Value decode_b(const DotModel& m, ElemFmt f, uint32_t bits);

// d = sum_k a[k] * b[k] + c for one output element: K products (a, b decoded with decode_a/_b),
// c and the result as accumulator bits.
uint32_t dot(const DotModel& m, const Value* a, const Value* b, int K, uint32_t c);

}  // namespace ptxsim::model::tc
