// A 4-stage producer/consumer TMA pipeline with warp specialisation, the shape of Hopper GEMM
// main loops, plus deliberately broken variants whose deadlock and hazard reports the tests assert
// (tma_pipeline_test.cpp; the demo in examples/tma_pipeline runs the correct one).
//
// One CTA reduces a 16-row band of the int32 matrix A (k_tiles * 32 columns) to a 16 x 32 tile:
//   C[r][c] = sum over t of A[row0 + r][32 t + c] * (t + 1)
// Warp 0 is the producer: one thread waits until stage s is free (the "empty" mbarrier), announces
// the tile's bytes on the "full" mbarrier (arrive.expect_tx) and issues the TMA load of tile t into
// stage s. Warps 1 and 2 are the consumers: they wait on "full", accumulate, and arrive on "empty".
// The consumers then write C to shared memory, make it visible to the async proxy
// (fence.proxy.async) and one of them stores it with a TMA store.
#include <cuda.h>

#include <cstdint>
#include <cuda/ptx>

namespace ptx = cuda::ptx;

constexpr int kStages = 4;
constexpr int kBoxCols = 32, kBoxRows = 16;
constexpr uint32_t kTileBytes = kBoxCols * kBoxRows * sizeof(int32_t);
constexpr int kConsumerThreads = 64;
constexpr int kPerThread = kBoxCols * kBoxRows / kConsumerThreads;

// What the broken variants get wrong.
enum Mode : int {
  kCorrect = 0,
  kWrongExpectTx = 1,   // the producer announces twice the tile's bytes
  kMissingArrive = 2,   // consumer thread 63 skips its arrival on "empty" for tile 5
  kWrongParity = 3,     // the producer waits on "empty" with the parity of the phase it needs, not the preceding one
  kExitedProducer = 4,  // the producer thread returns before tile 5
  kMissingFence = 5,    // no fence.proxy.async between the generic writes of C and the TMA store
};

__global__ void __launch_bounds__(96) tma_pipeline(const __grid_constant__ CUtensorMap a_map,
                                                   const __grid_constant__ CUtensorMap c_map, int k_tiles, int mode) {
  __shared__ alignas(128) int32_t tiles[kStages][kBoxRows * kBoxCols];
  __shared__ alignas(128) int32_t c_tile[kBoxRows * kBoxCols];
  __shared__ uint64_t full[kStages], empty[kStages];

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], kConsumerThreads);
    }
  }
  __syncthreads();

  if (threadIdx.x < 32) {  // the producer warp; one thread issues
    if (threadIdx.x != 0) return;
    for (int t = 0; t < k_tiles; ++t) {
      const int s = t % kStages;
      const uint32_t phase = (t / kStages) & 1;
      if (mode == kExitedProducer && t == 5) return;
      // Stage s is free once the consumers completed the phase before this round's.
      const uint32_t parity = mode == kWrongParity ? phase : phase ^ 1;
      while (!ptx::mbarrier_try_wait_parity(&empty[s], parity)) {
      }
      const uint32_t tx = mode == kWrongExpectTx ? 2 * kTileBytes : kTileBytes;
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s], tx);
      const int32_t coords[2] = {t * kBoxCols, int32_t(blockIdx.x) * kBoxRows};
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tiles[s], &a_map, coords, &full[s]);
    }
    return;
  }

  const int ct = threadIdx.x - 32;  // consumer thread 0..63
  int32_t acc[kPerThread] = {};
  for (int t = 0; t < k_tiles; ++t) {
    const int s = t % kStages;
    const uint32_t phase = (t / kStages) & 1;
    while (!ptx::mbarrier_try_wait_parity(&full[s], phase)) {
    }
    for (int i = 0; i < kPerThread; ++i) acc[i] += tiles[s][ct + kConsumerThreads * i] * (t + 1);
    if (!(mode == kMissingArrive && t == 5 && ct == 63)) (void)ptx::mbarrier_arrive(&empty[s]);
  }

  for (int i = 0; i < kPerThread; ++i) c_tile[ct + kConsumerThreads * i] = acc[i];
  if (mode != kMissingFence) ptx::fence_proxy_async(ptx::space_shared);
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumerThreads) : "memory");  // the consumer warps only
  if (ct == 0) {
    const int32_t coords[2] = {0, int32_t(blockIdx.x) * kBoxRows};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &c_map, coords, c_tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}
