// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") rather than linked: a binary
// linked against the toolkit's stub libcuda.so cannot even start where no driver is installed
// (the loader fails before main with exit 127), while ptxsim-hw must say clearly that there is
// no driver or no device and exit 1. Declarations come from the toolkit's cuda.h; each entry point
// is looked up by the versioned name cuda.h maps it to (cuMemAlloc -> cuMemAlloc_v2).
#pragma once
#include <cuda.h>

#include <string>

namespace ptxsim::hw {

#define PTXSIM_CUDA_FUNCTIONS(X)                                                                  \
  X(cuInit) X(cuGetErrorName) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)            \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent)       \
  X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuFuncSetAttribute) X(cuMemAlloc) X(cuMemFree)   \
  X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuStreamCreate) X(cuEventCreate) X(cuEventRecord)             \
  X(cuEventQuery) X(cuEventElapsedTime) X(cuLaunchKernelEx) X(cuCtxSynchronize)                   \
  X(cuTensorMapEncodeTiled) X(cuTensorMapEncodeIm2col)
// Newer than some drivers: looked up, but a missing one is reported only when used.
#define PTXSIM_CUDA_OPTIONAL_FUNCTIONS(X) X(cuTensorMapEncodeIm2colWide)

struct Driver {
#define PTXSIM_CUDA_POINTER(fn) decltype(&::fn) fn = nullptr;
  PTXSIM_CUDA_FUNCTIONS(PTXSIM_CUDA_POINTER)
  PTXSIM_CUDA_OPTIONAL_FUNCTIONS(PTXSIM_CUDA_POINTER)
#undef PTXSIM_CUDA_POINTER

  // Loads libcuda.so.1 and every entry point; false with `error` set when it cannot.
  bool load(std::string& error);
  // "CUDA_ERROR_NO_DEVICE" (or "CUresult N" when the driver does not know the code).
  std::string error_name(CUresult r) const;
};

}  // namespace ptxsim::hw
