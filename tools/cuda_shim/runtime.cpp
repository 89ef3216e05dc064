// ptxsim's libcudart.so.13: the CUDA runtime API, including the registration and launch entry
// points nvcc's generated host code calls, over the Shim in libcuda.so.1 (shim.h). Exported with
// the libcudart.so.13 symbol version (runtime.map) like NVIDIA's library; functions not defined
// here are stubs that report "not supported" (stubs.cmake).
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <vector>

#include "sim/exec/program.h"
#include "tools/cuda_shim/shim.h"

using ptxsim::cuda_shim::Shim;
namespace shim = ptxsim::cuda_shim;

namespace {

thread_local cudaError_t g_last_error = cudaSuccess;

struct CallConfiguration {
  dim3 grid, block;
  size_t shared = 0;
  void* stream = nullptr;
};
thread_local std::vector<CallConfiguration> g_call_stack;

std::set<void*> g_pinned;  // cudaMallocHost / cudaHostAlloc blocks, for cudaPointerGetAttributes

// Records a failure as the last error, like every runtime call does.
cudaError_t ret(int status) {
  cudaError_t e = cudaError_t(status);
  if (status == shim::kInvalidHandle) e = cudaErrorInvalidDeviceFunction;
  if (status == shim::kInvalidResourceHandle) e = cudaErrorInvalidResourceHandle;
  if (e != cudaSuccess) g_last_error = e;
  return e;
}

#define SHIM_ENTRY()                                     \
  Shim& S = Shim::get();                                 \
  std::lock_guard<std::recursive_mutex> shim_lock(S.mu); \
  (void)S
#define STICKY_CHECK() \
  if (S.sticky) return ret(S.sticky)

int copy_kind(cudaMemcpyKind k) {
  switch (k) {
    case cudaMemcpyHostToHost: return 0;
    case cudaMemcpyHostToDevice: return 1;
    case cudaMemcpyDeviceToHost: return 2;
    case cudaMemcpyDeviceToDevice: return 3;
    case cudaMemcpyDefault: return 4;
  }
  return -1;
}

ptxsim::Dim3 d3(dim3 d) { return {d.x, d.y, d.z}; }

// Every runtime launch ends here. No exception leaves it (it would cross the C API).
cudaError_t launch(const void* handle, const shim::LaunchRequest& req, const char* api) try {
  SHIM_ENTRY();
  STICKY_CHECK();
  shim::Function* f = S.function_for_host(handle);
  if (!f) {
    std::fprintf(stderr, "ptxsim: launch of %p: not a registered kernel\n", handle);
    return ret(cudaErrorInvalidDeviceFunction);
  }
  return ret(S.launch(*f, req));
} catch (...) {
  return ret(shim::escaped_exception(api));
}

cudaError_t launch(const void* handle, dim3 grid, dim3 block, void** args, size_t smem, bool cooperative,
                   const char* api) {
  shim::LaunchRequest req;
  req.grid = d3(grid);
  req.block = d3(block);
  req.dynamic_shared = uint32_t(smem);
  req.args = args;
  req.cooperative = cooperative;
  return launch(handle, req, api);
}

// cudaLaunchKernelExC reads the runtime's attributes as the driver's (shim::apply_launch_attributes).
static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute) &&
              offsetof(cudaLaunchAttribute, val) == offsetof(CUlaunchAttribute, value) &&
              sizeof(cudaLaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
static_assert(int(cudaLaunchAttributeClusterDimension) == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
              int(cudaLaunchAttributePreferredClusterDimension) == CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION &&
              int(cudaLaunchAttributeLaunchCompletionEvent) == CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT &&
              int(cudaLaunchAttributeDeviceUpdatableKernelNode) == CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE &&
              int(cudaLaunchAttributePreferredSharedMemoryCarveout) ==
                  CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT &&
              int(cudaLaunchAttributeNvlinkUtilCentricScheduling) == CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING);
static_assert(offsetof(cudaLaunchAttributeValue, preferredClusterDim) ==
                  offsetof(CUlaunchAttributeValue, preferredClusterDim) &&
              offsetof(cudaLaunchAttributeValue, programmaticEvent.flags) ==
                  offsetof(CUlaunchAttributeValue, programmaticEvent.flags) &&
              offsetof(cudaLaunchAttributeValue, launchCompletionEvent.flags) ==
                  offsetof(CUlaunchAttributeValue, launchCompletionEvent.flags) &&
              offsetof(cudaLaunchAttributeValue, deviceUpdatableKernelNode.devNode) ==
                  offsetof(CUlaunchAttributeValue, deviceUpdatableKernelNode.devNode));

shim::Variable* symbol_variable(const void* symbol) {
  shim::Variable* v = Shim::get().variable_for_host(symbol);
  if (!v) std::fprintf(stderr, "ptxsim: %p is not a registered __device__ or __constant__ variable\n", symbol);
  return v;
}

}  // namespace

extern "C" {

// The runtime's stubs (stubs.cmake): report, and leave the error for cudaGetLastError.
int ptxsim_cudart_unsupported(const char* name) { return ret(Shim::get().unsupported(name)); }

// ---- Registration, as nvcc's host stubs call it ----
void** __cudaRegisterFatBinary(void* fatCubin) {
  SHIM_ENTRY();
  return reinterpret_cast<void**>(S.add_fatbin(fatCubin));
}
void __cudaRegisterFatBinaryEnd(void** handle) {}
void __cudaUnregisterFatBinary(void** handle) {}  // state lives until exit: atexit handlers may still call in
char __cudaInitModule(void** handle) { return 1; }
void __cudaRegisterFunction(void** handle, const char* hostFun, char* deviceFun, const char* deviceName, int,
                            uint3*, uint3*, dim3*, dim3*, int*) {
  SHIM_ENTRY();
  S.add_function(reinterpret_cast<shim::Module*>(handle), deviceName, hostFun);
}
void __cudaRegisterVar(void** handle, char* hostVar, char* deviceAddress, const char* deviceName, int ext,
                       size_t size, int constant, int global) {
  SHIM_ENTRY();
  S.add_variable(reinterpret_cast<shim::Module*>(handle), deviceName, size, hostVar);
}
void __cudaRegisterManagedVar(void** handle, void** hostVarPtrAddress, char* deviceAddress, const char* deviceName,
                              int ext, size_t size, int constant, int global) {
  Shim::get().unsupported("__managed__ variables (__cudaRegisterManagedVar)");
}
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) try {
  g_call_stack.push_back({grid, block, shared, stream});
  return 0;
} catch (...) {  // non-zero: nvcc's host code skips the launch; the error is the last error
  ret(shim::escaped_exception("__cudaPushCallConfiguration"));
  return 1;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (g_call_stack.empty()) return cudaErrorInvalidConfiguration;
  CallConfiguration c = g_call_stack.back();
  g_call_stack.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* fun) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(fun);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(f);
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t) {
  return launch(kernel, grid, block, args, smem, false, "__cudaLaunchKernel");
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem,
                                    cudaStream_t s) {
  return __cudaLaunchKernel(kernel, grid, block, args, smem, s);
}

// ---- Launch ----
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t) {
  return launch(func, grid, block, args, smem, false, "cudaLaunchKernel");
}
cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                                        cudaStream_t) {
  return launch(func, grid, block, args, smem, true, "cudaLaunchCooperativeKernel");
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) try {
  if (!config) return ret(cudaErrorInvalidValue);
  shim::LaunchRequest req;
  req.grid = d3(config->gridDim);
  req.block = d3(config->blockDim);
  req.dynamic_shared = uint32_t(config->dynamicSmemBytes);
  req.args = args;
  if (int st = shim::apply_launch_attributes(reinterpret_cast<const CUlaunchAttribute*>(config->attrs),
                                             config->numAttrs, req, "cudaLaunchKernelExC", true))
    return ret(st);
  return launch(func, req, "cudaLaunchKernelExC");
} catch (...) {
  return ret(shim::escaped_exception("cudaLaunchKernelExC"));
}
cudaError_t cudaGetFuncBySymbol(cudaFunction_t* f, const void* symbol) {
  SHIM_ENTRY();
  shim::Function* fn = S.function_for_host(symbol);
  if (!f || !fn) return ret(cudaErrorInvalidDeviceFunction);
  *f = reinterpret_cast<cudaFunction_t>(fn);
  return cudaSuccess;
}

// ---- Devices ----
cudaError_t cudaGetDeviceCount(int* n) {
  if (!n) return ret(cudaErrorInvalidValue);
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  if (!d) return ret(cudaErrorInvalidValue);
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice); }
cudaError_t cudaInitDevice(int d, unsigned int, unsigned int) { return cudaSetDevice(d); }
cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* f) {
  if (f) *f = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int d) {
  if (!v) return ret(cudaErrorInvalidValue);
  if (d != 0) return ret(cudaErrorInvalidDevice);
  return shim::device_attribute(*Shim::get().device, int(attr), *v) ? cudaSuccess : ret(cudaErrorInvalidValue);
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (!p) return ret(cudaErrorInvalidValue);
  if (d != 0) return ret(cudaErrorInvalidDevice);
  const shim::DeviceSpec& s = *Shim::get().device;
  std::memset(p, 0, sizeof *p);
  auto a = [&](cudaDeviceAttr attr) {
    int v = 0;
    shim::device_attribute(s, int(attr), v);
    return v;
  };
  std::snprintf(p->name, sizeof p->name, "%s", s.name);
  std::memcpy(p->uuid.bytes, "ptxsim-device-00", 16);
  p->totalGlobalMem = s.global_bytes;
  p->sharedMemPerBlock = size_t(s.smem_per_block);
  p->regsPerBlock = s.regs_per_block;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = s.max_threads_per_block;
  p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = s.cc_major;
  p->minor = s.cc_minor;
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = s.sm_count;
  p->surfaceAlignment = 512;
  p->concurrentKernels = 1;
  p->ECCEnabled = 1;
  p->pciBusID = a(cudaDevAttrPciBusId);
  p->asyncEngineCount = 2;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = s.memory_bus_width;
  p->l2CacheSize = s.l2_bytes;
  p->persistingL2CacheMaxSize = a(cudaDevAttrMaxPersistingL2CacheSize);
  p->maxThreadsPerMultiProcessor = s.max_threads_per_sm;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = size_t(s.smem_per_sm);
  p->regsPerMultiprocessor = s.regs_per_sm;
  p->computePreemptionSupported = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = size_t(s.smem_per_block_optin);
  p->maxBlocksPerMultiProcessor = s.max_blocks_per_sm;
  p->accessPolicyMaxWindowSize = a(cudaDevAttrMaxAccessPolicyWindowSize);
  p->reservedSharedMemPerBlock = size_t(s.reserved_smem_per_block);
  p->clusterLaunch = 1;
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  SHIM_ENTRY();
  return ret(S.sticky);
}
cudaError_t cudaDeviceReset(void) {
  SHIM_ENTRY();
  S.sticky = shim::kOk;  // a reset clears the sticky error, as on a GPU
  return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return cudaSuccess; }
cudaError_t cudaDeviceGetLimit(size_t* v, cudaLimit limit) {
  if (!v) return ret(cudaErrorInvalidValue);
  switch (limit) {
    case cudaLimitStackSize: *v = 1024; break;
    case cudaLimitPrintfFifoSize: *v = 1 << 20; break;
    case cudaLimitMallocHeapSize: *v = 8 << 20; break;
    default: *v = 0;
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* c) {
  if (c) *c = cudaFuncCachePreferNone;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
  if (can) *can = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* id, int len, int d) {
  if (!id || len <= 0) return ret(cudaErrorInvalidValue);
  if (d != 0) return ret(cudaErrorInvalidDevice);
  std::snprintf(id, size_t(len), "0000:18:00.0");
  return cudaSuccess;
}
cudaError_t cudaChooseDevice(int* d, const cudaDeviceProp*) {
  if (!d) return ret(cudaErrorInvalidValue);
  *d = 0;
  return cudaSuccess;
}
// cuda_profiler_api.h: profiling ranges mean nothing here, and must not fail the program.
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

// ---- Versions ----
cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return ret(cudaErrorInvalidValue);
  *v = 13010;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  if (!v) return ret(cudaErrorInvalidValue);
  *v = 13010;
  return cudaSuccess;
}

// ---- Errors ----
cudaError_t cudaGetLastError(void) {
  SHIM_ENTRY();
  cudaError_t e = g_last_error;
  g_last_error = cudaSuccess;
  return e != cudaSuccess ? e : cudaError_t(S.sticky);  // a sticky error is never cleared
}
cudaError_t cudaPeekAtLastError(void) {
  SHIM_ENTRY();
  return g_last_error != cudaSuccess ? g_last_error : cudaError_t(S.sticky);
}
const char* cudaGetErrorString(cudaError_t e) { return shim::status_string(int(e)); }
const char* cudaGetErrorName(cudaError_t e) { return shim::status_name_runtime(int(e)); }

// ---- Memory ----
cudaError_t cudaMalloc(void** p, size_t bytes) {
  SHIM_ENTRY();
  STICKY_CHECK();
  if (!p) return ret(cudaErrorInvalidValue);
  uint64_t a = 0;
  int st = S.malloc_device(a, bytes);
  *p = st ? nullptr : reinterpret_cast<void*>(a);
  return ret(st);
}
cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return ret(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(p, *pitch * height);
}
cudaError_t cudaFree(void* p) {
  SHIM_ENTRY();
  STICKY_CHECK();
  return ret(S.free_device(reinterpret_cast<uint64_t>(p)));
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return cudaFree(p); }
cudaError_t cudaMallocHost(void** p, size_t bytes) {
  SHIM_ENTRY();
  if (!p) return ret(cudaErrorInvalidValue);
  *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096 + 4096);
  if (!*p) return ret(cudaErrorMemoryAllocation);
  g_pinned.insert(*p);
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int) { return cudaMallocHost(p, bytes); }
cudaError_t cudaFreeHost(void* p) {
  SHIM_ENTRY();
  g_pinned.erase(p);
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaHostRegister(void*, size_t, unsigned int) { return cudaSuccess; }  // host memory stays host memory
cudaError_t cudaHostUnregister(void*) { return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  SHIM_ENTRY();
  if (free_bytes) *free_bytes = S.device->global_bytes;
  if (total) *total = S.device->global_bytes;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* ptr) {
  SHIM_ENTRY();
  if (!a) return ret(cudaErrorInvalidValue);
  std::memset(a, 0, sizeof *a);
  if (S.is_device(reinterpret_cast<uint64_t>(ptr))) {
    a->type = cudaMemoryTypeDevice;
    a->devicePointer = const_cast<void*>(ptr);
  } else {
    a->type = g_pinned.count(const_cast<void*>(ptr)) ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered;
    a->hostPointer = const_cast<void*>(ptr);
    a->device = -2;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  SHIM_ENTRY();
  STICKY_CHECK();
  int k = copy_kind(kind);
  if (k < 0) return ret(cudaErrorInvalidMemcpyDirection);
  return ret(S.copy(dst, src, n, k));
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, n, kind);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                         cudaMemcpyKind kind) {
  SHIM_ENTRY();
  STICKY_CHECK();
  int k = copy_kind(kind);
  if (k < 0) return ret(cudaErrorInvalidMemcpyDirection);
  return ret(S.copy_2d(dst, dpitch, src, spitch, w, h, k));
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                              cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, w, h, kind);
}
cudaError_t cudaMemset(void* p, int v, size_t n) {
  SHIM_ENTRY();
  STICKY_CHECK();
  return ret(S.memset_device(reinterpret_cast<uint64_t>(p), v, n));
}
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t) { return cudaMemset(p, v, n); }
cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t w, size_t h) {
  for (size_t r = 0; r < h; ++r)
    if (cudaError_t e = cudaMemset(static_cast<char*>(p) + r * pitch, v, w)) return e;
  return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void* p, size_t pitch, int v, size_t w, size_t h, cudaStream_t) {
  return cudaMemset2D(p, pitch, v, w, h);
}

// ---- Symbols ----
cudaError_t cudaGetSymbolAddress(void** p, const void* symbol) {
  SHIM_ENTRY();
  STICKY_CHECK();
  shim::Variable* v = symbol_variable(symbol);
  if (!v || !p) return ret(cudaErrorInvalidSymbol);
  uint64_t a = 0;
  if (int st = S.variable_address(*v, a)) return ret(st == shim::kNotFound ? cudaErrorInvalidSymbol : st);
  *p = reinterpret_cast<void*>(a);
  return cudaSuccess;
}
cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  SHIM_ENTRY();
  shim::Variable* v = symbol_variable(symbol);
  if (!v || !size) return ret(cudaErrorInvalidSymbol);
  *size = v->size;
  return cudaSuccess;
}
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset, cudaMemcpyKind kind) {
  void* base = nullptr;
  if (cudaError_t e = cudaGetSymbolAddress(&base, symbol)) return e;
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return ret(cudaErrorInvalidMemcpyDirection);
  return cudaMemcpy(static_cast<char*>(base) + offset, src, n, kind);
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, cudaMemcpyKind kind) {
  void* base = nullptr;
  if (cudaError_t e = cudaGetSymbolAddress(&base, symbol)) return e;
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return ret(cudaErrorInvalidMemcpyDirection);
  return cudaMemcpy(dst, static_cast<char*>(base) + offset, n, kind);
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t n, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyToSymbol(symbol, src, n, offset, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t n, size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, symbol, n, offset, kind);
}

// ---- Streams and events (executed in order at the call) ----
cudaError_t cudaStreamCreate(cudaStream_t* s) { return ret(cuStreamCreate(reinterpret_cast<CUstream*>(s), 0)); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int f) {
  return ret(cuStreamCreate(reinterpret_cast<CUstream*>(s), f));
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int f, int) { return cudaStreamCreateWithFlags(s, f); }
cudaError_t cudaStreamDestroy(cudaStream_t s) { return ret(cuStreamDestroy(reinterpret_cast<CUstream>(s))); }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaDeviceSynchronize(); }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t* e) { return ret(cuEventCreate(reinterpret_cast<CUevent*>(e), 0)); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int f) {
  return ret(cuEventCreate(reinterpret_cast<CUevent*>(e), f));
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { return ret(cuEventDestroy(reinterpret_cast<CUevent>(e))); }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  return ret(cuEventRecord(reinterpret_cast<CUevent>(e), reinterpret_cast<CUstream>(s)));
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int) { return cudaEventRecord(e, s); }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaDeviceSynchronize(); }
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  return ret(cuEventElapsedTime(ms, reinterpret_cast<CUevent>(a), reinterpret_cast<CUevent>(b)));
}

cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int* flags) {
  if (!flags) return ret(cudaErrorInvalidValue);
  *flags = s ? reinterpret_cast<shim::Stream*>(s)->flags : 0;
  return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t, int* priority) {
  if (!priority) return ret(cudaErrorInvalidValue);
  *priority = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamGetId(cudaStream_t s, unsigned long long* id) {
  if (!id) return ret(cudaErrorInvalidValue);
  *id = reinterpret_cast<unsigned long long>(s);
  return cudaSuccess;
}
// Host functions run at once: everything enqueued before them has already completed.
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* data) {
  if (!fn) return ret(cudaErrorInvalidValue);
  fn(data);
  return cudaSuccess;
}
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t fn, void* data, unsigned int) {
  if (!fn) return ret(cudaErrorInvalidValue);
  fn(s, cudaError_t(Shim::get().sticky), data);
  return cudaSuccess;
}

// ---- Function attributes and occupancy ----
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  return ret(shim::set_function_attribute(*f, int(attr), value));
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* func) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  if (!a) return ret(cudaErrorInvalidValue);
  int v[16] = {};
  for (int i = 0; i < 16; ++i)
    if (int st = shim::function_attribute(*f, i, v[i])) return ret(st);
  std::memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = v[0];
  a->sharedSizeBytes = size_t(v[1]);
  a->constSizeBytes = size_t(v[2]);
  a->localSizeBytes = size_t(v[3]);
  a->numRegs = v[4];
  a->ptxVersion = v[5];
  a->binaryVersion = v[6];
  a->cacheModeCA = v[7];
  a->maxDynamicSharedSizeBytes = v[8];
  a->preferredShmemCarveout = v[9];
  a->clusterDimMustBeSet = v[10];
  a->requiredClusterWidth = v[11];
  a->requiredClusterHeight = v[12];
  a->requiredClusterDepth = v[13];
  a->nonPortableClusterSizeAllowed = v[14];
  a->clusterSchedulingPolicyPreference = v[15];
  return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void*, cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void* func, int block, size_t smem) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  if (!n) return ret(cudaErrorInvalidValue);
  return ret(shim::occupancy(*f, block, smem, *n));
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void* func, int block, size_t smem,
                                                                   unsigned int) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, func, block, smem);
}
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* smem, const void* func, int blocks, int block) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  if (!smem || blocks <= 0) return ret(cudaErrorInvalidValue);
  int static_smem = 0;
  if (int st = shim::function_attribute(*f, 1, static_smem)) return ret(st);
  const shim::DeviceSpec& d = *S.device;
  int64_t per_block = d.smem_per_sm / blocks - d.reserved_smem_per_block - static_smem;
  *smem = size_t(std::max<int64_t>(0, std::min<int64_t>(per_block, d.smem_per_block_optin - static_smem)));
  return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char** name, const void* func) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  if (!name) return ret(cudaErrorInvalidValue);
  *name = f->name.c_str();  // the mangled name, like NVIDIA's runtime
  return cudaSuccess;
}
cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* func) { return __cudaGetKernel(kernel, func); }

// Cluster occupancy: every SM is treated as able to host any CTA of a cluster (no GPC
// boundaries), so the counts are upper bounds of the hardware's.
static int cluster_size_of(shim::Function& f, const cudaLaunchConfig_t* c) {
  for (unsigned i = 0; c && i < c->numAttrs; ++i)
    if (c->attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto& d = c->attrs[i].val.clusterDim;
      return int(d.x * d.y * d.z);
    }
  int dims[3] = {1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    int v = 0;
    if (shim::function_attribute(f, 11 + i, v) == shim::kOk && v > 0) dims[i] = v;
  }
  return dims[0] * dims[1] * dims[2];
}
cudaError_t cudaOccupancyMaxActiveClusters(int* n, const void* func, const cudaLaunchConfig_t* config) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  if (!n || !config) return ret(cudaErrorInvalidValue);
  int per_sm = 0;
  int threads = int(config->blockDim.x * config->blockDim.y * config->blockDim.z);
  if (int st = shim::occupancy(*f, threads, config->dynamicSmemBytes, per_sm)) return ret(st);
  int cluster = cluster_size_of(*f, config);
  *n = cluster > 0 ? S.device->sm_count * per_sm / cluster : 0;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* size, const void* func, const cudaLaunchConfig_t* config) {
  SHIM_ENTRY();
  shim::Function* f = S.function_for_host(func);
  if (!f) return ret(cudaErrorInvalidDeviceFunction);
  if (!size) return ret(cudaErrorInvalidValue);
  *size = f->non_portable_cluster ? S.device->max_cluster_size_nonportable : S.device->max_cluster_size_portable;
  return cudaSuccess;
}

// ---- Driver entry points ----
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fp, unsigned int version,
                                             unsigned long long flags, cudaDriverEntryPointQueryResult* status) {
  if (!symbol || !fp) return ret(cudaErrorInvalidValue);
  *fp = shim::driver_proc(symbol);
  if (status) *status = *fp ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return *fp || status ? cudaSuccess : ret(cudaErrorSymbolNotFound);
}
cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fp, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* status) {
  return cudaGetDriverEntryPointByVersion(symbol, fp, 13010, flags, status);
}

}  // extern "C"

// Per-thread-default-stream spellings (-default-stream per-thread): the same functions, since
// all work runs in order at the call.
#define PTXSIM_SAME_AS(name, target) \
  extern "C" decltype(target) name __attribute__((alias(#target)));
PTXSIM_SAME_AS(cudaLaunchKernel_ptsz, cudaLaunchKernel)
PTXSIM_SAME_AS(cudaLaunchKernelExC_ptsz, cudaLaunchKernelExC)
PTXSIM_SAME_AS(cudaLaunchCooperativeKernel_ptsz, cudaLaunchCooperativeKernel)
PTXSIM_SAME_AS(cudaMemcpy_ptds, cudaMemcpy)
PTXSIM_SAME_AS(cudaMemcpyAsync_ptsz, cudaMemcpyAsync)
PTXSIM_SAME_AS(cudaMemcpy2D_ptds, cudaMemcpy2D)
PTXSIM_SAME_AS(cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync)
PTXSIM_SAME_AS(cudaMemset_ptds, cudaMemset)
PTXSIM_SAME_AS(cudaMemsetAsync_ptsz, cudaMemsetAsync)
PTXSIM_SAME_AS(cudaMemset2D_ptds, cudaMemset2D)
PTXSIM_SAME_AS(cudaMemset2DAsync_ptsz, cudaMemset2DAsync)
PTXSIM_SAME_AS(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol)
PTXSIM_SAME_AS(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol)
PTXSIM_SAME_AS(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync)
PTXSIM_SAME_AS(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync)
PTXSIM_SAME_AS(cudaStreamSynchronize_ptsz, cudaStreamSynchronize)
PTXSIM_SAME_AS(cudaStreamQuery_ptsz, cudaStreamQuery)
PTXSIM_SAME_AS(cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent)
PTXSIM_SAME_AS(cudaEventRecord_ptsz, cudaEventRecord)
PTXSIM_SAME_AS(cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags)
PTXSIM_SAME_AS(cudaMallocAsync_ptsz, cudaMallocAsync)
PTXSIM_SAME_AS(cudaFreeAsync_ptsz, cudaFreeAsync)
PTXSIM_SAME_AS(cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc)
PTXSIM_SAME_AS(cudaStreamAddCallback_ptsz, cudaStreamAddCallback)
PTXSIM_SAME_AS(cudaStreamGetFlags_ptsz, cudaStreamGetFlags)
PTXSIM_SAME_AS(cudaStreamGetPriority_ptsz, cudaStreamGetPriority)
PTXSIM_SAME_AS(cudaStreamGetId_ptsz, cudaStreamGetId)
