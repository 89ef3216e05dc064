// ldmatrix and stmatrix (sim/sem/ldmatrix.cpp) through the public API: PTX kernels in the test,
// ptxsim::load_program + ptxsim::launch, poisoned output buffers, random data and random
// (scattered, 16-byte aligned) row addresses with the seed printed (rerun with
// PTXSIM_TEST_SEED=<seed>). Expected registers follow the per-lane tables of
// shared/reference/ptx-facts.md 4.2, written out here independently of model/fragments; round
// trips through ldmatrix + stmatrix check the pair against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sim/api.h"

namespace ptxsim {
namespace {

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

std::string module(const std::string& body, const std::string& target = "sm_100a", const std::string& version = "8.7") {
  return ".version " + version + "\n.target " + target + "\n.address_size 64\n\n" + body;
}

RunResult run(const std::string& ptx, Device& dev, const std::vector<uint64_t>& args, uint32_t threads = 32) {
  auto prog = load_program(ptx, "ldmatrix_test.ptx");
  auto ks = kernels(*prog);
  EXPECT_EQ(ks.size(), 1u);
  const KernelInfo& info = ks.at(0);
  EXPECT_EQ(info.params.size(), args.size());
  std::vector<uint8_t> params(info.param_bytes, 0);
  for (size_t i = 0; i < info.params.size() && i < args.size(); ++i)
    std::memcpy(params.data() + info.params[i].offset, &args[i], info.params[i].size);
  LaunchConfig cfg;
  cfg.block.x = threads;
  cfg.max_seconds = 60;
  return launch(*prog, info.name, cfg, params, dev.mem);
}

#define EXPECT_COMPLETED(r) \
  ASSERT_EQ((r).status, RunStatus::Completed) << to_string((r).status) << "\n" << (r).report

std::string load_error(const std::string& ptx) {
  try {
    load_program(ptx, "ldmatrix_test.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

std::string regs(int first, int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ", %r" : "%r") + std::to_string(first + i);
  return s + "}";
}

// Kernel skeleton (32 threads): copies `in` (2 x 2048 bytes) to shared buffers sm0 and sm1, loads
// %r8 = rows[tid] (a byte offset into sm0) and %r9 = rows[32 + tid] (into sm1), runs `body`, then
// stores regs %r10.. (`nout` per lane) to out[tid * nout + j] and copies sm1 back to `mem_out`.
// %r2 / %r3 hold the shared addresses of sm0 / sm1.
std::string kernel(const std::string& body, int nout) {
  std::string s = R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 rows, .param .u64 mem_out) {
  .reg .b32 %r<60>;
  .reg .b64 %rd<40>;
  .reg .pred %p<4>;
  .shared .align 16 .b8 sm0[2048];
  .shared .align 16 .b8 sm1[2048];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm0;
  mov.u32 %r3, sm1;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd1, %rd1;
  mul.lo.u32 %r4, %r1, 64;
  mov.u32 %r5, 0;
COPY:
  add.u32 %r6, %r4, %r5;
  cvt.u64.u32 %rd2, %r6;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r7, [%rd3];
  add.u32 %r50, %r2, %r6;
  st.shared.u32 [%r50], %r7;
  ld.global.u32 %r7, [%rd3+2048];
  add.u32 %r50, %r3, %r6;
  st.shared.u32 [%r50], %r7;
  add.u32 %r5, %r5, 4;
  setp.lt.u32 %p1, %r5, 64;
  @%p1 bra COPY;
  bar.sync 0;
  ld.param.u64 %rd4, [rows];
  cvta.to.global.u64 %rd4, %rd4;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd4, %rd5;
  ld.global.u32 %r8, [%rd6];
  ld.global.u32 %r9, [%rd6+128];
  add.u32 %r8, %r8, %r2;
  add.u32 %r9, %r9, %r3;
)";
  s += body;
  s += "  ld.param.u64 %rd7, [out];\n  cvta.to.global.u64 %rd7, %rd7;\n";
  s += "  mul.wide.u32 %rd8, %r1, " + std::to_string(4 * std::max(nout, 1)) + ";\n  add.u64 %rd9, %rd7, %rd8;\n";
  for (int j = 0; j < nout; ++j) s += "  st.global.u32 [%rd9+" + std::to_string(4 * j) + "], %r" + std::to_string(10 + j) + ";\n";
  s += R"(  bar.sync 0;
  ld.param.u64 %rd10, [mem_out];
  cvta.to.global.u64 %rd10, %rd10;
  mov.u32 %r5, 0;
BACK:
  add.u32 %r6, %r4, %r5;
  cvt.u64.u32 %rd2, %r6;
  add.u64 %rd3, %rd10, %rd2;
  add.u32 %r50, %r3, %r6;
  ld.shared.u32 %r7, [%r50];
  st.global.u32 [%rd3], %r7;
  add.u32 %r5, %r5, 4;
  setp.lt.u32 %p1, %r5, 64;
  @%p1 bra BACK;
  ret;
}
)";
  return s;
}

// Random shared contents and row offsets: 64 row offsets, the first 32 distinct 16-byte slots of
// sm0 and the next 32 distinct slots of sm1.
struct Inputs {
  std::vector<uint8_t> mem;  // 4096 bytes: sm0 then sm1
  std::vector<uint32_t> rows;
};
Inputs random_inputs(std::mt19937_64& rng) {
  Inputs in;
  in.mem.resize(4096);
  for (auto& b : in.mem) b = uint8_t(rng());
  for (int half = 0; half < 2; ++half) {
    std::vector<uint32_t> slots(128);
    std::iota(slots.begin(), slots.end(), 0u);
    std::shuffle(slots.begin(), slots.end(), rng);
    for (int i = 0; i < 32; ++i) in.rows.push_back(slots[size_t(i)] * 16);
  }
  return in;
}

struct Out {
  std::vector<uint32_t> regs;
  std::vector<uint8_t> sm1;
};

Out launch_kernel(const std::string& ptx, const Inputs& in, int nout, RunResult* result = nullptr) {
  Device dev;
  const uint64_t din = dev.upload(in.mem), drows = dev.upload(in.rows);
  const uint64_t dout = dev.alloc(size_t(32 * std::max(nout, 1) * 4)), dmem = dev.alloc(2048);
  RunResult r = run(ptx, dev, {din, dout, drows, dmem});
  if (result) *result = r;
  else EXPECT_EQ(r.status, RunStatus::Completed) << to_string(r.status) << "\n" << r.report;
  Out o;
  o.regs = dev.download<uint32_t>(dout, size_t(32 * std::max(nout, 1)));
  o.sm1 = dev.download<uint8_t>(dmem, 2048);
  return o;
}

// Byte `i` of the 16-byte row whose offset lane k supplied in sm0.
uint8_t row0(const Inputs& in, int k, int i) { return in.mem[size_t(in.rows[size_t(k)]) + size_t(i)]; }

// The widened row of an expanding form (4-bit element -> bits 3:0, 6-bit -> bits 5:0).
std::vector<uint8_t> widened(const Inputs& in, int k, bool six) {
  std::vector<uint8_t> r(16);
  for (int i = 0; i < 16; ++i) {
    if (six) {
      uint32_t v = 0;
      for (int bit = 0; bit < 6; ++bit) {
        const int pos = 6 * i + bit;
        v |= uint32_t((row0(in, k, pos / 8) >> (pos % 8)) & 1) << bit;
      }
      r[size_t(i)] = uint8_t(v);
    } else {
      r[size_t(i)] = uint8_t((row0(in, k, i / 2) >> (4 * (i % 2))) & 0xF);
    }
  }
  return r;
}

// ---- ldmatrix ------------------------------------------------------------------------------------

struct LdForm {
  std::string mods;  // after "ldmatrix.sync.aligned"
  int shape;         // 0 m8n8, 1 m16n16, 2 m8n16
  int num;
  bool trans;
  int expand;        // 0 none, 6 b6x16_p32, 4 b4x16_p64
};

int ld_regs(const LdForm& f) { return f.shape == 1 ? 2 * f.num : f.num; }

// Register j of lane t per ptx-facts 4.2.
uint32_t expected_ld(const LdForm& f, const Inputs& in, int t, int j) {
  const int g = t / 4, q = t % 4;
  uint32_t v = 0;
  if (f.shape == 0) {
    for (int e = 0; e < 2; ++e) {
      const int k = f.trans ? 8 * j + 2 * q + e : 8 * j + g;
      const int col = f.trans ? g : 2 * q + e;
      v |= uint32_t(row0(in, k, 2 * col) | row0(in, k, 2 * col + 1) << 8) << (16 * e);
    }
  } else if (f.shape == 1) {
    for (int e = 0; e < 4; ++e) {
      const int k = 16 * (j / 2) + 4 * q + e, col = g + 8 * (j % 2);
      const uint8_t b = f.expand ? widened(in, k, f.expand == 6)[size_t(col)] : row0(in, k, col);
      v |= uint32_t(b) << (8 * e);
    }
  } else {
    const auto row = widened(in, 8 * j + g, f.expand == 6);
    for (int e = 0; e < 4; ++e) v |= uint32_t(row[size_t(4 * q + e)]) << (8 * e);
  }
  return v;
}

std::vector<LdForm> ld_forms() {
  std::vector<LdForm> v;
  for (int num : {1, 2, 4})
    for (bool trans : {false, true})
      v.push_back({".m8n8.x" + std::to_string(num) + (trans ? ".trans" : "") + ".shared.b16", 0, num, trans, 0});
  for (int num : {1, 2}) {
    v.push_back({".m16n16.x" + std::to_string(num) + ".trans.shared::cta.b8", 1, num, true, 0});
    v.push_back({".m16n16.x" + std::to_string(num) + ".trans.shared.b8x16.b6x16_p32", 1, num, true, 6});
    v.push_back({".m16n16.x" + std::to_string(num) + ".trans.shared.b8x16.b4x16_p64", 1, num, true, 4});
  }
  for (int num : {1, 2, 4}) {
    v.push_back({".m8n16.x" + std::to_string(num) + ".shared.b8x16.b6x16_p32", 2, num, false, 6});
    v.push_back({".m8n16.x" + std::to_string(num) + ".shared.b8x16.b4x16_p64", 2, num, false, 4});
  }
  return v;
}

TEST(Ldmatrix, EveryFormMatchesThePerLaneTable) {
  std::mt19937_64 rng(seed_for_test());
  for (const LdForm& f : ld_forms()) {
    SCOPED_TRACE("ldmatrix.sync.aligned" + f.mods);
    const int n = ld_regs(f);
    const std::string body = "  ldmatrix.sync.aligned" + f.mods + " " + regs(10, n) + ", [%r8];\n";
    const std::string ptx = module(kernel(body, n));
    for (int rep = 0; rep < 3; ++rep) {
      const Inputs in = random_inputs(rng);
      const Out o = launch_kernel(ptx, in, n);
      for (int t = 0; t < 32; ++t)
        for (int j = 0; j < n; ++j)
          ASSERT_EQ(o.regs[size_t(t * n + j)], expected_ld(f, in, t, j)) << "lane " << t << " reg " << j;
    }
  }
}

// The m8n8 .b16 forms on sm_90a (where the sm_100 shapes are rejected), with generic addressing.
TEST(Ldmatrix, GenericAddressingOnSm90a) {
  std::mt19937_64 rng(seed_for_test());
  for (int num : {1, 2, 4})
    for (bool trans : {false, true}) {
      const LdForm f{"", 0, num, trans, 0};
      const std::string body = "  cvt.u64.u32 %rd20, %r8;\n  cvta.shared.u64 %rd21, %rd20;\n  ldmatrix.sync.aligned.m8n8.x" +
                               std::to_string(num) + (trans ? ".trans" : "") + ".b16 " + regs(10, num) + ", [%rd21];\n";
      const Inputs in = random_inputs(rng);
      const Out o = launch_kernel(module(kernel(body, num), "sm_90a"), in, num);
      for (int t = 0; t < 32; ++t)
        for (int j = 0; j < num; ++j) ASSERT_EQ(o.regs[size_t(t * num + j)], expected_ld(f, in, t, j));
    }
}

// Lanes above 8 * num supply no address: garbage (even misaligned) there is ignored.
TEST(Ldmatrix, OnlyAddressLanesAreRead) {
  std::mt19937_64 rng(seed_for_test());
  const std::string body =
      "  setp.ge.u32 %p2, %r1, 8;\n  @%p2 add.u32 %r8, %r8, 3;\n  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r8];\n";
  const Inputs in = random_inputs(rng);
  const Out o = launch_kernel(module(kernel(body, 1), "sm_90a"), in, 1);
  const LdForm f{"", 0, 1, false, 0};
  for (int t = 0; t < 32; ++t) ASSERT_EQ(o.regs[size_t(t)], expected_ld(f, in, t, 0));
}

TEST(Ldmatrix, MisalignedRowFaults) {
  std::mt19937_64 rng(seed_for_test());
  const std::string body =
      "  setp.eq.u32 %p2, %r1, 5;\n  @%p2 add.u32 %r8, %r8, 8;\n  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [%r8];\n";
  RunResult r;
  launch_kernel(module(kernel(body, 2), "sm_90a"), random_inputs(rng), 2, &r);
  ASSERT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.report.find("not 16-byte aligned"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("lane 5"), std::string::npos) << r.report;
}

TEST(Ldmatrix, PartialWarpFaults) {
  std::mt19937_64 rng(seed_for_test());
  const std::string body =
      "  setp.lt.u32 %p2, %r1, 16;\n  @%p2 ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r8];\n";
  RunResult r;
  launch_kernel(module(kernel(body, 1), "sm_90a"), random_inputs(rng), 1, &r);
  ASSERT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.report.find("all 32 lanes"), std::string::npos) << r.report;
}

TEST(Ldmatrix, GenericAddressOutsideSharedFaults) {
  std::mt19937_64 rng(seed_for_test());
  const std::string body = "  ld.param.u64 %rd20, [out];\n  ldmatrix.sync.aligned.m8n8.x1.b16 {%r10}, [%rd20];\n";
  RunResult r;
  launch_kernel(module(kernel(body, 1), "sm_90a"), random_inputs(rng), 1, &r);
  ASSERT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.report.find("does not point into shared memory"), std::string::npos) << r.report;
}

TEST(Ldmatrix, TargetAndSyntaxGates) {
  auto one = [](const std::string& instr, const std::string& target, const std::string& version = "8.7") {
    return load_error(module(".visible .entry k() {\n .reg .b32 %r<8>;\n .reg .b64 %rd<2>;\n " + instr + "\n ret;\n}\n",
                             target, version));
  };
  EXPECT_EQ(one("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1, %r2, %r3}, [%r4];", "sm_90a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r4];", "sm_90a"), "");
  EXPECT_EQ(one("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r4];", "sm_100a"), "");
  EXPECT_EQ(one("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r4];", "sm_120a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r4];", "sm_100a", "8.5"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 {%r0}, [%r4];", "sm_90a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r0}, [%r4];", "sm_75", "7.7"), "");
  EXPECT_EQ(one("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r0}, [%r4];", "sm_75", "7.8"), "");
  // ptxas's combination rules.
  EXPECT_NE(one("ldmatrix.sync.aligned.m16n16.x1.shared.b8 {%r0, %r1}, [%r4];", "sm_100a").find("'.trans' require"),
            std::string::npos);
  EXPECT_NE(one("ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8 {%r0, %r1, %r2, %r3}, [%r4];", "sm_100a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n16.x1.trans.shared.b8x16.b6x16_p32 {%r0}, [%r4];", "sm_100a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n16.x1.shared.b8 {%r0}, [%r4];", "sm_100a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n8.x1.shared.b8 {%r0}, [%r4];", "sm_100a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16 {%r0, %r1}, [%r4];", "sm_100a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r0}, [%r4];", "sm_90a").find("Vector of size 2"),
            std::string::npos);
  EXPECT_NE(one("ldmatrix.aligned.m8n8.x1.shared.b16 {%r0}, [%r4];", "sm_90a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n8.shared.b16 {%r0}, [%r4];", "sm_90a"), "");
  EXPECT_NE(one("ldmatrix.sync.aligned.m8n8.x1.shared::cluster.b16 {%r0}, [%r4];", "sm_90a"), "");
  EXPECT_NE(one("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r4], {%r0};", "sm_80"), "");
  EXPECT_EQ(one("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r4], {%r0};", "sm_90a"), "");
  EXPECT_NE(one("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r4], {%r0};", "sm_90a"), "");
  EXPECT_EQ(one("stmatrix.sync.aligned.m16n8.x4.trans.shared.b8 [%r4], {%r0, %r1, %r2, %r3};", "sm_100a"), "");
  EXPECT_NE(one("stmatrix.sync.aligned.m16n8.x1.shared.b8 [%r4], {%r0};", "sm_100a"), "");
  EXPECT_NE(one("stmatrix.sync.aligned.m16n8.x1.trans.shared.b16 [%r4], {%r0};", "sm_100a"), "");
  EXPECT_NE(one("stmatrix.sync.aligned.m8n8.x1.trans.shared.b8 [%r4], {%r0};", "sm_100a"), "");
}

// ---- stmatrix and round trips ----------------------------------------------------------------------

// ldmatrix then stmatrix of the same m8n8 form: the rows read at sm0's offsets are written at sm1's.
// With .trans on only one side, every 8x8 matrix is transposed on the way.
TEST(Stmatrix, RoundTripsThroughLdmatrix) {
  std::mt19937_64 rng(seed_for_test());
  for (int num : {1, 2, 4})
    for (int ld_trans = 0; ld_trans < 2; ++ld_trans)
      for (int st_trans = 0; st_trans < 2; ++st_trans) {
        SCOPED_TRACE("x" + std::to_string(num) + " ld.trans=" + std::to_string(ld_trans) +
                     " st.trans=" + std::to_string(st_trans));
        const std::string x = ".x" + std::to_string(num);
        const std::string body = "  ldmatrix.sync.aligned.m8n8" + x + (ld_trans ? ".trans" : "") + ".shared.b16 " +
                                 regs(10, num) + ", [%r8];\n  stmatrix.sync.aligned.m8n8" + x +
                                 (st_trans ? ".trans" : "") + ".shared.b16 [%r9], " + regs(10, num) + ";\n";
        const Inputs in = random_inputs(rng);
        const Out o = launch_kernel(module(kernel(body, 0), "sm_90a"), in, 0);
        std::vector<uint8_t> want(in.mem.begin() + 2048, in.mem.end());  // untouched bytes keep their data
        for (int m = 0; m < num; ++m)
          for (int r = 0; r < 8; ++r)
            for (int c = 0; c < 8; ++c) {
              const bool transpose = ld_trans != st_trans;
              const int sr = transpose ? c : r, sc = transpose ? r : c;
              for (int b = 0; b < 2; ++b)
                want[size_t(in.rows[size_t(32 + 8 * m + r)]) + size_t(2 * c + b)] = row0(in, 8 * m + sr, 2 * sc + b);
            }
        ASSERT_EQ(o.sm1, want);
      }
}

// stmatrix.m16n8.trans.b8 (sm_100a) from registers: lane t, register j, byte e goes to byte
// t/4 + 8*(e/2) of the row addressed by lane 8j + 2(t%4) + e%2 (ptx-facts 4.2).
TEST(Stmatrix, M16n8TransB8) {
  std::mt19937_64 rng(seed_for_test());
  for (int num : {1, 2, 4}) {
    SCOPED_TRACE("x" + std::to_string(num));
    // Registers: the first 32 * num words of sm0 in lane-major order.
    std::string body;
    for (int j = 0; j < num; ++j)
      body += "  mul.lo.u32 %r40, %r1, " + std::to_string(4 * num) + ";\n  add.u32 %r40, %r40, %r2;\n  ld.shared.u32 %r" +
              std::to_string(10 + j) + ", [%r40+" + std::to_string(4 * j) + "];\n";
    body += "  stmatrix.sync.aligned.m16n8.x" + std::to_string(num) + ".trans.shared.b8 [%r9], " + regs(10, num) + ";\n";
    const Inputs in = random_inputs(rng);
    const Out o = launch_kernel(module(kernel(body, 0)), in, 0);
    std::vector<uint8_t> want(in.mem.begin() + 2048, in.mem.end());
    for (int t = 0; t < 32; ++t)
      for (int j = 0; j < num; ++j)
        for (int e = 0; e < 4; ++e) {
          const uint8_t byte = in.mem[size_t(4 * (t * num + j) + e)];
          const int lane = 8 * j + 2 * (t % 4) + e % 2, col = t / 4 + 8 * (e / 2);
          want[size_t(in.rows[size_t(32 + lane)]) + size_t(col)] = byte;
        }
    ASSERT_EQ(o.sm1, want);
  }
}

TEST(Stmatrix, MisalignedRowFaultsBeforeWriting) {
  std::mt19937_64 rng(seed_for_test());
  const std::string body =
      "  setp.eq.u32 %p2, %r1, 3;\n  @%p2 add.u32 %r9, %r9, 4;\n  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r9], {%r1};\n";
  RunResult r;
  launch_kernel(module(kernel(body, 0), "sm_90a"), random_inputs(rng), 0, &r);
  ASSERT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.report.find("stmatrix: row address"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("lane 3"), std::string::npos) << r.report;
}

}  // namespace
}  // namespace ptxsim
