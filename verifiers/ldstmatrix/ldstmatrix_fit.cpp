#include "verifiers/ldstmatrix/ldstmatrix_fit.h"

#include "verifiers/tcgen05/ptx_text.h"
#include "verifiers/tcgen05/request.h"

namespace ptxsim::verifiers::ldstmatrix {

const char* const kDeclineMessage = "ldstmatrix layout doesn't fit any num \u2208 {4,2,1}";

namespace {

bool is_shared_scope(const std::string& s) { return s.compare(0, 6, "shared") == 0; }

bool is_16bit(const std::string& t) {
  for (const char* d : {"float16", "bfloat16", "int16", "uint16", "f16", "bf16", "s16", "u16", "b16"})
    if (t == d) return true;
  return false;
}
}  // namespace

std::vector<Mode> leaves(const Layout& l) {
  std::vector<Mode> v;
  for (const auto& [shape, stride] : l.flat_modes())
    v.push_back({shape.value, stride.value, stride.is_basis() ? stride.axis : std::string()});
  return v;
}

std::optional<std::array<Group, 6>> regroup(const std::vector<Mode>& leaves, const std::array<int64_t, 6>& extents) {
  std::vector<Mode> rest;  // innermost first, extent-1 leaves dropped
  for (auto it = leaves.rbegin(); it != leaves.rend(); ++it)
    if (it->extent != 1) rest.push_back(*it);
  size_t li = 0;
  std::array<Group, 6> out{};
  for (int g = 5; g >= 0; --g) {
    int64_t need = extents[g];
    std::vector<Mode> pieces;
    while (need > 1) {
      if (li >= rest.size()) return std::nullopt;
      Mode& m = rest[li];
      if (m.extent <= need) {
        if (need % m.extent) return std::nullopt;
        pieces.push_back(m);
        need /= m.extent;
        ++li;
      } else {
        if (m.extent % need) return std::nullopt;
        pieces.push_back({need, m.stride, m.axis});
        m = {m.extent / need, m.stride * need, m.axis};
        need = 1;
      }
    }
    out[g].extent = extents[g];
    if (pieces.empty()) continue;
    for (size_t k = 1; k < pieces.size(); ++k)
      if (pieces[k].axis != pieces[0].axis || pieces[k].stride != pieces[k - 1].stride * pieces[k - 1].extent)
        return std::nullopt;
    out[g].stride = pieces[0].stride;
    out[g].axis = pieces[0].axis;
  }
  if (li != rest.size()) return std::nullopt;
  return out;
}

int64_t thread_count(const CopyRequest& c) {
  if (c.threads) return *c.threads;
  if (c.exec_scope == "warpgroup") return 128;
  if (c.exec_scope == "cta") {
    int64_t warps = 1;
    for (const Mode& m : leaves(c.register_layout))
      if (m.axis == "warpid") warps *= m.extent;
    return 32 * warps;
  }
  return 32;
}

std::optional<std::string> predicate_reason(const CopyRequest& c) {
  if (c.target != "cuda") return std::string("non-cuda target");
  if (c.exec_scope != "warp" && c.exec_scope != "warpgroup" && c.exec_scope != "cta")
    return "unsupported exec_scope " + c.exec_scope + " (need warp, warpgroup, or cta)";
  const int64_t t = thread_count(c);
  if (t <= 0 || t % 32)
    return "exec_scope " + c.exec_scope + " has " + std::to_string(t) + " threads (need whole warps)";
  if (!c.all_threads_active) return std::string("not all threads are active");
  // _is_valid_copy
  if (!is_16bit(c.dtype)) return "unsupported dtype " + c.dtype + " (need a 16-bit type)";
  if (c.register_layout.static_size() != c.shared_layout.static_size())
    return "invalid copy: the register layout has " + std::to_string(c.register_layout.static_size()) +
           " elements, the shared layout " + std::to_string(c.shared_layout.static_size());
  // _scope_allowed(_REG_SMEM_PAIRS)
  const bool ok = (c.src_scope == "local" && is_shared_scope(c.dst_scope)) ||
                  (is_shared_scope(c.src_scope) && c.dst_scope == "local");
  if (!ok)
    return "unsupported scope pair (" + c.src_scope + ", " + c.dst_scope +
           ") (need (local, shared*) or (shared*, local))";
  return std::nullopt;
}

std::optional<Fit> try_num(const Layout& r, const Layout& s, int num, int64_t threads) {
  const int64_t total = r.static_size();
  if (s.static_size() != total || threads <= 0 || threads % 32 || total % threads) return std::nullopt;
  const int64_t M = total / threads;  // elements per thread
  if (M % (2 * num)) return std::nullopt;
  Fit f;
  f.num = num;
  f.m_outer = M / (2 * num);
  f.warps = threads / 32;
  const std::array<int64_t, 6> ext = {f.warps, 8, 4, f.m_outer, num, 2};
  auto rg = regroup(leaves(r), ext);
  auto sg = regroup(leaves(s), ext);
  if (!rg || !sg) return std::nullopt;
  f.reg = *rg;
  f.shared = *sg;
  // The register side is the m8n8 fragment: lane = 4*row + column pair, the pair contiguous.
  const Group &r8 = f.reg[1], &r4 = f.reg[2], &r2 = f.reg[5];
  if (r8.axis != "laneid" || r8.stride != 4 || r4.axis != "laneid" || r4.stride != 1 || !r2.axis.empty() ||
      r2.stride != 1)
    return std::nullopt;
  if (f.warps > 1 && (f.reg[0].axis != "warpid" || f.reg[0].stride != 1)) return std::nullopt;
  if ((f.m_outer > 1 && !f.reg[3].axis.empty()) || (num > 1 && !f.reg[4].axis.empty())) return std::nullopt;
  // The shared side: element offsets only; row-major (plain) or column-major (.trans) 8x8 tiles.
  for (const Group& g : f.shared)
    if (!g.axis.empty()) return std::nullopt;
  const int64_t s8 = f.shared[1].stride, s4 = f.shared[2].stride, s2 = f.shared[5].stride;
  if (s4 == 2 && s2 == 1 && s8 > 0 && s8 % 8 == 0) {
    f.trans = false;
    f.p = s8;
  } else if (s8 == 1 && s2 > 0 && s2 % 8 == 0 && s4 == 2 * s2) {
    f.trans = true;
    f.p = s2;
  } else {
    return std::nullopt;
  }
  // 16-byte alignment of every tile and every m_outer / warp advance.
  if ((num > 1 && f.shared[4].stride % 8) || (f.m_outer > 1 && f.shared[3].stride % 8) ||
      (f.warps > 1 && f.shared[0].stride % 8))
    return std::nullopt;
  return f;
}

std::optional<Fit> choose_fit(const CopyRequest& c) {
  for (int num : {4, 2, 1})
    if (auto f = try_num(c.register_layout, c.shared_layout, num, thread_count(c))) return f;
  return std::nullopt;
}

bool is_load(const CopyRequest& c) { return is_shared_scope(c.src_scope); }

std::string ptx_for(bool load, int num, bool trans) {
  std::string s = std::string(load ? "ldmatrix" : "stmatrix") + ".sync.aligned.m8n8.x" + std::to_string(num) +
                  (trans ? ".trans" : "") + ".shared.b16 ";
  std::string regs = "{";
  const int first = load ? 0 : 1;
  for (int j = 0; j < num; ++j) regs += (j ? ", %" : "%") + std::to_string(first + j);
  regs += "}";
  std::string addr = "[%" + std::to_string(load ? num : 0) + "]";
  return s + (load ? regs + ", " + addr : addr + ", " + regs) + ";";
}

int64_t lane_shared_offset(const Fit& f, int64_t warp, int64_t mm, int64_t lane) {
  return warp * f.shared[0].stride + mm * f.shared[3].stride + ((lane / 8) % f.num) * f.shared[4].stride +
         (lane % 8) * f.p;
}

int64_t handle_offset(const Fit& f, int64_t mm, int64_t j) { return mm * f.reg[3].stride + j * f.reg[4].stride; }

Outcome verify_fit(const CopyRequest& c) {
  Outcome out;
  std::optional<std::string> reason = predicate_reason(c);
  std::optional<Fit> fit;
  if (!reason) {
    fit = choose_fit(c);
    if (!fit) reason = kDeclineMessage;
  }
  if (reason) {
    out.accepted = false;
    out.diagnostics.push_back(*reason);
    return out;
  }
  const Fit& f = *fit;
  const bool load = is_load(c);
  const std::string ptx = ptx_for(load, f.num, f.trans);
  auto term = [](int64_t k, const std::string& v) {
    return k == 0 ? std::string() : " + " + std::to_string(k) + "*" + v;
  };
  std::string addr = std::to_string(f.p) + "*(laneid%8)";
  if (f.num > 1) addr += term(f.shared[4].stride, "(laneid/8)");
  if (f.m_outer > 1) addr += term(f.shared[3].stride, "mm");
  if (f.warps > 1) addr += term(f.shared[0].stride, "warpid");
  std::string regs;
  for (int j = 0; j < f.num; ++j)
    regs += (j ? ", r_local[" : "r_local[") + std::to_string(handle_offset(f, 0, j)) + "]";
  if (f.m_outer > 1) regs += " (+ " + std::to_string(f.reg[3].stride) + "*mm)";
  out.result_lines.push_back("num: " + std::to_string(f.num));
  out.result_lines.push_back(std::string("trans: ") + (f.trans ? "true" : "false"));
  out.result_lines.push_back("ptx: " + ptx);
  out.result_lines.push_back("instructions per lane: " + std::to_string(f.m_outer));
  out.result_lines.push_back("shared offset (elements): " + addr);
  out.result_lines.push_back("registers: " + regs);
  nlohmann::json instrs = nlohmann::json::array();
  for (int64_t mm = 0; mm < f.m_outer; ++mm) {
    nlohmann::json handles = nlohmann::json::array(), lanes = nlohmann::json::array();
    for (int j = 0; j < f.num; ++j) handles.push_back(handle_offset(f, mm, j));
    for (int lane = 0; lane < 32; ++lane) lanes.push_back(lane_shared_offset(f, 0, mm, lane));
    instrs.push_back({{"handles", handles}, {"lane_offsets", lanes}});
  }
  out.result = {{"num", f.num},
                {"trans", f.trans},
                {"ptx", ptx},
                {"direction", load ? "ld" : "st"},
                {"p", f.p},
                {"m_outer", f.m_outer},
                {"warps", f.warps},
                {"warp_stride", f.shared[0].stride},
                {"instructions", instrs}};
  return out;
}

CopyRequest parse_fit_request(const nlohmann::json& r) {
  namespace req = ::ptxsim::verifiers::req;
  req::check_keys(r, {"target", "exec_scope", "threads", "all_threads_active", "src_scope", "dst_scope", "dtype",
                      "register_layout", "shared_layout"});
  CopyRequest c;
  c.target = req::get_opt_string(r, "target").value_or("cuda");
  c.exec_scope = req::get_opt_string(r, "exec_scope").value_or("warp");
  c.threads = req::get_opt_int(r, "threads");
  c.all_threads_active = req::get_bool(r, "all_threads_active", true);
  c.src_scope = req::get_string(r, "src_scope");
  c.dst_scope = req::get_string(r, "dst_scope");
  c.dtype = req::get_opt_string(r, "dtype").value_or("float16");
  for (auto [key, dst] :
       {std::pair{"register_layout", &c.register_layout}, std::pair{"shared_layout", &c.shared_layout}}) {
    const std::string where = std::string("key \"") + key + "\": ";
    std::string text = tcgen05::trim(req::get_string(r, key));
    if (text.size() >= 3 && text.compare(0, 2, "S[") == 0 && text.back() == ']') text = text.substr(2, text.size() - 3);
    try {
      *dst = layout::parse_layout(text);
    } catch (const layout::ParseError& e) {
      req::fail(where + e.what() + " (column " + std::to_string(e.column + 1) + ")");
    } catch (const layout::LayoutError& e) {
      req::fail(where + e.what());
    }
    for (const auto& [shape, stride] : dst->flat_modes()) {
      if (!shape.is_static_int() || shape.value <= 0) req::fail(where + "extents must be positive integers");
      if (stride.is_dynamic()) req::fail(where + "strides must be static");
      if (stride.is_basis() && stride.axis != "laneid" && stride.axis != "warpid")
        req::fail(where + "unknown axis @" + stride.axis + " (known: laneid, warpid)");
    }
  }
  return c;
}

}  // namespace ptxsim::verifiers::ldstmatrix

namespace ptxsim::verifiers {
Outcome handle_ldstmatrix_fit(const nlohmann::json& request) {
  return ldstmatrix::verify_fit(ldstmatrix::parse_fit_request(request));
}
}  // namespace ptxsim::verifiers
