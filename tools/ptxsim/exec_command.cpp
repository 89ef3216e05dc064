#include "tools/ptxsim/exec_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <tuple>
#include <vector>

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

// One schedule of --explore: what the program printed and how it ended.
struct Schedule {
  uint64_t seed = 0;
  int status = 0;  // exit status, or 128 + the signal that ended it
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Runs the program once with the schedule seed `seed` (warp interleavings drawn from it), its
// stdout and stderr captured in temporary files.
bool run_schedule(std::vector<char*>& argv, uint64_t seed, Schedule& s, std::ostream& err) {
  char out_name[] = "/tmp/ptxsim-explore-out-XXXXXX", err_name[] = "/tmp/ptxsim-explore-err-XXXXXX";
  const int fo = mkstemp(out_name), fe = mkstemp(err_name);
  if (fo < 0 || fe < 0) {
    err << "ptxsim exec: --explore: cannot create a temporary file: " << std::strerror(errno) << "\n";
    return false;
  }
  s.seed = seed;
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("PTXSIM_SEED", std::to_string(seed).c_str(), 1);
    dup2(fo, 1);
    dup2(fe, 2);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "ptxsim exec: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int st = 0;
  const bool ok = pid > 0 && waitpid(pid, &st, 0) == pid;
  close(fo);
  close(fe);
  s.out = slurp(out_name);
  s.err = slurp(err_name);
  unlink(out_name);
  unlink(err_name);
  if (!ok) {
    err << "ptxsim exec: --explore: cannot run the program: " << std::strerror(errno) << "\n";
    return false;
  }
  s.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return true;
}

// "stdout differs at line 3: 'x' (first: 'y')": the first line where two outputs part.
std::string first_difference(const char* stream, const std::string& a, const std::string& first) {
  std::istringstream x(a), y(first);
  std::string lx, ly;
  for (size_t line = 1;; ++line) {
    const bool gx = bool(std::getline(x, lx)), gy = bool(std::getline(y, ly));
    if (!gx && !gy) return std::string(stream) + " differs";
    if (!gx || !gy || lx != ly)
      return std::string(stream) + " differs at line " + std::to_string(line) + ": " + (gx ? "'" + lx + "'" : "(ended)") +
             " (first: " + (gy ? "'" + ly + "'" : "(ended)") + ")";
  }
}

// --explore N: the program under N schedules (seeds S .. S+N-1); the first one's output and exit
// status are the command's, every schedule whose exit status, stdout or stderr differs from the
// first is listed on stderr with the seed that replays it.
int explore(std::vector<char*>& argv, uint64_t first_seed, uint64_t n, std::ostream& out, std::ostream& err) {
  std::vector<Schedule> runs(n);
  for (uint64_t i = 0; i < n; ++i)
    if (!run_schedule(argv, first_seed + i, runs[i], err)) return 127;
  out << runs[0].out;
  err << runs[0].err;
  std::vector<std::string> lines;
  for (uint64_t i = 1; i < n; ++i) {
    const Schedule& s = runs[i];
    std::vector<std::string> diffs;
    if (s.status != runs[0].status)
      diffs.push_back("exit status " + std::to_string(s.status) + " (first: " + std::to_string(runs[0].status) + ")");
    if (s.out != runs[0].out) diffs.push_back(first_difference("stdout", s.out, runs[0].out));
    if (s.err != runs[0].err) diffs.push_back(first_difference("stderr", s.err, runs[0].err));
    if (diffs.empty()) continue;
    std::string l = "  seed " + std::to_string(s.seed) + " (replay: --explore 1 --seed " + std::to_string(s.seed) + "): ";
    for (size_t d = 0; d < diffs.size(); ++d) l += (d ? "; " : "") + diffs[d];
    lines.push_back(l);
  }
  err << "ptxsim exec: explore: " << n << " schedules, " << lines.size() << " differ from the first\n";
  for (const auto& l : lines) err << l << "\n";
  return runs[0].status;
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
  uint64_t explore_n = 0;
  bool stats = false, racecheck = false, racecheck_global = false;
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
      ->type_name("DIR")->transform(writable_directory());
  app.add_option("--explore", explore_n,
                 "run the program under N schedules (seeds S .. S+N-1, S from --seed) and list those whose\n"
                 "exit status or output differs from the first (docs/racecheck.md); --explore 1 --seed K\n"
                 "replays one")
      ->type_name("N")->transform(positive_integer());
  app.add_flag("--racecheck", racecheck, "report data races on shared and Tensor Memory (between warps and between lanes of a warp) as warnings (docs/racecheck.md)");
  app.add_flag("--racecheck-global", racecheck_global,
               "--racecheck, and global memory too (between the threads of one cluster)");
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
  if (explore_n && stats) return fail("--explore compares what the program prints, and --stats adds timings to it: use one");

  std::vector<std::pair<const char*, std::string>> env;
  if (stats) env.push_back({"PTXSIM_STATS", "1"});
  if (racecheck || racecheck_global) env.push_back({"PTXSIM_RACECHECK", racecheck_global ? "global" : "1"});
  if (explore_n) env.push_back({"PTXSIM_VARY_WARPS", "1"});  // the seed also draws the warp interleaving
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
  if (explore_n > 1) return explore(argv, seed.empty() ? 0 : std::strtoull(seed.c_str(), nullptr, 0), explore_n, out, err);
  execvp(argv[0], argv.data());
  err << "ptxsim exec: cannot run '" << program[0] << "': " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace ptxsim::cli
