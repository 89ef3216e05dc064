// 64-bit shared-memory matrix descriptors: the sm_100 UMMA descriptor (model/tcgen05/descriptors.h,
// PTX ISA 9.7.16.4.1 Table 40) and the sm_90 wgmma descriptor (model/wgmma/smem_desc.h, PTX ISA
// 9.7.15.5.1.2.2). Generators of valid and near-valid words, an independent statement of each
// table's rules (written here from the PTX ISA as restated in shared/reference/ptx-facts.md §5.5,
// not from the models), and the properties behind `ptxsim fuzz umma-desc` / `wgmma-desc` and the
// unit tests:
//   * encode(decode(w)) = w for every 64-bit word, decode(encode(d)) = d;
//   * validate accepts exactly what the rule statement accepts (classified differences in
//     docs/verifiers.md);
//   * every rejection names a field; the UMMA validator is a ladder and names the first broken
//     rule in table order; the wgmma validator lists every broken rule.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "tools/fuzz/campaign_runner.h"

namespace ptxsim::fuzz {

struct DescRule {
  std::string rule;
  std::string field;  // the text the validator's message uses for the field
};

// ---- UMMA (sm_100) ----
std::vector<DescRule> isa_umma_desc_broken_rules(uint64_t word);  // in table order
rc::Gen<uint64_t> umma_desc_gen();
Verdict umma_desc_property(const uint64_t& word);

// ---- wgmma (sm_90) ----
std::vector<DescRule> isa_wgmma_desc_broken_rules(uint64_t word);
rc::Gen<uint64_t> wgmma_desc_gen();
Verdict wgmma_desc_property(const uint64_t& word);

nlohmann::json desc_to_json(uint64_t word);  // {"descriptor": "0x..."}

}  // namespace ptxsim::fuzz
