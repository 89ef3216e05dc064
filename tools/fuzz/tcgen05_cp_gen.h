// tcgen05.cp shape x multicast pairings: a generator over every (shape, multicast, cta_group,
// decompression format, target), an independent table of the pairings (written here from the seed
// tcgen05-mma-walkthrough.txt and PTX ISA 9.7.16.9.2, ptx-facts.md §5.8), and the property behind
// `ptxsim fuzz tcgen05-cp` and the unit test:
//   * verify_cp accepts exactly the table's pairings on an arch/family-conditional sm_100+ target;
//   * a rejected pairing prints the seed's verbatim string (64x128b, 32x128b) or ptxsim's
//     "does not support multicast" wording, and the pairing rule comes before the target rule;
//   * every accepted pairing the simulator executes (model/tcgen05/cp.h) writes source row r to
//     exactly the lanes the table gives (4x256b is valid but not simulated: classified).
#pragma once
#include <string>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "tools/fuzz/campaign_runner.h"
#include "verifiers/tcgen05/cp.h"

namespace ptxsim::fuzz {

rc::Gen<verifiers::tcgen05::CpDescription> tcgen05_cp_gen();
Verdict tcgen05_cp_property(const verifiers::tcgen05::CpDescription& c);
nlohmann::json to_json(const verifiers::tcgen05::CpDescription& c);  // a `ptxsim verify` request

}  // namespace ptxsim::fuzz
