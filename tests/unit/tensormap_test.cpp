// Example tests of the CUtensorMap model (model/tensormap): the byte layout against descriptors
// assembled here bit by bit from the published Hopper layout (not through layout.h), the driver
// encoder's accept/reject decisions and messages, decode validity, and tensormap.replace.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "model/tensormap/encoder.h"
#include "model/tensormap/layout.h"
#include "model/tensormap/replace.h"
#include "model/tensormap/tensormap.h"

namespace ptxsim::tmaptest {
namespace {

using namespace ptxsim::model::tmap;

// Independent little-endian bit writer / reader on a 128-byte buffer.
void put(uint8_t* b, unsigned byte, unsigned lsb, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) {
    unsigned bit = byte * 8 + lsb + i;
    uint8_t m = uint8_t(1u << (bit % 8));
    if ((v >> i) & 1) b[bit / 8] |= m;
    else b[bit / 8] &= uint8_t(~m);
  }
}
uint64_t get(const uint8_t* b, unsigned byte, unsigned lsb, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    unsigned bit = byte * 8 + lsb + i;
    v |= uint64_t((b[bit / 8] >> (bit % 8)) & 1) << i;
  }
  return v;
}

constexpr uint64_t kAddr = 0x7f0000010000ull;

TEST(TensorMapLayout, EncodeTiledMatchesHopperLayout) {
  // 2-D bf16 [256 rows x 512 cols], box 64 x 128, 128B swizzle, L2 256B: a typical GEMM operand.
  uint64_t dims[2] = {512, 256};
  uint64_t strides[1] = {1024};
  uint32_t box[2] = {64, 128};
  uint32_t es[2] = {1, 1};
  CUtensorMap m;
  auto r = encode_tiled(&m, DataType::kBFloat16, 2, kAddr, dims, strides, box, es, Interleave::kNone,
                        Swizzle::k128B, L2Promotion::k256B, OobFill::kNone);
  ASSERT_TRUE(r.ok()) << r.message;
  const uint8_t* b = reinterpret_cast<const uint8_t*>(&m);
  uint8_t want[128] = {};
  put(want, 0x00, 0, 64, kAddr);
  put(want, 0x08, 0, 1, 0);    // tiled
  put(want, 0x08, 1, 3, 0);    // version (the driver writes 0)
  put(want, 0x08, 4, 3, 1);    // rank - 1
  put(want, 0x08, 7, 4, 10);   // bf16 in the PTX numbering
  put(want, 0x08, 13, 2, 3);   // 128B swizzle
  put(want, 0x08, 17, 2, 3);   // L2 256B
  put(want, 0x0C, 0, 32, 1024 >> 4);
  put(want, 0x20, 0, 32, 511);
  put(want, 0x24, 0, 32, 255);
  put(want, 0x34, 24, 8, 63);  // boxDim[0] - 1
  put(want, 0x38, 0, 8, 127);  // boxDim[1] - 1
  for (unsigned d = 2; d < 5; ++d) put(want, 0x20 + 4 * d, 0, 32, 0);
  put(want, 0x40, 0, 32, 64 * 128 * 2);  // the bytes of one box, as the driver writes them
  put(want, 0x48, 0, 32, 0x400);         // the driver's code for the 128B swizzle
  EXPECT_EQ(0, std::memcmp(b, want, 128));
  for (unsigned i = 0x50; i < 0x80; ++i) EXPECT_EQ(b[i], 0) << "byte " << i;
}

TEST(TensorMapLayout, DecodeHandBuiltDescriptor) {
  // A 3-D f32 map with element strides, 40-bit strides and OOB-NaN, assembled by hand.
  uint8_t d[128] = {};
  put(d, 0x00, 0, 64, 0x123456789a0ull);
  put(d, 0x08, 1, 3, 1);
  put(d, 0x08, 4, 3, 2);           // rank 3
  put(d, 0x08, 7, 4, 7);           // f32
  put(d, 0x08, 13, 2, 2);          // 64B swizzle
  put(d, 0x08, 15, 1, 1);          // OOB-NaN
  put(d, 0x08, 17, 2, 1);          // L2 64B
  uint64_t s0 = 0x9345678910ull;   // > 2^36, multiple of 16
  uint64_t s1 = 0xFFFFFFFFF0ull;   // 2^40 - 16
  put(d, 0x0C, 0, 32, (s0 >> 4) & 0xFFFFFFFF);
  put(d, 0x1C, 0, 4, (s0 >> 36) & 0xF);
  put(d, 0x10, 0, 32, (s1 >> 4) & 0xFFFFFFFF);
  put(d, 0x1C, 4, 4, (s1 >> 36) & 0xF);
  put(d, 0x20, 0, 32, 99);
  put(d, 0x24, 0, 32, 0xFFFFFFFF);  // 2^32
  put(d, 0x28, 0, 32, 6);
  put(d, 0x34, 0, 3, 0);
  put(d, 0x34, 3, 3, 2);   // element stride 3 on dim 1
  put(d, 0x34, 6, 3, 7);   // element stride 8 on dim 2
  put(d, 0x34, 24, 8, 15); // box 16 (64 bytes)
  put(d, 0x38, 0, 8, 255);
  put(d, 0x38, 8, 8, 1);
  DecodeResult r = decode(d);
  ASSERT_TRUE(r.valid()) << r.validity.field << ": " << r.validity.message;
  const TensorMap& m = r.map;
  EXPECT_EQ(m.type, MapType::kTiled);
  EXPECT_EQ(m.rank, 3u);
  EXPECT_EQ(m.dtype, DataType::kFloat32);
  EXPECT_EQ(m.global_address, 0x123456789a0ull);
  EXPECT_EQ(m.global_stride[0], s0);
  EXPECT_EQ(m.global_stride[1], s1);
  EXPECT_EQ(m.global_dim[0], 100u);
  EXPECT_EQ(m.global_dim[1], 1ull << 32);
  EXPECT_EQ(m.global_dim[2], 7u);
  EXPECT_EQ(m.box_dim[0], 16u);
  EXPECT_EQ(m.box_dim[1], 256u);
  EXPECT_EQ(m.box_dim[2], 2u);
  EXPECT_EQ(m.element_strides[1], 3u);
  EXPECT_EQ(m.element_strides[2], 8u);
  EXPECT_EQ(m.swizzle, Swizzle::k64B);
  EXPECT_EQ(m.oob_fill, OobFill::kNanRequestZeroFma);
  EXPECT_EQ(m.l2_promotion, L2Promotion::k64B);
}

TEST(TensorMapLayout, Im2colCornersPackPerRank) {
  uint64_t dims[5] = {64, 30, 20, 10, 2};
  uint64_t strides[4] = {128, 128 * 30, 128 * 600, 128 * 6000};
  uint32_t es[5] = {1, 1, 1, 1, 1};
  // rank 4: two int8 corners per half-word, W in the low byte.
  {
    int32_t lo[2] = {-128, 5}, hi[2] = {-2, 127};
    CUtensorMap m;
    auto r = encode_im2col(&m, DataType::kFloat16, 4, kAddr, dims, strides, lo, hi, 64, 256, es, Interleave::kNone,
                           Swizzle::k128B, L2Promotion::kNone, OobFill::kNone);
    ASSERT_TRUE(r.ok()) << r.message;
    const uint8_t* b = reinterpret_cast<const uint8_t*>(&m);
    EXPECT_EQ(get(b, 0x08, 0, 1), 1u);
    EXPECT_EQ(get(b, 0x38, 0, 8), 0x80u);
    EXPECT_EQ(get(b, 0x38, 8, 8), 5u);
    EXPECT_EQ(get(b, 0x38, 16, 8), 0xFEu);
    EXPECT_EQ(get(b, 0x38, 24, 8), 0x7Fu);
    EXPECT_EQ(get(b, 0x34, 24, 8), 63u);   // channels - 1
    EXPECT_EQ(get(b, 0x3C, 0, 10), 255u);  // pixels - 1
    DecodeResult d = decode(m);
    ASSERT_TRUE(d.valid());
    EXPECT_EQ(d.map.lower_corner, (std::array<int32_t, 3>{-128, 5, 0}));
    EXPECT_EQ(d.map.upper_corner, (std::array<int32_t, 3>{-2, 127, 0}));
  }
  // rank 5: three int5 corners.
  {
    int32_t lo[3] = {-16, 15, -1}, hi[3] = {0, -2, 3};
    CUtensorMap m;
    auto r = encode_im2col(&m, DataType::kFloat16, 5, kAddr, dims, strides, lo, hi, 8, 1024, es, Interleave::kNone,
                           Swizzle::kNone, L2Promotion::kNone, OobFill::kNone);
    ASSERT_TRUE(r.ok()) << r.message;
    const uint8_t* b = reinterpret_cast<const uint8_t*>(&m);
    EXPECT_EQ(get(b, 0x38, 0, 5), 0x10u);
    EXPECT_EQ(get(b, 0x38, 5, 5), 15u);
    EXPECT_EQ(get(b, 0x38, 10, 5), 0x1Fu);
    EXPECT_EQ(get(b, 0x38, 16, 5), 0u);
    EXPECT_EQ(get(b, 0x38, 21, 5), 0x1Eu);
    EXPECT_EQ(get(b, 0x38, 26, 5), 3u);
    EXPECT_EQ(get(b, 0x3C, 0, 10), 1023u);
  }
  // rank 3: one int16 corner.
  {
    int32_t lo[1] = {-32768}, hi[1] = {32767};
    CUtensorMap m;
    auto r = encode_im2col(&m, DataType::kUInt8, 3, kAddr, dims, strides, lo, hi, 16, 1, es, Interleave::kNone,
                           Swizzle::kNone, L2Promotion::kNone, OobFill::kNone);
    ASSERT_TRUE(r.ok()) << r.message;
    const uint8_t* b = reinterpret_cast<const uint8_t*>(&m);
    EXPECT_EQ(get(b, 0x38, 0, 16), 0x8000u);
    EXPECT_EQ(get(b, 0x38, 16, 16), 0x7FFFu);
  }
}

TEST(TensorMapLayout, ElemtypeNumberingDiffersFromDriver) {
  EXPECT_EQ(ptx_elemtype(DataType::kFloat64), 9u);
  EXPECT_EQ(ptx_elemtype(DataType::kBFloat16), 10u);
  EXPECT_EQ(ptx_elemtype(DataType::kFloat32Ftz), 8u);
  for (uint32_t t = 0; t < 16; ++t) {
    DataType d = static_cast<DataType>(t);
    EXPECT_EQ(data_type_from_ptx(ptx_elemtype(d)), d);
    if (t < 8 || t > 10) {
      EXPECT_EQ(ptx_elemtype(d), t);
    }
  }
}

// A TFLOAT32 map is written as the driver writes it, .f32 with the rounding bit; one that came
// with the PTX .tf32 number and no bit (a raw blob; the fuzz target tensormap-blob found it) keeps
// its number, so that it decodes the same after a re-encode.
TEST(TensorMapLayout, Tf32WithoutTheRoundingBitReencodesAsItCame) {
  alignas(64) uint8_t blob[128] = {};
  const uint64_t word8 = uint64_t(ptx_elemtype(DataType::kTFloat32)) << 7;  // elemtype 11, round_tf32 0
  std::memcpy(blob + 8, &word8, 8);
  const DecodeResult a = decode(blob);
  EXPECT_EQ(a.map.dtype, DataType::kTFloat32);
  EXPECT_FALSE(a.map.round_tf32);
  alignas(64) uint8_t again[128];
  encode(a.map, again);
  const DecodeResult b = decode(again);
  EXPECT_EQ(b.map.dtype, DataType::kTFloat32);
  EXPECT_FALSE(b.map.round_tf32);
  EXPECT_EQ(get(again, 0x08, 7, 4), 11u);
  // With the bit, as the driver writes TFLOAT32: .f32 (7).
  TensorMap m = a.map;
  m.round_tf32 = true;
  encode(m, again);
  EXPECT_EQ(get(again, 0x08, 7, 4), 7u);
  EXPECT_EQ(decode(again).map.dtype, DataType::kTFloat32);
}

TEST(TensorMapLayout, SwizzleSplitsIntoModeAndAtomicity) {
  struct {
    Swizzle s;
    uint32_t mode, atom;
  } rows[] = {{Swizzle::kNone, 0, 0}, {Swizzle::k32B, 1, 0}, {Swizzle::k64B, 2, 0}, {Swizzle::k128B, 3, 0},
              {Swizzle::k128BAtom32B, 3, 1}, {Swizzle::k128BAtom32BFlip8B, 3, 2}, {Swizzle::k128BAtom64B, 3, 3}};
  for (auto& r : rows) {
    uint32_t mo, at;
    swizzle_to_fields(r.s, &mo, &at);
    EXPECT_EQ(mo, r.mode);
    EXPECT_EQ(at, r.atom);
    Swizzle back;
    ASSERT_TRUE(swizzle_from_fields(mo, at, &back));
    EXPECT_EQ(back, r.s);
  }
  Swizzle s;
  EXPECT_FALSE(swizzle_from_fields(1, 1, &s));  // 32B swizzle only with 16B atomicity (PTX Table 14)
  EXPECT_FALSE(swizzle_from_fields(2, 3, &s));
}

TEST(TensorMapLayout, DecodeReportsBadFields) {
  uint8_t d[128] = {};
  put(d, 0x08, 4, 3, 6);  // rank 7
  DecodeResult r = decode(d);
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(r.validity.field, "rank");

  std::memset(d, 0, 128);
  put(d, 0x08, 13, 2, 1);  // 32B swizzle
  put(d, 0x08, 19, 2, 1);  // with 32B atomicity
  put(d, 0x34, 24, 8, 15); // box 16 bytes
  r = decode(d);
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(r.validity.field, "swizzle_atomicity");

  std::memset(d, 0, 128);
  put(d, 0x08, 11, 2, 3);  // interleave 3
  put(d, 0x34, 24, 8, 15);
  r = decode(d);
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(r.validity.field, "interleave");

  std::memset(d, 0, 128);
  put(d, 0x00, 0, 64, 0x1008);  // not 16-byte aligned
  put(d, 0x34, 24, 8, 15);
  r = decode(d);
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(r.validity.field, "global_address");

  // A zero-filled object is a valid (trivial) map: rank 1, u8, one element, box 1... except that
  // the box is then 1 byte, which is not a multiple of 16 bytes.
  std::memset(d, 0, 128);
  r = decode(d);
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(r.validity.field, "box_dim[0]");
  put(d, 0x34, 24, 8, 15);
  r = decode(d);
  EXPECT_TRUE(r.valid()) << r.validity.message;
  EXPECT_EQ(r.map.version, 0u);
}

// ---- encoder -----------------------------------------------------------------------------------
struct Tiled {
  DataType dtype = DataType::kFloat16;
  uint32_t rank = 2;
  uint64_t addr = kAddr;
  uint64_t dims[5] = {64, 32, 1, 1, 1};
  uint64_t strides[4] = {128, 0, 0, 0};
  uint32_t box[5] = {64, 8, 1, 1, 1};
  uint32_t es[5] = {1, 1, 1, 1, 1};
  Interleave il = Interleave::kNone;
  Swizzle sw = Swizzle::k128B;
  L2Promotion l2 = L2Promotion::kNone;
  OobFill oob = OobFill::kNone;
  EncodeResult run(CUtensorMap* m) const {
    return encode_tiled(m, dtype, rank, addr, dims, strides, box, es, il, sw, l2, oob);
  }
};

TEST(TensorMapEncoder, MessagesNameParameterAndRule) {
  CUtensorMap m;
  Tiled t;
  ASSERT_TRUE(t.run(&m).ok()) << t.run(&m).message;

  Tiled a = t;
  a.box[0] = 12;
  a.sw = Swizzle::kNone;
  auto r = a.run(&m);
  EXPECT_EQ(r.code, CUresult::kInvalidValue);
  EXPECT_EQ(r.message, "boxDim[0] * elementSize (24 bytes) must be a multiple of 16 bytes when interleave is NONE");

  a = t;
  a.addr = kAddr + 8;
  r = a.run(&m);
  EXPECT_EQ(r.code, CUresult::kInvalidValue);
  EXPECT_NE(r.message.find("globalAddress"), std::string::npos);
  EXPECT_NE(r.message.find("16-byte aligned"), std::string::npos);

  a = t;
  a.strides[0] = 136;
  r = a.run(&m);
  EXPECT_EQ(r.message, "globalStrides[0] = 136 must be a multiple of 16");

  a = t;
  a.box[1] = 257;
  r = a.run(&m);
  EXPECT_EQ(r.message, "boxDim[1] = 257 must be in [1, 256]");

  a = t;
  a.box[0] = 128;  // 256 bytes > 128-byte swizzle span
  r = a.run(&m);
  EXPECT_NE(r.message.find("must be at most 128 bytes"), std::string::npos) << r.message;

  a = t;
  a.dtype = DataType::kInt32;
  a.box[0] = 16;
  a.oob = OobFill::kNanRequestZeroFma;
  r = a.run(&m);
  EXPECT_NE(r.message.find("oobFill"), std::string::npos) << r.message;

  a = t;
  a.sw = static_cast<Swizzle>(7);
  r = a.run(&m);
  EXPECT_EQ(r.message, "swizzle 7 is not a CUtensorMapSwizzle value");

  a = t;
  a.rank = 2;
  a.il = Interleave::k16B;
  r = a.run(&m);
  EXPECT_NE(r.message.find("tensorRank 2 must be at least 3"), std::string::npos) << r.message;

  a = t;
  a.dims[1] = 0;
  r = a.run(&m);
  EXPECT_EQ(r.message, "globalDim[1] = 0 must be non-zero and at most 2^32");

  a = t;
  a.es[1] = 9;
  r = a.run(&m);
  EXPECT_EQ(r.message, "elementStrides[1] = 9 must be in [1, 8]");

  // The tensor map pointer must be 64-byte aligned.
  alignas(64) uint8_t raw[256];
  r = t.run(reinterpret_cast<CUtensorMap*>(raw + 16));
  EXPECT_NE(r.message.find("aligned to 64 bytes"), std::string::npos);
  EXPECT_EQ(t.run(nullptr).code, CUresult::kInvalidValue);
}

TEST(TensorMapEncoder, NothingWrittenOnError) {
  CUtensorMap m;
  std::memset(&m, 0xAB, sizeof m);
  Tiled t;
  t.box[0] = 7;
  ASSERT_FALSE(t.run(&m).ok());
  const uint8_t* b = reinterpret_cast<const uint8_t*>(&m);
  for (int i = 0; i < 128; ++i) ASSERT_EQ(b[i], 0xAB);
}

TEST(TensorMapEncoder, InterleaveAndPackedRules) {
  CUtensorMap m;
  Tiled t;
  t.rank = 3;
  t.dims[2] = 4;
  t.strides[1] = 128 * 32;
  t.il = Interleave::k32B;
  t.sw = Swizzle::k32B;
  t.box[0] = 3;  // no 16-byte rule with interleave
  EXPECT_TRUE(t.run(&m).ok()) << t.run(&m).message;
  t.sw = Swizzle::k64B;
  EXPECT_FALSE(t.run(&m).ok());  // interleave 32B needs swizzle 32B
  t.sw = Swizzle::k32B;
  t.strides[0] = 144;
  EXPECT_FALSE(t.run(&m).ok());  // 32B interleave: strides multiple of 32
  t.strides[0] = 128;
  t.addr = kAddr + 16;
  EXPECT_FALSE(t.run(&m).ok());  // 32B interleave: address 32-byte aligned

  Tiled p;
  p.dtype = DataType::k16U6Align16B;
  p.dims[0] = 256;
  p.strides[0] = 192;
  p.box[0] = 128;
  p.sw = Swizzle::k128BAtom64B;
  EXPECT_TRUE(p.run(&m).ok()) << p.run(&m).message;
  p.sw = Swizzle::k64B;
  EXPECT_FALSE(p.run(&m).ok());
  p.sw = Swizzle::k128B;
  p.box[0] = 64;
  EXPECT_FALSE(p.run(&m).ok());  // boxDim[0] must be 128
  p.box[0] = 128;
  p.dims[0] = 192;
  EXPECT_FALSE(p.run(&m).ok());  // globalDim[0] multiple of 128
  p.dims[0] = 256;
  p.strides[0] = 208;
  EXPECT_FALSE(p.run(&m).ok());  // strides multiple of 32

  Tiled q;
  q.dtype = DataType::k16U4Align8B;
  q.dims[0] = 63;
  q.box[0] = 32;  // 16 bytes
  q.strides[0] = 32;
  q.sw = Swizzle::kNone;
  EXPECT_FALSE(q.run(&m).ok());  // globalDim[0] even
  q.dims[0] = 64;
  EXPECT_TRUE(q.run(&m).ok()) << q.run(&m).message;
  q.box[0] = 16;  // 8 bytes
  EXPECT_FALSE(q.run(&m).ok());
}

TEST(TensorMapEncoder, Im2colWide) {
  uint64_t dims[4] = {64, 30, 20, 2};
  uint64_t strides[3] = {128, 128 * 30, 128 * 600};
  uint32_t es[4] = {1, 2, 1, 1};
  CUtensorMap m;
  auto r = encode_im2col_wide(&m, DataType::kFloat16, 4, kAddr, dims, strides, -1, 0, 64, 200, es, Interleave::kNone,
                              Im2colWideMode::kW128, Swizzle::k128B, L2Promotion::kNone, OobFill::kNone);
  ASSERT_TRUE(r.ok()) << r.message;
  DecodeResult d = decode(m);
  ASSERT_TRUE(d.valid()) << d.validity.message;
  EXPECT_EQ(d.map.type, MapType::kIm2colWide);
  EXPECT_EQ(d.map.wide_mode, Im2colWideMode::kW128);
  EXPECT_EQ(d.map.pixels_per_column, 128u);
  EXPECT_EQ(d.map.lower_corner[0], -1);
  r = encode_im2col_wide(&m, DataType::kFloat16, 4, kAddr, dims, strides, -1, 0, 64, 200, es, Interleave::kNone,
                         Im2colWideMode::kW, Swizzle::kNone, L2Promotion::kNone, OobFill::kNone);
  EXPECT_FALSE(r.ok());  // swizzle NONE is not allowed for im2col-wide
  r = encode_im2col_wide(&m, DataType::kFloat16, 4, kAddr, dims, strides, 31, 0, 64, 200, es, Interleave::kNone,
                         Im2colWideMode::kW, Swizzle::k128B, L2Promotion::kNone, OobFill::kNone);
  EXPECT_FALSE(r.ok());  // 30 + 0 - 31 < 1: empty box
}

TEST(TensorMapEncoder, ReplaceAddressKeepsEverythingElse) {
  CUtensorMap m;
  Tiled t;
  ASSERT_TRUE(t.run(&m).ok());
  CUtensorMap before = m;
  EXPECT_FALSE(replace_address(&m, kAddr + 8).ok());
  EXPECT_EQ(0, std::memcmp(&m, &before, 128));
  ASSERT_TRUE(replace_address(&m, kAddr + 0x1230).ok());
  DecodeResult a = decode(before), b = decode(m);
  EXPECT_EQ(b.map.global_address, kAddr + 0x1230);
  b.map.global_address = a.map.global_address;
  EXPECT_EQ(a.map, b.map);
}

// ---- tensormap.replace -------------------------------------------------------------------------
TEST(TensorMapReplace, BuildMapOnDeviceFromZero) {
  // CPG 10.30.1: a zero-filled object filled in with tensormap.replace.
  alignas(128) uint8_t obj[128] = {};
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kGlobalAddress, 0, kAddr));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kRank, 0, 1));  // rank 2
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kElemType, 0, 10));  // bf16 (PTX numbering)
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kGlobalDim, 0, 4096));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kGlobalDim, 1, 1000));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kGlobalStride, 0, 8192));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kBoxDim, 0, 64));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kBoxDim, 1, 256));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kSwizzleMode, 0, 3));
  ASSERT_TRUE(tensormap_replace(obj, ReplaceField::kSwizzleAtomicity, 0, 1));
  DecodeResult d = decode(obj);
  ASSERT_TRUE(d.valid()) << d.validity.field << ": " << d.validity.message;
  EXPECT_EQ(d.map.rank, 2u);
  EXPECT_EQ(d.map.dtype, DataType::kBFloat16);
  EXPECT_EQ(d.map.global_dim[0], 4096u);
  EXPECT_EQ(d.map.global_dim[1], 1000u);
  EXPECT_EQ(d.map.global_stride[0], 8192u);
  EXPECT_EQ(d.map.box_dim[1], 256u);
  EXPECT_EQ(d.map.swizzle, Swizzle::k128BAtom32B);
  EXPECT_EQ(get(obj, 0x0C, 0, 32), 8192u >> 4);
  EXPECT_EQ(get(obj, 0x38, 0, 8), 255u);
}

TEST(TensorMapReplace, RejectsOutOfRangeValuesAndIm2colMaps) {
  alignas(128) uint8_t obj[128] = {};
  uint8_t copy[128];
  std::memcpy(copy, obj, 128);
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kRank, 0, 5));
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kBoxDim, 5, 1));
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kBoxDim, 0, 0));
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kGlobalStride, 4, 16));
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kGlobalStride, 0, 24));
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kElementStride, 0, 9));
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kSwizzleMode, 0, 4));  // 96B: sm_103a only
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kFillMode, 0, 2));
  EXPECT_EQ(0, std::memcmp(obj, copy, 128));
  put(obj, 0x08, 0, 1, 1);  // im2col
  EXPECT_FALSE(tensormap_replace(obj, ReplaceField::kGlobalAddress, 0, kAddr));
}

}  // namespace
}  // namespace ptxsim::tmaptest
