#include "model/tensormap/replace.h"

#include <cstring>

#include "model/tensormap/layout.h"

namespace ptxsim::model::tmap {
namespace {

ReplaceResult fail(std::string m) {
  ReplaceResult r;
  r.ok = false;
  r.message = std::move(m);
  return r;
}

}  // namespace

bool replace_field_has_ordinal(ReplaceField f) {
  return f == ReplaceField::kBoxDim || f == ReplaceField::kGlobalDim || f == ReplaceField::kGlobalStride ||
         f == ReplaceField::kElementStride;
}

const char* replace_field_name(ReplaceField f) {
  switch (f) {
    case ReplaceField::kGlobalAddress: return ".global_address";
    case ReplaceField::kRank: return ".rank";
    case ReplaceField::kBoxDim: return ".box_dim";
    case ReplaceField::kGlobalDim: return ".global_dim";
    case ReplaceField::kGlobalStride: return ".global_stride";
    case ReplaceField::kElementStride: return ".element_stride";
    case ReplaceField::kElemType: return ".elemtype";
    case ReplaceField::kInterleaveLayout: return ".interleave_layout";
    case ReplaceField::kSwizzleMode: return ".swizzle_mode";
    case ReplaceField::kSwizzleAtomicity: return ".swizzle_atomicity";
    case ReplaceField::kFillMode: return ".fill_mode";
  }
  return "?";
}

ReplaceResult tensormap_replace(void* object, ReplaceField f, uint32_t ord, uint64_t v) {
  RawTensorMap r = RawTensorMap::from(object);
  const std::string name = std::string("tensormap.replace.tile") + replace_field_name(f);
  if (r.get(field::kType) != 0) return fail(name + ": the tensor map is an im2col map; only tiled maps can be modified");
  auto need_ord = [&](uint32_t max) -> bool { return ord <= max; };
  auto range = [&](uint64_t lo, uint64_t hi) -> bool { return v >= lo && v <= hi; };
  switch (f) {
    case ReplaceField::kGlobalAddress:
      r.set(field::kGlobalAddress, v);
      break;
    case ReplaceField::kRank:
      if (!range(0, 4)) return fail(name + ": new_val " + std::to_string(v) + " must be rank - 1, in [0, 4]");
      r.set(field::kRankM1, v);
      break;
    case ReplaceField::kBoxDim:
      if (!need_ord(4)) return fail(name + ": ord " + std::to_string(ord) + " must be in [0, 4]");
      if (!range(1, 256)) return fail(name + ": box size " + std::to_string(v) + " must be in [1, 256]");
      r.set(ord == 0 ? field::kBox0M1 : field::box_m1(ord), v - 1);
      break;
    case ReplaceField::kGlobalDim:
      if (!need_ord(4)) return fail(name + ": ord " + std::to_string(ord) + " must be in [0, 4]");
      if (!range(1, 0xFFFFFFFFull)) return fail(name + ": size " + std::to_string(v) + " must be in [1, 2^32 - 1]");
      r.set(field::dim_m1(ord), v - 1);
      break;
    case ReplaceField::kGlobalStride:
      if (!need_ord(3)) return fail(name + ": ord " + std::to_string(ord) + " must be in [0, 3]");
      if (v % 16 != 0 || v >= (1ull << 40))
        return fail(name + ": byte stride " + std::to_string(v) + " must be a multiple of 16 and below 2^40");
      r.set(field::stride_lo(ord), (v >> 4) & 0xFFFFFFFFull);
      r.set(field::stride_hi(ord), (v >> 36) & 0xF);
      break;
    case ReplaceField::kElementStride:
      if (!need_ord(4)) return fail(name + ": ord " + std::to_string(ord) + " must be in [0, 4]");
      if (!range(1, 8)) return fail(name + ": traversal stride " + std::to_string(v) + " must be in [1, 8]");
      r.set(field::estride_m1(ord), v - 1);
      break;
    case ReplaceField::kElemType:
      if (!range(0, 15)) return fail(name + ": new_val " + std::to_string(v) + " is not a valid .elemtype (0..15)");
      r.set(field::kElemType, v);
      break;
    case ReplaceField::kInterleaveLayout:
      if (!range(0, 2)) return fail(name + ": new_val " + std::to_string(v) + " is not valid (0..2)");
      r.set(field::kInterleave, v);
      break;
    case ReplaceField::kSwizzleMode:
      if (v == 4) return fail(name + ": new_val 4 (96B swizzle) is supported on sm_103a only");
      if (!range(0, 3)) return fail(name + ": new_val " + std::to_string(v) + " is not valid (0..3)");
      r.set(field::kSwizzleMode, v);
      break;
    case ReplaceField::kSwizzleAtomicity:
      if (!range(0, 3)) return fail(name + ": new_val " + std::to_string(v) + " is not valid (0..3)");
      r.set(field::kSwizzleAtomicity, v);
      break;
    case ReplaceField::kFillMode:
      if (!range(0, 1)) return fail(name + ": new_val " + std::to_string(v) + " is not valid (0..1)");
      r.set(field::kFillMode, v);
      break;
  }
  std::memcpy(object, r.bytes, 128);
  return {};
}

}  // namespace ptxsim::model::tmap
