// atom and red through the real pipeline (load_program + launch), against references computed
// here independently of ptxsim's numerics library.
//
// ptxsim applies the lanes of one atom/red in lane order (lane 0 first); the references below
// replay exactly that order, so every returned old value and every final memory value is compared
// bit for bit.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"
#include "sim/exec/address_space.h"
#include "tests/unit/ptx_test_util.h"

namespace ptxsim {
namespace {

using testutil::hex;
using testutil::kHead;
using testutil::line_of;
using testutil::test_seed;

const char* const kFile = "atom.ptx";
constexpr uint8_t kPoison = 0xCD;

std::string load_error(const std::string& body) {
  try {
    load_program(kHead + body, kFile);
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// One kernel: its program (loaded once) and launches on fresh memories.
struct Kernel {
  std::shared_ptr<const Program> prog;
  KernelInfo info;
  explicit Kernel(const std::string& body) {
    prog = load_program(kHead + body, kFile);
    info = kernels(*prog).at(0);
  }
};

struct Launch {
  model::GlobalMemory mem;
  const Kernel& k;
  std::vector<uint8_t> params;
  size_t next = 0;
  explicit Launch(const Kernel& kk) : k(kk) { params.assign(k.info.param_bytes, 0); }
  uint64_t alloc(size_t bytes, const std::string& name) {
    uint64_t a = mem.allocate(bytes, 256, name);
    std::vector<uint8_t> p(bytes, kPoison);
    mem.write(a, p.data(), bytes);
    return a;
  }
  template <class T>
  uint64_t alloc_data(const std::vector<T>& v, const std::string& name) {
    uint64_t a = alloc(v.size() * sizeof(T), name);
    mem.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> read(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    EXPECT_TRUE(mem.read(addr, v.data(), n * sizeof(T)));
    return v;
  }
  Launch& arg(uint64_t v) {
    const ParamInfo& p = k.info.params.at(next++);
    std::memcpy(params.data() + p.offset, &v, std::min<uint32_t>(p.size, 8));
    return *this;
  }
  RunResult run(Dim3 grid, Dim3 block, Dim3 cluster = {1, 1, 1}) {
    LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.cluster = cluster;
    cfg.cluster_given = cluster.count() > 1;
    cfg.max_seconds = 120;
    return launch(*k.prog, k.info.name, cfg, params, mem);
  }
};

#define EXPECT_COMPLETED(r) EXPECT_EQ((r).status, RunStatus::Completed) << (r).report
#define ASSERT_COMPLETED(r) ASSERT_EQ((r).status, RunStatus::Completed) << (r).report

// ---- independent floating-point references -----------------------------------------------------

float f32(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
double f64(uint64_t b) { return std::bit_cast<double>(b); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

// Rounds x to nearest even into a binary format with `eb` exponent and `mb` mantissa bits (IEEE
// layout, with Inf and NaN); NaN gives the canonical all-ones-but-sign pattern.
uint32_t encode(double x, int eb, int mb) {
  const int bias = (1 << (eb - 1)) - 1;
  const uint32_t sign = std::signbit(x) ? 1u << (eb + mb) : 0;
  if (std::isnan(x)) return (1u << (eb + mb)) - 1;
  const uint32_t inf = sign | (((1u << eb) - 1) << mb);
  double ax = std::fabs(x);
  if (std::isinf(ax)) return inf;
  if (ax == 0) return sign;
  int ex;
  std::frexp(ax, &ex);
  int e = std::max(ex - 1, 1 - bias);
  double q = std::rint(std::ldexp(ax, mb - e));  // host default rounding: to nearest even
  if (q >= std::ldexp(1.0, mb + 1)) {
    q /= 2;
    ++e;
  }
  if (e > bias) return inf;
  const bool normal = q >= std::ldexp(1.0, mb);
  const uint32_t field = normal ? uint32_t(e + bias) : 0;
  return sign | field << mb | (uint32_t(q) - (normal ? 1u << mb : 0));
}
double decode(uint32_t v, int eb, int mb) {
  const int bias = (1 << (eb - 1)) - 1;
  const bool s = (v >> (eb + mb)) & 1;
  const uint32_t e = (v >> mb) & ((1u << eb) - 1), m = v & ((1u << mb) - 1);
  double r;
  if (e == (1u << eb) - 1) r = m ? NAN : INFINITY;
  else if (e == 0) r = std::ldexp(double(m), 1 - bias - mb);
  else r = std::ldexp(double(m + (1u << mb)), int(e) - bias - mb);
  return s ? -r : r;
}
// Sums of two f16/bf16 values are exact in double (or round innocuously: 53 >= 2*11+2).
uint16_t add16(uint16_t a, uint16_t b, bool bf) {
  const int eb = bf ? 8 : 5, mb = bf ? 7 : 10;
  return uint16_t(encode(decode(a, eb, mb) + decode(b, eb, mb), eb, mb));
}
bool isnan16(uint16_t a, bool bf) { return std::isnan(decode(a, bf ? 8 : 5, bf ? 7 : 10)); }
// min/max: a NaN operand is ignored (both NaN: canonical NaN); -0 < +0.
uint16_t minmax16(uint16_t a, uint16_t b, bool bf, bool is_max) {
  const bool na = isnan16(a, bf), nb = isnan16(b, bf);
  if (na && nb) return 0x7fff;
  if (na) return b;
  if (nb) return a;
  const int eb = bf ? 8 : 5, mb = bf ? 7 : 10;
  double x = decode(a, eb, mb), y = decode(b, eb, mb);
  if (x == y && x == 0) {
    const bool a_neg = a >> 15;
    return is_max ? (a_neg ? b : a) : (a_neg ? a : b);
  }
  return (is_max ? x > y : x < y) ? a : b;
}
uint32_t pair(uint32_t a, uint32_t b, const std::function<uint16_t(uint16_t, uint16_t)>& f) {
  return uint32_t(f(uint16_t(a), uint16_t(b))) | uint32_t(f(uint16_t(a >> 16), uint16_t(b >> 16))) << 16;
}
// f32 add as atom.add.f32 does it: RN; on global memory subnormal inputs and results flush to
// sign-preserving zero. NaN results are the canonical 0x7fffffff.
uint32_t add_f32_ref(uint32_t a, uint32_t b, bool ftz) {
  auto flush = [&](float x) { return ftz && std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; };
  float r = flush(flush(f32(a)) + flush(f32(b)));
  return std::isnan(r) ? 0x7fffffffu : bits(r);
}

// ---- the scalar operation matrix --------------------------------------------------------------

enum class Sp { Global, Shared, GenericGlobal, GenericShared };
const char* sp_name(Sp s) {
  switch (s) {
    case Sp::Global: return "global";
    case Sp::Shared: return "shared";
    case Sp::GenericGlobal: return "generic-global";
    case Sp::GenericShared: return "generic-shared";
  }
  return "?";
}

struct OpCase {
  std::string op, type;  // ".add", "u32"
  int bytes;
};

// The new memory value of op(old, b, c) for a lane, as the PTX ISA defines it.
uint64_t ref_op(const OpCase& k, uint64_t o, uint64_t b, uint64_t c, bool shared) {
  const int n = k.bytes * 8;
  const uint64_t m = n == 64 ? ~0ull : (1ull << n) - 1;
  o &= m, b &= m, c &= m;
  auto sx = [&](uint64_t v) { return n == 64 ? int64_t(v) : int64_t(v << (64 - n)) >> (64 - n); };
  const std::string& t = k.type;
  if (k.op == ".and") return o & b;
  if (k.op == ".or") return o | b;
  if (k.op == ".xor") return o ^ b;
  if (k.op == ".exch") return b;
  if (k.op == ".cas") return o == b ? c : o;
  if (k.op == ".inc") return o >= b ? 0 : (o + 1) & m;
  if (k.op == ".dec") return (o == 0 || o > b) ? b : o - 1;
  if (k.op == ".min") return t[0] == 's' ? (sx(o) < sx(b) ? o : b) : std::min(o, b);
  if (k.op == ".max") return t[0] == 's' ? (sx(o) > sx(b) ? o : b) : std::max(o, b);
  if (k.op == ".add") {
    if (t == "f32") return add_f32_ref(uint32_t(o), uint32_t(b), !shared);
    if (t == "f64") return bits(f64(o) + f64(b));
    if (t == "f16") return add16(uint16_t(o), uint16_t(b), false);
    if (t == "bf16") return add16(uint16_t(o), uint16_t(b), true);
    if (t == "f16x2") return pair(uint32_t(o), uint32_t(b), [](uint16_t x, uint16_t y) { return add16(x, y, false); });
    if (t == "bf16x2") return pair(uint32_t(o), uint32_t(b), [](uint16_t x, uint16_t y) { return add16(x, y, true); });
    return (o + b) & m;
  }
  ADD_FAILURE() << "no reference for " << k.op << "." << t;
  return 0;
}

// Random operand values of a type: full-range bits, small integers (so cas compares succeed and
// inc/dec wrap), and for floats a mix of normals, subnormals, zeros and infinities.
uint64_t random_value(std::mt19937_64& rng, const OpCase& k) {
  const int n = k.bytes * 8;
  const uint64_t m = n == 64 ? ~0ull : (1ull << n) - 1;
  const std::string& t = k.type;
  const uint64_t r = rng(), pick = rng() % 16;
  auto f16like = [&](int eb, int mb) -> uint64_t {
    uint64_t sign = (r >> 40 & 1) << (eb + mb), man = r & ((1ull << mb) - 1), e;
    if (pick < 3) e = 0;                                   // subnormal or zero
    else if (pick == 3) return sign | (((1ull << eb) - 1) << mb);  // infinity
    else if (pick < 6) e = 1 + (r >> 20) % 3;              // near the subnormal range
    else e = ((1ull << (eb - 1)) - 1) - 6 + (r >> 20) % 12;  // around 1.0
    if (pick == 0) man = 0;
    return sign | e << mb | man;
  };
  if (t == "f32") return f16like(8, 23) & m;
  if (t == "f16") return f16like(5, 10);
  if (t == "bf16") return f16like(8, 7);
  if (t == "f16x2") return f16like(5, 10) | random_value(rng, {k.op, "f16", 2}) << 16;
  if (t == "bf16x2") return f16like(8, 7) | random_value(rng, {k.op, "bf16", 2}) << 16;
  if (t == "f64") {
    if (pick < 3) return (r >> 63) << 63 | (r & ((1ull << 52) - 1));  // subnormal
    return bits(std::ldexp(double(int64_t(r >> 11) - (1ll << 52)), -50 + int(rng() % 8)));
  }
  if (pick < 8) return (r % 6) & m;        // small: makes cas succeed and inc/dec wrap
  if (pick < 10) return (m - r % 4) & m;   // near the top: signed -1..-4, unsigned max
  return r & m;
}

std::string scalar_kernel(bool red, const OpCase& k, Sp sp) {
  const bool shared = sp == Sp::Shared || sp == Sp::GenericShared;
  const bool cas = k.op == ".cas";
  const std::string B = std::to_string(k.bytes * 8), S = std::to_string(k.bytes);
  const std::string noftz = (k.type.find("16") != std::string::npos && k.type != "b16") ? ".noftz" : "";
  const std::string space = sp == Sp::Global ? ".global" : sp == Sp::Shared ? ".shared" : "";
  std::string s = R"(
.visible .entry k(.param .u64 pmem, .param .u64 pb, .param .u64 pc, .param .u64 pout, .param .u64 pact, .param .u32 kmask) {
  .shared .align 16 .b8 sm[64];
  .reg .b32 %r<16>;
  .reg .b64 %rd<32>;
  .reg .pred %p<4>;
  .reg .b)" + B + R"( %v<4>;
  ld.param.u64 %rd1, [pmem];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pout];
  ld.param.u64 %rd5, [pact];
  ld.param.u32 %r9, [kmask];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p2, %r1, 4;
  mul.wide.u32 %rd6, %r1, )" + S + R"(;
  add.u64 %rd7, %rd1, %rd6;
  mov.u64 %rd8, sm;
  add.u64 %rd9, %rd8, %rd6;
)";
  if (shared)
    s += "  @%p2 ld.global.b" + B + " %v0, [%rd7];\n  @%p2 st.shared.b" + B + " [%rd9], %v0;\n  bar.sync 0;\n";
  std::string base = "%rd1";
  if (sp == Sp::Shared) base = "%rd8";
  if (sp == Sp::GenericShared) {
    s += "  cvta.shared.u64 %rd10, %rd8;\n";
    base = "%rd10";
  }
  s += "  and.b32 %r2, %r1, %r9;\n  mul.wide.u32 %rd11, %r2, " + S + ";\n  add.u64 %rd12, " + base + ", %rd11;\n";
  s += "  add.u64 %rd13, %rd2, %rd6;\n  ld.global.b" + B + " %v1, [%rd13];\n";
  s += "  add.u64 %rd14, %rd3, %rd6;\n  ld.global.b" + B + " %v2, [%rd14];\n";
  s += "  mul.wide.u32 %rd15, %r1, 4;\n  add.u64 %rd16, %rd5, %rd15;\n  ld.global.u32 %r3, [%rd16];\n  setp.ne.u32 %p1, %r3, 0;\n";
  const std::string instr = (red ? "red" : "atom") + space + k.op + noftz + "." + k.type;
  if (red) s += "  @%p1 " + instr + " [%rd12], %v1;\n";
  else s += "  @%p1 " + instr + " %v3, [%rd12], %v1" + (cas ? ", %v2" : "") + ";\n";
  s += "  add.u64 %rd17, %rd4, %rd6;\n";
  if (!red) s += "  @%p1 st.global.b" + B + " [%rd17], %v3;\n";
  if (shared) s += "  bar.sync 0;\n  @%p2 ld.shared.b" + B + " %v0, [%rd9];\n  @%p2 st.global.b" + B + " [%rd7], %v0;\n";
  s += "  ret;\n}\n";
  return s;
}

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> v = {
      {".and", "b32", 4},  {".and", "b64", 8},  {".or", "b32", 4},     {".or", "b64", 8},    {".xor", "b32", 4},
      {".xor", "b64", 8},  {".cas", "b32", 4},    {".cas", "b64", 8},   {".cas", "b16", 2},
      {".exch", "b32", 4}, {".exch", "b64", 8}, {".add", "u32", 4},    {".add", "s32", 4},   {".add", "u64", 8},
      {".add", "f32", 4},  {".add", "f64", 8},    {".add", "f16", 2},   {".add", "bf16", 2},
      {".add", "f16x2", 4}, {".add", "bf16x2", 4}, {".inc", "u32", 4}, {".dec", "u32", 4},   {".min", "u32", 4},
      {".min", "s32", 4},  {".min", "u64", 8},  {".min", "s64", 8},    {".max", "u32", 4},   {".max", "s32", 4},
      {".max", "u64", 8},  {".max", "s64", 8},
  };
  return v;
}

void check_scalar(bool red, const OpCase& k, Sp sp, std::mt19937_64& rng) {
  if (red && (k.op == ".cas" || k.op == ".exch")) return;
  const std::string body = scalar_kernel(red, k, sp);
  SCOPED_TRACE(body);
  Kernel kern(body);
  const bool shared = sp == Sp::Shared || sp == Sp::GenericShared;
  for (int round = 0; round < 4; ++round) {
    const uint32_t kmask = round % 2 ? 3 : 0;  // 4 addresses or 1
    std::vector<uint64_t> mem(4), b(32), c(32);
    std::vector<uint32_t> act(32);
    for (auto& x : mem) x = random_value(rng, k);
    for (auto& x : b) x = random_value(rng, k);
    for (auto& x : c) x = random_value(rng, k);
    for (auto& x : act) x = round == 0 ? 1 : rng() % 5 != 0;
    // Reference: the active lanes in lane order.
    std::vector<uint64_t> want_mem = mem, want_out(32, ~0ull);
    for (int l = 0; l < 32; ++l) {
      if (!act[l]) continue;
      uint64_t& slot = want_mem[l & kmask];
      want_out[l] = slot;
      slot = ref_op(k, slot, b[l], c[l], shared);
    }
    auto pack = [&](const std::vector<uint64_t>& v) {
      std::vector<uint8_t> out(v.size() * k.bytes);
      for (size_t i = 0; i < v.size(); ++i) std::memcpy(&out[i * k.bytes], &v[i], k.bytes);
      return out;
    };
    Launch L(kern);
    uint64_t pm = L.alloc_data(pack(mem), "mem"), pb = L.alloc_data(pack(b), "b"), pc = L.alloc_data(pack(c), "c");
    uint64_t po = L.alloc(32 * k.bytes, "out"), pa = L.alloc_data(act, "act");
    L.arg(pm).arg(pb).arg(pc).arg(po).arg(pa).arg(kmask);
    auto r = L.run({1, 1, 1}, {32, 1, 1});
    ASSERT_COMPLETED(r);
    auto got_mem = L.read<uint8_t>(pm, 4 * k.bytes), got_out = L.read<uint8_t>(po, 32 * k.bytes);
    auto wm = pack(want_mem);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(std::memcmp(&got_mem[i * k.bytes], &wm[i * k.bytes], k.bytes), 0)
          << "memory slot " << i << " round " << round << " kmask " << kmask;
    for (int l = 0; l < 32; ++l) {
      uint64_t got = 0, want = want_out[l];
      std::memcpy(&got, &got_out[l * k.bytes], k.bytes);
      if (red || !act[l]) want = (0xCDCDCDCDCDCDCDCDull) & (k.bytes == 8 ? ~0ull : (1ull << (8 * k.bytes)) - 1);
      EXPECT_EQ(got, want) << "lane " << l << " round " << round << " kmask " << kmask << " b " << hex(b[l]);
    }
  }
}

TEST(AtomScalar, EveryOperationAndTypeInLaneOrder) {
  std::mt19937_64 rng(test_seed());
  for (const auto& k : op_cases())
    for (Sp sp : {Sp::Global, Sp::Shared, Sp::GenericGlobal, Sp::GenericShared}) {
      SCOPED_TRACE("atom" + k.op + "." + k.type + " on " + sp_name(sp));
      check_scalar(false, k, sp, rng);
      if (HasFatalFailure()) return;
    }
}

TEST(AtomScalar, RedEveryOperationAndTypeInLaneOrder) {
  std::mt19937_64 rng(test_seed());
  for (const auto& k : op_cases())
    for (Sp sp : {Sp::Global, Sp::Shared, Sp::GenericGlobal, Sp::GenericShared}) {
      SCOPED_TRACE("red" + k.op + "." + k.type + " on " + sp_name(sp));
      check_scalar(true, k, sp, rng);
      if (HasFatalFailure()) return;
    }
}

// ---- f32 add: lane order and subnormal flushing ------------------------------------------------

TEST(AtomFloat, F32AddInLaneOrderMatchesTheSequentialSum) {
  // One warp adds 8 rounds of 32 values into one global, one shared and one generic-shared float;
  // each lane records the old value. The references are the sequential sums in (round, lane)
  // order, flushing subnormals only on global memory.
  const std::string body = R"(
.visible .entry k(.param .u64 px, .param .u64 pout) {
  .shared .align 4 .f32 acc;
  .shared .align 4 .f32 acc2;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mov.f32 %f0, 0f00000000;
  st.shared.f32 [acc], %f0;
  st.shared.f32 [acc2], %f0;
  mov.u64 %rd3, acc2;
  cvta.shared.u64 %rd4, %rd3;
  mov.u32 %r2, 0;
LOOP:
  mad.lo.u32 %r3, %r2, 32, %r1;
  mul.wide.u32 %rd5, %r3, 4;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.f32 %f1, [%rd6];
  atom.global.add.f32 %f2, [%rd2], %f1;
  atom.shared.add.f32 %f3, [acc], %f1;
  atom.add.f32 %f4, [%rd4], %f1;
  mul.wide.u32 %rd7, %r3, 12;
  add.u64 %rd8, %rd2, %rd7;
  st.global.f32 [%rd8+16], %f2;
  st.global.f32 [%rd8+20], %f3;
  st.global.f32 [%rd8+24], %f4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 8;
  @%p1 bra LOOP;
  ld.shared.f32 %f5, [acc];
  ld.shared.f32 %f6, [acc2];
  st.global.v2.f32 [%rd2+8], {%f5, %f6};
  ret;
}
)";
  Kernel kern(body);
  std::mt19937_64 rng(test_seed());
  for (int round = 0; round < 4; ++round) {
    std::vector<uint32_t> x(256);
    for (auto& v : x) {
      const uint64_t r = rng();
      switch (r % 4) {
        case 0: v = bits(float(std::ldexp(double(r >> 40) / double(1ull << 24) - 0.5, int(r >> 20 & 15) - 4))); break;
        case 1: v = uint32_t(r >> 8) & 0x807fffffu; break;                         // subnormal
        case 2: v = (uint32_t(r >> 8) & 0x807fffffu) | 0x00800000u; break;         // smallest binade
        default: v = bits(float(double(int64_t(r >> 50) - 8192)));                 // integers
      }
    }
    Launch L(kern);
    uint64_t px = L.alloc_data(x, "x");
    std::vector<uint32_t> out_init(4 + 256 * 3, 0xCDCDCDCDu);
    out_init[0] = 0;
    uint64_t po = L.alloc_data(out_init, "out");
    L.arg(px).arg(po);
    auto r = L.run({1, 1, 1}, {32, 1, 1});
    ASSERT_COMPLETED(r);
    auto out = L.read<uint32_t>(po, 4 + 256 * 3);
    uint32_t g = 0, sh = 0;
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(out[4 + 3 * i], g) << "global old value, element " << i;
      ASSERT_EQ(out[5 + 3 * i], sh) << "shared old value, element " << i;
      ASSERT_EQ(out[6 + 3 * i], sh) << "generic-shared old value, element " << i;
      g = add_f32_ref(g, x[i], true);
      sh = add_f32_ref(sh, x[i], false);
    }
    EXPECT_EQ(out[0], g);
    EXPECT_EQ(out[2], sh);
    EXPECT_EQ(out[3], sh);
  }
}

TEST(AtomFloat, F32SubnormalsFlushOnGlobalOnly) {
  const std::string body = R"(
.visible .entry k(.param .u64 pg) {
  .shared .align 4 .b32 s[4];
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pg];
  mov.b32 %r1, 0x00000003;            // subnormal
  mov.b32 %r2, 0x80800001;            // -(smallest normal + 1 ulp)
  mov.b32 %r3, 0x00800000;            // smallest normal
  st.shared.v4.b32 [s], {%r1, %r3, %r1, %r1};
  atom.global.add.f32 %r4, [%rd1], %r1;       // 0 + subnormal -> +0 (input flushed)
  atom.global.add.f32 %r5, [%rd1+4], %r2;     // normal + normal -> subnormal result -> -0
  atom.global.add.f32 %r6, [%rd1+8], %r1;     // subnormal in memory is flushed too -> 0 + sub = 0
  red.global.add.f32 [%rd1+12], %r3;          // subnormal memory flushed: 0 + min normal
  atom.shared.add.f32 %r7, [s], %r1;          // 3 + 3 -> 6 (kept)
  atom.shared.add.f32 %r8, [s+4], %r2;        // -> -1 ulp subnormal (kept)
  ld.shared.v2.b32 {%r9, %r10}, [s];
  st.global.v4.b32 [%rd1+16], {%r4, %r5, %r6, %r7};
  st.global.v4.b32 [%rd1+32], {%r8, %r9, %r10, %r10};
  ret;
}
)";
  Kernel kern(body);
  Launch L(kern);
  std::vector<uint32_t> g = {0, 0x00800000u, 0x00000005u, 0x80000007u, 0, 0, 0, 0, 0, 0, 0, 0};
  uint64_t pg = L.alloc_data(g, "g");
  L.arg(pg);
  auto r = L.run({1, 1, 1}, {1, 1, 1});
  ASSERT_COMPLETED(r);
  auto out = L.read<uint32_t>(pg, 12);
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 0x80000000u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(out[3], 0x00800000u);
  EXPECT_EQ(out[4], 0u);            // old values as they were in memory
  EXPECT_EQ(out[5], 0x00800000u);
  EXPECT_EQ(out[6], 0x00000005u);
  EXPECT_EQ(out[7], 0x00000003u);
  EXPECT_EQ(out[8], 0x00800000u);
  EXPECT_EQ(out[9], 0x00000006u);
  EXPECT_EQ(out[10], 0x80000001u);
}

// ---- vector forms (sm_90) -----------------------------------------------------------------------

struct VecCase {
  std::string op, type;
  int n, eb;  // element count, element bits
};

TEST(AtomVector, F32AndHalfVectorsInLaneOrder) {
  const std::vector<VecCase> cases = {
      {".add", "f32", 2, 32},   {".add", "f32", 4, 32},   {".add", "f16", 2, 16},    {".add", "f16", 8, 16},
      {".min", "f16", 4, 16},   {".max", "f16", 8, 16},   {".add", "bf16", 4, 16},   {".min", "bf16", 8, 16},
      {".max", "bf16", 2, 16},  {".add", "f16x2", 2, 32}, {".min", "f16x2", 4, 32},  {".max", "f16x2", 2, 32},
      {".add", "bf16x2", 4, 32}, {".min", "bf16x2", 2, 32}, {".max", "bf16x2", 4, 32},
  };
  std::mt19937_64 rng(test_seed());
  for (bool red : {false, true})
    for (const auto& vc : cases) {
      const std::string name = std::string(red ? "red" : "atom") + ".global.v" + std::to_string(vc.n) + "." + vc.type + vc.op +
                               (vc.type == "f32" ? "" : ".noftz");
      SCOPED_TRACE(name);
      const int eB = vc.eb / 8, total = eB * vc.n;
      const std::string EB = std::to_string(vc.eb);
      std::string body = ".visible .entry k(.param .u64 pmem, .param .u64 pb, .param .u64 pout) {\n"
                         "  .reg .b32 %r<4>;\n  .reg .b64 %rd<16>;\n  .reg .b" + EB + " %e<24>;\n"
                         "  ld.param.u64 %rd1, [pmem];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pout];\n"
                         "  mov.u32 %r1, %tid.x;\n  and.b32 %r2, %r1, 1;\n"
                         "  mul.wide.u32 %rd4, %r2, " + std::to_string(total) + ";\n  add.u64 %rd5, %rd1, %rd4;\n"
                         "  mul.wide.u32 %rd6, %r1, " + std::to_string(total) + ";\n  add.u64 %rd7, %rd2, %rd6;\n  add.u64 %rd8, %rd3, %rd6;\n";
      std::string bl, dl;
      for (int i = 0; i < vc.n; ++i) {
        body += "  ld.global.b" + EB + " %e" + std::to_string(i) + ", [%rd7+" + std::to_string(i * eB) + "];\n";
        bl += (i ? ", %e" : "%e") + std::to_string(i);
        dl += (i ? ", %e" : "%e") + std::to_string(8 + i);
      }
      if (red) body += "  " + name + " [%rd5], {" + bl + "};\n";
      else body += "  " + name + " {" + dl + "}, [%rd5], {" + bl + "};\n";
      if (!red)
        for (int i = 0; i < vc.n; ++i)
          body += "  st.global.b" + EB + " [%rd8+" + std::to_string(i * eB) + "], %e" + std::to_string(8 + i) + ";\n";
      body += "  ret;\n}\n";
      Kernel kern(body);
      // Element operation reference.
      const bool bf = vc.type[0] == 'b';
      auto elem = [&](uint32_t o, uint32_t b) -> uint32_t {
        auto half = [&](uint16_t x, uint16_t y) -> uint16_t {
          if (vc.op == ".add") return add16(x, y, bf);
          return minmax16(x, y, bf, vc.op == ".max");
        };
        if (vc.type == "f32") return add_f32_ref(o, b, true);  // vector f32: global memory only, flushed
        if (vc.eb == 16) return half(uint16_t(o), uint16_t(b));
        return pair(o, b, half);
      };
      OpCase scalar{vc.op, vc.type, eB};
      for (int round = 0; round < 3; ++round) {
        std::vector<uint32_t> mem(2 * vc.n), b(32 * vc.n);
        for (auto& v : mem) v = uint32_t(random_value(rng, scalar));
        for (auto& v : b) v = uint32_t(random_value(rng, scalar));
        if (vc.op != ".add")  // a few NaNs for min/max (ignored unless both are NaN)
          for (auto& v : b)
            if (rng() % 16 == 0) v = vc.eb == 16 ? (bf ? 0x7fc1u : 0x7e01u) : (bf ? 0x7fc17fc1u : 0x7e017e01u);
        std::vector<uint32_t> want_mem = mem, want_out(32 * vc.n);
        for (int l = 0; l < 32; ++l)
          for (int i = 0; i < vc.n; ++i) {
            uint32_t& slot = want_mem[(l & 1) * vc.n + i];
            want_out[l * vc.n + i] = slot;
            slot = elem(slot, b[l * vc.n + i]);
          }
        auto pack = [&](const std::vector<uint32_t>& v) {
          std::vector<uint8_t> o(v.size() * eB);
          for (size_t i = 0; i < v.size(); ++i) std::memcpy(&o[i * eB], &v[i], eB);
          return o;
        };
        Launch L(kern);
        uint64_t pm = L.alloc_data(pack(mem), "mem"), pb = L.alloc_data(pack(b), "b"), po = L.alloc(32 * total, "out");
        L.arg(pm).arg(pb).arg(po);
        auto r = L.run({1, 1, 1}, {32, 1, 1});
        ASSERT_COMPLETED(r);
        EXPECT_EQ(L.read<uint8_t>(pm, 2 * total), pack(want_mem)) << "round " << round;
        const auto want_bytes = red ? std::vector<uint8_t>(32 * total, kPoison) : pack(want_out);
        EXPECT_EQ(L.read<uint8_t>(po, 32 * total), want_bytes) << "round " << round;
      }
    }
}

// ---- 128-bit cas and exch (sm_90, PTX 8.3) --------------------------------------------------------

TEST(Atom128, CasAndExchInLaneOrder) {
  const std::string body = R"(
.visible .entry k(.param .u64 pmem, .param .u64 pin, .param .u64 pout) {
  .shared .align 16 .b8 sm[32];
  .reg .b32 %r<8>;
  .reg .b64 %rd<24>;
  .reg .b128 %q<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pmem];
  ld.param.u64 %rd2, [pin];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 ld.global.v2.u64 {%rd4, %rd5}, [%rd1+32];
  @%p1 st.shared.v2.u64 [sm], {%rd4, %rd5};
  @%p1 ld.global.v2.u64 {%rd4, %rd5}, [%rd1+48];
  @%p1 st.shared.v2.u64 [sm+16], {%rd4, %rd5};
  bar.sync 0;
  mul.wide.u32 %rd6, %r1, 48;
  add.u64 %rd7, %rd2, %rd6;
  ld.global.v2.u64 {%rd8, %rd9}, [%rd7];          // compare
  ld.global.v2.u64 {%rd10, %rd11}, [%rd7+16];     // new value
  ld.global.v2.u64 {%rd12, %rd13}, [%rd7+32];     // exchange value
  mov.b128 %q1, {%rd8, %rd9};
  mov.b128 %q2, {%rd10, %rd11};
  mov.b128 %q3, {%rd12, %rd13};
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd14, %r2, 16;
  add.u64 %rd15, %rd1, %rd14;
  atom.global.cas.b128 %q4, [%rd15], %q1, %q2;
  mov.u64 %rd16, sm;
  add.u64 %rd17, %rd16, %rd14;
  atom.shared.exch.b128 %q5, [%rd17], %q3;
  mov.b128 {%rd18, %rd19}, %q4;
  mov.b128 {%rd20, %rd21}, %q5;
  mul.wide.u32 %rd22, %r1, 32;
  add.u64 %rd23, %rd3, %rd22;
  st.global.v2.u64 [%rd23], {%rd18, %rd19};
  st.global.v2.u64 [%rd23+16], {%rd20, %rd21};
  bar.sync 0;
  @%p1 ld.shared.v2.u64 {%rd4, %rd5}, [sm];
  @%p1 st.global.v2.u64 [%rd1+32], {%rd4, %rd5};
  @%p1 ld.shared.v2.u64 {%rd4, %rd5}, [sm+16];
  @%p1 st.global.v2.u64 [%rd1+48], {%rd4, %rd5};
  ret;
}
)";
  Kernel kern(body);
  std::mt19937_64 rng(test_seed());
  using U128 = std::pair<uint64_t, uint64_t>;
  for (int round = 0; round < 5; ++round) {
    // Values from a small pool so that some compares succeed, including ones that differ only in
    // the high half.
    auto pool = [&] { return U128{rng() % 3, rng() % 2 ? 7ull << 60 : 0}; };
    std::vector<U128> mem = {pool(), pool(), {rng(), rng()}, {rng(), rng()}};
    std::vector<U128> in(32 * 3);
    for (auto& v : in) v = pool();
    std::vector<U128> want = mem, out(64);
    for (int l = 0; l < 32; ++l) {
      U128& g = want[l & 1];
      out[2 * l] = g;
      if (g == in[3 * l]) g = in[3 * l + 1];
      U128& s = want[2 + (l & 1)];
      out[2 * l + 1] = s;
      s = in[3 * l + 2];
    }
    Launch L(kern);
    uint64_t pm = L.alloc_data(mem, "mem"), pi = L.alloc_data(in, "in"), po = L.alloc(64 * 16, "out");
    L.arg(pm).arg(pi).arg(po);
    auto r = L.run({1, 1, 1}, {32, 1, 1});
    ASSERT_COMPLETED(r);
    EXPECT_EQ(L.read<U128>(pm, 4), want);
    EXPECT_EQ(L.read<U128>(po, 64), out);
  }
}

// ---- programs built on atomics ----------------------------------------------------------------

TEST(AtomPrograms, HistogramSharedThenGlobal) {
  // Each CTA builds a 64-bin histogram of its grid-stride share of the input with atom.shared.add,
  // then adds it into the global histogram with atom.global.add (red for odd bins).
  const std::string body = R"(
.visible .entry k(.param .u64 pin, .param .u32 n, .param .u64 phist) {
  .shared .align 4 .b32 hist[64];
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [pin];
  ld.param.u32 %r1, [n];
  ld.param.u64 %rd2, [phist];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %nctaid.x;
  mov.u32 %r6, hist;
  shl.b32 %r7, %r2, 2;
  add.u32 %r8, %r6, %r7;
  setp.lt.u32 %p1, %r2, 64;
  mov.u32 %r9, 0;
  @%p1 st.shared.u32 [%r8], %r9;
  bar.sync 0;
  mad.lo.u32 %r10, %r4, %r3, %r2;          // i = ctaid * ntid + tid
  mul.lo.u32 %r11, %r3, %r5;                // stride
  setp.ge.u32 %p2, %r10, %r1;
  @%p2 bra DONE;
LOOP:
  mul.wide.u32 %rd3, %r10, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r12, [%rd4];
  and.b32 %r13, %r12, 63;
  shl.b32 %r14, %r13, 2;
  add.u32 %r15, %r6, %r14;
  atom.shared.add.u32 %r16, [%r15], 1;
  add.u32 %r10, %r10, %r11;
  setp.lt.u32 %p3, %r10, %r1;
  @%p3 bra LOOP;
DONE:
  bar.sync 0;
  @!%p1 bra END;
  ld.shared.u32 %r17, [%r8];
  mul.wide.u32 %rd5, %r2, 4;
  add.u64 %rd6, %rd2, %rd5;
  and.b32 %r18, %r2, 1;
  setp.eq.u32 %p3, %r18, 0;
  @%p3 atom.global.add.u32 %r19, [%rd6], %r17;
  @!%p3 red.global.add.u32 [%rd6], %r17;
END:
  ret;
}
)";
  Kernel kern(body);
  std::mt19937_64 rng(test_seed());
  for (uint32_t n : {1u, 1000u, 4096u, 10007u}) {
    std::vector<uint32_t> in(n), want(64, 0);
    for (auto& v : in) {
      v = uint32_t(rng());
      if (rng() % 4 == 0) v = 7;  // a hot bin: many lanes of one warp collide
      want[v & 63]++;
    }
    Launch L(kern);
    uint64_t pi = L.alloc_data(in, "in");
    uint64_t ph = L.alloc_data(std::vector<uint32_t>(64, 0), "hist");
    L.arg(pi).arg(n).arg(ph);
    auto r = L.run({5, 1, 1}, {256, 1, 1});
    ASSERT_COMPLETED(r);
    EXPECT_EQ(L.read<uint32_t>(ph, 64), want) << "n = " << n;
  }
}

// A critical section guarded by a cas spin lock: `lanes` says which lanes of each warp take part
// (one lane per warp, or every lane: independent thread scheduling must let the lock holder run
// while the other lanes of its warp spin).
std::string spin_lock_kernel(bool every_lane) {
  std::string s = R"(
.visible .entry k(.param .u64 plock, .param .u64 pcount, .param .u32 iters) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [plock];
  ld.param.u64 %rd2, [pcount];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %laneid;
)";
  if (!every_lane) s += "  setp.ne.u32 %p1, %r2, 0;\n  @%p1 bra END;\n";
  s += R"(
  mov.u32 %r3, 0;
ITER:
SPIN:
  atom.acquire.gpu.global.cas.b32 %r4, [%rd1], 0, 1;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra SPIN;
  ld.global.u32 %r5, [%rd2];
  add.u32 %r5, %r5, 1;
  st.global.u32 [%rd2], %r5;
  ld.global.u32 %r6, [%rd2+4];              // a second word: no torn updates
  add.u32 %r6, %r6, 3;
  st.global.u32 [%rd2+4], %r6;
  atom.release.gpu.global.exch.b32 %r7, [%rd1], 0;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p3, %r3, %r1;
  @%p3 bra ITER;
END:
  ret;
}
)";
  return s;
}

TEST(AtomPrograms, CasSpinLockAcrossWarps) {
  for (bool every_lane : {false, true}) {
    SCOPED_TRACE(every_lane ? "every lane" : "lane 0 of each warp");
    Kernel kern(spin_lock_kernel(every_lane));
    Launch L(kern);
    uint64_t lock = L.alloc_data(std::vector<uint32_t>{0}, "lock");
    uint64_t count = L.alloc_data(std::vector<uint32_t>{0, 0}, "count");
    const uint32_t iters = 3, ctas = 2, threads = 128;
    L.arg(lock).arg(count).arg(iters);
    auto r = L.run({ctas, 1, 1}, {threads, 1, 1});
    ASSERT_COMPLETED(r);
    const uint32_t takers = ctas * (every_lane ? threads : threads / 32);
    EXPECT_EQ(L.read<uint32_t>(count, 2), (std::vector<uint32_t>{takers * iters, 3 * takers * iters}));
    EXPECT_EQ(L.read<uint32_t>(lock, 1)[0], 0u);
  }
}

TEST(AtomPrograms, SharedClusterCounterAcrossCtas) {
  // Every thread of a 4-CTA cluster increments a counter in CTA 0's shared memory with
  // atom.shared::cluster; the old values are a permutation of 0..N-1.
  const std::string body = R"(
.visible .entry k(.param .u64 pout) {
  .shared .align 4 .b32 counter;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pout];
  mapa.shared::cluster.u32 %r1, counter, 0;
  atom.relaxed.cluster.shared::cluster.add.u32 %r2, [%r1], 1;
  mov.u32 %r3, %cluster_ctarank;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.u32 %r6, %r3, %r5, %r4;
  mul.wide.u32 %rd2, %r6, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  Kernel kern(body);
  Launch L(kern);
  uint64_t po = L.alloc(4 * 4 * 64, "out");
  L.arg(po);
  auto r = L.run({4, 1, 1}, {64, 1, 1}, {4, 1, 1});
  ASSERT_COMPLETED(r);
  auto out = L.read<uint32_t>(po, 256);
  std::sort(out.begin(), out.end());
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(out[i], i);
}

// ---- inc/dec wrap: a RapidCheck property over start values, bounds and active lanes -------------

const Kernel& incdec_kernel() {
  static const Kernel k(R"(
.visible .entry k(.param .u64 pmem, .param .u64 pb, .param .u64 pout, .param .u32 active) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pmem];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  ld.param.u32 %r1, [active];
  mov.u32 %r2, %laneid;
  shr.u32 %r3, %r1, %r2;
  and.b32 %r3, %r3, 1;
  setp.ne.u32 %p1, %r3, 0;
  mul.wide.u32 %rd4, %r2, 4;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.u32 %r4, [%rd5];
  add.u64 %rd6, %rd3, %rd4;
  @%p1 atom.global.inc.u32 %r5, [%rd1], %r4;
  @%p1 st.global.u32 [%rd6], %r5;
  @%p1 atom.global.dec.u32 %r6, [%rd1+4], %r4;
  @%p1 st.global.u32 [%rd6+128], %r6;
  @%p1 red.global.inc.u32 [%rd1+8], %r4;
  @%p1 red.global.dec.u32 [%rd1+12], %r4;
  ret;
}
)");
  return k;
}

RC_GTEST_PROP(AtomIncDec, WrapExactlyAsTheIsaSaysInLaneOrder, ()) {
  // Bounds and starts are drawn from small ranges (where wrapping happens) and from the full range.
  auto u32gen = rc::gen::oneOf(rc::gen::inRange<uint32_t>(0, 8), rc::gen::arbitrary<uint32_t>(),
                               rc::gen::element<uint32_t>(0xffffffffu, 0xfffffffeu, 0x80000000u));
  const uint32_t inc0 = *u32gen, dec0 = *u32gen;
  const auto b = *rc::gen::container<std::vector<uint32_t>>(32, u32gen);
  const uint32_t active = *rc::gen::arbitrary<uint32_t>();
  uint32_t inc = inc0, dec = dec0, rinc = inc0, rdec = dec0;
  std::vector<uint32_t> want(64, 0xCDCDCDCDu);
  for (int l = 0; l < 32; ++l) {
    if (!(active >> l & 1)) continue;
    want[l] = inc;
    inc = inc >= b[l] ? 0 : inc + 1;
    want[32 + l] = dec;
    dec = (dec == 0 || dec > b[l]) ? b[l] : dec - 1;
    rinc = rinc >= b[l] ? 0 : rinc + 1;
    rdec = (rdec == 0 || rdec > b[l]) ? b[l] : rdec - 1;
  }
  Launch L(incdec_kernel());
  uint64_t pm = L.alloc_data(std::vector<uint32_t>{inc0, dec0, inc0, dec0}, "mem");
  uint64_t pb = L.alloc_data(b, "b"), po = L.alloc(256, "out");
  L.arg(pm).arg(pb).arg(po).arg(active);
  auto r = L.run({1, 1, 1}, {32, 1, 1});
  RC_ASSERT(r.status == RunStatus::Completed);
  RC_ASSERT(L.read<uint32_t>(pm, 4) == (std::vector<uint32_t>{inc, dec, rinc, rdec}));
  RC_ASSERT(L.read<uint32_t>(po, 64) == want);
}

TEST(AtomIncDec, IncWrapsAtTheBoundAndDecReloadsIt) {
  Launch L(incdec_kernel());
  uint64_t pm = L.alloc_data(std::vector<uint32_t>{3, 2, 3, 2}, "mem");
  uint64_t pb = L.alloc_data(std::vector<uint32_t>(32, 5), "b"), po = L.alloc(256, "out");
  L.arg(pm).arg(pb).arg(po).arg(0xffffffffu);
  auto r = L.run({1, 1, 1}, {32, 1, 1});
  ASSERT_COMPLETED(r);
  auto out = L.read<uint32_t>(po, 64);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l], (3 + l) % 6) << l;                   // 3 4 5 0 1 2 3 ...
    EXPECT_EQ(out[32 + l], (2 + 6 - l % 6) % 6) << l;      // 2 1 0 5 4 3 2 ...
  }
  EXPECT_EQ(L.read<uint32_t>(pm, 4), (std::vector<uint32_t>{(3 + 32) % 6, (2 + 6 - 32 % 6) % 6, (3 + 32) % 6, (2 + 6 - 32 % 6) % 6}));
}

// ---- qualifiers, load-time errors, faults -------------------------------------------------------

TEST(AtomBind, QualifiersAreAcceptedAndBadFormsRejected) {
  auto err = [](const std::string& instr) {
    return load_error(".visible .entry k(.param .u64 p) {\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n  .reg .b16 %h<4>;\n"
                      "  .reg .b128 %q<4>;\n  .reg .f32 %f<4>;\n  .shared .b32 sv;\n  " + instr + "\n  ret;\n}\n");
  };
  for (const char* ok : {"atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;",
                         "atom.relaxed.cta.shared::cta.min.s32 %r1, [%rd1], %r2;",
                         "atom.acquire.sys.add.u64 %rd1, [%rd2], 1;",
                         "atom.release.cluster.shared::cluster.exch.b32 %r1, [%r2], %r3;",
                         "atom.global.add.L2::cache_hint.s32 %r1, [%rd1], 1, %rd3;",
                         "atom.global.L2::cache_hint.exch.b128 %q1, [%rd1], %q2, %rd3;",
                         "atom.shared.b128.cas %q1, [%rd1], %q2, %q3;",
                         "atom.global.v8.f16.max.noftz {%h0, %h1, %h2, %h3, %h0, %h1, %h2, %h3}, [%rd1], {%h0, %h1, %h2, %h3, %h0, %h1, %h2, %h3};",
                         "atom.global.v4.f32.add {%f0, %f1, %f2, %f3}, [%rd1], {%f0, %f1, %f2, %f3};",
                         "atom.add.shared::cluster.noftz.f16 %h1, [%r1], %h2;",
                         "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;",
                         "atom.shared.add.u32 %r1, [sv], 1;",
                         "atom.add.u32 %r1, [sv], 1;",
                         "atom.shared.add.u32 %r1, [%r2], 1;",
                         "atom.global.add.f32 %r1, [%rd1], %r2;",
                         "red.release.sys.global.add.u32 [%rd1], 1;",
                         "red.global.and.L2::cache_hint.b32 [%rd1], 1, %rd2;",
                         "red.global.v2.bf16x2.add.noftz [%rd1], {%r1, %r2};",
                         "red.shared::cluster.max.u32 [%r1+4], 0;"})
    EXPECT_EQ(err(ok), "") << ok;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"atom.global.inc.s32 %r1, [%rd1], 1;", ".inc and .dec need .u32"},
      {"atom.global.dec.u64 %rd1, [%rd2], 1;", ".inc and .dec need .u32"},
      {"atom.global.add.f16 %h1, [%rd1], %h2;", "requires the .noftz qualifier"},
      {"atom.global.add.noftz.f32 %f1, [%rd1], %f2;", ".noftz applies only to"},
      {"atom.global.min.f32 %f1, [%rd1], %f2;", "floating-point atomics support only .add"},
      {"atom.global.add.b32 %r1, [%rd1], %r2;", "needs an integer type"},
      {"atom.global.and.u32 %r1, [%rd1], %r2;", ".and is a bit-size operation and needs .b32 or .b64"},
      {"atom.global.exch.u64 %rd1, [%rd1], %rd2;", "needs .b32 or .b64 (or .b128)"},
      {"atom.global.cas.u32 %r1, [%rd1], %r2, %r3;", "needs .b32 or .b64 (or .b16, .b128)"},
      {"atom.global.add.s64 %rd1, [%rd1], %rd2;", "64-bit .add needs .u64"},
      {"red.global.add.s64 [%rd1], %rd2;", "64-bit .add needs .u64"},
      {"atom.global.add.u32 %r1, [%rd1], %rd2;", "operand 3 of 'atom.global.add.u32' is a 64-bit register; the type needs 32 bits"},
      {"atom.global.add.u32 %rd1, [%rd1], %r2;", "operand 1 of 'atom.global.add.u32' is a 64-bit register"},
      {"atom.global.cas.b32 %r1, [%rd1], %r2, %rd3;", "operand 4"},
      {"atom.global.add.noftz.f16 %r1, [%rd1], %h2;", "operand 1"},
      {"atom.global.v2.f32.add {%f1, %rd2}, [%rd1], {%f3, %f2};", "operand 1"},
      {"atom.global.add.u32 %r1, [sv], 1;", "state space mismatch: 'sv' is a .shared variable"},
      {"atom.shared.add.u32 %r1, [16], 1;", "immediate addresses"},
      {"atom.global.add.u32 %r1, [%r2], 1;", "needs a 64-bit address register"},
      {"atom.global.add.and.b32 %r1, [%rd1], %r2;", "takes one operation"},
      {"atom.global.b32 %r1, [%rd1], %r2;", "needs an operation"},
      {"atom.global.cas.b32 %r1, [%rd1], %r2;", "expects 4 operands"},
      {"atom.global.add.u32 %r1, [%rd1], %r2, %r3;", "expects 3 operands"},
      {"atom.global.cas.b16 %h1, [%rd1], %h2;", "expects 4 operands"},
      {"atom.global.exch.b16 %h1, [%rd1], %h2;", "exists only as atom.cas.b16"},
      {"atom.global.add.b128 %q1, [%rd1], %q2;", "only as atom.cas.b128 and atom.exch.b128"},
      {"atom.global.exch.b128 %q1, [%rd1], %rd2;", "must be a .b128 register"},
      {"atom.shared.add.L2::cache_hint.u32 %r1, [%rd1], 1, %rd2;", "only supported for .global"},
      {"atom.global.v4.f32.min {%f0, %f1, %f2, %f3}, [%rd1], {%f0, %f1, %f2, %f3};", "supports only .add"},
      {"atom.global.v8.f32.add {%f0, %f1, %f2, %f3, %f0, %f1, %f2, %f3}, [%rd1], {%f0, %f1, %f2, %f3, %f0, %f1, %f2, %f3};", "needs a 16-bit type"},
      {"atom.global.v8.f16x2.add.noftz {%r0, %r1, %r2, %r3, %r0, %r1, %r2, %r3}, [%rd1], {%r0, %r1, %r2, %r3, %r0, %r1, %r2, %r3};", "needs a 16-bit type"},
      {"atom.shared.v2.f32.add {%f0, %f1}, [%rd1], {%f0, %f1};", "only with .global"},
      {"atom.global.v2.u32.add {%r0, %r1}, [%rd1], {%r0, %r1};", "needs type .f32"},
      {"atom.global.v4.f32.add {%f0, %f1}, [%rd1], {%f0, %f1, %f2, %f3};", "needs a vector operand of 4 elements"},
      {"atom.global.add.u32 {%r0, %r1}, [%rd1], %r2;", "has a vector operand but no"},
      {"atom.global.add.u32 %r1, %rd1, 1;", "needs an address operand"},
      {"atom.local.add.u32 %r1, [%rd1], 1;", "unexpected modifier '.local'"},
      {"atom.global.add.s16 %h1, [%rd1], 1;", "unexpected modifier '.s16'"},
      {"red.global.cas.b32 [%rd1], %r1, %r2;", "unexpected modifier '.cas'"},
      {"red.acquire.global.add.u32 [%rd1], 1;", "unexpected modifier '.acquire'"},
      {"red.global.add.u32 %r1, [%rd1], 1;", "expects 2 operands, got 3"},
      {"red.global.add.u32 %r1, 1;", "needs an address operand"},
  };
  for (const auto& [instr, want] : bad) EXPECT_NE(err(instr).find(want), std::string::npos) << instr << "\n" << err(instr);
  // A local variable cannot be the target.
  EXPECT_NE(load_error(".visible .entry k() {\n  .local .b32 lv;\n  .reg .b32 %r<2>;\n  atom.add.u32 %r1, [lv], 1;\n  ret;\n}\n")
                .find("cannot access a .local or .param variable"),
            std::string::npos);
  // PTX ISA versions.
  auto err_v = [](const std::string& version, const std::string& instr) {
    try {
      load_program(".version " + version + "\n.target sm_90a\n.address_size 64\n.visible .entry k() {\n  .reg .b64 %rd<4>;\n"
                   "  .reg .b128 %q<4>;\n  .reg .f32 %f<4>;\n  " + instr + "\n  ret;\n}\n", "v.ptx");
    } catch (const PtxError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err_v("8.2", "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;").find("requires PTX ISA .version 8.3"), std::string::npos);
  EXPECT_EQ(err_v("8.3", "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;"), "");
  EXPECT_NE(err_v("8.0", "atom.global.v2.f32.add {%f0, %f1}, [%rd1], {%f0, %f1};").find("requires PTX ISA .version 8.1"), std::string::npos);
  // Targets: 128-bit and vector atomics need sm_90.
  auto err_t = [](const std::string& instr) {
    try {
      load_program(".version 8.7\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  .reg .b64 %rd<4>;\n  .reg .b128 %q<4>;\n"
                   "  .reg .f32 %f<4>;\n  " + instr + "\n  ret;\n}\n", "t.ptx");
    } catch (const PtxError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err_t("atom.global.cas.b128 %q1, [%rd1], %q2, %q3;").find("Modifier '.b128' of instruction 'atom' not supported on .target 'sm_80'"), std::string::npos);
  EXPECT_NE(err_t("atom.global.v2.f32.add {%f0, %f1}, [%rd1], {%f0, %f1};").find("not supported on .target 'sm_80'"), std::string::npos);
  EXPECT_EQ(err_t("atom.global.add.f64 %rd1, [%rd2], %rd3;"), "");
}

TEST(AtomFault, UnreachableMisalignedAndOutOfBoundsTargets) {
  struct Case {
    std::string instr, want;
  };
  const std::vector<Case> cases = {
      {"atom.add.u32 %r1, [%rd3], 1;", "illegal address: generic address LOCAL (lane 0) of an atomic operation points to local memory; atom/red reach only .global and .shared memory"},
      {"red.add.u32 [%rd4], 1;", "points to the kernel parameters"},
      {"atom.v2.f32.add {%f1, %f2}, [%rd5], {%f1, %f2};", "points to shared memory; vector atom/red reach only .global memory"},
      {"atom.global.v2.f32.add {%f1, %f2}, [%rd5], {%f1, %f2};", "global write of 8 bytes at SHW (lane 0): not inside any allocation"},
      {"atom.global.add.u32 %r1, [%rd1+2], 1;", "misaligned address: global access of 4 bytes at BUF+0x2 is not 4-byte aligned"},
      {"atom.global.add.u64 %rd6, [%rd1+4], 1;", "misaligned address: global access of 8 bytes at BUF+0x4 is not 8-byte aligned"},
      {"atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1+8], {%f1, %f2, %f3, %f4};", "is not 16-byte aligned"},
      {"atom.global.cas.b128 %q1, [%rd1+8], %q1, %q1;", "is not 16-byte aligned"},
      {"atom.global.add.u32 %r1, [%rd1+64], 1;", "illegal address: global write of 4 bytes at BUF+0x40 (lane 0): 4 bytes past the end of allocation 'buf'"},
      {"atom.shared.add.u32 %r1, [sv+16], 1;", " of 4 bytes at SV+0x10 (lane 0): beyond the CTA's 16 bytes of shared memory"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.instr);
    const std::string body = ".visible .entry k(.param .u64 buf) {\n  .shared .align 4 .b32 sv[4];\n  .local .align 4 .b32 lv;\n"
                             "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<8>;\n  .reg .b128 %q<2>;\n"
                             "  ld.param.u64 %rd1, [buf];\n  mov.u64 %rd2, lv;\n  cvta.local.u64 %rd3, %rd2;\n"
                             "  mov.u64 %rd2, buf;\n  cvta.param.u64 %rd4, %rd2;\n  mov.u64 %rd2, sv;\n  cvta.shared.u64 %rd5, %rd2;\n"
                             "  " + c.instr + "\n  ret;\n}\n";
    Kernel kern(body);
    Launch L(kern);
    uint64_t base = L.alloc(64, "buf");
    L.arg(base);
    auto r = L.run({1, 1, 1}, {1, 1, 1});
    ASSERT_EQ(r.status, RunStatus::Fault) << r.report;
    std::string want = c.want;
    if (auto at = want.find("BUF+"); at != std::string::npos) {
      size_t end = want.find(' ', at);
      want.replace(at, end - at, hex(base + std::strtoull(want.c_str() + at + 4, nullptr, 16)));
    }
    if (auto at = want.find("SV+"); at != std::string::npos) {
      size_t end = want.find(' ', at);
      want.replace(at, end - at, hex(kSharedReserved + std::strtoull(want.c_str() + at + 3, nullptr, 16)));
    }
    if (auto at = want.find("LOCAL"); at != std::string::npos) want.replace(at, 5, hex(kLocalWindow));
    if (auto at = want.find("SHW"); at != std::string::npos) want.replace(at, 3, hex(kSharedWindow + kSharedReserved));
    EXPECT_NE(r.report.find(want), std::string::npos) << r.report;
    EXPECT_NE(r.report.find(std::string(kFile) + ":" + std::to_string(line_of(body, c.instr)) + ":"), std::string::npos) << r.report;
  }
}

}  // namespace
}  // namespace ptxsim
