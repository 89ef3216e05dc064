// Rounding modes and the generic exact-rounding core of the numerics model.
//
// Every correctly rounded operation in model/numerics ends here: an exact (or exact-plus-sticky)
// binary value is rounded once into a FloatFormat with one of the PTX rounding modes. The core
// handles normal and subnormal results, carries into the next binade, overflow (IEEE or
// .satfinite), and formats without Inf (e4m3, ue4m3) or without Inf and NaN (e2m3, e3m2, e2m1).
#pragma once
#include <cstdint>

namespace ptxsim::model::num {

// PTX floating-point rounding modifiers .rn .rz .rm .rp .rna.
enum class Round : uint8_t { RN, RZ, RM, RP, RNA };
// PTX integer rounding modifiers .rni .rzi .rmi .rpi (round to an integral value).
enum class IntRound : uint8_t { RNI, RZI, RMI, RPI };
constexpr Round to_round(IntRound r) {
  switch (r) {
    case IntRound::RNI: return Round::RN;
    case IntRound::RZI: return Round::RZ;
    case IntRound::RMI: return Round::RM;
    case IntRound::RPI: return Round::RP;
  }
  return Round::RN;
}

using u128 = unsigned __int128;

// What a format does with the all-ones exponent field.
enum class Special : uint8_t {
  IEEE,     // Inf (mantissa 0) and NaN (mantissa != 0): f64, f32, tf32, f16, bf16, e5m2
  NanOnly,  // no Inf; only exponent and mantissa all ones is NaN: e4m3, ue4m3
  None,     // no Inf, no NaN; the top binade holds ordinary numbers: e2m3, e3m2, e2m1
};

struct FloatFormat {
  uint8_t exp_bits;
  uint8_t man_bits;   // explicit mantissa bits
  int16_t bias;
  Special special;
  bool is_signed;     // false: no sign bit (ue4m3)

  constexpr int total_bits() const { return (is_signed ? 1 : 0) + exp_bits + man_bits; }
  constexpr uint64_t sign_mask() const {
    return is_signed ? uint64_t{1} << (exp_bits + man_bits) : 0;
  }
  constexpr uint64_t man_mask() const { return (uint64_t{1} << man_bits) - 1; }
  constexpr uint64_t exp_field_max() const { return (uint64_t{1} << exp_bits) - 1; }
  constexpr int emin() const { return 1 - bias; }
  // Largest finite magnitude, as an encoding without sign.
  constexpr uint64_t max_finite() const {
    uint64_t all = (uint64_t{1} << (exp_bits + man_bits)) - 1;
    switch (special) {
      case Special::IEEE: return all - man_mask() - 1;  // exponent all ones minus one, mantissa ones
      case Special::NanOnly: return all - 1;
      case Special::None: return all;
    }
    return all;
  }
  constexpr uint64_t inf() const { return (exp_field_max() << man_bits); }  // IEEE only
  // Canonical NaN produced by conversions into this format (all ones except the sign).
  constexpr uint64_t canonical_nan() const { return (uint64_t{1} << (exp_bits + man_bits)) - 1; }
  constexpr bool has_nan() const { return special != Special::None; }
};

inline constexpr FloatFormat kF64{11, 52, 1023, Special::IEEE, true};
inline constexpr FloatFormat kF32{8, 23, 127, Special::IEEE, true};
inline constexpr FloatFormat kTF32{8, 10, 127, Special::IEEE, true};  // 19-bit value, see fp_formats.h
inline constexpr FloatFormat kF16{5, 10, 15, Special::IEEE, true};
inline constexpr FloatFormat kBF16{8, 7, 127, Special::IEEE, true};
inline constexpr FloatFormat kE5M2{5, 2, 15, Special::IEEE, true};
inline constexpr FloatFormat kE4M3{4, 3, 7, Special::NanOnly, true};
inline constexpr FloatFormat kUE4M3{4, 3, 7, Special::NanOnly, false};
inline constexpr FloatFormat kE3M2{3, 2, 3, Special::None, true};
inline constexpr FloatFormat kE2M3{2, 3, 1, Special::None, true};
inline constexpr FloatFormat kE2M1{2, 1, 1, Special::None, true};

// A decoded operand. Finite values are (-1)^neg * mant * 2^exp with mant < 2^(man_bits+1).
struct Unpacked {
  enum Cls : uint8_t { Zero, Finite, Inf, NaN } cls;
  bool neg;
  int32_t exp;
  uint64_t mant;
};
Unpacked unpack(const FloatFormat& f, uint64_t bits);

// An exact value for rounding: (-1)^neg * (mant + t) * 2^exp where t = 0 if !sticky and
// 0 < t < 1 if sticky. When sticky is set, mant must carry at least man_bits + 2 significant bits
// of the target format (callers keep >= 60), so that the guard bit is known.
struct Exact {
  bool neg;
  int32_t exp;
  u128 mant;
  bool sticky;
};

enum class Overflow : uint8_t {
  IEEE,       // RN/RNA -> Inf, RZ -> max finite, RM/RP -> Inf or max finite by sign. For a format
              // without Inf, "Inf" means NaN (NanOnly) or max finite (None).
  SatFinite,  // always the max finite value of the right sign (.satfinite)
};

// Rounds a nonzero exact value into `f` (sign included). A zero mantissa without sticky gives a
// zero of the given sign.
uint64_t round_pack(const FloatFormat& f, const Exact& x, Round rm,
                    Overflow ovf = Overflow::IEEE);

// True when the host floating-point environment is the one the round-to-nearest fast paths of
// f32_ops / f64_ops rely on: rounding mode FE_TONEAREST and, on x86, MXCSR FTZ and DAZ clear
// (-ffast-math executables set them at startup), on aarch64 FPCR.FZ and FPCR.FIZ clear. The engine can check this once at start-up.
bool host_fp_environment_ok();

// Number of significant bits of a nonzero u128 minus one (index of the top set bit).
inline int msb128(u128 v) {
  uint64_t hi = static_cast<uint64_t>(v >> 64);
  if (hi) return 127 - __builtin_clzll(hi);
  return 63 - __builtin_clzll(static_cast<uint64_t>(v));
}

}  // namespace ptxsim::model::num
