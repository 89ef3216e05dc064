#include "tools/ptxsim/cli_parse.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ostream>

namespace ptxsim::cli {

namespace {

// CLI11 reports a failed check as "NAME: MESSAGE"; conversions and counts in its own words.
std::string verb_of(const CLI::App& app) {
  std::string n = app.get_name();
  return n.rfind("ptxsim ", 0) == 0 ? n.substr(7) : n;
}

}  // namespace

void configure_verb(CLI::App& app, const std::string& verb, const std::string& description, const std::string& footer) {
  app.name("ptxsim " + verb);
  app.description(description);
  app.footer(footer);
  app.set_help_flag("-h,--help", "print this help and exit");
  app.allow_extras();  // parse_or_throw reports them, in the order given
  app.get_formatter()->column_width(26);
}

bool parse_u64(const std::string& s, uint64_t& v) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  errno = 0;
  char* end = nullptr;
  unsigned long long x = std::strtoull(s.c_str(), &end, hex ? 16 : 10);  // decimal or 0x-hex, never octal
  if (errno || *end || (hex && s.size() == 2)) return false;
  v = x;
  return true;
}

bool parse_positive_double(const std::string& s, double& v) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  double x = std::strtod(s.c_str(), &end);
  if (*end || !std::isfinite(x) || !(x > 0)) return false;
  v = x;
  return true;
}

// Integer checks rewrite the value in decimal, so that CLI11's own conversion (which would read a
// leading 0 as octal) sees what the user meant.
CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        uint64_t v;
        if (!parse_u64(s, v) || v == 0) return "expected a positive integer, got '" + s + "'";
        s = std::to_string(v);
        return "";
      },
      "");
}

CLI::Validator thread_count() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        uint64_t v;
        if (!parse_u64(s, v) || v == 0 || v > 1024) return "expected a thread count from 1 to 1024, got '" + s + "'";
        s = std::to_string(v);
        return "";
      },
      "");
}

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        uint64_t v;
        if (!parse_u64(s, v)) return "expected an unsigned integer, got '" + s + "'";
        s = std::to_string(v);
        return "";
      },
      "");
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v;
        return parse_positive_double(s, v) ? "" : "expected a positive number, got '" + s + "'";
      },
      "");
}

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator([what](std::string& s) { return s.empty() ? "needs " + what : std::string(); }, "");
}

CLI::Validator writable_directory() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty()) return "needs a directory";
        struct stat st;
        if (::stat(s.c_str(), &st) != 0) return "no such directory: '" + s + "'";
        if (!S_ISDIR(st.st_mode)) return "not a directory: '" + s + "'";
        if (::access(s.c_str(), W_OK | X_OK) != 0) return "cannot write in directory '" + s + "'";
        return "";
      },
      "");
}

CLI::Validator one_of(std::initializer_list<const char*> choices) {
  std::vector<std::string> c(choices.begin(), choices.end());
  std::string list;
  for (size_t i = 0; i < c.size(); ++i)
    list += (i == 0 ? "" : i + 1 == c.size() ? (c.size() == 2 ? " or " : ", or ") : ", ") + c[i];
  std::string desc;
  for (const std::string& x : c) desc += (desc.empty() ? "" : "|") + x;
  return CLI::Validator(
      [c, list](std::string& s) -> std::string {
        return std::find(c.begin(), c.end(), s) != c.end() ? "" : "expected " + list + ", got '" + s + "'";
      },
      desc);
}

void parse_or_throw(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  app.parse(reversed);
  if (std::vector<std::string> extra = app.remaining(); !extra.empty()) {
    std::reverse(extra.begin(), extra.end());  // ExtrasError joins them back to front
    throw CLI::ExtrasError(extra);
  }
}

std::string usage_message(const CLI::ParseError& e) {
  std::string m = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    // "The following argument was not expected: X" reads as an unknown option or a surplus operand.
    size_t colon = m.find(": ");
    std::string what = colon == std::string::npos ? m : m.substr(colon + 2);
    if (m.find("arguments were") != std::string::npos) return "unexpected arguments: " + what;
    return (what.rfind("-", 0) == 0 && what.size() > 1 ? "unknown option '" : "unexpected argument '") + what + "'";
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && m.find(" required ") != std::string::npos &&
      m.find(" missing") != std::string::npos)
    return m.substr(0, m.find(':')) + " needs a value";  // "--seed: 1 required S missing"
  return m;
}

int usage_error(std::ostream& err, const std::string& verb, const std::string& message) {
  err << "ptxsim " << verb << ": " << message << "\n(see 'ptxsim " << verb << " --help')\n";
  return kUsageExit;
}

std::optional<int> parse_verb(CLI::App& app, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    parse_or_throw(app, args);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    return usage_error(err, verb_of(app), usage_message(e));
  }
  return std::nullopt;
}

}  // namespace ptxsim::cli
