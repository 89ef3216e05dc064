// Case files: one kernel launch described in JSON (PTX file, kernel, launch shape, buffers and
// their initial contents, parameters, outputs). Loading validates everything that can be checked
// without the kernel's signature; PreparedRun checks the rest against KernelInfo, allocates and
// initialises the buffers, and lays out the parameter buffer. Used by `ptxsim run` and by any verb
// or test that needs to run a case without the CLI.
//
// Every error is a CaseError whose message names the file and the JSON path of the offending value:
//   case.json: buffers.A.init.random.dtype: unknown dtype 'f33' (expected one of u8, s8, ...)
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"
#include "tools/ptxsim/init.h"

namespace ptxsim::cli {

// Objects keep their file order (buffers are allocated in the order they are written).
using Json = nlohmann::ordered_json;

struct CaseError : std::runtime_error {
  std::string file;       // the case file as the caller named it
  std::string json_path;  // "buffers.A.init", "params[2]"; "" for whole-file problems
  std::string message;    // without file and path
  CaseError(std::string file, std::string json_path, std::string message);
};

struct BufferSpec {
  std::string name;   // [A-Za-z_][A-Za-z0-9_.-]*, so that NAME.bin is a safe file name
  uint64_t bytes = 0;
  BufferInit init;
};

// One PARAM of the case (or one field of a struct PARAM). The kind-specific parts are filled by
// the kind's parser in params.cpp; `raw` keeps the JSON for kinds that need more than these fields.
struct ParamSpec {
  std::string kind;               // the kind's JSON key: "u32", "ptr", "struct", "bytes_hex", ...
  std::string json_path;          // "params[2]", "params[2].struct.fields[0]"
  std::string name;               // optional "name": must match the kernel's parameter name
  uint32_t size = 0;              // bytes the value occupies
  std::vector<uint8_t> data;      // scalars and bytes_hex: the little-endian bytes (size of them)
  std::string buffer;             // ptr: the buffer
  uint64_t buffer_offset = 0;     // ptr: byte offset added to the buffer's address
  uint32_t field_offset = 0;      // struct field: offset inside the enclosing struct
  std::vector<ParamSpec> fields;  // struct: its fields
  Json raw;                       // the PARAM object as written
};

struct Case {
  std::string file;                // the case file as named by the caller (used in messages)
  std::filesystem::path dir;       // relative paths in the case resolve against this
  std::filesystem::path ptx_path;  // "ptx", resolved
  std::string ptx_text;            // filled by load_case (parse_case leaves it empty)
  std::string kernel;              // "" when omitted: the module must have exactly one entry
  Dim3 grid, block, cluster;
  bool cluster_given = false;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<BufferSpec> buffers;  // in file order
  std::vector<ParamSpec> params;    // in .param order
  std::vector<std::string> outputs;
  Json json;                        // the whole document, for verbs that read keys of their own

  const BufferSpec* find_buffer(std::string_view name) const;
};

// Reads, parses and validates a case file and reads its PTX text. Throws CaseError.
Case load_case(const std::filesystem::path& file);
// Validates an already parsed document; `file` is used in messages, `dir` resolves relative paths
// (file initialisers must exist: their size is checked). Does not read the PTX. Throws CaseError.
Case parse_case(const Json& doc, const std::string& file, const std::filesystem::path& dir);
// Top-level keys a case may have. A verb that reads keys of its own adds them here.
const std::vector<std::string_view>& known_case_keys();

// load_program() on the case's PTX text, named by its path. Throws PtxError on bad PTX.
std::shared_ptr<const Program> load_case_program(const Case& c);

// The case's kernel among `kernels` (by name, or the only one). Throws CaseError ("kernel").
const KernelInfo& resolve_kernel(const Case& c, const std::vector<KernelInfo>& kernels);

// A case made ready to launch: buffers allocated (named after the buffers, in case order) and
// initialised, the parameter buffer laid out and checked against the kernel's signature, and the
// launch configuration filled from the case. Callers may change `config` (limits, schedule seed)
// before launch(). Keeps a pointer to the Case, which must outlive it. Throws CaseError.
class PreparedRun {
 public:
  PreparedRun(const Case& c, const std::vector<KernelInfo>& kernels);
  PreparedRun(const Case& c, const Program& program);
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;

  // ptxsim::launch() with this run's kernel, config, params and memory.
  RunResult launch(const Program& program, std::ostream* printf_out = nullptr);

  // A buffer's device address (0 if there is no such buffer) and current contents.
  uint64_t address_of(std::string_view buffer) const;
  std::span<const uint8_t> contents(std::string_view buffer) const;

  const Case& case_spec() const { return *case_; }

  model::GlobalMemory memory;
  KernelInfo kernel;
  LaunchConfig config;
  std::vector<uint8_t> params;
  std::map<std::string, uint64_t> addresses;  // buffer name -> device address

 private:
  const Case* case_;
};

// Validation helpers shared by the case loader and the PARAM kinds (params.cpp). Every get_*
// throws CaseError naming `path` when the value has the wrong type or is out of range.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& path, const std::string& message) const;

  // Integers: JSON integers, integral floats, or strings in decimal or 0x-hex ("-0x10" too).
  uint64_t get_uint(const Json& v, const std::string& path, uint64_t max = UINT64_MAX) const;
  int64_t get_int(const Json& v, const std::string& path, int64_t min, int64_t max) const;
  // A JSON number, or "nan", "inf", "+inf", "-inf".
  double get_double(const Json& v, const std::string& path) const;
  const std::string& get_string(const Json& v, const std::string& path) const;
  void expect_object(const Json& v, const std::string& path) const;
  void expect_array(const Json& v, const std::string& path) const;
  // Fails on any key of the object `v` that is not in `allowed`.
  void check_keys(const Json& v, const std::string& path,
                  std::initializer_list<std::string_view> allowed) const;
  void check_keys(const Json& v, const std::string& path,
                  const std::vector<std::string_view>& allowed) const;

  // Path building: key("buffers", "A") = "buffers.A", index("params", 2) = "params[2]".
  static std::string key(const std::string& path, std::string_view k);
  static std::string index(const std::string& path, size_t i);
  // A short rendering of a value for messages: `string "abc"`, `number 1.5`, `object`.
  static std::string describe(const Json& v);

 private:
  std::string file_;
};

}  // namespace ptxsim::cli
