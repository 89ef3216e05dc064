// Hand-written lexer for PTX text. Internal to the front end (sim/ptx/parser.cpp); other parts of the
// simulator should use parse_ptx() from sim/ptx/parser.h.
//
// Tokens are views into the source: a Token holds an offset and a length, never a copy. Comments
// (`//`, `/* */`) and `@@DWARF` lines are skipped. Numeric literals are decoded here:
//   Int  `123`, `0x7F`, `017` (octal), `0b101`, optional `U` suffix (value: the 64-bit bits)
//   F32  `0f3F800000` (value: the 32 bits)       F64  `0d3FF0000000000000`, `1.5`, `1e-3` (value: the 64 bits)
// Identifiers are lexed greedily with their dotted and `::` parts, so an opcode such as
// `cp.async.bulk.shared::cluster.global` or a special register such as `%tid.x` is one Ident token.
// A directive (`.reg`, `.b32`, `.v4`) is one Directive token, dot included.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/ptx/diag.h"

namespace ptxsim::ptx {

enum class Tok : uint8_t {
  Eof,
  Ident,      // foo, %r1, $L__BB0_1, _, %tid.x, ld.global.v4.u32
  Directive,  // .reg, .b32, .entry
  Int,
  F32,
  F64,
  String,     // "..." (text includes the quotes)
  Comma, Semi, Colon, LParen, RParen, LBrack, RBrack, LBrace, RBrace,
  Lt, Gt, Plus, Minus, Star, Slash, Percent, Bang, Pipe, At, Eq, Tilde, Amp, Caret, Question,
};

struct Token {
  Tok kind = Tok::Eof;
  bool is_unsigned = false;  // Int with a U suffix
  uint32_t off = 0;          // byte offset of the first character in the source
  uint32_t len = 0;
  uint32_t line = 0, col = 0;  // 1-based
  uint64_t value = 0;        // Int: the value; F32/F64: the bits
  SrcLoc loc() const { return SrcLoc{line, col}; }
};

// Throws PtxError for `file` at `loc`, with the source line taken from `src`.
[[noreturn]] void throw_ptx_error(const std::string& src, const std::string& file, SrcLoc loc, std::string msg);

// Printable form of a piece of source for messages: truncated, non-printable bytes as \xNN.
std::string quote_for_message(std::string_view text);

class Lexer {
 public:
  // `src` must stay alive and unmodified while the lexer is used (it relies on the terminating NUL of
  // std::string as a sentinel).
  Lexer(const std::string& src, const std::string& file);

  Token next();

  // Skips raw text after an already consumed `{` up to and including its matching `}`, ignoring
  // comments and strings. Used for `.section` blocks whose content is not PTX statements.
  // `open` is the location of the `{` (used for the error at end of input).
  void skip_braced(SrcLoc open, const char* what);

  std::string_view text(const Token& t) const { return std::string_view(src_.data() + t.off, t.len); }
  const std::string& source() const { return src_; }
  const std::string& file() const { return file_; }

  // Location of the end of input, for errors about a missing token at the end: the end of the last
  // line that has text on it.
  SrcLoc eof_loc() const;

  [[noreturn]] void fail(SrcLoc loc, std::string msg) const { throw_ptx_error(src_, file_, loc, std::move(msg)); }

 private:
  void skip_space_and_comments();
  void lex_number(Token& t);

  const std::string& src_;
  const std::string& file_;
  const char* begin_;
  const char* p_;
  const char* end_;
  const char* line_start_;
  const char* first_line_start_;  // after a byte order mark, if any
  uint32_t line_ = 1;
};

}  // namespace ptxsim::ptx
