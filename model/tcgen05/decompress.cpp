#include "model/tcgen05/decompress.h"

#include <cstring>

namespace ptxsim::model::tcgen05 {

const char* src_fmt_name(CpSrcFmt f) {
  switch (f) {
    case CpSrcFmt::kB6x16P32: return ".b8x16.b6x16_p32";
    case CpSrcFmt::kB4x16P64: return ".b8x16.b4x16_p64";
    default: return "";
  }
}

void widen_chunk(CpSrcFmt f, const uint8_t* src, uint8_t* dst) {
  if (f == CpSrcFmt::kNone) {
    std::memcpy(dst, src, 16);
    return;
  }
  const uint32_t w = f == CpSrcFmt::kB6x16P32 ? 6 : 4, packed = 2 * w;  // 12 or 8 packed bytes
  for (uint32_t i = 0; i < 16; ++i) {
    const uint32_t bit = w * i, at = bit / 8;
    const uint32_t two = uint32_t(src[at]) | uint32_t(at + 1 < packed ? src[at + 1] : 0) << 8;
    dst[i] = to_holder(two >> (bit % 8), w);
  }
}

}  // namespace ptxsim::model::tcgen05
