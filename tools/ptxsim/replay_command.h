// `ptxsim replay PATH... [--max-seconds S] [--quiet]`: simulates every traced case (files, or
// directories searched recursively for *.trace.json) the way `ptxsim run` does and compares with
// what the trace recorded: status (hang <-> deadlock or timeout, fault <-> fault), each output bit
// for bit or within its tolerance, and each tensor-map blob against ptxsim's encoder. Prints a
// table (case, device, expected, got, verdict) with a line per disagreement.
// Exit codes: 0 everything agrees, 1 bad arguments or an unreadable trace or case, 4 a mismatch.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

int replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
