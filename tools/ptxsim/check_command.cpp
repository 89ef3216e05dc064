#include "tools/ptxsim/check_command.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/api.h"
#include "tools/ptxsim/cli_parse.h"
#include "sim/ptx/diag.h"
#include "verifiers/tcgen05/ptx_check.h"
#include "verifiers/tma/check.h"

namespace ptxsim::cli {
namespace {

constexpr int kClean = 0, kFound = 4, kBadInput = 1;

struct Finding {
  int line = 0;
  std::string text;  // "FILE:LINE: error: MESSAGE" (possibly followed by source and caret lines)
};

std::vector<std::pair<int, std::string>> numbered_lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> lines;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) lines.emplace_back(n, line);
  return lines;
}

// "FILE:LINE: ..." -> LINE, for sorting the verifiers' formatted diagnostics.
int line_of(const std::string& formatted, const std::string& file) {
  if (formatted.compare(0, file.size() + 1, file + ":") != 0) return 0;
  return std::atoi(formatted.c_str() + file.size() + 1);
}

}  // namespace

int check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app;
  configure_verb(app, "check",
                 "Checks a PTX module without running it: syntax and instruction forms against its .target,\n"
                 "then the TMA and tcgen05 verifiers that can be decided from the text.",
                 "Exit codes: 0 no errors, 4 errors found, 1 unreadable file or bad arguments.");
  std::string path;
  bool as_json = false, isa_only = false;
  app.add_option("KERNEL.ptx", path, "the PTX module to check")->type_name("");
  app.add_flag("--json", as_json, "print one JSON object {\"file\", \"errors\", \"notes\"}");
  app.add_flag("--isa-only", isa_only,
               "skip the seed compiler's TMA lowering contracts (bulk-copy modifier order, the fixed\n"
               "tensormap rebind sequence), which PTX from other compilers (Triton, CUTLASS) need not\n"
               "follow; keep what the PTX ISA itself requires");
  if (auto code = parse_verb(app, args, out, err)) return *code;
  if (path.empty()) return usage_error(err, "check", "missing KERNEL.ptx");
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    err << "ptxsim check: cannot read '" << path << "'\n";
    return kBadInput;
  }
  std::stringstream buf;
  buf << f.rdbuf();
  const std::string text = buf.str();

  std::vector<Finding> errors, notes;
  try {
    (void)load_program(text, path);
  } catch (const PtxError& e) {
    Diagnostic d = e.diag;
    if (e.unimplemented) d.severity = Diagnostic::Severity::Note;
    std::string msg = d.format();
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    (e.unimplemented ? notes : errors).push_back({int(e.diag.loc.line), msg});
  }
  const auto lines = numbered_lines(text);
  if (!isa_only)
    for (std::string& d : verifiers::tma::check_tma_ptx(path, lines)) errors.push_back({line_of(d, path), std::move(d)});
  for (std::string& d : verifiers::tcgen05::check_tcgen05_ptx(path, lines))
    errors.push_back({line_of(d, path), std::move(d)});
  std::stable_sort(errors.begin(), errors.end(), [](const Finding& a, const Finding& b) { return a.line < b.line; });

  if (as_json) {
    nlohmann::ordered_json j = {{"file", path}, {"errors", nlohmann::json::array()}, {"notes", nlohmann::json::array()}};
    for (const Finding& e : errors) j["errors"].push_back({{"line", e.line}, {"message", e.text}});
    for (const Finding& n : notes) j["notes"].push_back({{"line", n.line}, {"message", n.text}});
    out << j.dump(2) << "\n";
  } else {
    for (const Finding& e : errors) out << e.text << "\n";
    for (const Finding& n : notes) out << n.text << "\n";
  }
  err << "ptxsim check: " << path << ": " << errors.size() << (errors.size() == 1 ? " error" : " errors");
  if (!notes.empty()) err << ", " << notes.size() << (notes.size() == 1 ? " note" : " notes");
  err << "\n";
  return errors.empty() ? kClean : kFound;
}

}  // namespace ptxsim::cli
