// Shared-memory swizzles of the TMA (PTX ISA 5.5.7 "Swizzling Modes", CUDA C++ Programming Guide
// "The Swizzle Modes"). A swizzle is an XOR of low address bits with bits 7 and up of the *absolute*
// shared-memory byte address, so it is a function of where the box lands, not only of the offset
// within the box. Every mode is an involution (applying it twice gives the address back) and keeps
// each 16-byte chunk (8-byte half for the flip) intact.
//
//   mode                      bit formula on byte address A       CuTe       repeats  smem alignment
//   NONE                      -                                   -          -        16
//   32B                       A[4]   ^= A[7]                      Sw<1,4,3>  256 B    16
//   64B                       A[5:4] ^= A[8:7]                    Sw<2,4,3>  512 B    16
//   128B                      A[6:4] ^= A[9:7]                    Sw<3,4,3>  1024 B   16
//   128B_ATOM_32B             A[6:5] ^= A[8:7]                    Sw<2,5,2>  512 B    32
//   128B_ATOM_32B_FLIP_8B     A[6:5] ^= A[8:7], then A[3] ^= A[7] -          512 B    32
//   128B_ATOM_64B             A[6]   ^= A[7]                      Sw<1,6,1>  256 B    64
//
// "Repeats" is the period of the pattern (the dstMem alignment at which the PTX "swizzle base
// offset" is 0); "smem alignment" is what ptxsim requires of dstMem: 16 bytes for every bounding
// box (PTX 5.5.3.1), 32 / 64 for the 32B / 64B atomicity sub-modes (PTX 5.5.7). The 8-byte flip
// (swap of the two 8-byte halves of each 16-byte chunk on every other 128-byte line) is PTX's prose;
// "every other line" = odd lines (A[7] = 1) is ptxsim's reading of the figure.
#pragma once
#include <cstdint>

#include "model/tensormap/enums.h"

namespace ptxsim::model::tma {

using tmap::Swizzle;

struct SwizzleInfo {
  uint32_t span;       // bytes within which chunks move (0 none, 32, 64, 128)
  uint32_t atom;       // bytes kept intact (16, 32, 64; 8 for the flip mode; 0 none)
  uint32_t repeat;     // period of the pattern in bytes (0 none)
  uint32_t alignment;  // required dstMem / srcMem alignment in bytes
};
SwizzleInfo swizzle_info(Swizzle s);

// The swizzled location of absolute shared byte address `addr`.
constexpr uint32_t swizzle_address(Swizzle s, uint32_t a) {
  switch (s) {
    case Swizzle::kNone: return a;
    case Swizzle::k32B: return a ^ (((a >> 7) & 1u) << 4);
    case Swizzle::k64B: return a ^ (((a >> 7) & 3u) << 4);
    case Swizzle::k128B: return a ^ (((a >> 7) & 7u) << 4);
    case Swizzle::k128BAtom32B: return a ^ (((a >> 7) & 3u) << 5);
    case Swizzle::k128BAtom32BFlip8B: {
      uint32_t b = a ^ (((a >> 7) & 3u) << 5);
      return b ^ (((a >> 7) & 1u) << 3);
    }
    case Swizzle::k128BAtom64B: return a ^ (((a >> 7) & 1u) << 6);
  }
  return a;
}

// Offset form: where byte `offset` of a box image placed at shared address `base` lands, relative
// to `base`. (May be negative when base is not aligned to 128 bytes: the swizzle moves data
// within 128-byte lines, and the first line can start before base.)
constexpr int64_t swizzle_offset(Swizzle s, uint32_t base, uint32_t offset) {
  return int64_t(swizzle_address(s, base + offset)) - int64_t(base);
}

}  // namespace ptxsim::model::tma
