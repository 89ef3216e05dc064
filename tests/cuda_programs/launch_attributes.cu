// Launch attributes of cudaLaunchKernelExC (and the driver's cuLaunchKernelEx, from
// cudaGetDriverEntryPointByVersion): one launch with every attribute CUDA 13 defines, the
// preferred cluster dimension (which CUTLASS's Blackwell kernels pass) among them, with a regular
// cluster from the attribute list or from __cluster_dims__, or with none; the values the driver
// refuses and ids it does not define (cudaErrorInvalidValue, cudaErrorInvalidClusterSize,
// cudaErrorNotSupported or cudaErrorInvalidResourceHandle; not sticky, nothing runs). What the
// driver accepts and refuses was checked on an H200 (driver 580), where this program passes.
//
// Each CTA reports the cluster geometry it ran in (%cluster_nctaid, %nclusterid, %clusterid,
// %cluster_ctaid, %cluster_ctarank); the program checks that every CTA ran in a regular or a
// preferred cluster with coordinates consistent with that shape, and prints which shapes ran
// ("regular", "preferred" or "both": the hardware may mix them). ptxsim runs the regular clusters.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "check.h"

struct Seen {
  unsigned nctaid_x, nctaid_y, nclusters_x, nclusters_y, cluster_x, cluster_y, ctaid_x, ctaid_y, rank, ran;
};

__device__ unsigned sreg_cluster_nctaid_x() {
  unsigned v;
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v));
  return v;
}

__device__ void report(Seen* seen, int* data, int n) {
  const unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;
  for (int i = int(cta * blockDim.x + threadIdx.x); i < n; i += int(gridDim.x * gridDim.y * blockDim.x))
    data[i] = 3 * i + 1;
  if (threadIdx.x != 0) return;
  Seen s;
  s.nctaid_x = sreg_cluster_nctaid_x();
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(s.nctaid_y));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(s.nclusters_x));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(s.nclusters_y));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(s.cluster_x));
  asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(s.cluster_y));
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(s.ctaid_x));
  asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(s.ctaid_y));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(s.rank));
  s.ran = 1;
  seen[cta] = s;
}

__global__ void where(Seen* seen, int* data, int n) { report(seen, data, n); }
__global__ void __cluster_dims__(2, 1, 1) where_fixed(Seen* seen, int* data, int n) { report(seen, data, n); }

constexpr unsigned kGx = 8, kGy = 2, kThreads = 64;
constexpr int kN = 3000;

struct Buffers {
  Seen* seen;
  int* data;
  void poison() {
    CHECK(cudaMemset(seen, 0, kGx * kGy * sizeof(Seen)));
    CHECK(cudaMemset(data, 0xff, kN * sizeof(int)));
  }
};

// Which cluster shape CTA (x, y) ran in, checked against its coordinates: 1 regular, 2 preferred
// (when it differs from regular), 0 inconsistent.
int shape_of(const Seen& s, unsigned x, unsigned y, unsigned rx, unsigned ry, unsigned px, unsigned py) {
  int shape = s.nctaid_x == rx && s.nctaid_y == ry ? 1 : s.nctaid_x == px && s.nctaid_y == py ? 2 : 0;
  if (!shape || !s.ran) return 0;
  const unsigned cx = s.nctaid_x, cy = s.nctaid_y;
  if (s.nclusters_x != kGx / cx || s.nclusters_y != kGy / cy || s.cluster_x != x / cx || s.cluster_y != y / cy ||
      s.ctaid_x != x % cx || s.ctaid_y != y % cy || s.rank != s.ctaid_y * cx + s.ctaid_x)
    return 0;
  return shape;
}

// Checks the outputs of a launch with regular clusters rx x ry and preferred px x py; prints which
// shapes ran.
void verify(const Buffers& b, const char* what, unsigned rx, unsigned ry, unsigned px, unsigned py) {
  std::vector<Seen> seen(kGx * kGy);
  std::vector<int> data(kN);
  CHECK(cudaMemcpy(seen.data(), b.seen, seen.size() * sizeof(Seen), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(data.data(), b.data, data.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i)
    if (data[i] != 3 * i + 1) {
      std::fprintf(stderr, "%s: data[%d] = %d, expected %d\n", what, i, data[i], 3 * i + 1);
      std::exit(1);
    }
  bool regular = false, preferred = false;
  for (unsigned y = 0; y < kGy; ++y)
    for (unsigned x = 0; x < kGx; ++x) {
      const Seen& s = seen[y * kGx + x];
      int shape = shape_of(s, x, y, rx, ry, px, py);
      if (!shape) {
        std::fprintf(stderr, "%s: CTA (%u,%u) ran=%u: cluster %ux%u, %ux%u clusters, cluster (%u,%u), at (%u,%u), rank %u\n",
                     what, x, y, s.ran, s.nctaid_x, s.nctaid_y, s.nclusters_x, s.nclusters_y, s.cluster_x, s.cluster_y,
                     s.ctaid_x, s.ctaid_y, s.rank);
        std::exit(1);
      }
      (shape == 1 ? regular : preferred) = true;
    }
  std::printf("%s: cluster shapes seen: %s\n", what, regular && preferred ? "both" : regular ? "regular" : "preferred");
}

// Launches `where` through cudaLaunchKernelExC with the one attribute `a` (after a regular
// cluster of 2x1x1) and returns the result; nothing may have run when it fails.
cudaError_t launch_with(const Buffers& b, cudaLaunchAttribute a) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kGx, kGy);
  config.blockDim = dim3(kThreads);
  cudaLaunchAttribute attrs[2] = {};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  attrs[1] = a;
  config.attrs = attrs;
  config.numAttrs = 2;
  void* args[] = {const_cast<Seen**>(&b.seen), const_cast<int**>(&b.data), const_cast<int*>(&kN)};
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(where), args);
}

void expect_refused(Buffers& b, cudaLaunchAttribute a, const char* what, cudaError_t want = cudaErrorInvalidValue) {
  b.poison();
  cudaError_t e = launch_with(b, a);
  std::printf("%s: %s\n", what, cudaGetErrorName(e));
  EXPECT(e == want);
  EXPECT(cudaGetLastError() == want);
  EXPECT(cudaGetLastError() == cudaSuccess);  // not sticky
  std::vector<Seen> seen(kGx * kGy);
  CHECK(cudaMemcpy(seen.data(), b.seen, seen.size() * sizeof(Seen), cudaMemcpyDeviceToHost));
  for (const Seen& s : seen) EXPECT(s.ran == 0);
}

int main() {
  Buffers b;
  CHECK(cudaMalloc(&b.seen, kGx * kGy * sizeof(Seen)));
  CHECK(cudaMalloc(&b.data, kN * sizeof(int)));
  void* args[] = {&b.seen, &b.data, const_cast<int*>(&kN)};
  cudaEvent_t programmatic, completion;
  CHECK(cudaEventCreateWithFlags(&programmatic, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&completion, cudaEventDisableTiming));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));

  // 1. Every attribute CUDA 13 defines for a launch: regular clusters of 2x1, preferred 4x2. (The
  // stream attribute SynchronizationPolicy and the graph-node attribute DeviceUpdatableKernelNode
  // are refused on a launch, by an H200's driver too: part 5.)
  std::vector<cudaLaunchAttribute> attrs(13);
  for (auto& a : attrs) std::memset(&a, 0, sizeof a);
  attrs[0].id = cudaLaunchAttributeIgnore;
  attrs[1].id = cudaLaunchAttributeClusterDimension;
  attrs[1].val.clusterDim = {2, 1, 1};
  attrs[2].id = cudaLaunchAttributePreferredClusterDimension;
  attrs[2].val.preferredClusterDim = {4, 2, 1};
  attrs[3].id = cudaLaunchAttributePriority;
  attrs[3].val.priority = greatest;
  attrs[4].id = cudaLaunchAttributeAccessPolicyWindow;
  attrs[4].val.accessPolicyWindow.base_ptr = b.data;
  attrs[4].val.accessPolicyWindow.num_bytes = kN * sizeof(int);
  attrs[4].val.accessPolicyWindow.hitRatio = 0.6f;
  attrs[4].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attrs[4].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  attrs[5].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
  attrs[5].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
  attrs[6].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[6].val.programmaticStreamSerializationAllowed = 1;
  attrs[7].id = cudaLaunchAttributeProgrammaticEvent;
  attrs[7].val.programmaticEvent.event = programmatic;
  attrs[7].val.programmaticEvent.triggerAtBlockStart = 1;
  attrs[8].id = cudaLaunchAttributeMemSyncDomainMap;
  attrs[8].val.memSyncDomainMap.default_ = 0;
  attrs[8].val.memSyncDomainMap.remote = 1;
  attrs[9].id = cudaLaunchAttributeMemSyncDomain;
  attrs[9].val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  attrs[10].id = cudaLaunchAttributeLaunchCompletionEvent;
  attrs[10].val.launchCompletionEvent.event = completion;
  attrs[11].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
  attrs[11].val.sharedMemCarveout = 50;
  attrs[12].id = cudaLaunchAttributeNvlinkUtilCentricScheduling;
  attrs[12].val.nvlinkUtilCentricScheduling = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kGx, kGy);
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  config.attrs = attrs.data();
  config.numAttrs = unsigned(attrs.size());
  b.poison();
  CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(where), args));
  CHECK(cudaStreamWaitEvent(stream, programmatic, 0));
  CHECK(cudaEventSynchronize(programmatic));
  CHECK(cudaEventSynchronize(completion));
  EXPECT(cudaEventQuery(completion) == cudaSuccess);
  CHECK(cudaStreamSynchronize(stream));
  verify(b, "every attribute", 2, 1, 4, 2);

  // 2. The regular cluster from __cluster_dims__(2,1,1), only the preferred one (8x1) as an attribute.
  config.attrs = &attrs[2];
  config.numAttrs = 1;
  attrs[2].val.preferredClusterDim = {8, 1, 1};
  b.poison();
  CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(where_fixed), args));
  verify(b, "__cluster_dims__ and preferred", 2, 1, 8, 1);

  // 3. A preferred cluster dimension without a regular one is an invalid cluster size (H200).
  b.poison();
  cudaError_t alone = cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(where), args);
  std::printf("preferred alone: %s\n", cudaGetErrorName(alone));
  EXPECT(alone == cudaErrorInvalidClusterSize);
  EXPECT(cudaGetLastError() == cudaErrorInvalidClusterSize);

  // 4. The same through the driver's cuLaunchKernelEx: regular 2x2, preferred 4x2.
  void* fn = nullptr;
  CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", &fn, 12000, cudaEnableDefault, nullptr));
  auto cu_launch_ex = reinterpret_cast<CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**)>(fn);
  cudaFunction_t func;
  CHECK(cudaGetFuncBySymbol(&func, reinterpret_cast<const void*>(where)));
  CUlaunchAttribute cu_attrs[3] = {};
  cu_attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cu_attrs[0].value.clusterDim.x = 2;
  cu_attrs[0].value.clusterDim.y = 2;
  cu_attrs[0].value.clusterDim.z = 1;
  cu_attrs[1].id = CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
  cu_attrs[1].value.preferredClusterDim.x = 4;
  cu_attrs[1].value.preferredClusterDim.y = 2;
  cu_attrs[1].value.preferredClusterDim.z = 1;
  cu_attrs[2].id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
  cu_attrs[2].value.launchCompletionEvent.event = reinterpret_cast<CUevent>(completion);
  CUlaunchConfig cu_config = {};
  cu_config.gridDimX = kGx, cu_config.gridDimY = kGy, cu_config.gridDimZ = 1;
  cu_config.blockDimX = kThreads, cu_config.blockDimY = 1, cu_config.blockDimZ = 1;
  cu_config.attrs = cu_attrs;
  cu_config.numAttrs = 3;
  b.poison();
  EXPECT(cu_launch_ex(&cu_config, reinterpret_cast<CUfunction>(func), args, nullptr) == CUDA_SUCCESS);
  verify(b, "cuLaunchKernelEx", 2, 2, 4, 2);
  cu_attrs[2].id = CUlaunchAttributeID(15);  // no such attribute
  CUresult r = cu_launch_ex(&cu_config, reinterpret_cast<CUfunction>(func), args, nullptr);
  std::printf("cuLaunchKernelEx, attribute 15: %d\n", int(r));
  EXPECT(r == CUDA_ERROR_INVALID_VALUE);

  // 5. Refused: ids CUDA 13 does not define, and values outside what the driver takes.
  cudaLaunchAttribute a;
  std::memset(&a, 0, sizeof a);
  a.id = cudaLaunchAttributeID(15);
  expect_refused(b, a, "attribute 15");
  a.id = cudaLaunchAttributeID(17);
  expect_refused(b, a, "attribute 17");
  a.id = cudaLaunchAttributeID(0x7fffffff);
  expect_refused(b, a, "attribute 0x7fffffff");
  a.id = cudaLaunchAttributePreferredClusterDimension;
  a.val.preferredClusterDim = {3, 1, 1};
  expect_refused(b, a, "preferred 3x1x1 with clusters of 2x1x1", cudaErrorInvalidClusterSize);
  a.val.preferredClusterDim = {16, 1, 1};
  expect_refused(b, a, "preferred 16x1x1 in a grid of 8x2", cudaErrorInvalidClusterSize);
  a.val.preferredClusterDim = {4, 1, 2};
  expect_refused(b, a, "preferred 4x1x2 (z differs)", cudaErrorInvalidClusterSize);
  std::memset(&a.val, 0, sizeof a.val);
  a.id = cudaLaunchAttributeNvlinkUtilCentricScheduling;
  a.val.nvlinkUtilCentricScheduling = 2;
  expect_refused(b, a, "NVLink-centric scheduling 2");
  std::memset(&a.val, 0, sizeof a.val);
  a.id = cudaLaunchAttributeDeviceUpdatableKernelNode;
  expect_refused(b, a, "device-updatable kernel node 0 outside a graph", cudaErrorNotSupported);
  a.val.deviceUpdatableKernelNode.deviceUpdatable = 1;
  expect_refused(b, a, "device-updatable kernel node 1 outside a graph", cudaErrorNotSupported);
  std::memset(&a.val, 0, sizeof a.val);
  a.id = cudaLaunchAttributeSynchronizationPolicy;
  a.val.syncPolicy = cudaSyncPolicySpin;
  expect_refused(b, a, "synchronization policy (a stream attribute)");
  std::memset(&a.val, 0, sizeof a.val);
  a.id = cudaLaunchAttributeLaunchCompletionEvent;
  expect_refused(b, a, "launch completion event without an event", cudaErrorInvalidResourceHandle);

  // 6. After the refusals the device is fine.
  std::memset(&a, 0, sizeof a);
  a.id = cudaLaunchAttributePreferredClusterDimension;
  a.val.preferredClusterDim = {4, 2, 1};
  b.poison();
  CHECK(launch_with(b, a));
  verify(b, "after the refusals", 2, 1, 4, 2);
  CHECK(cudaDeviceSynchronize());
  std::printf("launch_attributes: PASS\n");
  return 0;
}
