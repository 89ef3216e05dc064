// Property tests (RapidCheck) of the TMA unit model against references written here from the
// definitions (PTX ISA 5.5 and docs/tensormap.md), without calling the model's helpers:
//  * a tiled load (any rank, element strides, interleave, every swizzle, OOB zero / NaN fill,
//    negative and partial boxes) writes exactly the bytes the reference gather predicts and no other;
//  * gather4 and im2col loads likewise;
//  * load followed by store reproduces the in-bound part of the box and writes nothing else;
//  * every swizzle is a bijection (an involution) on each period of its pattern;
//  * reductions combine exactly the in-bound elements.
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "model/numerics/f32_ops.h"
#include "model/numerics/half_ops.h"
#include "model/numerics/minmax.h"
#include "model/tensormap/encoder.h"
#include "model/tensormap/tensormap.h"
#include "model/tma/swizzle.h"
#include "model/tma/tma_unit.h"

namespace ptxsim::tmaprop {
namespace {

using namespace ptxsim::model;
using tmap::DataType;
using tmap::Interleave;
using tmap::Swizzle;
using tmap::TensorMap;

constexpr uint64_t kBase = 0x7f0000200000ull;

// ---- reference swizzle, in the "chunk index XOR line index" form of the PTX / CPG tables ----------
uint32_t ref_swizzle(Swizzle s, uint32_t a) {
  const uint32_t line = a / 128, in = a % 128;
  auto rebuild16 = [&](uint32_t chunk) { return line * 128 + chunk * 16 + in % 16; };
  switch (s) {
    case Swizzle::kNone: return a;
    case Swizzle::k32B: return rebuild16((in / 16) ^ (line % 2));
    case Swizzle::k64B: return rebuild16((in / 16) ^ (line % 4));
    case Swizzle::k128B: return rebuild16((in / 16) ^ (line % 8));
    case Swizzle::k128BAtom32B: return line * 128 + ((in / 32) ^ (line % 4)) * 32 + in % 32;
    case Swizzle::k128BAtom32BFlip8B: {
      uint32_t b = line * 128 + ((in / 32) ^ (line % 4)) * 32 + in % 32;
      return line % 2 ? (b & ~15u) | ((b % 16) ^ 8) : b;
    }
    case Swizzle::k128BAtom64B: return line * 128 + ((in / 64) ^ (line % 2)) * 64 + in % 64;
  }
  return a;
}

uint32_t ref_alignment(Swizzle s) {
  return s == Swizzle::k128BAtom64B ? 64 : (s == Swizzle::k128BAtom32B || s == Swizzle::k128BAtom32BFlip8B) ? 32 : 16;
}

struct Global {
  std::vector<uint8_t> mem;
  tma::GlobalRead reader() {
    return [this](uint64_t a, void* d, size_t n) {
      if (a < kBase || a + n > kBase + mem.size()) return false;
      std::memcpy(d, mem.data() + (a - kBase), n);
      return true;
    };
  }
  tma::GlobalWrite writer() {
    return [this](uint64_t a, const void* s, size_t n) {
      if (a < kBase || a + n > kBase + mem.size()) return false;
      std::memcpy(mem.data() + (a - kBase), s, n);
      return true;
    };
  }
};

// ---- random tiled tensors ---------------------------------------------------------------------------
struct TiledCase {
  DataType dtype;
  uint32_t esize;
  uint32_t rank;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  uint64_t strides[4] = {0, 0, 0, 0};
  uint32_t box[5] = {1, 1, 1, 1, 1};
  uint32_t es[5] = {1, 1, 1, 1, 1};
  Interleave il = Interleave::kNone;
  Swizzle sw = Swizzle::kNone;
  tmap::OobFill oob = tmap::OobFill::kNone;
  TensorMap map;
  uint64_t gbytes = 0;
};

const DataType kPlain[] = {DataType::kUInt8,   DataType::kUInt16,  DataType::kUInt32,     DataType::kInt32,
                           DataType::kUInt64,  DataType::kInt64,   DataType::kFloat16,    DataType::kFloat32,
                           DataType::kFloat64, DataType::kBFloat16, DataType::kFloat32Ftz, DataType::kTFloat32,
                           DataType::kTFloat32Ftz};
uint32_t size_of(DataType t) {
  switch (t) {
    case DataType::kUInt8: return 1;
    case DataType::kUInt16: case DataType::kFloat16: case DataType::kBFloat16: return 2;
    case DataType::kUInt64: case DataType::kInt64: case DataType::kFloat64: return 8;
    default: return 4;
  }
}
bool is_fp(DataType t) { return uint32_t(t) >= 6 && uint32_t(t) <= 12; }

TiledCase gen_tiled(bool allow_interleave, uint32_t max_rank = 5, const std::vector<DataType>& types = {}) {
  TiledCase t;
  t.dtype = types.empty() ? kPlain[*rc::gen::inRange<size_t>(0, std::size(kPlain))]
                          : types[*rc::gen::inRange<size_t>(0, types.size())];
  t.esize = size_of(t.dtype);
  t.rank = *rc::gen::inRange<uint32_t>(1, max_rank + 1);
  if (allow_interleave && t.rank >= 3 && *rc::gen::inRange(0, 3) == 0)
    t.il = *rc::gen::inRange(0, 2) ? Interleave::k16B : Interleave::k32B;
  if (t.il == Interleave::k32B) t.sw = Swizzle::k32B;
  else t.sw = Swizzle(*rc::gen::inRange<uint32_t>(0, 7));
  // inner box: multiple of 16 bytes (no interleave), within the swizzle span
  const uint32_t span = t.sw == Swizzle::kNone ? 0 : t.sw == Swizzle::k32B ? 32 : t.sw == Swizzle::k64B ? 64 : 128;
  if (t.il == Interleave::kNone) {
    uint32_t max_bytes = span ? span : 256;
    t.box[0] = (16 / t.esize) * *rc::gen::inRange<uint32_t>(1, max_bytes / 16 + 1);
  } else {
    t.box[0] = *rc::gen::inRange<uint32_t>(1, 33);
  }
  for (uint32_t d = 1; d < t.rank; ++d) t.box[d] = *rc::gen::inRange<uint32_t>(1, 7);
  for (uint32_t d = 0; d < t.rank; ++d) t.es[d] = *rc::gen::inRange<uint32_t>(1, 4);
  t.dims[0] = *rc::gen::inRange<uint64_t>(1, 48);
  for (uint32_t d = 1; d < t.rank; ++d) t.dims[d] = *rc::gen::inRange<uint64_t>(1, 9);
  const uint64_t align = t.il == Interleave::k32B ? 32 : 16;
  uint64_t extent = (t.dims[0] * t.esize + align - 1) / align * align;
  for (uint32_t d = 1; d < t.rank; ++d) {
    t.strides[d - 1] = extent + align * *rc::gen::inRange<uint64_t>(0, 3);
    extent = t.strides[d - 1] * t.dims[d];
  }
  t.gbytes = extent;
  if (is_fp(t.dtype) && *rc::gen::inRange(0, 2)) t.oob = tmap::OobFill::kNanRequestZeroFma;
  tmap::CUtensorMap cm;
  auto r = tmap::encode_tiled(&cm, t.dtype, t.rank, kBase, t.dims, t.strides, t.box, t.es, t.il, t.sw,
                              tmap::L2Promotion::kNone, t.oob);
  RC_LOG() << r.message << "\n";
  RC_ASSERT(r.ok());
  t.map = tmap::decode(cm).map;
  return t;
}

// Bulk random bytes from one generated seed (generating each byte through RapidCheck is slow).
void fill_random(std::vector<uint8_t>& v) {
  uint64_t x = *rc::gen::arbitrary<uint64_t>();
  for (auto& b : v) {
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    b = uint8_t(z ^ (z >> 31));
  }
}

Global random_global(uint64_t n) {
  Global g;
  g.mem.resize(n);
  fill_random(g.mem);
  return g;
}

// Reference: for each element of the box, where it goes in shared memory and where it comes from.
struct RefElem {
  uint64_t image_off;  // in the dense image
  bool in;
  uint64_t gaddr;      // valid when in
};
struct RefImage {
  uint64_t pitch = 0, bytes = 0;
  std::vector<RefElem> elems;
};

RefImage ref_tiled(const TiledCase& t, const int32_t* coords) {
  RefImage ri;
  uint64_t L[5] = {1, 1, 1, 1, 1};
  const bool il = t.il != Interleave::kNone;
  for (uint32_t d = 0; d < t.rank; ++d) L[d] = (d == 0 && !il) ? t.box[0] : (t.box[d] + t.es[d] - 1) / t.es[d];
  const uint64_t ilb = t.il == Interleave::k16B ? 16 : t.il == Interleave::k32B ? 32 : 1;
  ri.pitch = (L[0] * t.esize + ilb - 1) / ilb * ilb;
  uint64_t rows = L[1] * L[2] * L[3] * L[4];
  ri.bytes = ri.pitch * rows;
  for (uint64_t j4 = 0; j4 < L[4]; ++j4)
    for (uint64_t j3 = 0; j3 < L[3]; ++j3)
      for (uint64_t j2 = 0; j2 < L[2]; ++j2)
        for (uint64_t j1 = 0; j1 < L[1]; ++j1)
          for (uint64_t j0 = 0; j0 < L[0]; ++j0) {
            const uint64_t j[5] = {j0, j1, j2, j3, j4};
            RefElem e;
            e.image_off = j0 * t.esize + ri.pitch * (j1 + L[1] * (j2 + L[2] * (j3 + L[3] * j4)));
            e.in = true;
            e.gaddr = kBase;
            for (uint32_t d = 0; d < t.rank; ++d) {
              int64_t step = (d == 0 && !il) ? 1 : t.es[d];
              int64_t gc = int64_t(coords[d]) + int64_t(j[d]) * step;
              if (gc < 0 || gc >= int64_t(t.dims[d])) e.in = false;
              else e.gaddr += uint64_t(gc) * (d == 0 ? t.esize : t.strides[d - 1]);
            }
            ri.elems.push_back(e);
          }
  return ri;
}

// Byte k of an out-of-bounds element: zero, or the OOB-NaN fill, 0x7FF7 in every 16 bits (H200).
uint8_t oob_byte(bool nan, uint32_t k) { return nan ? (k % 2 ? 0x7F : 0xF7) : 0x00; }

// A TFLOAT32 map's element as the load leaves it (H200): f32 rounded to 10 fraction bits, to
// nearest even; NaN becomes 0x7FFFE000. Written with the remainder rather than an added bias.
uint32_t ref_tf32(uint32_t x) {
  if (((x >> 23) & 0xFF) == 0xFF) return (x & 0x7FFFFF) ? 0x7FFFE000u : x;
  uint32_t keep = x >> 13, rem = x & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (keep & 1))) ++keep;
  return keep << 13;
}

// The bytes an in-bounds element at `p` lands as.
void ref_element(const uint8_t* p, uint32_t esize, bool tf32, uint8_t* out) {
  std::memcpy(out, p, esize);
  if (!tf32) return;
  uint32_t x;
  std::memcpy(&x, p, 4);
  x = ref_tf32(x);
  std::memcpy(out, &x, 4);
}

bool is_tf32(DataType t) { return t == DataType::kTFloat32 || t == DataType::kTFloat32Ftz; }

// Expected shared memory after a load of `ri` at `dst`.
std::vector<uint8_t> ref_load(const std::vector<uint8_t>& smem0, const RefImage& ri, const Global& g, uint32_t esize,
                              Swizzle sw, uint32_t dst, bool nan, bool tf32) {
  std::vector<uint8_t> s = smem0;
  std::vector<bool> covered(ri.bytes, false);
  for (const RefElem& e : ri.elems) {
    uint8_t el[8] = {};
    if (e.in) ref_element(&g.mem[e.gaddr - kBase], esize, tf32, el);
    for (uint32_t k = 0; k < esize; ++k) {
      uint8_t v = e.in ? el[k] : oob_byte(nan, k);
      s[ref_swizzle(sw, uint32_t(dst + e.image_off + k))] = v;
      covered[e.image_off + k] = true;
    }
  }
  for (uint64_t i = 0; i < ri.bytes; ++i)  // interleave padding: zero
    if (!covered[i]) s[ref_swizzle(sw, uint32_t(dst + i))] = 0;
  return s;
}

uint32_t gen_dst(Swizzle sw, uint64_t bytes, size_t window) {
  const uint32_t align = ref_alignment(sw);
  uint64_t limit = window - bytes - 256;
  return uint32_t(align * *rc::gen::inRange<uint64_t>(0, limit / align));
}

RC_GTEST_PROP(TmaProp, TiledLoadMatchesReferenceGather, ()) {
  TiledCase t = gen_tiled(true);
  Global g = random_global(t.gbytes);
  int32_t coords[5] = {0, 0, 0, 0, 0};
  for (uint32_t d = 0; d < t.rank; ++d)
    coords[d] = *rc::gen::inRange<int32_t>(-int32_t(t.box[d] * t.es[d]) - 1, int32_t(t.dims[d]) + 2);
  RefImage ri = ref_tiled(t, coords);
  const size_t window = 1 << 16;
  RC_PRE(ri.bytes + 512 < window);
  const uint32_t dst = gen_dst(t.sw, ri.bytes, window);
  std::vector<uint8_t> smem(window);
  fill_random(smem);
  const std::vector<uint8_t> want =
      ref_load(smem, ri, g, t.esize, t.sw, dst, t.oob != tmap::OobFill::kNone, is_tf32(t.dtype));
  tma::Coords c;
  std::copy(coords, coords + 5, c.c);
  RC_LOG() << tmap::describe(t.map) << " coords " << coords[0] << "," << coords[1] << "," << coords[2] << " dst "
           << dst << "\n";
  tma::Outcome o = tma::load(t.map, tma::LoadMode::kTile, c, g.reader(), smem, dst);
  RC_LOG() << o.message << "\n";
  RC_ASSERT(o.ok());
  RC_ASSERT(o.tx_bytes == ri.bytes);
  RC_ASSERT(smem == want);
}

RC_GTEST_PROP(TmaProp, TiledLoadThenStoreReproducesTheBox, ()) {
  TiledCase t = gen_tiled(true);
  Global g = random_global(t.gbytes);
  int32_t coords[5] = {0, 0, 0, 0, 0};
  for (uint32_t d = 0; d < t.rank; ++d) coords[d] = *rc::gen::inRange<int32_t>(0, int32_t(t.dims[d]) + 2);
  RefImage ri = ref_tiled(t, coords);
  const size_t window = 1 << 16;
  RC_PRE(ri.bytes + 512 < window);
  const uint32_t dst = gen_dst(t.sw, ri.bytes, window);
  std::vector<uint8_t> smem(window, 0);
  tma::Coords c;
  std::copy(coords, coords + 5, c.c);
  RC_ASSERT(tma::load(t.map, tma::LoadMode::kTile, c, g.reader(), smem, dst).ok());
  Global out;
  out.mem.assign(t.gbytes, 0xA5);
  tma::Outcome o = tma::store(t.map, tma::StoreMode::kTile, c, smem, dst, out.writer());
  RC_LOG() << o.message << "\n";
  RC_ASSERT(o.ok());
  std::vector<uint8_t> want(t.gbytes, 0xA5);
  // A TFLOAT32 load rounds to tf32 and the store writes what the load left (stores do not round).
  for (const RefElem& e : ri.elems)
    if (e.in) ref_element(g.mem.data() + (e.gaddr - kBase), t.esize, is_tf32(t.dtype), want.data() + (e.gaddr - kBase));
  RC_ASSERT(out.mem == want);
}

RC_GTEST_PROP(TmaProp, Gather4AndScatter4MatchReference, ()) {
  TiledCase t;
  {
    // 2-D map with boxDim[1] = 1.
    t.dtype = kPlain[*rc::gen::inRange<size_t>(0, std::size(kPlain))];
    t.esize = size_of(t.dtype);
    t.rank = 2;
    t.sw = Swizzle(*rc::gen::inRange<uint32_t>(0, 7));
    const uint32_t span = t.sw == Swizzle::kNone ? 256 : t.sw == Swizzle::k32B ? 32 : t.sw == Swizzle::k64B ? 64 : 128;
    t.box[0] = (16 / t.esize) * *rc::gen::inRange<uint32_t>(1, span / 16 + 1);
    t.box[1] = 1;
    t.dims[0] = *rc::gen::inRange<uint64_t>(1, 80);
    t.dims[1] = *rc::gen::inRange<uint64_t>(1, 20);
    t.strides[0] = (t.dims[0] * t.esize + 15) / 16 * 16 + 16 * *rc::gen::inRange<uint64_t>(0, 3);
    t.gbytes = t.strides[0] * t.dims[1];
    if (is_fp(t.dtype) && *rc::gen::inRange(0, 2)) t.oob = tmap::OobFill::kNanRequestZeroFma;
    tmap::CUtensorMap cm;
    RC_ASSERT(tmap::encode_tiled(&cm, t.dtype, 2, kBase, t.dims, t.strides, t.box, t.es, t.il, t.sw,
                                 tmap::L2Promotion::kNone, t.oob).ok());
    t.map = tmap::decode(cm).map;
  }
  Global g = random_global(t.gbytes);
  const bool store = *rc::gen::inRange(0, 2);
  tma::Coords c;
  c.c[0] = *rc::gen::inRange<int32_t>(store ? 0 : -int32_t(t.box[0]), int32_t(t.dims[0]) + 2);
  for (int r = 0; r < 4; ++r) c.c[1 + r] = *rc::gen::inRange<int32_t>(store ? 0 : -2, int32_t(t.dims[1]) + 2);
  const uint64_t pitch = uint64_t(t.box[0]) * t.esize;
  const size_t window = 1 << 13;
  const uint32_t dst = gen_dst(t.sw, 4 * pitch, window);
  std::vector<uint8_t> smem(window);
  fill_random(smem);
  if (!store) {
    std::vector<uint8_t> want = smem;
    for (int r = 0; r < 4; ++r)
      for (uint32_t j = 0; j < t.box[0]; ++j) {
        int64_t x = int64_t(c.c[0]) + j, y = c.c[1 + r];
        bool in = x >= 0 && x < int64_t(t.dims[0]) && y >= 0 && y < int64_t(t.dims[1]);
        uint8_t el[8] = {};
        if (in) ref_element(&g.mem[uint64_t(y) * t.strides[0] + uint64_t(x) * t.esize], t.esize, is_tf32(t.dtype), el);
        for (uint32_t k = 0; k < t.esize; ++k) {
          uint8_t v = in ? el[k] : oob_byte(t.oob != tmap::OobFill::kNone, k);
          want[ref_swizzle(t.sw, uint32_t(dst + r * pitch + j * t.esize + k))] = v;
        }
      }
    tma::Outcome o = tma::load(t.map, tma::LoadMode::kTileGather4, c, g.reader(), smem, dst);
    RC_ASSERT(o.ok());
    RC_ASSERT(o.tx_bytes == 4 * pitch);
    RC_ASSERT(smem == want);
  } else {
    std::vector<uint8_t> want = g.mem;
    for (int r = 0; r < 4; ++r)  // later rows win when rows repeat
      for (uint32_t j = 0; j < t.box[0]; ++j) {
        int64_t x = int64_t(c.c[0]) + j, y = c.c[1 + r];
        if (x >= int64_t(t.dims[0]) || y >= int64_t(t.dims[1])) continue;
        for (uint32_t k = 0; k < t.esize; ++k)
          want[uint64_t(y) * t.strides[0] + uint64_t(x) * t.esize + k] =
              smem[ref_swizzle(t.sw, uint32_t(dst + r * pitch + j * t.esize + k))];
      }
    tma::Outcome o = tma::store(t.map, tma::StoreMode::kTileScatter4, c, smem, dst, g.writer());
    RC_ASSERT(o.ok());
    RC_ASSERT(g.mem == want);
  }
}

RC_GTEST_PROP(TmaProp, Im2colLoadMatchesReferenceWalk, ()) {
  const uint32_t rank = *rc::gen::inRange<uint32_t>(3, 6);
  const DataType dt = kPlain[*rc::gen::inRange<size_t>(0, std::size(kPlain))];
  const uint32_t es = size_of(dt);
  const uint32_t nsp = rank - 2;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  dims[0] = *rc::gen::inRange<uint64_t>(1, 24);
  for (uint32_t s = 0; s < nsp; ++s) dims[1 + s] = *rc::gen::inRange<uint64_t>(1, 7);
  dims[rank - 1] = *rc::gen::inRange<uint64_t>(1, 4);
  uint64_t strides[4] = {0, 0, 0, 0};
  uint64_t extent = (dims[0] * es + 15) / 16 * 16;
  for (uint32_t d = 1; d < rank; ++d) {
    strides[d - 1] = extent;
    extent *= dims[d];
  }
  int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  uint32_t tstr[5] = {1, 1, 1, 1, 1};
  for (uint32_t s = 0; s < nsp; ++s) {
    hi[s] = *rc::gen::inRange<int32_t>(-2, 3);
    lo[s] = *rc::gen::inRange<int32_t>(-3, std::min<int32_t>(3, int32_t(dims[1 + s]) + hi[s] - 1) + 1);
    tstr[1 + s] = *rc::gen::inRange<uint32_t>(1, 4);
  }
  const uint32_t cpp = (16 / es) * *rc::gen::inRange<uint32_t>(1, 4);
  const uint32_t ppc = *rc::gen::inRange<uint32_t>(1, 40);
  tmap::CUtensorMap cm;
  auto r = tmap::encode_im2col(&cm, dt, rank, kBase, dims, strides, lo, hi, cpp, ppc, tstr, Interleave::kNone,
                               Swizzle::kNone, tmap::L2Promotion::kNone, tmap::OobFill::kNone);
  RC_LOG() << r.message << "\n";
  RC_ASSERT(r.ok());
  const TensorMap m = tmap::decode(cm).map;
  Global g = random_global(extent);
  tma::Coords c;
  c.c[0] = *rc::gen::inRange<int32_t>(-int32_t(cpp), int32_t(dims[0]) + 1);
  int64_t pos[3] = {0, 0, 0}, off[3] = {0, 0, 0};
  for (uint32_t s = 0; s < nsp; ++s) {
    pos[s] = *rc::gen::inRange<int64_t>(lo[s], int64_t(dims[1 + s]) - 1 + hi[s] + 1);  // inside the box
    c.c[1 + s] = int32_t(pos[s]);
    off[s] = *rc::gen::inRange<int64_t>(0, 3);
    c.im2col_offsets[s] = uint16_t(off[s]);
  }
  int64_t n = *rc::gen::inRange<int64_t>(-1, int64_t(dims[rank - 1]) + 1);
  c.c[rank - 1] = int32_t(n);

  std::vector<uint8_t> smem(1 << 14, 0xCD), want = smem;
  const uint64_t pitch = uint64_t(cpp) * es;
  for (uint32_t k = 0; k < ppc; ++k) {
    // pixel k: current (pos, n)
    bool pin = n >= 0 && n < int64_t(dims[rank - 1]);
    uint64_t base = pin ? uint64_t(n) * strides[rank - 2] : 0;
    for (uint32_t s = 0; s < nsp; ++s) {
      int64_t x = pos[s] + off[s];
      if (x < 0 || x >= int64_t(dims[1 + s])) pin = false;
      else base += uint64_t(x) * strides[s];
    }
    for (uint32_t ch = 0; ch < cpp; ++ch) {
      int64_t cc = int64_t(c.c[0]) + ch;
      bool in = pin && cc >= 0 && cc < int64_t(dims[0]);
      uint8_t el[8] = {};
      if (in) ref_element(&g.mem[base + uint64_t(cc) * es], es, is_tf32(dt), el);
      for (uint32_t b = 0; b < es; ++b) want[k * pitch + ch * es + b] = el[b];
    }
    // next pixel: W fastest, wrap to the lower corner, carry into H, D, then N
    uint32_t s = 0;
    for (; s < nsp; ++s) {
      pos[s] += tstr[1 + s];
      if (pos[s] <= int64_t(dims[1 + s]) - 1 + hi[s]) break;
      pos[s] = lo[s];
    }
    if (s == nsp) ++n;
  }
  tma::Outcome o = tma::load(m, tma::LoadMode::kIm2col, c, g.reader(), smem, 0);
  RC_LOG() << tmap::describe(m) << "\n" << o.message << "\n";
  RC_ASSERT(o.ok());
  RC_ASSERT(o.tx_bytes == pitch * ppc);
  RC_ASSERT(smem == want);
}

RC_GTEST_PROP(TmaProp, EverySwizzleIsABijectionOnItsPeriod, ()) {
  const Swizzle s = Swizzle(*rc::gen::inRange<uint32_t>(0, 7));
  const uint32_t period = 1024;  // a multiple of every mode's repeat
  const uint32_t start = period * *rc::gen::inRange<uint32_t>(0, 200);
  std::vector<bool> hit(period, false);
  for (uint32_t i = 0; i < period; ++i) {
    uint32_t a = tma::swizzle_address(s, start + i);
    RC_ASSERT(a >= start && a < start + period);
    RC_ASSERT(a / 128 == (start + i) / 128);               // stays within its 128-byte line
    RC_ASSERT(tma::swizzle_address(s, a) == start + i);   // involution
    RC_ASSERT(a == ref_swizzle(s, start + i));
    RC_ASSERT(!hit[a - start]);
    hit[a - start] = true;
    if (i % 8) RC_ASSERT(a == tma::swizzle_address(s, start + i - 1) + 1);  // 8-byte blocks stay intact
  }
  // Offsets from a 16-byte aligned base that is not on a line boundary.
  const uint32_t base = start + 16 * *rc::gen::inRange<uint32_t>(0, 64);
  const uint32_t off = *rc::gen::inRange<uint32_t>(0, 4096);
  RC_ASSERT(tma::swizzle_offset(s, base, off) == int64_t(ref_swizzle(s, base + off)) - int64_t(base));
}

// ---- reductions -----------------------------------------------------------------------------------------
RC_GTEST_PROP(TmaProp, ReductionsCombineExactlyTheInBoundElements, ()) {
  using tma::RedOp;
  struct Combo {
    RedOp op;
    DataType t;
  };
  static const Combo combos[] = {
      {RedOp::kAdd, DataType::kUInt32},   {RedOp::kAdd, DataType::kInt32},   {RedOp::kAdd, DataType::kUInt64},
      {RedOp::kAdd, DataType::kFloat32},  {RedOp::kAdd, DataType::kFloat32Ftz}, {RedOp::kAdd, DataType::kFloat16},
      {RedOp::kAdd, DataType::kBFloat16}, {RedOp::kMin, DataType::kUInt32},  {RedOp::kMin, DataType::kInt32},
      {RedOp::kMin, DataType::kUInt64},   {RedOp::kMin, DataType::kInt64},   {RedOp::kMin, DataType::kFloat16},
      {RedOp::kMin, DataType::kBFloat16}, {RedOp::kMax, DataType::kUInt32},  {RedOp::kMax, DataType::kInt32},
      {RedOp::kMax, DataType::kUInt64},   {RedOp::kMax, DataType::kInt64},   {RedOp::kMax, DataType::kFloat16},
      {RedOp::kMax, DataType::kBFloat16}, {RedOp::kInc, DataType::kUInt32},  {RedOp::kDec, DataType::kUInt32},
      {RedOp::kAnd, DataType::kUInt32},   {RedOp::kOr, DataType::kInt64},    {RedOp::kXor, DataType::kFloat64},
      {RedOp::kAnd, DataType::kFloat32},  {RedOp::kOr, DataType::kUInt64},   {RedOp::kXor, DataType::kInt32}};
  const Combo cb = combos[*rc::gen::inRange<size_t>(0, std::size(combos))];
  TiledCase t = gen_tiled(false, 3, {cb.t});
  Global g = random_global(t.gbytes);
  const Global before = g;
  int32_t coords[5] = {0, 0, 0, 0, 0};
  for (uint32_t d = 0; d < t.rank; ++d) coords[d] = *rc::gen::inRange<int32_t>(0, int32_t(t.dims[d]) + 2);
  RefImage ri = ref_tiled(t, coords);
  const size_t window = 1 << 16;
  RC_PRE(ri.bytes + 512 < window);
  const uint32_t dst = gen_dst(t.sw, ri.bytes, window);
  std::vector<uint8_t> smem(window);
  fill_random(smem);
  std::vector<uint8_t> want = g.mem;
  for (const RefElem& e : ri.elems) {
    if (!e.in) continue;
    uint8_t src[8];
    for (uint32_t k = 0; k < t.esize; ++k) src[k] = smem[ref_swizzle(t.sw, uint32_t(dst + e.image_off + k))];
    uint8_t* o = want.data() + (e.gaddr - kBase);
    uint64_t a = 0, b = 0;
    std::memcpy(&a, o, t.esize);
    std::memcpy(&b, src, t.esize);
    uint64_t r = a;
    const bool s32 = cb.t == DataType::kInt32, s64 = cb.t == DataType::kInt64;
    const uint64_t mask = t.esize == 8 ? ~0ull : (1ull << (8 * t.esize)) - 1;
    auto sx = [&](uint64_t v) -> int64_t { return s32 ? int64_t(int32_t(v)) : int64_t(v); };
    switch (cb.op) {
      case RedOp::kAdd:
        if (cb.t == DataType::kFloat32 || cb.t == DataType::kFloat32Ftz)
          r = num::add_f32(uint32_t(a), uint32_t(b), num::Round::RN, cb.t == DataType::kFloat32Ftz);
        else if (cb.t == DataType::kFloat16) r = num::add_f16(uint16_t(a), uint16_t(b));
        else if (cb.t == DataType::kBFloat16) r = num::add_bf16(uint16_t(a), uint16_t(b));
        else r = (a + b) & mask;
        break;
      case RedOp::kMin:
      case RedOp::kMax: {
        const bool mn = cb.op == RedOp::kMin;
        if (cb.t == DataType::kFloat16) r = mn ? num::min_f16(uint16_t(a), uint16_t(b)) : num::max_f16(uint16_t(a), uint16_t(b));
        else if (cb.t == DataType::kBFloat16) r = mn ? num::min_bf16(uint16_t(a), uint16_t(b)) : num::max_bf16(uint16_t(a), uint16_t(b));
        else if (s32 || s64) r = uint64_t((mn ? std::min(sx(a), sx(b)) : std::max(sx(a), sx(b)))) & mask;
        else r = mn ? std::min(a, b) : std::max(a, b);
        break;
      }
      case RedOp::kInc: r = a >= b ? 0 : a + 1; break;
      case RedOp::kDec: r = (a == 0 || a > b) ? b : a - 1; break;
      case RedOp::kAnd: r = a & b; break;
      case RedOp::kOr: r = a | b; break;
      case RedOp::kXor: r = a ^ b; break;
    }
    std::memcpy(o, &r, t.esize);
  }
  tma::Coords c;
  std::copy(coords, coords + 5, c.c);
  tma::Outcome o = tma::reduce(t.map, cb.op, tma::StoreMode::kTile, c, smem, dst, g.reader(), g.writer());
  RC_LOG() << o.message << "\n";
  RC_ASSERT(o.ok());
  RC_ASSERT(g.mem == want);
  (void)before;
}

}  // namespace
}  // namespace ptxsim::tmaprop
