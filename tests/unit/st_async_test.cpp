// st.async and red.async through the engine: a 2-CTA cluster where CTA 0's 32 lanes store or reduce
// random values into CTA 1's shared memory (addresses from mapa) and CTA 1 waits on its mbarrier,
// checked against a host reference; and the faults and deadlock report for misuse.
#include <gtest/gtest.h>

#include <random>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

// Every lane owns a 16-byte slot of buf. CTA 1 fills its buf from `init`, arms its `full` mbarrier
// with TX bytes (ARM), and both CTAs meet at the cluster barrier. CTA 0 then loads 16 bytes of
// `vals` per lane into %r10-%r13 / %rd10-%rd11 and runs OPERATION with %r20 = CTA 1's slot and
// %r21 = CTA 1's mbarrier. CTA 1 waits for the phase (after DELAY) and copies buf to `out`.
const char* kPtx = R"(.version 8.1
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 vals, .param .u64 init, .param .u64 out)
{
  .shared .align 16 .b8 buf[512];
  .shared .align 8 .b64 full;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, full;
  mov.u32 %r7, buf;
  ld.param.u64 %rd1, [vals];
  ld.param.u64 %rd2, [init];
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 16;
  cvt.u32.u64 %r5, %rd4;
  add.u32 %r8, %r7, %r5;
  setp.eq.u32 %p1, %r1, 0;
  setp.ne.u32 %p4, %r2, 0;
  @%p4 bra $cta1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd5];
  ld.global.v2.b64 {%rd10, %rd11}, [%rd5];
  mov.u32 %r9, 1;
  MAPA
  OPERATION
  ret;
$cta1:
  add.s64 %rd6, %rd2, %rd4;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd6];
  st.shared.v4.b32 [%r8], {%r10, %r11, %r12, %r13};
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  @%p1 ARM
  barrier.cluster.arrive;
  barrier.cluster.wait;
  DELAY
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $wait_full;
  ld.shared.v4.b32 {%r10, %r11, %r12, %r13}, [%r8];
  add.s64 %rd7, %rd3, %rd4;
  st.global.v4.b32 [%rd7], {%r10, %r11, %r12, %r13};
  ret;
}
)";

struct AsyncRun {
  Launched r;
  std::vector<uint8_t> vals, init, out;
};

AsyncRun run(const std::string& operation, uint32_t tx, uint64_t seed, const std::string& arm = "",
        const std::string& delay = "", ptxsim::Dim3 cluster = {2, 1, 1}) {
  std::string ptx = replace_all(kPtx, "OPERATION", operation);
  ptx = replace_all(ptx, "MAPA", cluster.count() > 1 ? "mapa.shared::cluster.u32 %r20, %r8, %r9;\n  "
                                                       "mapa.shared::cluster.u32 %r21, %r3, %r9;" : "");
  ptx = replace_all(ptx, "ARM", arm.empty() ? "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], " + std::to_string(tx) + ";" : arm);
  ptx = replace_all(ptx, "DELAY", delay);
  AsyncRun out;
  std::mt19937_64 rng(seed);
  out.vals.resize(512);
  out.init.resize(512);
  for (auto& b : out.vals) b = uint8_t(rng());
  for (auto& b : out.init) b = uint8_t(rng());
  ptxsim::model::GlobalMemory mem;
  uint64_t v = mem.allocate(512, 256, "vals"), in = mem.allocate(512, 256, "init");
  mem.write(v, out.vals.data(), 512);
  mem.write(in, out.init.data(), 512);
  uint64_t o = alloc(mem, 512, "out");
  Params p;
  p.add(v).add(in).add(o);
  out.r = launch(ptx, mem, p, {2, 1, 1}, {32, 1, 1}, cluster, rng());
  out.out = read(mem, o, 512);
  return out;
}

template <class T>
T at(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

const char* kSt = "st.async.shared::cluster.mbarrier::complete_tx::bytes";
const char* kRed = "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes";

}  // namespace

TEST(StAsync, StoresEveryShapeIntoTheOtherCtaAndCompletesTheMbarrier) {
  struct Shape {
    const char* mods;
    const char* src;
    uint32_t bytes;  // per lane
  };
  const Shape shapes[] = {
      {".b32", "%r10", 4},           {".u32", "%r10", 4},           {".s32", "%r10", 4},
      {".f32", "%r10", 4},           {".b64", "%rd10", 8},          {".u64", "%rd10", 8},
      {".s64", "%rd10", 8},          {".f64", "%rd10", 8},          {".v2.b32", "{%r10, %r11}", 8},
      {".v2.f32", "{%r10, %r11}", 8}, {".v4.b32", "{%r10, %r11, %r12, %r13}", 16},
      {".v4.u32", "{%r10, %r11, %r12, %r13}", 16}, {".v2.b64", "{%rd10, %rd11}", 16},
      {".v2.f64", "{%rd10, %rd11}", 16},
  };
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const Shape& s : shapes) {
    SCOPED_TRACE(s.mods);
    for (const char* weak : {"", ".weak"}) {
      std::string st = replace_all(kSt, "st.async", std::string("st.async") + weak);
      AsyncRun r = run(st + s.mods + " [%r20], " + s.src + ", [%r21];", 32 * s.bytes, seed);
      ASSERT_EQ(r.r.result.status, ptxsim::RunStatus::Completed) << r.r.all_diagnostics();
      EXPECT_EQ(r.r.warning_count(), 0u) << r.r.all_diagnostics();
      for (uint32_t lane = 0; lane < 32; ++lane)
        for (uint32_t i = 0; i < 16; ++i) {
          const size_t b = lane * 16 + i;
          ASSERT_EQ(r.out[b], i < s.bytes ? r.vals[b] : r.init[b]) << "lane " << lane << " byte " << i;
        }
    }
  }
}

TEST(StAsync, GenericAddressesWork) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  AsyncRun r = run("cvta.shared.u64 %rd12, %r20;\n  cvta.shared.u64 %rd13, %r21;\n  "
              "st.async.mbarrier::complete_tx::bytes.u32 [%rd12], %r10, [%rd13];",
              128, seed);
  ASSERT_EQ(r.r.result.status, ptxsim::RunStatus::Completed) << r.r.all_diagnostics();
  for (uint32_t lane = 0; lane < 32; ++lane)
    ASSERT_EQ(at<uint32_t>(r.out, lane * 16), at<uint32_t>(r.vals, lane * 16)) << lane;
}

TEST(RedAsync, ReductionsMatchTheHostReference) {
  struct Case {
    const char* mods;
    const char* src;
    uint32_t bytes;
  };
  const Case cases[] = {{".add.u32", "%r10", 4}, {".add.s32", "%r10", 4}, {".add.u64", "%rd10", 8},
                        {".add.s64", "%rd10", 8}, {".min.u32", "%r10", 4}, {".min.s32", "%r10", 4},
                        {".max.u32", "%r10", 4}, {".max.s32", "%r10", 4}, {".inc.u32", "%r10", 4},
                        {".dec.u32", "%r10", 4}, {".and.b32", "%r10", 4}, {".or.b32", "%r10", 4},
                        {".xor.b32", "%r10", 4}};
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mods);
    // Two reductions per lane into its own slot: the mbarrier expects both.
    std::string op = std::string(kRed) + c.mods + " [%r20], " + c.src + ", [%r21];";
    AsyncRun r = run(op + "\n  " + op, 2 * 32 * c.bytes, seed);
    ASSERT_EQ(r.r.result.status, ptxsim::RunStatus::Completed) << r.r.all_diagnostics();
    const std::string m = c.mods;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const size_t off = lane * 16;
      auto ref32 = [&](uint32_t old, uint32_t s) -> uint32_t {
        auto one = [&](uint32_t x) -> uint32_t {
          if (m == ".add.u32" || m == ".add.s32") return x + s;
          if (m == ".min.u32") return std::min(x, s);
          if (m == ".max.u32") return std::max(x, s);
          if (m == ".min.s32") return uint32_t(std::min(int32_t(x), int32_t(s)));
          if (m == ".max.s32") return uint32_t(std::max(int32_t(x), int32_t(s)));
          if (m == ".inc.u32") return x >= s ? 0 : x + 1;
          if (m == ".dec.u32") return (x == 0 || x > s) ? s : x - 1;
          if (m == ".and.b32") return x & s;
          if (m == ".or.b32") return x | s;
          return x ^ s;
        };
        return one(one(old));
      };
      if (c.bytes == 8) {
        ASSERT_EQ(at<uint64_t>(r.out, off), at<uint64_t>(r.init, off) + 2 * at<uint64_t>(r.vals, off)) << lane;
        ASSERT_EQ(at<uint64_t>(r.out, off + 8), at<uint64_t>(r.init, off + 8)) << lane;
      } else {
        ASSERT_EQ(at<uint32_t>(r.out, off), ref32(at<uint32_t>(r.init, off), at<uint32_t>(r.vals, off))) << lane;
        ASSERT_EQ(at<uint32_t>(r.out, off + 4), at<uint32_t>(r.init, off + 4)) << lane;
      }
    }
  }
}

TEST(StAsync, MisuseFaultsWithTheRule) {
  const uint64_t seed = 7;
  auto fault = [&](const std::string& op, ptxsim::Dim3 cluster = {2, 1, 1}) {
    AsyncRun r = run(op, 128, seed, "", "", cluster);
    EXPECT_EQ(r.r.result.status, ptxsim::RunStatus::Fault) << r.r.all_diagnostics();
    return r.r.result.report;
  };
  auto has = [](const std::string& report, const std::string& text) {
    EXPECT_NE(report.find(text), std::string::npos) << report;
  };
  // red.async into the executing CTA's own buffer (shared::cta addresses used without mapa).
  has(fault(std::string(kRed) + ".add.u32 [%r8], %r10, [%r3];"), "red.async: the destination 0x");
  has(fault(std::string(kRed) + ".add.u32 [%r8], %r10, [%r3];"),
      "is in the executing CTA's own shared memory; red.async needs the shared::cluster address of another CTA of "
      "the cluster (use mapa)");
  // Destination in CTA 1, mbarrier in CTA 0.
  has(fault(std::string(kSt) + ".u32 [%r20], %r10, [%r3];"),
      "is in the shared memory of CTA rank 1 but the mbarrier ");
  has(fault(std::string(kSt) + ".u32 [%r20], %r10, [%r3];"), "is in this CTA; both must belong to the same CTA");
  // Misaligned destination for a 16-byte vector.
  has(fault("add.u32 %r20, %r20, 8;\n  " + std::string(kSt) + ".v4.b32 [%r20], {%r10, %r11, %r12, %r13}, [%r21];"),
      "is not aligned to the 16-byte access");
  // No mbarrier at the address (CTA 1's buf).
  has(fault(std::string(kSt) + ".u32 [%r20], %r10, [%r20];"),
      "holds no initialised mbarrier for the complete-tx");
  // The destination overlaps the mbarrier.
  has(fault(std::string(kSt) + ".u32 [%r21], %r10, [%r21];"), "st.async would overwrite the live mbarrier at shared address");
  // A generic address that is not in the shared window (a global pointer).
  has(fault(std::string("st.async.mbarrier::complete_tx::bytes.u32 [%rd1], %r10, [%rd1];")),
      "is not in the shared-memory window");
}

TEST(StAsync, ASingleCtaClusterFaults) {
  // Without cluster dimensions every CTA is its own cluster: mapa rank 1 does not exist, and even the
  // own CTA's address is refused because st.async needs %cluster_nctarank > 1.
  AsyncRun r = run(std::string(kSt) + ".u32 [%r8], %r10, [%r3];", 128, 1, "", "", {1, 1, 1});
  ASSERT_EQ(r.r.result.status, ptxsim::RunStatus::Fault) << r.r.all_diagnostics();
  EXPECT_NE(r.r.result.report.find("st.async: the cluster has a single CTA; st.async needs %cluster_nctarank > 1"),
            std::string::npos)
      << r.r.result.report;
}

TEST(StAsync, MissingExpectTxIsADeadlockWithNegativeTxCount) {
  // CTA 1 arrives without expect_tx, after a delay long enough for the stores to land: the phase
  // keeps a tx-count of -128 and never completes.
  const std::string delay =
      "mov.u32 %r30, 0;\n$spin:\n  add.u32 %r30, %r30, 1;\n  setp.lt.u32 %p2, %r30, 400;\n  @%p2 bra $spin;\n"
      "  @%p1 mbarrier.arrive.shared::cta.b64 _, [%r3];";
  AsyncRun r = run(std::string(kSt) + ".u32 [%r20], %r10, [%r21];", 0, test_seed(), "mov.u32 %r31, 0;", delay);
  ASSERT_EQ(r.r.result.status, ptxsim::RunStatus::Deadlock) << r.r.all_diagnostics();
  EXPECT_NE(r.r.result.report.find("tx-count is negative (-128): 128 bytes completed in this phase but expect_tx "
                                   "announced only 0 (a missing or short expect_tx)"),
            std::string::npos)
      << r.r.result.report;
}

TEST(StAsync, ReadingTheDestinationBeforeTheWaitIsARace) {
  // A second cluster barrier after the stores are issued; CTA 1 then reads its buf at once, before
  // waiting on the mbarrier (the stores take at least 64 steps to land).
  const std::string sync = "barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ";
  AsyncRun r = run(std::string(kSt) + ".u32 [%r20], %r10, [%r21];\n  " + sync, 128, test_seed(), "",
                   sync + "ld.shared.u32 %r31, [%r8];");
  ASSERT_EQ(r.r.result.status, ptxsim::RunStatus::Completed) << r.r.all_diagnostics();
  EXPECT_TRUE(r.r.has_warning("race on an asynchronous copy's destination: plain read of 4 bytes")) << r.r.all_diagnostics();
  EXPECT_TRUE(r.r.has_warning("while st.async of 4 bytes to shared address")) << r.r.all_diagnostics();
}

TEST(StAsync, DecodeChecksAgreeWithPtxas) {
  auto err = [](const std::string& body, const std::string& version = "8.1", const std::string& target = "sm_90a") {
    std::string ptx = ".version " + version + "\n.target " + target +
                      "\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<4>;\n  " +
                      body + "\n  ret;\n}\n";
    try {
      ptxsim::load_program(ptx, "t.ptx");
      return std::string("accepted");
    } catch (const ptxsim::PtxError& e) {
      return std::string(e.what());
    }
  };
  const std::string st = kSt, red = kRed;
  EXPECT_EQ(err(st + ".v2.b64 [%r1], {%rd1, %rd2}, [%r2];"), "accepted");
  EXPECT_EQ(err(st + ".f32 [%r1], %f1, [%r2];"), "accepted");
  EXPECT_EQ(err(st + ".u32 [%r1], 5, [%r2];"), "accepted");
  EXPECT_EQ(err(red + ".add.s64 [%r1], %rd1, [%r2];"), "accepted");  // ptxas accepts .s64 (the ISA lists .u64)
  EXPECT_NE(err(st + ".u32 [%r1], %r2, [%r3];", "8.0").find("requires PTX ISA .version 8.1"), std::string::npos);
  EXPECT_NE(err(st + ".u32 [%r1], %r2, [%r3];", "8.1", "sm_80").find("not supported on .target 'sm_80'"), std::string::npos);
  EXPECT_NE(err(st + ".v4.b64 [%r1], {%rd1, %rd2, %rd3, %rd4}, [%r2];").find("exceeds 128 bit limit"), std::string::npos);
  EXPECT_NE(err(st + ".b16 [%r1], %r2, [%r3];").find("Arguments mismatch"), std::string::npos);
  EXPECT_NE(err(st + ".u32 [%r1], %rd2, [%r3];").find("Arguments mismatch"), std::string::npos);
  EXPECT_NE(err(st + ".v2.u32 [%r1], %rd2, [%r3];").find("Arguments mismatch"), std::string::npos);
  EXPECT_NE(err("st.async.shared::cluster.u32 [%r1], %r2, [%r3];").find("completion_mechanism"), std::string::npos);
  EXPECT_NE(err("st.async.relaxed.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];").find("relaxed"),
            std::string::npos);
  EXPECT_NE(err("st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];")
                .find("'.weak' cannot be combined with modifier '.cluster'"),
            std::string::npos);
  EXPECT_NE(err(red + ".add.f32 [%r1], %f1, [%r2];").find("Unexpected instruction types"), std::string::npos);
  EXPECT_NE(err(red + ".min.u64 [%r1], %rd1, [%r2];").find("Incorrect type '.u64' for operation '.min'"), std::string::npos);
  EXPECT_NE(err(red + ".inc.s32 [%r1], %r1, [%r2];").find("Incorrect type '.s32' for operation '.inc'"), std::string::npos);
  EXPECT_NE(err(red + ".and.u32 [%r1], %r1, [%r2];").find("Incorrect type '.u32' for operation '.and'"), std::string::npos);
  EXPECT_NE(err("red.async.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];")
                .find("order modifier required"),
            std::string::npos);
  EXPECT_NE(err("red.async.relaxed.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];")
                .find("requires scope"),
            std::string::npos);
  EXPECT_NE(err(red + ".v2.add.u32 [%r1], {%r1, %r2}, [%r2];"), "accepted");
  EXPECT_NE(err(red + ".add.noftz.u32 [%r1], %r1, [%r2];"), "accepted");
  // Accepted by ptxas, outside the ISA or not simulated: loud unimplemented.
  EXPECT_NE(err("st.async.shared::cta.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];").find("unimplemented: 'st.async"),
            std::string::npos);
  EXPECT_NE(err(st + ".u32 [%r1], %r2;").find("unimplemented: 'st.async"), std::string::npos);
  EXPECT_NE(err("st.async.release.gpu.global.u32 [%rd1], %r2;", "8.7", "sm_100a").find("unimplemented: 'st.async"),
            std::string::npos);
  EXPECT_NE(err("st.async.release.gpu.global.u32 [%rd1], %r2;", "8.7", "sm_90a"), "accepted");
}
