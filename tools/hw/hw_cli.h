// The GPU-free parts of ptxsim-hw (docs/hardware-runner.md): its command line, walking a
// conformance corpus, naming the traces, reading a tensor-map parameter file, and telling which
// device a case's PTX needs. Everything here is unit-tested without a GPU; tools/hw/gpu_*.cpp
// does the driver work.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tools/trace/trace.h"

namespace ptxsim::hw {

namespace fs = std::filesystem;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  enum class Verb { Help, Version, Devices, Run, Tensormaps, Capture };
  Verb verb = Verb::Help;
  fs::path input;                  // run: CASE.json; tensormaps: PARAMS.json; capture: CORPUS_DIR
  std::optional<fs::path> output;  // run, tensormaps: -o FILE; capture: OUT_DIR (required)
  double hang_seconds = 10;        // --hang-seconds: a kernel still running after this is a hang
  int device = 0;                  // --device N
};

extern const char* const kUsage;

// Throws UsageError with a message naming the problem.
Options parse_args(const std::vector<std::string>& args);

// One case of a corpus and where capture writes its trace.
struct CorpusEntry {
  fs::path case_file;
  fs::path trace_rel;  // relative to OUT_DIR: the case's path under the corpus, ".case.json" -> ".trace.json"
};
// Every *.case.json under `dir`, recursively, sorted. Throws std::runtime_error if `dir` is not a
// directory.
std::vector<CorpusEntry> find_corpus(const fs::path& dir);

// The sm number a PTX module's ".target sm_90a" names (90) and whether it is arch-specific ("a"),
// or nullopt when the text has no .target directive.
struct PtxTarget {
  uint32_t sm = 0;
  bool arch_specific = false;  // sm_90a, sm_100a: runs only on exactly that compute capability
};
std::optional<PtxTarget> ptx_target(std::string_view ptx_text);
// Whether a device of compute capability major.minor can load PTX for `t`; else the reason.
std::optional<std::string> target_mismatch(const PtxTarget& t, int major, int minor);

// A tensor-map parameter file: {"tensormaps": [{"name": "...", "params": {...}}, ...]} with params
// as in docs/traces.md. Results and blobs are left empty. Throws cli::CaseError.
std::vector<trace::TensorMapRecord> load_tensormap_params(const fs::path& file);

// The message for a failed cuInit (no driver installed, or no device): exit code 1.
std::string no_device_message(const std::string& cuinit_error);

}  // namespace ptxsim::hw
