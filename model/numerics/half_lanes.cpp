#include "model/numerics/half_lanes.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PTXSIM_HALF_LANES_X86 1
#endif

namespace ptxsim::model::num {

#ifdef PTXSIM_HALF_LANES_X86
namespace {

// Eight lanes per step: the slots' low words (vpmovqw), widened exactly to f32, one f32 operation
// (exact for a product, a sum rounded once to f32), rounded to f16 to nearest even by the
// conversion's own rounding (the host's mode is never changed), NaN made canonical, zero-extended
// back to slots. (The zero-masked intrinsics: GCC 12 warns of the unmasked ones' undefined merge
// operand.)
template <HalfOp Op>
[[gnu::target("arch=x86-64-v4")]] void half_lanes_avx512(const uint64_t* a, const uint64_t* b, uint64_t* d) {
  constexpr __mmask8 kAll = 0xFF;
  for (int l = 0; l < 32; l += 8) {
    const __m128i ha = _mm512_maskz_cvtepi64_epi16(kAll, _mm512_loadu_si512(a + l));
    const __m128i hb = _mm512_maskz_cvtepi64_epi16(kAll, _mm512_loadu_si512(b + l));
    const __m256 fa = _mm256_cvtph_ps(ha), fb = _mm256_cvtph_ps(hb);
    const __m256 r = Op == HalfOp::Add ? _mm256_add_ps(fa, fb) : Op == HalfOp::Sub ? _mm256_sub_ps(fa, fb)
                                                                                     : _mm256_mul_ps(fa, fb);
    __m128i h = _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __mmask8 nan = _mm_cmpgt_epu16_mask(_mm_and_si128(h, _mm_set1_epi16(0x7FFF)), _mm_set1_epi16(0x7C00));
    h = _mm_mask_mov_epi16(h, nan, _mm_set1_epi16(0x7FFF));
    _mm512_storeu_si512(d + l, _mm512_maskz_cvtepu16_epi64(kAll, h));
  }
}

// The same eight lanes per step where the host has F16C and AVX2 but not AVX-512 (AMD's Zen 2
// and 3, many laptops): the low words are packed by a plain loop, NaN found by a signed compare
// (the magnitudes are below 0x8000).
template <HalfOp Op>
[[gnu::target("avx2,f16c")]] void half_lanes_avx2(const uint64_t* a, const uint64_t* b, uint64_t* d) {
  for (int l = 0; l < 32; l += 8) {
    alignas(16) uint16_t ha[8], hb[8];
    for (int i = 0; i < 8; ++i) {
      ha[i] = uint16_t(a[l + i]);
      hb[i] = uint16_t(b[l + i]);
    }
    const __m256 fa = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(ha)));
    const __m256 fb = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(hb)));
    const __m256 r = Op == HalfOp::Add ? _mm256_add_ps(fa, fb) : Op == HalfOp::Sub ? _mm256_sub_ps(fa, fb)
                                                                                     : _mm256_mul_ps(fa, fb);
    __m128i h = _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7FFF)), _mm_set1_epi16(0x7C00));
    h = _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), nan);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + l), _mm256_cvtepu16_epi64(h));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + l + 4), _mm256_cvtepu16_epi64(_mm_srli_si128(h, 8)));
  }
}

}  // namespace
#endif

std::vector<HalfLanesFn> half_lanes_variants(HalfOp op) {
  std::vector<HalfLanesFn> fns;
#ifdef PTXSIM_HALF_LANES_X86
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("f16c");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  if (avx512)
    fns.push_back(op == HalfOp::Add   ? half_lanes_avx512<HalfOp::Add>
                  : op == HalfOp::Sub ? half_lanes_avx512<HalfOp::Sub>
                                      : half_lanes_avx512<HalfOp::Mul>);
  if (avx2)
    fns.push_back(op == HalfOp::Add   ? half_lanes_avx2<HalfOp::Add>
                  : op == HalfOp::Sub ? half_lanes_avx2<HalfOp::Sub>
                                      : half_lanes_avx2<HalfOp::Mul>);
#endif
  (void)op;
  return fns;
}

HalfLanesFn half_lanes(HalfOp op) {
  const std::vector<HalfLanesFn> fns = half_lanes_variants(op);
  return fns.empty() ? nullptr : fns.front();
}

}  // namespace ptxsim::model::num
