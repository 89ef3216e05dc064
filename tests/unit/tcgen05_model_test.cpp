// Unit and property tests of the tcgen05 hardware models: the TMEM address and allocator
// (model/tmem), the instruction and shared-memory descriptors (decode/encode round trips, the
// rules validate() names), and the tcgen05.ld/st register-to-cell mappings.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <set>

#include "model/tcgen05/descriptors.h"
#include "model/tcgen05/ldst.h"
#include "model/tcgen05/mma.h"
#include "model/tmem/tmem.h"

namespace t5 = ptxsim::model::tcgen05;
namespace tmem = ptxsim::model::tmem;

namespace {

bool contains(const std::optional<std::string>& s, const std::string& what) {
  return s && s->find(what) != std::string::npos;
}

}  // namespace

// ---- TMEM address and allocator ------------------------------------------------------------------

TEST(Tmem, AddressFieldsAreLaneHighColumnLow) {
  const tmem::TmemAddr a = tmem::TmemAddr::decode(0x00200040u);
  EXPECT_EQ(a.lane, 32u);
  EXPECT_EQ(a.column, 64u);
  EXPECT_EQ((tmem::TmemAddr{96, 511}).encode(), (96u << 16) | 511u);
}

TEST(TmemAllocator, PowersOfTwoFrom32To512Only) {
  for (uint32_t n : {0u, 16u, 31u, 48u, 96u, 1024u}) {
    tmem::TmemAllocator a;
    auto r = a.alloc(n, 1, 1);
    EXPECT_EQ(r.status, tmem::TmemAllocator::Status::Error) << n;
    EXPECT_NE(r.message.find("is not a power of two from 32 to 512"), std::string::npos) << r.message;
  }
  for (uint32_t n : {32u, 64u, 128u, 256u, 512u}) {
    tmem::TmemAllocator a;
    EXPECT_EQ(a.alloc(n, 1, 1).status, tmem::TmemAllocator::Status::Ok) << n;
  }
}

TEST(TmemAllocator, BlocksWhenFullAndResumesAfterDealloc) {
  tmem::TmemAllocator a;
  auto r1 = a.alloc(256, 1, 1), r2 = a.alloc(256, 1, 2);
  ASSERT_EQ(r1.status, tmem::TmemAllocator::Status::Ok);
  ASSERT_EQ(r2.status, tmem::TmemAllocator::Status::Ok);
  EXPECT_NE(r1.column, r2.column);
  EXPECT_EQ(a.alloc(32, 1, 3).status, tmem::TmemAllocator::Status::Blocked);
  EXPECT_FALSE(a.dealloc(r1.column, 256, 1));
  auto r3 = a.alloc(32, 1, 3);
  EXPECT_EQ(r3.status, tmem::TmemAllocator::Status::Ok);
  EXPECT_EQ(r3.column, r1.column);
}

TEST(TmemAllocator, RulesAreNamed) {
  tmem::TmemAllocator a;
  ASSERT_EQ(a.alloc(64, 1, 1).status, tmem::TmemAllocator::Status::Ok);
  EXPECT_TRUE(contains(a.dealloc(0, 32, 1), "are not one live allocation; live: [0, 64)"));
  EXPECT_TRUE(contains(a.dealloc(0, 64, 2), "uses .cta_group::2 but an earlier tcgen05 instruction of this CTA used .cta_group::1"));
  EXPECT_FALSE(a.relinquish(1));
  auto r = a.alloc(32, 1, 5);
  EXPECT_EQ(r.status, tmem::TmemAllocator::Status::Error);
  EXPECT_NE(r.message.find("alloc after tcgen05.relinquish_alloc_permit"), std::string::npos);
  ASSERT_EQ(a.live().size(), 1u);  // the leak a CTA exit would report
  EXPECT_EQ(a.live()[0].line, 1u);
}

// Any sequence of allocs and deallocs: live allocations never overlap, stay inside 512 columns,
// an alloc blocks exactly when no gap of its size exists, and free columns add up.
RC_GTEST_PROP(TmemAllocator, RandomSequencesKeepAllocationsDisjoint, ()) {
  tmem::TmemAllocator a;
  const auto ops = *rc::gen::container<std::vector<std::pair<bool, uint32_t>>>(
      rc::gen::pair(rc::gen::arbitrary<bool>(), rc::gen::inRange<uint32_t>(0, 5)));
  for (auto [is_alloc, v] : ops) {
    if (is_alloc || a.live().empty()) {
      const uint32_t n = 32u << v;
      // Is there a 32-aligned gap of n free columns?
      bool gap = false;
      for (uint32_t c = 0; c + n <= 512 && !gap; c += 32) {
        bool free = true;
        for (const auto& x : a.live()) free &= c + n <= x.column || x.column + x.ncols <= c;
        gap = free;
      }
      auto r = a.alloc(n, 1, 0);
      RC_ASSERT((r.status == tmem::TmemAllocator::Status::Ok) == gap);
      if (r.status == tmem::TmemAllocator::Status::Ok) RC_ASSERT(a.allocated(r.column, n));
    } else {
      const auto x = a.live()[v % a.live().size()];
      RC_ASSERT(!a.dealloc(x.column, x.ncols, 1));
      RC_ASSERT(!a.allocated(x.column, 32));
    }
    uint32_t used = 0;
    for (size_t i = 0; i < a.live().size(); ++i) {
      const auto& x = a.live()[i];
      RC_ASSERT(x.column % 32 == 0);
      RC_ASSERT(x.column + x.ncols <= 512u);
      used += x.ncols;
      for (size_t j = i + 1; j < a.live().size(); ++j) {
        const auto& y = a.live()[j];
        RC_ASSERT(x.column + x.ncols <= y.column || y.column + y.ncols <= x.column);
      }
    }
    RC_ASSERT(a.free_columns() == 512 - used);
  }
}

// ---- descriptors ----------------------------------------------------------------------------------

RC_GTEST_PROP(Tcgen05Descriptors, InstrDescriptorDecodeEncodeRoundTrip, (uint32_t w)) {
  RC_ASSERT(t5::InstrDescriptor::decode(w).encode() == w);
  RC_ASSERT(t5::InstrDescriptorBlockScaled::decode(w).encode() == w);
}

RC_GTEST_PROP(Tcgen05Descriptors, SmemDescriptorDecodeEncodeRoundTrip, (uint64_t w)) {
  RC_ASSERT(t5::SmemDescriptor::decode(w).encode() == w);
}

namespace {

// A random valid dense instruction descriptor for kind f16/tf32/f8f6f4/i8, cta_group::1.
rc::Gen<std::pair<t5::Kind, t5::InstrDescriptor>> gen_valid_idesc() {
  return rc::gen::exec([] {
    const t5::Kind kind = *rc::gen::element(t5::Kind::F16, t5::Kind::TF32, t5::Kind::F8F6F4, t5::Kind::I8);
    t5::InstrDescriptor d;
    switch (kind) {
      case t5::Kind::F16:
        d.a_format = d.b_format = *rc::gen::inRange<uint32_t>(0, 2);
        d.d_format = d.a_format == 1 ? 1 : *rc::gen::inRange<uint32_t>(0, 2);
        break;
      case t5::Kind::TF32: d.a_format = d.b_format = 2, d.d_format = 1; break;
      case t5::Kind::F8F6F4:
        d.a_format = *rc::gen::element<uint32_t>(0, 1, 3, 4, 5);
        d.b_format = *rc::gen::element<uint32_t>(0, 1, 3, 4, 5);
        d.d_format = *rc::gen::inRange<uint32_t>(0, 2);
        break;
      default:
        d.a_format = *rc::gen::inRange<uint32_t>(0, 2);
        d.b_format = *rc::gen::inRange<uint32_t>(0, 2);
        d.d_format = 2;
        d.saturate = *rc::gen::inRange<uint32_t>(0, 2);
    }
    if (kind != t5::Kind::I8) {
      d.negate_a = *rc::gen::inRange<uint32_t>(0, 2);
      d.negate_b = *rc::gen::inRange<uint32_t>(0, 2);
    }
    d.a_major = *rc::gen::inRange<uint32_t>(0, 2);
    d.b_major = *rc::gen::inRange<uint32_t>(0, 2);
    d.m_dim = *rc::gen::element<uint32_t>(4, 8);
    d.n_dim = kind == t5::Kind::I8 ? *rc::gen::element<uint32_t>(1, 2, 3, 4, 6, 8, 16, 30, 32)
                                   : *rc::gen::inRange<uint32_t>(1, 33);
    return std::make_pair(kind, d);
  });
}

}  // namespace

RC_GTEST_PROP(Tcgen05Descriptors, ValidInstrDescriptorsPassAndEachBrokenFieldIsNamed, ()) {
  auto [kind, d] = *gen_valid_idesc();
  t5::MmaContext ctx{kind, 1, false, false};
  const auto ok = t5::validate(d, ctx);
  RC_ASSERT(!ok);
  RC_ASSERT(t5::InstrDescriptor::decode(d.encode()).encode() == d.encode());
  // Break one field; the message names it with its bit range.
  const int which = *rc::gen::inRange(0, 6);
  t5::InstrDescriptor bad = d;
  std::string field;
  switch (which) {
    case 0: bad.reserved23 = 1, field = "bit 23"; break;
    case 1: bad.sparse = 1, field = "sparse (bit 2)"; break;
    case 2: bad.m_dim = 2, field = "M >> 4 (bits 28:24)"; break;
    case 3: bad.n_dim = 0, field = "N >> 3 (bits 22:17)"; break;
    case 4: bad.max_shift = 1, field = "max shift (bits 31:30)"; break;
    default: bad.d_format = 3, field = "D format (bits 5:4)"; break;
  }
  const auto e = t5::validate(bad, ctx);
  RC_ASSERT(e.has_value());
  RC_ASSERT(e->find(field) != std::string::npos);
}

TEST(Tcgen05Descriptors, InstrDescriptorRulesPerKind) {
  t5::InstrDescriptor d;
  d.a_format = d.b_format = 1;  // BF16
  d.d_format = 0;               // F16 output
  d.m_dim = 8;
  d.n_dim = 8;
  EXPECT_TRUE(contains(t5::validate(d, {t5::Kind::F16, 1, false, false}), "D format (bits 5:4) must be F32 (1) with BF16 inputs"));
  d.d_format = 1;
  EXPECT_FALSE(t5::validate(d, {t5::Kind::F16, 1, false, false}));
  d.m_dim = 16;  // M = 256 needs cta_group::2
  EXPECT_TRUE(contains(t5::validate(d, {t5::Kind::F16, 1, false, false}), "M = 256 is not a valid M for kind::f16 with .cta_group::1"));
  EXPECT_FALSE(t5::validate(d, {t5::Kind::F16, 2, false, false}));
  d.n_dim = 1;  // N = 8 is not a multiple of 16 with cta_group::2
  EXPECT_TRUE(contains(t5::validate(d, {t5::Kind::F16, 2, false, false}), "N = 8 is not a multiple of 16 from 16 to 256"));
  t5::InstrDescriptor i8;
  i8.d_format = 2;
  i8.m_dim = 8;
  i8.n_dim = 5;  // N = 40: not allowed for i8 (8,16,24,32 then steps of 16)
  EXPECT_TRUE(contains(t5::validate(i8, {t5::Kind::I8, 1, false, false}), "N = 40 is not 8, 16, 24, 32"));
  i8.n_dim = 6;
  EXPECT_FALSE(t5::validate(i8, {t5::Kind::I8, 1, false, false}));
  i8.negate_a = 1;
  EXPECT_TRUE(contains(t5::validate(i8, {t5::Kind::I8, 1, false, false}), "negate A (bit 13) is not allowed for kind::i8"));
  t5::InstrDescriptor tf;
  tf.a_format = 2, tf.b_format = 2, tf.d_format = 0, tf.m_dim = 8, tf.n_dim = 4;
  EXPECT_TRUE(contains(t5::validate(tf, {t5::Kind::TF32, 1, false, false}), "must be F32 (1) for kind::tf32"));
}

TEST(Tcgen05Descriptors, SmemDescriptorRules) {
  t5::SmemDescriptor d;
  d.version = 1;
  d.layout_type = 2;
  d.start_address = 0x400 >> 4;
  EXPECT_FALSE(t5::validate(d));
  d.version = 0;
  EXPECT_TRUE(contains(t5::validate(d), "version (bits 48:46) = 0 must be 0b001 on sm_100"));
  d.version = 1;
  d.layout_type = 5;
  EXPECT_TRUE(contains(t5::validate(d), "layout type (bits 63:61) = 5 is not a layout"));
  d.layout_type = 2;
  d.start_address = 0x480 >> 4;  // row 1 of a 1024-byte 128B-swizzle pattern
  for (uint32_t b = 0; b < 8; ++b) {  // the descriptor does not say where the pattern starts
    d.base_offset = b;
    EXPECT_FALSE(t5::validate(d)) << "base offset " << b << ": " << t5::validate(d).value_or("");
  }
  d.layout_type = 0;  // no swizzle: no pattern to align, the base offset is ignored (any value)
  for (uint32_t b = 0; b < 8; ++b) {
    d.base_offset = b;
    EXPECT_FALSE(t5::validate(d)) << "base offset " << b << ": " << t5::validate(d).value_or("");
  }
  d.base_offset = 0;
  d.reserved53 = 4;
  EXPECT_TRUE(contains(t5::validate(d), "bits 60:53 are reserved"));
}

RC_GTEST_PROP(Tcgen05Descriptors, RandomSmemDescriptorsAreValidExactlyWhenTheRulesHold, (uint64_t w)) {
  const t5::SmemDescriptor d = t5::SmemDescriptor::decode(w);
  const uint32_t sw = d.layout_type == 2 ? 128 : d.layout_type == 4 ? 64 : d.layout_type == 6 ? 32 : 0;
  const bool layout_ok = d.layout_type == 0 || sw != 0;
  const bool expect_ok = d.version == 1 && !d.reserved14 && !d.reserved30 && !d.reserved53 && layout_ok && !d.lbo_mode;
  RC_ASSERT(!t5::validate(d).has_value() == expect_ok);
}

// ---- shared-memory operand addressing ------------------------------------------------------------

// Within one 8-row x 128-byte K-major 128B-swizzle atom the 16-byte chunks of a row are permuted
// by XOR with the row index, so the (row, chunk) -> chunk map is a bijection onto the atom.
TEST(Tcgen05Operands, Swizzled128BAtomIsAPermutationOfItsChunks) {
  t5::SmemDescriptor d;
  d.version = 1, d.layout_type = 2, d.start_address = 0x2000 >> 4, d.stride_offset = 1024 >> 4;
  std::set<uint32_t> chunks;
  for (uint32_t m = 0; m < 8; ++m)
    for (uint32_t k = 0; k < 64; k += 8) {  // f16: 8 elements per chunk
      const uint32_t a = t5::element_address(d, t5::Major::K, 2, m, k);
      EXPECT_EQ(a / 128, 0x2000 / 128 + m);
      EXPECT_EQ((a % 128) / 16, (k / 8) ^ m);
      chunks.insert(a / 16);
    }
  EXPECT_EQ(chunks.size(), 64u);
}

// The base offset places the swizzle pattern's row 0. A tile whose pattern is anchored at an
// aligned address (as TMA writes it) read from its row 4 (CUTLASS's descriptor: start 0x600, base
// offset 0) swizzles with the absolute row; a tile whose own pattern starts at 0x600 (row 0 there)
// is described with base offset (0x600 >> 7) & 7 = 4, as the PTX ISA's formula gives.
TEST(Tcgen05Operands, BaseOffsetPlacesThePatternsFirstRow) {
  t5::SmemDescriptor d;
  d.version = 1, d.layout_type = 2, d.start_address = 0x600 >> 4, d.stride_offset = 1024 >> 4;
  for (uint32_t m = 0; m < 4; ++m)
    for (uint32_t k = 0; k < 64; k += 8) {
      d.base_offset = 0;  // pattern anchored at 0x400: matrix row m is pattern row 4 + m
      uint32_t a = t5::element_address(d, t5::Major::K, 2, m, k);
      EXPECT_EQ(a / 128, 0x600 / 128 + m);
      EXPECT_EQ((a % 128) / 16, (k / 8) ^ (4 + m));
      d.base_offset = 4;  // pattern anchored at 0x600: matrix row m is pattern row m
      a = t5::element_address(d, t5::Major::K, 2, m, k);
      EXPECT_EQ(a / 128, 0x600 / 128 + m);
      EXPECT_EQ((a % 128) / 16, (k / 8) ^ m);
    }
}

TEST(Tcgen05Operands, NoSwizzleKMajorCoreMatrices) {
  t5::SmemDescriptor d;
  d.version = 1, d.start_address = 0x1000 >> 4, d.leading_offset = 256 >> 4, d.stride_offset = 512 >> 4;
  // Core matrix (m/8, kbyte/16) at start + (m/8)*SBO + (kbyte/16)*LBO, row m%8 at 16 bytes each.
  EXPECT_EQ(t5::element_address(d, t5::Major::K, 2, 0, 0), 0x1000u);
  EXPECT_EQ(t5::element_address(d, t5::Major::K, 2, 3, 5), 0x1000u + 3 * 16 + 10);
  EXPECT_EQ(t5::element_address(d, t5::Major::K, 2, 9, 8), 0x1000u + 512 + 16 + 256);
  EXPECT_EQ(t5::element_address(d, t5::Major::MN, 1, 17, 9), 0x1000u + 512 + 1 + 16 + 256);
}

// OperandAddresses::bounds (check() skips visiting the chunks when they lie within the CTA's
// shared memory): every chunk for_each_chunk visits, for any descriptor, layout, major-ness, unit
// size and extent, lies inside the bounds.
RC_GTEST_PROP(Tcgen05Operands, ChunkBoundsHoldEveryChunk, ()) {
  t5::SmemDescriptor d;
  d.version = 1;
  d.layout_type = *rc::gen::element(0u, 1u, 2u, 4u, 6u);
  d.start_address = *rc::gen::inRange<uint32_t>(0, 1u << 14);
  d.leading_offset = *rc::gen::inRange<uint32_t>(0, 1u << 14);
  d.stride_offset = *rc::gen::inRange<uint32_t>(0, 1u << 14);
  d.base_offset = *rc::gen::inRange<uint32_t>(0, 8);
  const t5::Major major = *rc::gen::element(t5::Major::K, t5::Major::MN);
  const uint32_t b = *rc::gen::element(1u, 2u, 4u, 8u, 16u);
  const uint32_t rows = *rc::gen::inRange<uint32_t>(1, 260), units = *rc::gen::inRange<uint32_t>(1, 70);
  uint64_t lo = 0, end = 0;
  const bool bounded = t5::OperandAddresses(d).bounds(major, b, rows, units, lo, end);
  RC_PRE(bounded);  // (only swizzled operands starting below 0x70 have none)
  t5::for_each_chunk(d, major, b, rows, units, [&](uint32_t a, uint32_t mn, uint32_t k, uint32_t bytes) {
    RC_ASSERT(uint64_t(a) >= lo);
    RC_ASSERT(uint64_t(a) + bytes <= end);
    (void)mn, (void)k;
  });
}

// ---- tcgen05.ld / st shapes -----------------------------------------------------------------------

// For every shape and .num, the (thread, register) -> (lane, column) map is a bijection onto the
// block of lanes_touched() lanes x columns_spanned() columns.
TEST(Tcgen05LdSt, EveryShapeMapsRegistersOntoItsBlockBijectively) {
  for (auto s : {t5::LdStShape::k32x32b, t5::LdStShape::k16x64b, t5::LdStShape::k16x128b, t5::LdStShape::k16x256b,
                 t5::LdStShape::k16x32bx2})
    for (uint32_t num = 1; num <= 128; num *= 2) {
      const uint32_t regs = t5::regs_per_thread(s, num);
      if (!regs) {
        EXPECT_TRUE((s == t5::LdStShape::k16x128b && num == 128) || (s == t5::LdStShape::k16x256b && num >= 64));
        continue;
      }
      const uint32_t split = s == t5::LdStShape::k16x32bx2 ? num : 0;
      const uint32_t lanes = t5::lanes_touched(s), cols = t5::columns_spanned(s, num, split);
      std::set<std::pair<uint32_t, uint32_t>> seen;
      for (uint32_t t = 0; t < 32; ++t)
        for (uint32_t r = 0; r < regs; ++r) {
          const auto c = t5::cell_of(s, t, r, split);
          EXPECT_LT(c.lane, lanes);
          EXPECT_LT(c.column, cols);
          seen.insert({c.lane, c.column});
        }
      EXPECT_EQ(seen.size(), size_t(32) * regs) << t5::shape_name(s) << ".x" << num;
      EXPECT_EQ(seen.size(), size_t(lanes) * cols) << t5::shape_name(s) << ".x" << num;
    }
}

TEST(Tcgen05LdSt, RegisterCountsFollowThePtxTables) {
  EXPECT_EQ(t5::regs_per_thread(t5::LdStShape::k32x32b, 128), 128u);
  EXPECT_EQ(t5::regs_per_thread(t5::LdStShape::k16x128b, 64), 128u);
  EXPECT_EQ(t5::regs_per_thread(t5::LdStShape::k16x128b, 128), 0u);
  EXPECT_EQ(t5::regs_per_thread(t5::LdStShape::k16x256b, 32), 128u);
  EXPECT_EQ(t5::regs_per_thread(t5::LdStShape::k16x256b, 64), 0u);
  EXPECT_EQ(t5::regs_per_thread(t5::LdStShape::k16x64b, 3), 0u);
}
