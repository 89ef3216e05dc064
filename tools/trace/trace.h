// Traces: what a device (a GPU, or ptxsim itself for synthetic self-tests) did with one case file,
// in the versioned JSON format "ptxsim-trace/1" (docs/traces.md). Written by ptxsim-hw (tools/hw)
// and `ptxsim run --trace`, read by `ptxsim replay`.
//
// Reading validates everything: unknown keys, the format version, sizes, the sha256 of inline
// bytes, tolerance dtypes, blob lengths. Errors are CaseErrors naming the file and the JSON path:
//   run.trace.json: outputs.y.base64: decodes to 12 bytes but "bytes" is 16
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/ptxsim/case_file.h"
#include "tools/ptxsim/tensormap_params.h"

namespace ptxsim::trace {

using cli::Json;

inline constexpr std::string_view kFormat = "ptxsim-trace/1";
// Outputs up to this many bytes are stored inline (base64) by the writers; larger ones only as
// sha256 + size unless they carry a tolerance (which needs the values).
inline constexpr uint64_t kInlineLimit = 64 * 1024;
// The device name of traces ptxsim wrote about itself. They are self-tests, never hardware traces.
inline constexpr std::string_view kSyntheticDevice = "synthetic (ptxsim)";

enum class Status : uint8_t { Completed, Fault, Hang };
const char* status_name(Status s);

struct Device {
  std::string name;                // "NVIDIA H200", or kSyntheticDevice
  std::string compute_capability;  // "9.0", "10.0"
  int driver_version = 0;          // cuDriverGetVersion (e.g. 13000); 0 = not applicable
  int toolkit_version = 0;         // CUDA_VERSION the runner was built with; 0 = not applicable
};

// Element-wise comparison instead of bit equality, for outputs the hardware does not compute
// deterministically (float atomics in varying order). Two elements agree when they are bitwise
// equal, both NaN, within `ulp` units in the last place, or within `abs` of each other.
struct Tolerance {
  std::string dtype;  // "f16", "bf16", "f32", "f64"
  uint64_t ulp = 0;
  double abs = 0;
};

struct Output {
  std::string name;
  uint64_t bytes = 0;
  std::string sha256;                        // lower-case hex
  std::optional<std::vector<uint8_t>> data;  // the bytes, when stored inline
  std::optional<Tolerance> tolerance;
};

// One tensor-map encode call and what the encoder returned.
struct TensorMapRecord {
  std::string name;                  // free text: "params[0]", "tiled bf16 128B", ...
  cli::TensorMapParams params;
  std::string result;                // "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", ...
  std::optional<std::array<uint8_t, 128>> blob;  // present exactly when result is CUDA_SUCCESS
};

struct Trace {
  std::string file;                    // as named by the caller (messages)
  std::string case_ref;                // "case" as written: relative to the trace file; "" = none
  std::filesystem::path case_path;     // resolved
  Device device;
  std::string captured_by;             // "ptxsim-hw 0.1.0", "ptxsim 0.1.0"
  std::optional<Status> status;        // present exactly when there is a case
  std::string error;                   // the device's error for a fault ("CUDA_ERROR_ILLEGAL_ADDRESS")
  double seconds = 0;                  // kernel time as measured by the runner (informational)
  std::vector<Output> outputs;         // completed runs: every output of the case, in case order
  std::vector<TensorMapRecord> tensormaps;
  std::string comment;
  bool synthetic() const { return device.name == kSyntheticDevice; }
};

// Parses and validates a trace. `dir` resolves "case". Throws cli::CaseError.
Trace parse_trace(const Json& doc, const std::string& file, const std::filesystem::path& dir);
Trace load_trace(const std::filesystem::path& file);
// The JSON document for a trace (case_ref as given).
Json to_json(const Trace& t);
// Writes to_json(t) to `file` (creating its directory). Throws std::runtime_error on I/O errors.
void write_trace(const std::filesystem::path& file, const Trace& t);

// An output record for `bytes`: sha256 and size, inline when small (or when a tolerance is given).
Output make_output(std::string name, const uint8_t* bytes, size_t size, std::optional<Tolerance> tol = std::nullopt);

// Every *.trace.json under each path (a file is taken as is), sorted, recursively for directories.
// Throws std::runtime_error for a path that does not exist.
std::vector<std::filesystem::path> find_traces(const std::vector<std::filesystem::path>& paths);

// The path of `target` relative to directory `from` (lexically; absolute when on another root).
std::string relative_ref(const std::filesystem::path& target, const std::filesystem::path& from);

std::string base64_encode(const uint8_t* data, size_t size);
// nullopt on any character outside the alphabet or bad padding.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);
std::string hex_encode(const uint8_t* data, size_t size);
std::optional<std::vector<uint8_t>> hex_decode(std::string_view text);

}  // namespace ptxsim::trace
