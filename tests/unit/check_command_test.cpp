// `ptxsim check`: front-end diagnostics, the TMA and tcgen05 text verifiers, exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "tools/ptxsim/check_command.h"

namespace {

struct CheckResult {
  int code;
  std::string out, err;
};

CheckResult check_text(const std::string& name, const std::string& text, bool json = false) {
  // Named after this process: several test runs may share the machine.
  const auto path = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  std::ostringstream out, err;
  std::vector<std::string> args = {path.string()};
  if (json) args.push_back("--json");
  int code = ptxsim::cli::check_command(args, out, err);
  std::filesystem::remove(path);
  return {code, out.str(), err.str()};
}

const char* kHeader90 = ".version 8.7\n.target sm_90a\n.address_size 64\n";

TEST(CheckCommand, CleanModulePrintsNothing) {
  auto r = check_text("clean.ptx", std::string(kHeader90) +
                                        ".visible .entry k(.param .u64 p){\n"
                                        "  .reg .b64 %rd<2>;\n"
                                        "  ld.param.u64 %rd1, [p];\n"
                                        "  st.global.u32 [%rd1], 7;\n"
                                        "  ret;\n"
                                        "}\n");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("0 errors"), std::string::npos) << r.err;
}

TEST(CheckCommand, BulkCopyModifierOrderIsReportedWithItsLine) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-order.ptx")).string();
  auto r = check_text("order.ptx",
                      std::string(kHeader90) +
                          ".visible .entry k(.param .u64 tmap){\n"
                          "  .reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .b16 %rs<2>;\n"
                          "  ld.param.u64 %rd1, [tmap];\n"
                          "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                          ".L2::cache_hint.multicast::cluster [%r1], [%rd1, {%r2, %r3}], [%r4], %rs1, %rd2;\n"
                          "  ret;\n"
                          "}\n");
  EXPECT_EQ(r.code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find(path + ":7: error: expected the modifier order .im2col, .multicast::cluster, "
                              ".L2::cache_hint, but got .L2::cache_hint before .multicast::cluster"),
            std::string::npos)
      << r.out;
}

TEST(CheckCommand, TargetGateFromTheDecoderAndTheTcgen05Verifier) {
  auto r = check_text("gate.ptx", std::string(kHeader90) +
                                       ".visible .entry k(){\n"
                                       "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
                                       "  ret;\n"
                                       "}\n");
  EXPECT_EQ(r.code, 4);
  EXPECT_NE(r.out.find(":5:3: error: Instruction 'tcgen05.relinquish_alloc_permit' not supported on .target 'sm_90a'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(":5: error: tcgen05.relinquish_alloc_permit supported only on arch-conditional or "
                       "family-conditional variants from SM100 onwards."),
            std::string::npos)
      << r.out;
}

TEST(CheckCommand, SyntaxErrorHasCaretAndJsonListsIt) {
  auto r = check_text("syntax.ptx", std::string(kHeader90) + ".visible .entry k({\n  ret;\n}\n", true);
  EXPECT_EQ(r.code, 4);
  EXPECT_NE(r.out.find("\"errors\""), std::string::npos);
  EXPECT_NE(r.out.find("syntax.ptx:4:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("^"), std::string::npos) << r.out;
}

TEST(CheckCommand, UnreadableFileAndBadArguments) {
  std::ostringstream out, err;
  EXPECT_EQ(ptxsim::cli::check_command({"/nonexistent/k.ptx"}, out, err), 1);
  EXPECT_NE(err.str().find("cannot read '/nonexistent/k.ptx'"), std::string::npos);
  EXPECT_EQ(ptxsim::cli::check_command({"--frobnicate"}, out, err), 1);
  EXPECT_EQ(ptxsim::cli::check_command({}, out, err), 1);
}

}  // namespace
