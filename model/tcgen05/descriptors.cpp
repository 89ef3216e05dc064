#include "model/tcgen05/descriptors.h"

#include <cstdio>

namespace ptxsim::model::tcgen05 {

namespace {

constexpr uint32_t field(uint64_t w, unsigned lo, unsigned bits) { return uint32_t((w >> lo) & ((1ull << bits) - 1)); }
constexpr uint64_t put(uint32_t v, unsigned lo, unsigned bits) { return (uint64_t(v) & ((1ull << bits) - 1)) << lo; }

std::string hex(uint64_t v, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", digits, (unsigned long long)v);
  return b;
}

}  // namespace

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::F16: return "kind::f16";
    case Kind::TF32: return "kind::tf32";
    case Kind::F8F6F4: return "kind::f8f6f4";
    case Kind::I8: return "kind::i8";
    case Kind::MXF8F6F4: return "kind::mxf8f6f4";
    case Kind::MXF4: return "kind::mxf4";
    case Kind::MXF4NVF4: return "kind::mxf4nvf4";
  }
  return "?";
}

bool is_block_scaled(Kind k) { return k == Kind::MXF8F6F4 || k == Kind::MXF4 || k == Kind::MXF4NVF4; }

uint32_t dense_k(Kind k) {
  switch (k) {
    case Kind::F16: return 16;
    case Kind::TF32: return 8;
    case Kind::MXF4:
    case Kind::MXF4NVF4: return 64;
    default: return 32;
  }
}

// ---- instruction descriptor ----------------------------------------------------------------------

InstrDescriptor InstrDescriptor::decode(uint32_t w) {
  InstrDescriptor d;
  d.sparse_id2 = field(w, 0, 2);
  d.sparse = field(w, 2, 1);
  d.saturate = field(w, 3, 1);
  d.d_format = field(w, 4, 2);
  d.reserved6 = field(w, 6, 1);
  d.a_format = field(w, 7, 3);
  d.b_format = field(w, 10, 3);
  d.negate_a = field(w, 13, 1);
  d.negate_b = field(w, 14, 1);
  d.a_major = field(w, 15, 1);
  d.b_major = field(w, 16, 1);
  d.n_dim = field(w, 17, 6);
  d.reserved23 = field(w, 23, 1);
  d.m_dim = field(w, 24, 5);
  d.reserved29 = field(w, 29, 1);
  d.max_shift = field(w, 30, 2);
  return d;
}

uint32_t InstrDescriptor::encode() const {
  return uint32_t(put(sparse_id2, 0, 2) | put(sparse, 2, 1) | put(saturate, 3, 1) | put(d_format, 4, 2) |
                  put(reserved6, 6, 1) | put(a_format, 7, 3) | put(b_format, 10, 3) | put(negate_a, 13, 1) |
                  put(negate_b, 14, 1) | put(a_major, 15, 1) | put(b_major, 16, 1) | put(n_dim, 17, 6) |
                  put(reserved23, 23, 1) | put(m_dim, 24, 5) | put(reserved29, 29, 1) | put(max_shift, 30, 2));
}

namespace {

bool valid_f8f6f4(uint32_t f) { return f <= 5 && f != 2; }

// Table 39: the M and N a form allows ("" when valid).
std::string check_mn(Kind kind, unsigned cta_group, bool sparse, bool ws, uint32_t M, uint32_t N) {
  auto list = [](std::initializer_list<uint32_t> v, uint32_t x) {
    for (uint32_t e : v)
      if (e == x) return true;
    return false;
  };
  const std::string form = std::string(kind_name(kind)) + " with .cta_group::" + std::to_string(cta_group) +
                           (ws ? " .ws" : "") + (sparse ? " .sp" : "");
  if (ws) {
    if (cta_group != 1 || is_block_scaled(kind)) return form + " does not exist";
    if (!list({32, 64, 128}, M)) return "M = " + std::to_string(M) + " is not 32, 64 or 128 for " + form;
    if (!(sparse ? list({64, 128}, N) : list({64, 128, 256}, N)))
      return "N = " + std::to_string(N) + " is not " + (sparse ? "64 or 128" : "64, 128 or 256") + " for " + form;
    return "";
  }
  bool m_ok = is_block_scaled(kind) ? (cta_group == 1 ? M == 128 : (sparse ? M == 256 : (M == 128 || M == 256)))
                                    : (cta_group == 1 ? (M == 64 || M == 128) : (M == 128 || M == 256));
  if (!m_ok) return "M = " + std::to_string(M) + " is not a valid M for " + form;
  bool n_ok;
  std::string rule;
  if (kind == Kind::I8) {
    if (cta_group == 1) {
      n_ok = list({8, 16, 24, 32}, N) || (N >= 32 && N <= 256 && N % 16 == 0);
      rule = "8, 16, 24, 32, then multiples of 16 up to 256";
    } else {
      n_ok = N >= 32 && N <= 256 && N % 32 == 0;
      rule = "a multiple of 32 from 32 to 256";
    }
  } else if (cta_group == 1) {
    n_ok = N >= 8 && N <= 256 && N % 8 == 0;
    rule = "a multiple of 8 from 8 to 256";
  } else {
    n_ok = N >= 16 && N <= 256 && N % 16 == 0;
    rule = "a multiple of 16 from 16 to 256";
  }
  if (!n_ok) return "N = " + std::to_string(N) + " is not " + rule + " for " + form;
  return "";
}

}  // namespace

std::optional<std::string> validate(const InstrDescriptor& d, const MmaContext& ctx) {
  const std::string pre = "instruction descriptor " + hex(d.encode(), 8) + ": ";
  auto bad = [&](const char* fld, const std::string& rule) { return pre + fld + " " + rule; };
  if (is_block_scaled(ctx.kind)) return pre + "is checked with the block-scaled layout";
  if (d.reserved6) return bad("bit 6", "is reserved and must be 0");
  if (d.reserved23) return bad("bit 23", "is reserved and must be 0");
  if (d.reserved29) return bad("bit 29", "is reserved and must be 0");
  if (d.sparse != uint32_t(ctx.sparse))
    return bad("sparse (bit 2)", std::string("= ") + std::to_string(d.sparse) + " but the instruction is " +
                                     (ctx.sparse ? "sparse (.sp)" : "dense (no .sp)"));
  if (!ctx.sparse && d.sparse_id2) return bad("sparsity selector (bits 1:0)", "must be 0 for a dense MMA");
  if (ctx.sparse && d.sparse_id2 && (ctx.kind == Kind::I8 || ctx.kind == Kind::F8F6F4))
    return bad("sparsity selector (bits 1:0)", std::string("= ") + std::to_string(d.sparse_id2) + " must be 0 for sparse " +
                                                   kind_name(ctx.kind) + " (PTX 9.7.16.10.8.4)");
  if (d.saturate && ctx.kind != Kind::I8) return bad("saturate (bit 3)", "is only for kind::i8");
  const char* kn = kind_name(ctx.kind);
  switch (ctx.kind) {
    case Kind::F16:
      if (d.d_format > 1) return bad("D format (bits 5:4)", "must be F16 (0) or F32 (1) for kind::f16");
      if (d.a_format > 1) return bad("A format (bits 9:7)", "must be F16 (0) or BF16 (1) for kind::f16");
      if (d.b_format != d.a_format) return bad("B format (bits 12:10)", "must equal the A format for kind::f16");
      if (d.a_format == fmt::kBF16 && d.d_format != fmt::kDF32)
        return bad("D format (bits 5:4)", "must be F32 (1) with BF16 inputs");
      break;
    case Kind::TF32:
      if (d.d_format != fmt::kDF32) return bad("D format (bits 5:4)", "must be F32 (1) for kind::tf32");
      if (d.a_format != fmt::kTF32) return bad("A format (bits 9:7)", "must be TF32 (2) for kind::tf32");
      if (d.b_format != fmt::kTF32) return bad("B format (bits 12:10)", "must be TF32 (2) for kind::tf32");
      break;
    case Kind::F8F6F4:
      if (d.d_format > 1) return bad("D format (bits 5:4)", "must be F16 (0) or F32 (1) for kind::f8f6f4");
      if (!valid_f8f6f4(d.a_format))
        return bad("A format (bits 9:7)", "must be E4M3 (0), E5M2 (1), E2M3 (3), E3M2 (4) or E2M1 (5) for kind::f8f6f4");
      if (!valid_f8f6f4(d.b_format))
        return bad("B format (bits 12:10)", "must be E4M3 (0), E5M2 (1), E2M3 (3), E3M2 (4) or E2M1 (5) for kind::f8f6f4");
      break;
    case Kind::I8:
      if (d.d_format != fmt::kDS32) return bad("D format (bits 5:4)", "must be S32 (2) for kind::i8");
      if (d.a_format > 1) return bad("A format (bits 9:7)", "must be U8 (0) or S8 (1) for kind::i8");
      if (d.b_format > 1) return bad("B format (bits 12:10)", "must be U8 (0) or S8 (1) for kind::i8");
      if (d.negate_a || d.negate_b) return bad(d.negate_a ? "negate A (bit 13)" : "negate B (bit 14)", "is not allowed for kind::i8");
      break;
    default: break;
  }
  (void)kn;
  if (d.max_shift && !ctx.ws) return bad("max shift (bits 31:30)", "is only for .ws");
  if (d.m_dim == 0 || d.n_dim == 0) return bad(d.m_dim == 0 ? "M >> 4 (bits 28:24)" : "N >> 3 (bits 22:17)", "is 0");
  std::string mn = check_mn(ctx.kind, ctx.cta_group, ctx.sparse, ctx.ws, d.m(), d.n());
  if (!mn.empty()) return pre + (mn[0] == 'M' ? "M >> 4 (bits 28:24): " : "N >> 3 (bits 22:17): ") + mn;
  return std::nullopt;
}

InstrDescriptorBlockScaled InstrDescriptorBlockScaled::decode(uint32_t w) {
  InstrDescriptorBlockScaled d;
  d.reserved0 = field(w, 0, 2);
  d.sparse = field(w, 2, 1);
  d.reserved3 = field(w, 3, 1);
  d.b_sf_id = field(w, 4, 2);
  d.reserved6 = field(w, 6, 1);
  d.a_format = field(w, 7, 3);
  d.b_format = field(w, 10, 3);
  d.negate_a = field(w, 13, 1);
  d.negate_b = field(w, 14, 1);
  d.a_major = field(w, 15, 1);
  d.b_major = field(w, 16, 1);
  d.n_dim = field(w, 17, 6);
  d.scale_type = field(w, 23, 1);
  d.reserved24 = field(w, 24, 3);
  d.m_dim = field(w, 27, 2);
  d.a_sf_id = field(w, 29, 2);
  d.k_size = field(w, 31, 1);
  return d;
}

uint32_t InstrDescriptorBlockScaled::encode() const {
  return uint32_t(put(reserved0, 0, 2) | put(sparse, 2, 1) | put(reserved3, 3, 1) | put(b_sf_id, 4, 2) |
                  put(reserved6, 6, 1) | put(a_format, 7, 3) | put(b_format, 10, 3) | put(negate_a, 13, 1) |
                  put(negate_b, 14, 1) | put(a_major, 15, 1) | put(b_major, 16, 1) | put(n_dim, 17, 6) |
                  put(scale_type, 23, 1) | put(reserved24, 24, 3) | put(m_dim, 27, 2) | put(a_sf_id, 29, 2) |
                  put(k_size, 31, 1));
}

std::optional<std::string> validate(const InstrDescriptorBlockScaled& d, const MmaContext& ctx) {
  const std::string pre = "instruction descriptor " + hex(d.encode(), 8) + ": ";
  auto bad = [&](const char* fld, const std::string& rule) { return pre + fld + " " + rule; };
  const bool mx4 = ctx.kind != Kind::MXF8F6F4;
  const char* kn = kind_name(ctx.kind);
  if (d.reserved0) return bad("bits 1:0", "are reserved and must be 0");
  if (d.reserved3) return bad("bit 3", "is reserved and must be 0");
  if (d.reserved6) return bad("bit 6", "is reserved and must be 0");
  if (d.reserved24) return bad("bits 26:24", "are reserved and must be 0");
  if (d.sparse != uint32_t(ctx.sparse))
    return bad("sparse (bit 2)", std::string("= ") + std::to_string(d.sparse) + " but the instruction is " +
                                     (ctx.sparse ? "sparse (.sp)" : "dense (no .sp)"));
  if (!mx4) {
    if (!valid_f8f6f4(d.a_format))
      return bad("A format (bits 9:7)", "must be E4M3 (0), E5M2 (1), E2M3 (3), E3M2 (4) or E2M1 (5) for kind::mxf8f6f4");
    if (!valid_f8f6f4(d.b_format))
      return bad("B format (bits 12:10)", "must be E4M3 (0), E5M2 (1), E2M3 (3), E3M2 (4) or E2M1 (5) for kind::mxf8f6f4");
    if (d.k_size) return bad("bit 31", "is reserved and must be 0 for kind::mxf8f6f4");
  } else {
    if (d.a_format != 1) return bad("A format (bits 9:7)", std::string("must be E2M1 (1) for ") + kn);
    if ((d.b_format & 3) != 1) return bad("B format (bits 11:10)", std::string("must be E2M1 (1) for ") + kn);
    if (d.b_format >> 2) return bad("bit 12", std::string("is reserved and must be 0 for ") + kn);
    if (d.a_major || d.b_major)
      return bad(d.a_major ? "transpose A (bit 15)" : "transpose B (bit 16)", std::string("must be 0 for ") + kn);
    if (d.k_size) return bad("K size (bit 31)", "= 1 (K = 96, sm_103a) is not simulated by ptxsim");
  }
  if (!d.ue8m0() && !(ctx.kind == Kind::MXF4NVF4 && ctx.scale_vec == 4))
    return bad("scale type (bit 23)", std::string("= 0 (UE4M3) is only for kind::mxf4nvf4 with .scale_vec::4X / .block16; ") +
                                          kn + " with this vector size needs UE8M0 (1)");
  for (const auto& [name, id] : {std::pair{"A scale-factor ID (bits 30:29)", d.a_sf_id}, std::pair{"B scale-factor ID (bits 5:4)", d.b_sf_id}}) {
    if (ctx.scale_vec == 2 && id % 2)
      return bad(name, "= " + std::to_string(id) + " must be 0 or 2 with .scale_vec::2X (a half-word of the TMEM word)");
    if (ctx.scale_vec == 4 && id)
      return bad(name, "= " + std::to_string(id) + " must be 0 with .scale_vec::4X (the whole TMEM word)");
  }
  if (d.m_dim == 0 || d.n_dim == 0) return bad(d.m_dim == 0 ? "M >> 7 (bits 28:27)" : "N >> 3 (bits 22:17)", "is 0");
  std::string mn = check_mn(ctx.kind, ctx.cta_group, ctx.sparse, ctx.ws, d.m(), d.n());
  if (!mn.empty()) return pre + (mn[0] == 'M' ? "M >> 7 (bits 28:27): " : "N >> 3 (bits 22:17): ") + mn;
  return std::nullopt;
}

// ---- shared-memory descriptor --------------------------------------------------------------------

const char* layout_name(uint32_t t) {
  switch (t) {
    case 0: return "no swizzle";
    case 1: return "128B swizzle with 32B atom";
    case 2: return "128B swizzle";
    case 4: return "64B swizzle";
    case 6: return "32B swizzle";
    default: return "invalid";
  }
}

SmemDescriptor SmemDescriptor::decode(uint64_t w) {
  SmemDescriptor d;
  d.start_address = field(w, 0, 14);
  d.reserved14 = field(w, 14, 2);
  d.leading_offset = field(w, 16, 14);
  d.reserved30 = field(w, 30, 2);
  d.stride_offset = field(w, 32, 14);
  d.version = field(w, 46, 3);
  d.base_offset = field(w, 49, 3);
  d.lbo_mode = field(w, 52, 1);
  d.reserved53 = field(w, 53, 8);
  d.layout_type = field(w, 61, 3);
  return d;
}

uint64_t SmemDescriptor::encode() const {
  return put(start_address, 0, 14) | put(reserved14, 14, 2) | put(leading_offset, 16, 14) | put(reserved30, 30, 2) |
         put(stride_offset, 32, 14) | put(version, 46, 3) | put(base_offset, 49, 3) | put(lbo_mode, 52, 1) |
         put(reserved53, 53, 8) | put(layout_type, 61, 3);
}

uint32_t SmemDescriptor::swizzle_bytes() const {
  switch (layout_type) {
    case 1:
    case 2: return 128;
    case 4: return 64;
    case 6: return 32;
    default: return 16;
  }
}

std::optional<std::string> validate(const SmemDescriptor& d) {
  const std::string pre = "shared-memory descriptor " + hex(d.encode(), 16) + ": ";
  if (d.version != 1) return pre + "version (bits 48:46) = " + std::to_string(d.version) + " must be 0b001 on sm_100";
  if (d.reserved14) return pre + "bits 15:14 are reserved and must be 0";
  if (d.reserved30) return pre + "bits 31:30 are reserved and must be 0";
  if (d.reserved53) return pre + "bits 60:53 are reserved and must be 0";
  if (d.layout_type == 3 || d.layout_type == 5 || d.layout_type == 7)
    return pre + "layout type (bits 63:61) = " + std::to_string(d.layout_type) +
           " is not a layout (0 none, 1 128B with 32B atom, 2 128B, 4 64B, 6 32B)";
  if (d.layout_type == 1)
    return pre + "layout type (bits 63:61) = 1 (128B swizzle with 32B atom) is not simulated by ptxsim";
  if (d.lbo_mode) return pre + "LBO mode (bit 52) = 1 (absolute address, sm_103a) is not simulated by ptxsim";
  // The base offset (bits 51:49) is never an error. Without swizzling it has nothing to align
  // (Triton sets it on unswizzled scale-factor copies). With swizzling it says where the pattern's
  // row 0 lies relative to the 8-row boundary, which the descriptor alone cannot reveal: a matrix may
  // start mid-pattern in a pattern anchored at an aligned address (CUTLASS advances the start address
  // across a TMA-written tile and keeps base offset 0), and the address model honours the field
  // (element_address). docs/tcgen05.md "Shared-memory descriptors".
  return std::nullopt;
}

}  // namespace ptxsim::model::tcgen05
