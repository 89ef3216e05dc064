// A simulated 1024 x 1024 x 1024 bf16 GEMM (f32 accumulate, bit-exact sm_90 wgmma numerics) through
// the matrix hot path tc::mma_tile, in the tile shape wgmma uses (m64n256k16 steps, C chained), and
// an Eigen float GEMM of the same size in the same run; prints both times and their ratio.
// When the kernel tests' PTX for tests/kernels/wgmma_gemm.cu is built, the same GEMM also runs
// through the engine: wgmma_gemm_bf16 (64 x 64 tiles, 128B-swizzled shared memory, four
// m64n64k16 wgmma per 64-wide K block), and its result must equal the mma_tile result bit for bit.
// The TMA-fed variants of both kernels (wgmma_gemm_bf16_tma, tc5_gemm_bf16_tma: the way CUTLASS feeds
// them) run too. Single-threaded (Eigen is asked for one thread).
// Usage: ptxsim_gemm_bench [size [wgmma|wgmma_tma|tcgen05|tcgen05_tma|none]]
// (the second argument runs only that engine GEMM, or none, after the mma_tile one; for profiling).
#include <Eigen/Dense>

#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <fstream>
#include <sstream>
#include <string>

#include "model/memory/global_memory.h"
#include "model/tensormap/encoder.h"
#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"
#include "sim/api.h"

namespace tc = ptxsim::model::tc;

// CPU time of this thread: the machine may be shared, so wall time alone would flatter Eigen.
static double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// A 2-D tensor map over an S x S bf16 matrix at `addr` (dims {K, rows}), box {64, box_rows}, 128B
// swizzle: what the TMA-fed kernels' tests give them.
static ptxsim::model::tmap::CUtensorMap tensor_map(uint64_t addr, int S, uint32_t box_rows) {
  ptxsim::model::tmap::CUtensorMap map{};
  const auto r = ptxsim::model::tmap::encode_bf16_sw128_tiles(&map, addr, uint64_t(S), uint64_t(S), box_rows);
  if (!r.ok()) {
    std::fprintf(stderr, "tensor map: %s\n", r.message.c_str());
    std::exit(2);
  }
  return map;
}

// Runs `kernel` of the PTX file at `path` on A and Bt (bf16 bits) through the engine and checks that
// D is bit-identical to the mma_tile result. Its params: a, bt, d as u64, then ints S, S, S; or, with
// tma_box_rows > 0, tensor maps over A and Bt (box {64, tma_box_rows}) in place of a and bt.
[[maybe_unused]] static bool run_engine(const char* path, const char* kernel, const char* what, ptxsim::Dim3 grid, int S,
                                        uint32_t tma_box_rows, const std::vector<uint32_t>& A,
                                        const std::vector<uint32_t>& Bt, const std::vector<uint32_t>& D,
                                        double eigen_cpu) {
  std::ifstream f(path);
  if (!f) {
    std::printf("  engine: %s not built; skipped\n", path);
    return true;
  }
  std::stringstream text;
  text << f.rdbuf();
  auto prog = ptxsim::load_program(text.str(), path);
  ptxsim::model::GlobalMemory mem;
  std::vector<uint16_t> A16(A.size()), B16(Bt.size());
  for (size_t i = 0; i < A.size(); ++i) A16[i] = uint16_t(A[i]);
  for (size_t i = 0; i < Bt.size(); ++i) B16[i] = uint16_t(Bt[i]);
  const uint64_t da = mem.allocate(A16.size() * 2), db = mem.allocate(B16.size() * 2), dc = mem.allocate(D.size() * 4);
  mem.write(da, A16.data(), A16.size() * 2);
  mem.write(db, B16.data(), B16.size() * 2);
  ptxsim::KernelInfo info;
  for (const auto& k : ptxsim::kernels(*prog))
    if (k.name == kernel) info = k;
  std::vector<uint8_t> params(info.param_bytes, 0);
  const uint64_t args64[3] = {da, db, dc};
  const int32_t args32[3] = {S, S, S};
  ptxsim::model::tmap::CUtensorMap maps[2];
  if (tma_box_rows) maps[0] = tensor_map(da, S, tma_box_rows), maps[1] = tensor_map(db, S, tma_box_rows);
  for (size_t i = 0; i < info.params.size(); ++i)
    std::memcpy(params.data() + info.params[i].offset,
                i < 2 && tma_box_rows ? static_cast<const void*>(&maps[i])
                : i < 3               ? static_cast<const void*>(&args64[i])
                                      : &args32[i - 3],
                info.params[i].size);
  ptxsim::LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block.x = 128;
  cfg.max_seconds = 600;
  // One host thread: the CPU time below is this thread's, and Eigen runs on one (a launch's
  // default, every core, would leave the other threads' share of the work uncounted).
  cfg.threads = 1;
  const double e0 = thread_cpu_seconds();
  const auto w0 = std::chrono::steady_clock::now();
  const ptxsim::RunResult r = ptxsim::launch(*prog, info.name, cfg, params, mem);
  const double e1 = thread_cpu_seconds();
  const double ew = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::vector<uint32_t> E(D.size());
  mem.read(dc, E.data(), E.size() * 4);
  const bool same = r.status == ptxsim::RunStatus::Completed && E == D;
  std::printf("  engine (%s): %.3f s CPU, %.3f s wall, ratio to Eigen %.1fx, %s\n", what, e1 - e0, ew,
              (e1 - e0) / eigen_cpu, same ? "bit-identical to mma_tile" : "MISMATCH or failed run");
  if (!r.diagnostics.empty()) std::printf("  %s\n", r.diagnostics[0].format().c_str());
  return same;
}

int main(int argc, char** argv) {
  const char* usage = "usage: ptxsim_gemm_bench [size [wgmma|wgmma_tma|tcgen05|tcgen05_tma|none]]\n"
                      "  size: a positive multiple of 256 up to 8192 (default 1024)\n";
  if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
    std::fprintf(stderr, "%s", usage);
    return argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) ? 0 : 2;
  }
  int S = 1024;
  if (argc > 1) {
    char* end = nullptr;
    const long v = std::strtol(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end != '\0' || v < 256 || v > 8192 || v % 256 != 0) {
      std::fprintf(stderr, "ptxsim_gemm_bench: size '%s' is not a positive multiple of 256 up to 8192\n%s", argv[1],
                   usage);
      return 2;
    }
    S = int(v);
  }
  const std::string only = argc > 2 ? argv[2] : "";
  if (!only.empty() && only != "wgmma" && only != "wgmma_tma" && only != "tcgen05" && only != "tcgen05_tma" &&
      only != "none") {
    std::fprintf(stderr, "ptxsim_gemm_bench: unknown engine GEMM '%s'\n%s", only.c_str(), usage);
    return 2;
  }
  const int TM = 64, TN = 256, TK = 16;
  Eigen::setNbThreads(1);
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // Inputs as bf16 bit patterns (and the same values as floats for Eigen).
  std::vector<uint32_t> A(size_t(S) * S), Bt(size_t(S) * S);
  Eigen::MatrixXf EA(S, S), EB(S, S);
  auto bf16 = [&](float f, float& back) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u &= 0xFFFF0000u;
    std::memcpy(&back, &u, 4);
    return u >> 16;
  };
  for (int i = 0; i < S; ++i)
    for (int k = 0; k < S; ++k) {
      float v;
      A[size_t(i) * S + size_t(k)] = bf16(dist(rng), v);
      EA(i, k) = v;
      Bt[size_t(i) * S + size_t(k)] = bf16(dist(rng), v);  // Bt[n][k] = B[k][n]
      EB(k, i) = v;
    }
  const tc::DotModel* model = tc::find_model(tc::Arch::SM90, tc::Unit::Wgmma, tc::ElemFmt::BF16, tc::ElemFmt::BF16,
                                             tc::AccFmt::F32);
  std::vector<uint32_t> D(size_t(S) * S, 0);

  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  const uint64_t narrow0 = tc::narrow_blocks_done();
  std::vector<uint32_t> a(size_t(TM) * TK), b(size_t(TN) * TK), c(size_t(TM) * TN);
  for (int m0 = 0; m0 < S; m0 += TM)
    for (int n0 = 0; n0 < S; n0 += TN) {
      std::fill(c.begin(), c.end(), 0u);
      for (int k0 = 0; k0 < S; k0 += TK) {
        for (int i = 0; i < TM; ++i)
          std::memcpy(&a[size_t(i) * TK], &A[size_t(m0 + i) * S + size_t(k0)], TK * 4);
        for (int j = 0; j < TN; ++j)
          std::memcpy(&b[size_t(j) * TK], &Bt[size_t(n0 + j) * S + size_t(k0)], TK * 4);
        tc::mma_tile(*model, tc::ElemFmt::BF16, tc::ElemFmt::BF16, TM, TN, TK, a.data(), b.data(), c.data(), c.data());
      }
      for (int i = 0; i < TM; ++i) std::memcpy(&D[size_t(m0 + i) * S + size_t(n0)], &c[size_t(i) * TN], TN * 4);
    }
  const auto t1 = std::chrono::steady_clock::now();
  const double c1 = thread_cpu_seconds();
  const double narrow_share = double(tc::narrow_blocks_done() - narrow0) * 8 / (double(S) * S * double(S / TK));
  Eigen::MatrixXf EC = EA * EB;
  const auto t2 = std::chrono::steady_clock::now();
  const double c2 = thread_cpu_seconds();

  const double sim = std::chrono::duration<double>(t1 - t0).count();
  const double eig = std::chrono::duration<double>(t2 - t1).count();
  // Sanity: the simulated result is close to the float GEMM (different rounding, same math).
  double max_err = 0;
  for (int i = 0; i < S; i += 37)
    for (int j = 0; j < S; j += 41) {
      float f;
      std::memcpy(&f, &D[size_t(i) * S + size_t(j)], 4);
      max_err = std::max(max_err, double(std::abs(f - EC(i, j))));
    }
  std::printf("bf16 GEMM %dx%dx%d (sm_90 wgmma numerics, m64n256k16 tiles)\n", S, S, S);
#if defined(__x86_64__) && defined(__GNUC__)
  // mma_tile's lane loops have x86-64-v3 (AVX2) and -v4 (AVX-512) builds, chosen at run time
  // (model/tensorcore/tile.cpp). Eigen is compiled for the baseline x86-64 ISA (SSE2), as the
  // project's default build leaves it.
  std::printf("  processor: mma_tile runs its %s build; Eigen its baseline (SSE2) build\n",
              tc::lane_isa_name(tc::lanes_isa()));
#endif
  std::printf("  ptxsim mma_tile: %.3f s CPU, %.3f s wall (%.1f ns CPU per multiply-add)\n", c1 - c0, sim,
              (c1 - c0) * 1e9 / (double(S) * S * S));
  std::printf("  outputs of mma_tile calls finished in the single-precision lanes: %.1f %%\n", 100 * narrow_share);
  std::printf("  Eigen float:     %.3f s CPU, %.3f s wall\n", c2 - c1, eig);
  std::printf("  ratio ptxsim / Eigen: %.1fx (CPU time)\n", (c1 - c0) / (c2 - c1));
  std::printf("  max |ptxsim - Eigen| over samples: %.3g\n", max_err);
  bool ok = max_err < 1e-2 * S;
#ifdef PTXSIM_WGMMA_PTX
  if (only.empty() || only == "wgmma")
    ok = run_engine(PTXSIM_WGMMA_PTX, "wgmma_gemm_bf16", "wgmma.mma_async m64n64k16 kernel, operands staged by threads",
                    {uint32_t(S / 64), uint32_t(S / 64), 1}, S, 0, A, Bt, D, c2 - c1) && ok;
  if (only.empty() || only == "wgmma_tma")
    ok = run_engine(PTXSIM_WGMMA_PTX, "wgmma_gemm_bf16_tma", "wgmma.mma_async m64n64k16 kernel, TMA-fed",
                    {uint32_t(S / 64), uint32_t(S / 64), 1}, S, 64, A, Bt, D, c2 - c1) && ok;
#endif
#ifdef PTXSIM_TCGEN05_PTX
  if (only.empty() || only == "tcgen05")
    ok = run_engine(PTXSIM_TCGEN05_PTX, "tc5_gemm_bf16_tiled", "tcgen05.mma kind::f16 m128n128k16 kernel, operands staged by threads",
                    {uint32_t(S / 128), uint32_t(S / 128), 1}, S, 0, A, Bt, D, c2 - c1) && ok;
  if (only.empty() || only == "tcgen05_tma")
    ok = run_engine(PTXSIM_TCGEN05_PTX, "tc5_gemm_bf16_tma", "tcgen05.mma kind::f16 m128n128k16 kernel, TMA-fed",
                    {uint32_t(S / 128), uint32_t(S / 128), 1}, S, 128, A, Bt, D, c2 - c1) && ok;
#endif
  return ok ? 0 : 1;
}
