// The parser of the CuTe notation (see layout.h):
//   value    := swizzle [ 'o' [ offset 'o' ] layout ] | tuple [ ':' tuple ]
//   swizzle  := ('Sw' | 'Swizzle') '<' int ',' int ',' int '>'
//   offset   := int | 'smem_ptr' '[' digits 'b' ']' '(' 'unset' ')'
//   tuple    := leaf | '(' [ tuple { ',' tuple } ] ')'
//   leaf     := '?' | int [ '@' axis ]          int := ['_'] ['-'|'+'] digits
//   axis     := ['_'] digits | identifier
// Whitespace is allowed between tokens.
#include <cctype>

#include "verifiers/layout/layout.h"

namespace ptxsim::verifiers::layout {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : t_(text) {}

  CuteValue value() {
    CuteValue v;
    skip();
    if (at_word("Sw") || at_word("Swizzle")) {
      v.swizzle = swizzle();
      skip();
      if (eof()) {
        v.kind = CuteValue::Kind::Swizzle;
        return v;
      }
      expect_o();
      v.kind = CuteValue::Kind::Composed;
      v.composed.swizzle = v.swizzle;
      skip();
      if (at_word("smem_ptr")) {
        v.composed.ptr_bits = pointer();
        expect_o();
        v.composed.inner = layout();
      } else {
        size_t col = pos_;
        IntTuple first = tuple();
        skip();
        if (peek() == ':') {
          ++pos_;
          v.composed.inner = make(first, tuple(), col);
        } else {
          if (!first.is_leaf() || !first.leaf().is_static_int())
            fail("expected a layout or an integer offset after 'o'", col);
          v.composed.offset = first.leaf().value;
          expect_o();
          v.composed.inner = layout();
        }
      }
      end();
      return v;
    }
    size_t col = pos_;
    IntTuple t = tuple();
    skip();
    if (peek() == ':') {
      ++pos_;
      v.kind = CuteValue::Kind::Layout;
      v.layout = make(t, tuple(), col);
    } else {
      for (const Leaf& l : t.flatten())
        if (l.is_basis()) fail("a bare tuple cannot contain the basis element " + l.str(), col);
      v.kind = CuteValue::Kind::IntTuple;
      v.tuple = t;
    }
    end();
    return v;
  }

  Layout layout() {
    skip();
    size_t col = pos_;
    IntTuple s = tuple();
    skip();
    if (peek() != ':') fail("expected ':' between the shape and the stride", pos_);
    ++pos_;
    return make(s, tuple(), col);
  }

  IntTuple tuple() {
    skip();
    if (peek() == '(') {
      ++pos_;
      std::vector<IntTuple> children;
      skip();
      if (peek() == ')') {
        ++pos_;
        return IntTuple::tuple({});
      }
      for (;;) {
        children.push_back(tuple());
        skip();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (peek() == ')') {
          ++pos_;
          return IntTuple::tuple(std::move(children));
        }
        fail("expected ',' or ')'", pos_);
      }
    }
    return IntTuple(leaf());
  }

  Swizzle swizzle() {
    size_t col = pos_;
    if (at_word("Swizzle"))
      pos_ += 7;
    else
      pos_ += 2;
    skip();
    expect('<');
    int b = static_cast<int>(integer());
    skip();
    expect(',');
    int m = static_cast<int>(integer());
    skip();
    expect(',');
    int s = static_cast<int>(integer());
    skip();
    expect('>');
    try {
      return Swizzle::make(b, m, s);
    } catch (const LayoutError& e) {
      fail(e.what(), col);
    }
  }

  void end() {
    skip();
    if (!eof()) fail(std::string("unexpected '") + t_[pos_] + "'", pos_);
  }

 private:
  [[noreturn]] void fail(const std::string& what, size_t col) { throw ParseError(what, col); }
  bool eof() const { return pos_ >= t_.size(); }
  char peek() const { return eof() ? '\0' : t_[pos_]; }
  void skip() {
    while (!eof() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "'", pos_);
    ++pos_;
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  bool at_word(std::string_view w) const {
    if (t_.substr(pos_, w.size()) != w) return false;
    size_t e = pos_ + w.size();
    return e >= t_.size() || !ident_char(t_[e]) || (w == "Sw" && t_[e] == '<');
  }
  void expect_o() {
    skip();
    if (!at_word("o")) fail("expected the composition operator 'o'", pos_);
    ++pos_;
  }

  int64_t integer() {
    skip();
    size_t col = pos_;
    if (peek() == '_') ++pos_;
    bool neg = false;
    if (peek() == '-' || peek() == '+') {
      neg = peek() == '-';
      ++pos_;
    }
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected an integer", col);
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      if (v > (int64_t{1} << 58)) fail("integer out of range", col);
      v = v * 10 + (t_[pos_] - '0');
      ++pos_;
    }
    return neg ? -v : v;
  }

  Leaf leaf() {
    skip();
    if (peek() == '?') {
      ++pos_;
      return Leaf::dynamic();
    }
    int64_t v = integer();
    if (peek() != '@') return Leaf::integer(v);
    ++pos_;
    size_t col = pos_;
    if (peek() == '_') ++pos_;
    size_t start = pos_;
    while (!eof() && ident_char(t_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a basis axis after '@'", col);
    return Leaf::basis(v, std::string(t_.substr(start, pos_ - start)));
  }

  int pointer() {
    size_t col = pos_;
    pos_ += 8;  // smem_ptr
    expect('[');
    skip();
    int64_t bits = 0;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected the element width in bits", pos_);
    while (std::isdigit(static_cast<unsigned char>(peek()))) bits = bits * 10 + (t_[pos_++] - '0');
    if (peek() != 'b') fail("expected 'b' after the element width", pos_);
    ++pos_;
    expect(']');
    expect('(');
    skip();
    if (t_.substr(pos_, 5) != "unset") fail("expected 'unset'", pos_);
    pos_ += 5;
    expect(')');
    if (bits <= 0 || bits > 1024) fail("element width out of range", col);
    return static_cast<int>(bits);
  }

  Layout make(const IntTuple& shape, const IntTuple& stride, size_t col) {
    try {
      return Layout(shape, stride);
    } catch (const LayoutError& e) {
      fail(e.what(), col);
    }
  }

  std::string_view t_;
  size_t pos_ = 0;
};

}  // namespace

CuteValue parse_cute(std::string_view text) { return Parser(text).value(); }

Layout parse_layout(std::string_view text) {
  CuteValue v = parse_cute(text);
  if (v.kind != CuteValue::Kind::Layout)
    throw ParseError("expected a layout SHAPE:STRIDE, got " + v.type_str(), 0);
  return v.layout;
}

IntTuple parse_int_tuple(std::string_view text) {
  Parser p(text);
  IntTuple t = p.tuple();
  p.end();
  return t;
}

Swizzle parse_swizzle(std::string_view text) {
  CuteValue v = parse_cute(text);
  if (v.kind != CuteValue::Kind::Swizzle) throw ParseError("expected a swizzle Sw<B,M,S>, got " + v.type_str(), 0);
  return v.swizzle;
}

}  // namespace ptxsim::verifiers::layout
