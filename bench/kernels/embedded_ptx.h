// The PTX of the benchmark suite (`ptxsim bench`), embedded in the ptxsim binary at build time:
// bench/kernels/CMakeLists.txt has nvcc compile bench/kernels/*.cu and two kernel-test sources
// (tests/kernels/wgmma_gemm.cu, tcgen05_gemm.cu) to PTX and generates a C++ source with each text as
// a string literal (cmake/embed_ptx.cmake). The binary therefore needs no file at run time. Built
// without nvcc, the table is empty and `ptxsim bench` says so.
#pragma once
#include <cstddef>
#include <span>
#include <string_view>

namespace ptxsim::bench {

struct EmbeddedPtx {
  const char* key;   // "<source file stem>.<arch>", e.g. "sgemm.sm_90a"
  const char* text;  // the PTX as nvcc wrote it
  size_t size;
};

std::span<const EmbeddedPtx> embedded_ptx();

// The entry for `key`, or null.
inline const EmbeddedPtx* find_embedded_ptx(std::string_view key) {
  for (const EmbeddedPtx& e : embedded_ptx())
    if (key == e.key) return &e;
  return nullptr;
}

}  // namespace ptxsim::bench
