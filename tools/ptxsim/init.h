// Buffer initialisers of a case file ("zero", file, fill_u8, iota, random) and the element types
// they understand. The JSON side lives in case_file.cpp; this file only generates bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace ptxsim::cli {

enum class DType : uint8_t { U8, S8, U16, S16, U32, S32, U64, S64, F16, BF16, F32, F64 };

// "u8", "s8", ..., "f16", "bf16", "f32", "f64"; nullopt for anything else.
std::optional<DType> parse_dtype(std::string_view name);
const char* dtype_name(DType t);
size_t dtype_size(DType t);
bool dtype_is_float(DType t);
bool dtype_is_signed(DType t);  // the s* integer types

struct BufferInit {
  enum class Kind : uint8_t { Zero, File, FillU8, Iota, Random };
  Kind kind = Kind::Zero;
  // File: resolved path. The file may be shorter than the buffer; the rest stays zero.
  std::filesystem::path file;
  uint8_t fill = 0;              // FillU8
  DType dtype = DType::U8;       // Iota, Random
  uint64_t seed = 0;             // Random
  // Random, integer dtypes: inclusive bounds as 64-bit two's complement (sign-extended for s*).
  uint64_t int_min = 0, int_max = 0;
  // Random, float dtypes: bounds of the draw, min <= max.
  double float_min = 0, float_max = 1;
};

// Fills data[0, bytes) as `init` says. The buffer must start zeroed (Zero and File rely on it).
// Throws std::runtime_error when a file cannot be read or is larger than the buffer.
void apply_init(const BufferInit& init, uint8_t* data, size_t bytes);

// splitmix64 (Steele, Lea, Flood 2014): state += 0x9e3779b97f4a7c15, then the output mix. The
// random initialiser seeds it with `seed` and draws one 64-bit value per element (more only when
// an integer draw is rejected to keep it unbiased).
uint64_t splitmix64_next(uint64_t& state);

// IEEE binary32 -> binary16 / bfloat16 bits, round to nearest even; overflow gives ±inf, NaN stays
// a quiet NaN with the same sign.
uint16_t f32_to_f16_bits(float f);
uint16_t f32_to_bf16_bits(float f);

}  // namespace ptxsim::cli
