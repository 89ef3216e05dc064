// ptxsim's in-process API: load a PTX module, lay out kernel parameters, launch a kernel on a
// simulated device memory, and read what happened. The CLI (tools/ptxsim) and the tests use only this.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/ptx/diag.h"

namespace ptxsim {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct LaunchConfig {
  Dim3 grid, block;
  Dim3 cluster;                        // 1,1,1 = no clusters requested
  bool cluster_given = false;          // true when the launch named cluster dims explicitly
  uint32_t dynamic_shared_bytes = 0;
  uint64_t max_instructions = 20'000'000'000ull;  // thread-instructions; beyond it: Timeout
  double max_seconds = 300.0;                      // wall time; beyond it: Timeout
  uint64_t schedule_seed = 0;          // perturbs the (deterministic) interleaving of warps
  // Cooperative launch: every CTA of the grid is resident at once (their warps interleave), so
  // grid-wide barriers built from global atomics work; otherwise clusters run one after another.
  bool co_resident = false;
  uint64_t grid_workspace = 0;         // %envreg1 (high) / %envreg2 (low): the grid barrier's workspace
  // Host threads that run the launch's clusters in parallel (0: every core). A launch whose result
  // could depend on the order of its clusters runs on one (RunStats::serial_reason says why).
  uint32_t threads = 0;
  // --racecheck: report data races on shared and Tensor Memory as warnings (docs/racecheck.md). Also switched on
  // by the environment variable PTXSIM_RACECHECK=1 (how `ptxsim exec` and the tests ask for it).
  bool racecheck = false;
  // --racecheck-global: racecheck also shadows global memory (accesses of the threads of one
  // cluster: clusters run one after another, and pairs across clusters are not checked). Implies
  // racecheck. PTXSIM_RACECHECK=global in the environment switches both on.
  bool racecheck_global = false;
  // --explore: the schedule seed also permutes the order in which warps take turns and draws each
  // turn's length, so different seeds give different warp interleavings (not only different
  // completion orders of asynchronous operations).
  bool vary_warps = false;
};

struct ParamInfo {
  std::string name;
  uint32_t offset = 0, size = 0, align = 1;
  std::string type;                    // declared type spelling ("u64", "b8", ...)
  bool is_pointer = false;             // declared with .ptr
};

struct KernelInfo {
  std::string name;
  std::vector<ParamInfo> params;
  uint32_t param_bytes = 0;            // total size of the parameter buffer
};

enum class RunStatus { Completed, Deadlock, Fault, Timeout, Error };
const char* to_string(RunStatus s);
// CLI exit code for a status: 0 completed, 1 error (bad input), 2 deadlock/timeout, 3 fault.
int exit_code_for(RunStatus s);

struct RunStats {
  uint64_t thread_instructions = 0;    // instructions × active lanes
  uint64_t warp_instructions = 0;      // warp-instructions issued (not the clock, which also skips idle time)
  double seconds = 0;
  uint32_t threads = 1;                // host threads the launch ran on
  std::string serial_reason;           // why it ran on one thread whatever was asked ("" if not forced)
};

struct RunResult {
  RunStatus status = RunStatus::Completed;
  std::vector<Diagnostic> diagnostics;  // faults, hazards, deadlock details (first is the cause)
  std::string report;                   // human-readable explanation of a non-completed run
  RunStats stats;
};

class Program;  // a decoded, validated module (sim/exec/program.h)

// Parses and decodes PTX text. Throws PtxError (with file:line:col) on malformed or unsupported
// input, including instructions the module's .target does not allow.
// `module_var_base` (0: the default, kModuleVarBase of sim/exec/program.h) is where the module's
// .global/.const variables are placed; give each module its own range when several share one memory.
std::shared_ptr<const Program> load_program(const std::string& text, const std::string& file_name,
                                            uint64_t module_var_base = 0);

std::vector<KernelInfo> kernels(const Program& program);

// Runs one kernel launch to completion (or deadlock, fault, timeout). `params` is the raw parameter
// buffer laid out as KernelInfo says. printf output goes to `printf_out` (stdout if null).
RunResult launch(const Program& program, const std::string& kernel, const LaunchConfig& config,
                 const std::vector<uint8_t>& params, model::GlobalMemory& memory,
                 std::ostream* printf_out = nullptr);

}  // namespace ptxsim
