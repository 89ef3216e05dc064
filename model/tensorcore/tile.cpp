// Whole-tile tensor-core products, the matrix hot path (see tile.h).
//
// Fast path (rows with consecutive K groups and C chained through every group, i.e. every wgmma and
// tcgen05 row and the non-fp8 mma.sync rows): every operand is decoded once into compact integer
// arrays (significand, quantum exponent q, alignment exponent e, sign), and each output element runs
// the T-FDPA of tensorcore.h group by group on those integers:
//   E   = max(e of c or e_zero, e_a + e_b over the group, e_zero if a product is zero)
//   S   = sum over the group of trunc(m_a * m_b * 2^(q_a + q_b - (E - F))) with signs, plus c's term
//   out = fdpa_round(S, E - F), which is the next group's c.
// A zero operand is stored with m = 0 and a very negative e, so it adds nothing to S nor to the
// maximum; the group's zero flag brings e_zero in. Elements whose row or column holds an Inf or NaN,
// and any group whose c is Inf or NaN, go through tc::dot (exactly the per-element definition), as
// do the rows the fast path does not cover (KSplit::Pairs4, c_last). The property test
// (tests/unit/tile_prop_test.cpp) compares this path with tc::dot on random bit patterns.
#include "model/tensorcore/tile.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace ptxsim::model::tc {

namespace {

constexpr int kZeroExp = -(1 << 20);  // e of a zero operand: below every real sum of exponents

// Bit layout of the formats the inline decoder handles (IEEE-style, or e4m3's NaN-only encoding).
struct Layout {
  int ebits, mbits, bias;
  bool ieee_specials;  // all-ones exponent: Inf (M = 0) / NaN; else only S.1111.111 is NaN (e4m3)
};
inline bool inline_layout(ElemFmt f, Layout& l) {
  switch (f) {
    case ElemFmt::F16: l = {5, 10, 15, true}; return true;
    case ElemFmt::BF16: l = {8, 7, 127, true}; return true;
    case ElemFmt::TF32: l = {8, 10, 127, true}; return true;  // bits 31:13 of an f32
    case ElemFmt::E4M3: l = {4, 3, 7, false}; return true;
    case ElemFmt::E5M2: l = {5, 2, 15, true}; return true;
    default: return false;
  }
}

// Decoded operands of one matrix, structure of arrays.
struct Decoded {
  std::vector<uint32_t> m;
  std::vector<int32_t> q, e;
  std::vector<uint8_t> neg;
  std::vector<int32_t> sm;           // signed significand (compact path)
  bool compact = true;               // every finite element has m < 2^12 and q == e - mbits
  int mbits = 0;                     // fraction bits of the format (compact path)
  std::vector<uint8_t> special_row;  // per row: an Inf or NaN somewhere in it
  // For the per-element fallback: the raw bits and how to decode them.
  const uint32_t* raw = nullptr;
  const DotModel* model = nullptr;
  ElemFmt fmt = ElemFmt::F16;
  bool is_b = false;

  Value value(size_t i) const { return is_b ? decode_b(*model, fmt, raw[i]) : decode_a(*model, fmt, raw[i]); }

  void fill(const DotModel& mdl, ElemFmt f, bool b, int rows, int K, const uint32_t* bits, bool general = false) {
    const size_t n = size_t(rows) * size_t(K);
    raw = bits;
    model = &mdl;
    fmt = f;
    is_b = b;
    special_row.assign(size_t(rows), 0);
    e.resize(n);
    sm.resize(n);
    Layout l;
    const ElemFmt as = b ? mdl.b_as : mdl.a_as;
    if (!general && as == kSame && inline_layout(f, l)) {
      // Compact: signed significand and alignment exponent straight from the fields.
      compact = true;
      mbits = l.mbits;
      const uint32_t emax = (1u << l.ebits) - 1, mmask = (1u << l.mbits) - 1;
      const int emin = 1 - l.bias, shift = f == ElemFmt::TF32 ? 13 : 0;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t v = bits[i] >> shift;
        const uint32_t E = (v >> l.mbits) & emax, M = v & mmask;
        const bool sgn = (v >> (l.mbits + l.ebits)) & 1;
        const bool special = l.ieee_specials ? E == emax : (E == emax && M == mmask);
        if (special) {
          special_row[i / size_t(K)] = 1;
          sm[i] = 0;
          e[i] = kZeroExp;
          continue;
        }
        const int32_t mag = int32_t(E ? (M | (1u << l.mbits)) : M);
        sm[i] = sgn ? -mag : mag;
        e[i] = mag == 0 ? kZeroExp : E ? int32_t(E) - l.bias : emin;
      }
      return;
    }
    // General: the decoded Values' integer fields.
    compact = f != ElemFmt::F32;
    mbits = 0;
    bool have = false;
    m.resize(n);
    q.resize(n);
    neg.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Value v = value(i);
      neg[i] = v.neg;
      if (v.cls == Value::Finite) {
        m[i] = uint32_t(v.m);
        q[i] = v.q;
        e[i] = v.e;
        sm[i] = v.neg ? -int32_t(v.m) : int32_t(v.m);
        if (!have) {
          mbits = v.e - v.q;
          have = true;
        }
        compact &= v.m < (1u << 12) && v.e - v.q == mbits;
      } else {
        m[i] = 0;
        q[i] = 0;
        e[i] = kZeroExp;
        sm[i] = 0;
        if (v.cls != Value::Zero) special_row[i / size_t(K)] = 1;
      }
    }
  }
};

inline uint64_t trunc_shift(uint64_t x, int s) { return s >= 0 ? x << s : x >> std::min(-s, 63); }

// The f32 accumulator's decode (tensorcore.cpp decode(AccFmt::F32, ...)), inlined.
inline Value decode_f32(uint32_t bits) {
  Value r;
  r.neg = bits >> 31;
  const uint32_t E = (bits >> 23) & 0xFF, M = bits & 0x7FFFFF;
  if (E == 0xFF) {
    r.cls = M ? Value::NaN : Value::Inf;
    return r;
  }
  if (E == 0 && M == 0) return r;
  r.cls = Value::Finite;
  if (E == 0) {
    r.m = M;
    r.q = -126 - 23;
  } else {
    r.m = M | 0x800000u;
    r.q = int(E) - 127 - 23;
  }
  r.e = std::max(r.q + int(std::bit_width(r.m)) - 1, -126);
  return r;
}

// One output element on the fast path; returns false when it must take the per-element path
// (a c that is Inf or NaN appeared in the chain).
template <int L>
inline bool fast_dot(const FdpaParams& p, AccFmt acc, const Decoded& A, const Decoded& B, size_t ai, size_t bi, int K,
                     uint32_t c, uint32_t& out) {
  const int Lr = L > 0 ? L : p.L;
  const uint32_t* ma = A.m.data() + ai;
  const uint32_t* mb = B.m.data() + bi;
  const int32_t* qa = A.q.data() + ai;
  const int32_t* qb = B.q.data() + bi;
  const int32_t* ea = A.e.data() + ai;
  const int32_t* eb = B.e.data() + bi;
  const uint8_t* na = A.neg.data() + ai;
  const uint8_t* nb = B.neg.data() + bi;
  uint32_t cur = c;
  for (int k0 = 0; k0 < K; k0 += Lr) {
    const Value cv = acc == AccFmt::F32 ? decode_f32(cur) : decode(acc, cur);
    if (cv.cls >= Value::Inf) return false;
    const int n = std::min(Lr, K - k0);
    int E = cv.cls == Value::Zero ? p.e_zero : cv.e;
    bool zero = false;
    for (int i = k0; i < k0 + n; ++i) {
      E = std::max(E, ea[i] + eb[i]);
      zero |= (ma[i] == 0) | (mb[i] == 0);
    }
    if (zero) E = std::max(E, p.e_zero);
    const int lsb = E - p.F;
    int64_t S = 0;
    for (int i = k0; i < k0 + n; ++i) {
      const uint64_t T = trunc_shift(uint64_t(ma[i]) * mb[i], qa[i] + qb[i] - lsb);
      const int64_t sg = -int64_t(na[i] ^ nb[i]);  // 0 or -1
      S += (int64_t(T) ^ sg) - sg;
    }
    if (cv.cls == Value::Finite) {
      const int64_t T = int64_t(trunc_shift(cv.m, cv.q - lsb));
      S += cv.neg ? -T : T;
    }
    cur = fdpa_round(S, lsb, p.out);
  }
  out = cur;
  return true;
}

// The same T-FDPA for operands whose significands are below 2^12 and whose q is e - mbits (every
// 8/16-bit format and tf32 read as themselves): a product's truncation shift is then
// e_a + e_b - (mbits_a + mbits_b) - lsb <= F < 32, so floor(|p| * 2^s) = (|p| << 32) >> (32 - s)
// with |p| < 2^24 is one shift, and the sign rides on the signed significands.
template <int L>
inline bool compact_dot(const FdpaParams& p, AccFmt acc, const Decoded& A, const Decoded& B, size_t ai, size_t bi,
                        int K, uint32_t c, uint32_t& out) {
  const int Lr = L > 0 ? L : p.L;
  const int32_t* sa = A.sm.data() + ai;
  const int32_t* sb = B.sm.data() + bi;
  const int32_t* ea = A.e.data() + ai;
  const int32_t* eb = B.e.data() + bi;
  const int mb = A.mbits + B.mbits;
  uint32_t cur = c;
  for (int k0 = 0; k0 < K; k0 += Lr) {
    const Value cv = acc == AccFmt::F32 ? decode_f32(cur) : decode(acc, cur);
    if (cv.cls >= Value::Inf) return false;
    const int n = std::min(Lr, K - k0);
    int32_t pe[L > 0 ? L : 64];
    int E = cv.cls == Value::Zero ? p.e_zero : cv.e;
    int zero = 0;
    for (int i = 0; i < n; ++i) {
      pe[i] = ea[k0 + i] + eb[k0 + i];
      E = std::max(E, pe[i]);
      zero |= (sa[k0 + i] == 0) | (sb[k0 + i] == 0);
    }
    if (zero) E = std::max(E, p.e_zero);
    const int lsb = E - p.F;
    const int base = lsb + mb + 32;  // shift right by base - pe
    int64_t S = 0;
    for (int i = 0; i < n; ++i) {
      const int64_t prod = int64_t(sa[k0 + i]) * sb[k0 + i];
      const int64_t sg = prod >> 63;
      const uint64_t mag = uint64_t((prod ^ sg) - sg) << 32;
      const int r = std::min(base - pe[i], 63);
      const int64_t T = int64_t(mag >> r);
      S += (T ^ sg) - sg;
    }
    if (cv.cls == Value::Finite) {
      const int64_t T = int64_t(trunc_shift(cv.m, cv.q - lsb));
      S += cv.neg ? -T : T;
    }
    cur = fdpa_round(S, lsb, p.out);
  }
  out = cur;
  return true;
}

// The per-element definition, for elements the fast paths do not take.
uint32_t fallback_dot(const DotModel& model, const Decoded& A, const Decoded& B, size_t ai, size_t bi, int K,
                      uint32_t c) {
  thread_local std::vector<Value> va, vb;
  va.resize(size_t(K));
  vb.resize(size_t(K));
  for (int k = 0; k < K; ++k) {
    va[size_t(k)] = A.value(ai + size_t(k));
    vb[size_t(k)] = B.value(bi + size_t(k));
  }
  return dot(model, va.data(), vb.data(), K, c);
}

template <int L>
void tile_fast(const DotModel& model, const Decoded& A, const Decoded& B, int M, int N, int K, const uint32_t* c,
               uint32_t* d) {
  // The compact loop needs both operands compact; fast_dot needs the general arrays, which the
  // inline decoder does not fill, so a mixed pair re-decodes the compact side generally.
  const bool compact = A.compact && B.compact;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const size_t ai = size_t(m) * size_t(K), bi = size_t(n) * size_t(K);
      const uint32_t cin = c[size_t(m) * size_t(N) + size_t(n)];
      uint32_t out;
      if (A.special_row[size_t(m)] || B.special_row[size_t(n)] ||
          !(compact ? compact_dot<L>(model.fdpa, model.acc, A, B, ai, bi, K, cin, out)
                    : fast_dot<L>(model.fdpa, model.acc, A, B, ai, bi, K, cin, out)))
        out = fallback_dot(model, A, B, ai, bi, K, cin);
      d[size_t(m) * size_t(N) + size_t(n)] = out;
    }
}

}  // namespace

void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  thread_local Decoded A, B;
  A.fill(model, fa, false, M, K, a);
  B.fill(model, fb, true, N, K, bt);
  if (A.compact != B.compact) {  // fast_dot needs the general arrays on both sides
    A.fill(model, fa, false, M, K, a, true);
    B.fill(model, fb, true, N, K, bt, true);
  }
  if (model.split != KSplit::Consecutive || model.c_last) {
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n)
        d[size_t(m) * size_t(N) + size_t(n)] = fallback_dot(model, A, B, size_t(m) * size_t(K), size_t(n) * size_t(K), K,
                                                             c[size_t(m) * size_t(N) + size_t(n)]);
    return;
  }
  // d may alias c: every element reads its own c before writing its own d, so in-place is fine.
  switch (model.fdpa.L) {
    case 8: tile_fast<8>(model, A, B, M, N, K, c, d); break;
    case 16: tile_fast<16>(model, A, B, M, N, K, c, d); break;
    case 32: tile_fast<32>(model, A, B, M, N, K, c, d); break;
    default: tile_fast<0>(model, A, B, M, N, K, c, d); break;
  }
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
