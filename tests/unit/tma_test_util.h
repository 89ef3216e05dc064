// Helpers for the TMA / bulk-copy / tensormap engine tests: build a parameter buffer, launch a PTX
// kernel, encode tensor maps with the driver-equivalent encoder, and an independent reference of
// what a tiled TMA load puts in shared memory.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "model/tensormap/encoder.h"
#include "sim/api.h"

namespace tma_test {

namespace tmap = ptxsim::model::tmap;

// A seed from PTXSIM_TEST_SEED or the random device; printed by the caller with SCOPED_TRACE.
inline uint64_t test_seed() {
  if (const char* s = std::getenv("PTXSIM_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
}

// Kernel parameters laid out by appending values at their alignment.
struct Params {
  std::vector<uint8_t> bytes;
  template <class T>
  Params& add(const T& v, size_t align = sizeof(T)) {
    bytes.resize((bytes.size() + align - 1) / align * align);
    size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
    return *this;
  }
  Params& add_bytes(const void* p, size_t n, size_t align) {
    bytes.resize((bytes.size() + align - 1) / align * align);
    size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
    return *this;
  }
};

struct Launched {
  ptxsim::RunResult result;
  std::string printf_out;
  bool has_warning(const std::string& text) const {
    for (const auto& d : result.diagnostics)
      if (d.severity == ptxsim::Diagnostic::Severity::Warning && d.message.find(text) != std::string::npos) return true;
    return false;
  }
  size_t warning_count() const {
    size_t n = 0;
    for (const auto& d : result.diagnostics) n += d.severity == ptxsim::Diagnostic::Severity::Warning;
    return n;
  }
  std::string all_diagnostics() const {
    std::string s;
    for (const auto& d : result.diagnostics) s += d.format() + "\n";
    return s + result.report;
  }
};

inline Launched launch(const std::string& ptx, ptxsim::model::GlobalMemory& mem, const Params& p, ptxsim::Dim3 grid,
                  ptxsim::Dim3 block, ptxsim::Dim3 cluster = {1, 1, 1}, uint64_t seed = 0,
                  const std::string& kernel = "k", bool racecheck = false) {
  auto prog = ptxsim::load_program(ptx, "tma.ptx");
  ptxsim::LaunchConfig cfg;
  cfg.racecheck = racecheck;
  cfg.grid = grid;
  cfg.block = block;
  cfg.cluster = cluster;
  cfg.cluster_given = cluster.count() > 1;
  cfg.schedule_seed = seed;
  cfg.max_instructions = 400'000'000;
  std::ostringstream out;
  Launched r;
  r.result = ptxsim::launch(*prog, kernel, cfg, p.bytes, mem, &out);
  r.printf_out = out.str();
  return r;
}

// Every occurrence of `from` in `s` replaced by `to` (fills the placeholders of the PTX templates).
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// The "ready"/"go" handshake of the 4-CTA multicast kernels (a line READY_GO_HANDSHAKE in the
// kernel). Nothing may be multicast into a CTA before its barriers exist: every CTA initialises
// `full` (armed for `tx_bytes`) and `go`, then arrives on CTA 0's `ready` (count 4); CTA 0 (which the
// engine starts first, so `ready` exists before the others arrive) waits for all four and releases
// every CTA through its `go`. Expects %r2 = %cluster_ctarank, %r3 = full, %r4 = ready, %r14 = go;
// writes %r5, %r6, %p2..%p4.
inline std::string with_ready_go_handshake(const std::string& kernel, uint32_t tx_bytes) {
  static const char* kHandshake = R"(  setp.ne.u32 %p4, %r2, 0;
  @%p4 bra $not0;
  mbarrier.init.shared::cta.b64 [%r4], 4;
$not0:
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.init.shared::cta.b64 [%r14], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], TX_BYTES;
  mov.u32 %r5, 0;
  mapa.shared::cluster.u32 %r6, %r4, %r5;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  @%p4 bra $wait_go;
$wait_ready:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r4], 0;
  @!%p3 bra $wait_ready;
$release:
  mapa.shared::cluster.u32 %r6, %r14, %r5;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, 4;
  @%p2 bra $release;
$wait_go:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r14], 0;
  @!%p3 bra $wait_go;
)";
  return replace_all(kernel, "  READY_GO_HANDSHAKE\n", replace_all(kHandshake, "TX_BYTES", std::to_string(tx_bytes)));
}

inline std::string hex_addr(uint64_t a) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)a);
  return b;
}

// A global buffer filled with poison (0xAB) or given bytes.
inline uint64_t alloc(ptxsim::model::GlobalMemory& mem, size_t n, const std::string& name, uint8_t fill = 0xAB) {
  uint64_t a = mem.allocate(n, 256, name);
  std::vector<uint8_t> v(n, fill);
  mem.write(a, v.data(), n);
  return a;
}
// A global buffer holding the n bytes at `data`.
inline uint64_t upload(ptxsim::model::GlobalMemory& mem, const void* data, size_t n, const std::string& name) {
  uint64_t a = mem.allocate(n, 256, name);
  mem.write(a, data, n);
  return a;
}
inline std::vector<uint8_t> read(ptxsim::model::GlobalMemory& mem, uint64_t a, size_t n) {
  std::vector<uint8_t> v(n);
  mem.read(a, v.data(), n);
  return v;
}

inline tmap::CUtensorMap encode(tmap::DataType t, uint32_t rank, uint64_t addr, const std::vector<uint64_t>& dims,
                                const std::vector<uint64_t>& strides, const std::vector<uint32_t>& box,
                                const std::vector<uint32_t>& es, tmap::Swizzle sw = tmap::Swizzle::kNone,
                                tmap::OobFill oob = tmap::OobFill::kNone) {
  tmap::CUtensorMap m;
  auto e = tmap::encode_tiled(&m, t, rank, addr, dims.data(), strides.empty() ? nullptr : strides.data(), box.data(),
                              es.data(), tmap::Interleave::kNone, sw, tmap::L2Promotion::kNone, oob);
  EXPECT_TRUE(e.ok()) << e.message;
  return m;
}

// ---- independent reference of a tiled load (no interleave, plain types) ----------------------

// Where byte `a` of shared memory goes under each swizzle, written as PTX 5.5.7 / the CUDA
// programming guide describe it: within each 128-byte line, atoms of 16 (or 32 / 64) bytes are
// permuted by XOR with the line's index modulo the pattern's rows; the 8-byte flip swaps the halves
// of 16-byte pieces on odd lines.
inline uint32_t ref_swizzle(tmap::Swizzle s, uint32_t a) {
  const uint32_t line = a / 128, in = a % 128, base = a - in;
  auto permute = [&](uint32_t atom, uint32_t rows) {
    uint32_t idx = in / atom, rest = in % atom;
    return base + ((idx ^ (line % rows)) * atom) + rest;
  };
  switch (s) {
    case tmap::Swizzle::kNone: return a;
    case tmap::Swizzle::k32B: {  // 16-byte chunks within each 32 bytes: rows 0/1
      uint32_t span = in / 32, c = (in % 32) / 16, r = in % 16;
      return base + span * 32 + ((c ^ (line % 2)) * 16) + r;
    }
    case tmap::Swizzle::k64B: {
      uint32_t span = in / 64, c = (in % 64) / 16, r = in % 16;
      return base + span * 64 + ((c ^ (line % 4)) * 16) + r;
    }
    case tmap::Swizzle::k128B: return permute(16, 8);
    case tmap::Swizzle::k128BAtom32B: return permute(32, 4);
    case tmap::Swizzle::k128BAtom32BFlip8B: {
      uint32_t b = permute(32, 4);
      return (line % 2) ? (b ^ 8u) : b;
    }
    case tmap::Swizzle::k128BAtom64B: return permute(64, 2);
  }
  return a;
}

struct TileSpec {
  uint32_t esize = 4;
  uint32_t rank = 1;
  std::vector<uint64_t> dims;     // elements
  std::vector<uint64_t> strides;  // bytes, dims 1..rank-1
  std::vector<uint32_t> box, es;
  tmap::Swizzle sw = tmap::Swizzle::kNone;
  bool nan_fill = false;
  std::vector<int32_t> coords;
};

inline uint64_t ref_image_bytes(const TileSpec& t) {
  uint64_t n = uint64_t(t.box[0]) * t.esize;
  for (uint32_t i = 1; i < t.rank; ++i) n *= (t.box[i] + t.es[i] - 1) / t.es[i];
  return n;
}

// Applies the load to `smem` (indexed by shared address), dst = shared address of dstMem.
inline void ref_tile_load(const TileSpec& t, const std::vector<uint8_t>& gmem, std::vector<uint8_t>& smem,
                          uint32_t dst) {
  uint32_t L[5] = {1, 1, 1, 1, 1};
  L[0] = t.box[0];
  for (uint32_t i = 1; i < t.rank; ++i) L[i] = (t.box[i] + t.es[i] - 1) / t.es[i];
  uint64_t count = 1;
  for (uint32_t i = 0; i < t.rank; ++i) count *= L[i];
  for (uint64_t e = 0; e < count; ++e) {
    uint64_t rem = e, j[5] = {0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < t.rank; ++i) {
      j[i] = rem % L[i];
      rem /= L[i];
    }
    bool in = true;
    uint64_t off = 0;
    for (uint32_t i = 0; i < t.rank; ++i) {
      int64_t g = int64_t(t.coords[i]) + int64_t(j[i]) * (i == 0 ? 1 : t.es[i]);
      if (g < 0 || uint64_t(g) >= t.dims[i]) in = false;
      else off += i == 0 ? uint64_t(g) * t.esize : uint64_t(g) * t.strides[i - 1];
    }
    uint64_t img = e * t.esize;
    for (uint32_t b = 0; b < t.esize; ++b) {
      // The OOB-NaN fill is 0x7FF7 in every 16 bits, little-endian (an H200's).
      uint8_t v = in ? gmem[off + b] : (t.nan_fill ? ((img + b) % 2 ? 0x7F : 0xF7) : 0x00);
      smem[ref_swizzle(t.sw, uint32_t(dst + img + b))] = v;
    }
  }
}

}  // namespace tma_test
