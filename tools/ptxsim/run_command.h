// `ptxsim run CASE.json [--out DIR] [--json] [--max-instructions N] [--max-seconds S] [--seed S]`:
// runs the one kernel launch a case file describes and reports status, output hashes and stats.
// Exit codes: 0 completed, 1 bad input (PTX, case file, arguments), 2 deadlock or timeout,
// 3 kernel fault.
#pragma once
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxsim::cli {

struct RunOptions {
  std::filesystem::path case_file;
  std::optional<std::filesystem::path> out_dir;  // --out: write each output to DIR/NAME.bin
  bool json = false;                             // --json: one JSON object on stdout
  std::optional<uint64_t> max_instructions;      // override LaunchConfig's default
  std::optional<double> max_seconds;
  std::optional<uint64_t> seed;                  // LaunchConfig::schedule_seed
  std::optional<uint64_t> threads;               // LaunchConfig::threads
  // --trace: write a synthetic trace (device "synthetic (ptxsim)", docs/traces.md) of this run,
  // for replay self-tests. Never a hardware trace.
  std::optional<std::filesystem::path> trace_file;
  // --timeline: write a Chrome trace-event timeline of the run (docs/timeline.md).
  std::optional<std::filesystem::path> timeline_file;
  bool racecheck = false;                        // --racecheck: LaunchConfig::racecheck
  bool racecheck_global = false;                 // --racecheck-global: LaunchConfig::racecheck_global
  uint64_t explore = 0;                          // --explore N: run N schedules, report differing ones
  bool help = false;
};

// Thrown by parse_run_args for bad command lines.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

RunOptions parse_run_args(const std::vector<std::string>& args);
std::string run_help();  // the generated --help text

// Runs a case as the options say, printing to `out` (summary, or the JSON object; kernel printf
// output too unless --json) and `err` (diagnostics; printf output under --json). Returns the exit
// code.
int run_case(const RunOptions& options, std::ostream& out, std::ostream& err);

// The verb's entry point: `args` are the words after "run".
int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
