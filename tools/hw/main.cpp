// ptxsim-hw: runs case files on a real GPU and records traces for `ptxsim replay`
// (docs/hardware-runner.md, docs/traces.md).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include "sim/ptx/diag.h"
#include "tools/hw/gpu.h"
#include "tools/hw/hw_cli.h"
#include "tools/ptxsim/case_file.h"

namespace {

using namespace ptxsim;
using namespace ptxsim::hw;

int run_one(const Options& o) {
  Gpu gpu(o.device);
  trace::Trace t = gpu.run_case(o.input, o.hang_seconds);
  t.case_ref = trace::relative_ref(o.input, o.output->has_parent_path() ? o.output->parent_path() : fs::path("."));
  trace::write_trace(*o.output, t);
  std::cout << o.input.string() << ": " << trace::status_name(*t.status) << (t.error.empty() ? "" : " (" + t.error + ")")
            << " on " << t.device.name << " -> " << o.output->string() << "\n";
  std::cout.flush();
  if (t.status == trace::Status::Hang) std::_Exit(0);  // the kernel cannot be stopped: leave it to the driver
  return 0;
}

int tensormaps(const Options& o) {
  std::vector<trace::TensorMapRecord> recs = load_tensormap_params(o.input);
  Gpu gpu(o.device);
  gpu.encode(recs);
  trace::Trace t;
  t.device = gpu.device();
  t.captured_by = "ptxsim-hw 0.1.0";
  t.tensormaps = std::move(recs);
  trace::write_trace(*o.output, t);
  size_t ok = 0;
  for (auto& r : t.tensormaps) ok += r.blob.has_value();
  std::cout << t.tensormaps.size() << " parameter sets encoded (" << ok << " accepted) -> " << o.output->string() << "\n";
  return 0;
}

// Each case runs in its own process: a fault leaves the context unusable and a hang cannot be
// stopped, so isolation is the only way to go on with the next case.
int capture(const Options& o, const char* self) {
  std::vector<CorpusEntry> cases = find_corpus(o.input);
  Gpu gpu(o.device);  // fail early, once, when there is no device
  int failures = 0, skipped = 0;
  for (const CorpusEntry& e : cases) {
    // Cases for another architecture (sm_100a on a 9.0 device) are skipped, not failures.
    cli::Case c = cli::load_case(e.case_file);
    if (auto t = ptx_target(c.ptx_text))
      if (auto why = target_mismatch(*t, gpu.cc_major(), gpu.cc_minor())) {
        std::cout << e.case_file.string() << ": skipped (" << *why << ")\n";
        ++skipped;
        continue;
      }
    const fs::path out = *o.output / e.trace_rel;
    std::vector<std::string> args = {self, "run", e.case_file.string(), "-o", out.string(),
                                     "--hang-seconds", std::to_string(o.hang_seconds), "--device", std::to_string(o.device)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::cout.flush();
    pid_t pid = fork();
    if (pid < 0) {
      std::cerr << "ptxsim-hw: fork failed\n";
      return 1;
    }
    if (pid == 0) {
      execv(self, argv.data());
      std::_Exit(127);
    }
    // Backstop: the child writes its own hang trace after hang_seconds; if it is stuck beyond
    // that (e.g. in driver teardown), it is killed and counted as a failure to capture.
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > o.hang_seconds + 60) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        std::cerr << e.case_file.string() << ": the runner did not exit; killed\n";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  std::cout << cases.size() << " cases: " << cases.size() - size_t(failures + skipped) << " captured, " << skipped
            << " skipped (another architecture), " << failures << " failed -> " << o.output->string() << "\n";
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Options o;
  try {
    o = parse_args(args);
  } catch (const UsageError& e) {
    std::cerr << "ptxsim-hw: " << e.what() << "\n" << kUsage;
    return 1;
  }
  try {
    switch (o.verb) {
      case Options::Verb::Help: std::cout << kUsage; return 0;
      case Options::Verb::Version: std::cout << "ptxsim-hw 0.1.0 (built with CUDA " << CUDA_VERSION << ")\n"; return 0;
      case Options::Verb::Devices: {
        Gpu gpu(0);
        for (const std::string& line : gpu.list_devices()) std::cout << line << "\n";
        return 0;
      }
      case Options::Verb::Run: return run_one(o);
      case Options::Verb::Tensormaps: return tensormaps(o);
      case Options::Verb::Capture: return capture(o, "/proc/self/exe");
    }
  } catch (const HwError& e) {
    std::cerr << e.what() << "\n";
  } catch (const cli::CaseError& e) {
    std::cerr << e.what() << "\n";
  } catch (const PtxError& e) {
    std::cerr << e.diag.format() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ptxsim-hw: " << e.what() << "\n";
  }
  return 1;
}
