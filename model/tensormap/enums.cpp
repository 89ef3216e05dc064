#include "model/tensormap/enums.h"

namespace ptxsim::model::tmap {

uint32_t element_bits(DataType t) {
  switch (t) {
    case DataType::kUInt8: return 8;
    case DataType::kUInt16: case DataType::kFloat16: case DataType::kBFloat16: return 16;
    case DataType::kUInt32: case DataType::kInt32: case DataType::kFloat32:
    case DataType::kFloat32Ftz: case DataType::kTFloat32: case DataType::kTFloat32Ftz:
      return 32;
    case DataType::kUInt64: case DataType::kInt64: case DataType::kFloat64: return 64;
    case DataType::k16U4Align8B: case DataType::k16U4Align16B: return 4;
    case DataType::k16U6Align16B: return 6;
  }
  return 0;
}

uint32_t ptx_elemtype(DataType t) {
  switch (t) {
    case DataType::kFloat64: return 9;
    case DataType::kBFloat16: return 10;
    case DataType::kFloat32Ftz: return 8;
    default: return static_cast<uint32_t>(t);
  }
}

DataType data_type_from_ptx(uint32_t e) {
  switch (e) {
    case 8: return DataType::kFloat32Ftz;
    case 9: return DataType::kFloat64;
    case 10: return DataType::kBFloat16;
    default: return static_cast<DataType>(e);
  }
}

uint32_t swizzle_span_bytes(Swizzle s) {
  switch (s) {
    case Swizzle::kNone: return 0;
    case Swizzle::k32B: return 32;
    case Swizzle::k64B: return 64;
    default: return 128;
  }
}

std::string bytes_string(uint64_t count, uint32_t bits) {
  static const char* const frac[] = {"", ".125", ".25", ".375", ".5", ".625", ".75", ".875"};
  uint64_t b = count * bits;
  return std::to_string(b / 8) + frac[b % 8];
}

std::string to_string(DataType t) {
  static const char* const names[] = {
      "UINT8", "UINT16", "UINT32", "INT32", "UINT64", "INT64", "FLOAT16", "FLOAT32",
      "FLOAT64", "BFLOAT16", "FLOAT32_FTZ", "TFLOAT32", "TFLOAT32_FTZ", "16U4_ALIGN8B",
      "16U4_ALIGN16B", "16U6_ALIGN16B"};
  uint32_t v = static_cast<uint32_t>(t);
  if (v < kNumDataTypes) return std::string("CU_TENSOR_MAP_DATA_TYPE_") + names[v];
  return "CUtensorMapDataType(" + std::to_string(v) + ")";
}

std::string to_string(Interleave i) {
  switch (i) {
    case Interleave::kNone: return "CU_TENSOR_MAP_INTERLEAVE_NONE";
    case Interleave::k16B: return "CU_TENSOR_MAP_INTERLEAVE_16B";
    case Interleave::k32B: return "CU_TENSOR_MAP_INTERLEAVE_32B";
  }
  return "CUtensorMapInterleave(" + std::to_string(static_cast<uint32_t>(i)) + ")";
}

std::string to_string(Swizzle s) {
  static const char* const names[] = {"NONE", "32B", "64B", "128B", "128B_ATOM_32B",
                                      "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B"};
  uint32_t v = static_cast<uint32_t>(s);
  if (v < kNumSwizzles) return std::string("CU_TENSOR_MAP_SWIZZLE_") + names[v];
  return "CUtensorMapSwizzle(" + std::to_string(v) + ")";
}

std::string to_string(L2Promotion p) {
  switch (p) {
    case L2Promotion::kNone: return "CU_TENSOR_MAP_L2_PROMOTION_NONE";
    case L2Promotion::k64B: return "CU_TENSOR_MAP_L2_PROMOTION_L2_64B";
    case L2Promotion::k128B: return "CU_TENSOR_MAP_L2_PROMOTION_L2_128B";
    case L2Promotion::k256B: return "CU_TENSOR_MAP_L2_PROMOTION_L2_256B";
  }
  return "CUtensorMapL2promotion(" + std::to_string(static_cast<uint32_t>(p)) + ")";
}

std::string to_string(OobFill f) {
  switch (f) {
    case OobFill::kNone: return "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE";
    case OobFill::kNanRequestZeroFma: return "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA";
  }
  return "CUtensorMapFloatOOBfill(" + std::to_string(static_cast<uint32_t>(f)) + ")";
}

}  // namespace ptxsim::model::tmap
