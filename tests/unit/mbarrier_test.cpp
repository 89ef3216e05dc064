// mbarrier: the model unit alone, then the instructions through the engine, including the errors
// the ISA calls undefined behaviour and the deadlock report.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "model/mbarrier/mbarrier.h"
#include "sim/api.h"

using ptxsim::model::Mbarrier;

TEST(MbarrierModel, PhaseCompletesWhenArrivalsAndTxReachZero) {
  Mbarrier b;
  ASSERT_EQ(b.init(2), Mbarrier::Error::None);
  EXPECT_EQ(b.expect_tx(64), Mbarrier::Error::None);
  auto r = b.arrive(1, 0, false, false);
  EXPECT_FALSE(r.completed);
  EXPECT_EQ(Mbarrier::Token::phase(r.token), 0u);
  r = b.arrive(1, 0, false, false);
  EXPECT_FALSE(r.completed);  // tx-count still 64
  EXPECT_TRUE(b.complete_tx(64).completed);
  EXPECT_EQ(b.phase(), 1u);
  EXPECT_EQ(b.pending(), 2);
  EXPECT_TRUE(b.wait_parity(0));
  EXPECT_FALSE(b.wait_parity(1));
}

TEST(MbarrierModel, TokensOfCurrentAndPrecedingPhaseOnly) {
  Mbarrier b;
  ASSERT_EQ(b.init(1), Mbarrier::Error::None);
  uint64_t t0 = b.arrive(1, 0, false, false).token;  // completes phase 0
  Mbarrier::Error e;
  EXPECT_TRUE(b.wait_token(t0, &e));
  EXPECT_EQ(e, Mbarrier::Error::None);
  uint64_t t1 = b.arrive(1, 0, false, false).token;
  b.arrive(1, 0, false, false);
  EXPECT_FALSE(b.wait_token(t0, &e));
  EXPECT_EQ(e, Mbarrier::Error::StaleToken);
  EXPECT_TRUE(b.wait_token(t1 + (uint64_t(1) << 32), &e));
}

TEST(MbarrierModel, RangeAndLifecycleErrors) {
  Mbarrier b;
  EXPECT_EQ(b.arrive(1, 0, false, false).error, Mbarrier::Error::Uninitialized);
  EXPECT_EQ(b.init(0), Mbarrier::Error::CountOutOfRange);
  EXPECT_EQ(b.init(1 << 20), Mbarrier::Error::CountOutOfRange);
  ASSERT_EQ(b.init(4), Mbarrier::Error::None);
  EXPECT_EQ(b.init(4), Mbarrier::Error::AlreadyInitialized);
  EXPECT_EQ(b.arrive(5, 0, false, false).error, Mbarrier::Error::CountOutOfRange);
  EXPECT_EQ(b.arrive(4, 0, true, false).error, Mbarrier::Error::NoCompleteCompleted);
  EXPECT_EQ(b.expect_tx(Mbarrier::kMaxTx + 1), Mbarrier::Error::TxOutOfRange);
  ASSERT_EQ(b.arrive(2, 0, false, true).error, Mbarrier::Error::None);  // drop: expected 4 -> 2
  ASSERT_EQ(b.arrive(2, 0, false, false).error, Mbarrier::Error::None);
  EXPECT_EQ(b.phase(), 2u);
  EXPECT_EQ(b.pending(), 2);
  EXPECT_EQ(b.inval(), Mbarrier::Error::None);
  EXPECT_EQ(b.init(3), Mbarrier::Error::None);
}

namespace {

// Warp 1 fills shared memory and arrives; warp 0 waits on the barrier's phase 0 and copies the
// data out. EXPECTED arrivals and the optional extra statements are the knobs of the error tests.
std::string pipeline_ptx(int expected, const std::string& producer_extra = "", const std::string& consumer_extra = "") {
  std::ostringstream p;
  p << R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 seed)
{
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 buf[32];
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_init_done;
  mbarrier.init.shared::cta.b64 [%r2], )" << expected << R"(;
$L_init_done:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra $L_consumer;
  // producer: warp 1
  sub.u32 %r3, %r1, 32;
  ld.param.u32 %r4, [seed];
  mad.lo.s32 %r5, %r3, 7, %r4;
  mov.u32 %r6, buf;
  shl.b32 %r7, %r3, 2;
  add.u32 %r6, %r6, %r7;
  st.shared.u32 [%r6], %r5;
)" << producer_extra << R"(
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
  bra.uni $L_end;
$L_consumer:
)" << consumer_extra << R"(
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @!%p3 bra $L_wait;
  mov.u32 %r6, buf;
  shl.b32 %r7, %r1, 2;
  add.u32 %r6, %r6, %r7;
  ld.shared.u32 %r8, [%r6];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r8;
$L_end:
  ret;
}
)";
  return p.str();
}

struct PipelineRun {
  ptxsim::RunResult result;
  std::vector<uint32_t> out;
};

PipelineRun run_pipeline(const std::string& ptx, uint32_t seed) {
  auto prog = ptxsim::load_program(ptx, "pipeline.ptx");
  ptxsim::model::GlobalMemory mem;
  uint64_t out = mem.allocate(128, 256, "out");
  std::vector<uint8_t> poison(128, 0xAB);
  mem.write(out, poison.data(), poison.size());
  std::vector<uint8_t> params(12);
  std::memcpy(params.data(), &out, 8);
  std::memcpy(params.data() + 8, &seed, 4);
  ptxsim::LaunchConfig cfg;
  cfg.block = {64, 1, 1};
  std::ostringstream sink;
  PipelineRun r;
  r.result = ptxsim::launch(*prog, "k", cfg, params, mem, &sink);
  r.out.resize(32);
  mem.read(out, r.out.data(), 128);
  return r;
}

}  // namespace

TEST(MbarrierEngine, ProducerConsumerHandOff) {
  uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  PipelineRun r = run_pipeline(pipeline_ptx(32), seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.result.report;
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r.out[i], i * 7 + seed) << "element " << i;
}

TEST(MbarrierEngine, MissingArrivalsDeadlockWithReport) {
  PipelineRun r = run_pipeline(pipeline_ptx(64), 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock);
  const std::string& rep = r.result.report;
  EXPECT_NE(rep.find("waiting on mbarrier at shared address 0x400 of CTA rank 0 (initialised at line 15): phase 0 "
                     "(parity 0), pending arrivals 32 of 64, tx-count 0"),
            std::string::npos)
      << rep;
  EXPECT_NE(rep.find("arrived in this phase: threads 32-63"), std::string::npos) << rep;
  EXPECT_NE(rep.find("diagnosis: 32 of 64 arrival(s) missing in phase 0"), std::string::npos) << rep;
  EXPECT_NE(rep.find("warp 0 lanes 0xffffffff at pipeline.ptx:34:   mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;"),
            std::string::npos)
      << rep;
}

TEST(MbarrierEngine, TxCountShortDeadlockNamesTheBytes) {
  // The producer announces 32768 bytes but only 16384 complete.
  std::string extra = "  setp.eq.u32 %p3, %r1, 32;\n  @%p3 mbarrier.expect_tx.shared::cta.b64 [%r2], 32768;\n"
                      "  @%p3 mbarrier.complete_tx.shared::cta.b64 [%r2], 16384;\n";
  PipelineRun r = run_pipeline(pipeline_ptx(32, extra), 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock);
  EXPECT_NE(r.result.report.find("diagnosis: tx-count short by 16384 bytes: expect_tx announced 32768 bytes in this "
                                 "phase but only 16384 bytes completed"),
            std::string::npos)
      << r.result.report;
}

TEST(MbarrierEngine, PlainStoreToLiveBarrierFaults) {
  std::string extra = "  st.shared.u32 [%r2], %r5;\n";
  PipelineRun r = run_pipeline(pipeline_ptx(32, extra), 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("touches the live mbarrier at 0x400 (only mbarrier instructions may access it)"),
            std::string::npos)
      << r.result.report;
}

TEST(MbarrierEngine, ArriveOnUninitialisedBarrierFaults) {
  std::string ptx = pipeline_ptx(32);
  ptx.replace(ptx.find("mbarrier.init"), std::string("mbarrier.init.shared::cta.b64 [%r2], 32;").size(), "");
  PipelineRun r = run_pipeline(ptx, 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("holds no initialised mbarrier (mbarrier.init it first)"), std::string::npos)
      << r.result.report;
}

TEST(MbarrierEngine, ReinitWithoutInvalFaults) {
  std::string extra = "  setp.eq.u32 %p3, %r1, 0;\n  @%p3 mbarrier.init.shared::cta.b64 [%r2], 4;\n";
  PipelineRun r = run_pipeline(pipeline_ptx(32, "", extra), 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("mbarrier.init of a live mbarrier (mbarrier.inval it first)"), std::string::npos)
      << r.result.report;
}

TEST(MbarrierEngine, RemoteClusterArriveNeedsSinkDestination) {
  std::string ptx = pipeline_ptx(32);
  ptx.replace(ptx.find("mbarrier.arrive.shared::cta.b64 %rd1"), std::string("mbarrier.arrive.shared::cta.b64 %rd1").size(),
              "mbarrier.arrive.shared::cluster.b64 %rd1");
  try {
    ptxsim::load_program(ptx, "p.ptx");
    FAIL() << "expected a PtxError";
  } catch (const ptxsim::PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("its destination must be '_'"), std::string::npos) << e.what();
  }
}
