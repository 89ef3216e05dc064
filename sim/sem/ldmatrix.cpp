// ldmatrix and stmatrix (PTX ISA 9.7.14.5.15-16): warp-collective moves of 8x8 / 16x16 / 8x16 /
// 16x8 matrices between shared memory and registers.
//
// Both are .sync.aligned, so the engine runs them once every live lane of the warp has arrived and
// the semantics see all 32 lanes at once. Rows are 16 bytes; row r of the whole instruction (r <
// 8 * .num, or 16 * .num for m16n16) is at the address lane r holds, which must be 16-byte aligned.
// Lanes above that supply no address and their address registers are not read. The element each
// register holds is model::frag::ldst_map (model/fragments/fragments.h).
//
// The expanding forms (.b8x16.b6x16_p32 / .b8x16.b4x16_p64) read 16 packed 6- or 4-bit elements
// from the first 12 or 8 bytes of each row (the rest is padding) and widen each to a byte, in its
// low bits: a 4-bit element in bits 3:0, a 6-bit one in bits 5:0. The PTX ISA shows the placement
// only in figures; CUTLASS states it (cute/atom/mma_traits_sm120.hpp, fp4_shift_A: "ld.matrix
// b4x16_p64 places FP4 data at the first four bits in each eight-bit container", and the same
// shift is "NOT needed for FP6"), and its sm_120 kernels shift E2M1 left by 2 before mma
// .kind::f8f6f4, whose container holds E2M1 in bits 5:2 (docs/matrix-units.md).
//
// Choices where the PTX ISA says "undefined": a lane predicated off, inactive or exited makes the
// instruction fault (every lane must take part), and a generic address outside the shared window
// faults.
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model/fragments/fragments.h"
#include "sim/exec/engine.h"
#include "sim/exec/warp_access.h"
#include "sim/sem/quad_vectors.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {

void generic_symbol(Binder& b, size_t i);

// Operand i must be a vector of exactly `count` registers of `width` bits (ldmatrix, stmatrix and
// mma.sync fragments), in ptxas's words otherwise.
void check_reg_vector(const Binder& b, size_t i, int count, uint32_t width, const char* name) {
  const Operand& o = b.in.op[i];
  if (o.kind != Operand::Kind::Vec || o.count != count)
    b.error("Vector of size " + std::to_string(count) + " is expected for argument " + std::to_string(i) +
            " of instruction '" + name + "'");
  const Function& f = b.dec.current();
  for (int k = 0; k < count; ++k) {
    const Operand& e = f.vec_pool[o.slot + uint32_t(k)];
    if (e.kind != Operand::Kind::Reg || e.width != width)
      b.error(std::string("Arguments mismatch for instruction '") + name + "': argument " + std::to_string(i) +
              " needs " + std::to_string(width) + "-bit registers");
  }
}

}  // namespace sem

namespace {

namespace frag = model::frag;

using sem::hex;

enum SrcFmt : uint8_t { kNoExpand = 0, kB6x16 = 1, kB4x16 = 2 };

// Instr fields: in.a = LdstShape, in.b = .num, in.c = .trans, in.d = SrcFmt.
frag::LdstSpec spec_of(const Instr& in) {
  frag::LdstSpec s;
  s.shape = frag::LdstShape(in.a);
  s.num = in.b;
  s.trans = in.c != 0;
  return s;
}

const char* name_of(bool store) { return store ? "stmatrix" : "ldmatrix"; }

// The host bytes of row r: its address comes from lane r.
uint8_t* row_ptr(ExecCtx& c, const Instr& in, const Operand& addr_op, int r, bool store) {
  const uint64_t a = sem::addr_of(c, addr_op, r);
  if (a & 15)
    c.fault("misaligned address", std::string(name_of(store)) + ": row address " + hex(a) + " supplied by lane " +
                                      std::to_string(r) + " is not 16-byte aligned");
  if (in.space == Space::Generic && !in_window(a, kSharedWindow))
    c.fault("illegal address", std::string(name_of(store)) + ": generic row address " + hex(a) + " supplied by lane " +
                                   std::to_string(r) + " does not point into shared memory");
  return c.mem(in.space, a, 16, 16, r, store ? Access::Write : Access::Read);
}

// Widens 16 packed 6- or 4-bit elements at the start of a 16-byte row to 16 bytes.
void expand_row(const uint8_t* src, uint8_t* dst, uint8_t fmt) {
  if (fmt == kB4x16) {
    for (int i = 0; i < 16; ++i) dst[i] = uint8_t((src[i / 2] >> (4 * (i % 2))) & 0xF);
    return;
  }
  uint64_t lo, hi = 0;
  std::memcpy(&lo, src, 8);
  std::memcpy(&hi, src + 8, 4);
  for (int i = 0; i < 16; ++i) {
    const int bit = 6 * i;
    uint64_t v = bit < 64 ? lo >> bit : hi >> (bit - 64);
    if (bit < 64 && bit + 6 > 64) v |= hi << (64 - bit);
    dst[i] = uint8_t(v & 0x3F);
  }
}

// Byte positions of every register element in the rows buffer (data[32][16] below):
// pos[(lane * regs + j) * per_reg + e] = addr_lane * 16 + col * elem_bytes from frag::ldst_map. Built
// once per form, so ldmatrix/stmatrix move bytes by table lookups instead of evaluating the fragment
// formulas per element; published through atomics (launches may run on several host threads, and
// two threads building the same table build equal ones).
struct LdstPositions {
  std::vector<uint16_t> pos;
  // Every register's elements are consecutive bytes of one row (the forms without .trans): a
  // register is then one 4-byte little-endian load from its first element's position.
  bool whole_regs = true;
  // Register j of lane l is word l % 4 of row 8 j + l / 4 (the forms without .trans and with
  // whole 8-row matrices): the rows buffer read as words is the registers in order.
  bool identity = true;
};
const LdstPositions& ldst_positions(const frag::LdstSpec& s) {
  constexpr size_t kShapes = size_t(frag::LdstShape::M16N8_B8) + 1;
  static std::atomic<const LdstPositions*> tables[kShapes * 3 * 2];  // shape x .x1/.x2/.x4 x .trans
  const size_t num_index = s.num == 4 ? 2 : s.num == 2 ? 1 : 0;
  std::atomic<const LdstPositions*>& slot = tables[(size_t(s.shape) * 3 + num_index) * 2 + (s.trans ? 1 : 0)];
  if (const LdstPositions* t = slot.load(std::memory_order_acquire)) return *t;
  const int regs = frag::ldst_regs(s), per_reg = frag::ldst_elems_per_reg(s), eb = frag::ldst_elem_bytes(s);
  auto* t = new LdstPositions;
  t->pos.resize(size_t(32 * regs * per_reg));
  t->whole_regs = per_reg * eb == 4;
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < regs; ++j)
      for (int e = 0; e < per_reg; ++e) {
        const frag::RowElem re = frag::ldst_map(s, lane, j, e);
        const size_t k = size_t((lane * regs + j) * per_reg);
        t->pos[k + size_t(e)] = uint16_t(re.addr_lane * 16 + re.col * eb);
        if (t->pos[k + size_t(e)] != t->pos[k] + e * eb) t->whole_regs = false;
        if (t->pos[k + size_t(e)] != (j * 32 + lane) * 4 + e * eb) t->identity = false;
      }
  const LdstPositions* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, t, std::memory_order_acq_rel)) {
    delete t;  // another thread published an equal table first
    return *expected;
  }
  return *t;
}

// gather_elems for a table with whole_regs: one load per register, not one per element.
void gather_regs(const uint8_t* bytes, const uint16_t* pos, int regs, int per_reg, uint32_t out[4][32]) {
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < regs; ++j) {
      uint32_t v;
      std::memcpy(&v, bytes + *pos, 4);
      pos += per_reg;
      out[j][lane] = v;
    }
}

// The lanes' registers from the rows buffer through the position table, EB bytes per element (a
// fixed-size copy: with the element size a run-time value each copy was a library call).
template <int EB>
void gather_elems(const uint8_t* bytes, const uint16_t* pos, int regs, int per_reg, uint32_t out[4][32]) {
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < regs; ++j) {
      uint32_t v = 0;
      for (int e = 0; e < per_reg; ++e) {
        uint32_t x = 0;
        std::memcpy(&x, bytes + *pos++, EB);
        v |= x << (8 * EB * e);
      }
      out[j][lane] = v;
    }
}

// The rows buffer from the lanes' registers: gather_elems backwards.
template <int EB>
void scatter_elems(const uint64_t* src, int lane, int j, int regs, int per_reg, const uint16_t* pos, uint8_t* bytes) {
  const uint32_t v = uint32_t(src[lane]);
  for (int e = 0; e < per_reg; ++e) {
    const uint32_t x = v >> (8 * EB * e);
    std::memcpy(bytes + pos[(lane * regs + j) * per_reg + e], &x, EB);
  }
}

void exec_ldmatrix(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  sem::require_aligned_warp(c, mask, name_of(false));
  const frag::LdstSpec s = spec_of(in);
  const int rows = frag::ldst_rows(s), regs = frag::ldst_regs(s);
  const int per_reg = frag::ldst_elems_per_reg(s), eb = frag::ldst_elem_bytes(s);
  uint8_t data[32][16];
  // The rows resolved for the whole warp at once when they plainly lie in this CTA's shared memory
  // (else row by row below, with row_ptr's checks and diagnostics).
  const uint32_t row_lanes = rows == 32 ? ~0u : (1u << rows) - 1;
  uint8_t* rp[32];
  const bool resolved =
      (in.space == Space::Shared || (in.space == Space::Generic && in_window(sem::addr_of(c, in.op[1], 0), kSharedWindow))) &&
      warp_access(c, in.space, in.op[1], row_lanes, 16, 16, Access::Read, rp);
  const LdstPositions& table = ldst_positions(s);
  if (resolved && table.identity && in.d == kNoExpand) {
    // Registers straight from the rows: lanes 4q .. 4q + 3 of register j hold row 8 j + q. (Stored
    // four lanes at a time, 16 bytes per store: the mma.sync that reads these registers next loads
    // them 16 bytes at a time, and a load spanning two narrower pending stores waits for them.)
    for (int j = 0; j < regs; ++j) {
      uint64_t* d = c.col(sem::vec_elem(c, in.op[0], uint32_t(j)));
      for (int q = 0; q < 8; ++q) {
        sem::U32x4 v;
        std::memcpy(&v, rp[8 * j + q], 16);
        sem::store_lanes(d + 4 * q, v);
      }
    }
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const uint8_t* p = resolved ? rp[r] : row_ptr(c, in, in.op[1], r, false);
    if (in.d == kNoExpand) std::memcpy(data[r], p, 16);
    else expand_row(p, data[r], in.d);
  }
  uint32_t out[4][32];
  const uint16_t* pos = table.pos.data();
  const uint8_t* bytes = &data[0][0];
  if (table.whole_regs) gather_regs(bytes, pos, regs, per_reg, out);
  else if (eb == 2) gather_elems<2>(bytes, pos, regs, per_reg, out);  // elements are 1 or 2 bytes
  else gather_elems<1>(bytes, pos, regs, per_reg, out);
  for (int j = 0; j < regs; ++j) {
    uint64_t* d = c.col(sem::vec_elem(c, in.op[0], uint32_t(j)));
    for (int q = 0; q < 8; ++q) {  // (16-byte stores, as above)
      sem::U32x4 v;
      std::memcpy(&v, &out[j][4 * q], 16);
      sem::store_lanes(d + 4 * q, v);
    }
  }
}

void exec_stmatrix(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  sem::require_aligned_warp(c, mask, name_of(true));
  const frag::LdstSpec s = spec_of(in);
  const int rows = frag::ldst_rows(s), regs = frag::ldst_regs(s);
  const int per_reg = frag::ldst_elems_per_reg(s), eb = frag::ldst_elem_bytes(s);
  uint8_t data[32][16];
  const uint16_t* pos = ldst_positions(s).pos.data();
  for (int j = 0; j < regs; ++j) {
    const uint64_t* src = c.col(sem::vec_elem(c, in.op[1], uint32_t(j)));
    for (int lane = 0; lane < 32; ++lane) {
      if (eb == 2) scatter_elems<2>(src, lane, j, regs, per_reg, pos, &data[0][0]);
      else scatter_elems<1>(src, lane, j, regs, per_reg, pos, &data[0][0]);
    }
  }
  // Every address is checked before anything is written, so a fault leaves memory untouched.
  uint8_t* dst[32];
  for (int r = 0; r < rows; ++r) dst[r] = row_ptr(c, in, in.op[0], r, true);
  for (int r = 0; r < rows; ++r) std::memcpy(dst[r], data[r], 16);
}

// ---- binders --------------------------------------------------------------------------------------

void require_sync_aligned(const Binder& b, const char* name) {
  if (!b.has(".sync")) b.error(std::string(".sync modifier required for instruction '") + name + "'");
  if (!b.has(".aligned")) b.error(std::string(".aligned modifier required for instruction '") + name + "'");
}

int num_of(const Binder& b, const char* name) {
  const int n = int(b.has(".x1")) + int(b.has(".x2")) + int(b.has(".x4"));
  if (n == 0) b.error(std::string(".num modifier (.x1, .x2 or .x4) required for instruction '") + name + "'");
  if (n > 1) b.error(std::string("more than one .num modifier for instruction '") + name + "'");
  return b.has(".x1") ? 1 : b.has(".x2") ? 2 : 4;
}

void bind_space(Binder& b, size_t addr_op, const char* name) {
  if (b.op_kind(addr_op) != Operand::Kind::Addr)
    b.error(std::string("'") + name + "' needs an address operand [..]");
  b.in.space = b.has(".shared") || b.has(".shared::cta") ? Space::Shared : Space::Generic;
  sem::generic_symbol(b, addr_op);
}

}  // namespace

void bind_ldmatrix(Binder& b) {
  const char* name = "ldmatrix";
  require_sync_aligned(b, name);
  b.require_ops(2, 2);
  const bool m8n8 = b.has(".m8n8"), m16n16 = b.has(".m16n16"), m8n16 = b.has(".m8n16");
  if (int(m8n8) + int(m16n16) + int(m8n16) != 1)
    b.error("exactly one shape (.m8n8, .m16n16 or .m8n16) is required for instruction 'ldmatrix'");
  const int num = num_of(b, name);
  const bool trans = b.has(".trans");
  const bool b6 = b.has(".b6x16_p32"), b4 = b.has(".b4x16_p64"), b8x16 = b.has(".b8x16");
  if (int(b6) + int(b4) > 1 || (b8x16 != (b6 || b4)))
    b.error("Unexpected number of 'format conversion' modifiers specified");
  frag::LdstSpec s;
  s.num = num;
  s.trans = trans;
  if (m8n8) {
    if (b8x16 || !b.has(".b16") || b.has(".b8"))
      b.error("Incorrect instruction type specified for ldmatrix with shape '.m8n8'");
    s.shape = frag::LdstShape::M8N8_B16;
  } else if (m16n16) {
    if (!trans) b.error("Modifier '.trans' require for instruction ldmatrix with shape '.m16n16'");
    if (num == 4) b.error("Incorrect no. of matrix: 4 for ldmatrix with shape '.m16n16'");
    if (b.has(".b16") || (!b.has(".b8") && !b8x16))
      b.error("Incorrect instruction type specified for ldmatrix with shape '.m16n16'");
    s.shape = frag::LdstShape::M16N16_B8;
  } else {
    if (trans) b.error("Modifier .trans not allowed for shape '.m8n16'");
    if (!b8x16 || b.has(".b16") || b.has(".b8"))
      b.error("Unexpected number of instruction types specified for ldmatrix with shape '.m8n16'");
    s.shape = frag::LdstShape::M8N16_B8;
  }
  if (b.has(".b16") && b.has(".b8")) b.error("Unexpected instruction types specified for 'ldmatrix'");
  sem::check_reg_vector(b, 0, frag::ldst_regs(s), 32, name);
  bind_space(b, 1, name);
  b.in.a = uint8_t(s.shape);
  b.in.b = uint8_t(num);
  b.in.c = trans;
  b.in.d = b6 ? kB6x16 : b4 ? kB4x16 : kNoExpand;
  b.in.fn = exec_ldmatrix;
}

void bind_stmatrix(Binder& b) {
  const char* name = "stmatrix";
  require_sync_aligned(b, name);
  b.require_ops(2, 2);
  const bool m8n8 = b.has(".m8n8"), m16n8 = b.has(".m16n8");
  if (int(m8n8) + int(m16n8) != 1)
    b.error("exactly one shape (.m8n8 or .m16n8) is required for instruction 'stmatrix'");
  const int num = num_of(b, name);
  const bool trans = b.has(".trans");
  frag::LdstSpec s;
  s.num = num;
  s.trans = trans;
  if (b.has(".b16") == b.has(".b8")) b.error("Unexpected instruction types specified for 'stmatrix'");
  if (m8n8) {
    if (!b.has(".b16")) b.error("Incorrect instruction type specified for stmatrix with shape '.m8n8'");
    s.shape = frag::LdstShape::M8N8_B16;
  } else {
    if (!trans) b.error("Modifier '.trans' require for instruction stmatrix with shape '.m16n8'");
    if (!b.has(".b8")) b.error("Incorrect instruction type specified for stmatrix with shape '.m16n8'");
    s.shape = frag::LdstShape::M16N8_B8;
  }
  sem::check_reg_vector(b, 1, frag::ldst_regs(s), 32, name);
  bind_space(b, 0, name);
  b.in.a = uint8_t(s.shape);
  b.in.b = uint8_t(num);
  b.in.c = trans;
  b.in.d = kNoExpand;
  b.in.fn = exec_stmatrix;
}

}  // namespace ptxsim
