// The decoded tensor map (a plain value type) and its conversion to and from the 128-byte object.
//
//   TensorMap     every field the TMA unit needs, in natural units (sizes, byte strides, counts)
//   encode(map)   -> CUtensorMap (fields are masked to their widths; run check() first)
//   decode(bytes) -> DecodeResult { map, valid, field, message }
//   check(map)    -> Validity: the rules a descriptor must satisfy for the TMA unit to use it
//
// The layout is in layout.h; what is public knowledge and what is a ptxsim choice is listed in
// docs/tensormap.md.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "model/tensormap/enums.h"
#include "model/tensormap/layout.h"

namespace ptxsim::model::tmap {

enum class MapType : uint8_t {
  kTiled = 0,       // cuTensorMapEncodeTiled (.tile, .tile::gather4/scatter4)
  kIm2col = 1,      // cuTensorMapEncodeIm2col (.im2col, .im2col_no_offs)
  kIm2colWide = 2,  // cuTensorMapEncodeIm2colWide (.im2col::w, .im2col::w::128)
};

inline constexpr uint32_t kMaxRank = 5;

struct TensorMap {
  MapType type = MapType::kTiled;
  DataType dtype = DataType::kUInt8;
  uint32_t rank = 1;  // 1..5 (3..5 for the im2col types)
  uint64_t global_address = 0;
  // Index d = dimension d, innermost first. Entries at d >= rank are 1 (dims, box, element
  // strides) and 0 (strides) in a canonical map; decode produces exactly what the bytes hold.
  std::array<uint64_t, kMaxRank> global_dim{1, 1, 1, 1, 1};  // elements (packed types: values)
  // global_stride[i] = byte stride of dimension i+1 (the driver's globalStrides[i]); dimension 0's
  // stride is the element size.
  std::array<uint64_t, kMaxRank - 1> global_stride{0, 0, 0, 0};
  std::array<uint32_t, kMaxRank> box_dim{1, 1, 1, 1, 1};  // tiled only (im2col: all 0)
  std::array<uint32_t, kMaxRank> element_strides{1, 1, 1, 1, 1};
  Interleave interleave = Interleave::kNone;
  Swizzle swizzle = Swizzle::kNone;
  L2Promotion l2_promotion = L2Promotion::kNone;
  OobFill oob_fill = OobFill::kNone;
  bool round_tf32 = false;  // the f32->tf32 rounding request bit (carried; see docs)
  uint32_t version = 0;     // the 3-bit version field (carried verbatim; the driver writes 0)
  // im2col / im2col-wide only (tiled: all 0). Corners are in W, H, D order (index 0 = W, the
  // tensor's dimension 1); the wide type uses index 0 only.
  std::array<int32_t, 3> lower_corner{0, 0, 0};
  std::array<int32_t, 3> upper_corner{0, 0, 0};
  uint32_t channels_per_pixel = 0;  // 1..256
  uint32_t pixels_per_column = 0;   // 1..1024
  Im2colWideMode wide_mode = Im2colWideMode::kW;  // im2col-wide only

  bool operator==(const TensorMap&) const = default;

  uint32_t element_bits() const { return tmap::element_bits(dtype); }
  // Spatial (D/H/W) dimensions of an im2col map: rank - 2.
  uint32_t spatial_dims() const { return rank >= 2 ? rank - 2 : 0; }
};

struct Validity {
  bool valid = true;
  std::string field;    // the offending field (TensorMap member or descriptor bit range)
  std::string message;  // the rule, with the values involved
  explicit operator bool() const { return valid; }
};

struct DecodeResult {
  TensorMap map;  // best-effort decode even when !valid
  Validity validity;
  bool valid() const { return validity.valid; }
};

// The hardware-relevant rules on a descriptor (structural encodings and the driver's rules that
// survive into the bytes). Used by decode() and by the TMA unit before every operation.
Validity check(const TensorMap& m);

CUtensorMap encode(const TensorMap& m);
void encode(const TensorMap& m, void* out128);
DecodeResult decode(const void* in128);
inline DecodeResult decode(const CUtensorMap& m) { return decode(static_cast<const void*>(&m)); }

// Swizzle <-> the descriptor's (swizzle_mode, swizzle_atomicity) pair, PTX numbering.
void swizzle_to_fields(Swizzle s, uint32_t* mode, uint32_t* atomicity);
bool swizzle_from_fields(uint32_t mode, uint32_t atomicity, Swizzle* out);

// Required global-address alignment of a map (16, or 32 for interleave 32B and the padded packed
// types). Also the alignment cuTensorMapReplaceAddress enforces.
uint32_t required_address_alignment(DataType t, Interleave i);

// A one-line human-readable summary (for diagnostics).
std::string describe(const TensorMap& m);

}  // namespace ptxsim::model::tmap
