// The host compiler's IEEE binary16 type, for test references that round to f16 in one conversion.
// GCC accepts _Float16 in C++ on aarch64 only from GCC 13; before that, its __fp16 (IEEE format on
// aarch64, converted from float or double by a single fcvt: one rounding, to nearest-even under
// the default FPCR) gives the same bits. Only conversions are used (__fp16 arithmetic is float's).
#pragma once

namespace ptxsim::test {
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
using HostHalf = __fp16;
#else
using HostHalf = _Float16;
#endif
}  // namespace ptxsim::test
