// Tensor Memory lifetime against asynchronous tcgen05 operations, through the engine: a
// tcgen05.dealloc of columns that an MMA (its D, A in TMEM, scale_A, scale_B), a tcgen05.cp or a
// tcgen05.shift not yet completed (or never committed) writes or reads, and a CTA exiting while such
// an operation is in flight. PTX 9.7.16.6 (tcgen05 memory consistency) leaves both undefined: the
// memory may be reallocated, or the CTA's Tensor Memory reset, under the operation. ptxsim reports
// both as faults naming the operation, its line and its cells. Each case also runs with the wait on
// the commit's mbarrier in place, which must complete cleanly (the checks are not spurious).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

std::string module(const std::string& body) {
  return ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n"
         "  .shared .align 1024 .b8 sa[16384];\n  .shared .align 1024 .b8 sb[16384];\n  .shared .align 8 .b64 bar;\n"
         "  .reg .b32 %r<64>;\n  .reg .b64 %rd<16>;\n  .reg .pred %p<8>;\n"
         "  mov.u32 %r0, %tid.x;\n" +
         body + "\n  ret;\n}\n";
}

uint32_t line_of(const std::string& ptx, const std::string& needle) {
  const size_t at = ptx.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return uint32_t(std::count(ptx.begin(), ptx.begin() + long(at == std::string::npos ? 0 : at), '\n') + 1);
}

const ptxsim::Diagnostic* first_error(const Launched& r) {
  for (const auto& d : r.result.diagnostics)
    if (d.severity == ptxsim::Diagnostic::Severity::Error) return &d;
  return nullptr;
}

// One warp. Five allocations of 32 columns (first fit: columns 0, 32, 64, 96, 128) in %r10..%r14;
// thread 0 runs OP (then COMMIT); the warp reads A's cells with tcgen05.ld (reading what an MMA
// only reads is no hazard), frees the untouched fifth allocation, then WAIT, then FREE.
const char* kProgram = R"(
  mov.u32 %r26, bar;
  mov.u32 %r20, sa;
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$init_done:
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 32;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+4], 32;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+8], 32;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+12], 32;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+16], 32;
  ld.shared.u32 %r10, [%r20];
  ld.shared.u32 %r11, [%r20+4];
  ld.shared.u32 %r12, [%r20+8];
  ld.shared.u32 %r13, [%r20+12];
  ld.shared.u32 %r14, [%r20+16];
  mov.u32 %r21, sb;
  and.b32 %r22, %r21, 0x3ffff;
  shr.u32 %r22, %r22, 4;
  cvt.u64.u32 %rd11, %r22;
  or.b64 %rd11, %rd11, 0x0000400800080000;  // version 1, SBO 128, LBO 128, no swizzle
  @%p6 bra $issued;
  setp.ne.u32 %p2, %r0, 0;
OP
COMMIT
$issued:
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, [%r11];
  tcgen05.wait::ld.sync.aligned;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r14, 32;
WAIT
FREE
)";

// mxf8f6f4 e4m3 x e4m3, UE8M0 scale factors, M = 128, N = 32: D at %r10, A in TMEM at %r11,
// scale_A at %r12, scale_B at %r13.
const char* kMma =
    "  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r10], [%r11], %rd11, 0x08880000, [%r12], "
    "[%r13], %p2;";
const char* kCommit = "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];";
const char* kWait =
    "$w:\n  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;\n  @!%p5 bra $w;\n  tcgen05.fence::after_thread_sync;";
const char* kFreeAll =
    "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;\n"
    "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;\n"
    "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r12, 32;\n"
    "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r13, 32;";

std::string program(const std::string& op, bool commit, bool wait, const std::string& free) {
  std::string s = replace_all(kProgram, "OP", op);
  s = replace_all(s, "COMMIT", commit ? kCommit : "");
  s = replace_all(s, "WAIT", wait ? kWait : "");
  return module(replace_all(s, "FREE", free));
}

// The first error's message without the " [CTA ... warp ... lanes ...]" suffix, and its line.
std::pair<std::string, uint32_t> error_of(const Launched& r) {
  const ptxsim::Diagnostic* e = first_error(r);
  if (!e) return {"", 0};
  std::string m = e->message;
  if (const size_t at = m.rfind(" [CTA ("); at != std::string::npos) m.resize(at);
  return {m, e->loc.line};
}

constexpr const char* kNotCompleted = ", which has not completed: wait on the mbarrier its tcgen05.commit arrives on";
constexpr const char* kNoCommit = ", which no tcgen05.commit covers: commit it to an mbarrier and wait on that";

}  // namespace

// Each TMEM operand of an MMA in flight: freeing its columns is a fault naming the operand's cells.
TEST(Tcgen05Lifetime, DeallocUnderAnInFlightMmaIsAFault) {
  struct Case {
    const char* reg;   // the allocation freed first
    const char* cells;  // what the fault names
  } cases[] = {
      {"%r10", "columns [0, 32) include the D of the tcgen05.mma at line MMA (TMEM lanes 0..127, columns 0..31)"},
      {"%r11",
       "columns [32, 64) include the A (in Tensor Memory) of the tcgen05.mma at line MMA (TMEM lanes 0..127, columns "
       "32..39)"},
      {"%r12", "columns [64, 96) include the scale_A of the tcgen05.mma at line MMA (TMEM lanes 0..127, columns 64..67)"},
      {"%r13", "columns [96, 128) include the scale_B of the tcgen05.mma at line MMA (TMEM lanes 0..127, columns 96..96)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reg);
    const std::string free = "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 " + std::string(c.reg) + ", 32;";
    for (bool commit : {true, false}) {
      SCOPED_TRACE(commit ? "committed" : "never committed");
      const std::string ptx = program(kMma, commit, false, free);
      ptxsim::model::GlobalMemory mem;
      Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      const auto [msg, line] = error_of(r);
      EXPECT_EQ(msg, "tcgen05.dealloc: " +
                         replace_all(c.cells, "line MMA", "line " + std::to_string(line_of(ptx, "tcgen05.mma"))) +
                         (commit ? kNotCompleted : kNoCommit) + " before freeing them");
      EXPECT_EQ(line, line_of(ptx, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 " + std::string(c.reg)));
    }
  }
  // With the wait on the commit's mbarrier first, everything is freed cleanly.
  ptxsim::model::GlobalMemory mem;
  Launched ok = launch(program(kMma, true, true, kFreeAll), mem, Params{}, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(ok.result.status, ptxsim::RunStatus::Completed) << ok.all_diagnostics();
  EXPECT_TRUE(ok.result.diagnostics.empty()) << ok.all_diagnostics();
}

// tcgen05.cp writes its destination and tcgen05.shift moves rows, asynchronously like the MMA.
TEST(Tcgen05Lifetime, DeallocUnderAnInFlightCopyOrShiftIsAFault) {
  struct Case {
    const char* op;
    const char* cells;
  } cases[] = {
      {"  tcgen05.cp.cta_group::1.128x256b [%r10], %rd11;",
       "the destination of the tcgen05.cp at line OP (TMEM lanes 0..127, columns 0..7)"},
      {"  tcgen05.shift.cta_group::1.down [%r10];", "the rows moved by the tcgen05.shift at line OP (TMEM lanes 0..31, columns 0..7)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    const std::string free = "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;";
    const std::string ptx = program(c.op, true, false, free);
    ptxsim::model::GlobalMemory mem;
    Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    const std::string opcode = std::string(c.op).substr(2, std::string(c.op).find(' ', 2) - 2);
    const auto [msg, line] = error_of(r);
    EXPECT_EQ(msg, "tcgen05.dealloc: columns [0, 32) include " +
                       replace_all(c.cells, "line OP", "line " + std::to_string(line_of(ptx, opcode))) + kNotCompleted +
                       " before freeing them");
    EXPECT_EQ(line, line_of(ptx, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10"));
    ptxsim::model::GlobalMemory mem2;
    Launched ok = launch(program(c.op, true, true, kFreeAll), mem2, Params{}, {1, 1, 1}, {32, 1, 1});
    ASSERT_EQ(ok.result.status, ptxsim::RunStatus::Completed) << ok.all_diagnostics();
    EXPECT_TRUE(ok.result.diagnostics.empty()) << ok.all_diagnostics();
  }
}

// A CTA that exits while an operation on its Tensor Memory is in flight: a fault naming the
// operation (reported before the allocations still live, its consequence).
TEST(Tcgen05Lifetime, ExitingWithAnOperationInFlightIsAFault) {
  for (bool commit : {true, false}) {
    SCOPED_TRACE(commit ? "committed" : "never committed");
    const std::string ptx = program(kMma, commit, false, "");
    ptxsim::model::GlobalMemory mem;
    Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    EXPECT_EQ(error_of(r).first, "CTA (0,0,0) exits while Tensor Memory holds the D of the tcgen05.mma at line " +
                                     std::to_string(line_of(ptx, "tcgen05.mma")) +
                                     " (TMEM lanes 0..127, columns 0..31)" + (commit ? kNotCompleted : kNoCommit) +
                                     " before exiting");
  }
  // Waited for but not freed: the leak report, as before.
  ptxsim::model::GlobalMemory mem;
  const std::string ptx = program(kMma, true, true, "");
  Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  const uint32_t alloc = line_of(ptx, "tcgen05.alloc");
  std::string want = "CTA (0,0,0) exits with Tensor Memory still allocated: ";
  for (uint32_t i = 0; i < 4; ++i)
    want += (i ? ", " : "") + std::string("columns [") + std::to_string(32 * i) + ", " + std::to_string(32 * i + 32) +
            ") from the tcgen05.alloc at line " + std::to_string(alloc + i);
  EXPECT_EQ(error_of(r).first, want + " (every allocation must be freed with tcgen05.dealloc before the kernel exits)");
}

namespace {
// A cluster of two CTAs, one warp each: a pair allocation of 64 columns, then CTA 0's thread 0 issues
// an f16 MMA over the pair (M = 256, N = 64: each CTA holds 128 rows of D, columns 0..63) and
// commits it to `bar` in both CTAs; then PEER_EXIT, WAIT and the pair's dealloc.
const char* kPairBody = R"(
  mov.u32 %r26, bar;
  mov.u32 %r20, sa;
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$init_done:
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20], 64;
  ld.shared.u32 %r10, [%r20];
  fence.proxy.async.shared::cta;  // the alloc wrote its slot in A's buffer
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.u32 %r21, sb;
  and.b32 %r22, %r21, 0x3ffff;
  shr.u32 %r22, %r22, 4;
  cvt.u64.u32 %rd11, %r22;
  or.b64 %rd11, %rd11, 0x0000400800080000;
  mov.u32 %r23, sa;
  and.b32 %r22, %r23, 0x3ffff;
  shr.u32 %r22, %r22, 4;
  cvt.u64.u32 %rd10, %r22;
  or.b64 %rd10, %rd10, 0x0000400800080000;
  or.b32 %r24, %r0, %r1;
  setp.ne.u32 %p6, %r24, 0;
  @%p6 bra $issued;
  setp.ne.u32 %p2, %r0, 0;
  tcgen05.mma.cta_group::2.kind::f16 [%r10], %rd10, %rd11, 0x10100010, %p2;
  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r26], 3;
$issued:
PEER_EXIT
WAIT
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r10, 64;
$end:
)";

}  // namespace

// .cta_group::2: the collective dealloc checks both CTAs of the pair (CTA 1's TMEM holds its half of
// D of the MMA CTA 0 issued).
TEST(Tcgen05Lifetime, PairDeallocUnderAnInFlightPairMmaIsAFault) {
  for (bool wait : {false, true}) {
    SCOPED_TRACE(wait ? "waited" : "not waited");
    const std::string ptx = module(replace_all(replace_all(kPairBody, "WAIT", wait ? kWait : ""), "PEER_EXIT", ""));
    ptxsim::model::GlobalMemory mem;
    Launched r = launch(ptx, mem, Params{}, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
    if (wait) {
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
      continue;
    }
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    const auto [msg, line] = error_of(r);
    EXPECT_EQ(msg, "tcgen05.dealloc.cta_group::2: in CTA rank 0: columns [0, 64) include the D of the tcgen05.mma at line " +
                       std::to_string(line_of(ptx, "tcgen05.mma")) + " (TMEM lanes 0..127, columns 0..63)" +
                       kNotCompleted + " before freeing them");
    EXPECT_EQ(line, line_of(ptx, "tcgen05.dealloc"));
  }
}

// CTA 1 of the pair exits (after a cluster barrier that CTA 0 reaches once it issued the MMA) while the
// MMA CTA 0 issued still writes CTA 1's half of D: a fault at CTA 1's exit.
TEST(Tcgen05Lifetime, APeerCtaExitingUnderThePairMmaIsAFault) {
  const char* exit_peer = R"(
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra $end;)";
  const std::string ptx = module(replace_all(replace_all(kPairBody, "WAIT", kWait), "PEER_EXIT", exit_peer));
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(ptx, mem, Params{}, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_EQ(error_of(r).first, "CTA (1,0,0) exits while Tensor Memory holds the D of the tcgen05.mma at line " +
                                   std::to_string(line_of(ptx, "tcgen05.mma")) + " (TMEM lanes 0..127, columns 0..63)" +
                                   kNotCompleted + " before exiting");
}
