#include "model/wgmma/smem_desc.h"

#include <cstdio>

#include "model/tma/swizzle.h"

namespace ptxsim::model::wgmma {

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Interleave: return "interleave (no swizzle)";
    case Layout::Swizzle128B: return "128B swizzle";
    case Layout::Swizzle64B: return "64B swizzle";
    case Layout::Swizzle32B: return "32B swizzle";
  }
  return "?";
}


SmemDesc decode(uint64_t w) {
  SmemDesc d;
  d.start_address = uint32_t(w & 0x3FFF);
  d.leading_byte_offset = uint32_t((w >> 16) & 0x3FFF);
  d.stride_byte_offset = uint32_t((w >> 32) & 0x3FFF);
  d.base_offset = uint32_t((w >> 49) & 0x7);
  d.layout = Layout((w >> 62) & 0x3);
  d.reserved = w & kReservedMask;
  return d;
}

uint64_t encode(const SmemDesc& d) {
  return uint64_t(d.start_address & 0x3FFF) | uint64_t(d.leading_byte_offset & 0x3FFF) << 16 |
         uint64_t(d.stride_byte_offset & 0x3FFF) << 32 | uint64_t(d.base_offset & 0x7) << 49 |
         uint64_t(d.layout) << 62 | (d.reserved & kReservedMask);
}

std::vector<std::string> validate(const SmemDesc& d) {
  std::vector<std::string> out;
  auto hex = [](uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return std::string(b);
  };
  if (d.reserved)
    out.push_back("reserved bits " + hex(d.reserved) + " are set (only bits 13:0, 29:16, 45:32, 51:49 and 63:62 are fields)");
  // The base offset aligns a swizzle pattern; without swizzling the ISA gives it no meaning and no
  // rule, and the address model ignores it (as for tcgen05, docs/tcgen05.md).
  return out;
}

}  // namespace ptxsim::model::wgmma
