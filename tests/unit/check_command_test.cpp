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

CheckResult check_text(const std::string& name, const std::string& text, bool json = false, bool isa_only = false) {
  // Named after this process: several test runs may share the machine.
  const auto path = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  std::ostringstream out, err;
  std::vector<std::string> args = {path.string()};
  if (json) args.push_back("--json");
  if (isa_only) args.push_back("--isa-only");
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

namespace {

// Triton's device-side descriptor code: a scratch copy of a tensor map rewritten field by field
// (element type and box size too), with the acquire's size written in hex. The ISA allows all of
// it; only the seed compiler's rebind contract does not, so --isa-only reports nothing.
TEST(CheckCommand, IsaOnlySkipsTheSeedRebindContract) {
  const std::string text = std::string(kHeader90) +
                           ".visible .entry k(.param .u64 tmap){\n"
                           "  .reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
                           "  ld.param.u64 %rd1, [tmap];\n"
                           "  tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;\n"
                           "  tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 6;\n"
                           "  tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 0, 64;\n"
                           "  fence.proxy.tensormap::generic.release.gpu;\n"
                           "  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 0x80;\n"
                           "  ret;\n"
                           "}\n";
  auto seed = check_text("rebind.ptx", text);
  EXPECT_EQ(seed.code, 4) << seed.out << seed.err;
  EXPECT_NE(seed.out.find("TMA descriptor field is not device-mutable"), std::string::npos) << seed.out;
  auto isa = check_text("rebind.ptx", text, false, true);
  EXPECT_EQ(isa.code, 0) << isa.out << isa.err;
  EXPECT_EQ(isa.out, "");
}

// The acquire's size operand is compared as a number: 0x80 and 128 are the same fence.
TEST(CheckCommand, AcquireSizeIsANumberInAnyRadix) {
  const std::string seq = "  fence.proxy.tensormap::generic.acquire.cta [%rd1], SIZE;\n"
                          "  tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;\n"
                          "  tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 0, %r1;\n"
                          "  fence.proxy.tensormap::generic.release.cta;\n";
  for (const char* size : {"128", "0x80", "129"}) {
    std::string body = seq;
    body.replace(body.find("SIZE"), 4, size);
    auto r = check_text("acq.ptx", std::string(kHeader90) + ".visible .entry k(){\n  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n" +
                                       body + "  ret;\n}\n");
    EXPECT_EQ(r.code, std::string(size) == "129" ? 4 : 0) << size << "\n" << r.out << r.err;
  }
}

}  // namespace
