#include "verifiers/tma/bulk_emission.h"

#include <algorithm>
#include <cctype>

namespace ptxsim::verifiers::tma {

namespace {

// 0: the im2col family, 1: .multicast::cluster, 2: .L2::cache_hint, -1: other.
int ordered_class(const std::string& m) {
  if (m == "im2col" || m == "im2col::w" || m == "im2col::w::128" || m == "im2col_no_offs") return 0;
  if (m == "multicast::cluster") return 1;
  if (m == "L2::cache_hint") return 2;
  return -1;
}

bool is_load_mode(const std::string& m) {
  return m == "tile" || m == "tile::gather4" || m == "tile::scatter4" || ordered_class(m) == 0;
}

std::optional<int> dim_token(const std::string& m) {
  if (m.size() < 2 || m.back() != 'd') return std::nullopt;
  int v = 0;
  for (size_t i = 0; i + 1 < m.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(m[i])) || i > 2) return std::nullopt;
    v = v * 10 + (m[i] - '0');
  }
  return v;
}

std::string sigil_of(const std::string& op) { return (!op.empty() && op[0] == '$') ? "$" : "%"; }

}  // namespace

bool is_bulk_instruction(const PtxInstruction& in) {
  const auto& p = in.parts;
  if (p.size() >= 3 && p[0] == "cp" && p[1] == "async" && p[2] == "bulk") {
    // cp.async.bulk.commit_group / wait_group carry no modifiers or operands of interest.
    return !(p.size() >= 4 && (p[3] == "commit_group" || p[3] == "wait_group"));
  }
  return p.size() >= 4 && p[0] == "cp" && p[1] == "reduce" && p[2] == "async" && p[3] == "bulk";
}

BulkEmissionOutcome check_bulk_emission(const PtxInstruction& in, const std::optional<std::string>& constraints) {
  BulkEmissionOutcome out;
  auto reject = [&](std::string d) {
    out.accepted = false;
    out.diagnostic = std::move(d);
    return out;
  };
  const std::string got = ", but got " + in.text;
  if (!is_bulk_instruction(in)) return reject("expected a cp.async.bulk instruction" + got);
  const auto& p = in.parts;
  size_t first;  // index of the first modifier after the family prefix
  if (p[1] == "reduce") {
    first = 4;
    out.family = (p.size() > 4 && p[4] == "tensor") ? BulkFamily::TensorReduce : BulkFamily::NonTensor;
  } else if (p.size() > 3 && p[3] == "tensor") {
    first = 4;
    out.family = BulkFamily::TensorLoad;  // refined below from the state spaces
  } else if (p.size() > 4 && p[3] == "prefetch" && p[4] == "tensor") {
    first = 5;
    out.family = BulkFamily::TensorPrefetch;
  } else {
    first = 3;
    out.family = BulkFamily::NonTensor;
  }
  if (out.family == BulkFamily::TensorReduce) first = 5;
  std::vector<std::string> mods(p.begin() + static_cast<std::ptrdiff_t>(std::min(first, p.size())), p.end());

  // Each modifier once, then the fixed order of the three.
  for (size_t i = 0; i < mods.size(); ++i)
    for (size_t j = i + 1; j < mods.size(); ++j)
      if (mods[i] == mods[j]) return reject("expected each modifier at most once, but got ." + mods[i] + " twice");
  {
    int last_class = -1;
    std::string last;
    for (const std::string& m : mods) {
      int c = ordered_class(m);
      if (c < 0) continue;
      if (c < last_class)
        return reject("expected the modifier order .im2col, .multicast::cluster, .L2::cache_hint, but got ." + last +
                      " before ." + m);
      last_class = c;
      last = m;
      out.modifiers.push_back("." + m);
      if (c == 1) out.multicast = true;
      if (c == 2) out.cache_hint = true;
    }
  }
  if (out.family == BulkFamily::NonTensor) {
    out.accepted = true;
    return out;
  }

  // Tensor forms: rank, direction, load mode.
  size_t dim_at = mods.size();
  for (size_t i = 0; i < mods.size() && dim_at == mods.size(); ++i)
    if (dim_token(mods[i])) dim_at = i;
  if (dim_at == mods.size()) return reject("expected a .Nd rank modifier (N = 1..5)" + got);
  out.rank = *dim_token(mods[dim_at]);
  if (out.rank < 1 || out.rank > 5)
    return reject("expected a tensor rank between 1 and 5, but got ." + mods[dim_at]);
  if (out.family == BulkFamily::TensorLoad) {
    const std::string dst = dim_at + 1 < mods.size() ? mods[dim_at + 1] : "";
    if (dst == "global") out.family = BulkFamily::TensorStore;
  }
  out.load_mode = "tile";
  for (const std::string& m : mods)
    if (is_load_mode(m)) out.load_mode = m;
  const bool im2col = ordered_class(out.load_mode) == 0;
  if (im2col && (out.rank < 3))
    return reject("expected a rank between 3 and 5 for ." + out.load_mode + ", but got ." + mods[dim_at]);
  if ((out.load_mode == "tile::gather4" || out.load_mode == "tile::scatter4") && out.rank != 2)
    return reject("expected .2d for ." + out.load_mode + ", but got ." + mods[dim_at]);
  if (out.multicast) {
    bool cluster_dst = out.family == BulkFamily::TensorLoad &&
                       std::find(mods.begin(), mods.end(), "shared::cluster") != mods.end();
    if (!cluster_dst) return reject("expected .multicast::cluster only on a load into shared::cluster" + got);
  }

  // Operand structure.
  const auto& ops = in.operands;
  std::string shape;
  switch (out.family) {
    case BulkFamily::TensorLoad: shape = "[dstMem], [tensorMap, {coordinates}], [mbar]"; break;
    case BulkFamily::TensorStore:
    case BulkFamily::TensorReduce: shape = "[tensorMap, {coordinates}], [srcMem]"; break;
    default: shape = "[tensorMap, {coordinates}]"; break;
  }
  auto bad_shape = [&] { return reject("expected the operands " + shape + got); };
  size_t k = 0;  // next top-level operand
  auto add = [&](const std::string& text, std::string role, std::string cls) {
    out.operands.push_back({text, std::move(role), std::move(cls)});
  };
  if (out.family == BulkFamily::TensorLoad) {
    if (ops.size() < 3) return bad_shape();
    auto dst = unwrap(ops[0], '[', ']');
    if (!dst) return bad_shape();
    add(*dst, "destination", "");
    k = 1;
  }
  if (k >= ops.size()) return bad_shape();
  auto tm = unwrap(ops[k], '[', ']');
  if (!tm) return bad_shape();
  auto tm_parts = split_top(*tm);
  if (tm_parts.size() != 2) return bad_shape();
  auto coords_text = unwrap(tm_parts[1], '{', '}');
  if (!coords_text) return bad_shape();
  out.descriptor_opnum = static_cast<int>(out.operands.size());
  add(tm_parts[0], "tensor-map descriptor", "l");
  auto coords = split_top(*coords_text);
  const size_t want_coords =
      (out.load_mode == "tile::gather4" || out.load_mode == "tile::scatter4") ? 5 : static_cast<size_t>(out.rank);
  if (coords.size() != want_coords)
    return reject("expected " + std::to_string(want_coords) + " tensor coordinates for ." +
                  (want_coords == 5 ? out.load_mode : mods[dim_at]) + ", but got " + std::to_string(coords.size()));
  for (size_t i = 0; i < coords.size(); ++i) add(coords[i], "coordinate " + std::to_string(i), "r");
  ++k;
  if (out.family == BulkFamily::TensorLoad) {
    auto mbar = unwrap(ops[k], '[', ']');
    if (!mbar) return bad_shape();
    add(*mbar, "mbarrier", "");
    ++k;
  } else if (out.family == BulkFamily::TensorStore || out.family == BulkFamily::TensorReduce) {
    if (k >= ops.size()) return bad_shape();
    auto src = unwrap(ops[k], '[', ']');
    if (!src) return bad_shape();
    add(*src, "source", "");
    ++k;
  }
  // im2col offsets (loads and prefetches; .im2col_no_offs has none).
  if ((out.family == BulkFamily::TensorLoad || out.family == BulkFamily::TensorPrefetch) && im2col) {
    const size_t want = out.load_mode == "im2col" ? static_cast<size_t>(out.rank - 2) : 2;
    std::vector<std::string> offs;
    if (k < ops.size())
      if (auto g = unwrap(ops[k], '{', '}')) {
        offs = split_top(*g);
        ++k;
      }
    if (offs.size() != want)
      return reject("expected " + std::to_string(want) + " im2col offsets for ." + mods[dim_at] + " ." +
                    out.load_mode + ", but got " + std::to_string(offs.size()));
    for (size_t i = 0; i < offs.size(); ++i)
      add(offs[i], (out.load_mode == "im2col" ? "im2col offset " : "im2col info ") + std::to_string(i), "h");
    out.im2col_count = static_cast<int>(offs.size());
  }
  // Trailing operands.
  const size_t trailing = ops.size() - std::min(k, ops.size());
  const size_t want_trailing = (out.multicast ? 1 : 0) + (out.cache_hint ? 1 : 0);
  if (trailing != want_trailing) {
    std::string names = out.multicast && out.cache_hint ? " (ctaMask, cache-policy)"
                        : out.multicast                  ? " (ctaMask)"
                        : out.cache_hint                 ? " (cache-policy)"
                                                         : "";
    return reject("expected " + std::to_string(want_trailing) + " trailing operand" + (want_trailing == 1 ? "" : "s") +
                  names + ", but got " + std::to_string(trailing));
  }
  if (out.family == BulkFamily::TensorLoad) {
    out.mcast_opnum = out.rank + 3 + out.im2col_count;
    out.ch_opnum = out.mcast_opnum + (out.multicast ? 1 : 0);
  } else {
    out.ch_opnum = static_cast<int>(out.operands.size());
  }
  if (out.multicast) add(ops[k++], "ctaMask", "h");
  if (out.cache_hint) add(ops[k++], "cache-policy", "l");

  // Operand numbering of an inline-asm template.
  for (size_t i = 0; i < out.operands.size(); ++i) {
    const BulkOperand& o = out.operands[i];
    auto n = placeholder_number(o.text);
    if (!n || *n == static_cast<int>(i)) continue;
    const std::string s = sigil_of(o.text);
    std::string why;
    if (o.role == "ctaMask") why = " (mcast_opnum = rank + 3 + im2col_count)";
    if (o.role == "cache-policy" && out.family == BulkFamily::TensorLoad)
      why = out.multicast ? " (ch_opnum = mcast_opnum + 1)" : " (ch_opnum = mcast_opnum)";
    return reject("expected the " + o.role + " at operand " + s + std::to_string(i) + why + ", but got " + o.text);
  }
  // Operand classes.
  std::vector<std::string> cons;
  if (constraints) {
    cons = split_constraints(*constraints);
    if (cons.size() != out.operands.size())
      return reject("expected " + std::to_string(out.operands.size()) + " constraints for " +
                    std::to_string(out.operands.size()) + " operands, but got " + std::to_string(cons.size()) + " (\"" +
                    *constraints + "\")");
  }
  for (size_t i = 0; i < out.operands.size(); ++i) {
    const BulkOperand& o = out.operands[i];
    if (o.want_class.empty()) continue;
    std::optional<std::string> have;
    std::string shown;
    if (auto n = placeholder_number(o.text)) {
      if (!cons.empty()) {
        have = cons[static_cast<size_t>(*n)];
        shown = "\"" + *have + "\" (" + class_width(*have) + ")";
      }
    } else if ((have = register_class(o.text))) {
      shown = o.text + " (\"" + *have + "\", " + class_width(*have) + ")";
    }
    if (have && *have != o.want_class && !(o.want_class == "r" && *have == "n"))
      return reject("expected the " + o.role + " (operand " + sigil_of(o.text) + std::to_string(i) +
                    ") to have constraint class \"" + o.want_class + "\" (" + class_width(o.want_class) +
                    "), but got " + shown);
  }
  out.accepted = true;
  return out;
}

}  // namespace ptxsim::verifiers::tma
