// The verifiers' common interface: a verifier takes a JSON request (its inputs) and answers with
// diagnostics in the seeds' words or a result. `ptxsim verify REQUEST.json` dispatches on the
// request's "verifier" key through registry().
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxsim::verifiers {

struct Outcome {
  bool accepted = true;
  std::vector<std::string> diagnostics;  // printed one per line, each starting with "error: "
  std::vector<std::string> result_lines; // printed when accepted (e.g. "kind word: 0xc1")
  nlohmann::json result;                 // the same result, structured, for --json
};

// A malformed request (missing or mistyped key): exit 1, not a rejection.
struct RequestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Handler = Outcome (*)(const nlohmann::json& request);

struct Entry {
  const char* name;     // the request's "verifier" value
  Handler handler;
  const char* summary;  // one line for `ptxsim verify --list`
};

// Every verifier, in the order the families' registry_*.inc files list them.
const std::vector<Entry>& registry();
const Entry* find_verifier(const std::string& name);

}  // namespace ptxsim::verifiers
