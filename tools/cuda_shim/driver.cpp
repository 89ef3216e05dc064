// ptxsim's libcuda.so.1: the CUDA driver API over the Shim (shim.h). Functions are defined with
// cuda.h's prototypes, so its macros give them the versioned names (cuMemAlloc_v2, cuCtxCreate_v4)
// programs import; everything the real library exports that is not here is a stub (stubs.cmake).
#include <cuda.h>
#include <dlfcn.h>

// cuDeviceComputeCapability is deprecated but still exported and still called.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>

#include "model/tensormap/encoder.h"
#include "sim/exec/program.h"
#include "tools/cuda_shim/shim.h"

using ptxsim::cuda_shim::Shim;
namespace shim = ptxsim::cuda_shim;
namespace tmap = ptxsim::model::tmap;

extern "C" int ptxsim_cuda_unsupported(const char* name) { return Shim::get().unsupported(name); }

namespace {

struct PrimaryContext {
  int device = 0;
  unsigned flags = 0;
  int retained = 0;
} g_context;
thread_local CUcontext g_current = nullptr;

CUcontext primary() { return reinterpret_cast<CUcontext>(&g_context); }

#define SHIM_ENTRY()                                          \
  Shim& S = Shim::get();                                      \
  std::lock_guard<std::recursive_mutex> shim_lock(S.mu);      \
  (void)S

CUresult R(int status) {
  if (status == shim::kInvalidConfiguration) return CUDA_ERROR_INVALID_VALUE;
  if (status == shim::kInvalidResourceHandle) return CUDA_ERROR_INVALID_HANDLE;
  return CUresult(status);
}

uint64_t dptr(CUdeviceptr p) { return uint64_t(p); }

}  // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  SHIM_ENTRY();
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = 13010;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* n) {
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  *n = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, size_t(len), "%s", Shim::get().device->name);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  return shim::device_attribute(*Shim::get().device, int(a), *v) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice d) {
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = Shim::get().device->global_bytes;
  return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice d) {
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  *major = Shim::get().device->cc_major;
  *minor = Shim::get().device->cc_minor;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice d) {
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(uuid->bytes, "ptxsim-device-00", 16);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(id, size_t(len), "0000:18:00.0");
  return CUDA_SUCCESS;
}

// Contexts: the device has one context, the primary one; cuCtxCreate returns it too.
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  ++g_context.retained;
  *c = primary();
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
  if (g_context.retained) --g_context.retained;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset(CUdevice d) { return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned int flags) {
  g_context.flags = flags;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int* flags, int* active) {
  if (flags) *flags = g_context.flags;
  if (active) *active = g_context.retained > 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxCreate(CUcontext* c, CUctxCreateParams* params, unsigned int flags, CUdevice d) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  ++g_context.retained;
  g_current = *c = primary();
  return CUDA_SUCCESS;
}
CUresult cuCtxDestroy(CUcontext c) {
  if (g_current == c) g_current = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = g_current;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  g_current = c;
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext c) {
  g_current = c;
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext* c) {
  if (c) *c = g_current;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* d) {
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) {
  SHIM_ENTRY();
  return CUresult(S.sticky);
}
CUresult cuCtxGetApiVersion(CUcontext c, unsigned int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = 13010;
  return CUDA_SUCCESS;
}

// Modules: PTX text or a fat binary image (cuModuleLoadData's two forms).
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  SHIM_ENTRY();
  if (!m || !image) return CUDA_ERROR_INVALID_VALUE;
  shim::Module* mod = shim::is_fatbin_image(image) ? S.add_fatbin(image)
                                                   : S.add_ptx(std::string(static_cast<const char*>(image)));
  if (int st = S.load(*mod)) {
    std::cerr << "ptxsim: cuModuleLoadData: " << mod->label << " " << mod->load_error << "\n";
    S.remove_module(mod);
    return R(st);
  }
  *m = reinterpret_cast<CUmodule>(mod);
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned int n, CUjit_option* o, void** v) {
  return cuModuleLoadData(m, image);
}
CUresult cuModuleLoadFatBinary(CUmodule* m, const void* image) { return cuModuleLoadData(m, image); }
CUresult cuModuleLoad(CUmodule* m, const char* path) {
  if (!path) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream f(path, std::ios::binary);
  if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
  std::stringstream ss;
  ss << f.rdbuf();
  static std::vector<std::unique_ptr<std::string>> images;  // a fat binary must outlive its module
  images.push_back(std::make_unique<std::string>(ss.str()));
  return cuModuleLoadData(m, images.back()->c_str());
}
CUresult cuModuleUnload(CUmodule m) {
  SHIM_ENTRY();
  S.remove_module(reinterpret_cast<shim::Module*>(m));
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  SHIM_ENTRY();
  if (!f || !m || !name) return CUDA_ERROR_INVALID_VALUE;
  auto* mod = reinterpret_cast<shim::Module*>(m);
  const ptxsim::Function* fn = mod->program ? mod->program->find(name) : nullptr;
  if (!fn || !fn->is_entry) return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(S.function_in(mod, name));
  return CUDA_SUCCESS;
}
CUresult cuModuleGetGlobal(CUdeviceptr* p, size_t* bytes, CUmodule m, const char* name) {
  SHIM_ENTRY();
  if (!m || !name) return CUDA_ERROR_INVALID_VALUE;
  auto* mod = reinterpret_cast<shim::Module*>(m);
  for (const ptxsim::ModuleVariable& mv : mod->program->module_vars)
    if (mv.name == name) {
      if (p) *p = CUdeviceptr(mv.address);
      if (bytes) *bytes = mv.init.size();
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

// Launch. No exception leaves these (Shim::launch catches the simulator's; these catch the rest).
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream s, void** params, void** extra) try {
  SHIM_ENTRY();
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  shim::LaunchRequest req;
  req.grid = {gx, gy, gz};
  req.block = {bx, by, bz};
  req.dynamic_shared = smem;
  req.args = params;
  req.extra = extra;
  return R(S.launch(*reinterpret_cast<shim::Function*>(f), req));
} catch (...) {
  return R(shim::escaped_exception("cuLaunchKernel"));
}
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned smem, CUstream, void** params) try {
  SHIM_ENTRY();
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  shim::LaunchRequest req;
  req.grid = {gx, gy, gz};
  req.block = {bx, by, bz};
  req.dynamic_shared = smem;
  req.args = params;
  req.cooperative = true;
  return R(S.launch(*reinterpret_cast<shim::Function*>(f), req));
} catch (...) {
  return R(shim::escaped_exception("cuLaunchCooperativeKernel"));
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) try {
  SHIM_ENTRY();
  if (!c || !f) return CUDA_ERROR_INVALID_VALUE;
  shim::LaunchRequest req;
  req.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
  req.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
  req.dynamic_shared = c->sharedMemBytes;
  req.args = params;
  req.extra = extra;
  if (int st = shim::apply_launch_attributes(c->attrs, c->numAttrs, req, "cuLaunchKernelEx", false)) return R(st);
  return R(S.launch(*reinterpret_cast<shim::Function*>(f), req));
} catch (...) {
  return R(shim::escaped_exception("cuLaunchKernelEx"));
}

CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  SHIM_ENTRY();
  if (!v || !f) return CUDA_ERROR_INVALID_VALUE;
  return R(shim::function_attribute(*reinterpret_cast<shim::Function*>(f), int(a), *v));
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  SHIM_ENTRY();
  if (!f) return CUDA_ERROR_INVALID_VALUE;
  return R(shim::set_function_attribute(*reinterpret_cast<shim::Function*>(f), int(a), v));
}
CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache c) { return CUDA_SUCCESS; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction f, int block, size_t smem) {
  SHIM_ENTRY();
  if (!n || !f) return CUDA_ERROR_INVALID_VALUE;
  return R(shim::occupancy(*reinterpret_cast<shim::Function*>(f), block, smem, *n));
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, CUfunction f, int block, size_t smem, unsigned) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, smem);
}

// Memory.
CUresult cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  uint64_t a = 0;
  int st = S.malloc_device(a, bytes);
  *p = CUdeviceptr(a);
  return R(st);
}
CUresult cuMemFree(CUdeviceptr p) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  return R(S.free_device(dptr(p)));
}
CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
  SHIM_ENTRY();
  if (free_bytes) *free_bytes = S.device->global_bytes;
  if (total) *total = S.device->global_bytes;
  return CUDA_SUCCESS;
}
CUresult cuMemAllocHost(void** p, size_t bytes) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096 + 4096);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned int flags) { return cuMemAllocHost(p, bytes); }
CUresult cuMemFreeHost(void* p) {
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  return R(S.copy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n, 4));
}
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  return R(S.copy(reinterpret_cast<void*>(dst), src, n, 1));
}
CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t n) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  return R(S.copy(dst, reinterpret_cast<const void*>(src), n, 2));
}
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  return R(S.copy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n, 3));
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream) { return cuMemcpy(dst, src, n); }
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t n, CUstream) { return cuMemcpyHtoD(dst, src, n); }
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t n, CUstream) { return cuMemcpyDtoH(dst, src, n); }
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream) { return cuMemcpyDtoD(dst, src, n); }
CUresult cuMemsetD8(CUdeviceptr p, unsigned char v, size_t n) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  return R(S.memset_device(dptr(p), v, n));
}
CUresult cuMemsetD32(CUdeviceptr p, unsigned int v, size_t n) {
  SHIM_ENTRY();
  if (S.sticky) return CUresult(S.sticky);
  uint8_t* q = S.memory.translate(dptr(p), n * 4);
  if (!q) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; ++i) std::memcpy(q + 4 * i, &v, 4);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream) { return cuMemsetD8(p, v, n); }
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int v, size_t n, CUstream) { return cuMemsetD32(p, v, n); }
CUresult cuMemGetAddressRange(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  SHIM_ENTRY();
  const auto* a = S.memory.find(dptr(p));
  if (!a) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = CUdeviceptr(a->base);
  if (size) *size = a->bytes.size();
  return CUDA_SUCCESS;
}

// Streams and events: work runs at the call, so streams are always idle and events complete.
CUresult cuStreamCreate(CUstream* s, unsigned int flags) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = reinterpret_cast<CUstream>(new shim::Stream{flags});
  return CUDA_SUCCESS;
}
CUresult cuStreamCreateWithPriority(CUstream* s, unsigned int flags, int) { return cuStreamCreate(s, flags); }
CUresult cuStreamDestroy(CUstream s) {
  delete reinterpret_cast<shim::Stream*>(s);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return cuCtxSynchronize(); }
CUresult cuStreamQuery(CUstream) { return cuCtxSynchronize(); }
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent* e, unsigned int) {
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  *e = reinterpret_cast<CUevent>(new shim::Event);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<shim::Event*>(e);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream) {
  SHIM_ENTRY();
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  auto* ev = reinterpret_cast<shim::Event*>(e);
  ev->sim_ns = S.sim_ns;
  ev->recorded = true;
  return CUDA_SUCCESS;
}
CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int) { return cuEventRecord(e, s); }
CUresult cuEventSynchronize(CUevent e) { return cuCtxSynchronize(); }
CUresult cuEventQuery(CUevent e) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  if (!ms || !a || !b) return CUDA_ERROR_INVALID_VALUE;
  auto *ea = reinterpret_cast<shim::Event*>(a), *eb = reinterpret_cast<shim::Event*>(b);
  if (!ea->recorded || !eb->recorded) return CUDA_ERROR_INVALID_HANDLE;
  *ms = float((eb->sim_ns - ea->sim_ns) * 1e-6);
  return CUDA_SUCCESS;
}

// Tensor maps: the model's encoder (model/tensormap/encoder.h) with the driver's validation.
static CUresult tensormap_result(const tmap::EncodeResult& r, const char* fn) {
  if (!r.ok()) std::fprintf(stderr, "ptxsim: %s: %s\n", fn, r.message.c_str());
  return CUresult(r.code);
}
CUresult cuTensorMapEncodeTiled(CUtensorMap* m, CUtensorMapDataType dt, cuuint32_t rank, void* addr,
                                const cuuint64_t* dim, const cuuint64_t* strides, const cuuint32_t* box,
                                const cuuint32_t* estrides, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  return tensormap_result(
      tmap::encode_tiled(reinterpret_cast<tmap::CUtensorMap*>(m), tmap::DataType(dt), rank, uint64_t(addr), dim,
                         strides, box, estrides, tmap::Interleave(il), tmap::Swizzle(sw), tmap::L2Promotion(l2),
                         tmap::OobFill(oob)),
      "cuTensorMapEncodeTiled");
}
CUresult cuTensorMapEncodeIm2col(CUtensorMap* m, CUtensorMapDataType dt, cuuint32_t rank, void* addr,
                                 const cuuint64_t* dim, const cuuint64_t* strides, const int* lower, const int* upper,
                                 cuuint32_t channels, cuuint32_t pixels, const cuuint32_t* estrides,
                                 CUtensorMapInterleave il, CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                 CUtensorMapFloatOOBfill oob) {
  return tensormap_result(
      tmap::encode_im2col(reinterpret_cast<tmap::CUtensorMap*>(m), tmap::DataType(dt), rank, uint64_t(addr), dim,
                          strides, lower, upper, channels, pixels, estrides, tmap::Interleave(il), tmap::Swizzle(sw),
                          tmap::L2Promotion(l2), tmap::OobFill(oob)),
      "cuTensorMapEncodeIm2col");
}
CUresult cuTensorMapEncodeIm2colWide(CUtensorMap* m, CUtensorMapDataType dt, cuuint32_t rank, void* addr,
                                     const cuuint64_t* dim, const cuuint64_t* strides, int lower, int upper,
                                     cuuint32_t channels, cuuint32_t pixels, const cuuint32_t* estrides,
                                     CUtensorMapInterleave il, CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle sw,
                                     CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  if (Shim::get().device->cc_major < 10) {
    std::fprintf(stderr, "ptxsim: cuTensorMapEncodeIm2colWide needs compute capability 10.0 (use --device b200)\n");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return tensormap_result(
      tmap::encode_im2col_wide(reinterpret_cast<tmap::CUtensorMap*>(m), tmap::DataType(dt), rank, uint64_t(addr),
                               dim, strides, lower, upper, channels, pixels, estrides, tmap::Interleave(il),
                               tmap::Im2colWideMode(mode), tmap::Swizzle(sw), tmap::L2Promotion(l2),
                               tmap::OobFill(oob)),
      "cuTensorMapEncodeIm2colWide");
}
CUresult cuTensorMapReplaceAddress(CUtensorMap* m, void* addr) {
  return tensormap_result(tmap::replace_address(reinterpret_cast<tmap::CUtensorMap*>(m), uint64_t(addr)),
                          "cuTensorMapReplaceAddress");
}

// Errors.
CUresult cuGetErrorString(CUresult e, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = shim::status_string(int(e));
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult e, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = shim::status_name_driver(int(e));
  return CUDA_SUCCESS;
}

}  // extern "C"

// cuGetProcAddress: the implemented functions by their unversioned names; any other name the
// real driver exports resolves to its stub (which reports "not supported" when called).
namespace {

#define PROC(name) {#name, reinterpret_cast<void*>(&name)}
const std::unordered_map<std::string, void*>& procs() {
  static const std::unordered_map<std::string, void*> m = {
      PROC(cuInit), PROC(cuDriverGetVersion), PROC(cuDeviceGetCount), PROC(cuDeviceGet), PROC(cuDeviceGetName),
      PROC(cuDeviceGetAttribute), PROC(cuDeviceTotalMem), PROC(cuDeviceComputeCapability), PROC(cuDeviceGetUuid),
      PROC(cuDeviceGetPCIBusId), PROC(cuDevicePrimaryCtxRetain), PROC(cuDevicePrimaryCtxRelease),
      PROC(cuDevicePrimaryCtxReset), PROC(cuDevicePrimaryCtxSetFlags), PROC(cuDevicePrimaryCtxGetState),
      PROC(cuCtxCreate), PROC(cuCtxDestroy), PROC(cuCtxGetCurrent), PROC(cuCtxSetCurrent), PROC(cuCtxPushCurrent),
      PROC(cuCtxPopCurrent), PROC(cuCtxGetDevice), PROC(cuCtxSynchronize), PROC(cuCtxGetApiVersion),
      PROC(cuModuleLoadData), PROC(cuModuleLoadDataEx), PROC(cuModuleLoadFatBinary), PROC(cuModuleLoad),
      PROC(cuModuleUnload), PROC(cuModuleGetFunction), PROC(cuModuleGetGlobal), PROC(cuLaunchKernel),
      PROC(cuLaunchCooperativeKernel), PROC(cuLaunchKernelEx), PROC(cuFuncGetAttribute), PROC(cuFuncSetAttribute),
      PROC(cuFuncSetCacheConfig), PROC(cuOccupancyMaxActiveBlocksPerMultiprocessor),
      PROC(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags), PROC(cuMemAlloc), PROC(cuMemFree),
      PROC(cuMemGetInfo), PROC(cuMemAllocHost), PROC(cuMemHostAlloc), PROC(cuMemFreeHost), PROC(cuMemcpy),
      PROC(cuMemcpyHtoD), PROC(cuMemcpyDtoH), PROC(cuMemcpyDtoD), PROC(cuMemcpyAsync), PROC(cuMemcpyHtoDAsync),
      PROC(cuMemcpyDtoHAsync), PROC(cuMemcpyDtoDAsync), PROC(cuMemsetD8), PROC(cuMemsetD32), PROC(cuMemsetD8Async),
      PROC(cuMemsetD32Async), PROC(cuMemGetAddressRange), PROC(cuStreamCreate), PROC(cuStreamCreateWithPriority),
      PROC(cuStreamDestroy), PROC(cuStreamSynchronize), PROC(cuStreamQuery), PROC(cuStreamWaitEvent),
      PROC(cuEventCreate), PROC(cuEventDestroy), PROC(cuEventRecord), PROC(cuEventRecordWithFlags),
      PROC(cuEventSynchronize), PROC(cuEventQuery), PROC(cuEventElapsedTime), PROC(cuTensorMapEncodeTiled),
      PROC(cuTensorMapEncodeIm2col), PROC(cuTensorMapEncodeIm2colWide), PROC(cuTensorMapReplaceAddress),
      PROC(cuGetErrorString), PROC(cuGetErrorName), PROC(cuGetProcAddress),
  };
  return m;
}
#undef PROC

}  // namespace

extern "C" CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult* status) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  void* f = ptxsim::cuda_shim::driver_proc(symbol);
  *pfn = f;
  if (status) *status = f ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return f ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

void* ptxsim::cuda_shim::driver_proc(const char* symbol) {
  auto& m = procs();
  if (auto it = m.find(symbol); it != m.end()) return it->second;
  static void* self = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&ptxsim_cuda_unsupported), &info);
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  }();
  if (!self) return nullptr;
  for (const char* suffix : {"_v4", "_v3", "_v2", ""})
    if (void* f = dlsym(self, (std::string(symbol) + suffix).c_str())) return f;
  return nullptr;
}
