// TMA descriptor builder checks, the post-rewrite TMA atom verifier with tx_count arithmetic and
// the tmaIdx counter checks (seeds/tma-atoms.txt, seeds/tma-load-walkthrough.txt), and the
// tile-level shape rules of the load's earlier stages (tma-load-walkthrough.txt, stages 1-3a).
//
// Each verifier reports the first rule that fails, as the seeds' verifiers do.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verifiers/layout/layout.h"
#include "verifiers/tma/partition.h"

namespace ptxsim::verifiers::tma {

namespace diag {
// Stage 3b, make_tiled_tma_desc (verbatim).
inline constexpr const char* kDescAlignment = "expected tma descriptor pointer to have alignment at least 128";
inline constexpr const char* kDescBoxDim0 = "tma boxDims[0] * elemTypeBitWidth is not a multiple of 16 bytes";
inline constexpr const char* kDescSmemLayout = "smem layout is not TMA compatible";
inline constexpr const char* kDescLoadPadding = "TmaLoad only support zero padding now";
// Stage 3c, async.tiled_tma_load (verbatim).
inline constexpr const char* kAtomType = "expect a tma_load atom type";
inline constexpr const char* kAtomBoxLength = "tmaBoxDim and atomBoxDim length mismatch";
inline constexpr const char* kAtomMcast = "mcast is not supported for TMA load with less than 128bytes per atom";
// The descriptor ABI and the pass gate (verbatim).
inline constexpr const char* kTmaIdxHost = "tmaIdx exceed tmaHostNum.";
inline constexpr const char* kTmaIdxDevice = "tmaIdx exceed tmaDeviceNum.";
inline constexpr const char* kKernelSpec = "LowerTMALoadStoreToAsync: missing or invalid KernelSpecAttr on function";
// Stages 1, 2 and 3a, tile-level (verbatim prefixes; ptxsim appends the details).
inline constexpr const char* kTilePositive = "all dimensions must be positive constants, got ";
inline constexpr const char* kTilePow2 = "all dimensions must be powers of two, got ";
inline constexpr const char* kTileMax = "tile would exceed the maximum of ";
inline constexpr const char* kTileCoordType = "expects CoordType is same as memref index type";
inline constexpr const char* kTileElemType = "view elementType not equal with tensor element type: ";
inline constexpr const char* kTileMemSemantic = "unsupported mem_semantic: ";
inline constexpr const char* kTileInBounds = "incorrect number of in_bounds elements: expected ";
}  // namespace diag

enum class TmaDescMode : uint8_t { Tiled, Im2col };

// ---- descriptor builder ------------------------------------------------------------------------

struct TmaDescriptorInput {
  std::string memory_space = "global";        // the tensor's memory space
  std::optional<layout::CuteValue> layout;    // the tensor's layout, when given
  std::optional<int> rank;                    // else from global_dims, box or layout
  int element_bits = 16;
  std::vector<int64_t> box;                   // boxDims, dimension 0 (innermost) first
  std::vector<int64_t> global_dims;           // optional, dimension 0 first
  std::vector<int64_t> global_strides;        // optional, bytes, dimensions 1..rank-1
  std::vector<int64_t> element_strides;       // optional, 1..8 per dimension
  TmaOp op = TmaOp::Load;
  TmaDescMode mode = TmaDescMode::Tiled;
  std::vector<double> paddings;               // padding values; empty = none
  std::optional<uint64_t> descriptor_alignment;  // bytes
  std::optional<uint64_t> descriptor_address;
  std::optional<layout::CuteValue> smem_layout;
  bool device_born = false;                   // built on the device (tensormap.replace) vs host
};

struct TmaDescriptorOutcome {
  bool accepted = false;
  std::string diagnostic, reason;
  int rank = 0;
  int64_t inner_box_bytes = 0;     // box[0] * element bits / 8
  int64_t box_bytes = 0;           // bytes one transfer of the box deposits
  int swizzle_span = 0;            // bytes, 0 = none (from the SMEM layout)
};

TmaDescriptorOutcome verify_tma_descriptor(const TmaDescriptorInput& in);

// ---- tx_count arithmetic -----------------------------------------------------------------------

// Loaded elements along a box dimension: ceil(box / element stride); dimension 0 ignores its
// element stride (PTX/driver rule for non-interleaved maps).
int64_t box_elements(const std::vector<int64_t>& box, const std::vector<int64_t>& element_strides);
// Bytes one tiled transfer deposits: element bytes * box_elements (rounded up to whole bytes).
int64_t tiled_tx_bytes(const std::vector<int64_t>& box, const std::vector<int64_t>& element_strides,
                       int element_bits);
// Bytes one im2col transfer deposits: pixels_per_column * channels_per_pixel * element bytes.
int64_t im2col_tx_bytes(int64_t pixels_per_column, int64_t channels_per_pixel, int element_bits);

// ---- the atom verifier -------------------------------------------------------------------------

struct TmaAtomInput {
  TmaOp op = TmaOp::Load;             // the async op being verified
  std::string atom = "tma_load";      // the atom type it carries
  std::vector<int64_t> tma_box;       // tmaBoxDim (the descriptor's box)
  std::vector<int64_t> atom_box;      // atomBoxDim
  int element_bits = 16;
  TmaDescMode mode = TmaDescMode::Tiled;
  std::vector<int64_t> element_strides;
  int64_t pixels_per_column = 0, channels_per_pixel = 0;  // im2col
  int64_t num_multicast = 1;
  std::optional<int64_t> tx_count;    // the claimed tx_count attribute
  std::optional<int64_t> expect_tx;   // the claimed per-CTA barrier expectation
  std::vector<std::string> coordinates;  // outer-axis-first, as TileAS lists them
  bool kernel_spec = true;            // the function carries a valid KernelSpecAttr
  std::optional<int64_t> tma_idx;
  bool device_born = false;
  std::optional<int64_t> num_host_tmas, num_device_tmas;
};

struct TmaAtomOutcome {
  bool accepted = false;
  std::string diagnostic, reason;
  int64_t atom_bytes = 0;        // bytes one atom (one transfer) deposits in each receiving CTA
  int64_t tx_count = 0;          // the atom's tx_count: atom_bytes
  int64_t expect_tx = 0;         // what each receiving CTA's barrier expects: atom_bytes * num_multicast
  std::vector<std::string> ptx_coordinates;  // inner-axis-first
};

TmaAtomOutcome verify_tma_atom(const TmaAtomInput& in);

// ---- tile-level rules --------------------------------------------------------------------------

inline constexpr int64_t kMaxTileElements = int64_t{1} << 24;  // the 16-million-element ceiling

struct TmaTileInput {
  TmaOp op = TmaOp::Load;
  std::vector<std::optional<int64_t>> shape;  // nullopt = not a constant
  std::string element_type = "bf16";
  std::optional<int64_t> coordinates;          // count of coordinate operands
  std::optional<std::string> coord_type, index_type;
  std::optional<std::string> view_element_type;
  std::optional<std::string> mem_semantic;
  std::optional<int64_t> in_bounds;            // number of in_bounds elements
};

struct TmaTileOutcome {
  bool accepted = false;
  std::string diagnostic, reason;
  std::string tile_type;   // "!cuda_tile.tile<128x128xbf16>"
  int64_t elements = 0;
  std::optional<int64_t> bytes;  // when the element type has a known width
};

TmaTileOutcome verify_tma_tile(const TmaTileInput& in);
// Bits of a tile element type name (bf16 16, f32 32, e4m3 8, ...); nullopt when unknown.
std::optional<int> element_type_bits(const std::string& name);

}  // namespace ptxsim::verifiers::tma
