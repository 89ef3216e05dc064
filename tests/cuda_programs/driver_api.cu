// The driver API as JIT launchers use it: modules loaded from PTX text and from a fat binary file,
// cuLaunchKernel with both parameter forms, cuLaunchKernelEx with a cluster attribute,
// cuGetProcAddress.
#include <cuda.h>

#include <cstring>
#include <vector>

#include "check.h"

#define CU(call)                                                                            \
  do {                                                                                      \
    CUresult r_ = (call);                                                                   \
    if (r_ != CUDA_SUCCESS) {                                                               \
      const char* name = nullptr;                                                           \
      cuGetErrorName(r_, &name);                                                            \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, name);      \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

// out[i] = in[i] * k + %cluster_ctarank
static const char kPtx[] = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry scale_add(.param .u64 in, .param .u64 out, .param .u32 k, .param .u32 n)
{
  .reg .u32 %r<8>;
  .reg .u64 %rd<6>;
  .reg .pred %p;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  setp.ge.u32 %p, %r4, %r5;
  @%p bra done;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r6, [%rd4];
  ld.param.u32 %r7, [k];
  mov.u32 %r5, %cluster_ctarank;
  mad.lo.u32 %r6, %r6, %r7, %r5;
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r6;
done:
  ret;
}
)";

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  const unsigned n = 1000, k = 1 + rng() % 50;
  std::vector<unsigned> in(n), out(n);
  for (unsigned& v : in) v = rng() % 100000;

  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  int major = 0, sms = 0;
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  EXPECT(major == 9 && sms == 132);
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPtx));
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, "scale_add"));
  EXPECT(cuModuleGetFunction(&fn, mod, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
  CU(cuModuleGetFunction(&fn, mod, "scale_add"));
  CUdeviceptr din, dout;
  CU(cuMemAlloc(&din, n * 4));
  CU(cuMemAlloc(&dout, n * 4));
  CU(cuMemcpyHtoD(din, in.data(), n * 4));
  CU(cuMemsetD8(dout, 0xff, n * 4));

  // Parameter pointers, no cluster: rank 0 everywhere.
  void* params[] = {&din, &dout, (void*)&k, (void*)&n};
  CU(cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  CU(cuMemcpyDtoH(out.data(), dout, n * 4));
  for (unsigned i = 0; i < n; ++i) EXPECT(out[i] == in[i] * k);

  // Clusters of 4 through cuLaunchKernelEx, parameters as one buffer (CU_LAUNCH_PARAM_BUFFER_*).
  struct { CUdeviceptr in, out; unsigned k, n; } buf{din, dout, k, n};
  size_t size = sizeof buf;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CUlaunchAttribute attr;
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = 4, attr.value.clusterDim.y = 1, attr.value.clusterDim.z = 1;
  CUlaunchConfig cfg = {};
  cfg.gridDimX = 8, cfg.gridDimY = 1, cfg.gridDimZ = 1;
  cfg.blockDimX = 128, cfg.blockDimY = 1, cfg.blockDimZ = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CU(cuMemsetD8(dout, 0xff, n * 4));
  CU(cuLaunchKernelEx(&cfg, fn, nullptr, extra));
  CU(cuMemcpyDtoH(out.data(), dout, n * 4));
  for (unsigned i = 0; i < n; ++i) EXPECT(out[i] == in[i] * k + (i / 128) % 4);

  // A stand-alone fat binary (nvcc -fatbin, zstd-compressed PTX) through cuModuleLoad.
  CUmodule fatbin_mod;
  CU(cuModuleLoad(&fatbin_mod, PTXSIM_FATBIN_PATH));
  CUfunction add_one;
  CU(cuModuleGetFunction(&add_one, fatbin_mod, "add_one"));
  CU(cuMemcpyHtoD(dout, in.data(), n * 4));
  void* add_params[] = {&dout, (void*)&n};
  CU(cuLaunchKernel(add_one, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, add_params, nullptr));
  CU(cuMemcpyDtoH(out.data(), dout, n * 4));
  for (unsigned i = 0; i < n; ++i) EXPECT(out[i] == in[i] + 1);
  CU(cuModuleUnload(fatbin_mod));

  void* encode = nullptr;
  CUdriverProcAddressQueryResult found;
  CU(cuGetProcAddress("cuTensorMapEncodeTiled", &encode, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found));
  EXPECT(encode != nullptr && found == CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT(cuGetProcAddress("cuNoSuchFunction", &encode, 12000, 0, &found) == CUDA_ERROR_NOT_FOUND);
  const char* s = nullptr;
  CU(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
  EXPECT(std::strcmp(s, "an illegal memory access was encountered") == 0);
  CU(cuMemFree(din));
  CU(cuModuleUnload(mod));

  // A fault through the driver API: CUDA_ERROR_ILLEGAL_ADDRESS, sticky for later calls.
  CU(cuModuleLoad(&fatbin_mod, PTXSIM_FATBIN_PATH));
  CU(cuModuleGetFunction(&add_one, fatbin_mod, "add_one"));
  const unsigned too_many = n + 64;
  void* bad_params[] = {&dout, (void*)&too_many};
  CUresult fault = cuLaunchKernel(add_one, (too_many + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, bad_params, nullptr);
  EXPECT(fault == CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT(cuMemAlloc(&din, 16) == CUDA_ERROR_ILLEGAL_ADDRESS);
  std::printf("driver_api: PASS\n");
  return 0;
}
