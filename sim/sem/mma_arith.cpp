#include "sim/sem/mma_arith.h"

#include <algorithm>
#include <vector>

#include "model/numerics/f64_ops.h"
#include "sim/sem/sem_util.h"

namespace ptxsim::sem {

namespace tc = model::tc;

void float_mma(const tc::DotModel& model, tc::ElemFmt fa, tc::ElemFmt fb, MmaExtent e, const uint64_t* A,
               const uint64_t* B, const uint64_t* C, uint64_t* D) {
  const int M = e.m, N = e.n, K = e.k;
  thread_local std::vector<tc::Value> va, vbt;  // A row-major, B transposed (column k-vectors)
  va.resize(size_t(M) * K);
  vbt.resize(size_t(N) * K);
  for (int i = 0; i < M * K; ++i) va[size_t(i)] = tc::decode_a(model, fa, uint32_t(A[i]));
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) vbt[size_t(j) * K + k] = tc::decode_b(model, fb, uint32_t(B[k * N + j]));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      D[i * N + j] = tc::dot(model, va.data() + size_t(i) * K, vbt.data() + size_t(j) * K, K, uint32_t(C[i * N + j]));
}

void int_mma(int bits, bool a_signed, bool b_signed, bool saturate, MmaExtent e, const uint64_t* A, const uint64_t* B,
             const uint64_t* C, uint64_t* D) {
  const int M = e.m, N = e.n, K = e.k;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int64_t acc = int32_t(uint32_t(C[i * N + j]));
      for (int k = 0; k < K; ++k) {
        const uint64_t x = A[i * K + k], y = B[k * N + j];
        acc += (a_signed ? int64_t(sext(x, uint32_t(bits))) : int64_t(x)) *
               (b_signed ? int64_t(sext(y, uint32_t(bits))) : int64_t(y));
      }
      if (saturate) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      D[i * N + j] = uint32_t(acc);
    }
}

void bit_mma(bool use_xor, MmaExtent e, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D) {
  const int M = e.m, N = e.n, K = e.k;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      uint32_t acc = uint32_t(C[i * N + j]);
      for (int k = 0; k < K; ++k) acc += uint32_t(use_xor ? A[i * K + k] ^ B[k * N + j] : A[i * K + k] & B[k * N + j]);
      D[i * N + j] = acc;
    }
}

void f64_mma(model::num::Round rm, MmaExtent e, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D) {
  const int M = e.m, N = e.n, K = e.k;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      uint64_t acc = C[i * N + j];
      for (int k = 0; k < K; ++k) acc = model::num::fma_f64(A[i * K + k], B[k * N + j], acc, rm);
      D[i * N + j] = acc;
    }
}

}  // namespace ptxsim::sem
