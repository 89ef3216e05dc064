// Property tests (RapidCheck) of the tcgen05-kind verifier: random valid and near-valid requests
// are rejected exactly with the FIRST failing rule of the seed's 13-rule ladder (the ladder is
// written again below from the seed's prose, over the request's fields rather than the packed
// bits), or by the backend's target gate, or accepted with a kind word that unpacks to the
// request; and the 9-bit packing round-trips both ways.
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "verifiers/tcgen05/kind_word.h"
#include "verifiers/tcgen05/request.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers {
namespace {

using nlohmann::json;

const std::vector<std::string> kKinds = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"};
const std::vector<std::string> kTargets = {"sm_100a", "sm_100f", "sm_103a", "sm_101a", "sm_110f",
                                           "sm_120a", "sm_100",  "sm_90a",  "sm_80"};

struct Req {
  std::string kind = "f16";
  int cta_group = 1;
  std::optional<std::string> svs;  // "1X" "2X" "4X"
  bool sia = false, block_scale = false, ws = false, sparse = false, ashift = false, arch_cond = true;
  std::string collector = "discard";
  std::string target = "sm_100a";

  json to_json() const {
    return {{"verifier", "tcgen05-kind"},
            {"kind", kind},
            {"cta_group", cta_group},
            {"scale_vec_size", svs ? json(*svs) : json(nullptr)},
            {"scale_input_acc", sia},
            {"block_scale", block_scale},
            {"weight_stationary", ws},
            {"sparse", sparse},
            {"ashift", ashift},
            {"collector_a", collector},
            {"arch_conditional", arch_cond},
            {"target", target}};
  }
};

// The seed's ladder, rule by rule, from the walkthrough's prose (1-based; 0 = passes).
int expected_rule(const Req& r) {
  const bool explicit_svs = r.svs && *r.svs != "1X";  // 1X packs as 0, like "not given"
  const bool one_x = !r.svs || *r.svs == "1X";
  const std::vector<bool> fires = {
      r.kind == "i8" && !r.arch_cond,
      (r.kind == "mxf4" || r.kind == "mxf4nvf4") && r.sparse && !r.arch_cond,
      explicit_svs && !r.arch_cond,
      r.sia && r.target != "sm_100a",
      r.sia && r.kind != "f16" && r.kind != "tf32",
      r.block_scale && (r.kind == "f16" || r.kind == "tf32" || r.kind == "f8f6f4" || r.kind == "i8"),
      r.ashift && r.block_scale,
      r.cta_group == 2 && r.ws,
      r.ws && (r.kind == "mxf8f6f4" || r.kind == "f8f6f4" || r.kind == "mxf4"),
      r.ashift && (r.collector == "use" || r.collector == "fill"),
      r.kind == "mxf8f6f4" && explicit_svs,
      r.kind == "mxf4nvf4" && one_x,
      r.kind == "mxf4" && (one_x || *r.svs == "4X"),
  };
  for (size_t i = 0; i < fires.size(); ++i)
    if (fires[i]) return static_cast<int>(i) + 1;
  return 0;
}

bool backend_target_ok(const std::string& t) {
  // sm_100 and later, arch- or family-conditional.
  return t == "sm_100a" || t == "sm_100f" || t == "sm_103a" || t == "sm_101a" || t == "sm_110f" || t == "sm_120a";
}

// A valid request for a random kind, then 0-3 random mutations.
rc::Gen<Req> gen_request() {
  return rc::gen::exec([] {
    Req r;
    r.kind = *rc::gen::elementOf(kKinds);
    r.cta_group = *rc::gen::element(1, 2);
    if (r.kind == "mxf8f6f4") r.svs = *rc::gen::element<std::optional<std::string>>(std::nullopt, std::string("1X"));
    if (r.kind == "mxf4") r.svs = "2X";
    if (r.kind == "mxf4nvf4") r.svs = *rc::gen::element<std::string>("2X", "4X");
    r.block_scale = r.kind.rfind("mx", 0) == 0 && *rc::gen::arbitrary<bool>();
    r.sia = (r.kind == "f16" || r.kind == "tf32") && *rc::gen::inRange(0, 4) == 0;
    r.ws = r.cta_group == 1 && (r.kind == "f16" || r.kind == "tf32" || r.kind == "i8") && *rc::gen::inRange(0, 4) == 0;
    r.sparse = *rc::gen::arbitrary<bool>();
    r.collector = *rc::gen::element<std::string>("discard", "fill", "use", "lastuse");
    r.ashift = !r.block_scale && (r.collector == "discard" || r.collector == "lastuse") && *rc::gen::arbitrary<bool>();
    const int mutations = *rc::gen::inRange(0, 4);
    for (int m = 0; m < mutations; ++m) {
      switch (*rc::gen::inRange(0, 12)) {
        case 0:
          r.kind = *rc::gen::elementOf(kKinds);
          break;
        case 1:
          r.cta_group = 3 - r.cta_group;
          break;
        case 2:
          r.svs = *rc::gen::element<std::optional<std::string>>(std::nullopt, std::string("1X"), std::string("2X"),
                                                                std::string("4X"));
          break;
        case 3:
          r.sia = !r.sia;
          break;
        case 4:
          r.block_scale = !r.block_scale;
          break;
        case 5:
          r.ws = !r.ws;
          break;
        case 6:
          r.sparse = !r.sparse;
          break;
        case 7:
          r.ashift = !r.ashift;
          break;
        case 8:
          r.collector = *rc::gen::element<std::string>("discard", "fill", "use", "lastuse");
          break;
        case 9:
          r.arch_cond = !r.arch_cond;
          break;
        default:
          r.target = *rc::gen::elementOf(kTargets);
          break;
      }
    }
    return r;
  });
}

RC_GTEST_PROP(Tcgen05VerifProp, RejectionNamesTheFirstFailingRule, ()) {
  const Req r = *gen_request();
  const Outcome o = find_verifier("tcgen05-kind")->handler(r.to_json());
  const int rule = expected_rule(r);
  RC_TAG(rule);
  if (rule != 0) {
    RC_ASSERT(!o.accepted);
    RC_ASSERT(o.diagnostics.size() == 1u);
    RC_ASSERT(o.diagnostics[0] == std::string(tcgen05::kKindLadder[rule - 1]));
    RC_ASSERT(o.result["rule"] == rule);
  } else if (!backend_target_ok(r.target)) {
    RC_ASSERT(!o.accepted);
    RC_ASSERT(o.diagnostics ==
              std::vector<std::string>{"tcgen05.mma supported only on arch-conditional or family-conditional variants "
                                       "from SM100 onwards."});
  } else {
    RC_ASSERT(o.accepted);
    // The printed word unpacks to the request.
    const uint16_t word = o.result["kind_word"].get<uint16_t>();
    char line[32];
    std::snprintf(line, sizeof line, "kind word: 0x%02x", word);
    RC_ASSERT(o.result_lines.at(0) == std::string(line));
    const tcgen05::KindWordFields f = tcgen05::unpack_kind_word(word);
    RC_ASSERT(f.cta_group == static_cast<unsigned>(r.cta_group));
    RC_ASSERT(std::string(tcgen05::kind_name(*tcgen05::kind_from_value(f.mma_kind))) == r.kind);
    RC_ASSERT(f.scale_vec_size == (!r.svs ? 0u : *r.svs == "1X" ? 0u : *r.svs == "2X" ? 1u : 2u));
    RC_ASSERT(f.scale_input_acc == r.sia);
    RC_ASSERT(f.block_scale == r.block_scale);
    // ws rides on bit 0 only with cta_group::1, where it changes nothing.
    RC_ASSERT(!r.ws || r.cta_group == 1);
    const unsigned collector = o.result["collector_word"].get<unsigned>();
    RC_ASSERT((collector & 3u) == (r.collector == "discard" ? 0u
                                   : r.collector == "fill"  ? 1u
                                   : r.collector == "use"   ? 2u
                                                            : 3u));
    RC_ASSERT(((collector >> 2) & 1u) == unsigned(r.ashift));
  }
}

RC_GTEST_PROP(Tcgen05VerifProp, PackUnpackRoundTrip, ()) {
  tcgen05::KindWordFields f;
  f.cta_group = *rc::gen::inRange(0u, 4u);
  f.scale_vec_size = *rc::gen::inRange(0u, 4u);
  f.scale_input_acc = *rc::gen::arbitrary<bool>();
  f.block_scale = *rc::gen::arbitrary<bool>();
  f.mma_kind = *rc::gen::inRange(0u, 8u);
  const uint16_t w = tcgen05::pack_kind_word(f);
  RC_ASSERT(w <= 0x1ffu);
  RC_ASSERT(tcgen05::unpack_kind_word(w) == f);
  const uint16_t raw = *rc::gen::inRange<uint16_t>(0, 512);
  RC_ASSERT(tcgen05::pack_kind_word(tcgen05::unpack_kind_word(raw)) == raw);
}

// The same ladder over every request the keys can spell (129024 of them), through the library.
TEST(Tcgen05VerifProp, LadderOnEveryRequest) {
  const std::vector<std::optional<std::string>> svss = {std::nullopt, "1X", "2X", "4X"};
  const std::vector<std::string> collectors = {"discard", "fill", "use", "lastuse"};
  int checked = 0, accepted = 0;
  std::vector<int> per_rule(14, 0);
  for (const std::string& kind : kKinds)
    for (int cg = 1; cg <= 2; ++cg)
      for (const auto& svs : svss)
        for (unsigned flags = 0; flags < 64; ++flags)
          for (const std::string& col : collectors)
            for (const std::string& target : kTargets) {
              Req r;
              r.kind = kind;
              r.cta_group = cg;
              r.svs = svs;
              r.sia = flags & 1;
              r.block_scale = flags & 2;
              r.ws = flags & 4;
              r.sparse = flags & 8;
              r.ashift = flags & 16;
              r.arch_cond = flags & 32;
              r.collector = col;
              r.target = target;
              tcgen05::MmaDescription m;
              m.kind = *tcgen05::kind_from_name(kind);
              m.cta_group = static_cast<unsigned>(cg);
              if (svs)
                m.scale_vec = *svs == "1X"   ? tcgen05::ScaleVec::x1
                              : *svs == "2X" ? tcgen05::ScaleVec::x2
                                             : tcgen05::ScaleVec::x4;
              m.scale_input_acc = r.sia;
              m.block_scale = r.block_scale;
              m.weight_stationary = r.ws;
              m.sparse = r.sparse;
              m.ashift = r.ashift;
              m.arch_conditional = r.arch_cond;
              m.collector_a = static_cast<tcgen05::CollectorA>(&col - &collectors[0]);
              m.target = *req::parse_target(target);
              const int expect = expected_rule(r);
              ASSERT_EQ(tcgen05::first_failing_kind_rule(m), expect) << r.to_json().dump();
              if (expect == 0) {
                ASSERT_EQ(tcgen05::check_mma_backend(m).has_value(), !backend_target_ok(target)) << r.to_json().dump();
                accepted += backend_target_ok(target);
              }
              ++per_rule[expect];
              ++checked;
            }
  EXPECT_EQ(checked, 129024);
  for (int rule = 0; rule <= 13; ++rule) EXPECT_GT(per_rule[rule], 0) << "rule " << rule << " never fires";
  EXPECT_GT(accepted, 0);
}

TEST(Tcgen05VerifProp, EveryWordRoundTrips) {
  for (unsigned raw = 0; raw < 512; ++raw)
    EXPECT_EQ(tcgen05::pack_kind_word(tcgen05::unpack_kind_word(static_cast<uint16_t>(raw))), raw);
  // The kind values: only 6 is unassigned.
  for (unsigned v = 0; v < 8; ++v) EXPECT_EQ(tcgen05::kind_from_value(v).has_value(), v != 6) << v;
}

}  // namespace
}  // namespace ptxsim::verifiers
