// The simulated GPUs `ptxsim exec --device` offers, with the limits CUDA reports for them.
#pragma once
#include <cstdint>
#include <string>

namespace ptxsim::cuda_shim {

struct DeviceSpec {
  const char* key;             // --device value
  const char* name;            // cudaDeviceProp::name
  int cc_major, cc_minor;      // compute capability
  int sm_count;
  uint64_t global_bytes;
  int smem_per_block;          // default (48 KiB) and opt-in limits, bytes
  int smem_per_block_optin;
  int smem_per_sm;
  int reserved_smem_per_block; // the 1 KiB the driver keeps per CTA
  int regs_per_block, regs_per_sm;
  int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
  int clock_khz, memory_clock_khz, memory_bus_width;
  int l2_bytes;
  int max_cluster_size_portable, max_cluster_size_nonportable;
  double memory_gbps;          // for the simulated copy time
};

// h100 (SXM5 80 GB), h200, b200; null when unknown.
const DeviceSpec* find_device(const std::string& key);
// CUdevice_attribute / cudaDeviceAttr (same numbering) for `d`; false for attributes not modelled.
bool device_attribute(const DeviceSpec& d, int attribute, int& value);

}  // namespace ptxsim::cuda_shim
