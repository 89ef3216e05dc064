// The table of tensor-core arithmetic models: one row per (architecture, unit, A/B types,
// accumulator). docs/matrix-units.md explains every row and its evidence.
//
// Sources:
//  [MMA-Sim]  Xie et al., arXiv 2511.10909, code microsoft/MMA-Sim: bit-exact T-FDPA models for
//             mma on Ampere..Blackwell (Hopper and Blackwell: F = 25, no K split for mma),
//             wgmma (F = 25; fp8: F = 13 with RZ to e8m13) and tcgen05.mma (F = 25).
//  [Khattak]  Khattak & Mikaitis, arXiv 2512.07004 (models/H100TC.m, B200TC.m): independent
//             agreement; H100: groups of 16 at 25 bits, fp8 32 terms at 13 bits, min exponent -133;
//             B200: fp8 32 terms at 25 bits.
//  [FPy]      bksaiki/fpy examples/mmasim/models/nv.py: tabulates the paper's parameters and the
//             e_zero values (-108 - F for f32-wide datapaths, 3 - F for mma's f16 accumulator).
//  [SASS]     ptxas 13.0 output for sm_90a and sm_100a (docs/matrix-units.md): mma.sync with
//             .e4m3/.e5m2 is not a native instruction there; ptxas widens each fp8 pair to f16x2
//             (F2FP), runs two f16 HMMAs (the first on k mod 4 in {0,1} with C = 0, the second on
//             k mod 4 in {2,3} accumulating the first) and adds C last with FADD / HADD2.
#include <array>

#include "model/tensorcore/tensorcore.h"

namespace ptxsim::model::tc {

namespace {

constexpr uint32_t kF16 = fmt_bit(ElemFmt::F16);
constexpr uint32_t kBF16 = fmt_bit(ElemFmt::BF16);
constexpr uint32_t kTF32 = fmt_bit(ElemFmt::TF32);
constexpr uint32_t kE4M3 = fmt_bit(ElemFmt::E4M3);
constexpr uint32_t kE5M2 = fmt_bit(ElemFmt::E5M2);
constexpr uint32_t kFP8 = kE4M3 | kE5M2;
constexpr uint32_t kFP6FP4 = fmt_bit(ElemFmt::E3M2) | fmt_bit(ElemFmt::E2M3) | fmt_bit(ElemFmt::E2M1);
constexpr uint32_t kF8F6F4 = kFP8 | kFP6FP4;

constexpr FdpaParams kRZ(int L, int F) { return {L, F, OutRound::RZ_F32, -108 - F}; }

// The kind of kEdgeRuleRows (tensorcore.h) that a row's A types belong to.
constexpr const char* edge_kind(uint32_t a) {
  return (a & (kF16 | kBF16)) ? "f16" : (a & kTF32) ? "tf32" : "f8f6f4";
}

// Every row takes its edge rules from the one table kEdgeRuleRows.
constexpr DotModel row(const char* id, Arch arch, Unit unit, uint32_t a, uint32_t b, AccFmt acc, FdpaParams p,
                       Evidence ev, const char* src, ElemFmt as = kSame, KSplit split = KSplit::Consecutive,
                       bool c_last = false) {
  p.edges = edge_rules(arch, unit, edge_kind(a));
  return DotModel{id, arch, unit, a, b, acc, p, as, as, split, c_last, ev, src};
}

constexpr const char* kMmaSim = "MMA-Sim (arXiv 2511.10909) T-FDPA; e_zero per FPy nv.py";
constexpr const char* kMmaSimKhattak = "MMA-Sim T-FDPA, agreed by Khattak & Mikaitis (arXiv 2512.07004)";
constexpr const char* kFp8Sass =
    "ptxas 13.0 SASS (F2FP to f16, 2x HMMA over k mod 4 halves, C added last) + MMA-Sim f16 HMMA model";

// The rows, most specific first (find_model returns the first match).
constexpr std::array kModels = {
    // ---- mma.sync, sm_90 (Hopper) -------------------------------------------------------------
    row("sm90.mma.f16.f32", Arch::SM90, Unit::MmaSync, kF16, kF16, AccFmt::F32, kRZ(16, 25), Evidence::Published,
        kMmaSim),
    row("sm90.mma.f16.f16", Arch::SM90, Unit::MmaSync, kF16, kF16, AccFmt::F16, {16, 25, OutRound::RNE_F16, -22},
        Evidence::Published, kMmaSim),
    row("sm90.mma.bf16.f32", Arch::SM90, Unit::MmaSync, kBF16, kBF16, AccFmt::F32, kRZ(16, 25), Evidence::Published,
        kMmaSim),
    row("sm90.mma.tf32.f32", Arch::SM90, Unit::MmaSync, kTF32, kTF32, AccFmt::F32, kRZ(8, 25), Evidence::Published,
        kMmaSim),
    row("sm90.mma.fp8.f32", Arch::SM90, Unit::MmaSync, kFP8, kFP8, AccFmt::F32, kRZ(16, 25), Evidence::Derived,
        kFp8Sass, ElemFmt::F16, KSplit::Pairs4, true),
    row("sm90.mma.fp8.f16", Arch::SM90, Unit::MmaSync, kFP8, kFP8, AccFmt::F16, {16, 25, OutRound::RNE_F16, -22},
        Evidence::Derived, kFp8Sass, ElemFmt::F16, KSplit::Pairs4, true),
    // ---- mma.sync, sm_100 (Blackwell): MMA-Sim uses the same F = 25 HMMA model ------------------
    row("sm100.mma.f16.f32", Arch::SM100, Unit::MmaSync, kF16, kF16, AccFmt::F32, kRZ(16, 25), Evidence::Published,
        kMmaSim),
    row("sm100.mma.f16.f16", Arch::SM100, Unit::MmaSync, kF16, kF16, AccFmt::F16, {16, 25, OutRound::RNE_F16, -22},
        Evidence::Published, kMmaSim),
    row("sm100.mma.bf16.f32", Arch::SM100, Unit::MmaSync, kBF16, kBF16, AccFmt::F32, kRZ(16, 25),
        Evidence::Published, kMmaSim),
    row("sm100.mma.tf32.f32", Arch::SM100, Unit::MmaSync, kTF32, kTF32, AccFmt::F32, kRZ(8, 25),
        Evidence::Published, kMmaSim),
    row("sm100.mma.fp8.f32", Arch::SM100, Unit::MmaSync, kFP8, kFP8, AccFmt::F32, kRZ(16, 25), Evidence::Derived,
        kFp8Sass, ElemFmt::F16, KSplit::Pairs4, true),
    row("sm100.mma.fp8.f16", Arch::SM100, Unit::MmaSync, kFP8, kFP8, AccFmt::F16, {16, 25, OutRound::RNE_F16, -22},
        Evidence::Derived, kFp8Sass, ElemFmt::F16, KSplit::Pairs4, true),
    // ---- wgmma (sm_90a) -------------------------------------------------------------------------
    row("sm90.wgmma.f16.f32", Arch::SM90, Unit::Wgmma, kF16 | kBF16, kF16 | kBF16, AccFmt::F32, kRZ(16, 25),
        Evidence::Published, kMmaSimKhattak),
    row("sm90.wgmma.f16.f16", Arch::SM90, Unit::Wgmma, kF16, kF16, AccFmt::F16, {16, 25, OutRound::RNE_F16, -133},
        Evidence::Published, kMmaSim),
    row("sm90.wgmma.tf32.f32", Arch::SM90, Unit::Wgmma, kTF32, kTF32, AccFmt::F32, kRZ(8, 25), Evidence::Published,
        kMmaSimKhattak),
    row("sm90.wgmma.fp8.f32", Arch::SM90, Unit::Wgmma, kFP8, kFP8, AccFmt::F32, {32, 13, OutRound::RZ_E8M13, -133},
        Evidence::Published, "MMA-Sim (e8m13 output); Khattak validated with C = 0 and finite inputs only"),
    row("sm90.wgmma.fp8.f16", Arch::SM90, Unit::Wgmma, kFP8, kFP8, AccFmt::F16, {32, 13, OutRound::RNE_F16, -133},
        Evidence::Published, kMmaSim),
    // ---- tcgen05.mma (sm_100a) -------------------------------------------------------------------
    row("sm100.tcgen05.f16.f32", Arch::SM100, Unit::Tcgen05, kF16 | kBF16, kF16 | kBF16, AccFmt::F32, kRZ(16, 25),
        Evidence::Published, kMmaSimKhattak),
    row("sm100.tcgen05.f16.f16", Arch::SM100, Unit::Tcgen05, kF16, kF16, AccFmt::F16,
        {16, 25, OutRound::RNE_F16, -133}, Evidence::Published, kMmaSim),
    row("sm100.tcgen05.tf32.f32", Arch::SM100, Unit::Tcgen05, kTF32, kTF32, AccFmt::F32, kRZ(8, 25),
        Evidence::Published, kMmaSimKhattak),
    // Same-type fp8 only: MMA-Sim's kernels test e4m3 x e4m3 and e5m2 x e5m2.
    row("sm100.tcgen05.e4m3.f32", Arch::SM100, Unit::Tcgen05, kE4M3, kE4M3, AccFmt::F32, kRZ(32, 25),
        Evidence::Published, "MMA-Sim (same-type fp8 kernels); Khattak B200TC.m"),
    row("sm100.tcgen05.e5m2.f32", Arch::SM100, Unit::Tcgen05, kE5M2, kE5M2, AccFmt::F32, kRZ(32, 25),
        Evidence::Published, "MMA-Sim (same-type fp8 kernels); Khattak B200TC.m"),
    row("sm100.tcgen05.e4m3.f16", Arch::SM100, Unit::Tcgen05, kE4M3, kE4M3, AccFmt::F16,
        {32, 25, OutRound::RNE_F16, -133}, Evidence::Published, kMmaSim),
    row("sm100.tcgen05.e5m2.f16", Arch::SM100, Unit::Tcgen05, kE5M2, kE5M2, AccFmt::F16,
        {32, 25, OutRound::RNE_F16, -133}, Evidence::Published, kMmaSim),
    row("sm100.tcgen05.f8f6f4.f32", Arch::SM100, Unit::Tcgen05, kF8F6F4, kF8F6F4, AccFmt::F32, kRZ(32, 25),
        Evidence::Unvalidated, "extrapolated from the fp8 rows: fp6/fp4 and mixed types are untested"),
    row("sm100.tcgen05.f8f6f4.f16", Arch::SM100, Unit::Tcgen05, kF8F6F4, kF8F6F4, AccFmt::F16,
        {32, 25, OutRound::RNE_F16, -133}, Evidence::Unvalidated,
        "extrapolated from the fp8 rows: fp6/fp4 and mixed types are untested"),
};

}  // namespace

std::span<const DotModel> all_models() { return kModels; }

const DotModel* find_model(Arch arch, Unit unit, ElemFmt a, ElemFmt b, AccFmt acc) {
  for (const DotModel& m : kModels)
    if (m.arch == arch && m.unit == unit && (m.a_types & fmt_bit(a)) && (m.b_types & fmt_bit(b)) && m.acc == acc)
      return &m;
  return nullptr;
}

}  // namespace ptxsim::model::tc
