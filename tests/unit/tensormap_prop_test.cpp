// Property tests (RapidCheck) of the tensor-map model:
//  * the encoder accepts exactly the parameter sets that break no rule: near-valid sets are made
//    by building a valid set and mutating one parameter, and the verdict is predicted by a rule
//    list written here from the driver documentation (independently of model/tensormap);
//  * encode -> decode gives back every parameter, and decode -> encode gives back the bytes;
//  * tensormap.replace changes the decoded field it names and no other bit of the object.
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/tensormap/encoder.h"
#include "model/tensormap/replace.h"
#include "model/tensormap/tensormap.h"
#include "tools/fuzz/tensormap_blob_gen.h"
#include "tools/fuzz/tensormap_gen.h"

namespace ptxsim::tmapprop {
namespace {

using namespace ptxsim::model::tmap;

using fuzz::TmapKind;
using fuzz::TmapParams;
using fuzz::gen_tmap_valid;
using fuzz::mutate_tmap;
using fuzz::predict_tmap_valid;
using fuzz::run_encoder;
using fuzz::show;
using Kind = TmapKind;
using Params = TmapParams;

// What a decoded map must hold for an accepted parameter set.
void expect_decodes_to_params(const Params& p, const TensorMap& m) {
  RC_ASSERT(uint32_t(m.dtype) == p.dtype);
  RC_ASSERT(m.rank == p.rank);
  RC_ASSERT(m.global_address == p.addr);
  RC_ASSERT(uint32_t(m.interleave) == p.il);
  RC_ASSERT(uint32_t(m.swizzle) == p.sw);
  RC_ASSERT(uint32_t(m.l2_promotion) == p.l2);
  RC_ASSERT(uint32_t(m.oob_fill) == p.oob);
  for (uint32_t d = 0; d < 5; ++d) {
    RC_ASSERT(m.global_dim[d] == (d < p.rank ? p.dims[d] : 1));
    RC_ASSERT(m.element_strides[d] == (d < p.rank ? p.es[d] : 1));
  }
  for (uint32_t i = 0; i < 4; ++i) RC_ASSERT(m.global_stride[i] == (i + 1 < p.rank ? p.strides[i] : 0));
  if (p.kind == Kind::kTiled) {
    RC_ASSERT(m.type == MapType::kTiled);
    for (uint32_t d = 0; d < 5; ++d) RC_ASSERT(m.box_dim[d] == (d < p.rank ? p.box[d] : 1));
  } else {
    RC_ASSERT(m.type == (p.kind == Kind::kWide ? MapType::kIm2colWide : MapType::kIm2col));
    const uint32_t nsp = p.kind == Kind::kWide ? 1 : p.rank - 2;
    for (uint32_t s = 0; s < 3; ++s) {
      RC_ASSERT(m.lower_corner[s] == (s < nsp ? p.lower[s] : 0));
      RC_ASSERT(m.upper_corner[s] == (s < nsp ? p.upper[s] : 0));
    }
    RC_ASSERT(m.channels_per_pixel == p.cpp);
    RC_ASSERT(m.pixels_per_column == ((p.kind == Kind::kWide && p.mode == 1) ? 128u : p.ppc));
    if (p.kind == Kind::kWide) RC_ASSERT(uint32_t(m.wide_mode) == p.mode);
  }
}

void encoder_property(Kind kind) {
  Params p = gen_tmap_valid(kind);
  const bool mutated = *rc::gen::inRange(0, 10) < 7;
  if (mutated) mutate_tmap(p);
  const bool expect = predict_tmap_valid(p);
  RC_LOG() << show(p) << "\n";
  if (!mutated) RC_ASSERT(expect);  // the generator's own sanity
  RC_CLASSIFY(expect, "accepted");
  CUtensorMap out;
  std::memset(&out, 0x5A, sizeof out);
  EncodeResult r = run_encoder(p, &out);
  RC_LOG() << show(p) << "\npredicted " << expect << ", encoder: " << r.message << "\n";
  RC_ASSERT(r.ok() == expect);
  if (!r.ok()) {
    RC_ASSERT(r.code == CUresult::kInvalidValue);
    RC_ASSERT(!r.message.empty());
    return;
  }
  DecodeResult d = decode(out);
  RC_ASSERT(d.valid());
  expect_decodes_to_params(p, d.map);
  // bytes -> map -> bytes
  CUtensorMap again = encode(d.map);
  RC_ASSERT(std::memcmp(&again, &out, 128) == 0);
}

RC_GTEST_PROP(TensorMapProp, TiledEncoderAcceptsExactlyValidSets, ()) { encoder_property(Kind::kTiled); }
RC_GTEST_PROP(TensorMapProp, Im2colEncoderAcceptsExactlyValidSets, ()) { encoder_property(Kind::kIm2col); }
RC_GTEST_PROP(TensorMapProp, Im2colWideEncoderAcceptsExactlyValidSets, ()) { encoder_property(Kind::kWide); }

// ---- tensormap.replace ----------------------------------------------------------------------------
// Bit ranges (byte offset of the little-endian word, lsb, width) each replacement may touch, from
// the published layout (docs/tensormap.md), independently of layout.h.
struct Range {
  unsigned byte, lsb, width;
};
std::vector<Range> touched(ReplaceField f, uint32_t ord) {
  switch (f) {
    case ReplaceField::kGlobalAddress: return {{0x00, 0, 64}};
    case ReplaceField::kRank: return {{0x08, 4, 3}};
    case ReplaceField::kBoxDim: return ord == 0 ? std::vector<Range>{{0x34, 24, 8}} : std::vector<Range>{{0x38, 8 * (ord - 1), 8}};
    case ReplaceField::kGlobalDim: return {{0x20 + 4 * ord, 0, 32}};
    case ReplaceField::kGlobalStride: return {{0x0C + 4 * ord, 0, 32}, {0x1C, 4 * ord, 4}};
    case ReplaceField::kElementStride: return {{0x34, 3 * ord, 3}};
    case ReplaceField::kElemType: return {{0x08, 7, 4}};
    case ReplaceField::kInterleaveLayout: return {{0x08, 11, 2}};
    case ReplaceField::kSwizzleMode: return {{0x08, 13, 2}};
    case ReplaceField::kSwizzleAtomicity: return {{0x08, 19, 2}};
    case ReplaceField::kFillMode: return {{0x08, 15, 1}};
  }
  return {};
}

RC_GTEST_PROP(TensorMapProp, ReplaceChangesOnlyItsField, ()) {
  Params p = gen_tmap_valid(Kind::kTiled);
  CUtensorMap cm;
  RC_ASSERT(run_encoder(p, &cm).ok());
  alignas(128) uint8_t obj[128];
  std::memcpy(obj, &cm, 128);
  const TensorMap before = decode(obj).map;

  const auto f = static_cast<ReplaceField>(*rc::gen::inRange(0, 11));
  uint32_t ord = 0;
  uint64_t v = 0;
  TensorMap want = before;
  // Translation of the PTX .elemtype numbering (PTX ISA Table 33) to the driver enum.
  static const uint32_t ptx_to_driver[16] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12, 13, 14, 15};
  switch (f) {
    case ReplaceField::kGlobalAddress:
      v = *rc::gen::inRange<uint64_t>(0, ~0ull);
      want.global_address = v;
      break;
    case ReplaceField::kRank:
      v = *rc::gen::inRange<uint64_t>(0, 5);
      want.rank = uint32_t(v) + 1;
      break;
    case ReplaceField::kBoxDim:
      ord = *rc::gen::inRange<uint32_t>(0, 5);
      v = *rc::gen::inRange<uint64_t>(1, 257);
      want.box_dim[ord] = uint32_t(v);
      break;
    case ReplaceField::kGlobalDim:
      ord = *rc::gen::inRange<uint32_t>(0, 5);
      v = *rc::gen::inRange<uint64_t>(1, 1ull << 32);
      want.global_dim[ord] = v;
      break;
    case ReplaceField::kGlobalStride:
      ord = *rc::gen::inRange<uint32_t>(0, 4);
      v = 16 * *rc::gen::inRange<uint64_t>(0, 1ull << 36);
      want.global_stride[ord] = v;
      break;
    case ReplaceField::kElementStride:
      ord = *rc::gen::inRange<uint32_t>(0, 5);
      v = *rc::gen::inRange<uint64_t>(1, 9);
      want.element_strides[ord] = uint32_t(v);
      break;
    case ReplaceField::kElemType:
      v = *rc::gen::inRange<uint64_t>(0, 16);
      want.dtype = DataType(ptx_to_driver[v]);
      // The round-to-tf32 bit stays: .f32 / .f32.ftz with it set is how the driver writes a
      // TFLOAT32 / TFLOAT32_FTZ map, and decodes as one.
      if (before.round_tf32 && want.dtype == DataType::kFloat32) want.dtype = DataType::kTFloat32;
      if (before.round_tf32 && want.dtype == DataType::kFloat32Ftz) want.dtype = DataType::kTFloat32Ftz;
      break;
    case ReplaceField::kInterleaveLayout:
      v = *rc::gen::inRange<uint64_t>(0, 3);
      want.interleave = Interleave(v);
      break;
    case ReplaceField::kSwizzleMode: {
      // Keep the (mode, atomicity) pair meaningful: atomicity != 16B only with mode 128B.
      const bool atom128 = uint32_t(before.swizzle) >= 4;
      v = atom128 ? 3 : *rc::gen::inRange<uint64_t>(0, 4);
      if (!atom128) want.swizzle = Swizzle(v);
      break;
    }
    case ReplaceField::kSwizzleAtomicity: {
      const bool mode128 = uint32_t(before.swizzle) >= 3;
      v = mode128 ? *rc::gen::inRange<uint64_t>(0, 4) : 0;
      if (mode128) want.swizzle = Swizzle(3 + v);
      break;
    }
    case ReplaceField::kFillMode:
      v = *rc::gen::inRange<uint64_t>(0, 2);
      want.oob_fill = OobFill(v);
      break;
  }
  ReplaceResult r = tensormap_replace(obj, f, ord, v);
  RC_LOG() << describe(before) << "\nfield " << replace_field_name(f) << " ord " << ord << " value " << v << "\n"
           << describe(decode(obj).map) << "\n";
  RC_ASSERT(r.ok);
  RC_ASSERT(decode(obj).map == want);

  // No bit outside the field's range changed.
  uint8_t mask[128] = {};
  for (const Range& rg : touched(f, ord))
    for (unsigned b = 0; b < rg.width; ++b) {
      unsigned bit = rg.byte * 8 + rg.lsb + b;
      mask[bit / 8] |= uint8_t(1u << (bit % 8));
    }
  const uint8_t* orig = reinterpret_cast<const uint8_t*>(&cm);
  for (int i = 0; i < 128; ++i) RC_ASSERT((obj[i] & ~mask[i]) == (orig[i] & ~mask[i]));
}

RC_GTEST_PROP(TensorMapProp, DecodeOfArbitraryBytesIsTotalAndReencodesConsistently, ()) {
  // Any 128 bytes decode without crashing; when valid, re-encoding reproduces every bit the
  // layout defines (bits of the reserved control bits and bytes 0x40.. are not carried).
  alignas(64) uint8_t b[128];
  const std::array<uint8_t, 128> drawn = fuzz::draw_random_tensormap_bytes();
  std::memcpy(b, drawn.data(), 128);
  DecodeResult d = decode(b);
  if (!d.valid()) return;
  uint8_t again[128];
  encode(d.map, again);
  // Compare the fields a decode reads.
  TensorMap m2 = decode(again).map;
  RC_ASSERT(m2 == d.map);
}

}  // namespace
}  // namespace ptxsim::tmapprop
