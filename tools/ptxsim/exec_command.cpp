#include "tools/ptxsim/exec_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <tuple>

#include "tools/ptxsim/cli_parse.h"

namespace ptxsim::cli {

namespace {

// Where libcuda.so.1 / libcudart.so.13 are: $PTXSIM_CUDA_SHIM_DIR, else cuda_shim/ beside this
// executable (the build tree's layout), else the installed layout's private directory
// (PTXSIM_SHIM_FROM_BIN, relative to the executable's, cmake/install.cmake).
std::filesystem::path shim_dir() {
  if (const char* d = std::getenv("PTXSIM_CUDA_SHIM_DIR")) return d;
  std::error_code ec;
  const std::filesystem::path bin = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  const std::filesystem::path build_tree = bin / "cuda_shim";
#ifdef PTXSIM_SHIM_FROM_BIN
  if (!std::filesystem::exists(build_tree / "libcudart.so.13", ec)) {
    std::filesystem::path installed = (bin / PTXSIM_SHIM_FROM_BIN).lexically_normal();
    if (std::filesystem::exists(installed / "libcudart.so.13", ec)) return installed;
  }
#endif
  return build_tree;
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
  CLI::App app;
  configure_verb(app, "exec", "Runs a CUDA program on the simulator through ptxsim's libcudart.so.13 and libcuda.so.1.\n"
                 "The program must be linked with -cudart shared and carry PTX for its kernels, e.g.\n"
                 "  nvcc -cudart shared -gencode arch=compute_90a,code=compute_90a prog.cu",
                 "Kernel faults surface as the CUDA errors a GPU reports (illegal address, assert, launch\n"
                 "failure) with ptxsim's report on stderr; a deadlock is reported and surfaces as a launch\n"
                 "timeout. The exit status is the program's; 1 for bad arguments.");
  std::string arch, device, max_instructions, max_seconds, seed, threads, dump_ptx;
  bool stats = false, racecheck = false;
  std::vector<std::string> program;
  app.add_option("--arch", arch, "the PTX to run: sm_90a (default for h100/h200) or sm_100a (b200)")
      ->type_name("A")->check(one_of({"sm_90a", "sm_100a"}));
  app.add_option("--device", device, "the simulated GPU: h100 (default), h200 or b200")
      ->type_name("D")->check(one_of({"h100", "h200", "b200"}));
  app.add_option("--max-instructions", max_instructions, "per launch: stop with a launch timeout after N thread-instructions")
      ->type_name("N")->transform(positive_integer());
  app.add_option("--max-seconds", max_seconds, "per launch: stop with a launch timeout after S seconds of wall time")
      ->type_name("S")->transform(positive_number());
  app.add_option("--seed", seed, "schedule seed: perturbs the deterministic warp interleaving")
      ->type_name("S")->transform(unsigned_integer());
  app.add_option("--threads", threads, "host threads running a launch's clusters (default: every core;\n"
                 "the environment variable PTXSIM_THREADS says the same)")
      ->type_name("N")->transform(thread_count());
  app.add_option("--dump-ptx", dump_ptx, "write the PTX extracted from the program's fat binaries to DIR")
      ->type_name("DIR")->transform(non_empty("a directory"));
  app.add_flag("--racecheck", racecheck, "report shared-memory data races as warnings (docs/racecheck.md)");
  app.add_flag("--stats", stats, "print one line per kernel launch on stderr (status, instructions, time)");
  app.add_option("PROGRAM", program, "the program and its arguments (everything from PROGRAM on is the program's)")
      ->type_name("");
  app.positionals_at_end();  // the program's own options are not ours
  // Everything after the first `--` is the program's: split it off before CLI11 sees the options
  // (with allow_extras it would keep the `--` as an unknown option).
  // A `--` after the program's name is the program's own argument.
  auto dashes = args.end();
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (*it == "--") {
      dashes = it;
      break;
    }
    if (it->empty() || (*it)[0] != '-') break;  // the program's name
    const CLI::Option* opt = app.get_option_no_throw(*it);
    if (opt && opt->get_items_expected_min() > 0 && it + 1 != args.end()) ++it;  // the option's value
  }
  if (auto code = parse_verb(app, std::vector<std::string>(args.begin(), dashes), out, err)) return *code;
  if (dashes != args.end()) {
    if (!program.empty()) return usage_error(err, "exec", "unexpected argument '" + program[0] + "' before '--'");
    program.assign(dashes + 1, args.end());
  }
  auto fail = [&](const std::string& msg) { return usage_error(err, "exec", msg); };
  if (program.empty()) return fail("missing the program to run (ptxsim exec [options] -- PROGRAM [ARGS...])");

  std::vector<std::pair<const char*, std::string>> env;
  if (stats) env.push_back({"PTXSIM_STATS", "1"});
  if (racecheck) env.push_back({"PTXSIM_RACECHECK", "1"});
  for (auto& [name, var, value] : {std::tuple<const char*, const char*, const std::string&>{"--arch", "PTXSIM_ARCH", arch},
                                   {"--device", "PTXSIM_DEVICE", device},
                                   {"--max-instructions", "PTXSIM_MAX_INSTRUCTIONS", max_instructions},
                                   {"--max-seconds", "PTXSIM_MAX_SECONDS", max_seconds},
                                   {"--seed", "PTXSIM_SEED", seed},
                                   {"--threads", "PTXSIM_THREADS", threads},
                                   {"--dump-ptx", "PTXSIM_DUMP_PTX", dump_ptx}})
    if (app.count(name)) env.push_back({var, value});
  // The device follows the architecture and vice versa; a mismatch is an error, not a surprise.
  if (device.empty()) env.push_back({"PTXSIM_DEVICE", arch == "sm_100a" ? "b200" : "h100"});
  if (arch.empty()) env.push_back({"PTXSIM_ARCH", device == "b200" ? "sm_100a" : "sm_90a"});
  if (!arch.empty() && !device.empty() && (arch == "sm_100a") != (device == "b200"))
    return fail(arch + " kernels do not run on " + device + " (sm_90a: h100, h200; sm_100a: b200)");

  std::filesystem::path dir = shim_dir();
  if (!std::filesystem::exists(dir / "libcudart.so.13"))
    return fail("ptxsim's CUDA libraries are not in " + dir.string() + " (build the ptxsim_cuda_runtime target)");
  std::filesystem::path prog = resolve(program[0]);
  if (!std::filesystem::exists(prog)) return fail("no program '" + program[0] + "'");
  if (!file_contains(prog, "libcudart.so.13") && file_contains(prog, "__cudaRegisterFatBinary"))
    return fail(program[0] + " links the CUDA runtime statically; rebuild it with nvcc -cudart shared");

  std::string ld = dir.string();
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  for (auto& [k, v] : env) setenv(k, v.c_str(), 1);
  std::vector<char*> argv;
  for (std::string& a : program) argv.push_back(a.data());
  argv.push_back(nullptr);
  out.flush();
  err.flush();
  execvp(argv[0], argv.data());
  err << "ptxsim exec: cannot run '" << program[0] << "': " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace ptxsim::cli
