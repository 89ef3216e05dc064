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
#include "tools/ptxsim/tensormap_params.h"

namespace ptxsim::cli {

namespace {

namespace tmap = model::tmap;

// The JSON key that corresponds to the driver parameter an encoder message starts with.
std::string path_for(const std::string& path, const std::string& message) {
  if (message.rfind("globalAddress", 0) == 0) return JsonReader::key(path, "buffer");
  std::string k = tensormap_key_for_message(message);
  return k.empty() ? path : JsonReader::key(path, k);
}

}  // namespace

void parse_tensormap(const Json& param, const std::string& path, const ParamParseContext& ctx, ParamSpec& spec) {
  const JsonReader& r = ctx.reader;
  const std::string tpath = JsonReader::key(path, "tensormap");
  const Json& t = param.at("tensormap");
  r.expect_object(t, tpath);
  r.check_keys(t, tpath,
               {"buffer", "offset", "encode", "dtype", "rank", "dims", "strides", "box", "element_strides",
                "lower_corner", "upper_corner", "lower_corner_w", "upper_corner_w", "channels_per_pixel",
                "pixels_per_column", "mode", "interleave", "swizzle", "l2_promotion", "oob_fill", "comment"});
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
  TensorMapParams p = parse_tensormap_params(r, t, tpath, /*address_key=*/false);
  // A stand-in address aligned for every map; the real one is set when encoding.
  p.global_address = 0x10000;
  std::array<uint8_t, 128> blob{};
  auto e = ptxsim_encode_tensormap(p, blob);
  if (!e.ok()) {
    const char* fn = p.encode == TensorMapParams::Encode::Tiled    ? "cuTensorMapEncodeTiled"
                     : p.encode == TensorMapParams::Encode::Im2col ? "cuTensorMapEncodeIm2col"
                                                                   : "cuTensorMapEncodeIm2colWide";
    r.fail(path_for(tpath, e.message), std::string(fn) + " rejects it: " + e.message);
  }
  spec.data.assign(blob.begin(), blob.end());
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
