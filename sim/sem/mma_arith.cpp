#include "sim/sem/mma_arith.h"

#include <algorithm>
#include <vector>

#include "model/numerics/f64_ops.h"
#include "model/tensorcore/tile.h"
#include "sim/sem/sem_util.h"

namespace ptxsim::sem {

namespace tc = model::tc;

void float_mma(const tc::DotModel& model, tc::ElemFmt fa, tc::ElemFmt fb, MmaExtent e, const uint64_t* A,
               const uint64_t* B, const uint64_t* C, uint64_t* D) {
  // The whole-tile datapath (model/tensorcore/tile.h), the one wgmma and tcgen05 use: it equals
  // tc::dot per element bit for bit and takes a fast path where the model row allows.
  const int M = e.m, N = e.n, K = e.k;
  thread_local std::vector<uint32_t> a, bt, cd;  // A row-major, B transposed, C then D
  a.resize(size_t(M) * K);
  bt.resize(size_t(N) * K);
  cd.resize(size_t(M) * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint32_t(A[i]);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) bt[size_t(j) * K + k] = uint32_t(B[k * N + j]);
  for (size_t i = 0; i < cd.size(); ++i) cd[i] = uint32_t(C[i]);
  tc::mma_tile(model, fa, fb, M, N, K, a.data(), bt.data(), cd.data(), cd.data());
  for (size_t i = 0; i < cd.size(); ++i) D[i] = cd[i];
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
