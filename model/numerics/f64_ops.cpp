#include "model/numerics/f64_ops.h"

#include <cmath>

#include "model/numerics/bits.h"
#include "model/numerics/softfloat.h"

namespace ptxsim::model::num {

namespace {

uint64_t soft(SfResult r) { return r.is_nan ? kF64DefaultNaN : r.bits; }
// The host produces a NaN only for invalid operations once NaN operands are filtered out.
uint64_t host(double d) { return std::isnan(d) ? kF64DefaultNaN : f64_bits(d); }

}  // namespace

uint64_t add_f64(uint64_t a, uint64_t b, Round rm) {
  if (f64_is_nan(b)) return b;
  if (f64_is_nan(a)) return a;
  if (rm == Round::RN) {
    double s = f64_from(a) + f64_from(b);
    return host(s);
  }
  return soft(sf_add(kF64, a, b, rm));
}

uint64_t sub_f64(uint64_t a, uint64_t b, Round rm) {
  if (f64_is_nan(b)) return b;
  return add_f64(a, b ^ kF64Sign, rm);
}

uint64_t mul_f64(uint64_t a, uint64_t b, Round rm) {
  if (f64_is_nan(b)) return b;
  if (f64_is_nan(a)) return a;
  if (rm == Round::RN) {
    double p = f64_from(a) * f64_from(b);
    return host(p);
  }
  return soft(sf_mul(kF64, a, b, rm));
}

uint64_t fma_f64(uint64_t a, uint64_t b, uint64_t c, Round rm) {
  if (f64_is_nan(b)) return b;
  if (f64_is_nan(c)) return c;
  if (f64_is_nan(a)) return a;
  if (rm == Round::RN) return host(std::fma(f64_from(a), f64_from(b), f64_from(c)));
  return soft(sf_fma(kF64, a, b, c, rm));
}

uint64_t div_f64(uint64_t a, uint64_t b, Round rm) {
  if (f64_is_nan(b)) return b;
  if (f64_is_nan(a)) return a;
  if (rm == Round::RN) {
    double q = f64_from(a) / f64_from(b);
    return host(q);
  }
  return soft(sf_div(kF64, a, b, rm));
}

uint64_t rcp_f64(uint64_t a, Round rm) { return div_f64(kF64One, a, rm); }

uint64_t sqrt_f64(uint64_t a, Round rm) {
  if (f64_is_nan(a)) return a;
  if (rm == Round::RN) return host(std::sqrt(f64_from(a)));
  return soft(sf_sqrt(kF64, a, rm));
}

uint64_t abs_f64(uint64_t a) { return f64_is_nan(a) ? a : (a & ~kF64Sign); }
uint64_t neg_f64(uint64_t a) { return f64_is_nan(a) ? a : (a ^ kF64Sign); }

}  // namespace ptxsim::model::num
