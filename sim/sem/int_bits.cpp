// Bit manipulation and logic (PTX ISA 9.7.1, 9.7.8, 9.7.9): popc clz bfind brev bfe bfi bmsk szext
// prmt lop3 shf shl shr and or xor not cnot.
#include <algorithm>
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
int64_t int_imm(Binder& b, size_t i, int64_t lo, int64_t hi, const char* what);
}  // namespace sem

namespace {

using sem::int_dst;
using sem::int_src;
using sem::sext;
using sem::zext;

using sem::SrcColumn;
using sem::src_column;
using sem::exec_bin;
using sem::exec_ter;
using sem::exec_un;

// Low n bits set (n ≤ 64).
inline uint64_t ones(uint32_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

// ---- popc / clz / bfind / brev ---------------------------------------------------------------------
template <uint32_t N>
struct Popc {
  static uint64_t f(uint64_t a) { return uint64_t(std::popcount(zext(a, N))); }
};
template <uint32_t N>
struct Clz {
  static uint64_t f(uint64_t a) {
    if constexpr (N == 32) return uint64_t(std::countl_zero(uint32_t(a)));
    else return uint64_t(std::countl_zero(a));
  }
};
// Position of the most significant non-sign bit (0xffffffff if none); .shiftamt: msb - position.
template <uint32_t N, bool Signed, bool ShiftAmt>
struct Bfind {
  static uint64_t f(uint64_t a) {
    uint64_t v = zext(a, N);
    if (Signed && (v >> (N - 1)) & 1) v = zext(~v, N);
    if (v == 0) return 0xffffffffu;
    uint32_t pos = 63 - uint32_t(std::countl_zero(v));
    return ShiftAmt ? (N - 1) - pos : pos;
  }
};
template <uint32_t N>
struct Brev {
  static uint64_t f(uint64_t a) {
    uint64_t r = 0;
    for (uint32_t i = 0; i < N; ++i) r |= ((a >> i) & 1) << (N - 1 - i);
    return r;
  }
};

// ---- bfe / bfi -----------------------------------------------------------------------------------
// bfe: pos = b & 0xff, len = c & 0xff; bits past the msb and past len read as the sign bit of the
// field (bit min(pos+len-1, msb) for signed types, 0 for unsigned and for len == 0).
template <uint32_t N, bool Signed>
struct Bfe {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    uint32_t pos = uint32_t(b) & 0xff, len = uint32_t(c) & 0xff;
    uint64_t v = zext(a, N);
    if (len == 0) return 0;
    uint32_t n = pos >= N ? 0 : std::min(len, N - pos);  // field bits that lie inside a
    uint64_t field = n ? (v >> pos) & ones(n) : 0;
    uint64_t sbit = Signed ? (v >> std::min(pos + len - 1, N - 1)) & 1 : 0;
    uint64_t r = field | (sbit ? ones(N) & ~ones(n) : 0);
    return Signed ? sext(r, N) : r;
  }
};
// bfi d, a, b, c, e: d = b with bits [pos, pos+len) (clipped at the msb) replaced by a's low bits.
template <uint32_t N>
void exec_bfi(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), p = src_column(c, in.op[3]), n = src_column(c, in.op[4]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    uint32_t pos = uint32_t(p[l]) & 0xff, len = uint32_t(n[l]) & 0xff;
    uint64_t base = zext(b[l], N);
    uint32_t k = pos >= N ? 0 : std::min(len, N - pos);
    uint64_t m = k ? ones(k) << pos : 0;
    d[l] = (base & ~m) | ((a[l] << (pos & 63)) & m);
  });
}

// ---- bmsk / szext --------------------------------------------------------------------------------
template <bool Clamp>
struct Bmsk {  // the ISA's pseudocode, with every shift kept below 32
  static uint64_t f(uint64_t a64, uint64_t b64) {
    uint32_t a = uint32_t(a64), b = uint32_t(b64);
    uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1;
    bool overflow = sum >= 32;
    if (Clamp && a >= 32) {
      overflow = true;
      mask0 = 0;
    }
    if (Clamp && b >= 32) overflow = true;
    uint32_t mask1 = overflow ? 0 : b1 == 0 ? ~0u : ~0u << sum;
    return mask0 & ~mask1;
  }
};
template <bool Clamp, bool Signed>
struct Szext {
  static uint64_t f(uint64_t a64, uint64_t b64) {
    uint32_t a = uint32_t(a64), b = uint32_t(b64);
    uint32_t b1 = b & 0x1f;
    bool too_large = Clamp && b >= 32;
    uint32_t m = too_large ? 0 : ~0u << b1;
    bool sign = Signed && b1 != 0 && !too_large && ((a >> ((b1 - 1) & 0x1f)) & 1);
    uint32_t r = (a & ~m) | (sign ? m : 0);
    return Signed ? uint64_t(int64_t(int32_t(r))) : r;
  }
};

// ---- prmt ----------------------------------------------------------------------------------------
// Selector codes of the special modes, indexed [mode - 1][c & 3]; nibble i selects byte i of d.
constexpr uint16_t kPrmtModes[6][4] = {
    {0x3210, 0x4321, 0x5432, 0x6543},  // .f4e  forward 4 extract
    {0x5670, 0x6701, 0x7012, 0x0123},  // .b4e  backward 4 extract
    {0x0000, 0x1111, 0x2222, 0x3333},  // .rc8  replicate 8
    {0x3210, 0x3211, 0x3222, 0x3333},  // .ecl  edge clamp left
    {0x0000, 0x1110, 0x2210, 0x3210},  // .ecr  edge clamp right
    {0x1010, 0x3232, 0x1010, 0x3232},  // .rc16 replicate 16
};
// in.a: 0 generic, 1..6 the modes above.
void exec_prmt(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), s = src_column(c, in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  const uint32_t mode = in.a;
  for_lanes(mask, [&](int l) {
    uint64_t src = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
    uint32_t ctl = mode ? kPrmtModes[mode - 1][s[l] & 3] : uint32_t(s[l]) & 0xffff;
    uint32_t r = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      uint32_t sel = (ctl >> (4 * i)) & 0xf;
      uint32_t byte = uint32_t(src >> (8 * (sel & 7))) & 0xff;
      if (!mode && (sel & 8)) byte = (byte & 0x80) ? 0xff : 0;  // sign replication (generic form only)
      r |= byte << (8 * i);
    }
    d[l] = r;
  });
}

// ---- lop3 ----------------------------------------------------------------------------------------
// Bit k of immLut is F at a = k>>2&1, b = k>>1&1, c = k&1 (so immLut = F(0xF0, 0xCC, 0xAA)).
inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (uint32_t k = 0; k < 8; ++k)
    if ((lut >> k) & 1) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  return r;
}
// in.a: immLut.
void exec_lop3(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), cc = src_column(c, in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  const uint32_t lut = in.a;
  for_lanes(mask, [&](int l) { d[l] = lop3(uint32_t(a[l]), uint32_t(b[l]), uint32_t(cc[l]), lut); });
}
// lop3.BoolOp d|p, a, b, c, immLut, q: p = (d != 0) BoolOp q. in.imm = d slot | p slot << 32;
// in.b: 1 and, 2 or.
void exec_lop3_pred(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), cc = src_column(c, in.op[3]);
  const Operand& q = in.op[5];
  const uint64_t* qv = c.col(q);
  uint64_t* d = c.col(uint32_t(in.imm));
  uint64_t* p = c.col(uint32_t(in.imm >> 32));
  const uint32_t lut = in.a;
  const bool is_and = in.b == 1;
  for_lanes(mask, [&](int l) {
    uint32_t r = lop3(uint32_t(a[l]), uint32_t(b[l]), uint32_t(cc[l]), lut);
    bool qb = bool(qv[l] & 1) != q.neg;
    bool t = r != 0;
    d[l] = r;
    p[l] = is_and ? (t && qb) : (t || qb);
  });
}

// ---- shifts --------------------------------------------------------------------------------------
// shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: shift the 64-bit {b, a} by n = min(c, 32) or c & 31; .l
// returns the high 32 bits, .r the low 32 bits.
template <bool Left, bool Clamp>
struct Shf {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    uint32_t n = Clamp ? std::min<uint32_t>(uint32_t(c), 32) : uint32_t(c) & 31;
    uint64_t v = (uint64_t(uint32_t(b)) << 32) | uint32_t(a);
    return Left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
  }
};
// Shift amounts are unsigned 32-bit values; amounts ≥ N are clamped to N.
template <uint32_t N>
struct Shl {
  static uint64_t f(uint64_t a, uint64_t b) {
    uint32_t n = uint32_t(b);
    return n >= N ? 0 : zext(a << n, N);
  }
};
template <uint32_t N, bool Signed>
struct Shr {
  static uint64_t f(uint64_t a, uint64_t b) {
    uint32_t n = std::min<uint32_t>(uint32_t(b), N);
    if constexpr (Signed) {
      int64_t v = int64_t(sext(a, N));
      return uint64_t(v >> std::min<uint32_t>(n, 63));
    } else {
      return n >= N ? 0 : zext(a, N) >> n;
    }
  }
};

// ---- logic ---------------------------------------------------------------------------------------
// Predicates are 0/1; `!p` sources are honoured. in.a: 0 and, 1 or, 2 xor.
template <int Op>
void exec_logic_pred(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t *a = c.col(in.op[1]), *b = c.col(in.op[2]);
  const uint64_t na = in.op[1].neg, nb = in.op[2].neg;
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    uint64_t x = (a[l] & 1) ^ na, y = (b[l] & 1) ^ nb;
    d[l] = Op == 0 ? (x & y) : Op == 1 ? (x | y) : (x ^ y);
  });
}
template <int Op, uint32_t N>
struct Logic {
  static uint64_t f(uint64_t a, uint64_t b) {
    return zext(Op == 0 ? (a & b) : Op == 1 ? (a | b) : (a ^ b), N);
  }
};
void exec_not_pred(ExecCtx& c, const Instr& in, uint32_t mask) {
  const uint64_t* a = c.col(in.op[1]);
  const uint64_t na = in.op[1].neg;
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = ((a[l] & 1) ^ na) ^ 1; });
}
template <uint32_t N>
struct Not {
  static uint64_t f(uint64_t a) { return zext(~a, N); }
};
template <uint32_t N>
struct Cnot {
  static uint64_t f(uint64_t a) { return zext(a, N) == 0 ? 1 : 0; }
};

// ---- binding helpers -------------------------------------------------------------------------------

DType one_type(Binder& b) {
  if (b.type_count() != 1) b.error("'" + b.src.opcode + "' needs exactly one type modifier");
  return b.type(0);
}

// Picks F<16>, F<32> or F<64> by width.
template <template <uint32_t> class Op, template <class> class Exec>
ExecFn by_width(uint32_t bits) {
  switch (bits) {
    case 16: return &Exec<Op<16>>::run;
    case 32: return &Exec<Op<32>>::run;
    case 64: return &Exec<Op<64>>::run;
  }
  return nullptr;
}
template <class Op>
struct Un {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_un<Op>(c, in, m); }
};
template <class Op>
struct Bin {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_bin<Op>(c, in, m); }
};

// .clamp or .wrap, exactly one; true for .clamp.
bool clamp_mode(Binder& b) {
  bool c = b.has(".clamp"), w = b.has(".wrap");
  if (c == w) b.error("'" + b.src.opcode + "' needs exactly one of .clamp, .wrap");
  return c;
}

template <int Op>
void bind_logic(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  b.require_ops(3, 3);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  int_src(b, 2, bits);
  if (t == DType::Pred) {
    b.in.fn = &exec_logic_pred<Op>;
    return;
  }
  switch (bits) {
    case 16: b.in.fn = &exec_bin<Logic<Op, 16>>; break;
    case 32: b.in.fn = &exec_bin<Logic<Op, 32>>; break;
    default: b.in.fn = &exec_bin<Logic<Op, 64>>; break;
  }
}

}  // namespace

void bind_int_popc(Binder& b) {
  uint32_t bits = dtype_bits(one_type(b));
  b.require_ops(2, 2);
  int_dst(b, 0, 32, true);
  int_src(b, 1, bits);
  b.in.fn = bits == 32 ? &exec_un<Popc<32>> : &exec_un<Popc<64>>;
}

void bind_int_clz(Binder& b) {
  uint32_t bits = dtype_bits(one_type(b));
  b.require_ops(2, 2);
  int_dst(b, 0, 32, true);
  int_src(b, 1, bits);
  b.in.fn = bits == 32 ? &exec_un<Clz<32>> : &exec_un<Clz<64>>;
}

void bind_int_bfind(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  b.require_ops(2, 2);
  int_dst(b, 0, 32, true);
  int_src(b, 1, bits);
  bool s = is_signed_int(t), sh = b.has(".shiftamt");
  if (bits == 32)
    b.in.fn = s ? (sh ? &exec_un<Bfind<32, true, true>> : &exec_un<Bfind<32, true, false>>)
                : (sh ? &exec_un<Bfind<32, false, true>> : &exec_un<Bfind<32, false, false>>);
  else
    b.in.fn = s ? (sh ? &exec_un<Bfind<64, true, true>> : &exec_un<Bfind<64, true, false>>)
                : (sh ? &exec_un<Bfind<64, false, true>> : &exec_un<Bfind<64, false, false>>);
}

void bind_int_brev(Binder& b) {
  uint32_t bits = dtype_bits(one_type(b));
  b.require_ops(2, 2);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  b.in.fn = bits == 32 ? &exec_un<Brev<32>> : &exec_un<Brev<64>>;
}

void bind_int_bfe(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  b.require_ops(4, 4);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  int_src(b, 2, 32);
  int_src(b, 3, 32);
  bool s = is_signed_int(t);
  if (bits == 32) b.in.fn = s ? &exec_ter<Bfe<32, true>> : &exec_ter<Bfe<32, false>>;
  else b.in.fn = s ? &exec_ter<Bfe<64, true>> : &exec_ter<Bfe<64, false>>;
}

void bind_int_bfi(Binder& b) {
  uint32_t bits = dtype_bits(one_type(b));
  b.require_ops(5, 5);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  int_src(b, 2, bits);
  int_src(b, 3, 32);
  int_src(b, 4, 32);
  b.in.fn = bits == 32 ? &exec_bfi<32> : &exec_bfi<64>;
}

void bind_int_bmsk(Binder& b) {
  one_type(b);
  bool clamp = clamp_mode(b);
  b.require_ops(3, 3);
  int_dst(b, 0, 32, true);
  int_src(b, 1, 32);
  int_src(b, 2, 32);
  b.in.fn = clamp ? &exec_bin<Bmsk<true>> : &exec_bin<Bmsk<false>>;
}

void bind_int_szext(Binder& b) {
  DType t = one_type(b);
  bool clamp = clamp_mode(b);
  b.require_ops(3, 3);
  int_dst(b, 0, 32, true);
  int_src(b, 1, 32);
  int_src(b, 2, 32);
  bool s = t == DType::S32;
  b.in.fn = clamp ? (s ? &exec_bin<Szext<true, true>> : &exec_bin<Szext<true, false>>)
                  : (s ? &exec_bin<Szext<false, true>> : &exec_bin<Szext<false, false>>);
}

void bind_int_prmt(Binder& b) {
  one_type(b);
  static const char* modes[] = {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
  b.in.a = 0;
  for (uint8_t i = 0; i < 6; ++i)
    if (b.has(modes[i])) {
      if (b.in.a) b.error("'" + b.src.opcode + "' takes at most one mode");
      b.in.a = uint8_t(i + 1);
    }
  b.require_ops(4, 4);
  int_dst(b, 0, 32, true);
  for (size_t i = 1; i < 4; ++i) int_src(b, i, 32);
  b.in.fn = exec_prmt;
}

void bind_int_lop3(Binder& b) {
  one_type(b);
  bool is_and = b.has(".and"), is_or = b.has(".or");
  if (is_and && is_or) b.error("'" + b.src.opcode + "' takes only one of .and, .or");
  if (!is_and && !is_or) {
    b.require_ops(5, 5);
    int_dst(b, 0, 32, true);
    for (size_t i = 1; i < 4; ++i) int_src(b, i, 32);
    b.in.a = uint8_t(sem::int_imm(b, 4, 0, 255, "immLut"));
    b.in.fn = exec_lop3;
    return;
  }
  b.require_ops(6, 6);
  auto [d, p] = sem::int_pair(b, 0);
  sem::int_dst_operand(b, d, 0, 32, true);
  sem::int_dst_operand(b, p, 0, 1, true);
  for (size_t i = 1; i < 4; ++i) int_src(b, i, 32);
  b.in.a = uint8_t(sem::int_imm(b, 4, 0, 255, "immLut"));
  int_src(b, 5, 1);
  b.in.b = is_and ? 1 : 2;
  b.in.imm = uint64_t(d.slot) | (uint64_t(p.slot) << 32);
  b.in.fn = exec_lop3_pred;
}

void bind_int_shf(Binder& b) {
  one_type(b);
  bool l = b.has(".l"), r = b.has(".r");
  if (l == r) b.error("'" + b.src.opcode + "' needs exactly one of .l, .r");
  bool clamp = clamp_mode(b);
  b.require_ops(4, 4);
  int_dst(b, 0, 32, true);
  for (size_t i = 1; i < 4; ++i) int_src(b, i, 32);
  b.in.fn = l ? (clamp ? &exec_ter<Shf<true, true>> : &exec_ter<Shf<true, false>>)
              : (clamp ? &exec_ter<Shf<false, true>> : &exec_ter<Shf<false, false>>);
}

void bind_int_shl(Binder& b) {
  uint32_t bits = dtype_bits(one_type(b));
  b.require_ops(3, 3);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  int_src(b, 2, 32);
  b.in.fn = by_width<Shl, Bin>(bits);
}

namespace {
template <uint32_t N>
using ShrU = Shr<N, false>;
template <uint32_t N>
using ShrS = Shr<N, true>;
template <uint32_t N>
using NotN = Not<N>;
}  // namespace

void bind_int_shr(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  b.require_ops(3, 3);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  int_src(b, 2, 32);
  b.in.fn = is_signed_int(t) ? by_width<ShrS, Bin>(bits) : by_width<ShrU, Bin>(bits);
}

void bind_int_and(Binder& b) { bind_logic<0>(b); }
void bind_int_or(Binder& b) { bind_logic<1>(b); }
void bind_int_xor(Binder& b) { bind_logic<2>(b); }

void bind_int_not(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  b.require_ops(2, 2);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  b.in.fn = t == DType::Pred ? exec_not_pred : by_width<NotN, Un>(bits);
}

void bind_int_cnot(Binder& b) {
  uint32_t bits = dtype_bits(one_type(b));
  b.require_ops(2, 2);
  int_dst(b, 0, bits, true);
  int_src(b, 1, bits);
  b.in.fn = by_width<Cnot, Un>(bits);
}

}  // namespace ptxsim
