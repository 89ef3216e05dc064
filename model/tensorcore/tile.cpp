// Whole-tile tensor-core products, the matrix hot path (see tile.h): which build of the lane loops
// runs (the loops are in tile_lane_kit.inc; tile_lanes.h says what arithmetic they do), the caches
// of decoded operands, and the per-element fallback.
#include "model/tensorcore/tile.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#ifdef __x86_64__
#include <immintrin.h>
#endif

#include "model/tensorcore/tile_lanes.h"

namespace ptxsim::model::tc {

namespace {

using lanes::Decoded;
using lanes::Layout;

// The lane loops (operand decoding, the tile loop: tile_lane_kit.inc) are compiled for the
// baseline ISA and, with GCC on x86-64, also for x86-64-v3 (AVX2: four doubles or eight floats per
// vector) and x86-64-v4 (AVX-512: twice that, and 32 vector registers), each in its own namespace.
// The best build the processor has runs unless a test caps it (force_lanes). The AVX-512 build
// takes sixteen lanes when N is a multiple of 16 and eight otherwise (mma.sync's N = 8). The
// arithmetic is the same exact steps in every build.
// PTXSIM_BASELINE_LANES_ONLY (the sanitizer build, CMakeLists.txt) keeps only the baseline build.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PTXSIM_BASELINE_LANES_ONLY)
#define PTXSIM_LANES_X86 1
#endif

std::atomic<int> g_isa_cap{int(LaneIsa::Avx512)};

LaneIsa cpu_isa() {
#ifdef PTXSIM_LANES_X86
  static const LaneIsa isa = __builtin_cpu_supports("x86-64-v4")   ? LaneIsa::Avx512
                             : __builtin_cpu_supports("x86-64-v3") ? LaneIsa::Avx2
                                                                   : LaneIsa::Baseline;
  return isa;
#else
  return LaneIsa::Baseline;
#endif
}

LaneIsa isa_now() { return LaneIsa(std::min(int(cpu_isa()), g_isa_cap.load(std::memory_order_relaxed))); }

}  // namespace

namespace lanes {
// The lane types are internal to this file; GCC's note that passing them by value between
// functions compiled for different ISAs changes the ABI does not apply (they are always inlined).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#define PTXSIM_LANE_KIT kit_base
#include "model/tensorcore/tile_lane_kit.inc"
#undef PTXSIM_LANE_KIT
#ifdef PTXSIM_LANES_X86
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define PTXSIM_LANE_KIT kit_avx2
#define PTXSIM_LANE_KIT_F16C 1  // the kit may use the F16C conversions (x86-64-v3 and up)
#include "model/tensorcore/tile_lane_kit.inc"
#undef PTXSIM_LANE_KIT
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define PTXSIM_LANE_KIT kit_avx512
#define PTXSIM_LANE_KIT_AVX512 1  // the kit may use AVX-512 intrinsics
#include "model/tensorcore/tile_lane_kit.inc"
#undef PTXSIM_LANE_KIT_AVX512
#undef PTXSIM_LANE_KIT_F16C
#undef PTXSIM_LANE_KIT
#pragma GCC pop_options
#endif
#pragma GCC diagnostic pop
}  // namespace lanes

namespace {

using FillFn = void (*)(Decoded&, const Layout&, int rows, int K, const uint32_t* bits, bool k_major, int stride);
using TileFn = void (*)(const DotModel&, ElemFmt, ElemFmt, const Decoded& A, const Decoded& B, int stride, int M,
                        int N, int K, const uint32_t* a, const uint32_t* bt, const uint32_t* c, uint32_t* d,
                        size_t ldc, size_t ldd, std::vector<int>& redo);

using TransposeFn = void (*)(const uint32_t* src, size_t lds, uint32_t* dst, size_t ldd, int rows, int cols);

// One build of the lane loops: its width and its entry points.
struct LaneBuild {
  int width;
  FillFn fill;
  TileFn tile, tile_f16;
  TransposeFn transpose;
};

constexpr LaneBuild base8 = {8, lanes::kit_base::fill_entry<8>, lanes::kit_base::tile_entry<8>,
                             lanes::kit_base::tile_f16_entry<8>, lanes::kit_base::transpose_matrix};
#ifdef PTXSIM_LANES_X86
constexpr LaneBuild avx2_8 = {8, lanes::kit_avx2::fill_entry<8>, lanes::kit_avx2::tile_entry<8>,
                              lanes::kit_avx2::tile_f16_entry<8>, lanes::kit_avx2::transpose_matrix};
constexpr LaneBuild avx512_8 = {8, lanes::kit_avx512::fill_entry<8>, lanes::kit_avx512::tile_entry<8>,
                                lanes::kit_avx512::tile_f16_entry<8>, lanes::kit_avx512::transpose_matrix};
constexpr LaneBuild avx512_16 = {16, lanes::kit_avx512::fill_entry<16>, lanes::kit_avx512::tile_entry<16>,
                                 lanes::kit_avx512::tile_f16_entry<16>, lanes::kit_avx512::transpose_matrix};
#endif

// The build for a tile N outputs wide.
const LaneBuild& lane_build(int N) {
#ifdef PTXSIM_LANES_X86
  switch (isa_now()) {
    case LaneIsa::Avx512: return N % 16 == 0 ? avx512_16 : avx512_8;
    case LaneIsa::Avx2: return avx2_8;
    case LaneIsa::Baseline: break;
  }
#else
  (void)N;
#endif
  return base8;
}

// Decoded operands, kept with their raw bits: the last few of each operand are reused when the bits
// are identical. The warps of a warpgroup (wgmma) each multiply their rows of A by the same B; a
// warp's mma.sync main loop multiplies each A fragment by several B fragments and each B fragment
// by several A fragments. A miss costs a few comparisons that stop at the first differing word.
class DecodeCache {
 public:
  // width: the panel width of a k-major operand (0: row-major).
  const Decoded& get(const LaneBuild& build, ElemFmt fmt, const Layout& l, int rows, int K, const uint32_t* bits,
                     int width, int stride) {
    const size_t n = size_t(rows) * size_t(K);
    // (The first word inline first: most entries differ there, and a memcmp call per entry was 3 %
    // of an mma.sync GEMM.)
    for (Entry& e : entries_)
      if (e.rows == rows && e.K == K && e.fmt == fmt && e.dec.width == width && e.raw[0] == bits[0] &&
          std::memcmp(e.raw.data(), bits, n * 4) == 0)
        return e.dec;
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    e.fmt = fmt;
    e.rows = rows;
    e.K = K;
    e.raw.assign(bits, bits + n);
    build.fill(e.dec, l, rows, K, bits, width != 0, stride);
    return e.dec;
  }

 private:
  struct Entry {
    ElemFmt fmt;
    int rows = -1, K = -1;
    std::vector<uint32_t> raw;
    Decoded dec;
  };
  static constexpr size_t kEntries = 8;
  std::vector<Entry> entries_ = std::vector<Entry>(kEntries);
  size_t next_ = 0;
};

// A thread's scratch state for mma_tile, reached through one thread-local access per call (in a
// shared library, the CUDA shim, every access to a thread-local is a call): the decoded operands,
// A row-major (no padding) and B k-major (panels of the build's width, rows padded to `stride`),
// each with its own cache; the blocks the narrow lanes hand back; C and D transposed.
struct TileScratch {
  DecodeCache a_cache, b_cache;
  std::vector<int> redo;
  std::vector<uint32_t> ct, dt;
  const Decoded& a(const LaneBuild& build, ElemFmt fa, const Layout& la, int M, int K, const uint32_t* bits) {
    return a_cache.get(build, fa, la, M, K, bits, 0, 0);
  }
  const Decoded& b(const LaneBuild& build, ElemFmt fb, const Layout& lb, int N, int K, const uint32_t* bt, int stride) {
    return b_cache.get(build, fb, lb, N, K, bt, build.width, stride);
  }
};
TileScratch& tile_scratch() {
  thread_local TileScratch s;
  return s;
}

}  // namespace

namespace lanes {

// The per-element definition, for outputs the fast path does not take.
uint32_t fallback_dot(const DotModel& model, ElemFmt fa, ElemFmt fb, const uint32_t* a, const uint32_t* bt, int K,
                      uint32_t c) {
  thread_local std::vector<Value> va, vb;
  va.resize(size_t(K));
  vb.resize(size_t(K));
  for (int k = 0; k < K; ++k) {
    va[size_t(k)] = decode_a(model, fa, a[k]);
    vb[size_t(k)] = decode_b(model, fb, bt[k]);
  }
  return dot(model, va.data(), vb.data(), K, c);
}

}  // namespace lanes

void force_lanes(LaneIsa max) { g_isa_cap.store(int(max), std::memory_order_relaxed); }
LaneIsa lanes_isa() { return isa_now(); }
const char* lane_isa_name(LaneIsa isa) {
  switch (isa) {
    case LaneIsa::Avx512: return "AVX-512";
    case LaneIsa::Avx2: return "AVX2";
    case LaneIsa::Baseline: break;
  }
  return "baseline";
}
uint64_t narrow_blocks_done() { return lanes::t_narrow_blocks; }

void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  mma_tile(model, fa, fb, M, N, K, a, bt, c, size_t(N), d, size_t(N));
}

namespace {

// mma_tile with C and D row-major (ldc, ldd apart) or, cd_transposed, N x M (element (m, n) at
// c[n * ldc + m], d[n * ldd + m]).
void run_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a, const uint32_t* bt,
              const uint32_t* c, size_t ldc, uint32_t* d, size_t ldd, bool cd_transposed) {
  Layout la, lb;
  // The fast path's conditions (tile_lanes.h): consecutive groups with C chained, operands read as
  // their own type, terms below 2^27 after alignment, and ptxsim's edge rules (the lanes hard-wire
  // e_zero for zero products and zero c; other settings, which only tests select, take the
  // per-element definition).
  const bool fast = model.fdpa.edges == kPtxsimEdgeRules && model.split == KSplit::Consecutive && !model.c_last &&
                    model.a_as == kSame &&
                    model.b_as == kSame && model.fdpa.F <= 25 && K > 0 && lanes::inline_layout(fa, la) &&
                    lanes::inline_layout(fb, lb);
  // Where C and D are at (m, n).
  const auto at = [&](size_t ld, int m, int n) {
    return cd_transposed ? size_t(n) * ld + size_t(m) : size_t(m) * ld + size_t(n);
  };
  if (!fast) {
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n)
        d[at(ldd, m, n)] = lanes::fallback_dot(model, fa, fb, a + size_t(m) * size_t(K), bt + size_t(n) * size_t(K), K,
                                               c[at(ldc, m, n)]);
    return;
  }
  // A tile narrower than a block of sixteen lanes but a multiple of sixteen rows tall (mma.sync's
  // m16n8) runs transposed, D^T = B^T A^T + C^T: the lanes then hold rows of A, sixteen to a block
  // (a whole AVX-512 vector, or two blocks of eight for the double-panel loop) instead of eight
  // columns of B. Every step of the T-FDPA is symmetric in a and b (products, their signs and
  // exponents; tile_lanes.h), and the fast path reads both operands as their own types, so the
  // bits are the same: the property tests compare both ways with tc::dot. C and D move through
  // transposes unless the caller holds them transposed already (mma_tile_cd_transposed).
  const bool swap = tile_runs_transposed(M, N);
  if (swap != cd_transposed) {
    // C and D are in the other layout than the lanes want: through scratch, transposed.
    const LaneBuild& build = lane_build(swap ? M : N);
    TileScratch& s = tile_scratch();
    std::vector<uint32_t>& ct = s.ct;
    std::vector<uint32_t>& dt = s.dt;
    ct.resize(size_t(N) * size_t(M));  // every element is written by the transpose
    dt.resize(size_t(N) * size_t(M));
    const int rows = cd_transposed ? N : M, cols = cd_transposed ? M : N;
    build.transpose(c, ldc, ct.data(), size_t(rows), rows, cols);
    run_tile(model, fa, fb, M, N, K, a, bt, ct.data(), size_t(rows), dt.data(), size_t(rows), !cd_transposed);
    build.transpose(dt.data(), size_t(rows), d, ldd, cols, rows);
    return;
  }
  if (swap) {
    const LaneBuild& build = lane_build(M);
    const int stride = M;  // a multiple of the build's width
    const TileFn tile = model.acc == AccFmt::F16 ? build.tile_f16 : build.tile;
    TileScratch& s = tile_scratch();
    tile(model, fb, fa, s.a(build, fb, lb, N, K, bt), s.b(build, fa, la, M, K, a, stride), stride, N, M, K, bt, a, c,
         d, ldc, ldd, s.redo);
    return;
  }
  const LaneBuild& build = lane_build(N);
  const int stride = (N + build.width - 1) / build.width * build.width;
  const TileFn tile = model.acc == AccFmt::F16 ? build.tile_f16 : build.tile;
  TileScratch& s = tile_scratch();
  tile(model, fa, fb, s.a(build, fa, la, M, K, a), s.b(build, fb, lb, N, K, bt, stride), stride, M, N,
       K, a, bt, c, d, ldc, ldd, s.redo);
}

}  // namespace

void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, size_t ldc, uint32_t* d, size_t ldd) {
  run_tile(model, fa, fb, M, N, K, a, bt, c, ldc, d, ldd, false);
}

void mma_tile_cd_transposed(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
                            const uint32_t* bt, const uint32_t* ct, uint32_t* dt) {
  run_tile(model, fa, fb, M, N, K, a, bt, ct, size_t(M), dt, size_t(M), true);
}

void mma_tile_int(bool a_signed, bool b_signed, bool saturate, int M, int N, int K, const uint8_t* a,
                  const uint8_t* bt, const int32_t* c, int32_t* d) {
  thread_local std::vector<int16_t> va, vb;
  va.resize(size_t(M) * size_t(K));
  vb.resize(size_t(N) * size_t(K));
  for (size_t i = 0; i < va.size(); ++i) va[i] = a_signed ? int16_t(int8_t(a[i])) : int16_t(a[i]);
  for (size_t i = 0; i < vb.size(); ++i) vb[i] = b_signed ? int16_t(int8_t(bt[i])) : int16_t(bt[i]);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const int16_t* x = va.data() + size_t(m) * size_t(K);
      const int16_t* y = vb.data() + size_t(n) * size_t(K);
      int64_t acc = c[size_t(m) * size_t(N) + size_t(n)];
      for (int k = 0; k < K; ++k) acc += int32_t(x[k]) * int32_t(y[k]);
      if (saturate) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      d[size_t(m) * size_t(N) + size_t(n)] = int32_t(uint32_t(acc));
    }
}

}  // namespace ptxsim::model::tc