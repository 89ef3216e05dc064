#include "tools/hw/gpu.h"

#include <chrono>
#include <cstring>
#include <thread>

#include "tools/hw/hw_cli.h"
#include "tools/ptxsim/case_file.h"
#include "tools/ptxsim/params.h"
#include "tools/ptxsim/tensormap_params.h"

namespace ptxsim::hw {

namespace {

// Errors that end a launch as a kernel fault (the kernel's doing, not the runner's).
bool is_kernel_fault(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
      return true;
    default:
      return false;
  }
}

}  // namespace

void Gpu::check(CUresult r, const std::string& what) const {
  if (r != CUDA_SUCCESS) throw HwError("ptxsim-hw: " + what + ": " + cu_.error_name(r));
}

Gpu::Gpu(int ordinal) {
  std::string error;
  if (!cu_.load(error)) throw HwError(no_device_message(error));
  if (CUresult r = cu_.cuInit(0); r != CUDA_SUCCESS) throw HwError(no_device_message("cuInit: " + cu_.error_name(r)));
  int count = 0;
  check(cu_.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw HwError(no_device_message("cuDeviceGetCount: 0 devices"));
  if (ordinal >= count)
    throw HwError("ptxsim-hw: --device " + std::to_string(ordinal) + ": there are " + std::to_string(count) +
                  " devices (0.." + std::to_string(count - 1) + ")");
  check(cu_.cuDeviceGet(&dev_, ordinal), "cuDeviceGet");
  char name[256] = {};
  check(cu_.cuDeviceGetName(name, sizeof name - 1, dev_), "cuDeviceGetName");
  check(cu_.cuDeviceGetAttribute(&major_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev_), "cuDeviceGetAttribute");
  check(cu_.cuDeviceGetAttribute(&minor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev_), "cuDeviceGetAttribute");
  int driver = 0;
  check(cu_.cuDriverGetVersion(&driver), "cuDriverGetVersion");
  check(cu_.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
  check(cu_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
  device_.name = name;
  device_.compute_capability = std::to_string(major_) + "." + std::to_string(minor_);
  device_.driver_version = driver;
  device_.toolkit_version = CUDA_VERSION;
}

std::vector<std::string> Gpu::list_devices() const {
  int count = 0;
  check(cu_.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    CUdevice d;
    char name[256] = {};
    int ma = 0, mi = 0;
    check(cu_.cuDeviceGet(&d, i), "cuDeviceGet");
    check(cu_.cuDeviceGetName(name, sizeof name - 1, d), "cuDeviceGetName");
    cu_.cuDeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
    cu_.cuDeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
    out.push_back(std::to_string(i) + ": " + name + " (compute capability " + std::to_string(ma) + "." +
                  std::to_string(mi) + ")");
  }
  return out;
}

CUresult Gpu::encode_one(const cli::TensorMapParams& p, std::array<uint8_t, 128>& blob) const {
  using Encode = cli::TensorMapParams::Encode;
  // The model's enums carry the driver's values (model/tensormap/enums.h), so they convert as is.
  CUtensorMap m;
  std::memset(&m, 0, sizeof m);
  void* addr = reinterpret_cast<void*>(uintptr_t(p.global_address));
  // A rank-1 map has no stride; the pointer still points somewhere, as in a program that passes an
  // empty array (the driver may refuse a null pointer regardless of the rank).
  static const cuuint64_t kNoStride = 0;
  const cuuint64_t* strides = p.strides.empty() ? &kNoStride : reinterpret_cast<const cuuint64_t*>(p.strides.data());
  const auto* dims = reinterpret_cast<const cuuint64_t*>(p.dims.data());
  const auto* es = reinterpret_cast<const cuuint32_t*>(p.element_strides.data());
  const auto dtype = CUtensorMapDataType(p.dtype);
  const auto il = CUtensorMapInterleave(p.interleave);
  const auto sw = CUtensorMapSwizzle(p.swizzle);
  const auto l2 = CUtensorMapL2promotion(p.l2_promotion);
  const auto oob = CUtensorMapFloatOOBfill(p.oob_fill);
  CUresult r = CUDA_ERROR_NOT_SUPPORTED;
  switch (p.encode) {
    case Encode::Tiled:
      r = cu_.cuTensorMapEncodeTiled(&m, dtype, p.rank, addr, dims, strides,
                                     reinterpret_cast<const cuuint32_t*>(p.box.data()), es, il, sw, l2, oob);
      break;
    case Encode::Im2col:
      r = cu_.cuTensorMapEncodeIm2col(&m, dtype, p.rank, addr, dims, strides, p.lower_corner.data(),
                                      p.upper_corner.data(), p.channels_per_pixel, p.pixels_per_column, es, il, sw,
                                      l2, oob);
      break;
    case Encode::Im2colWide:
      if (!cu_.cuTensorMapEncodeIm2colWide)
        throw HwError("ptxsim-hw: this driver has no cuTensorMapEncodeIm2colWide (needs CUDA 12.8 or newer)");
      r = cu_.cuTensorMapEncodeIm2colWide(&m, dtype, p.rank, addr, dims, strides, p.lower_corner_w,
                                          p.upper_corner_w, p.channels_per_pixel, p.pixels_per_column, es, il,
                                          CUtensorMapIm2ColWideMode(p.wide_mode), sw, l2, oob);
      break;
  }
  static_assert(sizeof(CUtensorMap) == 128);
  if (r == CUDA_SUCCESS) std::memcpy(blob.data(), &m, 128);
  return r;
}

void Gpu::encode(std::vector<trace::TensorMapRecord>& records) {
  for (trace::TensorMapRecord& rec : records) {
    std::array<uint8_t, 128> blob{};
    CUresult r = encode_one(rec.params, blob);
    rec.result = cu_.error_name(r);
    if (r == CUDA_SUCCESS)
      rec.blob = blob;
    else
      rec.blob.reset();
  }
}

trace::Trace Gpu::run_case(const std::filesystem::path& case_file, double hang_seconds) {
  // The case is read by ptxsim's own loader (same buffers, initial contents and parameter layout
  // as `ptxsim run`); only the launch differs.
  cli::Case c = cli::load_case(case_file);
  if (auto t = ptx_target(c.ptx_text))
    if (auto why = target_mismatch(*t, major_, minor_)) throw HwError("ptxsim-hw: " + c.file + ": " + *why);
  std::shared_ptr<const Program> program = cli::load_case_program(c);
  const KernelInfo kernel = cli::resolve_kernel(c, kernels(*program));

  trace::Trace t;
  t.device = device_;
  t.captured_by = "ptxsim-hw 0.1.0";

  // Buffers: initialised on the host exactly as ptxsim initialises them, then copied.
  std::map<std::string, uint64_t> addresses;
  std::map<std::string, uint64_t> sizes;
  for (const cli::BufferSpec& b : c.buffers) {
    std::vector<uint8_t> host(b.bytes, 0);
    cli::apply_init(b.init, host.data(), host.size());
    CUdeviceptr p = 0;
    check(cu_.cuMemAlloc(&p, b.bytes ? b.bytes : 1), "cuMemAlloc of buffer '" + b.name + "'");
    if (b.bytes) check(cu_.cuMemcpyHtoD(p, host.data(), host.size()), "cuMemcpyHtoD of buffer '" + b.name + "'");
    addresses[b.name] = p;
    sizes[b.name] = b.bytes;
  }
  cli::JsonReader reader(c.file);
  cli::ParamEncodeContext ctx{reader, addresses, nullptr};
  std::vector<uint8_t> params = cli::build_params(c.params, kernel, ctx);
  // Tensor maps: encoded again by the driver at the same place; both encodings are recorded so
  // that replay compares ptxsim's encoder with the driver's on exactly these maps.
  auto patch = [&](auto& self, const cli::ParamSpec& spec, size_t offset) -> void {
    if (spec.kind == "tensormap") {
      const cli::Json& tj = spec.raw.at("tensormap");
      cli::TensorMapParams p =
          cli::parse_tensormap_params(reader, tj, cli::JsonReader::key(spec.json_path, "tensormap"), false);
      p.global_address = addresses.at(spec.buffer) + spec.buffer_offset;
      trace::TensorMapRecord rec;
      rec.name = spec.json_path;
      rec.params = p;
      std::array<uint8_t, 128> blob{};
      CUresult r = encode_one(p, blob);
      rec.result = cu_.error_name(r);
      if (r != CUDA_SUCCESS) throw HwError("ptxsim-hw: " + c.file + ": " + spec.json_path + ": cuTensorMapEncodeTiled: " + rec.result);
      rec.blob = blob;
      std::memcpy(params.data() + offset, blob.data(), 128);
      t.tensormaps.push_back(std::move(rec));
    }
    for (const cli::ParamSpec& f : spec.fields) self(self, f, offset + f.field_offset);
  };
  for (size_t i = 0; i < c.params.size(); ++i) patch(patch, c.params[i], kernel.params[i].offset);

  // Module and function. The JIT log names the line when the driver's ptxas rejects the PTX.
  char log[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
  CUmodule mod = nullptr;
  if (CUresult r = cu_.cuModuleLoadDataEx(&mod, c.ptx_text.c_str(), 2, opts, vals); r != CUDA_SUCCESS)
    throw HwError("ptxsim-hw: " + c.ptx_path.string() + ": cuModuleLoadDataEx: " + cu_.error_name(r) + "\n" + log);
  CUfunction fn = nullptr;
  check(cu_.cuModuleGetFunction(&fn, mod, kernel.name.c_str()), "cuModuleGetFunction '" + kernel.name + "'");
  if (c.dynamic_shared_bytes > 48 * 1024)
    check(cu_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(c.dynamic_shared_bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  if (c.cluster_given && c.cluster.count() > 8)
    check(cu_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
          "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");

  CUstream stream = nullptr;
  check(cu_.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent start = nullptr, stop = nullptr;
  check(cu_.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cu_.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");

  CUlaunchConfig cfg{};
  cfg.gridDimX = c.grid.x, cfg.gridDimY = c.grid.y, cfg.gridDimZ = c.grid.z;
  cfg.blockDimX = c.block.x, cfg.blockDimY = c.block.y, cfg.blockDimZ = c.block.z;
  cfg.sharedMemBytes = c.dynamic_shared_bytes;
  cfg.hStream = stream;
  CUlaunchAttribute attr{};
  if (c.cluster_given) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = c.cluster.x;
    attr.value.clusterDim.y = c.cluster.y;
    attr.value.clusterDim.z = c.cluster.z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  // Parameters go by kernelParams (one pointer per parameter into the laid-out buffer), as nvcc's
  // launches do. The alternative, CU_LAUNCH_PARAM_BUFFER_POINTER in `extra`, loses every access
  // to a parameter through its address: on an H200 (driver 580) a TMA load whose tensor map is a
  // kernel parameter read through cvta.param faulted with CUDA_ERROR_ILLEGAL_INSTRUCTION, and a
  // generic load from a parameter with CUDA_ERROR_ILLEGAL_ADDRESS.
  std::vector<void*> args(kernel.params.size());
  for (size_t i = 0; i < args.size(); ++i) args[i] = params.data() + kernel.params[i].offset;
  check(cu_.cuEventRecord(start, stream), "cuEventRecord");
  if (CUresult r = cu_.cuLaunchKernelEx(&cfg, fn, args.empty() ? nullptr : args.data(), nullptr); r != CUDA_SUCCESS)
    throw HwError("ptxsim-hw: " + c.file + ": cuLaunchKernelEx: " + cu_.error_name(r));
  check(cu_.cuEventRecord(stop, stream), "cuEventRecord");

  // The watchdog: poll the stop event; a kernel not finished after hang_seconds is a hang.
  const auto t0 = std::chrono::steady_clock::now();
  CUresult r;
  while ((r = cu_.cuEventQuery(stop)) == CUDA_ERROR_NOT_READY) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > hang_seconds) {
      t.status = trace::Status::Hang;
      t.comment = "still running after " + std::to_string(hang_seconds) + " s";
      return t;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (r != CUDA_SUCCESS) {
    if (!is_kernel_fault(r)) throw HwError("ptxsim-hw: " + c.file + ": waiting for the kernel: " + cu_.error_name(r));
    t.status = trace::Status::Fault;
    t.error = cu_.error_name(r);
    return t;
  }
  float ms = 0;
  if (cu_.cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS) t.seconds = ms / 1000.0;
  t.status = trace::Status::Completed;
  for (const std::string& name : c.outputs) {
    std::vector<uint8_t> host(sizes.at(name));
    if (!host.empty()) check(cu_.cuMemcpyDtoH(host.data(), addresses.at(name), host.size()), "cuMemcpyDtoH of '" + name + "'");
    t.outputs.push_back(trace::make_output(name, host.data(), host.size()));
  }
  for (auto& [name, p] : addresses) cu_.cuMemFree(p);
  return t;
}

}  // namespace ptxsim::hw
