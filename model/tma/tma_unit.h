// Functional model of the Tensor Memory Accelerator: what cp.async.bulk.tensor (loads and stores)
// and cp.reduce.async.bulk.tensor do to memory, given a decoded tensor map and the instruction's
// coordinates. No timing, no mbarrier (the load reports the complete-tx byte count; the engine
// performs the complete-tx), no multicast (the engine calls load() once per destination CTA).
//
// Shared memory is passed as the CTA's whole shared window `smem`, indexed by shared address, with
// `dst` / `src` the shared address of dstMem / srcMem: the swizzle is a function of the absolute
// address, so the model needs it. Global memory is reached only through the callbacks, which return
// false for an address that is not backed (the model then reports kFault with the address).
//
// Loads are all-or-nothing: every global read happens before shared memory is touched, so a fault
// leaves shared memory unchanged. Stores and reductions write as they go; a fault stops them.
//
// The box image (PTX "bounding box" in shared memory, before swizzling) is dense:
//   tile     element (j0, j1, .., jr-1), 0 <= ji < L[i] = ceil(boxDim[i] / elementStrides[i])
//            (L[0] = boxDim[0] without interleave) sits at j0 * esize + pitch * (j1 + L1 * (j2 + ..)),
//            pitch = L[0] * esize (rounded up to 16 / 32 bytes with interleave 16B / 32B);
//            its tensor coordinate is g[i] = coords[i] + ji * elementStrides[i].
//   gather4  row r (0..3) holds boxDim[0] elements of tensor row coords[1 + r] from column coords[0].
//   im2col   pixel k (0..pixelsPerColumn-1) holds channelsPerPixel elements at k * pitch.
// Out-of-bound elements are filled on loads (zero, or ptxsim's OOB-NaN pattern for floating types
// with OOB-NaN fill) and skipped on stores and reductions. The complete-tx count of a load covers
// every element of the box, out-of-bound ones included: the image size, except for the padded
// types 16U4_ALIGN16B / 16U6_ALIGN16B, which count their packed bytes (8 / 12 per 16 values), not
// the 16-byte groups they occupy in shared memory (docs/tensormap.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "model/tensormap/tensormap.h"
#include "model/tma/swizzle.h"

namespace ptxsim::model::tma {

using GlobalRead = std::function<bool(uint64_t addr, void* dst, size_t n)>;
using GlobalWrite = std::function<bool(uint64_t addr, const void* src, size_t n)>;

enum class Status : uint8_t {
  kOk,
  kFault,             // a global access callback failed; fault_address is the first byte asked for
  kBadDescriptor,     // the tensor map fails tmap::check()
  kBadOperand,        // coordinates / offsets / shared address / mode break an ISA rule
  kUnsupported,       // a combination the ISA excludes (reduction type, packed-type direction, ...)
  kUnimplemented,     // a mode ptxsim does not implement
  kSharedOutOfRange,  // the swizzled box image does not fit in the shared window given
};
const char* to_string(Status s);

struct Outcome {
  Status status = Status::kOk;
  std::string message;
  uint64_t fault_address = 0;  // kFault only
  uint32_t tx_bytes = 0;       // loads: the complete-tx byte count (box_tx_bytes); stores/reductions: image bytes
  bool ok() const { return status == Status::kOk; }
};

enum class LoadMode : uint8_t { kTile, kTileGather4, kIm2col, kIm2colW, kIm2colW128 };
enum class StoreMode : uint8_t { kTile, kTileScatter4, kIm2colNoOffs };
enum class RedOp : uint8_t { kAdd, kMin, kMax, kInc, kDec, kAnd, kOr, kXor };

struct Coords {
  // tensorCoords, innermost first ({d0, .., d(rank-1)}); for .tile::gather4 / .tile::scatter4
  // {col, row0, row1, row2, row3}.
  int32_t c[5] = {0, 0, 0, 0, 0};
  // .im2col: the im2col offsets {W, H, D} (rank-2 of them are used).
  uint16_t im2col_offsets[3] = {0, 0, 0};
  // .im2col::w / .im2col::w::128: im2colInfo {wHalo, wOffset}.
  uint16_t w_halo = 0;
  uint16_t w_offset = 0;
};

// global -> shared (cp.async.bulk.tensor.*.shared::{cta,cluster}.global).
Outcome load(const tmap::TensorMap& map, LoadMode mode, const Coords& coords, const GlobalRead& read,
             std::span<uint8_t> smem, uint32_t dst);

// shared -> global (cp.async.bulk.tensor.*.global.shared::cta). Out-of-bound elements are not written.
Outcome store(const tmap::TensorMap& map, StoreMode mode, const Coords& coords, std::span<const uint8_t> smem,
              uint32_t src, const GlobalWrite& write);

// cp.reduce.async.bulk.tensor: global[e] = op(global[e], shared[e]) for every in-bound element e.
// mode: kTile or kIm2colNoOffs. Each element is one relaxed read-modify-write (sequential here).
Outcome reduce(const tmap::TensorMap& map, RedOp op, StoreMode mode, const Coords& coords,
               std::span<const uint8_t> smem, uint32_t src, const GlobalRead& read, const GlobalWrite& write);

// Whether the ISA allows `op` on the map's element type (PTX 9.7.9.25.5.3 table).
bool reduction_supported(RedOp op, tmap::DataType t);

// Bytes of the box image a load in `mode` writes in shared memory (padding of the padded types
// included), and a store / reduce in the matching mode reads; 0 if the map does not support the
// mode. The im2col::w modes add the instruction's wHalo pixels (once for ::w, after each of the 4
// groups of 32 for ::w::128).
uint32_t box_image_bytes(const tmap::TensorMap& map, LoadMode mode, uint32_t w_halo = 0);
// The complete-tx byte count of a load in `mode`: box_image_bytes, except for 16U4_ALIGN16B /
// 16U6_ALIGN16B, which count the packed bytes (half resp. three quarters of the image), as the
// data's bit width times the box's elements; 0 if the map does not support the mode.
uint32_t box_tx_bytes(const tmap::TensorMap& map, LoadMode mode, uint32_t w_halo = 0);
// Both at once (a load needs both; each validates the map): zeros if the mode is not supported.
struct BoxBytes {
  uint32_t image = 0, tx = 0;
};
BoxBytes box_bytes(const tmap::TensorMap& map, LoadMode mode, uint32_t w_halo = 0);

// The OOB-NaN fill (the ISA does not publish it): every 16 bits of an out-of-bounds element are
// 0x7FF7, for f16, bf16, f32 and f64 alike, as an H200 fills (traces/h200/sm_90a/tma_oob_nan_fill*).
// fma.rn.oob recognises the 16-bit pattern (num::fma_oob_*).
inline constexpr uint16_t kOobNanF16 = 0x7FF7u;
inline constexpr uint16_t kOobNanBF16 = 0x7FF7u;
inline constexpr uint32_t kOobNanF32 = 0x7FF77FF7u;  // f32, f32.ftz, tf32, tf32.ftz
inline constexpr uint64_t kOobNanF64 = 0x7FF77FF77FF77FF7ull;

}  // namespace ptxsim::model::tma
