// Accept/reject agreement with the toolkit's ptxas on a corpus of small PTX files
// (tests/ptx/corpus). expected.txt records what ptxas says for each file and target; the test
// checks that ptxsim agrees with it and, where ptxas is installed, that it still says so.
// A form that ptxsim validates but does not simulate yet counts as accepted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/api.h"

namespace fs = std::filesystem;

namespace {

struct Case {
  std::string file, target;
  bool accept;
};

// Readable test names and failure messages instead of a byte dump of the struct.
void PrintTo(const Case& c, std::ostream* os) { *os << c.file << " on " << c.target; }

std::vector<Case> load_expected() {
  std::vector<Case> out;
  std::ifstream in(fs::path(PTXSIM_SOURCE_DIR) / "tests/ptx/corpus/expected.txt");
  std::string f, t, r;
  while (in >> f >> t >> r) out.push_back({f, t, r == "accept"});
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string with_target(std::string text, const std::string& target) {
  size_t at = text.find("TARGET");
  if (at != std::string::npos) text.replace(at, 6, target);
  return text;
}

bool ptxsim_accepts(const std::string& text, const std::string& name, std::string* why) {
  try {
    ptxsim::load_program(text, name);
    return true;
  } catch (const ptxsim::PtxError& e) {
    *why = e.what();
    return e.unimplemented;
  }
}

std::string ptxas_path() {
  for (const char* p : {"/usr/local/cuda/bin/ptxas"})
    if (fs::exists(p)) return p;
  return "";
}

class PtxasAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(PtxasAgreement, PtxsimMatchesRecordedVerdict) {
  const Case& c = GetParam();
  std::string text = with_target(read(fs::path(PTXSIM_SOURCE_DIR) / "tests/ptx/corpus" / c.file), c.target);
  std::string why;
  bool ok = ptxsim_accepts(text, c.file, &why);
  EXPECT_EQ(ok, c.accept) << c.file << " on " << c.target << ": ptxas " << (c.accept ? "accepts" : "rejects")
                          << ", ptxsim " << (ok ? "accepts" : "rejects") << "\n" << why;
}

TEST_P(PtxasAgreement, RecordedVerdictMatchesPtxas) {
  const Case& c = GetParam();
  std::string ptxas = ptxas_path();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not installed";
  std::string text = with_target(read(fs::path(PTXSIM_SOURCE_DIR) / "tests/ptx/corpus" / c.file), c.target);
  fs::path tmp = fs::temp_directory_path() / ("ptxsim_corpus_" + std::to_string(::getpid()) + "_" + c.target + "_" + c.file);
  std::ofstream(tmp) << text;
  std::string cmd = ptxas + " -arch=" + c.target + " " + tmp.string() + " -o /dev/null >/dev/null 2>&1";
  bool ok = std::system(cmd.c_str()) == 0;
  fs::remove(tmp);
  EXPECT_EQ(ok, c.accept) << c.file << " on " << c.target << ": expected.txt is out of date";
}

INSTANTIATE_TEST_SUITE_P(Corpus, PtxasAgreement, ::testing::ValuesIn(load_expected()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string n = i.param.file.substr(0, i.param.file.size() - 4) + "_" + i.param.target;
                           for (char& ch : n)
                             if (!isalnum((unsigned char)ch)) ch = '_';
                           return n;
                         });

TEST(PtxasAgreement, CorpusIsNotEmpty) { EXPECT_GE(load_expected().size(), 40u); }

}  // namespace
