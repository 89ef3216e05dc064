#include "verifiers/tcgen05/ptx_text.h"

#include <cctype>

namespace ptxsim::verifiers::tcgen05 {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

// Directives that end at the end of their line rather than at a ';'.
bool is_line_directive(std::string_view t) {
  for (std::string_view d : {".version", ".target", ".address_size"})
    if (t.substr(0, d.size()) == d && (t.size() == d.size() || std::isspace(static_cast<unsigned char>(t[d.size()]))))
      return true;
  return false;
}

}  // namespace

std::vector<Statement> split_statements(const std::vector<SourceLine>& lines) {
  std::vector<Statement> out;
  std::string cur;
  int cur_line = 0;
  int vec_depth = 0;
  bool in_block_comment = false;

  auto flush = [&]() {
    std::string t = trim(cur);
    if (!t.empty()) out.push_back({t[0] == '.' ? Statement::Directive : Statement::Instruction, cur_line, t});
    cur.clear();
    vec_depth = 0;
  };
  auto append = [&](char c, int line) {
    if (trim(cur).empty() && !std::isspace(static_cast<unsigned char>(c))) cur_line = line;
    cur.push_back(c);
  };

  for (const SourceLine& sl : lines) {
    const std::string& s = sl.text;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (in_block_comment) {
        if (c == '*' && i + 1 < s.size() && s[i + 1] == '/') {
          in_block_comment = false;
          ++i;
        }
        continue;
      }
      if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') break;
      if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
        in_block_comment = true;
        ++i;
        continue;
      }
      if (c == ';') {
        flush();
        continue;
      }
      if (c == ':' && vec_depth == 0) {
        // A label: an identifier followed by a single ':' at the start of a statement.
        std::string t = trim(cur);
        bool double_colon = (i + 1 < s.size() && s[i + 1] == ':') || (!cur.empty() && cur.back() == ':');
        if (!double_colon && is_identifier(t)) {
          out.push_back({Statement::Label, cur_line, t});
          cur.clear();
          continue;
        }
      }
      if (c == '{') {
        std::string t = trim(cur);
        if (vec_depth == 0 && (t.empty() || t[0] == '.')) {
          flush();
          out.push_back({Statement::BlockOpen, sl.line, "{"});
          continue;
        }
        ++vec_depth;
        append(c, sl.line);
        continue;
      }
      if (c == '}') {
        if (vec_depth > 0) {
          --vec_depth;
          append(c, sl.line);
          continue;
        }
        flush();
        out.push_back({Statement::BlockClose, sl.line, "}"});
        continue;
      }
      append(c, sl.line);
    }
    if (is_line_directive(trim(cur)))
      flush();
    else if (!cur.empty())
      cur.push_back(' ');
  }
  flush();
  return out;
}

bool Instr::has(std::string_view part) const {
  for (const std::string& p : parts)
    if (p == part) return true;
  return false;
}

std::string Instr::qualifier(std::string_view prefix) const {
  for (const std::string& p : parts)
    if (p.size() > prefix.size() + 2 && p.compare(0, prefix.size(), prefix) == 0 &&
        p.compare(prefix.size(), 2, "::") == 0)
      return p.substr(prefix.size() + 2);
  return "";
}

std::optional<Instr> parse_instruction(std::string_view stmt, int line) {
  std::string t = trim(stmt);
  while (!t.empty() && t.back() == ';') t = trim(std::string_view(t).substr(0, t.size() - 1));
  if (t.empty()) return std::nullopt;
  Instr in;
  in.line = line;
  size_t i = 0;
  auto next_token = [&]() {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    size_t b = i;
    while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    return t.substr(b, i - b);
  };
  std::string tok = next_token();
  if (!tok.empty() && tok[0] == '@') {
    in.guard = tok;
    tok = next_token();
  }
  in.opcode = tok;
  size_t b = 0;
  for (size_t k = 0; k <= tok.size(); ++k)
    if (k == tok.size() || tok[k] == '.') {
      if (k > b) in.parts.push_back(tok.substr(b, k - b));
      b = k + 1;
    }
  std::string rest = t.substr(i);
  int depth = 0;
  std::string op;
  for (char c : rest) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      in.operands.push_back(trim(op));
      op.clear();
      continue;
    }
    op.push_back(c);
  }
  if (!trim(op).empty()) in.operands.push_back(trim(op));
  return in;
}

std::string destination_register(const Instr& in) {
  static const char* const no_dst[] = {"st",
                                       "stmatrix",
                                       "red",
                                       "bar",
                                       "barrier",
                                       "fence",
                                       "membar",
                                       "tcgen05",
                                       "cp",
                                       "bra",
                                       "brx",
                                       "ret",
                                       "exit",
                                       "call",
                                       "trap",
                                       "prefetch",
                                       "prefetchu",
                                       "wgmma",
                                       "griddepcontrol",
                                       "setmaxnreg",
                                       "pmevent",
                                       "nanosleep",
                                       "multimem",
                                       "tensormap",
                                       "applypriority",
                                       "discard",
                                       "brkpt"};
  if (in.parts.empty() || in.operands.empty()) return "";
  for (const char* n : no_dst)
    if (in.parts[0] == n) return "";
  const std::string& d = in.operands[0];
  if (d.empty() || d[0] != '%') return "";
  size_t bar = d.find('|');  // elect.sync %r|%p, ...
  return bar == std::string::npos ? d : d.substr(0, bar);
}

std::string address_key(std::string_view operand) {
  std::string t = trim(operand);
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') return "";
  std::string k;
  for (char c : t.substr(1, t.size() - 2))
    if (!std::isspace(static_cast<unsigned char>(c))) k.push_back(c);
  return k;
}

std::string address_base(std::string_view operand) {
  std::string k = address_key(operand);
  size_t e = 0;
  while (e < k.size() && k[e] != '+' && k[e] != '-') ++e;
  return k.substr(0, e);
}

std::optional<int64_t> parse_int_literal(std::string_view s) {
  std::string t = trim(s);
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.pop_back();
  if (t.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (t[0] == '-') {
    neg = true;
    i = 1;
  }
  int base = 10;
  if (t.size() > i + 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= t.size()) return std::nullopt;
  uint64_t v = 0;
  for (; i < t.size(); ++i) {
    char c = t[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

}  // namespace ptxsim::verifiers::tcgen05
