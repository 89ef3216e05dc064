// Non-tensor bulk copies through the engine: cp.async.bulk in every direction (with multicast and
// .cp_mask), cp.reduce.async.bulk for the ISA's operations and types against a host reference,
// bulk async-groups, cp.async.bulk.prefetch, and the size / alignment faults and decode checks.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

// Thread 0 copies N bytes global -> shared (DST_SPACE) with an mbarrier, waits, then copies them
// back shared::cta -> global with a bulk group (STORE_MODS, STORE_EXTRA operands) and waits.
const char* kRoundTripPtx = R"(.version 8.7
.target TARGET
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst, .param .u32 n)
{
  .shared .align 128 .b8 buf[4096];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, buf;
  mov.u32 %r3, bar;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r1;
  cp.async.bulk.DST_SPACE.global.mbarrier::complete_tx::bytes [%r2], [%rd1], %r1, [%r3];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r3], 0;
  @!%p1 bra $wait;
  mov.u16 %h1, MASK;
  cp.async.bulk.global.shared::cta.bulk_groupSTORE_MODS [%rd2], [%r2], %r1STORE_EXTRA;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

Launched round_trip(const std::string& target, const std::string& dst_space, uint32_t n, const std::string& store_mods,
               const std::string& store_extra, uint16_t mask, std::vector<uint8_t>* src, std::vector<uint8_t>* dst,
               uint64_t src_off = 0) {
  std::string ptx = replace_all(kRoundTripPtx, "TARGET", target);
  ptx = replace_all(ptx, "DST_SPACE", dst_space);
  ptx = replace_all(ptx, "STORE_MODS", store_mods);
  ptx = replace_all(ptx, "STORE_EXTRA", store_extra);
  ptx = replace_all(ptx, "MASK", std::to_string(mask));
  ptxsim::model::GlobalMemory mem;
  src->resize(4096);
  for (size_t i = 0; i < src->size(); ++i) (*src)[i] = uint8_t(i * 31 + 7);
  uint64_t s = upload(mem, src->data(), 4096, "src");
  uint64_t d = alloc(mem, 4096, "dst");
  Params p;
  p.add(s + src_off).add(d).add(n);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {1, 1, 1});
  *dst = read(mem, d, 4096);
  return r;
}

}  // namespace

TEST(BulkCopy, GlobalToSharedAndBackInBothDestinationSpaces) {
  for (const char* space : {"shared::cta", "shared::cluster"}) {
    SCOPED_TRACE(space);
    std::vector<uint8_t> src, dst;
    Launched r = round_trip("sm_90a", space, 2048, "", "", 0, &src, &dst);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    EXPECT_TRUE(std::equal(src.begin(), src.begin() + 2048, dst.begin()));
    EXPECT_TRUE(std::all_of(dst.begin() + 2048, dst.end(), [](uint8_t b) { return b == 0xAB; }));
  }
}

TEST(BulkCopy, CpMaskCopiesOnlyTheSelectedBytesOfEachChunk) {
  std::vector<uint8_t> src, dst;
  const uint16_t mask = 0x8F31;
  Launched r = round_trip("sm_100a", "shared::cta", 512, ".cp_mask", ", %h1", mask, &src, &dst);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  for (uint32_t i = 0; i < 512; ++i) ASSERT_EQ(dst[i], (mask >> (i % 16) & 1) ? src[i] : 0xAB) << "byte " << i;
  EXPECT_EQ(dst[512], 0xAB);
}

TEST(BulkCopy, SizeAndAlignmentAreChecked) {
  std::vector<uint8_t> src, dst;
  Launched r = round_trip("sm_90a", "shared::cta", 40, "", "", 0, &src, &dst);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("size 40 is not a multiple of 16"), std::string::npos) << r.result.report;
  r = round_trip("sm_90a", "shared::cta", 64, "", "", 0, &src, &dst, 8);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("source address"), std::string::npos) << r.result.report;
  EXPECT_NE(r.result.report.find("is not 16-byte aligned"), std::string::npos) << r.result.report;
  r = round_trip("sm_90a", "shared::cta", 4096, "", "", 0, &src, &dst, 16);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("past the end of allocation 'src'"), std::string::npos) << r.result.report;
}

// ---- multicast and shared::cta -> shared::cluster ---------------------------------------------

namespace {

// Four CTAs each multicast a 256-byte slice of `src` to every CTA (at buf + 256 r), after the
// "ready"/"go" handshake (with_ready_go_handshake); each CTA copies its buf to out + 1024 rank.
const char* kMulticastPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .shared .align 128 .b8 buf[1024];
  .shared .align 8 .b64 full;
  .shared .align 8 .b64 ready;
  .shared .align 8 .b64 go;
  .reg .b32 %r<40>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, full;
  mov.u32 %r4, ready;
  mov.u32 %r14, go;
  READY_GO_HANDSHAKE
  mov.u32 %r7, buf;
  shl.b32 %r8, %r2, 8;
  add.u32 %r7, %r7, %r8;
  ld.param.u64 %rd1, [src];
  cvt.u64.u32 %rd2, %r8;
  add.s64 %rd1, %rd1, %rd2;
  mov.u16 %h1, 15;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r7], [%rd1], 256, [%r3], %h1;
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $wait_full;
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd5, %r2, 1024;
  add.s64 %rd4, %rd3, %rd5;
  mov.u32 %r11, 0;
$copy:
  mov.u32 %r12, buf;
  add.u32 %r12, %r12, %r11;
  ld.shared.u32 %r13, [%r12];
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd4, %rd6;
  st.global.u32 [%rd7], %r13;
  add.u32 %r11, %r11, 4;
  setp.lt.u32 %p1, %r11, 1024;
  @%p1 bra $copy;
  ret;
}
)";

// CTA 0 fills its buf (generic writes, FENCE), waits until CTA 1's barrier is armed, and copies
// buf to CTA 1's buf (shared::cta -> shared::cluster) completing on CTA 1's barrier; CTA 1 copies
// what arrived to out.
const char* kDsmemPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 128 .b8 buf[512];
  .shared .align 8 .b64 full;
  .shared .align 8 .b64 ready;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, full;
  mov.u32 %r4, ready;
  mov.u32 %r7, buf;
  setp.ne.u32 %p4, %r2, 0;
  @%p4 bra $cta1;
  mbarrier.init.shared::cta.b64 [%r4], 1;
  mov.u32 %r11, 0;
$fill:
  add.u32 %r12, %r7, %r11;
  mad.lo.u32 %r13, %r11, 5, 3;
  st.shared.u32 [%r12], %r13;
  add.u32 %r11, %r11, 4;
  setp.lt.u32 %p1, %r11, 512;
  @%p1 bra $fill;
  FENCE
$wait_ready:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r4], 0;
  @!%p3 bra $wait_ready;
  mov.u32 %r5, 1;
  mapa.shared::cluster.u32 %r8, %r7, %r5;
  mapa.shared::cluster.u32 %r9, %r3, %r5;
  OPERATION
  ret;
$cta1:
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 512;
  mov.u32 %r5, 0;
  mapa.shared::cluster.u32 %r6, %r4, %r5;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $wait_full;
  ld.param.u64 %rd3, [out];
  mov.u32 %r11, 0;
$copy:
  add.u32 %r12, %r7, %r11;
  ld.shared.u32 %r13, [%r12];
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd3, %rd6;
  st.global.u32 [%rd7], %r13;
  add.u32 %r11, %r11, 4;
  setp.lt.u32 %p1, %r11, 512;
  @%p1 bra $copy;
  ret;
}
)";

}  // namespace

TEST(BulkCopy, MulticastToEveryCtaOfTheCluster) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  ptxsim::model::GlobalMemory mem;
  std::vector<uint8_t> src(1024);
  std::mt19937_64 rng(seed);
  for (auto& b : src) b = uint8_t(rng());
  uint64_t s = upload(mem, src.data(), 1024, "src");
  uint64_t out = alloc(mem, 4096, "out");
  Params p;
  p.add(s).add(out);
  Launched r = launch(with_ready_go_handshake(kMulticastPtx, 1024), mem, p, {4, 1, 1}, {1, 1, 1}, {4, 1, 1}, rng());
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  auto got = read(mem, out, 4096);
  for (int cta = 0; cta < 4; ++cta) EXPECT_TRUE(std::equal(src.begin(), src.end(), got.begin() + cta * 1024)) << cta;
}

TEST(BulkCopy, SharedCtaToAnotherCtasSharedMemory) {
  for (bool fence : {true, false}) {
    SCOPED_TRACE(fence ? "fenced" : "unfenced");
    std::string ptx = replace_all(kDsmemPtx, "FENCE", fence ? "fence.proxy.async.shared::cta;" : "");
    ptx = replace_all(ptx, "OPERATION",
                      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r8], [%r7], 512, [%r9];");
    ptxsim::model::GlobalMemory mem;
    uint64_t out = alloc(mem, 512, "out");
    Params p;
    p.add(out);
    Launched r = launch(ptx, mem, p, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    auto got = read(mem, out, 512);
    for (uint32_t i = 0; i < 512; i += 4) {
      uint32_t v;
      std::memcpy(&v, got.data() + i, 4);
      ASSERT_EQ(v, i * 5 + 3) << "byte " << i;
    }
    EXPECT_EQ(r.has_warning("without an intervening fence.proxy.async"), !fence) << r.all_diagnostics();
  }
}

TEST(BulkCopy, SharedClusterCopyToTheOwnCtaFaults) {
  std::string ptx = replace_all(kDsmemPtx, "FENCE", "fence.proxy.async.shared::cta;");
  ptx = replace_all(ptx, "OPERATION",
                    "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r7], [%r7], 512, [%r9];");
  ptxsim::model::GlobalMemory mem;
  uint64_t out = alloc(mem, 512, "out");
  Params p;
  p.add(out);
  Launched r = launch(ptx, mem, p, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(r.result.report.find("must be in the shared memory of another CTA"), std::string::npos) << r.result.report;
}

TEST(BulkCopy, SharedClusterReductionCompletesOnTheMbarrier) {
  // CTA 0 adds its buf (u32 i*5+3) into CTA 1's buf (zero) with cp.reduce.async.bulk ... .add.u32.
  std::string ptx = replace_all(kDsmemPtx, "FENCE", "fence.proxy.async.shared::cta;");
  ptx = replace_all(ptx, "OPERATION",
                    "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r8], [%r7], "
                    "512, [%r9];\n  cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 "
                    "[%r8], [%r7], 512, [%r9];");
  // Two reductions of 512 bytes: arm 1024 bytes.
  ptx = replace_all(ptx, "[%r3], 512;", "[%r3], 1024;");
  ptxsim::model::GlobalMemory mem;
  uint64_t out = alloc(mem, 512, "out");
  Params p;
  p.add(out);
  Launched r = launch(ptx, mem, p, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  auto got = read(mem, out, 512);
  for (uint32_t i = 0; i < 512; i += 4) {
    uint32_t v;
    std::memcpy(&v, got.data() + i, 4);
    ASSERT_EQ(v, 2 * (i * 5 + 3)) << "byte " << i;
  }
}

// ---- cp.reduce.async.bulk to global ------------------------------------------------------------

namespace {

// Thread 0 copies N bytes of `vals` into buf with plain loads/stores, fences, and reduces buf into
// `dst`, then waits for its bulk group.
const char* kReducePtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 vals, .param .u64 dst, .param .u32 n)
{
  .shared .align 128 .b8 buf[1024];
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [vals];
  ld.param.u64 %rd2, [dst];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, buf;
  mov.u32 %r3, 0;
$fill:
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
  add.u32 %r5, %r2, %r3;
  st.shared.u32 [%r5], %r4;
  add.u32 %r3, %r3, 4;
  setp.lt.u32 %p1, %r3, %r1;
  @%p1 bra $fill;
  fence.proxy.async.shared::cta;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.OP [%rd2], [%r2], %r1;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::vector<T> run_reduce(const std::string& op, const std::vector<T>& old, const std::vector<T>& src) {
  ptxsim::model::GlobalMemory mem;
  auto ob = bytes_of(old), sb = bytes_of(src);
  uint64_t vals = upload(mem, sb.data(), sb.size(), "vals");
  uint64_t dst = upload(mem, ob.data(), ob.size(), "dst");
  Params p;
  p.add(vals).add(dst).add(uint32_t(ob.size()));
  Launched r = launch(replace_all(kReducePtx, "OP", op), mem, p, {1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  std::vector<T> out(old.size());
  mem.read(dst, out.data(), ob.size());
  return out;
}

// f16 / bf16 bits of a small integer (exact in both formats).
uint16_t f16_of(int v) {
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  uint32_t a = uint32_t(std::abs(v));
  int e = 31 - std::countl_zero(a);
  uint32_t mant = (a << (10 - e)) & 0x3FF;
  return uint16_t(sign | ((e + 15) << 10) | mant);
}
uint16_t bf16_of(int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); }

}  // namespace

TEST(BulkCopy, GlobalReductionsMatchTheHostReference) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n32 = 64, n64 = 32, n16 = 128;
  auto r32 = [&] {
    std::vector<uint32_t> v(n32);
    for (auto& x : v) x = uint32_t(rng());
    return v;
  };
  auto r64 = [&] {
    std::vector<uint64_t> v(n64);
    for (auto& x : v) x = rng();
    return v;
  };
  {
    auto o = r32(), s = r32();
    auto got = run_reduce<uint32_t>("add.u32", o, s);
    for (size_t i = 0; i < n32; ++i) EXPECT_EQ(got[i], o[i] + s[i]);
    got = run_reduce<uint32_t>("min.s32", o, s);
    for (size_t i = 0; i < n32; ++i) EXPECT_EQ(got[i], uint32_t(std::min(int32_t(o[i]), int32_t(s[i]))));
    got = run_reduce<uint32_t>("max.u32", o, s);
    for (size_t i = 0; i < n32; ++i) EXPECT_EQ(got[i], std::max(o[i], s[i]));
    got = run_reduce<uint32_t>("and.b32", o, s);
    for (size_t i = 0; i < n32; ++i) EXPECT_EQ(got[i], o[i] & s[i]);
  }
  {
    std::vector<uint32_t> o(n32), s(n32);
    for (size_t i = 0; i < n32; ++i) {
      o[i] = uint32_t(rng() % 8);
      s[i] = uint32_t(rng() % 8);
    }
    auto got = run_reduce<uint32_t>("inc.u32", o, s);
    for (size_t i = 0; i < n32; ++i) EXPECT_EQ(got[i], o[i] >= s[i] ? 0u : o[i] + 1) << i;
    got = run_reduce<uint32_t>("dec.u32", o, s);
    for (size_t i = 0; i < n32; ++i) EXPECT_EQ(got[i], (o[i] == 0 || o[i] > s[i]) ? s[i] : o[i] - 1) << i;
  }
  {
    auto o = r64(), s = r64();
    auto got = run_reduce<uint64_t>("add.u64", o, s);
    for (size_t i = 0; i < n64; ++i) EXPECT_EQ(got[i], o[i] + s[i]);
    got = run_reduce<uint64_t>("min.s64", o, s);
    for (size_t i = 0; i < n64; ++i) EXPECT_EQ(got[i], uint64_t(std::min(int64_t(o[i]), int64_t(s[i]))));
    got = run_reduce<uint64_t>("xor.b64", o, s);
    for (size_t i = 0; i < n64; ++i) EXPECT_EQ(got[i], o[i] ^ s[i]);
  }
  {
    // f32 add flushes subnormal inputs and results (PTX); f64 add does not.
    std::vector<float> o(n32), s(n32);
    for (size_t i = 0; i < n32; ++i) {
      o[i] = float(int(rng() % 2000) - 1000) / 8.0f;
      s[i] = float(int(rng() % 2000) - 1000) / 16.0f;
    }
    o[0] = 1e-40f;  // subnormal: flushed to +0
    s[0] = 0.0f;
    o[1] = -3e-39f;
    s[1] = 1.0f;
    auto got = run_reduce<float>("add.f32", o, s);
    EXPECT_EQ(std::bit_cast<uint32_t>(got[0]), 0u);
    EXPECT_EQ(got[1], 1.0f);
    for (size_t i = 2; i < n32; ++i) EXPECT_EQ(got[i], o[i] + s[i]) << i;
    std::vector<double> od(n64), sd(n64);
    for (size_t i = 0; i < n64; ++i) {
      od[i] = double(int(rng() % 2000) - 1000) / 3.0;
      sd[i] = double(int(rng() % 2000) - 1000) / 7.0;
    }
    od[0] = 1e-310;  // subnormal kept
    sd[0] = 0.0;
    auto gd = run_reduce<double>("add.f64", od, sd);
    for (size_t i = 0; i < n64; ++i) EXPECT_EQ(gd[i], od[i] + sd[i]) << i;
  }
  {
    std::vector<uint16_t> o(n16), s(n16), oh(n16), sh(n16);
    std::vector<int> oi(n16), si(n16);
    for (size_t i = 0; i < n16; ++i) {
      oi[i] = int(rng() % 200) - 100;
      si[i] = int(rng() % 200) - 100;
      o[i] = f16_of(oi[i]);
      s[i] = f16_of(si[i]);
      oh[i] = bf16_of(oi[i]);
      sh[i] = bf16_of(si[i]);
    }
    auto got = run_reduce<uint16_t>("add.noftz.f16", o, s);
    for (size_t i = 0; i < n16; ++i) EXPECT_EQ(got[i], f16_of(oi[i] + si[i])) << i;
    got = run_reduce<uint16_t>("add.noftz.bf16", oh, sh);
    for (size_t i = 0; i < n16; ++i) EXPECT_EQ(got[i], bf16_of(oi[i] + si[i])) << i;
    got = run_reduce<uint16_t>("max.f16", o, s);
    for (size_t i = 0; i < n16; ++i) EXPECT_EQ(got[i], f16_of(std::max(oi[i], si[i]))) << i;
    got = run_reduce<uint16_t>("min.bf16", oh, sh);
    for (size_t i = 0; i < n16; ++i) EXPECT_EQ(got[i], bf16_of(std::min(oi[i], si[i]))) << i;
  }
}

// ---- bulk async-groups ------------------------------------------------------------------------

namespace {

// Thread 0 stores three 256-byte pieces of buf to dst in three groups, then waits with
// `cp.async.bulk.wait_group N` and copies dst to check: the pieces of the groups the wait covers
// must be there.
const char* kGroupsPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 dst, .param .u64 check)
{
  .shared .align 128 .b8 buf[768];
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [check];
  mov.u32 %r2, buf;
  mov.u32 %r3, 0;
$fill:
  add.u32 %r5, %r2, %r3;
  add.u32 %r4, %r3, 1000;
  st.shared.u32 [%r5], %r4;
  add.u32 %r3, %r3, 4;
  setp.lt.u32 %p1, %r3, 768;
  @%p1 bra $fill;
  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 256;
  cp.async.bulk.commit_group;
  add.s64 %rd3, %rd1, 256;
  add.u32 %r6, %r2, 256;
  cp.async.bulk.global.shared::cta.bulk_group [%rd3], [%r6], 256;
  cp.async.bulk.commit_group;
  add.s64 %rd4, %rd1, 512;
  add.u32 %r7, %r2, 512;
  cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r7], 256;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group WAITN;
  mov.u32 %r3, 0;
$copy:
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r8, [%rd6];
  add.s64 %rd7, %rd2, %rd5;
  st.global.u32 [%rd7], %r8;
  add.u32 %r3, %r3, 4;
  setp.lt.u32 %p1, %r3, 768;
  @%p1 bra $copy;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

}  // namespace

TEST(BulkCopy, WaitGroupWaitsForAllButTheNewestNGroups) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int n = 0; n <= 3; ++n)
    for (int rep = 0; rep < 4; ++rep) {
      SCOPED_TRACE("wait_group " + std::to_string(n));
      ptxsim::model::GlobalMemory mem;
      uint64_t dst = alloc(mem, 768, "dst"), check = alloc(mem, 768, "check");
      Params p;
      p.add(dst).add(check);
      Launched r = launch(replace_all(kGroupsPtx, "WAITN", std::to_string(n)), mem, p, {1, 1, 1}, {1, 1, 1}, {1, 1, 1},
                     rng());
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      auto got = read(mem, check, 768);
      for (int g = 0; g < 3 - n; ++g)  // groups older than the n newest are complete
        for (uint32_t i = 0; i < 256; i += 4) {
          uint32_t v;
          std::memcpy(&v, got.data() + g * 256 + i, 4);
          ASSERT_EQ(v, uint32_t(g * 256 + i + 1000)) << "group " << g << " byte " << i;
        }
      auto fin = read(mem, dst, 768);
      for (uint32_t i = 0; i < 768; i += 4) {
        uint32_t v;
        std::memcpy(&v, fin.data() + i, 4);
        ASSERT_EQ(v, i + 1000);
      }
    }
}

TEST(BulkCopy, PrefetchesValidateAndDoNothing) {
  const char* ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 src)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [src];
  cp.async.bulk.prefetch.L2.global [%rd1], 256;
  mov.u64 %rd2, tmap;
  cvta.param.u64 %rd3, %rd2;
  mov.u32 %r1, -4;
  cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd3, {%r1, %r1}];
  ret;
}
)";
  ptxsim::model::GlobalMemory mem;
  uint64_t s = alloc(mem, 1024, "src");
  auto m = encode(tmap::DataType::kUInt32, 2, s, {16, 16}, {64}, {16, 16}, {1, 1});
  Params p;
  p.add_bytes(&m, 128, 64).add(s);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  auto got = read(mem, s, 1024);
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](uint8_t b) { return b == 0xAB; }));
}

TEST(BulkCopy, DecodeChecksAgreeWithPtxas) {
  auto check = [](const std::string& inst, const std::string& target, const std::string& version, const char* want) {
    std::string ptx = ".version " + version + "\n.target " + target +
                      "\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .b16 %h<2>;\n"
                      " .reg .b64 %rd<4>;\n " + inst + "\n ret;\n}\n";
    try {
      ptxsim::load_program(ptx, "d.ptx");
      if (want) ADD_FAILURE() << "accepted: " << inst;
    } catch (const ptxsim::PtxError& e) {
      if (!want) ADD_FAILURE() << "rejected: " << inst << "\n" << e.what();
      else EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << inst << "\n" << e.what();
    }
  };
  check("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 250, [%r2];", "sm_90a", "8.7",
        "expected to be multiple of 16");
  check("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];", "sm_90a", "8.5",
        "requires PTX ISA .version 8.6");
  check("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r1], 256, [%r2];", "sm_90a", "8.0",
        nullptr);
  check("cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%r1], 256, %h1;", "sm_90a", "8.7",
        "not supported on .target 'sm_90a'");
  check("cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%r1], 256, %h1;", "sm_100a", "8.7", nullptr);
  check("cp.async.bulk.shared::cluster.global.bulk_group [%r1], [%rd1], 256;", "sm_90a", "8.7", "'.bulk_group'");
  check("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %rd1, [%r2];", "sm_90a", "8.7",
        "Arguments mismatch");
  check("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd1], [%r1], 256;", "sm_90a", "8.7",
        "Modifier '.noftz' required");
  check("cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.u64 [%rd1], [%r1], 256;", "sm_90a", "8.7",
        "Incorrect type '.u64' for operation '.xor'");
  check("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.u64 [%r1], [%r1], 256, [%r2];",
        "sm_90a", "8.7", "Incorrect type");
  check("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64 [%rd1], [%r1], 256;", "sm_90a", "8.7", nullptr);
  check("cp.async.bulk.wait_group %r1;", "sm_90a", "8.7", "Arguments mismatch");
  check("cp.async.bulk.wait_group.read 2;", "sm_90a", "8.7", nullptr);
  check("cp.async.bulk.prefetch.global [%rd1], 256;", "sm_90a", "8.7", ".level modifier required");
  check("fence.proxy.async;", "sm_90", "7.8", "requires PTX ISA .version 8.0");
  check("fence.proxy.tensormap::generic.acquire.gpu [%rd1], 64;", "sm_90", "8.3", "expected to be 128");
  check("fence.proxy.tensormap::generic.release.gpu [%rd1], 128;", "sm_90", "8.3", ".release modifier required");
  check("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;", "sm_90", "8.6", nullptr);
  check("membar.proxy.alias;", "sm_90", "8.6", nullptr);
  check("tensormap.replace.tile.global_address.shared::cta.b1024.b32 [%r1], %r2;", "sm_90a", "8.7",
        "Illegal modifier '.global_address'");
  check("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r1], 13;", "sm_90a", "8.7", "range [0..12]");
  check("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r1], 13;", "sm_100a", "8.7", nullptr);
  check("tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 1;", "sm_90a", "8.7",
        "not supported on .target 'sm_90a'");
  check("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;", "sm_90", "8.7",
        "not supported on .target 'sm_90'");
  check("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu [%rd1], [%r1], 128;", "sm_90", "8.7",
        ".sync modifier required");
}

TEST(BulkCopy, WarpInstructionCountExcludesTimeSkippedWhileEveryWarpWaits) {
  // One thread: a load and a store, each waited for while nothing else can run, so the engine lets
  // the clock jump to each completion (at least 64 steps after issue). The statistic counts only the
  // warp-instructions issued: the kernel's 15 instructions plus re-executions of the try_wait and
  // the wait_group when they are woken (17 at seed 0), not the skipped clock steps.
  std::vector<uint8_t> src, dst;
  Launched r = round_trip("sm_90a", "shared::cta", 256, "", "", 0, &src, &dst);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_GE(r.result.stats.warp_instructions, 15u);
  EXPECT_LE(r.result.stats.warp_instructions, 20u);
  EXPECT_EQ(r.result.stats.thread_instructions, r.result.stats.warp_instructions);  // one lane
}
