// ldmatrix/stmatrix layout fit (verifiers/ldstmatrix): a generator of register/shared layout
// pairs built from the m8n8 fragment structure (valid) and with one stride or extent moved
// (near-valid), and the property behind `ptxsim fuzz ldstmatrix-fit` and the unit test: when the
// fit verifier accepts a pair, the instructions it chose (num, .trans, the per-lane shared
// addresses and register handles the emitted PTX uses), executed by the ISA's ldmatrix semantics
// written here (PTX ISA 9.7.14.5.15; ptx-facts.md §4.2) rather than taken from the verifier, move
// exactly the tile: every (warp, lane, register element) of the register layout receives exactly
// the shared element the two layouts pair it with, and nothing else is written.
#pragma once
#include <string>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "tools/fuzz/campaign_runner.h"

namespace ptxsim::fuzz {

struct FitCase {
  std::string register_layout, shared_layout;  // TIRx notation, e.g. (8,4,2):(4@laneid,1@laneid,1)
  int warps = 1;
  bool load = true;
};

rc::Gen<FitCase> ldstmatrix_fit_gen();
Verdict ldstmatrix_fit_property(const FitCase& c);
nlohmann::json to_json(const FitCase& c);  // a `ptxsim verify` request

}  // namespace ptxsim::fuzz
