// Ampere cp.async: copies of 4/8/16 bytes with src-size and ignore-src zero fill, commit/wait
// groups, cp.async.mbarrier.arrive{.noinc}, the race on reading a destination before the wait, and
// the binder's checks (messages as ptxas words them).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/tma_test_util.h"

namespace {

using namespace tma_test;

// Each of 32 threads copies 28 bytes of its 32-byte source row into its 32-byte shared row as
//   [0,4)  cp.async.ca 4 bytes     [16,32) cp.async.cg 16 bytes with src-size s[t] (0..16)
//   [8,16) cp.async.ca 8 bytes with ignore-src (t odd)
// after poisoning the row through plain stores (so zero fill is observable), then waits with
// WAIT and copies the row out.
std::string copy_ptx(const std::string& wait) {
  return R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 sizes, .param .u64 out)
{
  .shared .align 16 .b8 rows[1024];
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [sizes];
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 32;
  add.s64 %rd5, %rd1, %rd4;
  mov.u32 %r2, rows;
  shl.b32 %r3, %r1, 5;
  add.u32 %r4, %r2, %r3;
  mov.u32 %r5, 0xA5A5A5A5;
  st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
  st.shared.v4.u32 [%r4+16], {%r5, %r5, %r5, %r5};
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r6, [%rd7];
  and.b32 %r7, %r1, 1;
  setp.ne.u32 %p1, %r7, 0;
  cp.async.ca.shared.global [%r4], [%rd5], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+8], [%rd5+8], 8, %p1;
  cp.async.cg.shared.global.L2::128B [%r4+16], [%rd5+16], 16, %r6;
  cp.async.commit_group;
  )" + wait + R"(
  bar.sync 0;
  add.s64 %rd8, %rd3, %rd4;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
  st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+16];
  st.global.v4.u32 [%rd8+16], {%r10, %r11, %r12, %r13};
  ret;
}
)";
}

void check_copy(const std::string& wait, uint64_t seed, bool racecheck = false) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> src(32 * 32);
  for (auto& b : src) b = uint8_t(rng());
  std::vector<uint32_t> sizes(32);
  for (auto& s : sizes) s = uint32_t(rng() % 17);
  ptxsim::model::GlobalMemory mem;
  const uint64_t s = alloc(mem, src.size(), "src"), z = alloc(mem, 128, "sizes"), out = alloc(mem, 1024, "out");
  mem.write(s, src.data(), src.size());
  mem.write(z, sizes.data(), 128);
  Params p;
  p.add(s).add(z).add(out);
  Launched r = launch(copy_ptx(wait), mem, p, {1, 1, 1}, {32, 1, 1}, {1, 1, 1}, seed, "k", racecheck);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  const std::vector<uint8_t> got = read(mem, out, 1024);
  for (uint32_t t = 0; t < 32; ++t)
    for (uint32_t i = 0; i < 32; ++i) {
      uint8_t want = 0xA5;                                  // untouched: [4,8)
      if (i < 4) want = src[t * 32 + i];                    // plain 4-byte copy
      if (i >= 8 && i < 16) want = t & 1 ? 0 : src[t * 32 + i];  // ignore-src on odd threads
      if (i >= 16) want = i - 16 < sizes[t] ? src[t * 32 + i] : 0;  // src-size zero fill
      ASSERT_EQ(got[t * 32 + i], want) << "thread " << t << " byte " << i << " (src-size " << sizes[t] << ")";
    }
}

TEST(CpAsync, CopiesZeroFillAndWaitAll) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed));
  check_copy("cp.async.wait_all;", seed);
}

TEST(CpAsync, WaitGroupZero) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed));
  check_copy("cp.async.wait_group 0;", seed);
}

// Under --racecheck each lane's copy is an operation of its own (with its own clocks).
TEST(CpAsync, CopiesUnderRacecheck) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed));
  check_copy("cp.async.wait_group 0;", seed, true);
}

// Reading a destination right after the issue, before any wait, races with the copy. With
// --racecheck the race detector also reports it (once, for a lane whose copy lands after the read),
// after the engine's own report.
void check_read_before_wait(bool racecheck) {
  std::string ptx = copy_ptx("ld.shared.u32 %r15, [%r4+16];\n  cp.async.wait_all;");
  ptxsim::model::GlobalMemory mem;
  const uint64_t s = alloc(mem, 1024, "src"), z = alloc(mem, 128, "sizes", 0), out = alloc(mem, 1024, "out");
  Params p;
  p.add(s).add(z).add(out);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, "k", racecheck);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  ASSERT_EQ(r.warning_count(), racecheck ? 2u : 1u) << r.all_diagnostics();
  const auto& d = r.result.diagnostics.front();
  EXPECT_EQ(d.loc.line, 32u) << r.all_diagnostics();
  EXPECT_EQ(d.message,
            "race on an asynchronous copy's destination: plain read of 4 bytes at shared address 0x410 while "
            "cp.async.cg of 16 bytes to shared address 0x410 (issued at line 30) is still in flight; the data read is "
            "stale")
      << r.all_diagnostics();
  if (!racecheck) return;
  const auto& w = r.result.diagnostics.back();
  EXPECT_EQ(w.loc.line, 30u) << r.all_diagnostics();
  EXPECT_EQ(w.message.rfind("race (WAR) on shared memory of CTA (0,0,0) at offset 0x", 0), 0u) << w.message;
  EXPECT_NE(w.message.find(": write by cp.async.cg (issued at tma.ptx:30) is not ordered after the read by thread "),
            std::string::npos)
      << w.message;
}

TEST(CpAsync, ReadBeforeTheWaitIsARace) { check_read_before_wait(false); }
TEST(CpAsync, ReadBeforeTheWaitIsARaceUnderRacecheck) { check_read_before_wait(true); }

// A warp's shared accesses are checked against the copies in flight by the hull of its lanes'
// addresses first (sim/exec/warp_access.h), then lane by lane: thread 31 alone copies 16 bytes to
// rows + COPY; every lane then reads the byte at rows + STRIDE * tid before the wait. Returns the
// run and the line of the cp.async.
std::pair<Launched, uint32_t> run_byte_reads_around_one_copy(uint32_t stride, uint32_t copy) {
  const std::string ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .shared .align 16 .b8 rows[1024];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r2, rows;
  mul.lo.u32 %r3, %r1, )" + std::to_string(stride) + R"(;
  add.u32 %r4, %r2, %r3;
  setp.eq.u32 %p1, %r1, 31;
  @%p1 cp.async.cg.shared.global [%r2+)" + std::to_string(copy) + R"(], [%rd1], 16;
  cp.async.commit_group;
  ld.shared.u8 %r5, [%r4];
  cp.async.wait_all;
  cvt.u64.u32 %rd3, %r1;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u8 [%rd4], %r5;
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  const uint64_t s = alloc(mem, 16, "src"), out = alloc(mem, 32, "out");
  Params p;
  p.add(s).add(out);
  const uint32_t line = uint32_t(std::count(ptx.begin(), ptx.begin() + long(ptx.find("@%p1 cp.async")), '\n')) + 1;
  return {launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1}), line};
}

TEST(CpAsync, OnlyTheLaneWhoseByteIsInFlightRaces) {
  // Lane 31's byte is the last of the warp's hull and the first of the copied chunk.
  auto [r, line] = run_byte_reads_around_one_copy(16, 31 * 16);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  ASSERT_EQ(r.warning_count(), 1u) << r.all_diagnostics();
  EXPECT_EQ(r.result.diagnostics.front().message,
            "race on an asynchronous copy's destination: plain read of 1 bytes at shared address 0x5f0 while "
            "cp.async.cg of 16 bytes to shared address 0x5f0 (issued at line " +
                std::to_string(line) + ") is still in flight; the data read is stale")
      << r.all_diagnostics();
}

TEST(CpAsync, ACopyBetweenTheLanesAddressesIsNoRace) {
  // The copied chunk lies inside the warp's hull, between two lanes' bytes.
  auto [r, line] = run_byte_reads_around_one_copy(32, 16);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
}

// A cp.async landing on bytes a thread stored through the generic proxy clears them for the async
// proxy (sim/sem/cp_async.cpp complete_copies): a bulk copy then reads them without a
// fence.proxy.async and no warning. Without the cp.async (OVERWRITE empty) the same read is warned.
void check_cp_async_clears_generic_writes(bool overwrite) {
  const std::string ptx = std::string(R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst)
{
  .shared .align 128 .b8 buf[128];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  mov.u32 %r1, buf;
  mov.u32 %r2, 0x5A5A5A5A;
  st.shared.u32 [%r1+20], %r2;
)") + (overwrite ? "  cp.async.cg.shared.global [%r1+16], [%rd1], 16;\n  cp.async.wait_all;\n" : "") + R"(
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r1], 64;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  std::vector<uint8_t> src(16);
  for (size_t i = 0; i < 16; ++i) src[i] = uint8_t(0x30 + i);
  const uint64_t s = upload(mem, src.data(), 16, "src"), d = alloc(mem, 64, "dst");
  Params p;
  p.add(s).add(d);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  const bool warned = r.has_warning("written through the generic proxy without an intervening fence.proxy.async");
  EXPECT_EQ(warned, !overwrite) << r.all_diagnostics();
  std::vector<uint8_t> out(64);
  mem.read(d, out.data(), 64);
  if (overwrite) {
    for (size_t i = 0; i < 16; ++i) EXPECT_EQ(out[16 + i], src[i]) << "byte " << i;
  }
}

TEST(CpAsync, ItsLandingClearsGenericWritesForTheAsyncProxy) { check_cp_async_clears_generic_writes(true); }
TEST(CpAsync, WithoutItTheGenericWriteIsWarned) { check_cp_async_clears_generic_writes(false); }

// wait_group 1 guarantees the older group only: reading its destination never races, while the
// newest group's copies may still be in flight (over a few schedules, some are).
TEST(CpAsync, WaitGroupOneCompletesTheOlderGroupOnly) {
  std::string ptx = copy_ptx("cp.async.wait_group 1;\n  ld.shared.u32 %r14, [%r4];\n  ld.shared.u32 %r15, [%r4+16];");
  size_t newest_races = 0;
  for (uint64_t schedule = 1; schedule <= 4; ++schedule) {
    ptxsim::model::GlobalMemory mem;
    const uint64_t s = alloc(mem, 1024, "src"), z = alloc(mem, 128, "sizes", 0), out = alloc(mem, 1024, "out");
    Params p;
    p.add(s).add(z).add(out);
    Launched r = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1}, {1, 1, 1}, schedule);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    for (const auto& d : r.result.diagnostics) {
      ASSERT_EQ(d.message.find("cp.async.ca of 4 bytes"), std::string::npos) << r.all_diagnostics();
      newest_races += d.message.find("cp.async.cg of 16 bytes") != std::string::npos;
    }
  }
  EXPECT_GT(newest_races, 0u);
}

// 32 threads each copy 16 bytes and signal an mbarrier through cp.async.mbarrier.arrive; warp 1
// waits on the barrier and reads everything. NOINC: the arrive counts as the thread's arrival
// (init 32); otherwise it is net zero and each thread also arrives itself (init 32).
std::string mbarrier_ptx(bool noinc) {
  return std::string(R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .shared .align 16 .b8 rows[512];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd3, [out];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared.b64 [%r2], 32;
INIT_DONE:
  bar.sync 0;
  mov.u32 %r3, rows;
  setp.ge.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
  shl.b32 %r4, %r1, 4;
  add.u32 %r5, %r3, %r4;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd1, %rd4;
  cp.async.cg.shared.global [%r5], [%rd5], 16;
)") + (noinc ? "  cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];\n"
             : "  cp.async.mbarrier.arrive.shared.b64 [%r2];\n  mbarrier.arrive.shared.b64 %rd9, [%r2];\n") +
         R"(  ret;
CONSUMER:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r2], 0;
  @!%p3 bra CONSUMER;
  sub.u32 %r6, %r1, 32;
  shl.b32 %r7, %r6, 4;
  add.u32 %r8, %r3, %r7;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r8];
  mul.wide.u32 %rd6, %r6, 16;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};
  ret;
}
)";
}

void check_mbarrier(bool noinc) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> src(512);
  for (auto& b : src) b = uint8_t(rng());
  for (uint64_t schedule : {seed, seed + 1, seed + 2}) {
    ptxsim::model::GlobalMemory mem;
    const uint64_t s = alloc(mem, 512, "src"), out = alloc(mem, 512, "out");
    mem.write(s, src.data(), 512);
    Params p;
    p.add(s).add(out);
    Launched r = launch(mbarrier_ptx(noinc), mem, p, {1, 1, 1}, {64, 1, 1}, {1, 1, 1}, schedule);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    EXPECT_EQ(read(mem, out, 512), src);
  }
}

TEST(CpAsync, MbarrierArriveNoincSignalsAfterTheCopies) { check_mbarrier(true); }
TEST(CpAsync, MbarrierArriveWithIncrementIsNetZero) { check_mbarrier(false); }

// Without .noinc the async arrival is net zero: with init 32 and no thread arriving itself, the
// phase never completes, and the report says so.
TEST(CpAsync, MbarrierArriveWithoutOwnArrivalsDeadlocks) {
  std::string ptx = mbarrier_ptx(false);
  ptx.replace(ptx.find("  mbarrier.arrive.shared.b64 %rd9, [%r2];\n"), 42, "");
  ptxsim::model::GlobalMemory mem;
  const uint64_t s = alloc(mem, 512, "src"), out = alloc(mem, 512, "out");
  Params p;
  p.add(s).add(out);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("pending arrivals 32 of 32, tx-count 0"), std::string::npos) << r.result.report;
  EXPECT_NE(r.result.report.find("arrived in this phase: threads 0-31\n"), std::string::npos) << r.result.report;
}

TEST(CpAsync, RuntimeErrorsFault) {
  auto run = [](const std::string& instr) {
    const std::string ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src)
{
  .shared .align 16 .b8 rows[64];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, rows;
  ld.param.u64 %rd1, [src];
  mov.u32 %r2, 9;
  )" + instr + R"(;
  cp.async.wait_all;
  ret;
}
)";
    ptxsim::model::GlobalMemory mem;
    const uint64_t s = alloc(mem, 64, "src");
    Params p;
    p.add(s);
    return launch(ptx, mem, p, {1, 1, 1}, {1, 1, 1});
  };
  Launched a = run("cp.async.ca.shared.global [%r1], [%rd1+4], 8");
  ASSERT_EQ(a.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(a.result.report.find("misaligned address: cp.async.ca of 8 bytes: source 0x"), std::string::npos) << a.result.report;
  EXPECT_NE(a.result.report.find("is not 8-byte aligned"), std::string::npos) << a.result.report;
  Launched b = run("cp.async.ca.shared.global [%r1], [%rd1], 8, %r2");
  ASSERT_EQ(b.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(b.result.report.find("cp.async.ca of 8 bytes: src-size 9 (lane 0) is larger than cp-size 8"), std::string::npos)
      << b.result.report;
  Launched c = run("cp.async.cg.shared.global [%r1], [%rd1+64], 16");
  ASSERT_EQ(c.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(c.result.report.find("past the end of allocation 'src'"), std::string::npos) << c.result.report;
  Launched d = run("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]");
  ASSERT_EQ(d.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(d.result.report.find("holds no initialised mbarrier"), std::string::npos) << d.result.report;
}

// Load-time checks with ptxas 13.0's wording; gates: sm_80, PTX 7.0; ignore-src PTX 7.5; L2
// prefetch sizes and cache hints PTX 7.4; .shared::cta on the mbarrier arrive PTX 7.8.
TEST(CpAsync, BinderChecksAndGates) {
  auto err = [](const std::string& version, const std::string& target, const std::string& instr) {
    const std::string ptx = ".version " + version + "\n.target " + target +
                            "\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
                            "  .reg .pred %p<2>;\n  " + instr + ";\n  ret;\n}\n";
    try {
      ptxsim::load_program(ptx, "g.ptx");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(err("7.0", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 4"), "");
  EXPECT_EQ(err("7.5", "sm_80", "cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 16, %p1, %rd2"), "");
  EXPECT_EQ(err("7.4", "sm_80", "cp.async.cg.shared.global.L2::256B [%r1], [%rd1], 16, 8"), "");
  EXPECT_EQ(err("7.0", "sm_80", "cp.async.mbarrier.arrive.b64 [%rd1]"), "");
  EXPECT_EQ(err("8.6", "sm_90a", "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1]"), "");
  EXPECT_NE(err("7.0", "sm_75", "cp.async.ca.shared.global [%r1], [%rd1], 4"), "");
  EXPECT_NE(err("6.5", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 4"), "");
  EXPECT_NE(err("7.0", "sm_80", "cp.async.cg.shared.global [%r1], [%rd1], 4")
                .find("Argument 2 of instruction 'cp.async': unexpected value '4', expected to be 16"),
            std::string::npos);
  EXPECT_NE(err("7.0", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 12")
                .find("unexpected value '12', expected to be 4 or 8 or 16"),
            std::string::npos);
  EXPECT_NE(err("7.0", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 4, 8")
                .find("value '8' out of range, expected to be in range [0..4]"),
            std::string::npos);
  EXPECT_NE(err("7.4", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 16, %p1")
                .find("Feature 'igonre-src on cp.async' requires PTX ISA .version 7.5 or later"),
            std::string::npos);
  EXPECT_NE(err("7.0", "sm_80", "cp.async.shared.global [%r1], [%rd1], 16").find("'.ca or .cg' modifier required"),
            std::string::npos);
  EXPECT_NE(err("7.0", "sm_80", "cp.async.ca.shared.global [%r1], [%rd1], 16, %rd2").find("Arguments mismatch"),
            std::string::npos);
  EXPECT_NE(err("7.5", "sm_80", "cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 16, %rd2, %p1")
                .find("Arguments mismatch"),
            std::string::npos);
  EXPECT_NE(err("7.3", "sm_80", "cp.async.ca.shared.global.L2::128B [%r1], [%rd1], 16"), "");
  EXPECT_NE(err("7.0", "sm_80", "cp.async.wait_group %r1").find("Arguments mismatch"), std::string::npos);
  EXPECT_NE(err("7.0", "sm_80", "cp.async.wait_all 0").find("Arguments mismatch"), std::string::npos);
  EXPECT_NE(err("7.0", "sm_80", "cp.async.mbarrier.arrive.shared.b32 [%r1]"), "");
  EXPECT_NE(err("7.0", "sm_80", "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1]"), "");
}

// prefetch.tensormap is a hint: it loads and runs.
TEST(PrefetchTensormap, IsAcceptedAndHasNoEffect) {
  const std::string ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tm[128])
{
  .reg .b64 %rd<4>;
  mov.u64 %rd1, tm;
  prefetch.param.tensormap [%rd1];
  cvta.param.u64 %rd2, %rd1;
  prefetch.tensormap [%rd2];
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  Params p;
  std::vector<uint8_t> tm(128, 0);
  p.add_bytes(tm.data(), 128, 64);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1});
  EXPECT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
}

}  // namespace
