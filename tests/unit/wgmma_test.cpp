// wgmma (sim/sem/wgmma.cpp) and the matrix descriptor (model/wgmma/smem_desc.h).
//
// References are written here from the PTX ISA independently of the code under test:
//  * shared-memory images are laid out with the ISA's canonical CuTe layouts (9.7.15.5.1.2.1.3),
//    evaluated mode by mode, then swizzled with CuTe's Swizzle<B,4,3> on byte addresses;
//  * D / A register fragments use the ISA's "Register Fragments" formulas for wgmma;
//  * float results are per-element tc::dot of the Unit::Wgmma model row (the numerics themselves
//    are tested against the Boost.Multiprecision reference in tensorcore_numerics_test.cpp);
//    integer results are plain 64-bit loops.
// Random inputs print their seed (PTXSIM_TEST_SEED).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "model/tensorcore/exact_ref.h"
#include "tests/unit/host_half.h"
#include "model/tensorcore/tensorcore.h"
#include "model/wgmma/smem_desc.h"
#include "sim/api.h"

namespace ptxsim {
namespace {

namespace tc = model::tc;
namespace wg = model::wgmma;

uint64_t seed_for_test() {
  uint64_t s;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  else s = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << info->test_suite_name() << "." << info->name() << ": PTXSIM_TEST_SEED=" << s << "\n";
  return s;
}

// ---- descriptor ---------------------------------------------------------------------------------

TEST(WgmmaDesc, FieldsAtTheirBits) {
  const uint64_t w = 0x3FFFull | 0x2AAAull << 16 | 0x1555ull << 32 | 5ull << 49 | 2ull << 62;
  const wg::SmemDesc d = wg::decode(w);
  EXPECT_EQ(d.start_address, 0x3FFFu);
  EXPECT_EQ(d.leading_byte_offset, 0x2AAAu);
  EXPECT_EQ(d.stride_byte_offset, 0x1555u);
  EXPECT_EQ(d.base_offset, 5u);
  EXPECT_EQ(d.layout, wg::Layout::Swizzle64B);
  EXPECT_EQ(d.reserved, 0u);
  EXPECT_EQ(d.start_bytes(), 0x3FFF0u);
  EXPECT_EQ(wg::encode_bytes(0x41230), 0x123u);  // (x & 0x3FFFF) >> 4
}

RC_GTEST_PROP(WgmmaDescProp, DecodeEncodeRoundTrip, (uint64_t w)) {
  RC_ASSERT(wg::encode(wg::decode(w)) == w);
  const wg::SmemDesc d = wg::decode(w);
  const bool reserved = (w & wg::kReservedMask) != 0;
  const auto problems = wg::validate(d);  // the base offset is never a problem (no rule for it)
  RC_ASSERT(problems.size() == size_t(reserved));
}

RC_GTEST_PROP(WgmmaDescProp, EncodeDecodeRoundTrip, ()) {
  wg::SmemDesc d;
  d.start_address = *rc::gen::inRange<uint32_t>(0, 1u << 14);
  d.leading_byte_offset = *rc::gen::inRange<uint32_t>(0, 1u << 14);
  d.stride_byte_offset = *rc::gen::inRange<uint32_t>(0, 1u << 14);
  d.layout = wg::Layout(*rc::gen::inRange(0, 4));
  d.base_offset = d.layout == wg::Layout::Interleave ? 0 : *rc::gen::inRange<uint32_t>(0, 8);
  const wg::SmemDesc e = wg::decode(wg::encode(d));
  RC_ASSERT(e.start_address == d.start_address && e.leading_byte_offset == d.leading_byte_offset &&
            e.stride_byte_offset == d.stride_byte_offset && e.base_offset == d.base_offset && e.layout == d.layout);
  RC_ASSERT(wg::validate(e).empty());
}

// The chunk-by-chunk address wgmma.mma_async reads K-major operands with is element_address of
// the chunk's first element, for every layout, base offset, element width and descriptor word.
RC_GTEST_PROP(WgmmaDescProp, KMajorChunkAddressIsElementAddress, (uint64_t w)) {
  const wg::SmemDesc d = wg::decode(w);
  const int eb = *rc::gen::element(1, 8, 16, 32);
  const uint32_t mn = *rc::gen::inRange<uint32_t>(0, 256), j = *rc::gen::inRange<uint32_t>(0, 32);
  RC_ASSERT(wg::KMajorChunks(d)(mn, j) == wg::element_address(d, {false, eb}, mn, j * 128 / uint32_t(eb)));
}

// The same for MN-major operands (any element, not only a chunk's first).
RC_GTEST_PROP(WgmmaDescProp, MNMajorChunkAddressIsElementAddress, (uint64_t w)) {
  const wg::SmemDesc d = wg::decode(w);
  const int eb = *rc::gen::element(8, 16, 32);
  const uint32_t mn = *rc::gen::inRange<uint32_t>(0, 256), k = *rc::gen::inRange<uint32_t>(0, 64);
  RC_ASSERT(wg::MNMajorChunks(d, eb)(mn, k) == wg::element_address(d, {true, eb}, mn, k));
}

TEST(WgmmaDesc, ValidationNamesFieldAndRule) {
  wg::SmemDesc d;
  d.base_offset = 3;  // no swizzle: the field has nothing to align and is no error
  auto p = wg::validate(d);
  EXPECT_TRUE(p.empty());
  d = wg::decode(1ull << 15);
  p = wg::validate(d);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "reserved bits 0x8000 are set (only bits 13:0, 29:16, 45:32, 51:49 and 63:62 are fields)");
}

// ---- canonical layouts, evaluated as the ISA writes them -------------------------------------------

// Byte offset of element (mn, k) in the canonical layout (ISA table, strides in units of elements
// with T = 128 / element bits; LBO and SBO given in bytes), before the swizzle.
uint32_t canonical_offset(wg::Layout l, bool mn_major, int ebits, uint32_t lbo, uint32_t sbo, uint32_t mn, uint32_t k) {
  const uint32_t T = 128u / uint32_t(ebits);
  const uint32_t W = l == wg::Layout::Swizzle128B ? 8 : l == wg::Layout::Swizzle64B ? 4 : l == wg::Layout::Swizzle32B ? 2 : 1;
  const uint32_t lbo_e = lbo * 8 / uint32_t(ebits), sbo_e = sbo * 8 / uint32_t(ebits);
  uint32_t e;
  if (!mn_major) {
    // ((8,m),(T,2k)) : ((W T, SBO), (1, LBO or T))
    const uint32_t i0 = mn % 8, i1 = mn / 8, j0 = k % T, j1 = k / T;
    e = l == wg::Layout::Interleave ? i0 * T + i1 * sbo_e + j0 + j1 * lbo_e : i0 * W * T + i1 * sbo_e + j0 + j1 * T;
  } else if (l == wg::Layout::Interleave) {
    // ((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO))
    e = (mn % T) + (mn / T) * sbo_e + (k % 8) * T + (k / 8) * lbo_e;
  } else {
    // ((T,W,m),(8,k)) : ((1,T,LBO),(W T,SBO))
    e = (mn % T) + ((mn / T) % W) * T + (mn / (T * W)) * lbo_e + (k % 8) * W * T + (k / 8) * sbo_e;
  }
  return e * uint32_t(ebits) / 8;
}

// CuTe Swizzle<B,4,3> on a byte address: bits [4, 4+B) ^= bits [7, 7+B).
uint32_t cute_swizzle(wg::Layout l, uint32_t a) {
  const uint32_t B = l == wg::Layout::Swizzle128B ? 3 : l == wg::Layout::Swizzle64B ? 2 : l == wg::Layout::Swizzle32B ? 1 : 0;
  const uint32_t mask = (1u << B) - 1;
  return a ^ (((a >> 7) & mask) << 4);
}

TEST(WgmmaDesc, ElementAddressMatchesCanonicalLayouts) {
  for (int li = 0; li < 4; ++li)
    for (bool mn : {false, true})
      for (int ebits : {8, 16, 32}) {
        const wg::Layout l = wg::Layout(li);
        wg::SmemDesc d;
        d.layout = l;
        d.start_address = 0x4000 >> 4;  // 1024-aligned: the pattern starts here
        d.leading_byte_offset = 0x1000 >> 4;
        d.stride_byte_offset = 0x400 >> 4;
        for (uint32_t r = 0; r < 64; ++r)
          for (uint32_t k = 0; k < 32; ++k) {
            const uint32_t want = cute_swizzle(l, 0x4000 + canonical_offset(l, mn, ebits, 0x1000, 0x400, r, k));
            ASSERT_EQ(wg::element_address(d, {mn, ebits}, r, k), want)
                << wg::layout_name(l) << (mn ? " MN" : " K") << "-major " << ebits << "-bit (" << r << ", " << k << ")";
          }
      }
}

TEST(WgmmaDesc, BaseOffsetShiftsThePatternPhase) {
  // A 128B-swizzle pattern whose first row is at 0x4180 (phase 3 of the 1024-byte repeat): with base
  // offset 3 element (0, 0) is not swizzled, exactly as a pattern starting on a 1024-byte boundary.
  wg::SmemDesc d;
  d.layout = wg::Layout::Swizzle128B;
  d.start_address = 0x4180 >> 4;
  d.stride_byte_offset = 1024 >> 4;
  d.base_offset = 3;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t k = 0; k < 64; k += 8)
      EXPECT_EQ(wg::element_address(d, {false, 16}, r, k), 0x4180 + cute_swizzle(wg::Layout::Swizzle128B, r * 128 + k * 2));
  d.base_offset = 0;  // phase taken from the absolute address instead
  EXPECT_EQ(wg::element_address(d, {false, 16}, 0, 0), 0x4180u + (3u << 4));
}

// ---- the instruction -----------------------------------------------------------------------------

constexpr uint8_t kPoison = 0xA5;

struct Device {
  model::GlobalMemory mem;
  uint64_t alloc(size_t bytes) {
    uint64_t a = mem.allocate(std::max<size_t>(bytes, 4));
    std::vector<uint8_t> p(std::max<size_t>(bytes, 4), kPoison);
    mem.write(a, p.data(), p.size());
    return a;
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    uint64_t a = alloc(v.size() * sizeof(T));
    if (!v.empty()) mem.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    EXPECT_TRUE(mem.read(a, v.data(), n * sizeof(T)));
    return v;
  }
};

enum class Kind { F16F32, F16F16, BF16, TF32, E4M3, E5M2xE4M3, S8, U8S8Sat, B1 };

struct Case {
  Kind kind = Kind::BF16;
  int n = 16;
  wg::Layout la = wg::Layout::Swizzle128B, lb = wg::Layout::Swizzle128B;
  bool a_regs = false, trans_a = false, trans_b = false, neg_a = false, neg_b = false, scale_d = true;
};

struct KindInfo {
  const char* types;  // .dtype.atype.btype
  int ebits, k;
  bool f16_acc, is_int;
  tc::ElemFmt fa, fb;
};
KindInfo info(Kind k) {
  switch (k) {
    case Kind::F16F32: return {".f32.f16.f16", 16, 16, false, false, tc::ElemFmt::F16, tc::ElemFmt::F16};
    case Kind::F16F16: return {".f16.f16.f16", 16, 16, true, false, tc::ElemFmt::F16, tc::ElemFmt::F16};
    case Kind::BF16: return {".f32.bf16.bf16", 16, 16, false, false, tc::ElemFmt::BF16, tc::ElemFmt::BF16};
    case Kind::TF32: return {".f32.tf32.tf32", 32, 8, false, false, tc::ElemFmt::TF32, tc::ElemFmt::TF32};
    case Kind::E4M3: return {".f32.e4m3.e4m3", 8, 32, false, false, tc::ElemFmt::E4M3, tc::ElemFmt::E4M3};
    case Kind::E5M2xE4M3: return {".f16.e5m2.e4m3", 8, 32, true, false, tc::ElemFmt::E5M2, tc::ElemFmt::E4M3};
    case Kind::S8: return {".s32.s8.s8", 8, 32, false, true, tc::ElemFmt::F16, tc::ElemFmt::F16};
    case Kind::U8S8Sat: return {".satfinite.s32.u8.s8", 8, 32, false, true, tc::ElemFmt::F16, tc::ElemFmt::F16};
    case Kind::B1: return {".s32.b1.b1.and.popc", 1, 256, false, true, tc::ElemFmt::F16, tc::ElemFmt::F16};
  }
  return {};
}

// LBO / SBO of a compact tile of `rows` x K in layout l.
std::pair<uint32_t, uint32_t> strides(wg::Layout l, bool mn_major, int ebits, int rows, int K) {
  const uint32_t W = wg::swizzle_bytes(l);
  const uint32_t kbytes = uint32_t(K * ebits / 8), mnbytes = uint32_t(rows * ebits / 8);
  if (!mn_major) return W == 0 ? std::pair{128u, 128u * (kbytes / 16)} : std::pair{0u, 8 * W};
  if (W == 0) return {128u * ((mnbytes + 15) / 16), 128u};
  return {8 * W * uint32_t((K + 7) / 8), 8 * W};
}

// Writes element bits into an smem image with the canonical layout (sub-byte: b1 packs 8 k per byte).
void place(std::vector<uint8_t>& img, uint32_t base, wg::Layout l, bool mn, int ebits, uint32_t lbo, uint32_t sbo,
           int rows, int K, const std::vector<uint32_t>& elems) {
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < K; ++k) {
      const uint32_t v = elems[size_t(r * K + k)];
      if (ebits == 1) {
        const uint32_t a = cute_swizzle(l, base + canonical_offset(l, mn, 8, lbo, sbo, uint32_t(r), uint32_t(k / 8)));
        img[a - 0x400] |= uint8_t((v & 1) << (k % 8));
        continue;
      }
      const uint32_t a = cute_swizzle(l, base + canonical_offset(l, mn, ebits, lbo, sbo, uint32_t(r), uint32_t(k)));
      std::memcpy(&img[a - 0x400], &v, size_t(ebits / 8));
    }
}

// D fragment (ISA "Register Fragments", wgmma accumulator): warp w, lane l, element i.
void d_elem(int w, int l, int i, int& row, int& col) {
  row = 16 * w + l / 4 + 8 * ((i >> 1) & 1);
  col = 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
}
// A fragment (ISA "Register Fragments", wgmma A in registers) for element class bits, element i.
void a_elem(int ebits, int w, int l, int i, int& row, int& col) {
  const int g = l / 4, q = l % 4;
  if (ebits == 16) {
    row = 16 * w + g + 8 * ((i >> 1) & 1);
    col = 2 * q + (i & 1) + 8 * (i >> 2);
  } else if (ebits == 32) {
    row = 16 * w + g + 8 * (i & 1);
    col = q + 4 * (i >> 1);
  } else {  // 8-bit (b1: bytes of 8 elements)
    row = 16 * w + g + 8 * ((i >> 2) & 1);
    col = 4 * q + (i & 3) + 16 * (i >> 3);
  }
}

std::string module(const std::string& body, const std::string& version = "8.4") {
  return ".version " + version + "\n.target sm_90a\n.address_size 64\n\n" + body;
}

// The kernel: copies the smem image in, builds descriptors from templates + the buffer's address,
// loads C (and A registers) per thread, runs one wgmma, and stores D per thread.
std::string kernel_ptx(const Case& cs, const KindInfo& ki, int nd, const std::string& extra_before_wait = "") {
  std::string dregs, aregs = "{%a0, %a1, %a2, %a3}";
  for (int i = 0; i < nd; ++i) dregs += (i ? ", %d" : "%d") + std::to_string(i);
  std::string s = ".shared .align 1024 .b8 smem[65536];\n"
                  ".visible .entry k(.param .u64 pimg, .param .u32 nimg, .param .u64 pc, .param .u64 pd, .param .u64 pa,"
                  " .param .u64 da, .param .u64 db, .param .u32 sd)\n{\n"
                  "  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg .pred %p<4>;\n"
                  "  .reg .b32 %d<" + std::to_string(nd) + ">;\n  .reg .b32 %a<4>;\n"
                  "  ld.param.u64 %rd1, [pimg];\n  ld.param.u32 %r1, [nimg];\n  mov.u32 %r2, %tid.x;\n"
                  "  mov.u32 %r3, smem;\n  shl.b32 %r4, %r2, 2;\n"
                  "COPY:\n  setp.ge.u32 %p1, %r4, %r1;\n  @%p1 bra DONE;\n"
                  "  cvt.u64.u32 %rd2, %r4;\n  add.u64 %rd3, %rd1, %rd2;\n  ld.global.u32 %r5, [%rd3];\n"
                  "  add.u32 %r6, %r3, %r4;\n  st.shared.u32 [%r6], %r5;\n  add.u32 %r4, %r4, 512;\n  bra COPY;\n"
                  "DONE:\n  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
                  "  cvt.u64.u32 %rd4, %r3;\n  shr.u64 %rd4, %rd4, 4;\n"
                  "  ld.param.u64 %rd5, [da];\n  add.u64 %rd5, %rd5, %rd4;\n"
                  "  ld.param.u64 %rd6, [db];\n  add.u64 %rd6, %rd6, %rd4;\n"
                  "  ld.param.u32 %r7, [sd];\n  setp.ne.u32 %p2, %r7, 0;\n"
                  "  ld.param.u64 %rd7, [pc];\n  mul.wide.u32 %rd8, %r2, " + std::to_string(4 * nd) + ";\n"
                  "  add.u64 %rd7, %rd7, %rd8;\n";
  for (int i = 0; i < nd; ++i) s += "  ld.global.u32 %d" + std::to_string(i) + ", [%rd7+" + std::to_string(4 * i) + "];\n";
  s += "  ld.param.u64 %rd9, [pa];\n  mul.wide.u32 %rd10, %r2, 16;\n  add.u64 %rd9, %rd9, %rd10;\n"
       "  ld.global.v4.u32 {%a0, %a1, %a2, %a3}, [%rd9];\n";
  s += "  wgmma.fence.sync.aligned;\n";
  std::string imms;
  const bool f16ish = ki.ebits == 16;
  if (!ki.is_int) imms = std::string(", ") + (cs.neg_a ? "-1" : "1") + ", " + (cs.neg_b ? "-1" : "1");
  if (f16ish) imms += std::string(cs.a_regs ? "" : cs.trans_a ? ", 1" : ", 0") + (cs.trans_b ? ", 1" : ", 0");
  s += "  wgmma.mma_async.sync.aligned.m64n" + std::to_string(cs.n) + "k" + std::to_string(ki.k) + ki.types + " {" +
       dregs + "}, " + (cs.a_regs ? aregs : "%rd5") + ", %rd6, %p2" + imms + ";\n";
  s += "  wgmma.commit_group.sync.aligned;\n" + extra_before_wait + "  wgmma.wait_group.sync.aligned 0;\n";
  s += "  ld.param.u64 %rd11, [pd];\n  add.u64 %rd11, %rd11, %rd8;\n";
  for (int i = 0; i < nd; ++i) s += "  st.global.u32 [%rd11+" + std::to_string(4 * i) + "], %d" + std::to_string(i) + ";\n";
  s += "  ret;\n}\n";
  return module(s);
}

uint32_t random_elem(std::mt19937_64& rng, Kind k, int ebits) {
  const uint64_t r = rng();
  if (ebits == 1) return uint32_t(r & 1);
  if (ebits == 32) return uint32_t(r);
  if (ebits == 16) {
    // Mostly modest magnitudes (so sums are interesting), sometimes any bit pattern.
    if (r % 8 == 0) return uint32_t(r >> 8) & 0xFFFF;
    const uint32_t sign = uint32_t(r >> 20) & 1, man = uint32_t(r >> 24) & 0x3FF;
    return k == Kind::BF16 ? (sign << 15 | (120 + (r >> 40) % 14) << 7 | (man & 0x7F)) : (sign << 15 | (10 + (r >> 40) % 10) << 10 | man);
  }
  return uint32_t(r >> 5) & 0xFF;
}

struct Outcome {
  RunResult res;
  std::vector<uint32_t> d;  // per thread, per register
};

// Runs case cs on fresh random inputs and compares every D element with the reference.
void run_case(const Case& cs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const KindInfo ki = info(cs.kind);
  const int N = cs.n, K = ki.k, M = 64;
  const int nd = ki.f16_acc ? N / 4 : N / 2;
  std::vector<uint32_t> A(size_t(M * K)), B(size_t(N * K));  // A[m][k], B as Bt[n][k]
  for (auto& x : A) x = random_elem(rng, cs.kind, ki.ebits);
  for (auto& x : B) x = random_elem(rng, cs.kind, ki.ebits);
  if (cs.kind == Kind::TF32)
    for (auto& x : A) x &= 0xFFFFE000u;  // tf32 bits are what the registers hold for A (see below)
  std::vector<uint32_t> C(size_t(M * N));
  for (auto& x : C) x = ki.f16_acc ? uint32_t(rng()) & 0xFFFF : ki.is_int ? uint32_t(rng() % 2000) - 1000 : uint32_t(rng());
  if (!ki.is_int && !ki.f16_acc)
    for (auto& x : C) x = (x & 0x807FFFFFu) | (uint32_t(110 + rng() % 30) << 23);

  // Shared-memory image: A at 0x400 (when from the descriptor), B at 0x400 + 32 KiB.
  const uint32_t abase = 0x400, bbase = 0x400 + 0x8000;
  std::vector<uint8_t> img(0x10000, 0);
  auto [alb, asb] = strides(cs.la, cs.trans_a, ki.ebits == 1 ? 8 : ki.ebits, M, ki.ebits == 1 ? K / 8 : K);
  auto [blb, bsb] = strides(cs.lb, cs.trans_b, ki.ebits == 1 ? 8 : ki.ebits, N, ki.ebits == 1 ? K / 8 : K);
  if (!cs.a_regs) place(img, abase, cs.la, cs.trans_a, ki.ebits, alb, asb, M, K, A);
  place(img, bbase, cs.lb, cs.trans_b, ki.ebits, blb, bsb, N, K, B);
  auto desc = [](wg::Layout l, uint32_t off, uint32_t lbo, uint32_t sbo) {
    wg::SmemDesc d;
    d.layout = l;
    d.start_address = wg::encode_bytes(off - 0x400);  // the kernel adds its buffer's address
    d.leading_byte_offset = wg::encode_bytes(lbo);
    d.stride_byte_offset = wg::encode_bytes(sbo);
    return wg::encode(d);
  };

  // Registers: C per thread, A per thread (register-A forms).
  std::vector<uint32_t> creg(size_t(128 * nd)), areg(size_t(128 * 4), 0);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < nd; ++i) {
      uint32_t v = 0;
      for (int h = 0; h < (ki.f16_acc ? 2 : 1); ++h) {
        int row, col;
        d_elem(t / 32, t % 32, ki.f16_acc ? 2 * i + h : i, row, col);
        v |= C[size_t(row * N + col)] << (16 * h);
      }
      creg[size_t(t * nd + i)] = v;
    }
  if (cs.a_regs) {
    const int per = ki.ebits == 32 ? 1 : ki.ebits == 16 ? 2 : 4, bits = 32 / per;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < 4 * per; ++i) {
        int row, col;
        a_elem(ki.ebits == 1 ? 8 : ki.ebits, t / 32, t % 32, i, row, col);
        uint32_t v;
        if (ki.ebits == 1) {
          v = 0;
          for (int b = 0; b < 8; ++b) v |= (A[size_t(row * K + col * 8 + b)] & 1) << b;
        } else {
          v = A[size_t(row * K + col)];
        }
        areg[size_t(t * 4 + i / per)] |= (bits == 32 ? v : (v & ((1u << bits) - 1))) << (bits * (i % per));
      }
  }

  Device dev;
  const uint64_t pimg = dev.upload(img), pc = dev.upload(creg), pd = dev.alloc(creg.size() * 4), pa = dev.upload(areg);
  auto prog = load_program(kernel_ptx(cs, ki, nd), "wgmma_test.ptx");
  auto ks = kernels(*prog);
  const KernelInfo& kinfo = ks.at(0);
  std::vector<uint8_t> params(kinfo.param_bytes, 0);
  const uint64_t args[] = {pimg, uint64_t(img.size()), pc, pd, pa, desc(cs.la, abase, alb, asb),
                           desc(cs.lb, bbase, blb, bsb), uint64_t(cs.scale_d)};
  for (size_t i = 0; i < kinfo.params.size(); ++i) std::memcpy(params.data() + kinfo.params[i].offset, &args[i], kinfo.params[i].size);
  LaunchConfig cfg;
  cfg.block.x = 128;
  cfg.max_seconds = 60;
  RunResult res = launch(*prog, kinfo.name, cfg, params, dev.mem);
  ASSERT_EQ(res.status, RunStatus::Completed) << res.report << (res.diagnostics.empty() ? "" : res.diagnostics[0].format());
  for (const auto& d : res.diagnostics) ADD_FAILURE() << "unexpected diagnostic: " << d.format();
  const auto dreg = dev.download<uint32_t>(pd, creg.size());

  // Reference per element.
  const tc::DotModel* model = nullptr;
  if (!ki.is_int)
    model = tc::find_model(tc::Arch::SM90, tc::Unit::Wgmma, ki.fa, ki.fb, ki.f16_acc ? tc::AccFmt::F16 : tc::AccFmt::F32);
  if (!ki.is_int) {
    ASSERT_NE(model, nullptr);
  }
  const uint32_t sa = ki.ebits == 32 ? 0x80000000u : ki.ebits == 16 ? 0x8000u : 0x80u;
  int bad = 0;
  for (int t = 0; t < 128 && bad < 5; ++t)
    for (int i = 0; i < nd * (ki.f16_acc ? 2 : 1) && bad < 5; ++i) {
      int row, col;
      d_elem(t / 32, t % 32, i, row, col);
      const uint32_t c0 = cs.scale_d ? C[size_t(row * N + col)] : 0;
      uint32_t want;
      if (!ki.is_int) {
        std::vector<tc::Value> va(static_cast<size_t>(K)), vb(static_cast<size_t>(K));
        for (int k = 0; k < K; ++k) {
          va[size_t(k)] = tc::decode_a(*model, ki.fa, A[size_t(row * K + k)] ^ (cs.neg_a ? sa : 0));
          vb[size_t(k)] = tc::decode_b(*model, ki.fb, B[size_t(col * K + k)] ^ (cs.neg_b ? sa : 0));
        }
        want = tc::dot(*model, va.data(), vb.data(), K, c0);
      } else if (cs.kind == Kind::B1) {
        uint32_t acc = c0;
        for (int k = 0; k < K; ++k) acc += A[size_t(row * K + k)] & B[size_t(col * K + k)] & 1;
        want = acc;
      } else {
        int64_t acc = int32_t(c0);
        const bool as = cs.kind == Kind::S8;
        for (int k = 0; k < K; ++k) {
          const int64_t x = as ? int8_t(A[size_t(row * K + k)]) : int64_t(uint8_t(A[size_t(row * K + k)]));
          acc += x * int8_t(B[size_t(col * K + k)]);
        }
        if (cs.kind == Kind::U8S8Sat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        want = uint32_t(acc);
      }
      const uint32_t r = dreg[size_t(t * nd + (ki.f16_acc ? i / 2 : i))];
      const uint32_t got = ki.f16_acc ? (r >> (16 * (i % 2))) & 0xFFFF : r;
      if (got != want) {
        ++bad;
        ADD_FAILURE() << "D(" << row << ", " << col << ") = 0x" << std::hex << got << ", want 0x" << want << std::dec
                      << " (thread " << t << ", element " << i << ")";
      }
    }
}

TEST(WgmmaExec, EveryKindAndSwizzle) {
  const uint64_t seed = seed_for_test();
  const wg::Layout layouts[] = {wg::Layout::Interleave, wg::Layout::Swizzle32B, wg::Layout::Swizzle64B,
                                wg::Layout::Swizzle128B};
  uint64_t s = seed;
  for (Kind k : {Kind::F16F32, Kind::F16F16, Kind::BF16, Kind::TF32, Kind::E4M3, Kind::E5M2xE4M3, Kind::S8,
                 Kind::U8S8Sat, Kind::B1})
    for (int li = 0; li < 4; ++li) {
      Case cs;
      cs.kind = k;
      cs.n = k == Kind::S8 || k == Kind::U8S8Sat || k == Kind::B1 ? 24 : 40;
      cs.la = layouts[li];
      cs.lb = layouts[(li + 1) % 4];
      SCOPED_TRACE("kind " + std::to_string(int(k)) + " layout " + std::to_string(li));
      run_case(cs, s++);
    }
}

TEST(WgmmaExec, TransposesNegationScaleDAndRegisterA) {
  const uint64_t seed = seed_for_test();
  uint64_t s = seed;
  for (Kind k : {Kind::BF16, Kind::F16F16})
    for (int li = 0; li < 4; ++li)
      for (int v = 0; v < 4; ++v) {
        Case cs;
        cs.kind = k;
        cs.n = 64;
        cs.la = wg::Layout(li);
        cs.lb = wg::Layout((li + 2) % 4);
        cs.trans_a = v & 1;
        cs.trans_b = v & 2;
        cs.neg_a = v == 1;
        cs.neg_b = v == 2 || v == 3;
        cs.scale_d = v != 3;
        SCOPED_TRACE("kind " + std::to_string(int(k)) + " layout " + std::to_string(li) + " variant " + std::to_string(v));
        run_case(cs, s++);
      }
  for (Kind k : {Kind::BF16, Kind::TF32, Kind::E4M3, Kind::S8, Kind::B1}) {
    Case cs;
    cs.kind = k;
    cs.n = 32;
    cs.a_regs = true;
    cs.trans_b = k == Kind::BF16;
    SCOPED_TRACE("register A, kind " + std::to_string(int(k)));
    run_case(cs, s++);
  }
}

TEST(WgmmaExec, LargestShape) {
  Case cs;
  cs.kind = Kind::BF16;
  cs.n = 256;
  run_case(cs, seed_for_test());
}

// Launches kernel `k` of `ptx` (one .u64 parameter: an output buffer of `words` 32-bit words,
// poisoned first) as one warpgroup; it must complete without a diagnostic. Returns the buffer.
std::vector<uint32_t> run_with_output(const std::string& ptx, size_t words) {
  Device dev;
  const std::vector<uint32_t> poison(words, 0xDEADBEEFu);
  const uint64_t pd = dev.upload(poison);
  auto prog = load_program(ptx, "wgmma_test.ptx");
  const KernelInfo kinfo = kernels(*prog).at(0);
  std::vector<uint8_t> params(kinfo.param_bytes, 0);
  std::memcpy(params.data() + kinfo.params.at(0).offset, &pd, 8);
  LaunchConfig cfg;
  cfg.block.x = 128;
  cfg.max_seconds = 20;
  const RunResult r = launch(*prog, kinfo.name, cfg, params, dev.mem);
  EXPECT_EQ(r.status, RunStatus::Completed) << r.report;
  for (const auto& diag : r.diagnostics) ADD_FAILURE() << "unexpected diagnostic: " << diag.format();
  return dev.download<uint32_t>(pd, poison.size());
}

// The kernel of the two chain tests below: shared memory filled with `one` (A at 0, warps 0 / 2's B
// at 2048) and `two` (warps 1 / 3's B at 3072), then four m64n8k16 operations of type `types` in
// one group: d = x, e = x (scale-d false), then d += x twice (C first from an in-flight result that
// is not the newest, then from the newest, chained). `d` and `e` are the accumulator operands,
// `decl` declares them; each thread stores d then e, `store` (a st.global of `stride` / 2 bytes)
// with %rd4 pointing at its `stride` bytes. Returns the `words` 32-bit words stored (poisoned
// before the launch).
std::vector<uint32_t> run_chain_kernel(uint32_t one, uint32_t two, const std::string& decl, const std::string& types,
                                       const std::string& d, const std::string& e, const std::string& store,
                                       uint32_t stride) {
  const std::string mma = "  wgmma.mma_async.sync.aligned.m64n8k16" + types + " ";
  const std::string ptx = module(
      ".shared .align 1024 .b8 smem[4096];\n"
      ".visible .entry k(.param .u64 pd)\n{\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg .pred %p<2>;\n" +
      decl +
      "  mov.u32 %r1, smem;\n  mov.u32 %r2, %tid.x;\n  shl.b32 %r4, %r2, 2;\n"
      "FILL:\n  setp.ge.u32 %p1, %r4, 4096;\n  @%p1 bra DONE;\n  setp.lt.u32 %p1, %r4, 3072;\n"
      "  selp.b32 %r5, " + std::to_string(one) + ", " + std::to_string(two) + ", %p1;\n"
      "  add.u32 %r6, %r1, %r4;\n  st.shared.u32 [%r6], %r5;\n"
      "  add.u32 %r4, %r4, 512;\n  bra FILL;\n"
      "DONE:\n  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
      "  cvt.u64.u32 %rd1, %r1;\n  shr.u64 %rd1, %rd1, 4;\n  or.b64 %rd2, %rd1, 0x0000000800080000;\n"
      "  shr.u32 %r7, %r2, 5;\n  and.b32 %r7, %r7, 1;\n  shl.b32 %r7, %r7, 10;\n  add.u32 %r7, %r7, 2048;\n"
      "  add.u32 %r7, %r7, %r1;\n  cvt.u64.u32 %rd3, %r7;\n  shr.u64 %rd3, %rd3, 4;\n"
      "  or.b64 %rd3, %rd3, 0x0000000800080000;\n"
      "  setp.ne.u32 %p1, 1, 1;\n  setp.eq.u32 %p0, 1, 1;\n"
      "  wgmma.fence.sync.aligned;\n" +
      mma + d + ", %rd2, %rd3, %p1, 1, 1, 0, 0;\n" + mma + e + ", %rd2, %rd3, %p1, 1, 1, 0, 0;\n" +
      mma + d + ", %rd2, %rd3, %p0, 1, 1, 0, 0;\n" + mma + d + ", %rd2, %rd3, %p0, 1, 1, 0, 0;\n"
      "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
      "  ld.param.u64 %rd4, [pd];\n  mul.wide.u32 %rd5, %r2, " + std::to_string(stride) + ";\n"
      "  add.u64 %rd4, %rd4, %rd5;\n" +
      store + " [%rd4], " + d + ";\n" + store + " [%rd4+" + std::to_string(stride / 2) + "], " + e + ";\n"
      "  ret;\n}\n");
  return run_with_output(ptx, size_t(128) * stride / 4);
}

// The four warps of a warpgroup normally name one B; ptxsim reads B once per operation and lets
// the other warps reuse it, but only when their descriptor is the same: here warps 0 and 2 point
// B at 1.0s and warps 1 and 3 at 2.0s (A all 1.0, K = 16), so each warp's product is its own
// x = 16 or 32. The chain (run_chain_kernel) then gives d = 3x and e = x.
TEST(WgmmaExec, EachWarpReadsTheBItsDescriptorNamesAndResultsChain) {
  const std::vector<uint32_t> d =
      run_chain_kernel(0x3F803F80, 0x40004000, "  .reg .f32 %d<4>;\n  .reg .f32 %e<4>;\n", ".f32.bf16.bf16",
                       "{%d0, %d1, %d2, %d3}", "{%e0, %e1, %e2, %e3}", "  st.global.v4.f32", 32);
  for (int t = 0; t < 128; ++t) {
    const float x = (t / 32) % 2 ? 32.0f : 16.0f;
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(std::bit_cast<float>(d[size_t(t * 8 + i)]), i < 4 ? 3 * x : x) << "thread " << t << ", register " << i;
  }
}

// The same chain with f16 accumulators (f16 A and B, two elements per register): the chained C
// comes from the newest result's rows, and the one before from the f16 register layout.
TEST(WgmmaExec, F16AccumulatorsChainLikeF32Ones) {
  const std::vector<uint32_t> d =
      run_chain_kernel(0x3C003C00, 0x40004000, "  .reg .b32 %d<2>;\n  .reg .b32 %e<2>;\n", ".f16.f16.f16",
                       "{%d0, %d1}", "{%e0, %e1}", "  st.global.v2.b32", 16);
  for (int t = 0; t < 128; ++t) {
    const bool twos = (t / 32) % 2;                               // this warp's B: 2.0 (x = 32) or 1.0 (x = 16)
    const uint32_t x = twos ? 0x5000u : 0x4C00u, x3 = twos ? 0x5600u : 0x5200u;  // f16 bits of x and 3x
    for (int i = 0; i < 4; ++i) {
      const uint32_t h = i < 2 ? x3 : x;
      EXPECT_EQ(d[size_t(t * 4 + i)], h | h << 16) << "thread " << t << ", register " << i;
    }
  }
}

// The start of a one-warpgroup kernel k(pd) whose shared memory (4 KiB) holds bf16 1.0s, with
// `regs` declared and %rd2 a descriptor of it (no swizzle, LBO and SBO 128 bytes): %r2 is %tid.x.
std::string ones_kernel_head(const std::string& regs) {
  return ".shared .align 1024 .b8 smem[4096];\n"
         ".visible .entry k(.param .u64 pd)\n{\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg .pred %p<2>;\n" +
         regs +
         "  mov.u32 %r1, smem;\n  mov.u32 %r2, %tid.x;\n  shl.b32 %r4, %r2, 2;\n"
         "FILL:\n  setp.ge.u32 %p1, %r4, 4096;\n  @%p1 bra DONE;\n"
         "  add.u32 %r6, %r1, %r4;\n  st.shared.u32 [%r6], 0x3F803F80;\n"
         "  add.u32 %r4, %r4, 512;\n  bra FILL;\n"
         "DONE:\n  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
         "  cvt.u64.u32 %rd1, %r1;\n  shr.u64 %rd1, %rd1, 4;\n  or.b64 %rd2, %rd1, 0x0000000800080000;\n";
}

// An accumulator that the program changes between wgmma.wait_group and the next mma_async: the
// next C must be the registers' new values, not the retired operation's rows (which ptxsim reuses
// as C while the registers still hold them). A = B = 1.0 (K = 16, so each product is 16). d0..d3 =
// 16; then d0 += 1 and d1 = 2; then two more mma_async with scale-d: d = (33, 18, 32, 32), then
// (49, 34, 48, 48), the second taking its C from the first's rows untouched.
TEST(WgmmaExec, AccumulatorWrittenBetweenOperationsIsTheNextC) {
  const std::string mma =
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd2, %rd2, %p1, 1, 1, 0, 0;\n"
      "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
  const std::string ptx = module(ones_kernel_head("  .reg .f32 %d<4>;\n") +
                                 "  setp.ne.u32 %p1, 1, 1;\n  wgmma.fence.sync.aligned;\n" +
      mma +
      "  add.f32 %d0, %d0, 0f3F800000;\n  mov.f32 %d1, 0f40000000;\n"
      "  setp.eq.u32 %p1, 1, 1;\n  wgmma.fence.sync.aligned;\n" +
      mma + mma +
      "  ld.param.u64 %rd4, [pd];\n  mul.wide.u32 %rd5, %r2, 16;\n  add.u64 %rd4, %rd4, %rd5;\n"
      "  st.global.v4.f32 [%rd4], {%d0, %d1, %d2, %d3};\n  ret;\n}\n");
  const std::vector<uint32_t> d = run_with_output(ptx, size_t(128) * 4);
  const float want[4] = {49, 34, 48, 48};
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(std::bit_cast<float>(d[size_t(t * 4 + i)]), want[i]) << "thread " << t << ", register " << i;
}

// Chains across other accumulators in flight: an mma_async's C is the newest in-flight result for
// each of its registers. A = B = 1.0 and K = 16, so each operation adds 16 to its C; d starts as
// (1, 2, 3, 4) so that a C taken from the wrong register shows. With everything in flight at once:
// d += 16 (17 .. 20); e = 16; d += 16 (33 .. 36: C is d's first result, past e's operation);
// e += 16 (32); the registers of d in another order (d2, d3, d0, d1) += 16 (d = 49 .. 52: the same
// registers as a different set, C read register by register); d += 16 (65 .. 68: C is the permuted
// operation's result, not the older same-set one's). A second round adds 16 to the permuted set
// (C: d's retired result, not the permuted set's older rows), to e (C: e's retired rows) and to d
// (C: the permuted operation in flight, not d's retired rows): d = 97 .. 100, e = 48.
TEST(WgmmaExec, ChainsSkipOtherAccumulatorsButNotOverlappingOnes) {
  const std::string mma = "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ";
  const std::string d = "{%d0, %d1, %d2, %d3}", e = "{%e0, %e1, %e2, %e3}", dp = "{%d2, %d3, %d0, %d1}";
  const std::string ptx = module(
      ones_kernel_head("  .reg .f32 %d<4>;\n  .reg .f32 %e<4>;\n") +
      "  setp.ne.u32 %p1, 1, 1;\n  setp.eq.u32 %p0, 1, 1;\n"
      "  mov.f32 %d0, 0f3F800000;\n  mov.f32 %d1, 0f40000000;\n  mov.f32 %d2, 0f40400000;\n  mov.f32 %d3, 0f40800000;\n"
      "  wgmma.fence.sync.aligned;\n" +
      mma + d + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" + mma + e + ", %rd2, %rd2, %p1, 1, 1, 0, 0;\n" +
      mma + d + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" + mma + e + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" +
      mma + dp + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" + mma + d + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" +
      "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
      "  ld.param.u64 %rd4, [pd];\n  mul.wide.u32 %rd5, %r2, 64;\n  add.u64 %rd4, %rd4, %rd5;\n"
      "  st.global.v4.f32 [%rd4], " + d + ";\n  st.global.v4.f32 [%rd4+16], " + e + ";\n"
      "  wgmma.fence.sync.aligned;\n" +
      mma + dp + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" + mma + e + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" +
      mma + d + ", %rd2, %rd2, %p0, 1, 1, 0, 0;\n" +
      "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
      "  st.global.v4.f32 [%rd4+32], " + d + ";\n  st.global.v4.f32 [%rd4+48], " + e + ";\n  ret;\n}\n");
  const std::vector<uint32_t> out = run_with_output(ptx, size_t(128) * 16);
  const float want[16] = {65, 66, 67, 68, 32, 32, 32, 32, 97, 98, 99, 100, 48, 48, 48, 48};
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(std::bit_cast<float>(out[size_t(t * 16 + i)]), want[i]) << "thread " << t << ", register " << i;
}

// ---- diagnostics ---------------------------------------------------------------------------------

RunResult run_text(const std::string& ptx, uint32_t threads = 128) {
  auto prog = load_program(ptx, "wgmma_test.ptx");
  auto ks = kernels(*prog);
  std::vector<uint8_t> params(ks.at(0).param_bytes, 0);
  LaunchConfig cfg;
  cfg.block.x = threads;
  cfg.max_seconds = 20;
  model::GlobalMemory mem;
  return launch(*prog, ks.at(0).name, cfg, params, mem);
}

std::string load_error(const std::string& ptx) {
  try {
    load_program(ptx, "wgmma_test.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// A small kernel: zeroed 64x8x16 bf16 operands in shared memory (interleave layout), one mma.
std::string small_kernel(const std::string& before_mma, const std::string& between, bool fence = true) {
  return module(
      ".shared .align 1024 .b8 smem[4096];\n"
      ".visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n  .reg .f32 %d<4>;\n"
      "  mov.u32 %r1, smem;\n  cvt.u64.u32 %rd1, %r1;\n  shr.u64 %rd1, %rd1, 4;\n"
      "  or.b64 %rd2, %rd1, 0x0000000800080000;\n"  // LBO 128, SBO 128 (>> 4 = 8)
      "  setp.eq.u32 %p1, 1, 1;\n"
      "  mov.f32 %d0, 0f00000000;\n  mov.f32 %d1, 0f00000000;\n  mov.f32 %d2, 0f00000000;\n  mov.f32 %d3, 0f00000000;\n" +
      std::string(fence ? "  wgmma.fence.sync.aligned;\n" : "") + before_mma +
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd2, %rd2, %p1, 1, 1, 0, 0;\n"
      "  wgmma.commit_group.sync.aligned;\n" +
      between + "  wgmma.wait_group.sync.aligned 0;\n  ret;\n}\n");
}

// The 1-based line of the first line of `text` containing `needle`.
uint32_t line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  return at == std::string::npos ? 0 : uint32_t(std::count(text.begin(), text.begin() + long(at), '\n') + 1);
}

bool has_warning(const RunResult& r, const std::string& needle, uint32_t line) {
  for (const auto& d : r.diagnostics)
    if (d.message.find(needle) != std::string::npos && (line == 0 || d.loc.line == line)) return true;
  return false;
}

TEST(WgmmaDiag, AccumulatorTouchedBeforeWaitIsAHazard) {
  const std::string ptx = small_kernel("", "  add.f32 %d1, %d1, %d2;\n");
  const RunResult r = run_text(ptx);
  EXPECT_EQ(r.status, RunStatus::Completed);
  const uint32_t add = line_of(ptx, "add.f32 %d1"), mma = line_of(ptx, "wgmma.mma_async");
  const std::string want = "hazard: write of accumulator register %d1 of the wgmma.mma_async at line " +
                           std::to_string(mma) + " before a wgmma.wait_group covering it";
  EXPECT_TRUE(has_warning(r, want, add)) << (r.diagnostics.empty() ? "no diagnostics" : r.diagnostics[0].format());
  EXPECT_TRUE(has_warning(r, "hazard: read of accumulator register %d2", add));
  EXPECT_EQ(r.diagnostics.size(), 3u);  // write %d1, read %d1, read %d2
}

// A register-A mma_async reads its A registers until a wait covers it: a write before is a hazard;
// once it completed, a write while another operation (shared-memory A) is in flight is none.
TEST(WgmmaDiag, AFragmentWriteIsAHazardOnlyWhileItsOperationIsInFlight) {
  const std::string ptx = module(
      ".shared .align 1024 .b8 smem[4096];\n"
      ".visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n"
      "  .reg .f32 %d<4>;\n  .reg .f32 %e<4>;\n  .reg .b32 %a<4>;\n"
      "  mov.u32 %r1, smem;\n  cvt.u64.u32 %rd1, %r1;\n  shr.u64 %rd1, %rd1, 4;\n"
      "  or.b64 %rd2, %rd1, 0x0000000800080000;\n"
      "  setp.eq.u32 %p1, 1, 1;\n"
      "  mov.b32 %a0, 0;\n  mov.b32 %a1, 0;\n  mov.b32 %a2, 0;\n  mov.b32 %a3, 0;\n"
      "  wgmma.fence.sync.aligned;\n"
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, %rd2, %p1, 1, 1, 0;\n"
      "  wgmma.commit_group.sync.aligned;\n"
      "  mov.b32 %a1, 5;\n"
      "  wgmma.wait_group.sync.aligned 0;\n"
      "  wgmma.fence.sync.aligned;\n"
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%e0, %e1, %e2, %e3}, %rd2, %rd2, %p1, 1, 1, 0, 0;\n"
      "  wgmma.commit_group.sync.aligned;\n"
      "  mov.b32 %a2, 7;\n"
      "  wgmma.wait_group.sync.aligned 0;\n  ret;\n}\n");
  const RunResult r = run_text(ptx);
  EXPECT_EQ(r.status, RunStatus::Completed);
  const std::string want = "hazard: write of A-fragment register %a1 of the wgmma.mma_async at line " +
                           std::to_string(line_of(ptx, "{%a0, %a1, %a2, %a3}")) + " before a wgmma.wait_group covering it";
  EXPECT_TRUE(has_warning(r, want, line_of(ptx, "mov.b32 %a1, 5"))) << (r.diagnostics.empty() ? "no diagnostics" : r.diagnostics[0].format());
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.back().format();
}

TEST(WgmmaDiag, CleanKernelHasNoDiagnostics) {
  const RunResult r = run_text(small_kernel("", ""));
  EXPECT_EQ(r.status, RunStatus::Completed);
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].format();
}

TEST(WgmmaDiag, MissingFenceIsWarned) {
  std::string ptx = small_kernel("", "", false);
  RunResult r = run_text(ptx);
  EXPECT_TRUE(has_warning(r, "wgmma.mma_async without a preceding wgmma.fence", line_of(ptx, "wgmma.mma_async")));
  // A register written after the fence and used by the mma.
  ptx = small_kernel("  mov.f32 %d3, 0f3F800000;\n", "");
  r = run_text(ptx);
  EXPECT_TRUE(has_warning(r,
                          "wgmma.mma_async uses register %d3 written at line " +
                              std::to_string(line_of(ptx, "mov.f32 %d3, 0f3F8")) + " without a wgmma.fence in between",
                          line_of(ptx, "wgmma.mma_async")))
      << (r.diagnostics.empty() ? "no diagnostics" : r.diagnostics[0].format());
}

// A generic-proxy store into the operands' shared memory without fence.proxy.async before the
// mma: both operands (one descriptor) read the stored chunk, K-major and MN-major alike (the two
// layouts are read by different loops); with the fence, no warning.
TEST(WgmmaDiag, UnfencedGenericStoreToAnOperandIsWarned) {
  for (const bool mn_major : {false, true})
    for (const bool fenced : {false, true}) {
      SCOPED_TRACE(std::string(mn_major ? "MN-major" : "K-major") + (fenced ? ", fenced" : ""));
      std::string ptx = small_kernel("  mov.u32 %r2, 0;\n  st.shared.u32 [%r1+4], %r2;\n" +
                                         std::string(fenced ? "  fence.proxy.async.shared::cta;\n" : ""),
                                     "");
      if (mn_major) {
        const std::string k_major_args = "%p1, 1, 1, 0, 0;";
        ASSERT_NE(ptx.find(k_major_args), std::string::npos);
        ptx.replace(ptx.find(k_major_args), k_major_args.size(), "%p1, 1, 1, 1, 1;");
      }
      const RunResult r = run_text(ptx);
      EXPECT_EQ(r.status, RunStatus::Completed);
      const uint32_t mma = line_of(ptx, "wgmma.mma_async");
      for (const char* which : {"A", "B"}) {
        const std::string want = std::string("wgmma.mma_async operand ") + which +
                                 " reads shared memory at 0x400 (this CTA) written through the generic proxy without an "
                                 "intervening fence.proxy.async; the async proxy may read stale data";
        EXPECT_EQ(has_warning(r, want, mma), !fenced) << which << ": "
                                                        << (r.diagnostics.empty() ? "no diagnostics" : r.diagnostics[0].format());
      }
      EXPECT_EQ(r.diagnostics.size(), fenced ? 0u : 2u);
    }
}

TEST(WgmmaDiag, ExitWithMmaInFlightIsWarned) {
  std::string ptx = small_kernel("", "");
  const std::string wait = "  wgmma.wait_group.sync.aligned 0;\n";
  ptx.erase(ptx.find(wait), wait.size());
  const RunResult r = run_text(ptx);
  EXPECT_EQ(r.status, RunStatus::Completed);
  EXPECT_TRUE(has_warning(r,
                          "the warp ends with the wgmma.mma_async at line " +
                              std::to_string(line_of(ptx, "wgmma.mma_async")) +
                              " still in flight (no wgmma.wait_group covers it)",
                          line_of(ptx, "ret;")))
      << (r.diagnostics.empty() ? "no diagnostics" : r.diagnostics[0].format());
  // wait_group 1 leaves the newest group pending: the same report.
  ptx = small_kernel("", "");
  ptx.replace(ptx.find("wait_group.sync.aligned 0"), 25, "wait_group.sync.aligned 1");
  EXPECT_TRUE(has_warning(run_text(ptx), "still in flight", 0));
}

TEST(WgmmaDiag, WarpgroupMustBeConverged) {
  // Warp 1 skips the mma: its next wgmma.mma_async... never comes; a partial warpgroup faults.
  RunResult r = run_text(small_kernel("", ""), 96);
  EXPECT_EQ(r.status, RunStatus::Fault);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("needs a whole warpgroup (4 warps, 128 threads), but the CTA has 96 threads"),
            std::string::npos)
      << r.diagnostics[0].message;
  // Lanes predicated off.
  const std::string pred = small_kernel("", "");
  std::string ptx = pred;
  const std::string mma = "  wgmma.mma_async";
  ptx.replace(ptx.find(mma), mma.size(), "  mov.u32 %r2, %laneid;\n  setp.lt.u32 %p0, %r2, 16;\n  @%p0 wgmma.mma_async");
  r = run_text(ptx);
  EXPECT_EQ(r.status, RunStatus::Fault);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("but only lanes 0xffff of warp 0 do"), std::string::npos)
      << r.diagnostics[0].message;
}

// The warpgroup's n-th mma_async is one operation: warps 0-2 wait at it for warp 3, which waits at
// a named barrier nobody else reaches. Nothing can move: a deadlock whose report says who waits for
// whom.
TEST(WgmmaDiag, WarpgroupWaitsForItsPeers) {
  const std::string ptx = small_kernel(
      "  mov.u32 %r3, %tid.x;\n  setp.ge.u32 %p0, %r3, 96;\n  @%p0 bar.sync 1, 64;\n", "");
  const RunResult r = run_text(ptx);
  EXPECT_EQ(r.status, RunStatus::Deadlock) << r.report;
  const std::string mma = std::to_string(line_of(ptx, "wgmma.mma_async"));
  EXPECT_NE(r.report.find("waiting for warp(s) 3 of its warpgroup (warps 0-3) to issue wgmma.mma_async #1 (the "
                          "warpgroup's operation starts when all four have)"),
            std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("waiting on CTA barrier 1: 32 of 64 threads arrived"), std::string::npos) << r.report;
}

TEST(WgmmaDiag, DescriptorOutsideSharedMemoryFaults) {
  const std::string ptx = small_kernel("  add.u64 %rd2, %rd2, 0x3000;\n", "");
  const RunResult r = run_text(ptx);
  EXPECT_EQ(r.status, RunStatus::Fault);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("is at shared address"), std::string::npos) << r.diagnostics[0].message;
  EXPECT_NE(r.diagnostics[0].message.find("outside the CTA's shared memory"), std::string::npos);
}

// ---- sparse A (wgmma.mma_async.sp) ---------------------------------------------------------------
//
// The reference is written from PTX ISA 9.7.15.6 (sparse storage, the metadata figures; CUTLASS's
// ELayout_64x32/64x16/64x64 agree): a random sparse dense A (64 x K; 2:4, or 1:2 for .tf32) is
// compressed to 64 x K/2 plus per-thread metadata, and D is the dense product of the *uncompressed*
// A with B. Elements and C are small integers, so every sum is exact in any accumulator whatever
// the order of summation (fp8's e8m13 output included: |D| < 2^13).

enum class SpType { F16, BF16, TF32, E4M3, E5M2, S8, U8 };

// Encodings of the integer v in [-3, 3] (u8: [0, 6]).
uint32_t small_int_bits(SpType t, int v) {
  static const uint32_t f16[] = {0, 0x3C00, 0x4000, 0x4200}, b16[] = {0, 0x3F80, 0x4000, 0x4040},
                        e4m3[] = {0, 0x38, 0x40, 0x44}, e5m2[] = {0, 0x3C, 0x40, 0x42};
  switch (t) {
    case SpType::TF32: return std::bit_cast<uint32_t>(float(v));
    case SpType::S8:
    case SpType::U8: return uint32_t(v) & 0xFF;
    default: break;
  }
  const uint32_t mag = (t == SpType::F16 ? f16 : t == SpType::BF16 ? b16 : t == SpType::E4M3 ? e4m3 : e5m2)[std::abs(v)];
  const uint32_t sign = t == SpType::F16 || t == SpType::BF16 ? 0x8000u : 0x80u;
  return v < 0 ? mag | sign : mag;
}

const char* sp_name(SpType t) {
  static const char* n[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"};
  return n[int(t)];
}
int sp_bits(SpType t) { return t == SpType::F16 || t == SpType::BF16 ? 16 : t == SpType::TF32 ? 32 : 8; }
bool sp_int(SpType t) { return t == SpType::S8 || t == SpType::U8; }

struct SparseCase {
  bool bf16 = false, a_regs = false;
  int n = 16, sel = 0;
  int bad_thread = -1;  // >= 0: corrupt one nibble of this thread's metadata
  SpType a = SpType::F16, b = SpType::F16;  // when bf16 is set, both are BF16
  bool satfinite = false;
  uint32_t bad_nibble = 0xA;  // the value written into bits 11:8 of bad_thread's metadata
  bool random_floats = false; // float kinds: random values near 1 instead of small integers
  bool d16 = false;            // .f16 D (two elements per register) instead of .f32
  int dense_k() const { return sp_bits(a) == 16 ? 32 : sp_bits(a) == 32 ? 16 : 64; }
};

SparseCase normalised(SparseCase cs) {
  if (cs.bf16) cs.a = cs.b = SpType::BF16;
  return cs;
}

std::string sparse_kernel_ptx(const SparseCase& cs, int nd) {
  std::string dregs;
  for (int i = 0; i < nd; ++i) dregs += (i ? ", %d" : "%d") + std::to_string(i);
  const bool is_int = sp_int(cs.a), f16ish = sp_bits(cs.a) == 16;
  const std::string ty = std::string(is_int ? ".s32." : cs.d16 ? ".f16." : ".f32.") + sp_name(cs.a) + "." + sp_name(cs.b);
  std::string s = ".shared .align 1024 .b8 smem[65536];\n"
                  ".visible .entry k(.param .u64 pimg, .param .u32 nimg, .param .u64 pc, .param .u64 pd, .param .u64 pa,"
                  " .param .u64 pm, .param .u64 da, .param .u64 db)\n{\n"
                  "  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg .pred %p<4>;\n"
                  "  .reg .b32 %d<" + std::to_string(nd) + ">;\n  .reg .b32 %a<4>;\n  .reg .b32 %meta;\n"
                  "  ld.param.u64 %rd1, [pimg];\n  ld.param.u32 %r1, [nimg];\n  mov.u32 %r2, %tid.x;\n"
                  "  mov.u32 %r3, smem;\n  shl.b32 %r4, %r2, 2;\n"
                  "COPY:\n  setp.ge.u32 %p1, %r4, %r1;\n  @%p1 bra DONE;\n"
                  "  cvt.u64.u32 %rd2, %r4;\n  add.u64 %rd3, %rd1, %rd2;\n  ld.global.u32 %r5, [%rd3];\n"
                  "  add.u32 %r6, %r3, %r4;\n  st.shared.u32 [%r6], %r5;\n  add.u32 %r4, %r4, 512;\n  bra COPY;\n"
                  "DONE:\n  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
                  "  cvt.u64.u32 %rd4, %r3;\n  shr.u64 %rd4, %rd4, 4;\n"
                  "  ld.param.u64 %rd5, [da];\n  add.u64 %rd5, %rd5, %rd4;\n"
                  "  ld.param.u64 %rd6, [db];\n  add.u64 %rd6, %rd6, %rd4;\n"
                  "  setp.eq.u32 %p2, 1, 1;\n"
                  "  ld.param.u64 %rd7, [pc];\n  mul.wide.u32 %rd8, %r2, " + std::to_string(4 * nd) + ";\n"
                  "  add.u64 %rd7, %rd7, %rd8;\n";
  for (int i = 0; i < nd; ++i) s += "  ld.global.u32 %d" + std::to_string(i) + ", [%rd7+" + std::to_string(4 * i) + "];\n";
  s += "  ld.param.u64 %rd9, [pa];\n  mul.wide.u32 %rd10, %r2, 16;\n  add.u64 %rd9, %rd9, %rd10;\n"
       "  ld.global.v4.u32 {%a0, %a1, %a2, %a3}, [%rd9];\n"
       "  ld.param.u64 %rd12, [pm];\n  mul.wide.u32 %rd13, %r2, 4;\n  add.u64 %rd12, %rd12, %rd13;\n"
       "  ld.global.u32 %meta, [%rd12];\n";
  s += "  wgmma.fence.sync.aligned;\n";
  // Immediates after scale-d: imm-scale-a/b (float types), imm-trans-a (A from smem) and
  // imm-trans-b (.f16/.bf16 only).
  std::string imms = is_int ? "" : ", 1, 1";
  if (f16ish) imms += cs.a_regs ? ", 0" : ", 0, 0";
  s += "  wgmma.mma_async.sp.sync.aligned.m64n" + std::to_string(cs.n) + "k" + std::to_string(cs.dense_k()) + ty +
       (cs.satfinite ? ".satfinite" : "") + " {" + dregs + "}, " + (cs.a_regs ? "{%a0, %a1, %a2, %a3}" : "%rd5") +
       ", %rd6, %meta, " + std::to_string(cs.sel) + ", %p2" + imms + ";\n";
  s += "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
  s += "  ld.param.u64 %rd11, [pd];\n  add.u64 %rd11, %rd11, %rd8;\n";
  for (int i = 0; i < nd; ++i) s += "  st.global.u32 [%rd11+" + std::to_string(4 * i) + "], %d" + std::to_string(i) + ";\n";
  s += "  ret;\n}\n";
  return module(s);
}

// Metadata of thread t (warp w, lane l = 4q + u) per the ISA figures, built from the thread's side:
//  * 16-bit and .tf32 (8 chunks per row): lanes with u / 2 == sel carry rows q (bits 15:0) and
//    q + 8 (bits 31:16) of the warp, chunks 4h..4h+3 with h = u % 2, one nibble per chunk; the
//    other lanes get an invalid pattern (0), which must be ignored;
//  * 8-bit (16 chunks per row, sel 0): every lane; row q + 8 (u % 2), chunks 8 (u / 2) .. +7.
// kept[row][chunk] holds the 2:4 nibble (index of the first packed element in bits 1:0), or for
// .tf32 0b0100 / 0b1110.
uint32_t sparse_meta(const SparseCase& cs, const std::vector<uint32_t>& nibble, int chunks, int t) {
  const int w = t / 32, l = t % 32, q = l / 4, u = l % 4;
  uint32_t word = 0;
  if (sp_bits(cs.a) == 8) {
    const int row = 16 * w + q + 8 * (u % 2);
    for (int j = 0; j < 8; ++j) word |= nibble[size_t(row * chunks + 8 * (u / 2) + j)] << (4 * j);
    return word;
  }
  if (u / 2 != cs.sel) return 0;
  for (int half = 0; half < 2; ++half)
    for (int j = 0; j < 4; ++j)
      word |= nibble[size_t((16 * w + q + 8 * half) * chunks + 4 * (u % 2) + j)] << (16 * half + 4 * j);
  return word;
}

tc::ElemFmt sp_fmt(SpType t) {
  switch (t) {
    case SpType::F16: return tc::ElemFmt::F16;
    case SpType::BF16: return tc::ElemFmt::BF16;
    case SpType::TF32: return tc::ElemFmt::TF32;
    case SpType::E4M3: return tc::ElemFmt::E4M3;
    default: return tc::ElemFmt::E5M2;
  }
}

// A random finite value in [0.5, 2) with a random sign and fraction, as bits of format t.
uint32_t near_one_bits(SpType t, uint64_t r) {
  const uint64_t hi = (r >> 40) & 1;
  switch (t) {
    case SpType::F16: return uint32_t((r & 0x83FF) | (hi ? 0x3C00 : 0x3800));
    case SpType::BF16: return uint32_t((r & 0x807F) | (hi ? 0x3F80 : 0x3F00));
    case SpType::E4M3: return uint32_t((r & 0x87) | (hi ? 0x38 : 0x30));
    case SpType::E5M2: return uint32_t((r & 0x83) | (hi ? 0x3C : 0x38));
    default: return uint32_t((r & 0x807FFFFF) | (hi ? 0x3F800000 : 0x3F000000));
  }
}

RunResult run_sparse(SparseCase cs, uint64_t seed, std::vector<uint32_t>* got_d = nullptr,
                     std::vector<uint32_t>* want_d = nullptr) {
  cs = normalised(cs);
  std::mt19937_64 rng(seed);
  // D: N/2 elements per thread (the f32 register layout, d_elem), two per register for .f16.
  const int M = 64, K = cs.dense_k(), KP = K / 2, N = cs.n, ne = N / 2, nd = cs.d16 ? N / 4 : N / 2,
            ebits = sp_bits(cs.a);
  auto f16_of = [](double v) { return uint32_t(std::bit_cast<uint16_t>(static_cast<test::HostHalf>(v))); };
  const bool tf32 = cs.a == SpType::TF32, is_int = sp_int(cs.a);
  const int chunk = tf32 ? 2 : 4, chunks = K / chunk, kept_per_chunk = chunk / 2;
  auto value = [&](SpType t) { return t == SpType::U8 ? int(rng() % 7) : int(rng() % 7) - 3; };
  // Dense sparse A as integers, the metadata nibble per chunk, and the packed A bits.
  std::vector<int> Adense(size_t(M * K), 0), Bv(size_t(N * K)), Cv(size_t(M * N));
  std::vector<uint32_t> nibble(size_t(M * chunks)), P(size_t(M * KP)), Bbits(size_t(N * K));
  std::vector<int> kept_col(size_t(M * KP));
  for (int m = 0; m < M; ++m)
    for (int ch = 0; ch < chunks; ++ch) {
      int idx[2];
      if (tf32) {
        idx[0] = int(rng() % 2);
        nibble[size_t(m * chunks + ch)] = idx[0] ? 0xE : 0x4;
      } else {
        idx[0] = int(rng() % 4);
        idx[1] = int(rng() % 3);
        if (idx[1] >= idx[0]) ++idx[1];
        if (rng() % 2) std::swap(idx[0], idx[1]);  // the ISA orders a chunk's indices by packed element, not by column
        nibble[size_t(m * chunks + ch)] = uint32_t(idx[0] | idx[1] << 2);
      }
      for (int e = 0; e < kept_per_chunk; ++e) {
        const int v = value(cs.a), col = chunk * ch + idx[e];
        Adense[size_t(m * K + col)] = v;
        P[size_t(m * KP + kept_per_chunk * ch + e)] = cs.random_floats ? near_one_bits(cs.a, rng()) : small_int_bits(cs.a, v);
        kept_col[size_t(m * KP + kept_per_chunk * ch + e)] = col;
      }
    }
  for (size_t i = 0; i < Bv.size(); ++i) {
    Bv[i] = value(cs.b);
    Bbits[i] = cs.random_floats ? near_one_bits(cs.b, rng()) : small_int_bits(cs.b, Bv[i]);
  }
  for (int& c : Cv) c = is_int && cs.satfinite ? ((rng() & 1) ? INT32_MAX - int(rng() % 64) : INT32_MIN + int(rng() % 64))
                                               : int(rng() % 201) - 100;

  const uint32_t abase = 0x400, bbase = 0x400 + 0x8000;
  std::vector<uint8_t> img(0x10000, 0);
  const wg::Layout l = wg::Layout::Interleave;
  auto [alb, asb] = strides(l, false, ebits, M, KP);
  auto [blb, bsb] = strides(wg::Layout::Swizzle64B, false, ebits, N, K);
  if (!cs.a_regs) place(img, abase, l, false, ebits, alb, asb, M, KP, P);
  place(img, bbase, wg::Layout::Swizzle64B, false, ebits, blb, bsb, N, K, Bbits);
  auto desc = [](wg::Layout lay, uint32_t off, uint32_t lbo, uint32_t sbo) {
    wg::SmemDesc d;
    d.layout = lay;
    d.start_address = wg::encode_bytes(off - 0x400);
    d.leading_byte_offset = wg::encode_bytes(lbo);
    d.stride_byte_offset = wg::encode_bytes(sbo);
    return wg::encode(d);
  };
  std::vector<uint32_t> creg(size_t(128 * nd), 0), areg(size_t(128 * 4), 0), meta(128), cbits(size_t(128 * ne));
  const int per = 32 / ebits;
  for (int t = 0; t < 128; ++t) {
    for (int i = 0; i < ne; ++i) {
      int row, col;
      d_elem(t / 32, t % 32, i, row, col);
      const int c = Cv[size_t(row * N + col)];
      uint32_t& cb = cbits[size_t(t * ne + i)];
      cb = is_int ? uint32_t(c) : cs.d16 ? f16_of(c) : std::bit_cast<uint32_t>(float(c));
      if (cs.random_floats) cb = cs.d16 ? near_one_bits(SpType::F16, rng()) : near_one_bits(SpType::TF32, rng());
      if (cs.d16) creg[size_t(t * nd + i / 2)] |= cb << (16 * (i % 2));
      else creg[size_t(t * nd + i)] = cb;
    }
    for (int i = 0; i < 4 * per; ++i) {  // the packed 64 x K/2 A has the dense k(K/2) register layout
      int row, col;
      a_elem(ebits, t / 32, t % 32, i, row, col);
      areg[size_t(t * 4 + i / per)] |= P[size_t(row * KP + col)] << (ebits * (i % per));
    }
    meta[size_t(t)] = sparse_meta(cs, nibble, chunks, t);
  }
  if (cs.bad_thread >= 0) meta[size_t(cs.bad_thread)] = (meta[size_t(cs.bad_thread)] & ~0xF00u) | cs.bad_nibble << 8;

  Device dev;
  const uint64_t pimg = dev.upload(img), pc = dev.upload(creg), pd = dev.alloc(creg.size() * 4), pa = dev.upload(areg),
                 pm = dev.upload(meta);
  auto prog = load_program(sparse_kernel_ptx(cs, nd), "wgmma_sp_test.ptx");
  const auto ks = kernels(*prog);
  const KernelInfo& kinfo = ks.at(0);
  std::vector<uint8_t> params(kinfo.param_bytes, 0);
  const uint64_t args[] = {pimg, uint64_t(img.size()), pc, pd, pa, pm, desc(l, abase, alb, asb),
                           desc(wg::Layout::Swizzle64B, bbase, blb, bsb)};
  for (size_t i = 0; i < kinfo.params.size(); ++i) std::memcpy(params.data() + kinfo.params[i].offset, &args[i], kinfo.params[i].size);
  LaunchConfig cfg;
  cfg.block.x = 128;
  cfg.max_seconds = 60;
  RunResult res = launch(*prog, kinfo.name, cfg, params, dev.mem);
  if (res.status != RunStatus::Completed || !got_d) return res;
  const auto dreg = dev.download<uint32_t>(pd, creg.size());
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < ne; ++i) {
      int row, col;
      d_elem(t / 32, t % 32, i, row, col);
      got_d->push_back(cs.d16 ? (dreg[size_t(t * nd + i / 2)] >> (16 * (i % 2))) & 0xFFFF : dreg[size_t(t * nd + i)]);
      if (cs.random_floats) {
        // One dot of the K/2 kept products with the B elements they select (the model's exact
        // reference on the wgmma row).
        const tc::DotModel* m = tc::find_model(tc::Arch::SM90, tc::Unit::Wgmma, sp_fmt(cs.a), sp_fmt(cs.b),
                                               cs.d16 ? tc::AccFmt::F16 : tc::AccFmt::F32);
        std::vector<uint32_t> a(static_cast<size_t>(KP)), b(static_cast<size_t>(KP));
        for (int p = 0; p < KP; ++p) {
          a[size_t(p)] = P[size_t(row * KP + p)];
          b[size_t(p)] = Bbits[size_t(col * K + kept_col[size_t(row * KP + p)])];
        }
        want_d->push_back(m ? tc::ref::dot(*m, sp_fmt(cs.a), a.data(), sp_fmt(cs.b), b.data(), KP, cbits[size_t(t * ne + i)])
                            : 0xDEADBEEFu);
        continue;
      }
      int64_t acc = Cv[size_t(row * N + col)];
      for (int k = 0; k < K; ++k) acc += int64_t(Adense[size_t(row * K + k)]) * Bv[size_t(col * K + k)];
      if (is_int && cs.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      want_d->push_back(is_int ? uint32_t(acc) : cs.d16 ? f16_of(double(acc)) : std::bit_cast<uint32_t>(float(acc)));
    }
  return res;
}

std::string sparse_case_name(const SparseCase& c) {
  const SparseCase cs = normalised(c);
  return std::string(sp_name(cs.a)) + "." + sp_name(cs.b) + (cs.a_regs ? " A in registers" : " A from smem") +
         " n=" + std::to_string(cs.n) + " sp-sel=" + std::to_string(cs.sel) + (cs.satfinite ? " .satfinite" : "") +
         (cs.d16 ? " .f16 D" : "") + (cs.random_floats ? " random" : "");
}

void expect_sparse_product(const SparseCase& cs, uint64_t seed) {
  SCOPED_TRACE(sparse_case_name(cs));
  std::vector<uint32_t> got, want;
  const RunResult r = run_sparse(cs, seed, &got, &want);
  ASSERT_EQ(r.status, RunStatus::Completed) << r.report << (r.diagnostics.empty() ? "" : r.diagnostics[0].format());
  for (const auto& d : r.diagnostics) ADD_FAILURE() << "unexpected diagnostic: " << d.format();
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i)
    if (got[i] != want[i]) {
      ++bad;
      ADD_FAILURE() << "D element " << i << " (thread " << i / size_t(cs.n / 2) << ") = " << std::hex << got[i]
                    << ", want " << want[i] << std::dec;
    }
}

TEST(WgmmaSparse, DenseProductOfTheDecompressedA) {
  uint64_t s = seed_for_test();
  for (SparseCase cs : {SparseCase{false, false, 16, 0}, SparseCase{true, false, 24, 1}, SparseCase{false, true, 8, 1},
                        SparseCase{true, true, 32, 0}})
    expect_sparse_product(cs, s++);
}

// .tf32 (1:2, k16) and 8-bit A (2:4, k64): fp8 (any pairing), s8/u8 (mixed, .satfinite).
TEST(WgmmaSparse, Tf32And8BitDenseProductOfTheDecompressedA) {
  uint64_t s = seed_for_test();
  auto mk = [](SpType a, SpType b, bool regs, int n, int sel, bool sat = false) {
    SparseCase cs;
    cs.a = a;
    cs.b = b;
    cs.a_regs = regs;
    cs.n = n;
    cs.sel = sel;
    cs.satfinite = sat;
    return cs;
  };
  for (const SparseCase& cs : {mk(SpType::TF32, SpType::TF32, false, 16, 0), mk(SpType::TF32, SpType::TF32, true, 8, 1),
                               mk(SpType::TF32, SpType::TF32, false, 24, 1), mk(SpType::E4M3, SpType::E4M3, false, 16, 0),
                               mk(SpType::E4M3, SpType::E5M2, true, 8, 0), mk(SpType::E5M2, SpType::E4M3, false, 32, 0),
                               mk(SpType::S8, SpType::S8, false, 16, 0), mk(SpType::S8, SpType::U8, true, 24, 0),
                               mk(SpType::U8, SpType::U8, false, 8, 0, true), mk(SpType::S8, SpType::S8, true, 32, 0, true)})
    expect_sparse_product(cs, s++);
}

// Random values: each D element is one dot of the K/2 kept products (one T-FDPA group), not the
// dense K with zeros chained in two groups; see sim/sem/sparse_a.h. Also .f16 D (f16 and fp8 A).
TEST(WgmmaSparse, RandomFloatsAreOneDotOfTheKeptProducts) {
  uint64_t s = seed_for_test();
  for (SpType t : {SpType::F16, SpType::BF16, SpType::TF32, SpType::E4M3})
    for (bool d16 : {false, true}) {
      if (d16 && (t == SpType::BF16 || t == SpType::TF32)) continue;  // .f16 D only for .f16 and fp8
      SparseCase cs;
      cs.a = cs.b = t;
      cs.n = 16;
      cs.sel = t == SpType::BF16 || t == SpType::TF32 ? 1 : 0;
      cs.a_regs = t == SpType::F16;
      cs.d16 = d16;
      for (bool random : {true, false}) {
        cs.random_floats = random;
        expect_sparse_product(cs, s++);
      }
    }
}

TEST(WgmmaSparse, InvalidMetadataNamesThreadAndRule) {
  // Thread 70 = warp 2 lane 6 (q 1, t 2): a metadata lane for sp-sel 1; bits 11:8 = 0b1010 (2, 2).
  SparseCase cs{false, false, 8, 1, 70};
  const RunResult r = run_sparse(cs, seed_for_test());
  EXPECT_EQ(r.status, RunStatus::Fault);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find(
                "in thread 70 of the warpgroup (warp 2 lane 6, sp-sel 1): bits 11:8 = 0xa for row 33 chunk 2 names one "
                "column twice (the two indices of a 2:4 chunk must differ; 0b0000, 0b0101, 0b1010 and 0b1111 are "
                "invalid) (PTX ISA 9.7.15.6.1)"),
            std::string::npos)
      << r.diagnostics[0].message;
  // The same corruption in a lane the selector does not read is ignored.
  cs.sel = 0;
  EXPECT_EQ(run_sparse(cs, 1).status, RunStatus::Completed);
}

TEST(WgmmaSparse, InvalidTf32And8BitMetadata) {
  // .tf32: thread 5 (warp 0, lane 5 = q 1, u 1: sp-sel 0, h 1): bits 11:8 are row 1 chunk 6; 0b0110
  // is a valid 2:4 code but not one of the two .tf32 values.
  SparseCase cs;
  cs.a = cs.b = SpType::TF32;
  cs.n = 8;
  cs.bad_thread = 5;
  cs.bad_nibble = 0x6;
  RunResult r = run_sparse(cs, seed_for_test());
  EXPECT_EQ(r.status, RunStatus::Fault);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("wgmma.mma_async.sp: invalid sparsity metadata"), std::string::npos);
  EXPECT_NE(r.diagnostics[0].message.find("in thread 5 of the warpgroup (warp 0 lane 5, sp-sel 0): bits 11:8 = 0x6 for "
                                          "row 1 chunk 6 is not a .tf32 index (0b0100 and 0b1110 are the only meaningful "
                                          "values) (PTX ISA 9.7.15.6.1)"),
            std::string::npos)
      << r.diagnostics[0].message;
  // 8-bit: thread 103 = warp 3 lane 7 (q 1, u 3): row 48 + 1 + 8 = 57, chunks 8..15; bits 11:8 is chunk 10.
  cs = SparseCase{};
  cs.a = cs.b = SpType::S8;
  cs.n = 8;
  cs.bad_thread = 103;
  cs.bad_nibble = 0xF;
  r = run_sparse(cs, seed_for_test());
  EXPECT_EQ(r.status, RunStatus::Fault);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("in thread 103 of the warpgroup (warp 3 lane 7, sp-sel 0): bits 11:8 = 0xf for "
                                          "row 57 chunk 10 names one column twice"),
            std::string::npos)
      << r.diagnostics[0].message;
}

TEST(WgmmaSparse, BinderAcceptsAndRejectsLikePtxas) {
  const std::string head = ".visible .entry k()\n{\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n"
                           "  .reg .f32 %d<4>;\n";
  auto with = [&](const std::string& line, const std::string& version = "8.4") {
    return module(head + "  " + line + "\n  ret;\n}\n", version);
  };
  const std::string d4 = " {%d0, %d1, %d2, %d3}, ";
  EXPECT_EQ(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16" + d4 + "%rd1, %rd2, %r1, 1, %p1, 1, 1, 0, 0;")), "");
  EXPECT_EQ(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16" + d4 +
                            "{%r0, %r1, %r2, %r3}, %rd2, %r1, 0, %p1, 1, -1, 1;")), "");
  EXPECT_NE(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16" + d4 + "%rd1, %rd2, %r1, 2, %p1, 1, 1, 0, 0;"))
                .find("Argument 4 of instruction 'Sparse wgmma.mma_async with floating point types': unexpected value "
                      "'2', expected to be 0 or 1"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16" + d4 + "%rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;", "8.0"))
                .find("Feature 'Sparse WGMMA with floating point types' requires PTX ISA .version 8.2 or later"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16" + d4 + "%rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;"))
                .find("Illegal shape '.m64n8k16' for the types of instruction 'wgmma.mma_async' (K must be 32)"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16" + d4 + "%rd1, %rd2, %r1, 0, %p1, 1, 1, 0;"))
                .find("takes 10 operands, got 9"),
            std::string::npos);
  // .tf32 and 8-bit (ptxas 13.0's words on the same lines).
  EXPECT_EQ(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32" + d4 + "%rd1, %rd2, %r1, 1, %p1, 1, -1;")), "");
  EXPECT_EQ(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8" + d4 + "%rd1, %rd2, %r1, 0, %p1;")), "");
  EXPECT_EQ(load_error(with("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2" + d4 + "%rd1, %rd2, %r1, 0, %p1, 1, 1;")), "");
  auto err_has = [&](const std::string& line, const std::string& words, const std::string& version = "8.4") {
    const std::string e = load_error(with(line, version));
    return e.find(words) != std::string::npos ? ::testing::AssertionSuccess()
                                              : ::testing::AssertionFailure() << "'" << e << "' lacks '" << words << "'";
  };
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32" + d4 + "%rd1, %rd2, %r1, 2, %p1, 1, 1;",
                      "Argument 4 of instruction 'Sparse wgmma.mma_async with floating point types': unexpected value '2', "
                      "expected to be 0 or 1"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2" + d4 + "%rd1, %rd2, %r1, 1, %p1, 1, 1;",
                      "Argument 4 of instruction 'Sparse wgmma.mma_async with FP8 types': unexpected value '1', expected to be 0"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2" + d4 + "%rd1, %rd2, %r1, 0, %p1, 2, 1;",
                      "Argument 6 of instruction 'Sparse wgmma.mma_async with FP8 types': unexpected value '2', expected to be -1 or 1"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8" + d4 + "%rd1, %rd2, %r1, 1, %p1;",
                      "Argument 4 of instruction 'Sparse wgmma.mma_async with integer types': unexpected value '1', expected to be 0"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8" + d4 + "%rd1, %rd2, %r1, 0, %p1;",
                      "Feature 'Sparse WGMMA with mixed integer types' requires PTX ISA .version 8.4 or later", "8.3"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.u8.u8" + d4 + "%rd1, %rd2, %r1, 0, %p1;",
                      "Feature 'Sparse WGMMA with integer types' requires PTX ISA .version 8.2 or later", "8.1"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n40k64.s32.s8.s8" + d4 + "%rd1, %rd2, %r1, 0, %p1;",
                      "Illegal matrix shape '.m64n40k64' for instruction 'Sparse wgmma.mma_async with integer types'"));
  EXPECT_TRUE(err_has("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.tf32.tf32" + d4 + "%rd1, %rd2, %r1, 0, %p1, 1, 1;",
                      "(K must be 16)"));
}

TEST(WgmmaBind, RejectsBadForms) {
  const std::string head = ".visible .entry k()\n{\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n  .reg .f32 %d<4>;\n";
  auto with = [&](const std::string& line, const std::string& version = "8.4") {
    return module(head + "  " + line + "\n  ret;\n}\n", version);
  };
  EXPECT_NE(load_error(with("wgmma.mma_async.sync.aligned.m64n8k32.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, "
                            "%p1, 1, 1, 0, 0;"))
                .find("Illegal shape '.m64n8k32' for the types of instruction 'wgmma.mma_async' (K must be 16)"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, "
                            "%p1, 2, 1, 0, 0;"))
                .find("Argument 4 of instruction 'wgmma.mma_async with floating point types': unexpected value '2', "
                      "expected to be -1 or 1"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, "
                            "%p1, 1, 1, 0, 0;"))
                .find("Vector of size 8 is expected for argument 0"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, "
                            "%p1, 1, 1, 0, 2;"))
                .find("Argument 7 of instruction 'wgmma.mma_async with floating point types': unexpected value '2', "
                      "expected to be 0 or 1"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%d0, %d1, %d2, %d3}, %rd1, %rd2, %p1;"))
                .find("Illegal matrix shape '.m64n40k32' for instruction 'wgmma.mma_async with integer types'"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8 {%d0, %d1, %d2, %d3}, %rd1, %rd2, %p1;",
                            "8.0"))
                .find("Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4 or later"),
            std::string::npos);
  EXPECT_NE(load_error(with("wgmma.fence.aligned;")).find(".sync modifier required for instruction 'wgmma.fence'"),
            std::string::npos);
  const std::string sm100 = ".version 8.7\n.target sm_100a\n.address_size 64\n\n" + head + "  wgmma.fence.sync.aligned;\n  ret;\n}\n";
  EXPECT_NE(load_error(sm100).find("not supported on .target 'sm_100a'"), std::string::npos) << load_error(sm100);
}

}  // namespace
}  // namespace ptxsim
