// Register <-> matrix element mappings of the warp-level matrix instructions, as pure functions
// (namespace ptxsim::model::frag). No PTX text, no simulator state: given a lane and an element
// index they say which matrix element it is. The instruction semantics (sim/sem/ldmatrix.cpp,
// sim/sem/mma_sync.cpp) and the tests use these; docs/matrix-units.md lists them with sources.
//
// Notation: t = %laneid, g = t / 4 ("groupID"), q = t % 4 ("threadID_in_group").
//
// ldmatrix / stmatrix (PTX ISA 9.7.14.5.15-16; per-lane tables in shared/reference/ptx-facts.md
// 4.2, derived there from CUTLASS copy_traits_sm75/sm90/sm100.hpp and rechecked here against the
// CuTe layouts): each matrix row is 16 bytes in shared memory, its address supplied by one lane.
// "row(k)" below is the row whose address lane k supplied.
//   m8n8 .b16          reg j elem e (e = 0 low half): row(8j + g)[2q + e]
//   m8n8 .b16 .trans   reg j elem e: row(8j + 2q + e)[g]
//   m16n16 .trans .b8  reg j byte e: row(16*(j/2) + 4q + e)[g + 8*(j%2)]
//   m8n16 .b8 (expanded from 4/6-bit)  reg j byte e: row(8j + g)[4q + e]
//   stmatrix m8n8 .b16 (+.trans): the same positions as ldmatrix (the store is the inverse)
//   stmatrix m16n8 .trans .b8  reg j byte e: row(8j + 2q + e%2)[g + 8*(e/2)]
//
// mma.sync fragments (PTX ISA 9.7.14.5.2-13, the row/col formulas of each "Matrix Fragments for
// mma.mXnYkZ" section). The 4-bit and 1-bit layouts are the 8-bit ones with each byte split into
// 2 or 8 consecutive k elements (element i at bit i * bits of its register, low bits first).
#pragma once
#include <cstdint>

namespace ptxsim::model::frag {

// ---- ldmatrix / stmatrix -------------------------------------------------------------------------

enum class LdstShape : uint8_t {
  M8N8_B16,    // 8x8 matrices of 16-bit elements (ldmatrix, stmatrix)
  M16N16_B8,   // 16x16 of 8-bit, .trans only (ldmatrix, sm_100a+); also the expanding src_fmt forms
  M8N16_B8,    // 8x16 of 8-bit expanded from 6/4-bit (ldmatrix src_fmt forms, sm_100a+), no .trans
  M16N8_B8,    // 16x8 of 8-bit, .trans only (stmatrix, sm_100a+)
};

// One ldmatrix/stmatrix form. stmatrix m8n8 uses the ldmatrix positions (it is the inverse).
struct LdstSpec {
  LdstShape shape = LdstShape::M8N8_B16;
  int num = 1;        // .x1 / .x2 / .x4
  bool trans = false;
};

// Where a register element lives in shared memory: byte `col * elem_bytes` of the 16-byte row
// whose address lane `addr_lane` supplied.
struct RowElem {
  int addr_lane;
  int col;  // element index within the row
};

int ldst_regs(const LdstSpec& s);           // 32-bit registers per lane
int ldst_elems_per_reg(const LdstSpec& s);  // 2 for .b16, 4 for .b8
int ldst_elem_bytes(const LdstSpec& s);     // 2 or 1
int ldst_rows(const LdstSpec& s);           // row addresses used (lanes 0 .. rows-1 supply them)
int ldst_row_elems(const LdstSpec& s);      // elements per 16-byte row (8 or 16)
// The element held in register `reg`, element `elem` (0 = least significant) of lane `lane`.
RowElem ldst_map(const LdstSpec& s, int lane, int reg, int elem);

// ---- mma.sync fragments ---------------------------------------------------------------------------

enum class MmaShape : uint8_t {
  M8N8K4, M8N8K16, M16N8K4, M16N8K8, M16N8K16, M16N8K32,
  M8N8K32, M16N8K64,               // .s4/.u4 (with M16N8K32)
  M8N8K128, M16N8K128, M16N8K256,  // .b1
  // m8n8k4 .f16: four independent 8x8x4 products, computation j by lanes 4j..4j+3 (rows 0-3) and
  // 16+4j..16+4j+3 (rows 4-7). The operands are stacked: A 32x4 and C/D 32x8 (row 8j + r), B 4x32
  // (column 8j + c); product j uses only its own slices.
  M8N8K4X4,
};
enum class Operand : uint8_t { A, B, C };  // D has C's layout
// Element class of an operand: what the fragment tables of the PTX ISA distinguish.
enum class ElemClass : uint8_t {
  B16,    // .f16 / .bf16 multiplicands
  B32,    // .tf32 multiplicands
  B8,     // .s8 / .u8 / .e4m3 / .e5m2 multiplicands
  B64,    // .f64 (multiplicands and accumulators)
  Acc32,  // .f32 / .s32 accumulators
  Acc16,  // .f16 accumulators (two per .f16x2 register)
  B4,     // .s4 / .u4 multiplicands (eight per register)
  B1,     // .b1 multiplicands (32 per register)
  B16T,   // .f16 multiplicands in the other major order: m8n8k4 .col A or .row B (two per register)
};

struct MmaDims {
  int m, n, k;
};
// (Inline: every mma.sync asks, and the out-of-line switch's jump and return cost 2 % of an
// mma.sync-heavy kernel.)
constexpr MmaDims mma_dims(MmaShape s) {
  switch (s) {
    case MmaShape::M8N8K4: return {8, 8, 4};
    case MmaShape::M8N8K16: return {8, 8, 16};
    case MmaShape::M16N8K4: return {16, 8, 4};
    case MmaShape::M16N8K8: return {16, 8, 8};
    case MmaShape::M16N8K16: return {16, 8, 16};
    case MmaShape::M16N8K32: return {16, 8, 32};
    case MmaShape::M8N8K32: return {8, 8, 32};
    case MmaShape::M16N8K64: return {16, 8, 64};
    case MmaShape::M8N8K128: return {8, 8, 128};
    case MmaShape::M16N8K128: return {16, 8, 128};
    case MmaShape::M16N8K256: return {16, 8, 256};
    case MmaShape::M8N8K4X4: return {8, 8, 4};
  }
  return {0, 0, 0};
}

struct RC {
  int row, col;
};

// Whether the PTX ISA defines this combination (e.g. B8 at m16n8k8 is not).
bool mma_layout_exists(MmaShape s, Operand op, ElemClass c);
// Elements per lane, elements per register, registers per lane.
int mma_elems(MmaShape s, Operand op, ElemClass c);
int mma_elems_per_reg(ElemClass c);
int mma_regs(MmaShape s, Operand op, ElemClass c);
// Rows and columns of the operand's matrix: A is MxK, B is KxN, C/D are MxN.
RC mma_matrix_size(MmaShape s, Operand op);
// Element `i` of lane `lane`'s fragment (element i sits in register i / elems_per_reg, at bit
// (i % elems_per_reg) * element_bits).
RC mma_map(MmaShape s, Operand op, ElemClass c, int lane, int i);

// ---- sparse A metadata (PTX ISA 9.7.14.6.1 / 9.7.15.6.1 "Sparse matrix storage") ----------------
//
// mma.sp m16n8k32 .f16/.bf16, m16n8k16 .tf32 and m16n8k64 8-bit, and each warp of
// wgmma.mma_async.sp (whose metadata figures are the same images): A (16 x K per warp) is stored
// packed, 16 x K/2, with the register layout of the dense shape of half the K; one 4-bit metadata
// nibble per chunk of a row says where the chunk's kept elements were. The sparse B of those mma.sp
// shapes has its own layouts above (M16N8K32 B16, M16N8K16 B32, M16N8K64 B8: the dense k16 / k8 /
// k32 B patterns continued over the doubled K).
enum class SparseKind : uint8_t {
  Half,  // .f16/.bf16: chunks of 4, 2 kept (2:4), 8 chunks per row; sp-sel picks a lane pair
  Tf32,  // .tf32: chunks of 2, 1 kept (1:2), 8 chunks per row; sp-sel picks a lane pair
  Byte,  // 8-bit: chunks of 4, 2 kept (2:4), 16 chunks per row; every lane, sp-sel 0
};
int sparse_chunk_elems(SparseKind k);     // 4 or 2
int sparse_chunks_per_row(SparseKind k);  // 8 or 16
int sparse_max_sel(SparseKind k);         // 1 (Half, Tf32) or 0 (Byte)
// Which lane's metadata register holds the nibble of (row 0..15, chunk), at bits bit+3:bit. From the
// ISA metadata figures as CUTLASS encodes them (cute/atom/mma_traits_sm90_gmma_sparse.hpp,
// ELayout_64x32 / 64x16 / 64x64), with q = row % 8:
//   Half, Tf32: lane 4q + 2 sp_sel + chunk / 4, bit 16 (row / 8) + 4 (chunk % 4);
//   Byte:       lane 4q + 2 (chunk / 8) + row / 8,  bit 4 (chunk % 8).
struct MetaSlot {
  int lane, bit;
};
MetaSlot sparse_meta_slot(SparseKind k, int sp_sel, int row, int chunk);
// Decodes a nibble into the in-chunk column of each kept element (idx[0] for the first packed
// element, idx[1] for the second; Tf32 fills idx[0] only). Returns nullptr, or the rule broken:
//   2:4: the two indices (bits 1:0, 3:2) must differ; `ordered` (mma.sp::ordered_metadata) also
//        needs them increasing (0b0100, 0b1000, 0b1001, 0b1100, 0b1101, 0b1110);
//   1:2: only 0b0100 (element 0 kept) and 0b1110 (element 1 kept) are meaningful.
const char* sparse_decode(SparseKind k, uint32_t nibble, bool ordered, int idx[2]);

}  // namespace ptxsim::model::frag
