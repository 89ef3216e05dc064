// The TMA partition verifier (verifiers/tma/partition.h, seed tma-atoms.txt): a generator of 2-D
// tiles (SMEM layout with or without a swizzle, GMEM layout, CTA V-map, op, mode, num_multicast,
// element width, sparse / s2t operands), valid and with one piece moved (a V-map of another
// shape, a dynamic stride, a non-layout operand, a multicast count next to its rule), and the
// property behind `ptxsim fuzz tma-partition` and the unit test:
//   * a rejection names its step (1..11) with that step's verbatim diagnostic (the seed's table,
//     restated here);
//   * step 11 comes last: when the layouts pass steps 1..10, every num_multicast either passes or
//     fails at step 11, and store / reduce never look at num_multicast;
//   * an accepted result packs to 24 bytes and unpacks to itself; its flags word has the seed's
//     mode bits, the sparse / s2t operand bits, bits 6-11 (the checks that held) set and the
//     reserved bits 14-15 clear; tile_element_count = size(SMEM) x num_multicast (loads).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "tools/fuzz/campaign_runner.h"

namespace ptxsim::fuzz {

struct PartitionCase {
  std::string op = "load";  // load | store | reduce
  uint8_t mode = 0;
  std::string smem, gmem, vmap;
  std::optional<int64_t> num_multicast;
  int element_bits = 16;
  bool sm100 = false, sparse = false, s2t = false;
};

rc::Gen<PartitionCase> tma_partition_gen();
Verdict tma_partition_property(const PartitionCase& c);
nlohmann::json to_json(const PartitionCase& c);

}  // namespace ptxsim::fuzz
