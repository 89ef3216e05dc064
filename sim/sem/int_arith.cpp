// Integer arithmetic (PTX ISA 9.7.1): add sub (.sat, .cc, packed .u16x2/.s16x2), addc subc, mul mad
// (.lo .hi .wide, mad.hi.sat, mad.cc, madc), mul24 mad24, sad, div rem, abs neg, min max (.relu and
// packed forms).
//
// Arithmetic wraps modulo 2^n unless .sat is written; all of it is done in unsigned C++ types, so
// no input is undefined behaviour on the host. Integer division by zero is unspecified in PTX;
// ptxsim returns what NVIDIA GPUs return: all ones (-1 for signed types) for both the quotient and
// the remainder, at every width. The most negative value divided by -1 wraps to itself, with
// remainder 0. CC.CF is the per-thread carry flag (int_cc_slot); sub.cc/subc treat it as a borrow,
// as the ISA describes (subc: d = a - (b + CF)).
#include <limits>
#include <type_traits>

#include "sim/sem/lane_drivers.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace sem {
void int_dst(Binder& b, size_t i, uint32_t bits, bool sink_ok);
void int_src(Binder& b, size_t i, uint32_t bits);
uint32_t int_cc_slot(Binder& b);
}  // namespace sem

namespace {

using sem::int_dst;
using sem::int_src;

// A source column: the slot's values plus the frame base for frame-variable operands.
using sem::SrcColumn;
using sem::src_column;
using sem::exec_bin;
using sem::exec_ter;
using sem::exec_un;

// Unsigned arithmetic type for T, at least 32 bits wide so that no operation promotes to int.
template <class T>
using UW = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
template <class T>
using U = std::make_unsigned_t<T>;

// The register image of a T result: sign- or zero-extended to 64 bits.
template <class T>
inline uint64_t put(T v) {
  if constexpr (std::is_signed_v<T>) return uint64_t(int64_t(v));
  else return uint64_t(v);
}
template <class T>
inline T get(uint64_t v) { return T(v); }  // truncation (modular for signed types since C++20)

template <class T>
constexpr T tmin() { return std::numeric_limits<T>::min(); }

// ---- add / sub -----------------------------------------------------------------------------------
template <class T>
struct AddOp {
  static uint64_t f(uint64_t a, uint64_t b) { return put<T>(T(UW<T>(get<T>(a)) + UW<T>(get<T>(b)))); }
};
template <class T>
struct SubOp {
  static uint64_t f(uint64_t a, uint64_t b) { return put<T>(T(UW<T>(get<T>(a)) - UW<T>(get<T>(b)))); }
};
inline uint64_t sat_s32(int64_t v) {
  if (v > INT32_MAX) v = INT32_MAX;
  if (v < INT32_MIN) v = INT32_MIN;
  return uint64_t(v);
}
struct AddSatS32 {
  static uint64_t f(uint64_t a, uint64_t b) { return sat_s32(int64_t(int32_t(a)) + int32_t(b)); }
};
struct SubSatS32 {
  static uint64_t f(uint64_t a, uint64_t b) { return sat_s32(int64_t(int32_t(a)) - int32_t(b)); }
};

// Packed halves: element i is bits [16i+15:16i].
template <class H, class F>
inline uint64_t x2(uint64_t a, uint64_t b, F f) {
  uint32_t lo = uint16_t(f(H(uint16_t(a)), H(uint16_t(b))));
  uint32_t hi = uint16_t(f(H(uint16_t(a >> 16)), H(uint16_t(b >> 16))));
  return (hi << 16) | lo;
}
struct AddX2 {
  static uint64_t f(uint64_t a, uint64_t b) { return x2<uint16_t>(a, b, [](uint32_t x, uint32_t y) { return x + y; }); }
};

// add.cc / addc / sub.cc / subc and, with a product as the first addend, mad.cc / madc:
// d = x ± (y + CF), CF ← carry-out (add) or borrow-out (sub) when Cout.
template <class T, bool Sub, bool Cin, bool Cout>
inline U<T> carry_op(U<T> x, U<T> y, uint64_t& cf) {
  U<T> cin = Cin ? U<T>(cf & 1) : 0;
  U<T> r;
  bool out;
  if constexpr (!Sub) {
    U<T> s = U<T>(x + y);
    r = U<T>(s + cin);
    out = s < x || r < s;
  } else {
    U<T> s = U<T>(x - y);
    r = U<T>(s - cin);
    out = x < y || s < cin;
  }
  if constexpr (Cout) cf = out;
  return r;
}

// in.imm: the carry-flag slot.
template <class T, bool Sub, bool Cin, bool Cout>
void exec_addcc(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]);
  uint64_t* d = c.col(in.op[0]);
  uint64_t* cf = c.col(uint32_t(in.imm));
  for_lanes(mask, [&](int l) {
    uint64_t f = cf[l];
    U<T> r = carry_op<T, Sub, Cin, Cout>(U<T>(a[l]), U<T>(b[l]), f);
    d[l] = put<T>(T(r));
    cf[l] = f;
  });
}

// ---- mul / mad -----------------------------------------------------------------------------------
// The n high bits of the 2n-bit product.
template <class T>
inline T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return T(uint64_t((unsigned __int128)(W(a) * W(b)) >> 64));
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return T(uint64_t(W(a) * W(b)) >> (8 * sizeof(T)));
  }
}
template <class T>
inline T mul_lo(T a, T b) { return T(UW<T>(UW<T>(a) * UW<T>(b))); }
// Wide type for .wide (16 → 32, 32 → 64 bits), same signedness.
template <class T>
using Wide = std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                                std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <class T>
struct MulLo {
  static uint64_t f(uint64_t a, uint64_t b) { return put<T>(mul_lo(get<T>(a), get<T>(b))); }
};
template <class T>
struct MulHi {
  static uint64_t f(uint64_t a, uint64_t b) { return put<T>(mul_hi(get<T>(a), get<T>(b))); }
};
template <class T>
struct MulWide {  // the product of two n-bit values always fits in 2n bits
  static uint64_t f(uint64_t a, uint64_t b) {
    using W = Wide<T>;
    return put<W>(W(U<W>(W(get<T>(a))) * U<W>(W(get<T>(b)))));
  }
};
template <class T>
struct MadLo {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    return put<T>(T(UW<T>(mul_lo(get<T>(a), get<T>(b))) + UW<T>(get<T>(c))));
  }
};
template <class T>
struct MadHi {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    return put<T>(T(UW<T>(mul_hi(get<T>(a), get<T>(b))) + UW<T>(get<T>(c))));
  }
};
template <class T>
struct MadWide {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    using W = Wide<T>;
    U<W> p = U<W>(W(get<T>(a))) * U<W>(W(get<T>(b)));
    return put<W>(W(U<W>(p + U<W>(get<W>(c)))));
  }
};
struct MadHiSatS32 {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    return sat_s32(int64_t(mul_hi(int32_t(a), int32_t(b))) + int32_t(c));
  }
};

// mad{.lo,.hi}.cc / madc: in.imm = carry-flag slot.
template <class T, bool Hi, bool Cin, bool Cout>
void exec_madcc(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), cc = src_column(c, in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  uint64_t* cf = c.col(uint32_t(in.imm));
  for_lanes(mask, [&](int l) {
    T x = get<T>(a[l]), y = get<T>(b[l]);
    U<T> t = U<T>(Hi ? mul_hi(x, y) : mul_lo(x, y));
    uint64_t f = cf[l];
    U<T> r = carry_op<T, false, Cin, Cout>(t, U<T>(cc[l]), f);
    d[l] = put<T>(T(r));
    cf[l] = f;
  });
}

// ---- mul24 / mad24 -------------------------------------------------------------------------------
// 24×24-bit multiply of the low 24 bits of each operand (sign-extended from bit 23 for .s32; the top
// 8 bits are ignored); .hi returns bits 47..16 of the 48-bit product, .lo bits 31..0.
template <bool Signed>
inline uint32_t mul24(uint64_t a, uint64_t b, bool hi) {
  int64_t x = Signed ? int64_t(sem::sext(a, 24)) : int64_t(a & 0xffffff);
  int64_t y = Signed ? int64_t(sem::sext(b, 24)) : int64_t(b & 0xffffff);
  int64_t p = x * y;  // |p| < 2^47: no overflow
  return hi ? uint32_t(uint64_t(p >> 16)) : uint32_t(uint64_t(p));
}
template <bool Signed, bool Hi>
struct Mul24 {
  static uint64_t f(uint64_t a, uint64_t b) {
    uint32_t r = mul24<Signed>(a, b, Hi);
    return Signed ? put<int32_t>(int32_t(r)) : r;
  }
};
template <bool Signed, bool Hi>
struct Mad24 {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    uint32_t r = mul24<Signed>(a, b, Hi) + uint32_t(c);
    return Signed ? put<int32_t>(int32_t(r)) : r;
  }
};
struct Mad24HiSatS32 {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    return sat_s32(int64_t(int32_t(mul24<true>(a, b, true))) + int32_t(c));
  }
};

// ---- sad / div / rem / abs / neg / min / max ------------------------------------------------------
template <class T>
struct Sad {  // d = c + |a - b|
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    T x = get<T>(a), y = get<T>(b);
    UW<T> diff = x < y ? UW<T>(UW<T>(U<T>(y)) - UW<T>(U<T>(x))) : UW<T>(UW<T>(U<T>(x)) - UW<T>(U<T>(y)));
    return put<T>(T(UW<T>(diff + UW<T>(U<T>(get<T>(c))))));
  }
};
template <class T>
struct Div {
  static uint64_t f(uint64_t a, uint64_t b) {
    T x = get<T>(a), y = get<T>(b);
    if (y == 0) return put<T>(T(~U<T>(0)));
    if constexpr (std::is_signed_v<T>) {
      if (x == tmin<T>() && y == T(-1)) return put<T>(x);
    }
    return put<T>(T(x / y));
  }
};
template <class T>
struct Rem {
  static uint64_t f(uint64_t a, uint64_t b) {
    T x = get<T>(a), y = get<T>(b);
    if (y == 0) return put<T>(T(~U<T>(0)));
    if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return 0;
    }
    return put<T>(T(x % y));
  }
};
template <class T>
struct Abs {  // |MIN| wraps to MIN
  static uint64_t f(uint64_t a) {
    T x = get<T>(a);
    return put<T>(x < 0 ? T(UW<T>(0) - UW<T>(U<T>(x))) : x);
  }
};
template <class T>
struct Neg {
  static uint64_t f(uint64_t a) { return put<T>(T(UW<T>(0) - UW<T>(U<T>(get<T>(a))))); }
};
template <class T, bool Max, bool Relu>
struct MinMax {
  static uint64_t f(uint64_t a, uint64_t b) {
    T x = get<T>(a), y = get<T>(b);
    T r = Max ? (x > y ? x : y) : (x < y ? x : y);
    if constexpr (Relu) r = r < 0 ? T(0) : r;
    return put<T>(r);
  }
};
template <class H, bool Max, bool Relu>
struct MinMaxX2 {
  static uint64_t f(uint64_t a, uint64_t b) {
    return x2<H>(a, b, [](H x, H y) {
      H r = Max ? (x > y ? x : y) : (x < y ? x : y);
      if constexpr (Relu) r = r < 0 ? H(0) : r;
      return r;
    });
  }
};

// ---- binding helpers -------------------------------------------------------------------------------

// Picks Exec<Op<T>> for the integer type t (u16 u32 u64 s16 s32 s64); null for any other type.
template <template <class> class Op, template <class> class Exec>
ExecFn pick_int(DType t) {
  switch (t) {
    case DType::U16: return &Exec<Op<uint16_t>>::run;
    case DType::U32: return &Exec<Op<uint32_t>>::run;
    case DType::U64: return &Exec<Op<uint64_t>>::run;
    case DType::S16: return &Exec<Op<int16_t>>::run;
    case DType::S32: return &Exec<Op<int32_t>>::run;
    case DType::S64: return &Exec<Op<int64_t>>::run;
    default: return nullptr;
  }
}
template <class Op>
struct Un {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_un<Op>(c, in, m); }
};
template <class Op>
struct Bin {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_bin<Op>(c, in, m); }
};
template <class Op>
struct Ter {
  static void run(ExecCtx& c, const Instr& in, uint32_t m) { exec_ter<Op>(c, in, m); }
};

std::string type_list(const Binder& b) {
  std::string s;
  for (size_t i = 0; i < b.type_count(); ++i) s += "." + std::string(dtype_name(b.type(i)));
  return s;
}

// The one type modifier of an integer instruction.
DType one_type(Binder& b) {
  if (b.type_count() != 1)
    b.error("'" + b.src.opcode + "' needs exactly one type modifier" + (b.type_count() ? std::string(", got ") + type_list(b) : std::string()));
  return b.type(0);
}

bool is_cc_type(DType t) { return t == DType::U32 || t == DType::S32 || t == DType::U64 || t == DType::S64; }

// Operands d, a, b of `bits` (and c of `cbits` when the form has one).
void check_ops(Binder& b, size_t nsrc, uint32_t dbits, uint32_t sbits, uint32_t cbits = 0) {
  b.require_ops(1 + nsrc, 1 + nsrc);
  int_dst(b, 0, dbits, true);
  for (size_t i = 1; i <= nsrc; ++i) int_src(b, i, (i == 3 && cbits) ? cbits : sbits);
}

template <bool Sub>
void bind_add_sub(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 2, bits, bits);
  if (t == DType::U16x2 || t == DType::S16x2) {
    b.in.fn = &exec_bin<AddX2>;
    return;
  }
  bool sat = b.has(".sat"), cc = b.has(".cc");
  if (sat && t != DType::S32) b.error("'.sat' applies only to '" + std::string(Sub ? "sub" : "add") + ".s32'");
  if (sat && cc) b.error("'.sat' and '.cc' cannot be combined");
  if (sat) {
    b.in.fn = Sub ? &exec_bin<SubSatS32> : &exec_bin<AddSatS32>;
    return;
  }
  if (cc) {
    if (!is_cc_type(t)) b.error("'" + std::string(Sub ? "sub" : "add") + ".cc' needs .u32, .s32, .u64 or .s64");
    b.in.imm = sem::int_cc_slot(b);
    switch (t) {
      case DType::U32: b.in.fn = &exec_addcc<uint32_t, Sub, false, true>; break;
      case DType::S32: b.in.fn = &exec_addcc<int32_t, Sub, false, true>; break;
      case DType::U64: b.in.fn = &exec_addcc<uint64_t, Sub, false, true>; break;
      default: b.in.fn = &exec_addcc<int64_t, Sub, false, true>; break;
    }
    return;
  }
  b.in.fn = Sub ? pick_int<SubOp, Bin>(t) : pick_int<AddOp, Bin>(t);
}

template <bool Sub, bool Cout>
ExecFn pick_addc(DType t) {
  switch (t) {
    case DType::U32: return &exec_addcc<uint32_t, Sub, true, Cout>;
    case DType::S32: return &exec_addcc<int32_t, Sub, true, Cout>;
    case DType::U64: return &exec_addcc<uint64_t, Sub, true, Cout>;
    case DType::S64: return &exec_addcc<int64_t, Sub, true, Cout>;
    default: return nullptr;
  }
}

template <bool Sub>
void bind_addc_subc(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 2, bits, bits);
  b.in.imm = sem::int_cc_slot(b);
  b.in.fn = b.has(".cc") ? pick_addc<Sub, true>(t) : pick_addc<Sub, false>(t);
}

// .hi / .lo / .wide: 0 none, 1 lo, 2 hi, 3 wide; an error when more than one is written.
int mul_mode(Binder& b) {
  int m = 0, n = 0;
  if (b.has(".lo")) m = 1, ++n;
  if (b.has(".hi")) m = 2, ++n;
  if (b.has(".wide")) m = 3, ++n;
  if (n > 1) b.error("'" + b.src.opcode + "' takes only one of .hi, .lo, .wide");
  return m;
}

template <bool Hi, bool Cin, bool Cout>
ExecFn pick_madcc(DType t) {
  switch (t) {
    case DType::U32: return &exec_madcc<uint32_t, Hi, Cin, Cout>;
    case DType::S32: return &exec_madcc<int32_t, Hi, Cin, Cout>;
    case DType::U64: return &exec_madcc<uint64_t, Hi, Cin, Cout>;
    case DType::S64: return &exec_madcc<int64_t, Hi, Cin, Cout>;
    default: return nullptr;
  }
}

}  // namespace

void bind_int_add(Binder& b) { bind_add_sub<false>(b); }
void bind_int_sub(Binder& b) { bind_add_sub<true>(b); }
void bind_int_addc(Binder& b) { bind_addc_subc<false>(b); }
void bind_int_subc(Binder& b) { bind_addc_subc<true>(b); }

void bind_int_mul(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  int mode = mul_mode(b);
  if (mode == 0) b.error("'" + b.src.opcode + "' needs .lo, .hi or .wide");
  if (mode == 3 && bits == 64) b.error("'mul.wide' applies only to 16- and 32-bit types");
  check_ops(b, 2, mode == 3 ? 2 * bits : bits, bits);
  if (mode == 1) b.in.fn = pick_int<MulLo, Bin>(t);
  else if (mode == 2) b.in.fn = pick_int<MulHi, Bin>(t);
  else b.in.fn = pick_int<MulWide, Bin>(t);
}

void bind_int_mad(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  int mode = mul_mode(b);
  if (mode == 0) b.error("'" + b.src.opcode + "' needs .lo, .hi or .wide");
  bool sat = b.has(".sat"), cc = b.has(".cc");
  if (mode == 3 && bits == 64) b.error("'mad.wide' applies only to 16- and 32-bit types");
  if (sat && !(mode == 2 && t == DType::S32)) b.error("'.sat' applies only to 'mad.hi.s32'");
  if (sat && cc) b.error("'.sat' and '.cc' cannot be combined");
  uint32_t wide = mode == 3 ? 2 * bits : bits;
  check_ops(b, 3, wide, bits, wide);
  if (cc) {
    if (mode == 3) b.error("'mad.cc' needs .lo or .hi");
    if (!is_cc_type(t)) b.error("'mad.cc' needs .u32, .s32, .u64 or .s64");
    b.in.imm = sem::int_cc_slot(b);
    b.in.fn = mode == 2 ? pick_madcc<true, false, true>(t) : pick_madcc<false, false, true>(t);
    return;
  }
  if (sat) b.in.fn = &exec_ter<MadHiSatS32>;
  else if (mode == 1) b.in.fn = pick_int<MadLo, Ter>(t);
  else if (mode == 2) b.in.fn = pick_int<MadHi, Ter>(t);
  else b.in.fn = pick_int<MadWide, Ter>(t);
}

void bind_int_madc(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  int mode = mul_mode(b);  // .wide is not in the row; no mode means .lo
  check_ops(b, 3, bits, bits, bits);
  b.in.imm = sem::int_cc_slot(b);
  bool hi = mode == 2, cc = b.has(".cc");
  if (hi) b.in.fn = cc ? pick_madcc<true, true, true>(t) : pick_madcc<true, true, false>(t);
  else b.in.fn = cc ? pick_madcc<false, true, true>(t) : pick_madcc<false, true, false>(t);
}

void bind_int_mul24(Binder& b) {
  DType t = one_type(b);
  int mode = mul_mode(b);
  if (mode != 1 && mode != 2) b.error("'" + b.src.opcode + "' needs .lo or .hi");
  check_ops(b, 2, 32, 32);
  bool s = t == DType::S32, hi = mode == 2;
  b.in.fn = s ? (hi ? &exec_bin<Mul24<true, true>> : &exec_bin<Mul24<true, false>>)
              : (hi ? &exec_bin<Mul24<false, true>> : &exec_bin<Mul24<false, false>>);
}

void bind_int_mad24(Binder& b) {
  DType t = one_type(b);
  int mode = mul_mode(b);
  if (mode != 1 && mode != 2) b.error("'" + b.src.opcode + "' needs .lo or .hi");
  check_ops(b, 3, 32, 32, 32);
  bool s = t == DType::S32, hi = mode == 2;
  if (b.has(".sat")) {
    if (!(s && hi)) b.error("'.sat' applies only to 'mad24.hi.s32'");
    b.in.fn = &exec_ter<Mad24HiSatS32>;
    return;
  }
  b.in.fn = s ? (hi ? &exec_ter<Mad24<true, true>> : &exec_ter<Mad24<true, false>>)
              : (hi ? &exec_ter<Mad24<false, true>> : &exec_ter<Mad24<false, false>>);
}

void bind_int_sad(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 3, bits, bits, bits);
  b.in.fn = pick_int<Sad, Ter>(t);
}

void bind_int_div(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 2, bits, bits);
  b.in.fn = pick_int<Div, Bin>(t);
}

void bind_int_rem(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 2, bits, bits);
  b.in.fn = pick_int<Rem, Bin>(t);
}

void bind_int_abs(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 1, bits, bits);
  b.in.fn = pick_int<Abs, Un>(t);
}

void bind_int_neg(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 1, bits, bits);
  b.in.fn = pick_int<Neg, Un>(t);
}

namespace {

template <class T>
using Min = MinMax<T, false, false>;
template <class T>
using Max = MinMax<T, true, false>;

template <bool IsMax>
void bind_min_max(Binder& b) {
  DType t = one_type(b);
  uint32_t bits = dtype_bits(t);
  check_ops(b, 2, bits, bits);
  bool relu = b.has(".relu");
  if (relu && t != DType::S32 && t != DType::S16x2)
    b.error("'.relu' applies only to .s32 and .s16x2 (got '" + b.src.opcode + "')");
  switch (t) {
    case DType::U16x2: b.in.fn = &exec_bin<MinMaxX2<uint16_t, IsMax, false>>; return;
    case DType::S16x2:
      b.in.fn = relu ? &exec_bin<MinMaxX2<int16_t, IsMax, true>> : &exec_bin<MinMaxX2<int16_t, IsMax, false>>;
      return;
    case DType::S32:
      if (relu) {
        b.in.fn = &exec_bin<MinMax<int32_t, IsMax, true>>;
        return;
      }
      break;
    default: break;
  }
  b.in.fn = IsMax ? pick_int<Max, Bin>(t) : pick_int<Min, Bin>(t);
}

}  // namespace

void bind_int_min(Binder& b) { bind_min_max<false>(b); }
void bind_int_max(Binder& b) { bind_min_max<true>(b); }

}  // namespace ptxsim
