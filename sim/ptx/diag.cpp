// Diagnostic formatting and source-line lookup.
#include "sim/ptx/diag.h"

#include <cstring>

namespace ptxsim {

namespace {

// How one byte of PTX source is shown to a terminal: printable ASCII and tabs as they are, anything
// else (control bytes, escape sequences, bytes >= 0x80 of binary input) as \xNN so that a file of
// random bytes cannot drive the terminal.
bool shown_raw(unsigned char ch) { return (ch >= 0x20 && ch < 0x7f) || ch == '\t'; }

void append_escaped(std::string& out, unsigned char ch) {
  static const char* hex = "0123456789abcdef";
  out += "\\x";
  out += hex[ch >> 4];
  out += hex[ch & 15];
}

}  // namespace

std::string escape_nonprintable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char ch = static_cast<unsigned char>(c);
    if (shown_raw(ch)) out += c;
    else append_escaped(out, ch);
  }
  return out;
}

std::string Diagnostic::format() const {
  const char* sev = "error";
  switch (severity) {
    case Severity::Error: sev = "error"; break;
    case Severity::Warning: sev = "warning"; break;
    case Severity::Note: sev = "note"; break;
  }
  std::string out;
  out.reserve(file.size() + message.size() + 2 * source_line.size() + 48);
  out += file;
  if (loc.line != 0) {
    if (!file.empty()) out += ':';
    out += std::to_string(loc.line);
    if (loc.col != 0) {
      out += ':';
      out += std::to_string(loc.col);
    }
  }
  // A diagnostic with no place (a launch error) reads "error: ...", not ": error: ...".
  if (!out.empty()) out += ": ";
  out += sev;
  out += ": ";
  out += message;
  out += '\n';
  if (!source_line.empty()) {
    out += escape_nonprintable(source_line);
    out += '\n';
    if (loc.col != 0) {
      // Keep tabs of the source line so that the caret lines up whatever the tab width; a byte
      // shown as \xNN takes four columns.
      for (uint32_t i = 0; i + 1 < loc.col; ++i) {
        if (i >= source_line.size()) out += ' ';
        else if (source_line[i] == '\t') out += '\t';
        else out.append(shown_raw(static_cast<unsigned char>(source_line[i])) ? 1 : 4, ' ');
      }
      out += "^\n";
    }
  }
  return out;
}

std::string source_line_of(const std::string& text, uint32_t line) {
  if (line == 0) return {};
  const char* p = text.data();
  const char* end = p + text.size();
  for (uint32_t l = 1; l < line; ++l) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) return {};
    p = static_cast<const char*>(nl) + 1;
  }
  if (p > end) return {};
  const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
  const char* e = nl ? static_cast<const char*>(nl) : end;
  if (e > p && e[-1] == '\r') --e;
  return std::string(p, e);
}

}  // namespace ptxsim
