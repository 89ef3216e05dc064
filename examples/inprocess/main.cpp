// Driving ptxsim from your own program (docs/cuda-shim.md "In-process C++ API"): load a PTX
// module, allocate and fill simulated device memory, lay out the kernel's parameters from the
// module's own description of them, launch, and read the results back.
//
//   ptxsim_inprocess_example examples/saxpy/saxpy.ptx
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "examples/saxpy/saxpy.ptx";
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  std::stringstream text;
  text << file.rdbuf();

  // 1. Load: parses and decodes; throws ptxsim::PtxError (with file:line:col) on bad PTX.
  std::shared_ptr<const ptxsim::Program> program;
  try {
    program = ptxsim::load_program(text.str(), path);
  } catch (const ptxsim::PtxError& e) {
    std::fprintf(stderr, "%s", e.diag.format().c_str());
    return 1;
  }

  // 2. Device memory: every allocation is tracked, so a stray access is reported, not absorbed.
  const int n = 4096;
  const float a = 2.0f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i % 7) - 3.0f, y[i] = float(i);
  ptxsim::model::GlobalMemory memory;
  uint64_t dx = memory.allocate(n * sizeof(float), 256, "x");
  uint64_t dy = memory.allocate(n * sizeof(float), 256, "y");
  memory.write(dx, x.data(), n * sizeof(float));
  memory.write(dy, y.data(), n * sizeof(float));

  // 3. Parameters: one buffer laid out as the kernel's .param list says (offsets and sizes).
  const ptxsim::KernelInfo k = ptxsim::kernels(*program).at(0);
  std::vector<uint8_t> params(k.param_bytes);
  const void* values[] = {&n, &a, &dx, &dy};  // saxpy(int n, float a, const float* x, float* y)
  for (size_t i = 0; i < k.params.size(); ++i)
    std::memcpy(params.data() + k.params[i].offset, values[i], k.params[i].size);

  // 4. Launch: runs to completion, deadlock, fault or timeout, and says which.
  ptxsim::LaunchConfig config;
  config.grid = {(n + 255) / 256, 1, 1};
  config.block = {256, 1, 1};
  ptxsim::RunResult r = ptxsim::launch(*program, k.name, config, params, memory);
  if (r.status != ptxsim::RunStatus::Completed) {
    std::fprintf(stderr, "%s: %s", ptxsim::to_string(r.status), r.report.c_str());
    return ptxsim::exit_code_for(r.status);
  }

  // 5. Results.
  std::vector<float> out(n);
  memory.read(dy, out.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i)
    if (out[i] != a * x[i] + y[i]) {  // exact: nvcc's fma and a*x+y with small integers agree
      std::fprintf(stderr, "y[%d] = %g, want %g\n", i, out[i], a * x[i] + y[i]);
      return 1;
    }
  std::printf("%s: %llu thread-instructions, y[%d] = %g: PASS\n", k.name.c_str(),
              (unsigned long long)r.stats.thread_instructions, n - 1, out[n - 1]);
  return 0;
}
