#include "model/tmem/tmem.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace ptxsim::model::tmem {

std::string to_string(TmemAddr a) {
  char b[64];
  std::snprintf(b, sizeof b, "lane %u, column %u (0x%08x)", a.lane, a.column, a.encode());
  return b;
}

std::optional<std::string> TmemAllocator::check_ncols(uint32_t ncols) {
  if (ncols < 32 || ncols > kColumns || !std::has_single_bit(ncols))
    return "nCols = " + std::to_string(ncols) + " is not a power of two from 32 to 512";
  return std::nullopt;
}

std::optional<std::string> TmemAllocator::use_cta_group(unsigned g) {
  if (cta_group_ == 0) cta_group_ = g;
  if (cta_group_ != g)
    return "uses .cta_group::" + std::to_string(g) + " but an earlier tcgen05 instruction of this CTA used .cta_group::" +
           std::to_string(cta_group_) + " (all tcgen05 instructions of a kernel must use the same .cta_group)";
  return std::nullopt;
}

TmemAllocator::Outcome TmemAllocator::alloc(uint32_t ncols, unsigned cta_group, uint32_t line) {
  if (auto e = check_ncols(ncols)) return {Status::Error, 0, *e};
  if (auto e = use_cta_group(cta_group)) return {Status::Error, 0, *e};
  if (relinquished_)
    return {Status::Error, 0, "alloc after tcgen05.relinquish_alloc_permit: this CTA gave up its permit to allocate"};
  // First fit over 32-column granules.
  for (uint32_t c = 0; c + ncols <= kColumns; c += kGranule) {
    bool clash = false;
    for (const Allocation& a : live_)
      if (c < a.column + a.ncols && a.column < c + ncols) {
        clash = true;
        c = a.column + a.ncols - kGranule;  // continue after this allocation
        break;
      }
    if (!clash) {
      live_.push_back({c, ncols, line});
      return {Status::Ok, c, {}};
    }
  }
  return {Status::Blocked, 0, {}};
}

std::optional<std::string> TmemAllocator::dealloc(uint32_t column, uint32_t ncols, unsigned cta_group) {
  if (auto e = check_ncols(ncols)) return e;
  if (auto e = use_cta_group(cta_group)) return e;
  auto it = std::find_if(live_.begin(), live_.end(), [&](const Allocation& a) { return a.column == column; });
  if (it == live_.end() || it->ncols != ncols) {
    std::string s = "columns [" + std::to_string(column) + ", " + std::to_string(column + ncols) +
                    ") are not one live allocation; live: ";
    if (live_.empty()) s += "none";
    for (size_t i = 0; i < live_.size(); ++i)
      s += (i ? ", [" : "[") + std::to_string(live_[i].column) + ", " + std::to_string(live_[i].column + live_[i].ncols) +
           ")";
    return s;
  }
  live_.erase(it);
  ++version_;
  return std::nullopt;
}

std::optional<std::string> TmemAllocator::relinquish(unsigned cta_group) {
  if (auto e = use_cta_group(cta_group)) return e;
  relinquished_ = true;
  return std::nullopt;
}

bool TmemAllocator::allocated(uint32_t column, uint32_t ncols) const {
  for (uint32_t c = column; c < column + ncols; ++c) {
    bool in = false;
    for (const Allocation& a : live_) in |= c >= a.column && c < a.column + a.ncols;
    if (!in) return false;
  }
  return true;
}

uint32_t TmemAllocator::free_columns() const {
  uint32_t used = 0;
  for (const Allocation& a : live_) used += a.ncols;
  return kColumns - used;
}

}  // namespace ptxsim::model::tmem
