// `ptxsim run` on bad input, through the verb's entry point: every diagnostic is printed once, with
// the exact text a user sees on stderr, and binary bytes never reach the terminal raw.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "tools/ptxsim/check_command.h"
#include "tools/ptxsim/fuzz_command.h"
#include "tools/ptxsim/run_command.h"

namespace {

namespace fs = std::filesystem;

struct Cli {
  int code = -1;
  std::string out, err;
};

Cli run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Cli r;
  r.code = ptxsim::cli::run_command(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A scratch directory holding `k.ptx` (`ptx`) and `case.json` launching it with `block`.
fs::path write_case(const std::string& name, const std::string& ptx, const std::string& block) {
  fs::path d = fs::temp_directory_path() / ("ptxsim_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "k.ptx", std::ios::binary) << ptx;
  std::ofstream(d / "case.json") << R"({"ptx": "k.ptx", "grid": [1], "block": )" << block
                                 << R"(, "buffers": {}, "params": [], "outputs": []})";
  return d;
}

const char* const kEmptyKernel =
    ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";

TEST(CliErrors, ImpossibleLaunchIsReportedOnce) {
  fs::path d = write_case("block", kEmptyKernel, "[2000]");
  Cli r = run({(d / "case.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.substr(0, r.out.find("instructions:")),
            "status: error (exit 1)\n"
            "kernel: k  grid 1x1x1  block 2000x1x1\n");  // then the (timed) instruction count line
  EXPECT_EQ(r.err, "error: block of 2000 threads exceeds the 1024-thread limit\n");
  fs::remove_all(d);
}

TEST(CliErrors, RandomBytesAsPtxAreEscaped) {
  fs::path d = write_case("binary", std::string("\x7f" "ELF\x02\x01\x01\x1b[2J\n", 12), "[32]");
  Cli r = run({(d / "case.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, (d / "k.ptx").string() +
                       ":1:1: error: unexpected character '\\x7f'\n\\x7fELF\\x02\\x01\\x01\\x1b[2J\n^\n");
  fs::remove_all(d);
}

// Every verb's command line follows the same conventions (tools/ptxsim/cli_parse.h).
TEST(CliErrors, UsageErrorsNameTheVerbAndExitOne) {
  Cli r = run({"case.json", "--bogus"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "ptxsim run: unknown option '--bogus'\n(see 'ptxsim run --help')\n");
  r = run({"case.json", "--seed"});
  EXPECT_EQ(r.err, "ptxsim run: --seed needs a value\n(see 'ptxsim run --help')\n");
  r = run({"case.json", "--max-instructions=010x"});
  EXPECT_EQ(r.err, "ptxsim run: --max-instructions: expected a positive integer, got '010x'\n(see 'ptxsim run --help')\n");
  std::ostringstream out, err;
  EXPECT_EQ(ptxsim::cli::check_command({"a.ptx", "b.ptx", "c.ptx"}, out, err), 1);
  EXPECT_EQ(err.str(), "ptxsim check: unexpected arguments: b.ptx c.ptx\n(see 'ptxsim check --help')\n");
  err.str("");
  EXPECT_EQ(ptxsim::cli::fuzz_command({"layout", "--count", "0"}, out, err), 1);
  EXPECT_EQ(err.str(), "ptxsim fuzz: --count: expected a positive integer, got '0'\n(see 'ptxsim fuzz --help')\n");
  EXPECT_EQ(out.str(), "");
}

TEST(CliErrors, HelpIsGeneratedAndExitsZero) {
  Cli r = run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("Runs the kernel launch described by CASE.json.\nUsage: ptxsim run [OPTIONS] [CASE.json]\n", 0), 0u)
      << r.out;
  for (const char* opt : {"--out DIR", "--json", "--max-instructions N", "--max-seconds S", "--seed S", "--timeline FILE",
                          "--trace FILE", "Exit codes: 0 completed"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt << "\n" << r.out;
}

}  // namespace
