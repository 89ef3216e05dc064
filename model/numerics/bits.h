// Bit-level helpers shared by the numerics model: bit casts, field access, classification,
// canonical NaN encodings, flush-to-zero, testp predicates, copysign and ordered comparison.
// Everything here is a pure function of register bit patterns.
#pragma once
#include <bit>
#include <cstdint>

namespace ptxsim::model::num {

// ---- bit casts ---------------------------------------------------------------------------------
inline uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float f32_from(uint32_t b) { return std::bit_cast<float>(b); }
inline uint64_t f64_bits(double d) { return std::bit_cast<uint64_t>(d); }
inline double f64_from(uint64_t b) { return std::bit_cast<double>(b); }

// ---- NaN encodings -----------------------------------------------------------------------------
// f32: every single-precision instruction that produces a NaN produces 0x7FFFFFFF (CUDA C
// Programming Guide, "Floating-Point Standard").
inline constexpr uint32_t kF32CanonicalNaN = 0x7FFFFFFFu;
// f16 / bf16: canonical NaN used by the half-precision units and by cvt (0x7FFF; this is also
// what NVIDIA's own host-side fp8->f16 emulation returns).
inline constexpr uint16_t kF16CanonicalNaN = 0x7FFFu;
inline constexpr uint16_t kBF16CanonicalNaN = 0x7FFFu;
// f64 arithmetic supports NaN payloads (PTX ISA 9.7.3): a NaN operand is passed through. A NaN
// *generated* by an invalid f64 operation (inf-inf, 0*inf, 0/0, sqrt(-x)) is 0xFFF8000000000000:
// the value envytools' hardware tests recorded for DADD/DFMA. Not verified on sm_90.
inline constexpr uint64_t kF64DefaultNaN = 0xFFF8000000000000ull;
// f64 "canonical NaN" where PTX says canonical (conversions from formats without payload room).
inline constexpr uint64_t kF64CanonicalNaN = 0x7FFFFFFFFFFFFFFFull;
// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64 map NaN inputs to this (PTX ISA 9.7.3.14/17).
inline constexpr uint64_t kF64ApproxFtzNaN = 0x7FFFFFFF00000000ull;
// 8-bit and smaller formats.
inline constexpr uint8_t kE4M3NaN = 0x7F;   // also 0xFF decodes as NaN
inline constexpr uint8_t kE5M2NaN = 0x7F;   // canonical quiet NaN produced by cvt
inline constexpr uint8_t kUE8M0NaN = 0xFF;
inline constexpr uint8_t kUE4M3NaN = 0x7F;

// ---- f32 fields / classes ----------------------------------------------------------------------
inline constexpr uint32_t kF32Sign = 0x80000000u;
inline constexpr uint32_t kF32Inf = 0x7F800000u;
inline constexpr uint32_t kF32One = 0x3F800000u;
inline bool f32_is_nan(uint32_t b) { return (b & 0x7FFFFFFFu) > kF32Inf; }
inline bool f32_is_inf(uint32_t b) { return (b & 0x7FFFFFFFu) == kF32Inf; }
inline bool f32_is_zero(uint32_t b) { return (b & 0x7FFFFFFFu) == 0; }
inline bool f32_is_subnormal(uint32_t b) {
  return (b & kF32Inf) == 0 && (b & 0x007FFFFFu) != 0;
}
inline bool f32_sign(uint32_t b) { return (b >> 31) != 0; }
// .ftz input/output flushing: subnormal -> zero of the same sign.
inline uint32_t f32_flush(uint32_t b) { return f32_is_subnormal(b) ? (b & kF32Sign) : b; }
inline uint32_t f32_canon(uint32_t b) { return f32_is_nan(b) ? kF32CanonicalNaN : b; }

// ---- f64 ---------------------------------------------------------------------------------------
inline constexpr uint64_t kF64Sign = 0x8000000000000000ull;
inline constexpr uint64_t kF64Inf = 0x7FF0000000000000ull;
inline constexpr uint64_t kF64One = 0x3FF0000000000000ull;
inline bool f64_is_nan(uint64_t b) { return (b & ~kF64Sign) > kF64Inf; }
inline bool f64_is_inf(uint64_t b) { return (b & ~kF64Sign) == kF64Inf; }
inline bool f64_is_zero(uint64_t b) { return (b & ~kF64Sign) == 0; }
inline bool f64_is_subnormal(uint64_t b) {
  return (b & kF64Inf) == 0 && (b & 0x000FFFFFFFFFFFFFull) != 0;
}
inline bool f64_sign(uint64_t b) { return (b >> 63) != 0; }
inline uint64_t f64_flush(uint64_t b) { return f64_is_subnormal(b) ? (b & kF64Sign) : b; }

// ---- f16 ---------------------------------------------------------------------------------------
inline constexpr uint16_t kF16Sign = 0x8000u;
inline constexpr uint16_t kF16Inf = 0x7C00u;
inline constexpr uint16_t kF16One = 0x3C00u;
inline bool f16_is_nan(uint16_t b) { return (b & 0x7FFFu) > kF16Inf; }
inline bool f16_is_inf(uint16_t b) { return (b & 0x7FFFu) == kF16Inf; }
inline bool f16_is_subnormal(uint16_t b) { return (b & kF16Inf) == 0 && (b & 0x03FFu) != 0; }
inline uint16_t f16_flush(uint16_t b) {
  return f16_is_subnormal(b) ? static_cast<uint16_t>(b & kF16Sign) : b;
}

// ---- bf16 --------------------------------------------------------------------------------------
inline constexpr uint16_t kBF16Sign = 0x8000u;
inline constexpr uint16_t kBF16Inf = 0x7F80u;
inline constexpr uint16_t kBF16One = 0x3F80u;
inline bool bf16_is_nan(uint16_t b) { return (b & 0x7FFFu) > kBF16Inf; }
inline bool bf16_is_inf(uint16_t b) { return (b & 0x7FFFu) == kBF16Inf; }
inline bool bf16_is_subnormal(uint16_t b) { return (b & kBF16Inf) == 0 && (b & 0x007Fu) != 0; }
inline uint16_t bf16_flush(uint16_t b) {
  return bf16_is_subnormal(b) ? static_cast<uint16_t>(b & kBF16Sign) : b;
}

// ---- packed x2 helpers: element 0 is the low half (PTX: fA[0] = a[0:15]) -------------------------
inline uint16_t lo16(uint32_t v) { return static_cast<uint16_t>(v); }
inline uint16_t hi16(uint32_t v) { return static_cast<uint16_t>(v >> 16); }
inline uint32_t pack16(uint16_t hi, uint16_t lo) {
  return (static_cast<uint32_t>(hi) << 16) | lo;
}
inline uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
inline uint64_t pack32(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }

// ---- testp (PTX 9.7.3.1) -----------------------------------------------------------------------
enum class TestpOp : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
// Note: PTX counts +0 and -0 as *normal* numbers.
inline bool testp_f32(TestpOp op, uint32_t a) {
  switch (op) {
    case TestpOp::Finite: return (a & kF32Inf) != kF32Inf;
    case TestpOp::Infinite: return f32_is_inf(a);
    case TestpOp::Number: return !f32_is_nan(a);
    case TestpOp::NotANumber: return f32_is_nan(a);
    case TestpOp::Normal: return (a & kF32Inf) != kF32Inf && !f32_is_subnormal(a);
    case TestpOp::Subnormal: return f32_is_subnormal(a);
  }
  return false;
}
inline bool testp_f64(TestpOp op, uint64_t a) {
  switch (op) {
    case TestpOp::Finite: return (a & kF64Inf) != kF64Inf;
    case TestpOp::Infinite: return f64_is_inf(a);
    case TestpOp::Number: return !f64_is_nan(a);
    case TestpOp::NotANumber: return f64_is_nan(a);
    case TestpOp::Normal: return (a & kF64Inf) != kF64Inf && !f64_is_subnormal(a);
    case TestpOp::Subnormal: return f64_is_subnormal(a);
  }
  return false;
}

// ---- copysign (PTX 9.7.3.2): d = value of b with the sign bit of a -----------------------------
inline uint32_t copysign_f32(uint32_t a, uint32_t b) { return (b & ~kF32Sign) | (a & kF32Sign); }
inline uint64_t copysign_f64(uint64_t a, uint64_t b) { return (b & ~kF64Sign) | (a & kF64Sign); }

}  // namespace ptxsim::model::num
