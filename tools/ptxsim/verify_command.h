// `ptxsim verify REQUEST.json [--json]` and `ptxsim verify --list`: runs the verifier named by the
// request's "verifier" key (verifiers/registry.cpp) and prints its answer on stdout:
//   rejected: one line per diagnostic, "error: " + the diagnostic exactly as the verifier words it
//   accepted: the verifier's result lines
//   --json:   one object {"verifier", "accepted", "diagnostics": [...], "result": {...}}
// Exit codes: 0 accepted, 4 rejected, 1 malformed request (unreadable file, bad JSON, missing or
// unknown "verifier", a request key the verifier cannot use) or bad arguments; the message goes to
// stderr (and, under --json, an object with "error" to stdout).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptxsim::cli {

// Runs one request (already parsed). Returns the exit code; prints as described above.
int verify_request(const nlohmann::json& request, bool json, std::ostream& out, std::ostream& err);

// The verb's entry point: `args` are the words after "verify".
int verify_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
