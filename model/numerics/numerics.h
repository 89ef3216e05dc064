// Umbrella header for the PTX numerics model (namespace ptxsim::model::num).
//
//   bits.h            bit casts, NaN constants, classification, ftz flush, testp, copysign
//   rounding.h        Round / IntRound, FloatFormat descriptors, round_pack() core
//   softfloat.h       correctly rounded add/mul/fma/div/sqrt/convert on any FloatFormat
//   fp_formats.h      f16/bf16/tf32/e4m3/e5m2/e3m2/e2m3/e2m1/ue8m0/ue4m3 codecs, cvt f2f
//   cvt_packed.h      packed cvt forms (f16x2/bf16x2/e4m3x2/e5m2x2/e2m3x2/e3m2x2/e2m1x2/ue8m0x2)
//   int_float_conv.h  cvt float<->int, round-to-integral, .sat clamps
//   f32_ops.h         add/sub/mul/fma/div/rcp/sqrt/abs/neg .f32, f32x2, mixed f32.{f16,bf16}
//   f64_ops.h         add/sub/mul/fma/div/rcp/sqrt/abs/neg .f64
//   half_ops.h        f16/bf16 scalar and x2 add/sub/mul/fma/neg/abs, fma.oob
//   minmax.h          min/max (.NaN, .xorsign.abs, 3-input), IEEE compare
//   approx.h          ex2/lg2/sin/cos/tanh/rcp/sqrt/rsqrt/div .approx, div.full
#pragma once
#include "model/numerics/approx.h"
#include "model/numerics/bits.h"
#include "model/numerics/cvt_packed.h"
#include "model/numerics/f32_ops.h"
#include "model/numerics/f64_ops.h"
#include "model/numerics/fp_formats.h"
#include "model/numerics/half_ops.h"
#include "model/numerics/int_float_conv.h"
#include "model/numerics/minmax.h"
#include "model/numerics/rounding.h"
#include "model/numerics/softfloat.h"
