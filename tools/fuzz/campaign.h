// Property-based fuzzing campaigns outside the test suite (`ptxsim fuzz TARGET`): each target is a
// RapidCheck generator of inputs (valid and near-valid) and a property that returns a failure
// message or nothing. A campaign draws `count` inputs from a seed; the first failing input is
// shrunk (greedy descent through RapidCheck's shrink tree) to a minimal counterexample, which is
// written as a reproducible JSON file. The same generators back the unit-test properties.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptxsim::fuzz {

struct CampaignOptions {
  uint64_t seed = 1;
  uint64_t count = 1000;
  std::string out_dir;  // where counterexamples go ("" = do not write)
  int max_size = 100;   // RapidCheck size grows from 0 to this over the campaign
};

struct CampaignResult {
  uint64_t tried = 0;
  uint64_t discarded = 0;  // inputs the property does not apply to
  // How many passing inputs fell in each class a property names (e.g. "accepted", "rejected", or
  // a documented difference between a verifier and the simulator), so that none is hidden.
  std::map<std::string, uint64_t> classes;
  bool failed = false;
  std::string message;        // the minimal counterexample's failure
  nlohmann::json counterexample;  // the minimal counterexample itself
  int shrink_steps = 0;
  std::string written;        // path of the file written, if any
};

struct FuzzTarget {
  const char* name;
  const char* summary;
  std::function<CampaignResult(const CampaignOptions&)> run;
};

const std::vector<FuzzTarget>& fuzz_targets();
const FuzzTarget* find_fuzz_target(const std::string& name);

}  // namespace ptxsim::fuzz
