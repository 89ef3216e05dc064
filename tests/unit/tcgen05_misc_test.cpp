// tcgen05 forms beyond the core set, through the engine: tcgen05.cp .4x256b and the decompressing
// .b8x16.b6x16_p32, tcgen05.shift, tcgen05.mma .ashift, A in Tensor Memory with 6-bit types, with
// kind::mxf4 and over a CTA pair with M = 128, and disable-output-lane over a pair.
//
// One harness kernel: each CTA copies two 16 KiB images into shared memory, allocates all of TMEM,
// fills NCOLS columns of every lane from a global buffer (random poison unless the case says
// otherwise), thread 0 of CTA 0 runs the case's PTX and commits, and every CTA dumps those columns
// back. References are written here from the PTX text and CUTLASS's layouts (docs/tcgen05.md), not
// from the simulator's code.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <random>

#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

std::string module(const std::string& body, const std::string& params = "", const std::string& target = "sm_100a",
                   const std::string& version = "8.7") {
  return ".version " + version + "\n.target " + target + "\n.address_size 64\n.visible .entry k(" + params +
         ")\n{\n  .shared .align 1024 .b8 sa[16384];\n  .shared .align 1024 .b8 sb[16384];\n"
         "  .shared .align 8 .b64 bar;\n  .shared .align 4 .b32 tslot;\n"
         "  .reg .b32 %r<120>;\n  .reg .b64 %rd<40>;\n  .reg .pred %p<8>;\n  .reg .b16 %rs<4>;\n"
         "  mov.u32 %r0, %tid.x;\n  shr.u32 %r1, %r0, 5;\n  and.b32 %r2, %r0, 31;\n" +
         body + "\n  ret;\n}\n";
}

uint32_t line_of(const std::string& ptx, const std::string& needle) {
  size_t at = ptx.find(needle);
  if (at == std::string::npos) return 0;
  return uint32_t(std::count(ptx.begin(), ptx.begin() + long(at), '\n') + 1);
}

const ptxsim::Diagnostic* first_error(const Launched& r) {
  for (const auto& d : r.result.diagnostics)
    if (d.severity == ptxsim::Diagnostic::Severity::Error) return &d;
  return nullptr;
}

// Registers the case's PTX may use: %r10 TMEM base (lane 0, column 0), %rd20 / %rd22 descriptors
// p0 / p2 with sa's start address added, %rd21 / %rd23 (p1 / p3) with sb's, %r70..%r73 = q0..q3,
// scratch %r80..%r119, %rd26..%rd39, %p2, %p4.
const char* kHarness = R"(
  mov.u32 %r60, %cluster_ctarank;
  ld.param.u64 %rd1, [gsa];
  ld.param.u64 %rd2, [gsb];
  ld.param.u64 %rd3, [gt];
  ld.param.u64 %rd4, [gout];
  mul.wide.u32 %rd5, %r60, 16384;
  add.u64 %rd1, %rd1, %rd5;
  add.u64 %rd2, %rd2, %rd5;
  mov.u32 %r20, sa;
  mov.u32 %r21, sb;
  mov.u32 %r22, %r0;
$copy:
  mul.wide.u32 %rd6, %r22, 4;
  shl.b32 %r24, %r22, 2;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.u32 %r23, [%rd7];
  add.u32 %r25, %r20, %r24;
  st.shared.u32 [%r25], %r23;
  add.u64 %rd7, %rd2, %rd6;
  ld.global.u32 %r23, [%rd7];
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
  tcgen05.alloc.cta_group::GROUP.sync.aligned.shared::cta.b32 [tslot], 512;
$after_alloc:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [tslot];
  shl.b32 %r27, %r1, 21;
  add.u32 %r28, %r10, %r27;
  mad.lo.u32 %r29, %r60, 128, %r0;
  mul.lo.u32 %r29, %r29, NCOLS;
  mul.wide.u32 %rd8, %r29, 4;
  add.u64 %rd9, %rd3, %rd8;
  add.u64 %rd11, %rd4, %rd8;
  mov.u32 %r30, 0;
$init:
  mul.wide.u32 %rd12, %r30, 4;
  add.u64 %rd13, %rd9, %rd12;
  ld.global.u32 %r32, [%rd13];
  add.u32 %r31, %r28, %r30;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r31], {%r32};
  add.u32 %r30, %r30, 1;
  setp.lt.u32 %p1, %r30, NCOLS;
  @%p1 bra $init;
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
CLUSTER_SYNC
  tcgen05.fence::after_thread_sync;
  @%p3 bra $wait;
  setp.ne.u32 %p6, %r60, 0;
  @%p6 bra $wait;
  ld.param.u64 %rd20, [p0];
  ld.param.u64 %rd21, [p1];
  ld.param.u64 %rd22, [p2];
  ld.param.u64 %rd23, [p3];
  ld.param.u32 %r70, [q0];
  ld.param.u32 %r71, [q1];
  ld.param.u32 %r72, [q2];
  ld.param.u32 %r73, [q3];
  and.b32 %r35, %r20, 0x3ffff;
  shr.u32 %r35, %r35, 4;
  cvt.u64.u32 %rd24, %r35;
  and.b32 %r36, %r21, 0x3ffff;
  shr.u32 %r36, %r36, 4;
  cvt.u64.u32 %rd25, %r36;
  add.u64 %rd20, %rd20, %rd24;
  add.u64 %rd21, %rd21, %rd25;
  add.u64 %rd22, %rd22, %rd24;
  add.u64 %rd23, %rd23, %rd25;
OPS
  mov.u32 %r26, bar;
COMMIT
$wait:
  mov.u32 %r26, bar;
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;
  @!%p5 bra $wait;
  tcgen05.fence::after_thread_sync;
  mov.u32 %r30, 0;
$dump:
  add.u32 %r31, %r28, %r30;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r40}, [%r31];
  tcgen05.wait::ld.sync.aligned;
  mul.wide.u32 %rd12, %r30, 4;
  add.u64 %rd13, %rd11, %rd12;
  st.global.u32 [%rd13], %r40;
  add.u32 %r30, %r30, 1;
  setp.lt.u32 %p1, %r30, NCOLS;
  @%p1 bra $dump;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
CLUSTER_SYNC
  @%p7 bra $after_dealloc;
  tcgen05.dealloc.cta_group::GROUP.sync.aligned.b32 %r10, 512;
$after_dealloc:
)";

struct Harness {
  unsigned group = 1;   // .cta_group; 2 launches one cluster of 2 CTAs
  uint32_t ncols = 32;  // TMEM columns set from `tmem` and dumped
  std::vector<uint8_t> sa[2], sb[2];
  std::vector<uint32_t> tmem[2];  // lane-major, ncols words a lane
  std::string ops;
  uint64_t p[4] = {};
  uint32_t q[4] = {};
  std::string target = "sm_100a";

  Harness(unsigned g, uint32_t cols, std::mt19937_64& rng) : group(g), ncols(cols) {
    for (int v = 0; v < 2; ++v) {
      sa[v].assign(16384, 0);
      sb[v].assign(16384, 0);
      tmem[v].resize(size_t(128) * cols);
      for (uint32_t& x : tmem[v]) x = uint32_t(rng()) | 1u;  // poison: random, never 0
    }
  }
  std::string ptx() const {
    std::string body = replace_all(kHarness, "GROUP", std::to_string(group));
    body = replace_all(body, "NCOLS", std::to_string(ncols));
    body = replace_all(body, "CLUSTER_SYNC",
                       group == 2 ? "  barrier.cluster.arrive.release.aligned;\n  barrier.cluster.wait.acquire.aligned;" : "");
    body = replace_all(body, "OPS", ops);
    body = replace_all(body, "COMMIT",
                       group == 2 ? "  mov.u16 %rs1, 3;\n  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
                                    ".multicast::cluster.b64 [%r26], %rs1;"
                                  : "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];");
    return module(body,
                  ".param .u64 gsa, .param .u64 gsb, .param .u64 gt, .param .u64 gout, .param .u64 p0, .param .u64 p1, "
                  ".param .u64 p2, .param .u64 p3, .param .u32 q0, .param .u32 q1, .param .u32 q2, .param .u32 q3",
                  target);
  }
  // Launches (the harness's PTX, or `text`); out[v] is CTA v's dump (lane-major).
  Launched launch_it(std::vector<uint32_t> out[2], uint64_t seed, const std::string& text = "") const {
    ptxsim::model::GlobalMemory mem;
    std::vector<uint8_t> a(2 * 16384), b(2 * 16384);
    std::copy(sa[0].begin(), sa[0].end(), a.begin());
    std::copy(sa[1].begin(), sa[1].end(), a.begin() + 16384);
    std::copy(sb[0].begin(), sb[0].end(), b.begin());
    std::copy(sb[1].begin(), sb[1].end(), b.begin() + 16384);
    std::vector<uint32_t> t(tmem[0]);
    t.insert(t.end(), tmem[1].begin(), tmem[1].end());
    const uint64_t gsa = mem.allocate(a.size(), 256, "sa"), gsb = mem.allocate(b.size(), 256, "sb");
    const uint64_t gt = mem.allocate(t.size() * 4, 256, "tmem");
    mem.write(gsa, a.data(), a.size());
    mem.write(gsb, b.data(), b.size());
    mem.write(gt, t.data(), t.size() * 4);
    const uint64_t gout = alloc(mem, t.size() * 4, "out");
    Params prm;
    prm.add(gsa).add(gsb).add(gt).add(gout).add(p[0]).add(p[1]).add(p[2]).add(p[3]).add(q[0]).add(q[1]).add(q[2]).add(q[3]);
    Launched r = launch(text.empty() ? ptx() : text, mem, prm, {group, 1, 1}, {128, 1, 1}, {group, 1, 1}, seed);
    for (unsigned v = 0; v < group; ++v) {
      out[v].resize(size_t(128) * ncols);
      mem.read(gout + uint64_t(v) * 128 * ncols * 4, out[v].data(), out[v].size() * 4);
    }
    return r;
  }
};

// K-major operand of `rows` rows x `row_bytes` bytes, canonical layout (PTX 9.7.16.3): no swizzle
// with LBO 128 (next 16 bytes of K) and SBO = 8 rows; or 128B swizzle with SBO 1024.
struct KMajor {
  uint32_t row_bytes = 32;
  bool swizzle128 = false;
  uint32_t sbo() const { return swizzle128 ? 1024 : row_bytes / 16 * 128; }
  uint32_t offset(uint32_t r, uint32_t byte) const {
    if (swizzle128) return ref_swizzle(tmap::Swizzle::k128B, (r / 8) * 1024 + (r % 8) * 128 + byte);
    return (r / 8) * sbo() + (byte / 16) * 128 + (r % 8) * 16 + byte % 16;
  }
  uint64_t desc() const {
    return uint64_t(128 >> 4) << 16 | uint64_t(sbo() >> 4) << 32 | 1ull << 46 | uint64_t(swizzle128 ? 2 : 0) << 61;
  }
};

// Element bits of small integers (written out from the formats' definitions): E2M3 (bias 1,
// S EE MMM), E3M2 (bias 3, S EEE MM), E4M3 (bias 7), TF32 (f32 bits), E2M1 (S EE M).
uint32_t e2m3(int v) {
  static const uint8_t t[] = {0x00, 0x08, 0x10, 0x14, 0x18};
  return t[std::abs(v)] | (v < 0 ? 0x20 : 0);
}
uint32_t e3m2(int v) {
  static const uint8_t t[] = {0x00, 0x0C, 0x10, 0x12, 0x14};
  return t[std::abs(v)] | (v < 0 ? 0x20 : 0);
}
uint32_t e4m3(int v) {
  static const uint8_t t[] = {0x00, 0x38, 0x40, 0x44, 0x48};
  return t[std::abs(v)] | (v < 0 ? 0x80 : 0);
}
uint32_t e2m1(int v) {
  static const uint8_t t[] = {0x0, 0x2, 0x4, 0x5, 0x6};
  return t[std::abs(v)] | (v < 0 ? 0x8 : 0);
}
uint32_t tf32(int v) { return std::bit_cast<uint32_t>(float(v)); }

// Dense instruction descriptor (PTX Table 42): D format 5:4, A 9:7, B 12:10, N>>3 22:17, M>>4 28:24.
uint32_t idesc(uint32_t d, uint32_t a, uint32_t b, uint32_t M, uint32_t N) {
  return d << 4 | a << 7 | b << 10 | (N >> 3) << 17 | (M >> 4) << 24;
}
// Block-scaled (Tables 43/44): UE8M0 scales (bit 23), M>>7 28:27, SF IDs 0.
uint32_t idesc_scaled(uint32_t a, uint32_t b, uint32_t M, uint32_t N) {
  return a << 7 | b << 10 | (N >> 3) << 17 | 1u << 23 | (M >> 7) << 27;
}

// The harness with the case's PTX run by all of warp 0 (for warp-collective tcgen05.ld) instead of
// thread 0: lines meant for one thread carry "@%p2 " (thread 0), and so does the commit.
std::string in_warp0(std::string ptx) {
  ptx = replace_all(ptx, "  @%p3 bra $wait;\n", "  @%p7 bra $wait;\n  setp.eq.u32 %p2, %r0, 0;\n");
  return replace_all(ptx, "  mov.u32 %r26, bar;\n  tcgen05.commit", "  mov.u32 %r26, bar;\n  @%p2 tcgen05.commit");
}

// What a harness run shows of one TMEM cell.
struct Dump {
  std::vector<uint32_t> out[2];
  uint32_t ncols;
  uint32_t at(unsigned v, uint32_t lane, uint32_t col) const { return out[v][size_t(lane) * ncols + col]; }
};

}  // namespace

// ---- tcgen05.cp .4x256b ----------------------------------------------------------------------------

// CUTLASS Copy_Traits<SM100_UTCCP_4dp256bit_1cta>: row r of the 4 x 256-bit source goes to lane
// taddr.lane + 32r, 8 columns from taddr's column.
TEST(Tcgen05Cp4x256b, RowRGoesToLane32RFromTaddr) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (bool swz : {false, true})
    for (uint32_t lane0 : {0u, 31u, uint32_t(rng() % 32)}) {
      SCOPED_TRACE(std::string(swz ? "128B swizzle" : "no swizzle") + ", taddr lane " + std::to_string(lane0));
      Harness run(1, 24, rng);
      KMajor src{32, swz};
      std::vector<uint8_t> data(4 * 32);
      for (auto& x : data) x = uint8_t(rng());
      for (uint32_t r = 0; r < 4; ++r)
        for (uint32_t j = 0; j < 32; ++j) run.sa[0][src.offset(r, j)] = data[r * 32 + j];
      run.p[0] = src.desc();
      run.q[0] = lane0 << 16 | 12;
      run.ops = "  add.u32 %r80, %r10, %r70;\n  tcgen05.cp.cta_group::1.4x256b [%r80], %rd20;";
      Dump d{{}, run.ncols};
      Launched r = run.launch_it(d.out, seed);
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      for (uint32_t lane = 0; lane < 128; ++lane)
        for (uint32_t c = 0; c < run.ncols; ++c) {
          uint32_t want = run.tmem[0][lane * run.ncols + c];
          if (lane >= lane0 && (lane - lane0) % 32 == 0 && c >= 12 && c < 20) {
            const uint32_t row = (lane - lane0) / 32, j = 4 * (c - 12);
            want = uint32_t(data[row * 32 + j]) | uint32_t(data[row * 32 + j + 1]) << 8 |
                   uint32_t(data[row * 32 + j + 2]) << 16 | uint32_t(data[row * 32 + j + 3]) << 24;
          }
          ASSERT_EQ(d.at(0, lane, c), want) << "lane " << lane << " column " << c;
        }
    }
}

TEST(Tcgen05Cp4x256b, ATaddrBeyondLane31IsAFault) {
  std::mt19937_64 rng(1);
  Harness run(1, 8, rng);
  run.p[0] = KMajor{}.desc();
  run.ops = "  add.u32 %r80, %r10, 0x200000;\n  tcgen05.cp.cta_group::1.4x256b [%r80], %rd20;";
  Dump d{{}, run.ncols};
  Launched r = run.launch_it(d.out, 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  const auto* e = first_error(r);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message,
            "tcgen05.cp.cta_group::1.4x256b: taddr lane 32, column 0 (0x00200000) must be in lanes 0..31: .4x256b writes "
            "that lane of each of the 4 subpartitions [CTA (0,0,0) warp 0 lanes 0x1]");
  EXPECT_EQ(e->loc.line, line_of(run.ptx(), "tcgen05.cp.cta_group::1.4x256b"));
}

// ---- tcgen05.cp .b8x16.b6x16_p32 / .b8x16.b4x16_p64 ---------------------------------------------------

// Every 16-byte chunk of the source holds 16 w-bit elements (w = 6: .b6x16_p32, w = 4: .b4x16_p64) in
// its first 2w bytes (element i in bits [wi, wi + w), little-endian) and padding; the copy writes
// element i to byte i in the middle of the byte: 0xxxxxx0 for 6 bits, 00xxxx00 for 4 (NVIDIA's
// CuTeDSL cp_narrow_a_to_tmem_mma example; docs/tcgen05.md). The padding is random and must not leak.
TEST(Tcgen05CpDecompress, NarrowElementsWidenToMiddleOfBytesInEveryShape) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  struct Case {
    const char* mods;
    uint32_t rows, bytes;
    std::function<std::vector<uint32_t>(uint32_t)> lanes;
  } cases[] = {
      {".128x256b", 128, 32, [](uint32_t r) { return std::vector<uint32_t>{r}; }},
      {".128x128b", 128, 16, [](uint32_t r) { return std::vector<uint32_t>{r}; }},
      {".32x128b.warpx4", 32, 16, [](uint32_t r) { return std::vector<uint32_t>{r, r + 32, r + 64, r + 96}; }},
      {".64x128b.warpx2::01_23", 64, 16,
       [](uint32_t r) { return std::vector<uint32_t>{64 * (r / 32) + r % 32, 64 * (r / 32) + r % 32 + 32}; }},
      {".4x256b", 4, 32, [](uint32_t r) { return std::vector<uint32_t>{32 * r}; }},
  };
  // With .cta_group::2 (one thread of the even CTA issues it) each CTA copies its own shared memory.
  for (uint32_t w : {6u, 4u})
  for (unsigned group : {1u, 2u})
    for (const Case& k : cases) {
      SCOPED_TRACE(std::string(k.mods) + " cta_group::" + std::to_string(group) + " w " + std::to_string(w));
      const uint32_t shift = w == 6 ? 1 : 2;  // the holder bytes 0xxxxxx0 / 00xxxx00
      Harness run(group, 16, rng);
      KMajor src{k.bytes, true};
      // values[v][r * bytes + e]: element e of row r in CTA v (16 per 16-byte chunk).
      std::vector<uint8_t> values[2];
      for (unsigned v = 0; v < group; ++v) {
        values[v].resize(size_t(k.rows) * k.bytes);
        for (uint32_t r = 0; r < k.rows; ++r)
          for (uint32_t q = 0; q < k.bytes / 16; ++q) {
            uint8_t chunk[16] = {};
            for (uint32_t e = 0; e < 16; ++e) {
              const uint8_t x = uint8_t(rng() & ((1u << w) - 1));
              values[v][r * k.bytes + 16 * q + e] = uint8_t(x << shift);
              for (uint32_t bit = 0; bit < w; ++bit)
                if (x >> bit & 1) chunk[(w * e + bit) / 8] |= uint8_t(1u << ((w * e + bit) % 8));
            }
            for (uint32_t j = 2 * w; j < 16; ++j) chunk[j] = uint8_t(rng());
            for (uint32_t j = 0; j < 16; ++j) run.sa[v][src.offset(r, 16 * q + j)] = chunk[j];
          }
      }
      run.p[0] = src.desc();
      run.ops = "  add.u32 %r80, %r10, 4;\n  tcgen05.cp.cta_group::" + std::to_string(group) + k.mods +
                (w == 6 ? ".b8x16.b6x16_p32" : ".b8x16.b4x16_p64") + " [%r80], %rd20;";
      Dump d{{}, run.ncols};
      Launched r = run.launch_it(d.out, seed);
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      for (unsigned v = 0; v < group; ++v) {
        std::vector<uint32_t> want(run.tmem[v]);
        for (uint32_t row = 0; row < k.rows; ++row)
          for (uint32_t lane : k.lanes(row))
            for (uint32_t c = 0; c < k.bytes / 4; ++c) {
              uint32_t w = 0;
              for (uint32_t i = 0; i < 4; ++i) w |= uint32_t(values[v][row * k.bytes + 4 * c + i]) << (8 * i);
              want[lane * run.ncols + 4 + c] = w;
            }
        for (uint32_t lane = 0; lane < 128; ++lane)
          for (uint32_t c = 0; c < run.ncols; ++c)
            ASSERT_EQ(d.at(v, lane, c), want[lane * run.ncols + c]) << "CTA " << v << " lane " << lane << " column " << c;
      }
    }
}

TEST(Tcgen05CpDecompress, FormatQualifiersAreCheckedAtLoad) {
  auto load_error = [](const std::string& line) -> std::string {
    try {
      ptxsim::load_program(module(line), "t.ptx");
      return "";
    } catch (const ptxsim::PtxError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(load_error("  tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b6x16_p32 [%r3], %rd1;\n"), "");
  for (const char* bad : {"  tcgen05.cp.cta_group::1.128x256b.b6x16_p32 [%r3], %rd1;\n",
                          "  tcgen05.cp.cta_group::1.128x256b.b8x16 [%r3], %rd1;\n"})
    EXPECT_NE(load_error(bad).find("Unexpected number of 'format conversion' modifiers specified for instruction 'tcgen05.cp'"),
              std::string::npos)
        << bad;
  EXPECT_EQ(load_error("  tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 [%r3], %rd1;\n"), "");
  EXPECT_NE(load_error("  tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64.b6x16_p32 [%r3], %rd1;\n")
                .find("Unexpected number of 'format conversion' modifiers specified for instruction 'tcgen05.cp'"),
            std::string::npos);
}

// ---- tcgen05.shift ------------------------------------------------------------------------------------

namespace {

// Reference of a shift of subpartition `sp` (or, with sp < 0, every subpartition) over columns
// [c0, c0 + 8): lane 32s + r takes lane 32s + r + 1 for r < 31; lane 32s + 31 keeps its value.
std::vector<uint32_t> shifted(const std::vector<uint32_t>& t, uint32_t ncols, int sp, uint32_t c0) {
  std::vector<uint32_t> out(t);
  for (uint32_t s = 0; s < 4; ++s) {
    if (sp >= 0 && int(s) != sp) continue;
    for (uint32_t r = 0; r < 31; ++r)
      for (uint32_t c = c0; c < c0 + 8; ++c) out[(32 * s + r) * ncols + c] = t[(32 * s + r + 1) * ncols + c];
  }
  return out;
}

}  // namespace

TEST(Tcgen05Shift, MovesTheRowsOfOneSubpartitionUpFromTheNextLane) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (unsigned group : {1u, 2u})
    for (uint32_t sp : {0u, 3u, uint32_t(rng() % 4)}) {
      const uint32_t c0 = uint32_t(rng() % 9);
      SCOPED_TRACE("cta_group::" + std::to_string(group) + " subpartition " + std::to_string(sp) + " column " +
                   std::to_string(c0));
      Harness run(group, 17, rng);
      run.q[0] = (32 * sp) << 16 | c0;
      run.ops = "  add.u32 %r80, %r10, %r70;\n  tcgen05.shift.cta_group::" + std::to_string(group) + ".down [%r80];";
      Dump d{{}, run.ncols};
      Launched r = run.launch_it(d.out, seed);
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      for (unsigned v = 0; v < group; ++v) {
        const std::vector<uint32_t> want = shifted(run.tmem[v], run.ncols, int(sp), c0);
        for (uint32_t lane = 0; lane < 128; ++lane)
          for (uint32_t c = 0; c < run.ncols; ++c)
            ASSERT_EQ(d.at(v, lane, c), want[lane * run.ncols + c]) << "CTA " << v << " lane " << lane << " column " << c;
      }
    }
}

// The sliding window CUTLASS describes: tcgen05.shift moves every subpartition down a row, then
// tcgen05.cp .4x256b at lane 31 refreshes the row each subpartition left stale.
TEST(Tcgen05Shift, ShiftThenFourRowRefreshSlidesTheWindow) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Harness run(1, 8, rng);
  KMajor src{32, false};
  std::vector<uint32_t> fresh(4 * 8);
  for (uint32_t& x : fresh) x = uint32_t(rng());
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t j = 0; j < 32; ++j) run.sa[0][src.offset(r, j)] = uint8_t(fresh[r * 8 + j / 4] >> (8 * (j % 4)));
  run.p[0] = src.desc();
  run.ops = R"(
  tcgen05.shift.cta_group::1.down [%r10];
  add.u32 %r80, %r10, 0x200000;
  tcgen05.shift.cta_group::1.down [%r80];
  add.u32 %r80, %r10, 0x400000;
  tcgen05.shift.cta_group::1.down [%r80];
  add.u32 %r80, %r10, 0x600000;
  tcgen05.shift.cta_group::1.down [%r80];
  add.u32 %r80, %r10, 0x1f0000;
  tcgen05.cp.cta_group::1.4x256b [%r80], %rd20;)";
  Dump d{{}, run.ncols};
  Launched r = run.launch_it(d.out, seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t c = 0; c < 8; ++c) {
      const uint32_t want = lane % 32 == 31 ? fresh[(lane / 32) * 8 + c] : run.tmem[0][(lane + 1) * 8 + c];
      ASSERT_EQ(d.at(0, lane, c), want) << "lane " << lane << " column " << c;
    }
}

TEST(Tcgen05Shift, MisuseIsReportedWithTheRule) {
  std::mt19937_64 rng(2);
  {  // a taddr lane that is not a multiple of 32
    Harness run(1, 8, rng);
    run.ops = "  add.u32 %r80, %r10, 0x100000;\n  tcgen05.shift.cta_group::1.down [%r80];";
    Dump d{{}, run.ncols};
    Launched r = run.launch_it(d.out, 1);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    const auto* e = first_error(r);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message,
              "tcgen05.shift.cta_group::1.down: taddr lane 16, column 0 (0x00100000): its lane must be 0, 32, 64 or 96 "
              "(aligned to 32) [CTA (0,0,0) warp 0 lanes 0x1]");
    EXPECT_EQ(e->loc.line, line_of(run.ptx(), "tcgen05.shift"));
  }
  {  // columns beyond Tensor Memory
    Harness run(1, 8, rng);
    run.ops = "  add.u32 %r80, %r10, 508;\n  tcgen05.shift.cta_group::1.down [%r80];";
    Dump d{{}, run.ncols};
    Launched r = run.launch_it(d.out, 1);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    EXPECT_EQ(first_error(r)->message, "tcgen05.shift.cta_group::1.down: columns 508..515 are beyond the 512 columns of Tensor Memory "
              "[CTA (0,0,0) warp 0 lanes 0x1]");
  }
  {  // reading the shifted rows before a commit covers the shift
    Harness run(1, 8, rng);
    run.ops = "  @%p2 tcgen05.shift.cta_group::1.down [%r10];\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r81}, [%r10];";
    const std::string ptx = in_warp0(run.ptx());
    Dump d{{}, run.ncols};
    Launched r = run.launch_it(d.out, 1, ptx);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_TRUE(r.has_warning("tcgen05 hazard: tcgen05.ld reads TMEM lanes 0..31, columns 0..0, the rows moved by the "
                              "tcgen05.shift at line " + std::to_string(line_of(ptx, "tcgen05.shift")) +
                              ", which no tcgen05.commit covers"))
        << r.all_diagnostics();
  }
}

TEST(Tcgen05Shift, FormAndTargetsAreCheckedAtLoad) {
  auto load_error = [](const std::string& line, const std::string& target, const std::string& version) -> std::string {
    try {
      ptxsim::load_program(module(line, "", target, version), "t.ptx");
      return "";
    } catch (const ptxsim::PtxError& e) {
      return e.what();
    }
  };
  for (const char* t : {"sm_100a", "sm_103a", "sm_110a"}) {
    EXPECT_EQ(load_error("  tcgen05.shift.cta_group::1.down [%r3];\n", t, "9.0"), "") << t;
    EXPECT_EQ(load_error("  tcgen05.shift.down.cta_group::2 [%r3+32];\n", t, "9.0"), "") << t;
  }
  for (const char* t : {"sm_100f", "sm_103f", "sm_110f", "sm_90a"})
    EXPECT_NE(load_error("  tcgen05.shift.cta_group::1.down [%r3];\n", t, "9.0").find("Instruction 'tcgen05.shift' not supported on .target"),
              std::string::npos)
        << t;
  EXPECT_NE(load_error("  tcgen05.shift.cta_group::1 [%r3];\n", "sm_100a", "8.7").find(".down modifier required for instruction 'tcgen05.shift'"),
            std::string::npos);
  EXPECT_NE(load_error("  tcgen05.shift.cta_group::1.down %r3;\n", "sm_100a", "8.7").find("Arguments mismatch for instruction 'tcgen05.shift'"),
            std::string::npos);
}

// ---- tcgen05.mma .ashift ---------------------------------------------------------------------------

// The CuTeDSL pattern (1cta_mma_a_from_tmem.py): MMA 1 with .ashift computes A x B and then shifts A
// in TMEM; MMA 2 (no shift, D overwritten) computes shifted(A) x B.
TEST(Tcgen05AShift, TheMmaReadsAThenShiftsItsRows) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (unsigned group : {1u, 2u}) {
    // M = 128 in one CTA, or 256 over a pair (each CTA: 128 rows of A and D, half of B's columns).
    const uint32_t M = 128 * group, N = 16, K = 8, ncols = 48, Nh = N / group;  // D1 at 0, A at 16, D2 at 32
    SCOPED_TRACE("cta_group::" + std::to_string(group) + " M=" + std::to_string(M));
    Harness run(group, ncols, rng);
    std::vector<int> A(M * K), B(K * N);
    for (int& x : A) x = int(rng() % 9) - 4;
    for (int& x : B) x = int(rng() % 9) - 4;
    KMajor bk{32, false};
    for (unsigned v = 0; v < group; ++v) {
      for (uint32_t m = 0; m < 128; ++m)
        for (uint32_t k = 0; k < K; ++k) run.tmem[v][m * ncols + 16 + k] = tf32(A[(128 * v + m) * K + k]);
      for (uint32_t n = 0; n < Nh; ++n)
        for (uint32_t k = 0; k < K; ++k) {
          const uint32_t bits = tf32(B[k * N + v * Nh + n]);
          for (uint32_t i = 0; i < 4; ++i) run.sb[v][bk.offset(n, 4 * k + i)] = uint8_t(bits >> (8 * i));
        }
    }
    run.p[1] = bk.desc();
    run.q[0] = idesc(1, 2, 2, M, N);
    run.ops = replace_all(R"(
  setp.ne.u32 %p2, %r0, 0;
  add.u32 %r80, %r10, 16;
  add.u32 %r81, %r10, 32;
  tcgen05.mma.cta_group::G.kind::tf32.ashift [%r10], [%r80], %rd21, %r70, %p2;
  tcgen05.mma.cta_group::G.kind::tf32 [%r81], [%r80], %rd21, %r70, %p2;)", "::G", "::" + std::to_string(group));
    Dump d{{}, ncols};
    Launched r = run.launch_it(d.out, seed);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    // Row m of A after the shift: row m + 1 unless m is the last of its 32-lane subpartition.
    auto shifted_row = [&](uint32_t m) { return m % 32 != 31 ? m + 1 : m; };
    for (uint32_t m = 0; m < M; ++m) {
      const unsigned v = m / 128;
      for (uint32_t n = 0; n < N; ++n) {
        int s1 = 0, s2 = 0;
        for (uint32_t k = 0; k < K; ++k) {
          s1 += A[m * K + k] * B[k * N + n];
          s2 += A[shifted_row(m) * K + k] * B[k * N + n];
        }
        ASSERT_EQ(d.at(v, m % 128, n), tf32(s1)) << "D1(" << m << ", " << n << ")";
        ASSERT_EQ(d.at(v, m % 128, 32 + n), tf32(s2)) << "D2(" << m << ", " << n << ")";
      }
      for (uint32_t k = 0; k < K; ++k)
        ASSERT_EQ(d.at(v, m % 128, 16 + k), tf32(A[shifted_row(m) * K + k])) << "A(" << m << ", " << k << ")";
    }
  }
}

TEST(Tcgen05AShift, ReadingAWhileTheShiftIsPendingIsAHazard) {
  std::mt19937_64 rng(5);
  Harness run(1, 24, rng);
  run.p[1] = KMajor{}.desc();
  run.q[0] = idesc(1, 2, 2, 128, 8);
  run.ops = R"(
  setp.ne.u32 %p4, %r0, 0;
  add.u32 %r80, %r10, 16;
  @%p2 tcgen05.mma.cta_group::1.kind::tf32.ashift [%r10], [%r80], %rd21, %r70, %p4;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r81}, [%r80+3];)";
  const std::string ptx = in_warp0(run.ptx());
  Dump d{{}, run.ncols};
  Launched r = run.launch_it(d.out, 1, ptx);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_TRUE(r.has_warning("tcgen05 hazard: tcgen05.ld reads TMEM lanes 0..31, columns 19..19, the A rows shifted by the "
                            "tcgen05.mma .ashift at line " + std::to_string(line_of(ptx, ".ashift")) +
                            ", which no tcgen05.commit covers"))
      << r.all_diagnostics();
}

TEST(Tcgen05AShift, MisuseIsReportedInPtxasWords) {
  auto load_error = [](const std::string& line) -> std::string {
    try {
      ptxsim::load_program(module(line), "t.ptx");
      return "";
    } catch (const ptxsim::PtxError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(load_error("  tcgen05.mma.cta_group::2.kind::tf32.ashift.collector::a::lastuse [%r3], [%r4], %rd2, %r6, "
                       "{%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, %p1;\n"),
            "");
  EXPECT_NE(load_error("  tcgen05.mma.cta_group::1.kind::f16.ashift [%r3], %rd4, %rd2, %r6, %p1;\n")
                .find("Illegal modifier '.ashift' for instruction 'tcgen05.mma'"),
            std::string::npos);
  EXPECT_NE(load_error("  tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::fill [%r3], [%r4], %rd2, %r6, %p1;\n")
                .find("Modifier '.collector::a::fill' cannot be combined with modifier '.ashift'"),
            std::string::npos);
  // M = 64 is a fault at the MMA.
  std::mt19937_64 rng(3);
  Harness run(1, 8, rng);
  run.q[0] = idesc(1, 2, 2, 64, 8);
  run.p[1] = KMajor{}.desc();
  run.ops = "  setp.ne.u32 %p2, %r0, 0;\n  tcgen05.mma.cta_group::1.kind::tf32.ashift [%r10], [%r10], %rd21, %r70, %p2;";
  Dump d{{}, run.ncols};
  Launched r = run.launch_it(d.out, 1);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_EQ(first_error(r)->message, "tcgen05.mma.cta_group::1.kind::tf32: .ashift is only allowed with M = 128 or M = 256, not M = 64 "
            "[CTA (0,0,0) warp 0 lanes 0x1]");
}

// ---- A in Tensor Memory ----------------------------------------------------------------------------

// 4- and 6-bit A through the decompressing copy: A (E2M3 / E3M2 / E2M1, padded chunks in shared
// memory) goes to TMEM with tcgen05.cp .128x256b.b8x16.b6x16_p32 / .b4x16_p64, then kind::f8f6f4 /
// mxf8f6f4 reads it as [a-tmem] (CuTeDSL's cp_narrow_a_to_tmem_mma); B is E4M3 in shared memory.
TEST(Tcgen05ATmem, NarrowAThroughTheDecompressingCopy) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t M = 128, N = 16, K = 32, ncols = 40;  // D at 0, A at 16 (8 columns), scales at 24, 28
  for (bool scaled : {false, true})
    for (uint32_t code : {3u, 4u, 5u}) {  // E2M3, E3M2, E2M1
      SCOPED_TRACE(std::string(scaled ? "kind::mxf8f6f4" : "kind::f8f6f4") + (code == 3 ? " E2M3" : code == 4 ? " E3M2" : " E2M1"));
      const uint32_t w = code == 5 ? 4 : 6;
      Harness run(1, ncols, rng);
      std::vector<int> A(M * K), B(K * N);
      for (int& x : A) x = int(rng() % 9) - 4;
      for (int& x : B) x = int(rng() % 9) - 4;
      KMajor ak{32, true}, bk{32, false};
      for (uint32_t m = 0; m < M; ++m)
        for (uint32_t q = 0; q < 2; ++q) {
          uint8_t chunk[16] = {};
          for (uint32_t e = 0; e < 16; ++e) {
            const int x = A[m * K + 16 * q + e];
            const uint32_t v = code == 3 ? e2m3(x) : code == 4 ? e3m2(x) : e2m1(x);
            for (uint32_t bit = 0; bit < w; ++bit)
              if (v >> bit & 1) chunk[(w * e + bit) / 8] |= uint8_t(1u << ((w * e + bit) % 8));
          }
          for (uint32_t j = 0; j < 16; ++j) run.sa[0][ak.offset(m, 16 * q + j)] = chunk[j];
        }
      for (uint32_t n = 0; n < N; ++n)
        for (uint32_t k = 0; k < K; ++k) run.sb[0][bk.offset(n, k)] = uint8_t(e4m3(B[k * N + n]));
      for (uint32_t lane = 0; lane < 128; ++lane)
        for (uint32_t c = 24; c < 32; ++c) run.tmem[0][lane * ncols + c] = 0x7f7f7f7f;  // UE8M0 1.0
      run.p[0] = ak.desc();
      run.p[1] = bk.desc();
      run.q[0] = scaled ? idesc_scaled(code, 0, M, N) : idesc(1, code, 0, M, N);
      run.ops = std::string(R"(
  setp.ne.u32 %p2, %r0, 0;
  add.u32 %r80, %r10, 16;
  add.u32 %r82, %r10, 24;
  add.u32 %r83, %r10, 28;
  tcgen05.cp.cta_group::1.128x256b.b8x16.FMT [%r80], %rd20;
  )") + (scaled ? "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r10], [%r80], %rd21, %r70, [%r82], [%r83], %p2;"
                : "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r10], [%r80], %rd21, %r70, %p2;");
      run.ops = replace_all(run.ops, "FMT", w == 6 ? "b6x16_p32" : "b4x16_p64");
      Dump d{{}, ncols};
      Launched r = run.launch_it(d.out, seed);
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      for (uint32_t m = 0; m < M; ++m)
        for (uint32_t n = 0; n < N; ++n) {
          int s = 0;
          for (uint32_t k = 0; k < K; ++k) s += A[m * K + k] * B[k * N + n];
          ASSERT_EQ(d.at(0, m, n), tf32(s)) << "D(" << m << ", " << n << ")";
        }
    }
}

// Sparse A in Tensor Memory: the packed M x K/2 A in the 8 columns a dense A of one MMA occupies
// (lane m, K/2 stored elements packed like the dense K), read by tcgen05.mma.sp with [a-tmem]; the
// same MMA with A from shared memory must agree, and both the dense product. Every metadata nibble
// is 0x4 (elements 0 and 1 of each chunk kept), so the test does not depend on where nibbles sit.
TEST(Tcgen05ATmem, SparseAFromTmemEqualsSparseAFromSharedMemory) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t M = 128, N = 16, K = 32, KP = K / 2, ncols = 48;  // D1 0, D2 16, A 32 (8 columns), metadata 40
  Harness run(1, ncols, rng);
  auto f16 = [](int v) { static const uint16_t t[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400}; return uint32_t(t[std::abs(v)] | (v < 0 ? 0x8000 : 0)); };
  std::vector<int> P(M * KP), B(K * N);
  for (int& x : P) x = int(rng() % 9) - 4;
  for (int& x : B) x = int(rng() % 9) - 4;
  KMajor ak{32, false}, bk{64, false};
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t j = 0; j < KP; ++j) {
      const uint32_t h = f16(P[m * KP + j]);
      run.sa[0][ak.offset(m, 2 * j)] = uint8_t(h);
      run.sa[0][ak.offset(m, 2 * j + 1)] = uint8_t(h >> 8);
      uint32_t& cell = run.tmem[0][m * ncols + 32 + j / 2];
      if (j % 2 == 0) cell = 0;
      cell |= h << (16 * (j % 2));
    }
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t k = 0; k < K; ++k) {
      const uint32_t h = f16(B[k * N + n]);
      run.sb[0][bk.offset(n, 2 * k)] = uint8_t(h);
      run.sb[0][bk.offset(n, 2 * k + 1)] = uint8_t(h >> 8);
    }
  for (uint32_t lane = 0; lane < 128; ++lane) run.tmem[0][lane * ncols + 40] = 0x44444444;
  run.p[0] = ak.desc();
  run.p[1] = bk.desc();
  run.q[0] = 1u << 2 | idesc(1, 0, 0, M, N);  // sparse, F32 D, F16 A and B
  run.ops = R"(
  setp.ne.u32 %p2, %r0, 0;
  add.u32 %r80, %r10, 32;
  add.u32 %r81, %r10, 40;
  add.u32 %r82, %r10, 16;
  tcgen05.mma.sp.cta_group::1.kind::f16 [%r10], [%r80], %rd21, [%r81], %r70, %p2;
  tcgen05.mma.sp.cta_group::1.kind::f16 [%r82], %rd20, %rd21, [%r81], %r70, %p2;)";
  Dump d{{}, ncols};
  Launched r = run.launch_it(d.out, seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      int s = 0;
      for (uint32_t c = 0; c < K / 4; ++c) s += P[m * KP + 2 * c] * B[4 * c * N + n] + P[m * KP + 2 * c + 1] * B[(4 * c + 1) * N + n];
      ASSERT_EQ(d.at(0, m, n), tf32(s)) << "D from TMEM A (" << m << ", " << n << ")";
      ASSERT_EQ(d.at(0, m, 16 + n), tf32(s)) << "D from shared A (" << m << ", " << n << ")";
    }
}

// kind::mxf4 with A in TMEM put there by a plain tcgen05.cp of the shared-memory operand (two E2M1
// per byte, the lower K in the low nibble): the same D as the MMA reading A from shared memory.
TEST(Tcgen05ATmem, Mxf4AFromTmemEqualsAFromSharedMemory) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const char* kind : {"kind::mxf4.block_scale", "kind::mxf4nvf4.block_scale.scale_vec::4X"}) {
    SCOPED_TRACE(kind);
    const uint32_t M = 128, N = 24, K = 64, ncols = 72;  // D1 at 0, A at 24, D2 at 32, scales at 56 and 60
    Harness run(1, ncols, rng);
    std::vector<int> A(M * K), B(K * N);
    for (int& x : A) x = int(rng() % 9) - 4;
    for (int& x : B) x = int(rng() % 9) - 4;
    KMajor ak{32, true}, bk{32, true};
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t k = 0; k < K; ++k) run.sa[0][ak.offset(m, k / 2)] |= uint8_t(e2m1(A[m * K + k]) << (4 * (k % 2)));
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t k = 0; k < K; ++k) run.sb[0][bk.offset(n, k / 2)] |= uint8_t(e2m1(B[k * N + n]) << (4 * (k % 2)));
    for (uint32_t lane = 0; lane < 128; ++lane)
      for (uint32_t c = 56; c < 64; ++c) run.tmem[0][lane * ncols + c] = 0x7f7f7f7f;  // UE8M0 1.0 in every byte
    run.p[0] = ak.desc();
    run.p[1] = bk.desc();
    run.q[0] = idesc_scaled(1, 1, M, N);
    run.ops = replace_all(R"(
  setp.ne.u32 %p2, %r0, 0;
  add.u32 %r80, %r10, 24;
  add.u32 %r81, %r10, 32;
  add.u32 %r82, %r10, 56;
  add.u32 %r83, %r10, 60;
  tcgen05.cp.cta_group::1.128x256b [%r80], %rd20;
  tcgen05.mma.cta_group::1.KIND [%r10], [%r80], %rd21, %r70, [%r82], [%r83], %p2;
  tcgen05.mma.cta_group::1.KIND [%r81], %rd20, %rd21, %r70, [%r82], [%r83], %p2;)", "KIND", kind);
    Dump d{{}, ncols};
    Launched r = run.launch_it(d.out, seed);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        int s = 0;
        for (uint32_t k = 0; k < K; ++k) s += A[m * K + k] * B[k * N + n];
        ASSERT_EQ(d.at(0, m, n), tf32(s)) << "D from TMEM A (" << m << ", " << n << ")";
        ASSERT_EQ(d.at(0, m, 32 + n), tf32(s)) << "D from shared A (" << m << ", " << n << ")";
      }
  }
}

// A 4/6-bit A element written straight into TMEM is read from the middle of its holder byte:
// E2M3 / E3M2 from bits 6:1 (0xxxxxx0), E2M1 from bits 5:2 (00xxxx00); the other bits are zero.
// A reading from the low bits would see other values (every |v| > 0 here changes).
TEST(Tcgen05ATmem, NarrowAInTmemIsReadFromTheMiddleOfItsHolderByte) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t M = 128, N = 8, K = 32, ncols = 24;  // D at 0, A at 16 (8 columns)
  for (uint32_t code : {3u, 4u, 5u}) {
    SCOPED_TRACE(code == 3 ? "E2M3" : code == 4 ? "E3M2" : "E2M1");
    Harness run(1, ncols, rng);
    std::vector<int> A(M * K), B(K * N);
    for (int& x : A) x = int(rng() % 9) - 4;
    for (int& x : B) x = int(rng() % 9) - 4;
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t c = 0; c < 8; ++c) {
        uint32_t word = 0;
        for (uint32_t i = 0; i < 4; ++i) {
          const int x = A[m * K + 4 * c + i];
          const uint32_t holder = code == 5 ? e2m1(x) << 2 : (code == 3 ? e2m3(x) : e3m2(x)) << 1;
          word |= holder << (8 * i);
        }
        run.tmem[0][m * ncols + 16 + c] = word;
      }
    KMajor bk{32, false};
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t k = 0; k < K; ++k) run.sb[0][bk.offset(n, k)] = uint8_t(e4m3(B[k * N + n]));
    run.p[1] = bk.desc();
    run.q[0] = idesc(1, code, 0, M, N);
    run.ops = "  setp.ne.u32 %p2, %r0, 0;\n  add.u32 %r80, %r10, 16;\n"
              "  tcgen05.mma.cta_group::1.kind::f8f6f4 [%r10], [%r80], %rd21, %r70, %p2;";
    Dump d{{}, ncols};
    Launched r = run.launch_it(d.out, seed);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        int s = 0;
        for (uint32_t k = 0; k < K; ++k) s += A[m * K + k] * B[k * N + n];
        ASSERT_EQ(d.at(0, m, n), tf32(s)) << "D(" << m << ", " << n << ")";
      }
  }
}

// A CTA pair with A in TMEM. M = 256: CTA v's 128 rows at lanes m. M = 128 (layout B): CTA v's 64
// rows duplicated, row m at lanes m and m + 64 (CUTLASS TmemAllocMode::Duplicated); the D lanes of
// columns n >= N/2 (lanes 64..127) read the second copy, which this test makes differ from the
// first. With a random disable-output-lane mask: bit 128v + l keeps D's lane l of CTA v.
TEST(Tcgen05ATmem, CtaPairReadsItsCopyOfAAndHonoursTheLaneMask) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (uint32_t M : {256u, 128u})
    for (bool masked : {false, true}) {
      SCOPED_TRACE("M=" + std::to_string(M) + (masked ? " with a lane mask" : ""));
      const uint32_t N = 32, K = 8, Nh = N / 2, ncols = 40;  // D at 0 (N or N/2 columns), A at 32
      Harness run(2, ncols, rng);
      // Acopy[v][lane][k]: what CTA v's TMEM holds for A at lane `lane`.
      std::vector<int> Acopy(2 * 128 * K), B(K * N);
      for (int& x : Acopy) x = int(rng() % 9) - 4;
      for (int& x : B) x = int(rng() % 9) - 4;
      KMajor bk{32, true};
      for (unsigned v = 0; v < 2; ++v) {
        for (uint32_t lane = 0; lane < 128; ++lane)
          for (uint32_t k = 0; k < K; ++k) run.tmem[v][lane * ncols + 32 + k] = tf32(Acopy[(v * 128 + lane) * K + k]);
        for (uint32_t n = 0; n < Nh; ++n)
          for (uint32_t k = 0; k < K; ++k) {
            const uint32_t bits = tf32(B[k * N + v * Nh + n]);
            for (uint32_t i = 0; i < 4; ++i) run.sb[v][bk.offset(n, 4 * k + i)] = uint8_t(bits >> (8 * i));
          }
      }
      uint32_t mask[8] = {};
      if (masked)
        for (uint32_t& w : mask) w = uint32_t(rng()) & uint32_t(rng());
      run.p[1] = bk.desc();
      run.q[0] = idesc(1, 2, 2, M, N);
      char ops[512];
      std::snprintf(ops, sizeof ops,
                    "  setp.ne.u32 %%p2, %%r0, 0;\n  add.u32 %%r80, %%r10, 32;\n"
                    "  tcgen05.mma.cta_group::2.kind::tf32 [%%r10], [%%r80], %%rd21, %%r70, "
                    "{%u, %u, %u, %u, %u, %u, %u, %u}, %%p2;",
                    mask[0], mask[1], mask[2], mask[3], mask[4], mask[5], mask[6], mask[7]);
      run.ops = ops;
      Dump d{{}, ncols};
      Launched r = run.launch_it(d.out, seed);
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      for (unsigned v = 0; v < 2; ++v)
        for (uint32_t m = 0; m < M / 2; ++m)
          for (uint32_t n = 0; n < N; ++n) {
            const uint32_t lane = M == 256 ? m : m + (n >= Nh ? 64 : 0), col = M == 256 ? n : n % Nh;
            int s = 0;
            for (uint32_t k = 0; k < K; ++k) s += Acopy[(v * 128 + lane) * K + k] * B[k * N + n];
            const bool kept = mask[4 * v + lane / 32] >> (lane % 32) & 1;
            const uint32_t want = kept ? run.tmem[v][lane * ncols + col] : tf32(s);
            ASSERT_EQ(d.at(v, lane, col), want) << "CTA " << v << " D(" << m << ", " << n << ") lane " << lane;
          }
    }
}

// ---- .cta_group::2 allocation --------------------------------------------------------------------

namespace {

// One warp per CTA, a cluster of 2. The odd CTA spins, then sets a flag in the even CTA's shared
// memory and only then allocates; the even CTA allocates at once and reads the flag after its alloc.
const char* kPairAlloc = R"(
  ld.param.u64 %rd1, [out];
  mov.u32 %r60, %cluster_ctarank;
  mov.u32 %r20, sa;
  st.shared.u32 [%r20], 0;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  setp.eq.u32 %p1, %r60, 0;
  @%p1 bra $even;
  mov.u32 %r21, 0;
$spin:
  add.u32 %r21, %r21, 1;
  setp.lt.u32 %p2, %r21, 300;
  @%p2 bra $spin;
  mapa.shared::cluster.u32 %r22, %r20, 0;
  st.shared::cluster.u32 [%r22], 1;
  fence.acq_rel.cluster;
$even:
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20+4], 64;
  ld.shared.u32 %r23, [%r20];
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20+8], 32;
  ld.shared.u32 %r24, [%r20+4];
  ld.shared.u32 %r25, [%r20+8];
  mul.wide.u32 %rd2, %r60, 12;
  add.u64 %rd2, %rd1, %rd2;
  setp.eq.u32 %p3, %r2, 0;
  @%p3 st.global.u32 [%rd2], %r23;
  @%p3 st.global.u32 [%rd2+4], %r24;
  @%p3 st.global.u32 [%rd2+8], %r25;
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r25, 32;
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r24, 64;
  tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
)";

}  // namespace

TEST(Tcgen05PairAlloc, TheFirstWarpWaitsForThePeerAndBothGetTheSameColumns) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = alloc(mem, 24, "out");
  Params p;
  p.add(out);
  Launched r = launch(module(kPairAlloc, ".param .u64 out"), mem, p, {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  uint32_t v[6];
  mem.read(out, v, sizeof v);
  EXPECT_EQ(v[0], 1u) << "the even CTA's alloc returned before the odd CTA's warp issued its own";
  EXPECT_EQ(v[1], 0u);
  EXPECT_EQ(v[2], 64u);
  EXPECT_EQ(v[4], 0u);
  EXPECT_EQ(v[5], 64u);
}

// PTX ISA Table 48: one CTA deallocates before the cluster barrier, the other after it: the first
// dealloc may wait for the peer's, which waits behind the barrier. ptxsim always waits: a deadlock.
TEST(Tcgen05PairAlloc, DeallocOnOneSideOfAClusterBarrierIsADeadlock) {
  const std::string body = R"(
  mov.u32 %r60, %cluster_ctarank;
  mov.u32 %r20, sa;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20], 32;
  ld.shared.u32 %r24, [%r20];
  setp.eq.u32 %p1, %r60, 0;
  @%p1 bra $even;
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r24, 32;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  bra $done;
$even:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r24, 32;
$done:
)";
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(module(body), mem, Params{}, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
  EXPECT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("    waiting for the peer CTA (rank 0) to issue its tcgen05.dealloc.cta_group::2 "
                                 "(.cta_group::2 allocation operations are collective)\n"),
            std::string::npos)
      << r.result.report;
}

TEST(Tcgen05PairAlloc, MisuseIsAFaultNamingBothSides) {
  // The even CTA allocates 64 columns first (it tells the odd CTA, which waits for that), the odd CTA 128.
  const std::string body = R"(
  mov.u32 %r60, %cluster_ctarank;
  mov.u32 %r20, sa;
  st.shared.u32 [%r20+8], 0;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  setp.eq.u32 %p1, %r60, 0;
  @%p1 bra $even;
$spin:
  ld.volatile.shared.u32 %r21, [%r20+8];
  setp.eq.u32 %p2, %r21, 0;
  @%p2 bra $spin;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20], 128;
  bra $done;
$even:
  mapa.shared::cluster.u32 %r22, %r20, 1;
  st.shared::cluster.u32 [%r22+8], 1;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20], 64;
$done:
)";
  const std::string ptx = module(body);
  ptxsim::model::GlobalMemory mem;
  Launched r = launch(ptx, mem, Params{}, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  const auto* e = first_error(r);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "tcgen05.alloc.cta_group::2: nCols = 128 differs from nCols = 64 of the one at line " +
                            std::to_string(line_of(ptx, "b32 [%r20], 64;")) +
                            " of the peer CTA (rank 0) [CTA (1,0,0) warp 0 lanes 0xffffffff]");
  EXPECT_EQ(e->loc.line, line_of(ptx, "b32 [%r20], 128;"));

  // No cluster: no peer.
  const std::string lone = module("  mov.u32 %r20, sa;\n  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r20], 32;\n");
  Launched l = launch(lone, mem, Params{}, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(l.result.status, ptxsim::RunStatus::Fault) << l.all_diagnostics();
  EXPECT_EQ(first_error(l)->message,
            "tcgen05.alloc.cta_group::2: the peer CTA (rank 1) of this CTA's pair is not in the cluster; .cta_group::2 "
            "needs a cluster of CTA pairs [CTA (0,0,0) warp 0 lanes 0xffffffff]");
}

TEST(Tcgen05PairAlloc, ABlockedAllocSaysWhatItWaitsForInTheDeadlockReport) {
  ptxsim::model::GlobalMemory mem;
  const std::string body = R"(
  mov.u32 %r20, sa;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20], 512;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r20+4], 32;
)";
  Launched r = launch(module(body), mem, Params{}, {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("    waiting for a tcgen05.dealloc to free enough Tensor Memory columns (0 of 512 free)\n"),
            std::string::npos)
      << r.result.report;
}
