#include "verifiers/tcgen05/idesc.h"

#include <cstdio>
#include <cstdlib>

namespace ptxsim::verifiers::tcgen05 {

namespace {
unsigned bits(uint32_t v, int lo, int n) { return (v >> lo) & ((1u << n) - 1u); }
bool bit(uint32_t v, int i) { return (v >> i) & 1u; }

bool one_of(unsigned v, std::initializer_list<unsigned> set) {
  for (unsigned s : set)
    if (v == s) return true;
  return false;
}

// Table 39 (dense and sparse; .ws separately).
bool valid_shape(const IdescContext& c, unsigned m, unsigned n) {
  if (c.ws) {  // .ws exists only with cta_group::1 and the kinds that are not block-scaled
    if (c.cta_group != 1 || is_block_scaled(c.kind) || !one_of(m, {32, 64, 128})) return false;
    return c.sparse ? one_of(n, {64, 128}) : one_of(n, {64, 128, 256});
  }
  if (is_block_scaled(c.kind)) {
    if (c.cta_group == 1) return m == 128 && n >= 8 && n <= 256 && n % 8 == 0;
    if (c.sparse ? m != 256 : !one_of(m, {128, 256})) return false;
    return n >= 16 && n <= 256 && n % 16 == 0;
  }
  if (c.kind == MmaKind::i8) {
    if (c.cta_group == 1)
      return one_of(m, {64, 128}) && (one_of(n, {8, 16, 24, 32}) || (n >= 48 && n <= 256 && n % 16 == 0));
    return one_of(m, {128, 256}) && n >= 32 && n <= 256 && n % 32 == 0;
  }
  if (c.cta_group == 1) return one_of(m, {64, 128}) && n >= 8 && n <= 256 && n % 8 == 0;
  return one_of(m, {128, 256}) && n >= 16 && n <= 256 && n % 16 == 0;
}
}  // namespace

bool is_block_scaled(MmaKind k) { return k == MmaKind::mxf8f6f4 || k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4; }

IdescFields decode_idesc(uint32_t v, MmaKind kind) {
  IdescFields f;
  f.sparse = bit(v, 2);
  f.a_type = bits(v, 7, 3);
  f.b_type = bits(v, 10, 3);
  f.negate_a = bit(v, 13);
  f.negate_b = bit(v, 14);
  f.transpose_a = bit(v, 15);
  f.transpose_b = bit(v, 16);
  f.n = bits(v, 17, 6) << 3;
  if (is_block_scaled(kind)) {
    f.b_sf_id = bits(v, 4, 2);
    f.scale_type_ue8m0 = bit(v, 23);
    f.m = bits(v, 27, 2) << 7;
    f.a_sf_id = bits(v, 29, 2);
    f.k96 = bit(v, 31);
    if (kind != MmaKind::mxf8f6f4) f.b_type = bits(v, 10, 2);
  } else {
    f.sparse_selector = bits(v, 0, 2);
    f.saturate = bit(v, 3);
    f.d_type = bits(v, 4, 2);
    f.m = bits(v, 24, 5) << 4;
    f.ws_shift = bits(v, 30, 2);
  }
  return f;
}

std::optional<std::string> check_idesc(uint32_t v, const IdescContext& c) {
  char head[64];
  std::snprintf(head, sizeof head, "tcgen05.mma instruction descriptor 0x%08x: ", v);
  const std::string kind = std::string("kind::") + kind_name(c.kind);
  auto fail = [&](const std::string& m) { return std::optional<std::string>(head + m); };
  const IdescFields f = decode_idesc(v, c.kind);

  if (f.sparse != c.sparse)
    return fail(std::string("the sparse flag (bit 2) is ") + (f.sparse ? "1" : "0") + " but the instruction " +
                (c.sparse ? "is" : "is not") + " .sp");
  if (!is_block_scaled(c.kind)) {
    if (bit(v, 6) || bit(v, 23) || bit(v, 29))
      return fail("reserved bit " + std::to_string(bit(v, 6) ? 6 : bit(v, 23) ? 23 : 29) + " is set");
    if (f.sparse && f.sparse_selector && (c.kind == MmaKind::i8 || c.kind == MmaKind::f8f6f4))
      return fail("the sparsity selector (bits 0-1) must be 0 for " + kind);
    if (f.saturate && c.kind != MmaKind::i8) return fail("saturate (bit 3) is only for kind::i8");
    const bool fp16ish = c.kind == MmaKind::f16 || c.kind == MmaKind::f8f6f4;
    const bool d_ok = fp16ish ? f.d_type <= 1 : c.kind == MmaKind::tf32 ? f.d_type == 1 : f.d_type == 2;
    if (!d_ok) return fail("D type " + std::to_string(f.d_type) + " (bits 4-5) is not valid for " + kind);
    auto ab_ok = [&](unsigned t) {
      if (c.kind == MmaKind::f16 || c.kind == MmaKind::i8) return t <= 1;
      if (c.kind == MmaKind::tf32) return t == 2;
      return one_of(t, {0, 1, 3, 4, 5});
    };
    if (!ab_ok(f.a_type)) return fail("A type " + std::to_string(f.a_type) + " (bits 7-9) is not valid for " + kind);
    if (!ab_ok(f.b_type)) return fail("B type " + std::to_string(f.b_type) + " (bits 10-12) is not valid for " + kind);
    if (c.kind == MmaKind::f16) {
      if (f.a_type != f.b_type)
        return fail("A and B types (bits 7-9, 10-12) differ; kind::f16 needs both F16 or both BF16");
      if (f.a_type == 1 && f.d_type != 1) return fail("BF16 inputs need an F32 D (bits 4-5 = 1)");
    }
    if (c.kind == MmaKind::i8 && (f.negate_a || f.negate_b))
      return fail("negate (bits 13-14) is not supported for kind::i8");
    if (f.ws_shift && !c.ws) return fail("the B-reuse shift (bits 30-31) is only for .ws");
    if (!valid_shape(c, f.m, f.n))
      return fail("M=" + std::to_string(f.m) + ", N=" + std::to_string(f.n) + " is not a valid shape for " + kind +
                  (c.ws ? ".ws" : "") + " with cta_group::" + std::to_string(c.cta_group));
    return std::nullopt;
  }

  // kind::mxf8f6f4 / mxf4 / mxf4nvf4 (Tables 43, 44).
  const bool mxf4 = c.kind != MmaKind::mxf8f6f4;
  for (int b : {0, 1, 3, 6, 24, 25, 26})
    if (bit(v, b)) return fail("reserved bit " + std::to_string(b) + " is set");
  if (mxf4 && bit(v, 12)) return fail("reserved bit 12 is set");
  if (!mxf4 && bit(v, 31)) return fail("reserved bit 31 is set");
  if (mxf4 && (f.a_sf_id % 2 || f.b_sf_id % 2))
    return fail("scale-factor IDs (bits 4-5, 29-30) must be 0 or 2 for " + kind);
  if (!mxf4) {
    if (!one_of(f.a_type, {0, 1, 3, 4, 5}))
      return fail("A type " + std::to_string(f.a_type) + " (bits 7-9) is not valid for " + kind);
    if (!one_of(f.b_type, {0, 1, 3, 4, 5}))
      return fail("B type " + std::to_string(f.b_type) + " (bits 10-12) is not valid for " + kind);
  } else {
    if (f.a_type != 1)
      return fail("A type " + std::to_string(f.a_type) + " (bits 7-9) is not valid for " + kind + " (E2M1 = 1)");
    if (f.b_type != 1)
      return fail("B type " + std::to_string(f.b_type) + " (bits 10-11) is not valid for " + kind + " (E2M1 = 1)");
    if (f.transpose_a || f.transpose_b) return fail("transpose (bits 15-16) is not supported for " + kind);
  }
  if (!f.scale_type_ue8m0 && c.kind != MmaKind::mxf4nvf4)
    return fail("scale type UE4M3 (bit 23 = 0) is only for kind::mxf4nvf4");
  if (f.k96 && !(c.target.sm == 103 && c.target.suffix == 'a')) return fail("K = 96 (bit 31) needs sm_103a");
  if (!valid_shape(c, f.m, f.n))
    return fail("M=" + std::to_string(f.m) + ", N=" + std::to_string(f.n) + " is not a valid shape for " + kind +
                (c.ws ? ".ws" : "") + " with cta_group::" + std::to_string(c.cta_group));
  return std::nullopt;
}

Outcome verify_idesc_request(const nlohmann::json& r) {
  req::check_keys(r, {"idesc", "kind", "cta_group", "sparse", "ws", "target"});
  if (!r.contains("idesc")) req::fail("key \"idesc\" is required");
  uint64_t word = 0;
  const nlohmann::json& v = r["idesc"];
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    word = v.get<uint64_t>();
  } else if (v.is_string()) {
    const std::string t = v.get<std::string>();
    char* end = nullptr;
    word = std::strtoull(t.c_str(), &end, 0);
    if (t.empty() || *end) req::fail("key \"idesc\" must be a number or a \"0x...\" string, got \"" + t + "\"");
  } else {
    req::fail("key \"idesc\" must be a number or a \"0x...\" string");
  }
  if (word > 0xFFFFFFFFu) req::fail("key \"idesc\" must fit in 32 bits");
  IdescContext c;
  const std::string kind = req::get_string(r, "kind");
  const auto k = kind_from_name(kind.rfind("kind::", 0) == 0 ? kind.substr(6) : kind);
  if (!k) req::fail("key \"kind\": unknown kind \"" + kind + "\"");
  c.kind = *k;
  if (auto cg = req::get_opt_int(r, "cta_group")) {
    if (*cg != 1 && *cg != 2) req::fail("key \"cta_group\" must be 1 or 2");
    c.cta_group = unsigned(*cg);
  }
  c.sparse = req::get_bool(r, "sparse", false);
  c.ws = req::get_bool(r, "ws", false);
  c.target = req::get_target(r, "target", "sm_100a");
  Outcome out;
  if (auto d = check_idesc(uint32_t(word), c)) {
    out.accepted = false;
    out.diagnostics.push_back(*d);
    return out;
  }
  const IdescFields f = decode_idesc(uint32_t(word), c.kind);
  out.result_lines.push_back("M = " + std::to_string(f.m) + ", N = " + std::to_string(f.n));
  out.result = {{"m", f.m}, {"n", f.n}, {"a_type", f.a_type}, {"b_type", f.b_type}, {"d_type", f.d_type}};
  return out;
}

}  // namespace ptxsim::verifiers::tcgen05

namespace ptxsim::verifiers {
Outcome handle_tcgen05_idesc(const nlohmann::json& request) { return tcgen05::verify_idesc_request(request); }
}  // namespace ptxsim::verifiers
