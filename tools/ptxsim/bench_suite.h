// The benchmark suite of `ptxsim bench` (bench_command.h): real CUDA kernels (bench/kernels, and the
// TMA GEMMs of tests/kernels), their inputs generated in-process and a CPU reference for each, so
// that a benchmark which computes garbage fails instead of reporting a speed.
//
// A Benchmark makes a Case for a problem size (full, or --quick for tests). A Case holds the inputs
// and the expected outputs (computed once); setup() uploads the inputs to a fresh device memory and
// returns the launches to time, check() compares the outputs with the reference afterwards.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"

namespace ptxsim::cli::bench {

struct Launch {
  std::string kernel;
  LaunchConfig config;
  std::vector<uint8_t> params;
};

class Case {
 public:
  virtual ~Case() = default;
  // The problem in words, e.g. "256x256x256" or "1048576 floats".
  virtual std::string problem() const = 0;
  // Uploads the inputs to `memory` (fresh for every repetition) and returns the launches, in order.
  virtual std::vector<Launch> setup(const Program& program, model::GlobalMemory& memory) = 0;
  // After the launches: "" when every output equals the reference, else what differs (the first
  // mismatch and how many).
  virtual std::string check(model::GlobalMemory& memory) = 0;
  // The multiply-adds of the launches for a matrix product (M * N * K), 0 for other kernels: one
  // tensor-core instruction does thousands, so thread-instructions alone understate those kernels.
  virtual uint64_t multiply_adds() const { return 0; }
};

struct Benchmark {
  std::string name;     // what --filter matches
  std::string summary;  // the program class, one line
  std::string ptx;      // the embedded module: "<source stem>.<arch>" (bench/kernels/embedded_ptx.h)
  std::function<std::unique_ptr<Case>(bool quick)> make;
};

// Every benchmark, in the order they run.
const std::vector<Benchmark>& benchmarks();

}  // namespace ptxsim::cli::bench
