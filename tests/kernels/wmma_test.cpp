// wmma.cu: nvcuda::wmma tiles of every shape and element type, compiled by nvcc, against an exact CPU
// product. The operands live in memory with padded strides in both layouts (PTX ISA 9.7.14.4.2:
// row-major rows, or column-major columns, `stride` elements apart), D = 2 * (A * B + C) is
// compared element by element and the padding of D's storage must keep its poison (the store
// writes only the matrix). Inputs are small integers, so every product and sum is exact in each
// accumulator type and the reference is plain integer arithmetic.
#include <bit>
#include <cmath>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using WmmaTest = KernelTest;

enum class T { F16, BF16, TF32, F64, S8, U8, S4, U4, B1, F32, S32 };

int bits_of(T t) {
  switch (t) {
    case T::F16: case T::BF16: return 16;
    case T::F64: return 64;
    case T::S8: case T::U8: return 8;
    case T::S4: case T::U4: return 4;
    case T::B1: return 1;
    default: return 32;
  }
}

// Bits of the (small integer) value v in type t, written out from the formats.
uint64_t encode(T t, int64_t v) {
  switch (t) {
    case T::F16: {
      if (v == 0) return 0;
      const uint64_t a = uint64_t(std::llabs(v)), e = uint64_t(std::bit_width(a) - 1);  // 2^e <= a
      return (v < 0 ? 0x8000u : 0u) | (e + 15) << 10 | ((a << (10 - e)) & 0x3FF);
    }
    case T::BF16: return std::bit_cast<uint32_t>(float(v)) >> 16;
    case T::TF32: case T::F32: return std::bit_cast<uint32_t>(float(v));
    case T::F64: return std::bit_cast<uint64_t>(double(v));
    case T::S32: return uint32_t(int32_t(v));
    default: return uint64_t(v) & ((1ull << bits_of(t)) - 1);  // 8/4/1-bit integers
  }
}
double decode(T t, uint64_t b) {
  switch (t) {
    case T::F16: {
      const int e = int(b >> 10 & 31), m = int(b & 1023);
      const double x = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
      return b >> 15 & 1 ? -x : x;
    }
    case T::F32: return std::bit_cast<float>(uint32_t(b));
    case T::F64: return std::bit_cast<double>(b);
    default: return double(int32_t(uint32_t(b)));  // S32
  }
}

// A matrix of R x C elements of type t stored with `row` major order and stride `ld` (elements).
struct Stored {
  int rows, cols, ld;
  bool row;
  T t;
  size_t index(int r, int c) const { return row ? size_t(r) * ld + c : size_t(c) * ld + r; }
  size_t bytes() const { return (size_t(row ? rows : cols) * ld * bits_of(t) + 7) / 8; }
  void put(std::vector<uint8_t>& img, int r, int c, uint64_t v) const {
    const size_t bit = index(r, c) * size_t(bits_of(t));
    if (bits_of(t) >= 8) {
      for (int i = 0; i < bits_of(t) / 8; ++i) img[bit / 8 + size_t(i)] = uint8_t(v >> (8 * i));
      return;
    }
    const uint8_t m = uint8_t(((1u << bits_of(t)) - 1) << (bit % 8));
    img[bit / 8] = uint8_t((img[bit / 8] & ~m) | ((v << (bit % 8)) & m));
  }
  uint64_t get(const std::vector<uint8_t>& img, int r, int c) const {
    uint64_t v = 0;
    const size_t bit = index(r, c) * size_t(bits_of(t));
    for (int i = 0; i < bits_of(t) / 8; ++i) v |= uint64_t(img[bit / 8 + size_t(i)]) << (8 * i);
    return v;
  }
};

struct Case {
  const char* kernel;
  int M, N, K;
  T ab, acc;
  bool a_row, b_row;
};

void run_case(Harness& h, const Case& k, uint64_t seed, bool a_shared, bool c_row, bool d_row) {
  SCOPED_TRACE(std::string(k.kernel) + (a_shared ? ", A via shared memory" : "") + (c_row ? ", C row" : ", C col") +
               (d_row ? ", D row" : ", D col") + ", seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const bool b1 = k.ab == T::B1, sub = bits_of(k.ab) < 8;
  // Padding: 16 bytes per line (32 elements for 4-bit, 128 for 1-bit), keeping every line 16-byte aligned.
  auto pad = [](T t) { return 128 / bits_of(t); };
  const Stored sa{k.M, k.K, (k.a_row ? k.K : k.M) + pad(k.ab), k.a_row, k.ab},
      sb{k.K, k.N, (k.b_row ? k.N : k.K) + pad(k.ab), k.b_row, k.ab},
      sc{k.M, k.N, (c_row ? k.N : k.M) + pad(k.acc), c_row, k.acc},
      sd{k.M, k.N, (d_row ? k.N : k.M) + pad(k.acc), d_row, k.acc};
  auto draw = [&]() -> int64_t {
    switch (k.ab) {
      case T::S8: return int64_t(int8_t(rng()));
      case T::U8: return int64_t(rng() & 0xFF);
      case T::S4: return int64_t(rng() % 16) - 8;
      case T::U4: return int64_t(rng() % 16);
      case T::B1: return int64_t(rng() & 1);
      default: return int64_t(rng() % 9) - 4;
    }
  };
  std::vector<int64_t> A(size_t(k.M) * k.K), B(size_t(k.K) * k.N), C(size_t(k.M) * k.N);
  for (auto& x : A) x = draw();
  for (auto& x : B) x = draw();
  for (auto& x : C) x = k.acc == T::S32 ? int64_t(rng() % 2000001) - 1000000 : int64_t(rng() % 17) - 8;
  std::vector<uint8_t> ia(sa.bytes(), kPoison), ib(sb.bytes(), kPoison), ic(sc.bytes(), kPoison);
  for (int r = 0; r < k.M; ++r)
    for (int c = 0; c < k.K; ++c) sa.put(ia, r, c, encode(k.ab, A[size_t(r) * k.K + c]));
  for (int r = 0; r < k.K; ++r)
    for (int c = 0; c < k.N; ++c) sb.put(ib, r, c, encode(k.ab, B[size_t(r) * k.N + c]));
  for (int r = 0; r < k.M; ++r)
    for (int c = 0; c < k.N; ++c) sc.put(ic, r, c, encode(k.acc, C[size_t(r) * k.N + c]));
  const uint64_t ga = h.upload(ia, "A"), gb = h.upload(ib, "B"), gc = h.upload(ic, "C"), gd = h.alloc(sd.bytes(), "D");
  // b1 kernels take the bit operation in a_shared (1: AND, 0: XOR); sub-byte A is read from global.
  const int a_flag = b1 ? int(rng() & 1) : sub ? 0 : int(a_shared);
  RunResult r = h.launch(k.kernel, {1}, {32},
                         h.params(k.kernel, ga, gb, gc, gd, int32_t(sa.ld), int32_t(sb.ld), int32_t(sc.ld), int32_t(sd.ld),
                                  int32_t(a_flag), int32_t(c_row), int32_t(d_row)),
                         0, nullptr, seed);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  const std::vector<uint8_t> id = h.download<uint8_t>(gd, sd.bytes());
  std::vector<uint8_t> written(sd.bytes(), 0);
  for (int m = 0; m < k.M; ++m)
    for (int n = 0; n < k.N; ++n) {
      int64_t s = C[size_t(m) * k.N + n];
      for (int q = 0; q < k.K; ++q) {
        const int64_t x = A[size_t(m) * k.K + q], y = B[size_t(q) * k.N + n];
        s += b1 ? (a_flag ? (x & y) : (x ^ y)) : x * y;
      }
      const double want = double(2 * s), got = decode(k.acc, sd.get(id, m, n));
      ASSERT_EQ(got, want) << "D(" << m << ", " << n << ")";
      for (int i = 0; i < bits_of(k.acc) / 8; ++i) written[sd.index(m, n) * size_t(bits_of(k.acc) / 8) + size_t(i)] = 1;
    }
  for (size_t i = 0; i < id.size(); ++i)
    if (!written[i]) {
      ASSERT_EQ(id[i], kPoison) << "D's padding byte " << i << " was written";
    }
}

constexpr Case kCases[] = {
    {"wmma_f16_m16n16k16_rr_f32", 16, 16, 16, T::F16, T::F32, true, true},
    {"wmma_f16_m16n16k16_rc_f32", 16, 16, 16, T::F16, T::F32, true, false},
    {"wmma_f16_m16n16k16_cr_f32", 16, 16, 16, T::F16, T::F32, false, true},
    {"wmma_f16_m16n16k16_cc_f32", 16, 16, 16, T::F16, T::F32, false, false},
    {"wmma_f16_m32n8k16_rc_f32", 32, 8, 16, T::F16, T::F32, true, false},
    {"wmma_f16_m8n32k16_cr_f32", 8, 32, 16, T::F16, T::F32, false, true},
    {"wmma_f16_m16n16k16_rc_f16", 16, 16, 16, T::F16, T::F16, true, false},
    {"wmma_f16_m32n8k16_cc_f16", 32, 8, 16, T::F16, T::F16, false, false},
    {"wmma_f16_m8n32k16_rr_f16", 8, 32, 16, T::F16, T::F16, true, true},
    {"wmma_bf16_m16n16k16_rc", 16, 16, 16, T::BF16, T::F32, true, false},
    {"wmma_bf16_m32n8k16_cr", 32, 8, 16, T::BF16, T::F32, false, true},
    {"wmma_bf16_m8n32k16_rr", 8, 32, 16, T::BF16, T::F32, true, true},
    {"wmma_s8_m16n16k16_rc", 16, 16, 16, T::S8, T::S32, true, false},
    {"wmma_u8_m32n8k16_cr", 32, 8, 16, T::U8, T::S32, false, true},
    {"wmma_s8_m8n32k16_rr", 8, 32, 16, T::S8, T::S32, true, true},
    {"wmma_f64_m8n8k4_rc", 8, 8, 4, T::F64, T::F64, true, false},
    {"wmma_f64_m8n8k4_cr", 8, 8, 4, T::F64, T::F64, false, true},
    {"wmma_tf32_m16n16k8_rc", 16, 16, 8, T::TF32, T::F32, true, false},
    {"wmma_tf32_m16n16k8_cr", 16, 16, 8, T::TF32, T::F32, false, true},
    {"wmma_s4_m8n8k32", 8, 8, 32, T::S4, T::S32, true, false},
    {"wmma_u4_m8n8k32", 8, 8, 32, T::U4, T::S32, true, false},
    {"wmma_b1_m8n8k128", 8, 8, 128, T::B1, T::S32, true, false},
};

TEST_P(WmmaTest, EveryShapeTypeAndLayoutAgainstAnExactProduct) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "wmma");
  uint64_t s = seed;
  for (const Case& k : kCases)
    for (int variant = 0; variant < 4; ++variant) {  // A from shared / global; C and D in both layouts
      run_case(h, k, s++, variant % 2 == 0, variant < 2, variant % 3 == 0);
      if (HasFatalFailure()) return;
    }
}

KTEST_INSTANTIATE(WmmaTest);

}  // namespace
}  // namespace ptxsim::ktest
