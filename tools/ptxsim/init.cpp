#include "tools/ptxsim/init.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ptxsim::cli {

namespace {

struct DTypeRow {
  DType type;
  const char* name;
  uint8_t size;
  bool is_float, is_signed;
};

constexpr DTypeRow kDTypes[] = {
    {DType::U8, "u8", 1, false, false},   {DType::S8, "s8", 1, false, true},
    {DType::U16, "u16", 2, false, false}, {DType::S16, "s16", 2, false, true},
    {DType::U32, "u32", 4, false, false}, {DType::S32, "s32", 4, false, true},
    {DType::U64, "u64", 8, false, false}, {DType::S64, "s64", 8, false, true},
    {DType::F16, "f16", 2, true, false},  {DType::BF16, "bf16", 2, true, false},
    {DType::F32, "f32", 4, true, false},  {DType::F64, "f64", 8, true, false},
};

const DTypeRow& row(DType t) { return kDTypes[static_cast<size_t>(t)]; }

void store_le(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
}

// Bits of `v` converted to the float dtype `t`.
uint64_t float_bits(DType t, double v) {
  switch (t) {
    case DType::F16: return f32_to_f16_bits(float(v));
    case DType::BF16: return f32_to_bf16_bits(float(v));
    case DType::F32: return std::bit_cast<uint32_t>(float(v));
    default: return std::bit_cast<uint64_t>(v);
  }
}

void read_file_into(const std::filesystem::path& path, uint8_t* data, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path.string() + "'");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw std::runtime_error("cannot read '" + path.string() + "'");
  if (uint64_t(size) > bytes)
    throw std::runtime_error("file '" + path.string() + "' is " + std::to_string(size) +
                             " bytes, larger than the buffer's " + std::to_string(bytes));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(data), size))
    throw std::runtime_error("cannot read '" + path.string() + "'");
}

}  // namespace

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeRow& r : kDTypes)
    if (name == r.name) return r.type;
  return std::nullopt;
}
const char* dtype_name(DType t) { return row(t).name; }
size_t dtype_size(DType t) { return row(t).size; }
bool dtype_is_float(DType t) { return row(t).is_float; }
bool dtype_is_signed(DType t) { return row(t).is_signed; }

uint64_t splitmix64_next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint16_t f32_to_f16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t a = x & 0x7fffffff;
  if (a > 0x7f800000) return sign | 0x7e00;    // NaN -> quiet NaN
  if (a >= 0x477ff000) return sign | 0x7c00;   // >= 65520 rounds to inf (and inf itself)
  uint32_t exp = a >> 23;
  if (exp >= 113) {                             // normal half: exponent 1..30
    uint32_t m = a & 0x7fffff;
    uint32_t q = ((exp - 112) << 10) | (m >> 13);
    uint32_t r = m & 0x1fff;
    if (r > 0x1000 || (r == 0x1000 && (q & 1))) ++q;  // a carry into the exponent is correct
    return uint16_t(sign | q);
  }
  // Subnormal half (or zero): units of 2^-24.
  if (exp == 0) return sign;                    // f32 zero/subnormal: far below 2^-25
  uint32_t m = (a & 0x7fffff) | 0x800000;       // value = m * 2^(exp-150)
  uint32_t s = 126 - exp;                       // value / 2^-24 = m >> s
  if (s > 24) return sign;
  uint32_t q = m >> s;
  uint32_t r = m & ((1u << s) - 1);
  uint32_t half = 1u << (s - 1);
  if (r > half || (r == half && (q & 1))) ++q;  // q == 0x400 is the smallest normal: fine
  return uint16_t(sign | q);
}

uint16_t f32_to_bf16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffff) > 0x7f800000) return uint16_t(((x >> 16) & 0x8000) | 0x7fc0);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

void apply_init(const BufferInit& init, uint8_t* data, size_t bytes) {
  switch (init.kind) {
    case BufferInit::Kind::Zero:
      return;
    case BufferInit::Kind::File:
      read_file_into(init.file, data, bytes);
      return;
    case BufferInit::Kind::FillU8:
      if (bytes) std::memset(data, init.fill, bytes);
      return;
    case BufferInit::Kind::Iota: {
      size_t n = dtype_size(init.dtype), count = bytes / n;
      bool is_float = dtype_is_float(init.dtype);
      for (size_t i = 0; i < count; ++i)
        store_le(data + i * n, is_float ? float_bits(init.dtype, double(i)) : uint64_t(i), n);
      return;
    }
    case BufferInit::Kind::Random: {
      size_t n = dtype_size(init.dtype), count = bytes / n;
      uint64_t state = init.seed;
      if (dtype_is_float(init.dtype)) {
        double lo = init.float_min, hi = init.float_max;
        for (size_t i = 0; i < count; ++i) {
          double u = double(splitmix64_next(state) >> 11) * 0x1.0p-53;  // [0, 1)
          double v = (1 - u) * lo + u * hi;  // no overflow even for bounds near ±DBL_MAX
          if (v < lo) v = lo;
          if (v > hi) v = hi;
          store_le(data + i * n, float_bits(init.dtype, v), n);
        }
      } else {
        uint64_t span = init.int_max - init.int_min;  // range - 1, modulo 2^64
        for (size_t i = 0; i < count; ++i) {
          uint64_t x = splitmix64_next(state);
          if (span != ~uint64_t(0)) {
            uint64_t range = span + 1;
            uint64_t reject_below = (0 - range) % range;  // 2^64 mod range
            while (x < reject_below) x = splitmix64_next(state);
            x = init.int_min + x % range;
          }
          store_le(data + i * n, x, n);
        }
      }
      return;
    }
  }
}

}  // namespace ptxsim::cli
