// Shared pieces of the floating-point and conversion semantics (sim/sem/float_*.cpp, cvt.cpp):
// the decoded modifier set, binder checks that mirror ptxas's operand and modifier rules, and the
// lane loops that apply one numerics-library function to every active lane.
//
// Instr fields used by these families:
//   a: floating-point rounding (num::Round)       b: FFlag bits
//   c: integer rounding (num::IntRound), cvt only  d: family-specific small field
#pragma once
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/numerics/numerics.h"
#include "sim/sem/sem_util.h"

namespace ptxsim::fsem {

namespace num = model::num;

enum FFlag : uint8_t {
  kFtz = 1 << 0,
  kSat = 1 << 1,
  kRelu = 1 << 2,
  kNaN = 1 << 3,        // min/max .NaN
  kXorsign = 1 << 4,    // min/max .xorsign.abs
  kAbs = 1 << 5,        // 3-input min/max .abs
  kSatfinite = 1 << 6,  // cvt .satfinite
};

struct FMods {
  num::Round rnd;
  num::IntRound irnd;
  bool ftz, sat, relu, nan, xorsign, abs, satfinite;
  uint8_t aux;  // Instr::d
};

inline FMods mods_of(const Instr& in) {
  FMods m;
  m.rnd = num::Round(in.a);
  m.irnd = num::IntRound(in.c);
  m.ftz = in.b & kFtz;
  m.sat = in.b & kSat;
  m.relu = in.b & kRelu;
  m.nan = in.b & kNaN;
  m.xorsign = in.b & kXorsign;
  m.abs = in.b & kAbs;
  m.satfinite = in.b & kSatfinite;
  m.aux = in.d;
  return m;
}

// ---- binder helpers (float_util.cpp) ------------------------------------------------------------

// The instruction's base name ("add"), for messages.
std::string base_name(const Binder& b);
// ptxas's wording for a rejected operand list.
[[noreturn]] void mismatch(const Binder& b);
[[noreturn]] void illegal_modifier(const Binder& b, std::string_view mod);
[[noreturn]] void illegal_rounding(const Binder& b);
[[noreturn]] void rounding_required(const Binder& b);
[[noreturn]] void bad_types(const Binder& b);
// Rejects `mod` unless `allowed`.
void allow(const Binder& b, std::string_view mod, bool allowed);
// Rejects two modifiers written together.
void exclusive(const Binder& b, std::string_view m1, std::string_view m2);

// Whether the module's target satisfies `req` ("sm_100", "sm_100a|sm_103a", "sm_100f").
bool target_ok(const Binder& b, std::string_view req);
// Rejects the instruction unless the target satisfies `req` / the PTX version is at least `ver`×10;
// `what` names the feature in the message.
void require_target(const Binder& b, std::string_view req, const std::string& what);
void require_ptx(const Binder& b, uint32_t ver, const std::string& what);

// Rounding written, split into the float (.rn .rz .rm .rp .rna) and integer (.rni ...) kinds.
struct Rounding {
  uint8_t code = kRndNone;  // RoundCode
  bool is_float() const { return code >= kRndRn && code <= kRndRna; }
  bool is_int() const { return code >= kRndRni && code <= kRndRpi; }
  num::Round fp() const;
  num::IntRound integer() const;
};
Rounding rounding_of(const Binder& b);

// FFlag bits for the modifiers written.
uint8_t flags_of(const Binder& b);

// Checks operand i as a destination register of `bits` (exactly, or at least when !exact): a
// register (not `_`, not an immediate) of that width.
void check_dst(const Binder& b, size_t i, uint32_t bits, bool exact = true);
// Checks operand i as a source of type t: a register of t's width (exactly, or at least when
// !exact), or a literal the type allows (f32/f64: 0f/0d/decimal literals, converted here to the
// operand's format; integer types: integer literals; 16-bit floats and packed types: none).
void check_src(Binder& b, size_t i, DType t, bool exact = true);
// As check_src for a source of `bits` bits that takes no literal (packed, f32x2 halves, ...).
void check_src_bits(const Binder& b, size_t i, uint32_t bits, bool exact = true);

// Stores rounding and flags in the Instr (a, b, c).
void store_mods(Binder& b, num::Round rnd, uint8_t flags, num::IntRound irnd = num::IntRound::RNI);

// ---- lane loops -------------------------------------------------------------------------------
// F is a constant function (a captureless lambda) taking raw 64-bit slot values and the modifiers
// and returning the destination's bits (zero-extended). Operand 0 is the destination.

template <auto F>
void exec1(ExecCtx& c, const Instr& in, uint32_t mask) {
  const FMods m = mods_of(in);
  const uint64_t* a = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = F(a[l], m); });
}

template <auto F>
void exec2(ExecCtx& c, const Instr& in, uint32_t mask) {
  const FMods m = mods_of(in);
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = F(a[l], b[l], m); });
}

template <auto F>
void exec3(ExecCtx& c, const Instr& in, uint32_t mask) {
  const FMods m = mods_of(in);
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t* b = c.col(in.op[2]);
  const uint64_t* e = c.col(in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = F(a[l], b[l], e[l], m); });
}

// f32 helpers for the fast round-to-nearest paths: the host's IEEE binary32 arithmetic is exact
// for .rn without .ftz; every NaN result becomes the canonical 0x7FFFFFFF.
inline float f32(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
inline uint64_t f32_out(float r) {
  uint32_t u = std::bit_cast<uint32_t>(r);
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FFFFFFFu : u;
}

}  // namespace ptxsim::fsem
