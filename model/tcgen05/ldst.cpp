#include "model/tcgen05/ldst.h"

#include <bit>

namespace ptxsim::model::tcgen05 {

const char* shape_name(LdStShape s) {
  switch (s) {
    case LdStShape::k32x32b: return ".32x32b";
    case LdStShape::k16x64b: return ".16x64b";
    case LdStShape::k16x128b: return ".16x128b";
    case LdStShape::k16x256b: return ".16x256b";
    case LdStShape::k16x32bx2: return ".16x32bx2";
  }
  return "?";
}

namespace {
uint32_t base_regs(LdStShape s) { return s == LdStShape::k16x128b ? 2 : s == LdStShape::k16x256b ? 4 : 1; }
}  // namespace

uint32_t regs_per_thread(LdStShape s, uint32_t num) {
  if (num == 0 || num > 128 || !std::has_single_bit(num)) return 0;
  uint32_t r = base_regs(s) * num;
  return r <= 128 ? r : 0;
}

uint32_t lanes_touched(LdStShape s) { return s == LdStShape::k32x32b ? 32 : 16; }

uint32_t columns_spanned(LdStShape s, uint32_t num, uint32_t half_splitoff) {
  switch (s) {
    case LdStShape::k32x32b: return num;
    case LdStShape::k16x64b: return 2 * num;
    case LdStShape::k16x128b: return 4 * num;
    case LdStShape::k16x256b: return 8 * num;
    case LdStShape::k16x32bx2: return num + half_splitoff;
  }
  return 0;
}

CellOffset cell_of(LdStShape s, uint32_t t, uint32_t reg, uint32_t half_splitoff) {
  switch (s) {
    case LdStShape::k32x32b: return {t, reg};
    case LdStShape::k16x64b: return {t / 4 + 8 * (t % 2), (t / 2) % 2 + 2 * reg};
    case LdStShape::k16x128b: {
      const uint32_t i = reg / 2, h = reg % 2;
      return {t / 4 + 8 * h, t % 4 + 4 * i};
    }
    case LdStShape::k16x256b: {
      const uint32_t i = reg / 4, h = (reg / 2) % 2, k = reg % 2;
      return {t / 4 + 8 * h, 2 * (t % 4) + k + 8 * i};
    }
    case LdStShape::k16x32bx2: return {t % 16, reg + (t >= 16 ? half_splitoff : 0)};
  }
  return {};
}

}  // namespace ptxsim::model::tcgen05
