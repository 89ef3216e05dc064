// Comparing what ptxsim produced with what a trace recorded: output buffers (bit for bit, or
// element-wise within a tolerance) and tensor-map blobs. Each comparison says whether the two
// agree and, when they do not, where and by how much, in one line.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "tools/trace/trace.h"

namespace ptxsim::trace {

struct Comparison {
  bool agree = false;
  std::string detail;  // "identical", "within tolerance (3 elements differ, max 1 ulp)", or the mismatch
};

// `got` is what ptxsim computed for expected.name.
Comparison compare_output(const Output& expected, std::span<const uint8_t> got);

// Units in the last place between two floats of `dtype` ("f16", "bf16", "f32", "f64") given as
// raw bits; 0 for +0/-0; UINT64_MAX when exactly one is NaN.
uint64_t ulp_distance(const std::string& dtype, uint64_t a, uint64_t b);
// The value of raw bits of `dtype` as a double.
double float_value(const std::string& dtype, uint64_t bits);

Comparison compare_blob(const std::array<uint8_t, 128>& expected, const std::array<uint8_t, 128>& got);

}  // namespace ptxsim::trace
