// Clusters run in parallel on a pool of host threads (sim/exec/cluster_pool.cpp): the outputs,
// printf text, diagnostics, reports and instruction counts of a launch are the same on 1, 2 and 4
// threads; the lowest failing cluster is the one reported; kernels whose result could depend on
// the order of clusters run on one thread. Random inputs print their seed (rerun one with
// PTXSIM_TEST_SEED=<seed>).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sim/api.h"

namespace ptxsim {
namespace {

uint64_t seed_for_test() {
  uint64_t s;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  else s = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << info->test_suite_name() << "." << info->name() << ": PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

const char* kHeader = ".version 8.7\n.target sm_90a\n.address_size 64\n\n";

// One launch of a module's only kernel with 64-bit arguments, on fresh memory holding `inputs`
// (one allocation each, passed first) and `outputs` zeroed words (passed after).
struct Launched {
  RunResult result;
  std::string printed;
  std::vector<std::vector<uint32_t>> outputs;
};
Launched run(const std::string& ptx, Dim3 grid, Dim3 block, Dim3 cluster, uint32_t threads,
        const std::vector<std::vector<uint32_t>>& inputs, const std::vector<size_t>& outputs,
        uint64_t max_instructions = 100'000'000, uint64_t seed = 0) {
  auto prog = load_program(kHeader + ptx, "parallel.ptx");
  const KernelInfo info = kernels(*prog).at(0);
  model::GlobalMemory mem;
  std::vector<uint64_t> args;
  for (const auto& in : inputs) {
    args.push_back(mem.allocate(in.size() * 4));
    mem.write(args.back(), in.data(), in.size() * 4);
  }
  for (size_t n : outputs) args.push_back(mem.allocate(n * 4));
  std::vector<uint8_t> params(info.param_bytes, 0);
  EXPECT_EQ(info.params.size(), args.size());
  for (size_t i = 0; i < info.params.size() && i < args.size(); ++i)
    std::memcpy(params.data() + info.params[i].offset, &args[i], info.params[i].size);
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.cluster = cluster;
  cfg.cluster_given = cluster.count() > 1;
  cfg.max_seconds = 120;
  cfg.max_instructions = max_instructions;
  cfg.schedule_seed = seed;
  cfg.threads = threads;
  std::ostringstream printed;
  Launched r;
  r.result = launch(*prog, info.name, cfg, params, mem, &printed);
  r.printed = printed.str();
  for (size_t i = 0; i < outputs.size(); ++i) {
    r.outputs.emplace_back(outputs[i]);
    mem.read(args[inputs.size() + i], r.outputs.back().data(), outputs[i] * 4);
  }
  return r;
}

std::string diagnostics_text(const RunResult& r) {
  std::string s;
  for (const Diagnostic& d : r.diagnostics) s += d.format() + "\n";
  return s;
}

// Everything a run shows, apart from wall time and the thread count.
void expect_same_run(const Launched& a, const Launched& b, const std::string& what) {
  EXPECT_EQ(a.result.status, b.result.status) << what;
  EXPECT_EQ(a.result.report, b.result.report) << what;
  EXPECT_EQ(diagnostics_text(a.result), diagnostics_text(b.result)) << what;
  EXPECT_EQ(a.printed, b.printed) << what;
  EXPECT_EQ(a.outputs, b.outputs) << what;
}

// Per thread: its input times a neighbour CTA's element (read through distributed shared memory)
// after a data-dependent number of fma steps, and the cluster's clock when it stored that.
const char* kClusterKernel = R"(
.visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pclk)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 s[128];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u64 %rd3, [pclk];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd4, %r4, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.f32 %f1, [%rd5];
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.f32 [%r7], %f1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r8, %cluster_ctarank;
  mov.u32 %r9, %cluster_nctarank;
  add.u32 %r10, %r8, 1;
  rem.u32 %r10, %r10, %r9;
  mapa.shared::cluster.u32 %r11, %r7, %r10;
  ld.shared::cluster.f32 %f2, [%r11];
  mov.f32 %f3, %f1;
  rem.u32 %r12, %r4, 7;
LOOP:
  setp.eq.u32 %p1, %r12, 0;
  @%p1 bra DONE;
  fma.rn.f32 %f3, %f3, %f2, 0f3F000000;
  sub.u32 %r12, %r12, 1;
  bra LOOP;
DONE:
  add.u64 %rd6, %rd2, %rd4;
  st.global.f32 [%rd6], %f3;
  mov.u64 %rd7, %clock64;
  add.u64 %rd8, %rd3, %rd4;
  cvt.u32.u64 %r13, %rd7;
  st.global.u32 [%rd8], %r13;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

TEST(ParallelClusters, SameOutputsOnAnyThreadCount) {
  const uint64_t seed = seed_for_test();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  const uint32_t n = 32 * 128;
  std::vector<uint32_t> in(n);
  for (auto& v : in) {
    const float f = dist(rng);
    std::memcpy(&v, &f, 4);
  }
  for (Dim3 cluster : {Dim3{1, 1, 1}, Dim3{2, 1, 1}, Dim3{4, 1, 1}}) {
    const std::string what = "cluster of " + std::to_string(cluster.count());
    const Launched one = run(kClusterKernel, {32, 1, 1}, {128, 1, 1}, cluster, 1, {in}, {n, n}, 100'000'000, seed);
    ASSERT_EQ(one.result.status, RunStatus::Completed) << one.result.report;
    EXPECT_EQ(one.result.stats.threads, 1u);
    for (uint32_t threads : {2u, 4u}) {
      const Launched many = run(kClusterKernel, {32, 1, 1}, {128, 1, 1}, cluster, threads, {in}, {n, n}, 100'000'000, seed);
      expect_same_run(one, many, what + ", " + std::to_string(threads) + " threads");
      EXPECT_EQ(many.result.stats.threads, threads) << many.result.stats.serial_reason;
      EXPECT_EQ(one.result.stats.thread_instructions, many.result.stats.thread_instructions) << what;
      EXPECT_EQ(one.result.stats.warp_instructions, many.result.stats.warp_instructions) << what;
    }
  }
}

TEST(ParallelClusters, InstructionBudgetDecidedInClusterOrder) {
  std::vector<uint32_t> in(16 * 128, 0x3f800000u);
  const Launched full = run(kClusterKernel, {16, 1, 1}, {128, 1, 1}, {1, 1, 1}, 1, {in}, {in.size(), in.size()});
  ASSERT_EQ(full.result.status, RunStatus::Completed);
  // A budget that runs out in the middle of the grid: the same verdict on every thread count.
  const uint64_t budget = full.result.stats.thread_instructions * 7 / 16;
  const Launched one = run(kClusterKernel, {16, 1, 1}, {128, 1, 1}, {1, 1, 1}, 1, {in}, {in.size(), in.size()}, budget);
  EXPECT_EQ(one.result.status, RunStatus::Timeout);
  for (uint32_t threads : {2u, 4u}) {
    const Launched many = run(kClusterKernel, {16, 1, 1}, {128, 1, 1}, {1, 1, 1}, threads, {in}, {in.size(), in.size()}, budget);
    EXPECT_EQ(many.result.status, RunStatus::Timeout);
    EXPECT_EQ(many.result.report, one.result.report);
  }
}

// Thread 0 of each CTA prints its %ctaid.x after a loop that is longest in CTA 0, so on several
// threads the clusters finish in about the reverse order.
const char* kPrintfKernel = R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[8] = {99, 116, 97, 32, 37, 100, 10, 0};
.visible .entry k(.param .u64 unused)
{
  .local .align 8 .b8 depot[8];
  .reg .b64 %SP, %SPL, %rd<8>;
  .reg .b32 %r<10>;
  .reg .pred %p<3>;
  mov.u64 %SPL, depot;
  cvta.local.u64 %SP, %SPL;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, 8;
  sub.u32 %r3, %r3, %r1;
  mul.lo.u32 %r3, %r3, 300;
LOOP:
  setp.eq.u32 %p2, %r3, 0;
  @%p2 bra AFTER;
  sub.u32 %r3, %r3, 1;
  bra LOOP;
AFTER:
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra END;
  st.local.u32 [%SPL], %r1;
  mov.u64 %rd3, fmt;
  cvta.global.u64 %rd4, %rd3;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd4;
  .param .b64 param1;
  st.param.b64 [param1], %SP;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
END:
  ret;
}
)";

TEST(ParallelClusters, PrintfInClusterOrder) {
  std::string want;
  for (int i = 0; i < 8; ++i) want += "cta " + std::to_string(i) + "\n";
  for (uint32_t threads : {1u, 2u, 4u}) {
    const Launched r = run(kPrintfKernel, {8, 1, 1}, {64, 1, 1}, {1, 1, 1}, threads, {{0}}, {});
    ASSERT_EQ(r.result.status, RunStatus::Completed) << r.result.report;
    EXPECT_EQ(r.printed, want) << threads << " threads";
    EXPECT_EQ(r.result.stats.threads, threads);
  }
}

// CTAs 5 and 7 read address 0; CTA 7 at once, CTA 5 after a long loop. A run on one thread stops
// at CTA 5, so every run reports CTA 5.
const char* kFaultKernel = R"(
.visible .entry k(.param .u64 pout)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r3, 50;
  setp.eq.u32 %p3, %r1, 5;
  @%p3 mov.u32 %r3, 3000;
  setp.eq.u32 %p3, %r1, 7;
  @%p3 mov.u32 %r3, 0;
LOOP:
  setp.eq.u32 %p2, %r3, 0;
  @%p2 bra AFTER;
  sub.u32 %r3, %r3, 1;
  bra LOOP;
AFTER:
  setp.eq.u32 %p1, %r1, 5;
  setp.eq.u32 %p2, %r1, 7;
  or.pred %p1, %p1, %p2;
  mov.u64 %rd2, 0;
  @%p1 ld.global.u32 %r4, [%rd2];
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";

TEST(ParallelClusters, LowestFailingClusterReported) {
  const Launched one = run(kFaultKernel, {12, 1, 1}, {32, 1, 1}, {1, 1, 1}, 1, {}, {12});
  ASSERT_EQ(one.result.status, RunStatus::Fault);
  EXPECT_NE(one.result.report.find("CTA (5,0,0)"), std::string::npos) << one.result.report;
  for (uint32_t threads : {2u, 4u}) {
    const Launched many = run(kFaultKernel, {12, 1, 1}, {32, 1, 1}, {1, 1, 1}, threads, {}, {12});
    EXPECT_EQ(many.result.status, RunStatus::Fault);
    EXPECT_EQ(many.result.report, one.result.report);
    EXPECT_EQ(diagnostics_text(many.result), diagnostics_text(one.result));
  }
}

// A ticket from a global atomic decides where each CTA writes: the order of clusters shows.
const char* kTicketKernel = R"(
.visible .entry k(.param .u64 pctr, .param .u64 pout)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pctr];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  mov.u32 %r2, %ctaid.x;
  atom.global.add.u32 %r3, [%rd1], 1;
  mul.wide.u32 %rd3, %r3, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
END:
  ret;
}
)";

TEST(ParallelClusters, UsedGlobalAtomicRunsOnOneThread) {
  const Launched r = run(kTicketKernel, {8, 1, 1}, {32, 1, 1}, {1, 1, 1}, 4, {{0}}, {8});
  ASSERT_EQ(r.result.status, RunStatus::Completed) << r.result.report;
  EXPECT_EQ(r.result.stats.threads, 1u);
  EXPECT_NE(r.result.stats.serial_reason.find("atom on global memory whose result is used"), std::string::npos)
      << r.result.stats.serial_reason;
  EXPECT_NE(r.result.stats.serial_reason.find("parallel.ptx:"), std::string::npos) << r.result.stats.serial_reason;
  EXPECT_EQ(r.outputs[0], (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// An integer histogram with red.global.add: the same sums in any order, so it runs in parallel.
const char* kHistogramKernel = R"(
.visible .entry k(.param .u64 phist)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [phist];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  rem.u32 %r5, %r4, 8;
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd3, %rd1, %rd2;
  red.global.add.u32 [%rd3], %r4;
  ret;
}
)";

TEST(ParallelClusters, IntegerReductionRunsInParallel) {
  const Launched r = run(kHistogramKernel, {16, 1, 1}, {64, 1, 1}, {1, 1, 1}, 2, {}, {8});
  ASSERT_EQ(r.result.status, RunStatus::Completed) << r.result.report;
  EXPECT_EQ(r.result.stats.threads, 2u) << r.result.stats.serial_reason;
  std::vector<uint32_t> want(8, 0);
  for (uint32_t g = 0; g < 16 * 64; ++g) want[g % 8] += g;
  EXPECT_EQ(r.outputs[0], want);
}

TEST(ParallelClusters, FloatReductionRunsOnOneThread) {
  std::string ptx = kHistogramKernel;
  ptx.replace(ptx.find("red.global.add.u32"), 18, "red.global.add.f32");
  const Launched r = run(ptx, {16, 1, 1}, {64, 1, 1}, {1, 1, 1}, 2, {}, {8});
  ASSERT_EQ(r.result.status, RunStatus::Completed) << r.result.report;
  EXPECT_EQ(r.result.stats.threads, 1u);
  EXPECT_NE(r.result.stats.serial_reason.find("floating-point reduction"), std::string::npos)
      << r.result.stats.serial_reason;
}

}  // namespace
}  // namespace ptxsim
