// tcgen05.mma.sp, .ws, .ws.sp and the collector-usage qualifiers through the engine, against plain
// CPU GEMMs: a random 2:4 (tf32: 1:2) A of small integers is compressed here, its metadata placed in
// TMEM by the CuTe layouts of CUTLASS's tmem_e_frg / tmem_e_frg_ws written out below (the atoms'
// shapes and strides, not the simulator's formula), and D compared with the dense product; .ws D is
// read from the lanes CUTLASS's tmem_frg_ws gives. Plus the faults for invalid metadata and the
// unsimulated cases, collector misuse, and ptxas agreement on the new forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <random>

#include "model/tcgen05/collector.h"
#include "model/tcgen05/sparse.h"
#include "model/tcgen05/ws.h"
#include "tests/unit/tma_test_util.h"

using namespace tma_test;

namespace {

// The 2:4 / 4:8 pair-wise metadata nibbles the ISA defines for tcgen05.mma.sp (PTX 9.7.16.10.8, as
// printed there, 0b0110 included): bits 1:0 the first kept element (pair), bits 3:2 the second.
const uint32_t kMetaNibbles[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0x6, 0xE};

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

// 128 threads. A and B images come from global into sa / sb; warp 0 allocates all 512 columns;
// each warp stores its lane quarter of the TMEM image (8 words a lane: the metadata, or A) at column 256 and
// poisons DCOLS columns of D. Thread 0 issues MMA0 (enable-input-d false) and MMA1 (accumulate),
// commits; everybody waits, and each warp dumps its 32 lanes x DCOLS columns of D.
const char* kKernel = R"(
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 ga, .param .u64 gb, .param .u64 gd, .param .u64 gm, .param .u64 ad0, .param .u64 ad1,
                  .param .u64 bd0, .param .u64 bd1, .param .u32 idesc, .param .u64 zmask)
{
  .shared .align 1024 .b8 sa[32768];
  .shared .align 1024 .b8 sb[32768];
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 bar2;
  .shared .align 4 .b32 tslot;
  .reg .b32 %r<100>;
  .reg .b64 %rd<40>;
  .reg .pred %p<8>;
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
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
  setp.lt.u32 %p1, %r22, 8192;
  @%p1 bra $copy;
  fence.proxy.async.shared::cta;
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $noinit;
  mov.u32 %r26, bar;
  mbarrier.init.shared::cta.b64 [%r26], 1;
  mov.u32 %r26, bar2;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$noinit:
  setp.ne.u32 %p7, %r1, 0;
  @%p7 bra $after_alloc;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 512;
$after_alloc:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [tslot];
  shl.b32 %r27, %r1, 21;          // (32 * warp) << 16
  add.u32 %r28, %r10, %r27;       // this warp's lane quarter, column 0
  mov.u32 %r29, 0;
$poison:
  add.u32 %r31, %r28, %r29;
  mov.u32 %r32, 0x7fbadbad;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r31], {%r32};
  add.u32 %r29, %r29, 1;
  setp.lt.u32 %p1, %r29, DCOLS;
  @%p1 bra $poison;
  ld.param.u64 %rd7, [gm];
  mul.wide.u32 %rd8, %r0, 32;
  add.u64 %rd7, %rd7, %rd8;
  ld.global.v4.u32 {%r50, %r51, %r52, %r53}, [%rd7];
  ld.global.v4.u32 {%r54, %r55, %r56, %r57}, [%rd7+16];
  add.u32 %r58, %r28, 256;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r58], {%r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57};
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
  ld.param.u64 %rd16, [zmask];
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
  add.u32 %r37, %r10, 256;        // the metadata
  setp.ne.u32 %p2, %r0, 0;        // false: the first MMA ignores D
  setp.eq.u32 %p4, %r0, 0;        // true: accumulate
  MMA0
BETWEEN
  MMA1
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
  mad.lo.u32 %r48, %r0, DCOLS, %r29;
  mul.wide.u32 %rd6, %r48, 4;
  add.u64 %rd6, %rd3, %rd6;
  st.global.v4.u32 [%rd6], {%r40, %r41, %r42, %r43};
  st.global.v4.u32 [%rd6+16], {%r44, %r45, %r46, %r47};
  add.u32 %r29, %r29, 8;
  setp.lt.u32 %p1, %r29, DCOLS;
  @%p1 bra $dump;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p7 bra $after_dealloc;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 512;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
$after_dealloc:
  ret;
}
)";

enum class Layout { KNone, K128B, MNNone };
const char* layout_name(Layout l) { return l == Layout::KNone ? "K/none" : l == Layout::K128B ? "K/128B" : "MN/none"; }

// An R x Ktot operand of `bytes`-byte elements in a canonical layout (PTX 9.7.16.3).
struct Operand {
  uint32_t rows = 0, ktot = 0, bytes = 0;
  Layout layout = Layout::KNone;
  uint32_t lbo() const { return layout == Layout::KNone ? 128 : layout == Layout::K128B ? 16 : rows * bytes / 16 * 128; }
  uint32_t sbo() const { return layout == Layout::KNone ? ktot * bytes / 16 * 128 : layout == Layout::K128B ? 1024 : 128; }
  uint32_t offset(uint32_t r, uint32_t k) const {
    const uint32_t rb = r * bytes, kb = k * bytes;
    switch (layout) {
      case Layout::KNone: return (r / 8) * sbo() + (kb / 16) * lbo() + (r % 8) * 16 + kb % 16;
      case Layout::K128B: return ref_swizzle(tmap::Swizzle::k128B, (r / 8) * 1024 + (r % 8) * 128 + kb);
      case Layout::MNNone: return (rb / 16) * sbo() + (k / 8) * lbo() + (k % 8) * 16 + rb % 16;
    }
    return 0;
  }
  uint64_t desc(uint32_t k0) const {  // the matrix starting at K element k0 (a multiple of the step)
    const uint32_t start = layout == Layout::KNone ? k0 * bytes / 16 * lbo() : layout == Layout::K128B ? k0 * bytes : k0 / 8 * lbo();
    return uint64_t(start >> 4) | uint64_t(lbo() >> 4) << 16 | uint64_t(sbo() >> 4) << 32 | 1ull << 46 |
           uint64_t(layout == Layout::K128B ? 2 : 0) << 61;
  }
  bool mn_major() const { return layout == Layout::MNNone; }
};

enum class Elem { F16, TF32, E4M3, S8, E2M1 };
uint32_t elem_bytes(Elem e) { return e == Elem::F16 ? 2 : e == Elem::TF32 ? 4 : 1; }  // E2M1: a one-byte slot
uint32_t encode(Elem e, int v) {
  const uint32_t neg = v < 0, a = uint32_t(std::abs(v));
  switch (e) {
    case Elem::F16: {
      static const uint16_t t[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400};
      return t[a] | neg << 15;
    }
    case Elem::TF32: return std::bit_cast<uint32_t>(float(v));
    case Elem::E4M3: {
      static const uint8_t t[] = {0x00, 0x38, 0x40, 0x44, 0x48};
      return t[a] | neg << 7;
    }
    case Elem::S8: return uint32_t(v) & 0xff;
    case Elem::E2M1: {
      static const uint8_t t[] = {0x0, 0x2, 0x4, 0x5, 0x6};
      return t[a] | neg << 3;
    }
  }
  return 0;
}

// Stores element bits at byte-slot `off` of an operand image; E2M1 (kind::f8f6f4) sits packed in the
// first 8 bytes of its 16-byte chunk, slot s of the chunk in nibble s (PTX figure 202, the driver's
// 16U4_ALIGN16B type).
void put_elem(std::vector<uint8_t>& img, Elem e, uint32_t off, uint32_t bits) {
  ASSERT_LT(off, img.size());
  if (e == Elem::E2M1) {
    img[(off & ~15u) + (off % 16) / 2] |= uint8_t(bits << (4 * (off % 2)));
    return;
  }
  for (uint32_t i = 0; i < elem_bytes(e); ++i) img[off + i] = uint8_t(bits >> (8 * i));
}

// One zero-column sub-mask as text, column 0 first, built span by span: '1' = forced to zero.
// skip_first: fs (start in the skip span); sc: columns of the first span already behind.
std::string zero_pattern(bool skip_first, uint32_t sc, uint32_t skip_span, uint32_t use_span, size_t n) {
  std::string s;
  bool zero = skip_first;
  size_t left = (zero ? skip_span : use_span) + 1 - sc;
  while (s.size() < n) {
    s.append(std::min(left, n - s.size()), zero ? '1' : '0');
    zero = !zero;
    left = (zero ? skip_span : use_span) + 1;
  }
  return s;
}

// Where metadata bit `j` of dense A element (m, k) goes, from CUTLASS's CuTe atoms
// (cute/atom/mma_traits_sm100_frag.hpp): the atom maps (m, k) to a "virtual" offset o, lane o % 128;
// the element's bits then follow at bit (o / 128) * w of the lane (w bits per element: 1 for
// 16- and 8-bit A, 2 for tf32). copy: the .ws repeat (mode of stride M).
std::pair<uint32_t, uint32_t> meta_bit(Elem e, uint32_t M, uint32_t m, uint32_t k, uint32_t copy) {
  uint32_t o;
  if (e == Elem::F16) {  // ((8,2,M/16),(16,2)) : ((1,2048,16),(128,8))
    o = m % 8 + 2048 * ((m / 8) % 2) + 16 * (m / 16) + 128 * (k % 16) + 8 * (k / 16);
  } else if (e == Elem::TF32) {  // ((8,2,M/16),(8,2)) : ((1,1024,16),(128,8)), 2 bits per element
    o = m % 8 + 1024 * ((m / 8) % 2) + 16 * (m / 16) + 128 * (k % 8) + 8 * (k / 8);
  } else {  // (M, 64) : (1, 128)
    o = m + 128 * k;
  }
  o += copy * M;
  const uint32_t w = e == Elem::TF32 ? 2 : 1;
  return {o % 128, (o / 128) * w};
}

struct Case {
  std::string form;  // "tcgen05.mma.sp", "tcgen05.mma.ws", "tcgen05.mma.ws.sp"
  std::string kind;
  Elem e;
  uint32_t a_code, d_code, M, N;
  Layout la, lb;
  uint32_t id2 = 0;          // sparse: metadata at column 256 + id2, address 256
  std::string collector0 = {}, collector1 = {};  // qualifiers of the two MMAs
  bool second_names_other = false;     // MMA1 names the other A (collector::a) / B (collector::bN)
  // Between the MMAs thread 0 waits for MMA0, zeroes the first 32 bytes of the A image (row 0, K
  // 0..15 of step 0 with the 128B swizzle and 16-bit A) and fences (CUTLASS's collector example).
  bool zero_a_row0 = false;
  // MMA1 with disable-output-lane (these 4 words) and scale-input-d (>= 0): D = D0 * 2^-s + A1 * B1,
  // lanes whose bit is set keep D0.
  int mma1_scale = -1;
  uint32_t mma1_disable[4] = {0, 0, 0, 0};
  // Fault cases: what to break, and the error expected at MMA0 (or MMA1).
  std::function<void(std::vector<uint32_t>& meta)> edit_meta = {};
  uint32_t idesc_xor = 0;
  uint64_t zmask = 0, bdesc_xor = 0;
  std::string zero_cols = {};  // the columns zmask forces to zero ('1'), from zero_pattern
  bool a_tmem = false;  // A at TMEM column 256 (lane m, K packed little-endian) for both MMAs
  std::string error = {};
  bool error_at_mma1 = false;
  // Sparse, id2 0: TMEM's metadata columns hold zeros (nibble 0x0, invalid) until thread 0's
  // tcgen05.cp.128x128b, issued right before MMA0 with no wait, copies the image from shared memory
  // (CUTLASS's sparse mainloop does this every k-block); the ISA orders cp -> mma (PTX 9.7.16.6.2).
  bool meta_by_cp = false;
  bool error_at_completion = false;  // `error` is raised when MMA0 executes ("LINE": MMA0's line; no thread suffix)
  // Sparse 2:4: chunk `chunk` of row `row` (in step 0 and, as step 1 repeats step 0's metadata, in
  // step 1) gets `nibble`, its stored values zeroed (`zero`) or made non-zero. The dense reference
  // puts each stored value at the column its index names, adding two that name one column.
  struct ForcedChunk {
    uint32_t row, chunk, nibble;
    bool zero;
  };
  std::vector<ForcedChunk> force = {};
  std::string warning = {};  // expected: each MMA warns once, with exactly this text
};

void run_case(const Case& g, uint64_t seed) {
  const bool sparse = g.form.ends_with(".sp"), ws = g.form.find(".ws") != std::string::npos;
  SCOPED_TRACE(g.form + " " + g.kind + " M=" + std::to_string(g.M) + " N=" + std::to_string(g.N) + " A " + layout_name(g.la) +
               " B " + layout_name(g.lb) + " id2 " + std::to_string(g.id2) + " " + g.collector0 + " " + g.collector1 +
               " seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t b = elem_bytes(g.e), kstep = (sparse ? 64 : 32) / b, steps = 2, ktot = kstep * steps;
  const uint32_t chunk = g.e == Elem::TF32 ? 2 : 4, kept = chunk / 2;
  auto draw = [&]() { return g.e == Elem::S8 ? int(int8_t(rng())) : int(rng() % 9) - 4; };
  // Dense A (M x ktot) with the sparsity pattern, its packed form and metadata nibbles.
  // .ws column shift (zero-column-mask bits 61:56, PTX Table 45): the MMA reads B's columns
  // shift .. shift + N - 1, so B has NB = N + shift columns here.
  const uint32_t shift = uint32_t(g.zmask >> 56) & 0x3F, NB = g.N + shift;
  std::vector<int> A(size_t(g.M) * ktot, 0), P(size_t(g.M) * ktot / 2), B(size_t(ktot) * NB);
  std::vector<uint32_t> nib(size_t(g.M) * ktot / chunk);
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t c = 0; c < ktot / chunk; ++c) {
      uint32_t idx[2];
      if (!sparse) {
        for (uint32_t j = 0; j < chunk; ++j) A[m * ktot + c * chunk + j] = draw();
        continue;
      }
      if (kept == 1) {
        idx[0] = rng() % 2;
        nib[m * (ktot / chunk) + c] = idx[0] ? 0xE : 0x4;
      } else {
        const uint32_t v = kMetaNibbles[rng() % 7];
        idx[0] = v & 3;
        idx[1] = v >> 2;
        nib[m * (ktot / chunk) + c] = v;
      }
      for (uint32_t j = 0; j < kept; ++j) {
        const int v = draw();
        P[m * (ktot / 2) + c * kept + j] = v;
        A[m * ktot + c * chunk + idx[j]] = v;
      }
    }
  for (const Case::ForcedChunk& f : g.force) {
    ASSERT_TRUE(sparse && kept == 2);
    nib[f.row * (ktot / chunk) + f.chunk] = f.nibble;
    for (uint32_t s = 0; s < steps; ++s) {
      const uint32_t c = f.chunk + s * kstep / chunk;
      int* p = &P[f.row * (ktot / 2) + c * kept];
      for (uint32_t j = 0; j < kept; ++j) p[j] = f.zero ? 0 : p[j] != 0 ? p[j] : 3;
      int* a = &A[f.row * ktot + c * chunk];
      std::fill(a, a + chunk, 0);
      a[f.nibble & 3] += p[0];
      a[f.nibble >> 2] += p[1];
    }
  }
  for (int& x : B) x = draw();
  const std::vector<int>& stored = sparse ? P : A;
  const uint32_t astored = sparse ? ktot / 2 : ktot;
  Operand oa{g.M, astored, b, g.la}, ob{NB, ktot, b, g.lb};
  std::vector<uint8_t> ia(32768, 0), ib(32768, 0);
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t k = 0; k < astored; ++k) put_elem(ia, g.e, oa.offset(m, k), encode(g.e, stored[m * astored + k]));
  for (uint32_t n = 0; n < NB; ++n)
    for (uint32_t k = 0; k < ktot; ++k) put_elem(ib, g.e, ob.offset(n, k), encode(g.e, B[k * NB + n]));
  // The metadata in TMEM is one MMA's; both MMAs read it, so step 1 of A is rebuilt with step 0's
  // pattern (its own stored values at step 0's positions).
  std::vector<uint32_t> meta(128 * 8, 0);
  if (sparse) {
    for (uint32_t m = 0; m < g.M; ++m)
      for (uint32_t c = kstep / chunk; c < ktot / chunk; ++c) {  // step 1 copies step 0's pattern and values' places
        const uint32_t c0 = c - kstep / chunk;
        nib[m * (ktot / chunk) + c] = nib[m * (ktot / chunk) + c0];
        for (uint32_t j = 0; j < chunk; ++j) A[m * ktot + c * chunk + j] = 0;
        const uint32_t v = nib[m * (ktot / chunk) + c];
        const uint32_t i0 = kept == 1 ? (v == 0xE) : (v & 3), i1 = v >> 2;
        A[m * ktot + c * chunk + i0] += P[m * (ktot / 2) + c * kept];
        if (kept == 2) A[m * ktot + c * chunk + i1] += P[m * (ktot / 2) + c * kept + 1];
      }
    const uint32_t w = g.e == Elem::TF32 ? 2 : 1, per = 4 / w;  // elements per nibble
    for (uint32_t copy = 0; copy < (ws ? 128 / g.M : 1); ++copy)
      for (uint32_t m = 0; m < g.M; ++m)
        for (uint32_t k = 0; k < kstep; ++k) {
          const uint32_t v = nib[m * (ktot / chunk) + k / per];
          const uint32_t bits = (v >> (w * (k % per))) & ((1u << w) - 1);
          auto [lane, bit] = meta_bit(g.e, g.M, m, k, copy);
          const uint32_t col = g.id2 + bit / 32;
          ASSERT_LT(col, 2u);
          meta[lane * 8 + col] |= bits << (bit % 32);
        }
  }
  if (g.a_tmem && !sparse)
    for (uint32_t m = 0; m < g.M; ++m)
      for (uint32_t k = 0; k < kstep; ++k) meta[m * 8 + k * b / 4] |= encode(g.e, A[m * ktot + k]) << (8 * (k * b % 4));
  const uint32_t idesc = g.id2 | uint32_t(sparse) << 2 | g.d_code << 4 | g.a_code << 7 | g.a_code << 10 |
                         uint32_t(oa.mn_major()) << 15 | uint32_t(ob.mn_major()) << 16 | (g.N >> 3) << 17 | (g.M >> 4) << 24;
  const uint32_t dcols = ws ? g.N * g.M / 128 : g.N;
  auto mma = [&](const std::string& coll, const char* a, const char* bdesc, const char* pred) {
    std::string s = g.form + ".cta_group::1." + g.kind + coll + " [%r10], " + a + ", " + bdesc + ", " +
                    (sparse ? "[%r37], " : "") + "%r33, ";
    if (g.mma1_scale >= 0 && std::string(pred) == "%p4") {
      char v[96];
      std::snprintf(v, sizeof v, "{%u, %u, %u, %u}, %s, %d", g.mma1_disable[0], g.mma1_disable[1], g.mma1_disable[2],
                    g.mma1_disable[3], pred, g.mma1_scale);
      s += v;
    } else {
      s += pred;
    }
    if (ws) s += ", %rd16";
    return s + ";";
  };
  // MMA1 names A / B of step 1; with a collector qualifier it names the filled step-0 matrix again,
  // or (second_names_other) still step 1's, which it then reads (with a warning).
  const bool a_coll = g.collector1.find("::a::") != std::string::npos, b_coll = g.collector1.find("::b") != std::string::npos;
  const char* a0 = g.a_tmem ? "[%r37]" : "%rd10";
  const char* a1 = g.a_tmem ? "[%r37]" : a_coll && !g.second_names_other ? "%rd10" : "%rd11";
  const char* b1 = b_coll && !g.second_names_other ? "%rd12" : "%rd13";
  std::string ptx = replace_all(kKernel, "DCOLS", std::to_string(dcols));
  ptx = replace_all(ptx, "MMA0", mma(g.collector0, a0, "%rd12", "%p2"));
  ptx = replace_all(ptx, "MMA1", mma(g.collector1, a1, b1, "%p4"));
  ptx = replace_all(ptx, "BETWEEN", !g.zero_a_row0 ? "" : R"(
  mov.u32 %r70, bar2;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r70];
$mma0_done:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r70], 0;
  @!%p3 bra $mma0_done;
  tcgen05.fence::after_thread_sync;
  mov.u32 %r71, 0;
  st.shared.v4.u32 [sa], {%r71, %r71, %r71, %r71};
  st.shared.v4.u32 [sa+16], {%r71, %r71, %r71, %r71};
  fence.proxy.async.shared::cta;)");
  if (g.meta_by_cp) {
    EXPECT_TRUE(sparse && g.id2 == 0 && !ws);
    ptx = replace_all(ptx, "  .shared .align 8 .b64 bar;\n", "  .shared .align 128 .b8 smeta[2048];\n  .shared .align 8 .b64 bar;\n");
    // Lane r's first 4 metadata columns to shared row r (16 bytes; rows 128 bytes per 8: SBO 128),
    // and zeros to the TMEM cells the copy will overwrite.
    ptx = replace_all(ptx, "  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r58], {%r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57};\n",
                      R"(  mov.u32 %r80, smeta;
  shl.b32 %r81, %r0, 4;
  add.u32 %r80, %r80, %r81;
  st.shared.v4.u32 [%r80], {%r50, %r51, %r52, %r53};
  mov.u32 %r82, 0;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r58], {%r82, %r82, %r82, %r82, %r82, %r82, %r82, %r82};
  fence.proxy.async.shared::cta;
)");
    const std::string mma0 = mma(g.collector0, a0, "%rd12", "%p2");
    ASSERT_NE(ptx.find("  " + mma0 + "\n"), std::string::npos);
    // Descriptor: start smeta >> 4, LBO 16 (one 16-byte chunk per row: unused), SBO 128, bit 46 set, no swizzle.
    ptx = replace_all(ptx, "  " + mma0 + "\n", R"(  mov.u32 %r80, smeta;
  and.b32 %r80, %r80, 0x3ffff;
  shr.u32 %r80, %r80, 4;
  cvt.u64.u32 %rd30, %r80;
  or.b64 %rd30, %rd30, 0x400800010000;
  tcgen05.cp.cta_group::1.128x128b [%r37], %rd30;
  )" + mma0 + "\n");
  }
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = mem.allocate(32768, 256, "A"), gb = mem.allocate(32768, 256, "B"), gm = mem.allocate(4096, 256, "tmem image");
  mem.write(ga, ia.data(), ia.size());
  mem.write(gb, ib.data(), ib.size());
  if (g.edit_meta) g.edit_meta(meta);
  mem.write(gm, meta.data(), meta.size() * 4);
  ASSERT_LE(meta.size() * 4, 4096u);
  const uint64_t gd = alloc(mem, size_t(128) * dcols * 4, "D");
  Params p;
  p.add(ga).add(gb).add(gd).add(gm).add(oa.desc(0)).add(oa.desc(kstep / (sparse ? 2 : 1))).add(ob.desc(0) ^ g.bdesc_xor).add(ob.desc(kstep));
  p.add(idesc ^ g.idesc_xor).add(g.zmask);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, seed);
  if (!g.error.empty()) {
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
    const ptxsim::Diagnostic* e = first_error(r);
    ASSERT_TRUE(e);
    if (g.error_at_completion) {
      const std::string line = std::to_string(line_of(ptx, mma(g.collector0, a0, "%rd12", "%p2")));
      EXPECT_EQ(e->message, replace_all(g.error, "LINE", line)) << r.all_diagnostics();
      return;
    }
    EXPECT_EQ(e->message, g.error + " [CTA (0,0,0) warp 0 lanes 0x1]");
    EXPECT_EQ(e->loc.line, line_of(ptx, g.error_at_mma1 ? mma(g.collector1, a1, b1, "%p4") : mma(g.collector0, a0, "%rd12", "%p2")))
        << e->message;
    return;
  }
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  if (g.second_names_other) {
    EXPECT_TRUE(r.has_warning("names a different matrix")) << r.all_diagnostics();
  } else if (!g.warning.empty()) {
    EXPECT_EQ(r.warning_count(), 2u) << r.all_diagnostics();
    for (const auto& d : r.result.diagnostics)
      if (d.severity == ptxsim::Diagnostic::Severity::Warning) {
        EXPECT_EQ(d.message, g.warning);
      }
  } else {
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  }
  std::vector<uint32_t> d(size_t(128) * dcols);
  mem.read(gd, d.data(), d.size() * 4);
  // Which K steps of A and B MMA1 multiplies: the ones it names (a collector changes nothing).
  const uint32_t a_step1 = (a_coll && !g.second_names_other) || g.a_tmem ? 0 : 1;
  const uint32_t b_step1 = b_coll && !g.second_names_other ? 0 : 1;
  if (g.zero_a_row0) {
    ASSERT_TRUE(g.e == Elem::F16 && g.la == Layout::K128B && a_step1 == 0);
  }
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t n = 0; n < g.N; ++n) {
      int64_t sum0 = 0, sum1 = 0;
      for (uint32_t k = 0; k < kstep; ++k) {
        sum0 += int64_t(A[m * ktot + k]) * B[k * NB + n + shift];
        const bool zeroed = g.zero_a_row0 && m == 0 && k < 16;
        sum1 += int64_t(zeroed ? 0 : A[m * ktot + a_step1 * kstep + k]) * B[(b_step1 * kstep + k) * NB + n + shift];
      }
      // .ws: N in 128/M parts, part j in lanes [jM, (j+1)M) (CUTLASS tmem_frg_ws); else lane m.
      const uint32_t lane = ws ? m + g.M * (n / dcols) : m, col = ws ? n % dcols : n;
      if (!g.zero_cols.empty() && g.zero_cols[n] == '1') sum0 = sum1 = 0;
      if (g.mma1_scale >= 0) {
        const bool kept = g.mma1_disable[lane / 32] >> (lane % 32) & 1;
        const double want = kept ? double(sum0) : std::ldexp(double(sum0), -g.mma1_scale) + double(sum1);
        ASSERT_EQ(std::bit_cast<float>(d[size_t(lane) * dcols + col]), float(want)) << "D(" << m << ", " << n << ")";
        continue;
      }
      const int64_t sum = sum0 + sum1;
      const uint32_t got = d[size_t(lane) * dcols + col];
      if (g.e == Elem::S8) {
        ASSERT_EQ(int32_t(got), int32_t(sum)) << "D(" << m << ", " << n << ") lane " << lane << " column " << col;
      } else {
        ASSERT_EQ(std::bit_cast<float>(got), float(sum)) << "D(" << m << ", " << n << ") lane " << lane << " column " << col;
      }
    }
}

}  // namespace

TEST(Tcgen05MmaSparse, CompressedAAndMetadataGiveTheDenseProduct) {
  const uint64_t seed = test_seed();
  const Case cases[] = {
      {"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 64, Layout::K128B, Layout::K128B},
      {"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 32, Layout::KNone, Layout::MNNone, 1},
      {"tcgen05.mma.sp", "kind::tf32", Elem::TF32, 2, 1, 128, 16, Layout::K128B, Layout::KNone},
      {"tcgen05.mma.sp", "kind::tf32", Elem::TF32, 2, 1, 128, 24, Layout::KNone, Layout::K128B, 1},
      {"tcgen05.mma.sp", "kind::f8f6f4", Elem::E4M3, 0, 1, 128, 32, Layout::K128B, Layout::MNNone},
      {"tcgen05.mma.sp", "kind::i8", Elem::S8, 1, 2, 128, 48, Layout::KNone, Layout::K128B},
      {"tcgen05.mma.sp", "kind::f8f6f4", Elem::E2M1, 5, 1, 128, 16, Layout::K128B, Layout::KNone},
      {"tcgen05.mma.ws.sp", "kind::f8f6f4", Elem::E2M1, 5, 1, 64, 64, Layout::KNone, Layout::K128B},
      // M-major packed A (transpose A).
      {"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::MNNone, Layout::K128B},
      {"tcgen05.mma.ws.sp", "kind::i8", Elem::S8, 1, 2, 32, 64, Layout::MNNone, Layout::MNNone},
  };
  uint64_t s = seed;
  for (const Case& g : cases) run_case(g, s++);
  // The dense form's options on the sparse form: disable-output-lane and scale-input-d on MMA1.
  for (const char* kind : {"kind::f16", "kind::tf32"}) {
    const bool tf32 = std::string(kind) == "kind::tf32";
    Case opt{"tcgen05.mma.sp", kind, tf32 ? Elem::TF32 : Elem::F16, tf32 ? 2u : 0u, 1, 128, 32, Layout::K128B,
             Layout::K128B};
    opt.mma1_scale = tf32 ? 3 : 1;
    opt.mma1_disable[0] = 0x0000ffffu;
    opt.mma1_disable[3] = 0x80000001u;
    run_case(opt, s++);
  }
}

TEST(Tcgen05MmaWs, WeightStationaryDLayoutsAgainstAPlainGemm) {
  const uint64_t seed = test_seed();
  const Case cases[] = {
      {"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 128, 64, Layout::K128B, Layout::K128B},
      {"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 64, 128, Layout::KNone, Layout::MNNone},
      {"tcgen05.mma.ws", "kind::tf32", Elem::TF32, 2, 1, 32, 256, Layout::K128B, Layout::KNone},
      {"tcgen05.mma.ws", "kind::i8", Elem::S8, 1, 2, 32, 64, Layout::KNone, Layout::K128B},
      {"tcgen05.mma.ws", "kind::f8f6f4", Elem::E4M3, 0, 1, 64, 256, Layout::K128B, Layout::K128B},
      {"tcgen05.mma.ws.sp", "kind::f16", Elem::F16, 0, 1, 64, 128, Layout::K128B, Layout::K128B},
      {"tcgen05.mma.ws.sp", "kind::tf32", Elem::TF32, 2, 1, 32, 64, Layout::KNone, Layout::K128B, 1},
      {"tcgen05.mma.ws.sp", "kind::i8", Elem::S8, 1, 2, 128, 128, Layout::K128B, Layout::MNNone},
      {"tcgen05.mma.ws.sp", "kind::f8f6f4", Elem::E4M3, 0, 1, 32, 128, Layout::KNone, Layout::KNone},
  };
  uint64_t s = seed;
  for (const Case& g : cases) run_case(g, s++);
  // A in TMEM, M = 128: lane m, K packed into 32-bit columns as for the dense M = 128 MMA.
  for (Elem e : {Elem::F16, Elem::S8}) {
    Case t{"tcgen05.mma.ws", e == Elem::F16 ? "kind::f16" : "kind::i8", e, e == Elem::F16 ? 0u : 1u,
           e == Elem::F16 ? 1u : 2u, 128, 128, Layout::KNone, Layout::K128B};
    t.a_tmem = true;
    run_case(t, s++);
  }
}

TEST(Tcgen05MmaCollector, TheMmaReadsTheMatrixItsOperandNames) {
  const uint64_t seed = test_seed();
  const Case cases[] = {
      // A: fill then use naming the same A, or another (a warning: which one the hardware reads is
      // not defined; ptxsim reads the named one).
      {"tcgen05.mma", "kind::f16", Elem::F16, 0, 1, 128, 32, Layout::K128B, Layout::K128B, 0, ".collector::a::fill",
       ".collector::a::use"},
      {"tcgen05.mma", "kind::i8", Elem::S8, 1, 2, 128, 16, Layout::KNone, Layout::KNone, 0, ".collector::a::fill",
       ".collector::a::lastuse", true},
      {"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::KNone, 0, ".collector::a::fill",
       ".collector::a::lastuse"},
      // .ws: B buffers.
      {"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 64, 64, Layout::K128B, Layout::K128B, 0, ".collector::b2::fill",
       ".collector::b2::use", true},
      {"tcgen05.mma.ws.sp", "kind::tf32", Elem::TF32, 2, 1, 128, 64, Layout::KNone, Layout::K128B, 0,
       ".collector::b0::fill", ".collector::b0::lastuse"},
  };
  uint64_t s = seed;
  for (const Case& g : cases) run_case(g, s++);
  // CUTLASS's 1cta_mma_basic.py (COLLECTOR = 2): fill, wait, overwrite row 0 of A in shared memory,
  // fence, lastuse: the lastuse sees the new row (reuse is only a permission).
  Case cutlass_example{"tcgen05.mma", "kind::f16", Elem::F16, 0, 1, 128, 64, Layout::K128B, Layout::K128B, 0,
                       ".collector::a::fill", ".collector::a::lastuse"};
  cutlass_example.zero_a_row0 = true;
  run_case(cutlass_example, s++);
}

TEST(Tcgen05MmaSparse, InvalidMetadataIsAFaultNamingRowChunkAndCell) {
  const uint64_t seed = test_seed();
  // kind::tf32: only 0x4 and 0xe; "Rest of the values result in undefined behavior" (PTX 9.7.16.10.8.1).
  Case tf32{"tcgen05.mma.sp", "kind::tf32", Elem::TF32, 2, 1, 128, 16, Layout::KNone, Layout::KNone, 1};
  // Row 20 = lane 16 + 4 (rows 16..23, bits 15:0), chunk 5 = lane + 8, bits 7:4.
  tf32.edit_meta = [](std::vector<uint32_t>& m) { m[28 * 8 + 1] = (m[28 * 8 + 1] & ~0xF0u) | 0x50u; };
  tf32.error = "tcgen05.mma.sp.cta_group::1.kind::tf32: invalid sparsity metadata for row 20 chunk 5 (columns 10..11 of "
               "A): nibble 0x5 is invalid for kind::tf32 (1:2 sparsity: only 0x4, element 0, and 0xe, element 1, are "
               "valid); it is bits 7:4 of TMEM lane 28, column 257 (sp-meta-tmem + lane 28, column 1)";
  run_case(tf32, seed + 1);
}

// 2:4 kinds: the ISA lists the meaningful nibbles but, unlike for tf32 and mxf4, does not make the
// rest undefined (PTX 9.7.16.10.8.2), and CUTLASS's compressor writes 0x0 for a chunk with no
// non-zero element (83_blackwell_sparse_gemm passes on hardware). Any nibble runs: each 2-bit index
// selects the B element its stored element multiplies; when the chunk's stored elements are not
// zero, each MMA warns once (the result rests on that reading).
TEST(Tcgen05MmaSparse, UnlistedTwoFourNibblesSelectBByTheirIndices) {
  const uint64_t seed = test_seed();
  const std::string unlisted =
      " is not one of the values the ISA calls meaningful for a 2:4 chunk (0x4, 0x8, 0xc, 0x9, 0xd, 0x6, 0xe; PTX "
      "9.7.16.10.8.2) and the chunk's stored elements are not zero: ptxsim multiplies them by B's elements at K = ";
  // CUTLASS's all-zero chunk: 0x0 with zero stored values; nothing to say.
  Case zero{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::K128B};
  zero.force = {{9, 2, 0x0, true}, {0, 0, 0x0, true}, {127, 7, 0x0, true}};
  run_case(zero, seed);
  // Row 9 = lane 1 (bits 31:16: rows 8..15 of the 16-lane group), chunk 2 = bits 27:24: 0x5 names
  // column 1 twice, so both stored values multiply B's row K = 9.
  Case f16{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::K128B};
  f16.force = {{9, 2, 0x5, false}};
  f16.warning = "tcgen05.mma.sp.cta_group::1.kind::f16: sparsity metadata for row 9 chunk 2 (columns 8..11 of A): nibble "
                "0x5" + unlisted + "9 and 9 (the 2-bit indices as given); it is bits 27:24 of TMEM lane 1, column 256 "
                "(sp-meta-tmem + lane 1, column 0)";
  run_case(f16, seed + 1);
  // Distinct but decreasing indices (0b0001: columns 1 then 0), listed for mma.sp, not here.
  Case dec = f16;
  dec.force = {{9, 2, 0x1, false}};
  dec.warning = replace_all(replace_all(f16.warning, "nibble 0x5", "nibble 0x1"), "9 and 9", "9 and 8");
  run_case(dec, seed + 2);
  // kind::i8 .ws.sp, M = 64 (metadata repeated in both 64-lane copies): row 3 chunk 9 = column 1,
  // bits 7:4 of lane 3 (and of lane 67); 0xf names column 3 twice.
  Case i8ws{"tcgen05.mma.ws.sp", "kind::i8", Elem::S8, 1, 2, 64, 64, Layout::KNone, Layout::KNone};
  i8ws.force = {{3, 9, 0xF, false}};
  i8ws.warning = "tcgen05.mma.ws.sp.cta_group::1.kind::i8: sparsity metadata for row 3 chunk 9 (columns 36..39 of A): "
                 "nibble 0xf" + unlisted + "39 and 39 (the 2-bit indices as given); it is bits 7:4 of TMEM lane 3, "
                 "column 257 (sp-meta-tmem + lane 3, column 1)";
  run_case(i8ws, seed + 3);
}

// The metadata reaches TMEM through a tcgen05.cp issued just before the MMA (what CUTLASS's sparse
// mainloop does); at issue its cells still hold zeros, an invalid 2:4 nibble. The MMA must read what
// the copy brings (the pair is ordered, PTX 9.7.16.6.2), and invalid metadata in the copied image
// must still fault, when the MMA executes.
TEST(Tcgen05MmaSparse, MetadataCopiedByTcgen05CpJustBeforeTheMmaIsWhatItReads) {
  const uint64_t seed = test_seed();
  for (Layout l : {Layout::K128B, Layout::KNone}) {
    Case c{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 64, l, l};
    c.meta_by_cp = true;
    // And CUTLASS's all-zero chunk (0x0, zero stored values) among them, as 83 has.
    c.force = {{5, 3, 0x0, true}, {100, 0, 0x0, true}};
    run_case(c, seed + uint64_t(l));
  }
  Case bad{"tcgen05.mma.sp", "kind::tf32", Elem::TF32, 2, 1, 128, 16, Layout::KNone, Layout::KNone};
  bad.meta_by_cp = true;
  bad.error_at_completion = true;
  // tf32 row 20 chunk 5 (lane 28, bits 7:4 of the id2 = 0 column) = 0x5, undefined for 1:2.
  bad.edit_meta = [](std::vector<uint32_t>& m) { m[28 * 8 + 0] = (m[28 * 8 + 0] & ~0xF0u) | 0x50u; };
  bad.error = "tcgen05.mma.sp.cta_group::1.kind::tf32 (line LINE): invalid sparsity metadata for row 20 chunk 5 (columns "
              "10..11 of A): nibble 0x5 is invalid for kind::tf32 (1:2 sparsity: only 0x4, element 0, and 0xe, element 1, "
              "are valid); it is bits 7:4 of TMEM lane 28, column 256 (sp-meta-tmem + lane 28, column 0) (read when the "
              "MMA executed, after the earlier tcgen05 operations that write it)";
  run_case(bad, seed + 7);
}

TEST(Tcgen05MmaSparse, UnsimulatedAndInvalidFormsFailLoudly) {
  const uint64_t seed = test_seed();
  std::vector<Case> cases;
  Case m64{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::K128B};
  m64.idesc_xor = (128u >> 4 ^ 64u >> 4) << 24;  // M = 64
  m64.error = "tcgen05.mma.sp.cta_group::1.kind::f16: sparse M = 64 with .cta_group::1 is not simulated (CUTLASS pins "
              "the metadata layout only for 128 rows per CTA, and for .ws M = 32/64/128; the PTX ISA gives it only as a "
              "figure)";
  cases.push_back(m64);
  Case sel{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::K128B};
  sel.idesc_xor = 2;  // sparsity selector 2
  sel.error = "tcgen05.mma.sp.cta_group::1.kind::f16: sparsity selector (instruction descriptor bits 1:0) = 2 with "
              "kind::f16 is not simulated (only 0 and 1, CUTLASS's odd-column flag, have a known meaning)";
  cases.push_back(sel);
  Case dense_bit{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::K128B};
  dense_bit.idesc_xor = 4;  // sparse flag cleared
  dense_bit.error = "tcgen05.mma.sp.cta_group::1.kind::f16: instruction descriptor 0x08040010: sparse (bit 2) = 0 but "
                    "the instruction is sparse (.sp)";
  cases.push_back(dense_bit);
  Case ws_n{"tcgen05.mma.ws.sp", "kind::f16", Elem::F16, 0, 1, 64, 128, Layout::K128B, Layout::K128B};
  ws_n.idesc_xor = (128u >> 3 ^ 256u >> 3) << 17;  // N = 256
  ws_n.error = "tcgen05.mma.ws.sp.cta_group::1.kind::f16: instruction descriptor 0x04400014: N >> 3 (bits 22:17): N = 256 "
               "is not 64 or 128 for kind::f16 with .cta_group::1 .ws .sp";
  cases.push_back(ws_n);
  Case ws_m{"tcgen05.mma.ws", "kind::tf32", Elem::TF32, 2, 1, 32, 64, Layout::K128B, Layout::K128B};
  ws_m.idesc_xor = (32u >> 4 ^ 16u >> 4) << 24;  // M = 16
  ws_m.error = "tcgen05.mma.ws.cta_group::1.kind::tf32: instruction descriptor 0x01100910: M >> 4 (bits 28:24): M = 16 "
               "is not 32, 64 or 128 for kind::tf32 with .cta_group::1 .ws";
  cases.push_back(ws_m);
  Case mask{"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 64, 64, Layout::K128B, Layout::K128B};
  mask.zmask = 1ull << 39 | 0x0102ull << 40 | 1ull << 33 | 0x0300ull;  // sub-mask 1: skip span of 3, start count 3
  mask.error = "tcgen05.mma.ws.cta_group::1.kind::f16: zero-column-mask descriptor 0x0001028200000300: start count 1 "
               "(bits 15:8) = 3 is not inside the first span (skip span of 3 columns): where such a sub-mask starts is "
               "not pinned down (not simulated)";
  cases.push_back(mask);
  Case shift{"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 32, 64, Layout::K128B, Layout::K128B};
  shift.zmask = 17ull << 56;
  shift.error = "tcgen05.mma.ws.cta_group::1.kind::f16: zero-column-mask descriptor 0x1100000000000000: column shift "
                "(bits 61:56) = 17 is more than 16 for M = 32";
  cases.push_back(shift);
  Case maxshift{"tcgen05.mma.sp", "kind::i8", Elem::S8, 1, 2, 128, 32, Layout::K128B, Layout::K128B};
  maxshift.idesc_xor = 1u << 30;
  maxshift.error = "tcgen05.mma.sp.cta_group::1.kind::i8: instruction descriptor 0x480804a4: max shift (bits 31:30) is "
                   "only for .ws";
  cases.push_back(maxshift);
  Case swz{"tcgen05.mma.sp", "kind::f16", Elem::F16, 0, 1, 128, 32, Layout::K128B, Layout::K128B};
  swz.bdesc_xor = 4ull << 61;  // 128B swizzle (2) -> 32B swizzle (6)
  swz.error = "tcgen05.mma.sp.cta_group::1.kind::f16: B: a K-major 32B swizzle row holds 32 bytes, less than the 64 bytes "
              "of K of a sparse MMA; where the rest of K lies is not pinned down (not simulated)";
  cases.push_back(swz);
  Case wsa{"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 64, 64, Layout::K128B, Layout::K128B};
  wsa.a_tmem = true;
  wsa.error = "tcgen05.mma.ws.cta_group::1.kind::f16: A in Tensor Memory with .ws and M = 64 is not simulated (its TMEM "
              "layout is figure-only; CUTLASS pins none)";
  cases.push_back(wsa);
  uint64_t s = seed;
  for (const Case& c : cases) run_case(c, s++);
}

TEST(Tcgen05MmaCollector, UseWithoutAValidFillIsAnError) {
  const uint64_t seed = test_seed();
  Case never{"tcgen05.mma", "kind::f16", Elem::F16, 0, 1, 128, 16, Layout::K128B, Layout::K128B, 0, "",
             ".collector::a::use"};
  never.error = "tcgen05.mma.cta_group::1.kind::f16: .collector::a::use reads the collector::a buffer, which holds "
                "nothing: no MMA filled it (.collector::a::fill) (the ISA requires a previous fill to still be valid)";
  never.error_at_mma1 = true;
  run_case(never, seed);
  // .ws: a discard of B1 does not fill it (the tracker test covers "ended by").
  Case ended{"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 128, 64, Layout::K128B, Layout::K128B, 0,
             ".collector::b1::fill", ".collector::b1::use"};
  ended.collector0 = ".collector::b1::discard";
  ended.error = "tcgen05.mma.ws.cta_group::1.kind::f16: .collector::b1::use reads the collector::b1 buffer, which holds "
                "nothing: no MMA filled it (.collector::b1::fill) (the ISA requires a previous fill to still be valid)";
  ended.error_at_mma1 = true;
  run_case(ended, seed + 1);
}

TEST(Tcgen05MmaCollector, TrackerNamesTheFillAndWhatEndedIt) {
  namespace t5 = ptxsim::model::tcgen05;
  t5::CollectorTracker t;
  const t5::CollectorRef a{false, 0}, b2{true, 2};
  EXPECT_FALSE(t.issue(a, t5::CollectorUse::Fill, 0x100, 10).error);
  EXPECT_TRUE(t.issue(b2, t5::CollectorUse::Use, 0x200, 11).error);  // B2 was never filled
  EXPECT_FALSE(t.issue(a, t5::CollectorUse::Use, 0x100, 12).error);
  auto other = t.issue(a, t5::CollectorUse::Use, 0x180, 13);
  EXPECT_FALSE(other.error);
  ASSERT_TRUE(other.warning);
  EXPECT_EQ(*other.warning, ".collector::a::use names a different matrix (operand 0x180) from the fill at line 10, whose "
                            "matrix the buffer holds; which of the two the hardware reads is not defined (ptxsim reads the "
                            "one the operand names)");
  EXPECT_FALSE(t.issue(a, t5::CollectorUse::LastUse, 0x100, 14).error);
  auto after = t.issue(a, t5::CollectorUse::Use, 0x100, 15);
  ASSERT_TRUE(after.error);
  EXPECT_EQ(*after.error, ".collector::a::use reads the collector::a buffer, which holds nothing: the fill at line 10 was "
                          "ended by the .collector::a::lastuse at line 14 (the ISA requires a previous fill to still be "
                          "valid)");
  EXPECT_FALSE(t.issue(a, t5::CollectorUse::Fill, 0x100, 16).error);
  EXPECT_FALSE(t.issue(a, t5::CollectorUse::Discard, 0x100, 17).error);
  auto discarded = t.issue(a, t5::CollectorUse::LastUse, 0x100, 18);
  ASSERT_TRUE(discarded.error);
  EXPECT_NE(discarded.error->find("the fill at line 16 was ended by the .collector::a::discard at line 17"), std::string::npos);
}

TEST(Tcgen05MmaWs, ZeroColumnMaskForcesBColumnsToZero) {
  namespace t5 = ptxsim::model::tcgen05;
  // The generator against patterns written span by span (ptx-facts.md's example: skip 2, use 3).
  auto mask = [](uint32_t fs, std::array<uint32_t, 4> sc, uint32_t skip, uint32_t use) {
    return t5::ZeroColumnMaskDescriptor::decode(uint64_t(sc[0]) | uint64_t(sc[1]) << 8 | uint64_t(sc[2]) << 16 |
                                                uint64_t(sc[3]) << 24 | uint64_t(fs) << 32 | 1ull << 39 |
                                                uint64_t(skip) << 40 | uint64_t(use) << 48);
  };
  auto text = [](const std::vector<uint8_t>& z) {
    std::string s;
    for (uint8_t b : z) s += b ? '1' : '0';
    return s;
  };
  EXPECT_EQ(text(t5::zero_columns(mask(1, {0, 0, 0, 0}, 2, 3), 128, 16)), "1110000111000011");
  EXPECT_EQ(text(t5::zero_columns(mask(1, {1, 0, 0, 0}, 2, 3), 128, 16)), "1100001110000111");
  EXPECT_EQ(text(t5::zero_columns(mask(0, {2, 0, 0, 0}, 0, 3), 128, 12)), "001000010000");
  EXPECT_EQ(text(t5::zero_columns(mask(0b0110, {0, 1, 0, 5}, 1, 5), 32, 64)),
            zero_pattern(false, 0, 1, 5, 16) + zero_pattern(true, 1, 1, 5, 16) + zero_pattern(true, 0, 1, 5, 16) +
                zero_pattern(false, 5, 1, 5, 16));
  EXPECT_EQ(text(t5::zero_columns(t5::ZeroColumnMaskDescriptor::decode(0x00FF'FF0F'0000'0000ull), 64, 64)),
            std::string(64, '0'));  // bit 39 = 0: no mask
  // Through the engine: .ws and .ws.sp with masks (each sub-mask its own phase).
  const uint64_t seed = test_seed();
  Case m128{"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 128, 64, Layout::K128B, Layout::K128B};
  m128.zmask = 1ull << 39 | 4ull << 40 | 9ull << 48 | 1ull << 32 | 2;  // skip 5, use 10, start in skip at 2
  m128.zero_cols = zero_pattern(true, 2, 4, 9, 64);
  run_case(m128, seed);
  Case m32{"tcgen05.mma.ws.sp", "kind::i8", Elem::S8, 1, 2, 32, 128, Layout::KNone, Layout::K128B};
  m32.zmask = 1ull << 39 | 0ull << 40 | 6ull << 48 | 0b1010ull << 32 | 0x00060001ull;  // skip 1, use 7
  m32.zero_cols = zero_pattern(false, 1, 0, 6, 32) + zero_pattern(true, 0, 0, 6, 32) + zero_pattern(false, 6, 0, 6, 32) +
                  zero_pattern(true, 0, 0, 6, 32);
  run_case(m32, seed + 1);
  // Column shifts: B's columns shift .. shift + N - 1 feed the MMA, the mask applies to its N columns.
  Case s128{"tcgen05.mma.ws", "kind::f16", Elem::F16, 0, 1, 128, 64, Layout::KNone, Layout::KNone};
  s128.zmask = 2ull << 56;  // CUTLASS's convolution taps shift by 0, 1, 2
  run_case(s128, seed + 2);
  Case s64{"tcgen05.mma.ws", "kind::i8", Elem::S8, 1, 2, 64, 128, Layout::K128B, Layout::K128B};
  s64.zmask = 24ull << 56 | 1ull << 39 | 1ull << 40 | 2ull << 48 | 0b01ull << 32;  // skip 2, use 3, shift 24
  s64.zero_cols = zero_pattern(true, 0, 1, 2, 64) + zero_pattern(false, 0, 1, 2, 64);
  run_case(s64, seed + 3);
}

// The four worked examples of PTX Table 45 (zero-column mask descriptor), the masks as printed there
// (MSB first, so reversed here into column order).
TEST(Tcgen05MmaWs, ZeroColumnMaskReproducesTheIsaExamples) {
  namespace t5 = ptxsim::model::tcgen05;
  auto desc = [](std::array<uint32_t, 4> sc, uint32_t fs, uint32_t nzm, uint32_t skip, uint32_t use, uint32_t shift) {
    return t5::ZeroColumnMaskDescriptor::decode(uint64_t(sc[0]) | uint64_t(sc[1]) << 8 | uint64_t(sc[2]) << 16 |
                                                uint64_t(sc[3]) << 24 | uint64_t(fs) << 32 | uint64_t(nzm) << 39 |
                                                uint64_t(skip) << 40 | uint64_t(use) << 48 | uint64_t(shift) << 56);
  };
  // Sub-mask i of the generated mask (N columns) as text, column 0 first, `len` columns of it.
  auto sub = [](const std::vector<uint8_t>& z, uint32_t parts, uint32_t i, size_t len) {
    std::string s;
    const size_t cols = z.size() / parts;
    for (size_t j = 0; j < len; ++j) s += z[i * cols + j] ? '1' : '0';
    return s;
  };
  auto printed = [](std::string msb_first) {  // "111 0000 111" -> column order, spaces dropped
    msb_first.erase(std::remove(msb_first.begin(), msb_first.end(), ' '), msb_first.end());
    return std::string(msb_first.rbegin(), msb_first.rend());
  };
  // Example 1: Non-Zero Mask 0 -> 0x0.
  EXPECT_EQ(sub(t5::zero_columns(desc({0, 0, 0, 0}, 0, 0, 4, 3, 0), 128, 64), 1, 0, 64), std::string(64, '0'));
  // Example 2 (M = 128): mask0 0b ... 111 0000 111 0000.
  EXPECT_EQ(sub(t5::zero_columns(desc({0, 0, 0, 0}, 0, 1, 2, 3, 0), 128, 64), 1, 0, 14), printed("111 0000 111 0000"));
  // Example 3 (M = 64): fs {0, 1}: mask0 0b ... 111 0000 111 0000 111, mask1 0b ... 0000 111 0000 111 0000.
  const auto z3 = t5::zero_columns(desc({0, 0, 0, 0}, 0b01, 1, 2, 3, 0), 64, 64);
  EXPECT_EQ(sub(z3, 2, 0, 17), printed("111 0000 111 0000 111"));
  EXPECT_EQ(sub(z3, 2, 1, 18), printed("0000 111 0000 111 0000"));
  // Example 4 (M = 32): sc {1, 2, 1, 0}, fs {0, 0, 1, 1} (sc3..sc0, fs3..fs0), shift 2.
  const auto d4 = desc({0, 1, 2, 1}, 0b0011, 1, 2, 3, 2);
  EXPECT_FALSE(t5::validate(d4, 32));
  const auto z4 = t5::zero_columns(d4, 32, 128);
  EXPECT_EQ(sub(z4, 4, 0, 14), printed("0000 111 0000 111"));
  EXPECT_EQ(sub(z4, 4, 1, 13), printed("0000 111 0000 11"));
  EXPECT_EQ(sub(z4, 4, 2, 12), printed("111 0000 111 00"));
  EXPECT_EQ(sub(z4, 4, 3, 13), printed("111 0000 111 000"));
  EXPECT_EQ(t5::column_shift(d4.encode()), 2u);  // "B Matrix with columns from 2 to 129 will be used" (N = 128)
}

TEST(Tcgen05MmaWs, ZeroColumnMaskDescriptorFieldsRoundTrip) {
  namespace t5 = ptxsim::model::tcgen05;
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 1000; ++i) {
    const uint64_t w = rng();
    EXPECT_EQ(t5::ZeroColumnMaskDescriptor::decode(w).encode(), w);
  }
  t5::ZeroColumnMaskDescriptor d = t5::ZeroColumnMaskDescriptor::decode(0x3A5B'8C01'0203'0405ull);
  EXPECT_EQ(d.start_count[0], 0x05u);
  EXPECT_EQ(d.start_count[3], 0x02u);
  EXPECT_EQ(d.first_span, 0x1u);
  EXPECT_EQ(d.nonzero_mask, 0u);
  EXPECT_EQ(d.skip_span, 0x8Cu);
  EXPECT_EQ(d.use_span, 0x5Bu);
  EXPECT_EQ(d.column_shift, 0x3Au);
  EXPECT_FALSE(t5::validate(t5::ZeroColumnMaskDescriptor::decode(0x00FF'FF0F'FFFF'FFFFull), 128));  // no mask, no shift
  EXPECT_EQ(*t5::validate(t5::ZeroColumnMaskDescriptor::decode(1ull << 36), 128),
            "zero-column-mask descriptor 0x0000001000000000: bits 38:36 are reserved and must be 0");
  EXPECT_FALSE(t5::validate(t5::ZeroColumnMaskDescriptor::decode(32ull << 56), 64));
  EXPECT_EQ(*t5::validate(t5::ZeroColumnMaskDescriptor::decode(33ull << 56), 64),
            "zero-column-mask descriptor 0x2100000000000000: column shift (bits 61:56) = 33 is more than 32 for M = 64");
  EXPECT_EQ(*t5::validate(t5::ZeroColumnMaskDescriptor::decode(17ull << 56), 32),
            "zero-column-mask descriptor 0x1100000000000000: column shift (bits 61:56) = 17 is more than 16 for M = 32");
  EXPECT_EQ(*t5::validate(t5::ZeroColumnMaskDescriptor::decode(1ull << 62), 64),
            "zero-column-mask descriptor 0x4000000000000000: bits 63:62 are reserved and must be 0");
}

TEST(Tcgen05MmaSparse, MetadataCellsFollowTheCutlassAtoms) {
  namespace t5 = ptxsim::model::tcgen05;
  // Independent of meta_bit above: spot values worked out by hand from the atoms.
  // f16 M=128: row 9 (m0 1, m1 1, m2 0), chunk 5 (k 20..23: k0 4, k1 1) -> lane 1 + 8 = 9, bits 16 + 4*1.
  auto c = t5::meta_cell(t5::Kind::F16, 128, 0, 9, 5, 0);
  EXPECT_EQ(c.cell.lane, 9u);
  EXPECT_EQ(c.cell.column, 0u);
  EXPECT_EQ(c.bit, 20u);
  // tf32 .ws M=32, copy 3, row 30 (m0 6, m1 1, m2 1), chunk 7 (k 14..15: k0 6, k1 1): lane 96 + 6 + 16 + 8.
  c = t5::meta_cell(t5::Kind::TF32, 32, 1, 30, 7, 3);
  EXPECT_EQ(c.cell.lane, 126u);
  EXPECT_EQ(c.cell.column, 1u);
  EXPECT_EQ(c.bit, 28u);
  // i8 row 77 chunk 13: lane 77, column 1, bits 23:20.
  c = t5::meta_cell(t5::Kind::I8, 128, 0, 77, 13, 0);
  EXPECT_EQ(c.cell.lane, 77u);
  EXPECT_EQ(c.cell.column, 1u);
  EXPECT_EQ(c.bit, 20u);
}

TEST(Tcgen05MmaWs, QualifiersAndOperandsAreCheckedAtLoadWithPtxasWords) {
  auto module = [](const std::string& line) {
    return ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<4>;\n"
           "  .reg .b64 %rd<2>;\n  .reg .pred %p<2>;\n" + line + "\n  ret;\n}\n";
  };
  struct Bad {
    const char* line;
    const char* message;
  };
  const Bad bad[] = {
      {"  tcgen05.mma.ws.cta_group::2.kind::f16 [%r2], %rd1, %rd1, %r1, %p1;",
       "Illegal modifier '.cta_group::2' for instruction 'tcgen05.mma.ws'"},
      {"  tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r2], %rd1, %rd1, %r1, %p1;",
       "Illegal modifier '.collector::a::fill' for instruction 'tcgen05.mma.ws'"},
      {"  tcgen05.mma.sp.cta_group::1.kind::f16.collector::b3::lastuse [%r2], %rd1, %rd1, [%r3], %r1, %p1;",
       "Illegal modifier '.collector::b3::lastuse' for instruction 'tcgen05.mma'"},
      {"  tcgen05.mma.cta_group::1.kind::f16.collector::a::fill.collector::a::discard [%r2], %rd1, %rd1, %r1, %p1;",
       "Multiple .collector_usage modifiers specified"},
      {"  tcgen05.mma.ws.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r1, {%r1, %r1, %r1, %r1}, %p1;",
       "Arguments mismatch for instruction 'tcgen05.mma.ws'"},
      {"  tcgen05.mma.ws.cta_group::1.kind::mxf8f6f4.block_scale [%r2], %rd1, %rd1, %r1, [%r3], [%r3], %p1;",
       "Arguments mismatch for instruction 'tcgen05.mma.ws'"},
      {"  tcgen05.mma.ws.cta_group::1.kind::f16.ashift [%r2], [%r3], %rd1, %r1, %p1;",
       "Illegal modifier '.ashift' for instruction 'tcgen05.mma.ws'"},
      {"  tcgen05.mma.sp.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r3, %r1, %p1;",
       "Arguments mismatch for instruction 'tcgen05.mma.sp': sp-meta-tmem is an address [sp-meta-tmem]"},
      {"  tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale [%r2], %rd1, %rd1, [%r3], %r1, [%r3], %p1;",
       "Arguments mismatch for instruction 'tcgen05.mma.sp': expected [d-tmem], a-desc|[a-tmem], b-desc, [sp-meta-tmem], "
       "idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.line);
    try {
      ptxsim::load_program(module(b.line), "t.ptx");
      ADD_FAILURE() << "accepted";
    } catch (const ptxsim::PtxError& e) {
      EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("t.ptx:9"), std::string::npos) << e.what();
    }
  }
}

namespace {

// A cluster of two CTAs (a pair), 128 threads each. CTA v copies its half of the packed A (rows
// [128v, 128v + 128)), its half of B (columns [vN/2, (v+1)N/2)) and the metadata of its rows into
// TMEM column 256; allocates with cta_group::2 and tells CTA 0 through `ready`; thread 0 of CTA 0
// issues one sparse cta_group::2 MMA and commits it with multicast; each CTA dumps its D.
const char* kPairKernel = R"(
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 ga, .param .u64 gb, .param .u64 gd, .param .u64 gm, .param .u64 ad0, .param .u64 bd0,
                  .param .u32 idesc)
{
  .shared .align 1024 .b8 sa[16384];
  .shared .align 1024 .b8 sb[16384];
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 ready;
  .shared .align 4 .b32 tslot;
  .reg .b32 %r<100>;
  .reg .b64 %rd<40>;
  .reg .pred %p<8>;
  .reg .b16 %rs<4>;
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
  mov.u32 %r60, %cluster_ctarank;
  mov.u32 %r61, ready;
  or.b32 %r62, %r0, %r60;
  setp.ne.u32 %p6, %r62, 0;
  @%p6 bra $ready_done;
  mbarrier.init.shared::cta.b64 [%r61], 1;
$ready_done:
  ld.param.u64 %rd1, [ga];
  ld.param.u64 %rd2, [gb];
  ld.param.u64 %rd3, [gd];
  ld.param.u64 %rd7, [gm];
  mul.wide.u32 %rd9, %r60, 16384;
  add.u64 %rd1, %rd1, %rd9;
  add.u64 %rd2, %rd2, %rd9;
  mul.wide.u32 %rd9, %r60, 1024;
  add.u64 %rd7, %rd7, %rd9;
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
  mul.wide.u32 %rd8, %r0, 8;
  add.u64 %rd7, %rd7, %rd8;
  ld.global.v2.u32 {%r50, %r51}, [%rd7];
  add.u32 %r58, %r28, 256;
  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r58], {%r50, %r51};
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
  add.u32 %r37, %r10, 256;
  setp.ne.u32 %p2, %r0, 0;
  tcgen05.mma.sp.cta_group::2.KIND [%r10], %rd10, %rd12, [%r37], %r33, %p2;
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
  ret;
}
)";

}  // namespace

TEST(Tcgen05MmaSparse, CtaPairM256ReadsEachCtasMetadata) {
  const uint64_t seed = test_seed();
  struct PairCase {
    std::string kind;
    Elem e;
    uint32_t code, d_code, N;
    Layout la, lb;
  } cases[] = {
      {"kind::f16", Elem::F16, 0, 1, 64, Layout::K128B, Layout::KNone},
      {"kind::i8", Elem::S8, 1, 2, 32, Layout::KNone, Layout::K128B},
  };
  uint64_t sd = seed;
  for (const PairCase& g : cases) {
    SCOPED_TRACE(g.kind + " .sp cta_group::2 M=256 N=" + std::to_string(g.N) + " seed " + std::to_string(sd));
    std::mt19937_64 rng(sd++);
    const uint32_t M = 256, b = elem_bytes(g.e), K = 64 / b, Mh = 128, Nh = g.N / 2;
    auto draw = [&]() { return g.e == Elem::S8 ? int(int8_t(rng())) : int(rng() % 9) - 4; };
    std::vector<int> A(size_t(M) * K, 0), P(size_t(M) * K / 2), B(size_t(K) * g.N);
    std::vector<uint32_t> nib(size_t(M) * K / 4);
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t c = 0; c < K / 4; ++c) {
        const uint32_t v = kMetaNibbles[rng() % 7], i0 = v & 3, i1 = v >> 2;
        nib[m * (K / 4) + c] = v;
        P[m * (K / 2) + 2 * c] = A[m * K + 4 * c + i0] = draw();
        P[m * (K / 2) + 2 * c + 1] = A[m * K + 4 * c + i1] = draw();
      }
    for (int& x : B) x = draw();
    Operand oa{Mh, K / 2, b, g.la}, ob{Nh, K, b, g.lb};
    std::vector<uint8_t> img_a(2 * 16384, 0), img_b(2 * 16384, 0);
    std::vector<uint32_t> meta(2 * 256, 0);
    for (uint32_t v = 0; v < 2; ++v) {
      for (uint32_t m = 0; m < Mh; ++m) {
        for (uint32_t k = 0; k < K / 2; ++k) {
          const uint32_t bits = encode(g.e, P[(v * Mh + m) * (K / 2) + k]);
          for (uint32_t i = 0; i < b; ++i) img_a[v * 16384 + oa.offset(m, k) + i] = uint8_t(bits >> (8 * i));
        }
        for (uint32_t k = 0; k < K; ++k) {  // one metadata bit per dense element, CUTLASS's atom
          auto [lane, bit] = meta_bit(g.e, 128, m, k, 0);
          const uint32_t bitv = (nib[(v * Mh + m) * (K / 4) + k / 4] >> (k % 4)) & 1;
          meta[v * 256 + lane * 2 + bit / 32] |= bitv << (bit % 32);
        }
      }
      for (uint32_t n = 0; n < Nh; ++n)
        for (uint32_t k = 0; k < K; ++k) {
          const uint32_t bits = encode(g.e, B[k * g.N + v * Nh + n]);
          for (uint32_t i = 0; i < b; ++i) img_b[v * 16384 + ob.offset(n, k) + i] = uint8_t(bits >> (8 * i));
        }
    }
    const uint32_t idesc = 1u << 2 | g.d_code << 4 | g.code << 7 | g.code << 10 | uint32_t(ob.mn_major()) << 16 |
                           (g.N >> 3) << 17 | (M >> 4) << 24;
    std::string ptx = replace_all(kPairKernel, "KIND", g.kind);
    ptx = replace_all(ptx, "NCOLS", std::to_string(g.N));
    ptx = replace_all(ptx, "DBYTES", std::to_string(128 * g.N * 4));
    ptxsim::model::GlobalMemory mem;
    const uint64_t ga = mem.allocate(img_a.size(), 256, "A"), gb = mem.allocate(img_b.size(), 256, "B"),
                   gm = mem.allocate(meta.size() * 4, 256, "meta");
    mem.write(ga, img_a.data(), img_a.size());
    mem.write(gb, img_b.data(), img_b.size());
    mem.write(gm, meta.data(), meta.size() * 4);
    const uint64_t gd = alloc(mem, size_t(2) * 128 * g.N * 4, "D");
    Params p;
    p.add(ga).add(gb).add(gd).add(gm).add(oa.desc(0)).add(ob.desc(0)).add(idesc);
    Launched r = launch(ptx, mem, p, {2, 1, 1}, {128, 1, 1}, {2, 1, 1}, sd);
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    std::vector<uint32_t> d(size_t(2) * 128 * g.N);
    mem.read(gd, d.data(), d.size() * 4);
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < g.N; ++n) {
        int64_t sum = 0;
        for (uint32_t k = 0; k < K; ++k) sum += int64_t(A[m * K + k]) * B[k * g.N + n];
        const uint32_t got = d[(size_t(m / Mh) * 128 + m % Mh) * g.N + n];
        if (g.e == Elem::S8) ASSERT_EQ(int32_t(got), int32_t(sum)) << "D(" << m << ", " << n << ")";
        else ASSERT_EQ(std::bit_cast<float>(got), float(sum)) << "D(" << m << ", " << n << ")";
      }
  }
}

TEST(Tcgen05MmaSparse, UnsimulatedMetadataAddressingIsNamed) {
  namespace t5 = ptxsim::model::tcgen05;
  using t5::Kind;
  EXPECT_FALSE(t5::sparse_unsupported(Kind::F16, 128, 1, false, 1, 256));
  EXPECT_FALSE(t5::sparse_unsupported(Kind::I8, 256, 2, false, 0, 100));
  EXPECT_FALSE(t5::sparse_unsupported(Kind::TF32, 32, 1, true, 0, 8));
  EXPECT_EQ(*t5::sparse_unsupported(Kind::F16, 128, 1, false, 0, 257),
            "sp-meta-tmem column 257 is odd with kind::f16: not simulated (CUTLASS passes an even column and moves the "
            "column's bit 0 into the sparsity selector)");
  // A selector != 0 with 8-bit kinds is not a simulation gap but a descriptor error (PTX 9.7.16.10.8.4:
  // "must be 0 for .kind::i8 and .kind::f8f6f4").
  EXPECT_FALSE(t5::sparse_unsupported(Kind::F8F6F4, 128, 1, false, 1, 256));
  t5::InstrDescriptor d;
  d.sparse = 1;
  d.sparse_id2 = 1;
  d.d_format = 1;
  d.n_dim = 8;
  d.m_dim = 8;
  t5::MmaContext ctx;
  ctx.kind = Kind::F8F6F4;
  ctx.sparse = true;
  const auto e = t5::validate(d, ctx);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "instruction descriptor 0x08100015: sparsity selector (bits 1:0) = 1 must be 0 for sparse kind::f8f6f4 "
                "(PTX 9.7.16.10.8.4)");
  d.sparse_id2 = 0;
  EXPECT_FALSE(t5::validate(d, ctx));
  EXPECT_EQ(*t5::sparse_unsupported(Kind::I8, 128, 1, false, 0, 32u << 16),
            "sp-meta-tmem must address lane 0, not lane 32: the metadata of an MMA spans all 128 lanes");
  EXPECT_EQ(*t5::sparse_unsupported(Kind::F16, 128, 2, false, 0, 0),
            "sparse M = 128 with .cta_group::2 is not simulated (CUTLASS pins the metadata layout only for 128 rows per "
            "CTA, and for .ws M = 32/64/128; the PTX ISA gives it only as a figure)");
  EXPECT_EQ(t5::meta_columns(Kind::TF32, 1), 2u);
  EXPECT_EQ(t5::meta_columns(Kind::I8, 0), 2u);
}

// Sparse block-scaled over a CTA pair (CUTLASS SM100_MMA_MXF4NVF4_2x1SM_SS_SPARSE, M = 256): each CTA
// holds its 128 rows of the packed A, their metadata and scale_A, half of B's columns, and scale_B
// for all N columns (ScaleFactorDuplicated4by1), at the same TMEM addresses in both CTAs. The TMEM
// image of a lane is 16 words at column 256: the metadata (256..257), scale_A (260..263), scale_B
// (264..271). E2M1 values are small halves and the UE8M0 scales powers of two, so the reference
// (the dense product of the decompressed A) is exact.
TEST(Tcgen05MmaSparse, CtaPairM256BlockScaledReadsEachCtasMetadataAndScales) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("kind::mxf4nvf4.block_scale.block16 .sp cta_group::2 M=256 seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t M = 256, N = 64, K = 128, Mh = 128, Nh = N / 2, nsf = 4, vec = K / nsf, chunks = K / 8;
  auto half = [](int v2) { return uint32_t(std::abs(v2)) | (v2 < 0 ? 8u : 0u); };  // 2v in -4..4 as E2M1
  std::vector<int> A(size_t(M) * K, 0), P(size_t(M) * K / 2), B(size_t(K) * N);
  std::vector<uint32_t> nib(size_t(M) * chunks);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t c = 0; c < chunks; ++c) {  // 4:8 pair-wise: two of the chunk's four pairs kept
      const uint32_t v = kMetaNibbles[rng() % 7], i0 = v & 3, i1 = v >> 2;
      nib[m * chunks + c] = v;
      for (uint32_t e = 0; e < 4; ++e) {
        const int v = int(rng() % 9) - 4;
        P[m * (K / 2) + 4 * c + e] = v;
        A[m * K + 8 * c + 2 * (e < 2 ? i0 : i1) + e % 2] = v;
      }
    }
  for (int& x : B) x = int(rng() % 9) - 4;
  std::vector<int> SA(size_t(M) * nsf), SB(size_t(N) * nsf);  // UE8M0 exponents
  for (int& x : SA) x = int(rng() % 5) - 2;
  for (int& x : SB) x = int(rng() % 5) - 2;
  Operand oa{Mh, K / 4, 1, Layout::K128B}, ob{Nh, K / 2, 1, Layout::KNone};  // bytes: two E2M1 each
  std::vector<uint8_t> img_a(2 * 16384, 0), img_b(2 * 16384, 0);
  std::vector<uint32_t> tm(2 * 128 * 16, 0);
  for (uint32_t v = 0; v < 2; ++v) {
    for (uint32_t m = 0; m < Mh; ++m) {
      const uint32_t row = v * Mh + m;
      for (uint32_t u = 0; u < K / 4; ++u)
        img_a[v * 16384 + oa.offset(m, u)] = uint8_t(half(P[row * (K / 2) + 2 * u]) | half(P[row * (K / 2) + 2 * u + 1]) << 4);
      for (uint32_t c = 0; c < chunks; ++c) tm[(v * 128 + m) * 16 + c / 8] |= nib[row * chunks + c] << (4 * (c % 8));
      for (uint32_t p = 0; p < 4; ++p)  // scale_A of row m in every 32-lane partition
        for (uint32_t j = 0; j < nsf; ++j)
          tm[(v * 128 + 32 * p + m % 32) * 16 + 4 + m / 32] |= uint32_t(127 + SA[row * nsf + j]) << (8 * j);
    }
    for (uint32_t n = 0; n < Nh; ++n)
      for (uint32_t u = 0; u < K / 2; ++u)
        img_b[v * 16384 + ob.offset(n, u)] =
            uint8_t(half(B[(2 * u) * N + v * Nh + n]) | half(B[(2 * u + 1) * N + v * Nh + n]) << 4);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t p = 0; p < 4; ++p)
        for (uint32_t j = 0; j < nsf; ++j)
          tm[(v * 128 + 32 * p + n % 32) * 16 + 8 + n / 32] |= uint32_t(127 + SB[n * nsf + j]) << (8 * j);
  }
  // Block-scaled descriptor: sparse, A/B E2M1 (1), N >> 3, UE8M0 (bit 23), M >> 7 (bits 28:27).
  const uint32_t idesc = 1u << 2 | 1u << 7 | 1u << 10 | (N >> 3) << 17 | 1u << 23 | (M >> 7) << 27;
  std::string ptx = replace_all(kPairKernel, "KIND", "kind::mxf4nvf4.block_scale.block16");
  ptx = replace_all(ptx, ".version 8.7", ".version 8.8");
  ptx = replace_all(ptx, "NCOLS", std::to_string(N));
  ptx = replace_all(ptx, "DBYTES", std::to_string(128 * N * 4));
  ptx = replace_all(ptx, "  mul.wide.u32 %rd9, %r60, 1024;", "  mul.wide.u32 %rd9, %r60, 8192;");
  ptx = replace_all(ptx, R"(  mul.wide.u32 %rd8, %r0, 8;
  add.u64 %rd7, %rd7, %rd8;
  ld.global.v2.u32 {%r50, %r51}, [%rd7];
  add.u32 %r58, %r28, 256;
  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r58], {%r50, %r51};)",
                    R"(  mul.wide.u32 %rd8, %r0, 64;
  add.u64 %rd7, %rd7, %rd8;
  ld.global.v4.u32 {%r50, %r51, %r52, %r53}, [%rd7];
  ld.global.v4.u32 {%r54, %r55, %r56, %r57}, [%rd7+16];
  ld.global.v4.u32 {%r64, %r65, %r66, %r67}, [%rd7+32];
  ld.global.v4.u32 {%r68, %r69, %r70, %r71}, [%rd7+48];
  add.u32 %r58, %r28, 256;
  tcgen05.st.sync.aligned.32x32b.x16.b32 [%r58], {%r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57, %r64, %r65, %r66, %r67, %r68, %r69, %r70, %r71};)");
  ptx = replace_all(ptx, "  add.u32 %r37, %r10, 256;\n", "  add.u32 %r37, %r10, 256;\n  add.u32 %r38, %r10, 260;\n  add.u32 %r39, %r10, 264;\n");
  ptx = replace_all(ptx, "[%r37], %r33, %p2;", "[%r37], %r33, [%r38], [%r39], %p2;");
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = mem.allocate(img_a.size(), 256, "A"), gb = mem.allocate(img_b.size(), 256, "B"),
                 gm = mem.allocate(tm.size() * 4, 256, "tmem image");
  mem.write(ga, img_a.data(), img_a.size());
  mem.write(gb, img_b.data(), img_b.size());
  mem.write(gm, tm.data(), tm.size() * 4);
  const uint64_t gd = alloc(mem, size_t(2) * 128 * N * 4, "D");
  Params p;
  p.add(ga).add(gb).add(gd).add(gm).add(oa.desc(0)).add(ob.desc(0)).add(idesc);
  Launched r = launch(ptx, mem, p, {2, 1, 1}, {128, 1, 1}, {2, 1, 1}, seed);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  std::vector<uint32_t> d(size_t(2) * 128 * N);
  mem.read(gd, d.data(), d.size() * 4);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      double sum = 0;
      for (uint32_t k = 0; k < K; ++k)
        sum += std::ldexp(A[m * K + k] * 0.5, SA[m * nsf + k / vec]) * std::ldexp(B[k * N + n] * 0.5, SB[n * nsf + k / vec]);
      ASSERT_EQ(std::bit_cast<float>(d[(size_t(m / Mh) * 128 + m % Mh) * N + n]), float(sum)) << "D(" << m << ", " << n << ")";
    }
}
