// Simulated thread-instructions per second on an ALU-bound and a memory-bound kernel.
// Run: build/bench/ptxsim_bench   (counters: thread_instr/s is the figure the design targets)
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/api.h"

namespace {

const char* kAluPtx = R"(
.version 8.7
.target sm_90a
.address_size 64
.visible .entry alu(.param .u64 out, .param .u32 iters)
{
  .reg .b32 %r<10>;
  .reg .pred %p<2>;
  .reg .b64 %rd<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ntid.x;
  mad.lo.s32 %r1, %r7, %r8, %r1;
  ld.param.u32 %r2, [iters];
  mov.u32 %r3, 0;
  mov.u32 %r4, %r1;
$L_loop:
  mad.lo.s32 %r4, %r4, 1664525, 1013904223;
  xor.b32 %r5, %r4, %r1;
  shl.b32 %r6, %r5, 3;
  add.s32 %r4, %r4, %r6;
  and.b32 %r6, %r4, 65535;
  or.b32 %r4, %r4, %r6;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r2;
  @%p1 bra $L_loop;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

const char* kMemPtx = R"(
.version 8.7
.target sm_90a
.address_size 64
.visible .entry stream(.param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .b32 %r<10>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ntid.x;
  mad.lo.s32 %r1, %r7, %r8, %r1;
  mov.u32 %r9, %nctaid.x;
  mul.lo.s32 %r9, %r9, %r8;
  ld.param.u32 %r2, [n];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra $L_done;
$L_loop:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd5];
  fma.rn.f32 %f3, %f1, 0f40000000, %f2;
  st.global.f32 [%rd5], %f3;
  add.s32 %r1, %r1, %r9;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $L_loop;
$L_done:
  ret;
}
)";

// Rates are per CPU second of the benchmark thread (Google Benchmark's kIsRate over CPU time), so
// they stay meaningful on a loaded machine; the launch's own wall time is reported beside them.
void report(benchmark::State& state, uint64_t thread_instr, double seconds) {
  state.counters["thread_instr/s"] = benchmark::Counter(double(thread_instr), benchmark::Counter::kIsRate);
  state.counters["thread_instr"] = double(thread_instr);
  state.counters["launch_wall_s"] = seconds;
}

void BM_AluBound(benchmark::State& state) {
  auto prog = ptxsim::load_program(kAluPtx, "alu.ptx");
  ptxsim::model::GlobalMemory mem;
  const uint32_t ctas = 16, threads = 256, iters = 2000;
  uint64_t out = mem.allocate(ctas * threads * 4, 256, "out");
  std::vector<uint8_t> params(12);
  std::memcpy(params.data(), &out, 8);
  std::memcpy(params.data() + 8, &iters, 4);
  ptxsim::LaunchConfig cfg;
  cfg.grid = {ctas, 1, 1};
  cfg.block = {threads, 1, 1};
  uint64_t instr = 0;
  double secs = 0;
  for (auto _ : state) {
    auto r = ptxsim::launch(*prog, "alu", cfg, params, mem);
    if (r.status != ptxsim::RunStatus::Completed) state.SkipWithError(r.report.c_str());
    instr += r.stats.thread_instructions;
    secs += r.stats.seconds;
  }
  report(state, instr, secs);
}
BENCHMARK(BM_AluBound)->Unit(benchmark::kMillisecond);

void BM_MemoryBound(benchmark::State& state) {
  auto prog = ptxsim::load_program(kMemPtx, "stream.ptx");
  ptxsim::model::GlobalMemory mem;
  const uint32_t n = 1 << 22, ctas = 32, threads = 256;
  uint64_t x = mem.allocate(n * 4, 256, "x"), y = mem.allocate(n * 4, 256, "y");
  std::vector<uint8_t> params(20);
  std::memcpy(params.data(), &x, 8);
  std::memcpy(params.data() + 8, &y, 8);
  std::memcpy(params.data() + 16, &n, 4);
  ptxsim::LaunchConfig cfg;
  cfg.grid = {ctas, 1, 1};
  cfg.block = {threads, 1, 1};
  uint64_t instr = 0;
  double secs = 0;
  for (auto _ : state) {
    auto r = ptxsim::launch(*prog, "stream", cfg, params, mem);
    if (r.status != ptxsim::RunStatus::Completed) state.SkipWithError(r.report.c_str());
    instr += r.stats.thread_instructions;
    secs += r.stats.seconds;
  }
  state.counters["bytes/s"] = benchmark::Counter(double(n) * 12 * double(state.iterations()), benchmark::Counter::kIsRate);
  report(state, instr, secs);
}
BENCHMARK(BM_MemoryBound)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
