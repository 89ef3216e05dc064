#include "model/tensormap/tensormap.h"

#include <algorithm>

#include <cstdio>
#include <sstream>

namespace ptxsim::model::tmap {
namespace {

Validity bad(std::string field, std::string message) {
  Validity v;
  v.valid = false;
  v.field = std::move(field);
  v.message = std::move(message);
  return v;
}

std::string idx(const char* name, uint32_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }


// Corner bit width per rank for the non-wide im2col type (16, 8, 5 bits).
uint32_t corner_bits(uint32_t rank) { return rank == 3 ? 16 : rank == 4 ? 8 : 5; }

uint64_t pack_corner(const std::array<int32_t, 3>& c, uint32_t nspatial, uint32_t bits) {
  uint64_t v = 0;
  uint64_t m = (1ull << bits) - 1;
  for (uint32_t s = 0; s < std::min<uint32_t>(nspatial, 3); ++s) v |= (uint64_t(uint32_t(c[s])) & m) << (bits * s);
  return v;
}

std::array<int32_t, 3> unpack_corner(uint64_t v, uint32_t nspatial, uint32_t bits) {
  std::array<int32_t, 3> c{0, 0, 0};
  uint64_t m = (1ull << bits) - 1;
  // A blob's rank field may claim more spatial dimensions than a corner holds (it is then invalid,
  // reported by the structural check); never read past the three.
  for (uint32_t s = 0; s < std::min<uint32_t>(nspatial, 3); ++s) {
    uint64_t x = (v >> (bits * s)) & m;
    if ((x >> (bits - 1)) & 1) x |= ~m;
    c[s] = int32_t(int64_t(x));
  }
  return c;
}

bool is_tiled(const TensorMap& m) { return m.type == MapType::kTiled; }

}  // namespace

void swizzle_to_fields(Swizzle s, uint32_t* mode, uint32_t* atomicity) {
  switch (s) {
    case Swizzle::kNone: *mode = 0; *atomicity = 0; return;
    case Swizzle::k32B: *mode = 1; *atomicity = 0; return;
    case Swizzle::k64B: *mode = 2; *atomicity = 0; return;
    case Swizzle::k128B: *mode = 3; *atomicity = 0; return;
    case Swizzle::k128BAtom32B: *mode = 3; *atomicity = 1; return;
    case Swizzle::k128BAtom32BFlip8B: *mode = 3; *atomicity = 2; return;
    case Swizzle::k128BAtom64B: *mode = 3; *atomicity = 3; return;
  }
  *mode = 0;
  *atomicity = 0;
}

bool swizzle_from_fields(uint32_t mode, uint32_t atomicity, Swizzle* out) {
  // PTX ISA 5.5.7 Table 14: 32B/64B (and 96B) swizzles only with 16B atomicity; 128B with any.
  if (mode > 3 || atomicity > 3) return false;
  if (mode != 3 && atomicity != 0) return false;
  if (mode == 3) {
    static const Swizzle by_atom[] = {Swizzle::k128B, Swizzle::k128BAtom32B,
                                      Swizzle::k128BAtom32BFlip8B, Swizzle::k128BAtom64B};
    *out = by_atom[atomicity];
  } else {
    *out = static_cast<Swizzle>(mode);
  }
  return true;
}

uint32_t required_address_alignment(DataType t, Interleave i) {
  return (i == Interleave::k32B || is_packed_16b(t)) ? 32 : 16;
}

Validity check(const TensorMap& m) {
  const bool tiled = is_tiled(m);
  const bool wide = m.type == MapType::kIm2colWide;
  if (static_cast<uint32_t>(m.type) > 2) return bad("type", "unknown map type");
  if (!valid(m.dtype)) return bad("dtype", "element type " + to_string(m.dtype) + " is not a valid value");
  if (tiled ? (m.rank < 1 || m.rank > 5) : (m.rank < 3 || m.rank > 5))
    return bad("rank", "rank " + std::to_string(m.rank) + (tiled ? " must be in [1, 5]" : " must be 3, 4 or 5 for an im2col map"));
  if (m.version > 7) return bad("version", "version does not fit its 3-bit field");
  if (!valid(m.interleave)) return bad("interleave", to_string(m.interleave) + " is not a valid interleave");
  if (!valid(m.swizzle)) return bad("swizzle", to_string(m.swizzle) + " is not a valid swizzle");
  if (!valid(m.l2_promotion)) return bad("l2_promotion", to_string(m.l2_promotion) + " is not valid");
  if (!valid(m.oob_fill)) return bad("oob_fill", to_string(m.oob_fill) + " is not valid");
  if (wide && !valid(m.wide_mode)) return bad("wide_mode", "im2col-wide mode must be W or W128");

  const uint32_t bits = m.element_bits();
  const uint32_t align = required_address_alignment(m.dtype, m.interleave);
  if (m.global_address % align != 0)
    return bad("global_address", "global address 0x" + [&] {
      char b[32];
      std::snprintf(b, sizeof b, "%llx", (unsigned long long)m.global_address);
      return std::string(b);
    }() + " must be " + std::to_string(align) + "-byte aligned");
  for (uint32_t d = 0; d < m.rank; ++d)
    if (m.global_dim[d] < 1 || m.global_dim[d] > (1ull << 32))
      return bad(idx("global_dim", d), "size " + std::to_string(m.global_dim[d]) + " must be in [1, 2^32]");
  for (uint32_t i = 0; i + 1 < m.rank; ++i) {
    uint64_t s = m.global_stride[i];
    uint32_t need = (m.interleave == Interleave::k32B || is_packed_16b(m.dtype)) ? 32 : 16;
    if (s % need != 0 || s >= (1ull << 40))
      return bad(idx("global_stride", i), "byte stride " + std::to_string(s) + " must be a multiple of " +
                                              std::to_string(need) + " and below 2^40");
  }
  for (uint32_t d = 0; d < m.rank; ++d)
    if (m.element_strides[d] < 1 || m.element_strides[d] > 8)
      return bad(idx("element_strides", d), "traversal stride " + std::to_string(m.element_strides[d]) + " must be in [1, 8]");

  if (m.dtype == DataType::k16U4Align8B && m.global_dim[0] % 2 != 0)
    return bad("global_dim[0]", "a 16U4_ALIGN8B tensor needs an even dimension 0");
  if (is_packed_16b(m.dtype) && m.global_dim[0] % 128 != 0)
    return bad("global_dim[0]", "a 16U4_ALIGN16B / 16U6_ALIGN16B tensor needs dimension 0 a multiple of 128");

  if (m.interleave != Interleave::kNone) {
    if (tiled && m.rank < 3) return bad("interleave", "an interleaved layout needs rank >= 3");
    if (wide) return bad("interleave", "im2col::w maps do not support an interleaved layout");
    if (m.interleave == Interleave::k32B && m.swizzle != Swizzle::k32B)
      return bad("swizzle", "interleave 32B requires swizzle 32B");
    if (m.dtype == DataType::k16U6Align16B) return bad("interleave", "16U6_ALIGN16B requires interleave NONE");
  }

  uint32_t inner_count;  // elements of the box's inner dimension
  if (tiled) {
    for (uint32_t d = 0; d < m.rank; ++d)
      if (m.box_dim[d] < 1 || m.box_dim[d] > 256)
        return bad(idx("box_dim", d), "box size " + std::to_string(m.box_dim[d]) + " must be in [1, 256]");
    inner_count = m.box_dim[0];
    if (is_packed_16b(m.dtype) && m.box_dim[0] != 128)
      return bad("box_dim[0]", "a 16U4_ALIGN16B / 16U6_ALIGN16B map needs boxDim[0] = 128");
    if (m.interleave == Interleave::kNone && (uint64_t(m.box_dim[0]) * bits) % 128 != 0)
      return bad("box_dim[0]", "boxDim[0] * element size (" + bytes_string(m.box_dim[0], bits) +
                                   " bytes) must be a multiple of 16 bytes when interleave is NONE");
  } else {
    if (m.channels_per_pixel < 1 || m.channels_per_pixel > 256)
      return bad("channels_per_pixel", "channelsPerPixel " + std::to_string(m.channels_per_pixel) + " must be in [1, 256]");
    if (m.pixels_per_column < 1 || m.pixels_per_column > 1024)
      return bad("pixels_per_column", "pixelsPerColumn " + std::to_string(m.pixels_per_column) + " must be in [1, 1024]");
    if (is_packed_16b(m.dtype) && m.channels_per_pixel != 128)
      return bad("channels_per_pixel", "a 16U4_ALIGN16B / 16U6_ALIGN16B map needs channelsPerPixel = 128");
    inner_count = m.channels_per_pixel;
    const uint32_t nsp = wide ? 1 : m.spatial_dims();
    const uint32_t cb = wide ? 16 : corner_bits(m.rank);
    const int32_t lo = -(1 << (cb - 1)), hi = (1 << (cb - 1)) - 1;
    for (uint32_t s = 0; s < 3; ++s) {
      int32_t l = m.lower_corner[s], u = m.upper_corner[s];
      if (s >= nsp) {
        if (l != 0 || u != 0) return bad(idx("lower_corner", s), "corner entries beyond the spatial rank must be 0");
        continue;
      }
      if (l < lo || l > hi) return bad(idx("lower_corner", s), "corner " + std::to_string(l) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      if (u < lo || u > hi) return bad(idx("upper_corner", s), "corner " + std::to_string(u) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      int64_t extent = int64_t(m.global_dim[1 + s]) + u - l;
      if (extent < 1)
        return bad(idx("upper_corner", s), "the bounding box has zero area along spatial dimension " + std::to_string(s));
    }
  }

  // Swizzle and the inner dimension.
  const uint32_t span = swizzle_span_bytes(m.swizzle);
  const uint64_t inner_bytes = (uint64_t(inner_count) * bits + 7) / 8;
  if (m.interleave == Interleave::kNone && span != 0 && inner_bytes > span)
    return bad(tiled ? "box_dim[0]" : "channels_per_pixel",
               "the box inner dimension (" + std::to_string(inner_bytes) + " bytes) exceeds the " +
                   std::to_string(span) + "-byte swizzle span of " + to_string(m.swizzle));
  if (wide && m.swizzle != Swizzle::k64B && m.swizzle != Swizzle::k128B && m.swizzle != Swizzle::k128BAtom32B)
    return bad("swizzle", "im2col::w maps allow only swizzle 64B, 128B and 128B_ATOM_32B");
  if (m.dtype == DataType::k16U6Align16B) {
    bool ok = m.swizzle == Swizzle::k128B || m.swizzle == Swizzle::k128BAtom32B ||
              (!wide && (m.swizzle == Swizzle::kNone || m.swizzle == Swizzle::k128BAtom64B));
    if (!ok) return bad("swizzle", to_string(m.swizzle) + " is not supported with 16U6_ALIGN16B");
  }
  if (m.dtype == DataType::k16U4Align16B) {
    bool ok = m.swizzle == Swizzle::k128B || m.swizzle == Swizzle::k128BAtom32B || (!wide && m.swizzle == Swizzle::kNone);
    if (!ok) return bad("swizzle", to_string(m.swizzle) + " is not supported with 16U4_ALIGN16B");
  }
  if (m.oob_fill == OobFill::kNanRequestZeroFma && (!is_float(m.dtype) || is_packed(m.dtype)))
    return bad("oob_fill", "OOB-NaN fill needs a floating-point element type, not " + to_string(m.dtype));
  return {};
}

namespace {

// The element type field as the driver writes it: TFLOAT32 (and, by the same rule, TFLOAT32_FTZ)
// as the f32 type it rounds from, the round_tf32 bit marking it. A TFLOAT32 map without the bit
// (a blob or tensormap.replace wrote the PTX .tf32 number) keeps that number: written as .f32 it
// would decode as FLOAT32.
uint32_t encoded_elemtype(const TensorMap& m) {
  if (!valid(m.dtype)) return uint32_t(m.dtype);
  if (m.round_tf32 && m.dtype == DataType::kTFloat32) return ptx_elemtype(DataType::kFloat32);
  if (m.round_tf32 && m.dtype == DataType::kTFloat32Ftz) return ptx_elemtype(DataType::kFloat32Ftz);
  return ptx_elemtype(m.dtype);
}

// The bytes one load of the box moves (layout.h, 0x40). Packed types count their packed bits.
uint64_t box_bytes(const TensorMap& m) {
  uint64_t elements = 1;
  if (m.type == MapType::kTiled) {
    for (uint32_t d = 0; d < m.rank && d < kMaxRank; ++d) {
      const uint32_t es = m.element_strides[d] ? m.element_strides[d] : 1;
      elements *= (uint64_t(m.box_dim[d]) + es - 1) / es;
    }
  } else {
    elements = uint64_t(m.channels_per_pixel) * m.pixels_per_column;
  }
  return elements * element_bits(m.dtype) / 8;
}

uint32_t swizzle_code(Swizzle s) {
  switch (swizzle_span_bytes(s)) {
    case 0: return 0x10;
    case 32: return 0x100;
    case 64: return 0x200;
    default: return 0x400;
  }
}

}  // namespace

void encode(const TensorMap& m, void* out128) {
  RawTensorMap r;
  r.set(field::kGlobalAddress, m.global_address);
  r.set(field::kType, m.type == MapType::kTiled ? 0 : 1);
  r.set(field::kVersion, m.version);
  r.set(field::kRankM1, m.rank - 1);
  r.set(field::kElemType, encoded_elemtype(m));
  r.set(field::kInterleave, uint32_t(m.interleave));
  uint32_t mode = 0, atom = 0;
  swizzle_to_fields(m.swizzle, &mode, &atom);
  r.set(field::kSwizzleMode, mode);
  r.set(field::kSwizzleAtomicity, atom);
  r.set(field::kFillMode, uint32_t(m.oob_fill));
  r.set(field::kRoundTf32, m.round_tf32 ? 1 : 0);
  r.set(field::kL2Promotion, uint32_t(m.l2_promotion));
  r.set(field::kIm2colWide, m.type == MapType::kIm2colWide ? 1 : 0);
  r.set(field::kIm2colWideW128,
        m.type == MapType::kIm2colWide && m.wide_mode == Im2colWideMode::kW128 ? 1 : 0);
  for (uint32_t i = 0; i < kMaxRank - 1; ++i) {
    uint64_t s = m.global_stride[i] >> 4;
    r.set(field::stride_lo(i), s & 0xFFFFFFFFull);
    r.set(field::stride_hi(i), (s >> 32) & 0xF);
  }
  for (uint32_t d = 0; d < kMaxRank; ++d) {
    r.set(field::dim_m1(d), m.global_dim[d] - 1);
    r.set(field::estride_m1(d), m.element_strides[d] - 1);
  }
  if (m.type == MapType::kTiled) {
    r.set(field::kBox0M1, m.box_dim[0] - 1);
    for (uint32_t d = 1; d < kMaxRank; ++d) r.set(field::box_m1(d), m.box_dim[d] - 1);
  } else {
    r.set(field::kBox0M1, m.channels_per_pixel - 1);
    const bool wide = m.type == MapType::kIm2colWide;
    const uint32_t nsp = wide ? 1 : (m.rank >= 3 && m.rank <= 5 ? m.rank - 2 : 0);
    const uint32_t cb = wide ? 16 : corner_bits(m.rank);
    r.set(field::kLowerCorner, pack_corner(m.lower_corner, nsp, cb));
    r.set(field::kUpperCorner, pack_corner(m.upper_corner, nsp, cb));
    r.set(field::kPixelsM1, m.pixels_per_column - 1);
  }
  r.set(field::kBoxBytes, box_bytes(m));
  r.set(field::kSwizzleCode, swizzle_code(m.swizzle));
  std::memcpy(out128, r.bytes, 128);
}

CUtensorMap encode(const TensorMap& m) {
  CUtensorMap out;
  encode(m, &out);
  return out;
}

DecodeResult decode(const void* in128) {
  RawTensorMap r = RawTensorMap::from(in128);
  DecodeResult res;
  TensorMap& m = res.map;
  Validity structural;  // first structural problem found while decoding

  const bool im2col = r.get(field::kType) == 1;
  const bool wide_bit = r.get(field::kIm2colWide) == 1;
  if (!im2col && wide_bit && structural.valid)
    structural = bad("type", "the im2col_wide bit (0x08 bit 21) is set on a tiled map");
  m.type = !im2col ? MapType::kTiled : wide_bit ? MapType::kIm2colWide : MapType::kIm2col;
  m.version = uint32_t(r.get(field::kVersion));
  m.rank = uint32_t(r.get(field::kRankM1)) + 1;
  m.dtype = data_type_from_ptx(uint32_t(r.get(field::kElemType)));
  m.interleave = static_cast<Interleave>(r.get(field::kInterleave));
  uint32_t mode = uint32_t(r.get(field::kSwizzleMode)), atom = uint32_t(r.get(field::kSwizzleAtomicity));
  if (!swizzle_from_fields(mode, atom, &m.swizzle)) {
    m.swizzle = static_cast<Swizzle>(mode);
    if (structural.valid)
      structural = bad("swizzle_atomicity", "swizzle atomicity " + std::to_string(atom) +
                                                " is only valid with the 128B swizzle mode (mode is " +
                                                std::to_string(mode) + ")");
  }
  m.oob_fill = static_cast<OobFill>(r.get(field::kFillMode));
  m.round_tf32 = r.get(field::kRoundTf32) != 0;
  if (m.round_tf32 && m.dtype == DataType::kFloat32) m.dtype = DataType::kTFloat32;  // as the driver writes it
  if (m.round_tf32 && m.dtype == DataType::kFloat32Ftz) m.dtype = DataType::kTFloat32Ftz;
  m.l2_promotion = static_cast<L2Promotion>(r.get(field::kL2Promotion));
  m.global_address = r.get(field::kGlobalAddress);
  for (uint32_t i = 0; i < kMaxRank - 1; ++i)
    m.global_stride[i] = ((r.get(field::stride_hi(i)) << 32) | r.get(field::stride_lo(i))) << 4;
  for (uint32_t d = 0; d < kMaxRank; ++d) {
    m.global_dim[d] = r.get(field::dim_m1(d)) + 1;
    m.element_strides[d] = uint32_t(r.get(field::estride_m1(d))) + 1;
  }
  if (m.type == MapType::kTiled) {
    m.box_dim[0] = uint32_t(r.get(field::kBox0M1)) + 1;
    for (uint32_t d = 1; d < kMaxRank; ++d) m.box_dim[d] = uint32_t(r.get(field::box_m1(d))) + 1;
  } else {
    m.box_dim = {0, 0, 0, 0, 0};
    m.channels_per_pixel = uint32_t(r.get(field::kBox0M1)) + 1;
    m.pixels_per_column = uint32_t(r.get(field::kPixelsM1)) + 1;
    const bool wide = m.type == MapType::kIm2colWide;
    m.wide_mode = wide && r.get(field::kIm2colWideW128) ? Im2colWideMode::kW128 : Im2colWideMode::kW;
    const uint32_t nsp = wide ? 1 : (m.rank >= 3 ? m.rank - 2 : 0);
    if (nsp > 0) {
      const uint32_t cb = wide ? 16 : corner_bits(m.rank);
      m.lower_corner = unpack_corner(r.get(field::kLowerCorner), nsp, cb);
      m.upper_corner = unpack_corner(r.get(field::kUpperCorner), nsp, cb);
    }
  }
  if (!structural.valid) {
    res.validity = structural;
  } else {
    res.validity = check(m);
  }
  return res;
}

std::string describe(const TensorMap& m) {
  std::ostringstream o;
  o << (m.type == MapType::kTiled ? "tiled" : m.type == MapType::kIm2col ? "im2col" : "im2col-wide")
    << " rank " << m.rank << " " << to_string(m.dtype) << " @0x" << std::hex << m.global_address << std::dec
    << " dims {";
  for (uint32_t d = 0; d < m.rank && d < kMaxRank; ++d) o << (d ? "," : "") << m.global_dim[d];
  o << "} strides {";
  for (uint32_t i = 0; i + 1 < m.rank && i < kMaxRank - 1; ++i) o << (i ? "," : "") << m.global_stride[i];
  if (m.type == MapType::kTiled) {
    o << "} box {";
    for (uint32_t d = 0; d < m.rank && d < kMaxRank; ++d) o << (d ? "," : "") << m.box_dim[d];
  } else {
    o << "} channels " << m.channels_per_pixel << " pixels " << m.pixels_per_column << " corners {";
    for (uint32_t s = 0; s < 3; ++s) o << (s ? "," : "") << m.lower_corner[s] << ":" << m.upper_corner[s];
  }
  o << "} estrides {";
  for (uint32_t d = 0; d < m.rank && d < kMaxRank; ++d) o << (d ? "," : "") << m.element_strides[d];
  o << "} " << to_string(m.interleave) << " " << to_string(m.swizzle) << " " << to_string(m.oob_fill);
  return o.str();
}

}  // namespace ptxsim::model::tmap
