// Host-side tensor-map encoder: the four driver entry points of CUDA driver API §6.30 "Tensor Map
// Object Management" with the driver's parameter order, enum values and validation. A driver shim
// implements cuTensorMapEncodeTiled(...) as
//
//   auto r = ptxsim::model::tmap::encode_tiled(reinterpret_cast<tmap::CUtensorMap*>(tensorMap),
//              static_cast<tmap::DataType>(dtype), rank, (uint64_t)globalAddress, globalDim, ...);
//   return static_cast<CUresult>(r.code);   // r.message says which parameter broke which rule
//
// On error nothing is written to *out. Every rule is listed (with its source) in docs/tensormap.md
// "Encoder rules"; the checks run in parameter order and the first violation is reported. Messages
// name the parameter and the rule, e.g.
//   "boxDim[0] * elementSize (24 bytes) must be a multiple of 16 bytes when interleave is NONE".
// Compute-capability checks (tensor maps need 9.0+, im2col-wide 10.0+) are the caller's: the model
// has no device.
#pragma once
#include <cstdint>
#include <string>

#include "model/tensormap/enums.h"
#include "model/tensormap/tensormap.h"

namespace ptxsim::model::tmap {

struct EncodeResult {
  CUresult code = CUresult::kSuccess;
  std::string message;  // empty on success
  bool ok() const { return code == CUresult::kSuccess; }
  explicit operator bool() const { return ok(); }
};

// cuTensorMapEncodeTiled. `strides` has rank-1 entries (byte strides of dimensions 1..rank-1);
// it may be null when rank == 1.
EncodeResult encode_tiled(CUtensorMap* out, DataType dtype, uint32_t rank, uint64_t global_address,
                          const uint64_t* global_dim, const uint64_t* global_strides, const uint32_t* box_dim,
                          const uint32_t* element_strides, Interleave interleave, Swizzle swizzle,
                          L2Promotion l2_promotion, OobFill oob_fill);

// cuTensorMapEncodeIm2col. Corners hold rank-2 offsets, W first (W, H, D), as CUTLASS passes them.
EncodeResult encode_im2col(CUtensorMap* out, DataType dtype, uint32_t rank, uint64_t global_address,
                           const uint64_t* global_dim, const uint64_t* global_strides,
                           const int32_t* pixel_box_lower_corner, const int32_t* pixel_box_upper_corner,
                           uint32_t channels_per_pixel, uint32_t pixels_per_column,
                           const uint32_t* element_strides, Interleave interleave, Swizzle swizzle,
                           L2Promotion l2_promotion, OobFill oob_fill);

// cuTensorMapEncodeIm2colWide.
EncodeResult encode_im2col_wide(CUtensorMap* out, DataType dtype, uint32_t rank, uint64_t global_address,
                                const uint64_t* global_dim, const uint64_t* global_strides,
                                int32_t pixel_box_lower_corner_width, int32_t pixel_box_upper_corner_width,
                                uint32_t channels_per_pixel, uint32_t pixels_per_column,
                                const uint32_t* element_strides, Interleave interleave, Im2colWideMode mode,
                                Swizzle swizzle, L2Promotion l2_promotion, OobFill oob_fill);

// cuTensorMapReplaceAddress: rewrites only the global address; the new address must satisfy the
// alignment the map's element type and interleave require.
EncodeResult replace_address(CUtensorMap* map, uint64_t global_address);

// A row-major rows x cols bf16 matrix as a 2-D tiled map with boxes of 64 elements (128 bytes) by
// box_rows and the 128-byte swizzle: the K-major operand tile that wgmma and tcgen05 kernels load
// through TMA (the GEMM benchmarks' A and B^T).
EncodeResult encode_bf16_sw128_tiles(CUtensorMap* out, uint64_t global_address, uint64_t rows, uint64_t cols,
                                     uint32_t box_rows);

// The TensorMap the encoder builds from the (already validated) parameters, without validation.
// Used by encode_* and by tests that want the decoded form of a parameter set.
TensorMap tiled_map(DataType dtype, uint32_t rank, uint64_t global_address, const uint64_t* global_dim,
                    const uint64_t* global_strides, const uint32_t* box_dim, const uint32_t* element_strides,
                    Interleave interleave, Swizzle swizzle, L2Promotion l2_promotion, OobFill oob_fill);

}  // namespace ptxsim::model::tmap
