// The `ptxsim` command line: `ptxsim <verb> [args...]`. Each verb is one row of kVerbs below and
// one function `int f(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)`
// (args are the words after the verb; the return value is the exit code), normally in its own
// tools/ptxsim/<verb>_command.cpp with a header declaring it. To add a verb: write that file and
// add its row. Every row has a working function: no placeholders.
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "tools/ptxsim/bench_command.h"
#include "tools/ptxsim/check_command.h"
#include "tools/ptxsim/fuzz_command.h"
#include "tools/ptxsim/exec_command.h"
#include "tools/ptxsim/replay_command.h"
#include "tools/ptxsim/run_command.h"
#include "tools/ptxsim/verify_command.h"

#ifndef PTXSIM_VERSION
#define PTXSIM_VERSION "0.1.0"
#endif

namespace {

using VerbFn = int (*)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

struct Verb {
  std::string_view name;
  std::string_view summary;
  VerbFn fn;
};

constexpr Verb kVerbs[] = {
    {"run", "run one kernel launch described by a case file", ptxsim::cli::run_command},
    {"exec", "run a CUDA program on the simulator (ptxsim's libcudart/libcuda)", ptxsim::cli::exec_command},
    {"verify", "run a compiler-side contract verifier on a JSON request", ptxsim::cli::verify_command},
    {"check", "check a PTX module without running it (forms, TMA and tcgen05 rules)", ptxsim::cli::check_command},
    {"fuzz", "property-based fuzzing of descriptors and layouts (RapidCheck generators)", ptxsim::cli::fuzz_command},
    {"replay", "simulate recorded traces and compare with what the device did", ptxsim::cli::replay_command},
    {"bench", "run the benchmark suite: CUDA kernels checked against CPU references, timed", ptxsim::cli::bench_command},
};

const Verb* find_verb(std::string_view name) {
  for (const Verb& v : kVerbs)
    if (v.name == name) return &v;
  return nullptr;
}

void usage(std::ostream& os) {
  os << "usage: ptxsim <verb> [options]\n"
        "       ptxsim --help | --version\n"
        "\n"
        "A CPU simulator for NVIDIA PTX (sm_90a, sm_100a).\n"
        "\n"
        "verbs:\n";
  for (const Verb& v : kVerbs) {
    std::string name(v.name);
    name.resize(10, ' ');
    os << "  " << name << v.summary << "\n";
  }
  os << "\nRun 'ptxsim <verb> --help' for a verb's options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    usage(std::cerr);
    return 1;
  }
  const std::string& first = args[0];
  if (first == "-h" || first == "--help") {
    usage(std::cout);
    return 0;
  }
  if (first == "--version" || first == "-V") {
    std::cout << "ptxsim " << PTXSIM_VERSION << " (targets sm_90a, sm_100a)\n";
    return 0;
  }
  if (first == "help") {
    if (args.size() < 2) {
      usage(std::cout);
      return 0;
    }
    const Verb* v = find_verb(args[1]);
    if (!v) {
      std::cerr << "ptxsim: unknown verb '" << args[1] << "'\n";
      return 1;
    }
    return v->fn({"--help"}, std::cout, std::cerr);
  }
  const Verb* v = find_verb(first);
  if (!v) {
    std::cerr << "ptxsim: unknown " << (first.size() > 1 && first[0] == '-' ? "option" : "verb")
              << " '" << first << "'\n\n";
    usage(std::cerr);
    return 1;
  }
  try {
    return v->fn(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "ptxsim " << v->name << ": internal error: " << e.what() << "\n";
    return 1;
  }
}
