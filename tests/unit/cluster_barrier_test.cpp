// barrier.cluster.arrive / barrier.cluster.wait: exchange through distributed shared memory over
// several phases, exited threads not waited for, and the errors and deadlock report.
#include <gtest/gtest.h>

#include "tests/unit/tma_test_util.h"

namespace {

using namespace tma_test;

// Each of the 2 CTAs of the cluster (64 threads each) writes `round`-dependent values to its own
// shared memory, synchronises the cluster, and reads its peer's values through mapa; `rounds`
// times, with a second barrier per round so a fast CTA cannot overwrite data its peer still reads.
// ARRIVE/WAIT are the instruction spellings under test.
std::string exchange_ptx(const std::string& arrive, const std::string& wait) {
  return R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .shared .align 4 .b32 buf[64];
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  xor.b32 %r3, %r2, 1;
  mov.u32 %r4, buf;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  mapa.shared::cluster.u32 %r7, %r6, %r3;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mad.lo.u32 %r8, %r2, 64, %r1;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r9, [%rd4];
  mov.u32 %r10, 0;
ROUND:
  add.u32 %r11, %r9, %r10;
  st.shared.u32 [%r6], %r11;
  )" + arrive + R"(;
  )" + wait + R"(;
  ld.shared::cluster.u32 %r12, [%r7];
  )" + arrive + R"(;
  )" + wait + R"(;
  mad.lo.u32 %r13, %r10, 128, %r8;
  mul.wide.u32 %rd5, %r13, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r12;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p1, %r10, 3;
  @%p1 bra ROUND;
  ret;
}
)";
}

void check_exchange(const std::string& arrive, const std::string& wait) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> in(128);
  for (auto& v : in) v = uint32_t(rng());
  ptxsim::model::GlobalMemory mem;
  const uint64_t a = alloc(mem, 512, "in"), out = alloc(mem, 3 * 512, "out");
  mem.write(a, in.data(), 512);
  Params p;
  p.add(a).add(out);
  Launched r = launch(exchange_ptx(arrive, wait), mem, p, {2, 1, 1}, {64, 1, 1}, {2, 1, 1}, seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  std::vector<uint32_t> got(3 * 128);
  mem.read(out, got.data(), got.size() * 4);
  for (uint32_t round = 0; round < 3; ++round)
    for (uint32_t rank = 0; rank < 2; ++rank)
      for (uint32_t t = 0; t < 64; ++t)
        ASSERT_EQ(got[round * 128 + rank * 64 + t], in[(rank ^ 1) * 64 + t] + round)
            << "round " << round << " rank " << rank << " thread " << t;
}

TEST(ClusterBarrier, AlignedExchangeOverPhases) {
  check_exchange("barrier.cluster.arrive.aligned", "barrier.cluster.wait.aligned");
}

TEST(ClusterBarrier, ReleaseAcquirePerThreadExchangeOverPhases) {
  check_exchange("barrier.cluster.arrive.release", "barrier.cluster.wait.acquire");
}

TEST(ClusterBarrier, RelaxedArriveExchange) {
  check_exchange("barrier.cluster.arrive.relaxed.aligned", "barrier.cluster.wait.aligned");
}

// Threads 32..63 of CTA rank 1 exit late (after a busy loop), while everybody else already waits:
// the barrier waits only for non-exited threads, so the exit completes it.
TEST(ClusterBarrier, ExitedThreadsAreNotWaitedFor) {
  const std::string ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r2, 1;
  setp.ge.u32 %p2, %r1, 32;
  and.pred %p3, %p1, %p2;
  @%p3 bra LATE;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.param.u64 %rd1, [out];
  mad.lo.u32 %r3, %r2, 64, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
LATE:
  mov.u32 %r5, 300;
BUSY:
  sub.u32 %r5, %r5, 1;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra BUSY;
  exit;
}
)";
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = alloc(mem, 512, "out");
  Params p;
  p.add(out);
  Launched r = launch(ptx, mem, p, {2, 1, 1}, {64, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  std::vector<uint32_t> got(128);
  mem.read(out, got.data(), 512);
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(got[t], t < 96 ? t : 0xABABABABu) << "thread " << t;
}

// Thread 33 of CTA rank 1 skips its arrival but waits: the phase needs its own arrival.
TEST(ClusterBarrier, MissingArriveIsADeadlockNamingWhoArrived) {
  const std::string ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r2, 1;
  setp.eq.u32 %p2, %r1, 33;
  and.pred %p3, %p1, %p2;
  @%p3 bra SKIP;
  barrier.cluster.arrive;
SKIP:
  barrier.cluster.wait; // the wait
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(ptx, mem, Params{}, {2, 1, 1}, {64, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
  const std::string& rep = r.result.report;
  EXPECT_NE(rep.find("CTA (1,0,0) warp 1 lanes 0xffffffff at tma.ptx:16:   barrier.cluster.wait; // the wait\n"
                     "    waiting on the cluster barrier (barrier.cluster) to complete phase 0\n"),
            std::string::npos)
      << rep;
  EXPECT_NE(rep.find("  cluster barrier phase 0, CTA rank 0: arrived: threads 0-63; not arrived: threads none\n"
                     "  cluster barrier phase 0, CTA rank 1: arrived: threads 0-32, 34-63; not arrived: threads 33\n"
                     "  cluster barrier: 127 of 128 non-exited threads of the cluster arrived in phase 0\n"
                     "    diagnosis: CTA rank 1 threads 33 wait at barrier.cluster.wait without a barrier.cluster.arrive "
                     "in this phase; the phase needs their own arrival, so it can never complete\n"),
            std::string::npos)
      << rep;
}

// CTA rank 1's warp 1 never reaches the barrier (it waits on a named barrier nobody else uses).
TEST(ClusterBarrier, ThreadsBlockedElsewhereAreNamedAsMissing) {
  const std::string ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r2, 1;
  setp.ge.u32 %p2, %r1, 32;
  and.pred %p3, %p1, %p2;
  @%p3 bar.sync 3, 64;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(ptx, mem, Params{}, {2, 1, 1}, {64, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("  cluster barrier: 96 of 128 non-exited threads of the cluster arrived in phase 0\n"
                                 "    diagnosis: missing barrier.cluster.arrive from CTA rank 1 threads 32-63\n"),
            std::string::npos)
      << r.result.report;
}

TEST(ClusterBarrier, SecondArriveInOnePhaseFaults) {
  const std::string ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
  barrier.cluster.arrive.aligned;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(ptx, mem, Params{}, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("thread 0 of CTA rank 0 arrives at the cluster barrier twice in phase 0 (each thread "
                                 "must arrive only once before the barrier completes; barrier.cluster.wait first)"),
            std::string::npos)
      << r.result.report;
  EXPECT_NE(r.result.report.find("tma.ptx:7:"), std::string::npos) << r.result.report;
}

// Gates checked against ptxas 13.0: barrier.cluster needs sm_90 and PTX 7.8; .release/.relaxed/
// .acquire PTX 8.0; .relaxed is not a wait modifier.
TEST(ClusterBarrier, TargetAndVersionGates) {
  auto module = [](const std::string& version, const std::string& target, const std::string& instr) {
    return ".version " + version + "\n.target " + target + "\n.address_size 64\n.visible .entry k()\n{\n  " + instr +
           ";\n  ret;\n}\n";
  };
  auto rejects = [&](const std::string& v, const std::string& t, const std::string& i) {
    try {
      ptxsim::load_program(module(v, t, i), "g.ptx");
    } catch (const std::exception&) {
      return true;
    }
    return false;
  };
  EXPECT_FALSE(rejects("7.8", "sm_90", "barrier.cluster.arrive"));
  EXPECT_FALSE(rejects("7.8", "sm_90", "barrier.cluster.wait.aligned"));
  EXPECT_FALSE(rejects("8.0", "sm_90a", "barrier.cluster.arrive.release.aligned"));
  EXPECT_FALSE(rejects("8.0", "sm_100a", "barrier.cluster.wait.acquire.aligned"));
  EXPECT_TRUE(rejects("8.0", "sm_80", "barrier.cluster.arrive"));
  EXPECT_TRUE(rejects("7.7", "sm_90", "barrier.cluster.arrive"));
  EXPECT_TRUE(rejects("7.8", "sm_90", "barrier.cluster.arrive.release"));
  EXPECT_TRUE(rejects("8.0", "sm_90", "barrier.cluster.wait.relaxed"));
  EXPECT_TRUE(rejects("8.0", "sm_90", "barrier.cluster.arrive.acquire"));
  EXPECT_TRUE(rejects("8.0", "sm_90", "barrier.cluster.arrive.release.relaxed"));
  EXPECT_TRUE(rejects("8.0", "sm_90", "barrier.cluster.arrive 1"));
}

}  // namespace
