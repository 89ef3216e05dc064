// A cluster launch through cudaLaunchKernelExC with cudaLaunchAttributeClusterDimension in which
// the CTAs share work through the cluster: each CTA loads one slice of the cluster's tile with a
// TMA load multicast to every CTA of the cluster (.multicast::cluster), so each CTA ends up holding
// the whole tile; then each CTA reads its neighbour's shared memory through distributed shared
// memory (cluster.map_shared_rank) to check that the neighbour received the same tile and to
// fetch the neighbour's column sums. Cluster barriers come both from cooperative_groups
// (cluster.sync()) and from barrier.cluster.arrive.release / wait.acquire written out.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cg = cooperative_groups;

constexpr int kCols = 32;         // one tile row: 128 bytes
constexpr int kSliceRows = 8;     // rows each CTA loads for the whole cluster
constexpr int kMaxCluster = 8;

struct Out {
  float neighbour_sums[kCols];    // column sums (scaled by the neighbour's rank + 1) read from the neighbour
  float neighbour_tile_mismatches;  // elements of the neighbour's tile that differ from ours
};

__global__ void multicast_then_exchange(const __grid_constant__ CUtensorMap map, Out* out) {
  __shared__ alignas(128) float tile[kMaxCluster * kSliceRows][kCols];
  __shared__ alignas(8) uint64_t bar;
  __shared__ float col_sums[kCols];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  const unsigned cluster_id = blockIdx.x / size;
  const uint32_t bar_addr = uint32_t(__cvta_generic_to_shared(&bar));
  const int tile_bytes = int(size) * kSliceRows * kCols * int(sizeof(float));

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;");
    // The multicast loads of the other CTAs complete bytes on our barrier: expect all of them.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(tile_bytes));
  }
  // Every barrier is initialised and armed before any CTA's multicast can reach it.
  cluster.sync();

  if (threadIdx.x == 0) {
    const uint32_t slice_addr = uint32_t(__cvta_generic_to_shared(&tile[rank * kSliceRows][0]));
    const int row0 = int(cluster_id * size + rank) * kSliceRows;
    const uint16_t mask = uint16_t((1u << size) - 1);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(slice_addr),
        "l"(&map), "r"(0), "r"(row0), "r"(bar_addr), "h"(mask)
        : "memory");
  }
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      " @!done bra wait_%=;\n}" ::"r"(bar_addr)
      : "memory");

  for (int c = threadIdx.x; c < kCols; c += blockDim.x) {
    float s = 0;
    for (unsigned r = 0; r < size * kSliceRows; ++r) s += tile[r][c];
    col_sums[c] = s * float(rank + 1);
  }
  // The same barrier spelled out: release our column sums, acquire the neighbour's.
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");

  const unsigned neighbour = (rank + 1) % size;
  const float* their_sums = cluster.map_shared_rank(col_sums, neighbour);
  const float* their_tile = cluster.map_shared_rank(&tile[0][0], neighbour);
  Out& o = out[blockIdx.x];
  for (int c = threadIdx.x; c < kCols; c += blockDim.x) o.neighbour_sums[c] = their_sums[c];
  if (threadIdx.x == 0) {
    int mismatches = 0;
    for (unsigned i = 0; i < size * kSliceRows * kCols; ++i) mismatches += their_tile[i] != (&tile[0][0])[i];
    o.neighbour_tile_mismatches = float(mismatches);
  }
  // No CTA may exit while another still reads its shared memory.
  cluster.sync();
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const unsigned cluster_size = 2u << (rng() % 3);  // 2, 4 or 8
  const unsigned clusters = 2 + rng() % 2;
  const unsigned grid = clusters * cluster_size;
  const int rows = int(grid) * kSliceRows;
  std::printf("%u clusters of %u CTAs\n", clusters, cluster_size);

  std::vector<float> m(size_t(rows) * kCols);
  for (float& v : m) v = float(int(rng() % 512) - 256) / 4.f;  // exact in float sums
  float* dm;
  Out* dout;
  CHECK(cudaMalloc(&dm, m.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, grid * sizeof(Out)));
  CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0xff, grid * sizeof(Out)));  // NaN poison

  using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr;
  CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault));
  CUtensorMap map;
  cuuint64_t dims[2] = {kCols, cuuint64_t(rows)}, strides[1] = {kCols * sizeof(float)};
  cuuint32_t box[2] = {kCols, kSliceRows}, elem_strides[2] = {1, 1};
  EXPECT(reinterpret_cast<EncodeTiled>(fn)(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dm, dims, strides, box,
                                           elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                           CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(64);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster_size;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  void* args[] = {&map, &dout};
  CHECK(cudaLaunchKernelExC(&config, (const void*)multicast_then_exchange, args));
  CHECK(cudaDeviceSynchronize());

  std::vector<Out> got(grid);
  CHECK(cudaMemcpy(got.data(), dout, grid * sizeof(Out), cudaMemcpyDeviceToHost));
  for (unsigned b = 0; b < grid; ++b) {
    const unsigned cluster = b / cluster_size, neighbour = (b % cluster_size + 1) % cluster_size;
    if (got[b].neighbour_tile_mismatches != 0.f) {
      std::fprintf(stderr, "CTA %u: %g elements of its neighbour's tile differ from its own\n", b,
                   got[b].neighbour_tile_mismatches);
      return 1;
    }
    for (int c = 0; c < kCols; ++c) {
      float s = 0;
      for (unsigned r = 0; r < cluster_size * kSliceRows; ++r)
        s += m[(size_t(cluster) * cluster_size * kSliceRows + r) * kCols + c];
      const float want = s * float(neighbour + 1);
      if (got[b].neighbour_sums[c] != want) {
        std::fprintf(stderr, "CTA %u column %d: neighbour's sum %g, expected %g\n", b, c, got[b].neighbour_sums[c],
                     want);
        return 1;
      }
    }
  }
  std::printf("cluster_multicast: PASS\n");
  return 0;
}
