// The wgmma shared-memory matrix descriptor (sm_90a; PTX ISA 9.7.15.5.1.2.2 "Matrix Descriptor
// Format") and the canonical shared-memory layouts it describes (PTX ISA 9.7.15.5.1.2 "Shared
// Memory Matrix Layout", 9.7.15.5.1.2.1.3 "Canonical Layouts"); docs/matrix-units.md explains both.
//
// The descriptor is one 64-bit register value:
//   bits 13:0   start address          (byte address & 0x3FFFF) >> 4
//   bits 29:16  leading byte offset    (LBO & 0x3FFFF) >> 4
//   bits 45:32  stride byte offset     (SBO & 0x3FFFF) >> 4
//   bits 51:49  base offset            phase of the swizzle pattern (swizzled modes only)
//   bits 63:62  layout / swizzle mode  0 none (interleave), 1 128B, 2 64B, 3 32B
// Every other bit is reserved.
//
// A matrix operand is an (MN x K) array: A is M x K, B is N x K (B transposed). "K-major" means
// consecutive k are adjacent in memory (imm-trans = 0), "MN-major" that consecutive m / n are
// (imm-trans = 1, .f16/.bf16 only). Element (mn, k) lives at (byte offsets; W = swizzle width in
// bytes, eb = element bits, kb = k * eb / 8, mb = mn * eb / 8):
//   K-major,  none:     start + (mn/8)*SBO + (mn%8)*16 + (kb/16)*LBO + kb%16
//   K-major,  W-swizzle: start + (mn/8)*SBO + (mn%8)*W  + kb                 (LBO unused)
//   MN-major, none:     start + (mb/16)*SBO + mb%16 + (k%8)*16 + (k/8)*LBO
//   MN-major, W-swizzle: start + (mb/W)*LBO  + mb%W  + (k%8)*W  + (k/8)*SBO
// and a swizzled mode then XORs address bits like the TMA's swizzle of the same width
// (model/tma/swizzle.h: 128B A[6:4] ^= A[9:7], 64B A[5:4] ^= A[8:7], 32B A[4] ^= A[7]) with the
// phase bits A[9:7] taken relative to the pattern start: (A >> 7) - base_offset.
#pragma once
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "model/tma/swizzle.h"

namespace ptxsim::model::wgmma {

enum class Layout : uint8_t { Interleave = 0, Swizzle128B = 1, Swizzle64B = 2, Swizzle32B = 3 };
const char* layout_name(Layout l);
// Bytes in one swizzled row (0 for the interleave / no-swizzle mode).
inline uint32_t swizzle_bytes(Layout l) {
  switch (l) {
    case Layout::Swizzle128B: return 128;
    case Layout::Swizzle64B: return 64;
    case Layout::Swizzle32B: return 32;
    default: return 0;
  }
}

struct SmemDesc {
  uint32_t start_address = 0;        // bits 13:0, in 16-byte units
  uint32_t leading_byte_offset = 0;  // bits 29:16, in 16-byte units
  uint32_t stride_byte_offset = 0;   // bits 45:32, in 16-byte units
  uint32_t base_offset = 0;          // bits 51:49
  Layout layout = Layout::Interleave;  // bits 63:62
  uint64_t reserved = 0;             // the reserved bits, in place (bits 15:14, 31:30, 48:46, 61:52)

  uint32_t start_bytes() const { return start_address << 4; }
  uint32_t lbo_bytes() const { return leading_byte_offset << 4; }
  uint32_t sbo_bytes() const { return stride_byte_offset << 4; }
};

constexpr uint64_t kReservedMask = (uint64_t{3} << 14) | (uint64_t{3} << 30) | (uint64_t{7} << 46) |
                                   (uint64_t{0x3FF} << 52);

SmemDesc decode(uint64_t word);
uint64_t encode(const SmemDesc& d);
// The PTX "matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4".
constexpr uint32_t encode_bytes(uint32_t x) { return (x & 0x3FFFFu) >> 4; }

// Problems with a descriptor, each naming the field and the rule broken (empty when valid).
std::vector<std::string> validate(const SmemDesc& d);

// The operand an address computation is for.
struct Operand {
  bool mn_major = false;  // imm-trans = 1
  int elem_bits = 16;     // 1 (b1), 8, 16, 32
};

namespace detail {
inline tma::Swizzle tma_swizzle(Layout l) {
  switch (l) {
    case Layout::Swizzle128B: return tma::Swizzle::k128B;
    case Layout::Swizzle64B: return tma::Swizzle::k64B;
    case Layout::Swizzle32B: return tma::Swizzle::k32B;
    default: return tma::Swizzle::kNone;
  }
}
}  // namespace detail

// The shared::cta byte address of element (mn, k); for sub-byte elements, the byte holding it
// (bit (k * elem_bits) % 8 of that byte). Inline: wgmma.mma_async computes one per 16-byte chunk
// of its operands.
inline uint32_t element_address(const SmemDesc& d, const Operand& op, uint32_t mn, uint32_t k) {
  const uint32_t W = swizzle_bytes(d.layout);
  const uint32_t eb = uint32_t(op.elem_bits);
  uint32_t off;
  if (!op.mn_major) {
    const uint32_t kb = k * eb / 8;
    off = W == 0 ? (mn / 8) * d.sbo_bytes() + (mn % 8) * 16 + (kb / 16) * d.lbo_bytes() + kb % 16
                 : (mn / 8) * d.sbo_bytes() + (mn % 8) * W + kb;
  } else {
    const uint32_t mb = mn * eb / 8;
    off = W == 0 ? (mb / 16) * d.sbo_bytes() + mb % 16 + (k % 8) * 16 + (k / 8) * d.lbo_bytes()
                 : (mb / W) * d.lbo_bytes() + mb % W + (k % 8) * W + (k / 8) * d.sbo_bytes();
  }
  const uint32_t a = d.start_bytes() + off;
  if (W == 0) return a;
  // The pattern's phase counts from its start: remove the base offset, swizzle, put it back.
  const uint32_t shift = d.base_offset << 7;
  return tma::swizzle_address(detail::tma_swizzle(d.layout), a - shift) + shift;
}

namespace detail {
// What the chunk-by-chunk address forms below share: the descriptor's fields in bytes, worked out
// once, and the last step of element_address, placing an offset from the start address: the
// W-byte swizzles XOR address bits [4, 4 + log2(W / 16)) with the phase bits from bit 7
// (tma::swizzle_address for 32B, 64B and 128B), the phase counted from the pattern's start.
class ChunkAddresses {
 protected:
  explicit ChunkAddresses(const SmemDesc& d)
      : start_(d.start_bytes()), sbo_(d.sbo_bytes()), lbo_(d.lbo_bytes()), w_(swizzle_bytes(d.layout)),
        w_log2_(w_ ? uint32_t(std::countr_zero(w_)) : 0), phase_mask_(w_ ? w_ / 16 - 1 : 0),
        shift_(d.base_offset << 7) {}
  uint32_t place(uint32_t off) const {
    if (w_ == 0) return start_ + off;
    const uint32_t a = start_ + off - shift_;
    return (a ^ (((a >> 7) & phase_mask_) << 4)) + shift_;
  }
  uint32_t start_, sbo_, lbo_, w_, w_log2_, phase_mask_, shift_;
};
}  // namespace detail

// element_address of a K-major operand chunk by chunk, with the layout's case analysis done once
// per descriptor: (mn, j) gives the address of row mn's 16-byte chunk j (bytes 16j..16j+15 of its
// K extent, elements k = 16j * 8 / elem_bits on), for any element width. The same arithmetic as
// element_address with kb = 16j. wgmma.mma_async reads its K-major operands this way.
class KMajorChunks : detail::ChunkAddresses {
 public:
  explicit KMajorChunks(const SmemDesc& d) : ChunkAddresses(d) {}
  uint32_t operator()(uint32_t mn, uint32_t j) const {
    return place(w_ == 0 ? (mn / 8) * sbo_ + (mn % 8) * 16 + j * lbo_ : (mn / 8) * sbo_ + (mn % 8) * w_ + 16 * j);
  }
};

// element_address of an MN-major operand: (mn, k) gives the address of element (mn, k) (for any
// mn; wgmma.mma_async asks for the first of each 16-byte chunk along MN), with the layout's case
// analysis done once per descriptor and the divisions by the swizzle width W as shifts.
class MNMajorChunks : detail::ChunkAddresses {
 public:
  MNMajorChunks(const SmemDesc& d, int elem_bits) : ChunkAddresses(d), eb_(uint32_t(elem_bits)) {}
  uint32_t operator()(uint32_t mn, uint32_t k) const {
    const uint32_t mb = mn * eb_ / 8;
    return place(w_ == 0 ? (mb / 16) * sbo_ + mb % 16 + (k % 8) * 16 + (k / 8) * lbo_
                         : (mb >> w_log2_) * lbo_ + (mb & (w_ - 1)) + ((k % 8) << w_log2_) + (k / 8) * sbo_);
  }

 private:
  uint32_t eb_;
};

}  // namespace ptxsim::model::wgmma
