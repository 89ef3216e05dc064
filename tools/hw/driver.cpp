#include "tools/hw/driver.h"

#include <dlfcn.h>

namespace ptxsim::hw {

#define PTXSIM_STR2(x) #x
#define PTXSIM_STR(x) PTXSIM_STR2(x)

bool Driver::load(std::string& error) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    error = std::string("cannot load the CUDA driver libcuda.so.1: ") + (why ? why : "unknown error");
    return false;
  }
  // PTXSIM_STR(fn) expands cuda.h's macro first: "cuMemAlloc_v2" for cuMemAlloc.
#define PTXSIM_CUDA_LOAD(fn)                                                                  \
  fn = reinterpret_cast<decltype(fn)>(dlsym(lib, PTXSIM_STR(fn)));                            \
  if (!fn) {                                                                                  \
    error = std::string("the CUDA driver lacks ") + PTXSIM_STR(fn) + " (driver too old?)";   \
    return false;                                                                             \
  }
  PTXSIM_CUDA_FUNCTIONS(PTXSIM_CUDA_LOAD)
#undef PTXSIM_CUDA_LOAD
#define PTXSIM_CUDA_LOAD_OPTIONAL(fn) fn = reinterpret_cast<decltype(fn)>(dlsym(lib, PTXSIM_STR(fn)));
  PTXSIM_CUDA_OPTIONAL_FUNCTIONS(PTXSIM_CUDA_LOAD_OPTIONAL)
#undef PTXSIM_CUDA_LOAD_OPTIONAL
  return true;
}

std::string Driver::error_name(CUresult r) const {
  const char* name = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(int(r));
}

}  // namespace ptxsim::hw
