#include "tools/fuzz/ldstmatrix_gen.h"

#include <initializer_list>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "verifiers/ldstmatrix/ldstmatrix_fit.h"
#include "verifiers/tcgen05/request.h"

namespace ptxsim::fuzz {
namespace {

struct Mode {
  int64_t extent, stride;
  std::string axis;
};

template <class T>
T pick(std::initializer_list<T> vs) {
  return *(vs.begin() + *rc::gen::inRange<size_t>(0, vs.size()));
}

std::string print(const std::vector<Mode>& ms) {
  std::string sh = "(", st = "(";
  for (size_t i = 0; i < ms.size(); ++i) {
    sh += (i ? "," : "") + std::to_string(ms[i].extent);
    st += (i ? "," : "") + std::to_string(ms[i].stride) + (ms[i].axis.empty() ? "" : "@" + ms[i].axis);
  }
  return sh + "):" + st + ")";
}

// Where logical tile element e (row-major over the leaves: the first leaf is outermost) lands:
// per axis ("" = the shared offset or the thread's local register element).
std::map<std::string, int64_t> place(const verifiers::layout::Layout& l, int64_t e) {
  std::map<std::string, int64_t> at = {{"", 0}, {"laneid", 0}, {"warpid", 0}};
  const auto modes = l.flat_modes();
  for (size_t i = modes.size(); i-- > 0;) {
    const int64_t n = modes[i].first.value, coord = e % n;
    e /= n;
    at[modes[i].second.axis] += coord * modes[i].second.value;
  }
  return at;
}

}  // namespace

rc::Gen<FitCase> ldstmatrix_fit_gen() {
  return rc::gen::exec([] {
    FitCase c;
    c.warps = *rc::gen::inRange(0, 4) == 0 ? 2 : 1;
    c.load = *rc::gen::arbitrary<bool>();
    const int64_t num = pick<int64_t>({1, 2, 4}), m = pick<int64_t>({1, 1, 2, 3});
    const bool trans = *rc::gen::arbitrary<bool>();
    const int64_t P = 8 * *rc::gen::inRange<int64_t>(1, 9);
    // Tiles side by side (Q = 8, when a row has room) or stacked (Q = 8P); the m_outer and warp
    // advances past them (so that the valid pairs are injective on both sides).
    const int64_t Q = P >= 8 * num && *rc::gen::arbitrary<bool>() ? 8 : 8 * P;
    const int64_t U = (Q == 8 ? 8 * P : 8 * P * num) * pick<int64_t>({1, 2});
    const int64_t V = U * m * pick<int64_t>({1, 2});
    std::vector<Mode> r, s;
    if (c.warps > 1) r.push_back({c.warps, 1, "warpid"}), s.push_back({c.warps, V, ""});
    if (*rc::gen::inRange(0, 3) == 0) r.push_back({32, 1, "laneid"});
    else r.push_back({8, 4, "laneid"}), r.push_back({4, 1, "laneid"});
    if (trans) s.push_back({8, 1, ""}), s.push_back({4, 2 * P, ""});
    else s.push_back({8, P, ""}), s.push_back({4, 2, ""});
    if (m > 1) r.push_back({m, 2 * num, ""}), s.push_back({m, U, ""});
    if (num > 1) r.push_back({num, 2, ""}), s.push_back({num, Q, ""});
    r.push_back({2, 1, ""});
    s.push_back({2, trans ? P : 1, ""});
    if (*rc::gen::inRange(0, 2)) {  // near-valid: one stride or extent moved
      auto find = [](std::vector<Mode>& v, int64_t extent, const std::string& axis) -> Mode* {
        for (Mode& x : v)
          if (x.extent == extent && x.axis == axis) return &x;
        return nullptr;
      };
      switch (*rc::gen::inRange(0, 9)) {
        case 0: s[c.warps > 1 ? 1 : 0].stride += pick<int64_t>({-1, 1, 4}); break;  // the 8-row stride
        case 1: s.back().stride += pick<int64_t>({1, 4, 8}); break;
        case 2: s[c.warps > 1 ? 2 : 1].stride += pick<int64_t>({1, 2, -1}); break;  // the 4-mode stride
        case 3:
          if (num > 1) r[r.size() - 2].stride = pick<int64_t>({0, 1, 4});
          break;
        case 4:
          if (m > 1) r[r.size() - (num > 1 ? 3 : 2)].stride = pick<int64_t>({0, 1, 2 * num + 1});
          break;
        case 5:
          if (Mode* x = find(r, 8, "laneid")) x->stride = pick<int64_t>({2, 8});
          break;
        case 6:
          if (Mode* x = find(r, 4, "laneid")) x->stride = 8, find(r, 8, "laneid")->stride = 1;  // lanes transposed
          break;
        case 7:
          if (num > 1) r[r.size() - 2].axis = "laneid";
          break;
        default:
          if (num > 1) s[s.size() - 2].stride += 4;
      }
    }
    c.register_layout = print(r);
    c.shared_layout = print(s);
    return c;
  });
}

nlohmann::json to_json(const FitCase& c) {
  nlohmann::ordered_json j;
  j["verifier"] = "ldstmatrix-fit";
  j["exec_scope"] = c.warps > 1 ? "cta" : "warp";
  if (c.warps > 1) j["threads"] = 32 * c.warps;
  j["src_scope"] = c.load ? "shared" : "local";
  j["dst_scope"] = c.load ? "local" : "shared";
  j["dtype"] = "float16";
  j["register_layout"] = "S[" + c.register_layout + "]";
  j["shared_layout"] = "S[" + c.shared_layout + "]";
  return j;
}

Verdict ldstmatrix_fit_property(const FitCase& c) {
  namespace ls = verifiers::ldstmatrix;
  nlohmann::json request = to_json(c);
  request.erase("verifier");
  ls::CopyRequest req;
  try {
    req = ls::parse_fit_request(request);
  } catch (const std::exception& e) {
    return Verdict::fail(std::string("the generated request does not parse: ") + e.what());
  }
  const verifiers::Outcome o = ls::verify_fit(req);
  if (!o.accepted) {
    if (o.diagnostics.size() != 1 || o.diagnostics[0] != ls::kDeclineMessage)
      return Verdict::fail("a well-formed copy is declined with '" + (o.diagnostics.empty() ? "" : o.diagnostics[0]) +
                           "', not the decline message");
    return Verdict{Verdict::kPass, "declined"};
  }
  const std::optional<ls::Fit> fit = ls::choose_fit(req);
  if (!fit) return Verdict::fail("verify_fit accepts but choose_fit finds no fit");
  if (o.result["num"] != fit->num || o.result["trans"] != fit->trans)
    return Verdict::fail("the printed num/trans differ from the fit");
  // What the layouts say: the (register element, shared element) pairs of the whole tile, a
  // register element being (warp, lane, local element).
  using Pair = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  std::set<Pair> want;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int> dest_uses;  // the written side
  const int64_t total = req.register_layout.static_size();
  bool ill_formed = false;
  for (int64_t e = 0; e < total; ++e) {
    auto r = place(req.register_layout, e);
    const int64_t src = place(req.shared_layout, e)[""];
    want.insert({r["warpid"], r["laneid"], r[""], src});
    const auto dest = c.load ? std::tuple{r["warpid"], r["laneid"], r[""], int64_t{0}} : std::tuple{int64_t{0}, int64_t{0}, int64_t{0}, src};
    ill_formed = ill_formed || ++dest_uses[dest] > 1;
  }
  // What the instructions do (ldmatrix .m8n8 .b16: lane 8j + k supplies row k of matrix j; lane t
  // has row t/4, columns 2(t%4) and 2(t%4)+1 in register j, or with .trans column t/4, rows
  // 2(t%4) and 2(t%4)+1; stmatrix moves the same pairs the other way).
  std::set<Pair> got;
  for (int64_t w = 0; w < fit->warps; ++w)
    for (int64_t mm = 0; mm < fit->m_outer; ++mm)
      for (int64_t t = 0; t < 32; ++t)
        for (int64_t j = 0; j < fit->num; ++j)
          for (int64_t h = 0; h < 2; ++h) {
            const int64_t src = fit->trans ? ls::lane_shared_offset(*fit, w, mm, 8 * j + 2 * (t % 4) + h) + t / 4
                                           : ls::lane_shared_offset(*fit, w, mm, 8 * j + t / 4) + 2 * (t % 4) + h;
            got.insert({w, t, ls::handle_offset(*fit, mm, j) + h, src});
          }
  const std::string what = "the chosen instructions (num " + std::to_string(fit->num) + (fit->trans ? ", trans" : "") +
                           ") for " + c.register_layout + " / " + c.shared_layout;
  if (got != want) return Verdict::fail(what + " do not move exactly the tile's element pairs");
  // Classified: a copy whose written side is not injective (two tile elements into one register
  // for a load, into one shared element for a store) is ill-formed, but the seed's predicate and
  // fit rules check no injectivity, so the verifier accepts it; the instructions then write that
  // destination twice, exactly as the layouts say.
  if (ill_formed) return Verdict{Verdict::kPass, "accepted an ill-formed copy (written side not injective), as the seed does"};
  return Verdict{Verdict::kPass, "accepted x" + std::to_string(fit->num) + (fit->trans ? ".trans" : "")};
}

}  // namespace ptxsim::fuzz
