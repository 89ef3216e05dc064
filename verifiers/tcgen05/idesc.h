// The hardware's 32-bit tcgen05.mma instruction descriptor (PTX §9.7.16.4.2 Tables 42-44, valid
// M/N from Table 39; restated in shared/reference/ptx-facts.md §5.4 and §5.6): decode and check a
// constant descriptor against the instruction's qualifiers. This is the ISA's rule set, not the
// seed's: the seed's 9-bit kind word (kind_word.h) has no counterpart in PTX.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "verifiers/tcgen05/kind_word.h"

namespace ptxsim::verifiers::tcgen05 {

struct IdescContext {
  MmaKind kind = MmaKind::f16;
  unsigned cta_group = 1;
  bool sparse = false;  // .sp
  bool ws = false;      // .ws
  req::Target target{100, 'a', "sm_100a"};
};

struct IdescFields {
  unsigned sparse_selector = 0, d_type = 0, a_type = 0, b_type = 0, b_sf_id = 0, a_sf_id = 0, ws_shift = 0;
  bool sparse = false, saturate = false, negate_a = false, negate_b = false, transpose_a = false, transpose_b = false;
  bool scale_type_ue8m0 = false, k96 = false;
  unsigned m = 0, n = 0;
};

bool is_block_scaled(MmaKind k);  // mxf8f6f4, mxf4, mxf4nvf4
IdescFields decode_idesc(uint32_t idesc, MmaKind kind);
// The first violated rule, as "tcgen05.mma instruction descriptor 0x........: ...", or nullopt.
std::optional<std::string> check_idesc(uint32_t idesc, const IdescContext& ctx);

// The "tcgen05-idesc" request: "idesc" (a "0x..." string or an integer), "kind" ("f16", ...),
// "cta_group" (1 | 2), "sparse", "ws" (booleans), "target" (default "sm_100a").
Outcome verify_idesc_request(const nlohmann::json& request);

}  // namespace ptxsim::verifiers::tcgen05
