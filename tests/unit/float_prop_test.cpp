// Property tests (RapidCheck) of the floating-point and cvt instructions through the real
// pipeline. Each case draws a batch of 256 operand bit patterns (and the modifiers), runs one
// launch, and checks every lane against the references of float_test_util.h or against algebraic
// invariants. RapidCheck prints its seed; RC_PARAMS="seed=N" reproduces a failure.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "tests/unit/float_test_util.h"

using namespace ftest;

namespace {

constexpr size_t kLanes = 256;

rc::Gen<uint32_t> f32_gen() {
  auto uniform = rc::gen::map(rc::gen::arbitrary<uint32_t>(), [](uint32_t v) { return v; });
  auto special = rc::gen::element<uint32_t>(0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFFFFFFFu,
                                            0x7F800001u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x00800000u, 0x80800000u,
                                            0x00000001u, 0x807FFFFFu, 0x3F800000u, 0xBF800000u, 0x3F7FFFFFu);
  auto near_one = rc::gen::map(rc::gen::tuple(rc::gen::inRange<uint32_t>(110, 145), rc::gen::arbitrary<uint32_t>()),
                               [](std::tuple<uint32_t, uint32_t> t) {
                                 return (std::get<1>(t) & 0x807FFFFFu) | (std::get<0>(t) << 23);
                               });
  auto subnormal = rc::gen::map(rc::gen::arbitrary<uint32_t>(), [](uint32_t v) { return v & 0x807FFFFFu; });
  return rc::gen::weightedOneOf<uint32_t>({{3, uniform}, {1, special}, {4, near_one}, {1, subnormal}});
}

rc::Gen<uint16_t> half_gen() {
  return rc::gen::weightedOneOf<uint16_t>(
      {{3, rc::gen::arbitrary<uint16_t>()},
       {1, rc::gen::element<uint16_t>(0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x8001, 0x3C00, 0x3F80)},
       {3, rc::gen::map(rc::gen::tuple(rc::gen::inRange<uint16_t>(0, 0x40), rc::gen::arbitrary<uint16_t>()),
                        [](std::tuple<uint16_t, uint16_t> t) {
                          // exponents near 1.0 for both f16 (bias 15) and bf16 (bias 127) layouts
                          uint16_t r = std::get<1>(t);
                          return uint16_t((r & 0x83FF) | ((0x0E + (std::get<0>(t) & 3)) << 10));
                        })}});
}

template <class G>
auto batch(G g) {
  return *rc::gen::container<std::vector<typename decltype(g)::ValueType>>(kLanes, g);
}

std::vector<uint64_t> widen(const auto& v) { return std::vector<uint64_t>(v.begin(), v.end()); }

const Mode kModes[] = {Mode::RN, Mode::RZ, Mode::RM, Mode::RP};

}  // namespace

// f32 add/sub/mul/fma with a random rounding modifier, .ftz and .sat.
RC_GTEST_PROP(FloatProp, F32ArithMatchesHostIeee, ()) {
  const std::string op = *rc::gen::element<std::string>("add", "sub", "mul", "fma");
  const int mi = *rc::gen::inRange(op == "fma" ? 0 : -1, 4);
  const bool ftz = *rc::gen::arbitrary<bool>(), sat = *rc::gen::arbitrary<bool>();
  const Mode m = mi < 0 ? Mode::RN : kModes[mi];
  const bool three = op == "fma";
  std::string ins = op + (mi < 0 ? "" : mode_name(m)) + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + ".f32";
  Kernel k{ins + " %d, %a, %b" + (three ? ", %c;" : ";"), kF32, {kF32, kF32, kF32}, "sm_90a", "8.7"};
  auto a = widen(batch(f32_gen())), b = widen(batch(f32_gen())), c = widen(batch(f32_gen()));
  auto got = run(k, {a, b, c});
  RC_ASSERT(got.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    uint32_t want = ref_f32(op, a[i], b[i], c[i], m, ftz, sat);
    RC_ASSERT(got[i] == want);
  }
}

// f64 fma in every mode against the host fma (NaN operands pass through: b, c, a).
RC_GTEST_PROP(FloatProp, F64FmaMatchesHost, ()) {
  const Mode m = *rc::gen::element(Mode::RN, Mode::RZ, Mode::RM, Mode::RP);
  auto gen64 = rc::gen::map(rc::gen::tuple(f32_gen(), rc::gen::arbitrary<uint32_t>()), [](std::tuple<uint32_t, uint32_t> t) {
    // An f32-shaped top word spreads exponents like the f32 generator; the low word is random.
    uint32_t hi = std::get<0>(t);
    uint64_t e = ((hi >> 23) & 0xFF);
    uint64_t e64 = e == 0 ? 0 : e == 0xFF ? 0x7FF : e + 1023 - 127;
    return (uint64_t(hi >> 31) << 63) | (e64 << 52) | (uint64_t(hi & 0x7FFFFF) << 29) | (std::get<1>(t) & 0x1FFFFFFF);
  });
  auto a = batch(gen64), b = batch(gen64), c = batch(gen64);
  Kernel k{std::string("fma") + mode_name(m) + ".f64 %d, %a, %b, %c;", kF64, {kF64, kF64, kF64}, "sm_90a", "8.7"};
  auto got = run(k, {a, b, c});
  RC_ASSERT(got.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    uint64_t want;
    if (is_nan64(b[i])) want = b[i];
    else if (is_nan64(c[i])) want = c[i];
    else if (is_nan64(a[i])) want = a[i];
    else {
      want = bits_of(host_fma(f64_of(a[i]), f64_of(b[i]), f64_of(c[i]), m));
      if (is_nan64(want)) want = 0xFFF8000000000000ull;
    }
    RC_ASSERT(got[i] == want);
  }
}

// f16/bf16 (x2) fma with the modifiers each type takes.
RC_GTEST_PROP(FloatProp, HalfFmaMatchesExactReference, ()) {
  const bool bf = *rc::gen::arbitrary<bool>();
  const Fmt& f = bf ? kBF16 : kHalf;
  const Mode m = bf ? *rc::gen::element(Mode::RN, Mode::RZ, Mode::RM, Mode::RP) : Mode::RN;
  const bool relu = *rc::gen::arbitrary<bool>();
  const bool ftz = !bf && *rc::gen::arbitrary<bool>();
  const bool sat = !bf && !relu && *rc::gen::arbitrary<bool>();
  std::string ins = std::string("fma") + mode_name(m) + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + (relu ? ".relu" : "") +
                    (bf ? ".bf16x2" : ".f16x2");
  Kernel k{ins + " %d, %a, %b, %c;", kB32, {kB32, kB32, kB32}, "sm_90a", "8.7"};
  auto pack = [&](const std::vector<uint16_t>& lo, const std::vector<uint16_t>& hi) {
    std::vector<uint64_t> v(kLanes);
    for (size_t i = 0; i < kLanes; ++i) v[i] = uint64_t(hi[i]) << 16 | lo[i];
    return v;
  };
  auto a = pack(batch(half_gen()), batch(half_gen())), b = pack(batch(half_gen()), batch(half_gen())),
       c = pack(batch(half_gen()), batch(half_gen()));
  auto got = run(k, {a, b, c});
  RC_ASSERT(got.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    auto one = [&](int sh) {
      return uint64_t(ref_half(f, "fma", uint16_t(a[i] >> sh), uint16_t(b[i] >> sh), uint16_t(c[i] >> sh), m, ftz, sat, relu)) << sh;
    };
    RC_ASSERT(got[i] == (one(16) | one(0)));
  }
}

// cvt f32 -> f16/bf16 with a random mode, .relu/.satfinite, and back: every value that is
// representable comes back unchanged (widening is exact).
RC_GTEST_PROP(FloatProp, CvtF32ToHalfRoundsOnceAndWidensExactly, ()) {
  const bool bf = *rc::gen::arbitrary<bool>();
  const Fmt& f = bf ? kBF16 : kHalf;
  const bool relu = *rc::gen::arbitrary<bool>(), sf = *rc::gen::arbitrary<bool>();
  const Mode m = (relu || sf) ? *rc::gen::element(Mode::RN, Mode::RZ) : *rc::gen::element(Mode::RN, Mode::RZ, Mode::RM, Mode::RP);
  const char* t = bf ? "bf16" : "f16";
  std::string ins = std::string("cvt") + mode_name(m) + (relu ? ".relu" : "") + (sf ? ".satfinite" : "") + "." + t + ".f32";
  // The second instruction widens the converted value back to f32.
  Kernel back{ins + " %b, %a;\n  cvt.f32." + t + " %d, %b;", kF32, {kF32, kB16}, "sm_90a", "8.7"};
  auto a = widen(batch(f32_gen()));
  std::vector<uint64_t> unused(kLanes, 0);
  auto wide = run(back, {a, unused});
  RC_ASSERT(wide.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    uint32_t x = uint32_t(a[i]);
    uint32_t h;
    if (is_nan32(x)) h = 0x7FFF;
    else if (std::isinf(f32_of(x)) && !sf) h = (x >> 31 ? 0x8000u : 0u) | f.inf();
    else h = round_to(f, f32_of(x), 0, m, sf);
    if (relu && (h & 0x8000) && (h & 0x7FFF) <= f.inf()) h = 0;
    double v = decode(f, h);
    uint32_t want = std::isnan(v) ? 0x7FFFFFFFu : bits_of(float(v));
    RC_ASSERT(wide[i] == want);
  }
}

// float -> int -> float: cvt.rzi.s32.f32 then cvt.rn.f32.s32 gives trunc(x), clamped.
RC_GTEST_PROP(FloatProp, TruncateToIntAndBack, ()) {
  Kernel k{"cvt.rzi.s32.f32 %b, %a;\n  cvt.rn.f32.s32 %d, %b;", kF32, {kF32, kB32}, "sm_90a", "8.7"};
  auto a = widen(batch(f32_gen()));
  std::vector<uint64_t> unused(kLanes, 0);
  auto got = run(k, {a, unused});
  RC_ASSERT(got.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    double x = f32_of(a[i]);
    double t = std::isnan(x) ? 0 : std::trunc(x);
    t = std::clamp(t, -2147483648.0, 2147483647.0);
    float want = float(int64_t(t));  // default RN
    uint32_t w = bits_of(want);
    if (w == 0x80000000u) w = 0;  // an integer zero converts to +0
    RC_ASSERT(got[i] == w);
  }
}

// min/max invariants: the result is one of the operands (or the canonical NaN), min and max are
// commutative (-0 < +0 makes the order total), and min(a,b) <= max(a,b).
RC_GTEST_PROP(FloatProp, MinMaxInvariants, ()) {
  const bool nan = *rc::gen::arbitrary<bool>();
  const std::string mod = nan ? ".NaN" : "";
  Kernel kmin{"min" + mod + ".f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  Kernel kmin2{"min" + mod + ".f32 %d, %b, %a;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  Kernel kmax{"max" + mod + ".f32 %d, %a, %b;", kF32, {kF32, kF32}, "sm_90a", "8.7"};
  auto a = widen(batch(f32_gen())), b = widen(batch(f32_gen()));
  auto mn = run(kmin, {a, b}), mn2 = run(kmin2, {a, b}), mx = run(kmax, {a, b});
  RC_ASSERT(mn.size() == kLanes && mn2.size() == kLanes && mx.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    RC_ASSERT(mn[i] == mn2[i]);
    const bool any_nan = is_nan32(uint32_t(a[i])) || is_nan32(uint32_t(b[i]));
    const bool both_nan = is_nan32(uint32_t(a[i])) && is_nan32(uint32_t(b[i]));
    if ((nan && any_nan) || both_nan) {
      RC_ASSERT(mn[i] == 0x7FFFFFFFu && mx[i] == 0x7FFFFFFFu);
      continue;
    }
    RC_ASSERT(mn[i] == a[i] || mn[i] == b[i]);
    RC_ASSERT(mx[i] == a[i] || mx[i] == b[i]);
    float lo = f32_of(mn[i]), hi = f32_of(mx[i]);
    RC_ASSERT(lo <= hi);
    if (lo == hi && mn[i] != mx[i]) RC_ASSERT(mn[i] == 0x80000000u);  // min(-0, +0) = -0
  }
}

// Integer widening/narrowing round trips: cvt.s64.s32 then cvt.s32.s64 is the identity, and
// cvt.sat.s8.s32 clamps.
RC_GTEST_PROP(FloatProp, IntConversionsRoundTripAndClamp, ()) {
  Kernel k{"cvt.s64.s32 %b, %a;\n  cvt.s32.s64 %c, %b;\n  cvt.sat.s8.s32 %d, %c;", kB64, {kB32, kB64, kB32}, "sm_90a", "8.7"};
  auto a = widen(batch(rc::gen::arbitrary<uint32_t>()));
  std::vector<uint64_t> z(kLanes, 0);
  auto got = run(k, {a, z, z});
  RC_ASSERT(got.size() == kLanes);
  for (size_t i = 0; i < kLanes; ++i) {
    int64_t v = std::clamp<int64_t>(int32_t(uint32_t(a[i])), -128, 127);
    RC_ASSERT(got[i] == uint64_t(v));  // sign-extended into the 64-bit register
  }
}
