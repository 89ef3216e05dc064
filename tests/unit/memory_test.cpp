// Memory instructions through the real pipeline (load_program + launch): ld, st, mov, cvta in every
// state space, generic addressing, call frames, faults with located diagnostics, and the address
// and cache instructions of sim/sem/addr.cpp (isspacep, mapa, getctarank, prefetch, applypriority,
// discard, createpolicy).
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"
#include "sim/exec/address_space.h"
#include "tests/unit/ptx_test_util.h"

namespace ptxsim {
namespace {

using testutil::hex;
using testutil::kHead;
using testutil::line_of;
using testutil::test_seed;

const char* const kFile = "mem.ptx";
constexpr uint8_t kPoison = 0xCD;

// One kernel launch: a program, its parameters (in declaration order) and a device memory.
struct Launch {
  model::GlobalMemory mem;
  std::shared_ptr<const Program> prog;
  KernelInfo info;
  std::vector<uint8_t> params;
  size_t next = 0;
  LaunchConfig cfg;
  std::string kernel;

  explicit Launch(const std::string& body, const std::string& k = "k") : kernel(k) {
    prog = load_program(kHead + body, kFile);
    for (auto& ki : kernels(*prog))
      if (ki.name == k) info = ki;
    params.assign(info.param_bytes, 0);
  }
  uint64_t alloc(size_t bytes, const std::string& name, uint8_t fill = kPoison) {
    uint64_t a = mem.allocate(bytes, 256, name);
    std::vector<uint8_t> p(bytes, fill);
    mem.write(a, p.data(), bytes);
    return a;
  }
  template <class T>
  uint64_t alloc_data(const std::vector<T>& v, const std::string& name) {
    uint64_t a = alloc(v.size() * sizeof(T), name);
    mem.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> read(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    EXPECT_TRUE(mem.read(addr, v.data(), n * sizeof(T)));
    return v;
  }
  Launch& arg(uint64_t v) {
    EXPECT_LT(next, info.params.size());
    const ParamInfo& p = info.params[next++];
    std::memcpy(params.data() + p.offset, &v, std::min<uint32_t>(p.size, 8));
    return *this;
  }
  Launch& arg_bytes(const std::vector<uint8_t>& bytes) {
    const ParamInfo& p = info.params[next++];
    EXPECT_EQ(bytes.size(), p.size);
    std::memcpy(params.data() + p.offset, bytes.data(), bytes.size());
    return *this;
  }
  RunResult run(Dim3 grid = {1, 1, 1}, Dim3 block = {32, 1, 1}, Dim3 cluster = {1, 1, 1}) {
    cfg.grid = grid;
    cfg.block = block;
    cfg.cluster = cluster;
    cfg.cluster_given = cluster.count() > 1;
    cfg.max_seconds = 60;
    return launch(*prog, kernel, cfg, params, mem);
  }
};

#define EXPECT_COMPLETED(r) EXPECT_EQ((r).status, RunStatus::Completed) << (r).report
#define EXPECT_FAULT(r) ASSERT_EQ((r).status, RunStatus::Fault) << (r).report

// The load error text of a body ("" if it loads).
std::string load_error(const std::string& body) {
  try {
    load_program(kHead + body, kFile);
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

template <class T>
T get(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

// ---- ld/st: widths, sign extension, vectors ---------------------------------------------------

TEST(MemLdSt, ScalarWidthsSignAndZeroExtension) {
  const std::string body = R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<16>;
  .reg .b16 %h<4>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.global.s8 %r1, [%rd1];
  ld.global.u8 %r2, [%rd1];
  ld.global.s16 %r3, [%rd1+2];
  ld.global.u16 %r4, [%rd1+2];
  st.global.u32 [%rd2], %r1;
  st.global.u32 [%rd2+4], %r2;
  st.global.u32 [%rd2+8], %r3;
  st.global.u32 [%rd2+12], %r4;
  ld.global.s8 %rd3, [%rd1+1];
  ld.global.u8 %rd4, [%rd1+1];
  ld.global.s16 %rd5, [%rd1+2];
  ld.global.u16 %rd6, [%rd1+2];
  ld.global.s32 %rd7, [%rd1+4];
  ld.global.u32 %rd8, [%rd1+4];
  ld.global.u64 %rd9, [%rd1+8];
  ld.global.s64 %rd10, [%rd1+8];
  st.global.u64 [%rd2+16], %rd3;
  st.global.u64 [%rd2+24], %rd4;
  st.global.u64 [%rd2+32], %rd5;
  st.global.u64 [%rd2+40], %rd6;
  st.global.u64 [%rd2+48], %rd7;
  st.global.u64 [%rd2+56], %rd8;
  st.global.u64 [%rd2+64], %rd9;
  st.global.b64 [%rd2+72], %rd10;
  ld.global.s8 %h1, [%rd1];
  st.global.b16 [%rd2+80], %h1;
  ld.global.b8 %h2, [%rd1+1];
  st.global.u8 [%rd2+82], %h2;
  st.global.s8 [%rd2+83], %r3;
  st.global.u16 [%rd2+84], %r1;
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  for (int round = 0; round < 8; ++round) {
    Launch L(body);
    std::vector<uint8_t> in(16);
    for (auto& b : in) b = uint8_t(rng());
    if (round == 0) in = {0x80, 0x7f, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 0x88};
    uint64_t ia = L.alloc_data(in, "in"), oa = L.alloc(96, "out");
    L.arg(ia).arg(oa);
    auto r = L.run({1, 1, 1}, {1, 1, 1});
    EXPECT_COMPLETED(r);
    auto out = L.read<uint8_t>(oa, 96);
    int8_t s8a = int8_t(in[0]), s8b = int8_t(in[1]);
    int16_t s16 = int16_t(in[2] | in[3] << 8);
    uint16_t u16 = uint16_t(in[2] | in[3] << 8);
    uint32_t u32 = get<uint32_t>(in, 4);
    uint64_t u64 = get<uint64_t>(in, 8);
    EXPECT_EQ(get<uint32_t>(out, 0), uint32_t(int32_t(s8a)));
    EXPECT_EQ(get<uint32_t>(out, 4), uint32_t(in[0]));
    EXPECT_EQ(get<uint32_t>(out, 8), uint32_t(int32_t(s16)));
    EXPECT_EQ(get<uint32_t>(out, 12), uint32_t(u16));
    EXPECT_EQ(get<uint64_t>(out, 16), uint64_t(int64_t(s8b)));
    EXPECT_EQ(get<uint64_t>(out, 24), uint64_t(in[1]));
    EXPECT_EQ(get<uint64_t>(out, 32), uint64_t(int64_t(s16)));
    EXPECT_EQ(get<uint64_t>(out, 40), uint64_t(u16));
    EXPECT_EQ(get<uint64_t>(out, 48), uint64_t(int64_t(int32_t(u32))));
    EXPECT_EQ(get<uint64_t>(out, 56), uint64_t(u32));
    EXPECT_EQ(get<uint64_t>(out, 64), u64);
    EXPECT_EQ(get<uint64_t>(out, 72), u64);
    EXPECT_EQ(get<uint16_t>(out, 80), uint16_t(int16_t(s8a)));
    EXPECT_EQ(out[82], in[1]);
    EXPECT_EQ(out[83], in[2]);                                 // st.s8 stores the low byte
    EXPECT_EQ(get<uint16_t>(out, 84), uint16_t(int16_t(s8a)));  // st.u16 of a sign-extended s8
    for (size_t i = 86; i < 96; ++i) EXPECT_EQ(out[i], kPoison) << i;
  }
}

TEST(MemLdSt, VectorsB128AndSinks) {
  // Each thread copies a 128-byte record piecewise with every vector shape; bytes 104..127 of
  // each record are never stored and keep the poison.
  const std::string body = R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .b16 %h<8>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<2>;
  .reg .b128 %q<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 128;
  add.u64 %rd4, %rd1, %rd3;
  add.u64 %rd5, %rd2, %rd3;
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];
  st.global.v4.u32 [%rd5], {%r1, %r2, %r3, %r4};
  ld.global.v2.u64 {%rd6, %rd7}, [%rd4+16];
  st.global.v2.u64 [%rd5+16], {%rd6, %rd7};
  ld.global.v4.u16 {%h1, %h2, %h3, %h4}, [%rd4+32];
  st.global.v4.u16 [%rd5+32], {%h1, %h2, %h3, %h4};
  ld.global.v2.b32 {%r5, %r6}, [%rd4+40];
  st.global.v2.b32 [%rd5+40], {%r5, %r6};
  ld.global.b128 %q1, [%rd4+48];
  st.global.b128 [%rd5+48], %q1;
  ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd4+64];
  st.global.v4.f32 [%rd5+64], {%f0, %f1, %f2, %f3};
  ld.global.v2.f64 {%fd0, %fd1}, [%rd4+80];
  st.global.v2.f64 [%rd5+80], {%fd0, %fd1};
  ld.global.v4.u8 {%r7, %r8, %r9, %r10}, [%rd4+96];
  st.global.v4.u8 [%rd5+96], {%r7, %r8, %r9, %r10};
  ld.global.v4.u8 {%h5, _, %h6, _}, [%rd4+100];
  st.global.v2.u8 [%rd5+100], {%h5, %h6};
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  Launch L(body);
  const int n = 64;
  std::vector<uint8_t> in(128 * n);
  for (auto& b : in) b = uint8_t(rng());
  uint64_t ia = L.alloc_data(in, "in"), oa = L.alloc(in.size(), "out");
  L.arg(ia).arg(oa);
  auto r = L.run({1, 1, 1}, {n, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint8_t>(oa, in.size());
  for (int t = 0; t < n; ++t)
    for (int i = 0; i < 128; ++i) {
      uint8_t want = i < 100 ? in[t * 128 + i] : i == 100 ? in[t * 128 + 100] : i == 101 ? in[t * 128 + 102] : kPoison;
      ASSERT_EQ(out[t * 128 + i], want) << "thread " << t << " byte " << i;
    }
}

TEST(MemLdSt, CacheAndMemoryOrderQualifiersDoNotChangeValues) {
  const std::string body = R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.global.nc.u32 %r1, [%rd1];
  ld.global.ca.u32 %r2, [%rd1+4];
  ld.global.cg.v2.u32 {%r3, %r4}, [%rd1+8];
  ld.global.cs.u32 %r5, [%rd1+16];
  ld.global.lu.u32 %r6, [%rd1+20];
  ld.global.cv.u32 %r7, [%rd1+24];
  ld.volatile.global.u32 %r8, [%rd1+28];
  ld.relaxed.gpu.global.u32 %r9, [%rd1+32];
  ld.acquire.sys.global.u32 %r10, [%rd1+36];
  ld.weak.global.u32 %r11, [%rd1+40];
  ld.global.L1::evict_last.u32 %r12, [%rd1+44];
  ld.global.nc.L1::no_allocate.L2::128B.u32 %r13, [%rd1+48];
  ldu.global.u32 %r14, [%rd1+52];
  ldu.global.v2.u32 {%r15, %r16}, [%rd1+56];
  st.global.wb.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
  st.global.cs.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};
  st.release.gpu.global.u32 [%rd2+32], %r9;
  st.relaxed.sys.global.u32 [%rd2+36], %r10;
  st.volatile.global.u32 [%rd2+40], %r11;
  st.global.wt.u32 [%rd2+44], %r12;
  st.global.L1::no_allocate.u32 [%rd2+48], %r13;
  st.weak.global.u32 [%rd2+52], %r14;
  st.mmio.relaxed.sys.global.v2.u32 [%rd2+56], {%r15, %r16};
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  Launch L(body);
  std::vector<uint32_t> in(16);
  for (auto& v : in) v = uint32_t(rng());
  uint64_t ia = L.alloc_data(in, "in"), oa = L.alloc(64, "out");
  L.arg(ia).arg(oa);
  auto r = L.run({1, 1, 1}, {32, 1, 1});
  EXPECT_COMPLETED(r);
  EXPECT_EQ(L.read<uint32_t>(oa, 16), in);
}

// ---- shared, local, module variables ----------------------------------------------------------

TEST(MemShared, StoreBarrierLoadNeighbourAcrossCtas) {
  const std::string good = R"(
.shared .align 4 .b32 sbuf[256];
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, 1000, %r1;
  mov.u32 %r5, sbuf;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r4;
  bar.sync 0;
  add.u32 %r8, %r1, 1;
  rem.u32 %r8, %r8, %r3;
  shl.b32 %r9, %r8, 2;
  add.u32 %r10, %r5, %r9;
  ld.shared::cta.u32 %r11, [%r10];
  mad.lo.u32 %r12, %r2, %r3, %r1;
  mul.wide.u32 %rd2, %r12, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
}
)";
  Launch L(good);
  const uint32_t ctas = 3, threads = 256;
  uint64_t oa = L.alloc(ctas * threads * 4, "out");
  L.arg(oa);
  auto r = L.run({ctas, 1, 1}, {threads, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint32_t>(oa, ctas * threads);
  for (uint32_t c = 0; c < ctas; ++c)
    for (uint32_t t = 0; t < threads; ++t) ASSERT_EQ(out[c * threads + t], c * 1000 + (t + 1) % threads) << c << " " << t;
}

TEST(MemLocal, PerThreadArraysAndModuleVariables) {
  // Local arrays are private per thread; .global and .const module variables are read with their
  // initialisers; a .global variable is written and read back.
  const std::string body = R"(
.const .align 4 .u32 ctab[4] = {10, 20, 30, 40};
.global .align 8 .u64 gvar = 0x1122334455667788;
.global .align 4 .u32 gcount[32];
.visible .entry k(.param .u64 out) {
  .local .align 8 .b8 lbuf[64];
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
LOOP:
  mad.lo.u32 %r3, %r1, 100, %r2;
  mov.u32 %r14, lbuf;
  shl.b32 %r4, %r2, 2;
  add.u32 %r4, %r14, %r4;
  st.local.u32 [%r4], %r3;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra LOOP;
  bar.sync 0;
  ld.local.u32 %r5, [lbuf+20];
  ld.local.v2.u32 {%r6, %r7}, [lbuf+56];
  ld.const.u32 %r9, [ctab+8];
  ld.global.u64 %rd4, [gvar];
  mul.wide.u32 %rd5, %r1, 32;
  add.u64 %rd5, %rd1, %rd5;
  st.global.u32 [%rd5], %r5;
  st.global.u32 [%rd5+4], %r6;
  st.global.u32 [%rd5+8], %r7;
  st.global.u32 [%rd5+12], %r9;
  st.global.u64 [%rd5+16], %rd4;
  ret;
}
)";
  Launch L(body);
  const uint32_t n = 64;
  uint64_t oa = L.alloc(n * 32, "out");
  L.arg(oa);
  auto r = L.run({1, 1, 1}, {n, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint32_t>(oa, n * 8);
  for (uint32_t t = 0; t < n; ++t) {
    EXPECT_EQ(out[t * 8 + 0], t * 100 + 5);
    EXPECT_EQ(out[t * 8 + 1], t * 100 + 14);
    EXPECT_EQ(out[t * 8 + 2], t * 100 + 15);
    EXPECT_EQ(out[t * 8 + 3], 30u);
    EXPECT_EQ(out[t * 8 + 4], 0x55667788u);
    EXPECT_EQ(out[t * 8 + 5], 0x11223344u);
    EXPECT_EQ(out[t * 8 + 6], 0xCDCDCDCDu);
  }
}

// ---- generic addressing -----------------------------------------------------------------------

TEST(MemGeneric, CvtaOfSharedLocalGlobalAndParamPointers) {
  const std::string body = R"(
.visible .entry k(.param .u64 out, .param .u32 pv) {
  .shared .align 8 .b8 sh[256];
  .local .align 8 .b8 lo[16];
  .reg .b32 %r<32>;
  .reg .b64 %rd<32>;
  .reg .pred %p<16>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  cvta.global.u64 %rd3, %rd2;            // generic pointer to out (equal to the global address)
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 64;
  add.u64 %rd5, %rd3, %rd4;              // this thread's 64-byte record
  // shared through a generic pointer, read back with ld.shared
  mov.u64 %rd6, sh;
  cvta.shared.u64 %rd7, %rd6;
  mul.wide.u32 %rd8, %r1, 8;
  add.u64 %rd9, %rd7, %rd8;
  add.u32 %r2, %r1, 1000;
  st.u32 [%rd9], %r2;
  cvta.to.shared.u64 %rd10, %rd9;
  ld.shared.u32 %r3, [%rd10];
  st.u32 [%rd5], %r3;
  cvta.to.shared.u32 %r4, %rd9;           // 32-bit shared address
  ld.shared.u32 %r5, [%r4];
  st.global.u32 [%rd5+4], %r5;
  // local through a generic pointer, read back with ld.local
  mov.u64 %rd11, lo;
  cvta.local.u64 %rd12, %rd11;
  add.u32 %r6, %r1, 2000;
  st.u32 [%rd12+4], %r6;
  ld.local.u32 %r7, [lo+4];
  st.u32 [%rd5+8], %r7;
  cvta.to.local.u64 %rd13, %rd12;
  ld.local.u32 %r8, [%rd13+4];
  st.u32 [%rd5+12], %r8;
  // kernel parameter through a generic pointer
  mov.u64 %rd14, pv;
  cvta.param.u64 %rd15, %rd14;
  ld.u32 %r9, [%rd15];
  st.u32 [%rd5+16], %r9;
  ld.param.u32 %r10, [pv];
  st.u32 [%rd5+20], %r10;
  ld.param.u32 %r11, [%rd14];             // through the .param address mov gives (ptxas rejects a generic [pv])
  st.u32 [%rd5+24], %r11;
  ld.u32 %r12, [sh+8];                    // a shared variable named in a generic address
  st.u32 [%rd5+28], %r12;
  // isspacep on every generic pointer
  isspacep.global %p1, %rd3;
  isspacep.shared %p2, %rd9;
  isspacep.shared::cta %p3, %rd9;
  isspacep.shared::cluster %p4, %rd9;
  isspacep.local %p5, %rd12;
  isspacep.param %p6, %rd15;
  isspacep.param::entry %p7, %rd15;
  isspacep.global %p8, %rd9;
  isspacep.local %p9, %rd3;
  isspacep.shared %p10, %rd12;
  isspacep.global %p11, %rd15;            // the .param window lies inside the .global window
  isspacep.const %p12, %rd3;
  isspacep.param %p13, %rd3;
  selp.u32 %r20, 1, 0, %p1;
  selp.u32 %r21, 1, 0, %p2;
  selp.u32 %r22, 1, 0, %p3;
  selp.u32 %r23, 1, 0, %p4;
  selp.u32 %r24, 1, 0, %p5;
  selp.u32 %r25, 1, 0, %p6;
  selp.u32 %r26, 1, 0, %p7;
  selp.u32 %r27, 1, 0, %p8;
  selp.u32 %r28, 1, 0, %p9;
  selp.u32 %r29, 1, 0, %p10;
  selp.u32 %r30, 1, 0, %p11;
  selp.u32 %r31, 1, 0, %p12;
  selp.u32 %r19, 1, 0, %p13;
  st.v4.u8 [%rd5+32], {%r20, %r21, %r22, %r23};
  st.v4.u8 [%rd5+36], {%r24, %r25, %r26, %r27};
  st.v4.u8 [%rd5+40], {%r28, %r29, %r30, %r31};
  st.u8 [%rd5+44], %r19;
  sub.u64 %rd16, %rd7, %rd6;              // cvta.shared adds the shared window
  st.u64 [%rd5+48], %rd16;
  sub.u64 %rd17, %rd10, %rd9;
  st.u64 [%rd5+56], %rd17;
  ret;
}
)";
  Launch L(body);
  const uint32_t n = 32;
  uint64_t oa = L.alloc(n * 64, "out");
  L.arg(oa).arg(0xA5A5F00Du);
  auto r = L.run({1, 1, 1}, {n, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint8_t>(oa, n * 64);
  for (uint32_t t = 0; t < n; ++t) {
    const size_t o = t * 64;
    EXPECT_EQ(get<uint32_t>(out, o + 0), t + 1000);
    EXPECT_EQ(get<uint32_t>(out, o + 4), t + 1000);
    EXPECT_EQ(get<uint32_t>(out, o + 8), t + 2000);
    EXPECT_EQ(get<uint32_t>(out, o + 12), t + 2000);
    EXPECT_EQ(get<uint32_t>(out, o + 16), 0xA5A5F00Du);
    EXPECT_EQ(get<uint32_t>(out, o + 20), 0xA5A5F00Du);
    EXPECT_EQ(get<uint32_t>(out, o + 24), 0xA5A5F00Du);
    EXPECT_EQ(get<uint32_t>(out, o + 28), 1000u + 1);  // sh+8 holds thread 1's value (one warp: every store precedes the load)
    const uint8_t want[13] = {1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0};
    for (int i = 0; i < 13; ++i) EXPECT_EQ(out[o + 32 + i], want[i]) << "isspacep #" << i + 1 << " thread " << t;
    EXPECT_EQ(get<uint64_t>(out, o + 48), kSharedWindow);
    EXPECT_EQ(get<uint64_t>(out, o + 56), 0u - kSharedWindow);
  }
}

// ---- .param: kernel parameters and call frames -------------------------------------------------

TEST(MemParam, KernelParamsAndFunctionCallFrames) {
  const std::string body = R"(
.func (.param .b32 ret0, .param .align 8 .b8 ret1[16]) callee(.param .b32 a, .param .b64 b, .param .align 8 .b8 arr[16])
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.b32 %r1, [a];
  ld.param.b64 %rd1, [b];
  ld.param.v2.b32 {%r2, %r3}, [arr+8];
  ld.param.s8 %r4, [arr];
  add.u32 %r5, %r1, %r2;
  add.u32 %r5, %r5, %r3;
  add.u32 %r5, %r5, %r4;
  st.param.b32 [ret0], %r5;
  mov.u64 %rd2, a;                        // a function parameter's address is a local address
  cvta.local.u64 %rd3, %rd2;
  ld.u32 %r6, [%rd3];
  add.u64 %rd4, %rd1, 1;
  st.param.v2.b32 [ret1], {%r6, %r4};
  st.param.b64 [ret1+8], %rd4;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 x, .param .align 8 .b8 blob[16], .param .u16 h)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [x];
  ld.param.u16 %r2, [blob+2];
  ld.param.s8 %r3, [blob+5];
  ld.param.u64 %rd2, [blob+8];
  ld.param.u16 %r4, [h];
  mov.u32 %r5, %tid.x;
  add.u32 %r6, %r1, %r5;
  {
    .param .b32 p0;
    .param .b64 p1;
    .param .align 8 .b8 p2[16];
    .param .b32 r0;
    .param .align 8 .b8 r1[16];
    st.param.b32 [p0], %r6;
    st.param.b64 [p1], %rd2;
    st.param.v2.b32 [p2+8], {%r2, %r4};
    st.param.b8 [p2], %r3;
    call.uni (r0, r1), callee, (p0, p1, p2);
    ld.param.b32 %r7, [r0];
    ld.param.v2.b32 {%r8, %r9}, [r1];
    ld.param.b64 %rd3, [r1+8];
  }
  mul.wide.u32 %rd4, %r5, 32;
  add.u64 %rd5, %rd1, %rd4;
  st.global.v4.u32 [%rd5], {%r7, %r8, %r9, %r3};
  st.global.u64 [%rd5+16], %rd3;
  ret;
}
)";
  Launch L(body);
  const uint32_t n = 40;  // a partial second warp
  uint64_t oa = L.alloc(n * 32, "out");
  std::vector<uint8_t> blob(16, 0);
  blob[2] = 0x34;
  blob[3] = 0x12;
  blob[5] = 0xF6;  // -10
  uint64_t big = 0x0123456789ABCDEFull;
  std::memcpy(&blob[8], &big, 8);
  L.arg(oa).arg(500).arg_bytes(blob).arg(7);
  auto r = L.run({1, 1, 1}, {n, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint8_t>(oa, n * 32);
  for (uint32_t t = 0; t < n; ++t) {
    const size_t o = t * 32;
    uint32_t a = 500 + t;
    EXPECT_EQ(get<uint32_t>(out, o + 0), a + 0x1234 + 7 - 10) << t;
    EXPECT_EQ(get<uint32_t>(out, o + 4), a) << t;
    EXPECT_EQ(get<uint32_t>(out, o + 8), uint32_t(-10)) << t;
    EXPECT_EQ(get<uint32_t>(out, o + 12), uint32_t(-10)) << t;
    EXPECT_EQ(get<uint64_t>(out, o + 16), big + 1) << t;
    EXPECT_EQ(get<uint64_t>(out, o + 24), 0xCDCDCDCDCDCDCDCDull) << t;
  }
}

// ---- faults -----------------------------------------------------------------------------------

// Loads `body`, runs kernel k(.param .u64 buf) on a `bytes`-byte allocation named "buf" with one warp,
// and returns the result; `base` receives the allocation's address.
RunResult run_on_buf(const std::string& body, uint64_t& base, Dim3 block = {32, 1, 1}, size_t bytes = 64) {
  Launch L(body);
  base = L.alloc(bytes, "buf");
  L.arg(base);
  return L.run({1, 1, 1}, block);
}

TEST(MemFault, GlobalReadPastTheEndNamesFileLineAddressAndAllocation) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3+32];
  ret;
}
)";
  uint64_t base;
  auto r = run_on_buf(body, base);
  EXPECT_FAULT(r);
  const std::string loc = std::string(kFile) + ":" + std::to_string(line_of(body, "ld.global.u32 %r2")) + ":";
  EXPECT_NE(r.report.find(loc), std::string::npos) << r.report;
  // Lanes 0..7 read inside; lane 8 is the first to read past the end.
  EXPECT_NE(r.report.find("illegal address: global read of 4 bytes at " + hex(base + 64) + " (lane 8): 4 bytes past the end of allocation 'buf' (64 bytes at " + hex(base) + ")"),
            std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("ld.global.u32 %r2, [%rd3+32];"), std::string::npos) << r.report;
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].loc.line, line_of(body, "ld.global.u32 %r2"));
}

TEST(MemFault, StraddlingStoreAndWildAddress) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u64 %rd2, 0;
  st.global.u32 [%rd1+48], %rd2;
  st.global.v2.u64 [%rd1+48], {%rd2, %rd2};
  ret;
}
)";
  uint64_t base;
  auto r = run_on_buf(body, base, {1, 1, 1}, 52);
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "st.global.v2.u64")) + ":"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("global write of 16 bytes at " + hex(base + 48) + " (lane 0): 12 bytes past the end of allocation 'buf' (52 bytes at " + hex(base) + ")"), std::string::npos) << r.report;

  const std::string wild = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b64 %rd<4>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, 0x1000;
  ld.global.u32 %r1, [%rd1];
  ret;
}
)";
  r = run_on_buf(wild, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("illegal address: global read of 4 bytes at 0x1000 (lane 0): not inside any allocation"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(wild, "ld.global.u32")) + ":"), std::string::npos) << r.report;
}

TEST(MemFault, MisalignedScalarAndVectorAccesses) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  ld.global.u32 %r1, [%rd1+4];
  ld.global.v2.u32 {%r2, %r3}, [%rd1+8];
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd1+8];
  ret;
}
)";
  uint64_t base;
  auto r = run_on_buf(body, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "ld.global.v4.u32")) + ":"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("misaligned address: global access of 16 bytes at " + hex(base + 8) + " is not 16-byte aligned"), std::string::npos) << r.report;

  const std::string b2 = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b64 %rd<4>;
  .reg .b16 %h<2>;
  ld.param.u64 %rd1, [buf];
  st.global.b16 [%rd1+3], %h1;
  ret;
}
)";
  r = run_on_buf(b2, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("misaligned address: global access of 2 bytes at " + hex(base + 3) + " is not 2-byte aligned"), std::string::npos) << r.report;
}

TEST(MemFault, SharedBeyondTheCtaSizeAndReservedArea) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf) {
  .shared .align 4 .b8 sh[16];
  .reg .b32 %r<8>;
  mov.u32 %r1, sh;
  ld.shared.u32 %r2, [%r1+12];
  ld.shared.u32 %r3, [%r1+16];
  ret;
}
)";
  uint64_t base;
  auto r = run_on_buf(body, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "[%r1+16]")) + ":"), std::string::npos) << r.report;
  for (const std::string& part : {std::string("illegal address: shared::cta "), " of 4 bytes at " + hex(kSharedReserved + 16) +
                                   " (lane 0): beyond the CTA's 16 bytes of shared memory"})
    EXPECT_NE(r.report.find(part), std::string::npos) << r.report;

  // Dynamic shared memory extends the CTA's size.
  const std::string dyn = R"(
.extern .shared .align 16 .b8 dsm[];
.visible .entry k(.param .u64 buf) {
  .reg .b32 %r<8>;
  mov.u32 %r1, dsm;
  st.shared.u32 [%r1+252], %r1;
  st.shared.u32 [%r1+256], %r1;
  ret;
}
)";
  {
    Launch L(dyn);
    L.arg(L.alloc(64, "buf"));
    L.cfg.dynamic_shared_bytes = 256;
    r = L.run({1, 1, 1}, {1, 1, 1});
    EXPECT_FAULT(r);
    EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(dyn, "[%r1+256]")) + ":"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find(" of 4 bytes at " + hex(kSharedReserved + 256) + " (lane 0): beyond the CTA's 256 bytes"), std::string::npos) << r.report;
  }

  const std::string reserved = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b32 %r<8>;
  mov.u32 %r1, 16;
  ld.shared.u32 %r2, [%r1];
  ret;
}
)";
  r = run_on_buf(reserved, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("inside the reserved first 1024 bytes of shared memory"), std::string::npos) << r.report;
}

// Each kernel of a module gets its own static shared memory, as with ptxas: two kernels whose
// arrays together exceed the per-CTA limit both launch, the variables one kernel uses (directly or
// through a .func) never overlap, and its size is what it uses (a store just past its own array
// faults naming that size).
// ld/st resolve a whole warp at once when every lane's address is plainly valid
// (sim/exec/warp_access.h); one bad lane among 32 must give exactly the per-lane behaviour: the
// lanes below it complete in lane order, the fault names it, the lanes above never run.
TEST(MemFault, OneBadLaneOfAFullWarpStoresTheLanesBelowIt) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf, .param .u32 bad) {
  .shared .align 4 .b8 sh[128];
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r5, [bad];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, %r5;
  selp.u32 %r2, 4096, 0, %p1;
  mad.lo.u32 %r3, %r1, 4, %r2;
  add.u32 %r4, %r1, 100;
  cvt.u64.u32 %rd2, %r3;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  mov.u32 %r6, sh;
  add.u32 %r6, %r6, %r3;
  st.shared.u32 [%r6], %r4;
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  for (int round = 0; round < 4; ++round) {
    const uint32_t bad = round == 0 ? 31 : round == 1 ? 0 : uint32_t(rng() % 32);
    // Global: lane `bad` writes 4096 bytes past its slot, outside the 128-byte buffer.
    Launch L(body);
    const uint64_t base = L.alloc(128, "buf");
    L.arg(base).arg(bad);
    RunResult r = L.run();
    EXPECT_FAULT(r);
    EXPECT_NE(r.report.find("illegal address: global write of 4 bytes at " + hex(base + 4 * bad + 4096) + " (lane " +
                            std::to_string(bad) + ")"),
              std::string::npos)
        << "bad lane " << bad << "\n" << r.report;
    const std::vector<uint32_t> got = L.read<uint32_t>(base, 32);
    for (uint32_t l = 0; l < 32; ++l)
      EXPECT_EQ(got[l], l < bad ? 100 + l : 0xCDCDCDCDu) << "lane " << l << ", bad lane " << bad;

    // Shared: the global store is in bounds for every lane, the shared one is not for lane `bad`.
    Launch S(body);
    const uint64_t big = S.alloc(8192, "buf");
    S.arg(big).arg(bad);
    r = S.run();
    EXPECT_FAULT(r);
    EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "st.shared.u32")) + ":"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find(" of 4 bytes at " + hex(kSharedReserved + 4 * bad + 4096) + " (lane " + std::to_string(bad) +
                            "): beyond the CTA's 128 bytes of shared memory"),
              std::string::npos)
        << "bad lane " << bad << "\n" << r.report;
  }
}

// Local memory addressed through registers (ld/st.local [%rd] and generic addresses in the local
// window) is resolved for a whole warp at once too (sim/exec/warp_access.h): every lane reaches its
// own stack at the same offset, and one lane beyond its local memory gets the per-lane fault, for
// the .local and the generic form alike.
TEST(MemLdSt, LocalThroughRegistersIsPerLaneAndOneBadLaneFaults) {
  const std::string body = R"(
.visible .entry k(.param .u64 out, .param .u32 bad, .param .u32 seed, .param .u32 generic) {
  .local .align 4 .b8 lo[160];
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [bad];
  ld.param.u32 %r2, [seed];
  ld.param.u32 %r8, [generic];
  mov.u32 %r3, %tid.x;
  mul.lo.u32 %r4, %r3, %r2;
  mov.u64 %rd3, lo;
  mul.wide.u32 %rd2, %r3, 4;
  add.u64 %rd4, %rd3, %rd2;
  st.local.u32 [%rd3], %r4;
  st.local.u32 [%rd4+4], %r3;
  cvta.local.u64 %rd5, %rd3;
  ld.u32 %r6, [%rd5];
  ld.local.u32 %r7, [%rd4+4];
  ld.local.u32 %r9, [%rd3];
  add.u32 %r7, %r7, %r9;
  mul.wide.u32 %rd6, %r3, 8;
  add.u64 %rd7, %rd1, %rd6;
  st.global.v2.u32 [%rd7], {%r6, %r7};
  setp.eq.u32 %p1, %r3, %r1;
  selp.u64 %rd8, 2097152, 0, %p1;
  add.u64 %rd9, %rd4, %rd8;
  setp.ne.u32 %p2, %r8, 0;
  @%p2 bra GENERIC;
  st.local.u32 [%rd9], %r4;
  ret;
GENERIC:
  cvta.local.u64 %rd10, %rd9;
  st.u32 [%rd10], %r4;
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  const uint32_t seed = uint32_t(rng()) | 1;
  for (int round = 0; round < 4; ++round) {
    const bool generic = round & 1;
    const uint32_t bad = round < 2 ? 32 : uint32_t(rng() % 32);  // 32: no bad lane
    SCOPED_TRACE("bad lane " + std::to_string(bad) + (generic ? ", generic" : ", .local"));
    Launch L(body);
    const uint64_t out = L.alloc(32 * 8, "out");
    L.arg(out).arg(bad).arg(seed).arg(generic);
    RunResult r = L.run();
    const std::vector<uint32_t> got = L.read<uint32_t>(out, 64);
    for (uint32_t l = 0; l < 32; ++l) {
      EXPECT_EQ(got[2 * l], l * seed) << "lane " << l;
      EXPECT_EQ(got[2 * l + 1], l + l * seed) << "lane " << l;
    }
    if (bad == 32) {
      EXPECT_COMPLETED(r);
      continue;
    }
    EXPECT_FAULT(r);
    EXPECT_NE(r.report.find(std::string(generic ? "generic" : "local") + " write of 4 bytes at "), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("(lane " + std::to_string(bad) + "): beyond the thread's local memory"), std::string::npos)
        << r.report;
  }
}

// A load whose lanes all read one address (a table entry, as in curand's skip-ahead) by a diverged
// group: the odd lanes of a warp read entry k of a global table (signed bytes, sign-extended) and of
// a shared copy; the even lanes' destinations keep their old values.
TEST(MemLdSt, OneAddressForEveryLaneOfADivergedGroup) {
  const std::string body = R"(
.visible .entry k(.param .u64 table, .param .u64 out, .param .u32 k) {
  .shared .align 4 .b8 sh[64];
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [table];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [k];
  mov.u32 %r2, %tid.x;
  cvt.u64.u32 %rd3, %r2;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.s8 %r3, [%rd4];
  mov.u32 %r4, sh;
  add.u32 %r5, %r4, %r2;
  st.shared.u8 [%r5], %r3;
  bar.sync 0;
  cvt.u64.u32 %rd5, %r1;
  add.u64 %rd6, %rd1, %rd5;
  add.u32 %r6, %r4, %r1;
  mov.u32 %r7, 7;
  mov.u32 %r8, 9;
  and.b32 %r9, %r2, 1;
  setp.eq.u32 %p1, %r9, 0;
  @%p1 bra EVEN;
  ld.global.s8 %r7, [%rd6];
  ld.shared.u8 %r8, [%r6];
EVEN:
  mul.wide.u32 %rd7, %r2, 8;
  add.u64 %rd8, %rd2, %rd7;
  st.global.v2.u32 [%rd8], {%r7, %r8};
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  std::vector<uint8_t> table(32);
  for (auto& t : table) t = uint8_t(rng());
  const uint32_t k = uint32_t(rng() % 32);
  Launch L(body);
  const uint64_t dt = L.alloc_data(table, "table");
  const uint64_t out = L.alloc(32 * 8, "out");
  L.arg(dt).arg(out).arg(k);
  RunResult r = L.run();
  EXPECT_COMPLETED(r);
  const std::vector<uint32_t> got = L.read<uint32_t>(out, 64);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(got[2 * l], l % 2 ? uint32_t(int32_t(int8_t(table[k]))) : 7u) << "lane " << l << ", k " << k;
    EXPECT_EQ(got[2 * l + 1], l % 2 ? uint32_t(table[k]) : 9u) << "lane " << l << ", k " << k;
  }
}

// Loads from three allocations in turn (the view of global memory remembers the last two it used):
// each lane sums a[i] + b[i] + c[i] into d[i].
TEST(MemLdSt, LoadsCyclingThroughThreeAllocations) {
  const std::string body = R"(
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u64 %rd4, [d];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd1, %rd5;
  add.u64 %rd7, %rd2, %rd5;
  add.u64 %rd8, %rd3, %rd5;
  add.u64 %rd9, %rd4, %rd5;
  ld.global.u32 %r2, [%rd6];
  ld.global.u32 %r3, [%rd7];
  ld.global.u32 %r4, [%rd8];
  add.u32 %r5, %r2, %r3;
  add.u32 %r5, %r5, %r4;
  st.global.u32 [%rd9], %r5;
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  Launch L(body);
  std::vector<uint32_t> a(64), b(64), c(64);
  for (size_t i = 0; i < 64; ++i) a[i] = uint32_t(rng()), b[i] = uint32_t(rng()), c[i] = uint32_t(rng());
  const uint64_t da = L.alloc_data(a, "a"), db = L.alloc_data(b, "b"), dc = L.alloc_data(c, "c");
  const uint64_t dd = L.alloc(64 * 4, "d");
  L.arg(da).arg(db).arg(dc).arg(dd);
  RunResult r = L.run({1, 1, 1}, {64, 1, 1});
  EXPECT_COMPLETED(r);
  const std::vector<uint32_t> got = L.read<uint32_t>(dd, 64);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(got[i], a[i] + b[i] + c[i]) << "element " << i;
}

// A scalar global load checks and loads each lane in one pass against the first lane's allocation
// (sim/exec/warp_access.h, warp_load_global) and hands the warp to the careful path at the first
// lane outside it. The odd lanes (a diverged group) load a signed half-word from allocation A below
// lane `split` and from B from there on, then follow a pointer of A's to a 64-bit value in B with a
// load whose destination is its own address register; a lane `bad` (when below 32) reads past B's
// end and the launch faults naming it.
TEST(MemLdSt, ScalarGlobalLoadsSpreadOverTwoAllocations) {
  const std::string body = R"(
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 split, .param .u32 bad) {
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r1, [split];
  ld.param.u32 %r2, [bad];
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r3, 8;
  add.u64 %rd5, %rd3, %rd4;
  mov.u32 %r4, 77;
  mov.u64 %rd6, 88;
  and.b32 %r5, %r3, 1;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra STORE;
  setp.lt.u32 %p2, %r3, %r1;
  selp.u64 %rd7, %rd1, %rd2, %p2;
  setp.eq.u32 %p3, %r3, %r2;
  selp.u64 %rd8, 4096, 0, %p3;
  add.u64 %rd7, %rd7, %rd8;
  mul.wide.u32 %rd9, %r3, 2;
  add.u64 %rd10, %rd7, %rd9;
  ld.global.s16 %r4, [%rd10];
  add.u64 %rd6, %rd1, %rd4;
  add.u64 %rd6, %rd6, 64;
  ld.global.u64 %rd6, [%rd6];
  ld.global.u64 %rd6, [%rd6];
STORE:
  st.global.u32 [%rd5], %r4;
  cvt.u32.u64 %r6, %rd6;
  st.global.u32 [%rd5+4], %r6;
  ret;
}
)";
  std::mt19937_64 rng(test_seed());
  for (int round = 0; round < 4; ++round) {
    const uint32_t split = uint32_t(rng() % 33);
    const uint32_t bad = round < 2 ? 32 : 1 + 2 * uint32_t(rng() % 16);  // 32: no bad lane
    SCOPED_TRACE("split " + std::to_string(split) + ", bad lane " + std::to_string(bad));
    Launch L(body);
    std::vector<uint16_t> halves_a(32 + 256), halves_b(32 * 4);
    for (auto& h : halves_a) h = uint16_t(rng());
    for (auto& h : halves_b) h = uint16_t(rng());
    const uint64_t da = L.alloc_data(halves_a, "a"), db = L.alloc_data(halves_b, "b");
    // A's bytes 64 + 8l: lane l's pointer to B's 64-bit word 4 + (l % 12).
    for (uint32_t l = 0; l < 32; ++l) {
      const uint64_t ptr = db + 8 * (4 + l % 12);
      L.mem.write(da + 64 + 8 * l, &ptr, 8);
    }
    const uint64_t out = L.alloc(32 * 8, "out");
    L.arg(da).arg(db).arg(out).arg(split).arg(bad);
    const RunResult r = L.run();
    if (bad < 32) {
      EXPECT_FAULT(r);
      EXPECT_NE(r.report.find("global read of 2 bytes at " + hex((bad < split ? da : db) + 4096 + 2 * bad) + " (lane " +
                              std::to_string(bad) + ")"),
                std::string::npos)
          << r.report;
      continue;
    }
    EXPECT_COMPLETED(r);
    const std::vector<uint32_t> got = L.read<uint32_t>(out, 64);
    std::vector<uint8_t> b_bytes(halves_b.size() * 2);
    std::memcpy(b_bytes.data(), halves_b.data(), b_bytes.size());
    for (uint32_t l = 0; l < 32; ++l) {
      if (l % 2 == 0) {
        EXPECT_EQ(got[2 * l], 77u) << "lane " << l;
        EXPECT_EQ(got[2 * l + 1], 88u) << "lane " << l;
        continue;
      }
      const uint16_t h = l < split ? halves_a[l] : halves_b[l];
      EXPECT_EQ(got[2 * l], uint32_t(int32_t(int16_t(h)))) << "lane " << l;
      EXPECT_EQ(got[2 * l + 1], uint32_t(get<uint64_t>(b_bytes, 8 * (4 + l % 12)))) << "lane " << l;
    }
  }
}

TEST(MemShared, EachKernelOfAModuleHasItsOwnStaticSharedMemory) {
  const std::string body = R"(
.shared .align 16 .b8 big_a[150000];
.shared .align 16 .b8 big_b[150000];
.shared .align 4 .b32 common;
.func (.param .b32 rv) addr_of_common() {
  .reg .b32 %t;
  mov.u32 %t, common;
  st.param.b32 [rv], %t;
  ret;
}
.visible .entry ka(.param .u64 out, .param .u32 past) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r3, [past];
  mov.u32 %r1, big_a;
  { .param .b32 r; call (r), addr_of_common, (); ld.param.b32 %r2, [r]; }
  st.shared.u32 [%r1+149996], %r1;
  st.shared.u32 [%r2], %r2;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  setp.ne.u32 %p, %r3, 0;
  @%p st.shared.u32 [%r2+4], %r2;
  ret;
}
.visible .entry kb(.param .u64 out, .param .u32 past) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, big_b;
  { .param .b32 r; call (r), addr_of_common, (); ld.param.b32 %r2, [r]; }
  st.shared.u32 [%r1+149996], %r1;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
)";
  uint32_t common = 0;
  for (const char* k : {"ka", "kb"}) {
    SCOPED_TRACE(k);
    Launch L(body, k);
    const uint64_t out = L.alloc(8, "out");
    L.arg(out).arg(0);
    RunResult r = L.run({1, 1, 1}, {1, 1, 1});
    EXPECT_COMPLETED(r);
    const auto got = L.read<uint32_t>(out, 2);
    EXPECT_GE(got[0], kSharedReserved);
    EXPECT_TRUE(got[1] >= got[0] + 150000 || got[1] + 4 <= got[0]) << hex(got[0]) << " " << hex(got[1]);
    if (common) {
      EXPECT_EQ(got[1], common);  // one address for the .func in both kernels
    }
    common = got[1];
  }
  // ka uses big_a and common: the word after common is beyond its shared memory.
  Launch L(body, "ka");
  L.arg(L.alloc(8, "out")).arg(1);
  RunResult r = L.run({1, 1, 1}, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "@%p st.shared")) + ":"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find(" of 4 bytes at " + hex(common + 4) + " (lane 0): beyond the CTA's " +
                          std::to_string(common + 4 - kSharedReserved) + " bytes"),
            std::string::npos)
      << r.report;
}

TEST(MemFault, LocalOutOfRangeAndParamWrites) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf) {
  .local .align 4 .b8 lo[16];
  .reg .b32 %r<8>;
  ld.local.u32 %r1, [lo+12];
  ld.local.u32 %r2, [lo+4096];
  ret;
}
)";
  uint64_t base;
  auto r = run_on_buf(body, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "[lo+4096]")) + ":"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("local read of 4 bytes at 0x1000 (lane 0): beyond the thread's local memory"), std::string::npos) << r.report;

  const std::string pw = R"(
.visible .entry k(.param .u64 buf) {
  .reg .b64 %rd<4>;
  mov.u64 %rd1, buf;
  cvta.param.u64 %rd2, %rd1;
  st.u64 [%rd2], %rd1;
  ret;
}
)";
  r = run_on_buf(pw, base, {1, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("generic write of 8 bytes at " + hex(kParamWindow) + " (lane 0): kernel parameters are read-only"), std::string::npos) << r.report;

  EXPECT_NE(load_error(R"(
.visible .entry k(.param .u64 buf) {
  .reg .b64 %rd<4>;
  st.param.u64 [buf], %rd1;
  ret;
}
)").find("st.param may only write parameters of a call"), std::string::npos);
}

TEST(MemBind, LdStOperandChecksAgreeWithPtxas) {
  // Each of these was checked against ptxas (CUDA 13.0, sm_90a).
  auto err = [](const std::string& instr, const std::string& target = "sm_90a", const std::string& version = "8.8") {
    try {
      load_program(".version " + version + "\n.target " + target + "\n.address_size 64\n.global .align 4 .b32 gv[4];\n"
                   ".const .align 4 .b32 cv[4];\n.visible .entry k(.param .u64 pv) {\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
                   "  .reg .b16 %h<8>;\n  .reg .f32 %f<8>;\n  .reg .b128 %q<4>;\n  .shared .align 8 .b32 sv[4];\n"
                   "  .local .align 8 .b32 lv[4];\n  " + instr + "\n  ret;\n}\n", "b.ptx");
    } catch (const PtxError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const char* ok : {"ld.global.b16 %r1, [%rd1];", "ld.global.s8 %rd1, [%rd1];", "ld.global.u32 %rd1, [%rd1];",
                         "ld.global.f32 %rd1, [%rd1];", "st.global.u32 [%rd1], %rd2;", "st.global.u8 [%rd1], %r2;",
                         "st.global.v2.u32 [%rd1], {%r1, 5};", "st.global.u32 [%rd1], 5;", "ld.u32 %r1, [sv];",
                         "ld.u32 %r1, [lv];", "ld.u32 %r1, [gv+4];", "ld.global.u32 %r1, [gv+4];", "ld.const.u32 %r1, [cv];",
                         "ld.local.u32 %r1, [16];", "ld.shared.u32 %r1, [%r2];", "ld.local.u32 %r1, [%r2];",
                         "ld.param.u32 %r1, [%r2];", "ld.param.u64 %rd1, [pv];", "ld.global.v8.b16 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, [%rd1];",
                         "ld.global.v8.u8 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, [%rd1];", "cvta.shared.u64 %rd1, sv;",
                         "cvta.local.u64 %rd1, lv;", "cvta.global.u64 %rd1, gv;", "mov.u64 %rd1, gv;", "mov.u32 %r1, sv;"})
    EXPECT_EQ(err(ok), "") << ok;
  EXPECT_EQ(err("ld.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];", "sm_100a"), "");
  EXPECT_EQ(err("ld.v4.b64 {%rd0, %rd1, %rd2, %rd3}, [%rd1];", "sm_100a"), "");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"ld.global.f16 %h1, [%rd1];", "unexpected modifier '.f16'"},
      {"st.global.bf16x2 [%rd1], %r1;", "unexpected modifier '.bf16x2'"},
      {"ld.global.pred %r1, [%rd1];", "unexpected modifier '.pred'"},
      {"ld.global.u64 %r1, [%rd1];", "destination register of 'ld.global.u64' is 32 bits wide; .u64 needs at least 64"},
      {"ld.global.b32 %h1, [%rd1];", "is 16 bits wide"},
      {"st.global.u64 [%rd1], %r2;", "source register of 'st.global.u64' is 32 bits wide"},
      {"ld.global.v4.u8 {%r1, %h2, %r3, %r4}, [%rd1];", "incompatible elements"},
      {"ld.global.v2.b128 {%q1, %q2}, [%rd1];", "exceeds the vector size limit"},
      {"ld.global.v8.b64 {%rd0, %rd1, %rd2, %rd3, %rd4, %rd5, %rd6, %rd7}, [%rd1];", "exceeds the vector size limit"},
      {"ld.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];", "need .target sm_100 or higher"},
      {"ld.global.v4.u64 {%rd0, %rd1, %rd2, %rd3}, [%rd1];", "need .target sm_100 or higher"},
      {"ld.global.u32 %r1, [sv];", "state space mismatch: 'sv' is a .shared variable, used with 'ld.global.u32'"},
      {"ld.shared.u32 %r1, [gv];", "'gv' is a .global variable"},
      {"ld.const.u32 %r1, [gv];", "'gv' is a .global variable"},
      {"ld.global.u32 %r1, [cv];", "'cv' is a .const variable"},
      {"ld.local.u32 %r1, [sv];", "state space mismatch"},
      {"ld.shared.u32 %r1, [lv];", "'lv' is a .local variable"},
      {"st.global.u32 [sv], %r1;", "state space mismatch"},
      {"cvta.global.u64 %rd1, sv;", "state space mismatch"},
      {"ld.shared.u32 %r1, [16];", "immediate addresses are allowed only for the .local state space"},
      {"ld.u32 %r1, [0x1000];", "immediate addresses"},
      {"st.global.u32 [0x1000], %r1;", "immediate addresses"},
      {"ld.global.u32 %r1, [%r2];", "needs a 64-bit address register"},
      {"ld.u32 %r1, [%r2];", "needs a 64-bit address register"},
      {"mov.u32 %r1, gv;", "needs a 64-bit mov"},
  };
  for (const auto& [instr, want] : bad) EXPECT_NE(err(instr).find(want), std::string::npos) << instr << "\n" << err(instr);
  EXPECT_NE(err("ld.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];", "sm_100a", "8.7").find("require PTX ISA .version 8.8"), std::string::npos);
  EXPECT_NE(err("ld.shared.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%r1];", "sm_100a").find("need .global (or generic) addresses"), std::string::npos);
}

// ---- mov ----------------------------------------------------------------------------------------

TEST(MemMov, PackUnpackAndVariableAddresses) {
  const std::string body = R"(
.global .align 4 .u32 gv[2] = {5, 6};
.visible .entry k(.param .u64 out) {
  .shared .align 8 .b8 sh[8];
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .b128 %q<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 0x44332211;
  mov.b32 {%h0, %h1}, %r1;
  mov.b32 %r2, {%h1, %h0};
  mov.b64 %rd2, 0x8877665544332211;
  mov.b64 {%r3, %r4}, %rd2;
  mov.b64 %rd3, {%r4, %r3};
  mov.b128 %q0, {%rd2, %rd3};
  mov.b128 %q1, %q0;
  mov.b128 {%rd4, %rd5}, %q1;
  mov.u64 %rd6, gv;
  ld.global.u32 %r5, [%rd6+4];
  mov.u32 %r6, sh;
  st.global.u32 [%rd1], %r2;
  st.global.v2.u64 [%rd1+16], {%rd3, %rd4};
  st.global.u64 [%rd1+8], %rd5;
  st.global.u32 [%rd1+32], %r5;
  st.global.u32 [%rd1+36], %r6;
  ret;
}
)";
  Launch L(body);
  uint64_t oa = L.alloc(40, "out");
  L.arg(oa);
  auto r = L.run({1, 1, 1}, {1, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint8_t>(oa, 40);
  EXPECT_EQ(get<uint32_t>(out, 0), 0x22114433u);
  EXPECT_EQ(get<uint64_t>(out, 16), 0x4433221188776655ull);
  EXPECT_EQ(get<uint64_t>(out, 24), 0x8877665544332211ull);
  EXPECT_EQ(get<uint64_t>(out, 8), 0x4433221188776655ull);
  EXPECT_EQ(get<uint32_t>(out, 32), 6u);
  EXPECT_EQ(get<uint32_t>(out, 36), kSharedReserved);  // mov of a shared variable: its shared address
}

// Every pack/unpack form a warp at a time: lane-varying values, 2- and 4-element vectors of 16 and
// 32 bits (and .b128 through the general path), permuted elements, and predicated-off lanes that
// must keep their old values. The reference is the bit arithmetic, per thread.
TEST(MemMov, PackUnpackEveryFormAcrossAWarp) {
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b16 %h<8>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .b128 %q<1>;
  ld.param.u64 %rd7, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, -1640531527;
  xor.b32 %r3, %r2, 0x5bd1e995;
  mov.b64 %rd1, {%r2, %r3};
  mov.b64 {%h0, %h1, %h2, %h3}, %rd1;
  mov.b64 %rd2, {%h3, %h1, %h2, %h0};
  mov.b32 {%h4, %h5}, %r2;
  mov.b32 %r4, {%h5, %h4};
  mov.b32 %r5, 7;
  and.b32 %r6, %r1, 1;
  setp.eq.u32 %p1, %r6, 1;
  @%p1 mov.b32 %r5, {%h2, %h3};
  mov.b16 %h6, 9;
  @!%p1 mov.b32 {%h6, %h7}, %r3;
  cvt.u32.u16 %r11, %h6;
  mov.b128 %q0, {%r2, %r3, %r4, %r5};
  mov.b128 {%r7, %r8, %r9, %r10}, %q0;
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd4, %rd7, %rd3;
  st.global.u64 [%rd4], %rd2;
  st.global.v4.u32 [%rd4+16], {%r4, %r5, %r11, %r8};
  ret;
}
)";
  constexpr uint32_t kThreads = 64;
  Launch L(body);
  uint64_t oa = L.alloc(32 * kThreads, "out");
  L.arg(oa);
  auto r = L.run({1, 1, 1}, {kThreads, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint8_t>(oa, 32 * kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint32_t x = t * 0x9E3779B9u, y = x ^ 0x5bd1e995u;
    const uint64_t h0 = x & 0xFFFF, h1 = x >> 16, h2 = y & 0xFFFF, h3 = y >> 16;
    const bool odd = t & 1;
    EXPECT_EQ(get<uint64_t>(out, 32 * t), h3 | h1 << 16 | h2 << 32 | h0 << 48) << "thread " << t;
    EXPECT_EQ(get<uint32_t>(out, 32 * t + 16), uint32_t(h1 | h0 << 16)) << "thread " << t;
    EXPECT_EQ(get<uint32_t>(out, 32 * t + 20), odd ? y : 7u) << "thread " << t;
    EXPECT_EQ(get<uint32_t>(out, 32 * t + 24), odd ? 9u : y & 0xFFFF) << "thread " << t;
    EXPECT_EQ(get<uint32_t>(out, 32 * t + 28), y) << "thread " << t;
  }
}

// ---- distributed shared memory: mapa, getctarank, isspacep in a cluster ----------------------

TEST(MemCluster, MapaGetctarankAndSharedClusterAccesses) {
  // Each CTA of a 4-CTA cluster writes rank*10+1 into slot[rank] of CTA 0 through mapa and
  // st.shared::cluster, then signals CTA 0 with red.shared::cluster; CTA 0 spins until all four
  // signalled and copies its slots out. Every CTA also reports what getctarank and isspacep say.
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 slots[4];
  .shared .align 4 .b32 counter;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .reg .pred %p<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, slots;
  mapa.shared::cluster.u32 %r3, %r2, 0;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  mad.lo.u32 %r6, %r1, 10, 1;
  st.shared::cluster.u32 [%r5], %r6;
  getctarank.shared::cluster.u32 %r7, %r3;
  getctarank.shared::cluster.u32 %r8, slots;
  mov.u64 %rd2, slots;
  cvta.shared.u64 %rd3, %rd2;
  add.u32 %r9, %r1, 1;
  and.b32 %r9, %r9, 3;
  mapa.u64 %rd4, %rd3, %r9;
  getctarank.u64 %r10, %rd4;
  isspacep.shared::cta %p1, %rd4;
  isspacep.shared::cluster %p2, %rd4;
  isspacep.shared::cta %p3, %rd3;
  mapa.u64 %rd5, %rd3, %r1;
  isspacep.shared::cta %p4, %rd5;
  getctarank.u64 %r15, %rd3;
  mapa.shared::cluster.u64 %rd6, slots, 3;
  getctarank.shared::cluster.u64 %r16, %rd6;
  selp.u32 %r11, 1, 0, %p1;
  selp.u32 %r12, 1, 0, %p2;
  selp.u32 %r13, 1, 0, %p3;
  selp.u32 %r14, 1, 0, %p4;
  mul.wide.u32 %rd7, %r1, 48;
  add.u64 %rd8, %rd1, %rd7;
  st.global.v4.u32 [%rd8], {%r7, %r8, %r10, %r15};
  st.global.v4.u32 [%rd8+16], {%r11, %r12, %r13, %r14};
  st.global.u32 [%rd8+32], %r16;
  mapa.shared::cluster.u32 %r20, counter, 0;
  red.release.cluster.shared::cluster.add.u32 [%r20], 1;
  setp.ne.u32 %p5, %r1, 0;
  @%p5 bra DONE;
SPIN:
  ld.volatile.shared.u32 %r21, [counter];
  setp.lt.u32 %p6, %r21, 4;
  @%p6 bra SPIN;
  ld.shared.v4.u32 {%r22, %r23, %r24, %r25}, [slots];
  st.global.v4.u32 [%rd1+192], {%r22, %r23, %r24, %r25};
  mapa.u64 %rd9, %rd3, 0;
  ld.u32 %r26, [%rd9+4];                  // generic load through the mapped address
  st.global.u32 [%rd1+208], %r26;
DONE:
  ret;
}
)";
  Launch L(body);
  uint64_t oa = L.alloc(224, "out");
  L.arg(oa);
  auto r = L.run({8, 1, 1}, {1, 1, 1}, {4, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint32_t>(oa, 56);
  for (uint32_t k = 0; k < 4; ++k) {
    SCOPED_TRACE("rank " + std::to_string(k));
    EXPECT_EQ(out[k * 12 + 0], 0u);            // getctarank(mapa(slots, 0))
    EXPECT_EQ(out[k * 12 + 1], k);             // getctarank(slots) is the executing CTA
    EXPECT_EQ(out[k * 12 + 2], (k + 1) % 4);   // getctarank(mapa(generic slots, k+1))
    EXPECT_EQ(out[k * 12 + 3], k);             // getctarank(generic slots)
    EXPECT_EQ(out[k * 12 + 4], 0u);            // another CTA's window is not shared::cta
    EXPECT_EQ(out[k * 12 + 5], 1u);            // but it is shared::cluster
    EXPECT_EQ(out[k * 12 + 6], 1u);
    EXPECT_EQ(out[k * 12 + 7], 1u);            // mapa onto the executing CTA is shared::cta
    EXPECT_EQ(out[k * 12 + 8], 3u);
  }
  EXPECT_EQ(out[48], 1u);
  EXPECT_EQ(out[49], 11u);
  EXPECT_EQ(out[50], 21u);
  EXPECT_EQ(out[51], 31u);
  EXPECT_EQ(out[52], 11u);
}

TEST(MemCluster, MapaAndSharedClusterFaults) {
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 slots[4];
  .reg .b32 %r<8>;
  mov.u32 %r1, 4;
  mapa.shared::cluster.u32 %r2, slots, %r1;
  ret;
}
)";
  Launch L(body);
  L.arg(L.alloc(8, "out"));
  auto r = L.run({4, 1, 1}, {1, 1, 1}, {4, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, "mapa.shared")) + ":"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("mapa: target CTA rank 4 (lane 0) is outside the cluster of 4 CTAs"), std::string::npos) << r.report;

  // shared::cta access to another CTA's memory, and a rank beyond the cluster.
  const std::string b2 = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 slots[4];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mapa.shared::cluster.u32 %r2, slots, 1;
  ld.shared::cluster.u32 %r3, [%r2];
  ld.shared.u32 %r4, [%r2];
  ret;
}
)";
  Launch L2(b2);
  L2.arg(L2.alloc(8, "out"));
  r = L2.run({2, 1, 1}, {1, 1, 1}, {2, 1, 1});
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(b2, "ld.shared.u32")) + ":"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("a shared::cta address of CTA rank 1, not of the executing CTA (rank 0); use "
                          ".shared::cluster to reach another CTA's shared memory"), std::string::npos) << r.report;

  const std::string b3 = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  getctarank.u64 %r1, %rd1;
  ret;
}
)";
  Launch L3(b3);
  uint64_t oa = L3.alloc(8, "out");
  L3.arg(oa);
  r = L3.run();
  EXPECT_FAULT(r);
  EXPECT_NE(r.report.find("getctarank: generic address " + hex(oa) + " (lane 0) does not point to shared memory"), std::string::npos) << r.report;
}

TEST(MemCluster, OwnSharedAddressesCarryTheRank) {
  // A shared address is rank << 24 | offset, and a CTA's own addresses carry its own rank: the
  // symbol, cvta.to.shared of its generic address and mapa onto itself are one number.
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 8 .b64 pad;
  .shared .align 4 .b32 word;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, word;
  cvta.shared.u64 %rd2, word;
  cvta.to.shared.u64 %rd3, %rd2;
  cvt.u32.u64 %r3, %rd3;
  mapa.shared::cluster.u32 %r4, word, %r1;
  st.shared.u32 [%r2], %r1;                // through the address with the rank in it
  ld.shared.u32 %r5, [word];
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd5, %rd1, %rd4;
  st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};
  ret;
}
)";
  Launch L(body);
  uint64_t oa = L.alloc(64, "out");
  L.arg(oa);
  auto r = L.run({4, 1, 1}, {1, 1, 1}, {4, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint32_t>(oa, 16);
  for (uint32_t k = 0; k < 4; ++k) {
    SCOPED_TRACE("rank " + std::to_string(k));
    const uint32_t expect = (k << kSharedRankShift) | (kSharedReserved + 8);
    EXPECT_EQ(out[k * 4 + 0], expect);
    EXPECT_EQ(out[k * 4 + 1], expect);
    EXPECT_EQ(out[k * 4 + 2], expect);
    EXPECT_EQ(out[k * 4 + 3], k);
  }
}

TEST(MemCluster, PeerBitMaskNamesTheLeadersBarrier) {
  // CUTLASS's 2-SM idiom (`cast_smem_ptr_to_uint(bar) & Sm100MmaPeerBitMask`): every CTA of a pair
  // arrives on its own barrier's address with bit 24 cleared, which is the even CTA's barrier. Only
  // the even CTAs initialise theirs; they wait for both arrivals. Two pairs in a cluster of 4.
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 8 .b64 bar;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 2;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.u32 %r3, bar;
  and.b32 %r4, %r3, -16777217;             // 0xFEFFFFFF
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];
  @!%p1 bra DONE;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}
)";
  Launch L(body);
  uint64_t oa = L.alloc(16, "out");
  L.arg(oa);
  auto r = L.run({8, 1, 1}, {1, 1, 1}, {4, 1, 1});
  EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << r.report;
  auto out = L.read<uint32_t>(oa, 4);
  EXPECT_EQ(out[0], kSharedReserved);
  EXPECT_EQ(out[2], (2u << kSharedRankShift) | kSharedReserved);
  EXPECT_EQ(out[1], 0xCDCDCDCDu);  // odd CTAs wrote nothing
  EXPECT_EQ(out[3], 0xCDCDCDCDu);
}

TEST(MemShared, DynamicSharedMemoryStartsAfterTheKernelsOwnStaticMemory) {
  // Kernel `k` has no static shared memory of its own; `other` has 16 bytes. As on the hardware,
  // where ptxas lays out each kernel alone, k's dynamic memory starts at 0x400 (CuTe's swizzle
  // layouts assert that alignment), and other's right after its 16 bytes, aligned to the extern
  // declaration's 128.
  const std::string body = R"(
.extern .shared .align 128 .b8 dyn[];
.visible .entry other(.param .u64 out) {
  .shared .align 4 .b8 mine[16];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, dyn;
  mov.u32 %r2, mine;
  st.shared.u32 [mine], %r1;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, dyn;
  st.shared.u32 [dyn+60], 77;
  ld.shared.u32 %r2, [%r1+60];
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
)";
  Launch L(body, "k");
  uint64_t oa = L.alloc(8, "out");
  L.arg(oa);
  L.cfg.dynamic_shared_bytes = 64;
  auto r = L.run();
  EXPECT_COMPLETED(r);
  auto out = L.read<uint32_t>(oa, 2);
  EXPECT_EQ(out[0], kSharedReserved);
  EXPECT_EQ(out[1], 77u);

  Launch O(body, "other");
  oa = O.alloc(8, "out");
  O.arg(oa);
  O.cfg.dynamic_shared_bytes = 64;
  r = O.run();
  EXPECT_COMPLETED(r);
  out = O.read<uint32_t>(oa, 2);
  EXPECT_EQ(out[1], kSharedReserved);
  EXPECT_EQ(out[0], kSharedReserved + 128);
}

TEST(MemShared, GenericAddressInASharedOperandIsItsLow32Bits) {
  // A 64-bit register holding cvta.shared's result, used where the instruction names .shared::cta
  // (a B200 kernel library does this with tcgen05.alloc's destination): the low 32 bits are the
  // shared address, in every CTA of a cluster.
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 word;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  cvta.shared.u64 %rd2, word;
  add.u32 %r2, %r1, 40;
  st.shared::cta.u32 [%rd2], %r2;
  ld.shared.u32 %r3, [word];
  cvta.shared.u64 %rd3, bar;
  mbarrier.init.shared::cta.b64 [%rd3], 1;
  mbarrier.arrive.shared::cta.b64 %rd4, [%rd3];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra WAIT;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r3;
  ret;
}
)";
  Launch L(body);
  uint64_t oa = L.alloc(8, "out");
  L.arg(oa);
  auto r = L.run({2, 1, 1}, {1, 1, 1}, {2, 1, 1});
  EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << r.report;
  auto out = L.read<uint32_t>(oa, 2);
  EXPECT_EQ(out[0], 40u);
  EXPECT_EQ(out[1], 41u);
}

// ---- cache control ------------------------------------------------------------------------------

TEST(MemCache, PrefetchApplyPriorityDiscardAndCreatePolicy) {
  const std::string body = R"(
.visible .entry k(.param .u64 buf, .param .u64 out) {
  .local .align 8 .b8 lo[8];
  .reg .b32 %r<8>;
  .reg .b64 %rd<24>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [out];
  prefetch.global.L1 [%rd1];
  prefetch.global.L2 [%rd1+4096];          // a hint: never faults
  prefetch.global.L2::evict_last [%rd1];
  prefetch.global.L2::evict_normal [%rd1];
  prefetch.local.L1 [lo];
  prefetch.L2 [%rd1];
  prefetchu.L1 [%rd1];
  applypriority.global.L2::evict_normal [%rd1+128], 128;
  applypriority.L2::evict_normal [%rd1], 128;
  discard.global.L2 [%rd1], 128;
  discard.L2 [%rd1+128], 128;
  createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;
  createpolicy.fractional.L2::evict_last.b64 %rd4;
  createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd5, 0.5;
  createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %rd6, 0.5;
  createpolicy.fractional.L2::evict_first.b64 %rd7, 0f3E800000;
  createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd8, [%rd1], 128, 256;
  createpolicy.range.L2::evict_last.b64 %rd9, [%rd1], 128, 256;
  createpolicy.range.L2::evict_last.b64 %rd10, [%rd1+256], 128, 256;
  createpolicy.cvt.L2.b64 %rd11, %rd3;
  mov.f32 %f1, 0f3F000000;
  createpolicy.fractional.L2::evict_normal.b64 %rd12, %f1;
  ld.global.L2::cache_hint.u32 %r1, [%rd1+8], %rd3;
  st.global.L2::cache_hint.u32 [%rd1+12], %r1, %rd5;
  st.global.v2.u64 [%rd2], {%rd3, %rd4};
  st.global.v2.u64 [%rd2+16], {%rd5, %rd6};
  st.global.v2.u64 [%rd2+32], {%rd7, %rd8};
  st.global.v2.u64 [%rd2+48], {%rd9, %rd10};
  st.global.v2.u64 [%rd2+64], {%rd11, %rd12};
  ret;
}
)";
  std::vector<uint64_t> first;
  for (int run = 0; run < 2; ++run) {
    Launch L(body);
    std::vector<uint8_t> data(512);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 + 3);
    uint64_t ba = L.alloc_data(data, "buf"), oa = L.alloc(80, "out");
    L.arg(ba).arg(oa);
    auto r = L.run({1, 1, 1}, {1, 1, 1});
    EXPECT_COMPLETED(r);
    auto after = L.read<uint8_t>(ba, 512);
    for (size_t i = 0; i < 512; ++i) {
      if (i < 12 || i >= 16) {
        ASSERT_EQ(after[i], data[i]) << i;  // discard keeps the data
      }
    }
    EXPECT_EQ(get<uint32_t>(after, 12), get<uint32_t>(data, 8));
    auto p = L.read<uint64_t>(oa, 10);
    if (run == 0) {
      first = p;
    } else {
      EXPECT_EQ(p, first);  // deterministic
    }
    // The documented encoding (sim/sem/addr.cpp): kind 63:62, primary 61:60, secondary 59:58
    // (0 evict_normal, 1 evict_first, 2 evict_last, 3 evict_unchanged), fraction bits 31:0.
    auto frac = [](uint64_t pri, uint64_t sec, uint32_t f) { return 1ull << 62 | pri << 60 | sec << 58 | f; };
    EXPECT_EQ(p[0], frac(2, 3, 0x3f800000u));
    EXPECT_EQ(p[1], p[0]);  // the fraction defaults to 1.0
    EXPECT_EQ(p[2], frac(2, 3, 0x3f000000u));
    EXPECT_EQ(p[3], frac(2, 1, 0x3f000000u));
    EXPECT_EQ(p[4], frac(1, 3, 0x3e800000u));
    EXPECT_EQ(p[5] >> 58, 2ull << 4 | 2 << 2 | 1);
    EXPECT_EQ(p[5] ^ p[6], 2ull << 58);  // same range, other secondary priority
    EXPECT_EQ(p[7] >> 58, p[6] >> 58);
    EXPECT_NE(p[7], p[6]);               // another range
    EXPECT_EQ(p[8] >> 58, 3ull << 4 | 0 << 2 | 0);
    EXPECT_EQ(p[9], frac(0, 3, 0x3f000000u));
  }
}

TEST(MemCache, DiscardAndApplyPriorityValidateTheRange) {
  const std::string tmpl = R"(
.visible .entry k(.param .u64 buf) {
  .shared .align 128 .b8 sh[256];
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  mov.u64 %rd2, sh;
  cvta.shared.u64 %rd3, %rd2;
  INSTR
  ret;
}
)";
  struct Case {
    std::string instr, want;
  };
  const std::vector<Case> cases = {
      {"discard.global.L2 [%rd1+64], 128;", "misaligned address: global access of 128 bytes at BUF+0x40 is not 128-byte aligned"},
      {"discard.global.L2 [%rd1+256], 128;", "global write of 128 bytes at BUF+0x100 (lane 0): 128 bytes past the end of allocation 'buf'"},
      {"discard.L2 [%rd3], 128;", "discard: generic address SH (lane 0) is not in the .global window"},
      {"applypriority.global.L2::evict_normal [%rd1+256], 128;", "global read of 128 bytes at BUF+0x100 (lane 0): 128 bytes past the end of allocation 'buf'"},
      {"applypriority.L2::evict_normal [%rd3], 128;", "applypriority: generic address SH (lane 0) is not in the .global window"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.instr);
    std::string body = tmpl;
    body.replace(body.find("INSTR"), 5, c.instr);
    Launch L(body);
    uint64_t base = L.alloc(256, "buf");
    L.arg(base);
    auto r = L.run({1, 1, 1}, {1, 1, 1});
    EXPECT_FAULT(r);
    std::string want = c.want;
    if (auto at = want.find("BUF+"); at != std::string::npos) {
      uint64_t off = std::strtoull(want.c_str() + at + 4, nullptr, 16);
      size_t end = want.find(' ', at);
      want.replace(at, end - at, hex(base + off));
    }
    if (auto at = want.find("SH"); at != std::string::npos) want.replace(at, 2, hex(kSharedWindow + kSharedReserved));
    EXPECT_NE(r.report.find(want), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("mem.ptx:" + std::to_string(line_of(body, c.instr)) + ":"), std::string::npos) << r.report;
  }
}

// ---- load-time checks ---------------------------------------------------------------------------

TEST(MemBind, RejectedAndUnimplementedForms) {
  auto err = [](const std::string& instr, const std::string& decls = "") {
    return load_error(".visible .entry k(.param .u64 p) {\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n" + decls +
                      "  " + instr + "\n  ret;\n}\n");
  };
  EXPECT_EQ(err("prefetch.const.tensormap [%rd1];"), "");
  EXPECT_NE(err("prefetch.global.tensormap [%rd1];").find("Modifier '.tensormap' cannot be applied to '.global' space"), std::string::npos);
  EXPECT_NE(err("prefetch.tensormap [p];").find("State space mismatch between instruction and address"), std::string::npos);
  // st.async / red.async are simulated (tests/unit/st_async_test.cpp); their sm_100 global forms are not.
  EXPECT_EQ(err("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];"), "");
  EXPECT_EQ(err("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];"), "");
  EXPECT_NE(err("prefetch.global [%rd1];").find("needs one cache level"), std::string::npos);
  EXPECT_NE(err("prefetch.local.L2::evict_last [%rd1];").find("needs a .global (or generic) address"), std::string::npos);
  EXPECT_NE(err("discard.global.L2 [%rd1], 64;").find("must be 128"), std::string::npos);
  EXPECT_NE(err("applypriority.global.L2::evict_normal [%rd1], 256;").find("must be 128"), std::string::npos);
  EXPECT_NE(err("createpolicy.fractional.L2::evict_last.b64 %rd1, 1.5;").find("must lie in (0.0, 1.0]"), std::string::npos);
  EXPECT_NE(err("createpolicy.fractional.L2::evict_last.b64 %rd1, 0.0;").find("must lie in (0.0, 1.0]"), std::string::npos);
  EXPECT_NE(err("createpolicy.fractional.L2::evict_last.L2::evict_last.b64 %rd1;").find("same priority twice"), std::string::npos);
  EXPECT_NE(err("createpolicy.fractional.L2::evict_first.L2::evict_last.b64 %rd1;").find("secondary priority"), std::string::npos);
  EXPECT_NE(err("createpolicy.range.L2::evict_last.b64 %rd1, [%rd2], 512, 256;").find("exceeds its total size"), std::string::npos);
  EXPECT_NE(err("createpolicy.fractional.b64 %rd1;").find("needs a primary priority"), std::string::npos);
  EXPECT_NE(err("isspacep.global.shared %p1, %rd1;").find("one state space"), std::string::npos);
  EXPECT_NE(err("isspacep %p1, %rd1;").find("needs a state space"), std::string::npos);
  EXPECT_NE(err("mapa.u64 %rd1, gvar, 1;", "").find("unknown"), std::string::npos);
  EXPECT_EQ(err("mapa.shared::cluster.u32 %r1, sh, 1;", "  .shared .b32 sh;\n"), "");
  EXPECT_EQ(err("mapa.u64 %rd1, %rd2, %r1;"), "");
  EXPECT_EQ(err("getctarank.u32 %r1, %r2;"), "");
  EXPECT_NE(err("isspacep.shared %p1, sv;", "  .shared .b32 sv;\n").find("must be a register"), std::string::npos);
  EXPECT_NE(err("createpolicy.fractional.L2::evict_last.b64 %rd1, 1;").find("floating-point immediate"), std::string::npos);
  EXPECT_NE(err("discard.global.L2 [sv], 128;", "  .shared .align 128 .b8 sv[128];\n").find("state space mismatch"), std::string::npos);
  EXPECT_NE(err("prefetch.global.L2 [%r1];").find("64-bit address register"), std::string::npos);
  EXPECT_NE(err("prefetch.global.L2 [0x1000];").find("immediate addresses are allowed only for the .local state space"), std::string::npos);
  EXPECT_EQ(err("prefetch.L2::evict_last [%rd1];"), "");
  // Target gates: distributed shared memory needs sm_90.
  std::string old_target = ".version 8.7\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n";
  auto err80 = [&](const std::string& instr) {
    try {
      load_program(old_target + "  " + instr + "\n  ret;\n}\n", "old.ptx");
    } catch (const PtxError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err80("mapa.u64 %rd1, %rd2, %r1;").find("Instruction 'mapa' not supported on .target 'sm_80'"), std::string::npos);
  EXPECT_NE(err80("getctarank.u64 %r1, %rd2;").find("not supported on .target 'sm_80'"), std::string::npos);
  EXPECT_EQ(err80("createpolicy.fractional.L2::evict_last.b64 %rd1;"), "");
  EXPECT_EQ(err80("discard.global.L2 [%rd1], 128;"), "");
}

TEST(MemBind, SymbolPlusOffsetOperands) {
  // `sh + 4` as a plain operand (mapa, getctarank, mov) means the variable's address plus 4.
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 sh[4];
  .local .align 4 .b8 lo[8];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, sh+4;
  mapa.shared::cluster.u32 %r2, sh+8, 0;
  mov.u32 %r3, 77;
  st.local.u32 [lo+4], %r3;
  mov.u64 %rd2, lo+4;
  cvta.local.u64 %rd3, %rd2;
  ld.u32 %r4, [%rd3];
  getctarank.shared::cluster.u32 %r5, sh+4;
  mov.u64 %rd2, sh+4;
  cvta.shared.u64 %rd2, %rd2;
  isspacep.local %p1, %rd3;
  isspacep.shared %p2, %rd2;
  selp.u32 %r6, 1, 0, %p1;
  selp.u32 %r7, 1, 0, %p2;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r4, %r5};
  st.global.v2.u32 [%rd1+16], {%r6, %r7};
  ret;
}
)";
  Launch L(body);
  uint64_t oa = L.alloc(24, "out");
  L.arg(oa);
  auto r = L.run({1, 1, 1}, {1, 1, 1});
  EXPECT_COMPLETED(r);
  auto out = L.read<uint32_t>(oa, 6);
  EXPECT_EQ(out[0], kSharedReserved + 4);
  EXPECT_EQ(out[1], kSharedReserved + 8);  // mapa onto rank 0, the executing CTA
  EXPECT_EQ(out[2], 77u);
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[4], 1u);
  EXPECT_EQ(out[5], 1u);
}

}  // namespace
}  // namespace ptxsim
