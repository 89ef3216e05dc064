// The launch attributes of cuLaunchKernelEx and cudaLaunchKernelExC (docs/cuda-shim.md "Launch
// attributes"). The runtime's cudaLaunchAttributeID and cudaLaunchAttributeValue have the driver's
// numbering and layout (runtime.cpp checks), so both APIs share this one reading of them: the ids
// CUDA 13 defines for launches are accepted (simulated, or a hint with no effect on a launch that
// runs to completion at the call, in program order); the stream attribute SYNCHRONIZATION_POLICY
// and the graph-node attribute DEVICE_UPDATABLE_KERNEL_NODE are refused as an H200's driver refuses
// them; an id CUDA 13 does not define is an invalid value, as with the driver.
#include <cuda.h>

#include <cstdio>
#include <string>

#include "tools/cuda_shim/shim.h"

namespace ptxsim::cuda_shim {

namespace {

struct AttributeName {
  int id;
  const char* runtime;
  const char* driver;
};

constexpr AttributeName kNames[] = {
    {CU_LAUNCH_ATTRIBUTE_IGNORE, "cudaLaunchAttributeIgnore", "CU_LAUNCH_ATTRIBUTE_IGNORE"},
    {CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, "cudaLaunchAttributeAccessPolicyWindow",
     "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW"},
    {CU_LAUNCH_ATTRIBUTE_COOPERATIVE, "cudaLaunchAttributeCooperative", "CU_LAUNCH_ATTRIBUTE_COOPERATIVE"},
    {CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, "cudaLaunchAttributeSynchronizationPolicy",
     "CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY"},
    {CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, "cudaLaunchAttributeClusterDimension",
     "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION"},
    {CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, "cudaLaunchAttributeClusterSchedulingPolicyPreference",
     "CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE"},
    {CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, "cudaLaunchAttributeProgrammaticStreamSerialization",
     "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"},
    {CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, "cudaLaunchAttributeProgrammaticEvent",
     "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT"},
    {CU_LAUNCH_ATTRIBUTE_PRIORITY, "cudaLaunchAttributePriority", "CU_LAUNCH_ATTRIBUTE_PRIORITY"},
    {CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, "cudaLaunchAttributeMemSyncDomainMap",
     "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP"},
    {CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, "cudaLaunchAttributeMemSyncDomain", "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN"},
    {CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION, "cudaLaunchAttributePreferredClusterDimension",
     "CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION"},
    {CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT, "cudaLaunchAttributeLaunchCompletionEvent",
     "CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT"},
    {CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, "cudaLaunchAttributeDeviceUpdatableKernelNode",
     "CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE"},
    {CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, "cudaLaunchAttributePreferredSharedMemoryCarveout",
     "CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT"},
    {CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING, "cudaLaunchAttributeNvlinkUtilCentricScheduling",
     "CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING"},
};

const char* attribute_name(int id, bool runtime) {
  for (const AttributeName& n : kNames)
    if (n.id == id) return runtime ? n.runtime : n.driver;
  return "?";
}

}  // namespace

int apply_launch_attributes(const CUlaunchAttribute_st* attrs, unsigned count, LaunchRequest& req, const char* api,
                            bool runtime) {
  if (count && !attrs) {
    std::fprintf(stderr, "ptxsim: %s: numAttrs is %u but attrs is null\n", api, count);
    return kInvalidValue;
  }
  for (unsigned i = 0; i < count; ++i) {
    const CUlaunchAttribute& a = attrs[i];
    const CUlaunchAttributeValue& v = a.value;
    const int id = int(a.id);
    auto reject = [&](const std::string& why) {
      std::fprintf(stderr, "ptxsim: %s: attrs[%u] (%s): %s\n", api, i, attribute_name(id, runtime), why.c_str());
      return int(kInvalidValue);
    };
    // The events of PROGRAMMATIC_EVENT and LAUNCH_COMPLETION_EVENT: a handle, and no record flag
    // (the only one, ...RecordExternal, is refused by the driver for these).
    auto event = [&](CUevent e, int flags, Event*& into) -> int {
      if (!e) {  // an invalid handle, as the H200's driver answered for LAUNCH_COMPLETION_EVENT
        std::fprintf(stderr, "ptxsim: %s: attrs[%u] (%s): names no event\n", api, i, attribute_name(id, runtime));
        return int(kInvalidResourceHandle);
      }
      if (flags != 0)
        return reject("record flags " + std::to_string(flags) + ": only the default (0) is accepted here");
      into = reinterpret_cast<Event*>(e);
      return kOk;
    };
    switch (id) {
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
        req.cluster = {v.clusterDim.x, v.clusterDim.y, v.clusterDim.z};
        req.cluster_given = true;
        break;
      case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
        // A hint: Shim::launch checks it against the regular cluster and the grid, then runs the
        // regular clusters (one of the groupings the hardware may choose).
        req.preferred_cluster = {v.preferredClusterDim.x, v.preferredClusterDim.y, v.preferredClusterDim.z};
        req.preferred_cluster_given = true;
        break;
      case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        req.cooperative = v.cooperative != 0;
        break;
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
        if (int st = event(v.programmaticEvent.event, v.programmaticEvent.flags, req.programmatic_event)) return st;
        break;
      case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
        if (int st = event(v.launchCompletionEvent.event, v.launchCompletionEvent.flags, req.completion_event))
          return st;
        break;
      case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
        // A graph node's attribute: the driver refuses it on a launch, whatever its value (H200,
        // driver 580: deviceUpdatable = 0 gave cudaErrorNotSupported).
        std::fprintf(stderr,
                     "ptxsim: %s: attrs[%u] (%s): applies to kernel nodes of a graph, not to a launch\n", api, i,
                     attribute_name(id, runtime));
        return kNotSupported;
      case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        // A stream attribute (cudaStreamSetAttribute); the driver refuses it on a launch (H200).
        return reject("is a stream attribute (cudaStreamSetAttribute), not a launch attribute");
      case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        if (v.nvlinkUtilCentricScheduling > 1)
          return reject("nvlinkUtilCentricScheduling must be 0 or 1, not " + std::to_string(v.nvlinkUtilCentricScheduling));
        break;  // a scheduling hint; one device, no NVLink
      case CU_LAUNCH_ATTRIBUTE_IGNORE:                                // ignored by definition
      case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:                  // L2 persistence: no cache model
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:  // placement of clusters on GPCs: not modelled
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:     // overlap with the previous kernel: none,
                                                                      // it has completed (griddepcontrol is a no-op)
      case CU_LAUNCH_ATTRIBUTE_PRIORITY:                              // one launch at a time
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:                   // one kernel at a time: domains cannot
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:                       // separate anything
      case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:      // the L1/shared split is not modelled
        break;
      default:
        std::fprintf(stderr, "ptxsim: %s: attrs[%u]: launch attribute %d is not one CUDA 13 defines\n", api, i, id);
        return kInvalidValue;
    }
  }
  return kOk;
}

}  // namespace ptxsim::cuda_shim
