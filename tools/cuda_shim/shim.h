// The state behind ptxsim's libcuda.so.1 and libcudart.so.13: one simulated device with its
// global memory, the modules loaded from fat binaries or PTX text, streams, events and the sticky
// error. Both libraries are thin C layers over this class; it lives in libcuda.so.1 (libcudart
// links against it) so that the two APIs share one device, as they do with NVIDIA's libraries.
//
// Every kernel launch runs to completion inside the call (streams are executed in order, which is
// one legal CUDA schedule); what the asynchronous API would report later is stored and returned
// by the next synchronising call, and faults are sticky like CUDA's.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"
#include "tools/cuda_shim/device.h"

namespace ptxsim {
struct Function;  // a decoded PTX function (sim/exec/program.h)
}  // namespace ptxsim
struct CUlaunchAttribute_st;  // cuda.h's CUlaunchAttribute

namespace ptxsim::cuda_shim {

// Result codes shared by both APIs (cudaError_t and CUresult agree on these values).
enum Status : int {
  kOk = 0, kInvalidValue = 1, kOutOfMemory = 2, kNotInitialized = 3, kInvalidDevice = 101,
  kNoBinaryForGpu = 209, kInvalidPtx = 218, kInvalidSource = 300, kNotFound = 500, kNotReady = 600,
  kIllegalAddress = 700, kLaunchOutOfResources = 701, kLaunchTimeout = 702, kAssert = 710,
  kMisalignedAddress = 716, kLaunchFailure = 719, kCooperativeLaunchTooLarge = 720, kNotSupported = 801,
  kInvalidClusterSize = 912, kUnknown = 999,
  // Driver and runtime spell these differently; the C layers translate.
  kInvalidHandle = 400, kInvalidConfiguration = 9,
  // A bad handle that is not a function's: the runtime's cudaErrorInvalidResourceHandle (400) where
  // kInvalidHandle is its cudaErrorInvalidDeviceFunction; the driver's CUDA_ERROR_INVALID_HANDLE.
  kInvalidResourceHandle = 100400,
};

struct Module {
  std::string label;                // for messages: "fat binary 1", "PTX module 2"
  const void* image = nullptr;      // fat binary (registered or cuModuleLoadData)
  std::string ptx_text;             // cuModuleLoadData with PTX text
  std::shared_ptr<const Program> program;
  bool load_attempted = false;
  std::string load_error;           // why the module cannot run (no PTX, PTX error)
  int load_status = kOk;
  // Kernels taken out of the module because ptxsim cannot simulate them (an unimplemented
  // instruction, say), with the diagnostic; the module's other kernels still run.
  std::map<std::string, std::string> broken_kernels;
  uint32_t var_slot = 0;            // which range of module-variable addresses it owns (Shim::load)
};

struct Function {
  Module* module = nullptr;
  std::string name;
  int max_dynamic_shared = 0;       // cudaFuncAttributeMaxDynamicSharedMemorySize
  Dim3 required_cluster{0, 0, 0};   // cudaFuncAttributeRequiredClusterWidth..Depth (0: none)
  bool non_portable_cluster = false;
  const ptxsim::Function* entry() const;  // null until the module loaded
};

struct Variable {
  Module* module = nullptr;
  std::string name;
  size_t size = 0;
};

struct Event {
  double sim_ns = 0;                // simulated time when recorded
  bool recorded = false;
};

struct Stream {
  unsigned flags = 0;
};

struct LaunchRequest {
  Dim3 grid, block, cluster;
  bool cluster_given = false;
  // The preferred cluster dimension attribute: a hint, checked against the regular cluster and the
  // grid as the driver documents it, then not used (the regular clusters run; docs/cuda-shim.md).
  Dim3 preferred_cluster;
  bool preferred_cluster_given = false;
  // Events of the programmatic-event and launch-completion-event attributes: recorded when the
  // kernel has run to completion (null: none).
  Event* programmatic_event = nullptr;
  Event* completion_event = nullptr;
  bool cooperative = false;         // cudaLaunchCooperativeKernel or the cooperative attribute
  uint32_t dynamic_shared = 0;
  void** args = nullptr;            // one pointer per parameter (cudaLaunchKernel, cuLaunchKernel)
  void** extra = nullptr;           // cuLaunchKernel's CU_LAUNCH_PARAM_BUFFER_POINTER form
};

class Shim {
 public:
  static Shim& get();

  std::recursive_mutex mu;          // all API calls are serialised
  const DeviceSpec* device = nullptr;
  uint32_t sm = 90;                 // the architecture kernels run as (90 = sm_90a, 100 = sm_100a)
  LaunchConfig limits;              // max_instructions / max_seconds / schedule seed from the options
  bool print_stats = false;         // one line per launch on stderr (PTXSIM_STATS)
  model::GlobalMemory memory;
  int sticky = kOk;                 // a fault poisons the context, as on a GPU
  double sim_ns = 0;                // simulated device time, advanced by kernels and copies

  // Registration and modules.
  Module* add_fatbin(const void* image);
  Module* add_ptx(std::string text);
  int load(Module& m);              // parses on first use; kOk or the load status
  uint64_t module_var_base(Module& m);
  void remove_module(Module* m);
  Function* add_function(Module* m, std::string name, const void* host_handle);
  Function* function_for_host(const void* host_fn);  // __cudaRegisterFunction handles
  Function* function_in(Module* m, const std::string& name);  // cuModuleGetFunction
  Variable* add_variable(Module* m, std::string name, size_t size, const void* host_var);
  Variable* variable_for_host(const void* host_var);
  int variable_address(Variable& v, uint64_t& address);  // loads the module if needed

  // Memory. Device pointers are simulator addresses.
  int malloc_device(uint64_t& address, size_t bytes);
  int free_device(uint64_t address);
  bool is_device(uint64_t address, size_t bytes = 1) { return memory.translate(address, bytes) != nullptr; }
  // kind: 0 host→host, 1 host→device, 2 device→host, 3 device→device, 4 inferred from the pointers.
  int copy(void* dst, const void* src, size_t bytes, int kind);
  int memset_device(uint64_t address, int value, size_t bytes);
  int copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, int kind);

  // Launch: runs the kernel now. Returns the launch's own error (bad configuration); a fault is
  // reported on stderr, made sticky and returned.
  // Never throws: an exception from the simulator is reported on stderr and returns kUnknown.
  int launch(Function& f, const LaunchRequest& req);
  std::string last_message;         // the report of the last fault, for tests and tools

  // "ptxsim: NAME is not supported" once per name; returns kNotSupported.
  int unsupported(const char* name);

 private:
  Shim();
  int launch_unguarded(Function& f, const LaunchRequest& req);
  std::vector<std::unique_ptr<Module>> modules_;
  uint32_t next_var_slot_ = 0;
  std::vector<std::unique_ptr<Function>> functions_;
  std::vector<std::unique_ptr<Variable>> variables_;
  std::map<const void*, Function*> host_functions_;  // host stubs and Function handles themselves
  std::map<const void*, Variable*> host_variables_;
};

// The launch attributes of cuLaunchKernelEx / cudaLaunchKernelExC (the runtime's have the
// driver's ids and layout) applied to `req`: kOk, or kInvalidValue with a line on stderr naming
// `api` and the attribute (an id CUDA 13 does not define, a value it refuses). `runtime` picks the
// spelling of attribute names in messages. launch_attributes.cpp; docs/cuda-shim.md has the table.
int apply_launch_attributes(const CUlaunchAttribute_st* attrs, unsigned count, LaunchRequest& req, const char* api,
                            bool runtime);

// For the catch (...) of an exported entry point: says on stderr which exception escaped from
// where (`api`, and the kernel if given) and returns kUnknown, so that no C++ exception crosses
// the C API. Only inside a handler.
int escaped_exception(const char* api, const char* kernel = nullptr) noexcept;

// Function attributes (CUfunction_attribute numbering, which cudaFuncAttribute shares). Loads the
// function's module. Registers are not allocated by a simulator: NUM_REGS reports .maxnreg or 32.
int function_attribute(Function& f, int attribute, int& value);
int set_function_attribute(Function& f, int attribute, int value);
// Resident CTAs per SM for `block_threads` threads and `dynamic_shared` bytes, from the device's
// thread, CTA, shared-memory and register limits.
int occupancy(Function& f, int block_threads, size_t dynamic_shared, int& blocks);
// The driver function named `symbol` (unversioned, as cuGetProcAddress takes it); null if unknown.
void* driver_proc(const char* symbol);
bool is_fatbin_image(const void* image);

// Error names and strings (both APIs use the same texts for the shared codes).
const char* status_name_runtime(int code);   // "cudaErrorIllegalAddress"
const char* status_name_driver(int code);    // "CUDA_ERROR_ILLEGAL_ADDRESS"
const char* status_string(int code);         // "an illegal memory access was encountered"

}  // namespace ptxsim::cuda_shim
