// Loads every kernel module built from tests/kernels/*.cu for every target. A module that does not
// load blocks all the tests that use it, and the loader stops at the first problem; so this test
// lists every problem of each module: it blanks the offending statement and loads again, until the
// module loads or the problems stop being about single statements.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/ptx/diag.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using ModulesTest = KernelTest;

std::vector<std::string> module_names() {
  std::vector<std::string> names;
  for (auto& e : std::filesystem::directory_iterator(PTXSIM_KERNEL_SOURCE_DIR))
    if (e.path().extension() == ".cu") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Blanks the statement that starts at (line, col), up to its ';', keeping braces around it.
bool blank_statement(std::string& text, uint32_t line, uint32_t col) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return false;
    ++pos;
  }
  pos += col ? col - 1 : 0;
  size_t end = text.find(';', pos);
  if (pos >= text.size() || end == std::string::npos) return false;
  for (size_t i = pos; i <= end; ++i)
    if (text[i] != '\n') text[i] = ' ';
  return true;
}

TEST_P(ModulesTest, AllLoad) {
  std::ostringstream report;
  bool all_ok = true;
  for (const std::string& name : module_names()) {
    std::string path = ptx_path(name, GetParam());
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      report << name << ": cannot open " << path << "\n";
      all_ok = false;
      continue;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    // message → (count, first location, the statement's text)
    std::map<std::string, std::tuple<int, std::string, std::string>> problems;
    std::vector<std::string> order;
    for (int attempt = 0; attempt < 500; ++attempt) {
      try {
        load_program(text, path);
        break;
      } catch (const PtxError& e) {
        const Diagnostic& d = e.diag;
        std::string key = d.message;
        if (!problems.count(key)) {
          std::string src = d.source_line;
          src.erase(0, src.find_first_not_of(" \t"));
          problems[key] = {0, std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col), src};
          order.push_back(key);
        }
        ++std::get<0>(problems[key]);
        if (d.loc.line == 0 || !blank_statement(text, d.loc.line, d.loc.col)) {
          problems[key] = {std::get<0>(problems[key]), std::get<1>(problems[key]),
                           std::get<2>(problems[key]) + "  [cannot continue past this one]"};
          break;
        }
      } catch (const std::exception& e) {
        problems["exception: " + std::string(e.what())] = {1, "?", ""};
        order.push_back("exception: " + std::string(e.what()));
        break;
      }
    }
    if (problems.empty()) {
      report << name << ": loads\n";
      continue;
    }
    all_ok = false;
    report << name << ": does not load; " << problems.size() << " distinct problem(s):\n";
    for (auto& key : order) {
      auto& [count, where, src] = problems[key];
      report << "    " << key << "  (" << count << "x; first at line " << where << ": " << src << ")\n";
    }
  }
  std::cout << "[ modules  ] " << GetParam() << ":\n" << report.str();
  EXPECT_TRUE(all_ok) << report.str();
}

KTEST_INSTANTIATE(ModulesTest);

}  // namespace
}  // namespace ptxsim::ktest
