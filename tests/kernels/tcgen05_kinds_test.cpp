// tests/kernels/tcgen05_kinds.cu on sm_100a: tcgen05.mma of every kind (f16, tf32, f8f6f4, i8,
// mxf8f6f4, mxf4, mxf4nvf4) with .cta_group::1 (M = 64, 128) and ::2 (M = 128, 256, a cluster of 2),
// A from shared memory and from Tensor Memory, against a CPU reference written here from the
// definitions: the element formats (PTX ISA 5.2.5 "Alternate floating point data formats", OCP MX),
// the instruction descriptors (PTX 9.7.16.4.2 Tables 42-44), the D / A layouts in Tensor Memory
// (PTX 9.7.16.10.5 "Data path layout": M = 64 layout F, M = 128 / 256 with one or two CTAs),
// the padded packing of 4/6-bit f8f6f4 elements and the two-per-byte mxf4 packing (PTX
// 9.7.16.10.4), and the scale-factor placement of docs/tcgen05.md (CUTLASS tmem_sf_frg).
//
// Inputs are drawn from value sets whose products and sums are exact in the accumulator format (the
// reference checks this for every output), so the expected D is the exact sum and
// the comparison is bit for bit without modelling the tensor-core rounding. The last test compares
// random full-range f16 inputs with the Boost exact reference of the numerics model instead.
#include <bit>
#include <climits>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "model/tensorcore/exact_ref.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

// ---- Element formats ---------------------------------------------------------------------------
enum class Fmt { F16, BF16, TF32, E4M3, E5M2, E2M3, E3M2, E2M1, S8, U8, UE8M0, UE4M3 };

int bits_of(Fmt f) {
  switch (f) {
    case Fmt::F16: case Fmt::BF16: return 16;
    case Fmt::TF32: return 32;
    case Fmt::E2M3: case Fmt::E3M2: return 6;
    case Fmt::E2M1: return 4;
    default: return 8;
  }
}

// sign | e exponent bits | m mantissa bits, bias b; subnormals at e = 0.
double minifloat(uint32_t bits, int e_bits, int m_bits, int bias) {
  const uint32_t m = bits & ((1u << m_bits) - 1), e = (bits >> m_bits) & ((1u << e_bits) - 1);
  const double v = e ? std::ldexp(1.0 + m / double(1u << m_bits), int(e) - bias) : std::ldexp(m / double(1u << m_bits), 1 - bias);
  return (bits >> (m_bits + e_bits)) & 1 ? -v : v;
}

// The value of a code, or nullopt for Inf / NaN.
std::optional<double> value_of(Fmt f, uint32_t c) {
  switch (f) {
    case Fmt::F16: if ((c >> 10 & 31) == 31) return std::nullopt; return minifloat(c, 5, 10, 15);
    case Fmt::BF16: if ((c >> 7 & 255) == 255) return std::nullopt; return minifloat(c, 8, 7, 127);
    case Fmt::TF32: if ((c >> 23 & 255) == 255) return std::nullopt; return minifloat(c >> 13, 8, 10, 127);
    case Fmt::E4M3: if ((c & 0x7F) == 0x7F) return std::nullopt; return minifloat(c, 4, 3, 7);  // no Inf; S.1111.111 NaN
    case Fmt::E5M2: if ((c >> 2 & 31) == 31) return std::nullopt; return minifloat(c, 5, 2, 15);
    case Fmt::E2M3: return minifloat(c, 2, 3, 1);  // fp6 and fp4: no Inf or NaN
    case Fmt::E3M2: return minifloat(c, 3, 2, 3);
    case Fmt::E2M1: return minifloat(c, 2, 1, 1);
    case Fmt::S8: return double(int8_t(c));
    case Fmt::U8: return double(c);
    case Fmt::UE8M0: if (c == 0xFF) return std::nullopt; return std::ldexp(1.0, int(c) - 127);
    case Fmt::UE4M3: if (c >= 0x7F) return std::nullopt; return minifloat(c, 4, 3, 7);  // sign bit unused (0)
  }
  return std::nullopt;
}

// Every code of `f` whose value v is finite, lo <= |v| <= hi and a multiple of `step` (all codes for
// the integer formats; step 0: any value), each once (TF32: low 13 bits zero).
const std::vector<uint32_t>& pool(Fmt f, double hi, double step, double lo = 0) {
  static std::map<std::tuple<Fmt, double, double, double>, std::vector<uint32_t>> cache;
  std::vector<uint32_t>& p = cache[{f, hi, step, lo}];
  if (!p.empty()) return p;
  const uint32_t n = f == Fmt::TF32 ? 1u << 19 : 1u << bits_of(f);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t c = f == Fmt::TF32 ? i << 13 : i;
    const auto v = value_of(f, c);
    if (f == Fmt::S8 || f == Fmt::U8 || (v && std::fabs(*v) <= hi && std::fabs(*v) >= lo && (step == 0 || std::fmod(*v, step) == 0)))
      p.push_back(c);
  }
  return p;
}

// ---- Exactness: when every term of a sum is a multiple of a grid g (here the product of the
// value sets' steps) and every term and partial result is below 2^sig * g in magnitude, the sum is
// exact in a format of sig significant bits, and the datapath's truncation to F >= 25 bits below the
// largest term drops nothing. run_case asserts this for every output and MMA step. -----------------
uint16_t f16_bits_exact(double x) {  // x representable in f16
  if (x == 0) return 0;
  const uint16_t s = x < 0 ? 0x8000 : 0;
  x = std::fabs(x);
  int e;
  std::frexp(x, &e);
  if (e - 1 < -14) return uint16_t(s | uint16_t(std::ldexp(x, 24)));
  return uint16_t(s | (e - 1 + 15) << 10 | uint16_t(std::ldexp(x, -(e - 1)) * 1024 - 1024));
}

// ---- The kinds and the instruction descriptor (PTX 9.7.16.4.2) -------------------------------------
enum class Kind { F16, TF32, F8F6F4, I8, MXF8F6F4, MXF4, MXF4NVF4 };
enum class Acc { F16, F32, S32 };

bool mx4(Kind k) { return k == Kind::MXF4 || k == Kind::MXF4NVF4; }
bool scaled(Kind k) { return k == Kind::MXF8F6F4 || mx4(k); }
// Elements of one MMA's K (256 bits of A element; 4/6-bit f8f6f4 types occupy 8-bit slots).
int k_step(Kind k) { return k == Kind::F16 ? 16 : k == Kind::TF32 ? 8 : mx4(k) ? 64 : 32; }

uint32_t fmt_code(Kind k, Fmt f) {
  switch (f) {
    case Fmt::F16: return 0;
    case Fmt::BF16: return 1;
    case Fmt::TF32: return 2;
    case Fmt::E4M3: return 0;
    case Fmt::E5M2: return 1;
    case Fmt::E2M3: return 3;
    case Fmt::E3M2: return 4;
    case Fmt::E2M1: return mx4(k) ? 1 : 5;
    case Fmt::U8: return 0;
    case Fmt::S8: return 1;
    default: return 0;
  }
}

struct Case {
  const char* name;
  Kind kind;
  int sv;  // block-scaled: scale factors per row of A / column of B per MMA (.scale_vec::NX)
  Fmt a, b;
  Acc acc;
  double a_hi, a_step, b_hi, b_step;  // element value sets (see pool())
  bool saturate = false;
  Fmt sf = Fmt::UE8M0;
  double sf_lo = 0.5, sf_hi = 2;  // scale-factor value set: powers of two (UE8M0) or multiples of 1/8 (UE4M3)
  // f16 / bf16 only: every 16-bit pattern (NaN, Inf, subnormals) and the exact reference of the
  // numerics model (model/tensorcore/exact_ref.h) instead of exact value sets.
  bool full_range = false;
  bool block_spelling = false;  // block-scaled: .block32 / .block16 instead of .scale_vec::NX
};

const char* kernel_kind(const Case& c) {
  switch (c.kind) {
    case Kind::F16: return "f16";
    case Kind::TF32: return "tf32";
    case Kind::F8F6F4: return "f8f6f4";
    case Kind::I8: return "i8";
    case Kind::MXF8F6F4: return c.block_spelling ? "mxf8f6f4_block32" : "mxf8f6f4_1x";
    case Kind::MXF4: return c.block_spelling ? "mxf4_block32" : "mxf4_2x";
    case Kind::MXF4NVF4:
      if (c.block_spelling) return c.sv == 4 ? "mxf4nvf4_block16" : "";
      return c.sv == 2 ? "mxf4nvf4_2x" : "mxf4nvf4_4x";
  }
  return "";
}

struct Shape {
  int cg, M, N;
};
constexpr Shape kDenseShapes[] = {{1, 64, 48}, {1, 128, 64}, {2, 128, 64}, {2, 256, 128}};
constexpr Shape kScaledShapes[] = {{1, 128, 64}, {2, 128, 64}, {2, 256, 128}};

// D(m, n) in Tensor Memory (m: row within the CTA's rows), PTX 9.7.16.10.5: cta_group::1 M = 64 is
// layout F (rows 16q..16q+15 in lanes 32q..32q+15); M = 128 and the M = 256 pair lane m, column n;
// the M = 128 pair (layout B) puts columns n >= N/2 in lanes 64.. at column n - N/2.
std::pair<int, int> d_cell(const Shape& s, int m, int n) {
  if (s.cg == 1 && s.M == 64) return {m % 16 + 32 * (m / 16), n};
  if (s.cg == 2 && s.M == 128) return {m + (n >= s.N / 2 ? 64 : 0), n % (s.N / 2)};
  return {m, n};
}
int d_cols(const Shape& s) { return s.cg == 2 && s.M == 128 ? s.N / 2 : s.N; }

// A's row (K elements, the 4 MMAs' 128 bytes) as Tensor Memory holds it, 4 bytes per column
// little-endian (PTX 9.7.16.10.5 and docs/tcgen05.md "A in Tensor Memory"): 8/16/32-bit elements
// packed K after K; a 4/6-bit element of kind::f8f6f4 / mxf8f6f4 in its own holder byte, in the
// middle: E2M3 / E3M2 in bits 6:1, E2M1 in bits 5:2, the other bits zero (what tcgen05.cp
// .b8x16.b6x16_p32 / .b4x16_p64 write; NVIDIA's CuTeDSL cp_narrow_a_to_tmem_mma example); mxf4 /
// mxf4nvf4 two E2M1 per byte, lower K in the low nibble.
std::vector<uint8_t> a_tmem_row(const Case& c, const uint32_t* e) {
  std::vector<uint8_t> row(128);
  const int w = bits_of(c.a);
  if (mx4(c.kind)) {
    for (int j = 0; j < 128; ++j) row[j] = uint8_t(e[2 * j] | e[2 * j + 1] << 4);
  } else if (w == 6) {
    for (int k = 0; k < 128; ++k) row[k] = uint8_t((e[k] & 0x3F) << 1);
  } else if (w == 4) {
    for (int k = 0; k < 128; ++k) row[k] = uint8_t((e[k] & 0xF) << 2);
  } else {
    for (int k = 0; k < 128 / (w / 8); ++k)
      for (int j = 0; j < w / 8; ++j) row[k * (w / 8) + j] = uint8_t(e[k] >> (8 * j));
  }
  return row;
}

// Packs one row of elements into 128 bytes of storage (the bytes a TMA would place, before the swizzle).
void pack_row(const Case& c, Fmt f, const uint32_t* e, uint8_t* row, std::mt19937_64& rng) {
  const int w = bits_of(f);
  if (mx4(c.kind)) {  // two E2M1 per byte, lower K in the low nibble
    for (int j = 0; j < 128; ++j) row[j] = uint8_t(e[2 * j] | e[2 * j + 1] << 4);
  } else if (w < 8) {  // 16 elements per 16-byte chunk in bits [w*i, w*i + w), then padding (random)
    for (int ch = 0; ch < 8; ++ch) {
      uint8_t* chunk = row + 16 * ch;
      for (int j = 0; j < 16; ++j) chunk[j] = uint8_t(rng());
      __uint128_t bits = 0;
      for (int i = 0; i < 16; ++i) bits |= __uint128_t(e[16 * ch + i]) << (w * i);
      for (int j = 0; j < 2 * w; ++j) chunk[j] = uint8_t(bits >> (8 * j));
    }
  } else {
    const int b = w / 8;
    for (int i = 0; i < 128 / b; ++i)
      for (int j = 0; j < b; ++j) row[i * b + j] = uint8_t(e[i] >> (8 * j));
  }
}

int elems_per_row(const Case& c) { return 4 * k_step(c.kind); }

// A canonical shared-memory layout (PTX 9.7.16.3, in bytes as docs/matrix-units.md "Canonical
// layouts" restates them): K- or MN-major, without swizzle (w = 0) or with the 32/64/128-byte one.
struct SmemLayout {
  bool mn_major;
  uint32_t w;
};
std::string layout_name(const SmemLayout& l) {
  return std::string(l.mn_major ? "MN-major " : "K-major ") + (l.w ? std::to_string(l.w) + "B swizzle" : "no swizzle");
}

// An operand of R rows (its M or N extent) of 128 bytes of K (b bytes per element), stored in layout
// l: the byte offset of element (mn, k) before the swizzle, with this test's LBO / SBO choices.
struct OperandLayout {
  SmemLayout l;
  uint32_t R, b;
  uint32_t lbo() const {
    if (!l.mn_major) return l.w ? 16 : R * 16;  // K-major swizzled: unused
    return l.w ? 8 * l.w : R * b * 8;
  }
  uint32_t sbo() const {
    if (!l.mn_major) return l.w ? 8 * l.w : 128;
    return l.w ? R * b * 8 : 128;
  }
  uint32_t offset(uint32_t mn, uint32_t k) const {
    const uint32_t kb = k * b, mb = mn * b, w = l.w;
    if (!l.mn_major) {
      if (!w) return (mn / 8) * sbo() + (mn % 8) * 16 + (kb / 16) * lbo() + kb % 16;
      return (kb / w) * (R * w) + (mn / 8) * sbo() + (mn % 8) * w + kb % w;  // K blocks of w bytes one after another
    }
    if (!w) return (mb / 16) * sbo() + mb % 16 + (k % 8) * 16 + (k / 8) * lbo();
    return (mb / w) * lbo() + mb % w + (k % 8) * w + (k / 8) * sbo();
  }
  // The swizzle XORs address bits 6:4 with bits 9:7 (masked to the mode's width); the buffer is
  // 1024-byte aligned, so relative and absolute addresses agree in those bits.
  static uint32_t swizzle(uint32_t w, uint32_t a) { return w ? a ^ (((a >> 7) & (w / 16 - 1)) << 4) : a; }
  // The descriptor of the MMA reading K elements [k0, k0 + 256 bits): start at element (0, k0),
  // version 1 (bit 46), layout code (63:61: 0 none, 6 = 32B, 4 = 64B, 2 = 128B), start relative.
  uint64_t desc(uint32_t k0) const {
    const uint64_t code = l.w == 128 ? 2 : l.w == 64 ? 4 : l.w == 32 ? 6 : 0;
    return uint64_t(offset(0, k0) >> 4) | uint64_t(lbo() >> 4) << 16 | uint64_t(sbo() >> 4) << 32 | 1ull << 46 |
           code << 61;
  }
  // The image of `rows` x K element codes (row-major), unused bytes random.
  std::vector<uint8_t> image(const std::vector<uint32_t>& e, uint32_t K, std::mt19937_64& rng) const {
    std::vector<uint8_t> img(size_t(R) * 128);
    for (auto& x : img) x = uint8_t(rng());
    for (uint32_t mn = 0; mn < R; ++mn)
      for (uint32_t k = 0; k < K; ++k) {
        const uint32_t a = swizzle(l.w, offset(mn, k));
        for (uint32_t j = 0; j < b; ++j) img[a + j] = uint8_t(e[size_t(mn) * K + k] >> (8 * j));
      }
    return img;
  }
};

// How the scale factors reach TMEM (the kernel's sf_path).
enum class SfPath : uint32_t { St = 0, Cp128x128b = 1, Cp32x128bWarpx4 = 2 };
const char* sf_path_name(SfPath p) {
  return p == SfPath::St ? "tcgen05.st" : p == SfPath::Cp128x128b ? "tcgen05.cp .128x128b" : "tcgen05.cp .32x128b.warpx4";
}

// One launch of a case on a shape, and the check of every element of D.
// `layouts`: A's and B's shared-memory layouts (cta_group::1, 8/16/32-bit elements); otherwise both
// K-major with the 128-byte swizzle, placed by the kernel.
// `second_copy_differs` (A in TMEM, the M = 128 pair): the copy of A in lanes 64-127 holds other rows
// A2, and the reference takes D(m, n >= N/2) from A2 (the hardware needs equal copies; different ones
// show which copy each half of D reads).
void run_case(Harness& h, const Case& c, const Shape& s, bool a_tmem, SfPath sf_path, bool with_d_init, uint64_t seed,
              const std::pair<SmemLayout, SmemLayout>* layouts = nullptr, bool second_copy_differs = false) {
  SCOPED_TRACE(std::string(c.name) + ", cta_group::" + std::to_string(s.cg) + ", M = " + std::to_string(s.M) +
               ", N = " + std::to_string(s.N) +
               (a_tmem ? second_copy_differs ? ", A in TMEM (second copy differs)" : ", A in TMEM" : ", A in shared memory") +
               (layouts ? ", A " + layout_name(layouts->first) + ", B " + layout_name(layouts->second) : "") +
               (scaled(c.kind) ? std::string(", scale factors by ") + sf_path_name(sf_path) : "") +
               (with_d_init ? ", D initialised" : ""));
  std::mt19937_64 rng(seed);
  auto pick = [&](const std::vector<uint32_t>& p) { return p[rng() % p.size()]; };
  const int K = elems_per_row(c), ks = k_step(c.kind), cg = s.cg, mr = s.M / cg, nr = s.N / cg, dc = d_cols(s);
  const bool is_int = c.acc == Acc::S32;

  // Operands: A (M x K), B^T (N x K), element codes.
  const auto &pa = pool(c.a, c.a_hi, c.a_step), &pb = pool(c.b, c.b_hi, c.b_step);
  std::vector<uint32_t> A(size_t(s.M) * K), B(size_t(s.N) * K);
  // Full range (f16 / bf16): any exponent, or (every other row of A and column of B) a narrow band
  // of exponents so that sums cancel and truncate; Inf / NaN kept rare (1/512 of the draws that hit
  // them) so that most outputs stay finite.
  auto full_range_code = [&](Fmt f, bool narrow) {
    const int mbits = f == Fmt::F16 ? 10 : 7, emax = f == Fmt::F16 ? 31 : 255, bias = f == Fmt::F16 ? 15 : 127;
    for (;;) {
      uint32_t x = uint32_t(rng() & 0xFFFF);
      if (narrow) x = (x & ~(uint32_t(emax) << mbits)) | uint32_t(bias - 2 + int(rng() % 5)) << mbits;
      if ((x >> mbits & uint32_t(emax)) != uint32_t(emax) || rng() % 512 == 0) return x;
    }
  };
  for (size_t i = 0; i < A.size(); ++i) A[i] = c.full_range ? full_range_code(c.a, (i / K) % 2) : pick(pa);
  for (size_t i = 0; i < B.size(); ++i) B[i] = c.full_range ? full_range_code(c.b, (i / K) % 2) : pick(pb);
  // The M = 128 pair: the second copy of A in TMEM (lanes m + 64), the same rows unless told otherwise.
  const bool layout_b = cg == 2 && s.M == 128;
  std::vector<uint32_t> A2 = A;
  if (a_tmem && layout_b && second_copy_differs)
    for (auto& x : A2) x = pick(pa);
  const bool neg_a = !is_int && rng() % 2, neg_b = !is_int && rng() % 2;

  // Scale factors: SFA[m][j], SFB[n][j], j = MMA step * sv + index within the step.
  const int nsf = 4 * c.sv;
  std::vector<uint32_t> SFA(size_t(s.M) * nsf), SFB(size_t(s.N) * nsf);
  uint32_t a_sf_id = 0, b_sf_id = 0;
  if (scaled(c.kind)) {
    const auto& psf = c.sf == Fmt::UE8M0 ? pool(c.sf, c.sf_hi, 0, c.sf_lo) : pool(c.sf, c.sf_hi, 0.125, c.sf_lo);
    for (auto& x : SFA) x = pick(psf);
    for (auto& x : SFB) x = pick(psf);
    if (c.sv < 4) {  // which byte (1X) or half-word (2X) of the TMEM word holds the factors
      a_sf_id = uint32_t(rng() % (4 / c.sv)) * c.sv;
      b_sf_id = uint32_t(rng() % (4 / c.sv)) * c.sv;
    }
  }

  // D before the first MMA: small values on the grid (integers: near the s32 limits too).
  std::vector<double> D0(size_t(s.M) * s.N, 0);
  std::vector<int64_t> D0i(size_t(s.M) * s.N, 0);
  if (with_d_init) {
    for (size_t i = 0; i < D0.size(); ++i) {
      if (is_int) {
        const int64_t r = int64_t(rng() % 2001) - 1000;
        D0i[i] = rng() % 3 == 0 ? INT32_MAX - 4000 + r : rng() % 2 ? INT32_MIN + 4000 + r : r;
      } else {
        D0[i] = double(int(rng() % 33) - 16);
        if (D0[i] == 0) D0[i] = 1;  // no signed zeros in C
      }
    }
  }

  // Full range: D0 any finite pattern; the reference is the numerics model's exact evaluation.
  std::vector<uint32_t> D0bits(size_t(s.M) * s.N, 0);
  for (size_t i = 0; i < D0bits.size(); ++i) {
    if (!with_d_init) break;
    if (is_int) D0bits[i] = uint32_t(int32_t(D0i[i]));
    else if (!c.full_range) D0bits[i] = c.acc == Acc::F16 ? uint32_t(f16_bits_exact(D0[i])) : std::bit_cast<uint32_t>(float(D0[i]));
    else if (c.acc == Acc::F16) do D0bits[i] = uint32_t(rng() & 0xFFFF); while ((D0bits[i] >> 10 & 31) == 31);
    else do D0bits[i] = uint32_t(rng()); while ((D0bits[i] >> 23 & 255) == 255);
  }
  std::vector<uint32_t> want(size_t(s.M) * s.N);
  if (c.full_range) {
    namespace tc = model::tc;
    const tc::ElemFmt fa = c.a == Fmt::BF16 ? tc::ElemFmt::BF16 : tc::ElemFmt::F16;
    const tc::ElemFmt fb = c.b == Fmt::BF16 ? tc::ElemFmt::BF16 : tc::ElemFmt::F16;
    const tc::DotModel* model = tc::find_model(tc::Arch::SM100, tc::Unit::Tcgen05, fa, fb,
                                               c.acc == Acc::F16 ? tc::AccFmt::F16 : tc::AccFmt::F32);
    ASSERT_TRUE(model);
    std::vector<uint32_t> a(size_t(s.M) * ks), b(size_t(ks) * s.N);
    want = D0bits;
    for (int st = 0; st < 4; ++st) {  // negation flips the sign bit of every element
      for (int m = 0; m < s.M; ++m)
        for (int k = 0; k < ks; ++k) a[size_t(m) * ks + k] = A[size_t(m) * K + st * ks + k] ^ (neg_a ? 0x8000 : 0);
      for (int k = 0; k < ks; ++k)
        for (int n = 0; n < s.N; ++n) b[size_t(k) * s.N + n] = B[size_t(n) * K + st * ks + k] ^ (neg_b ? 0x8000 : 0);
      const std::vector<uint32_t> c_in = want;
      tc::ref::gemm(*model, fa, a.data(), fb, b.data(), c_in.data(), want.data(), s.M, s.N, ks);
    }
  }

  // The exact reference, MMA step by MMA step (each tcgen05.mma writes D).
  auto values = [](Fmt f, const std::vector<uint32_t>& codes) {
    std::vector<double> v(codes.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = *value_of(f, codes[i]);
    return v;
  };
  const std::vector<double> va = c.full_range ? std::vector<double>() : values(c.a, A),
                            va2 = c.full_range ? std::vector<double>() : values(c.a, A2),
                            vb = c.full_range ? std::vector<double>() : values(c.b, B), vsa = values(c.sf, SFA),
                            vsb = values(c.sf, SFB);
  const double sgn = (neg_a ? -1 : 1) * (neg_b ? -1 : 1);
  const double sf_step = c.sf == Fmt::UE8M0 ? c.sf_lo : 0.125;
  const double grid = is_int ? 1 : c.a_step * c.b_step * (scaled(c.kind) ? sf_step * sf_step : 1);
  const double limit = std::ldexp(grid, c.acc == Acc::F16 ? 11 : 24);
  for (int m = 0; m < s.M && !c.full_range; ++m)
    for (int n = 0; n < s.N; ++n) {
      double d = D0[size_t(m) * s.N + n], big = std::fabs(d);
      int64_t di = D0i[size_t(m) * s.N + n];
      // With A in TMEM and the M = 128 pair, D's lanes 64-127 (n >= N/2) read the second copy.
      const bool copy2 = a_tmem && layout_b && n >= s.N / 2;
      const double* ar = &(copy2 ? va2 : va)[size_t(m) * K];
      const double* br = &vb[size_t(n) * K];
      for (int st = 0; st < 4; ++st) {
        if (is_int) {
          int64_t x = di;
          for (int k = st * ks; k < (st + 1) * ks; ++k) x += int64_t(ar[k]) * int64_t(br[k]);
          di = c.saturate ? std::clamp<int64_t>(x, INT32_MIN, INT32_MAX) : int64_t(int32_t(uint32_t(x)));
          continue;
        }
        double sum = d;
        for (int k = st * ks; k < (st + 1) * ks; ++k) {
          double t = ar[k] * br[k] * sgn;
          if (scaled(c.kind)) {
            const int j = st * c.sv + (k - st * ks) / (ks / c.sv);
            t *= vsa[size_t(m) * nsf + j] * vsb[size_t(n) * nsf + j];
          }
          big = std::max(big, std::fabs(t));
          sum += t;
        }
        big = std::max(big, std::fabs(sum));
        d = sum;
      }
      ASSERT_LT(big, limit) << "test data not exact in the accumulator at D(" << m << ", " << n << ")";
      uint32_t& w = want[size_t(m) * s.N + n];
      if (is_int) w = uint32_t(int32_t(di));
      else if (c.acc == Acc::F16) w = f16_bits_exact(d);
      else w = d == 0 ? 0u : std::bit_cast<uint32_t>(float(d));  // an exactly zero sum is +0
    }

  // Device images per CTA.
  std::vector<uint8_t> a_rows(size_t(s.M) * 128), b_rows(size_t(s.N) * 128);
  for (int m = 0; m < s.M; ++m) pack_row(c, c.a, &A[size_t(m) * K], &a_rows[size_t(m) * 128], rng);
  for (int n = 0; n < s.N; ++n) pack_row(c, c.b, &B[size_t(n) * K], &b_rows[size_t(n) * 128], rng);
  auto garbage = [&](size_t n) {
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = uint32_t(rng());
    return v;
  };
  // A in TMEM: CTA v's row m at the lane of D's row m (M = 64: layout F), columns 128.. (the kernel's
  // kAcol), K as a_tmem_row packs it; the M = 128 pair (layout B) holds it twice, in lanes m and
  // m + 64. Other lanes hold garbage.
  std::vector<uint32_t> a_img = garbage(size_t(cg) * 128 * 32);
  for (int v = 0; v < cg; ++v)
    for (int m = 0; m < mr; ++m)
      for (int copy = 0; copy < (layout_b ? 2 : 1); ++copy) {
        const std::vector<uint8_t> r = a_tmem_row(c, &(copy ? A2 : A)[size_t(v * mr + m) * K]);
        const int lane = layout_b ? m + 64 * copy : d_cell(s, m, 0).first;
        for (int col = 0; col < 32; ++col)
          a_img[(size_t(v) * 128 + lane) * 32 + col] =
              uint32_t(r[4 * col] | r[4 * col + 1] << 8 | r[4 * col + 2] << 16 | uint32_t(r[4 * col + 3]) << 24);
      }
  // Scale factors: word (lane L, column 4*step + c) byte id + j = factor j of row 32c + L%32 of this
  // CTA's A, in every 32-lane partition; for B of column 32c + L%32, except with the M = 128 pair,
  // where lanes 64-127 hold columns N/2 + 32c + L%32.
  std::vector<uint32_t> sfa_img = garbage(size_t(cg) * 128 * 16), sfb_img = garbage(size_t(cg) * 128 * 16);
  auto put_byte = [](uint32_t& w, uint32_t byte, uint32_t v) { w = (w & ~(0xFFu << (8 * byte))) | v << (8 * byte); };
  if (scaled(c.kind))
    for (int v = 0; v < cg; ++v)
      for (int L = 0; L < 128; ++L)
        for (int st = 0; st < 4; ++st)
          for (int cc = 0; cc < 4; ++cc) {
            const int m = 32 * cc + L % 32;
            const int nl = 32 * cc + L % 32, n = layout_b ? (L >= 64 ? s.N / 2 : 0) + nl : nl;
            uint32_t& wa = sfa_img[(size_t(v) * 128 + L) * 16 + 4 * st + cc];
            uint32_t& wb = sfb_img[(size_t(v) * 128 + L) * 16 + 4 * st + cc];
            for (int j = 0; j < c.sv; ++j) {
              if (m < mr) put_byte(wa, a_sf_id + j, SFA[size_t(v * mr + m) * nsf + st * c.sv + j]);
              if (nl < (layout_b ? s.N / 2 : s.N)) put_byte(wb, b_sf_id + j, SFB[size_t(n) * nsf + st * c.sv + j]);
            }
          }
  std::vector<uint32_t> d_img = garbage(size_t(cg) * 128 * dc);
  for (int v = 0; v < cg; ++v)
    for (int m = 0; m < mr; ++m)
      for (int n = 0; n < s.N; ++n) {
        const auto [lane, col] = d_cell(s, m, n);
        const size_t i = size_t(v * mr + m) * s.N + n;
        d_img[(size_t(v) * 128 + lane) * dc + col] = D0bits[i];
      }

  // The instruction descriptor.
  uint32_t idesc;
  if (scaled(c.kind)) {
    idesc = b_sf_id << 4 | fmt_code(c.kind, c.a) << 7 | fmt_code(c.kind, c.b) << 10 | uint32_t(neg_a) << 13 |
            uint32_t(neg_b) << 14 | uint32_t(s.N >> 3) << 17 | uint32_t(c.sf == Fmt::UE8M0) << 23 |
            uint32_t(s.M >> 7) << 27 | a_sf_id << 29;
  } else {
    const uint32_t dfmt = c.acc == Acc::F16 ? 0 : c.acc == Acc::F32 ? 1 : 2;
    idesc = uint32_t(c.saturate) << 3 | dfmt << 4 | fmt_code(c.kind, c.a) << 7 | fmt_code(c.kind, c.b) << 10 |
            uint32_t(neg_a) << 13 | uint32_t(neg_b) << 14 | uint32_t(s.N >> 3) << 17 | uint32_t(s.M >> 4) << 24;
  }

  uint64_t ga, gb, gdescs = 0;
  if (layouts) {
    const OperandLayout la{layouts->first, uint32_t(s.M), uint32_t(bits_of(c.a) / 8)},
        lb{layouts->second, uint32_t(s.N), uint32_t(bits_of(c.b) / 8)};
    ga = h.upload(la.image(A, K, rng), "a_smem");
    gb = h.upload(lb.image(B, K, rng), "b_smem");
    std::vector<uint64_t> descs;
    for (const OperandLayout* l : {&la, &lb})
      for (int st = 0; st < 4; ++st) descs.push_back(l->desc(uint32_t(st * ks)));
    gdescs = h.upload(descs, "descs");
    idesc |= uint32_t(layouts->first.mn_major) << 15 | uint32_t(layouts->second.mn_major) << 16;  // transpose A / B
  } else {
    ga = h.upload(a_rows, "a_rows");
    gb = h.upload(b_rows, "b_rows");
  }
  const uint64_t gat = a_tmem ? h.upload(a_img, "a_tmem") : 0;
  const uint64_t gsfa = scaled(c.kind) ? h.upload(sfa_img, "sfa") : 0, gsfb = scaled(c.kind) ? h.upload(sfb_img, "sfb") : 0;
  const uint64_t gd0 = with_d_init ? h.upload(d_img, "d_init") : 0;
  const uint64_t gd = h.alloc_n<uint32_t>(size_t(cg) * 128 * dc, "d_out");
  const std::string k = h.kernel_named(std::string("tc5k_") + kernel_kind(c) + "_cg" + std::to_string(cg));
  LaunchConfig cfg;
  cfg.grid = {uint32_t(cg), 1, 1};
  cfg.block = {128, 1, 1};
  if (cg == 2) {
    cfg.cluster = {2, 1, 1};
    cfg.cluster_given = true;
  }
  cfg.schedule_seed = seed;
  std::ostringstream out;
  RunResult r = ptxsim::launch(h.program(), k, cfg,
                               h.params(k, ga, gb, gat, gsfa, gsfb, gd0, gdescs, gd, idesc, uint32_t(mr), uint32_t(nr),
                                        uint32_t(dc), uint32_t(sf_path)),
                               h.memory(), &out);
  KTEST_EXPECT_COMPLETED(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  const std::vector<uint32_t> img = h.download<uint32_t>(gd, size_t(cg) * 128 * dc);
  std::vector<uint32_t> got(size_t(s.M) * s.N);
  std::vector<bool> is_d(img.size());
  for (int v = 0; v < cg; ++v)
    for (int m = 0; m < mr; ++m)
      for (int n = 0; n < s.N; ++n) {
        const auto [lane, col] = d_cell(s, m, n);
        got[size_t(v * mr + m) * s.N + n] = img[(size_t(v) * 128 + lane) * dc + col];
        is_d[(size_t(v) * 128 + lane) * dc + col] = true;
      }
  if (with_d_init) {  // cells of the D columns outside D's layout (M = 64: lanes 16-31 of each quarter) keep their words
    std::vector<uint32_t> got_rest, want_rest;
    for (size_t i = 0; i < img.size(); ++i)
      if (!is_d[i]) got_rest.push_back(img[i]), want_rest.push_back(d_img[i]);
    EXPECT_TRUE(compare_exact("TMEM cells outside D", got_rest, want_rest));
  }
  if (c.acc == Acc::F32) {
    std::vector<float> gf(got.size()), wf(want.size());
    for (size_t i = 0; i < got.size(); ++i) gf[i] = std::bit_cast<float>(got[i]), wf[i] = std::bit_cast<float>(want[i]);
    EXPECT_TRUE(compare_float_bits("D (row-major M x N)", gf, wf));
  } else if (c.acc == Acc::F16) {  // the low half of each column holds the f16 element
    std::vector<uint16_t> g16(got.size()), w16(want.size());
    for (size_t i = 0; i < got.size(); ++i) g16[i] = uint16_t(got[i]), w16[i] = uint16_t(want[i]);
    EXPECT_TRUE(compare_exact("D (f16 bits, row-major M x N)", g16, w16));
  } else {
    std::vector<int32_t> gi(got.begin(), got.end()), wi(want.begin(), want.end());
    EXPECT_TRUE(compare_exact("D (s32, row-major M x N)", gi, wi));
  }
}

// Runs `cases` on every shape of their kind, A from shared memory and from TMEM, cycling through
// the three ways of placing scale factors and D starting from zero / a given value; with A in TMEM
// and the M = 128 pair, every other run makes the second copy of A differ.
void run_cases(Harness& h, const std::vector<Case>& cases, uint64_t seed) {
  int run = 0, pair_a_tmem = 0;
  for (const Case& c : cases) {
    const auto& shapes = scaled(c.kind) ? std::vector<Shape>(std::begin(kScaledShapes), std::end(kScaledShapes))
                                        : std::vector<Shape>(std::begin(kDenseShapes), std::end(kDenseShapes));
    for (const Shape& s : shapes)
      for (bool a_tmem : {false, true}) {
        // The .block32 / .block16 spellings name the same operations: one run per CTA group.
        if (c.block_spelling && (a_tmem || (s.cg == 2 && s.M == 128))) continue;
        ++run;
        const bool layout_b = s.cg == 2 && s.M == 128;
        const bool second_copy_differs = a_tmem && layout_b && pair_a_tmem++ % 2 == 0;
        // .32x128b.warpx4 copies one image to every partition: not for B's factors of the M = 128 pair.
        SfPath sf = SfPath(run % 3);
        if (sf == SfPath::Cp32x128bWarpx4 && layout_b) sf = SfPath::Cp128x128b;
        run_case(h, c, s, a_tmem, sf, c.acc == Acc::S32 || run % 2 == 0, seed + uint64_t(run), nullptr,
                 second_copy_differs);
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

class Tcgen05Kinds : public KernelTest {
 protected:
  bool sm100() const { return GetParam() == "sm_100a"; }
};

// The value sets keep |every term and partial sum| within 24 significant bits of one grid (11 for
// an f16 D), which run_case asserts.
TEST_P(Tcgen05Kinds, F16) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  run_cases(h,
            {{"f16 x f16 -> f32", Kind::F16, 0, Fmt::F16, Fmt::F16, Acc::F32, 4, 0.25, 4, 0.25},
             {"bf16 x bf16 -> f32", Kind::F16, 0, Fmt::BF16, Fmt::BF16, Acc::F32, 8, 0.25, 8, 0.25},
             {"f16 x f16 -> f16", Kind::F16, 0, Fmt::F16, Fmt::F16, Acc::F16, 2, 0.5, 2, 0.5}},
            seed);
}

TEST_P(Tcgen05Kinds, Tf32) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  run_cases(h, {{"tf32 x tf32 -> f32", Kind::TF32, 0, Fmt::TF32, Fmt::TF32, Acc::F32, 16, 0.125, 16, 0.125}}, seed);
}

TEST_P(Tcgen05Kinds, F8F6F4) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  run_cases(h,
            {{"e4m3 x e4m3 -> f32", Kind::F8F6F4, 0, Fmt::E4M3, Fmt::E4M3, Acc::F32, 16, 1.0 / 16, 16, 1.0 / 16},
             {"e5m2 x e5m2 -> f16", Kind::F8F6F4, 0, Fmt::E5M2, Fmt::E5M2, Acc::F16, 1, 0.5, 1, 0.5},
             {"e4m3 x e5m2 -> f32", Kind::F8F6F4, 0, Fmt::E4M3, Fmt::E5M2, Acc::F32, 8, 0.125, 8, 0.125},
             {"e2m3 x e3m2 -> f32", Kind::F8F6F4, 0, Fmt::E2M3, Fmt::E3M2, Acc::F32, 8, 0.125, 16, 1.0 / 16},
             {"e2m1 x e2m1 -> f32", Kind::F8F6F4, 0, Fmt::E2M1, Fmt::E2M1, Acc::F32, 6, 0.5, 6, 0.5},
             {"e3m2 x e2m1 -> f16", Kind::F8F6F4, 0, Fmt::E3M2, Fmt::E2M1, Acc::F16, 1, 0.25, 1.5, 0.5},
             {"e2m1 x e4m3 -> f32", Kind::F8F6F4, 0, Fmt::E2M1, Fmt::E4M3, Acc::F32, 6, 0.5, 8, 0.125}},
            seed);
}

TEST_P(Tcgen05Kinds, I8) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  // D starts near the s32 limits for a third of the elements, so the sums wrap or saturate.
  run_cases(h,
            {{"s8 x s8 -> s32", Kind::I8, 0, Fmt::S8, Fmt::S8, Acc::S32, 0, 0, 0, 0},
             {"u8 x u8 -> s32", Kind::I8, 0, Fmt::U8, Fmt::U8, Acc::S32, 0, 0, 0, 0},
             {"s8 x u8 -> s32 saturate", Kind::I8, 0, Fmt::S8, Fmt::U8, Acc::S32, 0, 0, 0, 0, true},
             {"u8 x s8 -> s32 saturate", Kind::I8, 0, Fmt::U8, Fmt::S8, Acc::S32, 0, 0, 0, 0, true}},
            seed);
}

TEST_P(Tcgen05Kinds, Mxf8f6f4) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  run_cases(h,
            {{"mxf8f6f4 e4m3 x e4m3, UE8M0", Kind::MXF8F6F4, 1, Fmt::E4M3, Fmt::E4M3, Acc::F32, 4, 0.125, 4, 0.125},
             {"mxf8f6f4 e2m1 x e3m2, UE8M0", Kind::MXF8F6F4, 1, Fmt::E2M1, Fmt::E3M2, Acc::F32, 6, 0.5, 4, 0.125},
             {"mxf8f6f4 e5m2 x e2m3, UE8M0", Kind::MXF8F6F4, 1, Fmt::E5M2, Fmt::E2M3, Acc::F32, 4, 0.25, 8, 0.125},
             {"mxf8f6f4.block32 e4m3 x e2m1, UE8M0", Kind::MXF8F6F4, 1, Fmt::E4M3, Fmt::E2M1, Acc::F32, 4, 0.125, 6, 0.5,
              false, Fmt::UE8M0, 0.5, 2, false, true}},
            seed);
}

TEST_P(Tcgen05Kinds, Mxf4) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  Case c{"mxf4 e2m1, UE8M0 2X", Kind::MXF4, 2, Fmt::E2M1, Fmt::E2M1, Acc::F32, 6, 0.5, 6, 0.5};
  c.sf_lo = 0.25, c.sf_hi = 4;
  Case b32 = c;
  b32.name = "mxf4.block32 e2m1, UE8M0", b32.block_spelling = true;
  run_cases(h, {c, b32}, seed);
}

TEST_P(Tcgen05Kinds, Mxf4nvf4) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  Case ue8_2x{"mxf4nvf4 e2m1, UE8M0 2X", Kind::MXF4NVF4, 2, Fmt::E2M1, Fmt::E2M1, Acc::F32, 6, 0.5, 6, 0.5};
  ue8_2x.sf_lo = 0.25, ue8_2x.sf_hi = 4;
  Case ue8_4x = ue8_2x;
  ue8_4x.name = "mxf4nvf4 e2m1, UE8M0 4X", ue8_4x.sv = 4;
  Case ue4_4x = ue8_4x;
  ue4_4x.name = "mxf4nvf4 e2m1, UE4M3 4X", ue4_4x.sf = Fmt::UE4M3, ue4_4x.sf_lo = 0.5, ue4_4x.sf_hi = 2;
  Case ue4_b16 = ue4_4x;
  ue4_b16.name = "mxf4nvf4.block16 e2m1, UE4M3", ue4_b16.block_spelling = true;
  run_cases(h, {ue8_2x, ue8_4x, ue4_4x, ue4_b16}, seed);
}

// Every canonical shared-memory layout for A and B (K-major and MN-major, no swizzle, 32B, 64B,
// 128B), built by the host from the layout definitions and given to the MMA by descriptors, for
// kinds with 16- and 8-bit elements (and tf32 K-major: MN-major tf32 needs the 128B-with-32B-atom
// layout, which ptxsim does not simulate).
TEST_P(Tcgen05Kinds, SharedMemoryLayouts) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  const Case cases[] = {
      {"bf16 x bf16 -> f32", Kind::F16, 0, Fmt::BF16, Fmt::BF16, Acc::F32, 8, 0.25, 8, 0.25},
      {"e4m3 x e4m3 -> f32", Kind::F8F6F4, 0, Fmt::E4M3, Fmt::E4M3, Acc::F32, 16, 1.0 / 16, 16, 1.0 / 16},
      {"s8 x u8 -> s32", Kind::I8, 0, Fmt::S8, Fmt::U8, Acc::S32, 0, 0, 0, 0},
      {"tf32 x tf32 -> f32", Kind::TF32, 0, Fmt::TF32, Fmt::TF32, Acc::F32, 16, 0.125, 16, 0.125}};
  const Shape shape{1, 128, 64};
  int run = 0;
  for (const Case& c : cases)
    for (bool mn : {false, true})
      for (uint32_t w : {0u, 32u, 64u, 128u}) {
        if (mn && c.kind == Kind::TF32) continue;
        // B (64 rows) of 8-bit elements spans 64 bytes of N: too narrow for the MN-major 128B atom.
        const bool b_mn = mn && !(w == 128 && bits_of(c.b) == 8);
        const std::pair<SmemLayout, SmemLayout> l{{mn, w}, {b_mn, w}};
        ++run;
        run_case(h, c, shape, false, SfPath::St, run % 2 == 0, seed + uint64_t(run), &l);
        if (HasFatalFailure()) return;
      }
}

// Random 16-bit patterns (every exponent, subnormals, Inf, NaN), D chained over the four MMAs,
// against the exact (Boost.Multiprecision) evaluation of the sm100 tcgen05 rows of the numerics model.
TEST_P(Tcgen05Kinds, F16FullRangeAgainstTheExactReference) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tcgen05_kinds");
  if (!sm100()) return;
  Case f16{"f16 x f16 -> f32, full range", Kind::F16, 0, Fmt::F16, Fmt::F16, Acc::F32, 0, 0, 0, 0};
  f16.full_range = true;
  Case f16h = f16;
  f16h.name = "f16 x f16 -> f16, full range", f16h.acc = Acc::F16;
  Case bf16 = f16;
  bf16.name = "bf16 x bf16 -> f32, full range", bf16.a = bf16.b = Fmt::BF16;
  run_case(h, f16, {1, 128, 64}, false, SfPath::St, true, seed);
  run_case(h, f16h, {1, 64, 48}, true, SfPath::St, true, seed + 1);
  run_case(h, bf16, {2, 256, 128}, true, SfPath::St, false, seed + 2);
}

}  // namespace

KTEST_INSTANTIATE(Tcgen05Kinds);

}  // namespace ptxsim::ktest
