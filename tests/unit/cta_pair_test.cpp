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
