// Small helpers shared by the instruction semantics files.
#pragma once
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "sim/exec/decoder.h"
#include "sim/exec/exec_ctx.h"
#include "sim/isa/binder.h"

namespace ptxsim::sem {

// A value in hexadecimal for diagnostics: "0x" and lowercase digits, no padding.
inline std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

// The effective address of memory operand `o` for lane `l` (base register + offset, plus the frame
// base for frame variables).
inline uint64_t addr_of(const ExecCtx& c, const Operand& o, int l) {
  return c.regs[size_t(o.slot) * 32 + size_t(l)] + uint64_t(o.imm) + (o.frame_rel ? c.local_base : 0);
}

// Value of a source operand for lane l (immediates live in constant slots, so this is one load).
inline uint64_t val(const ExecCtx& c, const Operand& o, int l) {
  return c.regs[size_t(o.slot) * 32 + size_t(l)] + (o.frame_rel ? c.local_base : 0);
}

// The state space named by the instruction's modifiers (.global, .shared{::cta,::cluster}, .local,
// .param, .const); Generic when none is written.
Space space_of(const Binder& b);

// Rejects address operand i when it names a variable whose state space is not one of `allowed` (a
// register address names none and passes), with ptxas's "State space mismatch between instruction
// and address in instruction '<opcode>'", the variable and its space, then `must_be` (what the
// operand has to be). ldst.cpp.
void check_symbol_space(Binder& b, size_t i, std::initializer_list<Space> allowed, const std::string& must_be);

// Element `i` of vector operand `o` in the current function.
inline const Operand& vec_elem(const ExecCtx& c, const Operand& o, uint32_t i) { return c.fn->vec_pool[o.slot + i]; }

// Sign- or zero-extends the low `bits` of v to 64 bits.
inline uint64_t sext(uint64_t v, uint32_t bits) {
  if (bits >= 64) return v;
  uint64_t m = 1ull << (bits - 1);
  v &= (m << 1) - 1;
  return (v ^ m) - m;
}
// A warp-wide .sync.aligned instruction (ldmatrix, stmatrix, wmma.*) that some lane of the warp
// does not execute: each lane holds part of the matrix, so this is a fault.
inline void require_aligned_warp(ExecCtx& c, uint32_t mask, const std::string& name) {
  if (mask != 0xffffffffu)
    c.fault("error", name + " is .sync.aligned: all 32 lanes of the warp must execute it, but only lanes " + hex(mask) +
                         " do (inactive, exited or predicated off lanes)");
}

inline uint64_t zext(uint64_t v, uint32_t bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }

// Maps an integer DType to a C++ type for templates: call f.template operator()<T>().
template <class F>
auto with_int_type(DType t, F&& f) {
  switch (t) {
    case DType::U8: case DType::B8: return f.template operator()<uint8_t>();
    case DType::S8: return f.template operator()<int8_t>();
    case DType::U16: case DType::B16: return f.template operator()<uint16_t>();
    case DType::S16: return f.template operator()<int16_t>();
    case DType::U32: case DType::B32: return f.template operator()<uint32_t>();
    case DType::S32: return f.template operator()<int32_t>();
    case DType::U64: case DType::B64: return f.template operator()<uint64_t>();
    case DType::S64: return f.template operator()<int64_t>();
    default: return f.template operator()<void>();
  }
}

}  // namespace ptxsim::sem
