// tma_modes.cu: TMA loads and stores of random 1D-5D boxes (every swizzle, 1/2/4/8-byte elements,
// element strides, boxes hanging over every edge), multicast into a cluster, device-side rebinding
// of a tensor map with and without the acquire fence, and non-tensor bulk copies.
//
// The expected shared-memory images are computed here from the definitions (PTX ISA "Tensor copy
// restrictions" / "Swizzling modes"; docs/tensormap.md "Tiled box"), not with model/tma:
//   L[d] = ceil(box[d] / es[d]) elements along dimension d (es[0] = 1 here), element j at tensor
//   coordinate g[d] = coords[d] + j[d] * es[d], zero when any g[d] is outside [0, dim[d]), placed at
//   byte offset o = esize * (j0 + L0 * (j1 + L1 * (...))) and then swizzled by XORing bits 4.. of o
//   with bits 7.. (1, 2 or 3 bits for the 32B, 64B and 128B modes).
#include <random>

#include "model/tensormap/encoder.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

namespace tmap = model::tmap;

using TmaModesTest = KernelTest;

struct Coords {
  int32_t c[5];
};

struct BoxCase {
  uint32_t rank = 1, esize = 1;
  tmap::Swizzle swizzle = tmap::Swizzle::kNone;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  uint64_t strides[4] = {0, 0, 0, 0};  // bytes, dimensions 1..rank-1
  uint32_t box[5] = {1, 1, 1, 1, 1}, es[5] = {1, 1, 1, 1, 1};
  int32_t coords[5] = {0, 0, 0, 0, 0};
  uint32_t L(int d) const { return (box[d] + es[d] - 1) / es[d]; }
  uint32_t image_bytes() const {
    uint32_t n = esize;
    for (uint32_t d = 0; d < rank; ++d) n *= L(int(d));
    return n;
  }
  uint64_t tensor_bytes() const { return rank == 1 ? dims[0] * esize : strides[rank - 2] * dims[rank - 1]; }
  std::string describe() const {
    std::string s = "rank " + std::to_string(rank) + " esize " + std::to_string(esize) + " swizzle " +
                    std::to_string(int(swizzle)) + " dims";
    for (uint32_t d = 0; d < rank; ++d) s += " " + std::to_string(dims[d]);
    s += " box";
    for (uint32_t d = 0; d < rank; ++d) s += " " + std::to_string(box[d]);
    s += " es";
    for (uint32_t d = 0; d < rank; ++d) s += " " + std::to_string(es[d]);
    s += " coords";
    for (uint32_t d = 0; d < rank; ++d) s += " " + std::to_string(coords[d]);
    return s;
  }
};

tmap::DataType dtype_of(uint32_t esize) {
  switch (esize) {
    case 1: return tmap::DataType::kUInt8;
    case 2: return tmap::DataType::kUInt16;
    case 4: return tmap::DataType::kUInt32;
    default: return tmap::DataType::kUInt64;
  }
}

uint32_t span_of(tmap::Swizzle s) {
  switch (s) {
    case tmap::Swizzle::k32B: return 32;
    case tmap::Swizzle::k64B: return 64;
    case tmap::Swizzle::k128B: return 128;
    default: return 0;
  }
}

BoxCase random_case(std::mt19937_64& rng, bool unit_strides) {
  auto pick = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  for (;;) {
    BoxCase b;
    b.rank = uint32_t(pick(1, 5));
    b.esize = 1u << pick(0, 3);
    const tmap::Swizzle sws[] = {tmap::Swizzle::kNone, tmap::Swizzle::k32B, tmap::Swizzle::k64B,
                                 tmap::Swizzle::k128B};
    b.swizzle = sws[pick(0, 3)];
    // The inner box row: exactly the swizzle span, or 16-byte multiples up to 64 bytes without one.
    const uint32_t row = b.swizzle == tmap::Swizzle::kNone ? 16 * uint32_t(pick(1, 4)) : span_of(b.swizzle);
    b.box[0] = row / b.esize;
    b.dims[0] = pick(1, b.box[0] * 3);
    for (uint32_t d = 1; d < b.rank; ++d) {
      b.box[d] = uint32_t(pick(1, 5));
      b.es[d] = unit_strides ? 1 : uint32_t(pick(1, 3));
      b.dims[d] = pick(1, 9);
    }
    // Byte strides: each row padded to 16 bytes plus up to two extra 16-byte units.
    uint64_t s = (b.dims[0] * b.esize + 15) / 16 * 16 + 16 * pick(0, 2);
    for (uint32_t d = 1; d < b.rank; ++d) {
      b.strides[d - 1] = s;
      s *= b.dims[d];
    }
    for (uint32_t d = 0; d < b.rank; ++d)
      // Loads may start before the tensor; stores must not (PTX 9.7.9.27.1.1, CPG 10.29.2).
      b.coords[d] = int32_t(pick(0, b.dims[d] + b.box[d])) - (unit_strides ? 0 : int32_t(b.box[d]));
    if (b.image_bytes() <= 16384) return b;
  }
}

tmap::CUtensorMap encode(const BoxCase& b, uint64_t addr) {
  tmap::CUtensorMap m;
  auto r = tmap::encode_tiled(&m, dtype_of(b.esize), b.rank, addr, b.dims, b.strides, b.box, b.es,
                              tmap::Interleave::kNone, b.swizzle, tmap::L2Promotion::kNone, tmap::OobFill::kNone);
  EXPECT_TRUE(r.ok()) << r.message << "\n" << b.describe();
  return m;
}

// The shared-memory image of the box, from the definitions in the file comment.
std::vector<uint8_t> expected_image(const BoxCase& b, const std::vector<uint8_t>& tensor) {
  std::vector<uint8_t> img(b.image_bytes(), 0);
  const uint32_t mask = b.swizzle == tmap::Swizzle::kNone ? 0 : span_of(b.swizzle) / 16 - 1;  // 0, 1, 3, 7
  uint32_t j[5] = {0, 0, 0, 0, 0};
  const uint32_t count = b.image_bytes() / b.esize;
  for (uint32_t idx = 0; idx < count; ++idx) {
    uint32_t rest = idx;
    bool inside = true;
    uint64_t src = 0;
    for (uint32_t d = 0; d < b.rank; ++d) {
      j[d] = rest % b.L(int(d));
      rest /= b.L(int(d));
      const int64_t g = int64_t(b.coords[d]) + int64_t(j[d]) * b.es[d];
      if (g < 0 || g >= int64_t(b.dims[d])) inside = false;
      src += d == 0 ? uint64_t(g) * b.esize : uint64_t(g) * b.strides[d - 1];
    }
    const uint32_t o = idx * b.esize;
    const uint32_t swizzled = o ^ (((o >> 7) & mask) << 4);
    if (inside) std::memcpy(&img[swizzled], &tensor[src], b.esize);
  }
  return img;
}

// The output tensor after storing the box at its coordinates: in-bound box elements replaced.
std::vector<uint8_t> expected_store(const BoxCase& b, const std::vector<uint8_t>& in, std::vector<uint8_t> out) {
  const uint32_t count = b.image_bytes() / b.esize;
  for (uint32_t idx = 0; idx < count; ++idx) {
    uint32_t rest = idx;
    bool inside = true;
    uint64_t at = 0;
    for (uint32_t d = 0; d < b.rank; ++d) {
      const int64_t g = int64_t(b.coords[d]) + int64_t(rest % b.L(int(d)));
      rest /= b.L(int(d));
      if (g < 0 || g >= int64_t(b.dims[d])) inside = false;
      at += d == 0 ? uint64_t(g) * b.esize : uint64_t(g) * b.strides[d - 1];
    }
    if (inside) std::memcpy(&out[at], &in[at], b.esize);
  }
  return out;
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = uint8_t(rng());
  return v;
}

TEST_P(TmaModesTest, RandomBoxesLoadAndStoreAsDefined) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_modes");
  std::mt19937_64 rng(seed);
  const std::string k = h.kernel_named("tma_box");
  int swizzles_seen = 0, ranks_seen = 0;
  for (int iter = 0; iter < 48; ++iter) {
    const bool store = iter % 2 == 0;  // stores use unit element strides
    const BoxCase b = random_case(rng, store);
    SCOPED_TRACE(b.describe());
    swizzles_seen |= 1 << int(b.swizzle);
    ranks_seen |= 1 << b.rank;
    const std::vector<uint8_t> tensor = random_bytes(rng, b.tensor_bytes());
    const uint64_t in = h.upload(tensor, "in");
    const uint64_t out = h.alloc(b.tensor_bytes(), "out");  // poisoned
    const uint64_t dump = h.alloc(b.image_bytes(), "smem_dump");
    Coords c;
    std::memcpy(c.c, b.coords, sizeof c.c);
    RunResult r = h.launch(k, {1}, {32}, h.params(k, encode(b, in), encode(b, out), int32_t(b.rank), c,
                                                     b.image_bytes(), dump, int32_t(store)),
                           0, nullptr, seed + iter);
    KTEST_EXPECT_COMPLETED(r);
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
    EXPECT_TRUE(compare_exact("shared-memory image", h.download<uint8_t>(dump, b.image_bytes()), expected_image(b, tensor)));
    if (store) {
      const std::vector<uint8_t> poisoned(b.tensor_bytes(), kPoison);
      EXPECT_TRUE(compare_exact("stored tensor", h.download<uint8_t>(out, b.tensor_bytes()),
                                expected_store(b, tensor, poisoned)));
    }
    if (HasFailure()) break;
  }
  std::cout << "swizzle modes seen 0x" << std::hex << swizzles_seen << ", ranks 0x" << ranks_seen << std::dec << "\n";
}

TEST_P(TmaModesTest, MulticastDeliversTheBoxToEveryCtaInTheMask) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_modes");
  std::mt19937_64 rng(seed);
  const std::string k = h.kernel_named("tma_multicast");
  for (uint32_t cluster : {2u, 4u}) {
    BoxCase b;
    b.rank = 2;
    b.esize = 4;
    b.swizzle = tmap::Swizzle::k128B;
    b.box[0] = 32;
    b.box[1] = 8;
    b.dims[0] = 100;
    b.dims[1] = 20;
    b.strides[0] = 400;
    b.coords[0] = int32_t(rng() % 90) - 10;
    b.coords[1] = int32_t(rng() % 20) - 4;
    const uint16_t mask = cluster == 2 ? 0x3 : uint16_t(0x1 | (rng() % 2 ? 0x4 : 0xA));  // rank 0 always receives
    SCOPED_TRACE(b.describe() + " cluster " + std::to_string(cluster) + " mask " + std::to_string(mask));
    const std::vector<uint8_t> tensor = random_bytes(rng, b.tensor_bytes());
    const uint64_t in = h.upload(tensor, "in");
    const uint64_t dumps = h.alloc(size_t(cluster) * b.image_bytes(), "dumps");
    LaunchConfig cfg;
    cfg.grid = {cluster, 1, 1};
    cfg.block = {64, 1, 1};
    cfg.cluster = {cluster, 1, 1};
    cfg.cluster_given = true;
    cfg.schedule_seed = seed;
    RunResult r = ptxsim::launch(h.program(), k, cfg,
                                 h.params(k, encode(b, in), b.coords[0], b.coords[1], b.image_bytes(), mask, dumps),
                                 h.memory(), nullptr);
    KTEST_EXPECT_COMPLETED(r);
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
    const std::vector<uint8_t> want = expected_image(b, tensor);
    const std::vector<uint8_t> got = h.download<uint8_t>(dumps, size_t(cluster) * b.image_bytes());
    for (uint32_t rank = 0; rank < cluster; ++rank) {
      std::vector<uint8_t> part(got.begin() + rank * b.image_bytes(), got.begin() + (rank + 1) * b.image_bytes());
      if ((mask >> rank) & 1)
        EXPECT_TRUE(compare_exact("CTA rank " + std::to_string(rank), part, want));
      else
        EXPECT_TRUE(compare_exact("CTA rank " + std::to_string(rank) + " (not in the mask, untouched)", part,
                                  std::vector<uint8_t>(b.image_bytes(), kPoison)));
    }
  }
}

struct RebindRun {
  RunResult r;
  std::vector<uint8_t> image, want_new, want_old;
};

RebindRun run_rebind(Harness& h, uint64_t seed, bool acquire) {
  std::mt19937_64 rng(seed);
  BoxCase b;
  b.rank = 2;
  b.esize = 2;
  b.box[0] = 32;
  b.box[1] = 4;
  b.dims[0] = 64;
  b.dims[1] = 8;
  b.strides[0] = 128;
  b.coords[0] = 16;
  b.coords[1] = 2;
  const std::vector<uint8_t> old_t = random_bytes(rng, b.tensor_bytes()), new_t = random_bytes(rng, b.tensor_bytes());
  const uint64_t old_a = h.upload(old_t, "old"), new_a = h.upload(new_t, "new");
  const tmap::CUtensorMap m = encode(b, old_a);
  const uint64_t gmap = h.upload(std::vector<tmap::CUtensorMap>{m}, "tensor map");
  const uint64_t dump = h.alloc(b.image_bytes(), "smem_dump");
  const std::string k = h.kernel_named("tma_rebind");
  RebindRun run;
  run.r = h.launch(k, {1}, {32}, h.params(k, gmap, new_a, b.coords[0], b.coords[1], b.image_bytes(), int32_t(acquire), dump),
                   0, nullptr, seed);
  run.image = h.download<uint8_t>(dump, b.image_bytes());
  run.want_new = expected_image(b, new_t);
  run.want_old = expected_image(b, old_t);
  return run;
}

TEST_P(TmaModesTest, RebindWithReleaseAndAcquireLoadsFromTheNewAddress) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_modes");
  RebindRun run = run_rebind(h, seed, true);
  KTEST_EXPECT_COMPLETED(run.r);
  EXPECT_TRUE(run.r.diagnostics.empty()) << describe(run.r);
  EXPECT_TRUE(compare_exact("image", run.image, run.want_new));
}

TEST_P(TmaModesTest, RebindWithoutTheAcquireFenceIsReported) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_modes");
  RebindRun run = run_rebind(h, seed, false);
  KTEST_EXPECT_COMPLETED(run.r);
  bool found = false;
  for (const auto& d : run.r.diagnostics)
    if (d.severity == Diagnostic::Severity::Warning &&
        d.message.find("used without fence.proxy.tensormap::generic acquire in this CTA") != std::string::npos)
      found = true;
  EXPECT_TRUE(found) << describe(run.r);
}

TEST_P(TmaModesTest, BulkCopyRoundTrip) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "tma_modes");
  std::mt19937_64 rng(seed);
  for (uint32_t bytes : {16u, 48u, 4096u, 16u * uint32_t(1 + rng() % 1024)}) {
    const std::vector<uint8_t> src = random_bytes(rng, bytes);
    const uint64_t s = h.upload(src, "src"), d = h.alloc(bytes + 16, "dst");
    RunResult r = h.launch("bulk_roundtrip", {1}, {32}, h.params("bulk_roundtrip", s, d, bytes), 0, nullptr, seed);
    KTEST_EXPECT_COMPLETED(r);
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
    std::vector<uint8_t> want = src;
    want.insert(want.end(), 16, kPoison);  // nothing past the copy
    EXPECT_TRUE(compare_exact("dst (" + std::to_string(bytes) + " bytes)", h.download<uint8_t>(d, bytes + 16), want));
  }
}

KTEST_INSTANTIATE(TmaModesTest);

}  // namespace
}  // namespace ptxsim::ktest
