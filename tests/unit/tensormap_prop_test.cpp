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
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/tensormap/encoder.h"
#include "model/tensormap/replace.h"
#include "model/tensormap/tensormap.h"

namespace ptxsim::tmapprop {
namespace {

using namespace ptxsim::model::tmap;

// ---- an independent statement of the driver's rules ---------------------------------------------
enum class Kind { kTiled, kIm2col, kWide };

struct Params {
  Kind kind = Kind::kTiled;
  uint32_t dtype = 0;
  uint32_t rank = 1;
  uint64_t addr = 0;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  uint64_t strides[4] = {16, 16, 16, 16};
  uint32_t box[5] = {16, 1, 1, 1, 1};
  uint32_t es[5] = {1, 1, 1, 1, 1};
  uint32_t il = 0, sw = 0, l2 = 0, oob = 0;
  int32_t lower[3] = {0, 0, 0}, upper[3] = {0, 0, 0};
  uint32_t cpp = 1, ppc = 1, mode = 0;
};

// Element size in bits per CUtensorMapDataType (driver enum order).
uint32_t bits_of(uint32_t t) {
  static const uint32_t b[16] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6};
  return b[t];
}
bool padded16(uint32_t t) { return t == 14 || t == 15; }
bool floating(uint32_t t) { return t >= 6 && t <= 12; }
uint32_t span_of(uint32_t sw) { return sw == 0 ? 0 : sw == 1 ? 32 : sw == 2 ? 64 : 128; }
bool in(uint32_t v, std::initializer_list<uint32_t> set) { return std::find(set.begin(), set.end(), v) != set.end(); }

bool predict_valid(const Params& p) {
  if (p.dtype > 15 || p.il > 2 || p.sw > 6 || p.l2 > 3 || p.oob > 1) return false;
  if (p.kind == Kind::kWide && p.mode > 1) return false;
  if (p.kind == Kind::kTiled) {
    if (p.rank < 1 || p.rank > 5) return false;
    if (p.il != 0 && p.rank < 3) return false;
  } else if (p.rank < 3 || p.rank > 5) {
    return false;
  }
  const uint32_t bits = bits_of(p.dtype);
  if (p.addr % 16) return false;
  if ((p.il == 2 || padded16(p.dtype)) && p.addr % 32) return false;
  for (uint32_t d = 0; d < p.rank; ++d)
    if (p.dims[d] < 1 || p.dims[d] > (1ull << 32)) return false;
  if (padded16(p.dtype) && p.dims[0] % 128) return false;
  if (p.dtype == 13 && p.dims[0] % 2) return false;
  for (uint32_t i = 0; i + 1 < p.rank; ++i) {
    if (p.strides[i] % 16 || p.strides[i] >= (1ull << 40)) return false;
    if ((p.il == 2 || padded16(p.dtype)) && p.strides[i] % 32) return false;
  }
  for (uint32_t d = 0; d < p.rank; ++d)
    if (p.es[d] < 1 || p.es[d] > 8) return false;
  uint32_t inner;
  if (p.kind == Kind::kTiled) {
    for (uint32_t d = 0; d < p.rank; ++d)
      if (p.box[d] < 1 || p.box[d] > 256) return false;
    if (p.il == 0 && (p.box[0] * bits) % 128) return false;
    if (padded16(p.dtype) && p.box[0] != 128) return false;
    inner = p.box[0];
  } else {
    const uint32_t nsp = p.kind == Kind::kWide ? 1 : p.rank - 2;
    const int32_t lim = (p.kind == Kind::kWide || p.rank == 3) ? 32768 : p.rank == 4 ? 128 : 16;
    for (uint32_t s = 0; s < nsp; ++s) {
      if (p.lower[s] < -lim || p.lower[s] >= lim || p.upper[s] < -lim || p.upper[s] >= lim) return false;
      if (int64_t(p.dims[1 + s]) + p.upper[s] - p.lower[s] < 1) return false;
    }
    if (p.cpp < 1 || p.cpp > 256) return false;
    if (padded16(p.dtype) && p.cpp != 128) return false;
    if (!(p.kind == Kind::kWide && p.mode == 1) && (p.ppc < 1 || p.ppc > 1024)) return false;
    inner = p.cpp;
  }
  if (p.il == 0 && p.sw != 0 && (uint64_t(inner) * bits + 7) / 8 > span_of(p.sw)) return false;
  if (p.il == 2 && p.sw != 1) return false;
  if (p.dtype == 15 && p.il != 0) return false;
  if (p.kind == Kind::kWide) {
    if (p.il != 0) return false;
    if (!in(p.sw, {2, 3, 4})) return false;
    if (padded16(p.dtype) && !in(p.sw, {3, 4})) return false;
  } else {
    if (p.dtype == 15 && !in(p.sw, {0, 3, 4, 6})) return false;
    if (p.dtype == 14 && !in(p.sw, {0, 3, 4})) return false;
  }
  if (p.oob == 1 && !floating(p.dtype)) return false;
  return true;
}

// ---- generators ---------------------------------------------------------------------------------
template <class T>
T pick(std::initializer_list<T> vs) {
  std::vector<T> v(vs);
  return v[*rc::gen::inRange<size_t>(0, v.size())];
}

// A parameter set that satisfies every rule, built constructively.
Params gen_valid(Kind kind) {
  Params p;
  p.kind = kind;
  p.dtype = *rc::gen::inRange<uint32_t>(0, 16);
  const uint32_t bits = bits_of(p.dtype);
  p.il = 0;
  // (16U4_ALIGN16B excludes swizzle 32B, which interleave 32B needs.)
  if (kind != Kind::kWide && p.dtype != 15 && *rc::gen::inRange(0, 4) == 0)
    p.il = p.dtype == 14 ? 1 : *rc::gen::inRange<uint32_t>(1, 3);
  p.rank = kind == Kind::kTiled ? *rc::gen::inRange<uint32_t>(p.il ? 3 : 1, 6) : *rc::gen::inRange<uint32_t>(3, 6);
  // swizzle
  if (kind == Kind::kWide) p.sw = padded16(p.dtype) ? pick<uint32_t>({3, 4}) : pick<uint32_t>({2, 3, 4});
  else if (p.il == 2) p.sw = 1;
  else if (p.dtype == 15) p.sw = pick<uint32_t>({0, 3, 4, 6});
  else if (p.dtype == 14) p.sw = pick<uint32_t>({0, 3, 4});
  else p.sw = *rc::gen::inRange<uint32_t>(0, 7);
  // inner dimension
  const uint32_t limit_bytes = (p.il == 0 && p.sw != 0) ? span_of(p.sw) : 4096;
  auto inner_count = [&](bool multiple16) -> uint32_t {
    if (padded16(p.dtype)) return 128;
    if (!multiple16) {
      uint32_t maxc = std::min<uint32_t>(256, limit_bytes * 8 / bits);
      return *rc::gen::inRange<uint32_t>(1, maxc + 1);
    }
    uint32_t unit = 128 / bits;  // elements per 16 bytes
    uint32_t maxk = std::min<uint32_t>(256 / unit, limit_bytes / 16);
    return unit * *rc::gen::inRange<uint32_t>(1, maxk + 1);
  };
  if (kind == Kind::kTiled) {
    p.box[0] = inner_count(p.il == 0);
    for (uint32_t d = 1; d < 5; ++d) p.box[d] = *rc::gen::inRange<uint32_t>(1, 257);
  } else {
    p.cpp = inner_count(false);
    p.ppc = *rc::gen::inRange<uint32_t>(1, 1025);
    p.mode = kind == Kind::kWide ? *rc::gen::inRange<uint32_t>(0, 2) : 0;
  }
  // dims / strides / address
  for (uint32_t d = 0; d < 5; ++d) {
    uint32_t sel = *rc::gen::inRange(0, 10);
    p.dims[d] = sel == 0 ? (1ull << 32) : sel == 1 ? 1 : *rc::gen::inRange<uint64_t>(1, 5000);
  }
  if (padded16(p.dtype)) p.dims[0] = 128 * *rc::gen::inRange<uint64_t>(1, 64);
  if (p.dtype == 13) p.dims[0] = 2 * *rc::gen::inRange<uint64_t>(1, 3000);
  const uint64_t align = (p.il == 2 || padded16(p.dtype)) ? 32 : 16;
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t sel = *rc::gen::inRange(0, 10);
    p.strides[i] = sel == 0 ? (1ull << 40) - align : sel == 1 ? 0 : align * *rc::gen::inRange<uint64_t>(1, 1u << 24);
  }
  p.addr = align * *rc::gen::inRange<uint64_t>(0, 1ull << 40);
  for (uint32_t d = 0; d < 5; ++d) p.es[d] = *rc::gen::inRange<uint32_t>(1, 9);
  p.l2 = *rc::gen::inRange<uint32_t>(0, 4);
  p.oob = floating(p.dtype) ? *rc::gen::inRange<uint32_t>(0, 2) : 0;
  // corners
  if (kind != Kind::kTiled) {
    const uint32_t nsp = kind == Kind::kWide ? 1 : p.rank - 2;
    const int32_t lim = (kind == Kind::kWide || p.rank == 3) ? 32768 : p.rank == 4 ? 128 : 16;
    for (uint32_t s = 0; s < nsp; ++s) {
      p.upper[s] = *rc::gen::inRange<int32_t>(-lim, lim);
      int64_t maxlo = std::min<int64_t>(lim - 1, int64_t(p.dims[1 + s]) + p.upper[s] - 1);
      p.lower[s] = int32_t(*rc::gen::inRange<int64_t>(-lim, maxlo + 1));
    }
  }
  return p;
}

// Changes one parameter to a value near a rule boundary.
void mutate(Params& p) {
  const uint32_t d = *rc::gen::inRange<uint32_t>(0, 5);
  const uint32_t i = *rc::gen::inRange<uint32_t>(0, 4);
  switch (*rc::gen::inRange(0, p.kind == Kind::kTiled ? 12 : 17)) {
    case 0: p.dtype = *rc::gen::inRange<uint32_t>(0, 18); break;
    case 1: p.rank = *rc::gen::inRange<uint32_t>(0, 7); break;
    case 2: p.addr += pick<uint64_t>({8, 16, 32, 48}); break;
    case 3: p.dims[d] = pick<uint64_t>({0, 1, 2, 3, 127, 128, 256, 1ull << 32, (1ull << 32) + 1}); break;
    case 4: p.strides[i] = pick<uint64_t>({0, 8, 16, 24, 32, 48, 64, (1ull << 40) - 32, (1ull << 40) - 16, 1ull << 40}); break;
    case 5: p.box[d] = pick<uint32_t>({0, 1, 2, 3, 4, 8, 16, 24, 32, 64, 96, 128, 255, 256, 257}); break;
    case 6: p.es[d] = pick<uint32_t>({0, 1, 2, 8, 9}); break;
    case 7: p.il = *rc::gen::inRange<uint32_t>(0, 4); break;
    case 8: p.sw = *rc::gen::inRange<uint32_t>(0, 8); break;
    case 9: p.l2 = *rc::gen::inRange<uint32_t>(0, 5); break;
    case 10: p.oob = *rc::gen::inRange<uint32_t>(0, 3); break;
    case 11: p.box[0] = pick<uint32_t>({1, 2, 4, 8, 12, 16, 32, 64, 128, 129, 256}); break;
    case 12: p.lower[d % 3] = pick<int32_t>({-32769, -32768, -129, -128, -17, -16, -1, 0, 15, 16, 127, 128, 32767, 32768}); break;
    case 13: p.upper[d % 3] = pick<int32_t>({-32769, -32768, -129, -128, -17, -16, -1, 0, 15, 16, 127, 128, 32767, 32768}); break;
    case 14: p.cpp = pick<uint32_t>({0, 1, 3, 8, 64, 127, 128, 129, 256, 257}); break;
    case 15: p.ppc = pick<uint32_t>({0, 1, 2, 1023, 1024, 1025}); break;
    case 16: p.mode = *rc::gen::inRange<uint32_t>(0, 3); break;
  }
}

std::string show(const Params& p) {
  std::string o = "kind " + std::to_string(int(p.kind)) + " dtype " + std::to_string(p.dtype) + " rank " +
                  std::to_string(p.rank) + " addr " + std::to_string(p.addr) + " dims";
  for (auto v : p.dims) o += " " + std::to_string(v);
  o += " strides";
  for (auto v : p.strides) o += " " + std::to_string(v);
  o += " box";
  for (auto v : p.box) o += " " + std::to_string(v);
  o += " es";
  for (auto v : p.es) o += " " + std::to_string(v);
  o += " il " + std::to_string(p.il) + " sw " + std::to_string(p.sw) + " l2 " + std::to_string(p.l2) + " oob " +
       std::to_string(p.oob) + " corners";
  for (int s = 0; s < 3; ++s) o += " " + std::to_string(p.lower[s]) + ":" + std::to_string(p.upper[s]);
  o += " cpp " + std::to_string(p.cpp) + " ppc " + std::to_string(p.ppc) + " mode " + std::to_string(p.mode);
  return o;
}

EncodeResult run_encoder(const Params& p, CUtensorMap* out) {
  switch (p.kind) {
    case Kind::kTiled:
      return encode_tiled(out, DataType(p.dtype), p.rank, p.addr, p.dims, p.strides, p.box, p.es, Interleave(p.il),
                          Swizzle(p.sw), L2Promotion(p.l2), OobFill(p.oob));
    case Kind::kIm2col:
      return encode_im2col(out, DataType(p.dtype), p.rank, p.addr, p.dims, p.strides, p.lower, p.upper, p.cpp, p.ppc,
                           p.es, Interleave(p.il), Swizzle(p.sw), L2Promotion(p.l2), OobFill(p.oob));
    case Kind::kWide:
      return encode_im2col_wide(out, DataType(p.dtype), p.rank, p.addr, p.dims, p.strides, p.lower[0], p.upper[0],
                                p.cpp, p.ppc, p.es, Interleave(p.il), Im2colWideMode(p.mode), Swizzle(p.sw),
                                L2Promotion(p.l2), OobFill(p.oob));
  }
  return {};
}

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
  Params p = gen_valid(kind);
  const bool mutated = *rc::gen::inRange(0, 10) < 7;
  if (mutated) mutate(p);
  const bool expect = predict_valid(p);
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
  Params p = gen_valid(Kind::kTiled);
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
  for (int i = 0; i < 128; ++i) b[i] = *rc::gen::arbitrary<uint8_t>();
  if (*rc::gen::inRange(0, 2)) {  // make validity likely: small sane control word and sizes
    std::memset(b + 0x08, 0, 4);
    b[0x08] = uint8_t((*rc::gen::inRange(0, 5)) << 4 | 2);
    b[0x00] &= 0xF0;
    b[0x37] = 15;
  }
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
