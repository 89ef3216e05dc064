// Bit layout of the 128-byte CUtensorMap.
//
// NVIDIA documents no layout. Bytes 0x00..0x3F follow the publicly known Hopper-era format (the
// 64-byte descriptor NVIDIA's TensorRT-LLM Hopper FMHA code writes without the driver; see
// docs/tensormap.md "Binary layout" and /work/shared/reference/ptx-facts.md §1.2), so a descriptor
// encoded by the real driver for the features that format covers decodes correctly. Everything
// marked [ptxsim] below is a choice of this simulator for facts that are not public: where the
// sm_100 swizzle atomicity and the im2col::w mode live, and what bytes 0x40..0x7F hold.
//
// A Field names one bit range of the little-endian object: `byte` is the offset of the word it
// lives in, `lsb` and `width` the bit range within that word read little-endian (the window may be
// up to 64 bits wide). All multi-byte fields are little-endian.
//
//  off   bits    field                       encoding
//  0x00  63:0    global_address              full 64-bit address (16-byte aligned)
//  0x08  0       type                        0 tiled, 1 im2col (both im2col and im2col::w)
//        3:1     version                     the driver writes 0; decode accepts any value
//        6:4     rank_m1                     tensor rank - 1 (0..4)
//        10:7    elemtype                    PTX .elemtype numbering (not the driver enum); the
//                                            driver writes TFLOAT32 as .f32 (7) with round_tf32
//        12:11   interleave                  0 none, 1 16B, 2 32B
//        14:13   swizzle_mode                0 none, 1 32B, 2 64B, 3 128B
//        15      fill_mode                   0 zero, 1 OOB-NaN
//        16      round_tf32                  f32 -> tf32 rounding request
//        18:17   l2_promotion                0 none, 1 64B, 2 128B, 3 256B
//        20:19   swizzle_atomicity [ptxsim]  PTX .swizzle_atomicity numbering: 0 16B, 1 32B,
//                                            2 32B + 8B flip, 3 64B
//        21      im2col_wide [ptxsim]        1: an im2col::w / im2col::w::128 map (type = 1)
//        22      im2col_wide_w128 [ptxsim]   wide mode: 0 W, 1 W128
//        31:23   reserved (0)
//  0x0C  4x32    stride_lo[i], i = 0..3      bits 31:0 of (globalStrides[i] >> 4) (dimension i+1)
//  0x1C  4i+3:4i stride_hi[i]                bits 35:32 of (globalStrides[i] >> 4)
//  0x20  5x32    dim_m1[d], d = 0..4         globalDim[d] - 1
//  0x34  3d+2:3d estride_m1[d], d = 0..4     elementStrides[d] - 1
//        31:24   box0_m1                     tiled: boxDim[0] - 1 (written for every rank [ptxsim:
//                                            TRT-LLM writes it only for rank > 1]);
//                                            im2col: channelsPerPixel - 1
//  0x38  8(d-1)+7:8(d-1) box_m1[d], d=1..4   tiled: boxDim[d] - 1
//        15:0 / 31:16                        im2col: lower / upper corner, packed per rank:
//                                            rank 3 (and wide): one int16 W;
//                                            rank 4: int8 W in bits 7:0, int8 H in bits 15:8;
//                                            rank 5: int5 W 4:0, H 9:5, D 14:10
//  0x3C  9:0     pixels_m1                   im2col: pixelsPerColumn - 1 (tiled: 0)
//  0x40  31:0    box_bytes [driver]          bytes one load of the box moves: the product over the
//                                            dimensions of ceil(boxDim / elementStride) times the
//                                            element size (im2col: channelsPerPixel x
//                                            pixelsPerColumn x the element size)
//  0x48  31:0    swizzle_code [driver]       0x10 none, 0x100 32B, 0x200 64B, 0x400 128B
//  0x50..0x7F    zero
//  The driver fills 0x40..0x4F; decode ignores them (tensormap.replace does not update them, and
//  nothing shows the hardware reading them). Both were fitted to 110 maps an H200's driver (580)
//  encoded (traces/h200/tensormaps.trace.json, docs/tensormap.md "What the driver writes"); the
//  4-bit and 6-bit packed types and the sm_100 swizzle atomicities were not among them.
#pragma once
#include <cstdint>
#include <cstring>

#include "model/tensormap/enums.h"

namespace ptxsim::model::tmap {

struct Field {
  uint32_t byte;   // offset of the little-endian word
  uint32_t lsb;    // lowest bit within that word
  uint32_t width;  // number of bits (1..64); lsb + width <= 64
};

namespace field {
inline constexpr Field kGlobalAddress{0x00, 0, 64};
inline constexpr Field kType{0x08, 0, 1};
inline constexpr Field kVersion{0x08, 1, 3};
inline constexpr Field kRankM1{0x08, 4, 3};
inline constexpr Field kElemType{0x08, 7, 4};
inline constexpr Field kInterleave{0x08, 11, 2};
inline constexpr Field kSwizzleMode{0x08, 13, 2};
inline constexpr Field kFillMode{0x08, 15, 1};
inline constexpr Field kRoundTf32{0x08, 16, 1};
inline constexpr Field kL2Promotion{0x08, 17, 2};
inline constexpr Field kSwizzleAtomicity{0x08, 19, 2};  // [ptxsim]
inline constexpr Field kIm2colWide{0x08, 21, 1};        // [ptxsim]
inline constexpr Field kIm2colWideW128{0x08, 22, 1};    // [ptxsim]
inline constexpr Field kControlReserved{0x08, 23, 9};
constexpr Field stride_lo(uint32_t i) { return {0x0C + 4 * i, 0, 32}; }  // i = 0..3
constexpr Field stride_hi(uint32_t i) { return {0x1C, 4 * i, 4}; }       // i = 0..3
constexpr Field dim_m1(uint32_t d) { return {0x20 + 4 * d, 0, 32}; }     // d = 0..4
constexpr Field estride_m1(uint32_t d) { return {0x34, 3 * d, 3}; }      // d = 0..4
inline constexpr Field kBox0M1{0x34, 24, 8};  // tiled boxDim[0]-1 / im2col channelsPerPixel-1
constexpr Field box_m1(uint32_t d) { return {0x38, 8 * (d - 1), 8}; }    // d = 1..4 (tiled)
inline constexpr Field kBoxBytes{0x40, 0, 32};                            // [driver]
inline constexpr Field kSwizzleCode{0x48, 0, 32};                         // [driver]
inline constexpr Field kLowerCorner{0x38, 0, 16};                         // im2col
inline constexpr Field kUpperCorner{0x38, 16, 16};                        // im2col
inline constexpr Field kPixelsM1{0x3C, 0, 10};                            // im2col
}  // namespace field

// The 128 bytes with typed field access. Layout-compatible with CUtensorMap.
struct RawTensorMap {
  alignas(64) uint8_t bytes[128] = {};

  uint64_t get(Field f) const {
    uint64_t w = load_window(f.byte);
    uint64_t m = f.width >= 64 ? ~0ull : ((1ull << f.width) - 1);
    return (w >> f.lsb) & m;
  }
  // Writes the low `width` bits of v into the field; other bits of the object are unchanged.
  void set(Field f, uint64_t v) {
    uint64_t w = load_window(f.byte);
    uint64_t m = f.width >= 64 ? ~0ull : ((1ull << f.width) - 1);
    w = (w & ~(m << f.lsb)) | ((v & m) << f.lsb);
    store_window(f.byte, w);
  }
  // Sign-extending read of a field (corners).
  int64_t get_signed(Field f) const {
    uint64_t v = get(f);
    if (f.width < 64 && (v >> (f.width - 1)) & 1) v |= ~0ull << f.width;
    return static_cast<int64_t>(v);
  }

  static RawTensorMap from(const void* p) {
    RawTensorMap r;
    std::memcpy(r.bytes, p, 128);
    return r;
  }
  CUtensorMap to_cu() const {
    CUtensorMap m;
    std::memcpy(&m, bytes, 128);
    return m;
  }

 private:
  // The 8 bytes starting at `byte` (fewer at the end of the object), little-endian.
  uint64_t load_window(uint32_t byte) const {
    uint64_t w = 0;
    for (uint32_t i = 0; i < 8 && byte + i < 128; ++i) w |= uint64_t(bytes[byte + i]) << (8 * i);
    return w;
  }
  void store_window(uint32_t byte, uint64_t w) {
    for (uint32_t i = 0; i < 8 && byte + i < 128; ++i) bytes[byte + i] = uint8_t(w >> (8 * i));
  }
};
static_assert(sizeof(RawTensorMap) == 128);

}  // namespace ptxsim::model::tmap
