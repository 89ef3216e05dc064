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

uint32_t swizzle_bytes(Layout l) {
  switch (l) {
    case Layout::Swizzle128B: return 128;
    case Layout::Swizzle64B: return 64;
    case Layout::Swizzle32B: return 32;
    default: return 0;
  }
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

namespace {
tma::Swizzle tma_swizzle(Layout l) {
  switch (l) {
    case Layout::Swizzle128B: return tma::Swizzle::k128B;
    case Layout::Swizzle64B: return tma::Swizzle::k64B;
    case Layout::Swizzle32B: return tma::Swizzle::k32B;
    default: return tma::Swizzle::kNone;
  }
}
}  // namespace

uint32_t element_address(const SmemDesc& d, const Operand& op, uint32_t mn, uint32_t k) {
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
  return tma::swizzle_address(tma_swizzle(d.layout), a - shift) + shift;
}

}  // namespace ptxsim::model::wgmma
