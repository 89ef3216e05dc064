// Hand-written PTX lexer. See lexer.h.
#include "sim/ptx/lexer.h"

#include <charconv>
#include <cstring>
#include <limits>

namespace ptxsim::ptx {

namespace {

enum : uint8_t { kWord = 1, kIdStart = 2, kDigit = 4, kHex = 8 };

struct CharTable {
  uint8_t c[256] = {};
  constexpr CharTable() {
    for (int i = 'a'; i <= 'z'; ++i) c[i] = kWord | kIdStart;
    for (int i = 'A'; i <= 'Z'; ++i) c[i] = kWord | kIdStart;
    for (int i = '0'; i <= '9'; ++i) c[i] = kWord | kDigit | kHex;
    for (int i = 'a'; i <= 'f'; ++i) c[i] |= kHex;
    for (int i = 'A'; i <= 'F'; ++i) c[i] |= kHex;
    c[static_cast<unsigned char>('_')] = kWord | kIdStart;
    c[static_cast<unsigned char>('$')] = kWord | kIdStart;
    c[static_cast<unsigned char>('%')] = kIdStart;
  }
};
constexpr CharTable kTable;

inline bool is_word(char ch) { return kTable.c[static_cast<unsigned char>(ch)] & kWord; }
inline bool is_digit(char ch) { return kTable.c[static_cast<unsigned char>(ch)] & kDigit; }
inline bool is_hex(char ch) { return kTable.c[static_cast<unsigned char>(ch)] & kHex; }
inline unsigned hex_val(char ch) {
  if (ch >= '0' && ch <= '9') return static_cast<unsigned>(ch - '0');
  if (ch >= 'a' && ch <= 'f') return static_cast<unsigned>(ch - 'a' + 10);
  return static_cast<unsigned>(ch - 'A' + 10);
}

}  // namespace

void throw_ptx_error(const std::string& src, const std::string& file, SrcLoc loc, std::string msg) {
  Diagnostic d;
  d.severity = Diagnostic::Severity::Error;
  d.file = file;
  d.loc = loc;
  d.message = std::move(msg);
  d.source_line = source_line_of(src, loc.line);
  throw PtxError(std::move(d));
}

std::string quote_for_message(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = escape_nonprintable(text.substr(0, kMax));
  if (text.size() > kMax) out += "...";
  return out;
}

Lexer::Lexer(const std::string& src, const std::string& file)
    : src_(src), file_(file), begin_(src.data()), p_(src.data()), end_(src.data() + src.size()),
      line_start_(src.data()) {
  if (src.size() >= std::numeric_limits<uint32_t>::max())
    throw_ptx_error(src_, file_, SrcLoc{}, "input too large");
  // A UTF-8 byte order mark is skipped; columns of line 1 count from after it.
  if (src.size() >= 3 && static_cast<unsigned char>(src[0]) == 0xEF && static_cast<unsigned char>(src[1]) == 0xBB &&
      static_cast<unsigned char>(src[2]) == 0xBF) {
    p_ += 3;
    line_start_ = p_;
  }
  first_line_start_ = p_;
}

SrcLoc Lexer::eof_loc() const {
  // Walk back over trailing whitespace to the end of the last line with text.
  const char* e = end_;
  while (e > begin_ && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\f' ||
                        e[-1] == '\v'))
    --e;
  uint32_t line = 1;
  const char* ls = first_line_start_;
  if (e < ls) e = ls;
  for (const char* q = ls; q < e; ++q) {
    if (*q == '\n') {
      ++line;
      ls = q + 1;
    }
  }
  return SrcLoc{line, static_cast<uint32_t>(e - ls) + 1};
}

void Lexer::skip_space_and_comments() {
  const char* p = p_;
  for (;;) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++p;
    } else if (c == '\n') {
      ++p;
      ++line_;
      line_start_ = p;
    } else if (c == '/' && p[1] == '/') {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(end_ - p));
      p = nl ? static_cast<const char*>(nl) : end_;
    } else if (c == '/' && p[1] == '*') {
      const char* start = p;
      uint32_t start_line = line_;
      const char* start_ls = line_start_;
      p += 2;
      for (;;) {
        if (p >= end_) {
          p_ = p;
          fail(SrcLoc{start_line, static_cast<uint32_t>(start - start_ls) + 1}, "unterminated comment");
        }
        if (*p == '*' && p + 1 < end_ && p[1] == '/') {
          p += 2;
          break;
        }
        if (*p == '\n') {
          ++line_;
          line_start_ = p + 1;
        }
        ++p;
      }
    } else if (c == '@' && p[1] == '@') {
      // `@@DWARF ...` lines of old debug output: skip the rest of the line.
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(end_ - p));
      p = nl ? static_cast<const char*>(nl) : end_;
    } else {
      break;
    }
  }
  p_ = p;
}

Token Lexer::next() {
  skip_space_and_comments();
  Token t;
  t.off = static_cast<uint32_t>(p_ - begin_);
  t.line = line_;
  t.col = static_cast<uint32_t>(p_ - line_start_) + 1;
  if (p_ >= end_) {
    t.kind = Tok::Eof;
    return t;
  }
  const char* p = p_;
  char c = *p;
  auto single = [&](Tok k) {
    t.kind = k;
    t.len = 1;
    p_ = p + 1;
    return t;
  };
  switch (c) {
    case ',': return single(Tok::Comma);
    case ';': return single(Tok::Semi);
    case ':': return single(Tok::Colon);
    case '(': return single(Tok::LParen);
    case ')': return single(Tok::RParen);
    case '[': return single(Tok::LBrack);
    case ']': return single(Tok::RBrack);
    case '{': return single(Tok::LBrace);
    case '}': return single(Tok::RBrace);
    case '<': return single(Tok::Lt);
    case '>': return single(Tok::Gt);
    case '+': return single(Tok::Plus);
    case '-': return single(Tok::Minus);
    case '*': return single(Tok::Star);
    case '/': return single(Tok::Slash);
    case '!': return single(Tok::Bang);
    case '|': return single(Tok::Pipe);
    case '@': return single(Tok::At);
    case '=': return single(Tok::Eq);
    case '~': return single(Tok::Tilde);
    case '&': return single(Tok::Amp);
    case '^': return single(Tok::Caret);
    case '?': return single(Tok::Question);
    case '"': {
      const char* q = p + 1;
      for (;;) {
        if (q >= end_ || *q == '\n') fail(t.loc(), "unterminated string");
        if (*q == '"') break;
        if (*q == '\\') {
          ++q;
          if (q >= end_ || *q == '\n') fail(t.loc(), "unterminated string");
        }
        ++q;
      }
      ++q;
      t.kind = Tok::String;
      t.len = static_cast<uint32_t>(q - p);
      p_ = q;
      return t;
    }
    case '.': {
      if (!is_word(p[1])) break;
      const char* q = p + 2;
      while (is_word(*q)) ++q;
      while (q[0] == ':' && q[1] == ':' && is_word(q[2])) {
        q += 3;
        while (is_word(*q)) ++q;
      }
      t.kind = Tok::Directive;
      t.len = static_cast<uint32_t>(q - p);
      p_ = q;
      return t;
    }
    default: break;
  }
  if (is_digit(c)) {
    lex_number(t);
    return t;
  }
  if (kTable.c[static_cast<unsigned char>(c)] & kIdStart) {
    const char* q = p + 1;
    if (c == '%' && !is_word(*q)) {
      // A `%` not followed by an identifier character is the remainder operator.
      t.kind = Tok::Percent;
      t.len = 1;
      p_ = q;
      return t;
    }
    if (c == '$' && !is_word(*q)) {
      // `$` must be followed by at least one identifier character.
    } else {
      while (is_word(*q)) ++q;
      for (;;) {
        if (q[0] == '.' && is_word(q[1])) {
          q += 2;
          while (is_word(*q)) ++q;
        } else if (q[0] == ':' && q[1] == ':' && is_word(q[2])) {
          q += 3;
          while (is_word(*q)) ++q;
        } else {
          break;
        }
      }
      t.kind = Tok::Ident;
      t.len = static_cast<uint32_t>(q - p);
      p_ = q;
      return t;
    }
  }
  fail(t.loc(), "unexpected character '" + quote_for_message(std::string_view(p, 1)) + "'");
}

void Lexer::lex_number(Token& t) {
  const char* p = p_;
  const char* q = p;
  auto finish = [&](Tok kind) {
    t.kind = kind;
    t.len = static_cast<uint32_t>(q - p);
    p_ = q;
  };
  auto bad = [&]() {
    const char* e = q;
    while (is_word(*e)) ++e;
    fail(t.loc(), "invalid numeric literal '" + quote_for_message(std::string_view(p, static_cast<size_t>(e - p))) + "'");
  };
  auto out_of_range = [&]() { fail(t.loc(), "integer literal out of range"); };
  auto suffix = [&]() {
    if (*q == 'U' || *q == 'u') {
      t.is_unsigned = true;
      ++q;
    }
    if (is_word(*q)) bad();
  };
  if (p[0] == '0') {
    char k = p[1];
    if (k == 'x' || k == 'X') {
      q = p + 2;
      if (!is_hex(*q)) bad();
      uint64_t v = 0;
      while (is_hex(*q)) {
        if (v >> 60) out_of_range();
        v = (v << 4) | hex_val(*q);
        ++q;
      }
      t.value = v;
      suffix();
      finish(Tok::Int);
      return;
    }
    if ((k == 'b' || k == 'B') && (p[2] == '0' || p[2] == '1')) {
      q = p + 2;
      uint64_t v = 0;
      while (*q == '0' || *q == '1') {
        if (v >> 63) out_of_range();
        v = (v << 1) | static_cast<uint64_t>(*q - '0');
        ++q;
      }
      t.value = v;
      suffix();
      finish(Tok::Int);
      return;
    }
    if (k == 'f' || k == 'F' || k == 'd' || k == 'D') {
      int ndig = (k == 'f' || k == 'F') ? 8 : 16;
      q = p + 2;
      uint64_t v = 0;
      int n = 0;
      while (is_hex(*q)) {
        if (n < ndig) v = (v << 4) | hex_val(*q);
        ++n;
        ++q;
      }
      if (n != ndig || is_word(*q)) bad();
      t.value = v;
      finish(ndig == 8 ? Tok::F32 : Tok::F64);
      return;
    }
  }
  // Decimal integer, octal integer or decimal floating-point literal.
  q = p;
  while (is_digit(*q)) ++q;
  bool is_float = false;
  const char* fe = q;
  if (fe[0] == '.' && is_digit(fe[1])) {
    is_float = true;
    fe += 2;
    while (is_digit(*fe)) ++fe;
  }
  if (fe[0] == 'e' || fe[0] == 'E') {
    const char* x = fe + 1;
    if (*x == '+' || *x == '-') ++x;
    if (is_digit(*x)) {
      is_float = true;
      while (is_digit(*x)) ++x;
      fe = x;
    }
  }
  if (is_float) {
    q = fe;
    if (is_word(*q)) bad();
    double d = 0;
    auto r = std::from_chars(p, q, d);
    if (r.ec != std::errc() || r.ptr != q) fail(t.loc(), "floating-point literal out of range");
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    t.value = bits;
    finish(Tok::F64);
    return;
  }
  uint64_t v = 0;
  if (p[0] == '0' && q - p > 1) {
    for (const char* d = p + 1; d < q; ++d) {
      if (*d > '7') bad();
      if (v >> 61) out_of_range();
      v = (v << 3) | static_cast<uint64_t>(*d - '0');
    }
  } else {
    for (const char* d = p; d < q; ++d) {
      uint64_t digit = static_cast<uint64_t>(*d - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) out_of_range();
      v = v * 10 + digit;
    }
  }
  t.value = v;
  suffix();
  finish(Tok::Int);
}

void Lexer::skip_braced(SrcLoc open, const char* what) {
  const char* p = p_;
  uint32_t depth = 1;
  while (p < end_) {
    char c = *p;
    switch (c) {
      case '\n':
        ++p;
        ++line_;
        line_start_ = p;
        continue;
      case '{':
        ++depth;
        break;
      case '}':
        if (--depth == 0) {
          p_ = p + 1;
          return;
        }
        break;
      case '/':
        if (p + 1 < end_ && p[1] == '/') {
          const void* nl = std::memchr(p, '\n', static_cast<size_t>(end_ - p));
          p = nl ? static_cast<const char*>(nl) : end_;
          continue;
        }
        if (p + 1 < end_ && p[1] == '*') {
          p += 2;
          while (p < end_ && !(*p == '*' && p + 1 < end_ && p[1] == '/')) {
            if (*p == '\n') {
              ++line_;
              line_start_ = p + 1;
            }
            ++p;
          }
          p = (p < end_) ? p + 2 : end_;
          continue;
        }
        break;
      case '"':
        // Strings end at the closing quote or, leniently, at the end of the line.
        ++p;
        while (p < end_ && *p != '"' && *p != '\n') {
          if (*p == '\\' && p + 1 < end_ && p[1] != '\n') ++p;
          ++p;
        }
        if (p < end_ && *p == '"') ++p;
        continue;
      default: break;
    }
    ++p;
  }
  p_ = end_;
  fail(open, std::string("unterminated ") + what + ": expected '}'");
}

}  // namespace ptxsim::ptx
