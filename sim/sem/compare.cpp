// Comparison and selection for every type (PTX ISA 9.7.7, 9.7.4.7-8): setp, set, selp, slct.
//
// setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b[, {!}c]:  t = a CmpOp b; p = t BoolOp c; q = !t BoolOp c.
//   .f16x2/.bf16x2 compare both halves: p = t[0] BoolOp c, q = t[1] BoolOp c (p|q is required).
// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b[, {!}c]: d = (t BoolOp c) ? TRUE : 0 where TRUE is
//   1.0 for float destinations (f32, f16, bf16), and all ones for integer ones; x2 sources set each
//   16-bit half of d (1.0 in f16/bf16 for .f16x2/.bf16x2 destinations, 0xffff for .u32/.s32).
// Integer comparisons: eq ne; lt le gt ge (signed for .sN, unsigned for .uN/.bN); lo ls hi hs
// (unsigned). Float comparisons: eq ne lt le gt ge are ordered (false if either is NaN), equ neu ltu
// leu gtu geu unordered (true if either is NaN), num/nan test for NaN; -0 == +0. .ftz flushes
// subnormal f32/f16 inputs to zero of the same sign.
#include <bit>
#include <utility>

#include "sim/exec/program.h"
#include "sim/sem/lane_drivers.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {
void int_dst(Binder& b, size_t i, uint32_t bits, bool sink_ok);
void int_dst_operand(Binder& b, const Operand& o, size_t i, uint32_t bits, bool sink_ok);
void int_src(Binder& b, size_t i, uint32_t bits);
std::pair<Operand, Operand> int_pair(Binder& b, size_t i);
}  // namespace sem

namespace {

using sem::sext;
using sem::zext;

using sem::SrcColumn;
using sem::src_column;

enum Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan, kNumCmp };
constexpr const char* kCmpNames[kNumCmp] = {".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi",
                                            ".hs", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"};
enum BoolOp : uint8_t { kNone, kAnd, kOr, kXor };

// Source kinds.
enum class K : uint8_t { I16, I32, I64, F16, BF16, F32, F64, F16x2, BF16x2 };

// ---- values ----------------------------------------------------------------------------------------
// Exact f16 → f32 (NaN stays NaN, which is all a comparison needs).
inline float f16_value(uint16_t h, bool ftz) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    if (ftz) man = 0;
    float v = float(man) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}
inline float bf16_value(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
inline float f32_value(uint32_t v, bool ftz) {
  if (ftz && (v & 0x7f800000u) == 0) v &= 0x80000000u;
  return std::bit_cast<float>(v);
}

// Bit l of the result is (a[l] op b[l]) for the lanes in mask, values read through get().
template <class V, class Get>
uint32_t fp_mask(uint8_t op, uint32_t mask, const SrcColumn& a, const SrcColumn& b, Get get) {
  auto run = [&](auto f) {
    uint32_t t = 0;
    for_lanes(mask, [&](int l) {
      V x = get(a[l]), y = get(b[l]);
      t |= uint32_t(f(x, y)) << l;
    });
    return t;
  };
  switch (op) {
    case Eq: return run([](V x, V y) { return x == y; });
    case Ne: return run([](V x, V y) { return x < y || x > y; });
    case Lt: return run([](V x, V y) { return x < y; });
    case Le: return run([](V x, V y) { return x <= y; });
    case Gt: return run([](V x, V y) { return x > y; });
    case Ge: return run([](V x, V y) { return x >= y; });
    case Equ: return run([](V x, V y) { return !(x < y || x > y); });
    case Neu: return run([](V x, V y) { return x != y; });
    case Ltu: return run([](V x, V y) { return !(x >= y); });
    case Leu: return run([](V x, V y) { return !(x > y); });
    case Gtu: return run([](V x, V y) { return !(x <= y); });
    case Geu: return run([](V x, V y) { return !(x < y); });
    case Num: return run([](V x, V y) { return x == x && y == y; });
    case Nan: return run([](V x, V y) { return x != x || y != y; });
  }
  return 0;
}

// out(l, a[l] op b[l]) for the lanes in mask.
template <uint32_t N, class Out>
void int_compare(uint8_t op, uint32_t mask, const SrcColumn& a, const SrcColumn& b, Out out) {
  auto run = [&](auto f) { for_lanes(mask, [&](int l) { out(l, f(a[l], b[l])); }); };
  auto s = [](uint64_t v) { return int64_t(sext(v, N)); };
  auto u = [](uint64_t v) { return zext(v, N); };
  switch (op) {
    case Eq: return run([&](uint64_t x, uint64_t y) { return u(x) == u(y); });
    case Ne: return run([&](uint64_t x, uint64_t y) { return u(x) != u(y); });
    case Lt: return run([&](uint64_t x, uint64_t y) { return s(x) < s(y); });
    case Le: return run([&](uint64_t x, uint64_t y) { return s(x) <= s(y); });
    case Gt: return run([&](uint64_t x, uint64_t y) { return s(x) > s(y); });
    case Ge: return run([&](uint64_t x, uint64_t y) { return s(x) >= s(y); });
    case Lo: return run([&](uint64_t x, uint64_t y) { return u(x) < u(y); });
    case Ls: return run([&](uint64_t x, uint64_t y) { return u(x) <= u(y); });
    case Hi: return run([&](uint64_t x, uint64_t y) { return u(x) > u(y); });
    case Hs: return run([&](uint64_t x, uint64_t y) { return u(x) >= u(y); });
  }
}
template <uint32_t N>
uint32_t int_mask(uint8_t op, uint32_t mask, const SrcColumn& a, const SrcColumn& b) {
  uint32_t t = 0;
  int_compare<N>(op, mask, a, b, [&](int l, bool v) { t |= uint32_t(v) << l; });
  return t;
}

// The comparison masks: t0 (the scalar, or the low halves) and t1 (the high halves of x2 kinds).
template <K Kind, bool Ftz>
std::pair<uint32_t, uint32_t> compare(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]);
  const uint8_t op = in.a;
  if constexpr (Kind == K::I16) return {int_mask<16>(op, mask, a, b), 0};
  else if constexpr (Kind == K::I32) return {int_mask<32>(op, mask, a, b), 0};
  else if constexpr (Kind == K::I64) return {int_mask<64>(op, mask, a, b), 0};
  else if constexpr (Kind == K::F32) return {fp_mask<float>(op, mask, a, b, [](uint64_t v) { return f32_value(uint32_t(v), Ftz); }), 0};
  else if constexpr (Kind == K::F64) return {fp_mask<double>(op, mask, a, b, [](uint64_t v) { return std::bit_cast<double>(v); }), 0};
  else if constexpr (Kind == K::F16) return {fp_mask<float>(op, mask, a, b, [](uint64_t v) { return f16_value(uint16_t(v), Ftz); }), 0};
  else if constexpr (Kind == K::BF16) return {fp_mask<float>(op, mask, a, b, [](uint64_t v) { return bf16_value(uint16_t(v)); }), 0};
  else if constexpr (Kind == K::F16x2)
    return {fp_mask<float>(op, mask, a, b, [](uint64_t v) { return f16_value(uint16_t(v), Ftz); }),
            fp_mask<float>(op, mask, a, b, [](uint64_t v) { return f16_value(uint16_t(v >> 16), Ftz); })};
  else
    return {fp_mask<float>(op, mask, a, b, [](uint64_t v) { return bf16_value(uint16_t(v)); }),
            fp_mask<float>(op, mask, a, b, [](uint64_t v) { return bf16_value(uint16_t(v >> 16)); })};
}

// The predicate operand c as a lane mask (`!c` honoured).
inline uint32_t pred_mask(ExecCtx& c, const Operand& o, uint32_t mask) {
  const uint64_t* v = c.col(o);
  uint32_t m = 0;
  for_lanes(mask, [&](int l) { m |= uint32_t(v[l] & 1) << l; });
  return o.neg ? ~m : m;
}

inline uint32_t combine(uint8_t bop, uint32_t t, uint32_t cm) {
  switch (bop) {
    case kAnd: return t & cm;
    case kOr: return t | cm;
    case kXor: return t ^ cm;
  }
  return t;
}

constexpr bool is_x2(K k) { return k == K::F16x2 || k == K::BF16x2; }

// setp: in.a cmp, in.b BoolOp, in.imm = p slot | q slot << 32 (the sink when absent).
template <K Kind, bool Ftz>
void exec_setp(ExecCtx& c, const Instr& in, uint32_t mask) {
  constexpr uint32_t int_bits = Kind == K::I16 ? 16 : Kind == K::I32 ? 32 : Kind == K::I64 ? 64 : 0;
  if constexpr (int_bits != 0) {
    if (!in.b && uint32_t(in.imm >> 32) == c.fn->sink_slot) {  // one integer comparison, one destination:
      uint64_t* pd = c.col(uint32_t(in.imm));                 // each lane's result stored as computed
      int_compare<int_bits>(in.a, mask, src_column(c, in.op[1]), src_column(c, in.op[2]), [&](int l, bool v) { pd[l] = v; });
      return;
    }
  }
  auto [t0, t1] = compare<Kind, Ftz>(c, in, mask);
  uint32_t cm = in.b ? pred_mask(c, in.op[3], mask) : 0;
  uint32_t p = combine(in.b, t0, cm);
  uint32_t q = combine(in.b, is_x2(Kind) ? t1 : ~t0, cm);
  uint64_t* pd = c.col(uint32_t(in.imm));
  if (uint32_t(in.imm >> 32) == c.fn->sink_slot) {  // no q: nothing ever reads the sink
    for_lanes(mask, [&](int l) { pd[l] = (p >> l) & 1; });
    return;
  }
  uint64_t* qd = c.col(uint32_t(in.imm >> 32));
  for_lanes(mask, [&](int l) {
    pd[l] = (p >> l) & 1;
    qd[l] = (q >> l) & 1;
  });
}

// set: in.a cmp, in.b BoolOp; in.imm = the register image of TRUE (for x2 kinds: of one half);
// in.d = 1 when an x2 result is an .s32 (sign-extended from bit 31).
template <K Kind, bool Ftz>
void exec_set(ExecCtx& c, const Instr& in, uint32_t mask) {
  auto [t0, t1] = compare<Kind, Ftz>(c, in, mask);
  uint32_t cm = in.b ? pred_mask(c, in.op[3], mask) : 0;
  uint32_t r0 = combine(in.b, t0, cm);
  uint32_t r1 = combine(in.b, t1, cm);
  const uint64_t tv = in.imm;
  const bool s32 = in.d != 0;
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    if constexpr (is_x2(Kind)) {
      uint64_t v = (((r1 >> l) & 1) ? tv << 16 : 0) | (((r0 >> l) & 1) ? tv : 0);
      d[l] = s32 ? sext(v, 32) : v;
    } else {
      d[l] = ((r0 >> l) & 1) ? tv : 0;
    }
  });
}

// selp: d = c ? a : b, stored extended as the type says.
template <uint32_t N, bool Signed>
void exec_selp(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]);
  const uint64_t* p = c.col(in.op[3]);
  const uint64_t neg = in.op[3].neg;
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    uint64_t v = ((p[l] & 1) ^ neg) ? a[l] : b[l];
    d[l] = Signed ? sext(v, N) : zext(v, N);
  });
}

// slct: d = (c >= 0) ? a : b; CKind 0: c is .s32, 1: .f32, 2: .f32 with .ftz (NaN selects b).
template <uint32_t N, bool Signed, int CKind>
void exec_slct(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), s = src_column(c, in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    bool ge = CKind == 0 ? int32_t(s[l]) >= 0 : f32_value(uint32_t(s[l]), CKind == 2) >= 0.0f;
    uint64_t v = ge ? a[l] : b[l];
    d[l] = Signed ? sext(v, N) : zext(v, N);
  });
}

// ---- binding -----------------------------------------------------------------------------------------

// A decimal or 0d float literal used as an f32/f64 source: the decoder converts such literals by
// the instruction's first type, which for set/slct (and set.f32.f64) is not the source type, so
// the literal is re-read from the source text here.
void float_literal(Binder& b, size_t i, DType want) {
  if (i >= b.src.operands.size() || b.src.operands[i].kind != ast::Operand::Kind::F64) return;
  if (want != DType::F32 && want != DType::F64) return;
  uint64_t bits = uint64_t(b.src.operands[i].value);
  if (want == DType::F32) bits = std::bit_cast<uint32_t>(float(std::bit_cast<double>(bits)));
  b.in.op[i].imm = int64_t(bits);
  b.in.op[i].slot = b.dec.const_slot(bits);
}

bool is_half(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F16x2 || t == DType::BF16x2; }
bool is_fp(DType t) { return t == DType::F32 || t == DType::F64 || is_half(t); }

// Decodes CmpOp and BoolOp for source type t into in.a / in.b, and checks the operand count.
void bind_cmp_bool(Binder& b, DType t) {
  int cmp = -1;
  for (uint8_t i = 0; i < kNumCmp; ++i)
    if (b.has(kCmpNames[i])) {
      if (cmp >= 0) b.error("'" + b.src.opcode + "' takes exactly one comparison operator");
      cmp = i;
    }
  if (cmp < 0) b.error("'" + b.src.opcode + "' needs a comparison operator (.eq, .lt, ...)");
  if (is_fp(t)) {
    if (cmp >= Lo && cmp <= Hs)
      b.error("comparison '" + std::string(kCmpNames[cmp]) + "' is for unsigned integers, not ." + std::string(dtype_name(t)));
  } else {
    if (cmp >= Equ)
      b.error("comparison '" + std::string(kCmpNames[cmp]) + "' is for floating-point types, not ." + std::string(dtype_name(t)));
    // Unsigned and untyped sources: lt le gt ge are the unsigned lo ls hi hs.
    if (!is_signed_int(t) && cmp >= Lt && cmp <= Ge) cmp += Lo - Lt;
  }
  b.in.a = uint8_t(cmp);
  int n = 0;
  b.in.b = kNone;
  if (b.has(".and")) b.in.b = kAnd, ++n;
  if (b.has(".or")) b.in.b = kOr, ++n;
  if (b.has(".xor")) b.in.b = kXor, ++n;
  if (n > 1) b.error("'" + b.src.opcode + "' takes at most one of .and, .or, .xor");
  if (b.in.b) {
    b.require_ops(4, 4);
    sem::int_src(b, 3, 1);
  } else if (b.op_count() == 4) {
    b.error("'" + b.src.opcode + "' has a predicate operand c but no .and/.or/.xor");
  } else {
    b.require_ops(3, 3);
  }
  uint32_t bits = dtype_bits(t);
  sem::int_src(b, 1, bits);
  sem::int_src(b, 2, bits);
  float_literal(b, 1, t);
  float_literal(b, 2, t);
}

bool bind_ftz(Binder& b, DType t) {
  bool ftz = b.has(".ftz");
  if (ftz && t != DType::F32 && t != DType::F16 && t != DType::F16x2)
    b.error("'.ftz' applies only to .f32, .f16 and .f16x2 comparisons");
  return ftz;
}

template <template <K, bool> class Exec>
ExecFn pick_kind(DType t, bool ftz) {
  switch (t) {
    case DType::B16: case DType::U16: case DType::S16: return &Exec<K::I16, false>::run;
    case DType::B32: case DType::U32: case DType::S32: return &Exec<K::I32, false>::run;
    case DType::B64: case DType::U64: case DType::S64: return &Exec<K::I64, false>::run;
    case DType::F32: return ftz ? &Exec<K::F32, true>::run : &Exec<K::F32, false>::run;
    case DType::F64: return &Exec<K::F64, false>::run;
    case DType::F16: return ftz ? &Exec<K::F16, true>::run : &Exec<K::F16, false>::run;
    case DType::F16x2: return ftz ? &Exec<K::F16x2, true>::run : &Exec<K::F16x2, false>::run;
    case DType::BF16: return &Exec<K::BF16, false>::run;
    case DType::BF16x2: return &Exec<K::BF16x2, false>::run;
    default: return nullptr;
  }
}
template <K Kind, bool Ftz>
struct Setp {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_setp<Kind, Ftz>(c, in, m); }
};
template <K Kind, bool Ftz>
struct Set {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_set<Kind, Ftz>(c, in, m); }
};

template <uint32_t N, bool Signed>
ExecFn pick_slct(DType ct, bool ftz) {
  if (ct == DType::S32) return &exec_slct<N, Signed, 0>;
  return ftz ? &exec_slct<N, Signed, 2> : &exec_slct<N, Signed, 1>;
}

}  // namespace

void bind_cmp_setp(Binder& b) {
  if (b.type_count() != 1) b.error("'" + b.src.opcode + "' needs exactly one type modifier");
  DType t = b.type(0);
  bool ftz = bind_ftz(b, t);
  bind_cmp_bool(b, t);
  const Function& f = b.dec.current();
  uint32_t p = f.sink_slot, q = f.sink_slot;
  if (b.op_kind(0) == Operand::Kind::Vec) {
    auto [po, qo] = sem::int_pair(b, 0);
    sem::int_dst_operand(b, po, 0, 1, true);
    sem::int_dst_operand(b, qo, 0, 1, true);
    p = po.slot;
    q = qo.slot;
  } else {
    if (t == DType::F16x2 || t == DType::BF16x2)
      b.error("'" + b.src.opcode + "' compares two halves and needs a predicate pair 'p|q' as its destination");
    sem::int_dst(b, 0, 1, true);
    p = b.in.op[0].slot;
  }
  b.in.imm = uint64_t(p) | (uint64_t(q) << 32);
  b.in.fn = pick_kind<Setp>(t, ftz);
}

void bind_cmp_set(Binder& b) {
  if (b.type_count() != 2) b.error("'" + b.src.opcode + "' needs two type modifiers (.dtype.stype)");
  DType dt = b.type(0), st = b.type(1);
  bool ok;
  switch (st) {
    case DType::F16:
    case DType::BF16:
      ok = dt == DType::U16 || dt == DType::S16 || dt == DType::U32 || dt == DType::S32 ||
           (st == DType::F16 ? dt == DType::F16 || dt == DType::BF16 : false);
      break;
    case DType::F16x2: ok = dt == DType::F16x2 || dt == DType::U32 || dt == DType::S32; break;
    case DType::BF16x2: ok = dt == DType::BF16x2 || dt == DType::U32 || dt == DType::S32; break;
    default:  // integer, f32 and f64 sources
      ok = dt == DType::U32 || dt == DType::S32 || dt == DType::F32 || dt == DType::F16 || dt == DType::BF16;
  }
  if (!ok) b.error("'" + b.src.opcode + "': destination type ." + std::string(dtype_name(dt)) +
                   " is not allowed with source type ." + std::string(dtype_name(st)));
  bool ftz = bind_ftz(b, st);
  bind_cmp_bool(b, st);
  sem::int_dst(b, 0, dtype_bits(dt), true);
  b.in.d = 0;
  if (st == DType::F16x2 || st == DType::BF16x2) {
    b.in.imm = dt == DType::F16x2 ? 0x3C00 : dt == DType::BF16x2 ? 0x3F80 : 0xFFFF;
    b.in.d = dt == DType::S32;
  } else {
    switch (dt) {
      case DType::U32: b.in.imm = 0xFFFFFFFFull; break;
      case DType::U16: b.in.imm = 0xFFFF; break;
      case DType::S32: case DType::S16: b.in.imm = ~0ull; break;
      case DType::F32: b.in.imm = 0x3F800000; break;
      case DType::F16: b.in.imm = 0x3C00; break;
      default: b.in.imm = 0x3F80; break;  // bf16
    }
  }
  b.in.fn = pick_kind<Set>(st, ftz);
}

void bind_cmp_selp(Binder& b) {
  if (b.type_count() != 1) b.error("'" + b.src.opcode + "' needs exactly one type modifier");
  DType t = b.type(0);
  uint32_t bits = dtype_bits(t);
  b.require_ops(4, 4);
  sem::int_dst(b, 0, bits, true);
  sem::int_src(b, 1, bits);
  sem::int_src(b, 2, bits);
  sem::int_src(b, 3, 1);
  float_literal(b, 1, t);
  float_literal(b, 2, t);
  bool s = is_signed_int(t);
  switch (bits) {
    case 16: b.in.fn = s ? &exec_selp<16, true> : &exec_selp<16, false>; break;
    case 32: b.in.fn = s ? &exec_selp<32, true> : &exec_selp<32, false>; break;
    default: b.in.fn = s ? &exec_selp<64, true> : &exec_selp<64, false>; break;
  }
}

void bind_cmp_slct(Binder& b) {
  if (b.type_count() != 2) b.error("'" + b.src.opcode + "' needs two type modifiers (.dtype.s32 or .dtype.f32)");
  DType dt = b.type(0), ct = b.type(1);
  if (ct != DType::S32 && ct != DType::F32)
    b.error("the second type of '" + b.src.opcode + "' must be .s32 or .f32, got ." + std::string(dtype_name(ct)));
  bool ftz = b.has(".ftz");
  if (ftz && ct != DType::F32) b.error("'.ftz' applies only to 'slct.dtype.f32'");
  uint32_t bits = dtype_bits(dt);
  b.require_ops(4, 4);
  sem::int_dst(b, 0, bits, true);
  sem::int_src(b, 1, bits);
  sem::int_src(b, 2, bits);
  sem::int_src(b, 3, 32);
  float_literal(b, 1, dt);
  float_literal(b, 2, dt);
  float_literal(b, 3, ct);
  bool s = is_signed_int(dt);
  switch (bits) {
    case 16: b.in.fn = s ? pick_slct<16, true>(ct, ftz) : pick_slct<16, false>(ct, ftz); break;
    case 32: b.in.fn = s ? pick_slct<32, true>(ct, ftz) : pick_slct<32, false>(ct, ftz); break;
    default: b.in.fn = s ? pick_slct<64, true>(ct, ftz) : pick_slct<64, false>(ct, ftz); break;
  }
}

}  // namespace ptxsim
