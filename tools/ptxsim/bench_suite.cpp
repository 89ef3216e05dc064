#include "tools/ptxsim/bench_suite.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "model/tensormap/encoder.h"

namespace ptxsim::cli::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Helpers: deterministic inputs, device buffers, parameter buffers, comparisons.

// A fixed-seed splitmix64: the same inputs on every platform (std::uniform_*_distribution is not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * 0x1p-24f; }
  int small_int() { return int(next() % 17) - 8; }  // -8 .. 8

 private:
  uint64_t s_;
};

constexpr uint8_t kPoison = 0xFF;  // unwritten f32 outputs read as NaN, u32 as 0xFFFFFFFF

uint64_t alloc(model::GlobalMemory& m, size_t bytes, const std::string& name) {
  const uint64_t a = m.allocate(bytes, 256, name);
  const std::vector<uint8_t> poison(bytes, kPoison);
  m.write(a, poison.data(), bytes);
  return a;
}

template <class T>
uint64_t upload(model::GlobalMemory& m, const std::vector<T>& v, const std::string& name) {
  const uint64_t a = m.allocate(v.size() * sizeof(T), 256, name);
  m.write(a, v.data(), v.size() * sizeof(T));
  return a;
}

template <class T>
std::vector<T> download(model::GlobalMemory& m, uint64_t addr, size_t n) {
  std::vector<T> v(n);
  if (!m.read(addr, v.data(), n * sizeof(T))) throw std::runtime_error("cannot read back a result buffer");
  return v;
}

// The parameter buffer of `kernel`, one value per declared parameter (sizes must match).
template <class... Args>
std::vector<uint8_t> params(const Program& program, const std::string& kernel, const Args&... args) {
  const std::pair<const void*, size_t> raw[] = {{static_cast<const void*>(&args), sizeof(Args)}...};
  for (const KernelInfo& k : kernels(program)) {
    if (k.name != kernel) continue;
    if (k.params.size() != sizeof...(Args))
      throw std::runtime_error(kernel + ": " + std::to_string(k.params.size()) + " parameters declared, " +
                               std::to_string(sizeof...(Args)) + " given");
    std::vector<uint8_t> buf(k.param_bytes, 0);
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (k.params[i].size != raw[i].second)
        throw std::runtime_error(kernel + ": parameter " + k.params[i].name + " has " +
                                 std::to_string(k.params[i].size) + " bytes, the value " +
                                 std::to_string(raw[i].second));
      std::memcpy(buf.data() + k.params[i].offset, raw[i].first, raw[i].second);
    }
    return buf;
  }
  throw std::runtime_error("the module has no kernel " + kernel);
}

Launch launch_of(std::string kernel, Dim3 grid, Dim3 block, std::vector<uint8_t> p) {
  Launch l;
  l.kernel = std::move(kernel);
  l.config.grid = grid;
  l.config.block = block;
  l.config.max_seconds = 3600;  // a slow or loaded machine must not turn a benchmark into a timeout
  l.params = std::move(p);
  return l;
}

std::string show(float v) {
  std::ostringstream os;
  os << v << " (0x" << std::hex << std::bit_cast<uint32_t>(v) << ")";
  return os.str();
}
std::string show(uint32_t v) { return std::to_string(v); }

bool same(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }
bool same(uint32_t a, uint32_t b) { return a == b; }

// "" when equal (floats bit for bit), else the first difference and how many. `cols` > 0 names
// elements as [row][col].
template <class T>
std::string compare(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, size_t cols = 0) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!same(got[i], want[i]) && bad++ == 0) first = i;
  if (!bad) return "";
  std::ostringstream os;
  os << what << ": " << bad << " of " << want.size() << " elements differ; first " << what;
  if (cols)
    os << "[" << first / cols << "][" << first % cols << "]";
  else
    os << "[" << first << "]";
  os << " = " << show(got[first]) << ", expected " << show(want[first]);
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// a. saxpy + shared-memory block reduction (bench/kernels/saxpy_reduce.cu).

class SaxpyReduce : public Case {
 public:
  explicit SaxpyReduce(int n) : n_(n), blocks_(std::max(1, n / (256 * 4))) {
    Rng rng(1);
    x_.resize(size_t(n));
    y_.resize(size_t(n));
    for (float& v : x_) v = rng.uniform(-1, 1);
    for (float& v : y_) v = rng.uniform(-1, 1);
    y_want_.resize(size_t(n));
    for (int i = 0; i < n; ++i) y_want_[size_t(i)] = std::fma(a_, x_[size_t(i)], y_[size_t(i)]);
    // block_sum's order: per-thread strided sums, the shared-memory tree down to 32, then shfl.down.
    partial_want_.resize(size_t(blocks_));
    for (int b = 0; b < blocks_; ++b) {
      float s[256];
      for (int t = 0; t < 256; ++t) {
        float acc = 0.0f;
        for (int i = b * 256 + t; i < n; i += blocks_ * 256) acc += y_want_[size_t(i)];
        s[t] = acc;
      }
      for (int h = 128; h >= 32; h /= 2)
        for (int t = 0; t < h; ++t) s[t] += s[t + h];
      for (int h = 16; h >= 1; h /= 2) {
        float v[32];
        for (int t = 0; t < 32; ++t) v[t] = s[t] + (t + h < 32 ? s[t + h] : s[t]);
        std::memcpy(s, v, sizeof v);
      }
      partial_want_[size_t(b)] = s[0];
    }
  }
  std::string problem() const override {
    return std::to_string(n_) + " floats, " + std::to_string(blocks_) + " block sums";
  }
  std::vector<Launch> setup(const Program& p, model::GlobalMemory& m) override {
    const uint64_t dx = upload(m, x_, "x");
    dy_ = upload(m, y_, "y");
    dpartial_ = alloc(m, size_t(blocks_) * 4, "partial");
    return {launch_of("saxpy", {uint32_t((n_ + 255) / 256)}, {256}, params(p, "saxpy", n_, a_, dx, dy_)),
            launch_of("block_sum", {uint32_t(blocks_)}, {256}, params(p, "block_sum", n_, dy_, dpartial_))};
  }
  std::string check(model::GlobalMemory& m) override {
    std::string e = compare("y", download<float>(m, dy_, size_t(n_)), y_want_);
    if (e.empty()) e = compare("partial", download<float>(m, dpartial_, size_t(blocks_)), partial_want_);
    return e;
  }

 private:
  int n_, blocks_;
  float a_ = 1.75f;
  std::vector<float> x_, y_, y_want_, partial_want_;
  uint64_t dy_ = 0, dpartial_ = 0;
};

// ---------------------------------------------------------------------------------------------
// b, c. f32 GEMM, naive and shared-memory tiled (bench/kernels/sgemm.cu): both accumulate with
// fma in k order, so the CPU's std::fma chain is the exact reference.

class Sgemm : public Case {
 public:
  Sgemm(std::string kernel, int s) : kernel_(std::move(kernel)), s_(s) {
    Rng rng(2);
    const size_t n = size_t(s) * size_t(s);
    a_.resize(n);
    b_.resize(n);
    for (float& v : a_) v = rng.uniform(-1, 1);
    for (float& v : b_) v = rng.uniform(-1, 1);
    want_.resize(n);
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < s; ++j) {
        float c = 0.0f;
        for (int k = 0; k < s; ++k) c = std::fma(a_[size_t(i) * s + k], b_[size_t(k) * s + j], c);
        want_[size_t(i) * s + j] = c;
      }
  }
  std::string problem() const override {
    return std::to_string(s_) + "x" + std::to_string(s_) + "x" + std::to_string(s_) + " f32";
  }
  uint64_t multiply_adds() const override { return uint64_t(s_) * uint64_t(s_) * uint64_t(s_); }
  std::vector<Launch> setup(const Program& p, model::GlobalMemory& m) override {
    const uint64_t da = upload(m, a_, "A"), db = upload(m, b_, "B");
    dc_ = alloc(m, want_.size() * 4, "C");
    const uint32_t g = uint32_t(s_ / 16);
    return {launch_of(kernel_, {g, g}, {16, 16}, params(p, kernel_, da, db, dc_, s_, s_, s_))};
  }
  std::string check(model::GlobalMemory& m) override {
    return compare("C", download<float>(m, dc_, want_.size()), want_, size_t(s_));
  }

 private:
  std::string kernel_;
  int s_;
  std::vector<float> a_, b_, want_;
  uint64_t dc_ = 0;
};

// ---------------------------------------------------------------------------------------------
// d. Collatz steps + histogram with global atomics (bench/kernels/collatz_hist.cu).

class CollatzHist : public Case {
 public:
  explicit CollatzHist(int n) : n_(n) {
    Rng rng(3);
    x_.resize(size_t(n));
    for (uint32_t& v : x_) v = 1 + uint32_t(rng.next() % ((1u << 20) - 1));  // 1 .. 2^20 - 1
    steps_want_.resize(size_t(n));
    hist_want_.assign(size_t(kBins), 0);
    for (int i = 0; i < n; ++i) {
      uint64_t v = x_[size_t(i)];
      uint32_t s = 0;
      while (v > 1) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        ++s;
      }
      steps_want_[size_t(i)] = s;
      ++hist_want_[s < kBins ? s : kBins - 1];
    }
  }
  std::string problem() const override {
    return std::to_string(n_) + " starts < 2^20, " + std::to_string(kBins) + " bins";
  }
  std::vector<Launch> setup(const Program& p, model::GlobalMemory& m) override {
    const uint64_t dx = upload(m, x_, "x");
    dsteps_ = alloc(m, size_t(n_) * 4, "steps");
    dhist_ = upload(m, std::vector<uint32_t>(size_t(kBins), 0), "hist");
    const int bins = int(kBins);
    return {launch_of("collatz_hist", {uint32_t((n_ + 255) / 256)}, {256},
                      params(p, "collatz_hist", n_, dx, dsteps_, dhist_, bins))};
  }
  std::string check(model::GlobalMemory& m) override {
    std::string e = compare("steps", download<uint32_t>(m, dsteps_, size_t(n_)), steps_want_);
    if (e.empty()) e = compare("hist", download<uint32_t>(m, dhist_, size_t(kBins)), hist_want_);
    return e;
  }

 private:
  static constexpr uint32_t kBins = 128;
  int n_;
  std::vector<uint32_t> x_, steps_want_, hist_want_;
  uint64_t dsteps_ = 0, dhist_ = 0;
};

// ---------------------------------------------------------------------------------------------
// e, f, g. bf16 GEMMs on the tensor cores: C (f32) = A (M x K) * B, B given as Bt (N x K), both
// row-major. The inputs are small integers (-8 .. 8), so every product and partial sum is an integer
// below 2^24: each MMA unit's arithmetic is exact and the integer GEMM is the reference, bit for bit.

enum class TcKernel { MmaSync, WgmmaTma, Tcgen05Tma };

class TcGemm : public Case {
 public:
  TcGemm(TcKernel kind, int s) : kind_(kind), s_(s) {
    Rng rng(4);
    const size_t n = size_t(s) * size_t(s);
    std::vector<int16_t> a(n), bt(n);
    for (int16_t& v : a) v = int16_t(rng.small_int());
    for (int16_t& v : bt) v = int16_t(rng.small_int());
    auto bf16 = [](int v) { return uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16); };  // exact
    a_.resize(n);
    bt_.resize(n);
    for (size_t i = 0; i < n; ++i) a_[i] = bf16(a[i]), bt_[i] = bf16(bt[i]);
    want_.resize(n);
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < s; ++j) {
        const int16_t* ra = &a[size_t(i) * s];
        const int16_t* rb = &bt[size_t(j) * s];
        int32_t acc = 0;
        for (int k = 0; k < s; ++k) acc += int32_t(ra[k]) * rb[k];
        want_[size_t(i) * s + j] = float(acc);
      }
  }
  std::string problem() const override {
    return std::to_string(s_) + "x" + std::to_string(s_) + "x" + std::to_string(s_) + " bf16->f32";
  }
  uint64_t multiply_adds() const override { return uint64_t(s_) * uint64_t(s_) * uint64_t(s_); }
  std::vector<Launch> setup(const Program& p, model::GlobalMemory& m) override {
    const uint64_t da = upload(m, a_, "A"), db = upload(m, bt_, "Bt");
    dc_ = alloc(m, want_.size() * 4, "C");
    const uint32_t s = uint32_t(s_);
    switch (kind_) {
      case TcKernel::MmaSync:  // 64 x 64 tiles, 4 warps
        return {launch_of("mma_sync_gemm_bf16", {s / 64, s / 64}, {128},
                          params(p, "mma_sync_gemm_bf16", da, db, dc_, s_, s_, s_))};
      case TcKernel::WgmmaTma:  // 64 x 64 tiles, one warpgroup; TMA boxes {64, 64}
        return {launch_of("wgmma_gemm_bf16_tma", {s / 64, s / 64}, {128},
                          params(p, "wgmma_gemm_bf16_tma", tensor_map(da, 64), tensor_map(db, 64), dc_, s_, s_, s_))};
      case TcKernel::Tcgen05Tma:  // 128 x 128 tiles in TMEM; TMA boxes {64, 128}
        return {launch_of("tc5_gemm_bf16_tma", {s / 128, s / 128}, {128},
                          params(p, "tc5_gemm_bf16_tma", tensor_map(da, 128), tensor_map(db, 128), dc_, s_, s_, s_))};
    }
    return {};
  }
  std::string check(model::GlobalMemory& m) override {
    return compare("C", download<float>(m, dc_, want_.size()), want_, size_t(s_));
  }

 private:
  // A 2-D tensor map over an s x s bf16 matrix: boxes {64, box_rows}, 128B swizzle.
  model::tmap::CUtensorMap tensor_map(uint64_t addr, uint32_t box_rows) const {
    model::tmap::CUtensorMap map{};
    const auto r = model::tmap::encode_bf16_sw128_tiles(&map, addr, uint64_t(s_), uint64_t(s_), box_rows);
    if (!r.ok()) throw std::runtime_error("tensor map: " + r.message);
    return map;
  }

  TcKernel kind_;
  int s_;
  std::vector<uint16_t> a_, bt_;
  std::vector<float> want_;
  uint64_t dc_ = 0;
};

}  // namespace

const std::vector<Benchmark>& benchmarks() {
  static const std::vector<Benchmark> all = {
      {"saxpy_reduce", "saxpy, then a shared-memory block reduction (bar.sync, shfl.down)", "saxpy_reduce.sm_90a",
       [](bool quick) { return std::make_unique<SaxpyReduce>(quick ? 1 << 13 : 1 << 20); }},
      {"sgemm_naive", "f32 GEMM, one thread per output, operands from global memory", "sgemm.sm_90a",
       [](bool quick) { return std::make_unique<Sgemm>("sgemm_naive", quick ? 32 : 256); }},
      {"sgemm_tiled", "f32 GEMM, 16x16 tiles staged in shared memory with __syncthreads", "sgemm.sm_90a",
       [](bool quick) { return std::make_unique<Sgemm>("sgemm_tiled", quick ? 32 : 256); }},
      {"collatz_hist", "Collatz step counts (divergent loops) and a histogram with global atomics",
       "collatz_hist.sm_90a", [](bool quick) { return std::make_unique<CollatzHist>(quick ? 1 << 10 : 1 << 16); }},
      {"mma_sync_gemm", "bf16 GEMM, sm_80 style: cp.async double buffering, ldmatrix, mma.sync m16n8k16",
       "mma_sync_gemm.sm_90a",
       [](bool quick) { return std::make_unique<TcGemm>(TcKernel::MmaSync, quick ? 64 : 256); }},
      {"wgmma_tma_gemm", "bf16 GEMM, sm_90a: TMA loads on an mbarrier, wgmma.mma_async m64n64k16",
       "wgmma_gemm.sm_90a",
       [](bool quick) { return std::make_unique<TcGemm>(TcKernel::WgmmaTma, quick ? 128 : 1024); }},
      {"tcgen05_tma_gemm", "bf16 GEMM, sm_100a: TMA loads, tcgen05.mma m128n128k16 into TMEM, tcgen05.ld",
       "tcgen05_gemm.sm_100a",
       [](bool quick) { return std::make_unique<TcGemm>(TcKernel::Tcgen05Tma, quick ? 128 : 1024); }},
  };
  return all;
}

}  // namespace ptxsim::cli::bench
