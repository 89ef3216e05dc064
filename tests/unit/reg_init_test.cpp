// must_zero_slots (sim/exec/reg_init.h): which registers a new frame zeroes. A register some path
// reads before writing must be zeroed (its first read gives 0); one written before every read
// need not be. Run with PTXSIM_POISON_REGISTERS=1 (scripts/test.sh does), the kernel below also
// checks that the registers left out really are never read unwritten.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "sim/exec/decoder.h"
#include "sim/exec/program.h"
#include "sim/exec/reg_init.h"
#include "sim/ptx/parser.h"
#include "tests/unit/tma_test_util.h"

namespace {

using namespace tma_test;

// Thread t: odd threads write %r3 (guarded) and skip the write of %r4; %r7 is read in a loop before
// its first write; %r10 is never written. Outputs per thread: %r5 = %r3 + %r4, %r7, %r9 = %r10 + 1.
const char* kKernel = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 mov.u32 %r3, 7;
  @%p1 bra SKIP;
  mov.u32 %r4, 9;
SKIP:
  add.u32 %r5, %r3, %r4;
  mov.u32 %r6, 0;
LOOP:
  add.u32 %r7, %r7, %r6;
  add.u32 %r8, %r6, 1;
  mov.u32 %r6, %r8;
  setp.lt.u32 %p2, %r6, 4;
  @%p2 bra LOOP;
  add.u32 %r9, %r10, 1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  st.global.u32 [%rd3+4], %r7;
  st.global.u32 [%rd3+8], %r9;
  ret;
}
)";

// Decoded with a slot per register, so that each zeroed slot names one register.
std::unique_ptr<ptxsim::Program> decode_unshared(const char* text, const char* file) {
  const ptxsim::ast::Module m = ptxsim::parse_ptx(text, file);
  ptxsim::Decoder d(m);
  d.share_slots = false;
  return d.run();
}

std::set<std::string> zeroed_names(const ptxsim::Function& f) {
  std::set<std::string> names;
  for (uint32_t s : f.zero_slots) names.insert(f.slot_names[s]);
  return names;
}

TEST(RegInit, ZeroesExactlyTheRegistersSomePathReadsUnwritten) {
  auto prog = decode_unshared(kKernel, "reg_init.ptx");
  const ptxsim::Function* f = prog->find("k");
  ASSERT_NE(f, nullptr);
  // %r3: written under a guard only; %r4: on one path only; %r7: loop-carried, read first;
  // %r10: never written. The unused %r11..%r19 are never read.
  EXPECT_EQ(zeroed_names(*f), (std::set<std::string>{"%r3", "%r4", "%r7", "%r10"}));
}

TEST(RegInit, UnwrittenRegistersReadAsZero) {
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = alloc(mem, 32 * 12, "out");  // poisoned (0xAB) before the run
  Params p;
  p.add(out);
  Launched r = launch(kKernel, mem, p, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  const std::vector<uint8_t> bytes = read(mem, out, 32 * 12);
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t v[3];
    std::memcpy(v, bytes.data() + t * 12, 12);
    EXPECT_EQ(v[0], t & 1 ? 7u : 9u) << "thread " << t << ": %r3 + %r4 (the one not written reads 0)";
    EXPECT_EQ(v[1], 0u + 1 + 2 + 3) << "thread " << t << ": %r7 starts at 0";
    EXPECT_EQ(v[2], 1u) << "thread " << t << ": %r10 reads 0";
  }
}

// A vector register's elements are always zeroed (the analysis does not model them); a register
// written by a wgmma or tcgen05 instruction counts as read (its result lands later).
TEST(RegInit, VectorRegistersAreAlwaysZeroed) {
  auto prog = decode_unshared(R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .v2 .b32 %v;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, 1;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r1;
  ret;
}
)",
                              "reg_init_vec.ptx");
  const ptxsim::Function* f = prog->find("k");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(zeroed_names(*f), (std::set<std::string>{"%v[0]", "%v[1]"}));
}

}  // namespace
