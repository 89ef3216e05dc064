// The 2-CTA ("2-SM") idioms of real Blackwell code, as CUTLASS's SM100_TMA_2SM_LOAD and Triton's
// 2-CTA kernels write them: both CTAs of a pair issue `.cta_group::2` TMA loads into their own
// shared memory and signal the even (leader) CTA's barrier by clearing bit 24 of their own
// barrier's address (Sm100MmaPeerBitMask = 0xFEFFFFFF). Only the leader arms and waits on the
// barrier, for the bytes of both loads. This works only if a CTA's own shared addresses carry its
// cluster rank in bits 31:24, as on the hardware (docs/design.md "Shared memory addresses").
#include <gtest/gtest.h>

#include <random>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;
namespace tmap = ptxsim::model::tmap;

namespace {

// Cluster of 4 = two pairs. Each CTA loads the 16x16 u32 tile at row 16*rank into its `buf`; the
// leaders expect 2 x 1024 bytes on `full`, wait, and release their peer through `done` (remote
// arrive at the same masked address trick, the other way: rank | 1 via mapa). Every CTA then copies
// its own `buf` to out[rank].
const char* kPairPtx = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .shared .align 1024 .b8 buf[1024];
  .shared .align 8 .b64 full;
  .shared .align 8 .b64 done;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  and.b32 %r20, %r2, 1;
  setp.eq.u32 %p4, %r20, 0;                 // leader of its pair
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [done], 1;
  and.pred %p5, %p1, %p4;
  @%p5 mbarrier.init.shared::cta.b64 [full], 1;
  @%p5 mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 2048;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @!%p1 bra $copy_out;
  mov.u32 %r3, full;
  and.b32 %r4, %r3, -16777217;              // 0xFEFFFFFF: the leader's barrier
  mov.u32 %r5, buf;
  shl.b32 %r6, %r2, 4;
  mov.u32 %r7, 0;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r5], [%rd2, {%r7, %r6}], [%r4];
  @!%p4 bra $peer;
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [full], 0;
  @!%p3 bra $wait_full;
  mov.u32 %r8, done;
  add.u32 %r9, %r2, 1;
  mapa.shared::cluster.u32 %r10, %r8, %r9;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r10];
  bra $copy_out;
$peer:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [done], 0;
  @!%p3 bra $peer;
$copy_out:
  bar.sync 0;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r2, 1024;
  add.s64 %rd6, %rd4, %rd5;
  shl.b32 %r11, %r1, 2;
$copy:
  mov.u32 %r12, buf;
  add.u32 %r13, %r12, %r11;
  ld.shared.u32 %r14, [%r13];
  cvt.u64.u32 %rd7, %r11;
  add.s64 %rd8, %rd6, %rd7;
  st.global.u32 [%rd8], %r14;
  add.u32 %r11, %r11, 128;
  setp.lt.u32 %p6, %r11, 1024;
  @%p6 bra $copy;
  ret;
}
)";

}  // namespace

TEST(CtaPair, PeerBitMaskedBarrierCollectsBothCtasTransactionBytes) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  ptxsim::model::GlobalMemory mem;
  std::vector<uint8_t> g(4 * 1024);
  for (auto& b : g) b = uint8_t(rng());
  const uint64_t ga = upload(mem, g.data(), g.size(), "tensor");
  const uint64_t out = alloc(mem, g.size(), "out");  // poisoned
  // A 16-wide, 64-row u32 tensor; each CTA's box is 16x16 at row 16 * rank.
  auto m = encode(tmap::DataType::kUInt32, 2, ga, {16, 64}, {64}, {16, 16}, {1, 1});
  Params p;
  p.add_bytes(&m, 128, 64).add(out);
  for (uint64_t sched : {uint64_t(0), seed}) {
    const std::vector<uint8_t> poison(g.size(), 0xAB);
    ASSERT_TRUE(mem.write(out, poison.data(), poison.size()));
    Launched r = launch(kPairPtx, mem, p, {4, 1, 1}, {32, 1, 1}, {4, 1, 1}, sched);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
    EXPECT_EQ(read(mem, out, g.size()), g);
  }
}

// tcgen05.relinquish_alloc_permit.cta_group::2 is not collective (the ISA's collective rule names
// allocation and de-allocation): the odd CTA relinquishes and then signals the even one, which
// relinquishes only after that signal. A blocking relinquish would hang here, as it hung CUTLASS's
// example 72c. The pair then deallocates collectively.
TEST(CtaPair, RelinquishDoesNotWaitForThePeer) {
  const std::string ptx = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 sig;
  .shared .align 4 .b32 taddr;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 mbarrier.init.shared::cta.b64 [sig], 1;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [taddr], 32;
  setp.eq.u32 %p2, %r1, 0;
  @%p2 bra $leader;
  tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
  mov.u32 %r3, sig;
  and.b32 %r4, %r3, -16777217;
  @%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];
  bra $done;
$leader:
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [sig], 0;
  @!%p3 bra $wait;
  tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
$done:
  ld.shared.u32 %r5, [taddr];
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r5, 32;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  @%p1 st.global.u32 [%rd3], %r5;
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = alloc(mem, 8, "out");
  Params p;
  p.add(out);
  Launched r = launch(ptx, mem, p, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
  const auto got = read(mem, out, 8);
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.begin() + 4), std::vector<uint8_t>(got.begin() + 4, got.end()));
}

// mbarrier.try_wait suspends until the phase completes "or the suspend time limit expires". A
// try_wait used as a probe (CUTLASS's producer_try_acquire peeks at the next stage's barrier before
// it issues the loads the consumer needs to release that stage) must return false when nothing
// else can progress, not hang the kernel; a try_wait spin loop that nothing can end is still a
// deadlock, reported as one.
TEST(Mbarrier, TryWaitProbeTimesOutWhenNothingElseCanProgress) {
  const std::string probe = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 empty;
  .shared .align 8 .b64 full;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [empty], 1;
  @%p1 mbarrier.init.shared::cta.b64 [full], 1;
  bar.sync 0;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra $consumer;
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [empty], 0;   // probe: not complete yet
  selp.u32 %r3, 1, 0, %p3;
  @%p1 mbarrier.arrive.shared::cta.b64 _, [full];            // what the consumer waits for
$pwait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [empty], 0;
  @!%p3 bra $pwait;
  ld.param.u64 %rd1, [out];
  @%p1 st.global.u32 [%rd1], %r3;
  bra $done;
$consumer:
$cwait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [full], 0;
  @!%p3 bra $cwait;
  setp.eq.u32 %p1, %r1, 32;
  @%p1 mbarrier.arrive.shared::cta.b64 _, [empty];
$done:
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = alloc(mem, 4, "out");  // poisoned 0xAB
  Params p;
  p.add(out);
  Launched r = launch(probe, mem, p, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
  EXPECT_EQ(read(mem, out, 4), std::vector<uint8_t>(4, 0));  // the probe returned false

  // Without the consumer's release the producer's spin loop can never end: a deadlock, whose report
  // names the barrier.
  std::string stuck = probe;
  stuck.replace(stuck.find("@%p1 mbarrier.arrive.shared::cta.b64 _, [empty];"), 48, "");
  Launched s = launch(stuck, mem, p, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(s.result.status, ptxsim::RunStatus::Deadlock) << s.all_diagnostics();
  EXPECT_NE(s.result.report.find("1 of 1 arrival(s) missing in phase 0"), std::string::npos) << s.result.report;
}
