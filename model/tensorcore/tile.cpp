// Straightforward tile product: decode every operand once, then one tc::dot per output element.
#include "model/tensorcore/tile.h"

#include <algorithm>
#include <vector>

namespace ptxsim::model::tc {

void mma_tile(const DotModel& model, ElemFmt fa, ElemFmt fb, int M, int N, int K, const uint32_t* a,
              const uint32_t* bt, const uint32_t* c, uint32_t* d) {
  std::vector<Value> va(size_t(M) * K), vb(size_t(N) * K);
  for (size_t i = 0; i < va.size(); ++i) va[i] = decode_a(model, fa, a[i]);
  for (size_t i = 0; i < vb.size(); ++i) vb[i] = decode_b(model, fb, bt[i]);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n)
      d[m * N + n] = dot(model, va.data() + size_t(m) * K, vb.data() + size_t(n) * K, K, c[m * N + n]);
}

void mma_tile_int(bool a_signed, bool b_signed, bool saturate, int M, int N, int K, const uint8_t* a,
                  const uint8_t* bt, const int32_t* c, int32_t* d) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int64_t acc = c[m * N + n];
      for (int k = 0; k < K; ++k) {
        const int64_t x = a_signed ? int8_t(a[m * K + k]) : int64_t(a[m * K + k]);
        const int64_t y = b_signed ? int8_t(bt[n * K + k]) : int64_t(bt[n * K + k]);
        acc += x * y;
      }
      if (saturate) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      d[m * N + n] = int32_t(uint32_t(acc));
    }
}

}  // namespace ptxsim::model::tc
