// Thread-block clusters launched through cudaLaunchKernelExC with cudaLaunchAttributeClusterDimension
// (and through __cluster_dims__ with <<<>>>): every CTA reports its cluster coordinates, which the
// host checks against the geometry it asked for.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

struct Where {
  unsigned rank, cluster_size, cluster_x, cluster_y, cta_in_cluster_x, cta_in_cluster_y, poison[2];
};

__device__ void report(Where* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x != 0) return;
  Where w{};
  w.rank = cluster.block_rank();
  w.cluster_size = cluster.num_blocks();
  unsigned cid_x, cid_y;
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid_x));
  asm("mov.u32 %0, %%clusterid.y;" : "=r"(cid_y));
  w.cluster_x = cid_x;
  w.cluster_y = cid_y;
  w.cta_in_cluster_x = cluster.block_index().x;
  w.cta_in_cluster_y = cluster.block_index().y;
  out[blockIdx.y * gridDim.x + blockIdx.x] = w;
}

__global__ void where_am_i(Where* out) { report(out); }
__global__ void __cluster_dims__(2, 2, 1) where_am_i_fixed(Where* out) { report(out); }

bool verify(const std::vector<Where>& got, unsigned gx, unsigned gy, unsigned cx, unsigned cy, const char* what) {
  for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x) {
      const Where& w = got[y * gx + x];
      unsigned lx = x % cx, ly = y % cy;
      if (w.rank != ly * cx + lx || w.cluster_size != cx * cy || w.cluster_x != x / cx || w.cluster_y != y / cy ||
          w.cta_in_cluster_x != lx || w.cta_in_cluster_y != ly) {
        std::fprintf(stderr, "%s: CTA (%u,%u) reports rank %u of %u in cluster (%u,%u) at (%u,%u)\n", what, x, y,
                     w.rank, w.cluster_size, w.cluster_x, w.cluster_y, w.cta_in_cluster_x, w.cta_in_cluster_y);
        return false;
      }
    }
  return true;
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const unsigned cx = 1u << (rng() % 3), cy = 2;  // cluster of 2, 4 or 8 CTAs
  const unsigned gx = cx * 2 * (1 + rng() % 2), gy = cy * 2;  // also multiples of __cluster_dims__(2,2,1)
  std::printf("grid %ux%u, cluster %ux%u\n", gx, gy, cx, cy);
  Where* d;
  CHECK(cudaMalloc(&d, gx * gy * sizeof(Where)));
  CHECK(cudaMemset(d, 0xff, gx * gy * sizeof(Where)));

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(gx, gy);
  config.blockDim = dim3(64);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cx;
  attr[0].val.clusterDim.y = cy;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, where_am_i, &config));
  EXPECT(clusters > 0 && clusters <= 132 * 32 / int(cx * cy));
  CHECK(cudaLaunchKernelEx(&config, where_am_i, d));
  std::vector<Where> got(gx * gy);
  CHECK(cudaMemcpy(got.data(), d, got.size() * sizeof(Where), cudaMemcpyDeviceToHost));
  if (!verify(got, gx, gy, cx, cy, "cudaLaunchKernelEx")) return 1;

  // __cluster_dims__(2,2,1) applies to a plain <<<>>> launch.
  CHECK(cudaMemset(d, 0xff, gx * gy * sizeof(Where)));
  where_am_i_fixed<<<dim3(gx, gy), 32>>>(d);
  CHECK(cudaMemcpy(got.data(), d, got.size() * sizeof(Where), cudaMemcpyDeviceToHost));
  if (!verify(got, gx, gy, 2, 2, "__cluster_dims__")) return 1;
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, where_am_i_fixed));
  EXPECT(fa.requiredClusterWidth == 2 && fa.requiredClusterHeight == 2);

  // A grid that is not a whole number of clusters is an invalid cluster size (as on an H200), and
  // not sticky.
  config.gridDim = dim3(cx * 2 + 1, gy);
  attr[0].val.clusterDim.x = 2;
  EXPECT(cudaLaunchKernelEx(&config, where_am_i, d) == cudaErrorInvalidClusterSize);
  EXPECT(cudaGetLastError() == cudaErrorInvalidClusterSize);
  CHECK(cudaDeviceSynchronize());
  std::printf("cluster_launch: PASS\n");
  return 0;
}
