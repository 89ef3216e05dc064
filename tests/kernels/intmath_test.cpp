// intmath.cu: integer intrinsics (popc, clz, brev, byte_perm, funnel shifts, mulhi, sad, dp4a,
// dp2a, hadd, mul24, ffs, ...) and integer division, against host code written from the CUDA /
// PTX definitions.
#include <bit>
#include <climits>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using IntMathTest = KernelTest;

// Keep in step with the enum in intmath.cu.
enum Op {
  kPopc, kClz, kBrev, kBytePerm, kFunnelL, kFunnelR, kFunnelLC, kFunnelRC, kMulhi, kUmulhi,
  kMul64hi, kUmul64hi, kSad, kUsad, kDp4a, kDp4aU, kDp2aLo, kDp2aHi, kMinS, kMaxS, kMinU, kMaxU,
  kAbs, kDivS, kRemS, kDivU, kRemU, kDivConst, kRemConst, kDivNegConst, kDiv64U, kRem64U, kDiv64S,
  kPopcll, kClzll, kBrevll, kFfs, kFfsll, kHadd, kRhadd, kUhadd, kUrhadd, kMul24, kUmul24,
  kMulWide, kShiftMix, kCount
};
const char* const kOpNames[kCount] = {
    "__popc", "__clz", "__brev", "__byte_perm", "__funnelshift_l", "__funnelshift_r", "__funnelshift_lc",
    "__funnelshift_rc", "__mulhi", "__umulhi", "__mul64hi", "__umul64hi", "__sad", "__usad", "__dp4a(int)",
    "__dp4a(unsigned)", "__dp2a_lo", "__dp2a_hi", "min(int)", "max(int)", "min(unsigned)", "max(unsigned)", "abs",
    "int /", "int %", "unsigned /", "unsigned %", "unsigned / 7", "unsigned % 1000", "int / -3", "u64 /", "u64 %",
    "s64 /", "__popcll", "__clzll", "__brevll", "__ffs", "__ffsll", "__hadd", "__rhadd", "__uhadd", "__urhadd",
    "__mul24", "__umul24", "(long long)a * b", "shift mix"};

uint32_t brev32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
uint64_t brev64(uint64_t v) { return (uint64_t(brev32(uint32_t(v))) << 32) | brev32(uint32_t(v >> 32)); }

int8_t byte_s(uint32_t v, int i) { return int8_t(uint8_t(v >> (8 * i))); }
uint8_t byte_u(uint32_t v, int i) { return uint8_t(v >> (8 * i)); }
int16_t half_s(uint32_t v, int i) { return int16_t(uint16_t(v >> (16 * i))); }

uint64_t reference(int op, uint32_t a, uint32_t b, uint32_t c, int32_t d, uint64_t x, int64_t y) {
  int32_t sa = int32_t(a), sb = int32_t(b);
  uint64_t hl = (uint64_t(b) << 32) | a;  // hi:lo for the funnel shifts
  switch (op) {
    case kPopc: return std::popcount(a);
    case kClz: return uint32_t(std::countl_zero(a));
    case kBrev: return brev32(a);
    case kBytePerm: {
      uint64_t in = (uint64_t(b) << 32) | a;
      uint32_t s = c & 0x7777u, r = 0;
      for (int i = 0; i < 4; ++i) r |= uint32_t((in >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
      return r;
    }
    case kFunnelL: return uint32_t((hl << (c & 31u)) >> 32);
    case kFunnelR: return uint32_t(hl >> (c & 31u));
    case kFunnelLC: {
      uint32_t s = std::min(c & 63u, 32u);
      return uint32_t((hl << s) >> 32);
    }
    case kFunnelRC: {
      uint32_t s = std::min(c & 63u, 32u);
      return uint32_t(hl >> s);
    }
    case kMulhi: return uint32_t(uint64_t(int64_t(sa) * sb) >> 32);
    case kUmulhi: return uint32_t((uint64_t(a) * b) >> 32);
    case kMul64hi: return uint64_t((__int128(int64_t(x)) * __int128(y)) >> 64);
    case kUmul64hi: return uint64_t((static_cast<unsigned __int128>(x) * uint64_t(y)) >> 64);
    case kSad: return uint32_t((sa < sb ? uint32_t(sb) - uint32_t(sa) : uint32_t(sa) - uint32_t(sb)) + c);
    case kUsad: return uint32_t((a < b ? b - a : a - b) + c);
    case kDp4a: {
      int64_t s = int32_t(c);
      for (int i = 0; i < 4; ++i) s += int(byte_s(a, i)) * int(byte_s(b, i));
      return uint32_t(s);
    }
    case kDp4aU: {
      uint64_t s = c;
      for (int i = 0; i < 4; ++i) s += uint32_t(byte_u(a, i)) * byte_u(b, i);
      return uint32_t(s);
    }
    case kDp2aLo:
    case kDp2aHi: {
      int base = op == kDp2aLo ? 0 : 2;
      int64_t s = int32_t(c);
      for (int i = 0; i < 2; ++i) s += int(half_s(a, i)) * int(byte_s(b, base + i));
      return uint32_t(s);
    }
    case kMinS: return uint32_t(std::min(sa, sb));
    case kMaxS: return uint32_t(std::max(sa, sb));
    case kMinU: return std::min(a, b);
    case kMaxU: return std::max(a, b);
    case kAbs: return sa < 0 ? 0u - a : a;
    case kDivS: return uint32_t(sa / d);
    case kRemS: return uint32_t(sa % d);
    case kDivU: return a / uint32_t(d);
    case kRemU: return a % uint32_t(d);
    case kDivConst: return a / 7u;
    case kRemConst: return a % 1000u;
    case kDivNegConst: return uint32_t(sa / -3);
    case kDiv64U: return x / uint64_t(y);
    case kRem64U: return x % uint64_t(y);
    case kDiv64S: return uint64_t(int64_t(x >> 1) / y);
    case kPopcll: return uint32_t(std::popcount(x));
    case kClzll: return uint32_t(std::countl_zero(x));
    case kBrevll: return brev64(x);
    case kFfs: return a ? uint32_t(std::countr_zero(a)) + 1 : 0;
    case kFfsll: return x ? uint32_t(std::countr_zero(x)) + 1 : 0;
    case kHadd: return uint32_t(int32_t((int64_t(sa) + sb) >> 1));
    case kRhadd: return uint32_t(int32_t((int64_t(sa) + sb + 1) >> 1));
    case kUhadd: return uint32_t((uint64_t(a) + b) >> 1);
    case kUrhadd: return uint32_t((uint64_t(a) + b + 1) >> 1);
    case kMul24: {
      // The low 24 bits of each operand, sign-extended, multiplied; the low 32 bits of the product.
      int64_t x24 = int32_t(a << 8) >> 8, y24 = int32_t(b << 8) >> 8;
      return uint32_t(uint64_t(x24 * y24));
    }
    case kUmul24: return uint32_t(uint64_t(a & 0xffffffu) * (b & 0xffffffu));
    case kMulWide: return uint64_t(int64_t(sa) * int64_t(sb));
    case kShiftMix: return (uint64_t(a >> (b & 31u)) << 32) | uint32_t(sa >> (c & 31u));
  }
  return 0;
}

uint32_t interesting32(std::mt19937_64& rng) {
  static const uint32_t special[] = {0u, 1u, 2u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x80000001u, 0xfffffffeu,
                                     0x00ff00ffu, 0x7f7f7f7fu, 0x80808080u, 0x00008000u, 0x00800000u, 0xff7fffffu};
  switch (rng() % 6) {
    case 0: return special[rng() % std::size(special)];
    case 1: return uint32_t(rng() % 256);
    case 2: return uint32_t(rng()) >> (rng() % 32);
    default: return uint32_t(rng());
  }
}

TEST_P(IntMathTest, Sweep) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "intmath");
  std::mt19937_64 rng(seed);
  const uint32_t grid = 8, block = 256;
  int n = int(grid * block) - 7;
  std::vector<uint32_t> A(n), B(n), C(n);
  std::vector<int32_t> D(n);
  std::vector<uint64_t> X(n);
  std::vector<int64_t> Y(n);
  for (int i = 0; i < n; ++i) {
    A[i] = interesting32(rng);
    B[i] = interesting32(rng);
    C[i] = interesting32(rng);
    int32_t d = rng() % 3 ? int32_t(rng() % 200) - 100 : int32_t(interesting32(rng));
    if (d == 0) d = 1 + int32_t(rng() % 5);
    if (d == -1 && A[i] == 0x80000000u) d = 3;
    D[i] = d;
    X[i] = rng() % 4 ? rng() : uint64_t(interesting32(rng));
    int64_t y = rng() % 2 ? int64_t(rng()) >> (rng() % 64) : int64_t(rng() % 1000) - 500;
    if (y == 0) y = 7;
    Y[i] = y;
  }
  uint64_t dA = h.upload(A), dB = h.upload(B), dC = h.upload(C), dD = h.upload(D), dX = h.upload(X), dY = h.upload(Y);
  uint64_t dout = h.alloc_n<uint64_t>(size_t(kCount) * n);
  RunResult r = h.launch("intmath", {grid}, {block}, h.params("intmath", dA, dB, dC, dD, dX, dY, dout, n), 0, nullptr,
                         seed);
  KTEST_EXPECT_COMPLETED(r);
  std::vector<uint64_t> got = h.download<uint64_t>(dout, size_t(kCount) * n);
  for (int op = 0; op < kCount; ++op) {
    std::vector<uint64_t> g(got.begin() + size_t(op) * n, got.begin() + size_t(op + 1) * n), w(n);
    for (int i = 0; i < n; ++i) w[i] = reference(op, A[i], B[i], C[i], D[i], X[i], Y[i]);
    auto res = compare_exact(kOpNames[op], g, w);
    if (!res) {
      size_t i = 0;
      while (g[i] == w[i]) ++i;
      std::ostringstream os;  // (AssertionResult's << does not keep stream manipulators)
      os << "\n  inputs at that index: a=0x" << std::hex << A[i] << " b=0x" << B[i] << " c=0x" << C[i] << " d=" << std::dec
         << D[i] << " x=0x" << std::hex << X[i] << " y=" << std::dec << Y[i];
      res << os.str();
    }
    EXPECT_TRUE(res);
  }
}

KTEST_INSTANTIATE(IntMathTest);

}  // namespace
}  // namespace ptxsim::ktest
