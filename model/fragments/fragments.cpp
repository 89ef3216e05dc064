#include "model/fragments/fragments.h"

namespace ptxsim::model::frag {

// ---- ldmatrix / stmatrix -------------------------------------------------------------------------

int ldst_elem_bytes(const LdstSpec& s) { return s.shape == LdstShape::M8N8_B16 ? 2 : 1; }
int ldst_elems_per_reg(const LdstSpec& s) { return 4 / ldst_elem_bytes(s); }
int ldst_row_elems(const LdstSpec& s) { return 16 / ldst_elem_bytes(s); }

int ldst_regs(const LdstSpec& s) {
  // m16n16 moves two registers per matrix; every other shape one.
  return s.shape == LdstShape::M16N16_B8 ? 2 * s.num : s.num;
}

int ldst_rows(const LdstSpec& s) { return (s.shape == LdstShape::M16N16_B8 ? 16 : 8) * s.num; }

RowElem ldst_map(const LdstSpec& s, int lane, int reg, int elem) {
  const int g = lane / 4, q = lane % 4;
  switch (s.shape) {
    case LdstShape::M8N8_B16:
      // Four consecutive lanes hold one row (two elements each); .trans swaps rows and columns.
      if (!s.trans) return {8 * reg + g, 2 * q + elem};
      return {8 * reg + 2 * q + elem, g};
    case LdstShape::M16N16_B8:
      // Transposed 16x16 bytes: lane t gets column g (reg 2m) or g + 8 (reg 2m+1) of rows
      // 4q..4q+3 of matrix m.
      return {16 * (reg / 2) + 4 * q + elem, g + 8 * (reg % 2)};
    case LdstShape::M8N16_B8:
      return {8 * reg + g, 4 * q + elem};
    case LdstShape::M16N8_B8:
      // The 16x8 matrix is stored column-major: each addressed 16-byte row is one column.
      return {8 * reg + 2 * q + elem % 2, g + 8 * (elem / 2)};
  }
  return {0, 0};
}

// ---- mma.sync fragments ---------------------------------------------------------------------------

RC mma_matrix_size(MmaShape s, Operand op) {
  if (s == MmaShape::M8N8K4X4) return op == Operand::A ? RC{32, 4} : op == Operand::B ? RC{4, 32} : RC{32, 8};
  MmaDims d = mma_dims(s);
  switch (op) {
    case Operand::A: return {d.m, d.k};
    case Operand::B: return {d.k, d.n};
    case Operand::C: return {d.m, d.n};
  }
  return {0, 0};
}

int mma_elems_per_reg(ElemClass c) {
  switch (c) {
    case ElemClass::B16:
    case ElemClass::B16T: return 2;
    case ElemClass::B8: return 4;
    case ElemClass::Acc16: return 2;
    case ElemClass::B4: return 8;
    case ElemClass::B1: return 32;
    default: return 1;
  }
}

bool mma_layout_exists(MmaShape s, Operand op, ElemClass c) {
  const bool acc = c == ElemClass::Acc32 || c == ElemClass::Acc16;
  if (s == MmaShape::M8N8K4X4) return op == Operand::C ? acc : c == ElemClass::B16 || c == ElemClass::B16T;
  if (c == ElemClass::B16T) return false;
  if (op == Operand::C) {
    if (c == ElemClass::B64) return s == MmaShape::M8N8K4 || s == MmaShape::M16N8K4 || s == MmaShape::M16N8K8 ||
                                     s == MmaShape::M16N8K16;
    if (!acc) return false;
    if (s == MmaShape::M8N8K4) return false;  // the .f16 m8n8k4 form is not modelled
    if (s == MmaShape::M8N8K16 || s == MmaShape::M8N8K32 || s == MmaShape::M16N8K64 || s == MmaShape::M8N8K128 ||
        s == MmaShape::M16N8K128 || s == MmaShape::M16N8K256)
      return c == ElemClass::Acc32;  // the integer shapes accumulate in .s32 only
    if (s == MmaShape::M16N8K4) return c == ElemClass::Acc32;  // .tf32 accumulates in .f32 only
    return true;
  }
  if (acc) return false;
  switch (s) {
    case MmaShape::M8N8K4: return c == ElemClass::B64;
    case MmaShape::M8N8K16: return c == ElemClass::B8;
    case MmaShape::M16N8K4: return c == ElemClass::B32 || c == ElemClass::B64;
    case MmaShape::M16N8K8: return c == ElemClass::B16 || c == ElemClass::B32 || c == ElemClass::B64;
    case MmaShape::M16N8K16:
      return c == ElemClass::B16 || c == ElemClass::B8 || c == ElemClass::B64 || (op == Operand::B && c == ElemClass::B32);
    case MmaShape::M16N8K32: return c == ElemClass::B8 || c == ElemClass::B4 || (op == Operand::B && c == ElemClass::B16);
    case MmaShape::M8N8K32: return c == ElemClass::B4;
    case MmaShape::M16N8K64: return c == ElemClass::B4 || (op == Operand::B && c == ElemClass::B8);
    case MmaShape::M8N8K128:
    case MmaShape::M16N8K128:
    case MmaShape::M16N8K256: return c == ElemClass::B1;
    case MmaShape::M8N8K4X4: break;  // handled above
  }
  return false;
}

int mma_elems(MmaShape s, Operand op, ElemClass c) {
  RC size = mma_matrix_size(s, op);
  return size.row * size.col / 32;
}

int mma_regs(MmaShape s, Operand op, ElemClass c) { return mma_elems(s, op, c) / mma_elems_per_reg(c); }

// m8n8k4 .f16 (PTX ISA 9.7.14.5.1): lane l works on product j = (l / 4) % 4; `hi` (l >= 16) holds
// rows 4-7 of A / C and columns 4-7 of B; rows/columns are then offset by 8j in the stacked matrices.
static RC mma_map_m8n8k4x4(Operand op, ElemClass c, int lane, int i) {
  const int j = (lane / 4) % 4, hi = lane >= 16 ? 4 : 0, l4 = lane % 4;
  if (op == Operand::A) {
    if (c == ElemClass::B16) return {8 * j + l4 + hi, i};  // row-major A: a_i in column i
    return {8 * j + i + hi, l4};                           // column-major A
  }
  if (op == Operand::B) {
    if (c == ElemClass::B16) return {i, 8 * j + l4 + hi};  // column-major B: b_i in row i
    return {l4, 8 * j + i + hi};                           // row-major B
  }
  if (c == ElemClass::Acc16) return {8 * j + l4 + hi, i};  // a whole row of 8 per lane
  return {8 * j + (lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)};
}

RC mma_map(MmaShape s, Operand op, ElemClass c, int lane, int i) {
  if (s == MmaShape::M8N8K4X4) return mma_map_m8n8k4x4(op, c, lane, i);
  const int g = lane >> 2, q = lane % 4;
  if (op == Operand::C) {
    // Every m16n8 shape: c0,c1 in row g, c2,c3 in row g+8, columns 2q and 2q+1.
    // m8n8k4 (.f64) and m8n8k16 (.s32): c0,c1 in row g.
    if (mma_dims(s).m == 8) return {g, 2 * q + i};
    return {g + 8 * (i / 2), 2 * q + i % 2};
  }
  if (op == Operand::A) {
    switch (s) {
      case MmaShape::M8N8K4: return {g, q};
      case MmaShape::M8N8K16: return {g, 4 * q + i};
      case MmaShape::M16N8K4: return {g + 8 * i, q};
      case MmaShape::M16N8K8:
        if (c == ElemClass::B16) return {g + 8 * (i / 2), 2 * q + i % 2};
        return {g + 8 * (i % 2), q + 4 * (i / 2)};  // .tf32, .f64
      case MmaShape::M16N8K16:
        if (c == ElemClass::B16) return {g + 8 * ((i / 2) % 2), 2 * q + i % 2 + 8 * (i / 4)};
        if (c == ElemClass::B8) return {g + 8 * (i / 4), 4 * q + i % 4};
        return {g + 8 * (i % 2), 4 * (i / 2) + q};  // .f64
      case MmaShape::M16N8K32:
        if (c == ElemClass::B4) return {g + 8 * (i / 8), 8 * q + i % 8};
        return {g + 8 * ((i / 4) % 2), 4 * q + i % 4 + 16 * (i / 8)};
      case MmaShape::M8N8K32: return {g, 8 * q + i};
      case MmaShape::M16N8K64: return {g + 8 * ((i / 8) % 2), 8 * q + i % 8 + 32 * (i / 16)};
      case MmaShape::M8N8K128: return {g, 32 * q + i};
      case MmaShape::M16N8K128: return {g + 8 * (i / 32), 32 * q + i % 32};
      case MmaShape::M16N8K256: return {g + 8 * ((i / 32) % 2), 32 * q + i % 32 + 128 * (i / 64)};
      case MmaShape::M8N8K4X4: break;  // mma_map_m8n8k4x4
    }
  }
  // B (KxN): the column is always the group.
  switch (s) {
    case MmaShape::M8N8K4: return {q, g};
    case MmaShape::M8N8K16: return {4 * q + i, g};
    case MmaShape::M16N8K4: return {q, g};
    case MmaShape::M16N8K8:
      if (c == ElemClass::B16) return {2 * q + i, g};
      return {q + 4 * i, g};  // .tf32, .f64
    case MmaShape::M16N8K16:
      if (c == ElemClass::B16) return {2 * q + i % 2 + 8 * (i / 2), g};
      if (c == ElemClass::B8) return {4 * q + i, g};
      return {q + 4 * i, g};  // .f64; .tf32 of mma.sp m16n8k16 (i < 4)
    case MmaShape::M16N8K32:
      if (c == ElemClass::B4) return {8 * q + i, g};
      if (c == ElemClass::B16) return {2 * q + i % 2 + 8 * (i / 2), g};  // mma.sp .f16/.bf16 (i < 8)
      return {4 * q + i % 4 + 16 * (i / 4), g};
    case MmaShape::M8N8K32: return {8 * q + i, g};
    case MmaShape::M16N8K64:
      if (c == ElemClass::B8) return {4 * q + i % 4 + 16 * (i / 4), g};  // mma.sp 8-bit (i < 16)
      return {8 * q + i % 8 + 32 * (i / 8), g};
    case MmaShape::M8N8K128:
    case MmaShape::M16N8K128: return {32 * q + i, g};
    case MmaShape::M16N8K256: return {32 * q + i % 32 + 128 * (i / 32), g};
    case MmaShape::M8N8K4X4: break;  // mma_map_m8n8k4x4
  }
  return {0, 0};
}

// ---- sparse A metadata ------------------------------------------------------------------------------

int sparse_chunk_elems(SparseKind k) { return k == SparseKind::Tf32 ? 2 : 4; }
int sparse_chunks_per_row(SparseKind k) { return k == SparseKind::Byte ? 16 : 8; }
int sparse_max_sel(SparseKind k) { return k == SparseKind::Byte ? 0 : 1; }

MetaSlot sparse_meta_slot(SparseKind k, int sp_sel, int row, int chunk) {
  if (k == SparseKind::Byte) return {4 * (row % 8) + 2 * (chunk / 8) + row / 8, 4 * (chunk % 8)};
  return {4 * (row % 8) + 2 * sp_sel + chunk / 4, 16 * (row / 8) + 4 * (chunk % 4)};
}

const char* sparse_decode(SparseKind k, uint32_t nibble, bool ordered, int idx[2]) {
  if (k == SparseKind::Tf32) {
    if (nibble != 0x4 && nibble != 0xE) return "is not a .tf32 index (0b0100 and 0b1110 are the only meaningful values)";
    idx[0] = nibble == 0x4 ? 0 : 1;
    idx[1] = -1;
    return nullptr;
  }
  idx[0] = int(nibble & 3);
  idx[1] = int(nibble >> 2);
  if (idx[0] == idx[1])
    return "names one column twice (the two indices of a 2:4 chunk must differ; 0b0000, 0b0101, 0b1010 and 0b1111 "
           "are invalid)";
  if (ordered && idx[0] > idx[1])
    return "is not in increasing order (.sp::ordered_metadata: 0b0100, 0b1000, 0b1001, 0b1100, 0b1101 and 0b1110 are "
           "the meaningful values)";
  return nullptr;
}

}  // namespace ptxsim::model::frag
