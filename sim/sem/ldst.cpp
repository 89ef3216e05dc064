// ld, ldu, st, mov and cvta.
#include <algorithm>
#include <array>
#include <bit>

#include "sim/exec/engine.h"
#include "sim/exec/warp_access.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {

Space space_of(const Binder& b) {
  if (b.has(".global")) return Space::Global;
  if (b.has(".shared::cluster")) return Space::SharedCluster;
  if (b.has(".shared") || b.has(".shared::cta")) return Space::Shared;
  if (b.has(".local")) return Space::Local;
  if (b.has(".param") || b.has(".param::entry") || b.has(".param::func")) return Space::Param;
  if (b.has(".const")) return Space::Const;
  return Space::Generic;
}

}  // namespace sem

namespace {

using sem::addr_of;

// Space of the access: the instruction's, except that a frame variable (a .param or .local declared
// in a function body, or a .func parameter) lives in the thread's stack.
inline Space access_space(const Instr& in) {
  return in.op[in.a].frame_rel ? Space::Local : in.space;
}

// A resolved vector ld/st of n <= 8 elements: the vector's register columns looked up once, not
// per lane (stores stay in lane order). Kept out of line so that the scalar paths of exec_ld and
// exec_st compile as before.
// N > 0: exactly N elements (the common .v2 and .v4, with fixed-size copies and unrolled loops);
// N == 0: n of them.
template <uint32_t Bytes, bool Signed, uint32_t N = 0>
[[gnu::noinline]] void ld_vector(ExecCtx& c, const Operand& d, uint32_t n, uint32_t mask, uint8_t* const* ptrs) {
  if constexpr (N == 0) {
    if (n == 4) return ld_vector<Bytes, Signed, 4>(c, d, n, mask, ptrs);
    if (n == 2) return ld_vector<Bytes, Signed, 2>(c, d, n, mask, ptrs);
  }
  const uint32_t count = N ? N : n;
  uint64_t* dst[8];
  for (uint32_t i = 0; i < count; ++i) dst[i] = c.col(sem::vec_elem(c, d, i));
  for_lanes(mask, [&](int l) {
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t v = load_le(ptrs[l] + Bytes * i, Bytes);
      if constexpr (Signed) v = sem::sext(v, Bytes * 8);
      dst[i][l] = v;
    }
  });
}
template <uint32_t Bytes, uint32_t N = 0>
[[gnu::noinline]] void st_vector(ExecCtx& c, const Operand& s, uint32_t n, uint32_t mask, uint8_t* const* ptrs) {
  if constexpr (N == 0) {
    if (n == 4) return st_vector<Bytes, 4>(c, s, n, mask, ptrs);
    if (n == 2) return st_vector<Bytes, 2>(c, s, n, mask, ptrs);
  }
  const uint32_t count = N ? N : n;
  const uint64_t* src[8];
  uint64_t add[8];
  for (uint32_t i = 0; i < count; ++i) {
    const Operand& e = sem::vec_elem(c, s, i);
    src[i] = c.col(e);
    add[i] = e.frame_rel ? c.local_base : 0;
  }
  for_lanes(mask, [&](int l) {
    for (uint32_t i = 0; i < count; ++i) store_le(ptrs[l] + Bytes * i, src[i][l] + add[i], Bytes);
  });
}

// ld: in.a = index of the address operand (1); in.b = element bytes; in.c = vector count; in.d = signed.
template <uint32_t Bytes, bool Signed>
void exec_ld(ExecCtx& c, const Instr& in, uint32_t mask) {
  const Operand& a = in.op[1];
  const Operand& d = in.op[0];
  const Space sp = access_space(in);
  const uint32_t n = in.c;
  const uint32_t total = Bytes * n;
  if constexpr (Bytes <= 8) {
    if ((sp == Space::Global || sp == Space::Const) && n == 1 && d.kind == Operand::Kind::Reg && d.slot != a.slot &&
        warp_load_global<Bytes, Signed>(c, a, mask, c.col(d)))
      return;
  }
  uint8_t* ptrs[32];
  const bool resolved = warp_access(c, sp, a, mask, total, total, Access::Read, ptrs);
  if (resolved && n == 1 && d.kind != Operand::Kind::Vec && Bytes != 16) {
    uint64_t* dst = c.col(d);
    for_lanes(mask, [&](int l) {
      uint64_t v = load_le(ptrs[l], Bytes);
      if constexpr (Signed) v = sem::sext(v, Bytes * 8);
      dst[l] = v;
    });
    return;
  }
  if (resolved && d.kind == Operand::Kind::Vec && Bytes != 16 && n <= 8) return ld_vector<Bytes, Signed>(c, d, n, mask, ptrs);
  for_lanes(mask, [&](int l) {
    const uint8_t* p = resolved ? ptrs[l] : c.mem(sp, addr_of(c, a, l), total, total, l, Access::Read);
    if (n == 1 && d.kind != Operand::Kind::Vec) {
      if constexpr (Bytes == 16) {
        uint64_t* lo = c.col(d);
        std::memcpy(&lo[l], p, 8);
        std::memcpy(&lo[l + 32], p + 8, 8);
      } else {
        uint64_t v = load_le(p, Bytes);
        if constexpr (Signed) v = sem::sext(v, Bytes * 8);
        c.col(d)[l] = v;
      }
      return;
    }
    for (uint32_t i = 0; i < n; ++i) {
      const Operand& e = sem::vec_elem(c, d, i);
      if constexpr (Bytes == 16) {
        uint64_t* col = c.col(e);
        std::memcpy(&col[l], p + 16 * i, 8);
        std::memcpy(&col[l + 32], p + 16 * i + 8, 8);
      } else {
        uint64_t v = load_le(p + Bytes * i, Bytes);
        if constexpr (Signed) v = sem::sext(v, Bytes * 8);
        c.col(e)[l] = v;
      }
    }
  });
}

template <uint32_t Bytes>
void exec_st(ExecCtx& c, const Instr& in, uint32_t mask) {
  const Operand& a = in.op[0];
  const Operand& s = in.op[1];
  const Space sp = access_space(in);
  const uint32_t n = in.c;
  const uint32_t total = Bytes * n;
  uint8_t* ptrs[32];
  const bool resolved = warp_access(c, sp, a, mask, total, total, Access::Write, ptrs);
  if (resolved && n == 1 && s.kind != Operand::Kind::Vec && Bytes != 16) {
    const uint64_t* src = c.col(s);
    const uint64_t add = s.frame_rel ? c.local_base : 0;
    for_lanes(mask, [&](int l) { store_le(ptrs[l], src[l] + add, Bytes); });
    return;
  }
  if (resolved && s.kind == Operand::Kind::Vec && Bytes != 16 && n <= 8) return st_vector<Bytes>(c, s, n, mask, ptrs);
  for_lanes(mask, [&](int l) {
    uint8_t* p = resolved ? ptrs[l] : c.mem(sp, addr_of(c, a, l), total, total, l, Access::Write);
    for (uint32_t i = 0; i < n; ++i) {
      const Operand& e = s.kind == Operand::Kind::Vec ? sem::vec_elem(c, s, i) : s;
      const uint64_t* col = c.col(e);
      if constexpr (Bytes == 16) {
        std::memcpy(p + 16 * i, &col[l], 8);
        std::memcpy(p + 16 * i + 8, &col[l + 32], 8);
      } else {
        uint64_t v = col[l] + (e.frame_rel ? c.local_base : 0);
        store_le(p + Bytes * i, v, Bytes);
      }
    }
  });
}

template <bool Signed>
ExecFn pick_ld(uint32_t bytes) {
  switch (bytes) {
    case 1: return exec_ld<1, Signed>;
    case 2: return exec_ld<2, Signed>;
    case 4: return exec_ld<4, Signed>;
    case 8: return exec_ld<8, Signed>;
    case 16: return exec_ld<16, false>;
  }
  return nullptr;
}

uint32_t vec_count(const Binder& b) {
  if (b.has(".v2")) return 2;
  if (b.has(".v4")) return 4;
  if (b.has(".v8")) return 8;
  return 1;
}

uint32_t elem_bytes(const Binder& b) {
  DType t = b.type(0);
  uint32_t bits = dtype_bits(t);
  if (t == DType::Pred) b.error("ld/st of .pred is not allowed");
  return bits / 8;
}

// `{ %r1 }`, a vector of one element, is the scalar %r1 where a scalar is expected: ptxas accepts it
// in ld/st/mov and LLVM's NVPTX back end (Triton) writes scalar loads that way.
void unwrap_single_element(Binder& b, size_t i) {
  Operand& o = b.in.op[i];
  if (o.kind == Operand::Kind::Vec && o.count == 1) o = b.dec.current().vec_pool[o.slot];
}

void check_vector_operand(Binder& b, size_t i, uint32_t n) {
  if (n == 1) unwrap_single_element(b, i);
  if (n > 1) {
    if (b.op_kind(i) != Operand::Kind::Vec || b.in.op[i].count != n)
      b.error("'" + b.src.opcode + "' needs a vector operand of " + std::to_string(n) + " elements");
  } else if (b.op_kind(i) == Operand::Kind::Vec) {
    b.error("'" + b.src.opcode + "' has a vector operand but no .v2/.v4/.v8");
  }
}

// Vector widths as ptxas allows them: at most 128 bits, or 256 bits (.v8.b32, .v4.b64) for
// .global/generic accesses on sm_100 and newer from PTX ISA 8.8; .b128 is never a vector element.
void check_vector_width(const Binder& b, uint32_t n, uint32_t bytes, Space sp) {
  if (n == 1) return;
  const uint32_t bits = n * bytes * 8;
  if (bytes == 16 || bits > 256)
    b.error("vector of " + std::to_string(bits) + " bits in '" + b.src.opcode + "' exceeds the vector size limit");
  if (bits == 256) {
    const Program& p = b.dec.program();
    if (p.target.sm < 100) b.error("256-bit loads and stores need .target sm_100 or higher");
    if (p.ptx_version < 88) b.error("256-bit loads and stores require PTX ISA .version 8.8 or later");
    if (sp != Space::Global && sp != Space::Generic) b.error("256-bit loads and stores need .global (or generic) addresses");
  }
}

// The registers of a data operand (or of each element of a vector operand): as wide as the type
// or wider (`exact`: exactly as wide, as atomics need), and all elements of a vector alike.
void check_data_widths(const Binder& b, size_t i, uint32_t bits, bool exact, const char* role) {
  const Operand& o = b.in.op[i];
  uint32_t n = o.kind == Operand::Kind::Vec ? o.count : 1, seen = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const Operand& e = o.kind == Operand::Kind::Vec ? b.dec.current().vec_pool[o.slot + k] : o;
    if (e.kind != Operand::Kind::Reg) continue;
    if (seen && e.width != seen) b.error("incompatible elements in the vector operand of '" + b.src.opcode + "'");
    seen = e.width;
    if (exact ? e.width != bits : e.width < bits)
      b.error("the " + std::string(role) + " register of '" + b.src.opcode + "' is " + std::to_string(e.width) +
              " bits wide; ." + std::string(dtype_name(b.type(0))) + " needs " + (exact ? "" : "at least ") +
              std::to_string(bits));
  }
}

// mov: d ← a, including pack/unpack between a wide register and a vector of narrow ones.
void exec_mov(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* s = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  const uint64_t add = in.op[1].frame_rel ? c.local_base : 0;
  for_lanes(mask, [&](int l) { d[l] = s[l] + add; });
}
void exec_mov_neg_pred(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* s = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = (s[l] & 1) ^ 1; });
}
void exec_mov128(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* s = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    d[l] = s[l];
    d[l + 32] = s[l + 32];
  });
}
// mov between a register and a vector of N narrow ones: element i at bit i * in.b of the register
// (in.b bits each). Wide: a .b128 register, two 64-bit words (lanes l and l + 32 of its column
// pair). The element columns are found once per instruction, not per lane (f16x2 halves are packed
// and unpacked by the thousand in CUTLASS's f16 epilogues).
template <uint32_t N, bool Wide>
void exec_mov_pack(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint32_t eb = in.b;
  const uint64_t m = eb >= 64 ? ~0ull : (1ull << eb) - 1;
  std::array<const uint64_t*, N> s;
  for (uint32_t i = 0; i < N; ++i) s[i] = c.col(sem::vec_elem(c, in.op[1], i));
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    uint64_t w[2] = {0, 0};
    for (uint32_t i = 0; i < N; ++i) {
      const uint32_t bit = i * eb;
      if (Wide && bit >= 64) w[1] |= (s[i][l] & m) << (bit - 64);
      else w[0] |= (s[i][l] & m) << bit;
    }
    d[l] = w[0];
    if constexpr (Wide) d[l + 32] = w[1];
  });
}
template <uint32_t N, bool Wide>
void exec_mov_unpack(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint32_t eb = in.b;
  const uint64_t m = eb >= 64 ? ~0ull : (1ull << eb) - 1;
  const uint64_t* s = c.col(in.op[1]);
  std::array<uint64_t*, N> d;
  for (uint32_t i = 0; i < N; ++i) d[i] = c.col(sem::vec_elem(c, in.op[0], i));
  for_lanes(mask, [&](int l) {
    // (Both words read first: a destination may name the source's register.)
    const uint64_t w0 = s[l], w1 = Wide ? s[l + 32] : 0;
    for (uint32_t i = 0; i < N; ++i) {
      const uint32_t bit = i * eb;
      d[i][l] = (Wide && bit >= 64 ? w1 >> (bit - 64) : w0 >> bit) & m;
    }
  });
}
void exec_mov_clock(ExecCtx& c, const Instr& in, uint32_t mask) {
  // The simulated clock is the count of warp-instructions the cluster issued so far: it only moves
  // forward, a spin loop reading it terminates, and it does not depend on other clusters.
  uint64_t t = c.eng->steps;
  uint64_t v;
  switch (DynSreg(in.imm)) {
    case DynSreg::Clock: v = uint32_t(t); break;
    case DynSreg::ClockHi: v = uint32_t(t >> 32); break;
    case DynSreg::GlobalTimer: v = t * 1000; break;   // pretend 1 GHz: nanoseconds
    case DynSreg::GlobalTimerLo: v = uint32_t(t * 1000); break;
    case DynSreg::GlobalTimerHi: v = uint32_t((t * 1000) >> 32); break;
    default: v = t;
  }
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = v; });
}

constexpr uint64_t kFunctionAddressBase = 0x7b0000000000ull;

// cvta: in.b = 1 for "to generic", 0 for ".to"; in.imm = the window base.
void exec_cvta(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* s = c.col(in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  const uint64_t add = in.op[1].frame_rel ? c.local_base : 0;
  const bool narrow = in.types[0] == DType::U32;
  for_lanes(mask, [&](int l) {
    uint64_t v = s[l] + add;
    v = in.b ? v + in.imm : v - in.imm;
    d[l] = narrow ? uint32_t(v) : v;
  });
}

}  // namespace

namespace sem {

// A variable named in the address of a generic access means its generic address.
void generic_symbol(Binder& b, size_t i) {
  Operand& o = b.in.op[i];
  if (b.in.space != Space::Generic || o.frame_rel) return;
  if (o.space == Space::Shared) o.imm += int64_t(kSharedWindow);  // the base slot holds the CTA's window
  else if (o.space == Space::Param) o.imm += int64_t(kParamWindow);
}

namespace {
const char* space_word(Space s) {
  switch (s) {
    case Space::Global: return ".global";
    case Space::Shared: return ".shared";
    case Space::SharedCluster: return ".shared::cluster";
    case Space::Local: return ".local";
    case Space::Param: return ".param";
    case Space::Const: return ".const";
    default: return "generic";
  }
}
}  // namespace

// Where the variable named by operand o lives: Generic when o names none; Const for a .const
// module variable; Local for a frame variable (.local/.param of a body, .func parameters).
Space variable_space(const Binder& b, const Operand& o) {
  if (o.kind != Operand::Kind::Addr && o.kind != Operand::Kind::Imm) return Space::Generic;
  if (o.frame_rel) return Space::Local;
  if (o.space != Space::Global) return o.space == Space::Shared || o.space == Space::Param ? o.space : Space::Generic;
  const ModuleVariable* best = nullptr;
  for (const auto& mv : b.dec.program().module_vars)
    if (mv.address <= uint64_t(o.imm) && (!best || mv.address > best->address)) best = &mv;
  return best && best->is_const ? Space::Const : Space::Global;
}

void check_symbol_space(Binder& b, size_t i, std::initializer_list<Space> allowed, const std::string& must_be) {
  const Operand& o = b.in.op[i];
  if (o.kind != Operand::Kind::Addr) return;
  const Space vs = variable_space(b, o);
  if (vs == Space::Generic || std::find(allowed.begin(), allowed.end(), vs) != allowed.end()) return;
  const std::string what = vs == Space::Param ? "a kernel .param variable"
                           : vs == Space::Local ? "a .local (frame) variable"
                                                : std::string("a ") + space_word(vs) + " variable";
  b.error("State space mismatch between instruction and address in instruction '" + std::string(b.form.opcode) +
          "': '" + b.src.operands[i].name + "' is " + what + "; " + must_be);
}

void check_address(Binder& b, size_t i, Space sp) {
  const Operand& o = b.in.op[i];
  const std::string& name = b.src.operands[i].name;
  const Space vs = variable_space(b, o);
  if (vs != Space::Generic && sp != Space::Generic) {
    bool ok = vs == sp || (vs == Space::Shared && sp == Space::SharedCluster) ||
              (vs == Space::Local && sp == Space::Param);  // body .param variables live in the frame
    if (!ok)
      b.error("state space mismatch: '" + name + "' is a " + space_word(vs) + " variable, used with '" + b.src.opcode + "'");
  }
  // A generic access names a variable by its generic address, which .param (kernel) and .const
  // variables do not have in ptxas's eyes: it rejects `ld.u32 %r, [param]` as it does `ld.u32 %r, [cvar]`.
  if (sp == Space::Generic && (vs == Space::Param || vs == Space::Const))
    b.error("State space mismatch between instruction and address in instruction '" + std::string(b.form.opcode) +
            "': '" + name + "' is a " + (vs == Space::Param ? "kernel .param" : ".const") +
            " variable, which has no generic address: write the " + space_word(vs) +
            " space in the instruction, or use the address cvta" + space_word(vs) + " gives");
  if (o.kind != Operand::Kind::Addr) return;
  if (vs == Space::Generic && o.slot == b.dec.current().zero_slot && sp != Space::Local)
    b.error("immediate addresses are allowed only for the .local state space");
  if (vs == Space::Generic && o.slot != b.dec.current().zero_slot && o.width == 32 &&
      (sp == Space::Global || sp == Space::Generic))
    b.error("'" + b.src.opcode + "' needs a 64-bit address register: 32-bit addresses reach only .shared, .local, "
            ".param and .const memory");
}

}  // namespace sem

using sem::generic_symbol;

void bind_ld(Binder& b) {
  b.require_ops(2, 3);
  if (b.op_kind(1) != Operand::Kind::Addr) b.error("'" + b.src.opcode + "' needs an address operand [..]");
  b.in.space = sem::space_of(b);
  b.in.a = 1;
  sem::check_address(b, 1, b.in.space);
  generic_symbol(b, 1);
  uint32_t n = vec_count(b), bytes = elem_bytes(b);
  check_vector_operand(b, 0, n);
  check_vector_width(b, n, bytes, b.in.space);
  check_data_widths(b, 0, bytes * 8, bytes == 16, "destination");
  b.in.b = uint8_t(bytes);
  b.in.c = uint8_t(n);
  b.in.fn = is_signed_int(b.type(0)) ? pick_ld<true>(bytes) : pick_ld<false>(bytes);
  if (!b.in.fn) b.error("unsupported ld type");
}

void bind_st(Binder& b) {
  b.require_ops(2, 3);
  if (b.op_kind(0) != Operand::Kind::Addr) b.error("'" + b.src.opcode + "' needs an address operand [..]");
  b.in.space = sem::space_of(b);
  if (b.in.space == Space::Param && !b.in.op[0].frame_rel) b.error("st.param may only write parameters of a call");
  if (b.in.space == Space::Const) b.error("st.const is not allowed");
  b.in.a = 0;
  sem::check_address(b, 0, b.in.space);
  generic_symbol(b, 0);
  uint32_t n = vec_count(b), bytes = elem_bytes(b);
  check_vector_operand(b, 1, n);
  check_vector_width(b, n, bytes, b.in.space);
  check_data_widths(b, 1, bytes * 8, bytes == 16, "source");
  b.in.c = uint8_t(n);
  switch (bytes) {
    case 1: b.in.fn = exec_st<1>; break;
    case 2: b.in.fn = exec_st<2>; break;
    case 4: b.in.fn = exec_st<4>; break;
    case 8: b.in.fn = exec_st<8>; break;
    case 16: b.in.fn = exec_st<16>; break;
    default: b.error("unsupported st type");
  }
}

void bind_mov(Binder& b) {
  b.require_ops(2, 2);
  unwrap_single_element(b, 0);
  unwrap_single_element(b, 1);
  b.require_types(1);
  DType t = b.type(0);
  const Operand& s = b.in.op[1];
  if (s.kind == Operand::Kind::Imm && s.width == 0xFFFF && s.space == Space::Reg) {
    b.in.imm = uint64_t(s.imm);
    b.in.fn = exec_mov_clock;
    return;
  }
  if (s.kind == Operand::Kind::Func) {
    // The address of a function, for indirect calls; unique per function.
    b.in.op[1].slot = b.dec.const_slot(kFunctionAddressBase + s.slot);
    b.in.op[1].kind = Operand::Kind::Imm;
    b.in.fn = exec_mov;
    return;
  }
  if (s.kind == Operand::Kind::Label) b.error("mov of a label is not allowed");
  uint32_t bits = dtype_bits(t);
  const Space vs = sem::variable_space(b, s);
  if (bits == 32 && (vs == Space::Global || vs == Space::Const))
    b.error("the address of " + std::string(vs == Space::Global ? ".global" : ".const") +
            " variable '" + b.src.operands[1].name + "' needs a 64-bit mov (32-bit addressing is not supported)");
  if (b.op_kind(1) == Operand::Kind::Vec || b.op_kind(0) == Operand::Kind::Vec) {
    bool pack = b.op_kind(1) == Operand::Kind::Vec;
    const Operand& v = b.in.op[pack ? 1 : 0];
    if (v.count != 2 && v.count != 4) b.error("mov pack/unpack needs 2 or 4 elements");
    b.in.b = uint8_t(bits / v.count);
    b.in.c = uint8_t(v.count);
    if (bits > 64)
      b.in.fn = v.count == 2 ? (pack ? exec_mov_pack<2, true> : exec_mov_unpack<2, true>)
                             : (pack ? exec_mov_pack<4, true> : exec_mov_unpack<4, true>);
    else
      b.in.fn = v.count == 2 ? (pack ? exec_mov_pack<2, false> : exec_mov_unpack<2, false>)
                             : (pack ? exec_mov_pack<4, false> : exec_mov_unpack<4, false>);
    return;
  }
  if (t == DType::Pred && s.neg) {
    b.in.fn = exec_mov_neg_pred;
    return;
  }
  b.in.fn = bits == 128 ? exec_mov128 : exec_mov;
}

void bind_cvta(Binder& b) {
  b.require_ops(2, 2);
  Space sp = sem::space_of(b);
  b.in.b = b.has(".to") ? 0 : 1;
  if (b.in.b == 1 && sp != Space::Generic) sem::check_address(b, 1, sp);
  // A frame variable (a .local or .param declared in a body, or a .func parameter) lives in the
  // thread's stack, so its generic address is in the local window whatever space was written.
  if (b.in.op[1].frame_rel && b.in.b == 1 && (sp == Space::Local || sp == Space::Param)) sp = Space::Local;
  switch (sp) {
    case Space::Shared:
    case Space::SharedCluster: b.in.imm = kSharedWindow; break;
    case Space::Local: b.in.imm = kLocalWindow; break;
    case Space::Param: b.in.imm = kParamWindow; break;
    case Space::Global:
    case Space::Const: b.in.imm = 0; break;
    default: b.error("cvta needs a state space");
  }
  b.in.fn = exec_cvta;
}

}  // namespace ptxsim
