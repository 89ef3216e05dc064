// Diagnostic formatting and source-line lookup.
#include "sim/ptx/diag.h"

#include <cstring>

namespace ptxsim {

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
    out += ':';
    out += std::to_string(loc.line);
    if (loc.col != 0) {
      out += ':';
      out += std::to_string(loc.col);
    }
  }
  out += ": ";
  out += sev;
  out += ": ";
  out += message;
  out += '\n';
  if (!source_line.empty()) {
    out += source_line;
    out += '\n';
    if (loc.col != 0) {
      // Keep tabs of the source line so that the caret lines up whatever the tab width.
      for (uint32_t i = 0; i + 1 < loc.col; ++i)
        out += (i < source_line.size() && source_line[i] == '\t') ? '\t' : ' ';
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
