#include "verifiers/tcgen05/umma_layout.h"

#include "verifiers/tcgen05/request.h"

namespace ptxsim::verifiers::tcgen05 {

const char* swizzle_name(UmmaSwizzle s) {
  switch (s) {
    case UmmaSwizzle::none:
      return "none";
    case UmmaSwizzle::b32:
      return "32B";
    case UmmaSwizzle::b64:
      return "64B";
    case UmmaSwizzle::b128:
      return "128B";
    case UmmaSwizzle::b128_base32b:
      return "128B_base32B";
  }
  return "?";
}

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 22;

// The canonical layout of one major/swizzle, parameterised by LBO and SBO in elements.
struct Canonical {
  UmmaMajor major;
  bool swizzled;
  int64_t T, W, Kr;  // elements per 16 B; swizzle width in 16-B units; K rows per core (8, or 4 for 128B_base32B)
  int64_t mn, k;
  bool lbo_used, sbo_used;

  int64_t eval(int64_t m, int64_t kk, int64_t lbo, int64_t sbo) const {
    if (major == UmmaMajor::MN) {
      int64_t a = m % T, b = (m / T) % W, c = m / (T * W);
      int64_t r = kk % Kr, q = kk / Kr;
      if (!swizzled) return a + c * sbo + r * T + q * lbo;
      return a + b * T + c * lbo + r * W * T + q * sbo;
    }
    int64_t r = m % 8, c = m / 8, a = kk % T, j = kk / T;
    if (!swizzled) return r * T + c * sbo + a + j * lbo;
    return r * W * T + c * sbo + a + j * T;
  }
  // (MN probe, K probe) where the layout's value is LBO, resp. SBO, above its origin.
  std::pair<int64_t, int64_t> lbo_probe() const {
    if (major == UmmaMajor::MN) return swizzled ? std::pair{T * W, int64_t{0}} : std::pair{int64_t{0}, Kr};
    return {0, T};
  }
  std::pair<int64_t, int64_t> sbo_probe() const {
    if (major == UmmaMajor::MN) return swizzled ? std::pair{int64_t{0}, Kr} : std::pair{T, int64_t{0}};
    return {8, 0};
  }
  layout::Layout modes(int64_t lbo, int64_t sbo) const {
    int64_t l = lbo_used ? lbo : 0, s = sbo_used ? sbo : 0;
    auto tup = [](std::initializer_list<int64_t> v) {
      std::vector<layout::IntTuple> c;
      for (int64_t x : v) c.push_back(layout::IntTuple::integer(x));
      return layout::IntTuple::tuple(std::move(c));
    };
    auto pair = [](layout::IntTuple a, layout::IntTuple b) {
      return layout::IntTuple::tuple({std::move(a), std::move(b)});
    };
    if (major == UmmaMajor::MN) {
      int64_t m = mn / (T * W), kq = k / Kr;
      if (!swizzled) return {pair(tup({T, 1, m}), tup({Kr, kq})), pair(tup({1, T, s}), tup({T, l}))};
      return {pair(tup({T, W, m}), tup({Kr, kq})), pair(tup({1, T, l}), tup({W * T, s}))};
    }
    int64_t m = mn / 8, kq = k / T;
    if (!swizzled) return {pair(tup({8, m}), tup({T, kq})), pair(tup({T, s}), tup({1, l}))};
    return {pair(tup({8, m}), tup({T, kq})), pair(tup({W * T, s}), tup({1, T}))};
  }
};

// The operand layout split into its (MN, K) modes, evaluated per mode (CuTe's colexicographic order).
struct OperandLayout {
  layout::Layout mn, k;
  explicit OperandLayout(const layout::Layout& l) : mn(l.mode(0)), k(l.mode(1)) {}
  int64_t operator()(int64_t m, int64_t kk) const { return mn.offset(m) + k.offset(kk); }
};

std::optional<std::string> field_check(const char* name, int64_t bytes) {
  if (bytes < 0 || bytes % 16 != 0)
    return std::string("UMMA smem descriptor: ") + name + " " + std::to_string(bytes) +
           " is not a non-negative multiple of 16 bytes";
  if ((bytes >> 4) >= (int64_t{1} << 14))
    return std::string("UMMA smem descriptor: ") + name + " " + std::to_string(bytes) +
           " does not fit the 14-bit field (bytes >> 4)";
  return std::nullopt;
}

}  // namespace

UmmaResult check_umma_layout(const UmmaOperand& op) {
  UmmaResult res;
  const bool mn_major = op.major == UmmaMajor::MN;
  const std::string prefix = mn_major ? "Not a canonical UMMA_MN Layout: " : "Not a canonical UMMA_K Layout: ";
  const int64_t bits = op.elem_bits;

  // 1. Swizzle against major-ness and element width (PTX §9.7.16.10.3 Table 54 via ptx-facts §5.5).
  if (mn_major && bits == 4) {
    res.diagnostic = prefix + "4-bit elements must be K-major.";
    return res;
  }
  bool swizzle_ok = op.swizzle != UmmaSwizzle::b128_base32b;
  if (mn_major && bits == 32) swizzle_ok = op.swizzle == UmmaSwizzle::b128_base32b;
  if (!swizzle_ok) {
    res.diagnostic = std::string("unsupported swizzle, got ") + swizzle_name(op.swizzle);
    return res;
  }

  Canonical c;
  c.major = op.major;
  c.swizzled = op.swizzle != UmmaSwizzle::none;
  c.T = 128 / bits;
  c.W = op.swizzle == UmmaSwizzle::b32 ? 2 : op.swizzle == UmmaSwizzle::b64 ? 4 : c.swizzled ? 8 : 1;
  c.Kr = op.swizzle == UmmaSwizzle::b128_base32b ? 4 : 8;
  c.mn = op.mn;
  c.k = op.k;

  // 2. Extents: K a multiple of the MMA's K (256 bits dense, 512 sparse), MN of the atom.
  const int64_t kq = (op.sparse ? 512 : 256) / bits;
  const int64_t mn_atom = mn_major ? c.T * c.W : 8;
  const std::string k_rule = prefix + "Expected K-size multiple of " + std::to_string(kq) + ".";
  const std::string mn_rule = prefix + "Expected MN-size multiple of " + std::to_string(mn_atom) + ".";
  if (mn_major) {
    if (op.k % kq)
      res.diagnostic = k_rule;
    else if (op.mn % mn_atom)
      res.diagnostic = mn_rule;
  } else {
    if (op.mn % mn_atom)
      res.diagnostic = mn_rule;
    else if (op.k % kq)
      res.diagnostic = k_rule;
  }
  if (res.diagnostic) return res;

  if (mn_major) {
    c.lbo_used = c.swizzled ? op.mn > c.T * c.W : op.k > c.Kr;
    c.sbo_used = c.swizzled ? op.k > c.Kr : op.mn > c.T;
  } else {
    c.lbo_used = !c.swizzled && op.k > c.T;
    c.sbo_used = op.mn > 8;
  }
  if (!op.layout && c.lbo_used && !op.lbo) throw RequestError("this layout uses LBO: give \"lbo\" or \"layout\"");
  if (!op.layout && c.sbo_used && !op.sbo) throw RequestError("this layout uses SBO: give \"sbo\" or \"layout\"");

  // 3. LBO/SBO in elements: the descriptor's where given, else read off the layout.
  auto to_elems = [&](int64_t bytes) { return bytes * 8 / bits; };
  int64_t lbo = op.lbo ? to_elems(*op.lbo) : 0, sbo = op.sbo ? to_elems(*op.sbo) : 0;
  std::optional<OperandLayout> L;
  if (op.layout) L.emplace(*op.layout);
  const int64_t base = L ? (*L)(0, 0) : 0;
  if (L) {
    if (c.lbo_used && !op.lbo) lbo = (*L)(c.lbo_probe().first, c.lbo_probe().second) - base;
    if (c.sbo_used && !op.sbo) sbo = (*L)(c.sbo_probe().first, c.sbo_probe().second) - base;
  }
  auto to_bytes = [&](int64_t elems) -> std::optional<int64_t> {
    if ((elems * bits) % 8) return std::nullopt;
    return elems * bits / 8;
  };
  for (auto [used, name, v] : {std::tuple{c.lbo_used, "LBO", lbo}, std::tuple{c.sbo_used, "SBO", sbo}}) {
    if (!used) continue;
    auto b = to_bytes(v);
    if (!b) {
      res.diagnostic = std::string("UMMA smem descriptor: ") + name + " of " + std::to_string(v) +
                       " elements is not a whole number of bytes";
      return res;
    }
    if (auto d = field_check(name, *b)) {
      res.diagnostic = d;
      return res;
    }
  }
  // Unused descriptor fields must still be encodable.
  if (op.lbo && !c.lbo_used)
    if (auto d = field_check("LBO", *op.lbo)) {
      res.diagnostic = d;
      return res;
    }
  if (op.sbo && !c.sbo_used)
    if (auto d = field_check("SBO", *op.sbo)) {
      res.diagnostic = d;
      return res;
    }

  // 4. The layout, as a function, must be the canonical one.
  if (L) {
    for (int64_t kk = 0; kk < op.k && !res.diagnostic; ++kk)
      for (int64_t m = 0; m < op.mn; ++m)
        if ((*L)(m, kk) - base != c.eval(m, kk, lbo, sbo)) {
          res.diagnostic = prefix + "Expected stride failure.";
          break;
        }
    if (res.diagnostic) return res;
  }
  res.canonical = c.modes(lbo, sbo);
  if (c.lbo_used) res.lbo = *to_bytes(lbo);
  if (c.sbo_used) res.sbo = *to_bytes(sbo);
  return res;
}

Outcome verify_umma_layout_request(const nlohmann::json& r) {
  req::check_keys(r, {"major", "elem_bits", "swizzle", "layout", "mn", "k", "lbo", "sbo", "sparse"});
  UmmaOperand op;
  op.major = req::get_choice(r, "major", {"K", "MN"}) == 0 ? UmmaMajor::K : UmmaMajor::MN;
  op.elem_bits = static_cast<int>(req::get_int(r, "elem_bits"));
  if (op.elem_bits != 4 && op.elem_bits != 8 && op.elem_bits != 16 && op.elem_bits != 32)
    req::fail("key \"elem_bits\" must be 4, 8, 16 or 32 (6-bit elements sit in 8-bit containers)");
  op.swizzle = static_cast<UmmaSwizzle>(req::get_choice(r, "swizzle", {"none", "32B", "64B", "128B", "128B_base32B"}));
  op.sparse = req::get_bool(r, "sparse", false);
  op.lbo = req::get_opt_int(r, "lbo");
  op.sbo = req::get_opt_int(r, "sbo");
  auto mn = req::get_opt_int(r, "mn");
  auto k = req::get_opt_int(r, "k");
  if (auto text = req::get_opt_string(r, "layout")) {
    try {
      op.layout = layout::parse_layout(*text);
    } catch (const layout::ParseError& e) {
      req::fail("key \"layout\": " + std::string(e.what()) + " (column " + std::to_string(e.column + 1) + ")");
    } catch (const layout::LayoutError& e) {
      req::fail("key \"layout\": " + std::string(e.what()));
    }
    if (op.layout->rank() != 2) req::fail("key \"layout\" must have two top-level modes (MN, K)");
    if (!op.layout->is_static() || !op.layout->has_integer_strides())
      req::fail("key \"layout\" must have static integer shapes and strides");
    const int64_t lmn = op.layout->mode(0).static_size(), lk = op.layout->mode(1).static_size();
    if ((mn && *mn != lmn) || (k && *k != lk))
      req::fail("keys \"mn\"/\"k\" disagree with the layout's mode sizes " + std::to_string(lmn) + " and " +
                std::to_string(lk));
    op.mn = lmn;
    op.k = lk;
  } else {
    if (!mn || !k) req::fail("give \"layout\", or \"mn\" and \"k\"");
    op.mn = *mn;
    op.k = *k;
  }
  if (op.mn <= 0 || op.k <= 0) req::fail("the tile extents must be positive");
  if (op.mn * op.k > kMaxElements) req::fail("the tile is too large to check (more than 4M elements)");
  UmmaResult res = check_umma_layout(op);
  Outcome out;
  if (res.diagnostic) {
    out.accepted = false;
    out.diagnostics.push_back(*res.diagnostic);
    return out;
  }
  out.result_lines.push_back("canonical layout: " + res.canonical.str());
  out.result_lines.push_back(res.lbo ? "lbo: " + std::to_string(*res.lbo) + " bytes" : std::string("lbo: unused"));
  out.result_lines.push_back(res.sbo ? "sbo: " + std::to_string(*res.sbo) + " bytes" : std::string("sbo: unused"));
  out.result = {{"canonical_layout", res.canonical.str()},
                {"lbo", res.lbo ? nlohmann::json(*res.lbo) : nlohmann::json(nullptr)},
                {"sbo", res.sbo ? nlohmann::json(*res.sbo) : nlohmann::json(nullptr)}};
  return out;
}

}  // namespace ptxsim::verifiers::tcgen05

namespace ptxsim::verifiers {
Outcome handle_umma_layout(const nlohmann::json& request) { return tcgen05::verify_umma_layout_request(request); }
}  // namespace ptxsim::verifiers
