// The conventions every `ptxsim` verb's command line follows, on top of CLI11:
//   - `-h`/`--help` prints the generated help (usage, options, the verb's notes and exit codes) on
//     stdout and exits 0;
//   - options take their value as `--opt V` or `--opt=V`; `--` ends the options;
//   - a usage error prints "ptxsim VERB: MESSAGE" and "(see 'ptxsim VERB --help')" on stderr and
//     exits 1, the bad-input code of every verb.
#pragma once
#include <CLI/CLI.hpp>

#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::cli {

constexpr int kUsageExit = 1;

// An app for `ptxsim VERB`: `description` heads the help, `footer` (notes, exit codes) ends it.
void configure_verb(CLI::App& app, const std::string& verb, const std::string& description, const std::string& footer);

// Parses `args` (the words after the verb). Returns nothing when the verb should go on, else the
// exit code after printing the help (0) or the usage error (kUsageExit).
std::optional<int> parse_verb(CLI::App& app, const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Parses `args` and throws CLI::ParseError (CLI::CallForHelp for --help) instead of printing.
void parse_or_throw(CLI::App& app, const std::vector<std::string>& args);

// The usage-error text for a ParseError, e.g. "--seed: expected an unsigned integer, got 'x'".
std::string usage_message(const CLI::ParseError& e);

// "ptxsim VERB: MESSAGE\n(see 'ptxsim VERB --help')\n" on `err`; returns kUsageExit.
int usage_error(std::ostream& err, const std::string& verb, const std::string& message);

// Value checks that name what was expected and what was given (run before conversion).
CLI::Validator positive_integer();   // 1, 2, ... (decimal or 0x-hex)
CLI::Validator unsigned_integer();   // 0, 1, ... (decimal or 0x-hex)
CLI::Validator thread_count();       // 1 .. 1024 host threads
CLI::Validator positive_number();    // a finite number > 0
CLI::Validator non_empty(const std::string& what);  // e.g. "a directory"
CLI::Validator writable_directory();  // an existing directory this process may create files in
CLI::Validator one_of(std::initializer_list<const char*> choices);

// Strict conversions used by the validators (no sign, no spaces, no trailing text).
bool parse_u64(const std::string& s, uint64_t& v);
bool parse_positive_double(const std::string& s, double& v);

}  // namespace ptxsim::cli
