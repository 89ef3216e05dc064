#include "model/tcgen05/ws.h"

#include <cstdio>

namespace ptxsim::model::tcgen05 {

namespace {
constexpr uint32_t field(uint64_t w, unsigned lo, unsigned bits) { return uint32_t((w >> lo) & ((1ull << bits) - 1)); }
constexpr uint64_t put(uint32_t v, unsigned lo, unsigned bits) { return (uint64_t(v) & ((1ull << bits) - 1)) << lo; }
}  // namespace

ZeroColumnMaskDescriptor ZeroColumnMaskDescriptor::decode(uint64_t w) {
  ZeroColumnMaskDescriptor d;
  for (unsigned i = 0; i < 4; ++i) d.start_count[i] = field(w, 8 * i, 8);
  d.first_span = field(w, 32, 4);
  d.reserved36 = field(w, 36, 3);
  d.nonzero_mask = field(w, 39, 1);
  d.skip_span = field(w, 40, 8);
  d.use_span = field(w, 48, 8);
  d.column_shift = field(w, 56, 6);
  d.reserved62 = field(w, 62, 2);
  return d;
}

uint64_t ZeroColumnMaskDescriptor::encode() const {
  uint64_t w = 0;
  for (unsigned i = 0; i < 4; ++i) w |= put(start_count[i], 8 * i, 8);
  return w | put(first_span, 32, 4) | put(reserved36, 36, 3) | put(nonzero_mask, 39, 1) | put(skip_span, 40, 8) |
         put(use_span, 48, 8) | put(column_shift, 56, 6) | put(reserved62, 62, 2);
}

std::optional<std::string> validate(const ZeroColumnMaskDescriptor& d, uint32_t M) {
  char h[24];
  std::snprintf(h, sizeof h, "0x%016llx", (unsigned long long)d.encode());
  const std::string pre = std::string("zero-column-mask descriptor ") + h + ": ";
  if (d.reserved36) return pre + "bits 38:36 are reserved and must be 0";
  if (d.reserved62) return pre + "bits 63:62 are reserved and must be 0";
  const uint32_t max_shift = M == 32 ? 16 : 32;
  if (d.column_shift > max_shift)
    return pre + "column shift (bits 61:56) = " + std::to_string(d.column_shift) + " is more than " +
           std::to_string(max_shift) + " for M = " + std::to_string(M);
  if (d.nonzero_mask)
    for (uint32_t i = 0; i < 128 / M; ++i) {
      const bool skip = d.first_span >> i & 1;
      const uint32_t span = (skip ? d.skip_span : d.use_span) + 1;
      if (d.start_count[i] >= span)
        return pre + "start count " + std::to_string(i) + " (bits " + std::to_string(8 * i + 7) + ":" +
               std::to_string(8 * i) + ") = " + std::to_string(d.start_count[i]) + " is not inside the first span (" +
               (skip ? "skip" : "use") + " span of " + std::to_string(span) +
               " columns): where such a sub-mask starts is not pinned down (not simulated)";
    }
  return std::nullopt;
}

std::vector<uint8_t> zero_columns(const ZeroColumnMaskDescriptor& d, uint32_t M, uint32_t N) {
  std::vector<uint8_t> zero(N, 0);
  if (!d.nonzero_mask) return zero;
  const uint32_t parts = 128 / M, cols = N / parts;
  for (uint32_t i = 0; i < parts; ++i) {
    bool skip = d.first_span >> i & 1;  // in a span of zero-forced columns
    uint32_t done = d.start_count[i];   // columns of the current span already behind
    for (uint32_t j = 0; j < cols; ++j) {
      zero[i * cols + j] = skip;
      if (++done == (skip ? d.skip_span : d.use_span) + 1) {
        skip = !skip;
        done = 0;
      }
    }
  }
  return zero;
}

}  // namespace ptxsim::model::tcgen05
