#include "verifiers/tma/descriptor.h"

#include <algorithm>

namespace ptxsim::verifiers::tma {

using layout::CuteValue;

namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Why an SMEM layout cannot receive a TMA box, or "" when it can.
std::string smem_incompatibility(const CuteValue& smem, int64_t box_elements, int64_t inner_box_bits,
                                 int* span_out) {
  if (!smem.is_layout_like()) return "the SMEM operand is not a layout";
  int span = 0;
  if (smem.kind == CuteValue::Kind::Composed) {
    auto s = tma_swizzle_span(smem.composed.swizzle);
    if (!s) return smem.composed.swizzle.str() + " is not a TMA swizzle";
    span = *s;
  }
  *span_out = span;
  const layout::Layout& l = smem.plain();
  if (!l.is_static() || l.stride().has_basis()) return "the SMEM layout is not static with integer strides";
  if (l.static_size() != box_elements)
    return "the SMEM layout holds " + std::to_string(l.static_size()) + " elements, the box " +
           std::to_string(box_elements);
  try {
    if (layout::right_inverse(l).static_size() != l.static_size())
      return "the SMEM layout is not a bijection onto [0, " + std::to_string(l.static_size()) + ")";
  } catch (const layout::LayoutError& e) {
    return e.what();
  }
  if (span != 0 && inner_box_bits > int64_t{span} * 8)
    return "the inner box is " + std::to_string(inner_box_bits / 8) + " bytes, wider than the " +
           std::to_string(span) + "-byte swizzle span";
  return "";
}

}  // namespace

// ---- tx arithmetic -----------------------------------------------------------------------------

namespace {
constexpr __int128 kSaturate = __int128{1} << 62;  // products saturate here instead of overflowing
int64_t saturate(__int128 v) { return static_cast<int64_t>(v > kSaturate ? kSaturate : v); }
}  // namespace

int64_t box_elements(const std::vector<int64_t>& box, const std::vector<int64_t>& element_strides) {
  __int128 n = 1;
  for (size_t i = 0; i < box.size(); ++i) {
    int64_t es = (i > 0 && i < element_strides.size() && element_strides[i] > 0) ? element_strides[i] : 1;
    n *= box[i] <= 0 ? 0 : (box[i] + es - 1) / es;
    if (n > kSaturate) n = kSaturate;
  }
  return saturate(n);
}

int64_t tiled_tx_bytes(const std::vector<int64_t>& box, const std::vector<int64_t>& element_strides,
                       int element_bits) {
  return saturate((static_cast<__int128>(box_elements(box, element_strides)) * element_bits + 7) / 8);
}

int64_t im2col_tx_bytes(int64_t pixels_per_column, int64_t channels_per_pixel, int element_bits) {
  return saturate((static_cast<__int128>(pixels_per_column) * channels_per_pixel * element_bits + 7) / 8);
}

// ---- descriptor --------------------------------------------------------------------------------

TmaDescriptorOutcome verify_tma_descriptor(const TmaDescriptorInput& in) {
  TmaDescriptorOutcome out;
  auto reject = [&](std::string d, std::string reason = "") {
    out.accepted = false;
    out.diagnostic = std::move(d);
    out.reason = std::move(reason);
    return out;
  };
  // The builder's require()s, in its order.
  if (in.memory_space != "global")
    return reject("expected the TMA descriptor tensor to be in global memory, but got " + in.memory_space);
  int rank = 0;
  if (in.rank)
    rank = *in.rank;
  else if (!in.global_dims.empty())
    rank = static_cast<int>(in.global_dims.size());
  else if (!in.box.empty())
    rank = static_cast<int>(in.box.size());
  else if (in.layout && in.layout->rank())
    rank = static_cast<int>(*in.layout->rank());
  out.rank = rank;
  if (rank < 1 || rank > 5)
    return reject("expected a TMA descriptor rank between 1 and 5, but got " + std::to_string(rank));
  if (in.layout) {
    const CuteValue& l = *in.layout;
    if (l.kind == CuteValue::Kind::Composed)
      return reject("expected a non-composed layout for the TMA descriptor, but got " + l.type_str());
    bool unit = false;
    if (l.kind == CuteValue::Kind::Layout)
      for (const auto& [s, d] : l.layout.flat_modes()) unit = unit || (d.is_static_int() && d.value == 1);
    if (l.kind != CuteValue::Kind::Layout || l.layout.stride().has_basis() || !unit)
      return reject("expected a TMA descriptor layout with integer strides and a static unit stride, but got " +
                    l.type_str());
    if (static_cast<int>(l.layout.rank()) != rank)
      return reject("expected a rank-" + std::to_string(rank) + " layout for the TMA descriptor, but got " +
                    l.type_str());
  }
  if (in.mode == TmaDescMode::Im2col) {
    if (rank < 3)
      return reject("expected a rank between 3 and 5 for an im2col descriptor, but got " + std::to_string(rank));
    if (in.device_born) return reject("expected a host-born descriptor for im2col mode, but got a device-born one");
  }
  auto count = [&](const std::vector<int64_t>& v, size_t want, const char* what) -> std::string {
    if (v.empty() || v.size() == want) return "";
    return "expected " + std::to_string(want) + " " + what + " for a rank-" + std::to_string(rank) +
           " descriptor, but got " + std::to_string(v.size());
  };
  if (in.box.size() != static_cast<size_t>(rank))
    return reject("expected " + std::to_string(rank) + " box dimensions for a rank-" + std::to_string(rank) +
                  " descriptor, but got " + std::to_string(in.box.size()));
  for (const auto& msg : {count(in.global_dims, rank, "global dimensions"),
                          count(in.global_strides, rank - 1, "global strides (dimensions 1..rank-1)"),
                          count(in.element_strides, rank, "element strides")})
    if (!msg.empty()) return reject(msg);

  // Stage 3b, verbatim, in the catalogue's order.
  if ((in.descriptor_address && *in.descriptor_address % 128 != 0) ||
      (in.descriptor_alignment && *in.descriptor_alignment < 128))
    return reject(diag::kDescAlignment);
  const int64_t inner_bits = saturate(static_cast<__int128>(in.box[0]) * in.element_bits);
  out.inner_box_bytes = inner_bits / 8;
  out.box_bytes = tiled_tx_bytes(in.box, in.element_strides, in.element_bits);
  if (inner_bits % 128 != 0)
    return reject(diag::kDescBoxDim0, "box[0] = " + std::to_string(in.box[0]) + " elements of " +
                                          std::to_string(in.element_bits) + " bits is " + std::to_string(inner_bits) +
                                          " bits");
  if (in.smem_layout) {
    std::string why = smem_incompatibility(*in.smem_layout, box_elements(in.box, in.element_strides), inner_bits,
                                           &out.swizzle_span);
    if (!why.empty()) return reject(diag::kDescSmemLayout, why);
  }
  if (std::any_of(in.paddings.begin(), in.paddings.end(), [](double p) { return p != 0.0; })) {
    switch (in.op) {
      case TmaOp::Load: return reject(diag::kDescLoadPadding);
      case TmaOp::Store: return reject("TmaStore only support zero padding now");
      case TmaOp::Reduce: return reject("TmaReduce only support zero padding now");
    }
  }
  // The driver's encoding limits (ptxsim's additions).
  for (size_t i = 0; i < in.box.size(); ++i)
    if (in.box[i] < 1 || in.box[i] > 256)
      return reject("expected every box dimension to be between 1 and 256, but got " + std::to_string(in.box[i]) +
                    " at dimension " + std::to_string(i));
  for (size_t i = 0; i < in.element_strides.size(); ++i)
    if (in.element_strides[i] < 1 || in.element_strides[i] > 8)
      return reject("expected every element stride to be between 1 and 8, but got " +
                    std::to_string(in.element_strides[i]) + " at dimension " + std::to_string(i));
  for (size_t i = 0; i < in.global_dims.size(); ++i)
    if (in.global_dims[i] < 1 || in.global_dims[i] > (int64_t{1} << 32))
      return reject("expected every global dimension to be between 1 and 2^32, but got " +
                    std::to_string(in.global_dims[i]) + " at dimension " + std::to_string(i));
  for (size_t i = 0; i < in.global_strides.size(); ++i) {
    int64_t st = in.global_strides[i];
    if (st <= 0 || st % 16 != 0 || st >= (int64_t{1} << 40))
      return reject("expected every global stride to be a positive multiple of 16 bytes below 2^40, but got " +
                    std::to_string(st) + " at dimension " + std::to_string(i + 1));
  }
  out.accepted = true;
  return out;
}

// ---- atom --------------------------------------------------------------------------------------

TmaAtomOutcome verify_tma_atom(const TmaAtomInput& in) {
  TmaAtomOutcome out;
  auto reject = [&](std::string d, std::string reason = "") {
    out.accepted = false;
    out.diagnostic = std::move(d);
    out.reason = std::move(reason);
    return out;
  };
  if (!in.kernel_spec) return reject(diag::kKernelSpec);
  const std::string want_atom = std::string("tma_") + op_name(in.op);
  if (in.atom != want_atom) return reject("expect a " + want_atom + " atom type", "the atom is " + in.atom);
  if (in.tma_box.size() != in.atom_box.size())
    return reject(diag::kAtomBoxLength, "tmaBoxDim " + list(in.tma_box) + " against atomBoxDim " + list(in.atom_box));
  if (!in.coordinates.empty() && in.coordinates.size() != in.tma_box.size())
    return reject("expects " + std::to_string(in.tma_box.size()) + " coordinates, but got " +
                  std::to_string(in.coordinates.size()));
  out.atom_bytes = in.mode == TmaDescMode::Im2col
                       ? im2col_tx_bytes(in.pixels_per_column, in.channels_per_pixel, in.element_bits)
                       : tiled_tx_bytes(in.atom_box, in.element_strides, in.element_bits);
  out.tx_count = out.atom_bytes;
  out.expect_tx = saturate(static_cast<__int128>(out.atom_bytes) * std::max<int64_t>(in.num_multicast, 1));
  for (auto it = in.coordinates.rbegin(); it != in.coordinates.rend(); ++it) out.ptx_coordinates.push_back(*it);
  if (in.op == TmaOp::Load) {
    if (in.num_multicast < 1 || in.num_multicast > 16)
      return reject("expected num_multicast between 1 and 16, but got " + std::to_string(in.num_multicast));
    if (in.num_multicast > 1 && out.atom_bytes < 128)
      return reject(diag::kAtomMcast, "one atom deposits " + std::to_string(out.atom_bytes) + " bytes");
  } else if (in.num_multicast != 1) {
    return reject("expected num_multicast of 1 for a TMA " + std::string(op_name(in.op)) + ", but got " +
                  std::to_string(in.num_multicast));
  }
  if (in.tx_count && *in.tx_count != out.tx_count)
    return reject("expected tx_count = " + std::to_string(out.tx_count) + " bytes, but got " +
                  std::to_string(*in.tx_count));
  if (in.expect_tx && *in.expect_tx != out.expect_tx)
    return reject("expected expect_tx = " + std::to_string(out.expect_tx) + " bytes per receiving CTA, but got " +
                  std::to_string(*in.expect_tx));
  if (in.tma_idx) {
    if (!in.device_born && in.num_host_tmas && *in.tma_idx >= *in.num_host_tmas) return reject(diag::kTmaIdxHost);
    if (in.device_born && in.num_device_tmas && *in.tma_idx >= *in.num_device_tmas)
      return reject(diag::kTmaIdxDevice);
  }
  out.accepted = true;
  return out;
}

// ---- tile --------------------------------------------------------------------------------------

std::optional<int> element_type_bits(const std::string& t) {
  static const std::pair<const char*, int> kTypes[] = {
      {"bf16", 16}, {"f16", 16},  {"i16", 16},   {"u16", 16},   {"s16", 16},   {"b16", 16},   {"f32", 32},
      {"tf32", 32}, {"i32", 32},  {"u32", 32},   {"s32", 32},   {"b32", 32},   {"f64", 64},   {"i64", 64},
      {"u64", 64},  {"s64", 64},  {"b64", 64},   {"i8", 8},     {"u8", 8},     {"s8", 8},     {"b8", 8},
      {"e4m3", 8},  {"e5m2", 8},  {"f8e4m3", 8}, {"f8e5m2", 8}, {"f8E4M3FN", 8}, {"f8E5M2", 8}, {"e2m3", 6},
      {"e3m2", 6},  {"e2m1", 4},  {"i4", 4},     {"u4", 4},
  };
  for (const auto& [name, bits] : kTypes)
    if (t == name) return bits;
  return std::nullopt;
}

TmaTileOutcome verify_tma_tile(const TmaTileInput& in) {
  TmaTileOutcome out;
  auto reject = [&](std::string d, std::string reason = "") {
    out.accepted = false;
    out.diagnostic = std::move(d);
    out.reason = std::move(reason);
    return out;
  };
  out.tile_type = "!cuda_tile.tile<";
  for (const auto& d : in.shape) out.tile_type += (d ? std::to_string(*d) : std::string("?")) + "x";
  out.tile_type += in.element_type + ">";
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  // Stage 1.
  for (const auto& d : in.shape)
    if (!d || *d <= 0) return reject(diag::kTilePositive + out.tile_type);
  for (const auto& d : in.shape)
    if (!is_pow2(*d)) return reject(diag::kTilePow2 + out.tile_type);
  __int128 n = 1;
  for (const auto& d : in.shape) {
    n *= *d;
    if (n > (__int128{1} << 62)) n = (__int128{1} << 62);
  }
  if (n > kMaxTileElements)
    return reject(std::string(diag::kTileMax) + std::to_string(kMaxTileElements) + " elements, got " +
                  std::to_string(static_cast<int64_t>(n)) + " elements");
  out.elements = static_cast<int64_t>(n);
  if (auto bits = element_type_bits(in.element_type)) out.bytes = (out.elements * *bits + 7) / 8;
  // Stage 2.
  if (in.coordinates && *in.coordinates != rank)
    return reject("expects " + std::to_string(rank) + " coordinates, but got " + std::to_string(*in.coordinates));
  if (in.coord_type && in.index_type && *in.coord_type != *in.index_type)
    return reject(diag::kTileCoordType, *in.coord_type + " against " + *in.index_type);
  if (in.view_element_type && *in.view_element_type != in.element_type)
    return reject(diag::kTileElemType + *in.view_element_type + " vs " + in.element_type);
  // Stage 3a.
  if (in.mem_semantic) {
    const std::string& m = *in.mem_semantic;
    bool ok = m == "weak" || m == "relaxed" || (in.op != TmaOp::Load && m == "release");
    if (!ok) return reject(diag::kTileMemSemantic + m);
  }
  if (in.in_bounds && *in.in_bounds != rank)
    return reject(diag::kTileInBounds + std::to_string(rank) + ", got " + std::to_string(*in.in_bounds));
  out.accepted = true;
  return out;
}

}  // namespace ptxsim::verifiers::tma
