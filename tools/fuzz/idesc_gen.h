// tcgen05.mma 32-bit instruction descriptors with their instruction qualifiers (kind, cta_group,
// .sp, .ws, target): generators of valid and near-valid cases (a valid descriptor with one field
// moved next to a rule boundary), an independent statement of the ISA's rules (written here from
// PTX ISA Tables 39, 42-44 as restated in shared/reference/ptx-facts.md §5.4/§5.6, not from the
// verifier or the model), and the property shared by `ptxsim fuzz idesc` and the unit tests:
//   * the model's decode/encode is the identity on every 32-bit word (both layouts), and the
//     verifier's decoder (verifiers/tcgen05/idesc) reads the same field values as the model's;
//   * verifiers::tcgen05::check_idesc accepts exactly what the rule statement accepts;
//   * model::tcgen05::validate (what the simulator checks before executing) accepts exactly what
//     the verifier accepts, except in the classified differences listed in docs/verifiers.md;
//   * every rejection names a field the rule statement also finds broken.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "tools/fuzz/campaign_runner.h"
#include "verifiers/tcgen05/kind_word.h"

namespace ptxsim::fuzz {

struct IdescCase {
  uint32_t word = 0;
  verifiers::tcgen05::MmaKind kind = verifiers::tcgen05::MmaKind::f16;
  unsigned cta_group = 1;
  bool sparse = false, ws = false;
  bool sm103a = false;  // target sm_103a (K = 96) rather than sm_100a
};

// One broken rule of the independent statement: its name and the text the verifier's diagnostic
// uses for the field (so a rejection can be checked to name a broken field).
struct IdescRule {
  std::string rule;
  std::string verifier_field;
};
// Every rule the case breaks, in table order (empty: valid).
std::vector<IdescRule> isa_idesc_broken_rules(const IdescCase& c);

rc::Gen<IdescCase> idesc_case_gen();
std::string show(const IdescCase& c);
nlohmann::json to_json(const IdescCase& c);  // a `ptxsim verify` request ("tcgen05-idesc")
Verdict idesc_property(const IdescCase& c);

}  // namespace ptxsim::fuzz
