// Runs a launch's clusters on a pool of host threads (LaunchConfig::threads), each cluster to
// completion on one of them, and merges what they give in cluster order, so that the result, the
// printf output and the diagnostics are those of a run on one thread (docs/design.md "Parallel
// clusters").
#pragma once
#include <cstdint>
#include <ostream>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"

namespace ptxsim {

class Program;
struct Function;

RunResult run_clusters(const Program& prog, const Function& kernel, const LaunchConfig& cfg,
                       const std::vector<uint8_t>& params, model::GlobalMemory& mem, std::ostream& out);

}  // namespace ptxsim
