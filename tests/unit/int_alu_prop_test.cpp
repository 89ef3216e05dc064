// Property tests (RapidCheck) of the integer ALU and comparison instructions against host-C++
// references written here, independently of the simulator's semantics (exact __int128 arithmetic,
// bit-by-bit loops transcribing the PTX ISA pseudocode, integer sort keys for float comparisons).
// Every iteration is one launch through the real pipeline (PTX text → load_program → launch) of a
// kernel in which each of 64 threads computes every form of a family on its own random operands.
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::inttest {

// Defined in int_alu_test.cpp: runs `body` (outputs %o<j>, inputs %h/%r/%rd/%q<i>) for `threads`
// threads; see the harness there.
std::vector<uint64_t> run_cached(size_t nin, const std::vector<int>& out_bits, const std::string& body,
                                 const std::vector<uint64_t>& in, uint32_t threads, std::string* error);

namespace {

using i128 = __int128;
using u128 = unsigned __int128;
using Row = std::vector<uint64_t>;

constexpr uint32_t kThreads = 64;

// ---- references' helpers -----------------------------------------------------------------------------
uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
uint64_t u(uint64_t v, int bits) { return v & mask(bits); }
int64_t s(uint64_t v, int bits) {
  uint64_t x = u(v, bits);
  if (bits < 64 && (x >> (bits - 1)) & 1) x |= ~mask(bits);
  return int64_t(x);
}
// The value of operand v of an integer type of `bits` as an exact integer.
i128 val(uint64_t v, int bits, bool sgn) { return sgn ? i128(s(v, bits)) : i128(u(v, bits)); }
uint64_t bit(uint64_t v, int i) { return (v >> i) & 1; }

// ---- generators ----------------------------------------------------------------------------------------
rc::Gen<uint64_t> uniform64() {
  return rc::gen::map(rc::gen::pair(rc::gen::resize(100, rc::gen::inRange<uint64_t>(0, uint64_t{1} << 32)),
                                    rc::gen::resize(100, rc::gen::inRange<uint64_t>(0, uint64_t{1} << 32))),
                      [](std::pair<uint64_t, uint64_t> p) { return (p.first << 32) | p.second; });
}
// Integers near the edges of every width, small values of both signs, and uniform ones.
rc::Gen<uint64_t> any_int() {
  static const std::vector<uint64_t> edges = {0,          0x7f,       0x80,        0xff,        0x7fff,
                                              0x8000,     0xffff,     0x7fffffff,  0x80000000,  0xffffffff,
                                              0x7fffffffffffffffull,    0x8000000000000000ull,  ~0ull,
                                              0xffffffffffff8000ull,    0xffffffff80000000ull,  0x100000000ull};
  return rc::gen::weightedOneOf<uint64_t>(
      {{4, uniform64()},
       {2, rc::gen::map(rc::gen::pair(rc::gen::elementOf(edges), rc::gen::inRange<int>(-2, 3)),
                        [](std::pair<uint64_t, int> p) { return p.first + uint64_t(int64_t(p.second)); })},
       {2, rc::gen::map(rc::gen::inRange<int>(-40, 41), [](int v) { return uint64_t(int64_t(v)); })},
       {1, rc::gen::map(uniform64(), [](uint64_t v) { return v >> (v & 63); })}});
}
// Shift amounts, bit positions and lengths: mostly around the widths, sometimes huge.
rc::Gen<uint64_t> amount() {
  return rc::gen::weightedOneOf<uint64_t>(
      {{6, rc::gen::map(rc::gen::inRange<int>(0, 72), [](int v) { return uint64_t(v); })},
       {2, rc::gen::map(rc::gen::inRange<int>(0, 300), [](int v) { return uint64_t(v); })},
       {1, uniform64()}});
}
rc::Gen<uint64_t> f32_bits() {
  static const std::vector<uint64_t> special = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
                                                0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff, 0x00000001, 0x80000001,
                                                0x007fffff, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x40000000};
  return rc::gen::weightedOneOf<uint64_t>(
      {{3, rc::gen::map(uniform64(), [](uint64_t v) { return v & 0xffffffff; })},
       {3, rc::gen::elementOf(special)},
       {3, rc::gen::map(rc::gen::inRange<int>(-4, 5), [](int v) { return uint64_t(std::bit_cast<uint32_t>(float(v) * 0.5f)); })}});
}
rc::Gen<uint64_t> f64_bits() {
  static const std::vector<uint64_t> special = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                                                0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                                0xfff8000000000001ull, 0x7ff0000000000001ull, 1, 0x8000000000000001ull,
                                                0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull};
  return rc::gen::weightedOneOf<uint64_t>(
      {{3, uniform64()},
       {3, rc::gen::elementOf(special)},
       {3, rc::gen::map(rc::gen::inRange<int>(-4, 5), [](int v) { return std::bit_cast<uint64_t>(double(v) * 0.5); })}});
}
// 16-bit float bit patterns (bf16 when `bf`), including zeros, infinities, NaNs and subnormals.
rc::Gen<uint64_t> h16_bits(bool bf) {
  static const std::vector<uint64_t> f16s = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01,
                                             0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x7bff, 0x4000, 0x3800, 0xb800};
  static const std::vector<uint64_t> bf16s = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81,
                                              0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x7f7f, 0x4000, 0x3f00, 0xbf00};
  return rc::gen::weightedOneOf<uint64_t>(
      {{3, rc::gen::map(uniform64(), [](uint64_t v) { return v & 0xffff; })}, {4, rc::gen::elementOf(bf ? bf16s : f16s)}});
}
rc::Gen<uint64_t> h16x2_bits(bool bf) {
  return rc::gen::map(rc::gen::pair(h16_bits(bf), h16_bits(bf)),
                      [](std::pair<uint64_t, uint64_t> p) { return (p.first << 16) | p.second; });
}
// A second operand that often equals, or is adjacent to, the first.
uint64_t near(uint64_t a, const rc::Gen<uint64_t>& g) {
  return *rc::gen::weightedOneOf<uint64_t>({{3, g}, {2, rc::gen::just(a)}, {1, rc::gen::just(a + 1)}, {1, rc::gen::just(a - 1)}});
}

// ---- the group runner ------------------------------------------------------------------------------------
struct Out {
  std::string ptx;  // `$d` is the destination
  int bits;         // 1 = predicate
  std::function<uint64_t(const Row&)> ref;
};
struct Group {
  size_t nin = 0;
  std::function<Row()> row;  // generates one thread's inputs (inside a property)
  std::vector<Out> outs;
  void add(const std::string& ptx, int bits, std::function<uint64_t(const Row&)> ref) {
    outs.push_back({ptx, bits, std::move(ref)});
  }
};

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

void check(const Group& g) {
  std::string body;
  std::vector<int> bits;
  for (size_t j = 0; j < g.outs.size(); ++j) {
    std::string line = g.outs[j].ptx;
    for (size_t at; (at = line.find("$d")) != std::string::npos;) line.replace(at, 2, "%o" + std::to_string(j));
    body += "  " + line + "\n";
    bits.push_back(g.outs[j].bits);
  }
  std::vector<Row> rows;
  std::vector<uint64_t> flat;
  for (uint32_t t = 0; t < kThreads; ++t) {
    rows.push_back(g.row());
    RC_ASSERT(rows.back().size() == g.nin);
    flat.insert(flat.end(), rows.back().begin(), rows.back().end());
  }
  std::string err;
  std::vector<uint64_t> got = run_cached(g.nin, bits, body, flat, kThreads, &err);
  if (!err.empty()) RC_FAIL(err);
  for (uint32_t t = 0; t < kThreads; ++t)
    for (size_t j = 0; j < g.outs.size(); ++j) {
      int w = bits[j] == 1 ? 1 : bits[j];
      uint64_t want = u(g.outs[j].ref(rows[t]), w);
      uint64_t have = got[t * g.outs.size() + j];
      if (want != have) {
        std::string in;
        for (uint64_t v : rows[t]) in += hex(v) + " ";
        bool poison = have == u(0xababababababababull, w == 1 ? 32 : w);
        RC_FAIL("'" + g.outs[j].ptx + "' with inputs " + in + "gave " + hex(have) + ", expected " + hex(want) +
                (poison ? " (the poison pattern: never written?)" : ""));
      }
    }
}

// Register of input i at a width: %h (16), %r (32), %rd (64), %q (predicate).
std::string R(int i, int bits) {
  std::string n = std::to_string(i);
  switch (bits) {
    case 1: return "%q" + n;
    case 16: return "%h" + n;
    case 32: return "%r" + n;
    default: return "%rd" + n;
  }
}
struct IntType {
  const char* name;
  int bits;
  bool sgn;
};
const IntType kIntTypes[] = {{"u16", 16, false}, {"s16", 16, true}, {"u32", 32, false},
                             {"s32", 32, true},  {"u64", 64, false}, {"s64", 64, true}};

std::function<Row()> rows_of(size_t n, std::function<rc::Gen<uint64_t>(size_t)> gen) {
  return [n, gen] {
    Row r;
    for (size_t i = 0; i < n; ++i) r.push_back(*gen(i));
    return r;
  };
}

// ---- integer arithmetic ----------------------------------------------------------------------------------

RC_GTEST_PROP(IntAluProp, AddSubMulMadMatchExactArithmetic, ()) {
  Group g;
  g.nin = 3;
  g.row = rows_of(3, [](size_t) { return any_int(); });
  for (const IntType& t : kIntTypes) {
    std::string T = t.name, a = R(0, t.bits), b = R(1, t.bits), c = R(2, t.bits);
    int n = t.bits;
    bool sg = t.sgn;
    auto A = [=](const Row& r) { return val(r[0], n, sg); };
    auto B = [=](const Row& r) { return val(r[1], n, sg); };
    auto C = [=](const Row& r) { return val(r[2], n, sg); };
    g.add("add." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return uint64_t(A(r) + B(r)); });
    g.add("sub." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return uint64_t(A(r) - B(r)); });
    // A u64 product needs all 128 bits unsigned (as a signed __int128 it would overflow: UB); the low
    // halves are the same in either signedness, and a signed product of <= 64-bit values fits.
    using u128 = unsigned __int128;
    auto LO = [=](const Row& r) { return u128(A(r)) * u128(B(r)); };
    auto HI = [=](const Row& r) { return sg ? (A(r) * B(r)) >> n : i128((u128(A(r)) * u128(B(r))) >> n); };
    g.add("mul.lo." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return uint64_t(LO(r)); });
    g.add("mul.hi." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return uint64_t(HI(r)); });
    g.add("mad.lo." + T + " $d, " + a + ", " + b + ", " + c + ";", n,
          [=](const Row& r) { return uint64_t(LO(r) + u128(C(r))); });
    g.add("mad.hi." + T + " $d, " + a + ", " + b + ", " + c + ";", n,
          [=](const Row& r) { return uint64_t(HI(r) + C(r)); });
    if (n < 64) {
      std::string cw = R(2, 2 * n);
      g.add("mul.wide." + T + " $d, " + a + ", " + b + ";", 2 * n, [=](const Row& r) { return uint64_t(A(r) * B(r)); });
      g.add("mad.wide." + T + " $d, " + a + ", " + b + ", " + cw + ";", 2 * n,
            [=](const Row& r) { return uint64_t(A(r) * B(r) + val(r[2], 2 * n, sg)); });
    }
    g.add("sad." + T + " $d, " + a + ", " + b + ", " + c + ";", n, [=](const Row& r) {
      i128 d = A(r) - B(r);
      return uint64_t(C(r) + (d < 0 ? -d : d));
    });
  }
  auto sat = [](i128 v) { return uint64_t(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); };
  g.add("add.sat.s32 $d, %r0, %r1;", 32, [=](const Row& r) { return sat(i128(s(r[0], 32)) + s(r[1], 32)); });
  g.add("sub.sat.s32 $d, %r0, %r1;", 32, [=](const Row& r) { return sat(i128(s(r[0], 32)) - s(r[1], 32)); });
  g.add("mad.hi.sat.s32 $d, %r0, %r1, %r2;", 32,
        [=](const Row& r) { return sat(((i128(s(r[0], 32)) * s(r[1], 32)) >> 32) + s(r[2], 32)); });
  check(g);
}

RC_GTEST_PROP(IntAluProp, DivRemAbsNegMinMax, ()) {
  Group g;
  g.nin = 2;
  g.row = [] {
    uint64_t a = *any_int();
    uint64_t b = *rc::gen::weightedOneOf<uint64_t>(
        {{4, any_int()}, {1, rc::gen::just<uint64_t>(0)}, {1, rc::gen::just<uint64_t>(~0ull)}, {1, rc::gen::just(a)}});
    return Row{a, b};
  };
  for (const IntType& t : kIntTypes) {
    std::string T = t.name, a = R(0, t.bits), b = R(1, t.bits);
    int n = t.bits;
    bool sg = t.sgn;
    auto A = [=](const Row& r) { return val(r[0], n, sg); };
    auto B = [=](const Row& r) { return val(r[1], n, sg); };
    // Division by zero: all ones (what NVIDIA GPUs return); C++ truncating division otherwise, exact in
    // 128 bits so that MIN / -1 wraps to MIN.
    g.add("div." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return B(r) == 0 ? ~0ull : uint64_t(A(r) / B(r)); });
    g.add("rem." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return B(r) == 0 ? ~0ull : uint64_t(A(r) % B(r)); });
    g.add("min." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return uint64_t(std::min(A(r), B(r))); });
    g.add("max." + T + " $d, " + a + ", " + b + ";", n, [=](const Row& r) { return uint64_t(std::max(A(r), B(r))); });
    if (sg) {
      g.add("abs." + T + " $d, " + a + ";", n, [=](const Row& r) { return uint64_t(A(r) < 0 ? -A(r) : A(r)); });
      g.add("neg." + T + " $d, " + a + ";", n, [=](const Row& r) { return uint64_t(-A(r)); });
    }
  }
  g.add("min.relu.s32 $d, %r0, %r1;", 32, [](const Row& r) { return uint64_t(std::max<int64_t>(0, std::min(s(r[0], 32), s(r[1], 32)))); });
  g.add("max.relu.s32 $d, %r0, %r1;", 32, [](const Row& r) { return uint64_t(std::max<int64_t>(0, std::max(s(r[0], 32), s(r[1], 32)))); });
  // Packed halfword forms: each 16-bit half on its own.
  auto halves = [](const Row& r, auto f) {
    uint64_t lo = u(f(r[0] & 0xffff, r[1] & 0xffff), 16), hi = u(f((r[0] >> 16) & 0xffff, (r[1] >> 16) & 0xffff), 16);
    return (hi << 16) | lo;
  };
  g.add("add.u16x2 $d, %r0, %r1;", 32, [=](const Row& r) { return halves(r, [](uint64_t x, uint64_t y) { return x + y; }); });
  g.add("add.s16x2 $d, %r0, %r1;", 32, [=](const Row& r) { return halves(r, [](uint64_t x, uint64_t y) { return x + y; }); });
  for (int relu = 0; relu < 2; ++relu)
    for (int mx = 0; mx < 2; ++mx) {
      std::string op = std::string(mx ? "max" : "min") + (relu ? ".relu" : "");
      g.add(op + ".s16x2 $d, %r0, %r1;", 32, [=](const Row& r) {
        return halves(r, [=](uint64_t x, uint64_t y) {
          int64_t v = mx ? std::max(s(x, 16), s(y, 16)) : std::min(s(x, 16), s(y, 16));
          return uint64_t(relu && v < 0 ? 0 : v);
        });
      });
      if (!relu)
        g.add(op + ".u16x2 $d, %r0, %r1;", 32,
              [=](const Row& r) { return halves(r, [=](uint64_t x, uint64_t y) { return mx ? std::max(x, y) : std::min(x, y); }); });
    }
  check(g);
}

RC_GTEST_PROP(IntAluProp, Mul24Mad24, ()) {
  Group g;
  g.nin = 3;
  g.row = rows_of(3, [](size_t) { return any_int(); });
  for (int sg = 0; sg < 2; ++sg) {
    std::string T = sg ? "s32" : "u32";
    auto p48 = [=](const Row& r) { return i128(sg ? s(r[0], 24) : int64_t(u(r[0], 24))) * (sg ? s(r[1], 24) : int64_t(u(r[1], 24))); };
    g.add("mul24.lo." + T + " $d, %r0, %r1;", 32, [=](const Row& r) { return uint64_t(p48(r)); });
    g.add("mul24.hi." + T + " $d, %r0, %r1;", 32, [=](const Row& r) { return uint64_t(p48(r) >> 16); });
    g.add("mad24.lo." + T + " $d, %r0, %r1, %r2;", 32, [=](const Row& r) { return uint64_t(p48(r) + i128(r[2])); });
    g.add("mad24.hi." + T + " $d, %r0, %r1, %r2;", 32, [=](const Row& r) { return uint64_t((p48(r) >> 16) + i128(r[2])); });
  }
  g.add("mad24.hi.sat.s32 $d, %r0, %r1, %r2;", 32, [](const Row& r) {
    i128 v = i128(int32_t(uint32_t(uint64_t((i128(s(r[0], 24)) * s(r[1], 24)) >> 16)))) + s(r[2], 32);
    return uint64_t(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
  });
  check(g);
}

// Multi-word arithmetic through the carry flag, compared with 128/192-bit host arithmetic.
RC_GTEST_PROP(IntAluProp, CarryChainsMatchWideArithmetic, ()) {
  Group g;
  g.nin = 8;
  g.row = rows_of(8, [](size_t) { return any_int(); });
  auto limbs32 = [](const Row& r, int first) {
    u128 v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 32) | u(r[size_t(first + i)], 32);
    return v;
  };
  // 128-bit add and subtract with 32-bit limbs (unsigned and signed spellings).
  // Each output is one limb of the result; the chain is re-run per output (the flag lives across it).
  for (int k = 0; k < 4; ++k)
    for (int sub = 0; sub < 2; ++sub)
      for (int sg = 0; sg < 2; ++sg) {
        std::string t = sg ? "s32" : "u32", op = sub ? "sub" : "add";
        std::string ptx;
        for (int i = 0; i <= k; ++i) {
          std::string opc = i == 0 ? op + ".cc." : i == k ? op + "c." : op + "c.cc.";
          std::string dst = i == k ? "$d" : "%o" + std::string("$tmp") + std::to_string(i);
          ptx += opc + t + " " + dst + ", %r" + std::to_string(i) + ", %r" + std::to_string(i + 4) + ";\n ";
        }
        g.add(ptx, 32, [=](const Row& r) {
          u128 a = limbs32(r, 0), b = limbs32(r, 4);
          u128 v = sub ? a - b : a + b;
          return uint64_t(v >> (32 * k));
        });
      }
  // 64-bit limbs: [a1 a0] ± [b1 b0] with a = (r1, r0), b = (r3, r2)
  for (int sub = 0; sub < 2; ++sub) {
    std::string op = sub ? "sub" : "add";
    g.add(op + ".cc.u64 $dlo, %rd0, %rd2;\n " + op + "c.s64 $d, %rd1, %rd3;", 64, [=](const Row& r) {
      u128 a = (u128(r[1]) << 64) | r[0], b = (u128(r[3]) << 64) | r[2];
      return uint64_t((sub ? a - b : a + b) >> 64);
    });
  }
  // A carry out of subc.cc / addc.cc into a final addc.u32 0, 0.
  g.add("sub.cc.u32 $dx, %r0, %r1;\n subc.cc.u32 $dx, %r2, %r3;\n addc.u32 $d, 0, 0;", 32, [](const Row& r) {
    uint64_t a = (u(r[2], 32) << 32) | u(r[0], 32), b = (u(r[3], 32) << 32) | u(r[1], 32);
    return uint64_t(a < b);  // the final borrow
  });
  // The ISA's 64×64 → 128 multiply with mad.lo.cc / madc.hi (32-bit limbs), one output per limb.
  const char* mul = R"(mul.lo.u32 $w0, %r0, %r2;
    mul.hi.u32 $w1, %r0, %r2;
    mad.lo.cc.u32 $w1, %r1, %r2, $w1;
    madc.hi.u32 $w2, %r1, %r2, 0;
    mad.lo.cc.u32 $w1, %r0, %r3, $w1;
    madc.hi.cc.u32 $w2, %r0, %r3, $w2;
    addc.u32 $w3, 0, 0;
    mad.lo.cc.u32 $w2, %r1, %r3, $w2;
    madc.hi.u32 $w3, %r1, %r3, $w3;)";
  for (int k = 0; k < 4; ++k) {
    std::string p = mul;
    p += "\n mov.b32 $d, $w" + std::to_string(k) + ";";
    g.add(p, 32, [=](const Row& r) {
      u128 a = (u(r[1], 32) << 32) | u(r[0], 32), b = (u(r[3], 32) << 32) | u(r[2], 32);
      return uint64_t((a * b) >> (32 * k));
    });
  }
  // 128×64 → 192 with 64-bit limbs: [d2 d1 d0] = [a1 a0] * b, a = (rd1, rd0), b = rd2.
  const char* mul64 = R"(mul.lo.u64 $x0, %rd0, %rd2;
    mul.hi.u64 $x1, %rd0, %rd2;
    mad.lo.cc.s64 $x1, %rd1, %rd2, $x1;
    madc.hi.u64 $x2, %rd1, %rd2, 0;)";
  for (int k = 0; k < 3; ++k) {
    std::string p = mul64;
    p += "\n mov.b64 $d, $x" + std::to_string(k) + ";";
    g.add(p, 64, [=](const Row& r) {
      u128 lo = u128(r[0]) * r[2], hi = u128(r[1]) * r[2];
      u128 mid = (lo >> 64) + u128(uint64_t(hi));
      uint64_t d[3] = {uint64_t(lo), uint64_t(mid), uint64_t((hi >> 64) + (mid >> 64))};
      return d[k];
    });
  }
  // Temporaries: give every output its own scratch registers so that outputs stay independent.
  for (size_t j = 0; j < g.outs.size(); ++j) {
    std::string& p = g.outs[j].ptx;
    std::string pre = "{\n .reg .b32 %w<4>, %t<4>, %lo32, %x32;\n .reg .b64 %x<3>, %lo64;\n ";
    auto sub = [&](const std::string& from, const std::string& to) {
      for (size_t at; (at = p.find(from)) != std::string::npos;) p.replace(at, from.size(), to);
    };
    sub("%o$tmp", "%t");
    sub("$w", "%w");
    sub("$x0", "%x0");
    sub("$x1", "%x1");
    sub("$x2", "%x2");
    sub("$dlo", "%lo64");
    sub("$dx", "%x32");
    p = pre + p + "\n }";
  }
  check(g);
}

// ---- bits --------------------------------------------------------------------------------------------------

RC_GTEST_PROP(IntBitsProp, CountsFieldsAndShiftsFollowTheIsaPseudocode, ()) {
  Group g;
  g.nin = 4;
  g.row = [] { return Row{*any_int(), *any_int(), *amount(), *amount()}; };
  for (int n : {32, 64}) {
    std::string B = "b" + std::to_string(n), a = R(0, n), b = R(1, n);
    g.add("popc." + B + " $d, " + a + ";", 32, [=](const Row& r) {
      uint64_t c = 0;
      for (int i = 0; i < n; ++i) c += bit(r[0], i);
      return c;
    });
    g.add("clz." + B + " $d, " + a + ";", 32, [=](const Row& r) {
      uint64_t c = 0;
      while (c < uint64_t(n) && !bit(r[0], n - 1 - int(c))) ++c;
      return c;
    });
    g.add("brev." + B + " $d, " + a + ";", n, [=](const Row& r) {
      uint64_t d = 0;
      for (int i = 0; i < n; ++i) d |= bit(r[0], n - 1 - i) << i;
      return d;
    });
    for (int sg = 0; sg < 2; ++sg)
      for (int sh = 0; sh < 2; ++sh) {
        std::string T = std::string(sg ? "s" : "u") + std::to_string(n);
        g.add(std::string("bfind.") + (sh ? "shiftamt." : "") + T + " $d, " + a + ";", 32, [=](const Row& r) {
          uint64_t v = r[0];
          if (sg && bit(v, n - 1)) v = ~v;
          uint64_t d = 0xffffffff;
          for (int i = n - 1; i >= 0; --i)
            if (bit(v, i)) {
              d = uint64_t(i);
              break;
            }
          if (sh && d != 0xffffffff) d = uint64_t(n - 1) - d;
          return d;
        });
        g.add("bfe." + T + " $d, " + a + ", %r2, %r3;", n, [=](const Row& r) {
          uint64_t pos = r[2] & 0xff, len = r[3] & 0xff;
          uint64_t sbit = (!sg || len == 0) ? 0 : bit(r[0], int(std::min<uint64_t>(pos + len - 1, uint64_t(n - 1))));
          uint64_t d = 0;
          for (uint64_t i = 0; i < uint64_t(n); ++i) d |= ((i < len && pos + i <= uint64_t(n - 1)) ? bit(r[0], int(pos + i)) : sbit) << i;
          return d;
        });
      }
    g.add("bfi." + B + " $d, " + a + ", " + b + ", %r2, %r3;", n, [=](const Row& r) {
      uint64_t pos = r[2] & 0xff, len = r[3] & 0xff, f = u(r[1], n);
      for (uint64_t i = 0; i < len && pos + i <= uint64_t(n - 1); ++i) f = (f & ~(1ull << (pos + i))) | (bit(r[0], int(i)) << (pos + i));
      return f;
    });
  }
  // Shifts: the amount is the u32 %r2; amounts ≥ the width give 0 or the sign fill.
  for (int n : {16, 32, 64}) {
    std::string a = R(0, n), N = std::to_string(n);
    g.add("shl.b" + N + " $d, " + a + ", %r2;", n, [=](const Row& r) {
      uint64_t k = u(r[2], 32);
      return k >= uint64_t(n) ? 0 : r[0] << k;
    });
    for (const char* T : {"b", "u", "s"})
      g.add(std::string("shr.") + T + N + " $d, " + a + ", %r2;", n, [=](const Row& r) {
        uint64_t k = std::min<uint64_t>(u(r[2], 32), uint64_t(n));
        if (T[0] == 's') return uint64_t(i128(s(r[0], n)) >> k);
        return k >= 64 ? 0 : u(r[0], n) >> k;
      });
  }
  for (int l = 0; l < 2; ++l)
    for (int cl = 0; cl < 2; ++cl)
      g.add(std::string("shf.") + (l ? "l" : "r") + (cl ? ".clamp" : ".wrap") + ".b32 $d, %r0, %r1, %r2;", 32, [=](const Row& r) {
        uint64_t c = u(r[2], 32), k = cl ? std::min<uint64_t>(c, 32) : c & 31;
        u128 v = (u128(u(r[1], 32)) << 32) | u(r[0], 32);
        return l ? uint64_t((v << k) >> 32) : uint64_t(v >> k);
      });
  // bmsk: the bits [pos, pos + width) below 32; szext: N = the width (clamped or wrapped).
  for (int cl = 0; cl < 2; ++cl) {
    std::string m = cl ? "clamp" : "wrap";
    g.add("bmsk." + m + ".b32 $d, %r2, %r3;", 32, [=](const Row& r) {
      uint64_t a = u(r[2], 32), b = u(r[3], 32);
      if (cl && a >= 32) return uint64_t(0);
      uint64_t pos = a & 31, width = cl ? std::min<uint64_t>(b, 32) : b & 31, d = 0;
      for (uint64_t i = pos; i < 32 && i < pos + width; ++i) d |= 1ull << i;
      return d;
    });
    for (int sg = 0; sg < 2; ++sg)
      g.add("szext." + m + (sg ? ".s32" : ".u32") + " $d, %r0, %r3;", 32, [=](const Row& r) {
        uint64_t b = u(r[3], 32), nb = cl ? std::min<uint64_t>(b, 32) : b & 31;
        if (nb == 0) return uint64_t(0);
        if (nb >= 32) return u(r[0], 32);
        return sg ? uint64_t(s(r[0], int(nb))) : u(r[0], int(nb));
      });
  }
  // Logic.
  for (int n : {16, 32, 64}) {
    std::string a = R(0, n), b = R(1, n), N = std::to_string(n);
    g.add("and.b" + N + " $d, " + a + ", " + b + ";", n, [](const Row& r) { return r[0] & r[1]; });
    g.add("or.b" + N + " $d, " + a + ", " + b + ";", n, [](const Row& r) { return r[0] | r[1]; });
    g.add("xor.b" + N + " $d, " + a + ", " + b + ";", n, [](const Row& r) { return r[0] ^ r[1]; });
    g.add("not.b" + N + " $d, " + a + ";", n, [](const Row& r) { return ~r[0]; });
    g.add("cnot.b" + N + " $d, " + a + ";", n, [=](const Row& r) { return uint64_t(u(r[0], n) == 0); });
  }
  g.add("and.pred $d, %q0, %q1;", 1, [](const Row& r) { return uint64_t(r[0] && r[1]); });
  g.add("or.pred $d, %q0, %q1;", 1, [](const Row& r) { return uint64_t(r[0] || r[1]); });
  g.add("xor.pred $d, %q0, %q1;", 1, [](const Row& r) { return uint64_t((r[0] != 0) != (r[1] != 0)); });
  g.add("not.pred $d, %q0;", 1, [](const Row& r) { return uint64_t(r[0] == 0); });
  check(g);
}

RC_GTEST_PROP(IntBitsProp, PrmtAndDotProducts, ()) {
  Group g;
  g.nin = 3;
  g.row = [] {
    return Row{*any_int(), *any_int(),
               *rc::gen::weightedOneOf<uint64_t>({{3, any_int()}, {1, rc::gen::map(rc::gen::inRange<int>(0, 16), [](int v) { return uint64_t(v); })}})};
  };
  auto byte = [](uint64_t v, uint64_t i) { return (v >> (8 * i)) & 0xff; };
  // Generic form: nibble i of c selects byte c_i & 7 of {b, a}; bit 3 replicates that byte's sign.
  g.add("prmt.b32 $d, %r0, %r1, %r2;", 32, [=](const Row& r) {
    uint64_t src = (u(r[1], 32) << 32) | u(r[0], 32), d = 0;
    for (uint64_t i = 0; i < 4; ++i) {
      uint64_t sel = (r[2] >> (4 * i)) & 0xf, v = byte(src, sel & 7);
      if (sel & 8) v = (v & 0x80) ? 0xff : 0;
      d |= v << (8 * i);
    }
    return d;
  });
  // The modes, from their descriptions (s = c & 3): f4e the 4 bytes starting at s; b4e bytes s, s-1,
  // s-2, s-3 (mod 8); rc8 byte s everywhere; ecl byte max(i, s); ecr byte min(i, s); rc16 halfword
  // s & 1 twice.
  const char* modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  for (int m = 0; m < 6; ++m)
    g.add(std::string("prmt.b32.") + modes[m] + " $d, %r0, %r1, %r2;", 32, [=](const Row& r) {
      uint64_t src = (u(r[1], 32) << 32) | u(r[0], 32), sl = r[2] & 3, d = 0;
      for (uint64_t i = 0; i < 4; ++i) {
        uint64_t k = 0;
        switch (m) {
          case 0: k = sl + i; break;
          case 1: k = (sl + 8 - i) % 8; break;
          case 2: k = sl; break;
          case 3: k = std::max(i, sl); break;
          case 4: k = std::min(i, sl); break;
          case 5: k = 2 * (sl & 1) + (i & 1); break;
        }
        d |= byte(src, k) << (8 * i);
      }
      return d;
    });
  // dp4a / dp2a, every signedness.
  for (int as = 0; as < 2; ++as)
    for (int bs = 0; bs < 2; ++bs) {
      std::string ty = std::string(as ? ".s32" : ".u32") + (bs ? ".s32" : ".u32");
      auto el = [](uint64_t v, int w, int i, bool sg) { return sg ? s(v >> (w * i), w) : int64_t(u(v >> (w * i), w)); };
      g.add("dp4a" + ty + " $d, %r0, %r1, %r2;", 32, [=](const Row& r) {
        int64_t acc = int64_t(u(r[2], 32));
        for (int i = 0; i < 4; ++i) acc += el(r[0], 8, i, as) * el(r[1], 8, i, bs);
        return uint64_t(acc);
      });
      for (int hi = 0; hi < 2; ++hi)
        g.add(std::string("dp2a.") + (hi ? "hi" : "lo") + ty + " $d, %r0, %r1, %r2;", 32, [=](const Row& r) {
          int64_t acc = int64_t(u(r[2], 32));
          for (int i = 0; i < 2; ++i) acc += el(r[0], 16, i, as) * el(r[1], 8, 2 * hi + i, bs);
          return uint64_t(acc);
        });
    }
  check(g);
}

// All 256 lookup tables, and the predicate forms.
RC_GTEST_PROP(IntBitsProp, Lop3EveryLookupTable, ()) {
  Group g;
  g.nin = 4;
  g.row = rows_of(4, [](size_t) { return any_int(); });
  auto F = [](const Row& r, uint64_t lut) {
    uint64_t d = 0;
    for (int i = 0; i < 32; ++i) d |= bit(lut, int(bit(r[0], i) * 4 + bit(r[1], i) * 2 + bit(r[2], i))) << i;
    return d;
  };
  for (uint64_t lut = 0; lut < 256; ++lut)
    g.add("lop3.b32 $d, %r0, %r1, %r2, " + std::to_string(lut) + ";", 32, [=](const Row& r) { return F(r, lut); });
  for (uint64_t lut : {0x00ull, 0x80ull, 0x96ull, 0xfeull, 0x3full})
    for (int is_and = 0; is_and < 2; ++is_and)
      for (int neg = 0; neg < 2; ++neg) {
        std::string q = neg ? "!%q3" : "%q3";
        g.add(std::string("lop3.") + (is_and ? "and" : "or") + ".b32 _|$d, %r0, %r1, %r2, " + std::to_string(lut) + ", " + q + ";", 1,
              [=](const Row& r) {
                bool t = F(r, lut) != 0, qb = (r[3] != 0) != bool(neg);
                return uint64_t(is_and ? (t && qb) : (t || qb));
              });
      }
  check(g);
}

// ---- comparisons ---------------------------------------------------------------------------------------------

const char* kIntCmp[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
const char* kFpCmp[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

// A comparison operator, decoded once: the relation, whether it is an unsigned integer operator
// (lo ls hi hs) and whether it is an unordered float one (equ ... geu).
struct CmpOp {
  enum Rel { Eq, Ne, Lt, Le, Gt, Ge, Num, Nan } rel;
  bool uns = false, unord = false;
};
CmpOp cmp_op(const std::string& op) {
  static const char* rels[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  static const char* uns[] = {"eq", "ne", "lo", "ls", "hi", "hs"};
  if (op == "num") return {CmpOp::Num};
  if (op == "nan") return {CmpOp::Nan};
  for (int i = 0; i < 6; ++i) {
    if (op == rels[i]) return {CmpOp::Rel(i)};
    if (op == uns[i]) return {CmpOp::Rel(i), true};
    if (op == std::string(rels[i]) + "u") return {CmpOp::Rel(i), false, true};
  }
  return {CmpOp::Eq};
}
template <class V>
bool relation(CmpOp::Rel r, V x, V y) {
  switch (r) {
    case CmpOp::Eq: return x == y;
    case CmpOp::Ne: return x != y;
    case CmpOp::Lt: return x < y;
    case CmpOp::Le: return x <= y;
    case CmpOp::Gt: return x > y;
    case CmpOp::Ge: return x >= y;
    default: return false;
  }
}
bool int_cmp(CmpOp op, uint64_t a, uint64_t b, int n, bool sg) {
  bool signed_view = sg && !op.uns;
  return relation(op.rel, val(a, n, signed_view), val(b, n, signed_view));
}

// A float as (is NaN, order key): keys of non-NaN values compare like the values (-0 and +0 equal).
struct FKey {
  bool nan;
  int64_t key;
};
// exp_bits/man_bits describe the format; ftz flushes subnormals.
FKey fkey(uint64_t v, int exp_bits, int man_bits, bool ftz) {
  int n = 1 + exp_bits + man_bits;
  uint64_t mag = u(v, n - 1), inf = mask(exp_bits) << man_bits;
  bool neg = bit(v, n - 1);
  if (mag > inf) return {true, 0};
  if (ftz && (mag >> man_bits) == 0) mag = 0;
  return {false, neg ? -int64_t(mag) : int64_t(mag)};
}
bool fp_cmp(CmpOp op, FKey a, FKey b) {
  bool un = a.nan || b.nan;
  if (op.rel == CmpOp::Num) return !un;
  if (op.rel == CmpOp::Nan) return un;
  if (un) return op.unord;
  return relation(op.rel, a.key, b.key);
}

struct FType {
  const char* name;
  int bits, exp_bits, man_bits;
  bool can_ftz;
};
const FType kF32{"f32", 32, 8, 23, true}, kF64{"f64", 64, 11, 52, false}, kF16{"f16", 16, 5, 10, true},
    kBF16{"bf16", 16, 8, 7, false};

RC_GTEST_PROP(CompareProp, SetpAndSetOnIntegers, ()) {
  Group g;
  g.nin = 3;
  g.row = [] {
    uint64_t a = *any_int();
    return Row{a, near(a, any_int()), *rc::gen::inRange<uint64_t>(0, 2)};
  };
  const char* types[] = {"b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"};
  for (const char* T : types) {
    int n = std::stoi(T + 1);
    bool sg = T[0] == 's';
    for (const char* op : kIntCmp) {
      std::string o = op;
      CmpOp c = cmp_op(o);
      g.add("setp." + o + "." + T + " $d, " + R(0, n) + ", " + R(1, n) + ";", 1,
            [=](const Row& r) { return uint64_t(int_cmp(c, r[0], r[1], n, sg)); });
    }
    // combiners, the complement destination, and set's destination types
    const CmpOp kLt = cmp_op("lt"), kGe = cmp_op("ge"), kLe = cmp_op("le"), kNe = cmp_op("ne"), kHs = cmp_op("hs");
    g.add(std::string("setp.lt.and.") + T + " _|$d, " + R(0, n) + ", " + R(1, n) + ", %q2;", 1,
          [=](const Row& r) { return uint64_t(!int_cmp(kLt, r[0], r[1], n, sg) && r[2]); });
    g.add(std::string("setp.ge.xor.") + T + " $d, " + R(0, n) + ", " + R(1, n) + ", !%q2;", 1,
          [=](const Row& r) { return uint64_t(int_cmp(kGe, r[0], r[1], n, sg) != (r[2] == 0)); });
    g.add(std::string("set.le.u32.") + T + " $d, " + R(0, n) + ", " + R(1, n) + ";", 32,
          [=](const Row& r) { return int_cmp(kLe, r[0], r[1], n, sg) ? 0xffffffffull : 0; });
    g.add(std::string("set.ne.or.f32.") + T + " $d, " + R(0, n) + ", " + R(1, n) + ", %q2;", 32,
          [=](const Row& r) { return int_cmp(kNe, r[0], r[1], n, sg) || r[2] ? 0x3f800000ull : 0; });
    g.add(std::string("set.hs.s32.") + T + " $d, " + R(0, n) + ", " + R(1, n) + ";", 32,
          [=](const Row& r) { return int_cmp(kHs, r[0], r[1], n, sg) ? 0xffffffffull : 0; });
  }
  check(g);
}

// setp / set on one float type: every comparison, with and without .ftz and combiners.
void add_float_compares(Group& g, const FType& f) {
  int n = f.bits;
  std::string T = f.name, a = R(0, n), b = R(1, n);
  for (int ftz = 0; ftz < (f.can_ftz ? 2 : 1); ++ftz)
    for (const char* op : kFpCmp) {
      std::string o = op, F = ftz ? ".ftz" : "";
      CmpOp c = cmp_op(o);
      auto t = [=](const Row& r) {
        return fp_cmp(c, fkey(r[0], f.exp_bits, f.man_bits, ftz), fkey(r[1], f.exp_bits, f.man_bits, ftz));
      };
      g.add("setp." + o + F + "." + T + " $d, " + a + ", " + b + ";", 1, [=](const Row& r) { return uint64_t(t(r)); });
      g.add("setp." + o + ".or" + F + "." + T + " _|$d, " + a + ", " + b + ", %q2;", 1,
            [=](const Row& r) { return uint64_t(!t(r) || r[2]); });
      // set.f16.f16 exists, set.bf16.bf16 does not (bf16 sources set .u16/.s16/.u32/.s32).
      std::string dt = n == 16 ? (T == "f16" ? "f16" : "s16") : "f32";
      uint64_t one = dt == "f16" ? 0x3c00 : dt == "s16" ? 0xffff : 0x3f800000;
      g.add("set." + o + ".and" + F + "." + dt + "." + T + " $d, " + a + ", " + b + ", %q2;", n == 16 ? 16 : 32,
            [=](const Row& r) { return t(r) && r[2] ? one : 0; });
      g.add("set." + o + F + ".s32." + T + " $d, " + a + ", " + b + ";", 32, [=](const Row& r) { return t(r) ? 0xffffffffull : 0; });
    }
}

RC_GTEST_PROP(CompareProp, SetpAndSetOnF32F64, ()) {
  Group g;
  g.nin = 5;
  g.row = [] {
    uint64_t a = *f32_bits(), c = *f64_bits();
    return Row{a, near(a, f32_bits()), *rc::gen::inRange<uint64_t>(0, 2), c, near(c, f64_bits())};
  };
  add_float_compares(g, kF32);
  Group g64;  // the same on inputs 3 and 4
  add_float_compares(g64, kF64);
  for (Out& o : g64.outs) {
    for (size_t at; (at = o.ptx.find("%rd0")) != std::string::npos;) o.ptx.replace(at, 4, "%rd3");
    for (size_t at; (at = o.ptx.find("%rd1")) != std::string::npos;) o.ptx.replace(at, 4, "%rd4");
    auto ref = o.ref;
    o.ref = [ref](const Row& r) { return ref(Row{r[3], r[4], r[2]}); };
    g.outs.push_back(o);
  }
  check(g);
}

RC_GTEST_PROP(CompareProp, HalfPrecisionScalarsAndPairs, ()) {
  Group g;
  g.nin = 5;
  g.row = [] {
    uint64_t a = *h16x2_bits(false), c = *h16x2_bits(true);
    return Row{a, near(a, h16x2_bits(false)), *rc::gen::inRange<uint64_t>(0, 2), c, near(c, h16x2_bits(true))};
  };
  add_float_compares(g, kF16);
  Group gb;
  add_float_compares(gb, kBF16);
  for (Out& o : gb.outs) {
    for (size_t at; (at = o.ptx.find("%h0")) != std::string::npos;) o.ptx.replace(at, 3, "%h3");
    for (size_t at; (at = o.ptx.find("%h1")) != std::string::npos;) o.ptx.replace(at, 3, "%h4");
    auto ref = o.ref;
    o.ref = [ref](const Row& r) { return ref(Row{r[3], r[4], r[2]}); };
    g.outs.push_back(o);
  }
  // Pairs: both halves, p from the low half and q from the high half.
  for (int bf = 0; bf < 2; ++bf) {
    const FType& f = bf ? kBF16 : kF16;
    std::string T = std::string(f.name) + "x2", a = bf ? "%r3" : "%r0", b = bf ? "%r4" : "%r1";
    size_t ia = bf ? 3 : 0, ib = bf ? 4 : 1;
    for (int ftz = 0; ftz < (bf ? 1 : 2); ++ftz)
      for (const char* op : kFpCmp) {
        std::string o = op, F = ftz ? ".ftz" : "";
        CmpOp c = cmp_op(o);
        auto t = [=](const Row& r, int half) {
          return fp_cmp(c, fkey(r[ia] >> (16 * half), f.exp_bits, f.man_bits, ftz),
                        fkey(r[ib] >> (16 * half), f.exp_bits, f.man_bits, ftz));
        };
        g.add("setp." + o + F + "." + T + " $d|_, " + a + ", " + b + ";", 1, [=](const Row& r) { return uint64_t(t(r, 0)); });
        g.add("setp." + o + ".xor" + F + "." + T + " _|$d, " + a + ", " + b + ", %q2;", 1,
              [=](const Row& r) { return uint64_t(t(r, 1) != (r[2] != 0)); });
        uint64_t one = bf ? 0x3f80 : 0x3c00;
        g.add("set." + o + F + "." + T + "." + T + " $d, " + a + ", " + b + ";", 32,
              [=](const Row& r) { return (t(r, 1) ? one << 16 : 0) | (t(r, 0) ? one : 0); });
        g.add("set." + o + ".and" + F + ".u32." + T + " $d, " + a + ", " + b + ", !%q2;", 32, [=](const Row& r) {
          bool c = r[2] == 0;
          return uint64_t((t(r, 1) && c ? 0xffff0000u : 0) | (t(r, 0) && c ? 0xffffu : 0));
        });
      }
  }
  check(g);
}

RC_GTEST_PROP(CompareProp, SelpAndSlctEveryType, ()) {
  Group g;
  g.nin = 4;
  g.row = [] { return Row{*any_int(), *any_int(), *rc::gen::inRange<uint64_t>(0, 2), *rc::gen::oneOf(any_int(), f32_bits())}; };
  const char* types[] = {"b16", "u16", "s16", "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64"};
  for (const char* T : types) {
    int n = std::stoi(T + 1);
    std::string a = R(0, n), b = R(1, n);
    g.add(std::string("selp.") + T + " $d, " + a + ", " + b + ", %q2;", n, [](const Row& r) { return r[2] ? r[0] : r[1]; });
    g.add(std::string("selp.") + T + " $d, " + a + ", " + b + ", !%q2;", n, [](const Row& r) { return r[2] ? r[1] : r[0]; });
    g.add(std::string("slct.") + T + ".s32 $d, " + a + ", " + b + ", %r3;", n,
          [](const Row& r) { return s(r[3], 32) >= 0 ? r[0] : r[1]; });
    for (int ftz = 0; ftz < 2; ++ftz)
      g.add(std::string("slct") + (ftz ? ".ftz." : ".") + T + ".f32 $d, " + a + ", " + b + ", %r3;", n, [=](const Row& r) {
        FKey c = fkey(r[3], 8, 23, ftz);
        return !c.nan && c.key >= 0 ? r[0] : r[1];
      });
  }
  check(g);
}

}  // namespace
}  // namespace ptxsim::inttest
