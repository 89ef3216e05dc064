// `ptxsim bench [--filter REGEX] [--json] [--repeat N] [--threads N] [--quick] [--list]`: runs the
// benchmark suite (bench_suite.h) through the in-process API and reports, per kernel, the simulated
// thread-instructions, the wall time of its launches and their ratio (thread-instructions per
// second). Every result is checked against a CPU reference; a mismatch, a launch that does not
// complete or a diagnostic fails the run. The PTX is embedded in the binary (bench/kernels).
// Exit codes: 0 every selected kernel ran and matched its reference; 1 a mismatch or failed run,
// bad arguments, no kernel selected, or a ptxsim built without the benchmark kernels (no nvcc).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

int bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
