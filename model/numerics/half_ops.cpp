#include "model/numerics/half_ops.h"

#include <cmath>

#include "model/numerics/bits.h"
#include "model/numerics/fp_formats.h"
#include "model/numerics/softfloat.h"

namespace ptxsim::model::num {

namespace {

// Format-generic 16-bit helpers (f16 and bf16 share sign position and canonical NaN 0x7FFF).
constexpr uint16_t kSign16 = 0x8000u;
constexpr uint16_t kNaN16 = 0x7FFFu;

bool is_sub(const FloatFormat& f, uint16_t x) {
  return ((x >> f.man_bits) & f.exp_field_max()) == 0 && (x & f.man_mask()) != 0;
}
bool is_nan(const FloatFormat& f, uint16_t x) {
  return (x & 0x7FFFu) > f.inf();
}
uint16_t flush(const FloatFormat& f, uint16_t x) {
  return is_sub(f, x) ? static_cast<uint16_t>(x & kSign16) : x;
}
uint16_t one(const FloatFormat& f) { return static_cast<uint16_t>(uint64_t(f.bias) << f.man_bits); }

struct Mods {
  bool ftz = false, sat = false, relu = false;
};

uint16_t finish(const FloatFormat& f, uint16_t x, Mods m) {
  if (m.ftz) x = flush(f, x);
  if (m.sat) {
    if (is_nan(f, x) || (x & kSign16)) x = 0;
    else if (x > one(f)) x = one(f);
  }
  if (m.relu && !is_nan(f, x) && (x & kSign16)) x = 0;
  return x;
}
uint16_t finish(const FloatFormat& f, SfResult r, Mods m) {
  return finish(f, r.is_nan ? kNaN16 : static_cast<uint16_t>(r.bits), m);
}

// f16 add and mul rounding to nearest even, through the host's f32 arithmetic: the f16 operands
// are exact f32 values; a product of two (22 significant bits at most) is exact in f32; a sum is
// rounded twice, to f32 and then to f16, which gives the correctly rounded f16 sum because f32
// carries at least 2 * 11 + 2 significant bits (double rounding is innocuous for +, -, * when
// p' >= 2p + 2: S. A. Figueroa, "When is double rounding innocuous?", 1995), and f32's exponent
// range covers every f16 operand, sum and product without overflow or underflow. A NaN result
// (a NaN operand, Inf - Inf, 0 * Inf) is the canonical f16 NaN, as from the soft-float path.
bool is_f16(const FloatFormat& f) { return f.exp_bits == 5 && f.man_bits == 10; }
uint16_t f16_rn(float r) { return std::isnan(r) ? kNaN16 : f32_to_f16_rn(f32_bits(r)); }

uint16_t h_add(const FloatFormat& f, uint16_t a, uint16_t b, Round rm, Mods m) {
  if (m.ftz) {
    a = flush(f, a);
    b = flush(f, b);
  }
  if (rm == Round::RN && is_f16(f)) return finish(f, f16_rn(f16_to_f32(a) + f16_to_f32(b)), m);
  return finish(f, sf_add(f, a, b, rm), m);
}
uint16_t h_mul(const FloatFormat& f, uint16_t a, uint16_t b, Round rm, Mods m) {
  if (m.ftz) {
    a = flush(f, a);
    b = flush(f, b);
  }
  if (rm == Round::RN && is_f16(f)) return finish(f, f16_rn(f16_to_f32(a) * f16_to_f32(b)), m);
  return finish(f, sf_mul(f, a, b, rm), m);
}
uint16_t h_fma(const FloatFormat& f, uint16_t a, uint16_t b, uint16_t c, Round rm, Mods m) {
  if (m.ftz) {
    a = flush(f, a);
    b = flush(f, b);
    c = flush(f, c);
  }
  return finish(f, sf_fma(f, a, b, c, rm), m);
}
uint16_t h_neg(const FloatFormat& f, uint16_t a, bool ftz) {
  if (ftz) a = flush(f, a);
  return is_nan(f, a) ? kNaN16 : static_cast<uint16_t>(a ^ kSign16);
}
uint16_t h_abs(const FloatFormat& f, uint16_t a, bool ftz) {
  if (ftz) a = flush(f, a);
  return is_nan(f, a) ? kNaN16 : static_cast<uint16_t>(a & ~kSign16);
}

template <class Fn>
uint32_t lanes2(uint32_t a, uint32_t b, Fn fn) {
  return pack16(fn(hi16(a), hi16(b)), fn(lo16(a), lo16(b)));
}
template <class Fn>
uint32_t lanes3(uint32_t a, uint32_t b, uint32_t c, Fn fn) {
  return pack16(fn(hi16(a), hi16(b), hi16(c)), fn(lo16(a), lo16(b), lo16(c)));
}

}  // namespace

// ---- f16 ---------------------------------------------------------------------------------------
// (The plain round-to-nearest forms, the common ones, go straight to the f32 arithmetic h_add and
// h_mul would pick, without their modifier handling.)
uint16_t add_f16(uint16_t a, uint16_t b, Round rm, bool ftz, bool sat) {
  if (rm == Round::RN && !ftz && !sat) return f16_rn(f16_to_f32(a) + f16_to_f32(b));
  return h_add(kF16, a, b, rm, {ftz, sat, false});
}
uint16_t sub_f16(uint16_t a, uint16_t b, Round rm, bool ftz, bool sat) {
  return add_f16(a, static_cast<uint16_t>(b ^ kSign16), rm, ftz, sat);
}
uint16_t mul_f16(uint16_t a, uint16_t b, Round rm, bool ftz, bool sat) {
  if (rm == Round::RN && !ftz && !sat) return f16_rn(f16_to_f32(a) * f16_to_f32(b));
  return h_mul(kF16, a, b, rm, {ftz, sat, false});
}
uint16_t fma_f16(uint16_t a, uint16_t b, uint16_t c, Round rm, bool ftz, bool sat, bool relu) {
  return h_fma(kF16, a, b, c, rm, {ftz, sat, relu});
}
uint16_t neg_f16(uint16_t a, bool ftz) { return h_neg(kF16, a, ftz); }
uint16_t abs_f16(uint16_t a, bool ftz) { return h_abs(kF16, a, ftz); }

uint32_t add_f16x2(uint32_t a, uint32_t b, Round rm, bool ftz, bool sat) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return add_f16(x, y, rm, ftz, sat); });
}
uint32_t sub_f16x2(uint32_t a, uint32_t b, Round rm, bool ftz, bool sat) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return sub_f16(x, y, rm, ftz, sat); });
}
uint32_t mul_f16x2(uint32_t a, uint32_t b, Round rm, bool ftz, bool sat) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return mul_f16(x, y, rm, ftz, sat); });
}
uint32_t fma_f16x2(uint32_t a, uint32_t b, uint32_t c, Round rm, bool ftz, bool sat, bool relu) {
  return lanes3(a, b, c, [&](uint16_t x, uint16_t y, uint16_t z) {
    return fma_f16(x, y, z, rm, ftz, sat, relu);
  });
}
uint32_t neg_f16x2(uint32_t a, bool ftz) {
  return pack16(neg_f16(hi16(a), ftz), neg_f16(lo16(a), ftz));
}
uint32_t abs_f16x2(uint32_t a, bool ftz) {
  return pack16(abs_f16(hi16(a), ftz), abs_f16(lo16(a), ftz));
}

// ---- bf16 --------------------------------------------------------------------------------------
uint16_t add_bf16(uint16_t a, uint16_t b, Round rm) { return h_add(kBF16, a, b, rm, {}); }
uint16_t sub_bf16(uint16_t a, uint16_t b, Round rm) {
  return h_add(kBF16, a, static_cast<uint16_t>(b ^ kSign16), rm, {});
}
uint16_t mul_bf16(uint16_t a, uint16_t b, Round rm) { return h_mul(kBF16, a, b, rm, {}); }
uint16_t fma_bf16(uint16_t a, uint16_t b, uint16_t c, Round rm, bool relu) {
  return h_fma(kBF16, a, b, c, rm, {false, false, relu});
}
uint16_t neg_bf16(uint16_t a) { return h_neg(kBF16, a, false); }
uint16_t abs_bf16(uint16_t a) { return h_abs(kBF16, a, false); }

uint32_t add_bf16x2(uint32_t a, uint32_t b, Round rm) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return add_bf16(x, y, rm); });
}
uint32_t sub_bf16x2(uint32_t a, uint32_t b, Round rm) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return sub_bf16(x, y, rm); });
}
uint32_t mul_bf16x2(uint32_t a, uint32_t b, Round rm) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return mul_bf16(x, y, rm); });
}
uint32_t fma_bf16x2(uint32_t a, uint32_t b, uint32_t c, Round rm, bool relu) {
  return lanes3(a, b, c,
                [&](uint16_t x, uint16_t y, uint16_t z) { return fma_bf16(x, y, z, rm, relu); });
}
uint32_t neg_bf16x2(uint32_t a) { return pack16(neg_bf16(hi16(a)), neg_bf16(lo16(a))); }
uint32_t abs_bf16x2(uint32_t a) { return pack16(abs_bf16(hi16(a)), abs_bf16(lo16(a))); }

// ---- fma.oob -----------------------------------------------------------------------------------
// Measured on an H200: +0 when a multiplicand is the OOB-NaN of either sign (0x7FF7 / 0xFFF7, the
// TMA unit's fill); an OOB-NaN addend is an ordinary NaN (the canonical NaN results), as is every
// other NaN.
namespace {
bool is_oob(uint16_t x, uint16_t oob_nan) { return uint16_t(x & 0x7FFF) == uint16_t(oob_nan & 0x7FFF); }
}  // namespace
uint16_t fma_oob_f16(uint16_t a, uint16_t b, uint16_t c, uint16_t oob_nan, bool relu) {
  if (is_oob(a, oob_nan) || is_oob(b, oob_nan)) return 0;
  return fma_f16(a, b, c, Round::RN, false, false, relu);
}
uint16_t fma_oob_bf16(uint16_t a, uint16_t b, uint16_t c, uint16_t oob_nan, bool relu) {
  if (is_oob(a, oob_nan) || is_oob(b, oob_nan)) return 0;
  return fma_bf16(a, b, c, Round::RN, relu);
}
uint32_t fma_oob_f16x2(uint32_t a, uint32_t b, uint32_t c, uint16_t oob_nan, bool relu) {
  return lanes3(a, b, c, [&](uint16_t x, uint16_t y, uint16_t z) {
    return fma_oob_f16(x, y, z, oob_nan, relu);
  });
}
uint32_t fma_oob_bf16x2(uint32_t a, uint32_t b, uint32_t c, uint16_t oob_nan, bool relu) {
  return lanes3(a, b, c, [&](uint16_t x, uint16_t y, uint16_t z) {
    return fma_oob_bf16(x, y, z, oob_nan, relu);
  });
}

}  // namespace ptxsim::model::num
