// TMA and bulk copies one feature at a time, for tma_modes_test.cpp:
//   tma_box       a 1D-5D box loaded by cp.async.bulk.tensor into shared memory (its raw bytes are
//                 dumped, so the swizzled layout is observable), then optionally stored back to a
//                 second tensor with the tensor store;
//   tma_multicast one CTA of the cluster loads a box with .multicast::cluster into every CTA named in
//                 the mask; each CTA dumps what arrived;
//   tma_rebind    thread 0 points a tensor map in global memory at another buffer with
//                 tensormap.replace, releases and (unless told not to) acquires it, then loads
//                 through it;
//   bulk_roundtrip non-tensor cp.async.bulk global -> shared -> global.
#include <cuda.h>

#include <cstdint>
#include <cuda/ptx>

namespace ptx = cuda::ptx;

constexpr uint32_t kSmemBytes = 16384;

__device__ void wait_phase0(uint64_t* bar) {
  while (!ptx::mbarrier_try_wait_parity(bar, 0)) {
  }
}

__device__ void load_box(void* dst, const void* map, int rank, const int32_t* c, uint64_t* bar) {
  const int32_t c1[1] = {c[0]};
  const int32_t c2[2] = {c[0], c[1]};
  const int32_t c3[3] = {c[0], c[1], c[2]};
  const int32_t c4[4] = {c[0], c[1], c[2], c[3]};
  const int32_t c5[5] = {c[0], c[1], c[2], c[3], c[4]};
  switch (rank) {
    case 1: ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, c1, bar); break;
    case 2: ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, c2, bar); break;
    case 3: ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, c3, bar); break;
    case 4: ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, c4, bar); break;
    default: ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, c5, bar); break;
  }
}

__device__ void store_box(const void* map, const void* src, int rank, const int32_t* c) {
  const int32_t c1[1] = {c[0]};
  const int32_t c2[2] = {c[0], c[1]};
  const int32_t c3[3] = {c[0], c[1], c[2]};
  const int32_t c4[4] = {c[0], c[1], c[2], c[3]};
  const int32_t c5[5] = {c[0], c[1], c[2], c[3], c[4]};
  switch (rank) {
    case 1: ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, c1, src); break;
    case 2: ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, c2, src); break;
    case 3: ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, c3, src); break;
    case 4: ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, c4, src); break;
    default: ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, c5, src); break;
  }
}

// Copies `bytes` of shared memory to `out` with every thread of the CTA.
__device__ void dump(const uint8_t* smem, uint8_t* out, uint32_t bytes) {
  for (uint32_t i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = smem[i];
}

struct Coords {
  int32_t c[5];
};

__global__ void tma_box(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
                        int rank, Coords coords, uint32_t box_bytes, uint8_t* smem_dump, int store) {
  __shared__ alignas(1024) uint8_t box[kSmemBytes];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, box_bytes);
    load_box(box, &in_map, rank, coords.c, &bar);
  }
  wait_phase0(&bar);
  dump(box, smem_dump, box_bytes);
  if (store && threadIdx.x == 0) {
    // The box was written by the async proxy and is read by it again: no proxy fence is needed.
    store_box(&out_map, box, rank, coords.c);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

__global__ void tma_multicast(const __grid_constant__ CUtensorMap map, int32_t x, int32_t y, uint32_t box_bytes,
                              uint16_t cta_mask, uint8_t* dumps) {
  __shared__ alignas(1024) uint8_t box[kSmemBytes];
  __shared__ uint64_t bar;
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();
  const bool receives = (cta_mask >> rank) & 1;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    if (receives) ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, box_bytes);
  }
  // Every receiving CTA's barrier is initialised and expecting before the load is issued.
  ptx::barrier_cluster_arrive(ptx::sem_release);
  ptx::barrier_cluster_wait(ptx::sem_acquire);
  if (rank == 0 && threadIdx.x == 0) {
    const int32_t c[2] = {x, y};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, box, &map, c, &bar, cta_mask);
  }
  if (receives) {
    wait_phase0(&bar);
    dump(box, dumps + size_t(rank) * box_bytes, box_bytes);
  }
  // No CTA may exit while a multicast into it can still be in flight.
  ptx::barrier_cluster_arrive(ptx::sem_release);
  ptx::barrier_cluster_wait(ptx::sem_acquire);
}

__global__ void tma_rebind(CUtensorMap* gmap, const void* new_base, int32_t x, int32_t y, uint32_t box_bytes,
                           int acquire, uint8_t* smem_dump) {
  __shared__ alignas(1024) uint8_t box[kSmemBytes];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::tensormap_replace_global_address(ptx::space_global, gmap, reinterpret_cast<uint64_t>(new_base));
    ptx::fence_proxy_tensormap_generic(ptx::sem_release, ptx::scope_gpu);
    if (acquire) ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, gmap, ptx::n32_t<128>{});
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, box_bytes);
    const int32_t c[2] = {x, y};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, box, gmap, c, &bar);
  }
  __syncthreads();
  wait_phase0(&bar);
  dump(box, smem_dump, box_bytes);
}

__global__ void bulk_roundtrip(const uint8_t* src, uint8_t* dst, uint32_t bytes) {
  __shared__ alignas(128) uint8_t buf[kSmemBytes];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, bytes);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, src, bytes, &bar);
  }
  __syncthreads();
  wait_phase0(&bar);
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst, buf, bytes);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  }
}
