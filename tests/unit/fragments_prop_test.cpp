// Properties of the register <-> matrix element mappings (model/fragments): every ldmatrix /
// stmatrix form and every mma.sync fragment layout is a bijection between (lane, register,
// element) and the matrix, and the mappings compose the way CUTLASS relies on: ldmatrix.x4 of a
// row-major 16x16 tile is the m16n8k16 A fragment, ldmatrix.x2.trans of a row-major 16x8 B is
// the B fragment, and stmatrix.x2 of the f16 accumulator fragment writes D row-major. The
// composition properties use random matrices and random row placements (RapidCheck).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include "model/fragments/fragments.h"

namespace ptxsim::model::frag {
namespace {

std::vector<LdstSpec> all_ldst_specs() {
  std::vector<LdstSpec> v;
  for (int num : {1, 2, 4}) {
    for (bool trans : {false, true}) v.push_back({LdstShape::M8N8_B16, num, trans});
    if (num != 4) v.push_back({LdstShape::M16N16_B8, num, true});
    v.push_back({LdstShape::M8N16_B8, num, false});
    v.push_back({LdstShape::M16N8_B8, num, true});
  }
  return v;
}

struct Layout {
  MmaShape s;
  Operand op;
  ElemClass c;
};

std::vector<Layout> all_mma_layouts() {
  std::vector<Layout> v;
  for (MmaShape s : {MmaShape::M8N8K4, MmaShape::M8N8K16, MmaShape::M16N8K4, MmaShape::M16N8K8, MmaShape::M16N8K16,
                     MmaShape::M16N8K32, MmaShape::M8N8K32, MmaShape::M16N8K64, MmaShape::M8N8K128,
                     MmaShape::M16N8K128, MmaShape::M16N8K256, MmaShape::M8N8K4X4})
    for (Operand op : {Operand::A, Operand::B, Operand::C})
      for (ElemClass c : {ElemClass::B16, ElemClass::B32, ElemClass::B8, ElemClass::B64, ElemClass::Acc32,
                          ElemClass::Acc16, ElemClass::B4, ElemClass::B1, ElemClass::B16T})
        if (mma_layout_exists(s, op, c)) v.push_back({s, op, c});
  return v;
}

TEST(FragmentProps, LdstMappingsAreBijections) {
  for (const LdstSpec& s : all_ldst_specs()) {
    const int rows = ldst_rows(s), cols = ldst_row_elems(s);
    EXPECT_EQ(32 * ldst_regs(s) * ldst_elems_per_reg(s), rows * cols);
    std::set<std::pair<int, int>> seen;
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < ldst_regs(s); ++r)
        for (int e = 0; e < ldst_elems_per_reg(s); ++e) {
          const RowElem re = ldst_map(s, lane, r, e);
          ASSERT_GE(re.addr_lane, 0);
          ASSERT_LT(re.addr_lane, rows);
          ASSERT_GE(re.col, 0);
          ASSERT_LT(re.col, cols);
          seen.insert({re.addr_lane, re.col});
        }
    EXPECT_EQ(int(seen.size()), rows * cols) << "shape " << int(s.shape) << " x" << s.num;
  }
}

TEST(FragmentProps, MmaLayoutsAreBijections) {
  const auto layouts = all_mma_layouts();
  EXPECT_EQ(layouts.size(), 60u);  // 34 float/8-bit + 17 sub-byte + 6 m8n8k4 .f16 + 3 mma.sp B
  for (const Layout& l : layouts) {
    const RC size = mma_matrix_size(l.s, l.op);
    const int n = mma_elems(l.s, l.op, l.c);
    EXPECT_EQ(32 * n, size.row * size.col);
    EXPECT_EQ(n % mma_elems_per_reg(l.c), 0);
    std::set<std::pair<int, int>> seen;
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < n; ++i) {
        const RC rc = mma_map(l.s, l.op, l.c, lane, i);
        ASSERT_TRUE(rc.row >= 0 && rc.row < size.row && rc.col >= 0 && rc.col < size.col);
        seen.insert({rc.row, rc.col});
      }
    EXPECT_EQ(int(seen.size()), size.row * size.col) << int(l.s) << " " << int(l.op) << " " << int(l.c);
  }
}

// Register counts of the PTX ISA fragment tables.
TEST(FragmentProps, RegisterCounts) {
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::A, ElemClass::B16), 4);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::B, ElemClass::B16), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::C, ElemClass::Acc32), 4);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::C, ElemClass::Acc16), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K8, Operand::A, ElemClass::B32), 4);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K4, Operand::A, ElemClass::B32), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K32, Operand::A, ElemClass::B8), 4);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K32, Operand::B, ElemClass::B8), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::A, ElemClass::B8), 2);
  EXPECT_EQ(mma_regs(MmaShape::M8N8K4, Operand::A, ElemClass::B64), 1);
  EXPECT_EQ(mma_regs(MmaShape::M8N8K4, Operand::C, ElemClass::B64), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::A, ElemClass::B64), 8);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K16, Operand::B, ElemClass::B64), 4);
  EXPECT_EQ(mma_regs(MmaShape::M8N8K16, Operand::C, ElemClass::Acc32), 2);
  // Sub-byte (PTX ISA: "a single .b32 register" / "two" / "four .b32 registers").
  EXPECT_EQ(mma_regs(MmaShape::M8N8K32, Operand::A, ElemClass::B4), 1);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K32, Operand::A, ElemClass::B4), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K32, Operand::B, ElemClass::B4), 1);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K64, Operand::A, ElemClass::B4), 4);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K64, Operand::B, ElemClass::B4), 2);
  EXPECT_EQ(mma_regs(MmaShape::M8N8K128, Operand::A, ElemClass::B1), 1);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K128, Operand::A, ElemClass::B1), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K256, Operand::A, ElemClass::B1), 4);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K256, Operand::B, ElemClass::B1), 2);
  EXPECT_EQ(mma_regs(MmaShape::M16N8K256, Operand::C, ElemClass::Acc32), 4);
  EXPECT_EQ(mma_regs(MmaShape::M8N8K128, Operand::C, ElemClass::Acc32), 2);
}

// Sparse metadata: for every kind and selector, (row, chunk) -> (lane, nibble) is one-to-one, uses
// only the lanes the selector names (Half/Tf32: lanes 4q + 2 sel, 4q + 2 sel + 1; Byte: all), and
// a lane's nibbles stay within its quad's two rows q and q + 8.
TEST(FragmentProps, SparseMetadataSlotsAreInjectiveAndInTheSelectedLanes) {
  for (SparseKind k : {SparseKind::Half, SparseKind::Tf32, SparseKind::Byte})
    for (int sel = 0; sel <= sparse_max_sel(k); ++sel) {
      std::set<std::pair<int, int>> seen;
      const int chunks = sparse_chunks_per_row(k);
      for (int row = 0; row < 16; ++row)
        for (int ch = 0; ch < chunks; ++ch) {
          const MetaSlot m = sparse_meta_slot(k, sel, row, ch);
          ASSERT_TRUE(m.lane >= 0 && m.lane < 32 && m.bit >= 0 && m.bit <= 28 && m.bit % 4 == 0);
          EXPECT_EQ(m.lane / 4, row % 8);
          if (k != SparseKind::Byte) {
            EXPECT_EQ((m.lane % 4) / 2, sel);
          }
          EXPECT_TRUE(seen.insert({m.lane, m.bit}).second) << int(k) << " sel " << sel << " row " << row << " chunk " << ch;
        }
      // Every metadata bit of the selected lanes is used: 16 rows x chunks nibbles.
      EXPECT_EQ(int(seen.size()), 16 * chunks);
      EXPECT_EQ(int(seen.size()), (k == SparseKind::Byte ? 32 : 16) * 8);
    }
}

// The nibble rules: exactly the 12 distinct-index codes decode for 2:4 (6 with ::ordered_metadata),
// exactly two for 1:2; decoded columns reproduce the code.
RC_GTEST_PROP(FragmentProps, SparseNibbleDecodeMatchesTheRules, ()) {
  const uint32_t nib = *rc::gen::inRange<uint32_t>(0, 16);
  const bool ordered = *rc::gen::arbitrary<bool>();
  int idx[2];
  const bool half_ok = sparse_decode(SparseKind::Half, nib, ordered, idx) == nullptr;
  const int i0 = int(nib & 3), i1 = int(nib >> 2);
  RC_ASSERT(half_ok == (i0 != i1 && (!ordered || i0 < i1)));
  if (half_ok) RC_ASSERT(idx[0] == i0 && idx[1] == i1);
  const bool byte_ok = sparse_decode(SparseKind::Byte, nib, ordered, idx) == nullptr;
  RC_ASSERT(byte_ok == half_ok);  // the same 2:4 rules
  const bool tf_ok = sparse_decode(SparseKind::Tf32, nib, ordered, idx) == nullptr;
  RC_ASSERT(tf_ok == (nib == 0x4 || nib == 0xE));
  if (tf_ok) RC_ASSERT(idx[0] == (nib == 0xE ? 1 : 0));
}

// m8n8k4 .f16: product j = (lane / 4) % 4 only touches its own slices of the stacked matrices
// (rows 8j..8j+7 of A and C/D, columns 8j..8j+7 of B), and the low group (lanes < 16) holds rows /
// columns 0-3 of A and B.
RC_GTEST_PROP(FragmentProps, M8n8k4F16LanesStayInTheirQuadPair, ()) {
  const int lane = *rc::gen::inRange(0, 32);
  const int j = (lane / 4) % 4, hi = lane >= 16 ? 1 : 0;
  const ElemClass ab = *rc::gen::element(ElemClass::B16, ElemClass::B16T);
  const ElemClass acc = *rc::gen::element(ElemClass::Acc16, ElemClass::Acc32);
  for (int i = 0; i < 4; ++i) {
    const RC a = mma_map(MmaShape::M8N8K4X4, Operand::A, ab, lane, i), b = mma_map(MmaShape::M8N8K4X4, Operand::B, ab, lane, i);
    RC_ASSERT(a.row / 8 == j && (a.row % 8) / 4 == hi);
    RC_ASSERT(b.col / 8 == j && (b.col % 8) / 4 == hi);
  }
  for (int i = 0; i < 8; ++i) {
    const RC c = mma_map(MmaShape::M8N8K4X4, Operand::C, acc, lane, i);
    RC_ASSERT(c.row / 8 == j && (c.row % 8) / 4 == hi);
  }
}

// The 4-bit and 1-bit fragments are the 8-bit fragments of the shape with K/2 or K/8 with every
// byte split into 2 or 8 consecutive k elements: the register bits hold the same bytes of the
// matrix row (A) or column (B). This ties each sub-byte table of the PTX ISA to the 8-bit one.
RC_GTEST_PROP(FragmentProps, SubByteFragmentsSplitTheBytesOfThe8BitOnes, ()) {
  struct Pair {
    MmaShape sub, byte;
    ElemClass c;
  };
  const Pair p = *rc::gen::element(Pair{MmaShape::M8N8K32, MmaShape::M8N8K16, ElemClass::B4},
                                   Pair{MmaShape::M16N8K32, MmaShape::M16N8K16, ElemClass::B4},
                                   Pair{MmaShape::M16N8K64, MmaShape::M16N8K32, ElemClass::B4},
                                   Pair{MmaShape::M8N8K128, MmaShape::M8N8K16, ElemClass::B1},
                                   Pair{MmaShape::M16N8K128, MmaShape::M16N8K16, ElemClass::B1},
                                   Pair{MmaShape::M16N8K256, MmaShape::M16N8K32, ElemClass::B1});
  const Operand op = *rc::gen::element(Operand::A, Operand::B);
  const int lane = *rc::gen::inRange(0, 32);
  const int split = p.c == ElemClass::B4 ? 2 : 8;
  const int i = *rc::gen::inRange(0, mma_elems(p.sub, op, p.c));
  const RC sub = mma_map(p.sub, op, p.c, lane, i), byte = mma_map(p.byte, op, ElemClass::B8, lane, i / split);
  if (op == Operand::A) {
    RC_ASSERT(sub.row == byte.row);
    RC_ASSERT(sub.col == byte.col * split + i % split);
  } else {
    RC_ASSERT(sub.row == byte.row * split + i % split);
    RC_ASSERT(sub.col == byte.col);
  }
}

// A matrix of 16-bit elements, and the 16-byte rows an ldmatrix reads: row r of the instruction at
// a random slot of a buffer (the lanes hold scattered addresses).
struct Scattered {
  std::vector<uint16_t> buf;  // slots of 8 elements
  std::vector<int> slot_of_row;
};

// ldmatrix through ldst_map: register `reg` of `lane`.
uint32_t ldsm(const LdstSpec& s, const Scattered& mem, int lane, int reg) {
  uint32_t v = 0;
  for (int e = 0; e < 2; ++e) {
    const RowElem re = ldst_map(s, lane, reg, e);
    v |= uint32_t(mem.buf[size_t(mem.slot_of_row[size_t(re.addr_lane)] * 8 + re.col)]) << (16 * e);
  }
  return v;
}

// ldmatrix.x4 of a row-major 16x16 tile gives the m16n8k16 A fragment.
RC_GTEST_PROP(FragmentProps, LdmatrixX4IsTheMmaAFragment, ()) {
  const auto a = *rc::gen::container<std::vector<uint16_t>>(256, rc::gen::arbitrary<uint16_t>());
  auto slots = *rc::gen::container<std::vector<int>>(32, rc::gen::arbitrary<int>());
  std::vector<int> perm(64);
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = 0; i < 32; ++i) std::swap(perm[i], perm[i + size_t(unsigned(slots[i]) % (64 - i))]);
  // Lane l supplies row l % 16, columns 8 * (l / 16) .. +7, placed at slot perm[l].
  Scattered mem{std::vector<uint16_t>(64 * 8, 0), std::vector<int>(perm.begin(), perm.begin() + 32)};
  for (int l = 0; l < 32; ++l)
    for (int c = 0; c < 8; ++c) mem.buf[size_t(mem.slot_of_row[size_t(l)] * 8 + c)] = a[size_t((l % 16) * 16 + 8 * (l / 16) + c)];
  const LdstSpec s{LdstShape::M8N8_B16, 4, false};
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 8; ++i) {
      const RC rc = mma_map(MmaShape::M16N8K16, Operand::A, ElemClass::B16, lane, i);
      const uint16_t got = uint16_t(ldsm(s, mem, lane, i / 2) >> (16 * (i % 2)));
      RC_ASSERT(got == a[size_t(rc.row * 16 + rc.col)]);
    }
}

// ldmatrix.x2.trans of a row-major 16x8 B (K x N) gives the m16n8k16 B fragment.
RC_GTEST_PROP(FragmentProps, LdmatrixX2TransIsTheMmaBFragment, ()) {
  const auto b = *rc::gen::container<std::vector<uint16_t>>(128, rc::gen::arbitrary<uint16_t>());
  const auto shift = *rc::gen::inRange(0, 48);
  // Lane l < 16 supplies row k = l of B, placed at slot (l * 3 + shift) % 64 (distinct slots).
  Scattered mem{std::vector<uint16_t>(64 * 8, 0), std::vector<int>(32, 0)};
  for (int l = 0; l < 16; ++l) {
    mem.slot_of_row[size_t(l)] = (l * 3 + shift) % 64;
    for (int c = 0; c < 8; ++c) mem.buf[size_t(mem.slot_of_row[size_t(l)] * 8 + c)] = b[size_t(l * 8 + c)];
  }
  const LdstSpec s{LdstShape::M8N8_B16, 2, true};
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const RC rc = mma_map(MmaShape::M16N8K16, Operand::B, ElemClass::B16, lane, i);
      const uint16_t got = uint16_t(ldsm(s, mem, lane, i / 2) >> (16 * (i % 2)));
      RC_ASSERT(got == b[size_t(rc.row * 8 + rc.col)]);
    }
}

// stmatrix.x2 of the f16 accumulator fragment writes D row-major.
RC_GTEST_PROP(FragmentProps, StmatrixX2StoresTheF16Accumulator, ()) {
  const auto d = *rc::gen::container<std::vector<uint16_t>>(128, rc::gen::arbitrary<uint16_t>());
  // Registers of each lane as mma leaves them.
  uint32_t reg[32][2] = {};
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const RC rc = mma_map(MmaShape::M16N8K16, Operand::C, ElemClass::Acc16, lane, i);
      reg[lane][i / 2] |= uint32_t(d[size_t(rc.row * 8 + rc.col)]) << (16 * (i % 2));
    }
  std::vector<uint16_t> out(128, 0);
  const LdstSpec s{LdstShape::M8N8_B16, 2, false};
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 2; ++r)
      for (int e = 0; e < 2; ++e) {
        const RowElem re = ldst_map(s, lane, r, e);  // lane re.addr_lane addresses row re.addr_lane of D
        out[size_t(re.addr_lane * 8 + re.col)] = uint16_t(reg[lane][r] >> (16 * e));
      }
  RC_ASSERT(out == d);
}

// ldmatrix .trans gives the transpose of what the plain form gives: element (r, c) of matrix j
// in the plain form sits where (c, r) sits in the transposed one.
RC_GTEST_PROP(FragmentProps, TransIsTranspose, ()) {
  const int num = *rc::gen::element(1, 2, 4);
  const int lane = *rc::gen::inRange(0, 32);
  const int reg = *rc::gen::inRange(0, num);
  const int e = *rc::gen::inRange(0, 2);
  const RowElem t = ldst_map({LdstShape::M8N8_B16, num, true}, lane, reg, e);
  const RowElem p = ldst_map({LdstShape::M8N8_B16, num, false}, lane, reg, e);
  // Within matrix `reg`: plain holds (p.addr_lane % 8, p.col), trans holds (t.col, t.addr_lane % 8).
  RC_ASSERT(t.addr_lane / 8 == reg);
  RC_ASSERT(p.addr_lane / 8 == reg);
  RC_ASSERT(t.col == p.addr_lane % 8);
  RC_ASSERT(t.addr_lane % 8 == p.col);
}

}  // namespace
}  // namespace ptxsim::model::frag
