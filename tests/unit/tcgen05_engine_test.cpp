// tcgen05 through the engine: allocation (blocking, relinquish, leaks, nCols), tcgen05.ld/st for
// every shape, .num and packing against an independent cell map, the lane-quarter rule, the
// ld-before-wait and D-before-commit hazards, and tcgen05.mma for each simulated kind, M, operand
// layout and A source against an exact CPU reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <random>

#include "model/tcgen05/descriptors.h"
#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

std::string module(const std::string& body, const std::string& params = "", const std::string& target = "sm_100a") {
  return ".version 8.7\n.target " + target + "\n.address_size 64\n.visible .entry k(" + params +
         ")\n{\n  .shared .align 1024 .b8 sa[16384];\n  .shared .align 1024 .b8 sb[16384];\n"
         "  .shared .align 8 .b64 bar;\n  .shared .align 4 .b32 tslot;\n"
         "  .reg .b32 %r<300>;\n  .reg .b64 %rd<40>;\n  .reg .pred %p<8>;\n"
         "  mov.u32 %r0, %tid.x;\n  shr.u32 %r1, %r0, 5;\n  and.b32 %r2, %r0, 31;\n" +
         body + "\n  ret;\n}\n";
}

const ptxsim::Diagnostic* first_error(const Launched& r) {
  for (const auto& d : r.result.diagnostics)
    if (d.severity == ptxsim::Diagnostic::Severity::Error) return &d;
  return nullptr;
}

uint32_t line_of(const std::string& ptx, const std::string& needle) {
  size_t at = ptx.find(needle);
  if (at == std::string::npos) return 0;
  return uint32_t(std::count(ptx.begin(), ptx.begin() + long(at), '\n') + 1);
}

// Warp 0 allocates ALLOC columns and publishes the address in %r10 for every thread.
const char* kAlloc = R"(
  setp.ne.u32 %p7, %r1, 0;
  @%p7 bra $after_alloc;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], ALLOC;
$after_alloc:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [tslot];
)";
const char* kDealloc = R"(
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p7 bra $after_dealloc;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, ALLOC;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
$after_dealloc:
)";

std::string with_alloc(const std::string& body, uint32_t cols) {
  return replace_all(std::string(kAlloc) + body + kDealloc, "ALLOC", std::to_string(cols));
}

}  // namespace

// ---- allocation ------------------------------------------------------------------------------------

TEST(Tcgen05Alloc, WritesTheAddressAndFreesCleanly) {
  ptxsim::model::GlobalMemory mem;
  uint64_t out = alloc(mem, 4, "out");
  std::string ptx = module(with_alloc(R"(
  ld.param.u64 %rd1, [out];
  setp.eq.u32 %p1, %r0, 0;
  @%p1 st.global.u32 [%rd1], %r10;
)", 128), ".param .u64 out");
  Params p;
  p.add(out);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {128, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  uint32_t v;
  mem.read(out, &v, 4);
  EXPECT_EQ(v, 0u);  // lane 0, column 0
}

TEST(Tcgen05Alloc, BlocksUntilAnotherWarpDeallocates) {
  // Warp 0 takes all 512 columns; warp 1's alloc of 32 must wait for warp 0's dealloc.
  ptxsim::model::GlobalMemory mem;
  uint64_t out = alloc(mem, 8, "out");
  std::string ptx = module(R"(
  ld.param.u64 %rd1, [out];
  mov.u32 %r20, sa;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra $w1;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 512;
  bar.sync 1, 64;
  ld.shared.u32 %r21, [%r20];
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r21, 512;
  bra $done;
$w1:
  bar.sync 1, 64;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+4], 32;
  ld.shared.u32 %r21, [%r20+4];
  setp.eq.u32 %p2, %r2, 0;
  @%p2 st.global.u32 [%rd1], %r21;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r21, 32;
$done:
)", ".param .u64 out");
  Params p;
  p.add(out);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  uint32_t v;
  mem.read(out, &v, 4);
  EXPECT_EQ(v, 0u);
}

TEST(Tcgen05Alloc, FullTensorMemoryWithNoDeallocIsADeadlock) {
  ptxsim::model::GlobalMemory mem;
  std::string ptx = module(R"(
  mov.u32 %r20, sa;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 512;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+4], 32;
)");
  Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
  EXPECT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
}

TEST(Tcgen05Alloc, BrokenRulesAreFaultsAtTheInstruction) {
  struct Case {
    const char* body;
    const char* needle;  // the faulting line
    const char* message;
  } cases[] = {
      {"  mov.u32 %r20, sa;\n  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
       "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 32;\n",
       "tcgen05.alloc", "alloc after tcgen05.relinquish_alloc_permit"},
      {"  mov.u32 %r20, sa;\n  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 96;\n", "tcgen05.alloc",
       "nCols = 96 is not a power of two from 32 to 512"},
      {"  mov.u32 %r20, sa;\n  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 64;\n"
       "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 0, 32;\n",
       "tcgen05.dealloc", "are not one live allocation; live: [0, 64)"},
      {"  mov.u32 %r20, sa;\n  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 64;\n  exit;\n", "exit",
       "exits with Tensor Memory still allocated: columns [0, 64) from the tcgen05.alloc at line"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.message);
    ptxsim::model::GlobalMemory mem;
    std::string ptx = module(k.body);
    Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    const auto* d = first_error(r);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find(k.message), std::string::npos) << d->message;
    EXPECT_EQ(d->loc.line, line_of(ptx, k.needle)) << d->message;
  }
}

TEST(Tcgen05Alloc, TargetsAndQualifiersAreCheckedAtLoad) {
  const std::string body = "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n";
  for (const char* t : {"sm_100a", "sm_100f", "sm_103a"}) EXPECT_NO_THROW(ptxsim::load_program(module(body, "", t), "t.ptx")) << t;
  for (const char* t : {"sm_90a", "sm_100", "sm_120a"}) {
    try {
      ptxsim::load_program(module(body, "", t), "t.ptx");
      ADD_FAILURE() << t;
    } catch (const ptxsim::PtxError& e) {
      EXPECT_NE(std::string(e.what()).find("Instruction 'tcgen05.relinquish_alloc_permit' not supported on .target"),
                std::string::npos)
          << e.what();
    }
  }
  const std::string i8 = "  tcgen05.mma.cta_group::1.kind::i8 [%r3], %rd1, %rd2, %r6, %p1;\n";
  EXPECT_NO_THROW(ptxsim::load_program(module(i8, "", "sm_100a"), "t.ptx"));
  EXPECT_THROW(ptxsim::load_program(module(i8, "", "sm_100f"), "t.ptx"), ptxsim::PtxError);
  EXPECT_THROW(ptxsim::load_program(module(i8, "", "sm_103a"), "t.ptx"), ptxsim::PtxError);
  // Sparse block-scaled: [sp-meta-tmem] between b-desc and idesc, then the scale-factor addresses.
  EXPECT_NO_THROW(ptxsim::load_program(
      module("  tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale [%r3], %rd1, %rd2, [%r4], %r6, [%r4], [%r4], %p1;\n"),
      "t.ptx"));
}

// ---- tcgen05.ld / tcgen05.st -----------------------------------------------------------------------

namespace {

enum Shape { k32x32b, k16x64b, k16x128b, k16x256b, k16x32bx2 };
const char* kShapeNames[] = {"32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"};

// The cell (lane, column) register j of thread t moves, from the shapes' figures in PTX 9.7.16.2.3
// (restated in shared/reference/ptx-facts.md §5.3).
std::pair<uint32_t, uint32_t> ref_cell(Shape s, uint32_t t, uint32_t j, uint32_t split) {
  switch (s) {
    case k32x32b: return {t, j};
    case k16x64b: return {t / 4 + (t % 2 ? 8 : 0), ((t / 2) & 1) + 2 * j};
    case k16x128b: return {t / 4 + (j % 2 ? 8 : 0), t % 4 + 4 * (j / 2)};
    case k16x256b: return {t / 4 + ((j / 2) % 2 ? 8 : 0), 2 * (t % 4) + j % 2 + 8 * (j / 4)};
    case k16x32bx2: return {t % 16, j + (t >= 16 ? split : 0)};
  }
  return {};
}
uint32_t ref_regs(Shape s, uint32_t num) { return num * (s == k16x128b ? 2 : s == k16x256b ? 4 : 1); }
uint32_t ref_cols(Shape s, uint32_t num, uint32_t split) {
  return s == k32x32b ? num : s == k16x64b ? 2 * num : s == k16x128b ? 4 * num : s == k16x256b ? 8 * num : num + split;
}

std::string reg_list(uint32_t first, uint32_t n) {
  std::string s = "{";
  for (uint32_t i = 0; i < n; ++i) s += (i ? ", %r" : "%r") + std::to_string(first + i);
  return s + "}";
}

}  // namespace

TEST(Tcgen05LdSt, EveryShapeNumAndPackingAgainstTheCellMap) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int runs = 0;
  for (Shape s : {k32x32b, k16x64b, k16x128b, k16x256b, k16x32bx2})
    for (uint32_t num = 1; num <= 128; num *= 2)
      for (int pack = 0; pack < 2; ++pack) {
        const uint32_t regs = ref_regs(s, num);
        if (regs > 128) continue;
        // Every combination with the largest .num; the rest on a random third, to stay fast.
        if (num != 128 && ref_regs(s, num * 2) <= 128 && rng() % 3 != 0) continue;
        uint32_t split = s == k16x32bx2 ? num + uint32_t(rng() % 4) : 0;
        if (ref_cols(s, num, split) * (pack ? 2 : 1) > 512) split = num;
        const uint32_t span = ref_cols(s, num, split) * (pack ? 2 : 1);
        const uint32_t lane0 = s == k32x32b ? 0 : 16 * uint32_t(rng() % 2);
        const uint32_t col0 = span + 5 <= 512 ? 5 : 512 - span;
        const uint32_t salt = uint32_t(rng());
        SCOPED_TRACE(std::string(kShapeNames[s]) + ".x" + std::to_string(num) + (pack ? " packed" : "") + " lane " +
                     std::to_string(lane0) + " column " + std::to_string(col0));
        const std::string sh = std::string(".") + kShapeNames[s] + ".x" + std::to_string(num);
        const std::string split_op = s == k16x32bx2 ? ", " + std::to_string(split) : "";
        std::string body = R"(
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [dump];
  ld.param.u32 %r30, [salt];
  mad.lo.u32 %r30, %r0, 65537, %r30;
  add.u32 %r11, %r10, TADDR;
)";
        for (uint32_t i = 0; i < regs; ++i)
          body += "  add.u32 %r" + std::to_string(100 + i) + ", %r30, " + std::to_string(i * 0x01000193u) + ";\n";
        body += "  tcgen05.st.sync.aligned" + sh + (pack ? ".unpack::16b" : "") + ".b32 [%r11]" + split_op + ", " +
                reg_list(100, regs) + ";\n  tcgen05.wait::st.sync.aligned;\n";
        for (uint32_t i = 0; i < regs; ++i) body += "  mov.u32 %r" + std::to_string(100 + i) + ", 0;\n";
        body += "  tcgen05.ld.sync.aligned" + sh + (pack ? ".pack::16b" : "") + ".b32 " + reg_list(100, regs) + ", [%r11]" +
                split_op + ";\n  tcgen05.wait::ld.sync.aligned;\n";
        body += "  mul.wide.u32 %rd3, %r0, " + std::to_string(4 * regs) + ";\n  add.u64 %rd3, %rd1, %rd3;\n";
        for (uint32_t i = 0; i < regs; ++i)
          body += "  st.global.u32 [%rd3+" + std::to_string(4 * i) + "], %r" + std::to_string(100 + i) + ";\n";
        // Dump columns col0 .. col0+span-1 of lanes 0..31 with 32x32b.x1.
        body += R"(
  mov.u32 %r40, 0;
$dump:
  add.u32 %r41, %r10, COL0;
  add.u32 %r41, %r41, %r40;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r42}, [%r41];
  tcgen05.wait::ld.sync.aligned;
  mad.lo.u32 %r43, %r40, 32, %r0;
  mul.wide.u32 %rd4, %r43, 4;
  add.u64 %rd4, %rd2, %rd4;
  st.global.u32 [%rd4], %r42;
  add.u32 %r40, %r40, 1;
  setp.lt.u32 %p1, %r40, SPAN;
  @%p1 bra $dump;
)";
        body = replace_all(body, "TADDR", std::to_string((lane0 << 16) | col0));
        body = replace_all(body, "COL0", std::to_string(col0));
        body = replace_all(body, "SPAN", std::to_string(span));
        const std::string ptx = module(with_alloc(body, 512), ".param .u64 out, .param .u64 dump, .param .u32 salt");
        ptxsim::model::GlobalMemory mem;
        const uint64_t out = alloc(mem, size_t(32) * regs * 4, "out"), dump = alloc(mem, size_t(32) * span * 4, "dump");
        Params p;
        p.add(out).add(dump).add(salt);
        Launched r = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1});
        ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
        EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
        std::vector<uint32_t> o(size_t(32) * regs), d(size_t(32) * span);
        mem.read(out, o.data(), o.size() * 4);
        mem.read(dump, d.data(), d.size() * 4);
        auto value = [&](uint32_t t, uint32_t i) { return t * 65537u + salt + i * 0x01000193u; };
        std::vector<uint32_t> expect_dump(d.size(), 0);  // Tensor Memory starts zeroed in ptxsim
        for (uint32_t t = 0; t < 32; ++t)
          for (uint32_t i = 0; i < regs; ++i) {
            const uint32_t v = value(t, i);
            auto [ln, cl] = ref_cell(s, t, i, split);
            const uint32_t lane = lane0 + ln;
            if (pack) {
              expect_dump[size_t(2 * cl) * 32 + lane] = v & 0xffff;
              expect_dump[size_t(2 * cl + 1) * 32 + lane] = v >> 16;
            } else {
              expect_dump[size_t(cl) * 32 + lane] = v;
            }
            ASSERT_EQ(o[size_t(t) * regs + i], v) << "round trip, thread " << t << " register " << i;
          }
        for (size_t k = 0; k < d.size(); ++k)
          ASSERT_EQ(d[k], expect_dump[k]) << "cell lane " << k % 32 << " column " << col0 + k / 32;
        ++runs;
      }
  EXPECT_GT(runs, 10);
}

TEST(Tcgen05LdSt, AWarpMayTouchOnlyItsLaneQuarter) {
  // Warp 1 reads lanes 0..31, which belong to warp 0 (warp % 4 == 0).
  ptxsim::model::GlobalMemory mem;
  const std::string ptx = module(with_alloc(R"(
  setp.eq.u32 %p1, %r1, 1;
  @!%p1 bra $skip;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r20}, [%r10];
  tcgen05.wait::ld.sync.aligned;
$skip:
)", 32));
  Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  const auto* d = first_error(r);
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("tcgen05.ld: warp 1 (warp 1 of its warpgroup) may access only TMEM lanes 32..63, but .32x32b at "
                            "lane 0, column 0 (0x00000000) touches lanes 0..31"),
            std::string::npos)
      << d->message;
  EXPECT_EQ(d->loc.line, line_of(ptx, "tcgen05.ld"));
}

TEST(Tcgen05LdSt, UnallocatedColumnsAreAFault) {
  ptxsim::model::GlobalMemory mem;
  const std::string ptx = module(with_alloc(R"(
  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r10+31], {%r0, %r0};
)", 32));
  Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_NE(first_error(r)->message.find("tcgen05.st: columns 31..32 are not allocated"), std::string::npos)
      << first_error(r)->message;
}

TEST(Tcgen05LdSt, ALoadedRegisterMayBeReadBeforeTheWaitButAStoreOverItsCellsIsAHazard) {
  // Reading %r20 before the wait sees the loaded value (a true register dependency); a tcgen05.st
  // to the cells of a load not yet waited for is the anti-dependency the wait exists for.
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    ptxsim::model::GlobalMemory mem;
    const uint64_t out = mem.allocate(32 * 4);
    const std::string store = variant == 0   ? ""
                              : variant == 1 ? "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r10+1], {%r0};\n"
                                             : "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r10+2], {%r0};\n";
    const std::string ptx = module(with_alloc(R"(
  mov.u32 %r30, %tid.x;
  add.u32 %r31, %r30, 7;
  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r10], {%r30, %r31};
  tcgen05.wait::st.sync.aligned;
  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r20, %r22}, [%r10];
  add.u32 %r21, %r20, %r22;
STORE  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r30, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r21;
)", 32), ".param .u64 out");
    const std::string text = replace_all(ptx, "STORE", store);
    Params p;
    p.add(out);
    Launched r = launch(text, mem, p, {1, 1, 1}, {32, 1, 1});
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    std::vector<uint32_t> got(32);
    mem.read(out, got.data(), 128);
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], 2 * t + 7) << "thread " << t;
    if (variant != 1) {
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      continue;
    }
    ASSERT_EQ(r.warning_count(), 1u) << r.all_diagnostics();
    const auto& d = r.result.diagnostics[0];
    EXPECT_EQ(d.message, "tcgen05 hazard: tcgen05.st writes TMEM lanes 0..31, columns 1..1 that the tcgen05.ld at line " +
                             std::to_string(line_of(text, "tcgen05.ld")) +
                             " of this warp reads, with no tcgen05.wait::ld between them (the load may see the store)");
    EXPECT_EQ(d.loc.line, line_of(text, "tcgen05.st.sync.aligned.32x32b.x1"));
  }
}

// ---- tcgen05.mma -----------------------------------------------------------------------------------

namespace {

// 128 threads. Shared images of A (sa) and B (sb) come from global; warp 0 allocates 512 columns;
// with A in TMEM each warp stores its lane quarter of A (8 columns) at column 256. Thread 0 issues
// STEPS MMAs (the first with enable-input-d false, so the poisoned D is overwritten; the next
// accumulate), commits them to `bar`; everybody waits, and each warp dumps its 32 lanes x N
// columns of D.
const char* kGemm = R"(
  ld.param.u64 %rd1, [ga];
  ld.param.u64 %rd2, [gb];
  ld.param.u64 %rd3, [gd];
  mov.u32 %r20, sa;
  mov.u32 %r21, sb;
  mov.u32 %r22, %r0;
$copy:
  mul.wide.u32 %rd4, %r22, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.u32 %r23, [%rd5];
  shl.b32 %r24, %r22, 2;
  add.u32 %r25, %r20, %r24;
  st.shared.u32 [%r25], %r23;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.u32 %r23, [%rd5];
  add.u32 %r25, %r21, %r24;
  st.shared.u32 [%r25], %r23;
  add.u32 %r22, %r22, 128;
  setp.lt.u32 %p1, %r22, 4096;
  @%p1 bra $copy;
  FENCE
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $noinit;
  mov.u32 %r26, bar;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$noinit:
ALLOC_BLOCK
  shl.b32 %r27, %r1, 21;          // (32 * warp) << 16
  add.u32 %r28, %r10, %r27;       // this warp's lane quarter, column 0
  // Poison D: every cell of the quarter's N columns.
  mov.u32 %r29, 0;
$poison:
  add.u32 %r31, %r28, %r29;
  mov.u32 %r32, 0x7fbadbad;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r31], {%r32};
  add.u32 %r29, %r29, 1;
  setp.lt.u32 %p1, %r29, NCOLS;
  @%p1 bra $poison;
ATMEM_STORE
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p6 bra $wait;
  ld.param.u64 %rd10, [ad0];
  ld.param.u64 %rd11, [ad1];
  ld.param.u64 %rd12, [bd0];
  ld.param.u64 %rd13, [bd1];
  ld.param.u32 %r33, [idesc];
  ld.param.u32 %r34, [steps];
  and.b32 %r35, %r20, 0x3ffff;
  shr.u32 %r35, %r35, 4;
  cvt.u64.u32 %rd14, %r35;
  and.b32 %r36, %r21, 0x3ffff;
  shr.u32 %r36, %r36, 4;
  cvt.u64.u32 %rd15, %r36;
  add.u64 %rd10, %rd10, %rd14;
  add.u64 %rd11, %rd11, %rd14;
  add.u64 %rd12, %rd12, %rd15;
  add.u64 %rd13, %rd13, %rd15;
  add.u32 %r37, %r10, 256;
  setp.ne.u32 %p2, %r0, 0;        // false: the first MMA ignores D
  tcgen05.mma.cta_group::1.KIND [%r10], A0, %rd12, %r33, %p2;
  setp.lt.u32 %p3, %r34, 2;
  @%p3 bra $commit;
  setp.eq.u32 %p4, %r0, 0;        // true: accumulate
  tcgen05.mma.cta_group::1.KIND [%r10], A1, %rd13, %r33, %p4;
$commit:
  mov.u32 %r26, bar;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];
$wait:
  mov.u32 %r26, bar;
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;
  @!%p5 bra $wait;
  tcgen05.fence::after_thread_sync;
  mov.u32 %r29, 0;
$dump:
  add.u32 %r31, %r28, %r29;
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, [%r31];
  tcgen05.wait::ld.sync.aligned;
  mad.lo.u32 %r48, %r0, NCOLS, %r29;
  mul.wide.u32 %rd6, %r48, 4;
  add.u64 %rd6, %rd3, %rd6;
  st.global.v4.u32 [%rd6], {%r40, %r41, %r42, %r43};
  st.global.v4.u32 [%rd6+16], {%r44, %r45, %r46, %r47};
  add.u32 %r29, %r29, 8;
  setp.lt.u32 %p1, %r29, NCOLS;
  @%p1 bra $dump;
DEALLOC_BLOCK
)";

// Warp w stores lanes 32w..32w+31 of A's 8 TMEM columns (from gat: lane-major, 8 words a lane).
const char* kATmemStore = R"(
  ld.param.u64 %rd7, [gat];
  mul.wide.u32 %rd8, %r0, 32;
  add.u64 %rd7, %rd7, %rd8;
  ld.global.v4.u32 {%r50, %r51, %r52, %r53}, [%rd7];
  ld.global.v4.u32 {%r54, %r55, %r56, %r57}, [%rd7+16];
  add.u32 %r58, %r28, 256;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r58], {%r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57};
)";

enum class Layout { KNone, K128B, MNNone, MN128B };
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::KNone: return "K-major/none";
    case Layout::K128B: return "K-major/128B";
    case Layout::MNNone: return "MN-major/none";
    case Layout::MN128B: return "MN-major/128B";
  }
  return "?";
}

struct Operand {
  uint32_t rows = 0, ktot = 0, bytes = 0;  // R x Ktot elements of `bytes`
  Layout layout = Layout::KNone;
  // Byte offset of element (r, k) in the image (before the swizzle) and the descriptor's LBO/SBO,
  // following the canonical layouts of PTX 9.7.16.3 (one 1024-aligned buffer per operand).
  uint32_t lbo() const {
    switch (layout) {
      case Layout::KNone: return 128;                                // next core matrix along K
      case Layout::K128B: return 16;                                 // unused
      case Layout::MNNone: return rows * bytes / 16 * 128;           // next 8 K values
      case Layout::MN128B: return ktot / 8 * 1024;                   // next 128 bytes of MN
    }
    return 0;
  }
  uint32_t sbo() const {
    switch (layout) {
      case Layout::KNone: return ktot * bytes / 16 * 128;            // next 8 rows
      case Layout::K128B: return 1024;                               // next 8 rows
      case Layout::MNNone: return 128;                               // next 16 bytes of MN
      case Layout::MN128B: return 1024;                              // next 8 K values
    }
    return 0;
  }
  uint32_t offset(uint32_t r, uint32_t k) const {
    const uint32_t rb = r * bytes, kb = k * bytes;
    switch (layout) {
      case Layout::KNone: return (r / 8) * sbo() + (kb / 16) * lbo() + (r % 8) * 16 + kb % 16;
      case Layout::K128B: return ref_swizzle(tmap::Swizzle::k128B, (r / 8) * 1024 + (r % 8) * 128 + kb);
      case Layout::MNNone: return (rb / 16) * sbo() + (k / 8) * lbo() + (k % 8) * 16 + rb % 16;
      case Layout::MN128B: return ref_swizzle(tmap::Swizzle::k128B, (rb / 128) * lbo() + (k / 8) * 1024 + (k % 8) * 128 + rb % 128);
    }
    return 0;
  }
  // Start offset of MMA step s (K elements per step = kstep).
  uint32_t step_offset(uint32_t s, uint32_t kstep) const {
    switch (layout) {
      case Layout::KNone: return s * kstep * bytes / 16 * lbo();
      case Layout::K128B: return s * kstep * bytes;
      case Layout::MNNone: return s * kstep / 8 * lbo();
      case Layout::MN128B: return s * kstep / 8 * sbo();
    }
    return 0;
  }
  uint64_t desc(uint32_t s, uint32_t kstep) const {
    const uint64_t sw = layout == Layout::K128B || layout == Layout::MN128B ? 2 : 0;
    return uint64_t(step_offset(s, kstep) >> 4) | uint64_t(lbo() >> 4) << 16 | uint64_t(sbo() >> 4) << 32 | 1ull << 46 |
           sw << 61;
  }
  bool mn_major() const { return layout == Layout::MNNone || layout == Layout::MN128B; }
};

enum class Elem { F16, BF16, TF32, E4M3, E2M1, S8, U8 };
uint32_t elem_bytes(Elem e) { return e == Elem::F16 || e == Elem::BF16 ? 2 : e == Elem::TF32 ? 4 : 1; }

// Bits of a small integer value v in each format (written out from the formats' definitions).
uint32_t encode(Elem e, int v) {
  const uint32_t neg = v < 0;
  const uint32_t a = uint32_t(std::abs(v));
  switch (e) {
    case Elem::F16: {
      static const uint16_t t[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400};
      return t[a] | neg << 15;
    }
    case Elem::BF16: return std::bit_cast<uint32_t>(float(v)) >> 16;
    case Elem::TF32: return std::bit_cast<uint32_t>(float(v));
    case Elem::E4M3: {
      static const uint8_t t[] = {0x00, 0x38, 0x40, 0x44, 0x48};
      return t[a] | neg << 7;
    }
    case Elem::E2M1: {
      static const uint8_t t[] = {0x0, 0x2, 0x4, 0x5, 0x6};
      return t[a] | neg << 3;
    }
    case Elem::S8:
    case Elem::U8: return uint32_t(v) & 0xff;
  }
  return 0;
}

double f16_value(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return h >> 15 ? -v : v;
}

struct GemmCase {
  std::string kind;            // "kind::f16"
  Elem a, b;
  uint32_t a_code, b_code, d_code;  // idesc format fields
  uint32_t M, N;
  Layout la, lb;
  bool a_tmem = false;
  uint32_t steps = 2;
  bool negate_a = false;
  // Optional: the first MMA accumulates into D preset to 8.0 scaled by 2^-scale (scale >= 0), and
  // leaves the lanes set in `disable` (disable-output-lane) untouched.
  int scale = -1;
  uint32_t disable[4] = {0, 0, 0, 0};
};

void run_gemm(const GemmCase& g, uint64_t seed) {
  SCOPED_TRACE(g.kind + " M=" + std::to_string(g.M) + " N=" + std::to_string(g.N) + " A " +
               (g.a_tmem ? "in TMEM" : layout_name(g.la)) + " B " + layout_name(g.lb) + " steps " +
               std::to_string(g.steps) + (g.negate_a ? " negate A" : "") + " seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const bool i8 = g.a == Elem::S8 || g.a == Elem::U8;
  const uint32_t kstep = 32 / elem_bytes(g.a), ktot = kstep * g.steps;
  auto draw = [&](Elem e) { return e == Elem::S8 ? int(int8_t(rng())) : e == Elem::U8 ? int(uint8_t(rng())) : int(rng() % 9) - 4; };
  std::vector<int> A(size_t(g.M) * ktot), B(size_t(ktot) * g.N);
  for (int& x : A) x = draw(g.a);
  for (int& x : B) x = draw(g.b);
  Operand oa{g.M, ktot, elem_bytes(g.a), g.la}, ob{g.N, ktot, elem_bytes(g.b), g.lb};
  std::vector<uint8_t> ia(16384, 0), ib(16384, 0);
  auto put = [](std::vector<uint8_t>& img, uint32_t off, uint32_t bits, uint32_t n) {
    ASSERT_LE(off + n, img.size());
    for (uint32_t i = 0; i < n; ++i) img[off + i] = uint8_t(bits >> (8 * i));
  };
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t k = 0; k < ktot; ++k) put(ia, oa.offset(m, k), encode(g.a, A[m * ktot + k]), oa.bytes);
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t k = 0; k < ktot; ++k) {
      if (g.b == Elem::E2M1) {
        // 4-bit elements sit packed in the first 8 bytes of their 16-byte chunk: slot s of the chunk
        // (the byte position a one-byte element would have) is nibble s (PTX figure 202).
        const uint32_t off = ob.offset(n, k), slot = off % 16;
        ib[(off & ~15u) + slot / 2] |= uint8_t(encode(g.b, B[k * g.N + n]) << (4 * (slot % 2)));
        continue;
      }
      put(ib, ob.offset(n, k), encode(g.b, B[k * g.N + n]), ob.bytes);
    }
  // A in TMEM: lane of row m as for D, K packed little-endian into 8 columns.
  std::vector<uint32_t> at(128 * 8, 0);
  auto lane_of = [&](uint32_t m) { return g.M == 64 ? (m % 16) + 32 * (m / 16) : m; };
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t k = 0; k < kstep; ++k) {
      const uint32_t byte = k * oa.bytes;
      at[lane_of(m) * 8 + byte / 4] |= encode(g.a, A[m * ktot + k]) << (8 * (byte % 4));
    }
  const uint32_t idesc = g.d_code << 4 | g.a_code << 7 | g.b_code << 10 | uint32_t(g.negate_a) << 13 |
                         uint32_t(oa.mn_major() && !g.a_tmem) << 15 | uint32_t(ob.mn_major()) << 16 | (g.N >> 3) << 17 |
                         (g.M >> 4) << 24;

  std::string body = replace_all(kGemm, "DEALLOC_BLOCK", replace_all(kDealloc, "ALLOC", "512"));
  body = replace_all(body, "ALLOC_BLOCK", replace_all(kAlloc, "ALLOC", "512"));
  body = replace_all(body, "ATMEM_STORE", g.a_tmem ? kATmemStore : "");
  body = replace_all(body, "FENCE", "fence.proxy.async.shared::cta;");
  body = replace_all(body, "KIND", g.kind);
  body = replace_all(body, "A0", g.a_tmem ? "[%r37]" : "%rd10");
  body = replace_all(body, "A1", g.a_tmem ? "[%r37]" : "%rd11");
  body = replace_all(body, "NCOLS", std::to_string(g.N));
  const bool preset = g.scale >= 0;
  if (preset) {
    body = replace_all(body, "0x7fbadbad", "0x41000000");  // D = 8.0 before the MMA
    char mods[160];
    std::snprintf(mods, sizeof mods, "{%u, %u, %u, %u}, %%p4, %d;", g.disable[0], g.disable[1], g.disable[2], g.disable[3],
                  g.scale);
    body = replace_all(body, "%rd12, %r33, %p2;", std::string("%rd12, %r33, ") + mods);
    body = replace_all(body, "  setp.ne.u32 %p2, %r0, 0;        // false: the first MMA ignores D",
                       "  setp.eq.u32 %p4, %r0, 0;");
  }
  const std::string ptx = module(body,
                                 ".param .u64 ga, .param .u64 gb, .param .u64 gd, .param .u64 gat, .param .u64 ad0, "
                                 ".param .u64 ad1, .param .u64 bd0, .param .u64 bd1, .param .u32 idesc, .param .u32 steps");
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = mem.allocate(16384, 256, "A"), gb = mem.allocate(16384, 256, "B"), gat = mem.allocate(4096, 256, "At");
  mem.write(ga, ia.data(), ia.size());
  mem.write(gb, ib.data(), ib.size());
  mem.write(gat, at.data(), at.size() * 4);
  const uint64_t gd = alloc(mem, size_t(128) * g.N * 4, "D");
  const uint32_t steps = g.a_tmem ? 1 : g.steps;
  Params p;
  p.add(ga).add(gb).add(gd).add(gat).add(oa.desc(0, kstep)).add(oa.desc(1, kstep)).add(ob.desc(0, kstep))
      .add(ob.desc(1, kstep)).add(idesc).add(steps);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  std::vector<uint32_t> d(size_t(128) * g.N);
  mem.read(gd, d.data(), d.size() * 4);
  const uint32_t kused = steps * kstep;
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t n = 0; n < g.N; ++n) {
      int64_t sum = 0;
      for (uint32_t k = 0; k < kused; ++k) sum += int64_t(A[m * ktot + k]) * (g.negate_a ? -1 : 1) * B[k * g.N + n];
      const uint32_t got = d[size_t(lane_of(m)) * g.N + n];
      if (preset) {
        const uint32_t lane = lane_of(m);
        const double want = (g.disable[lane / 32] >> (lane % 32) & 1) ? 8.0 : double(sum) + std::ldexp(8.0, -g.scale);
        ASSERT_EQ(std::bit_cast<float>(got), float(want)) << "D(" << m << ", " << n << ") lane " << lane;
        continue;
      }
      if (i8) {
        ASSERT_EQ(int32_t(got), int32_t(sum)) << "D(" << m << ", " << n << ")";
      } else if (g.d_code == 0) {
        ASSERT_EQ(got >> 16, 0u) << "D(" << m << ", " << n << ") upper half";
        ASSERT_EQ(f16_value(uint16_t(got)), double(sum)) << "D(" << m << ", " << n << ")";
      } else {
        ASSERT_EQ(std::bit_cast<float>(got), float(sum)) << "D(" << m << ", " << n << ")";
      }
    }
}

}  // namespace

TEST(Tcgen05Mma, EveryKindMAndLayoutAgainstAnExactReference) {
  const uint64_t seed = test_seed();
  const GemmCase cases[] = {
      {"kind::f16", Elem::F16, Elem::F16, 0, 0, 1, 128, 64, Layout::K128B, Layout::K128B},
      {"kind::f16", Elem::F16, Elem::F16, 0, 0, 0, 64, 32, Layout::KNone, Layout::MN128B},
      {"kind::f16", Elem::BF16, Elem::BF16, 1, 1, 1, 64, 128, Layout::MN128B, Layout::KNone},
      {"kind::f16", Elem::BF16, Elem::BF16, 1, 1, 1, 128, 16, Layout::MNNone, Layout::MNNone, false, 2, true},
      {"kind::tf32", Elem::TF32, Elem::TF32, 2, 2, 1, 128, 32, Layout::K128B, Layout::KNone},
      {"kind::tf32", Elem::TF32, Elem::TF32, 2, 2, 1, 64, 8, Layout::KNone, Layout::K128B},
      {"kind::f8f6f4", Elem::E4M3, Elem::E4M3, 0, 0, 1, 128, 24, Layout::K128B, Layout::MN128B},
      {"kind::f8f6f4", Elem::E4M3, Elem::E2M1, 0, 5, 0, 64, 48, Layout::MNNone, Layout::K128B},
      {"kind::i8", Elem::S8, Elem::U8, 1, 0, 2, 128, 32, Layout::KNone, Layout::K128B},
      {"kind::i8", Elem::U8, Elem::S8, 0, 1, 2, 64, 16, Layout::K128B, Layout::MN128B},
      {"kind::f16", Elem::F16, Elem::F16, 0, 0, 1, 128, 64, Layout::KNone, Layout::K128B, true, 1},
      {"kind::f16", Elem::BF16, Elem::BF16, 1, 1, 1, 64, 32, Layout::KNone, Layout::K128B, true, 1},
      {"kind::i8", Elem::S8, Elem::S8, 1, 1, 2, 128, 16, Layout::KNone, Layout::KNone, true, 1},
      // scale-input-d and disable-output-lane (one MMA accumulating into D = 8.0).
      {"kind::f16", Elem::BF16, Elem::BF16, 1, 1, 1, 128, 16, Layout::K128B, Layout::K128B, false, 1, false, 2,
       {0x0000ffffu, 0, 0xffffffffu, 0x80000001u}},
      {"kind::tf32", Elem::TF32, Elem::TF32, 2, 2, 1, 64, 8, Layout::KNone, Layout::KNone, false, 1, false, 0,
       {0, 0x0000ff00u, 0, 0}},
  };
  uint64_t s = seed;
  for (const GemmCase& g : cases) run_gemm(g, s++);
}

// ---- block-scaled MMA ---------------------------------------------------------------------------------

namespace {

// Warp w stores lanes 32w..32w+31 of the 16 columns 256..271 (from gsf: lane-major, 16 words a
// lane): scale_A in columns 256..259, scale_B in 260..267, the sparsity metadata in 268..269.
const char* kScaleStore = R"(
  ld.param.u64 %rd7, [gsf];
  mul.wide.u32 %rd8, %r0, 64;
  add.u64 %rd7, %rd7, %rd8;
  ld.global.v4.u32 {%r50, %r51, %r52, %r53}, [%rd7];
  ld.global.v4.u32 {%r54, %r55, %r56, %r57}, [%rd7+16];
  ld.global.v4.u32 {%r60, %r61, %r62, %r63}, [%rd7+32];
  ld.global.v4.u32 {%r64, %r65, %r66, %r67}, [%rd7+48];
  add.u32 %r58, %r28, 256;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r58], {%r50, %r51, %r52, %r53};
  add.u32 %r58, %r28, 260;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r58], {%r54, %r55, %r56, %r57, %r60, %r61, %r62, %r63};
  add.u32 %r58, %r28, 268;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r58], {%r64, %r65, %r66, %r67};
)";

struct ScaledCase {
  std::string kind;  // e.g. "kind::mxf4nvf4.block_scale.scale_vec::4X"
  bool fp4_pairs;    // mxf4 / mxf4nvf4: two E2M1 per byte
  uint32_t a_code, b_code;  // element codes (f8f6f4 numbering: E4M3 0, E2M1 5; mxf4*: E2M1 1)
  uint32_t nsf;             // scale factors per row / column
  bool ue4m3;
  uint32_t a_id, b_id;      // scale-factor IDs
  uint32_t N;
  Layout la, lb;
  bool sparse = false;  // tcgen05.mma.sp: A 2:4 (mxf4*: 4:8 pair-wise) sparse, metadata at column 268
  // Sparse fault case: the nibble of row bad_row, chunk 0 of the step is 0x5 (undefined),
  // and the MMA must fault with `error`.
  int bad_row = -1;
  std::string error = {};
};

// Values {0, +-0.5, +-1, +-1.5, +-2} (as 2v) in E4M3 or E2M1 bits.
uint32_t encode_half(uint32_t code, bool fp4_pairs, int v2) {
  const uint32_t a = uint32_t(std::abs(v2)), neg = v2 < 0;
  if (fp4_pairs || code == 5) {
    static const uint8_t t[] = {0x0, 0x1, 0x2, 0x3, 0x4};
    return t[a] | neg << 3;
  }
  static const uint8_t t[] = {0x00, 0x30, 0x38, 0x3C, 0x40};
  return t[a] | neg << 7;
}

void run_scaled_gemm(const ScaledCase& g, uint64_t seed) {
  SCOPED_TRACE(g.kind + " N=" + std::to_string(g.N) + " A " + layout_name(g.la) + " B " + layout_name(g.lb) + " seed " +
               std::to_string(seed));
  std::mt19937_64 rng(seed);
  // kel: elements of K one MMA multiplies (doubled by .sp); A stores kel / 2 of them per row when sparse.
  const uint32_t M = 128, steps = 2, kel = (g.fp4_pairs ? 64 : 32) * (g.sparse ? 2 : 1), ktot = kel * steps;
  const uint32_t vec = kel / g.nsf, astored = g.sparse ? ktot / 2 : ktot;
  std::vector<int> A(size_t(M) * ktot), B(size_t(ktot) * g.N);  // 2 * value
  std::vector<int> P(size_t(M) * astored);  // A as stored: packed when sparse
  for (int& x : B) x = int(rng() % 9) - 4;
  // Sparse: per row, chunk c of each step keeps 2 of its 4 elements (mxf4*: 2 of its 4 pairs) at the
  // indices of nibble c, the same for both steps (both MMAs read the one metadata image).
  const uint32_t grp = g.fp4_pairs ? 2 : 1, chunk = 4 * grp, chunks = kel / chunk;
  std::vector<uint32_t> nib(size_t(M) * chunks);
  for (uint32_t m = 0; m < M; ++m) {
    if (!g.sparse) {
      for (uint32_t k = 0; k < ktot; ++k) P[m * ktot + k] = A[m * ktot + k] = int(rng() % 9) - 4;
      continue;
    }
    for (uint32_t c = 0; c < chunks; ++c) {
      static const uint32_t defined[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0x6, 0xE};  // PTX 9.7.16.10.8's list
      nib[m * chunks + c] = defined[rng() % 7];
    }
    for (uint32_t s = 0; s < steps; ++s)
      for (uint32_t c = 0; c < chunks; ++c)
        for (uint32_t h = 0; h < 2; ++h)
          for (uint32_t e = 0; e < grp; ++e) {
            const uint32_t idx = (nib[m * chunks + c] >> (2 * h)) & 3;
            const int v = int(rng() % 9) - 4;
            P[m * astored + s * kel / 2 + c * 2 * grp + h * grp + e] = v;
            A[m * ktot + s * kel + c * chunk + idx * grp + e] = v;
          }
  }
  if (g.bad_row >= 0) nib[size_t(g.bad_row) * chunks] = 0x5;  // index 1 twice
  // Scales: exponent in [-2, 2] (and 1.5x for UE4M3, with a random ignored sign bit), per step.
  std::vector<int> SAe(size_t(M) * g.nsf * steps), SBe(size_t(g.N) * g.nsf * steps);
  std::vector<int> SAh(SAe.size()), SBh(SBe.size());
  for (size_t i = 0; i < SAe.size(); ++i) SAe[i] = int(rng() % 5) - 2, SAh[i] = g.ue4m3 && rng() % 2;
  for (size_t i = 0; i < SBe.size(); ++i) SBe[i] = int(rng() % 5) - 2, SBh[i] = g.ue4m3 && rng() % 2;
  auto scale_bits = [&](int e, int h) -> uint32_t {
    if (!g.ue4m3) return uint32_t(127 + e);
    return uint32_t((e + 7) << 3 | (h ? 4 : 0) | (rng() % 2 ? 0x80 : 0));
  };
  // Shared-memory images in storage units (bytes): an E2M1 pair per byte for mxf4*. A holds 32 units
  // of K per MMA (packed when sparse), B 32 or, sparse, 64.
  const uint32_t ku = 32 * steps, kub = ku * (g.sparse ? 2 : 1);
  Operand oa{M, ku, 1, g.la}, ob{g.N, kub, 1, g.lb};
  std::vector<uint8_t> ia(16384, 0), ib(16384, 0);
  auto unit = [&](const std::vector<int>& X, size_t at, size_t stride, uint32_t code) {
    if (!g.fp4_pairs) return encode_half(code, false, X[at]);
    return encode_half(code, true, X[at]) | encode_half(code, true, X[at + stride]) << 4;
  };
  const uint32_t per = g.fp4_pairs ? 2 : 1;
  // A 4-bit element of kind::mxf8f6f4 is packed: the slot s a byte element would have in its
  // 16-byte chunk is nibble s of the chunk (PTX figure 202).
  auto place = [&](std::vector<uint8_t>& img, uint32_t off, uint32_t bits, uint32_t code) {
    if (!g.fp4_pairs && code == 5) img[(off & ~15u) + (off % 16) / 2] |= uint8_t(bits << (4 * (off % 2)));
    else img[off] = uint8_t(bits);
  };
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t u = 0; u < ku; ++u) {
      ASSERT_LT(oa.offset(m, u), ia.size());
      place(ia, oa.offset(m, u), unit(P, size_t(m) * astored + u * per, 1, g.a_code), g.a_code);
    }
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t u = 0; u < kub; ++u) {
      ASSERT_LT(ob.offset(n, u), ib.size());
      place(ib, ob.offset(n, u), unit(B, size_t(u * per) * g.N + n, g.N, g.b_code), g.b_code);
    }
  // Scale factors in TMEM (both steps use the same cells, so the reference uses step 0's scales
  // for both): row m of A at lane m%32 of every partition, column m/32, byte a_id + j; column n of B
  // likewise in columns 4 + n/32.
  std::vector<uint32_t> sf(128 * 16, 0);
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t i = 0; i < 32; ++i) {
      const uint32_t lane = 32 * r + i;
      for (uint32_t m = i; m < M; m += 32)
        for (uint32_t j = 0; j < g.nsf; ++j)
          sf[lane * 16 + m / 32] |= scale_bits(SAe[m * g.nsf + j], SAh[m * g.nsf + j]) << (8 * (g.a_id + j));
      for (uint32_t n = i; n < g.N; n += 32)
        for (uint32_t j = 0; j < g.nsf; ++j)
          sf[lane * 16 + 4 + n / 32] |= scale_bits(SBe[n * g.nsf + j], SBh[n * g.nsf + j]) << (8 * (g.b_id + j));
    }
  // Metadata (CUTLASS tmem_e_frg, cute/atom/mma_traits_sm100_frag.hpp: lane m, and element k of the
  // MMA's K at bit k of the lane for 8-bit types, at bit k / 2 for fp4, so the nibble of chunk c is
  // bits 4c..4c+3 from the metadata column), at columns 268..269.
  if (g.sparse)
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t c = 0; c < chunks; ++c) sf[m * 16 + 12 + c / 8] |= nib[m * chunks + c] << (4 * (c % 8));
  const uint32_t idesc = uint32_t(g.sparse) << 2 | g.b_id << 4 | g.a_code << 7 | g.b_code << 10 | uint32_t(oa.mn_major()) << 15 |
                         uint32_t(ob.mn_major()) << 16 | (g.N >> 3) << 17 | uint32_t(!g.ue4m3) << 23 | (M >> 7) << 27 |
                         g.a_id << 29;

  std::string body = replace_all(kGemm, "DEALLOC_BLOCK", replace_all(kDealloc, "ALLOC", "512"));
  body = replace_all(body, "ALLOC_BLOCK", replace_all(kAlloc, "ALLOC", "512"));
  body = replace_all(body, "ATMEM_STORE", kScaleStore);
  body = replace_all(body, "FENCE", "fence.proxy.async.shared::cta;");
  body = replace_all(body, "KIND", g.kind);
  const std::string meta = g.sparse ? "[%r59], " : "";
  if (g.sparse) body = replace_all(body, "tcgen05.mma.cta_group::1.", "tcgen05.mma.sp.cta_group::1.");
  body = replace_all(body, "A0, %rd12, %r33,", "%rd10, %rd12, " + meta + "%r33, [%r38], [%r39],");
  body = replace_all(body, "A1, %rd13, %r33,", "%rd11, %rd13, " + meta + "%r33, [%r38], [%r39],");
  // As CUTLASS does, the scale addresses carry the SF ID in bits 31:30 (ignored by the MMA).
  body = replace_all(body, "  add.u32 %r37, %r10, 256;",
                     "  add.u32 %r38, %r10, " + std::to_string(256u | g.a_id << 30) + ";\n  add.u32 %r39, %r10, " +
                         std::to_string(260u | g.b_id << 30) + ";\n  add.u32 %r59, %r10, 268;");
  body = replace_all(body, "NCOLS", std::to_string(g.N));
  const std::string ptx = replace_all(
      module(body, ".param .u64 ga, .param .u64 gb, .param .u64 gd, .param .u64 gsf, .param .u64 ad0, "
                   ".param .u64 ad1, .param .u64 bd0, .param .u64 bd1, .param .u32 idesc, .param .u32 steps"),
      ".version 8.7", ".version 8.8");  // .block16 / .block32
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = mem.allocate(16384, 256, "A"), gb = mem.allocate(16384, 256, "B"), gsf = mem.allocate(8192, 256, "SF");
  mem.write(ga, ia.data(), ia.size());
  mem.write(gb, ib.data(), ib.size());
  mem.write(gsf, sf.data(), sf.size() * 4);
  const uint64_t gd = alloc(mem, size_t(128) * g.N * 4, "D");
  Params p;
  p.add(ga).add(gb).add(gd).add(gsf).add(oa.desc(0, 32)).add(oa.desc(1, 32)).add(ob.desc(0, kub / steps))
      .add(ob.desc(1, kub / steps)).add(idesc).add(steps);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, seed);
  if (!g.error.empty()) {
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    const ptxsim::Diagnostic* e = first_error(r);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message, g.error);
    EXPECT_EQ(e->loc.line, line_of(ptx, "tcgen05.mma.sp.cta_group::1"));
    return;
  }
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  std::vector<uint32_t> d(size_t(128) * g.N);
  mem.read(gd, d.data(), d.size() * 4);
  // Reference: every product exact and every sum exact (values are small dyadic numbers), so D is
  // the real sum of (a * sA) * (b * sB) over both steps.
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < g.N; ++n) {
      double sum = 0;
      for (uint32_t k = 0; k < ktot; ++k) {
        const uint32_t j = (k % kel) / vec;
        const double sa = std::ldexp(SAh[m * g.nsf + j] ? 1.5 : 1.0, SAe[m * g.nsf + j]);
        const double sb = std::ldexp(SBh[n * g.nsf + j] ? 1.5 : 1.0, SBe[n * g.nsf + j]);
        sum += (A[m * ktot + k] * 0.5 * sa) * (B[k * g.N + n] * 0.5 * sb);
      }
      ASSERT_EQ(std::bit_cast<float>(d[size_t(m) * g.N + n]), float(sum)) << "D(" << m << ", " << n << ")";
    }
}

}  // namespace

TEST(Tcgen05Mma, BlockScaledKindsAgainstAnExactReference) {
  const uint64_t seed = test_seed();
  const ScaledCase cases[] = {
      {"kind::mxf8f6f4.block_scale", false, 0, 5, 1, false, 1, 3, 64, Layout::K128B, Layout::MNNone},
      {"kind::mxf8f6f4.block_scale.scale_vec::1X", false, 5, 0, 1, false, 2, 0, 40, Layout::MN128B, Layout::K128B},
      {"kind::mxf4.block_scale", true, 1, 1, 2, false, 2, 0, 32, Layout::K128B, Layout::KNone},
      {"kind::mxf4nvf4.block_scale.block16", true, 1, 1, 4, true, 0, 0, 256, Layout::K128B, Layout::KNone},
      {"kind::mxf4nvf4.block_scale.scale_vec::2X", true, 1, 1, 2, false, 0, 2, 8, Layout::K128B, Layout::K128B},
      {"kind::mxf4nvf4.block_scale.block32", true, 1, 1, 2, false, 2, 2, 24, Layout::KNone, Layout::KNone},
  };
  uint64_t s = seed;
  for (const ScaledCase& g : cases) run_scaled_gemm(g, s++);
}

// tcgen05.mma.sp with the block-scaled kinds (CUTLASS SM100_MMA_MXF8F6F4_SS_SPARSE /
// SM100_MMA_MXF4NVF4_SS_SPARSE): K doubles, A is stored packed, and each scale factor covers twice
// the elements of K it covers in the dense MMA (same count per MMA).
TEST(Tcgen05Mma, SparseBlockScaledKindsAgainstAnExactReference) {
  const uint64_t seed = test_seed();
  const ScaledCase cases[] = {
      {"kind::mxf8f6f4.block_scale", false, 0, 5, 1, false, 1, 3, 64, Layout::K128B, Layout::MNNone, true},
      {"kind::mxf8f6f4.block_scale.scale_vec::1X", false, 5, 0, 1, false, 2, 0, 40, Layout::MN128B, Layout::K128B, true},
      {"kind::mxf4.block_scale", true, 1, 1, 2, false, 2, 0, 32, Layout::K128B, Layout::KNone, true},
      {"kind::mxf4nvf4.block_scale.block16", true, 1, 1, 4, true, 0, 0, 128, Layout::K128B, Layout::KNone, true},
      {"kind::mxf4nvf4.block_scale.scale_vec::2X", true, 1, 1, 2, false, 0, 2, 8, Layout::KNone, Layout::K128B, true},
  };
  uint64_t s = seed;
  for (const ScaledCase& g : cases) run_scaled_gemm(g, s++);
  // A pair index named twice in a 4:8 pair-wise chunk is a fault at the MMA, naming the TMEM cell.
  ScaledCase bad = cases[2];
  bad.bad_row = 37;
  bad.error = "tcgen05.mma.sp.cta_group::1.kind::mxf4: invalid sparsity metadata for row 37 chunk 0 (columns 0..7 of A): "
              "nibble 0x5 is not one of the values the ISA defines for a 4:8 pair-wise chunk (0x4, 0x8, 0xc, 0x9, 0xd, "
              "0x6, 0xe; PTX 9.7.16.10.8.3: any other is undefined); it is bits 3:0 of TMEM lane 37, column 268 "
              "(sp-meta-tmem + lane 37, column 0) [CTA (0,0,0) warp 0 lanes 0x1]";
  run_scaled_gemm(bad, s);
}

TEST(Tcgen05Mma, BlockScaleQualifiersAndDescriptorsAreChecked) {
  auto load_error = [](const std::string& inst, const char* target = "sm_100a") {
    try {
      ptxsim::load_program(replace_all(module("  " + inst + "\n", "", target), ".version 8.7", ".version 8.8"), "t.ptx");
    } catch (const ptxsim::PtxError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string ops = " [%r3], %rd1, %rd2, %r6, [%r4], [%r5], %p1;";
  EXPECT_EQ(load_error("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X" + ops), "");
  EXPECT_EQ(load_error("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32" + ops, "sm_100f"), "");
  EXPECT_NE(load_error("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale" + ops)
                .find("Modifier '.kind::mxf4nvf4' requires modifier '.scale_vectorsize'"),
            std::string::npos);
  EXPECT_NE(load_error("tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::4X" + ops)
                .find("Modifier '.kind::mxf4' cannot be combined with modifier '.scale_vec::4X'"),
            std::string::npos);
  EXPECT_NE(load_error("tcgen05.mma.cta_group::1.kind::mxf8f6f4" + ops).find(".block_scale modifier required"),
            std::string::npos);
  EXPECT_NE(load_error("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X" + ops, "sm_100f"), "");
  // Descriptor rules, at issue: UE4M3 with 2X, an odd scale-factor ID with 2X.
  using ptxsim::model::tcgen05::InstrDescriptorBlockScaled;
  using ptxsim::model::tcgen05::MmaContext;
  using ptxsim::model::tcgen05::Kind;
  InstrDescriptorBlockScaled d;
  d.a_format = d.b_format = 1;
  d.n_dim = 8;
  d.m_dim = 1;
  d.scale_type = 0;
  MmaContext ctx;
  ctx.kind = Kind::MXF4NVF4;
  ctx.scale_vec = 2;
  auto e = validate(d, ctx);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("scale type (bit 23) = 0 (UE4M3) is only for kind::mxf4nvf4 with .scale_vec::4X"), std::string::npos) << *e;
  d.scale_type = 1;
  d.a_sf_id = 1;
  e = validate(d, ctx);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("A scale-factor ID (bits 30:29) = 1 must be 0 or 2 with .scale_vec::2X"), std::string::npos) << *e;
  d.a_sf_id = 2;
  EXPECT_FALSE(validate(d, ctx));
  d.a_major = 1;
  e = validate(d, ctx);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("transpose A (bit 15) must be 0 for kind::mxf4nvf4"), std::string::npos) << *e;
}

namespace {

// After thread 0 (%p2 false) issued MMAs: thread 0 commits them to `bar` and the warp waits on it, so
// that the tcgen05.dealloc after it frees no columns of an MMA in flight (a fault).
const char* kCommitAndWait = R"(
  mov.u32 %r26, bar;
  @!%p2 mbarrier.init.shared::cta.b64 [%r26], 1;
  @!%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];
$done_w:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;
  @!%p5 bra $done_w;
  tcgen05.fence::after_thread_sync;
)";

// Thread 0 issues one f16 MMA (64 x 8 x 16, zero operands) with or without commit / wait, then
// warp 0 reads D.
Launched mma_then_read(bool commit, bool wait, std::string* ptx_out) {
  std::string body = R"(
  mov.u32 %r26, bar;
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $issued;
  mbarrier.init.shared::cta.b64 [%r26], 1;
  mov.u32 %r20, sa;
  and.b32 %r35, %r20, 0x3ffff;
  shr.u32 %r35, %r35, 4;
  cvt.u64.u32 %rd10, %r35;
  or.b64 %rd10, %rd10, 0x0000400800080000;  // version 1, SBO 128, LBO 128, no swizzle
  setp.ne.u32 %p2, %r0, 0;
  tcgen05.mma.cta_group::1.kind::f16 [%r10], %rd10, %rd10, 0x04020010, %p2;
COMMIT
$issued:
WAIT
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, [%r10];
  tcgen05.wait::ld.sync.aligned;
)";
  body = replace_all(body, "COMMIT",
                     commit ? "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];" : "");
  body = replace_all(body, "WAIT",
                     wait ? "$w:\n  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;\n  @!%p5 bra $w;\n"
                            "  tcgen05.fence::after_thread_sync;"
                          : "");
  *ptx_out = module(with_alloc(body, 32));
  ptxsim::model::GlobalMemory mem;
  return launch(*ptx_out, mem, Params{}, {1, 1, 1}, {32, 1, 1});
}

}  // namespace

TEST(Tcgen05Mma, ReadingDWithoutCommitAndWaitIsAHazard) {
  std::string ptx;
  Launched ok = mma_then_read(true, true, &ptx);
  ASSERT_EQ(ok.result.status, ptxsim::RunStatus::Completed) << ok.all_diagnostics();
  EXPECT_EQ(ok.warning_count(), 0u) << ok.all_diagnostics();

  // Without the wait, the tcgen05.dealloc after the read frees D under the MMA: a fault
  // (tests/unit/tcgen05_hazard_test.cpp), after the read's warning.
  Launched no_commit = mma_then_read(false, false, &ptx);
  ASSERT_EQ(no_commit.result.status, ptxsim::RunStatus::Fault) << no_commit.all_diagnostics();
  EXPECT_EQ(no_commit.result.diagnostics[0].loc.line, line_of(ptx, "tcgen05.dealloc"));
  EXPECT_NE(no_commit.result.diagnostics[0].message.find("tcgen05.dealloc: columns [0, 32) include the D of the tcgen05.mma"),
            std::string::npos);
  ASSERT_EQ(no_commit.warning_count(), 1u) << no_commit.all_diagnostics();
  EXPECT_EQ(no_commit.result.diagnostics[1].message,
            "tcgen05 hazard: tcgen05.ld reads TMEM lanes 0..31, columns 0..7, the D of the tcgen05.mma at line " +
                std::to_string(line_of(ptx, "tcgen05.mma")) +
                ", which no tcgen05.commit covers: commit it to an mbarrier and wait on that before reading D");
  EXPECT_EQ(no_commit.result.diagnostics[1].loc.line, line_of(ptx, "tcgen05.ld"));

  Launched no_wait = mma_then_read(true, false, &ptx);
  ASSERT_EQ(no_wait.result.status, ptxsim::RunStatus::Fault) << no_wait.all_diagnostics();
  ASSERT_EQ(no_wait.warning_count(), 1u) << no_wait.all_diagnostics();
  EXPECT_NE(no_wait.result.diagnostics[1].message.find(
                "which has not completed: wait on the mbarrier its tcgen05.commit arrives on before reading D"),
            std::string::npos)
      << no_wait.all_diagnostics();
}

TEST(Tcgen05Mma, InvalidDescriptorsAreFaultsNamingTheField) {
  struct Case {
    const char* idesc;
    const char* adesc;
    const char* message;
  } cases[] = {
      {"0x04020010", "0x0000400800080000", ""},
      {"0x04820010", "0x0000400800080000", "instruction descriptor 0x04820010: bit 23 is reserved and must be 0"},
      {"0x10020010", "0x0000400800080000", "M >> 4 (bits 28:24): M = 256 is not a valid M for kind::f16 with .cta_group::1"},
      {"0x04020010", "0x0000000800080000", "version (bits 48:46) = 0 must be 0b001 on sm_100"},
      {"0x04020010", "0xa000400800080000", "layout type (bits 63:61) = 5 is not a layout"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.message);
    std::string body = R"(
  mov.u32 %r20, sa;
  shr.u32 %r35, %r20, 4;
  cvt.u64.u32 %rd10, %r35;
  or.b64 %rd11, %rd10, ADESC;
  or.b64 %rd12, %rd10, 0x0000400800080000;
  setp.ne.u32 %p2, %r0, 0;
  @%p2 bra $skip;
  tcgen05.mma.cta_group::1.kind::f16 [%r10], %rd11, %rd12, IDESC, %p2;
$skip:
)" + std::string(kCommitAndWait);
    body = replace_all(replace_all(body, "ADESC", k.adesc), "IDESC", k.idesc);
    const std::string ptx = module(with_alloc(body, 32));
    ptxsim::model::GlobalMemory mem;
    Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
    if (!*k.message) {
      EXPECT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      continue;
    }
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    EXPECT_NE(first_error(r)->message.find(k.message), std::string::npos) << first_error(r)->message;
    EXPECT_EQ(first_error(r)->loc.line, line_of(ptx, "tcgen05.mma"));
  }
}

TEST(Tcgen05Mma, OperandsWrittenByGenericStoresWithoutProxyFenceAreAHazard) {
  const std::string body = R"(
  mov.u32 %r20, sa;
  st.shared.u32 [%r20], %r0;
  shr.u32 %r35, %r20, 4;
  cvt.u64.u32 %rd10, %r35;
  or.b64 %rd10, %rd10, 0x0000400800080000;
  setp.ne.u32 %p2, %r0, 0;
  @%p2 bra $skip;
  tcgen05.mma.cta_group::1.kind::f16 [%r10], %rd10, %rd10, 0x04020010, %p2;
$skip:
)" + std::string(kCommitAndWait);
  const std::string ptx = module(with_alloc(body, 32));
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(ptx, mem, Params{}, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  ASSERT_TRUE(r.has_warning("tcgen05 hazard: tcgen05.mma.cta_group::1.kind::f16 reads A at shared address")) << r.all_diagnostics();
  EXPECT_TRUE(r.has_warning("written by generic-proxy stores with no fence.proxy.async since"));
}

// A TMA load that overwrites generic-proxy writes supersedes them: the MMA, ordered after the load by
// the mbarrier wait, reads the async proxy's bytes, so no fence.proxy.async is needed for them (the
// pattern of tcgen05.alloc writing the TMEM address into a buffer a TMA load later fills). One warp
// writes [sa, sa + 2048) with st.shared, with no fence.proxy.async anywhere; thread 0 TMA-loads a
// box to sa + DST, the warp waits on its mbarrier, and thread 0 issues one M = 64, N = 8 MMA whose A
// and B (the same descriptor: K-major, no swizzle, LBO 128, SBO 256) read exactly [sa, sa + 2048).
TEST(Tcgen05Mma, ATmaLoadOverGenericWritesSupersedesThem) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string kernel = R"(
  .shared .align 8 .b64 tbar;
  mov.u32 %r20, sa;
  mov.u32 %r22, %r0;
$generic:
  shl.b32 %r24, %r22, 2;
  add.u32 %r25, %r20, %r24;
  st.shared.u32 [%r25], %r22;
  add.u32 %r22, %r22, 32;
  setp.lt.u32 %p1, %r22, 512;
  @%p1 bra $generic;
  setp.ne.u32 %p2, %r0, 0;
  mov.u32 %r26, tbar;
  @!%p2 mbarrier.init.shared::cta.b64 [%r26], 1;
  ld.param.u32 %r6, [tx];
  @!%p2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r26], %r6;
  ld.param.u32 %r7, [dst];
  add.u32 %r8, %r20, %r7;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r11, 0;
  @!%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r8], [%rd2, {%r11, %r11}], [%r26];
$wait_tma:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r26], 0;
  @!%p3 bra $wait_tma;
  @%p2 bra $skip;
  shr.u32 %r35, %r20, 4;
  cvt.u64.u32 %rd10, %r35;
  or.b64 %rd10, %rd10, 0x0000401000080000;
  tcgen05.mma.cta_group::1.KIND [%r10], %rd10, %rd10, IDESC, %p2;
$skip:
)" + std::string(kCommitAndWait);
  const std::string f16 = "kind::f16", f8f6f4 = "kind::f8f6f4";
  const uint32_t f16_idesc = 0x04020010;     // f16 x f16 -> f32, M = 64, N = 8
  const uint32_t e2m1_idesc = 0x04021690;    // E2M1 x E2M1 -> f32 (formats 5, 5), M = 64, N = 8
  struct Case {
    const char* name;
    tmap::DataType dtype;  // a 128 x 64 tensor; the box is 128 x box_rows
    uint32_t box_rows, dst, tx;
    std::string kind;
    uint32_t idesc;
    const char* warning;  // "" = none
  } cases[] = {
      {"u8 box over the whole operand", tmap::DataType::kUInt8, 16, 0, 2048, f16, f16_idesc, ""},
      {"u8 box elsewhere", tmap::DataType::kUInt8, 16, 8192, 2048, f16, f16_idesc,
       "tcgen05 hazard: tcgen05.mma.cta_group::1.kind::f16 reads A at shared address 0x400, written by generic-proxy "
       "stores with no fence.proxy.async since (the MMA reads through the async proxy and may see stale data)"},
      // Rows 0..31 of A lie in [sa, sa + 1024): row 32 (at sa + 4 * SBO) is the first one left stale.
      {"u8 box over half of the operand", tmap::DataType::kUInt8, 8, 0, 1024, f16, f16_idesc,
       "tcgen05 hazard: tcgen05.mma.cta_group::1.kind::f16 reads A at shared address 0x800, written by generic-proxy "
       "stores with no fence.proxy.async since (the MMA reads through the async proxy and may see stale data)"},
      // 16U4_ALIGN16B writes the first 8 bytes of each 16-byte chunk (complete-tx: the 1024 packed
      // bytes) and leaves the padding generic-written: E2M1 operands of kind::f8f6f4 read only the
      // data bytes, f16 operands read the whole chunk.
      {"padded fp4 box, E2M1 operands", tmap::DataType::k16U4Align16B, 16, 0, 1024, f8f6f4, e2m1_idesc, ""},
      {"padded fp4 box, f16 operands", tmap::DataType::k16U4Align16B, 16, 0, 1024, f16, f16_idesc,
       "tcgen05 hazard: tcgen05.mma.cta_group::1.kind::f16 reads A at shared address 0x400, written by generic-proxy "
       "stores with no fence.proxy.async since (the MMA reads through the async proxy and may see stale data)"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const bool fp4 = k.dtype == tmap::DataType::k16U4Align16B;
    const uint64_t row_bytes = fp4 ? 64 : 128;
    ptxsim::model::GlobalMemory mem;
    std::vector<uint8_t> g(row_bytes * 64);
    for (auto& b : g) b = uint8_t(rng());
    const uint64_t ga = upload(mem, g.data(), g.size(), "tensor");
    tmap::CUtensorMap m = encode(k.dtype, 2, ga, {128, 64}, {row_bytes}, {128, k.box_rows}, {1, 1});
    Params p;
    p.add_bytes(&m, 128, 64).add(k.tx).add(k.dst);
    std::string body = replace_all(replace_all(kernel, "KIND", k.kind), "IDESC", hex_addr(k.idesc));
    const std::string ptx =
        module(with_alloc(body, 32), ".param .align 64 .b8 tmap[128], .param .u32 tx, .param .u32 dst");
    Launched r = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1}, {1, 1, 1}, rng());
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    if (!*k.warning) {
      EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
      continue;
    }
    ASSERT_EQ(r.result.diagnostics.size(), 1u) << r.all_diagnostics();
    EXPECT_EQ(r.result.diagnostics[0].severity, ptxsim::Diagnostic::Severity::Warning);
    EXPECT_EQ(r.result.diagnostics[0].message, k.warning);
    EXPECT_EQ(r.result.diagnostics[0].loc.line, line_of(ptx, "tcgen05.mma"));
  }
}

// ---- cta_group::2 ----------------------------------------------------------------------------------

namespace {

// A cluster of two CTAs (a pair), 128 threads each. CTA v copies its half of A (rows
// [v*M/2, (v+1)*M/2)) and of B (columns [v*N/2, (v+1)*N/2)) into shared memory, allocates 512
// columns with cta_group::2 and tells CTA 0 through the `ready` mbarrier; thread 0 of CTA 0 issues
// one cta_group::2 MMA and commits it with multicast to `bar` in both CTAs; each CTA dumps its 128
// lanes x N columns.
const char* kPairGemm = R"(
  .shared .align 8 .b64 ready;
  mov.u32 %r60, %cluster_ctarank;
  mov.u32 %r61, ready;
  or.b32 %r62, %r0, %r60;
  setp.ne.u32 %p6, %r62, 0;       // true except in thread 0 of CTA 0
  @%p6 bra $ready_done;
  mbarrier.init.shared::cta.b64 [%r61], 1;
$ready_done:
  ld.param.u64 %rd1, [ga];
  ld.param.u64 %rd2, [gb];
  ld.param.u64 %rd3, [gd];
  mul.wide.u32 %rd9, %r60, 16384;
  add.u64 %rd1, %rd1, %rd9;
  add.u64 %rd2, %rd2, %rd9;
  mul.wide.u32 %rd9, %r60, DBYTES;
  add.u64 %rd3, %rd3, %rd9;
  mov.u32 %r20, sa;
  mov.u32 %r21, sb;
  mov.u32 %r22, %r0;
$copy:
  mul.wide.u32 %rd4, %r22, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.u32 %r23, [%rd5];
  shl.b32 %r24, %r22, 2;
  add.u32 %r25, %r20, %r24;
  st.shared.u32 [%r25], %r23;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.u32 %r23, [%rd5];
  add.u32 %r25, %r21, %r24;
  st.shared.u32 [%r25], %r23;
  add.u32 %r22, %r22, 128;
  setp.lt.u32 %p1, %r22, 4096;
  @%p1 bra $copy;
  fence.proxy.async.shared::cta;
  setp.ne.u32 %p3, %r0, 0;
  @%p3 bra $noinit;
  mov.u32 %r26, bar;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$noinit:
  setp.ne.u32 %p7, %r1, 0;
  @%p7 bra $after_alloc;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [tslot], 512;
$after_alloc:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [tslot];
  shl.b32 %r27, %r1, 21;
  add.u32 %r28, %r10, %r27;
  mov.u32 %r29, 0;
$poison:
  add.u32 %r31, %r28, %r29;
  mov.u32 %r32, 0x7fbadbad;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r31], {%r32};
  add.u32 %r29, %r29, 1;
  setp.lt.u32 %p1, %r29, NCOLS;
  @%p1 bra $poison;
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  @%p3 bra $wait;
  setp.eq.u32 %p4, %r60, 0;
  @%p4 bra $issue;
  mapa.shared::cluster.u32 %r63, %r61, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r63];
  bra $wait;
$issue:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p5, [%r61], 0;
  @!%p5 bra $issue;
  tcgen05.fence::after_thread_sync;
  ld.param.u64 %rd10, [ad0];
  ld.param.u64 %rd12, [bd0];
  ld.param.u32 %r33, [idesc];
  and.b32 %r35, %r20, 0x3ffff;
  shr.u32 %r35, %r35, 4;
  cvt.u64.u32 %rd14, %r35;
  and.b32 %r36, %r21, 0x3ffff;
  shr.u32 %r36, %r36, 4;
  cvt.u64.u32 %rd15, %r36;
  add.u64 %rd10, %rd10, %rd14;
  add.u64 %rd12, %rd12, %rd15;
  setp.ne.u32 %p2, %r0, 0;
  tcgen05.mma.cta_group::2.KIND [%r10], %rd10, %rd12, %r33, %p2;
  mov.u32 %r26, bar;
  mov.u16 %rs1, 3;
  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r26], %rs1;
$wait:
  mov.u32 %r26, bar;
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;
  @!%p5 bra $wait;
  tcgen05.fence::after_thread_sync;
  mov.u32 %r29, 0;
$dump:
  add.u32 %r31, %r28, %r29;
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, [%r31];
  tcgen05.wait::ld.sync.aligned;
  mad.lo.u32 %r48, %r0, NCOLS, %r29;
  mul.wide.u32 %rd6, %r48, 4;
  add.u64 %rd6, %rd3, %rd6;
  st.global.v4.u32 [%rd6], {%r40, %r41, %r42, %r43};
  st.global.v4.u32 [%rd6+16], {%r44, %r45, %r46, %r47};
  add.u32 %r29, %r29, 8;
  setp.lt.u32 %p1, %r29, NCOLS;
  @%p1 bra $dump;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  @%p7 bra $after_dealloc;
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r10, 512;
$after_dealloc:
)";

}  // namespace

TEST(Tcgen05Mma, CtaPairSplitsAAndBAndWritesEachHalfOfD) {
  const uint64_t seed = test_seed();
  struct Case {
    std::string kind;
    Elem e;
    uint32_t code, d_code, M, N;
    Layout la, lb;
  } cases[] = {
      {"kind::f16", Elem::BF16, 1, 1, 256, 64, Layout::K128B, Layout::K128B},
      {"kind::f16", Elem::F16, 0, 1, 128, 32, Layout::KNone, Layout::MN128B},
      {"kind::i8", Elem::S8, 1, 2, 256, 32, Layout::K128B, Layout::KNone},
  };
  uint64_t sd = seed;
  for (const Case& g : cases) {
    SCOPED_TRACE(g.kind + " cta_group::2 M=" + std::to_string(g.M) + " N=" + std::to_string(g.N) + " seed " + std::to_string(sd));
    std::mt19937_64 rng(sd++);
    const uint32_t K = 32 / elem_bytes(g.e), Mh = g.M / 2, Nh = g.N / 2;
    auto draw = [&]() { return g.e == Elem::S8 ? int(int8_t(rng())) : int(rng() % 9) - 4; };
    std::vector<int> A(size_t(g.M) * K), B(size_t(K) * g.N);
    for (int& x : A) x = draw();
    for (int& x : B) x = draw();
    Operand oa{Mh, K, elem_bytes(g.e), g.la}, ob{Nh, K, elem_bytes(g.e), g.lb};
    std::vector<uint8_t> img_a(2 * 16384, 0), img_b(2 * 16384, 0);
    for (uint32_t v = 0; v < 2; ++v) {
      for (uint32_t m = 0; m < Mh; ++m)
        for (uint32_t k = 0; k < K; ++k) {
          const uint32_t bits = encode(g.e, A[(v * Mh + m) * K + k]);
          for (uint32_t i = 0; i < oa.bytes; ++i) img_a[v * 16384 + oa.offset(m, k) + i] = uint8_t(bits >> (8 * i));
        }
      for (uint32_t n = 0; n < Nh; ++n)
        for (uint32_t k = 0; k < K; ++k) {
          const uint32_t bits = encode(g.e, B[k * g.N + v * Nh + n]);
          for (uint32_t i = 0; i < ob.bytes; ++i) img_b[v * 16384 + ob.offset(n, k) + i] = uint8_t(bits >> (8 * i));
        }
    }
    const uint32_t idesc = g.d_code << 4 | g.code << 7 | g.code << 10 | uint32_t(oa.mn_major()) << 15 |
                           uint32_t(ob.mn_major()) << 16 | (g.N >> 3) << 17 | (g.M >> 4) << 24;
    std::string body = replace_all(kPairGemm, "KIND", g.kind);
    body = replace_all(body, "NCOLS", std::to_string(g.N));
    body = replace_all(body, "DBYTES", std::to_string(128 * g.N * 4));
    std::string ptx = module(body, ".param .u64 ga, .param .u64 gb, .param .u64 gd, .param .u64 ad0, .param .u64 bd0, .param .u32 idesc");
    ptx = replace_all(ptx, "  .reg .pred %p<8>;", "  .reg .pred %p<8>;\n  .reg .b16 %rs<4>;");
    ptxsim::model::GlobalMemory mem;
    const uint64_t ga = mem.allocate(img_a.size(), 256, "A"), gb = mem.allocate(img_b.size(), 256, "B");
    mem.write(ga, img_a.data(), img_a.size());
    mem.write(gb, img_b.data(), img_b.size());
    const uint64_t gd = alloc(mem, size_t(2) * 128 * g.N * 4, "D");
    Params p;
    p.add(ga).add(gb).add(gd).add(oa.desc(0, K)).add(ob.desc(0, K)).add(idesc);
    Launched r = launch(ptx, mem, p, {2, 1, 1}, {128, 1, 1}, {2, 1, 1}, sd);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    std::vector<uint32_t> d(size_t(2) * 128 * g.N);
    mem.read(gd, d.data(), d.size() * 4);
    for (uint32_t m = 0; m < g.M; ++m)
      for (uint32_t n = 0; n < g.N; ++n) {
        int64_t sum = 0;
        for (uint32_t k = 0; k < K; ++k) sum += int64_t(A[m * K + k]) * B[k * g.N + n];
        // CTA m / Mh holds the row; M = 256: lane m%128, column n; M = 128: lane m%64 + 64*(n >= N/2), column n%(N/2).
        const uint32_t v = m / Mh, ml = m % Mh;
        const uint32_t lane = g.M == 256 ? ml : ml + (n >= Nh ? 64 : 0), col = g.M == 256 ? n : n % Nh;
        const uint32_t got = d[(size_t(v) * 128 + lane) * g.N + col];
        if (g.e == Elem::S8) ASSERT_EQ(int32_t(got), int32_t(sum)) << "D(" << m << ", " << n << ")";
        else ASSERT_EQ(std::bit_cast<float>(got), float(sum)) << "D(" << m << ", " << n << ")";
      }
  }
}

// Block-scaled MMA over a CTA pair: each CTA holds scale_A for its own rows and scale_B for all N
// columns, both at the same TMEM addresses; with M = 128 (layout B) scale_B's columns n < N/2 are in
// the lower two 32-lane partitions and n >= N/2 (counted from N/2) in the upper two.
TEST(Tcgen05Mma, BlockScaledCtaPairReadsEachCtasScaleFactors) {
  const uint64_t seed = test_seed();
  for (uint32_t M : {256u, 128u}) {
    const uint32_t N = 64, K = 64, Mh = M / 2, Nh = N / 2, nsf = 4, vec = 16;
    SCOPED_TRACE("kind::mxf4nvf4 4X UE4M3 cta_group::2 M=" + std::to_string(M) + " seed " + std::to_string(seed + M));
    std::mt19937_64 rng(seed + M);
    std::vector<int> A(size_t(M) * K), B(size_t(K) * N);  // 2 * value, E2M1
    for (int& x : A) x = int(rng() % 9) - 4;
    for (int& x : B) x = int(rng() % 9) - 4;
    std::vector<int> SA(size_t(M) * nsf), SB(size_t(N) * nsf);  // exponents in [-2, 2]
    for (int& x : SA) x = int(rng() % 5) - 2;
    for (int& x : SB) x = int(rng() % 5) - 2;
    auto e2m1 = [](int v2) { return uint32_t(std::abs(v2) == 3 ? 3 : std::abs(v2)) | (v2 < 0 ? 8u : 0u); };
    auto ue4m3 = [](int e) { return uint32_t((e + 7) << 3); };
    Operand oa{Mh, 32, 1, Layout::K128B}, ob{Nh, 32, 1, Layout::KNone};
    std::vector<uint8_t> img_a(2 * 16384, 0), img_b(2 * 16384, 0);
    std::vector<uint32_t> sf(2 * 128 * 16, 0);
    for (uint32_t v = 0; v < 2; ++v) {
      for (uint32_t m = 0; m < Mh; ++m)
        for (uint32_t u = 0; u < 32; ++u)
          img_a[v * 16384 + oa.offset(m, u)] =
              uint8_t(e2m1(A[(v * Mh + m) * K + 2 * u]) | e2m1(A[(v * Mh + m) * K + 2 * u + 1]) << 4);
      for (uint32_t n = 0; n < Nh; ++n)
        for (uint32_t u = 0; u < 32; ++u)
          img_b[v * 16384 + ob.offset(n, u)] =
              uint8_t(e2m1(B[(2 * u) * N + v * Nh + n]) | e2m1(B[(2 * u + 1) * N + v * Nh + n]) << 4);
      for (uint32_t p = 0; p < 4; ++p)
        for (uint32_t i = 0; i < 32; ++i) {
          uint32_t* lane = &sf[(v * 128 + 32 * p + i) * 16];
          for (uint32_t m = i; m < Mh; m += 32)
            for (uint32_t j = 0; j < nsf; ++j) lane[m / 32] |= ue4m3(SA[(v * Mh + m) * nsf + j]) << (8 * j);
          for (uint32_t n = 0; n < N; ++n) {
            const bool upper = M == 128 && n >= Nh;
            const uint32_t nn = M == 128 ? n % Nh : n;
            if (nn % 32 != i || (M == 128 && upper != (p >= 2))) continue;
            for (uint32_t j = 0; j < nsf; ++j) lane[4 + nn / 32] |= ue4m3(SB[n * nsf + j]) << (8 * j);
          }
        }
    }
    const uint32_t idesc = 1u << 7 | 1u << 10 | (N >> 3) << 17 | (M >> 7) << 27;  // UE4M3 (bit 23 = 0), IDs 0
    std::string body = replace_all(kPairGemm, "KIND", "kind::mxf4nvf4.block_scale.block16");
    body = replace_all(body, "NCOLS", std::to_string(N));
    body = replace_all(body, "DBYTES", std::to_string(128 * N * 4));
    // kScaleStore with its %r60..%r63 renamed (the pair kernel keeps the CTA rank and mbarriers there).
    std::string store = kScaleStore;
    for (int r = 60; r < 64; ++r) store = replace_all(store, "%r" + std::to_string(r), "%r" + std::to_string(r + 10));
    store = replace_all(store, "  ld.param.u64 %rd7, [gsf];",
                        "  ld.param.u64 %rd7, [gsf];\n  mul.wide.u32 %rd9, %r60, 8192;\n  add.u64 %rd7, %rd7, %rd9;");
    body = replace_all(body, "  tcgen05.wait::st.sync.aligned;", store + "  tcgen05.wait::st.sync.aligned;");
    body = replace_all(body, "[%r10], %rd10, %rd12, %r33, %p2;",
                       "[%r10], %rd10, %rd12, %r33, [%r38], [%r39], %p2;");
    body = replace_all(body, "  setp.ne.u32 %p2, %r0, 0;\n", "  setp.ne.u32 %p2, %r0, 0;\n  add.u32 %r38, %r10, 256;\n  add.u32 %r39, %r10, 260;\n");
    std::string ptx = module(body, ".param .u64 ga, .param .u64 gb, .param .u64 gd, .param .u64 ad0, .param .u64 bd0, "
                                   ".param .u32 idesc, .param .u64 gsf");
    ptx = replace_all(ptx, "  .reg .pred %p<8>;", "  .reg .pred %p<8>;\n  .reg .b16 %rs<4>;");
    ptx = replace_all(ptx, ".version 8.7", ".version 8.8");
    ptxsim::model::GlobalMemory mem;
    const uint64_t ga = mem.allocate(img_a.size(), 256, "A"), gb = mem.allocate(img_b.size(), 256, "B");
    const uint64_t gsf = mem.allocate(sf.size() * 4, 256, "SF");
    mem.write(ga, img_a.data(), img_a.size());
    mem.write(gb, img_b.data(), img_b.size());
    mem.write(gsf, sf.data(), sf.size() * 4);
    const uint64_t gd = alloc(mem, size_t(2) * 128 * N * 4, "D");
    Params p;
    p.add(ga).add(gb).add(gd).add(oa.desc(0, 32)).add(ob.desc(0, 32)).add(idesc).add(gsf);
    Launched r = launch(ptx, mem, p, {2, 1, 1}, {128, 1, 1}, {2, 1, 1}, seed);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    std::vector<uint32_t> d(size_t(2) * 128 * N);
    mem.read(gd, d.data(), d.size() * 4);
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        double sum = 0;
        for (uint32_t k = 0; k < K; ++k)
          sum += (A[m * K + k] * 0.5 * std::ldexp(1.0, SA[m * nsf + k / vec])) *
                 (B[k * N + n] * 0.5 * std::ldexp(1.0, SB[n * nsf + k / vec]));
        const uint32_t v = m / Mh, ml = m % Mh;
        const uint32_t lane = M == 256 ? ml : ml + (n >= Nh ? 64 : 0), col = M == 256 ? n : n % Nh;
        ASSERT_EQ(std::bit_cast<float>(d[(size_t(v) * 128 + lane) * N + col]), float(sum)) << "D(" << m << ", " << n << ")";
      }
  }
}

// ---- tcgen05.cp ------------------------------------------------------------------------------------

namespace {

struct CpCase {
  const char* mods;
  uint32_t rows, bytes;
  std::function<std::vector<uint32_t>(uint32_t)> lanes;  // destination lanes of row r (ptx-facts.md §5.8)
};

const CpCase kCpCases[] = {
    {".128x256b", 128, 32, [](uint32_t r) { return std::vector<uint32_t>{r}; }},
    {".128x128b", 128, 16, [](uint32_t r) { return std::vector<uint32_t>{r}; }},
    {".64x128b.warpx2::02_13", 64, 16, [](uint32_t r) { return std::vector<uint32_t>{r % 32 + 32 * (r / 32), r % 32 + 32 * (r / 32) + 64}; }},
    {".64x128b.warpx2::01_23", 64, 16, [](uint32_t r) { return std::vector<uint32_t>{r % 32 + 64 * (r / 32), r % 32 + 64 * (r / 32) + 32}; }},
    {".32x128b.warpx4", 32, 16, [](uint32_t r) { return std::vector<uint32_t>{r, r + 32, r + 64, r + 96}; }},
};

// 128 threads copy a random k.rows x k.bytes source laid out in `layout` into sa (fenced for the
// async proxy); thread 0 runs tcgen05.cp MODS with the layout's descriptor OR'ed with `desc_or`,
// commits and everyone waits; the warps dump the destination columns of their lanes. Every lane
// and column must hold its source row's bytes (or TMEM's initial zero), with no diagnostic.
void check_cp(const CpCase& k, Layout layout, uint64_t desc_or, std::mt19937_64& rng) {
  const uint32_t cols = k.bytes / 4, col0 = 8;
  Operand src{k.rows, k.bytes, 1, layout};
  std::vector<uint8_t> img(16384, 0), data(size_t(k.rows) * k.bytes);
  for (auto& x : data) x = uint8_t(rng());
  for (uint32_t r = 0; r < k.rows; ++r)
    for (uint32_t j = 0; j < k.bytes; ++j) img[src.offset(r, j)] = data[r * k.bytes + j];
  std::string body = R"(
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd3, [out];
  ld.param.u64 %rd10, [desc];
  mov.u32 %r20, sa;
  mov.u32 %r22, %r0;
$copy:
  mul.wide.u32 %rd4, %r22, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.u32 %r23, [%rd5];
  shl.b32 %r24, %r22, 2;
  add.u32 %r25, %r20, %r24;
  st.shared.u32 [%r25], %r23;
  add.u32 %r22, %r22, 128;
  setp.lt.u32 %p1, %r22, 4096;
  @%p1 bra $copy;
  fence.proxy.async.shared::cta;
  mov.u32 %r26, bar;
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $noinit;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$noinit:
ALLOC_BLOCK
  @%p6 bra $wait;
  shr.u32 %r35, %r20, 4;
  cvt.u64.u32 %rd14, %r35;
  add.u64 %rd10, %rd10, %rd14;
  tcgen05.cp.cta_group::1MODS [%r10+COL0], %rd10;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;
  @!%p5 bra $wait;
  tcgen05.fence::after_thread_sync;
  shl.b32 %r27, %r1, 21;
  add.u32 %r28, %r10, %r27;
  mov.u32 %r29, 0;
$dump:
  add.u32 %r31, %r28, %r29;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r40}, [%r31+COL0];
  tcgen05.wait::ld.sync.aligned;
  mad.lo.u32 %r48, %r0, NCOLS, %r29;
  mul.wide.u32 %rd6, %r48, 4;
  add.u64 %rd6, %rd3, %rd6;
  st.global.u32 [%rd6], %r40;
  add.u32 %r29, %r29, 1;
  setp.lt.u32 %p1, %r29, NCOLS;
  @%p1 bra $dump;
DEALLOC_BLOCK
)";
  body = replace_all(body, "DEALLOC_BLOCK", replace_all(kDealloc, "ALLOC", "32"));
  body = replace_all(body, "ALLOC_BLOCK", replace_all(kAlloc, "ALLOC", "32"));
  body = replace_all(body, "MODS", k.mods);
  body = replace_all(body, "COL0", std::to_string(col0));
  body = replace_all(body, "NCOLS", std::to_string(cols));
  const std::string ptx = module(body, ".param .u64 src, .param .u64 out, .param .u64 desc");
  ptxsim::model::GlobalMemory mem;
  const uint64_t gsrc = mem.allocate(img.size(), 256, "src");
  mem.write(gsrc, img.data(), img.size());
  const uint64_t out = alloc(mem, size_t(128) * cols * 4, "out");
  Params p;
  p.add(gsrc).add(out).add(src.desc(0, 0) | desc_or);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {128, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
  std::vector<uint32_t> got(size_t(128) * cols);
  mem.read(out, got.data(), got.size() * 4);
  std::vector<uint32_t> want(got.size(), 0);  // TMEM starts zeroed in ptxsim
  for (uint32_t row = 0; row < k.rows; ++row)
    for (uint32_t lane : k.lanes(row))
      for (uint32_t c = 0; c < cols; ++c) {
        uint32_t v = 0;
        for (uint32_t i = 0; i < 4; ++i) v |= uint32_t(data[row * k.bytes + 4 * c + i]) << (8 * i);
        want[lane * cols + c] = v;
      }
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "lane " << i / cols << " column " << col0 + i % cols;
}

}  // namespace

TEST(Tcgen05Cp, EveryShapeCopiesItsRowsToTheirLanes) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const CpCase& k : kCpCases)
    for (Layout layout : {Layout::KNone, Layout::K128B}) {
      SCOPED_TRACE(std::string(k.mods) + " " + layout_name(layout));
      check_cp(k, layout, 0, rng);
      if (HasFatalFailure()) return;
    }
}

// The matrix base offset (descriptor bits 51:49) aligns a swizzle pattern; without swizzling there
// is none, so the ISA gives the field no meaning there and any value copies exactly what base offset
// 0 copies (docs/tcgen05.md). Triton's block-scaled matmul sets it on its scale-factor tcgen05.cp.
TEST(Tcgen05Cp, ABaseOffsetWithoutSwizzleIsIgnored) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (uint64_t base = 1; base < 8; ++base) {
    SCOPED_TRACE(".128x256b, base offset " + std::to_string(base));
    check_cp(kCpCases[0], Layout::KNone, base << 49, rng);
    if (HasFatalFailure()) return;
  }
  for (const CpCase& k : kCpCases) {
    const uint64_t base = 1 + rng() % 7;
    SCOPED_TRACE(std::string(k.mods) + ", base offset " + std::to_string(base));
    check_cp(k, Layout::KNone, base << 49, rng);
    if (HasFatalFailure()) return;
  }
}

TEST(Tcgen05Cp, WarpTypesAreChecked) {
  try {
    ptxsim::load_program(module("  tcgen05.cp.cta_group::1.64x128b [%r3], %rd1;\n"), "t.ptx");
    ADD_FAILURE();
  } catch (const ptxsim::PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("Modifier '.warptype' require for instruction tcgen05.cp with shape '.64x128b'"),
              std::string::npos)
        << e.what();
  }
}
