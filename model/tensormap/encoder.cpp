#include "model/tensormap/encoder.h"

#include <cstdio>

namespace ptxsim::model::tmap {
namespace {

EncodeResult fail(std::string message) {
  EncodeResult r;
  r.code = CUresult::kInvalidValue;
  r.message = std::move(message);
  return r;
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

std::string at(const char* name, uint32_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

enum class Kind { kTiled, kIm2col, kWide };

// Parameters shared by the three encode entry points.
struct Common {
  Kind kind;
  CUtensorMap* out;
  DataType dtype;
  uint32_t rank;
  uint64_t address;
  const uint64_t* dims;
  const uint64_t* strides;
  const uint32_t* element_strides;
  Interleave interleave;
  Swizzle swizzle;
  L2Promotion l2;
  OobFill oob;
};

// Rules on tensorMap, tensorDataType, the enum-valued parameters, tensorRank, globalAddress,
// globalDim and globalStrides (docs/tensormap.md "Encoder rules" T1..T6).
EncodeResult check_head(const Common& c) {
  if (c.out == nullptr) return fail("tensorMap must not be NULL");
  if (reinterpret_cast<uintptr_t>(c.out) % 64 != 0)
    return fail("tensorMap address " + hex(reinterpret_cast<uintptr_t>(c.out)) + " must be aligned to 64 bytes");
  if (!valid(c.dtype))
    return fail("tensorDataType " + std::to_string(uint32_t(c.dtype)) + " is not a CUtensorMapDataType value");
  if (!valid(c.interleave))
    return fail("interleave " + std::to_string(uint32_t(c.interleave)) + " is not a CUtensorMapInterleave value");
  if (!valid(c.swizzle))
    return fail("swizzle " + std::to_string(uint32_t(c.swizzle)) + " is not a CUtensorMapSwizzle value");
  if (!valid(c.l2))
    return fail("l2Promotion " + std::to_string(uint32_t(c.l2)) + " is not a CUtensorMapL2promotion value");
  if (!valid(c.oob))
    return fail("oobFill " + std::to_string(uint32_t(c.oob)) + " is not a CUtensorMapFloatOOBfill value");

  if (c.kind == Kind::kTiled) {
    if (c.rank < 1 || c.rank > 5) return fail("tensorRank " + std::to_string(c.rank) + " must be in [1, 5]");
    if (c.interleave != Interleave::kNone && c.rank < 3)
      return fail("tensorRank " + std::to_string(c.rank) + " must be at least 3 when interleave is " +
                  to_string(c.interleave));
  } else if (c.rank < 3 || c.rank > 5) {
    return fail("tensorRank " + std::to_string(c.rank) + " must be 3, 4 or 5 for an im2col tensor map");
  }

  if (c.address % 16 != 0) return fail("globalAddress " + hex(c.address) + " must be 16-byte aligned");
  if (c.interleave == Interleave::k32B && c.address % 32 != 0)
    return fail("globalAddress " + hex(c.address) + " must be 32-byte aligned when interleave is CU_TENSOR_MAP_INTERLEAVE_32B");
  if (is_packed_16b(c.dtype) && c.address % 32 != 0)
    return fail("globalAddress " + hex(c.address) + " must be 32-byte aligned for " + to_string(c.dtype));

  if (c.dims == nullptr) return fail("globalDim must not be NULL");
  for (uint32_t d = 0; d < c.rank; ++d)
    if (c.dims[d] == 0 || c.dims[d] > (1ull << 32))
      return fail(at("globalDim", d) + " = " + std::to_string(c.dims[d]) + " must be non-zero and at most 2^32");
  if (is_packed_16b(c.dtype) && c.dims[0] % 128 != 0)
    return fail("globalDim[0] = " + std::to_string(c.dims[0]) + " must be a multiple of 128 for " + to_string(c.dtype));
  if (c.dtype == DataType::k16U4Align8B && c.dims[0] % 2 != 0)
    return fail("globalDim[0] = " + std::to_string(c.dims[0]) + " must be a multiple of 2 for " + to_string(c.dtype));

  if (c.rank > 1 && c.strides == nullptr) return fail("globalStrides must not be NULL when tensorRank > 1");
  for (uint32_t i = 0; i + 1 < c.rank; ++i) {
    uint64_t s = c.strides[i];
    if (s % 16 != 0) return fail(at("globalStrides", i) + " = " + std::to_string(s) + " must be a multiple of 16");
    if (s >= (1ull << 40)) return fail(at("globalStrides", i) + " = " + std::to_string(s) + " must be less than 2^40");
    if (c.interleave == Interleave::k32B && s % 32 != 0)
      return fail(at("globalStrides", i) + " = " + std::to_string(s) +
                  " must be a multiple of 32 when interleave is CU_TENSOR_MAP_INTERLEAVE_32B");
    if (is_packed_16b(c.dtype) && s % 32 != 0)
      return fail(at("globalStrides", i) + " = " + std::to_string(s) + " must be a multiple of 32 for " + to_string(c.dtype));
  }
  return {};
}

EncodeResult check_element_strides(const Common& c) {
  if (c.element_strides == nullptr) return fail("elementStrides must not be NULL");
  for (uint32_t d = 0; d < c.rank; ++d)
    if (c.element_strides[d] == 0 || c.element_strides[d] > 8)
      return fail(at("elementStrides", d) + " = " + std::to_string(c.element_strides[d]) + " must be in [1, 8]");
  return {};
}

// Rules on interleave, swizzle and oobFill (T9..T13). `inner_count` is boxDim[0] (tiled) or
// channelsPerPixel (im2col); `inner_name` names it.
EncodeResult check_tail(const Common& c, uint32_t inner_count, const char* inner_name) {
  const uint32_t bits = element_bits(c.dtype);
  const uint32_t span = swizzle_span_bytes(c.swizzle);
  const uint64_t inner_bytes = (uint64_t(inner_count) * bits + 7) / 8;
  if (c.interleave == Interleave::kNone && span != 0 && inner_bytes > span)
    return fail(std::string("the bounding box inner dimension (") + inner_name + " * elementSize = " +
                bytes_string(inner_count, bits) + " bytes) must be at most " + std::to_string(span) +
                " bytes with " + to_string(c.swizzle) + " when interleave is NONE");
  if (c.interleave == Interleave::k32B && c.swizzle != Swizzle::k32B)
    return fail("swizzle must be CU_TENSOR_MAP_SWIZZLE_32B when interleave is CU_TENSOR_MAP_INTERLEAVE_32B (got " +
                to_string(c.swizzle) + ")");
  if (c.dtype == DataType::k16U6Align16B && c.interleave != Interleave::kNone)
    return fail("interleave must be CU_TENSOR_MAP_INTERLEAVE_NONE for CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B");
  if (c.kind == Kind::kWide) {
    if (c.interleave != Interleave::kNone)
      return fail("interleave must be CU_TENSOR_MAP_INTERLEAVE_NONE for an im2col-wide tensor map (PTX: no interleave with .im2col::w)");
    if (c.swizzle != Swizzle::k64B && c.swizzle != Swizzle::k128B && c.swizzle != Swizzle::k128BAtom32B)
      return fail("swizzle " + to_string(c.swizzle) +
                  " is not supported by im2col-wide tensor maps (64B, 128B or 128B_ATOM_32B only)");
  }
  if (c.dtype == DataType::k16U6Align16B) {
    bool ok = c.swizzle == Swizzle::k128B || c.swizzle == Swizzle::k128BAtom32B ||
              (c.kind != Kind::kWide && (c.swizzle == Swizzle::kNone || c.swizzle == Swizzle::k128BAtom64B));
    if (!ok) return fail("swizzle " + to_string(c.swizzle) + " is not supported for CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B");
  }
  if (c.dtype == DataType::k16U4Align16B) {
    bool ok = c.swizzle == Swizzle::k128B || c.swizzle == Swizzle::k128BAtom32B ||
              (c.kind != Kind::kWide && c.swizzle == Swizzle::kNone);
    if (!ok) return fail("swizzle " + to_string(c.swizzle) + " is not supported for CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B");
  }
  if (c.oob == OobFill::kNanRequestZeroFma && (!is_float(c.dtype) || is_packed(c.dtype)))
    return fail("oobFill CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType (got " +
                to_string(c.dtype) + ")");
  return {};
}

TensorMap base_map(const Common& c) {
  TensorMap m;
  m.dtype = c.dtype;
  m.rank = c.rank;
  m.global_address = c.address;
  for (uint32_t d = 0; d < c.rank; ++d) m.global_dim[d] = c.dims[d];
  for (uint32_t i = 0; i + 1 < c.rank; ++i) m.global_stride[i] = c.strides[i];
  for (uint32_t d = 0; d < c.rank; ++d) m.element_strides[d] = c.element_strides[d];
  m.interleave = c.interleave;
  m.swizzle = c.swizzle;
  m.l2_promotion = c.l2;
  m.oob_fill = c.oob;
  m.round_tf32 = c.dtype == DataType::kTFloat32 || c.dtype == DataType::kTFloat32Ftz;
  m.version = 0;  // what the driver writes (H200, driver 580)
  return m;
}

EncodeResult finish(CUtensorMap* out, const TensorMap& m) {
  // Every parameter rule implies the descriptor rules; this is a consistency guard.
  Validity v = check(m);
  if (!v) return fail("internal: encoded map fails the descriptor check: " + v.field + ": " + v.message);
  encode(m, out);
  return {};
}

}  // namespace

TensorMap tiled_map(DataType dtype, uint32_t rank, uint64_t global_address, const uint64_t* global_dim,
                    const uint64_t* global_strides, const uint32_t* box_dim, const uint32_t* element_strides,
                    Interleave interleave, Swizzle swizzle, L2Promotion l2_promotion, OobFill oob_fill) {
  Common c{Kind::kTiled, nullptr, dtype, rank, global_address, global_dim, global_strides, element_strides,
           interleave, swizzle, l2_promotion, oob_fill};
  TensorMap m = base_map(c);
  m.type = MapType::kTiled;
  for (uint32_t d = 0; d < rank; ++d) m.box_dim[d] = box_dim[d];
  return m;
}

EncodeResult encode_tiled(CUtensorMap* out, DataType dtype, uint32_t rank, uint64_t global_address,
                          const uint64_t* global_dim, const uint64_t* global_strides, const uint32_t* box_dim,
                          const uint32_t* element_strides, Interleave interleave, Swizzle swizzle,
                          L2Promotion l2_promotion, OobFill oob_fill) {
  Common c{Kind::kTiled, out, dtype, rank, global_address, global_dim, global_strides, element_strides,
           interleave, swizzle, l2_promotion, oob_fill};
  if (auto r = check_head(c); !r) return r;
  if (box_dim == nullptr) return fail("boxDim must not be NULL");
  const uint32_t bits = element_bits(dtype);
  for (uint32_t d = 0; d < rank; ++d)
    if (box_dim[d] == 0 || box_dim[d] > 256)
      return fail(at("boxDim", d) + " = " + std::to_string(box_dim[d]) + " must be in [1, 256]");
  if (interleave == Interleave::kNone && (uint64_t(box_dim[0]) * bits) % 128 != 0)
    return fail("boxDim[0] * elementSize (" + bytes_string(box_dim[0], bits) +
                " bytes) must be a multiple of 16 bytes when interleave is NONE");
  if (is_packed_16b(dtype) && box_dim[0] != 128)
    return fail("boxDim[0] = " + std::to_string(box_dim[0]) + " must be 128 for " + to_string(dtype));
  if (auto r = check_element_strides(c); !r) return r;
  if (auto r = check_tail(c, box_dim[0], "boxDim[0]"); !r) return r;
  return finish(out, tiled_map(dtype, rank, global_address, global_dim, global_strides, box_dim, element_strides,
                               interleave, swizzle, l2_promotion, oob_fill));
}

EncodeResult encode_im2col(CUtensorMap* out, DataType dtype, uint32_t rank, uint64_t global_address,
                           const uint64_t* global_dim, const uint64_t* global_strides,
                           const int32_t* lower, const int32_t* upper, uint32_t channels_per_pixel,
                           uint32_t pixels_per_column, const uint32_t* element_strides, Interleave interleave,
                           Swizzle swizzle, L2Promotion l2_promotion, OobFill oob_fill) {
  Common c{Kind::kIm2col, out, dtype, rank, global_address, global_dim, global_strides, element_strides,
           interleave, swizzle, l2_promotion, oob_fill};
  if (auto r = check_head(c); !r) return r;
  if (lower == nullptr) return fail("pixelBoxLowerCorner must not be NULL");
  if (upper == nullptr) return fail("pixelBoxUpperCorner must not be NULL");
  const uint32_t nsp = rank - 2;
  const int32_t lim = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  for (uint32_t s = 0; s < nsp; ++s) {
    if (lower[s] < -lim || lower[s] > lim - 1)
      return fail(at("pixelBoxLowerCorner", s) + " = " + std::to_string(lower[s]) + " must be in [" +
                  std::to_string(-lim) + ", " + std::to_string(lim - 1) + "] for tensorRank " + std::to_string(rank));
    if (upper[s] < -lim || upper[s] > lim - 1)
      return fail(at("pixelBoxUpperCorner", s) + " = " + std::to_string(upper[s]) + " must be in [" +
                  std::to_string(-lim) + ", " + std::to_string(lim - 1) + "] for tensorRank " + std::to_string(rank));
  }
  for (uint32_t s = 0; s < nsp; ++s)
    if (int64_t(global_dim[1 + s]) + upper[s] - lower[s] < 1)
      return fail("the bounding box given by pixelBoxLowerCorner and pixelBoxUpperCorner must have non-zero area "
                  "(spatial dimension " + std::to_string(s) + ": globalDim[" + std::to_string(1 + s) + "] + upper - lower = " +
                  std::to_string(int64_t(global_dim[1 + s]) + upper[s] - lower[s]) + ")");
  if (channels_per_pixel == 0 || channels_per_pixel > 256)
    return fail("channelsPerPixel = " + std::to_string(channels_per_pixel) + " must be in [1, 256]");
  if (is_packed_16b(dtype) && channels_per_pixel != 128)
    return fail("channelsPerPixel = " + std::to_string(channels_per_pixel) + " must be 128 for " + to_string(dtype));
  if (pixels_per_column == 0 || pixels_per_column > 1024)
    return fail("pixelsPerColumn = " + std::to_string(pixels_per_column) + " must be in [1, 1024]");
  if (auto r = check_element_strides(c); !r) return r;
  if (auto r = check_tail(c, channels_per_pixel, "channelsPerPixel"); !r) return r;
  TensorMap m = base_map(c);
  m.type = MapType::kIm2col;
  m.box_dim = {0, 0, 0, 0, 0};
  for (uint32_t s = 0; s < nsp; ++s) {
    m.lower_corner[s] = lower[s];
    m.upper_corner[s] = upper[s];
  }
  m.channels_per_pixel = channels_per_pixel;
  m.pixels_per_column = pixels_per_column;
  return finish(out, m);
}

EncodeResult encode_im2col_wide(CUtensorMap* out, DataType dtype, uint32_t rank, uint64_t global_address,
                                const uint64_t* global_dim, const uint64_t* global_strides, int32_t lower_w,
                                int32_t upper_w, uint32_t channels_per_pixel, uint32_t pixels_per_column,
                                const uint32_t* element_strides, Interleave interleave, Im2colWideMode mode,
                                Swizzle swizzle, L2Promotion l2_promotion, OobFill oob_fill) {
  Common c{Kind::kWide, out, dtype, rank, global_address, global_dim, global_strides, element_strides,
           interleave, swizzle, l2_promotion, oob_fill};
  if (auto r = check_head(c); !r) return r;
  if (!valid(mode)) return fail("mode " + std::to_string(uint32_t(mode)) + " is not a CUtensorMapIm2ColWideMode value");
  if (lower_w < -32768 || lower_w > 32767)
    return fail("pixelBoxLowerCornerWidth = " + std::to_string(lower_w) + " must be in [-32768, 32767]");
  if (upper_w < -32768 || upper_w > 32767)
    return fail("pixelBoxUpperCornerWidth = " + std::to_string(upper_w) + " must be in [-32768, 32767]");
  if (int64_t(global_dim[1]) + upper_w - lower_w < 1)
    return fail("the bounding box given by pixelBoxLowerCornerWidth and pixelBoxUpperCornerWidth must have non-zero "
                "area (globalDim[1] + upper - lower = " + std::to_string(int64_t(global_dim[1]) + upper_w - lower_w) + ")");
  if (channels_per_pixel == 0 || channels_per_pixel > 256)
    return fail("channelsPerPixel = " + std::to_string(channels_per_pixel) + " must be in [1, 256]");
  if (is_packed_16b(dtype) && channels_per_pixel != 128)
    return fail("channelsPerPixel = " + std::to_string(channels_per_pixel) + " must be 128 for " + to_string(dtype));
  if (mode == Im2colWideMode::kW && (pixels_per_column == 0 || pixels_per_column > 1024))
    return fail("pixelsPerColumn = " + std::to_string(pixels_per_column) + " must be in [1, 1024]");
  if (auto r = check_element_strides(c); !r) return r;
  if (auto r = check_tail(c, channels_per_pixel, "channelsPerPixel"); !r) return r;
  TensorMap m = base_map(c);
  m.type = MapType::kIm2colWide;
  m.box_dim = {0, 0, 0, 0, 0};
  m.lower_corner[0] = lower_w;
  m.upper_corner[0] = upper_w;
  m.channels_per_pixel = channels_per_pixel;
  // W128 ignores pixelsPerColumn; ptxsim stores 128 (the count that mode always loads).
  m.pixels_per_column = mode == Im2colWideMode::kW128 ? 128 : pixels_per_column;
  m.wide_mode = mode;
  return finish(out, m);
}

EncodeResult replace_address(CUtensorMap* map, uint64_t global_address) {
  if (map == nullptr) return fail("tensorMap must not be NULL");
  DecodeResult d = decode(*map);
  if (!d.valid()) return fail("tensorMap is not a valid tensor map (" + d.validity.field + ": " + d.validity.message + ")");
  uint32_t align = required_address_alignment(d.map.dtype, d.map.interleave);
  if (global_address % align != 0)
    return fail("globalAddress " + hex(global_address) + " must be " + std::to_string(align) +
                "-byte aligned, as the original tensor map requires");
  RawTensorMap r = RawTensorMap::from(map);
  r.set(field::kGlobalAddress, global_address);
  std::memcpy(map, r.bytes, 128);
  return {};
}

EncodeResult encode_bf16_sw128_tiles(CUtensorMap* out, uint64_t global_address, uint64_t rows, uint64_t cols,
                                     uint32_t box_rows) {
  const uint64_t dims[2] = {cols, rows}, strides[1] = {cols * 2};
  const uint32_t box[2] = {64, box_rows}, element_strides[2] = {1, 1};
  return encode_tiled(out, DataType::kBFloat16, 2, global_address, dims, strides, box, element_strides,
                      Interleave::kNone, Swizzle::k128B, L2Promotion::kNone, OobFill::kNone);
}

}  // namespace ptxsim::model::tmap
