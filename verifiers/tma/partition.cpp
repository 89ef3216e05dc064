#include "verifiers/tma/partition.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace ptxsim::verifiers::tma {

using layout::CuteValue;
using layout::IntTuple;
using layout::Layout;
using layout::LayoutError;
using layout::Leaf;

// ---- enums -------------------------------------------------------------------------------------

namespace {

constexpr const char* kLoadNames[] = {"TMA_LOAD_NO_MULTICAST", "TMA_LOAD_TWO_CTA", "TMA_LOAD_W_MULTICAST",
                                      "TMA_LOAD_W128_MULTICAST"};
constexpr const char* kStoreNames[] = {"TMA_STORE_TILED", "TMA_STORE_IM2COL", "TMA_STORE_IM2COL_W",
                                       "TMA_STORE_IM2COL_W128"};
constexpr const char* kReduceNames[] = {"TMA_REDUCE_ADD", "TMA_REDUCE_MIN", "TMA_REDUCE_MAX", "TMA_REDUCE_INC",
                                        "TMA_REDUCE_DEC", "TMA_REDUCE_AND", "TMA_REDUCE_OR",  "TMA_REDUCE_XOR"};

size_t mode_count(TmaOp op) { return op == TmaOp::Reduce ? 8 : 4; }

}  // namespace

const char* op_name(TmaOp op) {
  switch (op) {
    case TmaOp::Load: return "load";
    case TmaOp::Store: return "store";
    case TmaOp::Reduce: return "reduce";
  }
  return "?";
}

std::optional<TmaOp> parse_op(std::string_view s) {
  if (s == "load") return TmaOp::Load;
  if (s == "store") return TmaOp::Store;
  if (s == "reduce") return TmaOp::Reduce;
  return std::nullopt;
}

const char* mode_name(TmaOp op, uint8_t mode) {
  if (mode >= mode_count(op)) return nullptr;
  switch (op) {
    case TmaOp::Load: return kLoadNames[mode];
    case TmaOp::Store: return kStoreNames[mode];
    case TmaOp::Reduce: return kReduceNames[mode];
  }
  return nullptr;
}

std::optional<uint8_t> parse_mode(TmaOp op, std::string_view s) {
  for (uint8_t m = 0; m < mode_count(op); ++m)
    if (s == mode_name(op, m) || s == std::to_string(m)) return m;
  return std::nullopt;
}

// ---- result ABI --------------------------------------------------------------------------------

std::array<uint8_t, 24> pack(const TmaPartitionResult& r) {
  std::array<uint8_t, 24> b{};
  auto put = [&](size_t off, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) b[off + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  put(0x00, r.tma_tensor_type, 8);
  put(0x08, r.tile_element_count, 4);
  put(0x0C, r.flags, 2);
  put(0x0E, r.swizzle_mode, 1);
  put(0x0F, r.rank, 1);
  put(0x10, r.non_exec_atom_body, 8);
  return b;
}

TmaPartitionResult unpack(const std::array<uint8_t, 24>& b) {
  auto get = [&](size_t off, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{b[off + i]} << (8 * i);
    return v;
  };
  TmaPartitionResult r;
  r.tma_tensor_type = get(0x00, 8);
  r.tile_element_count = static_cast<uint32_t>(get(0x08, 4));
  r.flags = static_cast<uint16_t>(get(0x0C, 2));
  r.swizzle_mode = static_cast<uint8_t>(get(0x0E, 1));
  r.rank = static_cast<uint8_t>(get(0x0F, 1));
  r.non_exec_atom_body = get(0x10, 8);
  return r;
}

const std::array<FlagInfo, 16> kTmaPartitionFlags = {{
    {"multicast", "tile lowers to a multicast TMA load (W or W128)"},
    {"im2col", "tile is im2col-flavoured (rank reduced before transfer)"},
    {"im2col_w", "im2col with warp-cooperative offset table"},
    {"im2col_w128", "im2col with wide warp-cooperative offset table (128-thread)"},
    {"two_cta", "2-CTA cooperative load; CTA V-map has been folded into the SMEM layout"},
    {"sparse", "metadata operand present; sparsity-aware stride walk"},
    {"static_smem", "SMEM layout passed the static-shape predicate"},
    {"static_vmap", "CTA V-map passed the static-shape predicate"},
    {"gmem_int_stride", "GMEM layout passed the integer-stride walk"},
    {"smem_int_stride", "SMEM layout passed the integer-stride walk"},
    {"shape_equiv", "top-level shape equivalence between SMEM and V-map held"},
    {"g_basis_ok", "G-basis computation returned a valid layout"},
    {"s2t_descriptor", "result wraps a get_copy_s2t_smem_desc view (Blackwell SMEM-to-tmem descriptor)"},
    {"prefetch_eligible", "descriptor handle survives prefetch (no per-axis dynamism that would invalidate it)"},
    {"reserved", "reserved"},
    {"reserved", "reserved"},
}};

uint64_t intern_id(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string join_operands(const std::vector<std::string>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += (i + 1 == types.size()) ? ", and " : ", ";
    s += types[i];
  }
  return s;
}

std::optional<int> tma_swizzle_span(const layout::Swizzle& sw) {
  if (sw.bits == 0) return 0;
  if (sw.base == 4 && sw.shift == 3 && sw.bits >= 1 && sw.bits <= 3) return 16 << sw.bits;
  return std::nullopt;
}

// ---- the eleven steps --------------------------------------------------------------------------

namespace {

bool rank_ok(const CuteValue& v) {
  auto r = v.rank();
  return !r || (*r >= 1 && *r <= 5);
}

bool integer_strides(const Layout& l) { return !l.stride().has_basis(); }

// The GMEM byte rule of step 4: a non-leading static stride must be a multiple of 16 bytes.
std::optional<std::string> gmem_stride_bytes_problem(const Layout& g, int element_bits) {
  for (const auto& [s, d] : g.flat_modes()) {
    if (!d.is_static_int() || d.value == 1) continue;
    if (s.is_static_int() && s.value <= 1) continue;
    __int128 bits = static_cast<__int128>(d.value) * element_bits;
    if (bits % 128 != 0)
      return "the GMEM stride " + d.str() + " is " +
             (element_bits % 8 == 0 ? std::to_string(static_cast<int64_t>(bits / 8)) + " bytes"
                                    : std::to_string(static_cast<int64_t>(bits)) + " bits") +
             ", not a multiple of 16 bytes";
  }
  return std::nullopt;
}

uint8_t swizzle_mode_code(const layout::Swizzle& sw) {
  if (sw.bits == 0) return 0;
  return sw.bits == 3 ? 2 : 3;
}

std::optional<size_t> axis_index(const std::string& axis) {
  if (axis.empty() || axis.size() > 3) return std::nullopt;
  size_t v = 0;
  for (char c : axis) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

struct Rejection {
  int step;
  std::string diagnostic, reason;
};

}  // namespace

TmaPartitionOutcome verify_tma_partition(const TmaPartitionInput& in) {
  TmaPartitionOutcome out;
  const CuteValue& smem = in.smem_layout;
  const CuteValue& gmem = in.gmem_layout;
  const CuteValue& vmap = in.cta_v_map;
  const std::string smem_ty = smem.type_str(), gmem_ty = gmem.type_str(), vmap_ty = vmap.type_str();
  auto reject = [&](int step, std::string diagnostic, std::string reason) {
    out.accepted = false;
    out.failed_step = step;
    out.diagnostic = std::move(diagnostic);
    out.reason = std::move(reason);
    return out;
  };

  // 1. Type gate on the trio: SMEM and GMEM ranks within 1..5, the V-map a plain layout.
  if (!rank_ok(smem) || !rank_ok(gmem) || vmap.kind != CuteValue::Kind::Layout) {
    std::string reason;
    if (!rank_ok(smem))
      reason = "the SMEM operand has rank " + std::to_string(*smem.rank()) + ", outside 1..5";
    else if (!rank_ok(gmem))
      reason = "the GMEM operand has rank " + std::to_string(*gmem.rank()) + ", outside 1..5";
    else
      reason = "the CTA V-map is not a layout";
    return reject(1, diag::kStep1 + join_operands({smem_ty, gmem_ty, vmap_ty}), reason);
  }
  // 2. SMEM layout kind.
  if (!smem.is_layout_like())
    return reject(2, diag::kStep2 + smem_ty, "the SMEM operand is neither a layout nor a composed layout");
  // 3. GMEM layout kind.
  if (gmem.kind != CuteValue::Kind::Layout)
    return reject(3, diag::kStep3 + gmem_ty, "the GMEM operand must be a plain (unswizzled) layout");
  const Layout& g = gmem.layout;
  const Layout& s = smem.plain();
  const Layout& v = vmap.layout;
  // 4. Integer-stride walk on both layouts (and the GMEM byte rule).
  {
    std::string reason;
    if (!integer_strides(g))
      reason = "the GMEM layout has a basis stride element";
    else if (!integer_strides(s))
      reason = "the SMEM layout has a basis stride element";
    else if (auto p = gmem_stride_bytes_problem(g, in.element_bits))
      reason = *p;
    if (!reason.empty()) return reject(4, diag::kStep4 + join_operands({gmem_ty, smem_ty}), reason);
  }
  // 5. The SMEM layout is a swizzle layout with a swizzle TMA supports.
  if (smem.kind != CuteValue::Kind::Composed)
    return reject(5, diag::kStep5 + smem_ty, "the SMEM layout has no swizzle (write Sw<0,4,3> o L for none)");
  const layout::Swizzle& sw = smem.composed.swizzle;
  auto span = tma_swizzle_span(sw);
  if (!span)
    return reject(5, diag::kStep5 + smem_ty,
                  sw.str() + " is not a TMA swizzle (Sw<0,*,*>, Sw<1,4,3>, Sw<2,4,3>, Sw<3,4,3>)");
  // 6. SMEM layout and CTA V-map static.
  if (!s.is_static() || !v.is_static())
    return reject(6, diag::kStep6 + join_operands({smem_ty, vmap_ty}),
                  !s.is_static() ? "the SMEM layout has a dynamic element" : "the CTA V-map has a dynamic element");
  // 7. Top-level shape equivalence.
  {
    std::string reason;
    if (!s.size() || !v.size()) {
      reason = "the size of the SMEM layout or the CTA V-map overflows 64 bits";
    } else if (s.rank() != v.rank()) {
      reason = "rank " + std::to_string(s.rank()) + " against rank " + std::to_string(v.rank());
    } else {
      for (size_t i = 0; i < s.rank() && reason.empty(); ++i)
        if (s.mode(i).size() != v.mode(i).size())
          reason = "mode " + std::to_string(i) + " has size " + std::to_string(*s.mode(i).size()) + " against " +
                   std::to_string(*v.mode(i).size());
    }
    if (!reason.empty()) return reject(7, diag::kStep7 + join_operands({smem_ty, vmap_ty}), reason);
  }
  // 8. The G-basis: walk SMEM offsets back to SMEM coordinates, then through the V-map to GMEM
  //    coordinates; every resulting mode must step one GMEM mode.
  const auto gmodes = g.flat_modes();
  const int64_t tile_size = s.static_size();
  Layout walk;
  {
    std::string reason;
    try {
      Layout inv = layout::right_inverse(s);
      if (inv.static_size() != tile_size)
        reason = "the SMEM layout is not a bijection onto [0, " + std::to_string(tile_size) +
                 ") (its right inverse covers " + std::to_string(inv.static_size()) + " offsets)";
      else
        walk = layout::coalesce(layout::composition(v, inv));
      // Composition goes mode by mode; make sure the walk is the V-map at every SMEM offset
      // (all offsets up to 2^16, evenly spaced ones beyond).
      const int64_t step = std::max<int64_t>(1, tile_size / 65536);
      for (int64_t i = 0; reason.empty() && i < tile_size; i += step)
        if (!(walk(i) == v(inv.offset(i))))
          reason = "the CTA V-map walk disagrees with the V-map at SMEM offset " + std::to_string(i);
    } catch (const LayoutError& e) {
      reason = e.what();
    }
    if (reason.empty()) {
      for (const auto& [n, b] : walk.flat_modes()) {
        if (n.is_static_int() && n.value == 1) continue;
        if (!b.is_basis()) {
          reason = "the CTA V-map walk has the non-basis stride " + b.str();
          break;
        }
        auto ax = axis_index(b.axis);
        if (!ax || *ax >= gmodes.size()) {
          reason = "the basis " + b.str() + " names no GMEM mode (the GMEM layout has " +
                   std::to_string(gmodes.size()) + " flattened modes)";
          break;
        }
      }
    }
    if (!reason.empty()) return reject(8, diag::kStep8 + join_operands({smem_ty, vmap_ty}), reason);
  }
  out.smem_to_gmem = walk;
  // The box: the leading run of unit-basis modes over distinct GMEM modes; the rest of the walk
  // repeats the box (more transfers per tile). Untouched GMEM modes get box extent 1.
  {
    std::vector<bool> used(gmodes.size(), false);
    bool in_box = true;
    int64_t issues = 1;
    for (const auto& [n, b] : walk.flat_modes()) {
      if (n.value == 1) continue;
      size_t ax = *axis_index(b.axis);
      if (in_box && b.value == 1 && !used[ax]) {
        used[ax] = true;
        out.tma_dims.push_back({n.value, ax});
      } else {
        in_box = false;
        issues *= n.value;
      }
    }
    for (size_t i = 0; i < gmodes.size(); ++i)
      if (!used[i]) out.tma_dims.push_back({1, i});
    out.issues_per_tile = issues;
    std::vector<IntTuple> shape, stride;
    for (const auto& d : out.tma_dims) {
      shape.push_back(IntTuple::integer(d.extent));
      stride.emplace_back(Leaf::basis(1, std::to_string(d.gmem_mode)));
    }
    out.tma_layout = Layout(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
  }
  // 9. Validity of the computed TMA layout.
  {
    const std::string tma_ty = "!cute.layout<" + out.tma_layout.str() + ">";
    if (out.tma_dims.empty()) return reject(9, diag::kStep9 + tma_ty, "the GMEM layout has no modes");
    std::string reason;
    const auto& d0 = out.tma_dims.front();
    const Leaf& lead_stride = gmodes[d0.gmem_mode].second;
    const __int128 inner_bits = static_cast<__int128>(d0.extent) * in.element_bits;
    if (out.tma_dims.size() > 5) {
      reason = "the descriptor would have rank " + std::to_string(out.tma_dims.size()) + ", above 5";
    } else if (!(lead_stride.is_static_int() && lead_stride.value == 1)) {
      reason = "TMA dimension 0 walks GMEM mode " + std::to_string(d0.gmem_mode) + " whose stride " +
               lead_stride.str() + " is not the static 1";
    } else if (inner_bits % 128 != 0) {
      reason = "the inner box is " + std::to_string(static_cast<int64_t>(inner_bits)) +
               " bits, not a multiple of 16 bytes";
    } else if (*span != 0 && inner_bits > static_cast<__int128>(*span) * 8) {
      reason = "the inner box is " + std::to_string(static_cast<int64_t>(inner_bits / 8)) + " bytes, wider than the " +
               std::to_string(*span) + "-byte swizzle span";
    } else {
      for (size_t i = 0; i < out.tma_dims.size(); ++i)
        if (out.tma_dims[i].extent > 256) {
          reason = "box dimension " + std::to_string(i) + " is " + std::to_string(out.tma_dims[i].extent) +
                   ", above 256";
          break;
        }
    }
    if (!reason.empty()) return reject(9, diag::kStep9 + tma_ty, reason);
  }
  const uint8_t rank = static_cast<uint8_t>(out.tma_dims.size());
  // 10. TMA tensor-type construction: mode against target, rank and element width.
  {
    std::string reason;
    const int64_t mcast = in.num_multicast.value_or(1);
    if (in.op == TmaOp::Load && in.mode == 1 && !in.sm100)
      reason = "TMA_LOAD_TWO_CTA needs sm_100a";
    else if (in.op == TmaOp::Store && (in.mode == 2 || in.mode == 3) && !in.sm100)
      reason = std::string(mode_name(in.op, in.mode)) + " needs sm_100a";
    else if (in.op == TmaOp::Store && in.mode != 0 && (rank < 3 || rank > 5))
      reason = "im2col stores need a descriptor rank of 3 to 5, got " + std::to_string(rank);
    else if (in.op == TmaOp::Reduce) {
      const int b = in.element_bits;
      bool ok = true;
      switch (static_cast<TmaReduceKind>(in.mode)) {
        case TmaReduceKind::TMA_REDUCE_ADD:
        case TmaReduceKind::TMA_REDUCE_MIN:
        case TmaReduceKind::TMA_REDUCE_MAX: ok = b == 16 || b == 32 || b == 64; break;
        case TmaReduceKind::TMA_REDUCE_INC:
        case TmaReduceKind::TMA_REDUCE_DEC: ok = b == 32; break;
        default: ok = b == 32 || b == 64; break;
      }
      if (!ok)
        reason = std::string(mode_name(in.op, in.mode)) + " has no " + std::to_string(b) + "-bit element form";
    }
    if (reason.empty() && smem.composed.ptr_bits && *smem.composed.ptr_bits != in.element_bits)
      reason = "the SMEM pointer is " + std::to_string(*smem.composed.ptr_bits) + "-bit but the element is " +
               std::to_string(in.element_bits) + "-bit";
    if (reason.empty() &&
        static_cast<__int128>(tile_size) * (mcast < 1 ? 1 : mcast) > std::numeric_limits<uint32_t>::max())
      reason = "the tile element count does not fit in 32 bits";
    if (!reason.empty()) return reject(10, diag::kStep10, reason);
  }
  // 11. Multicast count (load only). The step-11 string and its companion share one FAIL label.
  auto with_count = [](int64_t n) {
    return std::string(diag::kStep11) + ", " + diag::kStep11Companion + std::to_string(n);
  };
  // Modes 1 and 3 need a count >= 1; modes 0 and 2 (the seed's non-multicast modes) need exactly 1.
  if (in.op == TmaOp::Load) {
    const bool multicast_mode = (in.mode & 1) != 0;
    if (multicast_mode) {
      if (!in.num_multicast)
        return reject(11, diag::kStep11, "num_multicast is missing for a multicast mode");
      if (*in.num_multicast < 1)
        return reject(11, with_count(*in.num_multicast), "num_multicast must be at least 1 for a multicast mode");
    } else if (in.num_multicast && *in.num_multicast != 1) {
      return reject(11, with_count(*in.num_multicast), "num_multicast must be 1 for a non-multicast mode");
    }
  }  // stores and reduces skip step 11: they never take a multicast operand
  const int64_t num_multicast = (in.op == TmaOp::Load) ? in.num_multicast.value_or(1) : 1;

  // Accepted: build the record.
  uint16_t flags = kFlagStaticSmem | kFlagStaticVmap | kFlagGmemIntStride | kFlagSmemIntStride | kFlagShapeEquiv |
                   kFlagGBasisOk;
  if (in.op == TmaOp::Load && (in.mode == 2 || in.mode == 3)) flags |= kFlagMulticast;
  if (in.op == TmaOp::Load && in.mode == 1) flags |= kFlagTwoCta;
  if (in.op == TmaOp::Store && in.mode != 0) flags |= kFlagIm2col;
  if (in.op == TmaOp::Store && in.mode == 2) flags |= kFlagIm2colW;
  if (in.op == TmaOp::Store && in.mode == 3) flags |= kFlagIm2colW128;
  if (in.sparse) flags |= kFlagSparse;
  if (in.s2t_descriptor) flags |= kFlagS2tDescriptor;
  if (g.is_static()) flags |= kFlagPrefetchEligible;

  const std::string kind = op_name(in.op);
  out.tensor_type = "!cute_nvgpu.tma_" + kind + "<" + mode_name(in.op, in.mode) + ", " + out.tma_layout.str() +
                    ", " + sw.str() + ", num_multicast = " + std::to_string(num_multicast) + ">";
  out.atom_body = "#cute_nvgpu.non_exec_tiled_tma_" + kind + "<smem = " + smem.str() + ", gmem = " + g.str() +
                  ", cta_v_map = " + v.str() + ", tma = " + out.tma_layout.str() + ">";
  out.result.tma_tensor_type = intern_id(out.tensor_type);
  out.result.tile_element_count = static_cast<uint32_t>(tile_size * num_multicast);
  out.result.flags = flags;
  out.result.swizzle_mode = swizzle_mode_code(sw);
  out.result.rank = rank;
  out.result.non_exec_atom_body = intern_id(out.atom_body);
  out.accepted = true;
  return out;
}

}  // namespace ptxsim::verifiers::tma
