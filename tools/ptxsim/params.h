// PARAM values of a case file and the raw kernel parameter buffer built from them.
//
// Each PARAM is a JSON object with exactly one kind key ("u32", "ptr", "struct", ...). The kinds
// are rows of a table (param_kinds() in params.cpp): adding a kind such as "tensormap" means
// adding one row with its parser and encoder; nothing else dispatches on kinds.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"
#include "tools/ptxsim/case_file.h"

namespace ptxsim::cli {

struct ParamParseContext {
  const JsonReader& reader;
  const std::vector<BufferSpec>& buffers;  // the case's buffers, for "ptr" and friends
};

struct ParamEncodeContext {
  const JsonReader& reader;                          // for errors
  const std::map<std::string, uint64_t>& addresses;  // buffer name -> device address
  model::GlobalMemory* memory = nullptr;             // the launch's memory (may be null in tests)
};

struct ParamKind {
  std::string_view key;                    // the JSON key that selects this kind
  std::vector<std::string_view> extra_keys;  // keys allowed besides key, "name", "comment"
  // Validates `param[key]` (and the extra keys) and fills spec.size plus whatever encode() needs.
  // spec.kind, spec.json_path, spec.name and spec.raw are already set. Throws CaseError via
  // ctx.reader.fail().
  void (*parse)(const Json& param, const std::string& path, const ParamParseContext& ctx,
                ParamSpec& spec);
  // Writes exactly spec.size bytes at dst (zeroed beforehand). Throws CaseError via
  // ctx.reader.fail() if it cannot (e.g. a buffer without an address).
  void (*encode)(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst);
};

const std::vector<ParamKind>& param_kinds();
const ParamKind* find_param_kind(std::string_view key);

// Parses one PARAM at `path`. In a struct, `struct_field` is true and the object's "offset" is the
// field's offset in the struct (a ptr field then takes its buffer offset from "ptr_offset").
ParamSpec parse_param(const Json& param, const std::string& path, const ParamParseContext& ctx,
                      bool struct_field = false);
// Writes spec.size bytes for one PARAM.
void encode_param(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst);

// The raw parameter buffer (kernel.param_bytes long, zero where no PARAM writes) with each PARAM
// at its ParamInfo::offset. Checks the count, each size against the declared size, and optional
// names. Throws CaseError naming the PARAM.
std::vector<uint8_t> build_params(const std::vector<ParamSpec>& params, const KernelInfo& kernel,
                                  const ParamEncodeContext& ctx);

}  // namespace ptxsim::cli
