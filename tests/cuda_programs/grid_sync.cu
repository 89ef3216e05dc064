// Grid-wide barriers (cooperative_groups::this_grid().sync()) under a cooperative launch: every CTA
// of the grid is resident at once, so the barrier (global atomics and acquire loads on the
// workspace the driver passes in %envreg1/%envreg2) works. A Jacobi-style smoothing alternates two
// buffers for several rounds, each round reading neighbours other CTAs wrote in the previous one;
// without a working grid barrier it would read stale values. Also: the same kernel through
// cudaLaunchKernelExC with the cooperative attribute and through the driver's
// cuLaunchCooperativeKernel (from cudaGetDriverEntryPoint), a grid too large to be co-resident
// (cudaErrorCooperativeLaunchTooLarge), and a plain launch of a grid-syncing kernel whose grid fits
// (accepted, and its barrier works, as on an H200).
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <vector>

#include "check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

enum class Path { Runtime, LaunchEx, Driver };

namespace cg = cooperative_groups;

__global__ void smooth(int* a, int* b, int n, int rounds, int* arrivals) {
  cg::grid_group grid = cg::this_grid();
  const int i = int(grid.thread_rank());
  atomicAdd(arrivals, 1);
  for (int r = 0; r < rounds; ++r) {
    grid.sync();  // round r - 1's writes (and every arrival) are visible
    const int* in = r % 2 ? b : a;
    int* out = r % 2 ? a : b;
    if (i < n) out[i] = in[(i + n - 1) % n] + 2 * in[i] + in[(i + 1) % n] + *arrivals % 7;
  }
}

__global__ void count_then_publish(int* p) {
  cg::grid_group grid = cg::this_grid();
  atomicAdd(p, 1);
  grid.sync();
  if (grid.thread_rank() == 0) p[1] = p[0];
}

std::vector<int> reference(std::vector<int> a, int rounds, int threads) {
  const int n = int(a.size());
  std::vector<int> b(n);
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < n; ++i) b[i] = a[(i + n - 1) % n] + 2 * a[i] + a[(i + 1) % n] + threads % 7;
    std::swap(a, b);
  }
  return a;
}

bool run_smooth(std::mt19937& rng, Path path) {
  const int blocks = 2 + int(rng() % 15), threads = 32 * (1 + int(rng() % 4)), rounds = 3 + int(rng() % 4);
  const int n = blocks * threads - int(rng() % 32);
  std::printf("%s: %d CTAs of %d threads, %d elements, %d rounds\n",
              path == Path::LaunchEx ? "cudaLaunchKernelExC"
              : path == Path::Driver ? "cuLaunchCooperativeKernel"
                                     : "cudaLaunchCooperativeKernel",
              blocks, threads, n, rounds);
  std::vector<int> a(n);
  for (int& v : a) v = int(rng() % 1000);
  int *da, *db, *dcount;
  CHECK(cudaMalloc(&da, n * sizeof(int)));
  CHECK(cudaMalloc(&db, n * sizeof(int)));
  CHECK(cudaMalloc(&dcount, sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(db, 0xff, n * sizeof(int)));
  CHECK(cudaMemset(dcount, 0, sizeof(int)));
  void* args[] = {&da, &db, (void*)&n, (void*)&rounds, &dcount};
  if (path == Path::LaunchEx) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelExC(&config, (const void*)smooth, args));
  } else if (path == Path::Driver) {
    using LaunchCooperative = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                           unsigned, CUstream, void**);
    void* fn = nullptr;
    CHECK(cudaGetDriverEntryPoint("cuLaunchCooperativeKernel", &fn, cudaEnableDefault));
    cudaFunction_t f;
    CHECK(cudaGetFuncBySymbol(&f, (const void*)smooth));
    EXPECT(reinterpret_cast<LaunchCooperative>(fn)(CUfunction(f), blocks, 1, 1, threads, 1, 1, 0, nullptr, args) ==
           CUDA_SUCCESS);
  } else {
    CHECK(cudaLaunchCooperativeKernel((const void*)smooth, blocks, threads, args, 0, nullptr));
  }
  std::vector<int> got(n);
  CHECK(cudaMemcpy(got.data(), rounds % 2 ? db : da, n * sizeof(int), cudaMemcpyDeviceToHost));
  const std::vector<int> want = reference(a, rounds, blocks * threads);
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      std::fprintf(stderr, "element %d after %d rounds: %d, expected %d\n", i, rounds, got[i], want[i]);
      return false;
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dcount));
  return true;
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  for (Path path : {Path::Runtime, Path::LaunchEx, Path::Driver})
    if (!run_smooth(rng, path)) return 1;

  int* d;
  CHECK(cudaMalloc(&d, 2 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 2 * sizeof(int)));
  void* args[] = {&d};
  CHECK(cudaLaunchCooperativeKernel((void*)count_then_publish, 4, 64, args, 0, nullptr));
  int counts[2];
  CHECK(cudaMemcpy(counts, d, sizeof counts, cudaMemcpyDeviceToHost));
  EXPECT(counts[0] == 256 && counts[1] == 256);

  // More CTAs than can be resident at once: 1024-thread CTAs, two per SM.
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count_then_publish, 1024, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  EXPECT(per_sm == 2);
  cudaError_t e = cudaLaunchCooperativeKernel((void*)count_then_publish, per_sm * sms + 1, 1024, args, 0, nullptr);
  std::printf("too large: %s\n", cudaGetErrorName(e));
  EXPECT(e == cudaErrorCooperativeLaunchTooLarge);

  // A plain launch of a grid that fits is accepted, and its grid barrier works (as on an H200). A
  // successful launch leaves the last error as it was: the refused cooperative launch's.
  CHECK(cudaMemset(d, 0, 2 * sizeof(int)));
  e = cudaLaunchKernel((void*)count_then_publish, 4, 64, args, 0, nullptr);
  std::printf("plain launch: %s\n", cudaGetErrorName(e));
  EXPECT(e == cudaSuccess);
  EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);  // cleared by reading it:
  CHECK(cudaGetLastError());                                          // it was not sticky
  CHECK(cudaMemcpy(counts, d, sizeof counts, cudaMemcpyDeviceToHost));
  EXPECT(counts[0] == 256 && counts[1] == 256);
  CHECK(cudaDeviceSynchronize());
  std::printf("grid_sync: PASS\n");
  return 0;
}
