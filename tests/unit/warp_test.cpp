// Warp-collective instructions (sim/sem/warp.cpp) through the public API: PTX text in the test,
// ptxsim::load_program + ptxsim::launch, device buffers poisoned before the run, results compared
// with host references written independently of the simulator (CUDA's documented __shfl_*_sync
// behaviour, plain loops over the lanes). Random inputs print their seed; rerun one with
// PTXSIM_TEST_SEED=<seed>.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "sim/api.h"

namespace ptxsim {
namespace {

// ---- harness ----------------------------------------------------------------------------------

constexpr uint8_t kPoison = 0xA5;
constexpr uint32_t kPoison32 = 0xA5A5A5A5u;

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
  // A buffer of `bytes`, every byte set to kPoison so that lanes that never write show up.
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

std::string module(const std::string& body, const std::string& target = "sm_90a", const std::string& version = "8.7") {
  return ".version " + version + "\n.target " + target + "\n.address_size 64\n\n" + body;
}

// Launches `kernel` with one 8-byte value (pointer or integer) per declared parameter.
RunResult run(const std::string& ptx, Device& dev, Dim3 grid, Dim3 block, const std::vector<uint64_t>& args,
              const std::string& kernel = "k") {
  auto prog = load_program(ptx, "warp_test.ptx");
  const KernelInfo* info = nullptr;
  auto ks = kernels(*prog);
  for (auto& k : ks)
    if (k.name == kernel) info = &k;
  EXPECT_NE(info, nullptr);
  if (!info) return {};
  EXPECT_EQ(info->params.size(), args.size());
  std::vector<uint8_t> params(info->param_bytes, 0);
  for (size_t i = 0; i < info->params.size() && i < args.size(); ++i)
    std::memcpy(params.data() + info->params[i].offset, &args[i], info->params[i].size);
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.max_seconds = 60;
  cfg.max_instructions = 200'000'000;
  return launch(*prog, kernel, cfg, params, dev.mem);
}

#define EXPECT_COMPLETED(r) \
  ASSERT_EQ((r).status, RunStatus::Completed) << to_string((r).status) << "\n" << (r).report

// The message of the PtxError that loading `ptx` throws ("" if it loads).
std::string load_error(const std::string& ptx) {
  try {
    load_program(ptx, "warp_test.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// Common PTX: %r1 = tid, %r2 = laneid, %rd1 = tid * 4.
const char* kPrologue = R"(
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  .reg .pred %p<16>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mul.wide.u32 %rd1, %r1, 4;
)";

// Loads the u32 at param `name`[tid] into `reg` using scratch 64-bit registers rdA, rdB.
std::string load_u32(const std::string& reg, const std::string& name, int rdA) {
  std::string a = "%rd" + std::to_string(rdA), b = "%rd" + std::to_string(rdA + 1);
  return "  ld.param.u64 " + a + ", [" + name + "];\n  cvta.to.global.u64 " + a + ", " + a + ";\n  add.s64 " + b + ", " + a +
         ", %rd1;\n  ld.global.u32 " + reg + ", [" + b + "];\n";
}
std::string store_u32(const std::string& name, const std::string& reg, int rdA) {
  std::string a = "%rd" + std::to_string(rdA), b = "%rd" + std::to_string(rdA + 1);
  return "  ld.param.u64 " + a + ", [" + name + "];\n  cvta.to.global.u64 " + a + ", " + a + ";\n  add.s64 " + b + ", " + a +
         ", %rd1;\n  st.global.u32 [" + b + "], " + reg + ";\n";
}

// ---- host references --------------------------------------------------------------------------

enum Mode { kUp, kDown, kBfly, kIdx };
const char* mode_name(int m) { return m == kUp ? "up" : m == kDown ? "down" : m == kBfly ? "bfly" : "idx"; }

// CUDA's documented __shfl_*_sync(mask, var, x, width) behaviour for a full warp: returns the value
// and whether it came from another lane's range check passing (the `p` of shfl).
struct Shfl {
  uint32_t v;
  bool p;
};
Shfl cuda_shfl(int mode, const uint32_t* var, int lane, uint32_t x, int width) {
  const int base = lane / width * width;
  switch (mode) {
    case kIdx: return {var[base + int(x % uint32_t(width))], true};  // srcLane modulo width
    case kUp: {
      bool ok = lane - base >= int(x);
      return {ok ? var[lane - int(x)] : var[lane], ok};
    }
    case kDown: {
      bool ok = lane - base + int(x) < width;
      return {ok ? var[lane + int(x)] : var[lane], ok};
    }
    default: {  // xor: lanes of later groups are out of range, earlier ones are readable
      int j = lane ^ int(x);
      bool ok = j < base + width;
      return {ok ? var[j] : var[lane], ok};
    }
  }
}
// The c operand CUDA passes for a width.
uint32_t cuda_c(int mode, int width) { return (uint32_t(32 - width) << 8) | (mode == kUp ? 0u : 0x1fu); }

// The PTX ISA's shfl pseudo-code, for arbitrary b and c. `avail`: lanes whose value can be read;
// others give the own value (ptxsim's documented choice for unpredictable sources).
Shfl isa_shfl(int mode, const uint32_t* a, int lane, uint32_t b, uint32_t c, uint32_t avail) {
  const int bval = int(b & 31), cval = int(c & 31), seg = int((c >> 8) & 31);
  const int max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg;
  int j = 0;
  bool p = false;
  if (mode == kUp) j = lane - bval, p = j >= max_lane;
  if (mode == kDown) j = lane + bval, p = j <= max_lane;
  if (mode == kBfly) j = lane ^ bval, p = j <= max_lane;
  if (mode == kIdx) j = min_lane | (bval & ~seg), p = j <= max_lane;
  if (!p) j = lane;
  return {(avail >> j & 1) ? a[j] : a[lane], p};
}

// ---- shfl.sync --------------------------------------------------------------------------------

std::string shfl_kernel(int mode, const std::string& b, const std::string& c, const std::string& mask) {
  return module(std::string(".visible .entry k(.param .u64 A, .param .u64 B, .param .u64 C, .param .u64 D, .param .u64 P)\n{") +
                kPrologue + load_u32("%r3", "A", 2) + load_u32("%r4", "B", 4) + load_u32("%r5", "C", 6) +
                "  shfl.sync." + mode_name(mode) + ".b32 %r6|%p1, %r3, " + b + ", " + c + ", " + mask + ";\n" +
                "  selp.u32 %r7, 1, 0, %p1;\n" + store_u32("D", "%r6", 8) + store_u32("P", "%r7", 10) + "  ret;\n}\n");
}

TEST(WarpShfl, CudaWidthsWithImmediateOperands) {
  std::mt19937_64 rng(seed_for_test());
  const int kThreads = 64;
  for (int mode : {kUp, kDown, kBfly, kIdx}) {
    for (int width : {1, 2, 4, 8, 16, 32}) {
      const uint32_t x = mode == kIdx ? uint32_t(rng() % 64) : uint32_t(rng() % 32);
      const std::string ptx = shfl_kernel(mode, std::to_string(x), std::to_string(cuda_c(mode, width)), "0xffffffff");
      Device dev;
      std::vector<uint32_t> a(kThreads), zeros(kThreads, 0);
      for (auto& v : a) v = uint32_t(rng());
      uint64_t A = dev.upload(a), B = dev.upload(zeros), C = dev.upload(zeros), D = dev.alloc(4 * kThreads),
               P = dev.alloc(4 * kThreads);
      auto r = run(ptx, dev, {1, 1, 1}, {kThreads, 1, 1}, {A, B, C, D, P});
      EXPECT_COMPLETED(r);
      auto d = dev.download<uint32_t>(D, kThreads);
      auto p = dev.download<uint32_t>(P, kThreads);
      for (int t = 0; t < kThreads; ++t) {
        Shfl want = cuda_shfl(mode, &a[t / 32 * 32], t % 32, x, width);
        ASSERT_EQ(d[t], want.v) << "shfl." << mode_name(mode) << " x=" << x << " width=" << width << " thread " << t;
        ASSERT_EQ(p[t], uint32_t(want.p)) << "shfl." << mode_name(mode) << " x=" << x << " width=" << width << " thread " << t;
      }
    }
  }
}

TEST(WarpShfl, PerLaneRegisterOperandsFollowIsaPseudoCode) {
  // b and c differ per lane and carry junk in the bits the ISA ignores (b[31:5], c[7:5], c[31:13]).
  std::mt19937_64 rng(seed_for_test());
  const int kThreads = 96;
  for (int mode : {kUp, kDown, kBfly, kIdx}) {
    for (int iter = 0; iter < 6; ++iter) {
      Device dev;
      std::vector<uint32_t> a(kThreads), b(kThreads), c(kThreads);
      for (int t = 0; t < kThreads; ++t) {
        a[t] = uint32_t(rng());
        b[t] = uint32_t(rng());
        uint32_t seg = iter % 2 ? uint32_t(rng() % 32) : (0x1fu << (rng() % 6)) & 0x1f;  // random or width-like
        c[t] = (uint32_t(rng()) & ~0x1f1fu) | (seg << 8) | uint32_t(rng() % 32);
      }
      uint64_t A = dev.upload(a), B = dev.upload(b), C = dev.upload(c), D = dev.alloc(4 * kThreads), P = dev.alloc(4 * kThreads);
      auto r = run(shfl_kernel(mode, "%r4", "%r5", "-1"), dev, {1, 1, 1}, {kThreads, 1, 1}, {A, B, C, D, P});
      EXPECT_COMPLETED(r);
      auto d = dev.download<uint32_t>(D, kThreads);
      auto p = dev.download<uint32_t>(P, kThreads);
      for (int t = 0; t < kThreads; ++t) {
        Shfl want = isa_shfl(mode, &a[t / 32 * 32], t % 32, b[t], c[t], 0xffffffffu);
        ASSERT_EQ(d[t], want.v) << "shfl." << mode_name(mode) << " b=" << std::hex << b[t] << " c=" << c[t] << std::dec
                                << " thread " << t;
        ASSERT_EQ(p[t], uint32_t(want.p)) << "shfl." << mode_name(mode) << " thread " << t;
      }
    }
  }
}

TEST(WarpShfl, DestinationMayAliasSources) {
  // shfl.sync.idx %r3, %r3, %r3, ...: every lane reads its b (its own a) before any lane writes.
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) + "  shfl.sync.idx.b32 %r3, %r3, %r3, 31, 0xffffffff;\n" +
                                 store_u32("D", "%r3", 4) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(32);
  for (auto& v : a) v = uint32_t(rng() % 32) | (uint32_t(rng()) << 5);
  uint64_t A = dev.upload(a), D = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 32);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(d[l], a[a[l] & 31]) << "lane " << l;
}

TEST(WarpShfl, SourcesOutsideMembermaskOrPredicatedOffGiveOwnValue) {
  // Lanes with odd tid branch away; the even lanes shuffle among themselves with membermask
  // 0x55555555 (bfly 1 would read an odd lane: out of the membermask), and inside that, a guard
  // turns off lanes 0..7 (predicated-off sources). ptxsim documents: the lane's own value.
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D, .param .u64 E)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) +
                                 "  mov.u32 %r6, 0xdeadbeef;\n"
                                 "  and.b32 %r4, %r2, 1;\n"
                                 "  setp.ne.u32 %p1, %r4, 0;\n"
                                 "  @%p1 bra ODD;\n"
                                 "  shfl.sync.bfly.b32 %r5, %r3, 1, 31, 0x55555555;\n"    // odd source: own value
                                 "  setp.ge.u32 %p2, %r2, 8;\n"
                                 "  @%p2 shfl.sync.idx.b32 %r6, %r3, 2, 31, 0x55555555;\n"  // lane 2 predicated off
                                 "  bra JOIN;\n"
                                 "ODD:\n"
                                 "  shfl.sync.bfly.b32 %r5, %r3, 2, 31, 0xaaaaaaaa;\n"    // odd ^ 2 is odd: real data
                                 "JOIN:\n" +
                                 store_u32("D", "%r5", 4) + store_u32("E", "%r6", 6) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(32);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(128), E = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D, E});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 32);
  auto e = dev.download<uint32_t>(E, 32);
  for (int l = 0; l < 32; ++l) {
    if (l % 2) {
      EXPECT_EQ(d[l], a[l ^ 2]) << "odd lane " << l;
      EXPECT_EQ(e[l], 0xdeadbeefu) << "odd lane " << l;
    } else {
      EXPECT_EQ(d[l], a[l]) << "even lane " << l << " sourced an odd lane outside its membermask";
      EXPECT_EQ(e[l], l >= 8 ? a[l] : 0xdeadbeefu) << "even lane " << l;
    }
  }
}

TEST(WarpShfl, PartialWarpBlockHasNoMissingLanes) {
  // A 48-thread block: warp 1 has 16 lanes. The membermask names only lanes that exist.
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) +
                                 "  setp.lt.u32 %p1, %r1, 32;\n"
                                 "  selp.b32 %r4, -1, 0xffff, %p1;\n"
                                 "  shfl.sync.down.b32 %r5, %r3, 3, 31, %r4;\n" +
                                 store_u32("D", "%r5", 4) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(48);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(4 * 48);
  auto r = run(ptx, dev, {1, 1, 1}, {48, 1, 1}, {A, D});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 48);
  for (int t = 0; t < 48; ++t) {
    int lane = t % 32, base = t / 32 * 32;
    uint32_t avail = t < 32 ? 0xffffffffu : 0xffffu;
    uint32_t want = lane + 3 <= 31 && (avail >> (lane + 3) & 1) ? a[base + lane + 3] : a[t];
    EXPECT_EQ(d[t], want) << "thread " << t;
  }
}

// CUB's logical sub-warps: every half-warp passes its own membermask to the same shfl.sync. Legal
// on sm_70+ (each lane's mask includes itself and names lanes executing the same instruction).
TEST(WarpShfl, PerLaneMembermasksOfLogicalSubWarps) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) +
                                 "  setp.lt.u32 %p1, %r2, 16;\n"
                                 "  selp.b32 %r4, 0x0000ffff, 0xffff0000, %p1;\n"
                                 "  shfl.sync.idx.b32 %r5, %r3, 5, 0x100f, %r4;\n" +  // width 16, srcLane 5
                                 store_u32("D", "%r5", 4) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(32);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 32);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(d[l], a[l / 16 * 16 + 5]) << "lane " << l;
}

// A guard that turns off the lanes outside the membermask (nvcc predicates short if-bodies:
// `if (lane < 16) v = __shfl_xor_sync(0xffff, v, 1);`).
TEST(WarpShfl, GuardedOffLanesOutsideMembermask) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) +
                                 "  mov.u32 %r5, %r3;\n"
                                 "  setp.lt.u32 %p1, %r2, 16;\n"
                                 "  @%p1 shfl.sync.bfly.b32 %r5, %r3, 1, 31, 0x0000ffff;\n" +
                                 store_u32("D", "%r5", 4) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(32);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 32);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(d[l], l < 16 ? a[l ^ 1] : a[l]) << "lane " << l;
}

TEST(WarpShfl, LaneMissingFromItsOwnMembermaskFaults) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) + "  shfl.sync.idx.b32 %r5, %r3, 0, 31, 0x7fffffff;\n" +
                                 store_u32("D", "%r5", 4) + "  ret;\n}\n");
  Device dev;
  uint64_t A = dev.upload(std::vector<uint32_t>(32, 1)), D = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D});
  ASSERT_EQ(r.status, RunStatus::Fault) << r.report;
  EXPECT_NE(r.report.find("membermask"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("0x7fffffff"), std::string::npos) << r.report;
}

// ---- vote.sync --------------------------------------------------------------------------------

TEST(WarpVote, ModesWithNegationInsideDivergentBranches) {
  // m = ballot(cond) over the warp; lanes with cond vote among m in one branch, the others among ~m
  // in the other (different instructions: each branch's group is complete for its membermask).
  auto votes = [](const std::string& mask) {
    return "  vote.sync.all.pred %p3, %p1, " + mask + ";\n"
           "  vote.sync.any.pred %p4, !%p1, " + mask + ";\n"
           "  vote.sync.uni.pred %p5, %p1, " + mask + ";\n"
           "  vote.sync.ballot.b32 %r9, !%p1, " + mask + ";\n";
  };
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 X, .param .u64 K, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "X", 2) + load_u32("%r4", "K", 4) +
                                 "  and.b32 %r5, %r3, 1;\n"
                                 "  setp.ne.u32 %p1, %r5, 0;\n"            // x
                                 "  and.b32 %r6, %r4, 1;\n"
                                 "  setp.ne.u32 %p2, %r6, 0;\n"            // cond
                                 "  vote.sync.ballot.b32 %r7, %p2, 0xffffffff;\n"
                                 "  @!%p2 bra ELSE;\n"
                                 "  mov.u32 %r8, %r7;\n" +
                                 votes("%r8") +
                                 "  bra JOIN;\n"
                                 "ELSE:\n"
                                 "  not.b32 %r8, %r7;\n" +
                                 votes("%r8") +
                                 "JOIN:\n"
                                 "  vote.sync.ballot.b32 %r10, %p1, 0xffffffff;\n"
                                 "  selp.u32 %r11, 1, 0, %p3;\n"
                                 "  selp.u32 %r12, 2, 0, %p4;\n"
                                 "  selp.u32 %r13, 4, 0, %p5;\n"
                                 "  or.b32 %r11, %r11, %r12;\n"
                                 "  or.b32 %r11, %r11, %r13;\n"
                                 "  mul.wide.u32 %rd20, %r1, 16;\n"
                                 "  ld.param.u64 %rd21, [D];\n"
                                 "  cvta.to.global.u64 %rd21, %rd21;\n"
                                 "  add.s64 %rd22, %rd21, %rd20;\n"
                                 "  st.global.v4.u32 [%rd22], {%r11, %r9, %r10, %r8};\n"
                                 "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  const int kThreads = 64;
  for (int iter = 0; iter < 12; ++iter) {
    Device dev;
    std::vector<uint32_t> x(kThreads), k(kThreads);
    // Mix densities so that all/none/uniform outcomes occur.
    int density = iter % 4;
    for (int t = 0; t < kThreads; ++t) {
      x[t] = density == 0 ? 1 : density == 1 ? 0 : uint32_t(rng() % (density == 2 ? 2 : 8) == 0);
      k[t] = uint32_t(rng() % 3 != 0);
    }
    uint64_t X = dev.upload(x), K = dev.upload(k), D = dev.alloc(16 * kThreads);
    auto r = run(ptx, dev, {1, 1, 1}, {kThreads, 1, 1}, {X, K, D});
    EXPECT_COMPLETED(r);
    auto d = dev.download<uint32_t>(D, 4 * kThreads);
    for (int t = 0; t < kThreads; ++t) {
      int base = t / 32 * 32;
      uint32_t m = 0, xb = 0;
      for (int l = 0; l < 32; ++l) {
        m |= (k[base + l] & 1u) << l;
        xb |= (x[base + l] & 1u) << l;
      }
      uint32_t members = (k[t] & 1) ? m : ~m;
      bool all = true, any_not = false;
      int ones = 0, n = 0;
      uint32_t ballot_not = 0;
      for (int l = 0; l < 32; ++l) {
        if (!(members >> l & 1)) continue;
        bool v = xb >> l & 1;
        all = all && v;
        any_not = any_not || !v;
        ones += v;
        ++n;
        if (!v) ballot_not |= 1u << l;
      }
      bool uni = ones == 0 || ones == n;
      uint32_t flags = uint32_t(all) | uint32_t(any_not) << 1 | uint32_t(uni) << 2;
      ASSERT_EQ(d[4 * t + 3], members) << "thread " << t;
      ASSERT_EQ(d[4 * t + 0], flags) << "all/any/uni of thread " << t;
      ASSERT_EQ(d[4 * t + 1], ballot_not) << "ballot(!x) of thread " << t;
      ASSERT_EQ(d[4 * t + 2], xb) << "full-warp ballot of thread " << t;
    }
  }
}

TEST(WarpVote, BallotLeavesZeroForPredicatedOffLanes) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 D)\n{") + kPrologue +
                                 "  mov.u32 %r3, 7;\n"
                                 "  setp.lt.u32 %p1, %r2, 20;\n"   // lanes 0..19 execute
                                 "  setp.ne.u32 %p2, %r2, 3;\n"    // every lane but 3 votes true
                                 "  @%p1 vote.sync.ballot.b32 %r3, %p2, 0xffffffff;\n" +
                                 store_u32("D", "%r3", 4) + "  ret;\n}\n");
  Device dev;
  uint64_t D = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {D});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 32);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(d[l], l < 20 ? 0x000ffff7u : 7u) << "lane " << l;
}

// ---- match.sync -------------------------------------------------------------------------------

TEST(WarpMatch, AnyAndAllB32AndB64) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 H, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) + load_u32("%r4", "H", 4) +
                                 "  mov.b64 %rd10, {%r3, %r4};\n"
                                 "  match.any.sync.b32 %r5, %r3, 0xffffffff;\n"
                                 "  match.all.sync.b32 %r6|%p1, %r3, 0xffffffff;\n"
                                 "  match.any.sync.b64 %r7, %rd10, 0xffffffff;\n"
                                 "  match.all.sync.b64 %r8|%p2, %rd10, 0xffffffff;\n"
                                 "  match.all.sync.b64 _|%p3, %rd10, 0xffffffff;\n"
                                 "  selp.u32 %r9, 1, 0, %p1;\n"
                                 "  selp.u32 %r10, 2, 0, %p2;\n"
                                 "  selp.u32 %r11, 4, 0, %p3;\n"
                                 "  or.b32 %r9, %r9, %r10;\n"
                                 "  or.b32 %r9, %r9, %r11;\n"
                                 "  mul.wide.u32 %rd20, %r1, 20;\n"
                                 "  ld.param.u64 %rd21, [D];\n"
                                 "  cvta.to.global.u64 %rd21, %rd21;\n"
                                 "  add.s64 %rd22, %rd21, %rd20;\n"
                                 "  st.global.u32 [%rd22], %r5;\n"
                                 "  st.global.u32 [%rd22+4], %r6;\n"
                                 "  st.global.u32 [%rd22+8], %r7;\n"
                                 "  st.global.u32 [%rd22+12], %r8;\n"
                                 "  st.global.u32 [%rd22+16], %r9;\n"
                                 "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  const int kThreads = 64;
  for (int iter = 0; iter < 8; ++iter) {
    Device dev;
    std::vector<uint32_t> lo(kThreads), hi(kThreads);
    const int distinct = iter < 2 ? 1 : 1 + int(rng() % 5);  // iter 0/1: every lane equal
    std::vector<uint32_t> pool_lo(distinct), pool_hi(distinct);
    for (int i = 0; i < distinct; ++i) pool_lo[i] = uint32_t(rng()), pool_hi[i] = uint32_t(rng());
    for (int t = 0; t < kThreads; ++t) {
      lo[t] = pool_lo[rng() % distinct];
      // High halves differ sometimes while low halves agree: b32 and b64 results must differ.
      hi[t] = pool_hi[iter % 2 ? rng() % distinct : 0];
    }
    uint64_t A = dev.upload(lo), H = dev.upload(hi), D = dev.alloc(20 * kThreads);
    auto r = run(ptx, dev, {1, 1, 1}, {kThreads, 1, 1}, {A, H, D});
    EXPECT_COMPLETED(r);
    auto d = dev.download<uint32_t>(D, 5 * kThreads);
    for (int t = 0; t < kThreads; ++t) {
      int base = t / 32 * 32;
      uint32_t any32 = 0, any64 = 0;
      bool all32 = true, all64 = true;
      for (int l = 0; l < 32; ++l) {
        if (lo[base + l] == lo[t]) any32 |= 1u << l;
        if (lo[base + l] == lo[t] && hi[base + l] == hi[t]) any64 |= 1u << l;
        all32 = all32 && lo[base + l] == lo[base];
        all64 = all64 && lo[base + l] == lo[base] && hi[base + l] == hi[base];
      }
      ASSERT_EQ(d[5 * t + 0], any32) << "match.any.b32 thread " << t;
      ASSERT_EQ(d[5 * t + 1], all32 ? 0xffffffffu : 0u) << "match.all.b32 thread " << t;
      ASSERT_EQ(d[5 * t + 2], any64) << "match.any.b64 thread " << t;
      ASSERT_EQ(d[5 * t + 3], all64 ? 0xffffffffu : 0u) << "match.all.b64 thread " << t;
      ASSERT_EQ(d[5 * t + 4], uint32_t(all32) | uint32_t(all64) << 1 | uint32_t(all64) << 2) << "predicates of thread " << t;
    }
  }
}

TEST(WarpMatch, MembermaskOfADivergentBranch) {
  // Lanes 0..11 branch away; the rest match among 0xfffff000 only.
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D, .param .u64 E)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) +
                                 "  mov.u32 %r5, 0;\n"
                                 "  mov.u32 %r6, 7;\n"
                                 "  setp.lt.u32 %p1, %r2, 12;\n"
                                 "  @%p1 bra SKIP;\n"
                                 "  match.any.sync.b32 %r5, %r3, 0xfffff000;\n"
                                 "  match.all.sync.b32 %r6|%p2, %r3, 0xfffff000;\n"
                                 "  @!%p2 add.u32 %r6, %r6, 1;\n"
                                 "SKIP:\n" +
                                 store_u32("D", "%r5", 4) + store_u32("E", "%r6", 6) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  for (int iter = 0; iter < 4; ++iter) {
    Device dev;
    std::vector<uint32_t> a(32);
    for (auto& v : a) v = iter == 0 ? 42u : uint32_t(rng() % 3);
    for (int l = 0; l < 12; ++l) a[l] = iter == 0 ? 1u : a[31];  // values outside the membermask must not count
    uint64_t A = dev.upload(a), D = dev.alloc(128), E = dev.alloc(128);
    auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D, E});
    EXPECT_COMPLETED(r);
    auto d = dev.download<uint32_t>(D, 32);
    auto e = dev.download<uint32_t>(E, 32);
    bool all = true;
    for (int k = 12; k < 32; ++k) all = all && a[k] == a[12];
    for (int l = 0; l < 32; ++l) {
      uint32_t want = 0;
      if (l >= 12)
        for (int k = 12; k < 32; ++k) want |= uint32_t(a[k] == a[l]) << k;
      EXPECT_EQ(d[l], want) << "match.any, lane " << l;
      EXPECT_EQ(e[l], l < 12 ? 7u : all ? 0xfffff000u : 1u) << "match.all, lane " << l;
    }
  }
}

// ---- redux.sync -------------------------------------------------------------------------------

TEST(WarpRedux, IntegerOperationsOverFullAndPartialMasks) {
  struct Case {
    const char* op;
    const char* type;
  };
  const Case cases[] = {{"add", "u32"}, {"add", "s32"}, {"min", "u32"}, {"min", "s32"}, {"max", "u32"},
                        {"max", "s32"}, {"and", "b32"}, {"or", "b32"},  {"xor", "b32"}};
  // Full-warp reductions, then partial ones: lanes with k reduce among m = ballot(k) in one branch,
  // the others among ~m in the other.
  auto partial = [&](const char* reg) {
    std::string t;
    for (size_t i = 0; i < std::size(cases); ++i) {
      t += std::string("  redux.sync.") + cases[i].op + "." + cases[i].type + " %r11, %r3, " + reg + ";\n";
      t += "  st.global.u32 [%rd22+" + std::to_string(8 * i + 4) + "], %r11;\n";
    }
    return t;
  };
  std::string body = std::string(".visible .entry k(.param .u64 A, .param .u64 K, .param .u64 D)\n{") + kPrologue +
                     load_u32("%r3", "A", 2) + load_u32("%r4", "K", 4) +
                     "  mul.wide.u32 %rd20, %r1, 72;\n"
                     "  ld.param.u64 %rd21, [D];\n"
                     "  cvta.to.global.u64 %rd21, %rd21;\n"
                     "  add.s64 %rd22, %rd21, %rd20;\n";
  for (size_t i = 0; i < std::size(cases); ++i) {
    body += std::string("  redux.sync.") + cases[i].op + "." + cases[i].type + " %r10, %r3, 0xffffffff;\n";
    body += "  st.global.u32 [%rd22+" + std::to_string(8 * i) + "], %r10;\n";
  }
  body += "  and.b32 %r4, %r4, 1;\n"
          "  setp.ne.u32 %p2, %r4, 0;\n"
          "  vote.sync.ballot.b32 %r7, %p2, 0xffffffff;\n"
          "  @!%p2 bra OTHERS;\n" +
          partial("%r7") +
          "  bra DONE;\n"
          "OTHERS:\n"
          "  not.b32 %r8, %r7;\n" +
          partial("%r8") +
          "DONE:\n"
          "  ret;\n}\n";
  const std::string ptx = module(body);
  std::mt19937_64 rng(seed_for_test());
  const int kThreads = 64;
  for (int iter = 0; iter < 6; ++iter) {
    Device dev;
    std::vector<uint32_t> a(kThreads), k(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      a[t] = iter % 2 ? uint32_t(rng()) : uint32_t(int32_t(rng() % 200) - 100);
      k[t] = uint32_t(rng() % 4 != 0);
    }
    uint64_t A = dev.upload(a), K = dev.upload(k), D = dev.alloc(72 * kThreads);
    auto r = run(ptx, dev, {1, 1, 1}, {kThreads, 1, 1}, {A, K, D});
    EXPECT_COMPLETED(r);
    auto d = dev.download<uint32_t>(D, 18 * kThreads);
    for (int t = 0; t < kThreads; ++t) {
      int base = t / 32 * 32;
      uint32_t m = 0;
      for (int l = 0; l < 32; ++l) m |= (k[base + l] & 1u) << l;
      uint32_t partial = (k[t] & 1) ? m : ~m;
      for (size_t i = 0; i < std::size(cases); ++i) {
        for (int which = 0; which < 2; ++which) {
          uint32_t set = which ? partial : 0xffffffffu;
          std::string op = cases[i].op;
          bool s = std::string(cases[i].type) == "s32";
          uint64_t sum = 0;
          int64_t smin = INT64_MAX, smax = INT64_MIN;
          uint64_t umin = UINT64_MAX, umax = 0;
          uint32_t band = 0xffffffffu, bor = 0, bxor = 0;
          for (int l = 0; l < 32; ++l) {
            if (!(set >> l & 1)) continue;
            uint32_t v = a[base + l];
            sum += v;
            smin = std::min<int64_t>(smin, int32_t(v));
            smax = std::max<int64_t>(smax, int32_t(v));
            umin = std::min<uint64_t>(umin, v);
            umax = std::max<uint64_t>(umax, v);
            band &= v;
            bor |= v;
            bxor ^= v;
          }
          uint32_t want = op == "add" ? uint32_t(sum)
                          : op == "min" ? (s ? uint32_t(smin) : uint32_t(umin))
                          : op == "max" ? (s ? uint32_t(smax) : uint32_t(umax))
                          : op == "and" ? band
                          : op == "or"  ? bor
                                        : bxor;
          ASSERT_EQ(d[18 * t + 2 * i + which], want)
              << "redux.sync." << op << "." << cases[i].type << (which ? " partial mask " : " full mask ") << std::hex
              << set << std::dec << " thread " << t;
        }
      }
    }
  }
}

// Host reference for redux f32 written with float comparisons: +0.0 > -0.0, NaN handling per ISA.
uint32_t ref_redux_f32(const std::vector<uint32_t>& bits, bool max, bool abs, bool nan_mode) {
  bool have = false, saw_nan = false;
  float best = 0;
  for (uint32_t b : bits) {
    float x = std::bit_cast<float>(b);
    if (abs) x = std::fabs(x);
    if (std::isnan(x)) {
      saw_nan = true;
      continue;
    }
    bool better = !have || (max ? x > best : x < best) ||
                  (x == 0 && best == 0 && (max ? !std::signbit(x) && std::signbit(best) : std::signbit(x) && !std::signbit(best)));
    if (better) best = x;
    have = true;
  }
  if (!have || (nan_mode && saw_nan)) return 0x7fffffffu;
  return std::bit_cast<uint32_t>(best);
}

TEST(WarpRedux, F32MinMaxAbsNaNOnSm100a) {
  std::string body = std::string(".visible .entry k(.param .u64 A, .param .u64 D)\n{") + kPrologue + load_u32("%r3", "A", 2) +
                     "  mul.wide.u32 %rd20, %r1, 32;\n"
                     "  ld.param.u64 %rd21, [D];\n"
                     "  cvta.to.global.u64 %rd21, %rd21;\n"
                     "  add.s64 %rd22, %rd21, %rd20;\n";
  const char* variants[] = {"min", "max", "min.abs", "max.abs", "min.NaN", "max.NaN", "min.abs.NaN", "max.abs.NaN"};
  for (int i = 0; i < 8; ++i) {
    body += std::string("  redux.sync.") + variants[i] + ".f32 %r10, %r3, 0xffffffff;\n";
    body += "  st.global.u32 [%rd22+" + std::to_string(4 * i) + "], %r10;\n";
  }
  body += "  ret;\n}\n";
  const std::string ptx = module(body, "sm_100a", "8.6");
  std::mt19937_64 rng(seed_for_test());
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
                               0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
  for (int iter = 0; iter < 40; ++iter) {
    std::vector<uint32_t> a(32);
    for (auto& v : a) {
      int kind = int(rng() % 4);
      v = kind == 0 ? specials[rng() % std::size(specials)] : uint32_t(rng());
      if (iter == 0) v = 0x7fc00000u | uint32_t(rng() % 1000);  // all NaN
      if (iter == 1) v = rng() % 2 ? 0x80000000u : 0x00000000u;   // signed zeros only
      if (iter == 2) v = uint32_t(rng()) & 0x807fffffu;           // subnormals and zeros
    }
    Device dev;
    uint64_t A = dev.upload(a), D = dev.alloc(32 * 32);
    auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D});
    EXPECT_COMPLETED(r);
    auto d = dev.download<uint32_t>(D, 8 * 32);
    for (int i = 0; i < 8; ++i) {
      std::string v = variants[i];
      uint32_t want = ref_redux_f32(a, v.rfind("max", 0) == 0, v.find("abs") != std::string::npos,
                                    v.find("NaN") != std::string::npos);
      for (int l = 0; l < 32; ++l)
        ASSERT_EQ(d[8 * l + i], want) << "redux.sync." << v << ".f32 iteration " << iter << " lane " << l << std::hex
                                      << " got 0x" << d[8 * l + i] << " want 0x" << want;
    }
  }
}

// ---- activemask, elect.sync, bar.warp.sync ----------------------------------------------------

TEST(WarpActivemask, DivergedAndPredicatedLanes) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 D, .param .u64 E)\n{") + kPrologue +
                                 "  mov.u32 %r5, 0x12345678;\n"
                                 "  activemask.b32 %r6;\n"
                                 "  and.b32 %r3, %r2, 3;\n"
                                 "  setp.eq.u32 %p1, %r3, 0;\n"
                                 "  @%p1 bra A;\n"
                                 "  and.b32 %r4, %r2, 1;\n"
                                 "  setp.ne.u32 %p2, %r4, 0;\n"
                                 "  @%p2 activemask.b32 %r5;\n"   // odd lanes only
                                 "  bra J;\n"
                                 "A:\n"
                                 "  activemask.b32 %r5;\n"        // lanes 0, 4, 8, ...
                                 "J:\n" +
                                 store_u32("D", "%r5", 4) + store_u32("E", "%r6", 6) + "  ret;\n}\n");
  Device dev;
  uint64_t D = dev.alloc(4 * 48), E = dev.alloc(4 * 48);
  auto r = run(ptx, dev, {1, 1, 1}, {48, 1, 1}, {D, E});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 48);
  auto e = dev.download<uint32_t>(E, 48);
  for (int t = 0; t < 48; ++t) {
    int l = t % 32;
    uint32_t valid = t < 32 ? 0xffffffffu : 0xffffu;
    uint32_t want = l % 4 == 0 ? 0x11111111u & valid : l % 2 ? 0xaaaaaaaau & valid : 0x12345678u;
    EXPECT_EQ(d[t], want) << "thread " << t;
    EXPECT_EQ(e[t], valid) << "thread " << t;
  }
}

TEST(WarpElect, LowestPredicatedOnMemberIsElected) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 K, .param .u64 G, .param .u64 D)\n{") + kPrologue +
                                 load_u32("%r3", "K", 2) + load_u32("%r4", "G", 4) +
                                 "  mov.u32 %r8, 99;\n"
                                 "  mov.u32 %r9, 99;\n"
                                 "  elect.sync %r5|%p1, 0xffffffff;\n"
                                 "  and.b32 %r3, %r3, 1;\n"
                                 "  setp.ne.u32 %p2, %r3, 0;\n"
                                 "  vote.sync.ballot.b32 %r6, %p2, 0xffffffff;\n"
                                 "  @!%p2 bra SKIP;\n"
                                 "  and.b32 %r4, %r4, 1;\n"
                                 "  setp.ne.u32 %p3, %r4, 0;\n"
                                 "  @%p3 elect.sync %r8|%p4, %r6;\n"   // among predicated-on members
                                 "  elect.sync _|%p5, %r6;\n"
                                 "  selp.u32 %r9, 1, 0, %p5;\n"
                                 "  @%p3 selp.u32 %r10, 1, 0, %p4;\n"
                                 "  @%p3 shl.b32 %r10, %r10, 8;\n"
                                 "  @%p3 or.b32 %r8, %r8, %r10;\n"
                                 "SKIP:\n"
                                 "  selp.u32 %r7, 1, 0, %p1;\n"
                                 "  shl.b32 %r7, %r7, 8;\n"
                                 "  or.b32 %r5, %r5, %r7;\n"
                                 "  mul.wide.u32 %rd20, %r1, 12;\n"
                                 "  ld.param.u64 %rd21, [D];\n"
                                 "  cvta.to.global.u64 %rd21, %rd21;\n"
                                 "  add.s64 %rd22, %rd21, %rd20;\n"
                                 "  st.global.u32 [%rd22], %r5;\n"
                                 "  st.global.u32 [%rd22+4], %r8;\n"
                                 "  st.global.u32 [%rd22+8], %r9;\n"
                                 "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  for (int iter = 0; iter < 8; ++iter) {
    Device dev;
    std::vector<uint32_t> k(32), g(32);
    for (int l = 0; l < 32; ++l) k[l] = uint32_t(rng() % 3 == 0), g[l] = uint32_t(rng() % 2);
    if (iter == 0) k.assign(32, 1);
    uint64_t K = dev.upload(k), G = dev.upload(g), D = dev.alloc(12 * 32);
    auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {K, G, D});
    EXPECT_COMPLETED(r);
    auto d = dev.download<uint32_t>(D, 3 * 32);
    int first_member = -1, first_on = -1;
    for (int l = 0; l < 32; ++l) {
      if (k[l] && first_member < 0) first_member = l;
      if (k[l] && g[l] && first_on < 0) first_on = l;
    }
    for (int l = 0; l < 32; ++l) {
      ASSERT_EQ(d[3 * l], uint32_t(l == 0) << 8) << "full-warp elect, lane " << l;
      uint32_t want8 = !k[l] || !g[l] ? 99u : uint32_t(first_on) | uint32_t(l == first_on) << 8;
      ASSERT_EQ(d[3 * l + 1], want8) << "predicated elect, lane " << l;
      ASSERT_EQ(d[3 * l + 2], k[l] ? uint32_t(l == first_member) : 99u) << "elect _|p, lane " << l;
    }
  }
}

TEST(WarpBarWarpSync, OrdersSharedMemoryAmongMembers) {
  // Each half-warp syncs on its own mask at its own pc; then the full warp syncs and reads the
  // values the other half wrote.
  const std::string ptx = module(std::string(".shared .align 4 .b32 buf[64];\n"
                                             ".visible .entry k(.param .u64 A, .param .u64 D)\n{") +
                                 kPrologue + load_u32("%r3", "A", 2) +
                                 "  mov.u32 %r4, buf;\n"
                                 "  shl.b32 %r5, %r1, 2;\n"
                                 "  add.u32 %r6, %r4, %r5;\n"
                                 "  st.shared.u32 [%r6], %r3;\n"
                                 "  setp.lt.u32 %p1, %r2, 16;\n"
                                 "  @%p1 bra LOW;\n"
                                 "  bar.warp.sync 0xffff0000;\n"
                                 "  bra J;\n"
                                 "LOW:\n"
                                 "  bar.warp.sync 0x0000ffff;\n"
                                 "J:\n"
                                 "  bar.warp.sync -1;\n"
                                 "  xor.b32 %r7, %r1, 17;\n"   // a lane of the other half
                                 "  shl.b32 %r7, %r7, 2;\n"
                                 "  add.u32 %r8, %r4, %r7;\n"
                                 "  ld.shared.u32 %r9, [%r8];\n" +
                                 store_u32("D", "%r9", 4) + "  ret;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(64);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(256);
  auto r = run(ptx, dev, {1, 1, 1}, {64, 1, 1}, {A, D});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 64);
  for (int t = 0; t < 64; ++t) EXPECT_EQ(d[t], a[t ^ 17]) << "thread " << t;
}

// ---- forms without .sync (targets below sm_70) -----------------------------------------------

TEST(WarpLegacy, ShflAndVoteWithoutSyncActOnActiveLanes) {
  // .target sm_60, PTX 6.0: shfl.down and vote.ballot in converged code and inside a branch taken
  // by the even lanes only (their sources outside the active lanes give the own value).
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D, .param .u64 E)\n{") + kPrologue +
                                 load_u32("%r3", "A", 2) +
                                 "  shfl.down.b32 %r5|%p1, %r3, 1, 31;\n"
                                 "  and.b32 %r4, %r2, 1;\n"
                                 "  setp.eq.u32 %p2, %r4, 0;\n"
                                 "  vote.ballot.b32 %r6, %p2;\n"
                                 "  @!%p2 bra J;\n"
                                 "  shfl.down.b32 %r5, %r3, 2, 31;\n"
                                 "  setp.lt.u32 %p3, %r2, 10;\n"
                                 "  vote.ballot.b32 %r6, %p3;\n"
                                 "J:\n" +
                                 store_u32("D", "%r5", 4) + store_u32("E", "%r6", 6) + "  ret;\n}\n",
                                 "sm_60", "6.0");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(32);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(128), E = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D, E});
  EXPECT_COMPLETED(r);
  auto d = dev.download<uint32_t>(D, 32);
  auto e = dev.download<uint32_t>(E, 32);
  for (int l = 0; l < 32; ++l) {
    if (l % 2) {
      EXPECT_EQ(d[l], l + 1 <= 31 ? a[l + 1] : a[l]) << "lane " << l;
      EXPECT_EQ(e[l], 0x55555555u) << "lane " << l;
    } else {
      EXPECT_EQ(d[l], l + 2 <= 31 ? a[l + 2] : a[l]) << "lane " << l;
      EXPECT_EQ(e[l], 0x00000155u) << "lane " << l;  // even lanes below 10
    }
  }
}

// ---- decoding ---------------------------------------------------------------------------------

std::string one_instr(const std::string& instr, const std::string& target = "sm_90a", const std::string& version = "8.7",
                      const std::string& regs = "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<4>;\n") {
  return module(".visible .entry k()\n{\n" + regs + "  " + instr + "\n  ret;\n}\n", target, version);
}

TEST(WarpDecode, FormsWithoutSyncAreRejectedForSm70AndLater) {
  std::string e = load_error(one_instr("shfl.idx.b32 %r1, %r2, 0, 31;"));
  EXPECT_NE(e.find("Instruction 'shfl' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4"),
            std::string::npos)
      << e;
  e = load_error(one_instr("vote.ballot.b32 %r1, %p1;"));
  EXPECT_NE(e.find("Instruction 'vote' without '.sync' is not supported"), std::string::npos) << e;
  e = load_error(one_instr("vote.any.pred %p1, %p2;"));
  EXPECT_NE(e.find("without '.sync'"), std::string::npos) << e;
  // Older targets and versions still accept them.
  EXPECT_EQ(load_error(one_instr("shfl.down.b32 %r1|%p1, %r2, 1, 31;", "sm_60", "6.0")), "");
  EXPECT_EQ(load_error(one_instr("vote.all.pred %p1, !%p2;", "sm_60", "6.0")), "");
  EXPECT_EQ(load_error(one_instr("vote.ballot.b32 %r1, %p2;", "sm_70", "6.3")), "");
}

TEST(WarpDecode, TargetAndVersionGates) {
  std::string e = load_error(one_instr("match.any.sync.b32 %r1, %r2, -1;", "sm_60", "6.0"));
  EXPECT_NE(e.find("not supported on .target 'sm_60'"), std::string::npos) << e;
  EXPECT_EQ(load_error(one_instr("match.any.sync.b32 %r1, %r2, -1;", "sm_70", "6.0")), "");
  e = load_error(one_instr("redux.sync.add.u32 %r1, %r2, -1;", "sm_75", "7.0"));
  EXPECT_NE(e.find("not supported on .target 'sm_75'"), std::string::npos) << e;
  e = load_error(one_instr("redux.sync.add.u32 %r1, %r2, -1;", "sm_80", "6.5"));
  EXPECT_NE(e.find("requires PTX ISA .version 7.0"), std::string::npos) << e;
  e = load_error(one_instr("elect.sync %r1|%p1, -1;", "sm_80", "8.0"));
  EXPECT_NE(e.find("not supported on .target 'sm_80'"), std::string::npos) << e;
  e = load_error(one_instr("activemask.b32 %r1;", "sm_70", "6.0"));
  EXPECT_NE(e.find("requires PTX ISA .version 6.2"), std::string::npos) << e;
  // redux f32: sm_100a from 8.6; the sm_100 family from 8.8; never sm_90a.
  e = load_error(one_instr("redux.sync.min.f32 %r1, %r2, -1;"));
  EXPECT_NE(e.find("not supported on .target 'sm_90a'"), std::string::npos) << e;
  EXPECT_EQ(load_error(one_instr("redux.sync.max.abs.NaN.f32 %r1, %r2, -1;", "sm_100a", "8.6")), "");
  e = load_error(one_instr("redux.sync.max.f32 %r1, %r2, -1;", "sm_100a", "8.5"));
  EXPECT_NE(e.find("requires PTX ISA .version 8.6"), std::string::npos) << e;
  e = load_error(one_instr("redux.sync.max.f32 %r1, %r2, -1;", "sm_103a", "8.7"));
  EXPECT_NE(e.find("requires sm_100a"), std::string::npos) << e;
  EXPECT_EQ(load_error(one_instr("redux.sync.max.f32 %r1, %r2, -1;", "sm_103a", "8.8")), "");
  EXPECT_EQ(load_error(one_instr("redux.sync.max.f32 %r1, %r2, -1;", "sm_100f", "8.8")), "");
}

TEST(WarpDecode, MalformedFormsAreRejected) {
  auto rejects = [](const std::string& instr, const std::string& what) {
    std::string e = load_error(one_instr(instr));
    EXPECT_NE(e, "") << instr << " should be rejected";
    EXPECT_NE(e.find(what), std::string::npos) << instr << ":\n" << e;
  };
  rejects("shfl.sync.b32 %r1, %r2, 0, 31, -1;", "mode");
  rejects("shfl.sync.idx.bfly.b32 %r1, %r2, 0, 31, -1;", "only one");
  rejects("shfl.sync.idx.u32 %r1, %r2, 0, 31, -1;", ".u32");
  rejects("shfl.sync.idx.b32 %r1, %r2, 0, 31;", "expects 5 operands");
  rejects("shfl.sync.idx.b32 %rd1, %r2, 0, 31, -1;", "Arguments mismatch");
  rejects("shfl.sync.idx.b32 %r1|%r3, %r2, 0, 31, -1;", "Arguments mismatch");
  rejects("vote.sync.ballot.pred %p1, %p2, -1;", ".b32");
  rejects("vote.sync.all.pred %r1, %p2, -1;", "Arguments mismatch");
  rejects("vote.sync.any.pred %p1, %r2, -1;", "Arguments mismatch");
  rejects("match.any.b32 %r1, %r2, -1;", "needs .sync");
  rejects("match.any.sync.b32 %r1|%p1, %r2, -1;", "d|p");
  rejects("match.all.sync.b64 %r1, %r2, -1;", "Arguments mismatch");
  rejects("redux.sync.add.b32 %r1, %r2, -1;", ".u32 or .s32");
  rejects("redux.sync.and.u32 %r1, %r2, -1;", ".b32");
  rejects("elect.sync %r1, -1;", "d|p");
  rejects("elect.sync %r1|_, -1;", "p");
  rejects("activemask.b32 %p1;", "Arguments mismatch");
  rejects("bar.warp.sync %rd1;", "Arguments mismatch");
}

}  // namespace
}  // namespace ptxsim

namespace ptxsim {
namespace {

// vote, match and redux wait for the non-exited threads of the membermask (PTX ISA: "all
// non-exited threads corresponding to membermask"): lanes 20..31 exit, some of them only after the
// others already wait, and the full-mask collectives run over lanes 0..19.
TEST(WarpExited, VoteMatchReduxSkipExitedLanesOfTheMembermask) {
  const std::string ptx = module(std::string(".visible .entry k(.param .u64 A, .param .u64 D, .param .u64 E, .param .u64 F)\n{") +
                                 kPrologue + load_u32("%r3", "A", 2) +
                                 "  setp.ge.u32 %p1, %r2, 20;\n"
                                 "  @%p1 bra LATE;\n"
                                 "  and.b32 %r4, %r3, 1;\n"
                                 "  setp.ne.u32 %p2, %r4, 0;\n"
                                 "  vote.sync.ballot.b32 %r5, %p2, 0xffffffff;\n"
                                 "  and.b32 %r6, %r3, 3;\n"
                                 "  match.any.sync.b32 %r7, %r6, 0xffffffff;\n"
                                 "  redux.sync.add.u32 %r8, %r3, 0xffffffff;\n" +
                                 store_u32("D", "%r5", 4) + store_u32("E", "%r7", 6) + store_u32("F", "%r8", 8) +
                                 "  ret;\n"
                                 "LATE:\n"
                                 "  mov.u32 %r9, 200;\n"
                                 "BUSY:\n"
                                 "  sub.u32 %r9, %r9, 1;\n"
                                 "  setp.ne.u32 %p3, %r9, 0;\n"
                                 "  @%p3 bra BUSY;\n"
                                 "  exit;\n}\n");
  std::mt19937_64 rng(seed_for_test());
  Device dev;
  std::vector<uint32_t> a(32);
  for (auto& v : a) v = uint32_t(rng());
  uint64_t A = dev.upload(a), D = dev.alloc(128), E = dev.alloc(128), F = dev.alloc(128);
  auto r = run(ptx, dev, {1, 1, 1}, {32, 1, 1}, {A, D, E, F});
  EXPECT_COMPLETED(r);
  uint32_t ballot = 0, sum = 0;
  for (int l = 0; l < 20; ++l) {
    ballot |= (a[l] & 1) << l;
    sum += a[l];
  }
  auto d = dev.download<uint32_t>(D, 32), e = dev.download<uint32_t>(E, 32), f = dev.download<uint32_t>(F, 32);
  for (int l = 0; l < 20; ++l) {
    uint32_t same = 0;
    for (int j = 0; j < 20; ++j) same |= uint32_t((a[j] & 3) == (a[l] & 3)) << j;
    EXPECT_EQ(d[l], ballot) << "lane " << l;
    EXPECT_EQ(e[l], same) << "lane " << l;
    EXPECT_EQ(f[l], sum) << "lane " << l;
  }
}

}  // namespace
}  // namespace ptxsim
