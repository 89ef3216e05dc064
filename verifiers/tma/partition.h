// The TMA partition verifier of seeds/tma-atoms.txt: the three mode enums, the packed 24-byte
// TmaPartitionResult with its 16-bit flags word, and the eleven invariants walked in fixed order,
// each failing with its verbatim diagnostic.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verifiers/layout/layout.h"

namespace ptxsim::verifiers::tma {

// ---- mode enums (values are the seed's) --------------------------------------------------------

enum class TmaLoadMode : uint8_t {
  TMA_LOAD_NO_MULTICAST = 0,    // single-CTA load
  TMA_LOAD_TWO_CTA = 1,         // 2-CTA cluster cooperative load
  TMA_LOAD_W_MULTICAST = 2,     // warp multicast (16-thread)
  TMA_LOAD_W128_MULTICAST = 3,  // wide warp multicast (128-thread)
};

enum class TmaStoreMode : uint8_t {
  TMA_STORE_TILED = 0,        // tiled SMEM -> GMEM
  TMA_STORE_IM2COL = 1,       // im2col-flavor tiled store
  TMA_STORE_IM2COL_W = 2,     // im2col + warp multicast
  TMA_STORE_IM2COL_W128 = 3,
};

enum class TmaReduceKind : uint8_t {
  TMA_REDUCE_ADD = 0, TMA_REDUCE_MIN = 1, TMA_REDUCE_MAX = 2,
  TMA_REDUCE_INC = 3, TMA_REDUCE_DEC = 4,
  TMA_REDUCE_AND = 5, TMA_REDUCE_OR = 6, TMA_REDUCE_XOR = 7,
};

enum class TmaOp : uint8_t { Load, Store, Reduce };

const char* op_name(TmaOp op);                      // "load", "store", "reduce"
std::optional<TmaOp> parse_op(std::string_view s);
// Enum value names ("TMA_LOAD_TWO_CTA", ...) for the op's enum; nullptr when out of range.
const char* mode_name(TmaOp op, uint8_t mode);
// The enum value named `s` in the op's enum (also accepts the decimal value).
std::optional<uint8_t> parse_mode(TmaOp op, std::string_view s);

// ---- the packed result -------------------------------------------------------------------------

struct TmaPartitionResult {
  /*+0x00*/ uint64_t tma_tensor_type;     // interned type (ptxsim: FNV-1a 64 of its text)
  /*+0x08*/ uint32_t tile_element_count;  // size(canonical_smem) * num_multicast
  /*+0x0C*/ uint16_t flags;               // TmaPartitionFlag bits
  /*+0x0E*/ uint8_t swizzle_mode;         // 0=none, 2=128B, 3=32B/64B blend
  /*+0x0F*/ uint8_t rank;                 // descriptor rank (1..5)
  /*+0x10*/ uint64_t non_exec_atom_body;  // interned non-exec atom (ptxsim: FNV-1a 64 of its text)
};
static_assert(sizeof(TmaPartitionResult) == 24);
static_assert(offsetof(TmaPartitionResult, tile_element_count) == 0x08);
static_assert(offsetof(TmaPartitionResult, flags) == 0x0C);
static_assert(offsetof(TmaPartitionResult, swizzle_mode) == 0x0E);
static_assert(offsetof(TmaPartitionResult, rank) == 0x0F);
static_assert(offsetof(TmaPartitionResult, non_exec_atom_body) == 0x10);

// The 24 bytes, little-endian, as the record is laid out.
std::array<uint8_t, 24> pack(const TmaPartitionResult& r);
TmaPartitionResult unpack(const std::array<uint8_t, 24>& bytes);

enum TmaPartitionFlag : uint16_t {
  kFlagMulticast = 1u << 0,          // multicast TMA load (W or W128)
  kFlagIm2col = 1u << 1,             // im2col-flavoured
  kFlagIm2colW = 1u << 2,            // im2col with warp-cooperative offset table
  kFlagIm2colW128 = 1u << 3,         // ... wide (128-thread)
  kFlagTwoCta = 1u << 4,             // 2-CTA cooperative load
  kFlagSparse = 1u << 5,             // metadata operand present
  kFlagStaticSmem = 1u << 6,         // step 6 held for the SMEM layout
  kFlagStaticVmap = 1u << 7,         // step 6 held for the CTA V-map
  kFlagGmemIntStride = 1u << 8,      // step 4 held for the GMEM layout
  kFlagSmemIntStride = 1u << 9,      // step 4 held for the SMEM layout
  kFlagShapeEquiv = 1u << 10,        // step 7 held
  kFlagGBasisOk = 1u << 11,          // step 8 held
  kFlagS2tDescriptor = 1u << 12,     // wraps a get_copy_s2t_smem_desc view
  kFlagPrefetchEligible = 1u << 13,  // descriptor survives prefetch (no per-axis dynamism)
  // bits 14 and 15 reserved
};

struct FlagInfo {
  const char* name;     // "multicast", ..., "reserved"
  const char* meaning;  // the seed's meaning column
};
extern const std::array<FlagInfo, 16> kTmaPartitionFlags;

// FNV-1a 64 of a type's text: ptxsim's stand-in for an interned MLIR pointer.
uint64_t intern_id(std::string_view text);

// ---- the verbatim diagnostics ------------------------------------------------------------------

namespace diag {
inline constexpr const char* kStep1 = "invalid operand types, got ";
inline constexpr const char* kStep2 = "invalid smem layout type, expected LayoutType or ComposedLayoutType, got ";
inline constexpr const char* kStep3 = "unsupported layout for the GMEM tensor, got ";
inline constexpr const char* kStep4 = "expected the GMEM and SMEM layouts to have integer stride elements, but got ";
inline constexpr const char* kStep5 = "expected the SMEM layout to be a swizzle layout, but got ";
inline constexpr const char* kStep6 = "expected the SMEM layout and the CTA V-map to be static, but got ";
inline constexpr const char* kStep7 =
    "expected top-level shape equivalence between the SMEM layout and the CTA V-map, but got ";
inline constexpr const char* kStep8 = "failed to compute the TMA G-basis, got ";
inline constexpr const char* kStep9 = "Computed TMA layout is invalid, got ";
inline constexpr const char* kStep10 = "Failed to construct the TMA tensor type";
inline constexpr const char* kStep11 = "missing or invalid num_multicast for a multicast TMA load";
inline constexpr const char* kStep11Companion = "got num_multicast of ";
}  // namespace diag

// The shared format helper: "A, and B" for two operands, "A, B, and C" for three.
std::string join_operands(const std::vector<std::string>& types);

// ---- the verifier ------------------------------------------------------------------------------

struct TmaPartitionInput {
  TmaOp op = TmaOp::Load;
  uint8_t mode = 0;  // a TmaLoadMode, TmaStoreMode or TmaReduceKind value, per op
  layout::CuteValue smem_layout, gmem_layout, cta_v_map;
  std::optional<int64_t> num_multicast;  // nullopt = not supplied
  int element_bits = 16;                 // element width, for the byte rules of steps 4 and 9
  bool sm100 = false;                    // target is sm_100a (else sm_90a)
  bool sparse = false;                   // a metadata operand is present (flag bit 5)
  bool s2t_descriptor = false;           // wraps a get_copy_s2t_smem_desc view (flag bit 12)
};

struct TmaBoxDim {
  int64_t extent = 1;  // box size along this TMA dimension
  size_t gmem_mode = 0;  // the flattened GMEM mode it walks
};

struct TmaPartitionOutcome {
  bool accepted = false;
  int failed_step = 0;     // 1..11 when rejected
  std::string diagnostic;  // the one diagnostic when rejected
  std::string reason;      // ptxsim's explanation of a rejection (not part of the diagnostic)
  // When accepted (and as far as computed when rejected at step 9 or later):
  TmaPartitionResult result{};
  std::string tensor_type;  // the text behind result.tma_tensor_type
  std::string atom_body;    // the text behind result.non_exec_atom_body
  std::vector<TmaBoxDim> tma_dims;  // descriptor dimensions, dim 0 first
  layout::Layout tma_layout;        // (box extents):(1@gmem_mode ...)
  layout::Layout smem_to_gmem;      // coalesce(cta_v_map o right_inverse(smem)): offset -> gmem coord
  int64_t issues_per_tile = 1;      // TMA transfers that cover the SMEM tile
};

TmaPartitionOutcome verify_tma_partition(const TmaPartitionInput& in);

// The swizzles a TMA SMEM layout may use: none (any Sw<0,M,S>), Sw<1,4,3> (32B), Sw<2,4,3> (64B),
// Sw<3,4,3> (128B). Returns the span in bytes (0 for none) or nullopt when unsupported.
std::optional<int> tma_swizzle_span(const layout::Swizzle& sw);

}  // namespace ptxsim::verifiers::tma
