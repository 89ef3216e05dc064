// Planted races (shared memory, lanes of one warp, global memory) and their race-free twins, for
// --racecheck (racecheck_test.cpp).
// Every kernel takes `racy`: 1 plants the bug, 0 is the correct kernel, which must stay silent.
#include <cuda.h>

#include <cstdint>

namespace {

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ inline void mbar_init(uint64_t* b, uint32_t n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(b)), "r"(n) : "memory");
}
__device__ inline void mbar_expect_tx(uint64_t* b, uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem(b)), "r"(tx) : "memory");
}
__device__ inline void mbar_arrive(uint64_t* b) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem(b)) : "memory");
}
__device__ inline void mbar_wait(uint64_t* b, uint32_t parity) {
  uint32_t ok = 0;
  while (!ok)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(ok)
        : "r"(smem(b)), "r"(parity)
        : "memory");
}
// A 1-D bulk copy of `bytes` from global memory into shared memory, completing on `bar`.
__device__ inline void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar))
               : "memory");
}

}  // namespace

// Warp 1 reads what warp 0 wrote (and the other way round); racy: without __syncthreads between.
__global__ void race_missing_sync(const int* in, int* out, int racy) {
  __shared__ int buf[64];
  buf[threadIdx.x] = in[threadIdx.x] * 2;
  if (!racy) __syncthreads();
  out[threadIdx.x] = buf[63 - threadIdx.x];
}

// Thread 0 loads two stages with bulk copies; warp 1 adds them. racy: it waits only for stage 0's
// mbarrier before reading stage 1 too.
__global__ void race_tma_wait(const int* in, int* out, int racy) {
  __shared__ alignas(128) int stage[2][32];
  __shared__ uint64_t full[2];
  if (threadIdx.x == 0) {
    mbar_init(&full[0], 1);
    mbar_init(&full[1], 1);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < 2; ++s) {
      mbar_expect_tx(&full[s], 128);
      bulk_load(stage[s], in + 32 * s, 128, &full[s]);
    }
  if (threadIdx.x >= 32) {
    const int l = threadIdx.x - 32;
    mbar_wait(&full[0], 0);
    if (!racy) mbar_wait(&full[1], 0);
    out[l] = stage[0][l] + stage[1][l];
  }
}

// Every thread writes shared memory; thread 0 stores it to global memory with a bulk copy (the
// async proxy). racy: no fence.proxy.async between the generic writes and the copy.
__global__ void race_proxy_fence(int* out, int racy) {
  __shared__ alignas(128) int buf[64];
  buf[threadIdx.x] = int(threadIdx.x) * 3;
  if (!racy) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" ::"l"(out), "r"(smem(buf)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

// A one-stage pipeline: thread 0 loads tile t into the stage once warp 1 released it ("empty");
// warp 1 accumulates. racy: warp 1 releases the stage before reading it.
__global__ void race_stage_release(const int* in, int* out, int tiles, int racy) {
  __shared__ alignas(128) int stage[32];
  __shared__ uint64_t full, empty;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init(&empty, 32);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int t = 0; t < tiles; ++t) {
      if (t > 0) mbar_wait(&empty, (t - 1) & 1);
      mbar_expect_tx(&full, 128);
      bulk_load(stage, in + 32 * t, 128, &full);
    }
  } else if (threadIdx.x >= 32) {
    const int l = threadIdx.x - 32;
    int acc = 0;
    for (int t = 0; t < tiles; ++t) {
      mbar_wait(&full, t & 1);
      if (racy) mbar_arrive(&empty);
      acc += stage[l] * (t + 1);
      if (!racy) mbar_arrive(&empty);
    }
    out[l] = acc;
  }
}

// One warp: every lane writes its slot, then reads its neighbour's. racy 1: no __syncwarp between
// (since sm_70 the lanes of a warp are not implicitly synchronised). 2 and 3 are race-free: all
// lanes store one value (2) or each its own (3) to one address in one instruction, then
// __syncwarp, then every lane reads it.
__global__ void race_warp_lanes(const int* in, int* out, int racy) {
  __shared__ int s[32];
  const int l = threadIdx.x;
  if (racy <= 1) {
    s[l] = in[l] * 5;
    if (!racy) __syncwarp();
    out[l] = s[(l + 1) % 32];
  } else {
    s[0] = racy == 2 ? in[0] : in[l];
    __syncwarp();
    out[l] = s[0];
  }
}

// Global memory (--racecheck-global): every thread writes its word of `buf`, then reads the
// mirrored one, written by a thread of the other warp. racy 1: no __syncthreads between. 2 is
// race-free without a barrier: each thread writes one byte of a shared word and reads back only
// its own byte (neighbouring bytes do not conflict).
__global__ void race_global(int* buf, int* out, int racy) {
  const int t = threadIdx.x;
  if (racy <= 1) {
    buf[t] = t * 3;
    if (!racy) __syncthreads();
    out[t] = buf[63 - t];
  } else {
    reinterpret_cast<unsigned char*>(buf)[t] = static_cast<unsigned char>(t);
    out[t] = reinterpret_cast<unsigned char*>(buf)[t];
  }
}

// Global memory between CTAs of different clusters (--racecheck-global), 32 threads per CTA. With
// clusters of 2 CTAs, CTAs 0 and 2 have the same rank in different clusters.
//   0: CTA 0 writes buf, CTA 2 reads it, nothing orders them (RAW across clusters);
//   1: the same behind a flag: st.release.gpu after the writes, ld.acquire.gpu spin before the reads;
//   2: every thread of every CTA adds to one counter with atomics (atomics never race);
//   3: every CTA writes its partial, __threadfence + atomicAdd; the last CTA to arrive reads them all
//      (the threadFenceReduction pattern);
//   4 / 5: mode 0's write alone / read alone (two launches: the kernel boundary orders them);
//   6 / 7 (cooperative launch): CTA b writes buf[b], a grid barrier (atomic arrive, ld.acquire
//      spin) or none (7), then reads buf[b + 1].
// Scopes (PTX ISA, Memory Consistency Model: a release and an acquire synchronise only when each
// one's scope includes the other's thread):
//   8: mode 1 with st.release.cta / ld.acquire.cta: CTAs 0 and 2 are not ordered (RAW);
//   9: mode 1 between CTAs 0 and 1 at .cluster scope: ordered when they share a cluster;
//  10: mode 3 with __threadfence_block: a .cta fence makes no release to other CTAs (RAW);
//  11: mode 9 at .cta scope: CTAs 0 and 1 are not ordered, in one cluster or not (RAW).
__device__ inline void st_release_gpu(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ inline int ld_acquire_gpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ inline void st_release(int* p, int v, int scope) {
  if (scope == 0) asm volatile("st.release.cta.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else asm volatile("st.release.cluster.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ inline int ld_acquire(const int* p, int scope) {
  int v;
  if (scope == 0) asm volatile("ld.acquire.cta.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else asm volatile("ld.acquire.cluster.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void race_cross_cluster(int* buf, int* flag, int* out, int mode) {
  const int t = threadIdx.x, b = blockIdx.x, n = gridDim.x;
  if (mode == 0 || mode == 1 || mode == 4 || mode == 5) {
    if (b == 0 && mode != 5) {
      buf[t] = t + 1;
      __syncthreads();
      if (mode == 1 && t == 0) st_release_gpu(flag, 1);
    }
    if (b == 2 && mode != 4) {
      if (mode == 1 && t == 0)
        while (ld_acquire_gpu(flag) != 1) {
        }
      __syncthreads();
      out[t] = buf[t];
    }
  } else if (mode == 8 || mode == 9 || mode == 11) {
    const int reader = mode == 8 ? 2 : 1, scope = mode == 9 ? 1 : 0;
    if (b == 0) {
      buf[t] = t + 1;
      __syncthreads();
      if (t == 0) st_release(flag, 1, scope);
    }
    if (b == reader) {
      if (t == 0)
        while (ld_acquire(flag, scope) != 1) {
        }
      __syncthreads();
      out[t] = buf[t];
    }
  } else if (mode == 2) {
    atomicAdd(flag, 1);
  } else if (mode == 3 || mode == 10) {
    if (t == 0) buf[b] = b + 1;
    if (mode == 3) __threadfence();
    else __threadfence_block();
    __syncthreads();
    __shared__ int last;
    if (t == 0) last = atomicAdd(flag, 1) == n - 1;
    __syncthreads();
    if (last && t == 0) {
      int sum = 0;
      for (int i = 0; i < n; ++i) sum += buf[i];
      out[0] = sum;
    }
  } else {
    if (t == 0) buf[b] = b + 1;
    __syncthreads();
    if (mode == 6 && t == 0) {
      __threadfence();
      atomicAdd(flag, 1);
      while (ld_acquire_gpu(flag) != n) {
      }
    }
    __syncthreads();
    if (t == 0) out[b] = buf[(b + 1) % n];
  }
}

// A TMA tensor copy's global side is the issuing thread's access (--racecheck-global), 32 threads
// per CTA, a 1-D tensor of 32 ints (`map` describes `tensor`), grid 4: CTA 0 and CTA 2 are in
// different clusters (clusters of 1 or 2).
//   0: CTA 0 stores its box to the tensor with the TMA, CTA 2 reads the tensor: RAW;
//   1: the same, ordered: CTA 0 waits for its bulk group, fences and sets a flag with st.release.gpu,
//      CTA 2 spins with ld.acquire.gpu before reading;
//   2: CTA 0 loads the tensor with the TMA, CTA 2 overwrites it: WAR;
//   3: the same, ordered: CTA 0 waits for the load's mbarrier, then releases the flag.
__device__ inline void tma_load_1d(void* dst, const CUtensorMap* map, int x, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(
          smem(dst)),
      "l"(map), "r"(x), "r"(smem(bar))
      : "memory");
}
__device__ inline void tma_store_1d(const CUtensorMap* map, int x, const void* src) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];" ::"l"(map), "r"(x),
               "r"(smem(src))
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void race_tma_global(const __grid_constant__ CUtensorMap map, int* tensor, int* flag, int* out, int mode) {
  __shared__ alignas(128) int box[32];
  __shared__ uint64_t bar;
  const int t = threadIdx.x, b = blockIdx.x;
  if (b == 0 && mode <= 1) {
    box[t] = t + 100;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
      tma_store_1d(&map, 0, box);
      if (mode == 1) {
        __threadfence();
        st_release_gpu(flag, 1);
      }
    }
  } else if (b == 0) {
    if (t == 0) mbar_init(&bar, 1);
    __syncthreads();
    if (t == 0) {
      mbar_expect_tx(&bar, 32 * 4);
      tma_load_1d(box, &map, 0, &bar);
    }
    mbar_wait(&bar, 0);
    out[t] = box[t];
    __syncthreads();
    if (mode == 3 && t == 0) st_release_gpu(flag, 1);
  }
  if (b == 2) {
    if ((mode == 1 || mode == 3) && t == 0)
      while (ld_acquire_gpu(flag) != 1) {
      }
    __syncthreads();
    if (mode <= 1) out[t] = tensor[t];
    else tensor[t] = -t;
  }
}
