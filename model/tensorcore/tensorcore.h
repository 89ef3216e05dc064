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

// ---- the three edge rules ----------------------------------------------------------------------
// Random operand bits almost never reach these cases, so the published models, each validated on
// random bits, disagree on them and no hardware result settles them yet (docs/numerics.md
// "Tensor-core edge rules"; conformance cases in tests/conformance/*/tc_edge_*). Each rule is a
// named parameter of every FdpaParams, chosen per (architecture, unit, kind) by edge_rules() below.

// Rule 1: the alignment exponent of a product with a zero factor.
enum class ZeroProductExp : uint8_t {
  BelowSubnormal,  // the row's e_zero (-133 for the f32-wide datapaths): Khattak & Mikaitis's
                   // min_exp_limit, mmasim 2.1.1's e_zero, FPy's e_zero; ptxsim's default
  MinNormal,       // a zero factor counts as exponent -126 and the product as -126 + e(other factor)
                   // (both zero: -252), so a zero next to a huge partner can raise E (MMA-Sim's
                   // repository code, microsoft/MMA-Sim c785138)
};
// Rule 2: the alignment exponent of a zero addend c.
enum class ZeroAddendExp : uint8_t {
  BelowSubnormal,  // the row's e_zero (ptxsim's default; Khattak; mmasim 2.1.1)
  MinNormal,       // -126, whatever the accumulator format (MMA-Sim c785138)
};
// Rule 3: the sign of a zero that the output conversion makes of a nonzero sum (RZ to f32 below
// 2^-149, RNE to f16 below 2^-25). An exactly zero sum is +0 under both settings.
enum class UnderflowZeroSign : uint8_t {
  Keep,      // the sum's sign: -0 for a negative sum, as IEEE 754 conversion does and Khattak's
             // Generic_BFMA_TC.m (sign applied after the magnitude) gives
  Positive,  // +0: what an H200 gives (traces/h200, tc_edge_*_underflow_sign; ptxsim's setting);
             // MMA-Sim too (c785138's math.trunc / round return Python integers, which have no -0;
             // mmasim 2.1.1 adds +0.0 to every result, "-0.0 to +0.0")
};
inline constexpr int kMinNormalExp = -126;  // MinNormal's exponent of a zero factor or zero c

struct EdgeRules {
  ZeroProductExp zero_product = ZeroProductExp::BelowSubnormal;
  ZeroAddendExp zero_addend = ZeroAddendExp::BelowSubnormal;
  UnderflowZeroSign underflow_sign = UnderflowZeroSign::Positive;
  constexpr bool operator==(const EdgeRules&) const = default;
};
// The published settings: ptxsim's (its rows' default); MMA-Sim's repository code (microsoft/MMA-Sim
// c785138, mmasim/simulator/arithmetic.py: extract_significand_exponent gives every zero -126,
// nv_fused_dot_add truncates through Python integers), the version issue 17 compared; and the PyPI
// package mmasim 2.1.1 (mmasim/arithmetic/fdpa.py t_fdpa / st_fdpa / gst_fdpa: e_zero per
// instruction, result + 0.0), which tests/unit/data/mmasim_vectors.txt records.
inline constexpr EdgeRules kPtxsimEdgeRules{};
inline constexpr EdgeRules kMmaSimRepoEdgeRules{ZeroProductExp::MinNormal, ZeroAddendExp::MinNormal,
                                                UnderflowZeroSign::Positive};
inline constexpr EdgeRules kMmaSimPyPIEdgeRules{ZeroProductExp::BelowSubnormal, ZeroAddendExp::BelowSubnormal,
                                                UnderflowZeroSign::Positive};
const char* rule_name(ZeroProductExp r);
const char* rule_name(ZeroAddendExp r);
const char* rule_name(UnderflowZeroSign r);

struct FdpaParams {
  int L;          // products per fused group
  int F;          // fraction bits kept below the largest exponent
  OutRound out;   // conversion of the fused sum
  int e_zero;     // BelowSubnormal's alignment exponent of a zero product or zero c
  EdgeRules edges = {};  // the three edge rules (the rows take them from edge_rules())
};

// The alignment exponent of a zero product / zero c under p's rules; x, y: the two factors.
int zero_product_exp(const FdpaParams& p, const Value& x, const Value& y);
int zero_addend_exp(const FdpaParams& p);

// Step 4 alone: the exact sum S * 2^lsb converted to the output bits (shared with the tile fast path).
uint32_t fdpa_round(int64_t S, int lsb, OutRound out, UnderflowZeroSign zero_sign = UnderflowZeroSign::Keep);

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

// ---- the edge rules of each (architecture, unit, kind): one table ------------------------------
// kind: "f16" (f16 and bf16 operands), "tf32", "f8f6f4" (every fp8/fp6/fp4 type, the fp8 rows of
// mma.sync and wgmma included), "mxf8f6f4", "mxf4", "mxf4nvf4". A row is settled when a hardware
// capture of its tc_edge_* conformance cases (tests/conformance, traces/) decided all three rules:
// the sm_90a mma.sync and wgmma f16/tf32 rows on an H200. The rules are ptxsim's setting everywhere
// (the H200's answer; the other rows extrapolate it, docs/numerics.md).
struct EdgeRuleRow {
  Arch arch;
  Unit unit;
  const char* kind;
  EdgeRules rules;
  bool settled;       // true once a hardware trace decides all three rules for the row
  const char* cases;  // the conformance cases that decide it
};
inline constexpr EdgeRuleRow kEdgeRuleRows[] = {
    {Arch::SM90, Unit::MmaSync, "f16", kPtxsimEdgeRules, true,  "sm_90a/tc_edge_mma_bf16_*"},
    {Arch::SM90, Unit::MmaSync, "tf32", kPtxsimEdgeRules, true,  "sm_90a/tc_edge_mma_tf32_*"},
    {Arch::SM90, Unit::MmaSync, "f8f6f4", kPtxsimEdgeRules, false, "none (C is added last by FADD there)"},
    {Arch::SM90, Unit::Wgmma, "f16", kPtxsimEdgeRules, true,  "sm_90a/tc_edge_wgmma_bf16_*"},
    {Arch::SM90, Unit::Wgmma, "tf32", kPtxsimEdgeRules, true,  "sm_90a/tc_edge_wgmma_tf32_*"},
    {Arch::SM90, Unit::Wgmma, "f8f6f4", kPtxsimEdgeRules, false, "none yet"},
    {Arch::SM100, Unit::MmaSync, "f16", kPtxsimEdgeRules, false, "sm_100a/tc_edge_mma_bf16_*"},
    {Arch::SM100, Unit::MmaSync, "tf32", kPtxsimEdgeRules, false, "sm_100a/tc_edge_mma_tf32_*"},
    {Arch::SM100, Unit::MmaSync, "f8f6f4", kPtxsimEdgeRules, false, "none (C is added last by FADD there)"},
    {Arch::SM100, Unit::Tcgen05, "f16", kPtxsimEdgeRules, false, "sm_100a/tc_edge_tcgen05_bf16_*"},
    {Arch::SM100, Unit::Tcgen05, "tf32", kPtxsimEdgeRules, false, "sm_100a/tc_edge_tcgen05_tf32_*"},
    {Arch::SM100, Unit::Tcgen05, "f8f6f4", kPtxsimEdgeRules, false, "none yet"},
    {Arch::SM100, Unit::Tcgen05, "mxf8f6f4", kPtxsimEdgeRules, false, "sm_100a/tc_edge_tcgen05_mxf8f6f4_*"},
    {Arch::SM100, Unit::Tcgen05, "mxf4", kPtxsimEdgeRules, false, "none yet"},
    {Arch::SM100, Unit::Tcgen05, "mxf4nvf4", kPtxsimEdgeRules, false, "none yet"},
};
constexpr bool same_kind(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}
// The rules of (arch, unit, kind); ptxsim's setting where the table has no row.
constexpr EdgeRules edge_rules(Arch arch, Unit unit, const char* kind) {
  for (const EdgeRuleRow& r : kEdgeRuleRows)
    if (r.arch == arch && r.unit == unit && same_kind(r.kind, kind)) return r.rules;
  return kPtxsimEdgeRules;
}

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
