// tensormap.replace.tile.<field> (PTX ISA 9.7.9.28) on the 128-byte object: rewrites the bits of
// one field and nothing else.
//
//   field                 ord     new_val (as the instruction receives it)      stored as
//   global_address        -       .b64 address                                  64-bit address
//   rank                  -       .b32 rank - 1 (zero-based, as PTX says)        rank_m1
//   box_dim               0..4    .b32 box size, 1..256                          size - 1
//   global_dim            0..4    .b32 size, 1..2^32-1                           size - 1
//   global_stride         0..3    .b64 byte stride of dimension ord+1            (stride >> 4) split
//   element_stride        0..4    .b32 traversal stride, 1..8                    stride - 1
//   elemtype              -       immediate, PTX numbering 0..15                 verbatim
//   interleave_layout     -       immediate 0 none, 1 16B, 2 32B                 verbatim
//   swizzle_mode          -       immediate 0 none, 1 32B, 2 64B, 3 128B         verbatim
//   swizzle_atomicity     -       immediate 0 16B, 1 32B, 2 32B+8B flip, 3 64B   verbatim
//   fill_mode             -       immediate 0 zero, 1 OOB-NaN                    verbatim
//
// Natural (not minus-one) new_val for sizes and strides, and byte (not >>4) strides, follow the
// CUDA >= 12.5 convention (docs/tensormap.md "tensormap.replace"). Values outside these ranges,
// swizzle_mode 4 (96B, sm_103a only), and a target map whose type bit says im2col (PTX only defines
// `.tile`) are reported as errors and leave the object unchanged; a value that fits but makes the
// descriptor inconsistent (say a box whose inner dimension is no longer a multiple of 16 bytes) is
// written, and the TMA unit rejects the descriptor when it is used.
#pragma once
#include <cstdint>
#include <string>

namespace ptxsim::model::tmap {

enum class ReplaceField : uint8_t {
  kGlobalAddress,
  kRank,
  kBoxDim,
  kGlobalDim,
  kGlobalStride,
  kElementStride,
  kElemType,
  kInterleaveLayout,
  kSwizzleMode,
  kSwizzleAtomicity,
  kFillMode,
};

struct ReplaceResult {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
};

// True for the fields that take an `ord` operand (box_dim, global_dim, global_stride, element_stride).
bool replace_field_has_ordinal(ReplaceField f);
// The PTX spelling of a field (".global_address", ...).
const char* replace_field_name(ReplaceField f);

// Applies the replacement to the 128 bytes at `object` (ord is ignored for fields without one).
ReplaceResult tensormap_replace(void* object, ReplaceField f, uint32_t ord, uint64_t new_val);

}  // namespace ptxsim::model::tmap
