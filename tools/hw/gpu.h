// Running a case file on a GPU and encoding tensor maps with the driver (docs/hardware-runner.md).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "tools/hw/driver.h"
#include "tools/trace/trace.h"

namespace ptxsim::hw {

// Thrown for problems with the case or the driver (not for what the kernel does): exit code 1.
struct HwError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Gpu {
 public:
  // Loads the driver, initialises it and makes device `ordinal`'s primary context current.
  // Throws HwError with no_device_message(...) when there is no driver or no device.
  explicit Gpu(int ordinal);

  trace::Device device() const { return device_; }
  int cc_major() const { return major_; }
  int cc_minor() const { return minor_; }

  // Runs the case and returns its trace (case_ref left empty). A kernel still running after
  // `hang_seconds` is a hang: the trace is returned with status hang and the caller must write it
  // and end the process without touching the driver again (the kernel cannot be stopped).
  trace::Trace run_case(const std::filesystem::path& case_file, double hang_seconds);

  // Encodes each record's params with the driver and fills result and blob.
  void encode(std::vector<trace::TensorMapRecord>& records);

  // One line per device: "0: NVIDIA H200 (compute capability 9.0)".
  std::vector<std::string> list_devices() const;

  const Driver& driver() const { return cu_; }

 private:
  void check(CUresult r, const std::string& what) const;
  CUresult encode_one(const cli::TensorMapParams& p, std::array<uint8_t, 128>& blob) const;

  Driver cu_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  int major_ = 0, minor_ = 0;
  trace::Device device_;
};

}  // namespace ptxsim::hw
