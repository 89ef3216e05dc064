#include "verifiers/tma/ptx_text.h"

#include <cctype>

namespace ptxsim::verifiers::tma {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_top(std::string_view s, char sep) {
  std::vector<std::string> out;
  if (trim(s).empty()) return out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == sep && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

std::optional<std::string> unwrap(std::string_view s, char open, char close) {
  std::string t = trim(s);
  if (t.size() < 2 || t.front() != open || t.back() != close) return std::nullopt;
  return trim(std::string_view(t).substr(1, t.size() - 2));
}

std::vector<std::string> split_statements(std::string_view line) {
  // Drop comments first (a // comment runs to the end of the line).
  std::string text;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line.compare(i, 2, "//") == 0) break;
    if (line.compare(i, 2, "/*") == 0) {
      size_t e = line.find("*/", i + 2);
      if (e == std::string_view::npos) break;
      i = e + 1;
      text += ' ';
      continue;
    }
    text += line[i];
  }
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  auto flush = [&](size_t end) {
    std::string st = trim(std::string_view(text).substr(start, end - start));
    // Strip braces of inline-asm scopes: "{ tensormap.replace ..." -> "tensormap.replace ...".
    while (!st.empty() && (st.front() == '{' || st.front() == '}')) st = trim(std::string_view(st).substr(1));
    while (!st.empty() && st.back() == '}' && st.find('{') == std::string::npos)
      st = trim(std::string_view(st).substr(0, st.size() - 1));
    if (!st.empty()) out.push_back(st);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '[' || c == '(') ++depth;
    if ((c == ']' || c == ')') && depth > 0) --depth;
    if (c == ';' && depth == 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(text.size());
  return out;
}

std::optional<PtxInstruction> parse_instruction(std::string_view statement) {
  std::string s = trim(statement);
  while (!s.empty() && s.back() == ';') s = trim(std::string_view(s).substr(0, s.size() - 1));
  if (s.empty() || s[0] == '.' || s.back() == ':') return std::nullopt;
  PtxInstruction in;
  in.text = s;
  std::string_view rest = s;
  if (rest[0] == '@') {
    size_t e = rest.find_first_of(" \t");
    if (e == std::string_view::npos) return std::nullopt;
    in.predicate = std::string(rest.substr(0, e));
    rest = rest.substr(e);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest[0]))) rest.remove_prefix(1);
  }
  size_t e = rest.find_first_of(" \t");
  in.opcode = std::string(rest.substr(0, e));
  if (in.opcode.empty() || in.opcode.back() == ':') return std::nullopt;
  if (e != std::string_view::npos) in.operands = split_top(rest.substr(e));
  size_t start = 0;
  for (size_t i = 0; i <= in.opcode.size(); ++i)
    if (i == in.opcode.size() || in.opcode[i] == '.') {
      in.parts.push_back(in.opcode.substr(start, i - start));
      start = i + 1;
    }
  return in;
}

std::optional<int> placeholder_number(std::string_view op) {
  std::string t = trim(op);
  if (t.size() < 2 || (t[0] != '%' && t[0] != '$')) return std::nullopt;
  int v = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i])) || i > 4) return std::nullopt;
    v = v * 10 + (t[i] - '0');
  }
  return v;
}

std::optional<std::string> register_class(std::string_view op) {
  std::string t = trim(op);
  if (t.size() < 2 || t[0] != '%') return std::nullopt;
  size_t i = 1;
  while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
  std::string prefix = t.substr(1, i - 1);
  if (i == t.size()) return std::nullopt;  // %tid, %ctaid ... (special registers)
  for (size_t j = i; j < t.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(t[j]))) return std::nullopt;
  if (prefix == "rd") return "l";
  if (prefix == "r") return "r";
  if (prefix == "rs") return "h";
  if (prefix == "f") return "f";
  if (prefix == "fd") return "d";
  if (prefix == "p") return "b";
  return std::nullopt;
}

std::string class_width(std::string_view cls) {
  if (cls == "l") return "64-bit";
  if (cls == "r") return "32-bit";
  if (cls == "h") return "16-bit";
  if (cls == "f") return "32-bit float";
  if (cls == "d") return "64-bit float";
  if (cls == "b") return "predicate";
  if (cls == "n") return "immediate";
  return "unknown";
}

std::vector<std::string> split_constraints(std::string_view constraints) {
  std::vector<std::string> out;
  for (const std::string& c : split_top(constraints)) {
    std::string k;
    for (char ch : c)
      if (ch != '=' && ch != '+' && ch != '&' && ch != '*') k += ch;
    out.push_back(k);
  }
  return out;
}

}  // namespace ptxsim::verifiers::tma
