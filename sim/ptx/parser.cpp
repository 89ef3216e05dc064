// Recursive-descent PTX parser over the hand-written lexer. See parser.h for the representation.
#include "sim/ptx/parser.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "sim/ptx/lexer.h"

namespace ptxsim {

namespace {

using ptx::Lexer;
using ptx::Tok;
using ptx::Token;
using std::string_view;

constexpr int kMaxExprDepth = 200;    // nested parentheses / unary operators in constant expressions
constexpr int kMaxOperandDepth = 16;  // vectors inside lists inside addresses ...

// Width of a type spelled without its dot; false if `name` is not a type.
bool type_bits(string_view name, uint32_t& bits) {
  struct Entry {
    string_view name;
    uint32_t bits;
  };
  static constexpr Entry kTypes[] = {
      {"b8", 8},       {"b16", 16},      {"b32", 32},       {"b64", 64},       {"b128", 128},
      {"u8", 8},       {"u16", 16},      {"u32", 32},       {"u64", 64},       {"s8", 8},
      {"s16", 16},     {"s32", 32},      {"s64", 64},       {"f16", 16},       {"f16x2", 32},
      {"bf16", 16},    {"bf16x2", 32},   {"f32", 32},       {"f64", 64},       {"tf32", 32},
      {"pred", 1},     {"e4m3", 8},      {"e5m2", 8},       {"e4m3x2", 16},    {"e5m2x2", 16},
      {"e2m1x2", 8},   {"e2m3x2", 16},   {"e3m2x2", 16},    {"ue8m0x2", 16},   {"texref", 64},
      {"surfref", 64}, {"samplerref", 64},
  };
  for (const Entry& e : kTypes) {
    if (e.name == name) {
      bits = e.bits;
      return true;
    }
  }
  return false;
}

bool space_of(string_view d, ast::Space& sp) {
  using ast::Space;
  if (d == ".global") sp = Space::Global;
  else if (d == ".shared") sp = Space::Shared;
  else if (d == ".const") sp = Space::Const;
  else if (d == ".local") sp = Space::Local;
  else if (d == ".param") sp = Space::Param;
  else if (d == ".tex") sp = Space::Tex;
  else if (d == ".reg") sp = Space::Reg;
  else if (d == ".sreg") sp = Space::Sreg;
  else return false;
  return true;
}

// Special registers whose `.x/.y/.z` component stays part of the name.
bool is_vector_sreg(string_view base) {
  return base == "%tid" || base == "%ntid" || base == "%ctaid" || base == "%nctaid" || base == "%clusterid" ||
         base == "%nclusterid" || base == "%cluster_ctaid" || base == "%cluster_nctaid";
}

// Decodes the text of a String token (quotes included).
std::string unquote(string_view s) {
  std::string out;
  if (s.size() < 2) return out;
  s = s.substr(1, s.size() - 2);
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        unsigned v = static_cast<unsigned>(e - '0');
        for (int k = 0; k < 2 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k)
          v = v * 8 + static_cast<unsigned>(s[++i] - '0');
        out += static_cast<char>(v & 0xff);
        break;
      }
      default: out += e; break;  // \" \\ \' \? and anything else: the character itself
    }
  }
  return out;
}

struct CVal {
  uint64_t v = 0;
  bool uns = false;
};

class Parser {
 public:
  explicit Parser(ast::Module& m) : m_(m), lex_(m.source, m.file_name) {}

  void parse_module();

 private:
  // ---- tokens ----------------------------------------------------------------------------------
  const Token& peek() {
    if (nbuf_ == 0) {
      buf_[0] = lex_.next();
      nbuf_ = 1;
    }
    return buf_[0];
  }
  const Token& peek2() {
    peek();
    if (nbuf_ < 2) {
      buf_[1] = lex_.next();
      nbuf_ = 2;
    }
    return buf_[1];
  }
  Token next() {
    peek();
    Token t = buf_[0];
    buf_[0] = buf_[1];
    --nbuf_;
    if (record_) record_->push_back(t);
    return t;
  }
  bool at(Tok k) { return peek().kind == k; }
  bool at_dir(string_view d) {
    const Token& t = peek();
    return t.kind == Tok::Directive && text(t) == d;
  }
  string_view text(const Token& t) const { return lex_.text(t); }
  SrcLoc loc_of(const Token& t) const { return t.kind == Tok::Eof ? lex_.eof_loc() : t.loc(); }
  [[noreturn]] void fail(const Token& t, std::string msg) const { lex_.fail(loc_of(t), std::move(msg)); }
  std::string describe(const Token& t) const {
    if (t.kind == Tok::Eof) return "end of file";
    return "'" + ptx::quote_for_message(text(t)) + "'";
  }
  Token expect(Tok k, const char* msg) {
    if (peek().kind != k) fail(peek(), msg);
    return next();
  }
  uint32_t parse_u32(const char* expected_msg) {
    Token t = peek();
    if (t.kind != Tok::Int) fail(t, expected_msg);
    next();
    if (t.value > std::numeric_limits<uint32_t>::max()) fail(t, "value out of range");
    return static_cast<uint32_t>(t.value);
  }

  // ---- constant expressions ------------------------------------------------------------------
  static bool starts_expr(Tok k) {
    return k == Tok::Int || k == Tok::Minus || k == Tok::Plus || k == Tok::Tilde || k == Tok::Bang ||
           k == Tok::LParen;
  }
  bool at_double(Tok k) {  // `<<` or `>>`: two adjacent tokens
    const Token& a = peek();
    if (a.kind != k) return false;
    const Token& b = peek2();
    return b.kind == k && b.off == buf_[0].off + 1;
  }
  CVal parse_expr();
  CVal parse_xor();
  CVal parse_and();
  CVal parse_shift();
  CVal parse_add();
  CVal parse_mul();
  CVal parse_unary();
  int64_t parse_offset_chain();

  // ---- module level --------------------------------------------------------------------------
  void parse_version();
  void parse_target();
  void parse_file_directive();
  void parse_section();
  void parse_function(bool is_visible, bool is_extern, bool is_weak);
  void parse_params(std::vector<ast::VarDecl>& out);
  void parse_perf_dims(std::vector<uint32_t>& v, const Token& d);
  void parse_pragma_strings(std::vector<std::string>& out);
  void skip_attribute();

  // ---- declarations --------------------------------------------------------------------------
  void parse_var_attrs(ast::VarDecl& d);
  void parse_var_rest(ast::VarDecl& d);  // name, dimensions, initializer
  void parse_initializer(ast::VarDecl& d);
  void parse_init_element(ast::VarDecl& d);
  void parse_symbol_init(ast::InitValue& v);

  // ---- bodies --------------------------------------------------------------------------------
  void parse_body(ast::Function& f);
  void parse_body_directive(std::vector<ast::Statement>& body);
  void parse_reg_decl(std::vector<ast::Statement>& body);
  void parse_loc(ast::Statement& st);
  void parse_callprototype(std::vector<ast::Statement>& body);
  void parse_target_list(std::vector<ast::Statement>& body);
  void parse_instruction(std::vector<ast::Statement>& body);
  // `lists`: a `(` starts an operand List (call instructions) rather than a constant expression.
  void parse_operand(ast::Operand& o, int depth, bool lists);
  void set_name(ast::Operand& o, const Token& t);

  struct DepthGuard {
    int& d;
    explicit DepthGuard(int& depth) : d(depth) { ++d; }
    ~DepthGuard() { --d; }
  };

  ast::Module& m_;
  Lexer lex_;
  Token buf_[2];
  int nbuf_ = 0;
  std::vector<Token>* record_ = nullptr;
  int expr_depth_ = 0;
  std::vector<ast::Statement> scratch_body_;
};

// ================================================================================================
// Constant expressions: | ^ & << >> + - * / % and unary - + ~ !, on 64-bit two's complement.

CVal Parser::parse_expr() {
  CVal a = parse_xor();
  while (at(Tok::Pipe)) {
    next();
    CVal b = parse_xor();
    a.v |= b.v;
    a.uns |= b.uns;
  }
  return a;
}

CVal Parser::parse_xor() {
  CVal a = parse_and();
  while (at(Tok::Caret)) {
    next();
    CVal b = parse_and();
    a.v ^= b.v;
    a.uns |= b.uns;
  }
  return a;
}

CVal Parser::parse_and() {
  CVal a = parse_shift();
  while (at(Tok::Amp)) {
    next();
    CVal b = parse_shift();
    a.v &= b.v;
    a.uns |= b.uns;
  }
  return a;
}

CVal Parser::parse_shift() {
  CVal a = parse_add();
  for (;;) {
    bool left = at_double(Tok::Lt);
    if (!left && !at_double(Tok::Gt)) break;
    next();
    next();
    CVal b = parse_add();
    uint64_t s = b.v;
    if (left) {
      a.v = s >= 64 ? 0 : a.v << s;
    } else if (a.uns) {
      a.v = s >= 64 ? 0 : a.v >> s;
    } else {
      int64_t x = static_cast<int64_t>(a.v);
      a.v = static_cast<uint64_t>(s >= 64 ? (x < 0 ? -1 : 0) : (x >> s));
    }
  }
  return a;
}

CVal Parser::parse_add() {
  CVal a = parse_mul();
  for (;;) {
    bool plus = at(Tok::Plus);
    if (!plus && !at(Tok::Minus)) break;
    next();
    CVal b = parse_mul();
    a.v = plus ? a.v + b.v : a.v - b.v;
    a.uns |= b.uns;
  }
  return a;
}

CVal Parser::parse_mul() {
  CVal a = parse_unary();
  for (;;) {
    Tok k = peek().kind;
    if (k != Tok::Star && k != Tok::Slash && k != Tok::Percent) break;
    Token op = next();
    CVal b = parse_unary();
    bool uns = a.uns || b.uns;
    if (k == Tok::Star) {
      a.v *= b.v;
    } else {
      if (b.v == 0) fail(op, "division by zero in constant expression");
      if (uns) {
        a.v = k == Tok::Slash ? a.v / b.v : a.v % b.v;
      } else {
        int64_t x = static_cast<int64_t>(a.v), y = static_cast<int64_t>(b.v);
        if (x == std::numeric_limits<int64_t>::min() && y == -1)
          a.v = k == Tok::Slash ? a.v : 0;
        else
          a.v = static_cast<uint64_t>(k == Tok::Slash ? x / y : x % y);
      }
    }
    a.uns = uns;
  }
  return a;
}

CVal Parser::parse_unary() {
  DepthGuard g(expr_depth_);
  if (expr_depth_ > kMaxExprDepth) fail(peek(), "constant expression nested too deeply");
  Token t = peek();
  switch (t.kind) {
    case Tok::Minus: {
      next();
      CVal a = parse_unary();
      a.v = 0 - a.v;
      return a;
    }
    case Tok::Plus: next(); return parse_unary();
    case Tok::Tilde: {
      next();
      CVal a = parse_unary();
      a.v = ~a.v;
      return a;
    }
    case Tok::Bang: {
      next();
      CVal a = parse_unary();
      a.v = a.v == 0 ? 1 : 0;
      return a;
    }
    case Tok::LParen: {
      next();
      CVal a = parse_expr();
      expect(Tok::RParen, "expected ')' in constant expression");
      return a;
    }
    case Tok::Int: {
      next();
      return CVal{t.value, t.is_unsigned};
    }
    default: fail(t, "expected a constant expression");
  }
}

// `+ 8`, `- 8`, `+ -8`, `+ 4 * 2 - 1`: an additive chain of constant terms following a base.
int64_t Parser::parse_offset_chain() {
  uint64_t v = 0;
  for (;;) {
    bool plus = at(Tok::Plus);
    if (!plus && !at(Tok::Minus)) break;
    next();
    if (!starts_expr(peek().kind)) fail(peek(), "expected a constant offset");
    CVal b = parse_mul();
    v = plus ? v + b.v : v - b.v;
  }
  return static_cast<int64_t>(v);
}

// ================================================================================================
// Module level

void Parser::parse_module() {
  for (;;) {
    Token t = peek();
    if (t.kind == Tok::Eof) return;
    if (t.kind != Tok::Directive) fail(t, "expected a directive at module scope, found " + describe(t));
    string_view d = text(t);
    if (d == ".version") {
      parse_version();
    } else if (d == ".target") {
      parse_target();
    } else if (d == ".address_size") {
      next();
      Token n = peek();
      uint32_t v = parse_u32("expected an address size after '.address_size'");
      if (v != 32 && v != 64) fail(n, "address size must be 32 or 64");
      m_.address_size = v;
    } else if (d == ".file") {
      parse_file_directive();
    } else if (d == ".section") {
      parse_section();
    } else if (d == ".loc") {
      ast::Statement dummy;
      parse_loc(dummy);
    } else if (d == ".pragma") {
      next();
      std::vector<std::string> dropped;
      parse_pragma_strings(dropped);
    } else if (d == ".alias") {
      next();
      expect(Tok::Ident, "expected a function name after '.alias'");
      expect(Tok::Comma, "expected ',' in '.alias'");
      expect(Tok::Ident, "expected a function name in '.alias'");
      expect(Tok::Semi, "expected ';' after '.alias'");
    } else {
      bool vis = false, ext = false, weak = false, linkage = false;
      for (;;) {
        string_view s = text(peek());
        if (peek().kind != Tok::Directive) break;
        if (s == ".visible") vis = true;
        else if (s == ".extern") ext = true;
        else if (s == ".weak" || s == ".common") weak = true;
        else break;
        linkage = true;
        next();
      }
      Token k = peek();
      string_view ks = k.kind == Tok::Directive ? text(k) : string_view();
      ast::Space sp;
      if (ks == ".entry" || ks == ".func") {
        parse_function(vis, ext, weak);
      } else if (k.kind == Tok::Directive && space_of(ks, sp) && sp != ast::Space::Reg && sp != ast::Space::Sreg) {
        next();
        ast::VarDecl proto;
        proto.space = sp;
        proto.is_visible = vis;
        proto.is_extern = ext;
        proto.is_weak = weak;
        parse_var_attrs(proto);
        for (;;) {
          ast::VarDecl& v = m_.globals.emplace_back(proto);
          parse_var_rest(v);
          if (at(Tok::Comma)) {
            next();
            continue;
          }
          expect(Tok::Semi, "expected ';' after variable declaration");
          break;
        }
      } else if (linkage) {
        fail(k, "expected '.entry', '.func' or a variable declaration after linkage directive");
      } else {
        fail(k, "unknown directive '" + ptx::quote_for_message(ks) + "'");
      }
    }
  }
}

void Parser::parse_version() {
  Token d = next();
  m_.version_loc = d.loc();
  Token v = peek();
  if (v.kind == Tok::Int) {
    next();
    if (v.value > std::numeric_limits<uint32_t>::max()) fail(v, "invalid version number");
    m_.version_major = static_cast<uint32_t>(v.value);
    m_.version_minor = 0;
    return;
  }
  if (v.kind != Tok::F64) fail(v, "expected a version number after '.version'");
  next();
  string_view s = text(v);
  size_t dot = s.find('.');
  if (dot == string_view::npos) fail(v, "invalid version number");
  uint32_t major = 0, minor = 0;
  auto r1 = std::from_chars(s.data(), s.data() + dot, major);
  auto r2 = std::from_chars(s.data() + dot + 1, s.data() + s.size(), minor);
  if (r1.ec != std::errc() || r1.ptr != s.data() + dot || r2.ec != std::errc() || r2.ptr != s.data() + s.size())
    fail(v, "invalid version number");
  m_.version_major = major;
  m_.version_minor = minor;
}

void Parser::parse_target() {
  Token d = next();
  m_.target_loc = d.loc();
  for (;;) {
    Token t = expect(Tok::Ident, "expected a target name after '.target'");
    m_.targets.emplace_back(text(t));
    if (!at(Tok::Comma)) break;
    next();
  }
}

void Parser::parse_file_directive() {
  next();
  uint32_t idx = parse_u32("expected a file index after '.file'");
  Token s = expect(Tok::String, "expected a file name string after '.file'");
  std::string name = unquote(text(s));
  if (at(Tok::String)) {  // `.file N "dir" "name"`
    Token s2 = next();
    std::string base = unquote(text(s2));
    if (!name.empty() && name.back() != '/') name += '/';
    name += base;
  }
  for (int i = 0; i < 2 && at(Tok::Comma); ++i) {  // `, timestamp, size`
    next();
    Token n = peek();
    if (n.kind != Tok::Int) fail(n, "expected a number in '.file'");
    next();
  }
  m_.files.emplace_back(idx, std::move(name));
}

void Parser::parse_section() {
  Token d = next();
  // Section name and optional flags up to the `{`.
  for (;;) {
    Tok k = peek().kind;
    if (k == Tok::LBrace) break;
    if (k == Tok::Directive || k == Tok::Ident || k == Tok::String || k == Tok::Comma || k == Tok::At) {
      next();
      continue;
    }
    fail(peek(), "expected '{' after '.section'");
  }
  Token open = next();
  // Only the `{` had been looked at, so the lexer stands right after it (nbuf_ == 0).
  if (nbuf_ != 0) fail(open, "internal error: lookahead inside '.section' block");
  lex_.skip_braced(open.loc(), "'.section' block");
  (void)d;
}

// `.attribute(.managed)`, `.attribute(.unified(0x1, 0x2))`: accepted and ignored.
void Parser::skip_attribute() {
  next();
  expect(Tok::LParen, "expected '(' after '.attribute'");
  int depth = 1;
  while (depth > 0) {
    Token a = next();
    if (a.kind == Tok::LParen) ++depth;
    else if (a.kind == Tok::RParen) --depth;
    else if (a.kind == Tok::Eof || a.kind == Tok::Semi || a.kind == Tok::LBrace || a.kind == Tok::RBrace)
      fail(a, "expected ')' after '.attribute'");
  }
}

void Parser::parse_pragma_strings(std::vector<std::string>& out) {
  for (;;) {
    Token s = expect(Tok::String, "expected a string after '.pragma'");
    out.push_back(unquote(text(s)));
    if (!at(Tok::Comma)) break;
    next();
  }
  expect(Tok::Semi, "expected ';' after '.pragma'");
}

void Parser::parse_perf_dims(std::vector<uint32_t>& v, const Token& d) {
  std::string msg = "expected a number after '" + std::string(text(d)) + "'";
  v.clear();
  v.push_back(parse_u32(msg.c_str()));
  while (at(Tok::Comma)) {
    next();
    if (v.size() == 3) fail(peek(), "too many values for '" + std::string(text(d)) + "'");
    v.push_back(parse_u32(msg.c_str()));
  }
}

void Parser::parse_function(bool is_visible, bool is_extern, bool is_weak) {
  Token kw = next();
  ast::Function f;
  f.is_entry = text(kw) == ".entry";
  f.is_visible = is_visible;
  f.is_extern = is_extern;
  f.is_weak = is_weak;
  while (at_dir(".attribute")) skip_attribute();
  if (!f.is_entry && at(Tok::LParen)) parse_params(f.returns);
  Token name = expect(Tok::Ident, "expected a function name");
  f.name = std::string(text(name));
  f.loc = name.loc();
  if (at(Tok::LParen)) parse_params(f.params);
  ast::PerfDirectives& perf = f.perf;
  for (;;) {
    Token t = peek();
    if (t.kind != Tok::Directive) break;
    string_view s = text(t);
    if (s == ".noreturn") {
      next();
      perf.noreturn = true;
    } else if (s == ".maxntid") {
      next();
      parse_perf_dims(perf.maxntid, t);
    } else if (s == ".reqntid") {
      next();
      parse_perf_dims(perf.reqntid, t);
    } else if (s == ".reqnctapercluster") {
      next();
      parse_perf_dims(perf.reqnctapercluster, t);
    } else if (s == ".minnctapersm") {
      next();
      perf.minnctapersm = parse_u32("expected a number after '.minnctapersm'");
    } else if (s == ".maxnreg") {
      next();
      perf.maxnreg = parse_u32("expected a number after '.maxnreg'");
    } else if (s == ".maxclusterrank") {
      next();
      perf.maxclusterrank = parse_u32("expected a number after '.maxclusterrank'");
    } else if (s == ".maxnctapersm" || s == ".abi_preserve" || s == ".abi_preserve_control") {
      next();
      std::string msg = "expected a number after '" + std::string(s) + "'";
      parse_u32(msg.c_str());
    } else if (s == ".explicitcluster") {
      next();
      perf.explicitcluster = true;
    } else if (s == ".blocksareclusters") {
      next();
    } else if (s == ".pragma") {
      next();
      parse_pragma_strings(perf.pragmas);
    } else {
      break;
    }
  }
  if (at(Tok::Semi)) {
    next();
    f.has_body = false;
  } else if (at(Tok::LBrace)) {
    parse_body(f);
  } else {
    fail(peek(), "expected '{' or ';' after function header");
  }
  m_.functions.push_back(std::move(f));
}

void Parser::parse_params(std::vector<ast::VarDecl>& out) {
  expect(Tok::LParen, "expected '('");
  if (at(Tok::RParen)) {
    next();
    return;
  }
  for (;;) {
    Token t = peek();
    ast::Space sp = ast::Space::None;
    if (t.kind != Tok::Directive || !space_of(text(t), sp) || (sp != ast::Space::Param && sp != ast::Space::Reg))
      fail(t, "expected '.param' or '.reg' in parameter list");
    next();
    ast::VarDecl& d = out.emplace_back();
    d.space = sp;
    parse_var_attrs(d);
    Token n = expect(Tok::Ident, "expected a parameter name");
    d.name = std::string(text(n));
    d.loc = n.loc();
    while (at(Tok::LBrack)) {
      next();
      d.is_array = true;
      if (at(Tok::RBrack)) {
        d.dims.push_back(0);
      } else {
        Token e = peek();
        if (!starts_expr(e.kind)) fail(e, "expected an array dimension");
        CVal v = parse_expr();
        if (!v.uns && static_cast<int64_t>(v.v) < 0) fail(e, "negative array dimension");
        d.dims.push_back(v.v);
      }
      expect(Tok::RBrack, "expected ']' after array dimension");
    }
    if (at(Tok::Comma)) {
      next();
      continue;
    }
    expect(Tok::RParen, "expected ',' or ')' in parameter list");
    return;
  }
}

// ================================================================================================
// Declarations

void Parser::parse_var_attrs(ast::VarDecl& d) {
  bool after_ptr = false;
  for (;;) {
    Token t = peek();
    if (t.kind != Tok::Directive) break;
    string_view s = text(t);
    ast::Space sp;
    uint32_t bits = 0;
    if (s == ".align") {
      next();
      uint32_t v = parse_u32("expected an alignment after '.align'");
      (after_ptr ? d.ptr_align : d.align) = v;
    } else if (s == ".ptr") {
      next();
      after_ptr = true;
    } else if (s == ".v2" || s == ".v4" || s == ".v8") {
      next();
      if (d.type.vector != 1) fail(t, "duplicate vector size in declaration");
      d.type.vector = static_cast<uint32_t>(s[2] - '0');
    } else if (s == ".attribute") {
      skip_attribute();
    } else if (after_ptr && space_of(s, sp)) {
      next();
      d.ptr_space = sp;
    } else if (type_bits(s.substr(1), bits)) {
      if (!d.type.name.empty()) fail(t, "duplicate type in declaration");
      next();
      d.type.name = std::string(s.substr(1));
      d.type.bits = bits;
    } else {
      break;
    }
  }
  if (d.type.name.empty()) fail(peek(), "expected a type in variable declaration");
}

void Parser::parse_var_rest(ast::VarDecl& d) {
  Token n = expect(Tok::Ident, "expected a variable name");
  d.name = std::string(text(n));
  d.loc = n.loc();
  while (at(Tok::LBrack)) {
    next();
    d.is_array = true;
    if (at(Tok::RBrack)) {
      d.dims.push_back(0);
    } else {
      Token e = peek();
      if (!starts_expr(e.kind)) fail(e, "expected an array dimension");
      CVal v = parse_expr();
      if (!v.uns && static_cast<int64_t>(v.v) < 0) fail(e, "negative array dimension");
      d.dims.push_back(v.v);
    }
    expect(Tok::RBrack, "expected ']' after array dimension");
  }
  if (at(Tok::Eq)) {
    next();
    parse_initializer(d);
  }
}

// `= v` or `= {v, {v, v}, ...}`; braces are flattened iteratively (no recursion per level).
void Parser::parse_initializer(ast::VarDecl& d) {
  if (!at(Tok::LBrace)) {
    parse_init_element(d);
    return;
  }
  next();
  uint64_t depth = 1;
  bool want_elem = true;    // after `{` or `,`
  bool just_opened = true;  // directly after `{` (so `}` is allowed: empty braces)
  for (;;) {
    if (want_elem) {
      if (at(Tok::LBrace)) {
        next();
        ++depth;
        just_opened = true;
        continue;
      }
      if (just_opened && at(Tok::RBrace)) {
        next();
        if (--depth == 0) return;
        want_elem = false;
        continue;
      }
      parse_init_element(d);
      want_elem = false;
      continue;
    }
    if (at(Tok::Comma)) {
      next();
      want_elem = true;
      just_opened = false;
      continue;
    }
    if (at(Tok::RBrace)) {
      next();
      if (--depth == 0) return;
      continue;
    }
    fail(peek(), "expected ',' or '}' in initializer");
  }
}

// `sym`, `generic(sym)`, each optionally `+off` / `-off`.
void Parser::parse_symbol_init(ast::InitValue& v) {
  v.kind = ast::InitValue::Kind::Symbol;
  Token t = peek();
  if (t.kind == Tok::Ident && text(t) == "generic" && peek2().kind == Tok::LParen) {
    next();
    next();
    Token s = expect(Tok::Ident, "expected a symbol in 'generic()'");
    v.symbol = std::string(text(s));
    v.generic = true;
    expect(Tok::RParen, "expected ')' after 'generic(' symbol");
  } else {
    Token s = expect(Tok::Ident, "expected a symbol");
    v.symbol = std::string(text(s));
  }
  v.value = parse_offset_chain();
}

void Parser::parse_init_element(ast::VarDecl& d) {
  Token t = peek();
  switch (t.kind) {
    case Tok::Ident: {
      if (peek2().kind == Tok::Eq) {  // samplerref field: `filter_mode = nearest`
        next();
        next();
        Token v = peek();
        if (v.kind != Tok::Ident && v.kind != Tok::Int) fail(v, "expected a value after '='");
        next();
        return;
      }
      ast::InitValue& v = d.init.emplace_back();
      parse_symbol_init(v);
      return;
    }
    case Tok::F32:
    case Tok::F64: {
      next();
      ast::InitValue& v = d.init.emplace_back();
      v.kind = t.kind == Tok::F32 ? ast::InitValue::Kind::Float32Bits : ast::InitValue::Kind::Float64Bits;
      v.value = static_cast<int64_t>(t.value);
      return;
    }
    case Tok::Minus: {
      Tok k2 = peek2().kind;
      if (k2 == Tok::F32 || k2 == Tok::F64) {
        next();
        Token f = next();
        ast::InitValue& v = d.init.emplace_back();
        if (k2 == Tok::F32) {
          v.kind = ast::InitValue::Kind::Float32Bits;
          v.value = static_cast<int64_t>(f.value ^ 0x80000000ull);
        } else {
          v.kind = ast::InitValue::Kind::Float64Bits;
          v.value = static_cast<int64_t>(f.value ^ 0x8000000000000000ull);
        }
        return;
      }
      break;
    }
    case Tok::Int: {
      if (peek2().kind == Tok::LParen) {  // `0xFF00(generic(sym)+8)`: one byte of an address
        next();
        next();
        if (t.value == 0) fail(t, "invalid byte mask");
        ast::InitValue& v = d.init.emplace_back();
        v.mask = t.value;
        parse_symbol_init(v);
        expect(Tok::RParen, "expected ')' after masked symbol");
        return;
      }
      break;
    }
    default: break;
  }
  if (!starts_expr(t.kind)) fail(t, "expected an initializer value");
  CVal c = parse_expr();
  ast::InitValue& v = d.init.emplace_back();
  v.kind = ast::InitValue::Kind::Int;
  v.value = static_cast<int64_t>(c.v);
}

// ================================================================================================
// Function bodies

void Parser::parse_body(ast::Function& f) {
  f.has_body = true;
  // Statements are collected in a scratch vector whose capacity is reused from function to function,
  // then moved once into an exactly sized body (cheaper than growing every body from empty).
  std::vector<ast::Statement>& body = scratch_body_;
  body.clear();
  {
    Token open = next();
    ast::Statement& st = body.emplace_back();
    st.kind = ast::Statement::Kind::ScopeOpen;
    st.loc = open.loc();
  }
  uint64_t depth = 1;
  while (depth > 0) {
    Tok k = peek().kind;
    switch (k) {
      case Tok::LBrace: {
        Token o = next();
        ast::Statement& st = body.emplace_back();
        st.kind = ast::Statement::Kind::ScopeOpen;
        st.loc = o.loc();
        ++depth;
        break;
      }
      case Tok::RBrace: {
        Token c = next();
        ast::Statement& st = body.emplace_back();
        st.kind = ast::Statement::Kind::ScopeClose;
        st.loc = c.loc();
        --depth;
        break;
      }
      case Tok::Directive: parse_body_directive(body); break;
      case Tok::Ident:
        if (peek2().kind == Tok::Colon) {
          Token l = next();
          next();
          ast::Statement& st = body.emplace_back();
          st.kind = ast::Statement::Kind::Label;
          st.loc = l.loc();
          st.label.name = std::string(text(l));
          st.label.loc = l.loc();
        } else {
          parse_instruction(body);
        }
        break;
      case Tok::At: parse_instruction(body); break;
      case Tok::Eof: fail(peek(), "unexpected end of file in function body: expected '}'");
      default: fail(peek(), "expected an instruction, label or directive, found " + describe(peek()));
    }
  }
  f.body.reserve(body.size());
  for (ast::Statement& st : body) f.body.push_back(std::move(st));
  body.clear();
}

void Parser::parse_body_directive(std::vector<ast::Statement>& body) {
  Token t = peek();
  string_view s = text(t);
  ast::Space sp;
  if (s == ".reg") {
    parse_reg_decl(body);
  } else if (s == ".loc") {
    ast::Statement& st = body.emplace_back();
    st.kind = ast::Statement::Kind::Loc;
    parse_loc(st);
  } else if (s == ".pragma") {
    next();
    std::vector<std::string> strs;
    parse_pragma_strings(strs);
    for (std::string& p : strs) {
      ast::Statement& st = body.emplace_back();
      st.kind = ast::Statement::Kind::Pragma;
      st.loc = t.loc();
      st.text = std::move(p);
    }
  } else if (space_of(s, sp) && sp != ast::Space::Sreg) {
    next();
    ast::VarDecl proto;
    proto.space = sp;
    parse_var_attrs(proto);
    for (;;) {
      ast::Statement& st = body.emplace_back();
      st.kind = ast::Statement::Kind::Var;
      st.loc = t.loc();
      st.var = proto;
      parse_var_rest(st.var);
      if (at(Tok::Comma)) {
        next();
        continue;
      }
      expect(Tok::Semi, "expected ';' after variable declaration");
      break;
    }
  } else if (s == ".callprototype") {
    parse_callprototype(body);
  } else if (s == ".branchtargets" || s == ".calltargets") {
    parse_target_list(body);
  } else if (s == ".file") {
    parse_file_directive();
  } else {
    fail(t, "unknown directive '" + ptx::quote_for_message(s) + "' in function body");
  }
}

void Parser::parse_reg_decl(std::vector<ast::Statement>& body) {
  Token r = next();
  ast::Statement& st = body.emplace_back();
  st.kind = ast::Statement::Kind::Reg;
  st.loc = r.loc();
  ast::RegDecl& rd = st.reg;
  rd.loc = r.loc();
  for (;;) {
    Token t = peek();
    if (t.kind != Tok::Directive) break;
    string_view s = text(t);
    uint32_t bits = 0;
    if (s == ".v2" || s == ".v4" || s == ".v8") {
      if (rd.type.vector != 1) fail(t, "duplicate vector size in '.reg' declaration");
      rd.type.vector = static_cast<uint32_t>(s[2] - '0');
      next();
    } else if (type_bits(s.substr(1), bits)) {
      if (!rd.type.name.empty()) fail(t, "duplicate type in '.reg' declaration");
      rd.type.name = std::string(s.substr(1));
      rd.type.bits = bits;
      next();
    } else {
      break;
    }
  }
  if (rd.type.name.empty()) fail(peek(), "'.reg' inside a function body must be followed by a type");
  for (;;) {
    Token n = expect(Tok::Ident, "expected a register name");
    ast::RegDecl::Name nm;
    nm.name = std::string(text(n));
    bool keep = true;
    if (at(Tok::Lt)) {
      next();
      uint32_t count = parse_u32("expected a register count after '<'");
      expect(Tok::Gt, "expected '>' after register count");
      nm.range = count;
      keep = count != 0;  // `%r<0>` declares nothing
    }
    if (keep) rd.names.push_back(std::move(nm));
    if (at(Tok::Comma)) {
      next();
      continue;
    }
    expect(Tok::Semi, "expected ';' after register declaration");
    return;
  }
}

void Parser::parse_loc(ast::Statement& st) {
  Token d = next();
  st.loc = d.loc();
  st.loc_file = parse_u32("expected a file index after '.loc'");
  st.loc_line = parse_u32("expected a line number in '.loc'");
  st.loc_col = at(Tok::Int) ? parse_u32("expected a column in '.loc'") : 0;
  while (at(Tok::Comma)) {
    next();
    Token a = expect(Tok::Ident, "expected a '.loc' attribute");
    string_view s = text(a);
    if (!st.text.empty()) st.text += ", ";
    if (s == "function_name") {
      Token n = expect(Tok::Ident, "expected a label after 'function_name'");
      st.text += "function_name ";
      st.text += text(n);
      if (at(Tok::Plus)) {
        next();
        Token o = expect(Tok::Int, "expected an offset after '+'");
        st.text += '+';
        st.text += std::to_string(o.value);
      }
    } else if (s == "inlined_at") {
      uint32_t f = parse_u32("expected a file index after 'inlined_at'");
      uint32_t l = parse_u32("expected a line number after 'inlined_at'");
      uint32_t c = at(Tok::Int) ? parse_u32("expected a column after 'inlined_at'") : 0;
      st.text += "inlined_at " + std::to_string(f) + " " + std::to_string(l) + " " + std::to_string(c);
    } else {
      fail(a, "unknown '.loc' attribute '" + ptx::quote_for_message(s) + "'");
    }
  }
}

void Parser::parse_callprototype(std::vector<ast::Statement>& body) {
  Token d = next();
  std::vector<Token> rec;
  struct RecordGuard {
    std::vector<Token>*& slot;
    ~RecordGuard() { slot = nullptr; }
  } guard{record_};
  record_ = &rec;
  std::vector<ast::VarDecl> scratch;
  if (at(Tok::LParen)) parse_params(scratch);
  Token u = peek();
  if (u.kind != Tok::Ident || text(u) != "_") fail(u, "expected '_' in '.callprototype'");
  next();
  parse_params(scratch);
  while (at_dir(".noreturn") || at_dir(".abi_preserve") || at_dir(".abi_preserve_control")) {
    bool num = !at_dir(".noreturn");
    next();
    if (num) parse_u32("expected a number");
  }
  record_ = nullptr;
  expect(Tok::Semi, "expected ';' after '.callprototype'");
  ast::Statement& st = body.emplace_back();
  st.kind = ast::Statement::Kind::Pragma;
  st.loc = d.loc();
  st.instr.opcode = ".callprototype";
  st.instr.loc = d.loc();
  std::string& s = st.text;
  s = "callprototype";
  Tok prev = Tok::Eof;
  for (const Token& t : rec) {
    bool space = !(prev == Tok::LParen || prev == Tok::LBrack || t.kind == Tok::RParen || t.kind == Tok::Comma ||
                   t.kind == Tok::LBrack || t.kind == Tok::RBrack);
    if (space) s += ' ';
    s += text(t);
    prev = t.kind;
  }
}

void Parser::parse_target_list(std::vector<ast::Statement>& body) {
  Token d = next();
  ast::Statement& st = body.emplace_back();
  st.kind = ast::Statement::Kind::Pragma;
  st.loc = d.loc();
  string_view dn = text(d);
  st.instr.opcode = std::string(dn);
  st.instr.loc = d.loc();
  st.text = std::string(dn.substr(1));
  std::string msg = "expected a name in '" + std::string(dn) + "'";
  for (bool first = true;; first = false) {
    Token n = expect(Tok::Ident, msg.c_str());
    ast::Operand& o = st.instr.operands.emplace_back();
    o.kind = ast::Operand::Kind::Name;
    o.name = std::string(text(n));
    o.loc = n.loc();
    st.text += first ? " " : ", ";
    st.text += o.name;
    if (at(Tok::Comma)) {
      next();
      continue;
    }
    std::string m2 = "expected ';' after '" + std::string(dn) + "' list";
    expect(Tok::Semi, m2.c_str());
    return;
  }
}

void Parser::parse_instruction(std::vector<ast::Statement>& body) {
  ast::Statement& st = body.emplace_back();
  st.kind = ast::Statement::Kind::Instr;
  ast::Instruction& in = st.instr;
  Token first = peek();
  st.loc = first.loc();
  in.loc = first.loc();
  if (first.kind == Tok::At) {
    next();
    in.has_guard = true;
    if (at(Tok::Bang)) {
      next();
      in.guard_negated = true;
    }
    Token g = expect(Tok::Ident, "expected a predicate after '@'");
    in.guard = std::string(text(g));
  }
  Token op = peek();
  if (op.kind != Tok::Ident) fail(op, "expected an instruction opcode");
  {
    char c0 = text(op)[0];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_'))
      fail(op, "expected an instruction opcode, found " + describe(op));
  }
  next();
  in.opcode = std::string(text(op));
  if (at(Tok::Semi)) {
    next();
    return;
  }
  {
    // A token that cannot start an operand right after the opcode: the `;` is what is missing.
    Tok k = peek().kind;
    if (k != Tok::Ident && k != Tok::F32 && k != Tok::F64 && k != Tok::LBrack && k != Tok::LBrace && !starts_expr(k))
      fail(peek(), "expected ';' after instruction");
  }
  in.operands.reserve(4);
  string_view opc = in.opcode;
  bool lists = opc.substr(0, 4) == "call" && (opc.size() == 4 || opc[4] == '.');
  for (;;) {
    parse_operand(in.operands.emplace_back(), 0, lists);
    Tok k = peek().kind;
    if (k == Tok::Comma) {
      next();
      continue;
    }
    if (k == Tok::Semi) {
      next();
      return;
    }
    fail(peek(), "expected ';' after instruction");
  }
}

void Parser::set_name(ast::Operand& o, const Token& t) {
  string_view s = text(t);
  o.kind = s[0] == '%' ? ast::Operand::Kind::Reg : ast::Operand::Kind::Name;
  size_t dot = s.find('.');
  if (dot != string_view::npos && !(o.kind == ast::Operand::Kind::Reg && is_vector_sreg(s.substr(0, dot)))) {
    o.name = std::string(s.substr(0, dot));
    o.component = std::string(s.substr(dot + 1));
  } else {
    o.name = std::string(s);
  }
}

void Parser::parse_operand(ast::Operand& o, int depth, bool lists) {
  if (depth > kMaxOperandDepth) fail(peek(), "operand nested too deeply");
  Token t = peek();
  o.loc = t.loc();
  switch (t.kind) {
    case Tok::Bang:
      if (peek2().kind == Tok::Ident) {
        next();
        Token p = next();
        set_name(o, p);
        o.negated = true;
        return;
      }
      break;
    case Tok::Ident: {
      next();
      if (text(t) == "_") {
        o.kind = ast::Operand::Kind::Sink;
      } else {
        set_name(o, t);
        if (o.kind == ast::Operand::Kind::Name && (at(Tok::Plus) || at(Tok::Minus))) o.value = parse_offset_chain();
      }
      if (at(Tok::Pipe)) {  // `%r|%p`
        next();
        ast::Operand firstop = std::move(o);
        o = ast::Operand{};
        o.kind = ast::Operand::Kind::Pair;
        o.loc = firstop.loc;
        o.elems.reserve(2);
        o.elems.push_back(std::move(firstop));
        Token s = peek();
        if (s.kind != Tok::Ident) fail(s, "expected a register after '|'");
        parse_operand(o.elems.emplace_back(), depth + 1, lists);
      }
      return;
    }
    case Tok::F32:
    case Tok::F64:
      next();
      o.kind = t.kind == Tok::F32 ? ast::Operand::Kind::F32 : ast::Operand::Kind::F64;
      o.value = static_cast<int64_t>(t.value);
      return;
    case Tok::Minus: {
      Tok k2 = peek2().kind;
      if (k2 == Tok::F32 || k2 == Tok::F64) {
        next();
        Token f = next();
        o.kind = k2 == Tok::F32 ? ast::Operand::Kind::F32 : ast::Operand::Kind::F64;
        o.value = static_cast<int64_t>(f.value ^ (k2 == Tok::F32 ? 0x80000000ull : 0x8000000000000000ull));
        return;
      }
      break;
    }
    case Tok::LBrack: {
      next();
      o.kind = ast::Operand::Kind::Address;
      Token b = peek();
      if (b.kind == Tok::Ident) {
        next();
        ast::Operand tmp;
        set_name(tmp, b);
        o.name = std::move(tmp.name);
        o.component = std::move(tmp.component);
        if (at(Tok::Plus) || at(Tok::Minus)) o.value = parse_offset_chain();
      } else if (starts_expr(b.kind)) {
        o.value = static_cast<int64_t>(parse_expr().v);
      } else {
        fail(b, "expected an address");
      }
      while (at(Tok::Comma)) {
        next();
        parse_operand(o.elems.emplace_back(), depth + 1, lists);
      }
      expect(Tok::RBrack, "expected ']' after address");
      return;
    }
    case Tok::LBrace: {
      next();
      o.kind = ast::Operand::Kind::Vector;
      for (;;) {
        parse_operand(o.elems.emplace_back(), depth + 1, lists);
        if (at(Tok::Comma)) {
          next();
          continue;
        }
        expect(Tok::RBrace, "expected ',' or '}' in vector operand");
        return;
      }
    }
    case Tok::LParen: {
      if (!lists) break;  // a parenthesized constant expression
      next();
      o.kind = ast::Operand::Kind::List;
      if (at(Tok::RParen)) {
        next();
        return;
      }
      for (;;) {
        parse_operand(o.elems.emplace_back(), depth + 1, lists);
        if (at(Tok::Comma)) {
          next();
          continue;
        }
        expect(Tok::RParen, "expected ',' or ')' in operand list");
        return;
      }
    }
    default: break;
  }
  if (!starts_expr(t.kind)) fail(t, "expected an operand");
  CVal c = parse_expr();
  o.kind = ast::Operand::Kind::Int;
  o.value = static_cast<int64_t>(c.v);
  o.is_unsigned = c.uns;
}

}  // namespace

ast::Module parse_ptx(std::string text, std::string file_name) {
  ast::Module m;
  m.file_name = std::move(file_name);
  m.source = std::move(text);
  {
    Parser p(m);
    p.parse_module();
  }
  return m;
}

}  // namespace ptxsim
