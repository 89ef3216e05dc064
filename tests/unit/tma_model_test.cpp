// Example tests of the TMA unit model (model/tma): the swizzle patterns against the tables of PTX
// ISA 5.5.7, tiled loads with partial boxes, negative coordinates, element strides, interleave,
// OOB fill, gather4/scatter4, im2col (the PTX worked example), stores, reductions, packed sub-byte
// types, faults and the operand checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "model/numerics/half_ops.h"
#include "model/tensormap/encoder.h"
#include "model/tensormap/tensormap.h"
#include "model/tma/swizzle.h"
#include "model/tma/tma_unit.h"
#include "tests/unit/tma_test_util.h"

namespace ptxsim::tmatest {
namespace {

using namespace ptxsim::model;
using tmap::DataType;
using tmap::Interleave;
using tmap::L2Promotion;
using tmap::OobFill;
using tmap::Swizzle;
using tmap::TensorMap;
using tma::Coords;
using tma::LoadMode;
using tma::Status;
using tma::StoreMode;

// A global memory of one allocation at `base`.
struct Global {
  uint64_t base = 0x7f0000100000ull;
  std::vector<uint8_t> mem;
  explicit Global(size_t n, uint8_t fill = 0) : mem(n, fill) {}
  tma::GlobalRead reader() {
    return [this](uint64_t a, void* d, size_t n) {
      if (a < base || a + n > base + mem.size()) return false;
      std::memcpy(d, mem.data() + (a - base), n);
      return true;
    };
  }
  tma::GlobalWrite writer() {
    return [this](uint64_t a, const void* s, size_t n) {
      if (a < base || a + n > base + mem.size()) return false;
      std::memcpy(mem.data() + (a - base), s, n);
      return true;
    };
  }
  template <class T>
  T at(uint64_t off) const {
    T v;
    std::memcpy(&v, mem.data() + off, sizeof v);
    return v;
  }
  template <class T>
  void set(uint64_t off, T v) {
    std::memcpy(mem.data() + off, &v, sizeof v);
  }
};

TensorMap tiled(DataType t, uint32_t rank, uint64_t addr, std::vector<uint64_t> dims, std::vector<uint64_t> strides,
                std::vector<uint32_t> box, std::vector<uint32_t> es = {}, Interleave il = Interleave::kNone,
                Swizzle sw = Swizzle::kNone, OobFill oob = OobFill::kNone) {
  if (es.empty()) es.assign(rank, 1);
  strides.resize(4);
  tmap::CUtensorMap cm;
  auto r = tmap::encode_tiled(&cm, t, rank, addr, dims.data(), strides.data(), box.data(), es.data(), il, sw,
                              L2Promotion::kNone, oob);
  EXPECT_TRUE(r.ok()) << r.message;
  auto d = tmap::decode(cm);
  EXPECT_TRUE(d.valid()) << d.validity.message;
  return d.map;
}

template <class T>
T sm(const std::vector<uint8_t>& s, size_t off) {
  T v;
  std::memcpy(&v, s.data() + off, sizeof v);
  return v;
}

// ---- swizzles ------------------------------------------------------------------------------------
// PTX ISA 5.5.7 tables: row r of the table lists which 16-byte chunk sits at each position of the
// r-th 128-byte line. Every mode is an involution, so "position p holds chunk c" == "chunk p goes
// to position c".
TEST(TmaSwizzle, MatchesPtxTables) {
  const int t32[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}};
  const int t64[4][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}, {2, 3, 0, 1, 6, 7, 4, 5}, {3, 2, 1, 0, 7, 6, 5, 4}};
  const int t128[8][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}, {2, 3, 0, 1, 6, 7, 4, 5},
                          {3, 2, 1, 0, 7, 6, 5, 4}, {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
                          {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
  const int a32[4][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {2, 3, 0, 1, 6, 7, 4, 5}, {4, 5, 6, 7, 0, 1, 2, 3}, {6, 7, 4, 5, 2, 3, 0, 1}};
  const int a64[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {4, 5, 6, 7, 0, 1, 2, 3}};
  for (uint32_t line = 0; line < 16; ++line)
    for (uint32_t pos = 0; pos < 8; ++pos)
      for (uint32_t byte = 0; byte < 16; byte += 5) {
        uint32_t base = 4096 * 3;  // 1024-aligned: pattern phase 0
        auto where = [&](Swizzle s) { return tma::swizzle_address(s, base + line * 128 + pos * 16 + byte); };
        auto at = [&](int chunk) { return base + line * 128 + uint32_t(chunk) * 16 + byte; };
        EXPECT_EQ(where(Swizzle::kNone), at(pos));
        EXPECT_EQ(where(Swizzle::k32B), at(t32[line % 2][pos]));
        EXPECT_EQ(where(Swizzle::k64B), at(t64[line % 4][pos]));
        EXPECT_EQ(where(Swizzle::k128B), at(t128[line % 8][pos]));
        EXPECT_EQ(where(Swizzle::k128BAtom32B), at(a32[line % 4][pos]));
        EXPECT_EQ(where(Swizzle::k128BAtom64B), at(a64[line % 2][pos]));
        // 8-byte flip: as 32B atomicity, with the 8-byte halves swapped on odd lines.
        uint32_t flip = line % 2 ? 8 : 0;
        EXPECT_EQ(where(Swizzle::k128BAtom32BFlip8B), (at(a32[line % 4][pos]) & ~15u) | ((byte ^ flip) & 15u));
      }
}

TEST(TmaSwizzle, BaseOffsetFormula) {
  // PTX: with dstMem not on the repeat boundary the pattern starts at (dstMem / 128) % 8 (128B).
  const uint32_t dst = 1024 * 5 + 128 * 3;
  for (uint32_t row = 0; row < 8; ++row)
    for (uint32_t x = 0; x < 8; ++x) {
      int64_t off = tma::swizzle_offset(Swizzle::k128B, dst, row * 128 + x * 16);
      EXPECT_EQ(off, int64_t(row * 128 + (((row + 3) % 8) ^ x) * 16));
    }
  EXPECT_EQ(tma::swizzle_info(Swizzle::k128B).repeat, 1024u);
  EXPECT_EQ(tma::swizzle_info(Swizzle::k128BAtom64B).alignment, 64u);
}

// ---- tiled loads --------------------------------------------------------------------------------
TEST(TmaLoad, PartialBoxNegativeCoordinates) {
  // f16 tensor 10 rows x 20 columns, rows padded to 48 bytes.
  Global g(48 * 10);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 20; ++x) g.set<uint16_t>(48 * y + 2 * x, uint16_t(100 * y + x));
  TensorMap m = tiled(DataType::kFloat16, 2, g.base, {20, 10}, {48}, {8, 4});
  std::vector<uint8_t> smem(4096, 0xEE);
  Coords c;
  c.c[0] = -2;
  c.c[1] = 8;
  auto o = tma::load(m, LoadMode::kTile, c, g.reader(), smem, 1024);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(o.tx_bytes, 64u);  // 8 x 4 x 2 bytes, out-of-bound elements included
  for (int j1 = 0; j1 < 4; ++j1)
    for (int j0 = 0; j0 < 8; ++j0) {
      int x = -2 + j0, y = 8 + j1;
      uint16_t want = (x >= 0 && x < 20 && y < 10) ? uint16_t(100 * y + x) : 0;
      EXPECT_EQ(sm<uint16_t>(smem, 1024 + 16 * j1 + 2 * j0), want) << j0 << "," << j1;
    }
  EXPECT_EQ(smem[1024 + 64], 0xEE);  // nothing beyond the box
  EXPECT_EQ(smem[1023], 0xEE);
}

TEST(TmaLoad, OobNanFillAndZeroFill) {
  Global g(64 * 4);
  TensorMap m = tiled(DataType::kFloat32, 2, g.base, {4, 4}, {64}, {4, 2}, {}, Interleave::kNone, Swizzle::kNone,
                      OobFill::kNanRequestZeroFma);
  std::vector<uint8_t> smem(1024, 0);
  Coords c;
  c.c[0] = 2;
  c.c[1] = 3;
  ASSERT_TRUE(tma::load(m, LoadMode::kTile, c, g.reader(), smem, 0).ok());
  EXPECT_EQ(sm<uint32_t>(smem, 0), 0u);           // (2,3) in bounds, value 0
  EXPECT_EQ(sm<uint32_t>(smem, 8), tma::kOobNanF32);  // (4,3) out of bounds
  EXPECT_EQ(sm<uint32_t>(smem, 16), tma::kOobNanF32);  // row 4
  // The OOB-NaN pattern is one fma.rn.oob recognises.
  EXPECT_EQ(num::fma_oob_f16(tma::kOobNanF16, 0x3C00, 0x3C00, tma::kOobNanF16), 0);
  // An integer map carrying the OOB-NaN flag (possible only through tensormap.replace) is refused.
  TensorMap bad = m;
  bad.dtype = DataType::kInt32;
  auto o = tma::load(bad, LoadMode::kTile, c, g.reader(), smem, 0);
  EXPECT_EQ(o.status, Status::kBadDescriptor);
}

TEST(TmaLoad, ElementStridesAndSwizzle) {
  // u32 tensor 8 x 40, box 4 x 6 with traversal stride 3 on dimension 1 -> rows y, y+3; 64B swizzle.
  Global g(256 * 40);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 8; ++x) g.set<uint32_t>(256 * y + 4 * x, uint32_t(y << 8 | x));
  TensorMap m = tiled(DataType::kUInt32, 2, g.base, {8, 40}, {256}, {4, 6}, {5, 3}, Interleave::kNone, Swizzle::k64B);
  std::vector<uint8_t> smem(4096, 0);
  Coords c;
  c.c[0] = 1;
  c.c[1] = 10;
  auto o = tma::load(m, LoadMode::kTile, c, g.reader(), smem, 512);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(o.tx_bytes, 32u);  // 4 x ceil(6/3) elements; elementStrides[0] is ignored
  // Row j1 sits at 512 + 16*j1 in the dense image; both rows are in 128-byte line 4 (phase 0).
  for (int j1 = 0; j1 < 2; ++j1)
    for (int j0 = 0; j0 < 4; ++j0) {
      uint32_t dense = 16 * j1 + 4 * j0;
      EXPECT_EQ(sm<uint32_t>(smem, 512 + dense), uint32_t((10 + 3 * j1) << 8 | (1 + j0)));
    }
  // At a line with phase 1 the two 16-byte rows trade places.
  std::vector<uint8_t> smem2(4096, 0);
  ASSERT_TRUE(tma::load(m, LoadMode::kTile, c, g.reader(), smem2, 512 + 128).ok());
  EXPECT_EQ(sm<uint32_t>(smem2, 640), uint32_t(13 << 8 | 1));
  EXPECT_EQ(sm<uint32_t>(smem2, 656), uint32_t(10 << 8 | 1));
}

TEST(TmaLoad, InterleavedRowsArePaddedToTheSlice) {
  // 3-D u8 tensor with 16B interleave: 10 channels per slice row, box 10 x 2 x 1, traversal stride 2
  // on dimension 0 -> 5 elements, row pitch padded to 16 bytes.
  Global g(16 * 4 * 2);
  for (size_t i = 0; i < g.mem.size(); ++i) g.mem[i] = uint8_t(i);
  TensorMap m = tiled(DataType::kUInt8, 3, g.base, {10, 4, 2}, {16, 64}, {10, 2, 1}, {2, 1, 1}, Interleave::k16B);
  std::vector<uint8_t> smem(256, 0xEE);
  Coords c;
  c.c[0] = 1;
  c.c[1] = 2;
  c.c[2] = 1;
  auto o = tma::load(m, LoadMode::kTile, c, g.reader(), smem, 0);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(o.tx_bytes, 32u);
  for (int j1 = 0; j1 < 2; ++j1) {
    for (int j0 = 0; j0 < 5; ++j0) EXPECT_EQ(smem[16 * j1 + j0], uint8_t(64 + 16 * (2 + j1) + 1 + 2 * j0));
    for (int p = 5; p < 16; ++p) EXPECT_EQ(smem[16 * j1 + p], 0);
  }
  EXPECT_EQ(smem[32], 0xEE);
}

TEST(TmaLoad, FaultLeavesSharedMemoryAlone) {
  Global g(64);
  // The map claims 4 rows of 64 bytes but only one is backed.
  TensorMap m = tiled(DataType::kUInt8, 2, g.base, {64, 4}, {64}, {16, 4});
  std::vector<uint8_t> smem(1024, 0xEE);
  Coords c;
  auto o = tma::load(m, LoadMode::kTile, c, g.reader(), smem, 0);
  EXPECT_EQ(o.status, Status::kFault);
  EXPECT_EQ(o.fault_address, g.base + 64);
  for (uint8_t b : smem) ASSERT_EQ(b, 0xEE);
}

TEST(TmaLoad, OperandChecks) {
  Global g(1024);
  TensorMap m = tiled(DataType::kUInt8, 2, g.base, {64, 16}, {64}, {64, 2}, {}, Interleave::kNone, Swizzle::k64B);
  std::vector<uint8_t> smem(1024);
  Coords c;
  EXPECT_EQ(tma::load(m, LoadMode::kTile, c, g.reader(), smem, 8).status, Status::kBadOperand);
  EXPECT_EQ(tma::load(m, LoadMode::kTile, c, g.reader(), smem, 1024 - 64).status, Status::kSharedOutOfRange);
  EXPECT_EQ(tma::load(m, LoadMode::kIm2col, c, g.reader(), smem, 0).status, Status::kBadOperand);
  TensorMap a = tiled(DataType::kUInt8, 2, g.base, {64, 16}, {64}, {64, 2}, {}, Interleave::kNone, Swizzle::k128BAtom64B);
  EXPECT_EQ(tma::load(a, LoadMode::kTile, c, g.reader(), smem, 32).status, Status::kBadOperand);
  EXPECT_TRUE(tma::load(a, LoadMode::kTile, c, g.reader(), smem, 64).ok());
}

// ---- gather4 / scatter4 -------------------------------------------------------------------------------
TEST(TmaLoad, Gather4PicksFourRows) {
  Global g(32 * 12);
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 16; ++x) g.set<uint16_t>(32 * y + 2 * x, uint16_t(y << 8 | x));
  TensorMap m = tiled(DataType::kBFloat16, 2, g.base, {16, 12}, {32}, {8, 1});
  std::vector<uint8_t> smem(1024, 0xEE);
  Coords c;
  int rows[4] = {5, 2, 12, 0};  // row 12 is out of bounds
  c.c[0] = 4;
  for (int r = 0; r < 4; ++r) c.c[1 + r] = rows[r];
  auto o = tma::load(m, LoadMode::kTileGather4, c, g.reader(), smem, 0);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(o.tx_bytes, 64u);
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 8; ++j) {
      uint16_t want = rows[r] < 12 ? uint16_t(rows[r] << 8 | (4 + j)) : 0;
      EXPECT_EQ(sm<uint16_t>(smem, 16 * r + 2 * j), want);
    }
  // box dim 1 must be 1
  TensorMap b = tiled(DataType::kBFloat16, 2, g.base, {16, 12}, {32}, {8, 2});
  EXPECT_EQ(tma::load(b, LoadMode::kTileGather4, c, g.reader(), smem, 0).status, Status::kBadOperand);
}

TEST(TmaStore, Scatter4AndOobElementsNotWritten) {
  Global g(32 * 6, 0x11);
  TensorMap m = tiled(DataType::kUInt16, 2, g.base, {12, 6}, {32}, {8, 1});
  std::vector<uint8_t> smem(1024);
  for (int i = 0; i < 64; ++i) smem[i] = uint8_t(0x80 + i);
  Coords c;
  int rows[4] = {4, 1, 7, 0};  // row 7 out of bounds; columns 8..11 of 6..13 in bounds
  c.c[0] = 6;
  for (int r = 0; r < 4; ++r) c.c[1 + r] = rows[r];
  auto o = tma::store(m, StoreMode::kTileScatter4, c, smem, 0, g.writer());
  ASSERT_TRUE(o.ok()) << o.message;
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 16; ++x) {
      int r = -1;
      for (int k = 0; k < 4; ++k)
        if (rows[k] == y) r = k;
      uint16_t got = g.at<uint16_t>(32 * y + 2 * x);
      if (r >= 0 && x >= 6 && x < 12) EXPECT_EQ(got, sm<uint16_t>(smem, 16 * r + 2 * (x - 6)));
      else EXPECT_EQ(got, 0x1111) << x << "," << y;
    }
  c.c[2] = -1;
  EXPECT_EQ(tma::store(m, StoreMode::kTileScatter4, c, smem, 0, g.writer()).status, Status::kBadOperand);
}

TEST(TmaStore, TiledStoreSkipsOutOfBoundAndRejectsNegativeStart) {
  Global g(16 * 3, 0);
  TensorMap m = tiled(DataType::kUInt32, 2, g.base, {3, 3}, {16}, {4, 4});
  std::vector<uint8_t> smem(256);
  for (int i = 0; i < 64; ++i) smem[i] = uint8_t(i + 1);
  Coords c;
  c.c[0] = 1;
  c.c[1] = 1;
  ASSERT_TRUE(tma::store(m, StoreMode::kTile, c, smem, 0, g.writer()).ok());
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      uint32_t got = g.at<uint32_t>(16 * y + 4 * x);
      if (y >= 1 && x >= 1 && x < 3) EXPECT_EQ(got, sm<uint32_t>(smem, 16 * (y - 1) + 4 * (x - 1)));
      else EXPECT_EQ(got, 0u);
    }
  c.c[0] = -1;
  EXPECT_EQ(tma::store(m, StoreMode::kTile, c, smem, 0, g.writer()).status, Status::kBadOperand);
}

// ---- reductions ----------------------------------------------------------------------------------------
TEST(TmaReduce, IntegerAndHalfOperations) {
  Global g(64);
  TensorMap m = tiled(DataType::kUInt32, 1, g.base, {12}, {}, {4});
  std::vector<uint8_t> smem(64);
  uint32_t src[4] = {5, 0, 7, 0xFFFFFFFF};
  std::memcpy(smem.data(), src, 16);
  uint32_t old[4] = {5, 3, 2, 1};
  auto reset = [&] {
    std::memset(g.mem.data(), 0, 64);
    std::memcpy(g.mem.data() + 40, old, 16);  // elements 10..13; 12, 13 are out of bounds
  };
  Coords c;
  c.c[0] = 10;
  auto run = [&](tma::RedOp op) {
    reset();
    auto o = tma::reduce(m, op, StoreMode::kTile, c, smem, 0, g.reader(), g.writer());
    EXPECT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(g.at<uint32_t>(48), old[2]);  // not touched: out of bounds
    EXPECT_EQ(g.at<uint32_t>(52), old[3]);
    return std::pair<uint32_t, uint32_t>(g.at<uint32_t>(40), g.at<uint32_t>(44));
  };
  EXPECT_EQ(run(tma::RedOp::kAdd), std::make_pair(10u, 3u));
  EXPECT_EQ(run(tma::RedOp::kInc), std::make_pair(0u, 0u));  // old >= src -> 0
  EXPECT_EQ(run(tma::RedOp::kDec), std::make_pair(4u, 0u));  // old > src -> src; else old - 1
  EXPECT_EQ(run(tma::RedOp::kMin), std::make_pair(5u, 0u));
  EXPECT_EQ(run(tma::RedOp::kXor), std::make_pair(0u, 3u));

  // f16 add / max
  Global h(32);
  TensorMap mh = tiled(DataType::kFloat16, 1, h.base, {8}, {}, {8});
  std::vector<uint8_t> s2(64);
  uint16_t a[8] = {0x3C00, 0x4000, 0xC000, 0x7C00, 0, 0x8000, 0x3800, 0x7E00};
  uint16_t b[8] = {0x3C00, 0x3C00, 0x4000, 0x3C00, 0x8000, 0, 0x3800, 0x3C00};
  std::memcpy(h.mem.data(), a, 16);
  std::memcpy(s2.data(), b, 16);
  ASSERT_TRUE(tma::reduce(mh, tma::RedOp::kAdd, StoreMode::kTile, Coords{}, s2, 0, h.reader(), h.writer()).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h.at<uint16_t>(2 * i), num::add_f16(a[i], b[i])) << i;
  EXPECT_EQ(h.at<uint16_t>(0), 0x4000);
  std::memcpy(h.mem.data(), a, 16);
  ASSERT_TRUE(tma::reduce(mh, tma::RedOp::kMax, StoreMode::kTile, Coords{}, s2, 0, h.reader(), h.writer()).ok());
  EXPECT_EQ(h.at<uint16_t>(4), 0x4000);   // max(-2, 2)
  EXPECT_EQ(h.at<uint16_t>(14), 0x3C00);  // NaN is ignored by max
}

TEST(TmaReduce, TypeTable) {
  using R = tma::RedOp;
  EXPECT_TRUE(tma::reduction_supported(R::kAdd, DataType::kFloat32));
  EXPECT_FALSE(tma::reduction_supported(R::kAdd, DataType::kInt64));
  EXPECT_FALSE(tma::reduction_supported(R::kAdd, DataType::kFloat64));
  EXPECT_FALSE(tma::reduction_supported(R::kMin, DataType::kFloat32));
  EXPECT_TRUE(tma::reduction_supported(R::kMin, DataType::kInt64));
  EXPECT_TRUE(tma::reduction_supported(R::kMax, DataType::kBFloat16));
  EXPECT_FALSE(tma::reduction_supported(R::kInc, DataType::kInt32));
  EXPECT_TRUE(tma::reduction_supported(R::kXor, DataType::kInt64));
  EXPECT_FALSE(tma::reduction_supported(R::kAnd, DataType::kUInt16));
  EXPECT_FALSE(tma::reduction_supported(R::kAnd, DataType::k16U4Align8B));
  Global g(64);
  TensorMap m = tiled(DataType::kFloat32, 1, g.base, {16}, {}, {4});
  std::vector<uint8_t> smem(64);
  EXPECT_EQ(tma::reduce(m, R::kMin, StoreMode::kTile, Coords{}, smem, 0, g.reader(), g.writer()).status,
            Status::kUnsupported);
}

// ---- im2col ----------------------------------------------------------------------------------------------
TEST(TmaLoad, Im2colPtxExample1) {
  // PTX ISA 5.5.4.1 example 1: NHWC 64 x 14 x 9 x 64 (C=64, W=9, H=14, N=64) u8, 64 pixels of
  // 8 channels, corners (-1,-1)/(-1,-1), coordinates (c=7, w=7, h=4, n=0), offsets (0,0).
  const uint64_t C = 64, W = 9, H = 14, N = 2;
  Global g(C * W * H * N);
  for (size_t i = 0; i < g.mem.size(); ++i) g.mem[i] = uint8_t(i * 7 + 3);
  uint64_t dims[4] = {C, W, H, N};
  uint64_t strides[3] = {C, C * W, C * W * H};
  int32_t lo[2] = {-1, -1}, hi[2] = {-1, -1};
  uint32_t es[4] = {1, 1, 1, 1};
  tmap::CUtensorMap cm;
  ASSERT_TRUE(tmap::encode_im2col(&cm, DataType::kUInt8, 4, g.base, dims, strides, lo, hi, 8, 64, es,
                                  Interleave::kNone, Swizzle::kNone, L2Promotion::kNone, OobFill::kNone).ok());
  TensorMap m = tmap::decode(cm).map;
  std::vector<uint8_t> smem(1024, 0xEE);
  Coords c;
  c.c[0] = 7;
  c.c[1] = 7;
  c.c[2] = 4;
  c.c[3] = 0;
  auto o = tma::load(m, LoadMode::kIm2col, c, g.reader(), smem, 0);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(o.tx_bytes, 64u * 8u);
  // The box spans w in [-1, 7] and h in [-1, 12]; pixels walk W first from (w=7, h=4).
  int w = 7, h = 4, n = 0;
  for (int k = 0; k < 64; ++k) {
    for (int ch = 0; ch < 8; ++ch) {
      bool inb = w >= 0 && w < int(W) && h >= 0 && h < int(H);
      uint8_t want = inb ? g.mem[(size_t(n) * H * W + size_t(h) * W + size_t(w)) * C + 7 + ch] : 0;
      ASSERT_EQ(smem[8 * k + ch], want) << "pixel " << k;
    }
    if (++w > 7) {
      w = -1;
      if (++h > 12) {
        h = -1;
        ++n;
      }
    }
  }
  // The filter base must lie inside the bounding box.
  c.c[1] = 8;
  EXPECT_EQ(tma::load(m, LoadMode::kIm2col, c, g.reader(), smem, 0).status, Status::kBadOperand);
  // Offsets over 8 bits are invalid for a 4-D tensor.
  c.c[1] = 7;
  c.im2col_offsets[0] = 256;
  EXPECT_EQ(tma::load(m, LoadMode::kIm2col, c, g.reader(), smem, 0).status, Status::kBadOperand);
}

// im2col::w / im2col::w::128 against a reference written from PTX 5.5.5: the pixel positions are
// listed image by image (N), each row of the bounding box from its lower corner (the first row from
// W + wOffset) at the traversal stride, and the image takes them in order in groups (all P pixels
// for ::w; 32 for ::w::128, four times), each group followed by wHalo more positions of the list.
TEST(TmaLoad, Im2colWideModesMatchTheReferenceWalk) {
  const uint64_t seed = tma_test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return lo + int64_t(rng() % uint64_t(hi - lo + 1)); };
  for (int iter = 0; iter < 60; ++iter) {
    const bool w128 = iter % 2;
    const uint32_t rank = uint32_t(pick(3, 5));
    const uint32_t esize = 2, cpp = 32;  // 64-byte rows: fits every wide swizzle span
    uint64_t dims[5] = {uint64_t(pick(32, 48)), uint64_t(pick(3, 12)), 1, 1, 1};
    for (uint32_t d = 2; d < rank; ++d) dims[d] = uint64_t(pick(1, 4));
    uint64_t strides[4];
    strides[0] = (dims[0] * esize + 15) / 16 * 16;
    for (uint32_t d = 1; d + 1 < rank; ++d) strides[d] = strides[d - 1] * dims[d];
    const uint64_t total = strides[rank - 2] * dims[rank - 1];
    uint32_t es[5] = {1, uint32_t(pick(1, 3)), 1, 1, 1};
    const int32_t lower = int32_t(pick(-2, 0)), upper = int32_t(pick(-2, 1));
    const uint32_t ppc = uint32_t(pick(1, 40));
    const Swizzle sws[] = {Swizzle::k64B, Swizzle::k128B, Swizzle::k128BAtom32B};
    const Swizzle sw = sws[rng() % 3];
    Global g(total);
    for (auto& b : g.mem) b = uint8_t(rng());
    tmap::CUtensorMap cm;
    auto e = tmap::encode_im2col_wide(&cm, DataType::kFloat16, rank, g.base, dims, strides, lower, upper, cpp, ppc, es,
                                      Interleave::kNone, w128 ? tmap::Im2colWideMode::kW128 : tmap::Im2colWideMode::kW,
                                      sw, L2Promotion::kNone, OobFill::kNone);
    ASSERT_TRUE(e.ok()) << e.message;
    TensorMap m = tmap::decode(cm).map;
    Coords c;
    const uint32_t halo = uint32_t(pick(0, 5)), woff = uint32_t(pick(0, 2));
    const int64_t lo = lower + int64_t(woff), hi = int64_t(dims[1]) - 1 + upper + woff;
    c.c[0] = int32_t(pick(-8, 8));
    c.c[1] = int32_t(pick(lower - 3, hi - woff));
    for (uint32_t d = 2; d < rank; ++d) c.c[d] = int32_t(pick(-1, int64_t(dims[d])));
    c.w_halo = uint16_t(halo);
    c.w_offset = uint16_t(woff);
    SCOPED_TRACE("iter " + std::to_string(iter));

    // Reference: the pixel list, then the groups.
    const uint64_t group = w128 ? 32 : ppc, groups = w128 ? 4 : 1, rows = groups * (group + halo);
    std::vector<std::pair<int64_t, int64_t>> list;  // (w, n)
    for (int64_t n = c.c[rank - 1]; list.size() < groups * group + halo; ++n)
      for (int64_t w = (n == c.c[rank - 1] ? c.c[1] + int64_t(woff) : lo); w <= hi; w += es[1]) list.push_back({w, n});
    const uint32_t pitch = cpp * esize, bytes = uint32_t(rows) * pitch;
    EXPECT_EQ(tma::box_image_bytes(m, w128 ? LoadMode::kIm2colW128 : LoadMode::kIm2colW, halo), bytes);
    std::vector<uint8_t> want(8192 + 4096, 0x5A), got(8192 + 4096, 0x5A);
    const uint32_t dst = 1024;
    for (uint64_t r = 0; r < rows; ++r) {
      auto [w, n] = list[(r / (group + halo)) * group + r % (group + halo)];
      bool in = w >= 0 && uint64_t(w) < dims[1] && n >= 0 && uint64_t(n) < dims[rank - 1];
      uint64_t off = (in ? uint64_t(w) * strides[0] + uint64_t(n) * strides[rank - 2] : 0);
      for (uint32_t d = 2; d + 1 < rank; ++d) {
        if (c.c[d] < 0 || uint64_t(c.c[d]) >= dims[d]) in = false;
        else off += uint64_t(c.c[d]) * strides[d - 1];
      }
      for (uint32_t k = 0; k < cpp; ++k) {
        const int64_t ch = c.c[0] + k;
        const bool ok = in && ch >= 0 && uint64_t(ch) < dims[0];
        for (uint32_t b = 0; b < esize; ++b)
          want[tma_test::ref_swizzle(sw, uint32_t(dst + r * pitch + k * esize + b))] = ok ? g.mem[off + ch * esize + b] : 0;
      }
    }
    auto o = tma::load(m, w128 ? LoadMode::kIm2colW128 : LoadMode::kIm2colW, c, g.reader(), got, dst);
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(o.tx_bytes, bytes);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "shared byte " << i;
  }
}

TEST(TmaLoad, Im2colWideRulesAreChecked) {
  uint64_t dims[3] = {64, 32, 2};
  uint64_t strides[2] = {128, 128 * 32};
  uint32_t es[3] = {1, 1, 1};
  tmap::CUtensorMap cm;
  ASSERT_TRUE(tmap::encode_im2col_wide(&cm, DataType::kFloat16, 3, 0x10000, dims, strides, 0, 0, 64, 32, es,
                                       Interleave::kNone, tmap::Im2colWideMode::kW, Swizzle::k128B,
                                       L2Promotion::kNone, OobFill::kNone).ok());
  TensorMap m = tmap::decode(cm).map;
  Global g(16);
  std::vector<uint8_t> smem(65536);
  auto msg = [&](LoadMode mode, Coords c) { return tma::load(m, mode, c, g.reader(), smem, 0).message; };
  EXPECT_NE(msg(LoadMode::kIm2colW128, Coords{}).find(".im2col::w::128 needs a tensor map encoded with "
                                                      "CU_TENSOR_MAP_IM2COL_WIDE_TYPE_W128"),
            std::string::npos);
  Coords c;
  c.w_halo = 512;
  EXPECT_NE(msg(LoadMode::kIm2colW, c).find(".im2col::w: wHalo 512 is not below 512"), std::string::npos);
  c.w_halo = 0;
  c.w_offset = 32;
  EXPECT_NE(msg(LoadMode::kIm2colW, c).find(".im2col::w: wOffset 32 is not below 32"), std::string::npos);
  c.w_offset = 1;
  c.c[1] = 31;  // W = 31 + 1 = 32 is the bounding box's upper corner 32 - 1 + 0 + 1: accepted
  EXPECT_EQ(msg(LoadMode::kIm2colW, c).find("bounding box"), std::string::npos);
  c.c[1] = 32;
  EXPECT_NE(msg(LoadMode::kIm2colW, c).find("the first pixel's W (33, wOffset included) lies right of the bounding box "
                                            "[1, 32]; only its left side may be outside"),
            std::string::npos);
  EXPECT_NE(msg(LoadMode::kIm2col, Coords{}).find("this mode needs an im2col tensor map"), std::string::npos);
}

// ---- packed sub-byte types ----------------------------------------------------------------------------
TEST(TmaLoad, PackedNibblesAndPaddedGroups) {
  // 16U4_ALIGN8B: 4-bit values, two per byte, low nibble first; box of 32 values = 16 bytes.
  Global g(64);
  for (int i = 0; i < 64; ++i) g.mem[i] = uint8_t(i);
  TensorMap m = tiled(DataType::k16U4Align8B, 1, g.base, {100}, {}, {32});
  std::vector<uint8_t> smem(64, 0xEE);
  Coords c;
  c.c[0] = 81;  // odd start: nibbles shift; values 81..99 in bounds, 100..112 out
  ASSERT_TRUE(tma::load(m, LoadMode::kTile, c, g.reader(), smem, 0).ok());
  for (int j = 0; j < 32; ++j) {
    int v = 81 + j;
    uint8_t want = v < 100 ? uint8_t((g.mem[v / 2] >> (4 * (v & 1))) & 0xF) : 0;
    EXPECT_EQ((smem[j / 2] >> (4 * (j & 1))) & 0xF, want) << j;
  }

  // 16U4_ALIGN16B: each 8 packed bytes are followed by an 8-byte gap in shared memory that is left
  // uninitialised (untouched here).
  Global p(64 * 2);
  for (size_t i = 0; i < p.mem.size(); ++i) p.mem[i] = uint8_t(0x40 + i);
  TensorMap mp = tiled(DataType::k16U4Align16B, 2, p.base, {128, 2}, {64}, {128, 1}, {}, Interleave::kNone,
                       Swizzle::kNone);
  std::vector<uint8_t> s2(256, 0xEE);
  Coords c2;
  c2.c[1] = 1;
  const tma::Outcome o2 = tma::load(mp, LoadMode::kTile, c2, p.reader(), s2, 0);
  ASSERT_TRUE(o2.ok()) << o2.message;
  // The transaction is the 64 packed bytes read, not the 128-byte padded image.
  EXPECT_EQ(o2.tx_bytes, 64u);
  EXPECT_EQ(tma::box_tx_bytes(mp, LoadMode::kTile), 64u);
  EXPECT_EQ(tma::box_image_bytes(mp, LoadMode::kTile), 128u);
  for (int q = 0; q < 8; ++q)
    for (int k = 0; k < 16; ++k) EXPECT_EQ(s2[16 * q + k], k < 8 ? p.mem[64 + 8 * q + k] : 0xEE);
  c2.c[0] = 64;  // the first coordinate must be a multiple of 128
  EXPECT_EQ(tma::load(mp, LoadMode::kTile, c2, p.reader(), s2, 0).status, Status::kBadOperand);
  EXPECT_EQ(tma::store(mp, StoreMode::kTile, Coords{}, s2, 0, p.writer()).status, Status::kUnsupported);
}

TEST(TmaStore, Packed6BitStoreDropsPadBits) {
  // .b6p2x16: 16 shared bytes with a 6-bit value in bits 5:0 each -> 12 packed global bytes.
  Global g(96 * 2, 0);
  TensorMap m = tiled(DataType::k16U6Align16B, 1, g.base, {128}, {}, {128});
  std::vector<uint8_t> smem(256);
  for (int i = 0; i < 128; ++i) smem[i] = uint8_t(0xC0 | (i * 5 % 64));  // pad bits set: must be dropped
  ASSERT_TRUE(tma::store(m, StoreMode::kTile, Coords{}, smem, 0, g.writer()).ok());
  for (int i = 0; i < 128; ++i) {
    uint32_t bit = 6 * i, v = 0;
    for (int b = 0; b < 6; ++b) v |= uint32_t((g.mem[(bit + b) / 8] >> ((bit + b) % 8)) & 1) << b;
    EXPECT_EQ(v, uint32_t(i * 5 % 64)) << i;
  }
  for (int i = 96; i < 192; ++i) EXPECT_EQ(g.mem[i], 0);
}

}  // namespace
}  // namespace ptxsim::tmatest
