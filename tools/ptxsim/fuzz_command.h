// `ptxsim fuzz TARGET [--seed S] [--count N] [--out DIR]` and `ptxsim fuzz --list`: a property-based
// fuzzing campaign (tools/fuzz/campaign.h). Prints one summary line; on a failure, the minimal
// counterexample (JSON) and the file it was written to.
// Exit codes: 0 no counterexample, 4 counterexample found, 1 bad arguments.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

int fuzz_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
