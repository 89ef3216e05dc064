#include "tools/ptxsim/exec_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>

namespace ptxsim::cli {

namespace {

const char* const kExecUsage =
    "usage: ptxsim exec [--arch sm_90a|sm_100a] [--device h100|h200|b200] [--max-instructions N]\n"
    "                   [--max-seconds S] [--seed S] [--threads N] [--dump-ptx DIR] [--stats]\n"
    "                   [--racecheck] -- PROGRAM [ARGS...]\n"
    "Runs a CUDA program on the simulator through ptxsim's libcudart.so.13 and libcuda.so.1.\n"
    "The program must be linked with -cudart shared and carry PTX for its kernels, e.g.\n"
    "  nvcc -cudart shared -gencode arch=compute_90a,code=compute_90a prog.cu\n"
    "  --arch A              the PTX to run: sm_90a (default for h100/h200) or sm_100a (b200)\n"
    "  --device D            the simulated GPU: h100 (default), h200 or b200\n"
    "  --max-instructions N  per launch: stop with a launch timeout after N thread-instructions\n"
    "  --max-seconds S       per launch: stop with a launch timeout after S seconds of wall time\n"
    "  --seed S              schedule seed: perturbs the deterministic warp interleaving\n"
    "  --threads N           host threads running a launch's clusters (default: every core;\n"
    "                        the environment variable PTXSIM_THREADS says the same)\n"
    "  --dump-ptx DIR        write the PTX extracted from the program's fat binaries to DIR\n"
    "  --racecheck           report shared-memory data races as warnings (docs/racecheck.md)\n"
    "  --stats               print one line per kernel launch on stderr (status, instructions, time)\n"
    "Kernel faults surface as the CUDA errors a GPU reports (illegal address, assert, launch\n"
    "failure) with ptxsim's report on stderr; a deadlock is reported and surfaces as a launch\n"
    "timeout. The exit status is the program's.\n";

// Where libcuda.so.1 / libcudart.so.13 are: $PTXSIM_CUDA_SHIM_DIR, else cuda_shim/ beside this
// executable (the build tree's layout).
std::filesystem::path shim_dir() {
  if (const char* d = std::getenv("PTXSIM_CUDA_SHIM_DIR")) return d;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return self.parent_path() / "cuda_shim";
}

bool file_contains(const std::filesystem::path& p, const std::string& needle) {
  std::ifstream f(p, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return data.find(needle) != std::string::npos;
}

// PROGRAM as execvp would find it, for the linkage check.
std::filesystem::path resolve(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return prog;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (size_t b = 0, e; b <= p.size(); b = e + 1) {
      e = p.find(':', b);
      if (e == std::string::npos) e = p.size();
      std::filesystem::path c = std::filesystem::path(p.substr(b, e - b)) / prog;
      if (access(c.c_str(), X_OK) == 0) return c;
    }
  }
  return prog;
}

}  // namespace

int exec_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string arch, device;
  std::vector<std::pair<const char*, std::string>> env;
  size_t i = 0;
  auto fail = [&](const std::string& msg) {
    err << "ptxsim exec: " << msg << "\n(see 'ptxsim exec --help')\n";
    return 1;
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      out << kExecUsage;
      return 0;
    }
    if (a.empty() || a[0] != '-') break;  // the program
    if (a == "--stats") {
      env.push_back({"PTXSIM_STATS", "1"});
      continue;
    }
    if (a == "--racecheck") {
      env.push_back({"PTXSIM_RACECHECK", "1"});
      continue;
    }
    std::string name = a, value;
    bool inline_value = false;
    if (size_t eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    static const char* const kOptions[][2] = {{"--arch", "PTXSIM_ARCH"},
                                              {"--device", "PTXSIM_DEVICE"},
                                              {"--max-instructions", "PTXSIM_MAX_INSTRUCTIONS"},
                                              {"--max-seconds", "PTXSIM_MAX_SECONDS"},
                                              {"--seed", "PTXSIM_SEED"},
                                              {"--threads", "PTXSIM_THREADS"},
                                              {"--dump-ptx", "PTXSIM_DUMP_PTX"}};
    const char* var = nullptr;
    for (auto& o : kOptions)
      if (name == o[0]) var = o[1];
    if (!var) return fail("unknown option '" + name + "'");
    if (!inline_value) {
      if (i + 1 >= args.size()) return fail(name + " needs a value");
      value = args[++i];
    }
    if (name == "--arch") {
      if (value != "sm_90a" && value != "sm_100a") return fail("--arch: expected sm_90a or sm_100a, got '" + value + "'");
      arch = value;
    } else if (name == "--device") {
      if (value != "h100" && value != "h200" && value != "b200")
        return fail("--device: expected h100, h200 or b200, got '" + value + "'");
      device = value;
    } else if (name != "--dump-ptx") {
      char* end = nullptr;
      double v = value.empty() ? 0 : std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(v > 0 || (name == "--seed" && v == 0)))
        return fail(name + ": expected a positive number, got '" + value + "'");
    }
    env.push_back({var, value});
  }
  if (i >= args.size()) return fail("missing the program to run (ptxsim exec [options] -- PROGRAM [ARGS...])");
  // The device follows the architecture and vice versa; a mismatch is an error, not a surprise.
  if (device.empty()) env.push_back({"PTXSIM_DEVICE", arch == "sm_100a" ? "b200" : "h100"});
  if (arch.empty()) env.push_back({"PTXSIM_ARCH", device == "b200" ? "sm_100a" : "sm_90a"});
  if (!arch.empty() && !device.empty() && (arch == "sm_100a") != (device == "b200"))
    return fail(arch + " kernels do not run on " + device + " (sm_90a: h100, h200; sm_100a: b200)");

  std::filesystem::path dir = shim_dir();
  if (!std::filesystem::exists(dir / "libcudart.so.13"))
    return fail("ptxsim's CUDA libraries are not in " + dir.string() + " (build the ptxsim_cuda_runtime target)");
  std::filesystem::path prog = resolve(args[i]);
  if (!std::filesystem::exists(prog)) return fail("no program '" + args[i] + "'");
  if (!file_contains(prog, "libcudart.so.13") && file_contains(prog, "__cudaRegisterFatBinary"))
    return fail(args[i] + " links the CUDA runtime statically; rebuild it with nvcc -cudart shared");

  std::string ld = dir.string();
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  for (auto& [k, v] : env) setenv(k, v.c_str(), 1);
  std::vector<char*> argv;
  for (size_t k = i; k < args.size(); ++k) argv.push_back(const_cast<char*>(args[k].c_str()));
  argv.push_back(nullptr);
  out.flush();
  err.flush();
  execvp(argv[0], argv.data());
  err << "ptxsim exec: cannot run '" << args[i] << "': " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace ptxsim::cli
