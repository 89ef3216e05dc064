// Enumerations of the CUDA driver's tensor-map API with the driver's numeric values, the CUresult
// codes the encoder returns, the 128-byte CUtensorMap object, and the element-type helpers shared by
// the descriptor layout, the encoder and the TMA unit model.
//
// The enum values are the ones of cuda.h (CUDA driver API 6.1 enums; docs/tensormap.md lists them),
// so a driver shim can convert with a static_cast in either direction. Values outside the enums'
// ranges are representable (the enums are plain uint32_t underneath) and are rejected by the
// encoder's validation, exactly like the driver rejects them.
#pragma once
#include <cstdint>
#include <string>

namespace ptxsim::model::tmap {

// CUresult subset used by the tensor-map functions.
enum class CUresult : uint32_t {
  kSuccess = 0,       // CUDA_SUCCESS
  kInvalidValue = 1,  // CUDA_ERROR_INVALID_VALUE
};

// CUtensorMapDataType
enum class DataType : uint32_t {
  kUInt8 = 0,
  kUInt16 = 1,
  kUInt32 = 2,
  kInt32 = 3,
  kUInt64 = 4,
  kInt64 = 5,
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat64 = 8,
  kBFloat16 = 9,
  kFloat32Ftz = 10,
  kTFloat32 = 11,
  kTFloat32Ftz = 12,
  k16U4Align8B = 13,   // 16 packed 4-bit values per 8 bytes, no gaps (PTX .b4x16)
  k16U4Align16B = 14,  // 16 packed 4-bit values + 8-byte gap in shared memory (PTX .b4x16_p64)
  k16U6Align16B = 15,  // 16 packed 6-bit values + 4-byte gap (.b6x16_p32 load / .b6p2x16 store)
};
inline constexpr uint32_t kNumDataTypes = 16;

// CUtensorMapInterleave
enum class Interleave : uint32_t { kNone = 0, k16B = 1, k32B = 2 };
// CUtensorMapSwizzle (all seven values of CUDA 12.8+)
enum class Swizzle : uint32_t {
  kNone = 0,
  k32B = 1,
  k64B = 2,
  k128B = 3,
  k128BAtom32B = 4,
  k128BAtom32BFlip8B = 5,
  k128BAtom64B = 6,
};
inline constexpr uint32_t kNumSwizzles = 7;
// CUtensorMapL2promotion
enum class L2Promotion : uint32_t { kNone = 0, k64B = 1, k128B = 2, k256B = 3 };
// CUtensorMapFloatOOBfill
enum class OobFill : uint32_t { kNone = 0, kNanRequestZeroFma = 1 };
// CUtensorMapIm2ColWideMode
enum class Im2colWideMode : uint32_t { kW = 0, kW128 = 1 };

// The opaque object: CU_TENSOR_MAP_NUM_QWORDS = 16 quadwords. The driver requires its address to
// be 64-byte aligned.
struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128);

// ---- element types -----------------------------------------------------------------------------
// Bits of one element in global memory (4 or 6 for the packed types, which count single values).
uint32_t element_bits(DataType t);
// True for the three packed sub-byte types.
constexpr bool is_packed(DataType t) {
  return t == DataType::k16U4Align8B || t == DataType::k16U4Align16B || t == DataType::k16U6Align16B;
}
// True for the two packed types whose 16-value groups are padded to 16 bytes in shared memory.
constexpr bool is_packed_16b(DataType t) {
  return t == DataType::k16U4Align16B || t == DataType::k16U6Align16B;
}
// Floating-point types (the ones CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA may be used with).
constexpr bool is_float(DataType t) {
  switch (t) {
    case DataType::kFloat16: case DataType::kFloat32: case DataType::kFloat64:
    case DataType::kBFloat16: case DataType::kFloat32Ftz: case DataType::kTFloat32:
    case DataType::kTFloat32Ftz:
      return true;
    default:
      return false;
  }
}
constexpr bool valid(DataType t) { return static_cast<uint32_t>(t) < kNumDataTypes; }
constexpr bool valid(Interleave v) { return static_cast<uint32_t>(v) <= 2; }
constexpr bool valid(Swizzle v) { return static_cast<uint32_t>(v) < kNumSwizzles; }
constexpr bool valid(L2Promotion v) { return static_cast<uint32_t>(v) <= 3; }
constexpr bool valid(OobFill v) { return static_cast<uint32_t>(v) <= 1; }
constexpr bool valid(Im2colWideMode v) { return static_cast<uint32_t>(v) <= 1; }

// The PTX `.elemtype` numbering (tensormap.replace, PTX ISA 9.7.9.28 Table 33) is the one the
// descriptor stores. It differs from the driver's enum in three places:
//   driver 8 FLOAT64 = PTX 9, driver 9 BFLOAT16 = PTX 10, driver 10 FLOAT32_FTZ = PTX 8.
uint32_t ptx_elemtype(DataType t);        // driver enum -> PTX .elemtype value (t must be valid)
DataType data_type_from_ptx(uint32_t e);  // PTX .elemtype value (0..15) -> driver enum

// Bytes a swizzle mode permutes within (32, 64 or 128; 0 for none): the limit on the box's inner
// dimension when interleave is NONE.
uint32_t swizzle_span_bytes(Swizzle s);

// `count` elements of `bits` bits, in bytes, for messages: "24", "12.5", "0.75".
std::string bytes_string(uint64_t count, uint32_t bits);

// Names for messages ("CU_TENSOR_MAP_SWIZZLE_128B", "FLOAT16", ...).
std::string to_string(DataType t);
std::string to_string(Interleave v);
std::string to_string(Swizzle v);
std::string to_string(L2Promotion v);
std::string to_string(OobFill v);

}  // namespace ptxsim::model::tmap
