// The parameters of one cuTensorMapEncode{Tiled,Im2col,Im2colWide} call in JSON, shared by the
// "tensormap" PARAM of case files, the tensor-map records of traces (tools/trace) and the hardware
// runner (tools/hw), so that one spelling of dtype/swizzle/... names exists:
//
//   {"encode": "tiled", "dtype": "bfloat16", "rank": 2, "global_address": "0x10000",
//    "dims": [W, H], "strides": [row_bytes], "box": [bw, bh], "element_strides": [1, 1],
//    "interleave": "none", "swizzle": "128B", "l2_promotion": "none", "oob_fill": "none"}
//   im2col adds "lower_corner": [...], "upper_corner": [...] (rank-2 values, W first),
//     "channels_per_pixel": C, "pixels_per_column": P and has no "box";
//   im2col_wide adds "lower_corner_w": w0, "upper_corner_w": w1, "channels_per_pixel",
//     "pixels_per_column", "mode": "w" | "w128" and has no "box".
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/tensormap/encoder.h"
#include "tools/ptxsim/case_file.h"

namespace ptxsim::cli {

struct TensorMapParams {
  enum class Encode : uint8_t { Tiled, Im2col, Im2colWide };
  Encode encode = Encode::Tiled;
  model::tmap::DataType dtype = model::tmap::DataType::kUInt8;
  uint32_t rank = 1;
  uint64_t global_address = 0;
  std::vector<uint64_t> dims;             // rank values
  std::vector<uint64_t> strides;          // rank-1 byte strides (dimensions 1..rank-1)
  std::vector<uint32_t> box;              // tiled: rank values
  std::vector<uint32_t> element_strides;  // rank values (default all 1)
  std::vector<int32_t> lower_corner, upper_corner;  // im2col: rank-2 values, W first
  int32_t lower_corner_w = 0, upper_corner_w = 0;   // im2col_wide
  uint32_t channels_per_pixel = 0, pixels_per_column = 0;  // im2col, im2col_wide
  model::tmap::Interleave interleave = model::tmap::Interleave::kNone;
  model::tmap::Swizzle swizzle = model::tmap::Swizzle::kNone;
  model::tmap::L2Promotion l2_promotion = model::tmap::L2Promotion::kNone;
  model::tmap::OobFill oob_fill = model::tmap::OobFill::kNone;
  model::tmap::Im2colWideMode wide_mode = model::tmap::Im2colWideMode::kW;
};

// Keys parse_tensormap_params reads (besides those the caller handles itself).
const std::vector<std::string_view>& tensormap_param_keys();

// Reads the object `obj` at `path`. `address_key` false: no "global_address" (the caller sets the
// address, e.g. from a buffer) and no "encode" (tiled). Unknown keys are the caller's to check.
// Throws CaseError naming the key.
TensorMapParams parse_tensormap_params(const JsonReader& r, const Json& obj, const std::string& path,
                                       bool address_key);
// The JSON form parse_tensormap_params reads back (with "encode" and "global_address").
Json tensormap_params_json(const TensorMapParams& p);

// Encodes with ptxsim's encoder (model/tensormap/encoder.h).
model::tmap::EncodeResult ptxsim_encode_tensormap(const TensorMapParams& p, std::array<uint8_t, 128>& blob);

// "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", ... for the codes ptxsim's encoder and the tensor-map
// driver calls return; "CUresult N" for others.
std::string cuda_result_name(uint32_t code);

// The JSON key of the driver parameter an encoder message starts with ("boxDim[0] ..." -> "box").
std::string tensormap_key_for_message(const std::string& message);

}  // namespace ptxsim::cli
