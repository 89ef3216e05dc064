#include "tools/ptxsim/tensormap_params.h"

#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

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
const Named<tmap::Im2colWideMode> kModes[] = {{"w", tmap::Im2colWideMode::kW}, {"w128", tmap::Im2colWideMode::kW128}};
const Named<TensorMapParams::Encode> kEncodes[] = {{"tiled", TensorMapParams::Encode::Tiled},
                                                   {"im2col", TensorMapParams::Encode::Im2col},
                                                   {"im2col_wide", TensorMapParams::Encode::Im2colWide}};

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

template <class E, size_t N>
const char* name_of(E v, const Named<E> (&table)[N]) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return "?";
}

template <class T>
std::vector<T> numbers(const JsonReader& r, const Json& obj, const std::string& path, const char* key, uint32_t rank,
                       size_t n, bool required, T dflt) {
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
  for (size_t i = 0; i < n; ++i) {
    std::string ipath = JsonReader::index(kpath, i);
    if constexpr (std::is_signed_v<T>)
      v[i] = T(r.get_int(a[i], ipath, INT32_MIN, INT32_MAX));
    else
      v[i] = T(r.get_uint(a[i], ipath, std::numeric_limits<T>::max()));
  }
  return v;
}

std::string hex_string(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

}  // namespace

const std::vector<std::string_view>& tensormap_param_keys() {
  static const std::vector<std::string_view> keys = {
      "encode", "dtype", "rank", "global_address", "dims", "strides", "box", "element_strides", "lower_corner",
      "upper_corner", "lower_corner_w", "upper_corner_w", "channels_per_pixel", "pixels_per_column", "mode",
      "interleave", "swizzle", "l2_promotion", "oob_fill"};
  return keys;
}

TensorMapParams parse_tensormap_params(const JsonReader& r, const Json& t, const std::string& path, bool address_key) {
  using Encode = TensorMapParams::Encode;
  TensorMapParams p;
  r.expect_object(t, path);
  if (address_key) {
    p.encode = pick(r, t, path, "encode", kEncodes, true);
    if (!t.contains("global_address")) r.fail(path, "missing \"global_address\"");
    p.global_address = r.get_uint(t.at("global_address"), JsonReader::key(path, "global_address"));
  } else {  // a case PARAM: the address is the buffer's; the encoding defaults to tiled
    if (t.contains("global_address")) r.fail(JsonReader::key(path, "global_address"), "not allowed here");
    if (t.contains("encode")) p.encode = pick(r, t, path, "encode", kEncodes, true);
  }
  p.dtype = pick(r, t, path, "dtype", kDtypes, true);
  if (!t.contains("rank")) r.fail(path, "missing \"rank\" (1 to 5)");
  p.rank = uint32_t(r.get_uint(t.at("rank"), JsonReader::key(path, "rank"), 5));
  if (p.rank == 0) r.fail(JsonReader::key(path, "rank"), "rank must be 1 to 5");
  const bool im2col = p.encode != Encode::Tiled;
  if (im2col && p.rank < 3) r.fail(JsonReader::key(path, "rank"), "im2col maps need rank 3 to 5");
  p.dims = numbers<uint64_t>(r, t, path, "dims", p.rank, p.rank, true, 1);
  p.strides = numbers<uint64_t>(r, t, path, "strides", p.rank, p.rank - 1, true, 0);
  p.element_strides = numbers<uint32_t>(r, t, path, "element_strides", p.rank, p.rank, false, 1);
  auto only = [&](bool allowed, const char* key, const char* why) {
    if (!allowed && t.contains(key)) r.fail(JsonReader::key(path, key), std::string("not allowed ") + why);
  };
  only(!im2col, "box", "for im2col maps (their box is channels_per_pixel x pixels_per_column)");
  only(p.encode == Encode::Im2col, "lower_corner", "unless encode is im2col");
  only(p.encode == Encode::Im2col, "upper_corner", "unless encode is im2col");
  only(p.encode == Encode::Im2colWide, "lower_corner_w", "unless encode is im2col_wide");
  only(p.encode == Encode::Im2colWide, "upper_corner_w", "unless encode is im2col_wide");
  only(p.encode == Encode::Im2colWide, "mode", "unless encode is im2col_wide");
  only(im2col, "channels_per_pixel", "for tiled maps");
  only(im2col, "pixels_per_column", "for tiled maps");
  if (!im2col) {
    p.box = numbers<uint32_t>(r, t, path, "box", p.rank, p.rank, true, 1);
  } else {
    for (const char* k : {"channels_per_pixel", "pixels_per_column"})
      if (!t.contains(k)) r.fail(path, std::string("missing \"") + k + "\"");
    p.channels_per_pixel = uint32_t(r.get_uint(t.at("channels_per_pixel"), JsonReader::key(path, "channels_per_pixel"), UINT32_MAX));
    p.pixels_per_column = uint32_t(r.get_uint(t.at("pixels_per_column"), JsonReader::key(path, "pixels_per_column"), UINT32_MAX));
    if (p.encode == Encode::Im2col) {
      p.lower_corner = numbers<int32_t>(r, t, path, "lower_corner", p.rank, p.rank - 2, true, 0);
      p.upper_corner = numbers<int32_t>(r, t, path, "upper_corner", p.rank, p.rank - 2, true, 0);
    } else {
      for (const char* k : {"lower_corner_w", "upper_corner_w"})
        if (!t.contains(k)) r.fail(path, std::string("missing \"") + k + "\"");
      p.lower_corner_w = int32_t(r.get_int(t.at("lower_corner_w"), JsonReader::key(path, "lower_corner_w"), INT32_MIN, INT32_MAX));
      p.upper_corner_w = int32_t(r.get_int(t.at("upper_corner_w"), JsonReader::key(path, "upper_corner_w"), INT32_MIN, INT32_MAX));
      p.wide_mode = pick(r, t, path, "mode", kModes, false);
    }
  }
  p.interleave = pick(r, t, path, "interleave", kInterleaves, false);
  p.swizzle = pick(r, t, path, "swizzle", kSwizzles, false);
  p.l2_promotion = pick(r, t, path, "l2_promotion", kL2, false);
  p.oob_fill = pick(r, t, path, "oob_fill", kOob, false);
  return p;
}

Json tensormap_params_json(const TensorMapParams& p) {
  using Encode = TensorMapParams::Encode;
  Json j = Json::object();
  j["encode"] = name_of(p.encode, kEncodes);
  j["dtype"] = name_of(p.dtype, kDtypes);
  j["rank"] = p.rank;
  j["global_address"] = hex_string(p.global_address);
  j["dims"] = p.dims;
  j["strides"] = p.strides;
  if (p.encode == Encode::Tiled) j["box"] = p.box;
  j["element_strides"] = p.element_strides;
  if (p.encode == Encode::Im2col) {
    j["lower_corner"] = p.lower_corner;
    j["upper_corner"] = p.upper_corner;
  } else if (p.encode == Encode::Im2colWide) {
    j["lower_corner_w"] = p.lower_corner_w;
    j["upper_corner_w"] = p.upper_corner_w;
    j["mode"] = name_of(p.wide_mode, kModes);
  }
  if (p.encode != Encode::Tiled) {
    j["channels_per_pixel"] = p.channels_per_pixel;
    j["pixels_per_column"] = p.pixels_per_column;
  }
  j["interleave"] = name_of(p.interleave, kInterleaves);
  j["swizzle"] = name_of(p.swizzle, kSwizzles);
  j["l2_promotion"] = name_of(p.l2_promotion, kL2);
  j["oob_fill"] = name_of(p.oob_fill, kOob);
  return j;
}

model::tmap::EncodeResult ptxsim_encode_tensormap(const TensorMapParams& p, std::array<uint8_t, 128>& blob) {
  using Encode = TensorMapParams::Encode;
  tmap::CUtensorMap m;
  std::memset(&m, 0, sizeof m);
  const uint64_t* strides = p.strides.empty() ? nullptr : p.strides.data();
  tmap::EncodeResult e;
  switch (p.encode) {
    case Encode::Tiled:
      e = tmap::encode_tiled(&m, p.dtype, p.rank, p.global_address, p.dims.data(), strides, p.box.data(),
                             p.element_strides.data(), p.interleave, p.swizzle, p.l2_promotion, p.oob_fill);
      break;
    case Encode::Im2col:
      e = tmap::encode_im2col(&m, p.dtype, p.rank, p.global_address, p.dims.data(), strides, p.lower_corner.data(),
                              p.upper_corner.data(), p.channels_per_pixel, p.pixels_per_column,
                              p.element_strides.data(), p.interleave, p.swizzle, p.l2_promotion, p.oob_fill);
      break;
    case Encode::Im2colWide:
      e = tmap::encode_im2col_wide(&m, p.dtype, p.rank, p.global_address, p.dims.data(), strides, p.lower_corner_w,
                                   p.upper_corner_w, p.channels_per_pixel, p.pixels_per_column,
                                   p.element_strides.data(), p.interleave, p.wide_mode, p.swizzle, p.l2_promotion,
                                   p.oob_fill);
      break;
  }
  static_assert(sizeof(tmap::CUtensorMap) == 128);
  if (e.ok()) std::memcpy(blob.data(), &m, 128);
  return e;
}

std::string cuda_result_name(uint32_t code) {
  switch (code) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 801: return "CUDA_ERROR_NOT_SUPPORTED";
  }
  return "CUresult " + std::to_string(code);
}

std::string tensormap_key_for_message(const std::string& message) {
  static const std::pair<const char*, const char*> keys[] = {
      {"tensorDataType", "dtype"}, {"tensorRank", "rank"}, {"globalAddress", "global_address"},
      {"globalDim", "dims"}, {"globalStrides", "strides"}, {"boxDim", "box"},
      {"elementStrides", "element_strides"}, {"interleave", "interleave"}, {"swizzle", "swizzle"},
      {"l2Promotion", "l2_promotion"}, {"oobFill", "oob_fill"}, {"pixelBoxLowerCornerWidth", "lower_corner_w"},
      {"pixelBoxUpperCornerWidth", "upper_corner_w"}, {"pixelBoxLowerCorner", "lower_corner"},
      {"pixelBoxUpperCorner", "upper_corner"}, {"channelsPerPixel", "channels_per_pixel"},
      {"pixelsPerColumn", "pixels_per_column"}, {"mode", "mode"}};
  for (auto& [p, k] : keys)
    if (message.rfind(p, 0) == 0) return k;
  return "";
}

}  // namespace ptxsim::cli
