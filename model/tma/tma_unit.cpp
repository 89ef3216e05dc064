#include "model/tma/tma_unit.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <vector>

#include "model/numerics/f32_ops.h"
#include "model/numerics/half_ops.h"
#include "model/numerics/minmax.h"

namespace ptxsim::model::tma {

using tmap::DataType;
using tmap::Interleave;
using tmap::MapType;
using tmap::TensorMap;

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kFault: return "fault";
    case Status::kBadDescriptor: return "bad descriptor";
    case Status::kBadOperand: return "bad operand";
    case Status::kUnsupported: return "unsupported";
    case Status::kUnimplemented: return "unimplemented";
    case Status::kSharedOutOfRange: return "shared memory out of range";
  }
  return "?";
}

namespace {

Outcome err(Status s, std::string m) {
  Outcome o;
  o.status = s;
  o.message = std::move(m);
  return o;
}

Outcome fault(uint64_t addr, size_t n, const char* what) {
  Outcome o;
  o.status = Status::kFault;
  o.fault_address = addr;
  char b[160];
  std::snprintf(b, sizeof b, "global %s of %zu bytes at 0x%llx failed", what, n, (unsigned long long)addr);
  o.message = b;
  return o;
}

uint64_t round_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

// How one value of the element type sits in global and shared memory.
enum class Fmt : uint8_t {
  kPlain,   // 1, 2, 4 or 8 bytes, same in both
  kNibble,  // 16U4_ALIGN8B: 4-bit values packed two per byte (low nibble first) in both
  kPadded,  // 16U4_ALIGN16B / 16U6_ALIGN16B: groups of 16 values, 8 / 12 packed bytes in global,
            // 16 bytes in shared memory (data first, then padding)
};

struct Geometry {
  Fmt fmt = Fmt::kPlain;
  uint32_t esize = 1;    // kPlain: bytes per element
  uint32_t gbytes = 0;   // kPadded: global bytes per 16-value group
  uint32_t count = 0;    // values per row
  uint32_t step0 = 1;    // traversal step along dimension 0
  uint32_t pitch = 0;    // shared bytes per row
  uint64_t nrows = 0;
  uint32_t L[5] = {1, 1, 1, 1, 1};  // tile: elements per dimension
  uint64_t bytes() const { return uint64_t(pitch) * nrows; }
  // The transaction count of a load: the image bytes, except for the padded types, whose
  // transaction is the packed data (8 / 12 bytes per 16 values, the bytes read from global memory)
  // and not the 16-byte groups the image occupies (docs/tensormap.md "Complete-tx byte count").
  // Padded types have no interleave (prepare()), so a row is count / 16 whole groups.
  uint64_t tx_bytes() const { return fmt == Fmt::kPadded ? uint64_t(count / 16) * gbytes * nrows : bytes(); }
};

// One row of the box image: `count` values along dimension 0 starting at column c0.
struct Row {
  bool in = false;     // all coordinates other than dimension 0 are inside the tensor
  uint64_t gbase = 0;  // address of column 0 of this row (valid when `in`)
  int64_t c0 = 0;
};

uint32_t interleave_bytes(Interleave i) { return i == Interleave::k16B ? 16 : i == Interleave::k32B ? 32 : 0; }

// Fills in the row shape for `count` values per row.
void row_shape(const TensorMap& m, uint32_t count, uint32_t step0, Geometry* g) {
  g->count = count;
  g->step0 = step0;
  const uint32_t il = interleave_bytes(m.interleave);
  switch (m.dtype) {
    case DataType::k16U4Align8B:
      g->fmt = Fmt::kNibble;
      g->pitch = uint32_t(round_up((uint64_t(count) + 1) / 2, il));
      break;
    case DataType::k16U4Align16B:
    case DataType::k16U6Align16B:
      g->fmt = Fmt::kPadded;
      g->gbytes = m.dtype == DataType::k16U4Align16B ? 8 : 12;
      g->pitch = uint32_t(round_up(uint64_t(count + 15) / 16 * 16, il));
      break;
    default:
      g->fmt = Fmt::kPlain;
      g->esize = m.element_bits() / 8;
      g->pitch = uint32_t(round_up(uint64_t(count) * g->esize, il));
      break;
  }
}

// Geometry of the image of a load in `mode` (also used by stores: kTile/kTileGather4/kIm2col);
// `w_halo` is the instruction's wHalo (im2col::w modes only).
bool geometry(const TensorMap& m, LoadMode mode, Geometry* g, uint32_t w_halo = 0) {
  switch (mode) {
    case LoadMode::kTile: {
      if (m.type != MapType::kTiled) return false;
      const bool il = m.interleave != Interleave::kNone;
      for (uint32_t d = 0; d < 5; ++d) g->L[d] = 1;
      for (uint32_t d = 0; d < m.rank; ++d)
        g->L[d] = (d == 0 && !il) ? m.box_dim[0] : (m.box_dim[d] + m.element_strides[d] - 1) / m.element_strides[d];
      row_shape(m, g->L[0], il ? m.element_strides[0] : 1, g);
      g->nrows = 1;
      for (uint32_t d = 1; d < m.rank; ++d) g->nrows *= g->L[d];
      return true;
    }
    case LoadMode::kTileGather4:
      if (m.type != MapType::kTiled || m.rank != 2) return false;
      row_shape(m, m.box_dim[0], 1, g);
      g->nrows = 4;
      return true;
    case LoadMode::kIm2col:
      if (m.type != MapType::kIm2col) return false;
      row_shape(m, m.channels_per_pixel, 1, g);
      g->nrows = m.pixels_per_column;
      return true;
    case LoadMode::kIm2colW:
    case LoadMode::kIm2colW128: {
      if (m.type != MapType::kIm2colWide) return false;
      const bool w128 = mode == LoadMode::kIm2colW128;
      row_shape(m, m.channels_per_pixel, 1, g);
      g->nrows = w128 ? 4 * (32 + uint64_t(w_halo)) : uint64_t(m.pixels_per_column) + w_halo;
      return true;
    }
  }
  return false;
}

// Rows of a tile box.
void tile_rows(const TensorMap& m, const Geometry& g, const Coords& c, std::vector<Row>* rows) {
  rows->resize(g.nrows);
  for (uint64_t r = 0; r < g.nrows; ++r) {
    Row& row = (*rows)[r];
    row.in = true;
    row.gbase = m.global_address;
    row.c0 = c.c[0];
    uint64_t rem = r;
    for (uint32_t d = 1; d < m.rank; ++d) {
      int64_t j = int64_t(rem % g.L[d]);
      rem /= g.L[d];
      int64_t coord = int64_t(c.c[d]) + j * int64_t(m.element_strides[d]);
      if (coord < 0 || uint64_t(coord) >= m.global_dim[d]) {
        row.in = false;
      } else {
        row.gbase += uint64_t(coord) * m.global_stride[d - 1];
      }
    }
  }
}

void gather4_rows(const TensorMap& m, const Coords& c, std::vector<Row>* rows) {
  rows->resize(4);
  for (uint32_t r = 0; r < 4; ++r) {
    Row& row = (*rows)[r];
    int64_t y = c.c[1 + r];
    row.c0 = c.c[0];
    row.in = y >= 0 && uint64_t(y) < m.global_dim[1];
    row.gbase = row.in ? m.global_address + uint64_t(y) * m.global_stride[0] : 0;
  }
}

// The im2col pixel walk (docs/tensormap.md "im2col"): pixels are taken W-fastest through the
// bounding box [lower, dim - 1 + upper] of each spatial dimension, stepping by the traversal
// stride, wrapping to the lower corner and carrying into H, D and then N.
Outcome im2col_rows(const TensorMap& m, const Coords& c, bool offsets, std::vector<Row>* rows) {
  const uint32_t nsp = m.rank - 2;
  int64_t pos[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, off[3] = {0, 0, 0};
  for (uint32_t s = 0; s < nsp; ++s) {
    lo[s] = m.lower_corner[s];
    hi[s] = int64_t(m.global_dim[1 + s]) - 1 + m.upper_corner[s];
    pos[s] = c.c[1 + s];
    off[s] = offsets ? c.im2col_offsets[s] : 0;
    if (pos[s] < lo[s] || pos[s] > hi[s])
      return err(Status::kBadOperand, "im2col: coordinate " + std::to_string(pos[s]) + " of spatial dimension " +
                                          std::to_string(s) + " is outside the bounding box [" + std::to_string(lo[s]) +
                                          ", " + std::to_string(hi[s]) + "]");
  }
  if (offsets) {
    const uint32_t lim = m.rank == 3 ? 0xFFFF : m.rank == 4 ? 0xFF : 0x1F;
    for (uint32_t s = 0; s < nsp; ++s)
      if (c.im2col_offsets[s] > lim)
        return err(Status::kBadOperand, "im2col offset " + std::to_string(c.im2col_offsets[s]) + " exceeds " +
                                            std::to_string(lim) + " for a " + std::to_string(m.rank) + "d tensor");
  }
  int64_t n = c.c[m.rank - 1];
  const uint64_t ndim = m.global_dim[m.rank - 1];
  rows->resize(m.pixels_per_column);
  for (uint32_t k = 0; k < m.pixels_per_column; ++k) {
    Row& row = (*rows)[k];
    row.c0 = c.c[0];
    row.in = n >= 0 && uint64_t(n) < ndim;
    row.gbase = m.global_address + (row.in ? uint64_t(n) * m.global_stride[m.rank - 2] : 0);
    for (uint32_t s = 0; s < nsp; ++s) {
      int64_t g = pos[s] + off[s];
      if (g < 0 || uint64_t(g) >= m.global_dim[1 + s]) row.in = false;
      else if (row.in) row.gbase += uint64_t(g) * m.global_stride[s];
    }
    // Advance to the next pixel.
    uint32_t s = 0;
    for (; s < nsp; ++s) {
      pos[s] += m.element_strides[1 + s];
      if (pos[s] <= hi[s]) break;
      pos[s] = lo[s];
    }
    if (s == nsp) ++n;
  }
  return {};
}

// The im2col::w / im2col::w::128 pixel walk (docs/tensormap.md "im2col::w"): H and D stay at the
// instruction's coordinates; W starts at W + wOffset and steps by the traversal stride through the
// bounding box [lower + wOffset, dimW - 1 + upper + wOffset], wrapping to its lower corner and the
// next image N. The image is `groups` groups (1 for ::w, 4 of 32 pixels for ::w::128), each
// followed by wHalo halo pixels that continue the walk.
// The map's wide mode and the instruction's im2colInfo ranges (PTX 9.7.9.27.1.2).
Outcome check_wide_operands(const TensorMap& m, LoadMode mode, const Coords& c) {
  const bool w128 = mode == LoadMode::kIm2colW128;
  const char* name = w128 ? ".im2col::w::128" : ".im2col::w";
  if ((m.wide_mode == tmap::Im2colWideMode::kW128) != w128)
    return err(Status::kBadOperand, std::string(name) + " needs a tensor map encoded with CU_TENSOR_MAP_IM2COL_WIDE_TYPE_" +
                                        (w128 ? "W128" : "W") + ", got " + tmap::describe(m));
  if (c.w_halo >= (w128 ? 32 : 512))
    return err(Status::kBadOperand, std::string(name) + ": wHalo " + std::to_string(c.w_halo) + " is not below " +
                                        (w128 ? "32" : "512"));
  if (c.w_offset >= 32)
    return err(Status::kBadOperand, std::string(name) + ": wOffset " + std::to_string(c.w_offset) + " is not below 32");
  return {};
}

Outcome im2col_wide_rows(const TensorMap& m, LoadMode mode, const Coords& c, std::vector<Row>* rows) {
  if (auto o = check_wide_operands(m, mode, c); !o.ok()) return o;
  const bool w128 = mode == LoadMode::kIm2colW128;
  const char* name = w128 ? ".im2col::w::128" : ".im2col::w";
  const int64_t lo = int64_t(m.lower_corner[0]) + c.w_offset;
  const int64_t hi = int64_t(m.global_dim[1]) - 1 + m.upper_corner[0] + c.w_offset;
  int64_t w = int64_t(c.c[1]) + c.w_offset, n = c.c[m.rank - 1];
  if (w > hi)
    return err(Status::kBadOperand, std::string(name) + ": the first pixel's W (" + std::to_string(w) +
                                        ", wOffset included) lies right of the bounding box [" + std::to_string(lo) +
                                        ", " + std::to_string(hi) + "]; only its left side may be outside");
  const uint64_t group = w128 ? 32 : m.pixels_per_column, groups = w128 ? 4 : 1;
  std::vector<std::pair<int64_t, int64_t>> walk((groups - 1) * group + group + c.w_halo);  // (w, n) of each step
  for (auto& p : walk) {
    p = {w, n};
    w += m.element_strides[1];
    if (w > hi) {
      w = lo;
      ++n;
    }
  }
  bool hd_in = true;  // H and D (dimensions 2..rank-2) are fixed
  uint64_t hd_off = 0;
  for (uint32_t d = 2; d + 1 < m.rank; ++d) {
    if (c.c[d] < 0 || uint64_t(c.c[d]) >= m.global_dim[d]) hd_in = false;
    else hd_off += uint64_t(c.c[d]) * m.global_stride[d - 1];
  }
  rows->clear();
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t j = 0; j < group + c.w_halo; ++j) {
      auto [pw, pn] = walk[g * group + j];
      Row row;
      row.c0 = c.c[0];
      row.in = hd_in && pw >= 0 && uint64_t(pw) < m.global_dim[1] && pn >= 0 && uint64_t(pn) < m.global_dim[m.rank - 1];
      if (row.in)
        row.gbase = m.global_address + hd_off + uint64_t(pw) * m.global_stride[0] + uint64_t(pn) * m.global_stride[m.rank - 2];
      rows->push_back(row);
    }
  return {};
}

// In-bound value range [js, je) of a row for step 1 (js == je when none).
void inbound_range(int64_t c0, uint32_t count, uint64_t dim0, uint32_t* js, uint32_t* je) {
  int64_t a = std::clamp<int64_t>(-c0, 0, count);
  int64_t b = std::clamp<int64_t>(int64_t(dim0) - c0, 0, count);
  *js = uint32_t(a);
  *je = uint32_t(std::max(a, b));
}

bool inbound(int64_t g0, uint64_t dim0) { return g0 >= 0 && uint64_t(g0) < dim0; }

// Shared-side placement of the image: checks alignment and range of every swizzled byte.
Outcome check_shared(const TensorMap& m, uint64_t bytes, size_t smem_size, uint32_t addr, const char* what) {
  const SwizzleInfo si = swizzle_info(m.swizzle);
  if (addr % si.alignment != 0)
    return err(Status::kBadOperand, std::string(what) + " shared address " + std::to_string(addr) + " must be " +
                                        std::to_string(si.alignment) + "-byte aligned with " + tmap::to_string(m.swizzle));
  if (bytes % 16 != 0)
    return err(Status::kBadOperand, "the bounding box is " + std::to_string(bytes) +
                                        " bytes in shared memory; PTX requires a multiple of 16 bytes");
  if (uint64_t(addr) + bytes > (1ull << 32))
    return err(Status::kSharedOutOfRange, "the box image wraps the 32-bit shared address space");
  // Swizzles move 8-byte blocks within 128-byte lines; check every block's destination (all fit
  // when the lines the image touches do).
  if (((uint64_t(addr) + bytes + 127) & ~uint64_t(127)) <= smem_size) return {};
  for (uint64_t i = 0; i < bytes; i += 8) {
    uint64_t a = swizzle_address(m.swizzle, uint32_t(addr + i));
    uint64_t n = std::min<uint64_t>(8, bytes - i);
    if (a + n > smem_size) {
      char b[200];
      std::snprintf(b, sizeof b,
                    "%s: byte %llu of the %llu-byte box image maps to shared address %llu, beyond the %zu-byte window",
                    what, (unsigned long long)i, (unsigned long long)bytes, (unsigned long long)a, smem_size);
      return err(Status::kSharedOutOfRange, b);
    }
  }
  return {};
}

// Common checks of a map against an operation; fills geometry and rows.
Outcome prepare(const TensorMap& m, LoadMode mode, const Coords& c, bool is_store, Geometry* g,
                std::vector<Row>* rows) {
  tmap::Validity v = tmap::check(m);
  if (!v) return err(Status::kBadDescriptor, "invalid tensor map: " + v.field + ": " + v.message);
  if ((mode == LoadMode::kIm2colW || mode == LoadMode::kIm2colW128) && m.type != MapType::kIm2colWide)
    return err(Status::kBadOperand, "im2col::w modes need a tensor map made by cuTensorMapEncodeIm2colWide");
  if (!geometry(m, mode, g, c.w_halo)) {
    const char* need = mode == LoadMode::kIm2col ? "an im2col tensor map"
                       : mode == LoadMode::kTileGather4 ? "a 2-D tiled tensor map" : "a tiled tensor map";
    return err(Status::kBadOperand, std::string("this mode needs ") + need + ", got " + tmap::describe(m));
  }
  if (mode == LoadMode::kTileGather4) {
    if (m.box_dim[1] != 1)
      return err(Status::kBadOperand, ".tile::gather4/.tile::scatter4 need boxDim[1] = 1 (got " +
                                          std::to_string(m.box_dim[1]) + ")");
    if (m.interleave != Interleave::kNone)
      return err(Status::kBadOperand, ".tile::gather4/.tile::scatter4 do not support an interleaved layout");
  }
  if (g->fmt == Fmt::kPadded) {
    if (c.c[0] % 128 != 0)
      return err(Status::kBadOperand, "the first tensor coordinate (" + std::to_string(c.c[0]) +
                                          ") must be a multiple of 128 for " + tmap::to_string(m.dtype));
    if (m.interleave != Interleave::kNone)
      return err(Status::kUnsupported, "ptxsim: padded sub-byte types with an interleaved layout");
  }
  if (is_store) {
    // PTX 9.7.9.25.5.1, restrictions on the .global.shared::cta direction.
    const uint32_t ncoords = mode == LoadMode::kTileGather4 ? 5 : m.rank;
    for (uint32_t i = 0; i < ncoords; ++i)
      if (c.c[i] < 0)
        return err(Status::kBadOperand, "tensorCoords[" + std::to_string(i) + "] = " + std::to_string(c.c[i]) +
                                            ": stores and reductions need non-negative coordinates");
    if (mode == LoadMode::kIm2col)
      for (uint32_t s = 0; s < m.rank - 2; ++s)
        if (m.lower_corner[s] < 0 || m.upper_corner[s] > 0)
          return err(Status::kBadOperand, "stores and reductions in im2col mode need a bounding box inside the "
                                          "tensor (lower corner >= 0, upper corner <= 0)");
  }
  switch (mode) {
    case LoadMode::kTile: tile_rows(m, *g, c, rows); break;
    case LoadMode::kTileGather4: gather4_rows(m, c, rows); break;
    case LoadMode::kIm2col:
      if (auto o = im2col_rows(m, c, !is_store, rows); !o.ok()) return o;
      break;
    case LoadMode::kIm2colW:
    case LoadMode::kIm2colW128:
      if (auto o = im2col_wide_rows(m, mode, c, rows); !o.ok()) return o;
      break;
  }
  return {};
}

LoadMode as_load_mode(StoreMode s) {
  switch (s) {
    case StoreMode::kTile: return LoadMode::kTile;
    case StoreMode::kTileScatter4: return LoadMode::kTileGather4;
    case StoreMode::kIm2colNoOffs: return LoadMode::kIm2col;
  }
  return LoadMode::kTile;
}

// Reads the (unswizzled) image out of shared memory.
std::vector<uint8_t> gather_shared(const TensorMap& m, uint64_t bytes, std::span<const uint8_t> smem, uint32_t src) {
  std::vector<uint8_t> img(bytes);
  for (uint64_t i = 0; i < bytes; i += 8) {
    uint32_t a = swizzle_address(m.swizzle, uint32_t(src + i));
    std::memcpy(img.data() + i, smem.data() + a, std::min<uint64_t>(8, bytes - i));
  }
  return img;
}

// ---- reductions --------------------------------------------------------------------------------
template <class T>
T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store_le(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// old = op(old, src) on one element of `esize` bytes.
void combine(RedOp op, DataType t, uint8_t* old_p, const uint8_t* src_p) {
  using num::Round;
  switch (t) {
    case DataType::kUInt32: case DataType::kInt32: {
      uint32_t a = load_le<uint32_t>(old_p), b = load_le<uint32_t>(src_p), r = a;
      const bool s = t == DataType::kInt32;
      switch (op) {
        case RedOp::kAdd: r = a + b; break;
        case RedOp::kMin: r = s ? uint32_t(std::min(int32_t(a), int32_t(b))) : std::min(a, b); break;
        case RedOp::kMax: r = s ? uint32_t(std::max(int32_t(a), int32_t(b))) : std::max(a, b); break;
        case RedOp::kInc: r = a >= b ? 0 : a + 1; break;
        case RedOp::kDec: r = (a == 0 || a > b) ? b : a - 1; break;
        case RedOp::kAnd: r = a & b; break;
        case RedOp::kOr: r = a | b; break;
        case RedOp::kXor: r = a ^ b; break;
      }
      store_le(old_p, r);
      return;
    }
    case DataType::kUInt64: case DataType::kInt64: {
      uint64_t a = load_le<uint64_t>(old_p), b = load_le<uint64_t>(src_p), r = a;
      const bool s = t == DataType::kInt64;
      switch (op) {
        case RedOp::kAdd: r = a + b; break;
        case RedOp::kMin: r = s ? uint64_t(std::min(int64_t(a), int64_t(b))) : std::min(a, b); break;
        case RedOp::kMax: r = s ? uint64_t(std::max(int64_t(a), int64_t(b))) : std::max(a, b); break;
        case RedOp::kAnd: r = a & b; break;
        case RedOp::kOr: r = a | b; break;
        case RedOp::kXor: r = a ^ b; break;
        default: break;
      }
      store_le(old_p, r);
      return;
    }
    case DataType::kFloat32: case DataType::kFloat32Ftz: case DataType::kTFloat32: case DataType::kTFloat32Ftz: {
      uint32_t a = load_le<uint32_t>(old_p), b = load_le<uint32_t>(src_p), r = a;
      if (op == RedOp::kAdd) r = num::add_f32(a, b, Round::RN, t == DataType::kFloat32Ftz);
      else if (op == RedOp::kAnd) r = a & b;
      else if (op == RedOp::kOr) r = a | b;
      else if (op == RedOp::kXor) r = a ^ b;
      store_le(old_p, r);
      return;
    }
    case DataType::kFloat64: {
      uint64_t a = load_le<uint64_t>(old_p), b = load_le<uint64_t>(src_p), r = a;
      if (op == RedOp::kAnd) r = a & b;
      else if (op == RedOp::kOr) r = a | b;
      else if (op == RedOp::kXor) r = a ^ b;
      store_le(old_p, r);
      return;
    }
    case DataType::kFloat16: case DataType::kBFloat16: {
      uint16_t a = load_le<uint16_t>(old_p), b = load_le<uint16_t>(src_p), r = a;
      const bool h = t == DataType::kFloat16;
      if (op == RedOp::kAdd) r = h ? num::add_f16(a, b, Round::RN) : num::add_bf16(a, b, Round::RN);
      else if (op == RedOp::kMin) r = h ? num::min_f16(a, b) : num::min_bf16(a, b);
      else if (op == RedOp::kMax) r = h ? num::max_f16(a, b) : num::max_bf16(a, b);
      store_le(old_p, r);
      return;
    }
    default:
      return;
  }
}

}  // namespace

bool reduction_supported(RedOp op, DataType t) {
  const uint32_t bits = tmap::valid(t) ? tmap::element_bits(t) : 0;
  switch (op) {
    case RedOp::kAdd:
      return t == DataType::kUInt32 || t == DataType::kInt32 || t == DataType::kUInt64 ||
             t == DataType::kFloat32 || t == DataType::kFloat32Ftz || t == DataType::kFloat16 ||
             t == DataType::kBFloat16;
    case RedOp::kMin:
    case RedOp::kMax:
      return t == DataType::kUInt32 || t == DataType::kInt32 || t == DataType::kUInt64 || t == DataType::kInt64 ||
             t == DataType::kFloat16 || t == DataType::kBFloat16;
    case RedOp::kInc:
    case RedOp::kDec:
      return t == DataType::kUInt32;
    case RedOp::kAnd:
    case RedOp::kOr:
    case RedOp::kXor:
      return !tmap::is_packed(t) && (bits == 32 || bits == 64);
  }
  return false;
}

BoxBytes box_bytes(const TensorMap& m, LoadMode mode, uint32_t w_halo) {
  Geometry g;
  if (!tmap::check(m) || !geometry(m, mode, &g, w_halo)) return {};
  const uint64_t image = g.bytes(), tx = g.tx_bytes();
  if (image > 0xFFFFFFFFull || tx > 0xFFFFFFFFull) return {};
  return {uint32_t(image), uint32_t(tx)};
}

uint32_t box_image_bytes(const TensorMap& m, LoadMode mode, uint32_t w_halo) { return box_bytes(m, mode, w_halo).image; }

uint32_t box_tx_bytes(const TensorMap& m, LoadMode mode, uint32_t w_halo) { return box_bytes(m, mode, w_halo).tx; }

// f32 bits rounded to tf32 (10 fraction bits), to nearest even; Inf stays, a NaN becomes 0x7FFFE000.
uint32_t round_to_tf32(uint32_t x) {
  if ((x & 0x7F800000u) == 0x7F800000u) return (x & 0x007FFFFFu) ? 0x7FFFE000u : x;
  return (x + 0xFFFu + ((x >> 13) & 1u)) & 0xFFFFE000u;  // a carry into the exponent is right
}

// Rounds the in-bounds f32 elements of one row of the image (out-of-bounds fill is left as is).
void round_row_to_tf32(uint8_t* out, const Row& row, uint32_t count, int64_t step0, uint64_t dim0) {
  for (uint32_t j = 0; j < count; ++j)
    if (inbound(row.c0 + int64_t(j) * step0, dim0))
      store_le<uint32_t>(out + 4 * size_t(j), round_to_tf32(load_le<uint32_t>(out + 4 * size_t(j))));
}

Outcome load(const TensorMap& m, LoadMode mode, const Coords& c, const GlobalRead& read, std::span<uint8_t> smem,
             uint32_t dst) {
  Geometry g;
  std::vector<Row> rows;
  // Check the image size before enumerating rows (the row count is bounded by the window then).
  const bool wide = mode == LoadMode::kIm2colW || mode == LoadMode::kIm2colW128;
  if (wide && m.type == MapType::kIm2colWide)
    if (auto o = check_wide_operands(m, mode, c); !o.ok()) return o;
  if (tmap::check(m) && geometry(m, mode, &g, c.w_halo)) {
    if (auto o = check_shared(m, g.bytes(), smem.size(), dst, "dstMem"); !o.ok()) return o;
  }
  if (auto o = prepare(m, mode, c, false, &g, &rows); !o.ok()) return o;
  if (m.dtype == DataType::k16U6Align16B && m.swizzle == tmap::Swizzle::k128BAtom64B)
    return err(Status::kUnsupported, "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B with 16U6_ALIGN16B is store-only");

  const uint64_t bytes = g.bytes();
  // mask: which bytes are written (the padded format's padding is not); only that format has one.
  const bool padded = g.fmt == Fmt::kPadded;
  // (Scratch reused by the thread's loads: zeroed only where rows leave gaps, interleave padding or
  // the nibble format's partial writes; plain rows are written whole below.)
  thread_local std::vector<uint8_t> img;
  if (img.size() < bytes) img.resize(bytes);
  if (g.fmt != Fmt::kPlain || uint64_t(g.count) * g.esize != g.pitch) std::memset(img.data(), 0, bytes);
  std::vector<uint8_t> mask(padded ? bytes : 0, 1);
  const bool nan_fill = m.oob_fill == tmap::OobFill::kNanRequestZeroFma && tmap::is_float(m.dtype) && !tmap::is_packed(m.dtype);
  const uint64_t dim0 = m.global_dim[0];
  // An in-bounds element of a TFLOAT32 map is rounded to tf32 on the way (RNE; a NaN becomes
  // 0x7FFFE000), as an H200 does (traces/h200/sm_90a/tma_tf32_map*); FLOAT32_FTZ copies unchanged.
  const bool to_tf32 = m.dtype == DataType::kTFloat32 || m.dtype == DataType::kTFloat32Ftz;

  for (uint64_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    uint8_t* out = img.data() + r * g.pitch;
    if (g.fmt == Fmt::kPlain) {
      const size_t n = size_t(g.count) * g.esize;
      // The in-bound run of a unit-stride row (the whole row, commonly: then no fill first).
      uint32_t js = 0, je = 0;
      if (row.in && g.step0 == 1) inbound_range(row.c0, g.count, dim0, &js, &je);
      if (js != 0 || je != g.count) {
        if (nan_fill) {
          for (size_t i = 0; i < n; i += 2) store_le<uint16_t>(out + i, kOobNanF16);  // tma_unit.h
        } else {
          std::memset(out, 0, n);
        }
      }
      if (!row.in) continue;
      if (g.step0 == 1) {
        if (je > js) {
          uint64_t a = row.gbase + uint64_t(row.c0 + js) * g.esize;
          size_t n = size_t(je - js) * g.esize;
          if (!read(a, out + size_t(js) * g.esize, n)) return fault(a, n, "read");
        }
      } else {
        for (uint32_t j = 0; j < g.count; ++j) {
          int64_t g0 = row.c0 + int64_t(j) * g.step0;
          if (!inbound(g0, dim0)) continue;
          uint64_t a = row.gbase + uint64_t(g0) * g.esize;
          if (!read(a, out + size_t(j) * g.esize, g.esize)) return fault(a, g.esize, "read");
        }
      }
      if (to_tf32) round_row_to_tf32(out, row, g.count, g.step0, dim0);
    } else if (g.fmt == Fmt::kNibble) {
      if (!row.in) continue;  // zero-filled already
      for (uint32_t j = 0; j < g.count; ++j) {
        int64_t g0 = row.c0 + int64_t(j) * g.step0;
        if (!inbound(g0, dim0)) continue;
        uint64_t a = row.gbase + uint64_t(g0) / 2;
        uint8_t byte;
        if (!read(a, &byte, 1)) return fault(a, 1, "read");
        uint8_t nib = (byte >> (4 * (g0 & 1))) & 0xF;
        out[j / 2] |= uint8_t(nib << (4 * (j & 1)));
      }
    } else {  // kPadded
      for (uint32_t q = 0; q < g.count / 16; ++q) {
        uint8_t* grp = out + 16 * q;
        std::memset(grp + g.gbytes, 0, 16 - g.gbytes);
        std::memset(mask.data() + r * g.pitch + 16 * q + g.gbytes, 0, 16 - g.gbytes);  // padding: not written
        int64_t g0 = row.c0 + 16 * int64_t(q);
        if (!row.in || !inbound(g0, dim0)) continue;
        uint64_t a = row.gbase + uint64_t(g0) * tmap::element_bits(m.dtype) / 8;
        if (!read(a, grp, g.gbytes)) return fault(a, g.gbytes, "read");
      }
    }
  }

  // Scatter the image through the swizzle (8-byte blocks stay contiguous under every mode).
  if (!padded && m.swizzle == tmap::Swizzle::kNone) {
    std::memcpy(smem.data() + dst, img.data(), bytes);
  } else if (!padded && swizzle_info(m.swizzle).atom >= 16 && dst % 16 == 0 && bytes % 16 == 0) {
    // Whole 16-byte chunks, which every swizzle but the 8-byte flip keeps intact: each such swizzle
    // XORs address bits 7 and up (`pattern` of them) into the bits from `shift` (swizzle.h).
    const uint32_t probe = 0x7F80u;  // bits 7-14 set: what the swizzle XORs in, at its place
    const uint32_t flips = swizzle_address(m.swizzle, probe) ^ probe;
    const uint32_t shift = flips ? uint32_t(std::countr_zero(flips)) : 0, pattern = flips >> shift;
    uint8_t* const out = smem.data();
    const uint8_t* const in = img.data();
    for (uint64_t i = 0; i < bytes; i += 16) {
      const uint32_t a = uint32_t(dst + i);
      std::memcpy(out + (a ^ (((a >> 7) & pattern) << shift)), in + i, 16);
    }
  } else {
    for (uint64_t i = 0; i < bytes; i += 8) {
      uint32_t a = swizzle_address(m.swizzle, uint32_t(dst + i));
      uint64_t n = std::min<uint64_t>(8, bytes - i);
      if (!padded) {
        if (n == 8) std::memcpy(smem.data() + a, img.data() + i, 8);  // a fixed size: one move
        else std::memcpy(smem.data() + a, img.data() + i, n);
        continue;
      }
      for (uint64_t k = 0; k < n; ++k)
        if (mask[i + k]) smem[a + k] = img[i + k];
    }
  }
  Outcome o;
  o.tx_bytes = uint32_t(g.tx_bytes());
  return o;
}

Outcome store(const TensorMap& m, StoreMode smode, const Coords& c, std::span<const uint8_t> smem, uint32_t src,
              const GlobalWrite& write) {
  const LoadMode mode = as_load_mode(smode);
  Geometry g;
  std::vector<Row> rows;
  if (tmap::check(m) && geometry(m, mode, &g)) {
    if (auto o = check_shared(m, g.bytes(), smem.size(), src, "srcMem"); !o.ok()) return o;
  }
  if (auto o = prepare(m, mode, c, true, &g, &rows); !o.ok()) return o;
  if (m.dtype == DataType::k16U4Align16B)
    return err(Status::kUnsupported, "stores do not support 16U4_ALIGN16B (.b4x16_p64)");
  if (g.fmt == Fmt::kNibble && (g.step0 != 1 || c.c[0] % 2 != 0))
    return err(Status::kUnsupported, "ptxsim: 16U4_ALIGN8B stores need an even first coordinate and no dimension-0 stride");

  const uint64_t bytes = g.bytes();
  std::vector<uint8_t> img = gather_shared(m, bytes, smem, src);
  const uint64_t dim0 = m.global_dim[0];
  for (uint64_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    if (!row.in) continue;
    const uint8_t* in = img.data() + r * g.pitch;
    if (g.fmt == Fmt::kPlain && g.step0 != 1) {
      for (uint32_t j = 0; j < g.count; ++j) {
        int64_t g0 = row.c0 + int64_t(j) * g.step0;
        if (!inbound(g0, dim0)) continue;
        uint64_t a = row.gbase + uint64_t(g0) * g.esize;
        if (!write(a, in + size_t(j) * g.esize, g.esize)) return fault(a, g.esize, "write");
      }
    } else if (g.fmt == Fmt::kPlain || g.fmt == Fmt::kNibble) {
      uint32_t js, je;
      inbound_range(row.c0, g.count, dim0, &js, &je);
      if (je <= js) continue;
      uint64_t a;
      size_t n;
      const uint8_t* p;
      if (g.fmt == Fmt::kPlain) {
        a = row.gbase + uint64_t(row.c0 + js) * g.esize;
        n = size_t(je - js) * g.esize;
        p = in + size_t(js) * g.esize;
      } else {  // even c0 and even dim0: whole bytes
        a = row.gbase + uint64_t(row.c0 + js) / 2;
        n = (je - js) / 2;
        p = in + js / 2;
      }
      if (n && !write(a, p, n)) return fault(a, n, "write");
    } else {  // kPadded, 16U6_ALIGN16B (.b6p2x16): 16 bytes holding 6-bit values -> 12 packed bytes
      for (uint32_t q = 0; q < g.count / 16; ++q) {
        int64_t g0 = row.c0 + 16 * int64_t(q);
        if (!inbound(g0, dim0)) continue;
        uint8_t packed[12] = {};
        for (uint32_t k = 0; k < 16; ++k) {
          uint32_t v = in[16 * q + k] & 0x3F;
          uint32_t bit = 6 * k;
          packed[bit / 8] |= uint8_t(v << (bit % 8));
          if (bit % 8 > 2) packed[bit / 8 + 1] |= uint8_t(v >> (8 - bit % 8));
        }
        uint64_t a = row.gbase + uint64_t(g0) * 6 / 8;
        if (!write(a, packed, 12)) return fault(a, 12, "write");
      }
    }
  }
  Outcome o;
  o.tx_bytes = uint32_t(bytes);
  return o;
}

Outcome reduce(const TensorMap& m, RedOp op, StoreMode smode, const Coords& c, std::span<const uint8_t> smem,
               uint32_t src, const GlobalRead& read, const GlobalWrite& write) {
  if (smode == StoreMode::kTileScatter4)
    return err(Status::kBadOperand, "cp.reduce.async.bulk.tensor has no .tile::scatter4 mode");
  const LoadMode mode = as_load_mode(smode);
  Geometry g;
  std::vector<Row> rows;
  if (tmap::check(m) && geometry(m, mode, &g)) {
    if (auto o = check_shared(m, g.bytes(), smem.size(), src, "srcMem"); !o.ok()) return o;
  }
  if (auto o = prepare(m, mode, c, true, &g, &rows); !o.ok()) return o;
  if (!reduction_supported(op, m.dtype))
    return err(Status::kUnsupported, "this reduction operation is not defined for " + tmap::to_string(m.dtype));

  const uint64_t bytes = g.bytes();
  std::vector<uint8_t> img = gather_shared(m, bytes, smem, src);
  const uint64_t dim0 = m.global_dim[0];
  std::vector<uint8_t> buf;
  for (uint64_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    if (!row.in) continue;
    const uint8_t* in = img.data() + r * g.pitch;
    auto rmw = [&](uint32_t j0, uint32_t j1, int64_t g0) -> Outcome {
      // elements j0..j1-1 (step 1) starting at column g0
      uint64_t a = row.gbase + uint64_t(g0) * g.esize;
      size_t n = size_t(j1 - j0) * g.esize;
      buf.resize(n);
      if (!read(a, buf.data(), n)) return fault(a, n, "read");
      for (uint32_t j = j0; j < j1; ++j)
        combine(op, m.dtype, buf.data() + size_t(j - j0) * g.esize, in + size_t(j) * g.esize);
      if (!write(a, buf.data(), n)) return fault(a, n, "write");
      return {};
    };
    if (g.step0 == 1) {
      uint32_t js, je;
      inbound_range(row.c0, g.count, dim0, &js, &je);
      if (je > js)
        if (auto o = rmw(js, je, row.c0 + js); !o.ok()) return o;
    } else {
      for (uint32_t j = 0; j < g.count; ++j) {
        int64_t g0 = row.c0 + int64_t(j) * g.step0;
        if (!inbound(g0, dim0)) continue;
        if (auto o = rmw(j, j + 1, g0); !o.ok()) return o;
      }
    }
  }
  Outcome o;
  o.tx_bytes = uint32_t(bytes);
  return o;
}

}  // namespace ptxsim::model::tma
