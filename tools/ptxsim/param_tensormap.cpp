// The "tensormap" PARAM kind: a 128-byte CUtensorMap built like cuTensorMapEncodeTiled would build
// it, for a buffer of the case (docs/case-files.md):
//
//   {"tensormap": {"buffer": "A", "offset": 0, "dtype": "bfloat16", "rank": 2,
//                  "dims": [W, H], "strides": [row_bytes], "box": [bw, bh],
//                  "element_strides": [1, 1], "interleave": "none", "swizzle": "128B",
//                  "l2_promotion": "none", "oob_fill": "none"}}
//
// Parsing runs model::tmap::encode_tiled with a stand-in address, so every encoder rule except the
// global address's alignment is checked when the case is loaded; encoding copies those bytes and
// sets the buffer's address with replace_address (which checks the alignment).
#include <cstring>

#include "model/tensormap/encoder.h"
#include "tools/ptxsim/params.h"

namespace ptxsim::cli {

namespace {

namespace tmap = model::tmap;

template <class E>
struct Named {
  const char* name;
  E value;
};

const Named<tmap::DataType> kDtypes[] = {
    {"uint8", tmap::DataType::kUInt8},          {"uint16", tmap::DataType::kUInt16},
    {"uint32", tmap::DataType::kUInt32},        {"int32", tmap::DataType::kInt32},
    {"uint64", tmap::DataType::kUInt64},        {"int64", tmap::DataType::kInt64},
    {"float16", tmap::DataType::kFloat16},      {"float32", tmap::DataType::kFloat32},
    {"float64", tmap::DataType::kFloat64},      {"bfloat16", tmap::DataType::kBFloat16},
    {"float32_ftz", tmap::DataType::kFloat32Ftz}, {"tfloat32", tmap::DataType::kTFloat32},
    {"tfloat32_ftz", tmap::DataType::kTFloat32Ftz}, {"16u4_align8b", tmap::DataType::k16U4Align8B},
    {"16u4_align16b", tmap::DataType::k16U4Align16B}, {"16u6_align16b", tmap::DataType::k16U6Align16B},
};
const Named<tmap::Interleave> kInterleaves[] = {
    {"none", tmap::Interleave::kNone}, {"16B", tmap::Interleave::k16B}, {"32B", tmap::Interleave::k32B}};
const Named<tmap::Swizzle> kSwizzles[] = {
    {"none", tmap::Swizzle::kNone},
    {"32B", tmap::Swizzle::k32B},
    {"64B", tmap::Swizzle::k64B},
    {"128B", tmap::Swizzle::k128B},
    {"128B_atom_32B", tmap::Swizzle::k128BAtom32B},
    {"128B_atom_32B_flip_8B", tmap::Swizzle::k128BAtom32BFlip8B},
    {"128B_atom_64B", tmap::Swizzle::k128BAtom64B},
};
const Named<tmap::L2Promotion> kL2[] = {{"none", tmap::L2Promotion::kNone},
                                        {"64B", tmap::L2Promotion::k64B},
                                        {"128B", tmap::L2Promotion::k128B},
                                        {"256B", tmap::L2Promotion::k256B}};
const Named<tmap::OobFill> kOob[] = {{"none", tmap::OobFill::kNone},
                                     {"nan_request_zero_fma", tmap::OobFill::kNanRequestZeroFma}};

template <class E, size_t N>
E pick(const JsonReader& r, const Json& obj, const std::string& path, const char* key, const Named<E> (&table)[N],
       bool required) {
  std::string kpath = JsonReader::key(path, key);
  if (!obj.contains(key)) {
    if (required) r.fail(path, std::string("missing \"") + key + "\"");
    return table[0].value;
  }
  const std::string& s = r.get_string(obj.at(key), kpath);
  std::string known;
  for (const auto& e : table) {
    if (s == e.name) return e.value;
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  r.fail(kpath, "unknown value '" + s + "' (expected one of " + known + ")");
}

template <class T>
std::vector<T> numbers(const JsonReader& r, const Json& obj, const std::string& path, const char* key, uint32_t rank,
                       size_t n, uint64_t max, bool required, T dflt) {
  std::string kpath = JsonReader::key(path, key);
  if (!obj.contains(key)) {
    if (required && n > 0) r.fail(path, std::string("missing \"") + key + "\" (" + std::to_string(n) + " values)");
    return std::vector<T>(n, dflt);
  }
  const Json& a = obj.at(key);
  r.expect_array(a, kpath);
  if (a.size() != n)
    r.fail(kpath, "has " + std::to_string(a.size()) + " values; rank " + std::to_string(rank) + " needs " +
                      std::to_string(n) + (std::string(key) == "strides" ? " (byte strides of dimensions 1..rank-1)" : ""));
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(r.get_uint(a[i], JsonReader::index(kpath, i), max));
  return v;
}

// The JSON key that corresponds to the driver parameter an encoder message starts with.
std::string path_for(const std::string& path, const std::string& message) {
  static const std::pair<const char*, const char*> keys[] = {
      {"tensorDataType", "dtype"},   {"tensorRank", "rank"},         {"globalAddress", "buffer"},
      {"globalDim", "dims"},         {"globalStrides", "strides"},   {"boxDim", "box"},
      {"elementStrides", "element_strides"}, {"interleave", "interleave"}, {"swizzle", "swizzle"},
      {"l2Promotion", "l2_promotion"}, {"oobFill", "oob_fill"}};
  for (auto& [p, k] : keys)
    if (message.rfind(p, 0) == 0) return JsonReader::key(path, k);
  return path;
}

}  // namespace

void parse_tensormap(const Json& param, const std::string& path, const ParamParseContext& ctx, ParamSpec& spec) {
  const JsonReader& r = ctx.reader;
  const std::string tpath = JsonReader::key(path, "tensormap");
  const Json& t = param.at("tensormap");
  r.expect_object(t, tpath);
  r.check_keys(t, tpath,
               {"buffer", "offset", "dtype", "rank", "dims", "strides", "box", "element_strides", "interleave", "swizzle",
                "l2_promotion", "oob_fill", "comment"});
  if (!t.contains("buffer")) r.fail(tpath, "missing \"buffer\" (the tensor's buffer)");
  spec.buffer = r.get_string(t.at("buffer"), JsonReader::key(tpath, "buffer"));
  const BufferSpec* buf = nullptr;
  for (const BufferSpec& b : ctx.buffers)
    if (b.name == spec.buffer) buf = &b;
  if (!buf) r.fail(JsonReader::key(tpath, "buffer"), "unknown buffer '" + spec.buffer + "'");
  if (t.contains("offset")) {
    spec.buffer_offset = r.get_uint(t.at("offset"), JsonReader::key(tpath, "offset"));
    if (spec.buffer_offset > buf->bytes)
      r.fail(JsonReader::key(tpath, "offset"), "offset " + std::to_string(spec.buffer_offset) +
                                                   " is past the end of buffer '" + buf->name + "'");
  }
  const tmap::DataType dtype = pick(r, t, tpath, "dtype", kDtypes, true);
  if (!t.contains("rank")) r.fail(tpath, "missing \"rank\" (1 to 5)");
  const uint32_t rank = uint32_t(r.get_uint(t.at("rank"), JsonReader::key(tpath, "rank"), 5));
  if (rank == 0) r.fail(JsonReader::key(tpath, "rank"), "rank must be 1 to 5");
  auto dims = numbers<uint64_t>(r, t, tpath, "dims", rank, rank, UINT64_MAX, true, 1);
  auto strides = numbers<uint64_t>(r, t, tpath, "strides", rank, rank - 1, UINT64_MAX, true, 0);
  auto box = numbers<uint32_t>(r, t, tpath, "box", rank, rank, UINT32_MAX, true, 1);
  auto es = numbers<uint32_t>(r, t, tpath, "element_strides", rank, rank, UINT32_MAX, false, 1);
  const auto il = pick(r, t, tpath, "interleave", kInterleaves, false);
  const auto sw = pick(r, t, tpath, "swizzle", kSwizzles, false);
  const auto l2 = pick(r, t, tpath, "l2_promotion", kL2, false);
  const auto oob = pick(r, t, tpath, "oob_fill", kOob, false);
  // A stand-in address aligned for every map; the real one is set when encoding.
  tmap::CUtensorMap m;
  auto e = tmap::encode_tiled(&m, dtype, rank, 0x10000, dims.data(), strides.empty() ? nullptr : strides.data(),
                              box.data(), es.data(), il, sw, l2, oob);
  if (!e.ok()) r.fail(path_for(tpath, e.message), "cuTensorMapEncodeTiled rejects it: " + e.message);
  spec.data.resize(128);
  std::memcpy(spec.data.data(), &m, 128);
  spec.size = 128;
}

void encode_tensormap(const ParamSpec& spec, const ParamEncodeContext& ctx, uint8_t* dst) {
  const std::string tpath = JsonReader::key(spec.json_path, "tensormap");
  auto it = ctx.addresses.find(spec.buffer);
  if (it == ctx.addresses.end())
    ctx.reader.fail(JsonReader::key(tpath, "buffer"), "buffer '" + spec.buffer + "' has no device address");
  tmap::CUtensorMap m;
  std::memcpy(&m, spec.data.data(), 128);
  auto e = tmap::replace_address(&m, it->second + spec.buffer_offset);
  if (!e.ok())
    ctx.reader.fail(JsonReader::key(tpath, spec.buffer_offset ? "offset" : "buffer"),
                    "cuTensorMapEncodeTiled rejects it: " + e.message);
  std::memcpy(dst, &m, 128);
}

}  // namespace ptxsim::cli
