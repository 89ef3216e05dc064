// Generators of tensor-map encoder parameter sets (valid by construction, and near-valid: one
// parameter moved next to a rule boundary) with an independent statement of the driver's rules to
// predict the encoder's verdict. Shared by the RapidCheck properties (tests/unit/tensormap_prop_test)
// and `ptxsim fuzz tensormap`. The rules here are written from the driver documentation, not from
// model/tensormap, so that the two can disagree.
//
// The generator functions draw with `*rc::gen::...`; call them inside a property or wrap them in
// rc::gen::exec (tensormap_params_gen does).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "model/tensormap/encoder.h"

namespace ptxsim::fuzz {

enum class TmapKind { kTiled, kIm2col, kWide };

// One call of cuTensorMapEncodeTiled / Im2col / Im2colWide, enums as their driver values.
struct TmapParams {
  TmapKind kind = TmapKind::kTiled;
  uint32_t dtype = 0;
  uint32_t rank = 1;
  uint64_t addr = 0;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  uint64_t strides[4] = {16, 16, 16, 16};
  uint32_t box[5] = {16, 1, 1, 1, 1};
  uint32_t es[5] = {1, 1, 1, 1, 1};
  uint32_t il = 0, sw = 0, l2 = 0, oob = 0;
  int32_t lower[3] = {0, 0, 0}, upper[3] = {0, 0, 0};
  uint32_t cpp = 1, ppc = 1, mode = 0;
};

bool predict_tmap_valid(const TmapParams& p);
TmapParams gen_tmap_valid(TmapKind kind);  // draws; every rule holds
void mutate_tmap(TmapParams& p);            // draws; moves one parameter to a rule boundary
std::string show(const TmapParams& p);
nlohmann::json to_json(const TmapParams& p);
model::tmap::EncodeResult run_encoder(const TmapParams& p, model::tmap::CUtensorMap* out);

// A parameter set of a random kind: valid (30%) or near-valid (70%).
rc::Gen<TmapParams> tensormap_params_gen();

}  // namespace ptxsim::fuzz
