// mma.sync (sim/sem/mma_sync.cpp) through the public API. Fragments are packed on the host with
// the row/col formulas of the PTX ISA's "Matrix Fragments for mma.mXnYkZ" sections, written out
// here independently of model/fragments; results are compared with
//  * plain integer/float loops for exactly representable inputs (small integers), and
//  * the Boost.Multiprecision reference of the tensor-core model (model/tensorcore/exact_ref.h)
//    for random bit patterns (NaN, Inf, subnormals included);
// plus a multi-warp GEMM kernel that stages tiles in shared memory and feeds mma.sync with
// ldmatrix, as CUTLASS's SM80 kernels do. Random inputs print their seed (PTXSIM_TEST_SEED).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "model/tensorcore/exact_ref.h"
#include "tests/unit/host_half.h"
#include "model/tensorcore/tensorcore.h"
#include "sim/api.h"

namespace ptxsim {
namespace {

namespace tc = model::tc;

constexpr uint8_t kPoison = 0xA5;

uint64_t seed_for_test() {
  uint64_t s;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  else s = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << info->test_suite_name() << "." << info->name() << ": PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

struct Device {
  model::GlobalMemory mem;
  uint64_t alloc(size_t bytes) {
    uint64_t a = mem.allocate(bytes);
    std::vector<uint8_t> p(bytes, kPoison);
    mem.write(a, p.data(), bytes);
    return a;
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    uint64_t a = alloc(v.size() * sizeof(T));
    mem.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    EXPECT_TRUE(mem.read(a, v.data(), n * sizeof(T)));
    return v;
  }
};

std::string module(const std::string& body, const std::string& target, const std::string& version = "8.7") {
  return ".version " + version + "\n.target " + target + "\n.address_size 64\n\n" + body;
}

RunResult run(const std::string& ptx, Device& dev, const std::vector<uint64_t>& args, uint32_t threads = 32) {
  auto prog = load_program(ptx, "mma_sync_test.ptx");
  auto ks = kernels(*prog);
  EXPECT_EQ(ks.size(), 1u);
  const KernelInfo& info = ks.at(0);
  std::vector<uint8_t> params(info.param_bytes, 0);
  for (size_t i = 0; i < info.params.size() && i < args.size(); ++i)
    std::memcpy(params.data() + info.params[i].offset, &args[i], info.params[i].size);
  LaunchConfig cfg;
  cfg.block.x = threads;
  cfg.max_seconds = 60;
  return launch(*prog, info.name, cfg, params, dev.mem);
}

std::string load_error(const std::string& ptx) {
  try {
    load_program(ptx, "mma_sync_test.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// ---- fragment layouts (PTX ISA 9.7.14.5.2-10) -----------------------------------------------------

enum Cls { F16, TF32, I8, F64, Acc32, Acc16, I4, B1 };  // element classes of the fragment tables
struct RCp {
  int row, col;
};

// Element i of lane t of operand op ('A', 'B', 'C') for shape m x n x k.
RCp isa_frag(int m, int k, char op, Cls cls, int t, int i) {
  const int g = t >> 2, q = t % 4;
  if (op == 'C') {
    if (m == 8) return {g, 2 * q + i};
    return {i < 2 ? g : g + 8, 2 * q + (i & 1)};
  }
  // .s4/.u4 (PTX ISA "Matrix Fragments for mma.m8n8k32 / m16n8k32 / m16n8k64"): eight per register.
  if (cls == I4 && op == 'A') {
    if (m == 8) return {g, q * 8 + i};
    if (k == 32) return {i < 8 ? g : g + 8, q * 8 + (i & 0x7)};
    return {(i < 8 || (i >= 16 && i < 24)) ? g : g + 8, q * 8 + (i & 0x7) + (i >= 16 ? 32 : 0)};
  }
  if (cls == I4) return {k == 64 ? q * 8 + (i & 0x7) + (i >= 8 ? 32 : 0) : q * 8 + i, g};
  // .b1 ("Matrix Fragments for mma.m8n8k128 / m16n8k128 / m16n8k256"): 32 per register.
  if (cls == B1 && op == 'A') {
    if (m == 8) return {g, q * 32 + i};
    if (k == 128) return {i < 32 ? g : g + 8, q * 32 + (i & 0x1F)};
    return {(i < 32 || (i >= 64 && i < 96)) ? g : g + 8, q * 32 + (i & 0x1F) + (i >= 64 ? 128 : 0)};
  }
  if (cls == B1) return {k == 256 ? q * 32 + (i & 0x1F) + (i >= 32 ? 128 : 0) : q * 32 + i, g};
  if (m == 8 && k == 4) return op == 'A' ? RCp{t >> 2, t % 4} : RCp{t % 4, t >> 2};  // .f64
  if (m == 8 && k == 16) return op == 'A' ? RCp{g, 4 * q + i} : RCp{4 * q + i, g};
  if (op == 'A') {
    switch (cls) {
      case F16:
        if (k == 8) return {i < 2 ? g : g + 8, 2 * q + (i & 1)};
        return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, 2 * q + (i & 1) + (i >= 4 ? 8 : 0)};
      case TF32:
      case F64:
        if (k == 4) return {i == 0 ? g : g + 8, q};
        if (k == 8) return {(i == 0 || i == 2) ? g : g + 8, i < 2 ? q : q + 4};
        return {i % 2 == 0 ? g : g + 8, i % 2 == 0 ? 2 * i + q : 2 * i - 2 + q};  // f64 m16n8k16
      default:  // 8-bit
        if (k == 16) return {i < 4 ? g : g + 8, 4 * q + (i & 3)};
        return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, 4 * q + (i & 3) + (i >= 8 ? 16 : 0)};
    }
  }
  switch (cls) {
    case F16:
      if (k == 8) return {2 * q + i, g};
      return {2 * q + (i & 1) + (i >= 2 ? 8 : 0), g};
    case TF32:
    case F64:
      return {q + 4 * i, g};
    default:
      if (k == 16) return {4 * q + i, g};
      return {4 * q + (i & 3) + (i >= 4 ? 16 : 0), g};
  }
}

int cls_bits(Cls c) { return c == F16 || c == Acc16 ? 16 : c == I8 ? 8 : c == I4 ? 4 : c == B1 ? 1 : c == F64 ? 64 : 32; }

// Packs a row-major matrix (rows x cols element bits) into per-lane registers (lane-major).
std::vector<uint64_t> pack(const std::vector<uint64_t>& mat, int cols, int m, int k, char op, Cls cls, int nelem) {
  const int bits = cls_bits(cls), per = bits >= 32 ? 1 : 32 / bits, nregs = nelem / per;
  std::vector<uint64_t> regs(size_t(32 * nregs), 0);
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < nelem; ++i) {
      const RCp rc = isa_frag(m, k, op, cls, t, i);
      regs[size_t(t * nregs + i / per)] |= mat[size_t(rc.row * cols + rc.col)] << (bits * (i % per));
    }
  return regs;
}

std::vector<uint64_t> unpack(const std::vector<uint64_t>& regs, int rows, int cols, int m, Cls cls) {
  const int nelem = rows * cols / 32, bits = cls_bits(cls), per = bits >= 32 ? 1 : 32 / bits, nregs = nelem / per;
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  std::vector<uint64_t> mat(size_t(rows * cols), 0);
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < nelem; ++i) {
      const RCp rc = isa_frag(m, 0, 'C', cls, t, i);
      mat[size_t(rc.row * cols + rc.col)] = (regs[size_t(t * nregs + i / per)] >> (bits * (i % per))) & mask;
    }
  return mat;
}

// ---- one mma.sync per launch ----------------------------------------------------------------------

struct Form {
  std::string mods;  // after "mma.sync.aligned."
  int m, n, k;
  Cls a, b, c, d;
  int regs[4] = {0, 0, 0, 0};  // registers per lane of A, B, C, D when not m*k/32 etc. (m8n8k4 .f16)
};

std::string reg_list(const char* prefix, int first, int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += std::string(i ? ", " : "") + prefix + std::to_string(first + i);
  return s + "}";
}

// Kernel: loads the lane's A, B, C registers from a/b/c (lane-major, 4 or 8 bytes each), runs the
// mma, stores D to d.
std::string mma_kernel(const Form& f) {
  const int na = f.regs[0] ? f.regs[0] : f.m * f.k / 32 / (cls_bits(f.a) >= 32 ? 1 : 32 / cls_bits(f.a));
  const int nb = f.regs[1] ? f.regs[1] : f.k * f.n / 32 / (cls_bits(f.b) >= 32 ? 1 : 32 / cls_bits(f.b));
  const int nc = f.regs[2] ? f.regs[2] : f.m * f.n / 32 / (cls_bits(f.c) >= 32 ? 1 : 32 / cls_bits(f.c));
  const int nd = f.regs[3] ? f.regs[3] : f.m * f.n / 32 / (cls_bits(f.d) >= 32 ? 1 : 32 / cls_bits(f.d));
  const bool wide = f.a == F64;
  const std::string ld = wide ? "ld.global.f64 " : "ld.global.b32 ", st = wide ? "st.global.f64 " : "st.global.b32 ";
  const int sz = wide ? 8 : 4;
  const char* ra = wide ? "%fd" : "%r";
  const char* rc = wide ? "%fd" : (f.c == Acc32 && f.mods.find(".s32") == std::string::npos ? "%f" : "%r");
  const char* rd = wide ? "%fd" : (f.d == Acc32 && f.mods.find(".s32") == std::string::npos ? "%f" : "%r");
  std::string s = ".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d) {\n"
                  "  .reg .b32 %r<80>;\n  .reg .f32 %f<80>;\n  .reg .f64 %fd<80>;\n  .reg .b64 %rd<20>;\n"
                  "  mov.u32 %r79, %tid.x;\n";
  auto base = [&](const char* param, int n, int rd_i) {
    const std::string r = "%rd" + std::to_string(rd_i);
    return "  ld.param.u64 " + r + ", [" + param + "];\n  cvta.to.global.u64 " + r + ", " + r + ";\n  mul.wide.u32 %rd10, %r79, " +
           std::to_string(n * sz) + ";\n  add.u64 " + r + ", " + r + ", %rd10;\n";
  };
  s += base("a", na, 1);
  for (int i = 0; i < na; ++i) s += "  " + ld + ra + std::to_string(i) + ", [%rd1+" + std::to_string(i * sz) + "];\n";
  s += base("b", nb, 2);
  for (int i = 0; i < nb; ++i) s += "  " + ld + ra + std::to_string(20 + i) + ", [%rd2+" + std::to_string(i * sz) + "];\n";
  s += base("c", nc, 3);
  for (int i = 0; i < nc; ++i)
    s += "  " + (wide ? ld : std::string(rc[1] == 'f' ? "ld.global.f32 " : "ld.global.b32 ")) + rc + std::to_string(40 + i) +
         ", [%rd3+" + std::to_string(i * sz) + "];\n";
  s += "  mma.sync.aligned." + f.mods + " " + reg_list(rd, 60, nd) + ", " + reg_list(ra, 0, na) + ", " +
       reg_list(ra, 20, nb) + ", " + reg_list(rc, 40, nc) + ";\n";
  s += base("d", nd, 4);
  for (int i = 0; i < nd; ++i)
    s += "  " + (wide ? st : std::string(rd[1] == 'f' ? "st.global.f32 " : "st.global.b32 ")) + "[%rd4+" +
         std::to_string(i * sz) + "], " + rd + std::to_string(60 + i) + ";\n";
  s += "  ret;\n}\n";
  return s;
}

// Runs one mma on matrices of element bits; returns D (row-major element bits).
std::vector<uint64_t> run_mma(const Form& f, const std::string& target, const std::vector<uint64_t>& A,
                              const std::vector<uint64_t>& B, const std::vector<uint64_t>& C) {
  const auto ra = pack(A, f.k, f.m, f.k, 'A', f.a, f.m * f.k / 32);
  const auto rb = pack(B, f.n, f.m, f.k, 'B', f.b, f.k * f.n / 32);
  const auto rcv = pack(C, f.n, f.m, f.k, 'C', f.c, f.m * f.n / 32);
  const bool wide = f.a == F64;
  auto narrow = [](const std::vector<uint64_t>& v) { return std::vector<uint32_t>(v.begin(), v.end()); };
  Device dev;
  uint64_t da, db, dc;
  if (wide) {
    da = dev.upload(ra);
    db = dev.upload(rb);
    dc = dev.upload(rcv);
  } else {
    da = dev.upload(narrow(ra));
    db = dev.upload(narrow(rb));
    dc = dev.upload(narrow(rcv));
  }
  const int nd_regs = f.m * f.n / 32 / (cls_bits(f.d) >= 32 ? 1 : 32 / cls_bits(f.d));
  const uint64_t dd = dev.alloc(size_t(32 * nd_regs * (wide ? 8 : 4)));
  const RunResult r = run(module(mma_kernel(f), target), dev, {da, db, dc, dd});
  EXPECT_EQ(r.status, RunStatus::Completed) << to_string(r.status) << "\n" << r.report;
  std::vector<uint64_t> regs;
  if (wide) {
    regs = dev.download<uint64_t>(dd, size_t(32 * nd_regs));
  } else {
    auto v = dev.download<uint32_t>(dd, size_t(32 * nd_regs));
    regs.assign(v.begin(), v.end());
  }
  return unpack(regs, f.m, f.n, f.m, f.d);
}

// ---- encoders for exact small values ---------------------------------------------------------------

uint64_t f32_bits(double x) { return std::bit_cast<uint32_t>(float(x)); }
uint64_t f16_bits(double x) {  // exact small integers only
  if (x == 0) return std::signbit(x) ? 0x8000 : 0;
  const uint32_t sign = x < 0 ? 0x8000 : 0;
  double a = std::fabs(x);
  int e = std::ilogb(a);
  const uint32_t mant = uint32_t(std::ldexp(a, 10 - e)) - 1024;
  return sign | uint32_t(e + 15) << 10 | mant;
}
uint64_t bf16_bits(double x) { return std::bit_cast<uint32_t>(float(x)) >> 16; }
uint64_t fp8_bits(double x, bool e4m3) {  // small integers (|x| <= 8) exactly
  if (x == 0) return 0;
  const uint32_t sign = x < 0 ? 0x80 : 0;
  const double a = std::fabs(x);
  const int e = std::ilogb(a), mb = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const uint32_t mant = uint32_t(std::ldexp(a, mb - e)) - (1u << mb);
  return sign | uint32_t(e + bias) << mb | mant;
}
double f32_value(uint64_t b) { return std::bit_cast<float>(uint32_t(b)); }
double f16_value(uint64_t h) {
  const int e = int(h >> 10 & 31), m = int(h & 1023);
  const double v = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
  return (h & 0x8000) ? -v : v;
}

// ---- float kinds ------------------------------------------------------------------------------------

struct FloatCase {
  Form f;
  tc::ElemFmt fa, fb;
  tc::AccFmt acc;
};

std::vector<FloatCase> float_cases() {
  using tc::ElemFmt;
  using tc::AccFmt;
  return {
      {{"m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, F16, F16, Acc32, Acc32}, ElemFmt::F16, ElemFmt::F16, AccFmt::F32},
      {{"m16n8k16.row.col.f16.f16.f16.f16", 16, 8, 16, F16, F16, Acc16, Acc16}, ElemFmt::F16, ElemFmt::F16, AccFmt::F16},
      {{"m16n8k8.row.col.f32.f16.f16.f32", 16, 8, 8, F16, F16, Acc32, Acc32}, ElemFmt::F16, ElemFmt::F16, AccFmt::F32},
      {{"m16n8k8.row.col.f16.f16.f16.f16", 16, 8, 8, F16, F16, Acc16, Acc16}, ElemFmt::F16, ElemFmt::F16, AccFmt::F16},
      {{"m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, F16, F16, Acc32, Acc32}, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32},
      {{"m16n8k8.row.col.f32.bf16.bf16.f32", 16, 8, 8, F16, F16, Acc32, Acc32}, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32},
      {{"m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8, TF32, TF32, Acc32, Acc32}, ElemFmt::TF32, ElemFmt::TF32, AccFmt::F32},
      {{"m16n8k4.row.col.f32.tf32.tf32.f32", 16, 8, 4, TF32, TF32, Acc32, Acc32}, ElemFmt::TF32, ElemFmt::TF32, AccFmt::F32},
      {{"m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 8, 32, I8, I8, Acc32, Acc32}, ElemFmt::E4M3, ElemFmt::E4M3, AccFmt::F32},
      {{"m16n8k32.row.col.f32.e4m3.e5m2.f32", 16, 8, 32, I8, I8, Acc32, Acc32}, ElemFmt::E4M3, ElemFmt::E5M2, AccFmt::F32},
      {{"m16n8k32.row.col.f16.e5m2.e4m3.f16", 16, 8, 32, I8, I8, Acc16, Acc16}, ElemFmt::E5M2, ElemFmt::E4M3, AccFmt::F16},
      {{"m16n8k16.row.col.f32.e5m2.e5m2.f32", 16, 8, 16, I8, I8, Acc32, Acc32}, ElemFmt::E5M2, ElemFmt::E5M2, AccFmt::F32},
      {{"m16n8k16.row.col.f16.e4m3.e4m3.f16", 16, 8, 16, I8, I8, Acc16, Acc16}, ElemFmt::E4M3, ElemFmt::E4M3, AccFmt::F16},
  };
}

int elem_width(tc::ElemFmt f) {
  switch (f) {
    case tc::ElemFmt::F16:
    case tc::ElemFmt::BF16: return 16;
    case tc::ElemFmt::TF32: return 32;
    default: return 8;
  }
}

// A 16x8 GEMM tile of small integers: the exact answer, whatever the rounding, since every partial
// sum is an integer well inside every format.
TEST(MmaSync, SmallIntegerTilesAreExact) {
  std::mt19937_64 rng(seed_for_test());
  for (const std::string target : {"sm_90a", "sm_100a"})
    for (const FloatCase& fc : float_cases()) {
      SCOPED_TRACE(target + " mma.sync.aligned." + fc.f.mods);
      const Form& f = fc.f;
      std::vector<double> a(size_t(f.m * f.k)), b(size_t(f.k * f.n)), c(size_t(f.m * f.n));
      for (auto& x : a) x = double(int(rng() % 9) - 4);
      for (auto& x : b) x = double(int(rng() % 9) - 4);
      for (auto& x : c) x = double(int(rng() % 201) - 100);
      auto enc = [&](double x, tc::ElemFmt fmt) -> uint64_t {
        switch (fmt) {
          case tc::ElemFmt::F16: return f16_bits(x);
          case tc::ElemFmt::BF16: return bf16_bits(x);
          case tc::ElemFmt::TF32: return f32_bits(x) | (rng() & 0x1FFF);  // low 13 bits are ignored
          case tc::ElemFmt::E4M3: return fp8_bits(x, true);
          default: return fp8_bits(x, false);
        }
      };
      std::vector<uint64_t> A, B, C;
      for (double x : a) A.push_back(enc(x, fc.fa));
      for (double x : b) B.push_back(enc(x, fc.fb));
      for (double x : c) C.push_back(fc.acc == tc::AccFmt::F32 ? f32_bits(x) : f16_bits(x));
      const auto D = run_mma(f, target, A, B, C);
      for (int i = 0; i < f.m; ++i)
        for (int j = 0; j < f.n; ++j) {
          double want = c[size_t(i * f.n + j)];
          for (int k = 0; k < f.k; ++k) want += a[size_t(i * f.k + k)] * b[size_t(k * f.n + j)];
          const double got = fc.acc == tc::AccFmt::F32 ? f32_value(D[size_t(i * f.n + j)]) : f16_value(D[size_t(i * f.n + j)]);
          ASSERT_EQ(got, want) << "D[" << i << "][" << j << "]";
        }
    }
}

// Random bit patterns (NaN, Inf, subnormals) and finite values in a narrow exponent band, against
// the exact reference of the arithmetic model the instruction maps to.
TEST(MmaSync, RandomBitsMatchTheExactReference) {
  std::mt19937_64 rng(seed_for_test());
  for (const std::string target : {"sm_90a", "sm_100a"})
    for (const FloatCase& fc : float_cases()) {
      SCOPED_TRACE(target + " mma.sync.aligned." + fc.f.mods);
      const Form& f = fc.f;
      const tc::DotModel* model = tc::find_model(target == "sm_90a" ? tc::Arch::SM90 : tc::Arch::SM100,
                                                 tc::Unit::MmaSync, fc.fa, fc.fb, fc.acc);
      ASSERT_NE(model, nullptr);
      for (int rep = 0; rep < 2; ++rep) {
        std::vector<uint64_t> A(size_t(f.m * f.k)), B(size_t(f.k * f.n)), C(size_t(f.m * f.n));
        const int wa = elem_width(fc.fa), wb = elem_width(fc.fb), wc = fc.acc == tc::AccFmt::F32 ? 32 : 16;
        auto raw = [&](int w) { return rng() & (w == 32 ? 0xFFFFFFFFull : (uint64_t{1} << w) - 1); };
        // rep 0: raw bits; rep 1: finite values in [0.5, 2) with random sign and mantissa.
        auto near_one = [&](tc::ElemFmt fmt) -> uint64_t {
          const uint64_t r = rng(), hi = (r >> 40) & 1;
          switch (fmt) {
            case tc::ElemFmt::E4M3: return (r & 0x87) | (hi ? 0x38 : 0x30);
            case tc::ElemFmt::E5M2: return (r & 0x83) | (hi ? 0x3C : 0x38);
            case tc::ElemFmt::F16: return (r & 0x83FF) | (hi ? 0x3C00 : 0x3800);
            case tc::ElemFmt::BF16: return (r & 0x807F) | (hi ? 0x3F80 : 0x3F00);
            default: return (r & 0x807FFFFF) | (hi ? 0x3F800000 : 0x3F000000);  // f32 / tf32
          }
        };
        const tc::ElemFmt fcf = fc.acc == tc::AccFmt::F32 ? tc::ElemFmt::F32 : tc::ElemFmt::F16;
        for (auto& x : A) x = rep == 0 ? raw(wa) : near_one(fc.fa);
        for (auto& x : B) x = rep == 0 ? raw(wb) : near_one(fc.fb);
        for (auto& x : C) x = rep == 0 ? raw(wc) : near_one(fcf);
        const auto D = run_mma(f, target, A, B, C);
        std::vector<uint32_t> a32(A.begin(), A.end()), b32(B.begin(), B.end()), c32(C.begin(), C.end()),
            want(size_t(f.m * f.n));
        tc::ref::gemm(*model, fc.fa, a32.data(), fc.fb, b32.data(), c32.data(), want.data(), f.m, f.n, f.k);
        for (int i = 0; i < f.m * f.n; ++i) ASSERT_EQ(D[size_t(i)], want[size_t(i)]) << "element " << i;
      }
    }
}

// ---- integer and f64 ----------------------------------------------------------------------------------

TEST(MmaSync, IntegerWrapAndSatfinite) {
  std::mt19937_64 rng(seed_for_test());
  struct IC {
    std::string mods;
    int m, k;
    bool sa, sb, sat;
  };
  const std::vector<IC> cases = {
      {"m16n8k32.row.col.s32.s8.s8.s32", 16, 32, true, true, false},
      {"m16n8k32.row.col.satfinite.s32.u8.s8.s32", 16, 32, false, true, true},
      {"m16n8k16.row.col.s32.u8.u8.s32", 16, 16, false, false, false},
      {"m16n8k16.row.col.s32.s8.u8.s32.satfinite", 16, 16, true, false, true},
      {"m8n8k16.row.col.s32.s8.s8.s32", 8, 16, true, true, false},
      {"m8n8k16.row.col.satfinite.s32.u8.u8.s32", 8, 16, false, false, true},
  };
  for (const IC& ic : cases) {
    SCOPED_TRACE(ic.mods);
    const Form f{ic.mods, ic.m, 8, ic.k, I8, I8, Acc32, Acc32};
    std::vector<uint64_t> A(size_t(f.m * f.k)), B(size_t(f.k * f.n)), C(size_t(f.m * f.n));
    for (auto& x : A) x = rng() & 0xFF;
    for (auto& x : B) x = rng() & 0xFF;
    // C near the ends of the s32 range so that the sum overflows both ways.
    for (auto& x : C) x = uint32_t(int32_t((rng() & 1) ? INT32_MAX - int32_t(rng() % 400000) : INT32_MIN + int32_t(rng() % 400000)));
    const auto D = run_mma(f, "sm_90a", A, B, C);
    for (int i = 0; i < f.m; ++i)
      for (int j = 0; j < f.n; ++j) {
        int64_t acc = int32_t(uint32_t(C[size_t(i * f.n + j)]));
        for (int k = 0; k < f.k; ++k) {
          const int64_t x = ic.sa ? int8_t(A[size_t(i * f.k + k)]) : int64_t(A[size_t(i * f.k + k)]);
          const int64_t y = ic.sb ? int8_t(B[size_t(k * f.n + j)]) : int64_t(B[size_t(k * f.n + j)]);
          acc += x * y;
        }
        const uint32_t want = ic.sat ? uint32_t(int32_t(std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX))) : uint32_t(acc);
        ASSERT_EQ(uint32_t(D[size_t(i * f.n + j)]), want) << "D[" << i << "][" << j << "]";
      }
  }
}

// .s4/.u4 and .b1: random elements, C near both ends of the s32 range, against a plain integer GEMM
// (and, for .b1, the ISA's definition: popc of the bitwise AND / XOR, summed into s32).
TEST(MmaSync, SubByteIntegerAndBitForms) {
  std::mt19937_64 rng(seed_for_test());
  struct SC {
    std::string mods;
    int m, k;
    Cls cls;
    bool sa, sb, sat;
    char op;  // '*' integer product, '&' AND.popc, '^' XOR.popc
  };
  const std::vector<SC> cases = {
      {"m8n8k32.row.col.s32.s4.s4.s32", 8, 32, I4, true, true, false, '*'},
      {"m8n8k32.row.col.satfinite.s32.u4.s4.s32", 8, 32, I4, false, true, true, '*'},
      {"m16n8k32.row.col.s32.s4.u4.s32", 16, 32, I4, true, false, false, '*'},
      {"m16n8k32.row.col.satfinite.s32.s4.s4.s32", 16, 32, I4, true, true, true, '*'},
      {"m16n8k64.row.col.s32.u4.u4.s32", 16, 64, I4, false, false, false, '*'},
      {"m16n8k64.row.col.s32.s4.s4.s32.satfinite", 16, 64, I4, true, true, true, '*'},
      {"m8n8k128.row.col.s32.b1.b1.s32.xor.popc", 8, 128, B1, false, false, false, '^'},
      {"m8n8k128.row.col.s32.b1.b1.s32.and.popc", 8, 128, B1, false, false, false, '&'},
      {"m16n8k128.row.col.s32.b1.b1.s32.xor.popc", 16, 128, B1, false, false, false, '^'},
      {"m16n8k128.row.col.s32.b1.b1.s32.and.popc", 16, 128, B1, false, false, false, '&'},
      {"m16n8k256.row.col.s32.b1.b1.s32.xor.popc", 16, 256, B1, false, false, false, '^'},
      {"m16n8k256.row.col.s32.b1.b1.s32.and.popc", 16, 256, B1, false, false, false, '&'},
  };
  for (const std::string target : {"sm_90a", "sm_100a"})
    for (const SC& sc : cases) {
      SCOPED_TRACE(target + " mma.sync.aligned." + sc.mods);
      const Form f{sc.mods, sc.m, 8, sc.k, sc.cls, sc.cls, Acc32, Acc32};
      const uint64_t emask = sc.cls == I4 ? 0xF : 1;
      std::vector<uint64_t> A(size_t(f.m * f.k)), B(size_t(f.k * f.n)), C(size_t(f.m * f.n));
      for (auto& x : A) x = rng() & emask;
      for (auto& x : B) x = rng() & emask;
      for (auto& x : C)
        x = uint32_t(int32_t((rng() & 1) ? INT32_MAX - int32_t(rng() % 3000) : INT32_MIN + int32_t(rng() % 3000)));
      const auto D = run_mma(f, target, A, B, C);
      auto val = [](uint64_t x, bool sgn) { return sgn && (x & 8) ? int64_t(x) - 16 : int64_t(x); };
      for (int i = 0; i < f.m; ++i)
        for (int j = 0; j < f.n; ++j) {
          int64_t acc = int32_t(uint32_t(C[size_t(i * f.n + j)]));
          for (int k = 0; k < f.k; ++k) {
            const uint64_t a = A[size_t(i * f.k + k)], b = B[size_t(k * f.n + j)];
            if (sc.op == '*') acc += val(a, sc.sa) * val(b, sc.sb);
            else acc += sc.op == '&' ? int64_t(a & b) : int64_t(a ^ b);
          }
          const uint32_t want = sc.sat ? uint32_t(int32_t(std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX))) : uint32_t(acc);
          ASSERT_EQ(uint32_t(D[size_t(i * f.n + j)]), want) << "D[" << i << "][" << j << "]";
        }
    }
}

// m8n8k4 .f16: four independent 8x8x4 products, one per quad pair (PTX ISA 9.7.14.5.1), each
// element computed as the code ptxas 13.0 emits on sm_80+: .f32 D an FFMA chain from +0 in
// increasing k, then an FADD of C; .f16 D (c + fma(a1,b1,a0*b0)) + fma(a3,b3,a2*b2) in f32, then
// RN to f16. Operands are packed with the ISA's row/col formulas written out here; the reference
// uses the host's IEEE fmaf / float add and the compiler's binary16 conversion (host_half.h).
TEST(MmaSync, M8n8k4F16IsFourQuadPairProductsWithAnFmaChain) {
  std::mt19937_64 rng(seed_for_test());
  auto f16_rand = [&]() -> uint16_t {  // finite, exponents 2^-8 .. 2^7, so that roundings differ
    return uint16_t((rng() & 0x83FF) | uint64_t(7 + rng() % 16) << 10);
  };
  for (const std::string target : {"sm_90a", "sm_100a"})
    for (const char* alay : {"row", "col"})
      for (const char* blay : {"row", "col"})
        for (int form = 0; form < 3; ++form) {  // D.C = f32.f32, f32.f16, f16.f16
          const bool c16 = form > 0, d16 = form == 2;
          const std::string mods = std::string("m8n8k4.") + alay + "." + blay + (d16 ? ".f16" : ".f32") + ".f16.f16." +
                                   (c16 ? "f16" : "f32");
          SCOPED_TRACE(target + " mma.sync.aligned." + mods);
          Form f{mods, 8, 8, 4, F16, F16, c16 ? Acc16 : Acc32, d16 ? Acc16 : Acc32, {2, 2, c16 ? 4 : 8, d16 ? 4 : 8}};
          // Product j's matrices: A[j] 8x4, B[j] 4x8, C[j] 8x8 (f16 or f32 bits).
          uint16_t A[4][8][4], B[4][4][8];
          uint32_t C[4][8][8];
          for (auto& m : A) for (auto& r : m) for (auto& x : r) x = f16_rand();
          for (auto& m : B) for (auto& r : m) for (auto& x : r) x = f16_rand();
          for (auto& m : C)
            for (auto& r : m)
              for (auto& x : r) x = c16 ? f16_rand() : std::bit_cast<uint32_t>(float(std::ldexp(double(int(rng() % 2001) - 1000), -int(rng() % 12))));
          // Per-lane registers from the ISA formulas (t = lane, j = product, hi = rows/cols 4-7).
          std::vector<uint32_t> ra(64, 0), rb(64, 0), rc(size_t(32 * (c16 ? 4 : 8)), 0);
          for (int t = 0; t < 32; ++t) {
            const int j = (t >> 2) & 3, hi = t >= 16 ? 4 : 0;
            for (int i = 0; i < 4; ++i) {
              const uint16_t a = alay[0] == 'r' ? A[j][t % 4 + hi][i] : A[j][i % 4 + hi][t % 4];
              const uint16_t b = blay[0] == 'r' ? B[j][t % 4][i + hi] : B[j][i][t % 4 + hi];
              ra[size_t(t * 2 + i / 2)] |= uint32_t(a) << (16 * (i % 2));
              rb[size_t(t * 2 + i / 2)] |= uint32_t(b) << (16 * (i % 2));
            }
            for (int i = 0; i < 8; ++i) {
              if (c16) {
                rc[size_t(t * 4 + i / 2)] |= C[j][t % 4 + hi][i] << (16 * (i % 2));
              } else {
                const int row = (t & 1) + (i & 2) + hi, col = (i & 4) + (t & 2) + (i & 1);
                rc[size_t(t * 8 + i)] = C[j][row][col];
              }
            }
          }
          Device dev;
          const uint64_t da = dev.upload(ra), db = dev.upload(rb), dc = dev.upload(rc), dd = dev.alloc(32 * 8 * 4);
          const RunResult r = run(module(mma_kernel(f), target), dev, {da, db, dc, dd});
          ASSERT_EQ(r.status, RunStatus::Completed) << to_string(r.status) << "\n" << r.report;
          const auto got = dev.download<uint32_t>(dd, 32 * 8);
          for (int t = 0; t < 32; ++t) {
            const int j = (t >> 2) & 3, hi = t >= 16 ? 4 : 0;
            for (int i = 0; i < 8; ++i) {
              // .f32 D: Figure 51/52 positions; .f16 D: lane's row, column i, two per register.
              const int row = d16 ? t % 4 + hi : (t & 1) + (i & 2) + hi, col = d16 ? i : (i & 4) + (t & 2) + (i & 1);
              auto a = [&](int k) { return float(f16_value(A[j][row][k])); };
              auto b = [&](int k) { return float(f16_value(B[j][k][col])); };
              const float cv = c16 ? float(f16_value(C[j][row][col])) : std::bit_cast<float>(C[j][row][col]);
              uint32_t want;
              if (d16) {
                const float p01 = std::fmaf(a(1), b(1), a(0) * b(0)), p23 = std::fmaf(a(3), b(3), a(2) * b(2));
                want = std::bit_cast<uint16_t>(static_cast<test::HostHalf>((cv + p01) + p23));
              } else {
                float acc = 0.0f;
                for (int k = 0; k < 4; ++k) acc = std::fmaf(a(k), b(k), acc);
                want = std::bit_cast<uint32_t>(cv + acc);
              }
              const uint32_t g = d16 ? (got[size_t(t * 4 + i / 2)] >> (16 * (i % 2))) & 0xFFFF : got[size_t(t * 8 + i)];
              ASSERT_EQ(g, want) << "lane " << t << " d" << i << " (product " << j << ", row " << row << ", col " << col << ")";
            }
          }
        }
}

// ---- mma.sp (sparse A) ------------------------------------------------------------------------------
//
// Written from PTX ISA 9.7.14.6: A is structured-sparse (2:4, .tf32 1:2) and packed 16 x K/2 with
// the dense register layout of half the K; the metadata of the lanes sp-sel picks gives each chunk's
// kept columns. Layouts of the metadata and of the sparse B are written out here from the thread's
// side. The reference gathers, for each row, the B elements its metadata selects and evaluates the
// model row's exact reference (Boost) on those K/2 products.

struct SpCase {
  std::string mods;  // after "mma.sp[::ordered_metadata].sync.aligned."
  int kind;          // 0 .f16/.bf16 (K 32), 1 .tf32 (K 16), 2 8-bit (K 64), 3 .s4/.u4 (K 128, 4:8 pair-wise)
  tc::ElemFmt fa, fb;
  tc::AccFmt acc;
  bool ordered = false, sa = false, sb = false, sat = false;
  int sel = 0;
  bool fp8 = false;  // kind 2 with .e4m3/.e5m2 (fa, fb) instead of .s8/.u8
  bool exact_int() const { return kind >= 2 && !fp8; }
};

struct SpRun {
  RunResult r;
  std::vector<uint64_t> D;
};

// B of the sparse shapes (K x 8): element i of lane t.
RCp sparse_b(int kind, int t, int i) {
  const int g = t >> 2, q = t % 4;
  if (kind == 0) return {2 * q + (i & 1) + 8 * (i >> 1), g};
  if (kind == 1) return {q + 4 * i, g};
  // .s4/.u4 m16n8k128: eight per register. Its figure was not readable; this is the 8-bit layout on
  // byte units (rows 8q..8q+7 per register, + 32 per register), as the dense m16n8k64 .s4 B is of
  // the dense m16n8k32 .s8 B.
  if (kind == 3) return {8 * q + (i & 7) + 32 * (i >> 3), g};
  return {4 * q + (i & 3) + 16 * (i >> 2), g};
}

std::string sp_kernel(const std::string& opcode, int na, int nb, int nc, int nd, bool f32acc, int sel) {
  const std::string rc = f32acc ? "%f" : "%r";
  std::string s = ".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 e, .param .u64 d) {\n"
                  "  .reg .b32 %r<80>;\n  .reg .f32 %f<80>;\n  .reg .b64 %rd<20>;\n  mov.u32 %r79, %tid.x;\n";
  auto base = [&](const char* param, int n, int rd_i) {
    const std::string r = "%rd" + std::to_string(rd_i);
    return "  ld.param.u64 " + r + ", [" + param + "];\n  cvta.to.global.u64 " + r + ", " + r + ";\n  mul.wide.u32 %rd10, %r79, " +
           std::to_string(n * 4) + ";\n  add.u64 " + r + ", " + r + ", %rd10;\n";
  };
  s += base("a", na, 1);
  for (int i = 0; i < na; ++i) s += "  ld.global.b32 %r" + std::to_string(i) + ", [%rd1+" + std::to_string(4 * i) + "];\n";
  s += base("b", nb, 2);
  for (int i = 0; i < nb; ++i) s += "  ld.global.b32 %r" + std::to_string(20 + i) + ", [%rd2+" + std::to_string(4 * i) + "];\n";
  s += base("c", nc, 3);
  for (int i = 0; i < nc; ++i)
    s += std::string("  ld.global.") + (f32acc ? "f32 " : "b32 ") + rc + std::to_string(40 + i) + ", [%rd3+" + std::to_string(4 * i) + "];\n";
  s += base("e", 1, 5) + "  ld.global.b32 %r78, [%rd5];\n";
  s += "  " + opcode + " " + reg_list(rc.c_str(), 60, nd) + ", " + reg_list("%r", 0, na) + ", " + reg_list("%r", 20, nb) + ", " +
       reg_list(rc.c_str(), 40, nc) + ", %r78, " + std::to_string(sel) + ";\n";
  s += base("d", nd, 4);
  for (int i = 0; i < nd; ++i)
    s += std::string("  st.global.") + (f32acc ? "f32 " : "b32 ") + "[%rd4+" + std::to_string(4 * i) + "], " + rc + std::to_string(60 + i) + ";\n";
  return s + "  ret;\n}\n";
}

// Runs one mma.sp: P packed A (16 x K/2), B (K x 8), C (16 x 8) element bits, nib[row * chunks + chunk]
// the metadata nibbles. `corrupt` >= 0: bits 7:4 of that lane's metadata are replaced by `bad`.
SpRun run_sp(const SpCase& sc, const std::vector<uint64_t>& P, const std::vector<uint64_t>& B,
             const std::vector<uint64_t>& C, const std::vector<uint32_t>& nib, int corrupt = -1, uint32_t bad = 0) {
  const int K = sc.kind == 0 ? 32 : sc.kind == 1 ? 16 : sc.kind == 2 ? 64 : 128, KP = K / 2, chunks = sc.kind >= 2 ? 16 : 8;
  const Cls cls = sc.kind == 0 ? F16 : sc.kind == 1 ? TF32 : sc.kind == 2 ? I8 : I4;
  const int per = 32 / cls_bits(cls);
  const bool int_acc = sc.exact_int(), f16acc = sc.acc == tc::AccFmt::F16;
  const Cls cc = f16acc ? Acc16 : Acc32;
  const auto ra = pack(P, KP, 16, KP, 'A', cls, 16 * KP / 32);
  std::vector<uint64_t> rb(size_t(32 * 4), 0);
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < 4 * per; ++i) {
      const RCp rc = sparse_b(sc.kind, t, i);
      rb[size_t(t * 4 + i / per)] |= B[size_t(rc.row * 8 + rc.col)] << (cls_bits(cls) * (i % per));
    }
  const auto rcv = pack(C, 8, 16, K, 'C', cc, 4);
  std::vector<uint32_t> meta(32, 0);
  for (int t = 0; t < 32; ++t) {
    const int q = t / 4, u = t % 4;
    uint32_t w = 0;
    if (sc.kind >= 2) {  // every lane: row q + 8 (u % 2), chunks 8 (u / 2) .. +7
      for (int j = 0; j < 8; ++j) w |= nib[size_t((q + 8 * (u % 2)) * chunks + 8 * (u / 2) + j)] << (4 * j);
    } else if (u / 2 == sc.sel) {  // the lane pair sp-sel picks: rows q (bits 15:0), q + 8 (31:16)
      for (int half = 0; half < 2; ++half)
        for (int j = 0; j < 4; ++j) w |= nib[size_t((q + 8 * half) * chunks + 4 * (u % 2) + j)] << (16 * half + 4 * j);
    }
    meta[size_t(t)] = w;  // other lanes: 0, invalid, must be ignored
  }
  if (corrupt >= 0) meta[size_t(corrupt)] = (meta[size_t(corrupt)] & ~0xF0u) | bad << 4;
  auto narrow = [](const std::vector<uint64_t>& v) { return std::vector<uint32_t>(v.begin(), v.end()); };
  Device dev;
  const uint64_t da = dev.upload(narrow(ra)), db = dev.upload(narrow(rb)), dc = dev.upload(narrow(rcv)),
                 de = dev.upload(meta), dd = dev.alloc(32 * 4 * 4);
  const std::string opcode = std::string(sc.ordered ? "mma.sp::ordered_metadata" : "mma.sp") + ".sync.aligned." + sc.mods;
  const int nc = f16acc ? 2 : 4;
  SpRun out;
  out.r = run(module(sp_kernel(opcode, 16 * KP / 32 / per, 4, nc, nc, !int_acc && !f16acc, sc.sel), "sm_90a"), dev,
              {da, db, dc, de, dd});
  if (out.r.status != RunStatus::Completed) return out;
  auto v = dev.download<uint32_t>(dd, size_t(32 * nc));
  out.D = unpack(std::vector<uint64_t>(v.begin(), v.end()), 16, 8, 16, cc);
  return out;
}

std::vector<SpCase> sp_cases() {
  using tc::ElemFmt;
  using tc::AccFmt;
  std::vector<SpCase> v = {
      {"m16n8k32.row.col.f32.f16.f16.f32", 0, ElemFmt::F16, ElemFmt::F16, AccFmt::F32},
      {"m16n8k32.row.col.f16.f16.f16.f16", 0, ElemFmt::F16, ElemFmt::F16, AccFmt::F16},
      {"m16n8k32.row.col.f32.bf16.bf16.f32", 0, ElemFmt::BF16, ElemFmt::BF16, AccFmt::F32},
      {"m16n8k16.row.col.f32.tf32.tf32.f32", 1, ElemFmt::TF32, ElemFmt::TF32, AccFmt::F32},
      {"m16n8k64.row.col.s32.s8.u8.s32", 2, ElemFmt::F16, ElemFmt::F16, AccFmt::F32, false, true, false},
      {"m16n8k64.row.col.satfinite.s32.u8.s8.s32", 2, ElemFmt::F16, ElemFmt::F16, AccFmt::F32, false, false, true, true},
  };
  v.push_back({"m16n8k64.row.col.f32.e4m3.e5m2.f32", 2, ElemFmt::E4M3, ElemFmt::E5M2, AccFmt::F32});
  v.push_back({"m16n8k64.row.col.f32.e5m2.e5m2.f32", 2, ElemFmt::E5M2, ElemFmt::E5M2, AccFmt::F32});
  v.push_back({"m16n8k128.row.col.s32.s4.u4.s32", 3, ElemFmt::F16, ElemFmt::F16, AccFmt::F32, false, true, false});
  v.push_back({"m16n8k128.row.col.satfinite.s32.u4.s4.s32", 3, ElemFmt::F16, ElemFmt::F16, AccFmt::F32, true, false, true, true});
  v[1].sel = 1;
  v[3].sel = 1;
  v[2].ordered = true;
  v[5].ordered = true;
  v[6].fp8 = v[7].fp8 = true;
  v[7].ordered = true;
  return v;
}

TEST(MmaSparse, KeptProductsAgainstTheModelReference) {
  std::mt19937_64 rng(seed_for_test());
  for (const SpCase& sc : sp_cases()) {
    SCOPED_TRACE(std::string(sc.ordered ? "mma.sp::ordered_metadata." : "mma.sp.") + sc.mods + " sel " + std::to_string(sc.sel));
    const int K = sc.kind == 0 ? 32 : sc.kind == 1 ? 16 : sc.kind == 2 ? 64 : 128, KP = K / 2;
    const int grp = sc.kind == 3 ? 2 : 1, chunk = sc.kind == 1 ? 2 : 4 * grp, chunks = K / chunk;  // .s4/.u4: pairs
    std::vector<uint32_t> nib(size_t(16 * chunks));
    std::vector<int> cols(size_t(16 * KP));  // the logical column of each packed element
    for (int r = 0; r < 16; ++r)
      for (int ch = 0; ch < chunks; ++ch) {
        if (sc.kind == 1) {
          const int i = int(rng() % 2);
          nib[size_t(r * chunks + ch)] = i ? 0xE : 0x4;
          cols[size_t(r * KP + ch)] = 2 * ch + i;
          continue;
        }
        int i0 = int(rng() % 4), i1 = int(rng() % 3);
        if (i1 >= i0) ++i1;
        if (sc.ordered ? i0 > i1 : rng() % 2) std::swap(i0, i1);
        nib[size_t(r * chunks + ch)] = uint32_t(i0 | i1 << 2);
        for (int e = 0; e < grp; ++e) {
          cols[size_t(r * KP + 2 * grp * ch + e)] = chunk * ch + grp * i0 + e;
          cols[size_t(r * KP + 2 * grp * ch + grp + e)] = chunk * ch + grp * i1 + e;
        }
      }
    auto bits = [&](int w) { return rng() & (w == 32 ? 0xFFFFFFFFull : (uint64_t{1} << w) - 1); };
    // Finite values near 1 for the float kinds (wide-exponent random bits would mostly be dominated
    // by one term), raw bits for 8-bit.
    auto elem = [&](tc::ElemFmt f) -> uint64_t {
      const uint64_t r = rng(), hi = (r >> 40) & 1;
      if (sc.exact_int()) return r & (sc.kind == 3 ? 0xF : 0xFF);
      if (f == tc::ElemFmt::E4M3) return (r & 0x87) | (hi ? 0x38 : 0x30);
      if (f == tc::ElemFmt::E5M2) return (r & 0x83) | (hi ? 0x3C : 0x38);
      if (f == tc::ElemFmt::F16) return (r & 0x83FF) | (hi ? 0x3C00 : 0x3800);
      if (f == tc::ElemFmt::BF16) return (r & 0x807F) | (hi ? 0x3F80 : 0x3F00);
      return (r & 0x807FFFFF) | (hi ? 0x3F800000 : 0x3F000000);
    };
    std::vector<uint64_t> P(size_t(16 * KP)), B(size_t(K * 8)), C(size_t(16 * 8));
    for (auto& x : P) x = elem(sc.fa);
    for (auto& x : B) x = elem(sc.fb);
    for (auto& x : C) x = sc.exact_int() ? bits(32) : elem(sc.acc == tc::AccFmt::F16 ? tc::ElemFmt::F16 : tc::ElemFmt::F32);
    if (sc.exact_int())  // C near the s32 ends so that sums overflow
      for (auto& x : C) x = uint32_t(int32_t((rng() & 1) ? INT32_MAX - int32_t(rng() % 100000) : INT32_MIN + int32_t(rng() % 100000)));
    const SpRun out = run_sp(sc, P, B, C, nib);
    ASSERT_EQ(out.r.status, RunStatus::Completed) << out.r.report;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) {
        uint32_t want;
        if (sc.exact_int()) {
          int64_t acc = int32_t(uint32_t(C[size_t(i * 8 + j)]));
          for (int p = 0; p < KP; ++p) {
            const uint64_t a = P[size_t(i * KP + p)], b = B[size_t(cols[size_t(i * KP + p)] * 8 + j)];
            const int sh = sc.kind == 3 ? 4 : 0;  // sign-extend 4- or 8-bit elements
            acc += (sc.sa ? int64_t(int8_t(uint8_t(a << sh)) >> sh) : int64_t(a)) *
                   (sc.sb ? int64_t(int8_t(uint8_t(b << sh)) >> sh) : int64_t(b));
          }
          want = sc.sat ? uint32_t(int32_t(std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX))) : uint32_t(acc);
        } else {
          const tc::DotModel* m = tc::find_model(tc::Arch::SM90, tc::Unit::MmaSync, sc.fa, sc.fb, sc.acc);
          ASSERT_NE(m, nullptr);
          std::vector<uint32_t> a(static_cast<size_t>(KP)), b(static_cast<size_t>(KP));
          for (int p = 0; p < KP; ++p) {
            a[size_t(p)] = uint32_t(P[size_t(i * KP + p)]);
            b[size_t(p)] = uint32_t(B[size_t(cols[size_t(i * KP + p)] * 8 + j)]);
          }
          want = tc::ref::dot(*m, sc.fa, a.data(), sc.fb, b.data(), KP, uint32_t(C[size_t(i * 8 + j)]));
        }
        ASSERT_EQ(uint32_t(out.D[size_t(i * 8 + j)]), want) << "D[" << i << "][" << j << "]";
      }
  }
}

TEST(MmaSparse, InvalidMetadataNamesLaneAndRule) {
  SpCase sc = sp_cases()[0];  // .f16, sp-sel 0
  std::vector<uint64_t> P(16 * 16, 0x3C00), B(32 * 8, 0x3C00), C(16 * 8, 0);
  std::vector<uint32_t> nib(16 * 8, 0x4);  // columns 0 and 1 of every chunk
  // Lane 5 (q 1, u 1: chunks 4..7 of rows 1 and 9): bits 7:4 hold row 1 chunk 5.
  SpRun out = run_sp(sc, P, B, C, nib, 5, 0x5);
  ASSERT_EQ(out.r.status, RunStatus::Fault);
  ASSERT_FALSE(out.r.diagnostics.empty());
  EXPECT_NE(out.r.diagnostics[0].message.find("mma.sp: invalid sparsity metadata 0x44444454 in lane 5 (sp-sel 0): bits 7:4 = "
                                              "0x5 for row 1 chunk 5 names one column twice (the two indices of a 2:4 "
                                              "chunk must differ; 0b0000, 0b0101, 0b1010 and 0b1111 are invalid) (PTX ISA "
                                              "9.7.14.6.1)"),
            std::string::npos)
      << out.r.diagnostics[0].message;
  // The same bad nibble in a lane sp-sel does not read is ignored.
  EXPECT_EQ(run_sp(sc, P, B, C, nib, 6, 0x5).r.status, RunStatus::Completed);
  // Decreasing indices (0b0001: columns 1 then 0): fine for .sp, undefined for ::ordered_metadata.
  EXPECT_EQ(run_sp(sc, P, B, C, nib, 5, 0x1).r.status, RunStatus::Completed);
  sc.ordered = true;
  out = run_sp(sc, P, B, C, nib, 5, 0x1);
  ASSERT_EQ(out.r.status, RunStatus::Fault);
  EXPECT_NE(out.r.diagnostics[0].message.find("mma.sp::ordered_metadata: invalid sparsity metadata 0x44444414 in lane 5 "
                                              "(sp-sel 0): bits 7:4 = 0x1 for row 1 chunk 5 is not in increasing order"),
            std::string::npos)
      << out.r.diagnostics[0].message;
  // .tf32: only 0b0100 and 0b1110.
  SpCase tf = sp_cases()[3];  // sp-sel 1: lanes 4q + 2, 4q + 3
  std::vector<uint64_t> P8(16 * 8, 0x3F800000), B16(16 * 8, 0x3F800000);
  out = run_sp(tf, P8, B16, C, nib, 7, 0x6);  // lane 7: q 1, u 3 (h 1): bits 7:4 = row 1 chunk 5
  ASSERT_EQ(out.r.status, RunStatus::Fault);
  EXPECT_NE(out.r.diagnostics[0].message.find("in lane 7 (sp-sel 1): bits 7:4 = 0x6 for row 1 chunk 5 is not a .tf32 index"),
            std::string::npos)
      << out.r.diagnostics[0].message;
}

TEST(MmaSparse, FormsGatesAndUnimplemented) {
  auto one = [](const std::string& instr, const std::string& target = "sm_90a", const std::string& version = "8.7") {
    return load_error(module(".visible .entry k() {\n .reg .b32 %r<40>;\n .reg .f32 %f<40>;\n " + instr + "\n ret;\n}\n", target, version));
  };
  auto has = [](const std::string& err, const std::string& words) {
    return err.find(words) != std::string::npos ? ::testing::AssertionSuccess()
                                                 : ::testing::AssertionFailure() << "'" << err << "' lacks '" << words << "'";
  };
  const std::string f4 = "{%f0, %f1, %f2, %f3}", r4 = "{%r4, %r5, %r6, %r7}", b4 = "{%r8, %r9, %r10, %r11}";
  const std::string k32 = "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 " + f4 + ", " + r4 + ", " + b4 + ", " + f4 + ", %r1, ";
  EXPECT_EQ(one(k32 + "1;", "sm_80", "7.1"), "");
  EXPECT_EQ(one("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.u8.s32.satfinite " + r4 + ", " + r4 + ", " + b4 + ", " + r4 + ", %r1, 0;"), "");
  EXPECT_TRUE(has(one(k32 + "2;"), "Argument 6 of instruction 'Sparse mma': value '2' out of range, expected to be in range [0..1]"));
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 " + r4 + ", " + r4 + ", " + b4 + ", " + r4 + ", %r1, 1;"),
                  "Argument 6 of instruction 'Sparse mma': value '1' out of range, expected to be in range [0..0]"));
  EXPECT_TRUE(has(one(k32 + "0;", "sm_80", "7.0"), "mma.sp"));
  EXPECT_TRUE(has(one("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 " + f4 + ", " + r4 + ", " + b4 + ", " + f4 + ", %r1, 0;", "sm_90a", "8.4"),
                  "8.5"));
  EXPECT_TRUE(has(one(k32 + "%r2;"), "Arguments mismatch for instruction 'mma'"));
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 " + f4 + ", {%r4, %r5}, " + b4 + ", " + f4 + ", %r1, 0;"), "mma"));
  // Recognised, not simulated: loud and named.
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + f4 + ", {%r4, %r5}, {%r8, %r9}, " + f4 + ", %r1, 3;"),
                  "unimplemented"));
  EXPECT_EQ(one("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32 " + f4 + ", " + r4 + ", " + b4 + ", " + f4 + ", %r1, 0;", "sm_89"), "");
  EXPECT_TRUE(has(one("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f16.e4m3.e5m2.f16 {%r0, %r1}, " + r4 + ", " + b4 + ", {%r2, %r3}, %r1, 0;", "sm_100a"),
                  "Instruction 'mma with with F16 accumulator and F8 floating point type' not supported on .target 'sm_100a'"));
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32 " + f4 + ", " + r4 + ", " + b4 + ", " + f4 + ", %r1, 0;", "sm_90a", "8.3"),
                  "8.4"));
  EXPECT_EQ(one("mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32 " + r4 + ", " + r4 + ", " + b4 + ", " + r4 + ", %r1, 0;", "sm_80", "7.1"), "");
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32 " + r4 + ", " + r4 + ", " + b4 + ", " + r4 + ", %r1, 1;"),
                  "Argument 6 of instruction 'Sparse mma': value '1' out of range, expected to be in range [0..0]"));
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32 " + r4 + ", {%r4, %r5}, " + b4 + ", " + r4 + ", %r1, 0;"), "mma"));
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32 " + r4 + ", " + r4 + ", " + b4 + ", " + r4 + ", %r1, 0;"),
                  "Incorrect instruction type specified for Sparse mma with shape '.m16n8k32'"));
  EXPECT_TRUE(has(one("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 " + r4 + ", {%r4, %r5}, {%r8, %r9}, " + r4 + ", %r1, 0;"),
                  "unimplemented"));
}

TEST(MmaSync, F64IsAnFmaChainInK) {
  std::mt19937_64 rng(seed_for_test());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::vector<Form> forms = {
      {"m8n8k4.row.col.f64.f64.f64.f64", 8, 8, 4, F64, F64, F64, F64},
      {"m16n8k4.row.col.f64.f64.f64.f64", 16, 8, 4, F64, F64, F64, F64},
      {"m16n8k8.row.col.f64.f64.f64.f64.rn", 16, 8, 8, F64, F64, F64, F64},
      {"m16n8k16.row.col.f64.f64.f64.f64", 16, 8, 16, F64, F64, F64, F64},
  };
  for (const Form& f : forms) {
    SCOPED_TRACE(f.mods);
    std::vector<double> a(size_t(f.m * f.k)), b(size_t(f.k * f.n)), c(size_t(f.m * f.n));
    for (auto& x : a) x = std::ldexp(u(rng), int(rng() % 20) - 10);
    for (auto& x : b) x = std::ldexp(u(rng), int(rng() % 20) - 10);
    for (auto& x : c) x = std::ldexp(u(rng), int(rng() % 20) - 10);
    auto bits = [](const std::vector<double>& v) {
      std::vector<uint64_t> r;
      for (double x : v) r.push_back(std::bit_cast<uint64_t>(x));
      return r;
    };
    const auto D = run_mma(f, "sm_90a", bits(a), bits(b), bits(c));
    for (int i = 0; i < f.m; ++i)
      for (int j = 0; j < f.n; ++j) {
        double d = c[size_t(i * f.n + j)];
        for (int k = 0; k < f.k; ++k) d = std::fma(a[size_t(i * f.k + k)], b[size_t(k * f.n + j)], d);
        ASSERT_EQ(D[size_t(i * f.n + j)], std::bit_cast<uint64_t>(d)) << "D[" << i << "][" << j << "]";
      }
  }
}

TEST(MmaSync, F64RoundingModifiers) {
  // D = C + A*B with C = +-1 and one product 2^-60: the exact result lies strictly between two
  // doubles, so each rounding mode picks a side.
  const double tiny = std::ldexp(1.0, -30);
  struct RM {
    const char* mod;
    double pos, neg;  // results for C = 1 and C = -1
  };
  const double up = std::nextafter(1.0, 2.0), down = std::nextafter(-1.0, 0.0);
  for (const RM& rm : {RM{"", 1.0, -1.0}, RM{".rn", 1.0, -1.0}, RM{".rz", 1.0, down}, RM{".rm", 1.0, -1.0},
                       RM{".rp", up, down}}) {
    SCOPED_TRACE(rm.mod);
    const Form f{std::string("m8n8k4.row.col.f64.f64.f64.f64") + rm.mod, 8, 8, 4, F64, F64, F64, F64};
    std::vector<uint64_t> A(32, 0), B(32, 0), C(64);
    for (int i = 0; i < 8; ++i) A[size_t(i * 4)] = std::bit_cast<uint64_t>(tiny);
    for (int j = 0; j < 8; ++j) B[size_t(j)] = std::bit_cast<uint64_t>(tiny);
    for (int x = 0; x < 64; ++x) C[size_t(x)] = std::bit_cast<uint64_t>(x % 2 ? -1.0 : 1.0);
    const auto D = run_mma(f, "sm_90a", A, B, C);
    for (int x = 0; x < 64; ++x)
      ASSERT_EQ(std::bit_cast<double>(D[size_t(x)]), x % 2 ? rm.neg : rm.pos) << "element " << x;
  }
}

// D may be the same registers as C (the usual accumulate) or overlap A.
TEST(MmaSync, DestinationMayAliasSources) {
  const std::string body = R"(
.visible .entry k(.param .u64 d) {
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  mov.b32 %r0, 0x3C003C00;
  mov.b32 %r1, 0x3C003C00;
  mov.b32 %r2, 0x3C003C00;
  mov.b32 %r3, 0x3C003C00;
  mov.b32 %r4, 0x3C003C00;
  mov.b32 %r5, 0x3C003C00;
  mov.f32 %f0, 0f3F800000;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F800000;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};
  mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r0, %r1}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r0, %r1};
  mov.u32 %r10, %tid.x;
  ld.param.u64 %rd1, [d];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r10, 24;
  add.u64 %rd1, %rd1, %rd2;
  st.global.f32 [%rd1], %f0;
  st.global.f32 [%rd1+4], %f1;
  st.global.f32 [%rd1+8], %f2;
  st.global.f32 [%rd1+12], %f3;
  st.global.b32 [%rd1+16], %r0;
  st.global.b32 [%rd1+20], %r1;
  ret;
}
)";
  Device dev;
  const uint64_t d = dev.alloc(32 * 24);
  const RunResult r = run(module(body, "sm_90a"), dev, {d});
  ASSERT_EQ(r.status, RunStatus::Completed) << r.report;
  const auto out = dev.download<uint32_t>(d, 32 * 6);
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[size_t(t * 6 + i)], std::bit_cast<uint32_t>(17.0f));  // 16 * 1 * 1 + 1
    // 1.0 (f16 0x3C00) * 1.0 summed 16 times + 1.0 = 17.0 (f16 0x4C40)
    EXPECT_EQ(out[size_t(t * 6 + 4)], 0x4C404C40u);
    EXPECT_EQ(out[size_t(t * 6 + 5)], 0x4C404C40u);
  }
}

TEST(MmaSync, PartialWarpFaults) {
  const std::string body = R"(
.visible .entry k() {
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .pred %p<2>;
  mov.u32 %r10, %tid.x;
  setp.lt.u32 %p1, %r10, 31;
  @%p1 mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};
  ret;
}
)";
  Device dev;
  const RunResult r = run(module(body, "sm_90a"), dev, {});
  ASSERT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.report.find("all 32 lanes"), std::string::npos) << r.report;
  // The same for the other mma entry points: sub-byte, m8n8k4 .f16, mma.sp.
  for (const std::string instr :
       {"mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%r0, %r1}, {%r2}, {%r3}, {%r0, %r1};",
        "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%f0, %f1, %f2, %f3}, %r8, 0;"}) {
    std::string b2 = body;
    const size_t at = b2.find("mma.sync.aligned.m16n8k16");
    b2.replace(at, b2.find('\n', at) - at, instr);
    const RunResult r2 = run(module(b2, "sm_90a"), dev, {});
    ASSERT_EQ(r2.status, RunStatus::Fault) << instr;
    EXPECT_NE(r2.report.find("needs all 32 lanes of the warp, but only lanes 0x7fffffff"), std::string::npos) << r2.report;
  }
}

// The sub-byte forms' gates and combination rules, with ptxas 13.0's words (each checked with
// ptxas on the same line; the one deliberate difference is marked).
TEST(MmaSync, SubByteFormsGatesAndDiagnostics) {
  auto one = [](const std::string& instr, const std::string& target, const std::string& version = "8.7") {
    return load_error(module(".visible .entry k() {\n .reg .b32 %r<40>;\n " + instr + "\n ret;\n}\n", target, version));
  };
  const std::string c4 = "{%r0, %r1, %r2, %r3}", a2 = "{%r4, %r5}", a4 = "{%r4, %r5, %r6, %r7}";
  const std::string k128 = "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32";
  const std::string k128_ops = " " + c4 + ", " + a2 + ", {%r8}, " + c4 + ";";
  // Accepted where ptxas accepts them (sm_75: the m8n8 shapes; sm_80+: all; .and: sm_80, PTX 7.1).
  EXPECT_EQ(one("mma.sync.aligned.m8n8k32.row.col.s32.s4.u4.s32 {%r0, %r1}, {%r4}, {%r8}, {%r0, %r1};", "sm_75", "6.5"), "");
  EXPECT_EQ(one("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r0, %r1}, {%r4}, {%r8}, {%r0, %r1};", "sm_75", "6.5"), "");
  EXPECT_EQ(one(k128 + ".and.popc" + k128_ops, "sm_80", "7.1"), "");
  EXPECT_EQ(one("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32 " + c4 + ", " + a4 + ", " + a2 + ", " + c4 + ";", "sm_100a"), "");
  EXPECT_EQ(one(k128 + ".xor.popc" + k128_ops, "sm_100a"), "");
  auto has = [](const std::string& err, const std::string& words) {
    return err.find(words) != std::string::npos ? ::testing::AssertionSuccess()
                                                 : ::testing::AssertionFailure() << "'" << err << "' lacks '" << words << "'";
  };
  EXPECT_TRUE(has(one(k128 + ".and.popc" + k128_ops, "sm_80", "7.0"), "requires PTX ISA .version 7.1"));
  EXPECT_TRUE(has(one(k128 + ".xor.popc" + k128_ops, "sm_75", "6.5"), "Modifier '.m16n8k128' of instruction 'mma' not supported on .target 'sm_75'"));
  EXPECT_TRUE(has(one(k128 + ".popc" + k128_ops, "sm_90a"), "Unexpected number of operations specified for mma with shape '.m16n8k128'"));
  EXPECT_TRUE(has(one(k128 + ".xor" + k128_ops, "sm_90a"), "Unexpected number of operations specified for mma with shape '.m16n8k128'"));
  EXPECT_TRUE(has(one(k128 + ".xor.and.popc" + k128_ops, "sm_90a"), "Unexpected number of operations specified for mma with shape '.m16n8k128'"));
  EXPECT_TRUE(has(one(k128 + k128_ops, "sm_90a"), "Boolean operation is required for instruction 'mma'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k128.row.col.satfinite.s32.b1.b1.s32.xor.popc" + k128_ops, "sm_90a"),
                  "Illegal modifier '.satfinite' for instruction 'mma'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k128.row.col.s32.u4.b1.s32.xor.popc" + k128_ops, "sm_90a"),
                  "Incorrect instruction type specified for mma with shape '.m16n8k128'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k64.row.col.s32.s4.s8.s32 " + c4 + ", " + a4 + ", " + a2 + ", " + c4 + ";", "sm_90a"),
                  "Unexpected instruction types specified for 'mma'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k64.row.col.f32.s4.s4.f32 " + c4 + ", " + a4 + ", " + a2 + ", " + c4 + ";", "sm_90a"),
                  "Incorrect instruction type specified for mma with shape '.m16n8k64'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k256.row.col.s32.s4.s4.s32 " + c4 + ", " + a4 + ", " + a2 + ", " + c4 + ";", "sm_90a"),
                  "Incorrect instruction type specified for mma with shape '.m16n8k256'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k32.row.col.s32.b1.b1.s32.xor.popc" + k128_ops, "sm_90a"),
                  "Incorrect instruction type specified for mma with shape '.m16n8k32'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m8n8k32.col.row.s32.s4.s4.s32 {%r0, %r1}, {%r4}, {%r8}, {%r0, %r1};", "sm_90a"),
                  "Illegal alayout '.col' for instruction 'mma'"));
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 " + c4 + ", {%r4, %r5, %r6}, " + a2 + ", " + c4 + ";", "sm_90a"),
                  "mma"));
  // ptxas 13.0 accepts (and ignores) .xor.popc with .s4; the PTX ISA defines it for .b1 only.
  EXPECT_TRUE(has(one("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32.xor.popc " + c4 + ", " + a4 + ", " + a2 + ", " + c4 + ";", "sm_90a"),
                  "'.and/.xor .popc' is only defined with .b1 for instruction 'mma'"));
}

TEST(MmaSync, FormsGatesAndUnimplemented) {
  auto one = [](const std::string& instr, const std::string& target, const std::string& version = "8.7") {
    return load_error(module(".visible .entry k() {\n .reg .b32 %r<40>;\n .reg .f32 %f<40>;\n .reg .f64 %d<40>;\n " +
                                 instr + "\n ret;\n}\n",
                             target, version));
  };
  const std::string f32x4 = "{%f0, %f1, %f2, %f3}", a4 = "{%r4, %r5, %r6, %r7}", b2 = "{%r8, %r9}";
  EXPECT_EQ(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_80"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_75"), "");
  // Layout, rounding, satfinite and type-combination rules of ptxas.
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.rn " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 " + f32x4 + ", " + a4 + ", " + b2 + ", {%r0, %r1};", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.f32.bf16.f16.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2}, " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a"), "");
  EXPECT_NE(one("mma.m16n8k16.row.col.f32.f16.f16.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64.rn.rz {%d0, %d1}, {%d2}, {%d3}, {%d4, %d5};", "sm_90a"), "");
  EXPECT_EQ(one("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64.rm {%d0, %d1}, {%d2}, {%d3}, {%d4, %d5};", "sm_80", "7.0"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%d0, %d1, %d2, %d3}, {%d4, %d5}, {%d6}, {%d7, %d8, %d9, %d10};", "sm_80", "7.8"), "");
  // fp8: sm_89+, PTX 8.4; the k16 shape and f16 accumulators from PTX 8.7.
  const std::string fp8 = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";";
  EXPECT_EQ(one(fp8, "sm_89", "8.4"), "");
  EXPECT_NE(one(fp8, "sm_80", "8.4"), "");
  EXPECT_NE(one(fp8, "sm_90a", "8.3"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32 " + f32x4 + ", {%r4, %r5}, {%r8}, " + f32x4 + ";", "sm_90a", "8.4"), "");
  EXPECT_NE(one("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%r0, %r1}, " + a4 + ", " + b2 + ", {%r2, %r3};", "sm_90a", "8.6"), "");
  // Recognised, not simulated: a load-time "unimplemented" naming the form.
  EXPECT_EQ(one("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r4, %r5}, {%r8, %r9}, {%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17};", "sm_90a"), "");
  EXPECT_EQ(one("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r8, %r9}, {%r10, %r11, %r12, %r13};", "sm_70", "6.4"), "");
  EXPECT_NE(one("mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r4, %r5}, {%r8, %r9}, {%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17};", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r4, %r5}, {%r8, %r9}, {%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17};", "sm_90a"), "");
  EXPECT_NE(one("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r8, %r9}, {%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17};", "sm_90a")
                .find(".dtype must be '.f32' when .ctype is '.f32' for 'mma' instruction with shape '.m8n8k4'"),
            std::string::npos);
  const std::string kind = one("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_120a");
  EXPECT_NE(kind.find("unimplemented"), std::string::npos) << kind;
  EXPECT_NE(one("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32 " + f32x4 + ", " + a4 + ", " + b2 + ", " + f32x4 + ";", "sm_90a").find("not supported"), std::string::npos);
  const std::string wmma = one("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15};", "sm_90a");
  EXPECT_EQ(wmma, "");  // simulated since wmma landed (tests/unit/wmma_test.cpp)
}

// ---- a multi-warp GEMM kernel: shared-memory tiles, ldmatrix, mma.sync --------------------------

// C[64x32] = A[64x64] * B[64x32] (f16 row-major in, f32 out) with 4 warps: warp w computes rows
// 16w..16w+15 as four m16n8 tiles, stepping K by 16; A fragments come from ldmatrix.x4, B
// fragments from ldmatrix.x2.trans.
std::string gemm_kernel() {
  std::string s = R"(
.visible .entry gemm(.param .u64 pa, .param .u64 pb, .param .u64 pc) {
  .reg .b32 %r<100>;
  .reg .f32 %f<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  .shared .align 16 .b8 sA[8192];
  .shared .align 16 .b8 sB[4096];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;        // lane
  shr.u32 %r3, %r1, 5;         // warp
  // Stage A (8192 bytes) and B (4096 bytes): 128 threads copy 64 + 32 bytes each.
  ld.param.u64 %rd1, [pa];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [pb];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r4, sA;
  mov.u32 %r5, sB;
  mul.lo.u32 %r6, %r1, 64;
  mov.u32 %r7, 0;
CA:
  add.u32 %r8, %r6, %r7;
  cvt.u64.u32 %rd3, %r8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd4];
  add.u32 %r9, %r4, %r8;
  st.shared.v4.u32 [%r9], {%r10, %r11, %r12, %r13};
  add.u32 %r7, %r7, 16;
  setp.lt.u32 %p1, %r7, 64;
  @%p1 bra CA;
  mul.lo.u32 %r6, %r1, 32;
  mov.u32 %r7, 0;
CB:
  add.u32 %r8, %r6, %r7;
  cvt.u64.u32 %rd3, %r8;
  add.u64 %rd4, %rd2, %rd3;
  ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd4];
  add.u32 %r9, %r5, %r8;
  st.shared.v4.u32 [%r9], {%r10, %r11, %r12, %r13};
  add.u32 %r7, %r7, 16;
  setp.lt.u32 %p1, %r7, 32;
  @%p1 bra CB;
  bar.sync 0;
  // Row addresses: A row 16w + lane%16, column half 8*(lane/16); B row lane%16.
  and.b32 %r20, %r2, 15;
  shr.u32 %r21, %r2, 4;
  mad.lo.u32 %r22, %r3, 16, %r20;      // A row
  mul.lo.u32 %r23, %r22, 128;          // * 64 halves * 2 bytes
  mad.lo.u32 %r23, %r21, 16, %r23;     // + 8 halves
  add.u32 %r23, %r23, %r4;             // A base for k0 = 0
  mul.lo.u32 %r24, %r20, 64;           // B row * 32 halves * 2 bytes
  add.u32 %r24, %r24, %r5;             // B base for k0 = 0, n0 = 0
)";
  for (int i = 0; i < 16; ++i) s += "  mov.f32 %f" + std::to_string(i) + ", 0f00000000;\n";
  for (int ks = 0; ks < 4; ++ks) {
    s += "  add.u32 %r30, %r23, " + std::to_string(ks * 32) + ";\n";
    s += "  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r40, %r41, %r42, %r43}, [%r30];\n";
    for (int nt = 0; nt < 4; ++nt) {
      s += "  add.u32 %r31, %r24, " + std::to_string(ks * 16 * 64 + nt * 16) + ";\n";
      s += "  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r44, %r45}, [%r31];\n";
      const std::string acc = "{%f" + std::to_string(4 * nt) + ", %f" + std::to_string(4 * nt + 1) + ", %f" +
                              std::to_string(4 * nt + 2) + ", %f" + std::to_string(4 * nt + 3) + "}";
      s += "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + acc + ", {%r40, %r41, %r42, %r43}, {%r44, %r45}, " +
           acc + ";\n";
    }
  }
  s += R"(  // Store: c_i of tile nt at row 16w + g + 8*(i/2), column 8nt + 2q + i%2.
  ld.param.u64 %rd5, [pc];
  cvta.to.global.u64 %rd5, %rd5;
  shr.u32 %r50, %r2, 2;                // g
  and.b32 %r51, %r2, 3;                // q
  mad.lo.u32 %r52, %r3, 16, %r50;      // row
  mul.lo.u32 %r53, %r52, 32;
  mad.lo.u32 %r53, %r51, 2, %r53;      // row * 32 + 2q
  mul.wide.u32 %rd6, %r53, 4;
  add.u64 %rd6, %rd5, %rd6;
)";
  for (int nt = 0; nt < 4; ++nt)
    for (int i = 0; i < 4; ++i) {
      const int off = ((i / 2) * 8 * 32 + nt * 8 + i % 2) * 4;
      s += "  st.global.f32 [%rd6+" + std::to_string(off) + "], %f" + std::to_string(4 * nt + i) + ";\n";
    }
  s += "  ret;\n}\n";
  return s;
}

TEST(MmaSync, MultiWarpGemmKernel) {
  std::mt19937_64 rng(seed_for_test());
  const int M = 64, N = 32, K = 64;
  const std::string ptx = module(gemm_kernel(), "sm_90a");
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "small integers (exact)" : "random f16 (model chained over k-steps)");
    std::vector<uint16_t> A(size_t(M * K)), B(size_t(K * N));
    std::vector<double> a(A.size()), b(B.size());
    for (size_t i = 0; i < A.size(); ++i) {
      if (round == 0) a[i] = double(int(rng() % 9) - 4);
      A[i] = round == 0 ? uint16_t(f16_bits(a[i])) : uint16_t((rng() & 0x83FF) | (0x3400 + ((rng() % 4) << 10)));
    }
    for (size_t i = 0; i < B.size(); ++i) {
      if (round == 0) b[i] = double(int(rng() % 9) - 4);
      B[i] = round == 0 ? uint16_t(f16_bits(b[i])) : uint16_t((rng() & 0x83FF) | (0x3400 + ((rng() % 4) << 10)));
    }
    Device dev;
    const uint64_t da = dev.upload(A), db = dev.upload(B), dc = dev.alloc(size_t(M * N * 4));
    const RunResult r = run(ptx, dev, {da, db, dc}, 128);
    ASSERT_EQ(r.status, RunStatus::Completed) << to_string(r.status) << "\n" << r.report;
    const auto C = dev.download<uint32_t>(dc, size_t(M * N));
    if (round == 0) {
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double want = 0;
          for (int k = 0; k < K; ++k) want += a[size_t(i * K + k)] * b[size_t(k * N + j)];
          ASSERT_EQ(std::bit_cast<float>(C[size_t(i * N + j)]), float(want)) << "C[" << i << "][" << j << "]";
        }
    } else {
      // Each k-step is one mma: D = model(A[:, 16s..], B[16s.., :], D), starting from +0.
      const tc::DotModel* m = tc::find_model(tc::Arch::SM90, tc::Unit::MmaSync, tc::ElemFmt::F16, tc::ElemFmt::F16,
                                             tc::AccFmt::F32);
      std::vector<uint32_t> D(size_t(M * N), 0);
      for (int s = 0; s < K / 16; ++s) {
        std::vector<uint32_t> as(size_t(M * 16)), bs(size_t(16 * N)), out(D.size());
        for (int i = 0; i < M; ++i)
          for (int k = 0; k < 16; ++k) as[size_t(i * 16 + k)] = A[size_t(i * K + 16 * s + k)];
        for (int k = 0; k < 16; ++k)
          for (int j = 0; j < N; ++j) bs[size_t(k * N + j)] = B[size_t((16 * s + k) * N + j)];
        tc::ref::gemm(*m, tc::ElemFmt::F16, as.data(), tc::ElemFmt::F16, bs.data(), D.data(), out.data(), M, N, 16);
        D = out;
      }
      for (int i = 0; i < M * N; ++i) ASSERT_EQ(C[size_t(i)], D[size_t(i)]) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace ptxsim
