// Control flow through the engine: brx.idx jump tables, recursive calls with .param frames, and
// bar.red reductions, each against a host computation.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "sim/api.h"

namespace {

struct Out {
  ptxsim::RunResult result;
  std::vector<uint32_t> data;
};

// Runs kernel `k(out, in)` with 1 CTA of `threads` threads; `in` holds one u32 per thread.
Out run(const std::string& ptx, const std::vector<uint32_t>& in) {
  auto prog = ptxsim::load_program(ptx, "cf.ptx");
  ptxsim::model::GlobalMemory mem;
  size_t n = in.size();
  uint64_t out = mem.allocate(n * 4, 256, "out"), inb = mem.allocate(n * 4, 256, "in");
  std::vector<uint8_t> poison(n * 4, 0xAB);
  mem.write(out, poison.data(), poison.size());
  mem.write(inb, in.data(), n * 4);
  std::vector<uint8_t> params(16);
  std::memcpy(params.data(), &out, 8);
  std::memcpy(params.data() + 8, &inb, 8);
  ptxsim::LaunchConfig cfg;
  cfg.block = {uint32_t(n), 1, 1};
  Out o;
  o.result = ptxsim::launch(*prog, "k", cfg, params, mem);
  o.data.resize(n);
  mem.read(out, o.data.data(), n * 4);
  return o;
}

const char* kHeader = R"(.version 8.7
.target sm_90a
.address_size 64
)";

// Loads in[tid] into %r1 and leaves &out[tid] in %rd4.
const char* kPrologue = R"(
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd5, [inp];
  cvta.to.global.u64 %rd2, %rd1;
  cvta.to.global.u64 %rd6, %rd5;
  mov.u32 %r9, %tid.x;
  mul.wide.u32 %rd3, %r9, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd7, %rd6, %rd3;
  ld.global.u32 %r1, [%rd7];
)";

std::vector<uint32_t> random_inputs(size_t n, uint32_t mod, uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = g() % mod;
  return v;
}

}  // namespace

TEST(ControlFlow, BrxIdxJumpTableDivergesPerLane) {
  uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::string ptx = std::string(kHeader) + R"(.visible .entry k(.param .u64 out, .param .u64 inp)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
$L_tab: .branchtargets $L0, $L1, $L2;
)" + kPrologue + R"(
  brx.idx %r1, $L_tab;
$L0:
  mov.u32 %r3, 10;
  bra.uni $L_end;
$L1:
  mov.u32 %r3, 11;
  bra.uni $L_end;
$L2:
  mov.u32 %r3, 12;
$L_end:
  st.global.u32 [%rd4], %r3;
  ret;
}
)";
  auto in = random_inputs(96, 3, seed);
  Out o = run(ptx, in);
  ASSERT_EQ(o.result.status, ptxsim::RunStatus::Completed) << o.result.report;
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(o.data[i], 10 + in[i]) << "thread " << i;
}

TEST(ControlFlow, BrxIdxIndexOutOfRangeFaults) {
  std::string ptx = std::string(kHeader) + R"(.visible .entry k(.param .u64 out, .param .u64 inp)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
$L_tab: .branchtargets $L0;
)" + kPrologue + R"(
  brx.idx %r1, $L_tab;
$L0:
  ret;
}
)";
  Out o = run(ptx, std::vector<uint32_t>(32, 5));
  ASSERT_EQ(o.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(o.result.report.find("brx.idx index 5 outside its 1-entry target list"), std::string::npos) << o.result.report;
}

TEST(ControlFlow, RecursiveCallComputesFactorialModulo) {
  uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // fact(n) = n <= 1 ? 1 : n * fact(n - 1), 32-bit wrap-around; the depth differs per lane.
  std::string ptx = std::string(kHeader) + R"(.func (.param .b32 ret) fact(.param .b32 n)
{
  .reg .b32 %r<6>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [n];
  setp.le.u32 %p1, %r1, 1;
  @%p1 bra $L_base;
  sub.u32 %r2, %r1, 1;
  {
  .param .b32 a;
  st.param.b32 [a], %r2;
  .param .b32 r;
  call.uni (r), fact, (a);
  ld.param.b32 %r3, [r];
  }
  mul.lo.u32 %r4, %r1, %r3;
  st.param.b32 [ret], %r4;
  ret;
$L_base:
  mov.u32 %r5, 1;
  st.param.b32 [ret], %r5;
  ret;
}
.visible .entry k(.param .u64 out, .param .u64 inp)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
)" + kPrologue + R"(
  {
  .param .b32 a;
  st.param.b32 [a], %r1;
  .param .b32 r;
  call.uni (r), fact, (a);
  ld.param.b32 %r2, [r];
  }
  st.global.u32 [%rd4], %r2;
  ret;
}
)";
  auto in = random_inputs(64, 40, seed);
  Out o = run(ptx, in);
  ASSERT_EQ(o.result.status, ptxsim::RunStatus::Completed) << o.result.report;
  for (size_t i = 0; i < in.size(); ++i) {
    uint32_t f = 1;
    for (uint32_t k = 2; k <= in[i]; ++k) f *= k;
    EXPECT_EQ(o.data[i], f) << "thread " << i << " n=" << in[i];
  }
}

TEST(ControlFlow, BarRedPopcAndOrAcrossTheCta) {
  uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::string ptx = std::string(kHeader) + R"(.visible .entry k(.param .u64 out, .param .u64 inp)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
)" + kPrologue + R"(
  setp.ne.u32 %p1, %r1, 0;
  bar.red.popc.u32 %r2, 0, %p1;
  bar.red.and.pred %p2, 1, %p1;
  bar.red.or.pred %p3, 2, %p1;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 1, 0, %p3;
  shl.b32 %r3, %r3, 16;
  shl.b32 %r4, %r4, 17;
  or.b32 %r2, %r2, %r3;
  or.b32 %r2, %r2, %r4;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";
  for (uint32_t mod : {2u, 50u}) {  // mostly mixed; with 50 usually all non-zero
    auto in = random_inputs(128, mod, seed + mod);
    Out o = run(ptx, in);
    ASSERT_EQ(o.result.status, ptxsim::RunStatus::Completed) << o.result.report;
    uint32_t popc = 0;
    bool all = true, any = false;
    for (uint32_t v : in) {
      popc += v != 0;
      all = all && v != 0;
      any = any || v != 0;
    }
    uint32_t want = popc | uint32_t(all) << 16 | uint32_t(any) << 17;
    for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(o.data[i], want) << "thread " << i;
  }
}
