// Whole-tile tensor-core products, the matrix hot path (see tile.h).
//
// Fast path (rows with consecutive K groups and C chained through every group, i.e. every wgmma and
// tcgen05 row and the non-fp8 mma.sync rows). Every operand is decoded once into two arrays: its
// exact value as a double and its alignment exponent e (tensorcore.h). Each output element then runs
// the T-FDPA of tensorcore.h group by group:
//   E   = max(e of c (e_zero for a zero c), e_a + e_b over the group, e_zero if a product is zero)
//   S   = trunc(c * 2^-(E-F)) + sum over the group of trunc(a * b * 2^-(E-F))
//   out = S * 2^(E-F) converted to the output (step 4), which is the next group's c.
// Why doubles are exact here: every multiplicand format has at most 11 significand bits (tf32), so
// a product has at most 22 and is exact in a double; scaling by the power of two 2^-(E-F) is exact
// (no product of these formats comes near the double's subnormal range); each scaled term is below
// 2^(F+2) <= 2^27 for F <= 25 (a product of two significands below 2 each, aligned below 2^E), so
// truncating it through an int32 conversion is exact, 16 of them sum below 2^31 in an int32, and
// S (below 2^33) is exact in a double. Step 4 for an RZ output whose result is a normal f32 is the
// double S with its significand cut to the output's precision (clearing low bits truncates toward
// zero), times 2^(E-F); f16 outputs round in round_f16; other results (zero, subnormal, overflow)
// use fdpa_round.
// Tiles whose products are all exact in a float take narrower lanes (narrow_tile below): the same
// steps on floats and int32 sums, sixteen outputs per loop body, for f32 RZ and f16 RNE outputs.
// A zero operand has value 0 and e = kZeroExp far below every real exponent, so it adds nothing to
// S or to the maximum; the group's smallest e_a + e_b tells whether a zero product brings e_zero in.
//
// Layout of the work: eight outputs of one row of D (eight columns of B) advance together, one
// lane each, so every step above is the same operation on eight lanes with no branch, and the
// compiler turns the lane loops into vector instructions (B is stored k-major for that).
// Outputs whose A row or B column holds an Inf or NaN, and any chain whose c becomes Inf or NaN,
// go through tc::dot (exactly the per-element definition), as do the rows the fast path does not
// cover (KSplit::Pairs4, c_last). The property test (tests/unit/tile_prop_test.cpp) compares this
// path with tc::dot on random bit patterns for every row and type pair.
#include "model/tensorcore/tile.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cstring>
#include <vector>

// The lane types below are internal to this file; GCC's note that passing them by value between
// functions compiled for different ISAs changes the ABI does not apply (they are always inlined).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ptxsim::model::tc {

namespace {

// The lane loops (operand decoding, the tile loop) are compiled for the baseline ISA and, with GCC
// on x86-64, also for x86-64-v3 (AVX2: four doubles per vector), which runs when the processor has
// it unless a test forces the baseline build (force_baseline_lanes). The arithmetic is the same
// exact steps either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PTXSIM_LANES_V3 1
#define PTXSIM_TARGET_V3 [[gnu::target("arch=x86-64-v3")]]
#endif

std::atomic<bool> g_force_baseline{false};
thread_local uint64_t t_narrow_blocks = 0;  // narrow_blocks_done()

bool use_v3() {
#ifdef PTXSIM_LANES_V3
  static const bool cpu = __builtin_cpu_supports("x86-64-v3");
  return cpu && !g_force_baseline.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

constexpr int16_t kZeroExp = -15000;  // e of a zero operand: far below every real sum of exponents
constexpr int16_t kHasZero = -7000;   // a sum of exponents below this involves a zero operand
constexpr int kLanes = 8;             // outputs computed together

// Bit layout of the formats the inline decoder handles.
struct Layout {
  int ebits, mbits, bias;
  enum Spec : uint8_t { IEEE, NanOnly, None } spec;  // all-ones exponent: Inf/NaN; S.1111.111 NaN; none
  int shift = 0;                                     // tf32: bits 31:13 of an f32
};
inline bool inline_layout(ElemFmt f, Layout& l) {
  switch (f) {
    case ElemFmt::F16: l = {5, 10, 15, Layout::IEEE}; return true;
    case ElemFmt::BF16: l = {8, 7, 127, Layout::IEEE}; return true;
    case ElemFmt::TF32: l = {8, 10, 127, Layout::IEEE, 13}; return true;
    case ElemFmt::E4M3: l = {4, 3, 7, Layout::NanOnly}; return true;
    case ElemFmt::E5M2: l = {5, 2, 15, Layout::IEEE}; return true;
    case ElemFmt::E3M2: l = {3, 2, 3, Layout::None}; return true;
    case ElemFmt::E2M3: l = {2, 3, 1, Layout::None}; return true;
    case ElemFmt::E2M1: l = {2, 1, 1, Layout::None}; return true;
    default: return false;
  }
}

// 2^x as a double, for x in the normal range.
inline double pow2(int64_t x) { return std::bit_cast<double>(uint64_t(x + 1023) << 52); }

// Eight lanes of one type (GCC/Clang vector extensions: element-wise operators, lowered to the
// target's vector instructions, four SSE2 or two AVX2 registers for eight doubles).
template <typename T>
using Lanes [[gnu::vector_size(kLanes * sizeof(T))]] = T;
using F64s = Lanes<double>;
using U64s = Lanes<uint64_t>;
using I64s = Lanes<int64_t>;
using I32s = Lanes<int32_t>;
using U32s = Lanes<uint32_t>;
using F32s = Lanes<float>;

template <typename V, typename T>
[[gnu::always_inline]] inline V splat(T x) {
  return V{} + x;
}
template <typename V, typename T>
[[gnu::always_inline]] inline V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename To, typename From>
[[gnu::always_inline]] inline To convert(From v) { return __builtin_convertvector(v, To); }
[[gnu::always_inline]] inline bool any(I32s mask) {
  uint64_t w[kLanes / 2];
  std::memcpy(w, &mask, sizeof w);
  return (w[0] | w[1] | w[2] | w[3]) != 0;
}
// 2^x per lane, x in the normal range.
[[gnu::always_inline]] inline F64s pow2(I32s x) { return std::bit_cast<F64s>(convert<U64s>(convert<I64s>(x) + 1023) << 52); }

// The 8 x 8 transpose of x (x[j][k] becomes x[k][j]): pairs, then quads interleaved within each
// half, then the halves exchanged (unpack, unpack, permute on AVX2).
[[gnu::always_inline]] inline void transpose(U32s (&x)[kLanes]) {
  static_assert(kLanes == 8);
  U32s t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(x[i], x[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(x[i], x[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4)
    for (int h = 0; h < 2; ++h) {
      u[i + 2 * h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[i + 2 * h + 1] = __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  for (int k = 0; k < 4; ++k) {
    x[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    x[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// Where element (n0 + j, k) of a k-major decoded B is (n0 a multiple of kLanes, j < kLanes): B is
// stored in panels of kLanes rows, each panel k-major, so a lane block reads one contiguous run.
inline size_t panel(int n0, int k, int K) { return size_t(n0) * size_t(K) + size_t(k) * kLanes; }

// Decoded operands of one matrix (rows x K), structure of arrays. Element (r, k) is at r * K + k,
// or, k-major, at panel(r - r % kLanes, k) + r % kLanes (rows padded to `stride`, a multiple of
// kLanes, with zeros).
struct Decoded {
  std::vector<float> v;              // exact value (0 for zeros and for Inf/NaN; every format fits a float)
  std::vector<int32_t> e;            // alignment exponent, kZeroExp for zeros and Inf/NaN
  std::vector<int32_t> special_row;  // per row: -1 when an Inf or NaN is in it (and for padding rows)
  int emin = 0, emax = 0;            // range of e over the nonzero finite elements (emin > emax: none)
  int mbits = 0;                     // the format's fraction bits: a value is a multiple of 2^(e - mbits)
  bool has_zero = false;             // a zero element (padding rows aside)

  void fill(const Layout& l, int rows, int K, const uint32_t* bits, bool k_major, int stride) {
#ifdef PTXSIM_LANES_V3
    if (use_v3()) return fill_v3(l, rows, K, bits, k_major, stride);
#endif
    fill_body(l, rows, K, bits, k_major, stride);
  }
#ifdef PTXSIM_LANES_V3
  PTXSIM_TARGET_V3 void fill_v3(const Layout& l, int rows, int K, const uint32_t* bits, bool k_major, int stride) {
    fill_body(l, rows, K, bits, k_major, stride);
  }
#endif

  [[gnu::always_inline]] void fill_body(const Layout& l, int rows, int K, const uint32_t* bits, bool k_major,
                                        int stride) {
    const size_t n = k_major ? size_t(stride) * size_t(K) : size_t(rows) * size_t(K);
    mbits = l.mbits;
    special_row.assign(size_t(k_major ? stride : rows), -1);
    std::fill_n(special_row.begin(), rows, 0);
    v.resize(n);  // every element is written below
    e.resize(n);
    // The element bits in storage order: k-major operands are first copied into panels (padding
    // rows zero), so that both layouts decode as runs of eight consecutive elements.
    thread_local std::vector<uint32_t> panels;
    const uint32_t* src = bits;
    if (k_major) {
      if (rows % kLanes) panels.assign(n, 0);  // padding rows read as zeros
      else panels.resize(n);                   // every element is written below
      int r0 = 0;
      if (K % kLanes == 0)  // whole 8 x 8 blocks: eight rows' runs of eight elements, transposed
        for (; r0 + kLanes <= rows; r0 += kLanes)
          for (int k0 = 0; k0 < K; k0 += kLanes) {
            U32s x[kLanes];
            for (int j = 0; j < kLanes; ++j) x[j] = load<U32s>(bits + size_t(r0 + j) * size_t(K) + size_t(k0));
            transpose(x);
            std::memcpy(panels.data() + panel(r0, k0, K), x, sizeof x);
          }
      for (int r = r0; r < rows; ++r) {
        uint32_t* dst = panels.data() + panel(r - r % kLanes, 0, K) + size_t(r % kLanes);
        const uint32_t* row = bits + size_t(r) * size_t(K);
        for (int k = 0; k < K; ++k) dst[size_t(k) * kLanes] = row[k];
      }
      src = panels.data();
    }
    const U32s eall = splat<U32s>((1u << l.ebits) - 1), mmask = splat<U32s>((1u << l.mbits) - 1);
    // 2^(1 - bias - mbits), built from its bits (a normal float, or for bf16 and tf32 a subnormal one).
    const int q = 1 - l.bias - l.mbits;
    const float subnormal_quantum = std::bit_cast<float>(q >= -126 ? uint32_t(q + 127) << 23 : 1u << (q + 149));
    I32s lo = splat<I32s>(INT32_MAX), hi = splat<I32s>(INT32_MIN);  // e range of nonzero finite elements
    I32s zeros = {};
    const I32s lane = {0, 1, 2, 3, 4, 5, 6, 7};
    // Eight elements at a time, as lanes: a panel's k-th column (rows r0 .. r0 + 7), or eight
    // consecutive elements of a row (a short last run of a row padded with zeros).
    // (Plain pointers: the stores below may alias anything, and would make vectors' data reload.)
    float* vd = v.data();
    int32_t* ed = e.data();
    int32_t* rows_special = special_row.data();
    int r = 0, k = 0;  // the run's row (k-major: its panel's first row) and its first k
    for (size_t i0 = 0; i0 < n;) {
      const int cnt = k_major ? kLanes : std::min(kLanes, K - k);
      U32s x;
      if (cnt == kLanes) {
        x = load<U32s>(src + i0);
      } else {
        uint32_t raw[kLanes] = {};
        for (int j = 0; j < cnt; ++j) raw[j] = src[i0 + size_t(j)];
        x = load<U32s>(raw);
      }
      x >>= l.shift;
      const U32s E = (x >> l.mbits) & eall, M = x & mmask;
      const I32s special = l.spec == Layout::IEEE      ? I32s(E == eall)
                           : l.spec == Layout::NanOnly ? I32s((E == eall) & (M == mmask))
                                                       : I32s{};
      const U32s sig = E != 0 ? M | (1u << l.mbits) : M;
      const I32s ex = E != 0 ? convert<I32s>(E) - l.bias : splat<I32s>(1 - l.bias);  // e of a nonzero value
      // The value as a float, exactly: a normal element re-biased into the float's exponent field, a
      // subnormal one its fraction times the format's subnormal quantum (a float, normal or not;
      // the product is a multiple of it, so exact). Inf / NaN: 0 (harmless in the lanes; the row
      // goes through tc::dot). The product runs only for runs holding a subnormal, and only on its
      // lanes: products that are subnormal floats take the processor a slow microcode assist.
      U32s mag = E != 0 ? (E + uint32_t(127 - l.bias)) << 23 | M << (23 - l.mbits) : 0;
      const I32s subnormal = I32s(E == 0) & I32s(M != 0);
      const bool rare = any(subnormal | special);  // one test for the common run of normal values
      if (rare && any(subnormal))  // (zero in the other lanes, whose products would be subnormal floats too)
        mag = subnormal ? std::bit_cast<U32s>(convert<F32s>(subnormal ? M : 0) * subnormal_quantum) : mag;
      const U32s sign = (x >> (l.mbits + l.ebits)) << 31;
      const F32s val = std::bit_cast<F32s>((mag | sign) & ~std::bit_cast<U32s>(special));
      const I32s none = (sig == 0) | special;
      const I32s exp = none ? splat<I32s>(kZeroExp) : ex;
      lo = none ? lo : lo < ex ? lo : ex;
      zeros |= (sig == 0) & ~special & (k_major ? lane + r < rows : lane < cnt);
      hi = none ? hi : hi > ex ? hi : ex;
      if (rare && any(special)) {
        if (!k_major) rows_special[r] = -1;
        else
          for (int j = 0; j < kLanes; ++j)
            if (special[j]) rows_special[r + j] = -1;
      }
      if (cnt == kLanes) {
        std::memcpy(vd + i0, &val, sizeof val);
        std::memcpy(ed + i0, &exp, sizeof exp);
      } else {
        for (int j = 0; j < cnt; ++j) {
          vd[i0 + size_t(j)] = val[j];
          ed[i0 + size_t(j)] = exp[j];
        }
      }
      i0 += size_t(cnt);
      if (k_major) {
        if (++k == K) k = 0, r += kLanes;
      } else if ((k += cnt) == K) {
        k = 0, ++r;
      }
    }
    has_zero = any(zeros);
    emin = INT32_MAX;
    emax = INT32_MIN;
    for (int j = 0; j < kLanes; ++j) {
      emin = std::min(emin, lo[j]);
      emax = std::max(emax, hi[j]);
    }
  }
};

// An accumulator value as a group's c: exact value (signed zero kept), alignment exponent (e_zero
// for a zero), and whether it is Inf or NaN.
struct AccIn {
  double v;
  int32_t e;
  bool special;
};
inline AccIn acc_in(AccFmt f, uint32_t bits, int e_zero) {
  if (f == AccFmt::F32) {
    const uint32_t E = (bits >> 23) & 0xFF;
    if (E == 0xFF) return {0, e_zero, true};
    const int32_t e = (bits & 0x7FFFFFFF) == 0 ? e_zero : E ? int32_t(E) - 127 : -126;
    return {double(std::bit_cast<float>(bits)), e, false};
  }
  const uint32_t E = (bits >> 10) & 0x1F, M = bits & 0x3FF;
  if (E == 0x1F) return {0, e_zero, true};
  const double mag = E ? double(M | 0x400) * pow2(int(E) - 25) : double(M) * pow2(-24);
  return {(bits & 0x8000) ? -mag : mag, E == 0 && M == 0 ? e_zero : E ? int32_t(E) - 15 : -14, false};
}

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

// Step 4 for an f16 output (RNE, fdpa_round's RNE_F16) on every lane, as the next group's c (cv, ce)
// and the output bits. v = S * 2^lsb is exact in a double (S below 2^33); adding and subtracting
// 1.5 * 2^(q+52), with 2^q the f16 quantum at v's exponent (2^-24 for subnormals), rounds v to a
// multiple of 2^q to nearest, ties to even (the sum lies in [2^(q+52), 2^(q+53)), whose spacing is
// 2^q, and 1.5 * 2^52 is even; the host's rounding mode is never changed). The rounded r is then an
// f16 value, or 2^16 and above: Inf, which makes the lane slow (the chain continues per element).
// A zero r from a nonzero S keeps S's sign (UnderflowZeroSign::Keep); S == 0 gives +0.
[[gnu::always_inline]] inline void round_f16(F64s S, I32s lsb, int e_zero, F64s& cv, I32s& ce, I32s& slow,
                                             uint32_t* bits) {
  const F64s v = S * pow2(lsb);
  const I32s x = convert<I32s>((std::bit_cast<U64s>(v) >> 52) & 0x7FF) - 1023;  // floor(log2 |v|)
  const I32s q = (x > -14 ? x : -14) - 10;
  const F64s C = pow2(q + 52) * 1.5;
  const F64s r = (v + C) - C;
  const U64s rb = std::bit_cast<U64s>(r) & 0x7FFFFFFFFFFFFFFFull;
  const I32s rx = convert<I32s>(rb >> 52) - 1023;  // floor(log2 |r|); -1023 for 0
  const U32s sign = convert<U32s>(std::bit_cast<U64s>(v) >> 63) << 15;
  const U32s normal = convert<U32s>(rx + 15) << 10 | convert<U32s>((rb >> 42) & 0x3FF);
  // A subnormal's significand |r| / 2^-24 (below 2^10; other lanes convert 0, in range).
  const F64s rsub = std::bit_cast<F64s>(rb & std::bit_cast<U64s>(convert<I64s>(rx < -14)));
  const U32s sub = convert<U32s>(convert<I32s>(rsub * 16777216.0));
  const I32s inf = rx >= 16;
  const U32s out = sign | (inf ? splat<U32s>(0x7C00u) : rx >= -14 ? normal : sub);
  std::memcpy(bits, &out, sizeof out);
  slow |= inf;
  cv = std::bit_cast<F64s>(std::bit_cast<I64s>(r) & ~convert<I64s>(inf));
  ce = (rx < -24) | inf ? splat<I32s>(e_zero) : rx > -14 ? rx : splat<I32s>(-14);
}

// E of one T-FDPA group on every lane: the largest e_a + e_b of its len products (ea: row m of A;
// eb: B's k-major rows at the lanes' columns, `stride` apart) and c's e (ce), raised to e_zero where
// a product is zero and E is below it. kZeros false: the tile has no zero operand, so that test is
// skipped.
template <bool kZeros>
[[gnu::always_inline]] inline I32s group_exponent(const FdpaParams& p, const int32_t* ea, const int32_t* eb,
                                                  size_t stride, int len, const I32s& ce) {
  I32s hi = splat<I32s>(INT32_MIN), lo = splat<I32s>(INT32_MAX);
#pragma GCC unroll 32
  for (int k = 0; k < len; ++k) {
    const I32s pe = ea[k] + load<I32s>(eb + size_t(k) * stride);
    hi = hi > pe ? hi : pe;
    if (kZeros) lo = lo < pe ? lo : pe;
  }
  const I32s E = hi > ce ? hi : ce;
  return kZeros ? (lo < kHasZero && E < p.e_zero ? p.e_zero : E) : E;
}

// One T-FDPA group on every lane: the products k0 .. k0 + n - 1 (va, ea: row m of A from k0; vb, eb:
// B's k-major rows from k0, at the lanes' columns) and the lanes' c (cv, ce) become the next c.
// G > 0: a group of exactly G products (constant trip counts, unrolled loops); G == 0: n products.
template <int G>
[[gnu::always_inline]] inline void group(const FdpaParams& p, AccFmt acc, const float* va,
                                         const int32_t* ea, const float* vb, const int32_t* eb, size_t stride, int n,
                                         F64s& cv, I32s& ce, I32s& slow, uint32_t* bits) {
  const int len = G > 0 ? G : n;
  const I32s lsb = group_exponent<true>(p, ea, eb, stride, len, ce) - p.F;
  // S: the truncated terms, c's first, products in runs of (at most) 16 summed in int32.
  constexpr int kRun = G > 0 && G < 16 ? G : 16;  // G is 8, 16 or 32: whole runs
  const F64s scale = pow2(-lsb);
  F64s S = convert<F64s>(convert<I32s>(cv * scale));
  for (int r0 = 0; r0 < len; r0 += kRun) {
    const int r1 = G > 0 ? r0 + kRun : std::min(len, r0 + kRun);
    I32s part = {};
#pragma GCC unroll 16
    for (int k = r0; k < r1; ++k)
      part += convert<I32s>(double(va[k]) * convert<F64s>(load<F32s>(vb + size_t(k) * stride)) * scale);
    S += convert<F64s>(part);
  }
  const bool rz = p.out != OutRound::RNE_F16;
  if (!rz) return round_f16(S, lsb, p.e_zero, cv, ce, slow, bits);
  // Step 4 on every lane as for a normal RZ result (keep the top 24 (f32) or 14 (e8m13) significant
  // bits of the double S); then redo the lanes where that does not apply.
  const uint64_t keep = ~((uint64_t{1} << (p.out == OutRound::RZ_F32 ? 29 : 39)) - 1);
  cv = std::bit_cast<F64s>(std::bit_cast<U64s>(S) & keep) * pow2(lsb);
  ce = convert<I32s>((std::bit_cast<U64s>(cv) >> 52) & 0x7FF) - 1023;  // floor(log2 |cv|); 0: -1023
  const I32s redo = (rz ? (ce < -126) | (ce > 127) : splat<I32s>(-1)) & ~slow;
  if (any(redo))
    for (int j = 0; j < kLanes; ++j)
      if (redo[j]) {
        bits[j] = fdpa_round(int64_t(S[j]), lsb[j], p.out);
        const AccIn x = acc_in(acc, bits[j], p.e_zero);
        slow[j] = x.special ? -1 : 0;  // overflow to Inf: the chain continues per element
        cv[j] = x.special ? 0.0 : x.v;
        ce[j] = x.special ? p.e_zero : x.e;
      }
}

// Whether the rows of `model` can take the narrow lanes: an f32 accumulator with an RZ output (f32 or
// e8m13) or an f16 accumulator with its RNE output, and groups whose L truncated terms, each below
// 2^(F+2), sum in an int32.
bool narrow_model(const DotModel& model) {
  const FdpaParams& p = model.fdpa;
  const bool f32_rz = model.acc == AccFmt::F32 && p.out != OutRound::RNE_F16;
  const bool f16_rne = model.acc == AccFmt::F16 && p.out == OutRound::RNE_F16;
  return (f32_rz || f16_rne) && p.F <= 25 && p.L > 0 && (int64_t{p.L} << (p.F + 2)) <= (int64_t{1} << 31);
}

// Whether the tile can take the narrow lanes: narrow_model, and operands whose every product a * b is
// exact in a float (below 2^128, a multiple of 2^-149).
bool narrow_tile(const DotModel& model, const Decoded& A, const Decoded& B) {
  if (!narrow_model(model)) return false;
  if (A.emin > A.emax || B.emin > B.emax) return true;  // no nonzero product at all
  return A.emax + B.emax <= 125 && A.emin + B.emin - A.mbits - B.mbits >= -149;
}

// Step 4 of the narrow lanes for an f16 output (fdpa_round's RNE_F16) on the int32 sum S: the
// result S * 2^lsb rounded to 11 significant bits, to nearest, ties to even, in integers, as the
// next group's c (cv: its value, exact in a float; ce: its exponent, e_zero for zero). Only normal
// f16 results are made here: a lane whose result is subnormal, rounds to zero or overflows is marked
// bad (fdpa_round's underflow and Inf rules then apply per element). S == 0 gives +0.
[[gnu::always_inline]] inline void f16_step4(const FdpaParams& p, const I32s& S, const I32s& lsb, F32s& cv, I32s& ce,
                                             I32s& bad) {
  const I32s zero = S == 0;
  const U32s Su = std::bit_cast<U32s>(S);
  const U32s M = S < 0 ? 0u - Su : Su;  // |S| <= 2^31 (the most negative S included)
  // floor(log2 M): the float conversion's exponent, one less where the conversion rounded up to a
  // power of two (then M >> w is 0). Zero lanes shift by 0 and are set apart below.
  I32s w = convert<I32s>((std::bit_cast<U32s>(convert<F32s>(S)) >> 23) & 0xFF) - 127;
  w = zero ? 0 : w;
  w += I32s((M >> std::bit_cast<U32s>(w)) == 0);  // a comparison's true is -1
  I32s x = w + lsb;  // floor(log2 |S * 2^lsb|)
  // Keep the top 11 bits of M: a right shift by w - 10 with round to nearest even (the bias
  // 2^(sh-1) - 1 plus the kept part's low bit carries exactly the ties and beyond), or a left shift
  // when M has fewer bits (exact).
  const I32s sh = w - 10;
  const U32s right = std::bit_cast<U32s>(sh > 0 ? sh : 0), left = std::bit_cast<U32s>(sh < 0 ? -sh : 0);
  const U32s half = std::bit_cast<U32s>(sh > 0 ? sh - 1 : 0);
  const U32s bias = sh > 0 ? (splat<U32s>(1u) << half) - 1u + ((M >> right) & 1u) : 0;
  U32s r = ((M << left) + bias) >> right;
  const I32s carry = r == (1u << 11);  // rounded up to the next power of two
  r = carry ? splat<U32s>(1u << 10) : r;
  x -= carry;
  bad |= ~zero & ((x < -14) | (x > 15));  // subnormal, zero or Inf results
  const U32s sign = Su & 0x80000000u;
  const U32s fbits = sign | std::bit_cast<U32s>(x + 127) << 23 | (r & 0x3FFu) << 13;
  cv = std::bit_cast<F32s>(zero ? 0u : fbits);
  ce = zero ? splat<I32s>(p.e_zero) : x;
}

// The narrow lanes: outputs (m, n0 .. n0 + kLanes - 1) of a narrow tile (narrow_tile) in single
// precision, the same steps as group() with the products and the scaling by 2^-lsb in floats
// (eight per vector instead of four) and no per-lane branch. Each term x * 2^-lsb is exact when
// 2^-lsb is a normal float (a term that lands below 2^-126 truncates to 0 however it was rounded).
// S is summed in int32 and turned into the RZ result in float (step 4 below), or, kF16, into the
// RNE f16 result in integers (f16_step4). A lane the float
// steps cannot finish exactly (an int32 overflow, a subnormal or overflowing result, a 2^lsb out of
// range, an Inf or NaN in c or B) marks its block bad: nothing is written, and the caller runs
// lanes_dot on the block.
// One group of the narrow lanes on NB blocks of kLanes outputs at once (block b's B at vb + b *
// bstep, eb + b * bstep): products k0 .. k0 + len - 1 (G > 0: len == G, unrolled) and the lanes' c
// (cv, ce) become the next c; `bad` collects the lanes that must be redone. The blocks are
// independent chains (exponent maximum, sum, step 4); running several in one loop body lets the
// processor overlap their latencies.
template <int G, bool kZeros, bool kF16, int NB>
[[gnu::always_inline]] inline void narrow_group(const FdpaParams& p, const float* va, const int32_t* ea,
                                                const float* vb, const int32_t* eb, size_t bstep, int n,
                                                const U32s& keep, F32s (&cv)[NB], I32s (&ce)[NB], I32s (&bad)[NB]) {
  const int len = G > 0 ? G : n;
  I32s lsb[NB];
  F32s scale[NB];
  // The sum wraps in unsigned lanes: a lane marked bad below may hold garbage terms (its scale out of
  // range) whose int32 sum would overflow; its result is discarded, and the others' sums fit an int32.
  U32s part[NB] = {};
#pragma GCC unroll 4
  for (int b = 0; b < NB; ++b) {
    lsb[b] = group_exponent<kZeros>(p, ea, eb + size_t(b) * bstep, kLanes, len, ce[b]) - p.F;
    bad[b] |= lsb[b] < -127;
    scale[b] = std::bit_cast<F32s>(convert<U32s>(127 - lsb[b]) << 23);
  }
#pragma GCC unroll 32
  for (int k = 0; k < len; ++k)
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b)
      part[b] += std::bit_cast<U32s>(
          convert<I32s>(va[k] * load<F32s>(vb + size_t(b) * bstep + size_t(k) * kLanes) * scale[b]));
#pragma GCC unroll 4
  for (int b = 0; b < NB; ++b) {
    // S = c's term (below 2^(F+1)) + the products' terms, in int32; a lane whose sum overflows, or
    // comes within 2^7 of 2^31 (where the float conversion below reaches 2^31), is redone.
    const I32s cterm = convert<I32s>(cv[b] * scale[b]), P = std::bit_cast<I32s>(part[b]);
    const I32s S = std::bit_cast<I32s>(part[b] + std::bit_cast<U32s>(cterm));
    bad[b] |= ((P ^ S) & (cterm ^ S)) < 0;
    if constexpr (kF16) {
      f16_step4(p, S, lsb[b], cv[b], ce[b], bad[b]);
      continue;
    }
    bad[b] |= S > 0x7FFFFF80;
    // Step 4, RZ to 24 significant bits: the conversion rounds to nearest (the host's mode is never
    // changed); where it rounded away from zero (the integer it gives back lies beyond S), one step
    // down in magnitude is the truncation. e8m13 then clears the low 10 of those 24 bits.
    const F32s f = convert<F32s>(S);
    // (Wrapping: a lane already marked bad may hold any S, and its conversion back may overflow.)
    const I32s back = convert<I32s>(f);
    const I32s dif = std::bit_cast<I32s>(std::bit_cast<U32s>(back) - std::bit_cast<U32s>(S));
    const I32s away = (dif != 0) & ((dif ^ S) >= 0);
    const U32s fb = (std::bit_cast<U32s>(f) + std::bit_cast<U32s>(away)) & keep;
    // Times 2^lsb: exact when the result is a normal float (a zero S gives +0); a subnormal or an
    // overflowing result, or a 2^lsb outside the normal floats, is redone.
    bad[b] |= lsb[b] < -126;
    const F32s r = std::bit_cast<F32s>(fb) * std::bit_cast<F32s>(convert<U32s>(lsb[b] + 127) << 23);
    const U32s rb = std::bit_cast<U32s>(r);
    const I32s rexp = convert<I32s>((rb >> 23) & 0xFF);
    bad[b] |= (rexp == 0xFF) | ((rexp == 0) & (S != 0));
    cv[b] = r;
    ce[b] = S == 0 ? splat<I32s>(p.e_zero) : rexp - 127;
  }
}

// An f16 accumulator (the low 16 bits of each lane) as the narrow lanes' c: its value (exact in a
// float), alignment exponent (e_zero for zero, -14 for subnormals) and bad where it is Inf or NaN.
[[gnu::always_inline]] inline void f16_c(const FdpaParams& p, const U32s& bits, F32s& cv, I32s& ce, I32s& bad) {
  const U32s E = (bits >> 10) & 0x1Fu, M = bits & 0x3FFu;
  const U32s sign = (bits & 0x8000u) << 16;
  // A subnormal is M * 2^-24, a normal float; for the other lanes the product is a harmless normal.
  const U32s sub = std::bit_cast<U32s>(convert<F32s>(convert<I32s>(M)) * 0x1p-24f);
  cv = std::bit_cast<F32s>(sign | (E != 0 ? (E + 112u) << 23 | M << 13 : sub));
  bad = E == 0x1Fu;
  ce = (bits & 0x7FFFu) == 0 ? splat<I32s>(p.e_zero) : E != 0 ? convert<I32s>(E) - 15 : splat<I32s>(-14);
}

// The f16 bits of the narrow lanes' results: normal f16 values or +0, held exactly in floats.
[[gnu::always_inline]] inline U32s f16_bits(const F32s& v) {
  const U32s b = std::bit_cast<U32s>(v);
  const U32s h = (b >> 16 & 0x8000u) | (((b >> 23) & 0xFFu) - 112u) << 10 | (b >> 13 & 0x3FFu);
  return (b & 0x7FFFFFFFu) == 0 ? 0u : h;
}

// NB blocks of kLanes outputs of row m of a narrow tile, from column n0: the blocks whose lanes all
// finish are written to d; the others are left alone (d may alias c) and their first column appended
// to `redo` for lanes_dot.
template <int L, bool kZeros, bool kF16, int NB>
[[gnu::always_inline]] inline void narrow_blocks(const FdpaParams& p, const float* va, const int32_t* ea,
                                                 const float* Bv, const int32_t* Be, const int32_t* Bspecial,
                                                 const U32s& keep, int n0, int K, const uint32_t* crow,
                                                 uint32_t* drow, std::vector<int>& redo, uint64_t& done) {
  F32s cv[NB];
  I32s ce[NB], bad[NB];
#pragma GCC unroll 4
  for (int b = 0; b < NB; ++b) {
    if constexpr (kF16) {
      f16_c(p, load<U32s>(crow + n0 + b * kLanes), cv[b], ce[b], bad[b]);
      bad[b] |= load<I32s>(Bspecial + n0 + b * kLanes);
      continue;
    }
    const U32s cb = load<U32s>(crow + n0 + b * kLanes);
    const I32s cexp = convert<I32s>((cb >> 23) & 0xFF);
    bad[b] = load<I32s>(Bspecial + n0 + b * kLanes) | (cexp == 0xFF);
    cv[b] = std::bit_cast<F32s>(cb);
    ce[b] = (cb & 0x7FFFFFFF) == 0 ? splat<I32s>(p.e_zero) : cexp != 0 ? cexp - 127 : splat<I32s>(-126);
  }
  const size_t bstep = size_t(kLanes) * size_t(K);  // panel(n0 + kLanes, k, K) - panel(n0, k, K)
  for (int k0 = 0; k0 < K; k0 += p.L) {
    const int n = std::min(p.L, K - k0);
    const size_t b0 = panel(n0, k0, K);
    if (L > 0 && n == L)
      narrow_group<L, kZeros, kF16, NB>(p, va + k0, ea + k0, Bv + b0, Be + b0, bstep, n, keep, cv, ce, bad);
    else narrow_group<0, kZeros, kF16, NB>(p, va + k0, ea + k0, Bv + b0, Be + b0, bstep, n, keep, cv, ce, bad);
  }
#pragma GCC unroll 4
  for (int b = 0; b < NB; ++b) {
    if (any(bad[b])) {
      redo.push_back(n0 + b * kLanes);
      continue;
    }
    if constexpr (kF16) {
      const U32s out = f16_bits(cv[b]);
      std::memcpy(drow + n0 + b * kLanes, &out, sizeof out);
    } else {
      std::memcpy(drow + n0 + b * kLanes, &cv[b], sizeof cv[b]);
    }
    ++done;
  }
}

// Row m of a narrow tile, every whole block of kLanes outputs (n0 + kLanes <= N), kBlocks blocks at
// a time while they last. The operands come as plain pointers and p as a local copy, so that the
// stores to d (which may alias anything) do not make the loop reload them.
template <int L, bool kZeros, bool kF16>
[[gnu::always_inline]] inline void narrow_row(const FdpaParams p, const float* va, const int32_t* ea,
                                              const float* Bv, const int32_t* Be, const int32_t* Bspecial,
                                              const U32s keep, int N, int K, const uint32_t* crow, uint32_t* drow,
                                              std::vector<int>& redo) {
  constexpr int kBlocks = 2;
  uint64_t done = 0;
  int n0 = 0;
  for (; n0 + kBlocks * kLanes <= N; n0 += kBlocks * kLanes)
    narrow_blocks<L, kZeros, kF16, kBlocks>(p, va, ea, Bv, Be, Bspecial, keep, n0, K, crow, drow, redo, done);
  for (; n0 + kLanes <= N; n0 += kLanes)
    narrow_blocks<L, kZeros, kF16, 1>(p, va, ea, Bv, Be, Bspecial, keep, n0, K, crow, drow, redo, done);
  t_narrow_blocks += done;
}

// Outputs (m, n0 .. n0 + kLanes - 1) of the tile, one lane each; B is k-major with row stride
// `stride`, padded, so every lane reads real memory. L: the model's group size when it is one of
// the compiled ones (8, 16, 32), else 0.
template <int L>
[[gnu::always_inline]] inline void lanes_dot(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A,
                                             const Decoded& B, int stride, int m, int n0, int N, int K,
                                             const uint32_t* a, const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  const FdpaParams& p = model.fdpa;
  const bool rz = p.out != OutRound::RNE_F16;
  const int lanes = std::min(kLanes, N - n0);
  uint32_t bits[kLanes] = {};  // output bits where known (c at first; f16 outputs; fdpa_round)
  if (lanes == kLanes) std::memcpy(bits, c + size_t(m) * size_t(N) + size_t(n0), sizeof bits);
  else std::memcpy(bits, c + size_t(m) * size_t(N) + size_t(n0), size_t(lanes) * 4);
  I32s slow = load<I32s>(B.special_row.data() + n0);  // -1: the lane goes through tc::dot
  F64s cv;  // each lane's c: exact value (signed zero kept)
  I32s ce;  // its alignment exponent (e_zero for zero)
  if (model.acc == AccFmt::F32) {
    const U32s cb = load<U32s>(bits);
    const I32s E = convert<I32s>((cb >> 23) & 0xFF);
    slow |= E == 0xFF;
    cv = convert<F64s>(std::bit_cast<Lanes<float>>(cb));
    ce = (convert<I32s>((cb & 0x7FFFFFFF) == 0) | slow) ? p.e_zero : E != 0 ? E - 127 : -126;
  } else {
    for (int j = 0; j < kLanes; ++j) {
      const AccIn x = acc_in(model.acc, bits[j], p.e_zero);
      slow[j] |= x.special ? -1 : 0;
      cv[j] = x.v;
      ce[j] = slow[j] ? p.e_zero : x.e;
    }
  }
  cv = std::bit_cast<F64s>(std::bit_cast<I64s>(cv) & ~convert<I64s>(slow));  // 0 in slow lanes
  const float* va = A.v.data() + size_t(m) * size_t(K);
  const int32_t* ea = A.e.data() + size_t(m) * size_t(K);
  for (int k0 = 0; k0 < K; k0 += p.L) {
    const int n = std::min(p.L, K - k0);
    const size_t b0 = panel(n0, k0, K);
    if (L > 0 && n == L)
      group<L>(p, model.acc, va + k0, ea + k0, B.v.data() + b0, B.e.data() + b0, kLanes, n, cv, ce, slow, bits);
    else
      group<0>(p, model.acc, va + k0, ea + k0, B.v.data() + b0, B.e.data() + b0, kLanes, n, cv, ce, slow, bits);
  }
  // An RZ output's last result is an f32 held exactly in cv (a signed zero included).
  if (rz) {
    const Lanes<float> out = convert<Lanes<float>>(cv);
    std::memcpy(bits, &out, sizeof bits);
  }
  // The lanes round with the sum's sign (IEEE conversion, fdpa_round's default). Under
  // UnderflowZeroSign::Positive a chained T-FDPA result is never -0 (a zero sum is +0, an
  // underflowed one too), and the sign of an intermediate zero does not reach the result (as the
  // next group's c it is a zero term), so turning a final -0 into +0 is the rule exactly. (The
  // narrow lanes never give -0; tc::dot applies the rule itself.)
  const uint32_t neg_zero = rz ? 0x80000000u : 0x8000u;
  for (uint32_t& b : bits) b = b == neg_zero ? 0 : b;
  if (lanes == kLanes && !any(slow)) {
    std::memcpy(d + size_t(m) * size_t(N) + size_t(n0), bits, sizeof bits);
    return;
  }
  for (int j = 0; j < lanes; ++j) {
    const size_t ai = size_t(m) * size_t(K), bi = size_t(n0 + j) * size_t(K), ci = size_t(m) * size_t(N) + size_t(n0 + j);
    d[ci] = slow[j] ? fallback_dot(model, fa, fb, a + ai, bt + bi, K, c[ci]) : bits[j];
  }
}

// kF16: an f16 accumulator (its narrow rows take f16_step4); each kind is compiled in its own
// function (tile_fast_v3, tile_fast_f16_v3: why there).
template <int L, bool kF16>
[[gnu::always_inline]] inline void tile_rows(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A,
                                             const Decoded& B, int stride, int M, int N, int K, const uint32_t* a,
                                             const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  // d may alias c: every output reads its own c before writing its own d, so in-place is fine.
  const bool narrow = narrow_tile(model, A, B), zeros = A.has_zero || B.has_zero;
  // The bits of an f32 that step 4 keeps (24 significant bits for f32, 14 for e8m13).
  const U32s keep = splat<U32s>(model.fdpa.out == OutRound::RZ_F32 ? ~0u : ~0x3FFu);
  const float* Av = A.v.data();
  const int32_t* Ae = A.e.data();
  const float* Bv = B.v.data();
  const int32_t* Be = B.e.data();
  const int32_t* Bspecial = B.special_row.data();
  thread_local std::vector<int> redo;  // blocks of a row the narrow lanes hand back
  for (int m = 0; m < M; ++m) {
    if (A.special_row[size_t(m)]) {
      for (int n = 0; n < N; ++n) {
        const size_t ci = size_t(m) * size_t(N) + size_t(n);
        d[ci] = fallback_dot(model, fa, fb, a + size_t(m) * size_t(K), bt + size_t(n) * size_t(K), K, c[ci]);
      }
      continue;
    }
    if (!narrow) {
      for (int n0 = 0; n0 < N; n0 += kLanes) lanes_dot<L>(model, fa, fb, A, B, stride, m, n0, N, K, a, bt, c, d);
      continue;
    }
    redo.clear();
    const size_t row = size_t(m) * size_t(K);
    const uint32_t* crow = c + size_t(m) * size_t(N);
    uint32_t* drow = d + size_t(m) * size_t(N);
    if (zeros) narrow_row<L, true, kF16>(model.fdpa, Av + row, Ae + row, Bv, Be, Bspecial, keep, N, K, crow, drow, redo);
    else narrow_row<L, false, kF16>(model.fdpa, Av + row, Ae + row, Bv, Be, Bspecial, keep, N, K, crow, drow, redo);
    for (const int n0 : redo) lanes_dot<L>(model, fa, fb, A, B, stride, m, n0, N, K, a, bt, c, d);
    if (N % kLanes) lanes_dot<L>(model, fa, fb, A, B, stride, m, N - N % kLanes, N, K, a, bt, c, d);
  }
}

template <bool kF16>
[[gnu::always_inline]] inline void tile_body(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A,
                                             const Decoded& B, int stride, int M, int N, int K, const uint32_t* a,
                                             const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  switch (model.fdpa.L) {
    case 8: tile_rows<8, kF16>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d); break;
    case 16: tile_rows<16, kF16>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d); break;
    case 32: tile_rows<32, kF16>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d); break;
    default: tile_rows<0, kF16>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d); break;
  }
}

// One function per accumulator kind and ISA: with the f16 rows' loops in the same function as the
// f32 ones, GCC compiled the f32 tile loop 15-20 % slower (ptxsim_gemm_bench 1024: mma_tile 0.21 ->
// 0.24-0.25 s), though the f32 instantiations were unchanged.
#ifdef PTXSIM_LANES_V3
PTXSIM_TARGET_V3 void tile_fast_v3(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A, const Decoded& B,
                                   int stride, int M, int N, int K, const uint32_t* a, const uint32_t* bt,
                                   const uint32_t* c, uint32_t* d) {
  tile_body<false>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
}
PTXSIM_TARGET_V3 void tile_fast_f16_v3(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A,
                                       const Decoded& B, int stride, int M, int N, int K, const uint32_t* a,
                                       const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  tile_body<true>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
}
#endif
void tile_fast_base(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A, const Decoded& B, int stride,
                    int M, int N, int K, const uint32_t* a, const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  tile_body<false>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
}
void tile_fast_f16_base(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A, const Decoded& B, int stride,
                        int M, int N, int K, const uint32_t* a, const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  tile_body<true>(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
}

void tile_fast(const DotModel& model, ElemFmt fa, ElemFmt fb, const Decoded& A, const Decoded& B, int stride, int M,
               int N, int K, const uint32_t* a, const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  const bool f16 = model.acc == AccFmt::F16;
#ifdef PTXSIM_LANES_V3
  if (use_v3()) {
    if (f16) return tile_fast_f16_v3(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
    return tile_fast_v3(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
  }
#endif
  if (f16) return tile_fast_f16_base(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
  tile_fast_base(model, fa, fb, A, B, stride, M, N, K, a, bt, c, d);
}

// Decoded operands, kept with their raw bits: the last few of each operand are reused when the bits
// are identical. The warps of a warpgroup (wgmma) each multiply their rows of A by the same B; a
// warp's mma.sync main loop multiplies each A fragment by several B fragments and each B fragment
// by several A fragments. A miss costs a few comparisons that stop at the first differing word.
class DecodeCache {
 public:
  const Decoded& get(ElemFmt fmt, const Layout& l, int rows, int K, const uint32_t* bits, bool k_major, int stride) {
    const size_t n = size_t(rows) * size_t(K);
    for (Entry& e : entries_)
      if (e.rows == rows && e.K == K && e.fmt == fmt && std::memcmp(e.raw.data(), bits, n * 4) == 0) return e.dec;
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    e.fmt = fmt;
    e.rows = rows;
    e.K = K;
    e.raw.assign(bits, bits + n);
    e.dec.fill(l, rows, K, bits, k_major, stride);
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

// A row-major (no padding) and B k-major (rows padded to `stride`); each with its own cache.
const Decoded& decoded_a(ElemFmt fa, const Layout& la, int M, int K, const uint32_t* a) {
  thread_local DecodeCache cache;
  return cache.get(fa, la, M, K, a, false, 0);
}
const Decoded& decoded_b(ElemFmt fb, const Layout& lb, int N, int K, const uint32_t* bt, int stride) {
  thread_local DecodeCache cache;
  return cache.get(fb, lb, N, K, bt, true, stride);
}

}  // namespace

void force_baseline_lanes(bool on) { g_force_baseline.store(on, std::memory_order_relaxed); }
bool lanes_use_avx2() { return use_v3(); }
uint64_t narrow_blocks_done() { return t_narrow_blocks; }

void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  Layout la, lb;
  // The fast path's conditions (file comment): consecutive groups with C chained, operands read as
  // their own type, terms below 2^27 after alignment, and ptxsim's edge rules (the lanes hard-wire
  // e_zero for zero products and zero c; other settings, which only tests select, take the
  // per-element definition).
  const bool fast = model.fdpa.edges == kPtxsimEdgeRules && model.split == KSplit::Consecutive && !model.c_last &&
                    model.a_as == kSame &&
                    model.b_as == kSame && model.fdpa.F <= 25 && K > 0 && inline_layout(fa, la) &&
                    inline_layout(fb, lb);
  if (!fast) {
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n)
        d[size_t(m) * size_t(N) + size_t(n)] = fallback_dot(model, fa, fb, a + size_t(m) * size_t(K),
                                                            bt + size_t(n) * size_t(K), K,
                                                            c[size_t(m) * size_t(N) + size_t(n)]);
    return;
  }
  const int stride = (N + kLanes - 1) / kLanes * kLanes;
  tile_fast(model, fa, fb, decoded_a(fa, la, M, K, a), decoded_b(fb, lb, N, K, bt, stride), stride, M, N, K, a, bt, c,
            d);
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
