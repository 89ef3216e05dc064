#include "tools/cuda_shim/device.h"

#include <cuda.h>

namespace ptxsim::cuda_shim {

namespace {

// Values as the CUDA 13 driver reports them for these boards (deviceQuery output and the
// architecture whitepapers); the clock is the maximum boost clock.
constexpr DeviceSpec kDevices[] = {
    {"h100", "NVIDIA H100 80GB HBM3 (ptxsim)", 9, 0, 132, 85'045'149'696ull, 49152, 232448, 233472, 1024, 65536, 65536,
     1024, 2048, 32, 1'980'000, 2'619'000, 5120, 52'428'800, 8, 16, 3350},
    {"h200", "NVIDIA H200 (ptxsim)", 9, 0, 132, 150'754'820'096ull, 49152, 232448, 233472, 1024, 65536, 65536, 1024,
     2048, 32, 1'980'000, 3'201'000, 6144, 52'428'800, 8, 16, 4800},
    {"b200", "NVIDIA B200 (ptxsim)", 10, 0, 148, 191'468'830'720ull, 49152, 232448, 233472, 1024, 65536, 65536, 1024,
     2048, 32, 1'965'000, 3'996'000, 8192, 132'644'864, 8, 16, 8000},
};

}  // namespace

const DeviceSpec* find_device(const std::string& key) {
  for (const DeviceSpec& d : kDevices)
    if (key == d.key) return &d;
  return nullptr;
}

bool device_attribute(const DeviceSpec& d, int attribute, int& v) {
  switch (CUdevice_attribute(attribute)) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = d.max_threads_per_block; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = d.smem_per_block; return true;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = 65536; return true;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = 2147483647; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = d.regs_per_block; return true;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = d.clock_khz; return true;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = 512; return true;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = d.sm_count; return true;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 0; return true;  // host memory is not device-visible
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: v = 512; return true;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = 0x18; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = d.memory_clock_khz; return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = d.memory_bus_width; return true;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = d.l2_bytes; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = d.max_threads_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = 2; return true;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: v = 32; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = d.cc_major; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = d.cc_minor; return true;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = d.smem_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = d.regs_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: v = 2; return true;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = d.smem_per_block_optin; return true;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = d.max_blocks_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: v = d.l2_bytes / 4 * 3; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: v = 134213632; return true;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: v = d.reserved_smem_per_block; return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: v = 4; return true;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: v = -1; return true;
    case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: v = 0; return true;
    default: return false;
  }
}

}  // namespace ptxsim::cuda_shim
