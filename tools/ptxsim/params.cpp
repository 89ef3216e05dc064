#include "tools/ptxsim/params.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace ptxsim::cli {

namespace {

void put_le(std::vector<uint8_t>& out, uint64_t v, size_t n) {
  out.resize(n);
  for (size_t i = 0; i < n; ++i) out[i] = uint8_t(v >> (8 * i));
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string buffer_names(const std::vector<BufferSpec>& buffers) {
  std::vector<std::string> names;
  for (const BufferSpec& b : buffers) names.push_back(b.name);
  return names.empty() ? "the case has no buffers" : "buffers: " + join(names);
}

// ---- kinds whose bytes are known at parse time: scalars and bytes_hex --------------------------

void encode_data(const ParamSpec& spec, const ParamEncodeContext&, uint8_t* dst) {
  if (!spec.data.empty()) std::memcpy(dst, spec.data.data(), spec.data.size());
}

template <size_t Bytes, bool Signed>
void parse_int(const Json& param, const std::string& path, const ParamParseContext& ctx,
               ParamSpec& spec) {
  const Json& v = param.at(spec.kind);
  std::string vpath = JsonReader::key(path, spec.kind);
  uint64_t bits;
  if constexpr (Signed) {
    constexpr int64_t hi = int64_t((uint64_t(1) << (8 * Bytes - 1)) - 1);
    bits = uint64_t(ctx.reader.get_int(v, vpath, -hi - 1, hi));
  } else {
    constexpr uint64_t hi = Bytes == 8 ? UINT64_MAX : (uint64_t(1) << (8 * Bytes)) - 1;
    bits = ctx.reader.get_uint(v, vpath, hi);
  }
  spec.size = Bytes;
  put_le(spec.data, bits, Bytes);
}

// A number, "nan"/"inf"/"-inf", or "0x..." giving the raw IEEE bits.
template <size_t Bytes>
void parse_float(const Json& param, const std::string& path, const ParamParseContext& ctx,
                 ParamSpec& spec) {
  const Json& v = param.at(spec.kind);
  std::string vpath = JsonReader::key(path, spec.kind);
  uint64_t bits;
  if (v.is_string() && (v.get_ref<const std::string&>().rfind("0x", 0) == 0 ||
                        v.get_ref<const std::string&>().rfind("0X", 0) == 0)) {
    bits = ctx.reader.get_uint(v, vpath, Bytes == 4 ? UINT32_MAX : UINT64_MAX);
  } else {
    double d = ctx.reader.get_double(v, vpath);
    if constexpr (Bytes == 4) {
      if (std::isfinite(d) && std::fabs(d) > double(std::numeric_limits<float>::max()))
        ctx.reader.fail(vpath, "value " + JsonReader::describe(v) + " is out of range for f32");
      bits = std::bit_cast<uint32_t>(float(d));
    } else {
      bits = std::bit_cast<uint64_t>(d);
    }
  }
  spec.size = Bytes;
  put_le(spec.data, bits, Bytes);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void parse_bytes_hex(const Json& param, const std::string& path, const ParamParseContext& ctx,
                     ParamSpec& spec) {
  std::string vpath = JsonReader::key(path, spec.kind);
  const std::string& s = ctx.reader.get_string(param.at(spec.kind), vpath);
  if (s.empty()) ctx.reader.fail(vpath, "empty; give at least one byte");
  if (s.size() % 2) ctx.reader.fail(vpath, "odd number of hex digits (" + std::to_string(s.size()) + ")");
  spec.data.resize(s.size() / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0)
      ctx.reader.fail(vpath, "not a hex digit at character " + std::to_string(hi < 0 ? i : i + 1) +
                                 ": '" + std::string(1, hi < 0 ? s[i] : s[i + 1]) + "'");
    spec.data[i / 2] = uint8_t(hi << 4 | lo);
  }
  if (spec.data.size() > UINT32_MAX) ctx.reader.fail(vpath, "too long");
  spec.size = uint32_t(spec.data.size());
}

// ---- ptr: a buffer's device address plus an optional byte offset --------------------------------

void parse_ptr(const Json& param, const std::string& path, const ParamParseContext& ctx,
               ParamSpec& spec) {
  std::string vpath = JsonReader::key(path, "ptr");
  spec.buffer = ctx.reader.get_string(param.at("ptr"), vpath);
  const BufferSpec* buf = nullptr;
  for (const BufferSpec& b : ctx.buffers)
    if (b.name == spec.buffer) buf = &b;
  if (!buf)
    ctx.reader.fail(vpath, "unknown buffer '" + spec.buffer + "' (" + buffer_names(ctx.buffers) + ")");
  bool has_offset = param.contains("offset"), has_ptr_offset = param.contains("ptr_offset");
  if (has_offset && has_ptr_offset)
    ctx.reader.fail(path, "give the pointer's offset as \"offset\" or \"ptr_offset\", not both");
  if (has_offset || has_ptr_offset) {
    const char* k = has_offset ? "offset" : "ptr_offset";
    std::string opath = JsonReader::key(path, k);
    spec.buffer_offset = ctx.reader.get_uint(param.at(k), opath);
    if (spec.buffer_offset > buf->bytes)
      ctx.reader.fail(opath, "offset " + std::to_string(spec.buffer_offset) +
                                 " is past the end of buffer '" + buf->name + "' (" +
                                 std::to_string(buf->bytes) + " bytes)");
  }
  spec.size = 8;
}

void encode_ptr(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst) {
  auto it = ctx.addresses.find(spec.buffer);
  if (it == ctx.addresses.end())
    ctx.reader.fail(JsonReader::key(spec.json_path, "ptr"),
                    "buffer '" + spec.buffer + "' has no device address");
  uint64_t addr = it->second + spec.buffer_offset;
  for (int i = 0; i < 8; ++i) dst[i] = uint8_t(addr >> (8 * i));
}

// ---- struct: {"size": N, "fields": [ {"offset": K, ...PARAM...}, ... ]} --------------------------

void parse_struct(const Json& param, const std::string& path, const ParamParseContext& ctx,
                  ParamSpec& spec) {
  std::string spath = JsonReader::key(path, "struct");
  const Json& s = param.at("struct");
  ctx.reader.expect_object(s, spath);
  ctx.reader.check_keys(s, spath, {"size", "fields", "comment"});
  if (!s.contains("size")) ctx.reader.fail(spath, "missing \"size\"");
  std::string size_path = JsonReader::key(spath, "size");
  uint64_t size = ctx.reader.get_uint(s.at("size"), size_path, UINT32_MAX);
  if (size == 0) ctx.reader.fail(size_path, "a struct must be at least 1 byte");
  spec.size = uint32_t(size);
  if (!s.contains("fields")) return;  // all zero
  std::string fpath = JsonReader::key(spath, "fields");
  const Json& fields = s.at("fields");
  ctx.reader.expect_array(fields, fpath);
  for (size_t i = 0; i < fields.size(); ++i) {
    ParamSpec f = parse_param(fields[i], JsonReader::index(fpath, i), ctx, /*struct_field=*/true);
    if (uint64_t(f.field_offset) + f.size > spec.size)
      ctx.reader.fail(f.json_path, "field of " + std::to_string(f.size) + " bytes at offset " +
                                       std::to_string(f.field_offset) + " does not fit in the " +
                                       std::to_string(spec.size) + "-byte struct");
    for (const ParamSpec& g : spec.fields)
      if (f.field_offset < g.field_offset + g.size && g.field_offset < f.field_offset + f.size)
        ctx.reader.fail(f.json_path, "field at offset " + std::to_string(f.field_offset) + " (" +
                                         std::to_string(f.size) + " bytes) overlaps " +
                                         g.json_path + " at offset " +
                                         std::to_string(g.field_offset) + " (" +
                                         std::to_string(g.size) + " bytes)");
    spec.fields.push_back(std::move(f));
  }
}

void encode_struct(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst) {
  for (const ParamSpec& f : spec.fields) encode_param(f, ctx, dst + f.field_offset);
}

}  // namespace

// tensormap: a CUtensorMap for a buffer, as cuTensorMapEncodeTiled builds it (param_tensormap.cpp).
void parse_tensormap(const Json& param, const std::string& path, const ParamParseContext& ctx, ParamSpec& spec);
void encode_tensormap(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst);

const std::vector<ParamKind>& param_kinds() {
  static const std::vector<ParamKind> kinds = {
      {"ptr", {"offset", "ptr_offset"}, parse_ptr, encode_ptr},
      {"u8", {}, parse_int<1, false>, encode_data},
      {"u16", {}, parse_int<2, false>, encode_data},
      {"u32", {}, parse_int<4, false>, encode_data},
      {"u64", {}, parse_int<8, false>, encode_data},
      {"s8", {}, parse_int<1, true>, encode_data},
      {"s16", {}, parse_int<2, true>, encode_data},
      {"s32", {}, parse_int<4, true>, encode_data},
      {"s64", {}, parse_int<8, true>, encode_data},
      {"f32", {}, parse_float<4>, encode_data},
      {"f64", {}, parse_float<8>, encode_data},
      {"bytes_hex", {}, parse_bytes_hex, encode_data},
      {"struct", {}, parse_struct, encode_struct},
      {"tensormap", {}, parse_tensormap, encode_tensormap},
  };
  return kinds;
}

const ParamKind* find_param_kind(std::string_view key) {
  for (const ParamKind& k : param_kinds())
    if (k.key == key) return &k;
  return nullptr;
}

ParamSpec parse_param(const Json& param, const std::string& path, const ParamParseContext& ctx,
                      bool struct_field) {
  const JsonReader& r = ctx.reader;
  r.expect_object(param, path);
  ParamSpec spec;
  spec.json_path = path;
  spec.raw = param;
  Json body = param;  // a struct field's "offset" removed
  if (struct_field) {
    if (!param.contains("offset"))
      r.fail(path, "a struct field needs an \"offset\" (its position in the struct)");
    spec.field_offset = uint32_t(r.get_uint(param.at("offset"), JsonReader::key(path, "offset"),
                                            UINT32_MAX));
    body.erase("offset");
  }
  const ParamKind* kind = nullptr;
  for (const auto& item : body.items()) {
    const ParamKind* k = find_param_kind(item.key());
    if (!k) continue;
    if (kind)
      r.fail(path, "names two PARAM kinds, '" + std::string(kind->key) + "' and '" +
                       std::string(k->key) + "'; give exactly one");
    kind = k;
  }
  if (!kind) {
    std::string known;
    for (const ParamKind& k : param_kinds()) known += (known.empty() ? "" : ", ") + std::string(k.key);
    r.fail(path, "no PARAM kind given (expected one of: " + known + ")");
  }
  std::vector<std::string_view> allowed = {kind->key, "name", "comment"};
  allowed.insert(allowed.end(), kind->extra_keys.begin(), kind->extra_keys.end());
  r.check_keys(body, path, allowed);
  if (body.contains("name")) spec.name = r.get_string(body.at("name"), JsonReader::key(path, "name"));
  spec.kind = std::string(kind->key);
  kind->parse(body, path, ctx, spec);
  return spec;
}

void encode_param(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst) {
  const ParamKind* kind = find_param_kind(spec.kind);
  if (!kind) ctx.reader.fail(spec.json_path, "unknown PARAM kind '" + spec.kind + "'");
  kind->encode(spec, ctx, dst);
}

std::vector<uint8_t> build_params(const std::vector<ParamSpec>& params, const KernelInfo& kernel,
                                  const ParamEncodeContext& ctx) {
  const JsonReader& r = ctx.reader;
  if (params.size() != kernel.params.size()) {
    std::vector<std::string> names;
    for (const ParamInfo& p : kernel.params) names.push_back(p.name);
    r.fail("params", "kernel '" + kernel.name + "' has " + std::to_string(kernel.params.size()) +
                         " parameter" + (kernel.params.size() == 1 ? "" : "s") +
                         (names.empty() ? "" : " (" + join(names) + ")") + " but the case gives " +
                         std::to_string(params.size()));
  }
  std::vector<uint8_t> out(kernel.param_bytes, 0);
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSpec& spec = params[i];
    const ParamInfo& info = kernel.params[i];
    std::string declared = "parameter " + std::to_string(i) + " '" + info.name + "' of kernel '" +
                           kernel.name + "'";
    if (!spec.name.empty() && spec.name != info.name)
      r.fail(JsonReader::key(spec.json_path, "name"),
             "name '" + spec.name + "' does not match " + declared);
    if (spec.size != info.size)
      r.fail(spec.json_path, spec.kind + " value is " + std::to_string(spec.size) + " bytes but " +
                                 declared + " (." + info.type + ") is " +
                                 std::to_string(info.size) + " bytes");
    if (uint64_t(info.offset) + info.size > out.size())
      r.fail(spec.json_path, declared + " lies outside the " + std::to_string(out.size()) +
                                 "-byte parameter buffer");
    encode_param(spec, ctx, out.data() + info.offset);
  }
  return out;
}

}  // namespace ptxsim::cli
