// PTX data types as the decoded program sees them.
#pragma once
#include <cstdint>
#include <string_view>

namespace ptxsim {

// One enumerator per PTX type spelling; the order groups kinds so range checks stay cheap.
#define PTXSIM_DTYPES(X)                                                                      \
  X(None, "", 0) X(Pred, "pred", 1)                                                           \
  X(B8, "b8", 8) X(B16, "b16", 16) X(B32, "b32", 32) X(B64, "b64", 64) X(B128, "b128", 128)   \
  X(U8, "u8", 8) X(U16, "u16", 16) X(U32, "u32", 32) X(U64, "u64", 64)                        \
  X(S8, "s8", 8) X(S16, "s16", 16) X(S32, "s32", 32) X(S64, "s64", 64)                        \
  X(F16, "f16", 16) X(F16x2, "f16x2", 32) X(BF16, "bf16", 16) X(BF16x2, "bf16x2", 32)          \
  X(F32, "f32", 32) X(F64, "f64", 64) X(TF32, "tf32", 32)                                     \
  X(E4M3, "e4m3", 8) X(E5M2, "e5m2", 8) X(E4M3x2, "e4m3x2", 16) X(E5M2x2, "e5m2x2", 16)         \
  X(E2M3x2, "e2m3x2", 16) X(E3M2x2, "e3m2x2", 16) X(E2M1x2, "e2m1x2", 8) X(UE8M0x2, "ue8m0x2", 16) \
  X(E4M3x4, "e4m3x4", 32) X(E5M2x4, "e5m2x4", 32) X(E2M3x4, "e2m3x4", 32) X(E3M2x4, "e3m2x4", 32) \
  X(E2M1x4, "e2m1x4", 16)                                                                     \
  X(U16x2, "u16x2", 32) X(S16x2, "s16x2", 32) X(B1024, "b1024", 1024)

enum class DType : uint8_t {
#define X(e, s, b) e,
  PTXSIM_DTYPES(X)
#undef X
      Count
};

uint32_t dtype_bits(DType t);
std::string_view dtype_name(DType t);
// DType for a spelling without the dot ("u32"); DType::None if it is not a type.
DType dtype_from_name(std::string_view s);

inline bool is_signed_int(DType t) { return t >= DType::S8 && t <= DType::S64; }
inline bool is_unsigned_int(DType t) { return t >= DType::U8 && t <= DType::U64; }
inline bool is_bits(DType t) { return t >= DType::B8 && t <= DType::B128; }
inline bool is_int(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
inline bool is_float(DType t) { return t >= DType::F16 && t <= DType::TF32; }

}  // namespace ptxsim
