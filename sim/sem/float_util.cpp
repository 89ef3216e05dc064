// Binder helpers shared by the floating-point and conversion families (see float_util.h).
#include "sim/sem/float_util.h"

#include <bit>

#include "sim/exec/program.h"

namespace ptxsim::fsem {

std::string base_name(const Binder& b) { return b.form.opcode; }

void mismatch(const Binder& b) { b.error("Arguments mismatch for instruction '" + base_name(b) + "'"); }

void illegal_modifier(const Binder& b, std::string_view mod) {
  b.error("Illegal modifier '" + std::string(mod) + "' for instruction '" + base_name(b) + "'");
}

void illegal_rounding(const Binder& b) { b.error("Illegal rounding modifier for instruction '" + base_name(b) + "'"); }

void rounding_required(const Binder& b) { b.error("Rounding modifier required for instruction '" + base_name(b) + "'"); }

void bad_types(const Binder& b) { b.error("Unexpected instruction types specified for '" + base_name(b) + "'"); }

void allow(const Binder& b, std::string_view mod, bool allowed) {
  if (!allowed && b.has(mod)) illegal_modifier(b, mod);
}

void exclusive(const Binder& b, std::string_view m1, std::string_view m2) {
  if (b.has(m1) && b.has(m2))
    b.error("Modifier '" + std::string(m2) + "' cannot be combined with modifier '" + std::string(m1) + "'");
}

bool target_ok(const Binder& b, std::string_view req) { return target_satisfies(b.dec.program().target, req); }

void require_target(const Binder& b, std::string_view req, const std::string& what) {
  if (!target_ok(b, req))
    b.error(what + " not supported on .target '" + b.dec.program().target.name() + "'");
}

void require_ptx(const Binder& b, uint32_t ver, const std::string& what) {
  if (b.dec.program().ptx_version < ver)
    b.error(what + " requires PTX ISA .version " + std::to_string(ver / 10) + "." + std::to_string(ver % 10) +
            " or later");
}

num::Round Rounding::fp() const {
  switch (code) {
    case kRndRz: return num::Round::RZ;
    case kRndRm: return num::Round::RM;
    case kRndRp: return num::Round::RP;
    case kRndRna: return num::Round::RNA;
    default: return num::Round::RN;
  }
}

num::IntRound Rounding::integer() const {
  switch (code) {
    case kRndRzi: return num::IntRound::RZI;
    case kRndRmi: return num::IntRound::RMI;
    case kRndRpi: return num::IntRound::RPI;
    default: return num::IntRound::RNI;
  }
}

Rounding rounding_of(const Binder& b) { return Rounding{b.rounding()}; }

uint8_t flags_of(const Binder& b) {
  uint8_t f = 0;
  if (b.has(".ftz")) f |= kFtz;
  if (b.has(".sat")) f |= kSat;
  if (b.has(".relu")) f |= kRelu;
  if (b.has(".NaN")) f |= kNaN;
  if (b.has(".xorsign")) f |= kXorsign;
  if (b.has(".abs") && !b.has(".xorsign")) f |= kAbs;
  if (b.has(".satfinite")) f |= kSatfinite;
  return f;
}

void check_dst(const Binder& b, size_t i, uint32_t bits, bool exact) {
  const Operand& o = b.in.op[i];
  if (o.kind == Operand::Kind::Sink)
    b.error("Result discard mode is not allowed for instruction '" + base_name(b) + "'");
  if (o.kind != Operand::Kind::Reg) mismatch(b);
  if (exact ? o.width != bits : o.width < bits) mismatch(b);
}

void check_src_bits(const Binder& b, size_t i, uint32_t bits, bool exact) {
  const Operand& o = b.in.op[i];
  if (o.kind != Operand::Kind::Reg) mismatch(b);
  if (exact ? o.width != bits : o.width < bits) mismatch(b);
}

void check_src(Binder& b, size_t i, DType t, bool exact) {
  Operand& o = b.in.op[i];
  if (o.kind == Operand::Kind::Reg) {
    uint32_t bits = dtype_bits(t);
    if (exact ? o.width != bits : o.width < bits) mismatch(b);
    return;
  }
  if (o.kind != Operand::Kind::Imm || i >= b.src.operands.size()) mismatch(b);
  const ast::Operand& a = b.src.operands[i];
  using K = ast::Operand::Kind;
  uint64_t bits;
  if (is_int(t) || is_bits(t)) {
    if (a.kind != K::Int) mismatch(b);
    return;  // the slot already holds the literal's bits
  }
  if (t == DType::F32 || t == DType::TF32) {
    if (a.kind == K::F32) bits = uint32_t(a.value);
    else if (a.kind == K::F64) bits = std::bit_cast<uint32_t>(float(std::bit_cast<double>(uint64_t(a.value))));
    else mismatch(b);
  } else if (t == DType::F64) {
    if (a.kind == K::F64) bits = uint64_t(a.value);
    else if (a.kind == K::F32) bits = std::bit_cast<uint64_t>(double(std::bit_cast<float>(uint32_t(a.value))));
    else mismatch(b);
  } else {
    mismatch(b);  // no literals for f16, bf16 and the packed types
  }
  o.imm = int64_t(bits);
  o.slot = b.dec.const_slot(bits);
}

void store_mods(Binder& b, num::Round rnd, uint8_t flags, num::IntRound irnd) {
  b.in.a = uint8_t(rnd);
  b.in.b = flags;
  b.in.c = uint8_t(irnd);
}

}  // namespace ptxsim::fsem
