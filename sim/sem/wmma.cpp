// wmma.load / wmma.store / wmma.mma (PTX ISA 9.7.14.4): warp-wide matrix loads, stores and
// multiply-accumulates whose per-thread fragments the ISA leaves unspecified ("The distribution of
// fragments loaded by the threads in a warp is unspecified and is target architecture dependent").
// A conforming program only moves fragments between wmma instructions of the same shape, layout
// and type and changes their registers uniformly (9.7.14.4.1 "Manipulating fragment contents"), so
// any fixed distribution gives it the hardware's results. ptxsim's distribution (WmmaFrag below):
// of a matrix of R x C elements, lane t holds the P = R*C/32 elements t*P .. t*P + P - 1 of the
// row-major order, packed low to high into its registers; when the ISA's register count holds more
// than P elements (.f16 A and B, .s8/.u8 and .bf16 operands of the narrow side), the P elements
// repeat (the copies are written alike and read from the first).
//
// Arithmetic: each element of D is one K-long dot product (K = 16, .tf32 8, .f64 4, .s4/.u4 32,
// .b1 128), computed as the matching mma.sync (the same tensor-core model row: one T-FDPA group of
// K for .f16/.bf16/.tf32; exact integers wrapping or, with .satfinite, clamped; the k-ordered fma
// chain for .f64 in the rounding mode; popc of AND / XOR for .b1). ptxas lowers wmma to the same
// HMMA/IMMA/DMMA instructions as mma.sync on sm_80 and newer (not decoded here: inferred). wmma
// also allows a .f16 C with a .f32 D and the reverse: a .f16 C is widened exactly and the f32
// accumulator row used; a .f16 D is the f32 result rounded to nearest even (inferred).
//
// Memory (9.7.14.4.2): row-major puts consecutive elements of a row at consecutive addresses, the
// stride (in elements; default: the row length, or for column-major the column length) from one
// row (column) to the next. Alignment: the ISA asks every row (column) to start at a multiple of
// the fragment size in bytes (the register bytes of one thread, 32 for .f16 A), CUDA's wmma
// documentation a 16-byte multiple stride ("ldm ... multiple of 8 for __half"); ptxsim faults
// (misaligned address) below min(fragment size, 16) bytes, which every documented use meets. Every lane must
// execute the instruction with the same address and stride (the ISA calls anything else undefined;
// ptxsim faults). Generic addresses must point to global or shared memory.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model/numerics/f64_ops.h"
#include "model/numerics/fp_formats.h"
#include "model/tensorcore/tensorcore.h"
#include "sim/exec/address_space.h"
#include "sim/exec/engine.h"
#include "sim/sem/mma_arith.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {
namespace sem {
void generic_symbol(Binder& b, size_t i);
void check_reg_vector(const Binder& b, size_t i, int count, uint32_t width, const char* name);
}  // namespace sem

namespace {

namespace tc = model::tc;
namespace num = model::num;

enum class WType : uint8_t { None, F16, F32, BF16, TF32, F64, S8, U8, S32, S4, U4, B1 };
enum class WShape : uint8_t { M16N16K16, M8N32K16, M32N8K16, M16N16K8, M8N8K4, M8N8K32, M8N8K128 };
enum class WMat : uint8_t { A, B, C, D };

struct ShapeInfo {
  const char* mod;
  WShape shape;
  int m, n, k;
};
constexpr ShapeInfo kShapes[] = {
    {".m16n16k16", WShape::M16N16K16, 16, 16, 16}, {".m8n32k16", WShape::M8N32K16, 8, 32, 16},
    {".m32n8k16", WShape::M32N8K16, 32, 8, 16},    {".m16n16k8", WShape::M16N16K8, 16, 16, 8},
    {".m8n8k4", WShape::M8N8K4, 8, 8, 4},          {".m8n8k32", WShape::M8N8K32, 8, 8, 32},
    {".m8n8k128", WShape::M8N8K128, 8, 8, 128},
};
const ShapeInfo& info(WShape s) { return kShapes[int(s)]; }

int bits_of(WType t) {
  switch (t) {
    case WType::F16: case WType::BF16: return 16;
    case WType::F64: return 64;
    case WType::S8: case WType::U8: return 8;
    case WType::S4: case WType::U4: return 4;
    case WType::B1: return 1;
    default: return 32;
  }
}
const char* name_of(WType t) {
  static const char* n[] = {"", ".f16", ".f32", ".bf16", ".tf32", ".f64", ".s8", ".u8", ".s32", ".s4", ".u4", ".b1"};
  return n[int(t)];
}

// The register count the ISA gives a fragment (9.7.14.4.1); 0 when the combination does not exist.
int reg_count(WShape s, WMat m, WType t) {
  const bool ab = m == WMat::A || m == WMat::B;
  const int wide = s == WShape::M16N16K16 ? 0 : s == WShape::M8N32K16 ? 1 : s == WShape::M32N8K16 ? 2 : -1;
  if (ab) {
    switch (t) {
      case WType::F16: return wide >= 0 ? 8 : 0;
      case WType::BF16: {  // A: 4 / 2 / 8, B: 4 / 8 / 2
        static const int a[] = {4, 2, 8}, b[] = {4, 8, 2};
        return wide < 0 ? 0 : m == WMat::A ? a[wide] : b[wide];
      }
      case WType::S8: case WType::U8: {  // A: 2 / 1 / 4, B: 2 / 4 / 1
        static const int a[] = {2, 1, 4}, b[] = {2, 4, 1};
        return wide < 0 ? 0 : m == WMat::A ? a[wide] : b[wide];
      }
      case WType::TF32: return s == WShape::M16N16K8 ? 4 : 0;
      case WType::F64: return s == WShape::M8N8K4 ? 1 : 0;
      case WType::S4: case WType::U4: return s == WShape::M8N8K32 ? 1 : 0;
      case WType::B1: return s == WShape::M8N8K128 ? 1 : 0;
      default: return 0;
    }
  }
  switch (t) {
    case WType::F16: return wide >= 0 ? 4 : 0;
    case WType::F32: return wide >= 0 || s == WShape::M16N16K8 ? 8 : 0;
    case WType::S32: return wide >= 0 ? 8 : s == WShape::M8N8K32 || s == WShape::M8N8K128 ? 2 : 0;
    case WType::F64: return s == WShape::M8N8K4 ? 2 : 0;
    default: return 0;
  }
}

// One thread's fragment of a matrix: R x C elements of w bits in `regs` registers of reg_bits.
struct WmmaFrag {
  int rows = 0, cols = 0, w = 0, regs = 0, reg_bits = 32;
  int per_reg() const { return reg_bits / w; }
  int elems() const { return regs * per_reg(); }         // register slots per thread
  int unique() const { return rows * cols / 32; }         // distinct elements per thread
  // The matrix element (row-major index) in slot e of lane t.
  int index(int t, int e) const { return t * unique() + e % unique(); }
  // The bytes of one thread's registers: the alignment unit of rows / columns in memory.
  int frag_bytes() const { return regs * reg_bits / 8; }
};
WmmaFrag frag_of(WShape s, WMat m, WType t) {
  const ShapeInfo& si = info(s);
  WmmaFrag f;
  f.rows = m == WMat::B ? si.k : si.m;
  f.cols = m == WMat::A ? si.k : si.n;
  f.w = bits_of(t);
  f.regs = reg_count(s, m, t);
  f.reg_bits = t == WType::F64 ? 64 : 32;
  return f;
}

// Instr fields. All three: in.a = WShape. wmma.load / wmma.store: in.b = WMat, in.c bit 0 =
// row-major, in.imm = the element type (bits 7:0) and whether a stride operand is given (bit 32).
// wmma.mma: in.b = A's (and B's) type | C's type << 4, in.d = D's type | num::Round << 4 (.f64),
// in.c bit 1 = .satfinite, bit 2 = .xor (else .and) for .b1, in.imm = the tc::DotModel* (float
// multiplicands).

using sem::hex;

// The address and stride every lane supplies (they must agree), the stride defaulted.
struct Where {
  uint64_t addr;
  uint64_t stride;  // elements
};
Where where_of(ExecCtx& c, const Instr& in, const Operand& addr_op, const Operand* stride_op, const WmmaFrag& f,
               bool row, const char* name) {
  const uint64_t a0 = sem::addr_of(c, addr_op, 0);
  const uint64_t s0 = stride_op ? uint32_t(sem::val(c, *stride_op, 0)) : uint64_t(row ? f.cols : f.rows);
  for (int l = 1; l < 32; ++l) {
    const uint64_t a = sem::addr_of(c, addr_op, l);
    const uint64_t s = stride_op ? uint32_t(sem::val(c, *stride_op, l)) : s0;
    if (a != a0 || s != s0)
      c.fault("error", std::string(name) + ": lane " + std::to_string(l) + " supplies address " + hex(a) + " and stride " +
                           std::to_string(s) + ", lane 0 " + hex(a0) + " and " + std::to_string(s0) +
                           " (every lane must use the same; the ISA leaves anything else undefined)");
  }
  if (s0 < uint64_t(row ? f.cols : f.rows))
    c.fault("error", std::string(name) + ": stride " + std::to_string(s0) + " is less than the " +
                         std::to_string(row ? f.cols : f.rows) + " elements of a " + (row ? "row" : "column") +
                         " (undefined in the ISA)");
  if (in.space == Space::Generic && in_window(a0, kLocalWindow))
    c.fault("illegal address", std::string(name) + ": generic address " + hex(a0) +
                                   " points into local memory; wmma accesses only global and shared memory");
  return {a0, s0};
}

// The host bytes of line i (a row when row-major, else a column) of the matrix in memory.
uint8_t* line_ptr(ExecCtx& c, const Instr& in, const Where& at, const WmmaFrag& f, bool row, int i, Access acc,
                  const char* name) {
  const uint64_t len_bits = uint64_t(row ? f.cols : f.rows) * uint64_t(f.w);
  const uint64_t off_bits = uint64_t(i) * at.stride * uint64_t(f.w);
  if (off_bits % 8) c.fault("misaligned address", std::string(name) + ": the stride puts a line inside a byte");
  const uint64_t a = at.addr + off_bits / 8, align = std::min<uint64_t>(uint64_t(f.frag_bytes()), 16);
  if (a % align)
    c.fault("misaligned address", std::string(name) + ": " + (row ? "row " : "column ") + std::to_string(i) +
                                      " starts at " + hex(a) + ", not a multiple of " + std::to_string(align) + " bytes");
  return c.mem(in.space, a, uint32_t(len_bits / 8), 1, 0, acc);
}

uint64_t get_bits(const uint8_t* p, uint64_t bit, int w) {
  if (w >= 8) {
    uint64_t v = 0;
    std::memcpy(&v, p + bit / 8, size_t(w / 8));
    return v;
  }
  return (p[bit / 8] >> (bit % 8)) & ((1u << w) - 1);
}
void put_bits(uint8_t* p, uint64_t bit, int w, uint64_t v) {
  if (w >= 8) {
    std::memcpy(p + bit / 8, &v, size_t(w / 8));
    return;
  }
  const uint8_t m = uint8_t(((1u << w) - 1) << (bit % 8));
  p[bit / 8] = uint8_t((p[bit / 8] & ~m) | ((v << (bit % 8)) & m));
}

// Fragment registers <-> the row-major matrix of element bits.
void frag_to_matrix(ExecCtx& c, const Operand& vec, const WmmaFrag& f, uint64_t* out) {
  const uint64_t mask = f.w == 64 ? ~uint64_t{0} : (uint64_t{1} << f.w) - 1;
  for (int j = 0; j < f.regs; ++j) {
    const uint64_t* r = c.col(sem::vec_elem(c, vec, uint32_t(j)));
    for (int t = 0; t < 32; ++t)
      for (int e = 0; e < f.per_reg(); ++e) {
        const int slot = j * f.per_reg() + e;
        if (slot >= f.unique()) continue;  // a copy: the first one is read
        out[f.index(t, slot)] = (r[t] >> (f.w * e)) & mask;
      }
  }
}
void matrix_to_frag(ExecCtx& c, const Operand& vec, const WmmaFrag& f, const uint64_t* in) {
  for (int j = 0; j < f.regs; ++j) {
    uint64_t* r = c.col(sem::vec_elem(c, vec, uint32_t(j)));
    for (int t = 0; t < 32; ++t) {
      uint64_t v = 0;
      for (int e = 0; e < f.per_reg(); ++e) v |= in[f.index(t, j * f.per_reg() + e)] << (f.w * e);
      r[t] = f.reg_bits == 64 ? v : uint32_t(v);
    }
  }
}

constexpr int kMaxElems = 32 * 128;  // the largest operand: .b1 A (8 x 128) or B

void exec_wmma_load(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  const char* name = "wmma.load";
  sem::require_aligned_warp(c, mask, name);
  const WmmaFrag f = frag_of(WShape(in.a), WMat(in.b), WType(in.imm & 0xff));
  const bool row = in.c & 1;
  const Where at = where_of(c, in, in.op[1], (in.imm >> 32) & 1 ? &in.op[2] : nullptr, f, row, name);
  std::vector<uint64_t> m(size_t(f.rows) * f.cols);
  const int lines = row ? f.rows : f.cols, len = row ? f.cols : f.rows;
  for (int i = 0; i < lines; ++i) {
    const uint8_t* p = line_ptr(c, in, at, f, row, i, Access::Read, name);
    for (int j = 0; j < len; ++j) m[size_t(row ? i * f.cols + j : j * f.cols + i)] = get_bits(p, uint64_t(j) * f.w, f.w);
  }
  matrix_to_frag(c, in.op[0], f, m.data());
}

void exec_wmma_store(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  const char* name = "wmma.store";
  sem::require_aligned_warp(c, mask, name);
  const WmmaFrag f = frag_of(WShape(in.a), WMat::D, WType(in.imm & 0xff));
  const bool row = in.c & 1;
  const Where at = where_of(c, in, in.op[0], (in.imm >> 32) & 1 ? &in.op[2] : nullptr, f, row, name);
  std::vector<uint64_t> m(size_t(f.rows) * f.cols);
  frag_to_matrix(c, in.op[1], f, m.data());
  // Every line is checked before anything is written, so a fault leaves memory untouched.
  const int lines = row ? f.rows : f.cols, len = row ? f.cols : f.rows;
  std::vector<uint8_t*> dst(static_cast<size_t>(lines));
  for (int i = 0; i < lines; ++i) dst[size_t(i)] = line_ptr(c, in, at, f, row, i, Access::Write, name);
  for (int i = 0; i < lines; ++i)
    for (int j = 0; j < len; ++j) put_bits(dst[size_t(i)], uint64_t(j) * f.w, f.w, m[size_t(row ? i * f.cols + j : j * f.cols + i)]);
}

tc::ElemFmt fmt_of(WType t) {
  return t == WType::BF16 ? tc::ElemFmt::BF16 : t == WType::TF32 ? tc::ElemFmt::TF32 : tc::ElemFmt::F16;
}

void exec_wmma_mma(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  sem::require_aligned_warp(c, mask, "wmma.mma");
  const WShape s = WShape(in.a);
  const ShapeInfo& si = info(s);
  const WType ta = WType(in.b & 15), tb = ta, tcy = WType(in.b >> 4), td = WType(in.d & 15);
  const WmmaFrag fa = frag_of(s, WMat::A, ta), fb = frag_of(s, WMat::B, tb), fc = frag_of(s, WMat::C, tcy),
                 fd = frag_of(s, WMat::D, td);
  const int M = si.m, N = si.n, K = si.k;
  static thread_local std::vector<uint64_t> A, B, C, D;
  A.assign(kMaxElems, 0);
  B.assign(kMaxElems, 0);
  C.assign(size_t(M) * N, 0);
  D.assign(size_t(M) * N, 0);
  // Read everything before writing: D may share registers with A, B or C.
  frag_to_matrix(c, in.op[1], fa, A.data());
  frag_to_matrix(c, in.op[2], fb, B.data());
  frag_to_matrix(c, in.op[3], fc, C.data());
  const sem::MmaExtent e{M, N, K};
  if (ta == WType::F16 || ta == WType::BF16 || ta == WType::TF32) {
    // Mixed accumulators: a .f16 C is widened exactly and the f32 row used; a .f16 D is its result
    // rounded to nearest even.
    const bool acc16 = tcy == WType::F16 && td == WType::F16;
    if (!acc16 && tcy == WType::F16)
      for (uint64_t& x : C) x = num::f16_to_f32_bits(uint16_t(x));
    sem::float_mma(*reinterpret_cast<const tc::DotModel*>(in.imm), fmt_of(ta), fmt_of(ta), e, A.data(), B.data(),
                   C.data(), D.data());
    if (!acc16 && td == WType::F16)
      for (uint64_t& x : D) x = num::f32_to_f16(uint32_t(x), num::Round::RN);
  } else if (ta == WType::F64) {
    sem::f64_mma(num::Round(in.d >> 4), e, A.data(), B.data(), C.data(), D.data());
  } else if (ta == WType::B1) {
    sem::bit_mma(in.c & 4, e, A.data(), B.data(), C.data(), D.data());
  } else {  // .s8/.u8/.s4/.u4
    sem::int_mma(bits_of(ta), ta == WType::S8 || ta == WType::S4, tb == WType::S8 || tb == WType::S4, in.c & 2, e,
                 A.data(), B.data(), C.data(), D.data());
  }
  matrix_to_frag(c, in.op[0], fd, D.data());
}

// ---- binders --------------------------------------------------------------------------------------

WType wtype_of(DType t) {
  switch (t) {
    case DType::F16: return WType::F16;
    case DType::F32: return WType::F32;
    case DType::BF16: return WType::BF16;
    case DType::TF32: return WType::TF32;
    case DType::F64: return WType::F64;
    case DType::S8: return WType::S8;
    case DType::U8: return WType::U8;
    case DType::S32: return WType::S32;
    default: return WType::None;
  }
}

// The .s4 / .u4 / .b1 and .row / .col modifiers of the opcode in the order written.
std::vector<std::string> parts_in_order(const Binder& b, std::initializer_list<std::string_view> names) {
  std::vector<std::string> out;
  std::string_view op = b.src.opcode;
  for (size_t i = 0; i < op.size();) {
    size_t j = op.find('.', i + 1);
    if (j == std::string_view::npos) j = op.size();
    const std::string_view part = op.substr(i, j - i);
    for (std::string_view n : names)
      if (part == n) out.emplace_back(part);
    i = j;
  }
  return out;
}

const ShapeInfo& shape_of(const Binder& b, const std::string& name) {
  const ShapeInfo* found = nullptr;
  for (const ShapeInfo& si : kShapes)
    if (b.has(si.mod)) {
      if (found) b.error("Multiple shape modifiers specified for instruction '" + name + "'");
      found = &si;
    }
  if (!found) b.error(".shape modifier required for instruction '" + name + "'");
  return *found;
}

void check_frag(const Binder& b, size_t op, WShape s, WMat m, WType t, const std::string& name) {
  const WmmaFrag f = frag_of(s, m, t);
  sem::check_reg_vector(b, op, f.regs, uint32_t(f.reg_bits), name.c_str());
}

void bind_load_store(Binder& b, bool store) {
  const bool a = b.has(".a"), bb = b.has(".b"), cc = b.has(".c"), d = b.has(".d");
  const WMat mat = store ? WMat::D : a ? WMat::A : bb ? WMat::B : WMat::C;
  if (store ? (!d || a || bb || cc) : (d || int(a) + int(bb) + int(cc) != 1))
    b.error(store ? "'.d' is required for instruction 'wmma.store'" : "exactly one of '.a', '.b', '.c' is required for "
                                                                      "instruction 'wmma.load'");
  const std::string name = std::string(store ? "wmma.store.d" : a ? "wmma.load.a" : bb ? "wmma.load.b" : "wmma.load.c");
  const ShapeInfo& si = shape_of(b, name);
  const auto lay = parts_in_order(b, {".row", ".col"});
  if (lay.size() != 1) b.error("exactly one '.layout' (.row or .col) is required for instruction '" + name + "'");
  const bool row = lay[0] == ".row";
  // The element type: a DType, or a sub-byte / single-bit modifier.
  WType t = b.type_count() == 1 ? wtype_of(b.type(0)) : WType::None;
  const auto sub = parts_in_order(b, {".s4", ".u4", ".b1"});
  if (!sub.empty()) {
    if (sub.size() != 1 || b.type_count() != 0) b.error("Unexpected instruction types specified for '" + name + "'");
    t = sub[0] == ".s4" ? WType::S4 : sub[0] == ".u4" ? WType::U4 : WType::B1;
  }
  if (t == WType::None || b.type_count() > 1 || reg_count(si.shape, mat, t) == 0)
    b.error("Unexpected instruction types specified for '" + name + "' with shape '" + si.mod + "'");
  if (sub.size() && ((mat == WMat::A && !row) || (mat == WMat::B && row)))
    b.error(std::string("Illegal layout '") + lay[0] + "' for '" + name + "' with " + name_of(t) + " (A must be .row, B .col)");
  b.require_ops(2, 3);
  const size_t addr = store ? 0 : 1, frag = store ? 1 : 0;
  if (b.op_kind(addr) != Operand::Kind::Addr) b.error("'" + name + "' needs an address operand [..]");
  b.in.space = b.has(".global") ? Space::Global : (b.has(".shared") || b.has(".shared::cta")) ? Space::Shared : Space::Generic;
  sem::generic_symbol(b, addr);
  check_frag(b, frag, si.shape, mat, t, name);
  const bool stride = b.op_count() == 3;
  if (stride && b.op_kind(2) != Operand::Kind::Reg && b.op_kind(2) != Operand::Kind::Imm)
    b.error("the stride of '" + name + "' is a 32-bit register or constant");
  b.in.a = uint8_t(si.shape);
  b.in.b = uint8_t(mat);
  b.in.c = row ? 1 : 0;
  b.in.imm = uint64_t(t) | (stride ? 1ull << 32 : 0);
  b.in.fn = store ? exec_wmma_store : exec_wmma_load;
}

void bind_mma(Binder& b) {
  const std::string name = "wmma.mma";
  const ShapeInfo& si = shape_of(b, name);
  const auto lay = parts_in_order(b, {".row", ".col"});
  if (lay.size() != 2) b.error("'.alayout.blayout' modifiers required for instruction 'wmma.mma'");
  auto bad = [&] { b.error("Unexpected instruction types specified for 'wmma.mma'"); };
  const auto sub = parts_in_order(b, {".s4", ".u4", ".b1"});
  WType ta, tb, tcy, td;
  const bool sat = b.has(".satfinite");
  const int rnd = int(b.has(".rn")) + int(b.has(".rz")) + int(b.has(".rm")) + int(b.has(".rp"));
  if (!sub.empty()) {  // .s32.atype.btype.s32 with sub-byte modifiers: A and B the same
    if (sub.size() != 2 || sub[0] != sub[1] || b.type_count() != 2 || b.type(0) != DType::S32 || b.type(1) != DType::S32) bad();
    ta = tb = sub[0] == ".s4" ? WType::S4 : sub[0] == ".u4" ? WType::U4 : WType::B1;
    tcy = td = WType::S32;
    if (lay[0] != ".row" || lay[1] != ".col") b.error("Illegal layout for sub-byte and single-bit 'wmma.mma': .row.col only");
    const bool bit = ta == WType::B1, x = b.has(".xor"), an = b.has(".and");
    if (bit != (x || an) || (x && an) || bit != b.has(".popc"))
      b.error(bit ? "'.xor.popc' or '.and.popc' is required for single-bit 'wmma.mma'"
                  : "'.xor/.and .popc' is only defined with .b1 for 'wmma.mma'");
    if (bit && sat) b.error("Illegal modifier '.satfinite' for instruction 'wmma.mma'");
    b.in.c = uint8_t((sat ? 2 : 0) | (x ? 4 : 0));
  } else if (b.type_count() == 2) {  // .f16 multiplicands: .dtype.ctype
    ta = tb = WType::F16;
    td = wtype_of(b.type(0));
    tcy = wtype_of(b.type(1));
    if ((td != WType::F16 && td != WType::F32) || (tcy != WType::F16 && tcy != WType::F32)) bad();
    if (sat) {
      if (b.dec.program().ptx_version >= 65)
        b.error("Instruction ''wmma.mma' with floating point type' with '.satfinite' is not supported starting from PTX ISA "
                "version 6.5");
      bad();
    }
  } else if (b.type_count() == 4) {  // .dtype.atype.btype.ctype
    td = wtype_of(b.type(0));
    ta = wtype_of(b.type(1));
    tb = wtype_of(b.type(2));
    tcy = wtype_of(b.type(3));
    if (ta != tb) bad();  // integer wmma: "either both are .s8 or both are .u8"
    const bool integer = ta == WType::S8 || ta == WType::U8;
    if (integer ? (td != WType::S32 || tcy != WType::S32) : ta == WType::F64 ? (td != WType::F64 || tcy != WType::F64)
                                                                              : (td != WType::F32 || tcy != WType::F32))
      bad();
    if (ta != WType::BF16 && ta != WType::TF32 && ta != WType::F64 && !integer) bad();
    if (sat && !integer) bad();
    b.in.c = uint8_t(sat ? 2 : 0);
  } else {
    bad();
  }
  if (rnd > 1) b.error("Multiple rounding modifiers specified");
  if (rnd && ta != WType::F64) b.error("Illegal rounding modifier for instruction 'wmma.mma'");
  for (auto [m, t] : {std::pair{WMat::A, ta}, std::pair{WMat::B, tb}, std::pair{WMat::C, tcy}, std::pair{WMat::D, td}})
    if (reg_count(si.shape, m, t) == 0)
      b.error(std::string("Unexpected instruction types specified for 'wmma.mma' with shape '") + si.mod + "'");
  b.require_ops(4, 4);
  check_frag(b, 0, si.shape, WMat::D, td, name);
  check_frag(b, 1, si.shape, WMat::A, ta, name);
  check_frag(b, 2, si.shape, WMat::B, tb, name);
  check_frag(b, 3, si.shape, WMat::C, tcy, name);
  const num::Round rm = b.has(".rz") ? num::Round::RZ : b.has(".rm") ? num::Round::RM : b.has(".rp") ? num::Round::RP : num::Round::RN;
  b.in.a = uint8_t(si.shape);
  b.in.b = uint8_t(uint8_t(ta) | uint8_t(tcy) << 4);
  b.in.d = uint8_t(uint8_t(td) | uint8_t(rm) << 4);
  if (ta == WType::F16 || ta == WType::BF16 || ta == WType::TF32) {
    const uint32_t sm = b.dec.program().target.sm;
    const tc::AccFmt acc = tcy == WType::F16 && td == WType::F16 ? tc::AccFmt::F16 : tc::AccFmt::F32;
    const tc::DotModel* m = tc::find_model(sm >= 100 ? tc::Arch::SM100 : tc::Arch::SM90, tc::Unit::MmaSync, fmt_of(ta),
                                           fmt_of(tb), acc);
    if (!m) b.unimplemented("no tensor-core arithmetic model for this wmma.mma type combination");
    b.in.imm = reinterpret_cast<uint64_t>(m);
  }
  b.in.fn = exec_wmma_mma;
}

}  // namespace

// wmma.load / wmma.store / wmma.mma: one binder for the three forms (sim/isa/forms_mma.def).
void bind_wmma(Binder& b) {
  const std::string_view op = b.form.opcode;
  if (!b.has(".sync")) b.error(".sync modifier required for instruction '" + std::string(op) + "'");
  if (!b.has(".aligned") && b.dec.program().ptx_version >= 63)
    b.error(".aligned modifier required for instruction '" + std::string(op) + "'");
  b.in.flags |= kFlagAligned;  // implicit before PTX 6.3
  if (op == "wmma.load") return bind_load_store(b, false);
  if (op == "wmma.store") return bind_load_store(b, true);
  bind_mma(b);
}

}  // namespace ptxsim
