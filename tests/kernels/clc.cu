// Cluster launch control (sm_100a): a persistent kernel that, after its own tile, keeps taking the
// tiles of clusters not launched yet with clusterlaunchcontrol.try_cancel until a request fails.
// Every tile must be done exactly once whatever the launch order. (Empty on sm_90a.)
#include <cstdint>
#include <cuda/ptx>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
namespace ptx = cuda::ptx;

// One response per CTA in shared memory; thread 0 asks, the whole CTA works on the tile.
// owner[tile] = 1 + the linear id of the CTA that did it; work[tile] counts how often it was done.
template <bool kMulticast>
__device__ void persistent_loop(int* owner, int* work, int* steals) {
  __shared__ alignas(16) uint4 response;
  __shared__ alignas(8) uint64_t bar;
  __shared__ int tile, more;
  const int cluster_size = kMulticast ? 2 : 1;
  const bool leader = !kMulticast || ptx::get_sreg_cluster_ctarank() == 0;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    tile = blockIdx.x;
  }
  if constexpr (kMulticast) {
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  } else {
    __syncthreads();
  }
  uint32_t phase = 0;
  // The whole CTA (cluster) waits: `sync` is __syncthreads, or the cluster barrier with multicast.
  auto sync = [] {
    if constexpr (kMulticast) {
      asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    } else {
      __syncthreads();
    }
  };
  for (;;) {
    const int t = tile;
    int next_more = 0, next_tile = t;  // thread 0's answer, published after the first sync below
    if (threadIdx.x == 0) {
      owner[t] = blockIdx.x + 1;
      atomicAdd(&work[t], 1);
      // Each CTA arms its own barrier for the 16-byte response; with multicast only the leader asks.
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16);
      if (leader) {
        if constexpr (kMulticast)
          ptx::clusterlaunchcontrol_try_cancel_multicast(&response, &bar);
        else
          ptx::clusterlaunchcontrol_try_cancel(&response, &bar);
      }
      while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {
      }
      const uint4 r = response;
      const __int128 v = (__int128(uint64_t(r.w) << 32 | r.z) << 64) | (uint64_t(r.y) << 32 | r.x);
      next_more = ptx::clusterlaunchcontrol_query_cancel_is_canceled(v);
      if (next_more) {
        // The tile of this CTA's counterpart in the cancelled cluster.
        uint32_t first[4];
        ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid(first, v);
        next_tile = int(first[0]) + int(blockIdx.x % cluster_size);
        if (leader) atomicAdd(steals, 1);
      }
    }
    phase ^= 1;
    // Every thread has read this round's `tile` and `more` before thread 0 overwrites them (the
    // first draft wrote them before this sync: --racecheck reports that WAR); with multicast the
    // leader's next request overwrites every CTA's response, so the whole cluster must also have
    // read this one first (without this, ptxsim reports the race on the response).
    sync();
    if (threadIdx.x == 0) {
      more = next_more;
      tile = next_tile;
    }
    sync();
    if (!more) break;
  }
}


// A second try_cancel after one of this CTA failed: undefined in the PTX ISA, a fault in ptxsim.
__device__ void ask_after_failure(int* out) {
  __shared__ alignas(16) uint4 response;
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  ptx::mbarrier_init(&bar, 1);
  for (uint32_t phase = 0; phase < 2; ++phase) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16);
    ptx::clusterlaunchcontrol_try_cancel(&response, &bar);
    while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {
    }
  }
  out[0] = 1;
}
#endif

extern "C" __global__ void __launch_bounds__(64) clc_persistent(int* owner, int* work, int* steals) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  persistent_loop<false>(owner, work, steals);
#endif
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64)
    clc_persistent_multicast(int* owner, int* work, int* steals) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  persistent_loop<true>(owner, work, steals);
#endif
}

extern "C" __global__ void clc_ask_after_failure(int* out) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  ask_after_failure(out);
#endif
}
