#include "tools/fuzz/tensormap_gen.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace ptxsim::fuzz {
namespace {

using namespace ptxsim::model::tmap;



// Element size in bits per CUtensorMapDataType (driver enum order).
uint32_t bits_of(uint32_t t) {
  static const uint32_t b[16] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6};
  return b[t];
}
bool padded16(uint32_t t) { return t == 14 || t == 15; }
bool floating(uint32_t t) { return t >= 6 && t <= 12; }
uint32_t span_of(uint32_t sw) { return sw == 0 ? 0 : sw == 1 ? 32 : sw == 2 ? 64 : 128; }
bool in(uint32_t v, std::initializer_list<uint32_t> set) { return std::find(set.begin(), set.end(), v) != set.end(); }

template <class T>
T pick(std::initializer_list<T> vs) {
  std::vector<T> v(vs);
  return v[*rc::gen::inRange<size_t>(0, v.size())];
}

// A parameter set that satisfies every rule, built constructively.
}  // namespace

using namespace ptxsim::model::tmap;

bool predict_tmap_valid(const TmapParams& p) {
  if (p.dtype > 15 || p.il > 2 || p.sw > 6 || p.l2 > 3 || p.oob > 1) return false;
  if (p.kind == TmapKind::kWide && p.mode > 1) return false;
  if (p.kind == TmapKind::kTiled) {
    if (p.rank < 1 || p.rank > 5) return false;
    if (p.il != 0 && p.rank < 3) return false;
  } else if (p.rank < 3 || p.rank > 5) {
    return false;
  }
  const uint32_t bits = bits_of(p.dtype);
  if (p.addr % 16) return false;
  if ((p.il == 2 || padded16(p.dtype)) && p.addr % 32) return false;
  for (uint32_t d = 0; d < p.rank; ++d)
    if (p.dims[d] < 1 || p.dims[d] > (1ull << 32)) return false;
  if (padded16(p.dtype) && p.dims[0] % 128) return false;
  if (p.dtype == 13 && p.dims[0] % 2) return false;
  for (uint32_t i = 0; i + 1 < p.rank; ++i) {
    if (p.strides[i] % 16 || p.strides[i] >= (1ull << 40)) return false;
    if ((p.il == 2 || padded16(p.dtype)) && p.strides[i] % 32) return false;
  }
  for (uint32_t d = 0; d < p.rank; ++d)
    if (p.es[d] < 1 || p.es[d] > 8) return false;
  uint32_t inner;
  if (p.kind == TmapKind::kTiled) {
    for (uint32_t d = 0; d < p.rank; ++d)
      if (p.box[d] < 1 || p.box[d] > 256) return false;
    if (p.il == 0 && (p.box[0] * bits) % 128) return false;
    if (padded16(p.dtype) && p.box[0] != 128) return false;
    inner = p.box[0];
  } else {
    const uint32_t nsp = p.kind == TmapKind::kWide ? 1 : p.rank - 2;
    const int32_t lim = (p.kind == TmapKind::kWide || p.rank == 3) ? 32768 : p.rank == 4 ? 128 : 16;
    for (uint32_t s = 0; s < nsp; ++s) {
      if (p.lower[s] < -lim || p.lower[s] >= lim || p.upper[s] < -lim || p.upper[s] >= lim) return false;
      if (int64_t(p.dims[1 + s]) + p.upper[s] - p.lower[s] < 1) return false;
    }
    if (p.cpp < 1 || p.cpp > 256) return false;
    if (padded16(p.dtype) && p.cpp != 128) return false;
    if (!(p.kind == TmapKind::kWide && p.mode == 1) && (p.ppc < 1 || p.ppc > 1024)) return false;
    inner = p.cpp;
  }
  if (p.il == 0 && p.sw != 0 && (uint64_t(inner) * bits + 7) / 8 > span_of(p.sw)) return false;
  if (p.il == 2 && p.sw != 1) return false;
  if (p.dtype == 15 && p.il != 0) return false;
  if (p.kind == TmapKind::kWide) {
    if (p.il != 0) return false;
    if (!in(p.sw, {2, 3, 4})) return false;
    if (padded16(p.dtype) && !in(p.sw, {3, 4})) return false;
  } else {
    if (p.dtype == 15 && !in(p.sw, {0, 3, 4, 6})) return false;
    if (p.dtype == 14 && !in(p.sw, {0, 3, 4})) return false;
  }
  if (p.oob == 1 && !floating(p.dtype)) return false;
  return true;
}

TmapParams gen_tmap_valid(TmapKind kind) {
  TmapParams p;
  p.kind = kind;
  p.dtype = *rc::gen::inRange<uint32_t>(0, 16);
  const uint32_t bits = bits_of(p.dtype);
  p.il = 0;
  // (16U4_ALIGN16B excludes swizzle 32B, which interleave 32B needs.)
  if (kind != TmapKind::kWide && p.dtype != 15 && *rc::gen::inRange(0, 4) == 0)
    p.il = p.dtype == 14 ? 1 : *rc::gen::inRange<uint32_t>(1, 3);
  p.rank = kind == TmapKind::kTiled ? *rc::gen::inRange<uint32_t>(p.il ? 3 : 1, 6) : *rc::gen::inRange<uint32_t>(3, 6);
  // swizzle
  if (kind == TmapKind::kWide) p.sw = padded16(p.dtype) ? pick<uint32_t>({3, 4}) : pick<uint32_t>({2, 3, 4});
  else if (p.il == 2) p.sw = 1;
  else if (p.dtype == 15) p.sw = pick<uint32_t>({0, 3, 4, 6});
  else if (p.dtype == 14) p.sw = pick<uint32_t>({0, 3, 4});
  else p.sw = *rc::gen::inRange<uint32_t>(0, 7);
  // inner dimension
  const uint32_t limit_bytes = (p.il == 0 && p.sw != 0) ? span_of(p.sw) : 4096;
  auto inner_count = [&](bool multiple16) -> uint32_t {
    if (padded16(p.dtype)) return 128;
    if (!multiple16) {
      uint32_t maxc = std::min<uint32_t>(256, limit_bytes * 8 / bits);
      return *rc::gen::inRange<uint32_t>(1, maxc + 1);
    }
    uint32_t unit = 128 / bits;  // elements per 16 bytes
    uint32_t maxk = std::min<uint32_t>(256 / unit, limit_bytes / 16);
    return unit * *rc::gen::inRange<uint32_t>(1, maxk + 1);
  };
  if (kind == TmapKind::kTiled) {
    p.box[0] = inner_count(p.il == 0);
    for (uint32_t d = 1; d < 5; ++d) p.box[d] = *rc::gen::inRange<uint32_t>(1, 257);
  } else {
    p.cpp = inner_count(false);
    p.ppc = *rc::gen::inRange<uint32_t>(1, 1025);
    p.mode = kind == TmapKind::kWide ? *rc::gen::inRange<uint32_t>(0, 2) : 0;
  }
  // dims / strides / address
  for (uint32_t d = 0; d < 5; ++d) {
    uint32_t sel = *rc::gen::inRange(0, 10);
    p.dims[d] = sel == 0 ? (1ull << 32) : sel == 1 ? 1 : *rc::gen::inRange<uint64_t>(1, 5000);
  }
  if (padded16(p.dtype)) p.dims[0] = 128 * *rc::gen::inRange<uint64_t>(1, 64);
  if (p.dtype == 13) p.dims[0] = 2 * *rc::gen::inRange<uint64_t>(1, 3000);
  const uint64_t align = (p.il == 2 || padded16(p.dtype)) ? 32 : 16;
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t sel = *rc::gen::inRange(0, 10);
    p.strides[i] = sel == 0 ? (1ull << 40) - align : sel == 1 ? 0 : align * *rc::gen::inRange<uint64_t>(1, 1u << 24);
  }
  p.addr = align * *rc::gen::inRange<uint64_t>(0, 1ull << 40);
  for (uint32_t d = 0; d < 5; ++d) p.es[d] = *rc::gen::inRange<uint32_t>(1, 9);
  p.l2 = *rc::gen::inRange<uint32_t>(0, 4);
  p.oob = floating(p.dtype) ? *rc::gen::inRange<uint32_t>(0, 2) : 0;
  // corners
  if (kind != TmapKind::kTiled) {
    const uint32_t nsp = kind == TmapKind::kWide ? 1 : p.rank - 2;
    const int32_t lim = (kind == TmapKind::kWide || p.rank == 3) ? 32768 : p.rank == 4 ? 128 : 16;
    for (uint32_t s = 0; s < nsp; ++s) {
      p.upper[s] = *rc::gen::inRange<int32_t>(-lim, lim);
      int64_t maxlo = std::min<int64_t>(lim - 1, int64_t(p.dims[1 + s]) + p.upper[s] - 1);
      p.lower[s] = int32_t(*rc::gen::inRange<int64_t>(-lim, maxlo + 1));
    }
  }
  return p;
}

// Changes one parameter to a value near a rule boundary.
void mutate_tmap(TmapParams& p) {
  const uint32_t d = *rc::gen::inRange<uint32_t>(0, 5);
  const uint32_t i = *rc::gen::inRange<uint32_t>(0, 4);
  switch (*rc::gen::inRange(0, p.kind == TmapKind::kTiled ? 12 : 17)) {
    case 0: p.dtype = *rc::gen::inRange<uint32_t>(0, 18); break;
    case 1: p.rank = *rc::gen::inRange<uint32_t>(0, 7); break;
    case 2: p.addr += pick<uint64_t>({8, 16, 32, 48}); break;
    case 3: p.dims[d] = pick<uint64_t>({0, 1, 2, 3, 127, 128, 256, 1ull << 32, (1ull << 32) + 1}); break;
    case 4: p.strides[i] = pick<uint64_t>({0, 8, 16, 24, 32, 48, 64, (1ull << 40) - 32, (1ull << 40) - 16, 1ull << 40}); break;
    case 5: p.box[d] = pick<uint32_t>({0, 1, 2, 3, 4, 8, 16, 24, 32, 64, 96, 128, 255, 256, 257}); break;
    case 6: p.es[d] = pick<uint32_t>({0, 1, 2, 8, 9}); break;
    case 7: p.il = *rc::gen::inRange<uint32_t>(0, 4); break;
    case 8: p.sw = *rc::gen::inRange<uint32_t>(0, 8); break;
    case 9: p.l2 = *rc::gen::inRange<uint32_t>(0, 5); break;
    case 10: p.oob = *rc::gen::inRange<uint32_t>(0, 3); break;
    case 11: p.box[0] = pick<uint32_t>({1, 2, 4, 8, 12, 16, 32, 64, 128, 129, 256}); break;
    case 12: p.lower[d % 3] = pick<int32_t>({-32769, -32768, -129, -128, -17, -16, -1, 0, 15, 16, 127, 128, 32767, 32768}); break;
    case 13: p.upper[d % 3] = pick<int32_t>({-32769, -32768, -129, -128, -17, -16, -1, 0, 15, 16, 127, 128, 32767, 32768}); break;
    case 14: p.cpp = pick<uint32_t>({0, 1, 3, 8, 64, 127, 128, 129, 256, 257}); break;
    case 15: p.ppc = pick<uint32_t>({0, 1, 2, 1023, 1024, 1025}); break;
    case 16: p.mode = *rc::gen::inRange<uint32_t>(0, 3); break;
  }
}

std::string show(const TmapParams& p) {
  std::string o = "kind " + std::to_string(int(p.kind)) + " dtype " + std::to_string(p.dtype) + " rank " +
                  std::to_string(p.rank) + " addr " + std::to_string(p.addr) + " dims";
  for (auto v : p.dims) o += " " + std::to_string(v);
  o += " strides";
  for (auto v : p.strides) o += " " + std::to_string(v);
  o += " box";
  for (auto v : p.box) o += " " + std::to_string(v);
  o += " es";
  for (auto v : p.es) o += " " + std::to_string(v);
  o += " il " + std::to_string(p.il) + " sw " + std::to_string(p.sw) + " l2 " + std::to_string(p.l2) + " oob " +
       std::to_string(p.oob) + " corners";
  for (int s = 0; s < 3; ++s) o += " " + std::to_string(p.lower[s]) + ":" + std::to_string(p.upper[s]);
  o += " cpp " + std::to_string(p.cpp) + " ppc " + std::to_string(p.ppc) + " mode " + std::to_string(p.mode);
  return o;
}

EncodeResult run_encoder(const TmapParams& p, CUtensorMap* out) {
  switch (p.kind) {
    case TmapKind::kTiled:
      return encode_tiled(out, DataType(p.dtype), p.rank, p.addr, p.dims, p.strides, p.box, p.es, Interleave(p.il),
                          Swizzle(p.sw), L2Promotion(p.l2), OobFill(p.oob));
    case TmapKind::kIm2col:
      return encode_im2col(out, DataType(p.dtype), p.rank, p.addr, p.dims, p.strides, p.lower, p.upper, p.cpp, p.ppc,
                           p.es, Interleave(p.il), Swizzle(p.sw), L2Promotion(p.l2), OobFill(p.oob));
    case TmapKind::kWide:
      return encode_im2col_wide(out, DataType(p.dtype), p.rank, p.addr, p.dims, p.strides, p.lower[0], p.upper[0],
                                p.cpp, p.ppc, p.es, Interleave(p.il), Im2colWideMode(p.mode), Swizzle(p.sw),
                                L2Promotion(p.l2), OobFill(p.oob));
  }
  return {};
}


nlohmann::json to_json(const TmapParams& p) {
  static const char* kinds[] = {"tiled", "im2col", "im2col_wide"};
  nlohmann::ordered_json j;
  j["encoder"] = kinds[int(p.kind)];
  j["dtype"] = p.dtype;
  j["rank"] = p.rank;
  j["global_address"] = p.addr;
  j["global_dim"] = std::vector<uint64_t>(p.dims, p.dims + 5);
  j["global_strides"] = std::vector<uint64_t>(p.strides, p.strides + 4);
  j["box_dim"] = std::vector<uint32_t>(p.box, p.box + 5);
  j["element_strides"] = std::vector<uint32_t>(p.es, p.es + 5);
  j["interleave"] = p.il;
  j["swizzle"] = p.sw;
  j["l2_promotion"] = p.l2;
  j["oob_fill"] = p.oob;
  j["lower_corner"] = std::vector<int32_t>(p.lower, p.lower + 3);
  j["upper_corner"] = std::vector<int32_t>(p.upper, p.upper + 3);
  j["channels_per_pixel"] = p.cpp;
  j["pixels_per_column"] = p.ppc;
  j["wide_mode"] = p.mode;
  return j;
}

rc::Gen<TmapParams> tensormap_params_gen() {
  return rc::gen::exec([] {
    const TmapKind kind = TmapKind(*rc::gen::inRange(0, 3));
    TmapParams p = gen_tmap_valid(kind);
    if (*rc::gen::inRange(0, 10) < 7) mutate_tmap(p);
    return p;
  });
}

}  // namespace ptxsim::fuzz
