#include "model/tcgen05/decompress.h"

#include <cstring>

namespace ptxsim::model::tcgen05 {

const char* src_fmt_name(CpSrcFmt f) { return f == CpSrcFmt::kB6x16P32 ? ".b8x16.b6x16_p32" : ""; }

void widen_chunk(CpSrcFmt f, const uint8_t* src, uint8_t* dst) {
  if (f == CpSrcFmt::kNone) {
    std::memcpy(dst, src, 16);
    return;
  }
  for (uint32_t i = 0; i < 16; ++i) {
    const uint32_t bit = 6 * i, at = bit / 8;
    const uint32_t two = uint32_t(src[at]) | uint32_t(at + 1 < 12 ? src[at + 1] : 0) << 8;
    dst[i] = uint8_t((two >> (bit % 8)) & kSixBitContainerMask);
  }
}

}  // namespace ptxsim::model::tcgen05
