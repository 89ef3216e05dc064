// Integer ALU and comparison instructions (sim/sem/int_*.cpp, sim/sem/compare.cpp) through the public
// API: PTX text built in the test, ptxsim::load_program + ptxsim::launch on a GlobalMemory whose
// output buffer is poisoned with 0xAB, results compared with exact values worked out by hand from
// the PTX ISA. Also the load-time errors of malformed forms. The randomized properties against
// host references are in int_alu_prop_test.cpp; the harness below is shared with it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/api.h"

namespace ptxsim::inttest {

// ---- harness (also used by int_alu_prop_test.cpp) ---------------------------------------------------
//
// A test kernel gives every thread `nin` 8-byte input slots and `nout` 8-byte output slots. Input i
// is loaded into %h<i> (its low 16 bits), %r<i> (32), %rd<i> (64) and %q<i> (the predicate
// "input != 0"). The body computes output j into %o<j>, declared with the output's width (1 = .pred);
// the epilogue stores it (a predicate as the u32 0 or 1).

struct Kernel {
  std::shared_ptr<const Program> prog;
  size_t nin = 0;
  std::vector<int> out_bits;
};

std::string kernel_text(size_t nin, const std::vector<int>& out_bits, const std::string& body,
                        const std::string& target, const std::string& version) {
  size_t nout = out_bits.size();
  std::string s = ".version " + version + "\n.target " + target + "\n.address_size 64\n\n";
  s += ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n";
  size_t n = nin ? nin : 1;
  s += "  .reg .b16 %h<" + std::to_string(n) + ">;\n  .reg .b32 %r<" + std::to_string(n) + ">;\n";
  s += "  .reg .b64 %rd<" + std::to_string(n) + ">;\n  .reg .pred %q<" + std::to_string(n) + ">;\n";
  s += "  .reg .b32 %tid, %one, %zero;\n  .reg .b64 %in, %out, %off;\n";
  for (size_t j = 0; j < nout; ++j)
    s += "  .reg ." + (out_bits[j] == 1 ? std::string("pred") : "b" + std::to_string(out_bits[j])) + " %o" + std::to_string(j) + ";\n";
  s += "  ld.param.u64 %in, [k_in];\n  ld.param.u64 %out, [k_out];\n  mov.u32 %tid, %tid.x;\n";
  s += "  mov.b32 %one, 1;\n  mov.b32 %zero, 0;\n";
  s += "  mul.wide.u32 %off, %tid, " + std::to_string(8 * n) + ";\n  add.s64 %in, %in, %off;\n";
  s += "  mul.wide.u32 %off, %tid, " + std::to_string(8 * (nout ? nout : 1)) + ";\n  add.s64 %out, %out, %off;\n";
  for (size_t i = 0; i < nin; ++i) {
    std::string a = "[%in+" + std::to_string(8 * i) + "]", k = std::to_string(i);
    s += "  ld.global.b16 %h" + k + ", " + a + ";\n  ld.global.b32 %r" + k + ", " + a + ";\n";
    s += "  ld.global.b64 %rd" + k + ", " + a + ";\n  setp.ne.b64 %q" + k + ", %rd" + k + ", 0;\n";
  }
  s += body + "\n";
  for (size_t j = 0; j < nout; ++j) {
    std::string a = "[%out+" + std::to_string(8 * j) + "]", o = "%o" + std::to_string(j);
    if (out_bits[j] == 1)
      s += "  @" + o + " st.global.b32 " + a + ", %one;\n  @!" + o + " st.global.b32 " + a + ", %zero;\n";
    else
      s += "  st.global.b" + std::to_string(out_bits[j]) + " " + a + ", " + o + ";\n";
  }
  s += "  ret;\n}\n";
  return s;
}

Kernel build(size_t nin, const std::vector<int>& out_bits, const std::string& body, const std::string& target,
             const std::string& version) {
  Kernel k;
  k.prog = load_program(kernel_text(nin, out_bits, body, target, version), "int_alu_test.ptx");
  k.nin = nin;
  k.out_bits = out_bits;
  return k;
}

// Runs one CTA of `threads` threads; `in` holds threads × nin values. Returns threads × nout results,
// each truncated to its output's width (predicates as 0/1). Sets *error to a description of a run that
// did not complete.
std::vector<uint64_t> run(const Kernel& k, const std::vector<uint64_t>& in, uint32_t threads, std::string* error) {
  size_t nout = k.out_bits.size();
  size_t nin_slots = k.nin ? k.nin : 1, nout_slots = nout ? nout : 1;
  model::GlobalMemory mem;
  std::vector<uint64_t> inbuf(size_t(threads) * nin_slots, 0);
  for (size_t i = 0; i < in.size() && i < inbuf.size(); ++i) inbuf[i] = in[i];
  uint64_t a_in = mem.allocate(inbuf.size() * 8);
  mem.write(a_in, inbuf.data(), inbuf.size() * 8);
  std::vector<uint8_t> poison(size_t(threads) * nout_slots * 8, 0xAB);
  uint64_t a_out = mem.allocate(poison.size());
  mem.write(a_out, poison.data(), poison.size());
  std::vector<uint8_t> params(16);
  std::memcpy(params.data(), &a_in, 8);
  std::memcpy(params.data() + 8, &a_out, 8);
  LaunchConfig cfg;
  cfg.block.x = threads;
  cfg.max_seconds = 60;
  RunResult r = launch(*k.prog, "k", cfg, params, mem);
  std::vector<uint64_t> out(size_t(threads) * nout, 0);
  if (r.status != RunStatus::Completed) {
    if (error) *error = std::string("launch ") + to_string(r.status) + ": " + r.report;
    return out;
  }
  std::vector<uint64_t> raw(size_t(threads) * nout_slots);
  mem.read(a_out, raw.data(), raw.size() * 8);
  for (size_t t = 0; t < threads; ++t)
    for (size_t j = 0; j < nout; ++j) {
      int bits = k.out_bits[j] == 1 ? 32 : k.out_bits[j];
      uint64_t v = raw[t * nout_slots + j];
      uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
      out[t * nout + j] = v & m;  // an output never written reads as the poison 0xABAB...
    }
  return out;
}

// The message of the PtxError that loading the kernel throws ("" if it loads).
std::string load_error(size_t nin, const std::vector<int>& out_bits, const std::string& body, const std::string& target,
                       const std::string& version) {
  try {
    build(nin, out_bits, body, target, version);
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// build() + run(), compiling each distinct kernel once (property tests launch the same kernel with
// new inputs on every iteration).
std::vector<uint64_t> run_cached(size_t nin, const std::vector<int>& out_bits, const std::string& body,
                                 const std::vector<uint64_t>& in, uint32_t threads, std::string* error) {
  static std::mutex mu;
  static std::map<std::string, Kernel> cache;
  std::string key = std::to_string(nin) + "|";
  for (int b : out_bits) key += std::to_string(b) + ",";
  key += "|" + body;
  Kernel k;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, build(nin, out_bits, body, "sm_90a", "8.7")).first;
    k = it->second;
  }
  return run(k, in, threads, error);
}

}  // namespace ptxsim::inttest

namespace ptxsim::inttest {
namespace {

// Runs `body` for one thread per row of `in` and returns the outputs row by row.
std::vector<std::vector<uint64_t>> rows(size_t nin, const std::vector<int>& out_bits, const std::string& body,
                                        const std::vector<std::vector<uint64_t>>& in) {
  Kernel k = build(nin, out_bits, body, "sm_90a", "8.7");
  std::vector<uint64_t> flat;
  for (auto& r : in) {
    EXPECT_EQ(r.size(), nin);
    flat.insert(flat.end(), r.begin(), r.end());
  }
  std::string err;
  auto out = run(k, flat, uint32_t(in.size()), &err);
  EXPECT_EQ(err, "");
  std::vector<std::vector<uint64_t>> res;
  for (size_t t = 0; t < in.size(); ++t)
    res.emplace_back(out.begin() + long(t * out_bits.size()), out.begin() + long((t + 1) * out_bits.size()));
  return res;
}
uint64_t f32(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t f64(double d) { return std::bit_cast<uint64_t>(d); }
constexpr uint64_t kNaN32 = 0x7fc00000, kSNaN32 = 0x7f800001, kInf32 = 0x7f800000;

#define EXPECT_ERROR_HAS(nin, outs, body, text)                        \
  do {                                                                 \
    std::string e_ = load_error(nin, outs, body, "sm_90a", "8.7");     \
    EXPECT_FALSE(e_.empty()) << body;                                  \
    EXPECT_NE(e_.find(text), std::string::npos) << "error was: " << e_; \
  } while (0)

// ---- arithmetic --------------------------------------------------------------------------------------

TEST(IntAlu, AddSubWrapAndSaturate) {
  auto r = rows(2, {32, 32, 32, 32, 16, 64},
                "add.s32 %o0, %r0, %r1;\n add.sat.s32 %o1, %r0, %r1;\n sub.sat.s32 %o2, %r0, %r1;\n"
                "sub.u32 %o3, %r0, %r1;\n add.u16 %o4, %h0, %h1;\n sub.s64 %o5, %rd0, %rd1;",
                {{0x7fffffff, 1}, {0x80000000, 0xffffffff}, {5, 7}, {0xffff, 1}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x80000000, 0x7fffffff, 0x7ffffffe, 0x7ffffffe, 0x0000, 0x7ffffffe}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0x7fffffff, 0x80000000, 0x80000001, 0x80000001, 0xffff, 0xffffffff80000001ull}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{12, 12, 0xfffffffe, 0xfffffffe, 12, 0xfffffffffffffffeull}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0x10000, 0x10000, 0xfffe, 0xfffe, 0, 0xfffe}));
}

TEST(IntAlu, PackedHalfwordAddMinMax) {
  auto r = rows(2, {32, 32, 32, 32, 32, 32},
                "add.u16x2 %o0, %r0, %r1;\n add.s16x2 %o1, %r0, %r1;\n min.s16x2 %o2, %r0, %r1;\n"
                "max.u16x2 %o3, %r0, %r1;\n min.relu.s16x2 %o4, %r0, %r1;\n max.relu.s32 %o5, %r0, %r1;",
                {{0x8000ffff, 0x80000002}, {0x00057fff, 0xfffe0001}});
  // halves (hi, lo): a = (0x8000, 0xffff), b = (0x8000, 0x0002)
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x00000001, 0x00000001, 0x8000ffff, 0x8000ffff, 0x00000000, 0}));
  // a = (5, 0x7fff), b = (-2, 1)
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0x00038000, 0x00038000, 0xfffe0001, 0xfffe7fff, 0x00000001, 0x00057fff}));
}

TEST(IntAlu, MulHiOfNegativeNumbersAndWide) {
  auto r = rows(2, {32, 32, 64, 64, 16, 32, 64, 64},
                "mul.hi.s32 %o0, %r0, %r1;\n mul.hi.u32 %o1, %r0, %r1;\n mul.hi.s64 %o2, %rd0, %rd1;\n"
                "mul.hi.u64 %o3, %rd0, %rd1;\n mul.hi.s16 %o4, %h0, %h1;\n mul.wide.u16 %o5, %h0, %h1;\n"
                "mul.wide.s32 %o6, %r0, %r1;\n mul.lo.s64 %o7, %rd0, %rd1;",
                {{0xffffffffffffffffull, 0xffffffffffffffffull},
                 {0xfffffffffffffffeull, 3},
                 {0x8000000000008000ull, 0x8000000000008000ull}});
  // -1 * -1 = 1; 0xffffffff^2 = 0xfffffffe00000001; (2^64-1)^2 = 0xfffffffffffffffe_0000000000000001
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0, 0xfffffffe, 0, 0xfffffffffffffffeull, 0, 0xfffe0001, 1, 1}));
  // -2 * 3 = -6
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0xffffffff, 2, 0xffffffffffffffffull, 2, 0xffff, 0x2fffa, 0xfffffffffffffffaull,
                                         0xfffffffffffffffaull}));
  // s32: 0x8000 * 0x8000 = 2^30; s64: (-2^63 + 2^15)^2 = 2^126 - 2^79 + 2^30; s16: (-2^15)^2 = 2^30
  EXPECT_EQ(r[2][0], 0u);
  EXPECT_EQ(r[2][2], 0x3fffffffffff8000ull);
  EXPECT_EQ(r[2][4], 0x4000u);
  EXPECT_EQ(r[2][5], 0x40000000u);
  EXPECT_EQ(r[2][6], 0x40000000u);
}

TEST(IntAlu, MadForms) {
  auto r = rows(3, {32, 32, 64, 32, 32, 16},
                "mad.lo.s32 %o0, %r0, %r1, %r2;\n mad.hi.u32 %o1, %r0, %r1, %r2;\n mad.wide.s32 %o2, %r0, %r1, %rd2;\n"
                "mad.hi.sat.s32 %o3, %r0, %r1, %r2;\n mad24.hi.sat.s32 %o4, %r0, %r1, %r2;\n mad.lo.u16 %o5, %h0, %h1, %h2;",
                {{0x80000000, 0x80000000, 0x7fffffff}, {3, 0xfffffffb, 0xfffffffffffffff0ull}});
  // (-2^31)^2 = 2^62: hi = 2^30; 2^30 + 0x7fffffff saturates. 24-bit: a, b -> 0; hi 0 + max.
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x7fffffff, 0x40000000 + 0x7fffffffu, 0x400000007fffffffull, 0x7fffffff, 0x7fffffff,
                                         0xffff}));
  // 3 * -5 = -15: lo + (-16) = -31; hi.u32 of 3 * 0xfffffffb = 2, + 0xfffffff0 = 0xfffffff2; wide -15 + -16.
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0xffffffe1, 0xfffffff2, 0xffffffffffffffe1ull, 0xffffffef, 0xffffffef, 0xffe1}));
}

TEST(IntAlu, Mul24UsesLow24Bits) {
  auto r = rows(2, {32, 32, 32, 32}, "mul24.lo.u32 %o0, %r0, %r1;\n mul24.hi.u32 %o1, %r0, %r1;\n"
                                     "mul24.lo.s32 %o2, %r0, %r1;\n mul24.hi.s32 %o3, %r0, %r1;",
                {{0xff800000, 0x00000002}, {0x12ffffff, 0x34ffffff}});
  // u: 0x800000 * 2 = 0x1000000; s: -2^23 * 2 = -2^24
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x01000000, 0x00000100, 0xff000000, 0xffffff00}));
  // u: 0xffffff^2 = 0xfffffe000001; s: (-1)^2 = 1
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0xfe000001, 0xfffffe00, 1, 0}));
}

TEST(IntAlu, DivRemByZeroAndOverflow) {
  auto r = rows(2, {32, 32, 32, 32, 64, 64, 16, 16},
                "div.u32 %o0, %r0, %r1;\n rem.u32 %o1, %r0, %r1;\n div.s32 %o2, %r0, %r1;\n rem.s32 %o3, %r0, %r1;\n"
                "div.s64 %o4, %rd0, %rd1;\n rem.s64 %o5, %rd0, %rd1;\n div.s16 %o6, %h0, %h1;\n rem.s16 %o7, %h0, %h1;",
                {{5, 0},
                 {0x8000000000000000ull, ~0ull},
                 {0x80000000, 0xffffffff},
                 {0x8000, 0xffff},
                 {0xfffffffffff9fff9ull, 2}});
  // by zero: all ones at every width
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, ~0ull, ~0ull, 0xffff, 0xffff}));
  // MIN / -1 = MIN, MIN % -1 = 0, at each width
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0, 0, 0, 0, 0x8000000000000000ull, 0, 0, 0}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0, 0x80000000, 0x80000000, 0, 0, 0x80000000, 0, 0}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0, 0x8000, 0, 0x8000, 0, 0x8000, 0x8000, 0}));
  // negative dividends truncate toward zero: -393223 / 2 = -196611 rem -1; -7 / 2 = -3 rem -1
  EXPECT_EQ(r[4], (std::vector<uint64_t>{0x7ffcfffc, 1, 0xfffcfffd, 0xffffffff, 0xfffffffffffcfffdull, 0xffffffffffffffffull,
                                         0xfffd, 0xffff}));
}

TEST(IntAlu, AbsNegSadMinMax) {
  auto r = rows(3, {32, 32, 16, 32, 32, 64, 64},
                "abs.s32 %o0, %r0;\n neg.s32 %o1, %r0;\n abs.s16 %o2, %h0;\n sad.s32 %o3, %r0, %r1, %r2;\n"
                "sad.u32 %o4, %r0, %r1, %r2;\n min.s64 %o5, %rd0, %rd1;\n max.u64 %o6, %rd0, %rd1;",
                {{0x80000000, 1, 10}, {0xfffffffffffffffbull, 3, 0}});
  // |MIN| = MIN; sad.s32: |-2^31 - 1| = 2^31+1 (wraps) + 10; sad.u32: 0x7fffffff + 10
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x80000000, 0x80000000, 0, 0x8000000b, 0x80000009, 1, 0x80000000}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{5, 5, 5, 8, 0xfffffff8, 0xfffffffffffffffbull, 0xfffffffffffffffbull}));
}

TEST(IntAlu, CarryChains128Bit) {
  // [o3 o2 o1 o0] = [a3 a2 a1 a0] + [b3 b2 b1 b0] with add.cc / addc.cc / addc, and the same with sub.
  std::string add = "add.cc.u32 %o0, %r0, %r4;\n addc.cc.u32 %o1, %r1, %r5;\n addc.cc.u32 %o2, %r2, %r6;\n addc.u32 %o3, %r3, %r7;\n";
  std::string sub = "sub.cc.u32 %o4, %r0, %r4;\n subc.cc.u32 %o5, %r1, %r5;\n subc.cc.u32 %o6, %r2, %r6;\n subc.u32 %o7, %r3, %r7;\n";
  auto r = rows(8, std::vector<int>(8, 32), add + sub,
                {{0xffffffff, 0xffffffff, 0xffffffff, 0x7fffffff, 1, 0, 0, 0},
                 {0, 0, 0, 0, 1, 0, 0, 0},
                 {5, 6, 7, 8, 1, 2, 3, 4}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0, 0, 0, 0x80000000, 0xfffffffe, 0xffffffff, 0xffffffff, 0x7fffffff}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{1, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{6, 8, 10, 12, 4, 4, 4, 4}));
}

TEST(IntAlu, CarryFlagIsPerLaneAndSurvivesDivergence) {
  // Even lanes produce a carry, odd lanes do not; a branch between the two halves of the chain
  // must not mix them.
  std::string body = R"(
    .reg .b32 %lane;
    .reg .pred %odd;
    add.cc.u32 %o0, %r0, %r1;
    and.b32 %lane, %tid, 1;
    setp.ne.u32 %odd, %lane, 0;
    @%odd bra ODD;
    addc.u32 %o1, 0, 0;
    bra DONE;
  ODD:
    addc.u32 %o1, 100, 0;
  DONE:
    addc.cc.u64 %o2, %rd0, %rd1;
    addc.u64 %o3, 0, 0;)";
  std::vector<std::vector<uint64_t>> in;
  for (int t = 0; t < 64; ++t) in.push_back(t % 2 ? std::vector<uint64_t>{1, 2} : std::vector<uint64_t>{0xffffffff, 1});
  auto r = rows(2, {32, 32, 64, 64}, body, in);
  for (int t = 0; t < 64; ++t) {
    if (t % 2) EXPECT_EQ(r[t], (std::vector<uint64_t>{3, 100, 3, 0})) << t;
    // even: the carry (1) reaches both addc; addc without .cc leaves it set for the 64-bit addc.cc
    else EXPECT_EQ(r[t], (std::vector<uint64_t>{0, 1, 0x100000001ull, 0})) << t;
  }
}

TEST(IntAlu, MultiWordMultiplyWithMadCc) {
  // The ISA's example: [r3,r2,r1,r0] = [r5,r4] * [r7,r6].
  std::string body = R"(
    mul.lo.u32     %o0, %r0, %r2;
    mul.hi.u32     %o1, %r0, %r2;
    mad.lo.cc.u32  %o1, %r1, %r2, %o1;
    madc.hi.u32    %o2, %r1, %r2, 0;
    mad.lo.cc.u32  %o1, %r0, %r3, %o1;
    madc.hi.cc.u32 %o2, %r0, %r3, %o2;
    addc.u32       %o3, 0, 0;
    mad.lo.cc.u32  %o2, %r1, %r3, %o2;
    madc.hi.u32    %o3, %r1, %r3, %o3;)";
  auto r = rows(4, {32, 32, 32, 32}, body,
                {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0x89abcdef, 0x01234567, 0x76543210, 0xfedcba98}});
  // (2^64-1)^2 = 0xfffffffffffffffe0000000000000001
  EXPECT_EQ(r[0], (std::vector<uint64_t>{1, 0, 0xfffffffe, 0xffffffff}));
  unsigned __int128 p = (unsigned __int128)0x0123456789abcdefull * 0xfedcba9876543210ull;
  EXPECT_EQ(r[1], (std::vector<uint64_t>{uint32_t(p), uint32_t(p >> 32), uint32_t(p >> 64), uint32_t(p >> 96)}));
}

// ---- bits ------------------------------------------------------------------------------------------

TEST(IntBits, PrmtEveryMode) {
  // Source bytes {b, a}: b7..b0 = 88 77 66 55 | 44 33 22 11.
  const char* modes[] = {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
  std::string body;
  for (int m = 1; m < 7; ++m)
    for (int s = 0; s < 4; ++s)
      body += "prmt.b32" + std::string(modes[m]) + " %o" + std::to_string((m - 1) * 4 + s) + ", %r0, %r1, " +
              std::to_string(s + 0xfffffff0u) + ";\n";  // bits above c[1:0] are ignored
  auto r = rows(2, std::vector<int>(24, 32), body, {{0x44332211, 0x88776655}})[0];
  std::vector<uint64_t> want = {
      0x44332211, 0x55443322, 0x66554433, 0x77665544,  // f4e
      0x66778811, 0x77881122, 0x88112233, 0x11223344,  // b4e
      0x11111111, 0x22222222, 0x33333333, 0x44444444,  // rc8
      0x44332211, 0x44332222, 0x44333333, 0x44444444,  // ecl
      0x11111111, 0x22222211, 0x33332211, 0x44332211,  // ecr
      0x22112211, 0x44334433, 0x22112211, 0x44334433,  // rc16
  };
  EXPECT_EQ(r, want);
}

TEST(IntBits, PrmtGenericWithSignReplication) {
  auto r = rows(3, {32}, "prmt.b32 %o0, %r0, %r1, %r2;",
                {{0x44332211, 0x88776655, 0x3210},
                 {0x44332211, 0x88776655, 0xabcd7654},
                 {0x44332211, 0x88776655, 0x0123},
                 {0x44332211, 0x88776655, 0x8888},
                 {0x44332211, 0x88776655, 0xffff},
                 {0x44332211, 0x88776655, 0x000f},
                 {0x44332281, 0x88776655, 0x0c48}});
  std::vector<uint64_t> want = {0x44332211, 0x88776655, 0x11223344, 0, 0xffffffff, 0x111111ff, 0x810055ff};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r[i][0], want[i]) << i;
}

TEST(IntBits, BfeSignExtensionAndClamping) {
  std::string body = "bfe.s32 %o0, %r0, %r1, %r2;\n bfe.u32 %o1, %r0, %r1, %r2;\n bfe.s64 %o2, %rd0, %r1, %r2;\n"
                     "bfe.u64 %o3, %rd0, %r1, %r2;";
  auto r = rows(3, {32, 32, 64, 64}, body,
                {{0xf0, 4, 4},                    // field 0xf, sign 1
                 {0x80000000, 28, 8},             // field runs past the msb: sign = bit 31
                 {0x80000000, 40, 4},             // start past the msb: all sign bits
                 {0x7fffffff, 40, 4},
                 {0xffffffff, 4, 0},              // len 0: 0
                 {0x0000000000000f00ull, 0x108, 0x104},  // pos/len use only their low 8 bits
                 {0x8000000000000000ull, 60, 10}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0xffffffff, 0xf, ~0ull, 0xf}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0xfffffff8, 0x8, 0x8, 0x8}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0xffffffff, 0, 0, 0}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(r[4], (std::vector<uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(r[5], (std::vector<uint64_t>{0xffffffff, 0xf, ~0ull, 0xf}));
  EXPECT_EQ(r[6], (std::vector<uint64_t>{0, 0, 0xfffffffffffffff8ull, 0x8}));
}

TEST(IntBits, BfiClipsAtTheMsb) {
  auto r = rows(4, {32, 64}, "bfi.b32 %o0, %r0, %r1, %r2, %r3;\n bfi.b64 %o1, %rd0, %rd1, %r2, %r3;",
                {{0xab, 0x11111111, 8, 8}, {0xffff, 0, 28, 8}, {0xffff, 0x1234, 32, 8}, {0xffff, 0x1234, 4, 0}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x1111ab11, 0x1111ab11}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0xf0000000, 0xff0000000ull}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0x1234, 0xff00001234ull}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0x1234, 0x1234}));
}

TEST(IntBits, ShfClampAndWrap) {
  std::string body = "shf.l.clamp.b32 %o0, %r0, %r1, %r2;\n shf.l.wrap.b32 %o1, %r0, %r1, %r2;\n"
                     "shf.r.clamp.b32 %o2, %r0, %r1, %r2;\n shf.r.wrap.b32 %o3, %r0, %r1, %r2;";
  auto r = rows(3, {32, 32, 32, 32}, body,
                {{0x89abcdef, 0x01234567, 4}, {0x89abcdef, 0x01234567, 32}, {0x89abcdef, 0x01234567, 40},
                 {0x89abcdef, 0x01234567, 33}, {0x89abcdef, 0x01234567, 0}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x12345678, 0x12345678, 0x789abcde, 0x789abcde}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0x89abcdef, 0x01234567, 0x01234567, 0x89abcdef}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0x89abcdef, 0x23456789, 0x01234567, 0x6789abcd}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0x89abcdef, 0x02468acf, 0x01234567, 0xc4d5e6f7}));
  EXPECT_EQ(r[4], (std::vector<uint64_t>{0x01234567, 0x01234567, 0x89abcdef, 0x89abcdef}));
}

TEST(IntBits, ShiftAmountsClampToTheWidth) {
  std::string body = "shl.b32 %o0, %r0, %r1;\n shr.u32 %o1, %r0, %r1;\n shr.s32 %o2, %r0, %r1;\n"
                     "shl.b16 %o3, %h0, %r1;\n shr.s16 %o4, %h0, %r1;\n shr.s64 %o5, %rd0, %r1;\n shl.b64 %o6, %rd0, %r1;";
  auto r = rows(2, {32, 32, 32, 16, 16, 64, 64}, body,
                {{0x80000001, 1}, {0x80000001, 32}, {0x80000001, 0xffffffff}, {0x8000000000008001ull, 16},
                 {0x8000000000008001ull, 64}, {0x8000000000008001ull, 0x100000000ull}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{2, 0x40000000, 0xc0000000, 2, 0, 0x40000000, 0x100000002ull}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0, 0, 0xffffffff, 0, 0, 0, 0x8000000100000000ull}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0, 0, 0xffffffff, 0, 0, 0, 0}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0x80010000, 0, 0, 0, 0xffff, 0xffff800000000000ull, 0x80010000}));
  EXPECT_EQ(r[4], (std::vector<uint64_t>{0, 0, 0, 0, 0xffff, 0xffffffffffffffffull, 0}));
  // the amount is the low 32 bits of the operand: 0x100000000 reads as 0
  EXPECT_EQ(r[5], (std::vector<uint64_t>{0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8000000000008001ull,
                                         0x8000000000008001ull}));
}

TEST(IntBits, CountsAndBfind) {
  std::string body = "popc.b32 %o0, %r0;\n popc.b64 %o1, %rd0;\n clz.b32 %o2, %r0;\n clz.b64 %o3, %rd0;\n"
                     "bfind.u32 %o4, %r0;\n bfind.s32 %o5, %r0;\n bfind.shiftamt.u32 %o6, %r0;\n"
                     "bfind.s64 %o7, %rd0;\n bfind.shiftamt.s64 %o8, %rd0;\n brev.b32 %o9, %r0;\n brev.b64 %o10, %rd0;";
  auto r = rows(1, std::vector<int>{32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 64}, body,
                {{0}, {0xffffffffffffffffull}, {0x00000000f0000001ull}, {0x0000000000010000ull}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0, 0, 32, 64, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0, 0}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{32, 64, 0, 0, 31, 0xffffffff, 0, 0xffffffff, 0xffffffff, 0xffffffff, ~0ull}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{5, 5, 0, 32, 31, 27, 0, 31, 32, 0x8000000f, 0x8000000f00000000ull}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{1, 1, 15, 47, 16, 16, 15, 16, 47, 0x00008000, 0x0000800000000000ull}));
}

TEST(IntBits, BmskAndSzextModes) {
  std::string body = "bmsk.clamp.b32 %o0, %r0, %r1;\n bmsk.wrap.b32 %o1, %r0, %r1;\n"
                     "szext.clamp.s32 %o2, %r2, %r1;\n szext.wrap.s32 %o3, %r2, %r1;\n szext.clamp.u32 %o4, %r2, %r1;\n"
                     "szext.wrap.u32 %o5, %r2, %r1;";
  auto r = rows(3, std::vector<int>(6, 32), body,
                {{1, 2, 0xff}, {0, 32, 0x80}, {33, 3, 0x12345678}, {28, 8, 0xfffffff0}, {4, 0, 0xff}, {0, 8, 0x180}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x6, 0x6, 0xffffffff, 0xffffffff, 0x3, 0x3}));
  // clamp: width 32 overflows -> mask from 0 up; wrap: width 0 -> 0. szext width 32: clamp keeps a, wrap gives 0.
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0xffffffff, 0, 0x80, 0, 0x80, 0}));
  // clamp: position 33 -> 0; wrap: position 1, width 3 -> 0xe
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0, 0xe, 0, 0, 0, 0}));
  // 28 + 8 > 32: the mask runs to the msb
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0xf0000000, 0xf0000000, 0xfffffff0, 0xfffffff0, 0xf0, 0xf0}));
  EXPECT_EQ(r[4], (std::vector<uint64_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(r[5], (std::vector<uint64_t>{0xff, 0xff, 0xffffff80, 0xffffff80, 0x80, 0x80}));
}

TEST(IntBits, Lop3TableAndPredicateForms) {
  std::string body = "lop3.b32 %o0, %r0, %r1, %r2, 0x80;\n lop3.b32 %o1, %r0, %r1, %r2, 0xfe;\n"
                     "lop3.b32 %o2, %r0, %r1, %r2, 0x1a;\n lop3.or.b32 %o3|%o4, %r0, %r1, %r2, 0x40, %q3;\n"
                     "lop3.and.b32 _|%o5, %r0, %r1, %r2, 0x40, !%q3;";
  auto r = rows(4, {32, 32, 32, 32, 1, 1}, body, {{0xf0, 0xcc, 0xaa, 0}, {0xff00ff00, 0xffff0000, 0x0f0f0f0f, 1}, {0, 0, 0, 1}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0x80, 0xfe, 0x1a, 0x40, 1, 1}));
  // a & b & ~c = 0xff000000 & ~0x0f0f0f0f = 0xf0000000; ((a & b) | c) ^ a
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0x0f000000, 0xffffff0f, (0xff000000u | 0x0f0f0f0fu) ^ 0xff00ff00u, 0xf0000000, 1, 0}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0, 0, 0, 0, 1, 0}));
}

TEST(IntBits, LogicOnPredicatesAndBits) {
  std::string body = "and.pred %o0, %q0, %q1;\n or.pred %o1, %q0, %q1;\n xor.pred %o2, %q0, %q1;\n not.pred %o3, %q0;\n"
                     "and.b16 %o4, %h0, %h1;\n xor.b64 %o5, %rd0, %rd1;\n not.b32 %o6, %r0;\n cnot.b32 %o7, %r0;\n"
                     "cnot.b16 %o8, %h0;\n or.b32 %o9, %r0, %r1;";
  auto r = rows(2, {1, 1, 1, 1, 16, 64, 32, 32, 16, 32}, body, {{0x10000, 1}, {0, 0x3}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{1, 1, 0, 0, 0, 0x10001, 0xfffeffff, 0, 1, 0x10001}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0, 1, 1, 1, 0, 3, 0xffffffff, 1, 1, 3}));
}

TEST(IntDot, Dp4aDp2aSignednessCombos) {
  std::string body = "dp4a.u32.u32 %o0, %r0, %r1, %r2;\n dp4a.s32.s32 %o1, %r0, %r1, %r2;\n"
                     "dp4a.u32.s32 %o2, %r0, %r1, %r2;\n dp4a.s32.u32 %o3, %r0, %r1, %r2;\n"
                     "dp2a.lo.s32.s32 %o4, %r0, %r1, %r2;\n dp2a.hi.u32.s32 %o5, %r0, %r1, %r2;";
  auto r = rows(3, std::vector<int>(6, 32), body, {{0xff020180, 0x01ff0302, 10}});
  // a bytes (b0..b3): 0x80 0x01 0x02 0xff; b bytes: 0x02 0x03 0xff 0x01
  // u.u: 128*2 + 1*3 + 2*255 + 255*1 = 1024 (+10)
  // s.s: -128*2 + 1*3 + 2*-1 + -1*1 = -256 (+10 = -246)
  // u.s: 128*2 + 1*3 + 2*-1 + 255*1 = 512 (+10)
  // s.u: -128*2 + 3 + 2*255 + -1*1 = 256 (+10)
  // dp2a.lo s.s: a halves 0x0180 (384), 0xff02 (-254); b bytes 0,1: 2, 3 -> 768 - 762 = 6 (+10)
  // dp2a.hi u.s: a halves 384, 65282; b bytes 2,3: -1, 1 -> -384 + 65282 = 64898 (+10)
  EXPECT_EQ(r[0], (std::vector<uint64_t>{1034, uint32_t(-246), 522, 266, 16, 64908}));
}

// ---- comparison ------------------------------------------------------------------------------------

TEST(Compare, SetpUnorderedWithNaN) {
  std::string body = "setp.eq.f32 %o0, %r0, %r1;\n setp.ne.f32 %o1, %r0, %r1;\n setp.equ.f32 %o2, %r0, %r1;\n"
                     "setp.neu.f32 %o3, %r0, %r1;\n setp.lt.f32 %o4, %r0, %r1;\n setp.ltu.f32 %o5, %r0, %r1;\n"
                     "setp.geu.f32 %o6, %r0, %r1;\n setp.num.f32 %o7, %r0, %r1;\n setp.nan.f32 %o8, %r0, %r1;\n"
                     "setp.ge.f32 %o9, %r0, %r1;";
  auto r = rows(2, std::vector<int>(10, 1), body,
                {{kNaN32, f32(1)}, {kSNaN32, kSNaN32}, {f32(-0.0f), f32(0.0f)}, {f32(1), f32(2)}, {kInf32, kInf32}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0, 0, 1, 1, 0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0, 0, 1, 1, 0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{1, 0, 1, 0, 0, 0, 1, 1, 0, 1}));
  EXPECT_EQ(r[3], (std::vector<uint64_t>{0, 1, 0, 1, 1, 1, 0, 1, 0, 0}));
  EXPECT_EQ(r[4], (std::vector<uint64_t>{1, 0, 1, 0, 0, 0, 1, 1, 0, 1}));
}

TEST(Compare, SetpFtzFlushesSubnormals) {
  auto r = rows(2, {1, 1, 1, 1}, "setp.eq.f32 %o0, %r0, %r1;\n setp.eq.ftz.f32 %o1, %r0, %r1;\n"
                                 "setp.lt.ftz.f32 %o2, %r0, %r1;\n setp.lt.f32 %o3, %r0, %r1;",
                {{0x80000001, 0}, {0x00000001, 0x007fffff}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0, 1, 0, 1}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0, 1, 0, 1}));
}

TEST(Compare, SetpDualDestinationsAndCombiners) {
  std::string body = "setp.lt.s32 %o0|%o1, %r0, %r1;\n setp.lt.and.s32 %o2|%o3, %r0, %r1, %q2;\n"
                     "setp.lt.or.u32 %o4|%o5, %r0, %r1, !%q2;\n setp.lt.xor.s32 _|%o6, %r0, %r1, %q2;\n"
                     "setp.hi.s32 %o7, %r0, %r1;";
  auto r = rows(3, std::vector<int>(8, 1), body, {{0xffffffff, 1, 1}, {0xffffffff, 1, 0}, {1, 0xffffffff, 1}});
  // -1 < 1 signed; 0xffffffff > 1 unsigned (hi compares unsigned even on .s32)
  EXPECT_EQ(r[0], (std::vector<uint64_t>{1, 0, 1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{1, 0, 0, 0, 1, 1, 0, 1}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{0, 1, 0, 1, 1, 0, 0, 0}));
}

TEST(Compare, HalfPrecisionPairsAndSet) {
  // halves (hi, lo): a = (NaN, 1.0), b = (1.0, 2.0) in f16; bf16: a = (-0, 1.0), b = (+0, 1.0)
  std::string body = "setp.lt.f16x2 %o0|%o1, %r0, %r1;\n setp.ltu.f16x2 %o2|%o3, %r0, %r1;\n"
                     "set.lt.f16x2.f16x2 %o4, %r0, %r1;\n set.ltu.u32.f16x2 %o5, %r0, %r1;\n"
                     "setp.eq.bf16x2 %o6|%o7, %r2, %r3;\n set.eq.bf16x2.bf16x2 %o8, %r2, %r3;\n"
                     "setp.gt.f16 %o9, %h1, %h0;\n set.gt.s16.f16 %o10, %h1, %h0;\n set.ge.bf16.f32 %o11, %r4, %r5;\n"
                     "set.lt.s32.f16x2 %o12, %r0, %r1;";
  auto r = rows(6, {1, 1, 1, 1, 32, 32, 1, 1, 32, 1, 16, 16, 32}, body,
                {{0x7e003c00, 0x3c004000, 0x80003f80, 0x00003f80, f32(1), f32(1)}})[0];
  EXPECT_EQ(r, (std::vector<uint64_t>{1, 0, 1, 1, 0x00003c00, 0xffffffff, 1, 1, 0x3f803f80, 1, 0xffff, 0x3f80, 0x0000ffff}));
}

TEST(Compare, SetDestinationTypes) {
  std::string body = "set.lt.u32.s32 %o0, %r0, %r1;\n set.lt.s32.s32 %o1, %r0, %r1;\n set.lt.f32.s32 %o2, %r0, %r1;\n"
                     "set.lt.and.f32.u32 %o3, %r0, %r1, %q2;\n set.ltu.f16.f64 %o4, %rd3, %rd4;\n"
                     "set.lt.s32.f64 %o5, %rd3, 1.5;";
  auto r = rows(5, {32, 32, 32, 32, 16, 32}, body,
                {{0xffffffff, 0, 1, f64(std::nan("")), f64(1.0)}, {0, 0xffffffff, 0, f64(1.0), f64(2.0)}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{0xffffffff, 0xffffffff, 0x3f800000, 0, 0x3c00, 0}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{0, 0, 0, 0, 0x3c00, 0xffffffff}));
}

TEST(Compare, SelpAndSlct) {
  std::string body = "selp.b32 %o0, %r0, %r1, %q2;\n selp.s16 %o1, %h0, %h1, !%q2;\n selp.f64 %o2, %rd0, %rd1, %q2;\n"
                     "slct.u32.s32 %o3, %r0, %r1, %r3;\n slct.b64.f32 %o4, %rd0, %rd1, %r3;\n"
                     "slct.ftz.b32.f32 %o5, %r0, %r1, %r3;\n selp.f32 %o6, 1.5, %r1, %q2;";
  auto r = rows(4, {32, 16, 64, 32, 64, 32, 32}, body,
                {{1, 2, 1, 0x80000000}, {1, 2, 0, 0}, {1, 2, 0, 0x80000001}, {1, 2, 1, kNaN32}, {1, 2, 1, 0x3f800000}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{1, 2, 1, 2, 1, 1, f32(1.5f)}));   // c = -0.0f / INT_MIN
  EXPECT_EQ(r[1], (std::vector<uint64_t>{2, 1, 2, 1, 1, 1, 2}));
  EXPECT_EQ(r[2], (std::vector<uint64_t>{2, 1, 2, 2, 2, 1, 2}));            // -subnormal: < 0 unless .ftz
  EXPECT_EQ(r[3], (std::vector<uint64_t>{1, 2, 1, 1, 2, 2, f32(1.5f)}));   // NaN selects b
  EXPECT_EQ(r[4], (std::vector<uint64_t>{1, 2, 1, 1, 1, 1, f32(1.5f)}));
}

TEST(Compare, GuardedOffLanesKeepTheirDestinations) {
  std::string body = "mov.b32 %o0, 7;\n @%q1 add.u32 %o0, %r0, 1;\n mov.pred %o1, 0;\n @%q1 setp.eq.u32 %o1, %r0, %r0;";
  auto r = rows(2, {32, 1}, body, {{5, 1}, {5, 0}});
  EXPECT_EQ(r[0], (std::vector<uint64_t>{6, 1}));
  EXPECT_EQ(r[1], (std::vector<uint64_t>{7, 0}));
}

// ---- load-time errors --------------------------------------------------------------------------------

TEST(IntAluErrors, MalformedFormsAreRejectedClearly) {
  EXPECT_ERROR_HAS(2, {32}, "add.f33 %o0, %r0, %r1;", "unknown modifier '.f33'");
  EXPECT_ERROR_HAS(2, {32}, "setp.lt.s32 %o0, %r0, %r1;", "must be a predicate register");
  EXPECT_ERROR_HAS(2, {32}, "add.s32 %o0, %rd0, %r1;", "must be a 32-bit register");
  EXPECT_ERROR_HAS(2, {64}, "add.s32 %o0, %r0, %r1;", "(destination) of 'add.s32' must be a 32-bit register");
  EXPECT_ERROR_HAS(2, {32}, "mul.u32 %o0, %r0, %r1;", "needs .lo, .hi or .wide");
  EXPECT_ERROR_HAS(2, {64}, "mul.wide.u64 %o0, %rd0, %rd1;", "only to 16- and 32-bit");
  EXPECT_ERROR_HAS(2, {32}, "add.sat.u32 %o0, %r0, %r1;", "'.sat' applies only");
  EXPECT_ERROR_HAS(2, {32}, "mad.hi.sat.u32 %o0, %r0, %r1, %r1;", "'.sat' applies only to 'mad.hi.s32'");
  EXPECT_ERROR_HAS(2, {16}, "add.cc.u16 %o0, %h0, %h1;", "'add.cc' needs .u32, .s32, .u64 or .s64");
  EXPECT_ERROR_HAS(2, {1}, "setp.lt.f16x2 %o0, %r0, %r1;", "needs a predicate pair");
  EXPECT_ERROR_HAS(2, {1}, "setp.lo.f32 %o0, %r0, %r1;", "is for unsigned integers");
  EXPECT_ERROR_HAS(2, {1}, "setp.equ.s32 %o0, %r0, %r1;", "is for floating-point types");
  EXPECT_ERROR_HAS(2, {1}, "setp.lt.and.s32 %o0, %r0, %r1;", "expects 4 operands");
  EXPECT_ERROR_HAS(2, {1}, "setp.lt.s32 %o0, %r0, %r1, %q0;", "no .and/.or/.xor");
  EXPECT_ERROR_HAS(2, {1}, "setp.lt.ftz.s32 %o0, %r0, %r1;", "'.ftz' applies only");
  EXPECT_ERROR_HAS(2, {1}, "setp.lt.s32 %o0, !%r0, %r1;", "'!' applies only to predicate");
  EXPECT_ERROR_HAS(2, {16}, "set.lt.u16.u32 %o0, %r0, %r1;", "is not allowed with source type");
  EXPECT_ERROR_HAS(2, {32}, "slct.u32.u32 %o0, %r0, %r1, %r1;", "must be .s32 or .f32");
  EXPECT_ERROR_HAS(2, {32}, "bmsk.b32 %o0, %r0, %r1;", "exactly one of .clamp, .wrap");
  EXPECT_ERROR_HAS(2, {32}, "shf.l.b32 %o0, %r0, %r1, %r1;", "exactly one of .clamp, .wrap");
  EXPECT_ERROR_HAS(2, {32}, "lop3.b32 %o0, %r0, %r1, %r1, %r0;", "immLut");
  EXPECT_ERROR_HAS(2, {32}, "lop3.b32 %o0, %r0, %r1, %r1, 256;", "must be in 0..255");
  EXPECT_ERROR_HAS(2, {32}, "min.relu.u32 %o0, %r0, %r1;", "unexpected modifier");
  EXPECT_ERROR_HAS(2, {32}, "add.u32 %o0, %r0, %clock;", "can only be read with mov");
  EXPECT_ERROR_HAS(2, {32}, "dp2a.u32.u32 %o0, %r0, %r1, %r1;", "exactly one of .lo, .hi");
  EXPECT_ERROR_HAS(2, {32}, "add %o0, %r0, %r1;", "needs exactly one type modifier");
  EXPECT_NE(load_error(2, {32}, "add.u16x2 %o0, %r0, %r1;", "sm_90a", "7.8").find("requires PTX ISA .version 8.0"),
            std::string::npos);
  EXPECT_NE(load_error(2, {32}, "min.s16x2 %o0, %r0, %r1;", "sm_80", "8.7").find("not supported on .target 'sm_80'"),
            std::string::npos);
  EXPECT_NE(load_error(2, {1}, "setp.lt.bf16 %o0, %h0, %h1;", "sm_80", "8.7").find("not supported on .target"),
            std::string::npos);
}

TEST(IntAluErrors, EveryErrorNamesItsLine) {
  std::string e = load_error(2, {1}, "setp.lt.s32 %o0, %r0, %rd1;", "sm_90a", "8.7");
  EXPECT_NE(e.find("int_alu_test.ptx:"), std::string::npos) << e;
  EXPECT_NE(e.find("setp.lt.s32 %o0, %r0, %rd1;"), std::string::npos) << e;
  EXPECT_NE(e.find("'%rd1'"), std::string::npos) << e;
}

}  // namespace
}  // namespace ptxsim::inttest
