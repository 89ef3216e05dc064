#include "model/numerics/f32_ops.h"

#include <cmath>

#include "model/numerics/bits.h"
#include "model/numerics/fp_formats.h"
#include "model/numerics/softfloat.h"

namespace ptxsim::model::num {

namespace {

uint32_t soft(SfResult r) { return r.is_nan ? kF32CanonicalNaN : static_cast<uint32_t>(r.bits); }

// Output stage shared by every arithmetic op: canonical NaN, ftz, sat.
uint32_t finish(uint32_t r, bool ftz, bool sat) {
  r = f32_canon(r);
  if (ftz) r = f32_flush(r);
  if (sat) r = sat_f32(r);
  return r;
}

uint32_t in(uint32_t a, bool ftz) { return ftz ? f32_flush(a) : a; }

}  // namespace

uint32_t sat_f32(uint32_t a) {
  if (f32_is_nan(a) || f32_sign(a)) return 0;
  return a > kF32One ? kF32One : a;
}

uint32_t add_f32(uint32_t a, uint32_t b, Round rm, bool ftz, bool sat) {
  a = in(a, ftz);
  b = in(b, ftz);
  uint32_t r;
  if (rm == Round::RN) {
    float s = f32_from(a) + f32_from(b);
    r = f32_bits(s);
  } else {
    r = soft(sf_add(kF32, a, b, rm));
  }
  return finish(r, ftz, sat);
}

uint32_t sub_f32(uint32_t a, uint32_t b, Round rm, bool ftz, bool sat) {
  // a - b == a + (-b) exactly, including the signs of zero results; NaNs are canonicalized.
  return add_f32(a, b ^ kF32Sign, rm, ftz, sat);
}

uint32_t mul_f32(uint32_t a, uint32_t b, Round rm, bool ftz, bool sat) {
  a = in(a, ftz);
  b = in(b, ftz);
  uint32_t r;
  if (rm == Round::RN) {
    float p = f32_from(a) * f32_from(b);
    r = f32_bits(p);
  } else {
    r = soft(sf_mul(kF32, a, b, rm));
  }
  return finish(r, ftz, sat);
}

uint32_t fma_f32(uint32_t a, uint32_t b, uint32_t c, Round rm, bool ftz, bool sat) {
  a = in(a, ftz);
  b = in(b, ftz);
  c = in(c, ftz);
  uint32_t r;
  if (rm == Round::RN) {
    r = f32_bits(std::fma(f32_from(a), f32_from(b), f32_from(c)));  // glibc fmaf: single rounding
  } else {
    r = soft(sf_fma(kF32, a, b, c, rm));
  }
  return finish(r, ftz, sat);
}

uint32_t div_f32(uint32_t a, uint32_t b, Round rm, bool ftz) {
  a = in(a, ftz);
  b = in(b, ftz);
  uint32_t r;
  if (rm == Round::RN) {
    float q = f32_from(a) / f32_from(b);
    r = f32_bits(q);
  } else {
    r = soft(sf_div(kF32, a, b, rm));
  }
  return finish(r, ftz, false);
}

uint32_t rcp_f32(uint32_t a, Round rm, bool ftz) { return div_f32(kF32One, a, rm, ftz); }

uint32_t sqrt_f32(uint32_t a, Round rm, bool ftz) {
  a = in(a, ftz);
  uint32_t r;
  if (rm == Round::RN) {
    r = f32_bits(std::sqrt(f32_from(a)));
  } else {
    r = soft(sf_sqrt(kF32, a, rm));
  }
  return finish(r, ftz, false);
}

uint32_t abs_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  return f32_is_nan(a) ? kF32CanonicalNaN : (a & ~kF32Sign);
}

uint32_t neg_f32(uint32_t a, bool ftz) {
  a = in(a, ftz);
  return f32_is_nan(a) ? kF32CanonicalNaN : (a ^ kF32Sign);
}

uint64_t add_f32x2(uint64_t a, uint64_t b, Round rm, bool ftz) {
  return pack32(add_f32(hi32(a), hi32(b), rm, ftz), add_f32(lo32(a), lo32(b), rm, ftz));
}
uint64_t sub_f32x2(uint64_t a, uint64_t b, Round rm, bool ftz) {
  return pack32(sub_f32(hi32(a), hi32(b), rm, ftz), sub_f32(lo32(a), lo32(b), rm, ftz));
}
uint64_t mul_f32x2(uint64_t a, uint64_t b, Round rm, bool ftz) {
  return pack32(mul_f32(hi32(a), hi32(b), rm, ftz), mul_f32(lo32(a), lo32(b), rm, ftz));
}
uint64_t fma_f32x2(uint64_t a, uint64_t b, uint64_t c, Round rm, bool ftz) {
  return pack32(fma_f32(hi32(a), hi32(b), hi32(c), rm, ftz),
                fma_f32(lo32(a), lo32(b), lo32(c), rm, ftz));
}

uint32_t add_f32_f16(uint16_t a, uint32_t c, Round rm, bool sat) {
  return add_f32(f16_to_f32_bits(a), c, rm, false, sat);
}
uint32_t add_f32_bf16(uint16_t a, uint32_t c, Round rm, bool sat) {
  return add_f32(bf16_to_f32_bits(a), c, rm, false, sat);
}
uint32_t sub_f32_f16(uint16_t a, uint32_t c, Round rm, bool sat) {
  return sub_f32(f16_to_f32_bits(a), c, rm, false, sat);
}
uint32_t sub_f32_bf16(uint16_t a, uint32_t c, Round rm, bool sat) {
  return sub_f32(bf16_to_f32_bits(a), c, rm, false, sat);
}
uint32_t fma_f32_f16(uint16_t a, uint16_t b, uint32_t c, Round rm, bool sat) {
  return fma_f32(f16_to_f32_bits(a), f16_to_f32_bits(b), c, rm, false, sat);
}
uint32_t fma_f32_bf16(uint16_t a, uint16_t b, uint32_t c, Round rm, bool sat) {
  return fma_f32(bf16_to_f32_bits(a), bf16_to_f32_bits(b), c, rm, false, sat);
}

}  // namespace ptxsim::model::num
