#include "tools/ptxsim/verify_command.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <ostream>
#include <sstream>

#include "tools/ptxsim/cli_parse.h"
#include "verifiers/verifier.h"

namespace ptxsim::cli {

namespace {

constexpr int kAccepted = 0, kRejected = 4, kMalformed = 1;

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // keeps the documented key order on output

int malformed(const std::string& verifier, const std::string& message, bool as_json, std::ostream& out,
              std::ostream& err) {
  err << "ptxsim verify: " << message << "\n";
  if (as_json) {
    ojson j = {{"verifier", verifier.empty() ? ojson(nullptr) : ojson(verifier)},
               {"accepted", false},
               {"error", message},
               {"diagnostics", ojson::array()},
               {"result", ojson::object()}};
    out << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  }
  return kMalformed;
}

std::string with_error_prefix(const std::string& d) {
  return d.rfind("error: ", 0) == 0 ? d : "error: " + d;
}

std::string bare(const std::string& d) { return d.rfind("error: ", 0) == 0 ? d.substr(7) : d; }

}  // namespace

int verify_request(const json& request, bool as_json, std::ostream& out, std::ostream& err) {
  if (!request.is_object()) return malformed("", "the request must be a JSON object", as_json, out, err);
  auto it = request.find("verifier");
  if (it == request.end() || it->is_null())
    return malformed("", "the request has no \"verifier\" key (see 'ptxsim verify --list')", as_json, out, err);
  if (!it->is_string()) return malformed("", "the request's \"verifier\" must be a string", as_json, out, err);
  const std::string name = it->get<std::string>();
  const verifiers::Entry* entry = verifiers::find_verifier(name);
  if (!entry) return malformed(name, "unknown verifier '" + name + "' (see 'ptxsim verify --list')", as_json, out, err);

  verifiers::Outcome outcome;
  try {
    outcome = entry->handler(request);
  } catch (const verifiers::RequestError& e) {
    return malformed(name, name + ": " + e.what(), as_json, out, err);
  } catch (const json::exception& e) {
    return malformed(name, name + ": malformed request: " + e.what(), as_json, out, err);
  }
  const bool accepted = outcome.accepted && outcome.diagnostics.empty();
  if (as_json) {
    ojson diags = ojson::array();
    for (const std::string& d : outcome.diagnostics) diags.push_back(bare(d));
    ojson j = {{"verifier", name},
               {"accepted", accepted},
               {"diagnostics", diags},
               {"result", outcome.result.is_null() ? ojson::object() : ojson::parse(outcome.result.dump())}};
    out << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (accepted) {
    for (const std::string& line : outcome.result_lines) out << line << "\n";
  } else {
    for (const std::string& d : outcome.diagnostics) out << with_error_prefix(d) << "\n";
  }
  return accepted ? kAccepted : kRejected;
}

int verify_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app;
  configure_verb(app, "verify",
                 "Runs the verifier named by the request's \"verifier\" key on the request (a JSON object;\n"
                 "'-' reads it from stdin). Request schemas: docs/verifiers.md.",
                 "Output: a rejection prints one \"error: DIAGNOSTIC\" line per diagnostic, an acceptance the\n"
                 "verifier's result lines.\n"
                 "Exit codes: 0 accepted, 4 rejected, 1 malformed request or bad arguments.");
  bool as_json = false, list = false;
  std::string file;
  app.add_option("REQUEST.json", file, "the request ('-': stdin)")->type_name("");
  app.add_flag("--json", as_json, "print one JSON object {\"verifier\", \"accepted\", \"diagnostics\", \"result\"}");
  app.add_flag("--list", list, "list the verifiers and what each checks");
  if (auto code = parse_verb(app, args, out, err)) return *code;
  if (list) {
    if (as_json) {
      ojson j = ojson::array();
      for (const auto& e : verifiers::registry()) j.push_back({{"name", e.name}, {"summary", e.summary}});
      out << j.dump(2) << "\n";
    } else {
      size_t w = 0;
      for (const auto& e : verifiers::registry()) w = std::max(w, std::string(e.name).size());
      for (const auto& e : verifiers::registry()) {
        std::string n = e.name;
        n.resize(w + 2, ' ');
        out << n << e.summary << "\n";
      }
    }
    return 0;
  }
  if (file.empty()) return usage_error(err, "verify", "missing REQUEST.json");
  std::string text;
  if (file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream f(file, std::ios::binary);
    if (!f) return malformed("", file + ": cannot open the request file", as_json, out, err);
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  json request;
  try {
    request = json::parse(text);
  } catch (const json::parse_error& e) {
    return malformed("", (file == "-" ? std::string("<stdin>") : file) + ": not valid JSON: " + e.what(), as_json,
                     out, err);
  }
  return verify_request(request, as_json, out, err);
}

}  // namespace ptxsim::cli
