// Diagnostics with source locations, shared by the front end, the decoder and the engine.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim {

// A position in a PTX source. `line` and `col` are 1-based; 0 means unknown.
struct SrcLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  Severity severity = Severity::Error;
  std::string file;         // PTX file name as given to the parser
  SrcLoc loc;
  std::string message;
  std::string source_line;  // the offending line's text, without its newline

  // "file:line:col: error: message\n<line>\n<caret>\n"; the line's non-printable bytes are
  // escaped (escape_nonprintable) and the caret counts them as four columns.
  std::string format() const;
};

// Thrown by the front end and decoder for malformed or unsupported input.
struct PtxError : std::runtime_error {
  Diagnostic diag;
  bool unimplemented = false;  // a valid form ptxsim recognises but does not simulate yet
  explicit PtxError(Diagnostic d) : std::runtime_error(d.format()), diag(std::move(d)) {}
};

// `text` with every byte that is not printable ASCII or a tab written as \xNN.
std::string escape_nonprintable(std::string_view text);

// Returns line `line` (1-based) of `text` without its newline, or "" when out of range.
std::string source_line_of(const std::string& text, uint32_t line);

}  // namespace ptxsim
