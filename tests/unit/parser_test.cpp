// Tests of the PTX lexer/parser (sim/ptx/parser.h) and of diagnostics (sim/ptx/diag.h).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/ptx/ast.h"
#include "sim/ptx/diag.h"
#include "sim/ptx/parser.h"

namespace ptxsim {
namespace {

using ast::InitValue;
using ast::Operand;
using ast::Space;
using ast::Statement;
using Kind = Statement::Kind;
using OK = Operand::Kind;

ast::Module parse(const std::string& text) { return parse_ptx(text, "t.ptx"); }

// Wraps `body` in a minimal module with one entry.
ast::Module parse_body(const std::string& body) {
  return parse(".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n" + body + "\n}\n");
}

// The formatted diagnostic for `text`, or "" if it parses.
std::string error_of(const std::string& text, const std::string& file = "t.ptx") {
  try {
    parse_ptx(text, file);
  } catch (const PtxError& e) {
    std::string f = e.diag.format();
    if (f.find('\0') == std::string::npos) {
      EXPECT_EQ(std::string(e.what()), f);
    }
    return e.diag.format();
  }
  return "";
}

// The statements of the single function's body, without the outer ScopeOpen/ScopeClose.
std::vector<Statement> inner(const ast::Module& m) {
  EXPECT_EQ(m.functions.size(), 1u);
  const auto& b = m.functions.at(0).body;
  EXPECT_GE(b.size(), 2u);
  EXPECT_EQ(b.front().kind, Kind::ScopeOpen);
  EXPECT_EQ(b.back().kind, Kind::ScopeClose);
  return std::vector<Statement>(b.begin() + 1, b.end() - 1);
}

std::vector<ast::Instruction> instrs(const ast::Module& m) {
  std::vector<ast::Instruction> out;
  for (const auto& f : m.functions)
    for (const auto& s : f.body)
      if (s.kind == Kind::Instr) out.push_back(s.instr);
  return out;
}

uint64_t f64_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// ------------------------------------------------------------------------------------------------
// Diagnostics

TEST(Diag, FormatWithCaret) {
  Diagnostic d;
  d.file = "a.ptx";
  d.loc = {3, 5};
  d.message = "bad thing";
  d.source_line = "abcdefgh";
  EXPECT_EQ(d.format(), "a.ptx:3:5: error: bad thing\nabcdefgh\n    ^\n");
}

TEST(Diag, FormatKeepsTabsBeforeCaret) {
  Diagnostic d;
  d.file = "a.ptx";
  d.loc = {7, 4};
  d.message = "m";
  d.source_line = "\tx\ty z";
  EXPECT_EQ(d.format(), "a.ptx:7:4: error: m\n\tx\ty z\n\t \t^\n");
}

TEST(Diag, FormatSeveritiesAndEmptySourceLine) {
  Diagnostic d;
  d.file = "f.ptx";
  d.loc = {1, 1};
  d.message = "hello";
  d.severity = Diagnostic::Severity::Warning;
  EXPECT_EQ(d.format(), "f.ptx:1:1: warning: hello\n");
  d.severity = Diagnostic::Severity::Note;
  d.source_line = "x";
  EXPECT_EQ(d.format(), "f.ptx:1:1: note: hello\nx\n^\n");
}

TEST(Diag, FormatCaretPastEndOfLine) {
  Diagnostic d;
  d.file = "f";
  d.loc = {2, 4};
  d.message = "m";
  d.source_line = "ab";
  EXPECT_EQ(d.format(), "f:2:4: error: m\nab\n   ^\n");
}

TEST(Diag, FormatEscapesNonPrintableBytesAndCountsThemForTheCaret) {
  Diagnostic d;
  d.file = "r.ptx";
  d.loc = {1, 5};
  d.message = "m";
  d.source_line = std::string("a\x1b[\xff\x00z", 6);  // ESC, a high byte and a NUL before the caret
  EXPECT_EQ(d.format(), "r.ptx:1:5: error: m\na\\x1b[\\xff\\x00z\n          ^\n");
}

TEST(Diag, FormatWithoutPlaceHasNoEmptyFileName) {
  Diagnostic d;
  d.message = "block of 2000 threads exceeds the 1024-thread limit";
  EXPECT_EQ(d.format(), "error: block of 2000 threads exceeds the 1024-thread limit\n");
}

TEST(Diag, RandomBytesAreEscapedInTheCaretLine) {
  // Binary input: the lexer stops at the first byte that cannot start a token.
  EXPECT_EQ(error_of(std::string("\x7f" "ELF\x02\x01\n", 7)),
            "t.ptx:1:1: error: unexpected character '\\x7f'\n\\x7fELF\\x02\\x01\n^\n");
  EXPECT_EQ(error_of(".version 9.0\n\xc3\x28\x9b"),
            "t.ptx:2:1: error: unexpected character '\\xc3'\n\\xc3(\\x9b\n^\n");
}

TEST(Diag, SourceLineOf) {
  std::string t = "one\ntwo\r\n\nfour";
  EXPECT_EQ(source_line_of(t, 1), "one");
  EXPECT_EQ(source_line_of(t, 2), "two");
  EXPECT_EQ(source_line_of(t, 3), "");
  EXPECT_EQ(source_line_of(t, 4), "four");
  EXPECT_EQ(source_line_of(t, 5), "");
  EXPECT_EQ(source_line_of(t, 0), "");
  EXPECT_EQ(source_line_of("", 1), "");
  EXPECT_EQ(source_line_of("x\n", 2), "");
}

// ------------------------------------------------------------------------------------------------
// Exact diagnostics of the parser

TEST(ParserErrors, MissingSemicolonAfterInstruction) {
  std::string src =
      ".version 9.0\n"
      ".target sm_90a\n"
      ".address_size 64\n"
      ".visible .entry k()\n"
      "{\n"
      "\tmov.u32 \t%r1, %tid.x\n"
      "\tret;\n"
      "}\n";
  EXPECT_EQ(error_of(src), "t.ptx:7:2: error: expected ';' after instruction\n\tret;\n\t^\n");
}

TEST(ParserErrors, UnexpectedCharacter) {
  std::string src = ".version 9.0\n#include <x>\n";
  EXPECT_EQ(error_of(src, "k.ptx"), "k.ptx:2:1: error: unexpected character '#'\n#include <x>\n^\n");
}

TEST(ParserErrors, UnexpectedCharacterInsideInstruction) {
  std::string src = ".version 9.0\n.entry k()\n{\n  add.s32 %r1, %r2, #3;\n}\n";
  EXPECT_EQ(error_of(src),
            "t.ptx:4:21: error: unexpected character '#'\n  add.s32 %r1, %r2, #3;\n                    ^\n");
}

TEST(ParserErrors, NonPrintableCharacter) {
  std::string src = ".version 9.0\n\x01\n";
  EXPECT_EQ(error_of(src), "t.ptx:2:1: error: unexpected character '\\x01'\n\\x01\n^\n");
}

TEST(ParserErrors, UnterminatedString) {
  std::string src = ".version 9.0\n.file 1 \"/tmp/x.cu\n.entry k() {}\n";
  EXPECT_EQ(error_of(src), "t.ptx:2:9: error: unterminated string\n.file 1 \"/tmp/x.cu\n        ^\n");
}

TEST(ParserErrors, IntegerLiteralOutOfRange) {
  std::string src = ".entry k()\n{\n\tmov.u64 %rd1, 18446744073709551616;\n}\n";
  EXPECT_EQ(error_of(src),
            "t.ptx:3:16: error: integer literal out of range\n\tmov.u64 %rd1, 18446744073709551616;\n\t              ^\n");
  EXPECT_NE(error_of(".entry k(){ mov.u64 %rd1, 0x10000000000000000; }"), "");
  EXPECT_EQ(error_of(".entry k(){ mov.u64 %rd1, 18446744073709551615; }"), "");
  EXPECT_EQ(error_of(".entry k(){ mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF; }"), "");
}

TEST(ParserErrors, RegWithoutType) {
  std::string src = ".entry k()\n{\n\t.reg %r<4>;\n}\n";
  EXPECT_EQ(error_of(src),
            "t.ptx:3:7: error: '.reg' inside a function body must be followed by a type\n\t.reg %r<4>;\n\t     ^\n");
}

TEST(ParserErrors, UnterminatedComment) {
  EXPECT_EQ(error_of(".version 9.0\n  /* never closed\n\n"),
            "t.ptx:2:3: error: unterminated comment\n  /* never closed\n  ^\n");
}

TEST(ParserErrors, EndOfFileInBody) {
  // The location of end of input is the end of the last line with text.
  EXPECT_EQ(error_of(".entry k()\n{\n\tret;\n\n"),
            "t.ptx:3:6: error: unexpected end of file in function body: expected '}'\n\tret;\n\t    ^\n");
}

TEST(ParserErrors, BadNumericLiterals) {
  EXPECT_EQ(error_of(".entry k(){ mov.u32 %r1, 12abc; }"),
            "t.ptx:1:26: error: invalid numeric literal '12abc'\n.entry k(){ mov.u32 %r1, 12abc; }\n                         ^\n");
  EXPECT_NE(error_of(".entry k(){ mov.f32 %f1, 0f3F80000; }"), "");     // 7 hex digits
  EXPECT_NE(error_of(".entry k(){ mov.f32 %f1, 0f3F8000000; }"), "");   // 9 hex digits
  EXPECT_NE(error_of(".entry k(){ mov.f64 %fd1, 0d3FF00000; }"), "");
  EXPECT_NE(error_of(".entry k(){ mov.u32 %r1, 09; }"), "");            // bad octal
  EXPECT_NE(error_of(".entry k(){ mov.u32 %r1, 0x; }"), "");
  EXPECT_NE(error_of(".entry k(){ mov.u64 %rd1, 0x1ULL; }"), "");
}

TEST(ParserErrors, Misc) {
  EXPECT_EQ(error_of(".version 9.0\n.foo 1\n"), "t.ptx:2:1: error: unknown directive '.foo'\n.foo 1\n^\n");
  EXPECT_EQ(error_of(".entry k()\n{\n\tld.global.u32 %r1, [%rd1+%rd2];\n}\n"),
            "t.ptx:3:27: error: expected a constant offset\n\tld.global.u32 %r1, [%rd1+%rd2];\n\t                         ^\n");
  EXPECT_EQ(error_of(".entry k()\n{\n\tld.global.u32 %r1, [%rd1;\n}\n"),
            "t.ptx:3:26: error: expected ']' after address\n\tld.global.u32 %r1, [%rd1;\n\t                        ^\n");
  EXPECT_EQ(error_of(".global .align 4 x;\n"),
            "t.ptx:1:18: error: expected a type in variable declaration\n.global .align 4 x;\n                 ^\n");
  EXPECT_EQ(error_of(".entry k()\n{\n\t.bogus 1;\n}\n"),
            "t.ptx:3:2: error: unknown directive '.bogus' in function body\n\t.bogus 1;\n\t^\n");
  EXPECT_EQ(error_of(".entry k(.param .u32 a .param .u32 b) {}"),
            "t.ptx:1:24: error: expected ',' or ')' in parameter list\n"
            ".entry k(.param .u32 a .param .u32 b) {}\n"
            "                       ^\n");
  EXPECT_EQ(error_of(".entry k() { @!; }"),
            "t.ptx:1:16: error: expected a predicate after '@'\n.entry k() { @!; }\n               ^\n");
  EXPECT_EQ(error_of(".entry k() { @ %p1 bra L; }"), "");  // space after '@' is fine
  EXPECT_NE(error_of(".entry k() { mov.u32 %r1, 1 / 0; }"), "");
  EXPECT_NE(error_of(".global .u32 x = {1, 2;"), "");
  EXPECT_NE(error_of(".global .u32 x[-1];"), "");
  EXPECT_NE(error_of(".entry k() { .reg .b32 %r<4294967296>; }"), "");
  EXPECT_NE(error_of(".entry k() .maxntid 1, 2, 3, 4 { }"), "");
  EXPECT_NE(error_of(".section .debug_info { .b8 1"), "");
  EXPECT_NE(error_of(".entry k() { } }"), "");
  EXPECT_NE(error_of("mov.u32 %r1, 1;"), "");
  EXPECT_EQ(error_of(".entry k() { $L: }"), "");  // a label may end a block
}

TEST(ParserErrors, DeepExpressionIsAnErrorNotACrash) {
  std::string e = std::string(100000, '(') + "1" + std::string(100000, ')');
  std::string src = ".entry k() { mov.u32 %r1, -" + e + "; }";
  EXPECT_NE(error_of(src).find("nested too deeply"), std::string::npos);
  std::string neg = ".entry k() { mov.u32 %r1, " + std::string(100000, '-') + "1; }";
  EXPECT_NE(error_of(neg).find("nested too deeply"), std::string::npos);
  std::string vec = ".entry k() { mov.u32 %r1, " + std::string(10000, '{') + "1; }";
  EXPECT_NE(error_of(vec).find("nested too deeply"), std::string::npos);
}

// ------------------------------------------------------------------------------------------------
// Module header and module-scope declarations

TEST(Parser, HeaderDirectives) {
  auto m = parse("//\n// Generated by a compiler\n//\n\n.version 8.7\n.target sm_100a, debug\n.address_size 64\n");
  EXPECT_EQ(m.version_major, 8u);
  EXPECT_EQ(m.version_minor, 7u);
  ASSERT_EQ(m.targets.size(), 2u);
  EXPECT_EQ(m.targets[0], "sm_100a");
  EXPECT_EQ(m.targets[1], "debug");
  EXPECT_EQ(m.address_size, 64u);
  EXPECT_EQ(m.version_loc.line, 5u);
  EXPECT_EQ(m.target_loc.line, 6u);
  EXPECT_EQ(m.file_name, "t.ptx");
  EXPECT_EQ(m.source.substr(0, 3), "//\n");

  auto m2 = parse(".version 9.0\n.target sm_90a, texmode_independent\n.address_size 32\n");
  EXPECT_EQ(m2.version_major, 9u);
  EXPECT_EQ(m2.version_minor, 0u);
  EXPECT_EQ(m2.targets, (std::vector<std::string>{"sm_90a", "texmode_independent"}));
  EXPECT_EQ(m2.address_size, 32u);
}

TEST(Parser, GlobalsWithInitializers) {
  auto m = parse(
      ".global .align 4 .b8 gtab[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};\n"
      ".const .align 4 .f32 cf[3] = {0f3F800000, 0f40200000, -0f40400000};\n"
      ".global .align 8 .u64 gptr = generic(gtab)+4;\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".visible .global .align 8 .f64 gd = 0d3FF8000000000000;\n"
      ".global .s32 neg = -5;\n"
      ".global .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
      ".global .align 8 .u64 tab[3] = {_Z3fn2Pf, sym+8, generic(sym)-16};\n"
      ".weak .global .align 4 .u32 w;\n"
      ".common .global .align 4 .u32 c;\n"
      ".global .v4 .f32 vf = {1.5, 2.0, 1e-3, -0.5};\n"
      ".global .u32 a = 1, b[2] = {2, 3};\n"
      ".global .u32 expr = (1 << 4) | 0x3;\n"
      ".global .align 1 .u8 pk[3] = {3, 0XFF(generic(gtab)+8), 0xFF00(gtab)};\n"
      ".global .attribute(.managed) .align 4 .u32 mv = 3;\n"
      ".global .texref tex0;\n"
      ".global .samplerref smp = { filter_mode = nearest, addr_mode_0 = clamp_to_edge };\n"
      ".global .surfref surf0;\n");
  ASSERT_EQ(m.globals.size(), 19u);
  const auto& g = m.globals;

  EXPECT_EQ(g[0].space, Space::Global);
  EXPECT_EQ(g[0].name, "gtab");
  EXPECT_EQ(g[0].align, 4u);
  EXPECT_EQ(g[0].type.name, "b8");
  EXPECT_EQ(g[0].type.bits, 8u);
  EXPECT_TRUE(g[0].is_array);
  EXPECT_EQ(g[0].dims, (std::vector<uint64_t>{16}));
  ASSERT_EQ(g[0].init.size(), 13u);
  EXPECT_EQ(g[0].init[4].kind, InitValue::Kind::Int);
  EXPECT_EQ(g[0].init[4].value, 2);
  EXPECT_EQ(g[0].loc.line, 1u);
  EXPECT_EQ(g[0].loc.col, 22u);

  EXPECT_EQ(g[1].space, Space::Const);
  ASSERT_EQ(g[1].init.size(), 3u);
  EXPECT_EQ(g[1].init[0].kind, InitValue::Kind::Float32Bits);
  EXPECT_EQ(g[1].init[0].value, 0x3F800000);
  EXPECT_EQ(g[1].init[2].value, static_cast<int64_t>(0xC0400000u));

  ASSERT_EQ(g[2].init.size(), 1u);
  EXPECT_EQ(g[2].init[0].kind, InitValue::Kind::Symbol);
  EXPECT_EQ(g[2].init[0].symbol, "gtab");
  EXPECT_TRUE(g[2].init[0].generic);
  EXPECT_EQ(g[2].init[0].value, 4);

  EXPECT_EQ(g[3].space, Space::Shared);
  EXPECT_TRUE(g[3].is_extern);
  EXPECT_TRUE(g[3].is_array);
  EXPECT_EQ(g[3].dims, (std::vector<uint64_t>{0}));
  EXPECT_EQ(g[3].align, 16u);

  EXPECT_TRUE(g[4].is_visible);
  EXPECT_EQ(g[4].init[0].kind, InitValue::Kind::Float64Bits);
  EXPECT_EQ(static_cast<uint64_t>(g[4].init[0].value), 0x3FF8000000000000ull);

  EXPECT_EQ(g[5].init[0].value, -5);

  EXPECT_EQ(g[6].dims, (std::vector<uint64_t>{2, 3}));
  ASSERT_EQ(g[6].init.size(), 6u);
  EXPECT_EQ(g[6].init[5].value, 6);

  ASSERT_EQ(g[7].init.size(), 3u);
  EXPECT_EQ(g[7].init[0].symbol, "_Z3fn2Pf");
  EXPECT_FALSE(g[7].init[0].generic);
  EXPECT_EQ(g[7].init[1].symbol, "sym");
  EXPECT_EQ(g[7].init[1].value, 8);
  EXPECT_TRUE(g[7].init[2].generic);
  EXPECT_EQ(g[7].init[2].value, -16);

  EXPECT_TRUE(g[8].is_weak);
  EXPECT_TRUE(g[9].is_weak);

  EXPECT_EQ(g[10].type.vector, 4u);
  EXPECT_EQ(g[10].type.name, "f32");
  ASSERT_EQ(g[10].init.size(), 4u);
  EXPECT_EQ(g[10].init[0].kind, InitValue::Kind::Float64Bits);
  EXPECT_EQ(static_cast<uint64_t>(g[10].init[0].value), f64_bits(1.5));
  EXPECT_EQ(static_cast<uint64_t>(g[10].init[2].value), f64_bits(1e-3));
  EXPECT_EQ(static_cast<uint64_t>(g[10].init[3].value), f64_bits(-0.5));

  EXPECT_EQ(g[11].name, "a");
  EXPECT_EQ(g[11].init[0].value, 1);
  EXPECT_EQ(g[12].name, "b");
  EXPECT_EQ(g[12].type.name, "u32");
  EXPECT_EQ(g[12].init.size(), 2u);

  EXPECT_EQ(g[13].init[0].value, 0x13);

  ASSERT_EQ(g[14].init.size(), 3u);
  EXPECT_EQ(g[14].init[0].mask, 0u);
  EXPECT_EQ(g[14].init[1].kind, InitValue::Kind::Symbol);
  EXPECT_EQ(g[14].init[1].mask, 0xFFu);
  EXPECT_TRUE(g[14].init[1].generic);
  EXPECT_EQ(g[14].init[1].value, 8);
  EXPECT_EQ(g[14].init[2].mask, 0xFF00u);
  EXPECT_FALSE(g[14].init[2].generic);

  EXPECT_EQ(g[15].name, "mv");
  EXPECT_EQ(g[15].init[0].value, 3);

  EXPECT_EQ(g[16].type.name, "texref");
  EXPECT_EQ(g[16].name, "tex0");
  EXPECT_EQ(g[17].type.name, "samplerref");
  EXPECT_TRUE(g[17].init.empty());
  EXPECT_EQ(g[18].type.name, "surfref");
}

TEST(Parser, DeepInitializerBracesAreFlattened) {
  std::string init = std::string(50000, '{') + "7" + std::string(50000, '}');
  auto m = parse(".global .u32 x[1] = " + init + ";\n");
  ASSERT_EQ(m.globals.size(), 1u);
  ASSERT_EQ(m.globals[0].init.size(), 1u);
  EXPECT_EQ(m.globals[0].init[0].value, 7);
}

TEST(Parser, ModuleScopeMisc) {
  auto m = parse(
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      ".pragma \"nounroll\";\n"
      ".alias fa, fb;\n"
      "@@DWARF .section .debug_abbrev garbage # here\n"
      ".file 1 \"/path/x.cu\"\n"
      ".file 2 \"x.cu\", 1700000000, 1234\n"
      ".file 3 \"C:\\\\dir\\\\y.cu\"\n"
      ".section .debug_info\n{\n.b32 735\n.b8 2\n.b32 .debug_abbrev\n$L__info: .b8 97,98 // {\n"
      ".b64 $L__func_begin0 /* } */\n.b8 \"}\"\n}\n"
      ".section .debug_macinfo { }\n"
      ".section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95\n{ { } }\n\t}\n");
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_EQ(m.files[0].first, 1u);
  EXPECT_EQ(m.files[0].second, "/path/x.cu");
  EXPECT_EQ(m.files[1].first, 2u);
  EXPECT_EQ(m.files[1].second, "x.cu");
  EXPECT_EQ(m.files[2].second, "C:\\dir\\y.cu");
  EXPECT_TRUE(m.functions.empty());
  EXPECT_TRUE(m.globals.empty());
}

// ------------------------------------------------------------------------------------------------
// Functions

TEST(Parser, EntryParamsAndPerfDirectives) {
  auto m = parse(
      ".visible .entry _Z2kcPf14CUtensorMap_st(\n"
      "\t.param .u64 .ptr .global .align 16 _Z2kcPf14CUtensorMap_st_param_0,\n"
      "\t.param .align 128 .b8 _Z2kcPf14CUtensorMap_st_param_1[128],\n"
      "\t.param .u64 .ptr .align 1 p2,\n"
      "\t.param .u32 n\n"
      ")\n"
      ".maxntid 256\n"
      ".explicitcluster\n"
      ".reqnctapercluster 2, 1, 1\n"
      ".minnctapersm 1\n"
      ".maxnreg 168\n"
      ".maxclusterrank 8\n"
      ".reqntid 128, 1\n"
      ".pragma \"nounroll\";\n"
      ".blocksareclusters\n"
      "{\n\tret;\n}\n");
  ASSERT_EQ(m.functions.size(), 1u);
  const auto& f = m.functions[0];
  EXPECT_EQ(f.name, "_Z2kcPf14CUtensorMap_st");
  EXPECT_TRUE(f.is_entry);
  EXPECT_TRUE(f.is_visible);
  EXPECT_TRUE(f.has_body);
  EXPECT_EQ(f.loc.line, 1u);
  EXPECT_EQ(f.loc.col, 17u);
  ASSERT_EQ(f.params.size(), 4u);
  EXPECT_EQ(f.params[0].space, Space::Param);
  EXPECT_EQ(f.params[0].type.name, "u64");
  EXPECT_EQ(f.params[0].ptr_space, Space::Global);
  EXPECT_EQ(f.params[0].ptr_align, 16u);
  EXPECT_EQ(f.params[0].align, 0u);
  EXPECT_EQ(f.params[1].align, 128u);
  EXPECT_EQ(f.params[1].type.name, "b8");
  EXPECT_EQ(f.params[1].dims, (std::vector<uint64_t>{128}));
  EXPECT_EQ(f.params[2].ptr_space, Space::None);
  EXPECT_EQ(f.params[2].ptr_align, 1u);
  EXPECT_EQ(f.params[3].name, "n");
  EXPECT_EQ(f.perf.maxntid, (std::vector<uint32_t>{256}));
  EXPECT_TRUE(f.perf.explicitcluster);
  EXPECT_EQ(f.perf.reqnctapercluster, (std::vector<uint32_t>{2, 1, 1}));
  EXPECT_EQ(f.perf.minnctapersm, 1u);
  EXPECT_EQ(f.perf.maxnreg, 168u);
  EXPECT_EQ(f.perf.maxclusterrank, 8u);
  EXPECT_EQ(f.perf.reqntid, (std::vector<uint32_t>{128, 1}));
  EXPECT_EQ(f.perf.pragmas, (std::vector<std::string>{"nounroll"}));
  ASSERT_EQ(f.body.size(), 3u);
  EXPECT_EQ(f.body[0].kind, Kind::ScopeOpen);
  EXPECT_EQ(f.body[1].kind, Kind::Instr);
  EXPECT_EQ(f.body[1].instr.opcode, "ret");
  EXPECT_EQ(f.body[2].kind, Kind::ScopeClose);
}

TEST(Parser, FuncDeclarationsAndReturns) {
  auto m = parse(
      ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
      "\t.param .b64 vprintf_param_1\n)\n;\n"
      ".func __trap\n()\n;\n"
      ".weak .func (.reg .b32 r) regf(.reg .b32 a, .reg .pred p);\n"
      ".func nop;\n"
      ".extern .func __assertfail(.param .b64 m, .param .b32 line) .noreturn;\n"
      ".visible .func  (.param .align 16 .b8 func_retval0[16]) _Z6add128nn(\n"
      "\t.param .align 16 .b8 _Z6add128nn_param_0[16]\n)\n{\n\tret;\n}\n");
  ASSERT_EQ(m.functions.size(), 6u);
  const auto& vp = m.functions[0];
  EXPECT_EQ(vp.name, "vprintf");
  EXPECT_FALSE(vp.is_entry);
  EXPECT_TRUE(vp.is_extern);
  EXPECT_FALSE(vp.has_body);
  ASSERT_EQ(vp.returns.size(), 1u);
  EXPECT_EQ(vp.returns[0].name, "func_retval0");
  EXPECT_EQ(vp.returns[0].type.name, "b32");
  EXPECT_EQ(vp.params.size(), 2u);
  EXPECT_TRUE(vp.body.empty());

  EXPECT_EQ(m.functions[1].name, "__trap");
  EXPECT_TRUE(m.functions[1].params.empty());

  const auto& rf = m.functions[2];
  EXPECT_TRUE(rf.is_weak);
  ASSERT_EQ(rf.returns.size(), 1u);
  EXPECT_EQ(rf.returns[0].space, Space::Reg);
  ASSERT_EQ(rf.params.size(), 2u);
  EXPECT_EQ(rf.params[1].space, Space::Reg);
  EXPECT_EQ(rf.params[1].type.name, "pred");
  EXPECT_EQ(rf.params[1].type.bits, 1u);

  EXPECT_EQ(m.functions[3].name, "nop");
  EXPECT_TRUE(m.functions[4].perf.noreturn);
  EXPECT_FALSE(m.functions[4].has_body);

  const auto& a = m.functions[5];
  EXPECT_TRUE(a.has_body);
  EXPECT_EQ(a.returns[0].dims, (std::vector<uint64_t>{16}));
  EXPECT_EQ(a.returns[0].align, 16u);
}

// ------------------------------------------------------------------------------------------------
// Bodies

TEST(Parser, RegisterDeclarations) {
  auto m = parse_body(
      "\t.reg .b32 \t%r<112>;\n"
      "\t.reg .pred \t%p<3>, %q;\n"
      "\t.reg .b128 %rq<2>;\n"
      "\t.reg .v4 .f32 %v;\n"
      "\t.reg .b64 %SP;\n"
      "\t.reg .f16x2 %h<0>;\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 6u);
  for (const auto& st : s) EXPECT_EQ(st.kind, Kind::Reg);
  EXPECT_EQ(s[0].reg.type.name, "b32");
  EXPECT_EQ(s[0].reg.type.bits, 32u);
  ASSERT_EQ(s[0].reg.names.size(), 1u);
  EXPECT_EQ(s[0].reg.names[0].name, "%r");
  EXPECT_EQ(s[0].reg.names[0].range, 112u);
  EXPECT_EQ(s[0].loc.line, 6u);
  EXPECT_EQ(s[0].loc.col, 2u);
  EXPECT_EQ(s[1].reg.type.bits, 1u);
  ASSERT_EQ(s[1].reg.names.size(), 2u);
  EXPECT_EQ(s[1].reg.names[1].name, "%q");
  EXPECT_EQ(s[1].reg.names[1].range, 0u);
  EXPECT_EQ(s[2].reg.type.bits, 128u);
  EXPECT_EQ(s[3].reg.type.vector, 4u);
  EXPECT_EQ(s[3].reg.type.name, "f32");
  EXPECT_EQ(s[4].reg.names[0].name, "%SP");
  EXPECT_TRUE(s[5].reg.names.empty());
}

TEST(Parser, VariablesInBody) {
  auto m = parse_body(
      "\t.local .align 4 .b8 \t__local_depot0[28];\n"
      "\t.shared .align 4 .b8 _ZZ1kE4tile[512];\n"
      "\t.param .b32 param0;\n"
      "\t.param .align 16 .b8 retval0[16];\n"
      "\t.const .u32 c0 = 5;\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].kind, Kind::Var);
  EXPECT_EQ(s[0].var.space, Space::Local);
  EXPECT_EQ(s[0].var.name, "__local_depot0");
  EXPECT_EQ(s[0].var.dims, (std::vector<uint64_t>{28}));
  EXPECT_EQ(s[1].var.space, Space::Shared);
  EXPECT_EQ(s[2].var.space, Space::Param);
  EXPECT_FALSE(s[2].var.is_array);
  EXPECT_EQ(s[3].var.align, 16u);
  EXPECT_EQ(s[4].var.space, Space::Const);
  EXPECT_EQ(s[4].var.init.size(), 1u);
}

TEST(Parser, LabelsGuardsAndOpcodes) {
  auto m = parse_body(
      "$L__BB0_3:\n"
      "\t@%p1 bra \t$L__BB0_2;\n"
      "\t@!%p2 bra.uni $L__BB0_3;\n"
      "$L__BB0_2: mov.u32 %r1, %tid.x; // same line\n"
      "\t@!p bra LAB_WAIT;\n"
      "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd3, {%r6, %r6}], [%r2];\n"
      "\tmbarrier.try_wait.parity.shared::cta.b64 p, [%r8], %r9;\n"
      "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, p;\n"
      "\ttcgen05.ld.sync.aligned.32x32b.x4.b32 {%r2,%r3,%r4,%r5}, [%r6];\n"
      "\tret;\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 11u);
  EXPECT_EQ(s[0].kind, Kind::Label);
  EXPECT_EQ(s[0].label.name, "$L__BB0_3");
  EXPECT_EQ(s[0].label.loc.line, 6u);
  EXPECT_EQ(s[0].label.loc.col, 1u);

  EXPECT_EQ(s[1].kind, Kind::Instr);
  EXPECT_TRUE(s[1].instr.has_guard);
  EXPECT_EQ(s[1].instr.guard, "%p1");
  EXPECT_FALSE(s[1].instr.guard_negated);
  EXPECT_EQ(s[1].instr.opcode, "bra");
  EXPECT_EQ(s[1].instr.loc.col, 2u);
  ASSERT_EQ(s[1].instr.operands.size(), 1u);
  EXPECT_EQ(s[1].instr.operands[0].kind, OK::Name);
  EXPECT_EQ(s[1].instr.operands[0].name, "$L__BB0_2");

  EXPECT_TRUE(s[2].instr.guard_negated);
  EXPECT_EQ(s[2].instr.guard, "%p2");
  EXPECT_EQ(s[2].instr.opcode, "bra.uni");

  EXPECT_EQ(s[3].kind, Kind::Label);
  EXPECT_EQ(s[4].kind, Kind::Instr);
  EXPECT_EQ(s[4].instr.opcode, "mov.u32");
  EXPECT_EQ(s[4].loc.line, 9u);
  EXPECT_EQ(s[4].loc.col, 12u);
  EXPECT_EQ(s[4].instr.operands[1].kind, OK::Reg);
  EXPECT_EQ(s[4].instr.operands[1].name, "%tid.x");
  EXPECT_EQ(s[4].instr.operands[1].component, "");

  EXPECT_EQ(s[5].instr.guard, "p");
  EXPECT_TRUE(s[5].instr.guard_negated);

  const auto& cp = s[6].instr;
  EXPECT_EQ(cp.opcode, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes");
  ASSERT_EQ(cp.operands.size(), 3u);
  EXPECT_EQ(cp.operands[1].kind, OK::Address);
  EXPECT_EQ(cp.operands[1].name, "%rd3");
  ASSERT_EQ(cp.operands[1].elems.size(), 1u);
  EXPECT_EQ(cp.operands[1].elems[0].kind, OK::Vector);
  EXPECT_EQ(cp.operands[1].elems[0].elems.size(), 2u);

  EXPECT_EQ(s[7].instr.opcode, "mbarrier.try_wait.parity.shared::cta.b64");
  EXPECT_EQ(s[7].instr.operands[0].kind, OK::Name);
  EXPECT_EQ(s[7].instr.operands[0].name, "p");
  EXPECT_EQ(s[8].instr.opcode, "tcgen05.mma.cta_group::1.kind::f16");
  EXPECT_EQ(s[9].instr.opcode, "tcgen05.ld.sync.aligned.32x32b.x4.b32");
  EXPECT_EQ(s[9].instr.operands[0].kind, OK::Vector);
  EXPECT_EQ(s[9].instr.operands[0].elems.size(), 4u);
}

TEST(Parser, OperandKinds) {
  auto m = parse_body(
      "\tmov.u32 %r1, %ctaid.y;\n"                              // 0
      "\tmov.u32 %r2, %cluster_ctarank;\n"                      // 1
      "\tmov.u32 %r3, %envreg3;\n"                              // 2
      "\tmov.u64 %rd1, %clock64;\n"                             // 3
      "\tmov.u64 %rd2, __local_depot0;\n"                       // 4
      "\tadd.u64 %rd3, %SP, 0;\n"                               // 5
      "\tmov.u32 %r4, -128;\n"                                  // 6
      "\tmov.u32 %r5, 0x7fU;\n"                                 // 7
      "\tmov.u32 %r6, 017;\n"                                   // 8
      "\tmov.u32 %r7, 0b101;\n"                                 // 9
      "\tmov.f32 %f1, 0f3F800000;\n"                            // 10
      "\tmov.f32 %f2, 0F3f800000;\n"                            // 11
      "\tmov.f64 %fd1, 0d3FF0000000000000;\n"                   // 12
      "\tmov.f64 %fd2, 0D3ff0000000000000;\n"                   // 13
      "\tmov.f64 %fd3, 1.5;\n"                                  // 14
      "\tmov.f64 %fd4, 1e-3;\n"                                 // 15
      "\tld.global.u32 %r8, [%rd1];\n"                          // 16
      "\tld.global.u32 %r9, [%rd1+16];\n"                       // 17
      "\tld.local.u32 %r10, [%rd24+-4];\n"                      // 18
      "\tld.local.u32 %r11, [%rd24-4];\n"                       // 19
      "\tld.param.u32 %r12, [_Z3fooi_param_0];\n"               // 20
      "\tld.global.f32 %f3, [s+16];\n"                          // 21
      "\tld.global.u32 %r13, [0x1000];\n"                       // 22
      "\tld.global.v4.b32 { %r1, %r2, _, %r4 }, [ %rd1 + 0 ];\n"  // 23
      "\tshfl.sync.idx.b32\t%r21|%p2, %r20, 3, 31, -1;\n"       // 24
      "\tnot.pred %p3, !%p1;\n"                                 // 25
      "\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], %r2;\n"  // 26
      "\tmov.u32 %r14, 1<<4;\n"                                 // 27
      "\tmov.u64 %rd5, sym+8;\n"                                // 28
      "\tmov.b32 %r15, %v.x;\n"                                 // 29
      "\tmov.f32 %f4, -0f3F800000;\n"                           // 30
      "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, smp, {%f5, %f6}];\n"  // 31
      "\tld.global.u32 %r16, [%rd1+4*2-1];\n"                   // 32
      "\tmov.u32 %r17, %tid;\n");                               // 33
  auto is = instrs(m);
  ASSERT_EQ(is.size(), 34u);
  auto op = [&](size_t i, size_t k) -> const Operand& { return is.at(i).operands.at(k); };

  EXPECT_EQ(op(0, 0).kind, OK::Reg);
  EXPECT_EQ(op(0, 0).name, "%r1");
  EXPECT_EQ(op(0, 1).name, "%ctaid.y");
  EXPECT_EQ(op(1, 1).name, "%cluster_ctarank");
  EXPECT_EQ(op(2, 1).name, "%envreg3");
  EXPECT_EQ(op(3, 1).name, "%clock64");
  EXPECT_EQ(op(4, 1).kind, OK::Name);
  EXPECT_EQ(op(4, 1).name, "__local_depot0");
  EXPECT_EQ(op(5, 1).kind, OK::Reg);
  EXPECT_EQ(op(5, 1).name, "%SP");
  EXPECT_EQ(op(5, 2).kind, OK::Int);
  EXPECT_EQ(op(5, 2).value, 0);
  EXPECT_EQ(op(6, 1).value, -128);
  EXPECT_FALSE(op(6, 1).is_unsigned);
  EXPECT_EQ(op(7, 1).value, 0x7f);
  EXPECT_TRUE(op(7, 1).is_unsigned);
  EXPECT_EQ(op(8, 1).value, 15);
  EXPECT_EQ(op(9, 1).value, 5);
  EXPECT_EQ(op(10, 1).kind, OK::F32);
  EXPECT_EQ(op(10, 1).value, 0x3F800000);
  EXPECT_EQ(op(11, 1).value, 0x3F800000);
  EXPECT_EQ(op(12, 1).kind, OK::F64);
  EXPECT_EQ(static_cast<uint64_t>(op(12, 1).value), 0x3FF0000000000000ull);
  EXPECT_EQ(static_cast<uint64_t>(op(13, 1).value), 0x3FF0000000000000ull);
  EXPECT_EQ(op(14, 1).kind, OK::F64);
  EXPECT_EQ(static_cast<uint64_t>(op(14, 1).value), f64_bits(1.5));
  EXPECT_EQ(static_cast<uint64_t>(op(15, 1).value), f64_bits(1e-3));

  EXPECT_EQ(op(16, 1).kind, OK::Address);
  EXPECT_EQ(op(16, 1).name, "%rd1");
  EXPECT_EQ(op(16, 1).value, 0);
  EXPECT_EQ(op(17, 1).value, 16);
  EXPECT_EQ(op(18, 1).value, -4);
  EXPECT_EQ(op(19, 1).value, -4);
  EXPECT_EQ(op(20, 1).name, "_Z3fooi_param_0");
  EXPECT_EQ(op(21, 1).name, "s");
  EXPECT_EQ(op(21, 1).value, 16);
  EXPECT_EQ(op(22, 1).name, "");
  EXPECT_EQ(op(22, 1).value, 0x1000);

  const Operand& v = op(23, 0);
  EXPECT_EQ(v.kind, OK::Vector);
  ASSERT_EQ(v.elems.size(), 4u);
  EXPECT_EQ(v.elems[2].kind, OK::Sink);
  EXPECT_EQ(v.elems[3].name, "%r4");
  EXPECT_EQ(op(23, 1).name, "%rd1");

  const Operand& pr = op(24, 0);
  EXPECT_EQ(pr.kind, OK::Pair);
  ASSERT_EQ(pr.elems.size(), 2u);
  EXPECT_EQ(pr.elems[0].name, "%r21");
  EXPECT_EQ(pr.elems[1].name, "%p2");
  EXPECT_EQ(op(24, 4).value, -1);

  EXPECT_TRUE(op(25, 1).negated);
  EXPECT_EQ(op(25, 1).name, "%p1");
  EXPECT_EQ(op(26, 0).kind, OK::Sink);
  EXPECT_EQ(op(27, 1).value, 16);
  EXPECT_EQ(op(28, 1).kind, OK::Name);
  EXPECT_EQ(op(28, 1).name, "sym");
  EXPECT_EQ(op(28, 1).value, 8);
  EXPECT_EQ(op(29, 1).name, "%v");
  EXPECT_EQ(op(29, 1).component, "x");
  EXPECT_EQ(op(30, 1).value, static_cast<int64_t>(0xBF800000u));

  const Operand& tx = op(31, 1);
  EXPECT_EQ(tx.kind, OK::Address);
  EXPECT_EQ(tx.name, "tex0");
  ASSERT_EQ(tx.elems.size(), 2u);
  EXPECT_EQ(tx.elems[0].kind, OK::Name);
  EXPECT_EQ(tx.elems[0].name, "smp");
  EXPECT_EQ(tx.elems[1].kind, OK::Vector);
  EXPECT_EQ(op(32, 1).value, 7);
  EXPECT_EQ(op(33, 1).name, "%tid");

  // Operand locations.
  EXPECT_EQ(op(17, 1).loc.line, 23u);
  EXPECT_EQ(op(17, 1).loc.col, 21u);
}

TEST(Parser, CallForms) {
  auto m = parse_body(
      "\t{ // callseq 0, 0\n"
      "\t.reg .b32 temp_param_reg;\n"
      "\t.param .b32 param0;\n"
      "\tst.param.b32 \t[param0+0], %r2;\n"
      "\t.param .b32 retval0;\n"
      "\tcall.uni (retval0), \n\t_Z3fooi, \n\t(\n\tparam0\n\t);\n"
      "\tld.param.b32 \t%r84, [retval0+0];\n"
      "\t} // callseq 0\n"
      "\tcall.uni _Z3bari, (param0, param1);\n"
      "\tcall.uni __trap, ();\n"
      "\t{\n"
      "\tprototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "\tcall (retval0), %rd5, (param0), prototype_1;\n"
      "\tprototype_2 : .callprototype ()_ (.param .b64 _, .param .align 16 .b8 _[16]) .noreturn;\n"
      "\tcall \n\t%rd13, \n\t(\n\tparam0\n\t)\n\t, prototype_2;\n"
      "\t}\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 18u);
  EXPECT_EQ(s[0].kind, Kind::ScopeOpen);
  EXPECT_EQ(s[1].kind, Kind::Reg);
  EXPECT_EQ(s[1].reg.names[0].name, "temp_param_reg");
  EXPECT_EQ(s[2].kind, Kind::Var);
  const auto& c0 = s[5].instr;
  EXPECT_EQ(c0.opcode, "call.uni");
  ASSERT_EQ(c0.operands.size(), 3u);
  EXPECT_EQ(c0.operands[0].kind, OK::List);
  ASSERT_EQ(c0.operands[0].elems.size(), 1u);
  EXPECT_EQ(c0.operands[0].elems[0].name, "retval0");
  EXPECT_EQ(c0.operands[1].kind, OK::Name);
  EXPECT_EQ(c0.operands[1].name, "_Z3fooi");
  EXPECT_EQ(c0.operands[2].kind, OK::List);
  EXPECT_EQ(c0.operands[2].elems.size(), 1u);
  EXPECT_EQ(s[7].kind, Kind::ScopeClose);

  const auto& c1 = s[8].instr;
  ASSERT_EQ(c1.operands.size(), 2u);
  EXPECT_EQ(c1.operands[0].name, "_Z3bari");
  EXPECT_EQ(c1.operands[1].elems.size(), 2u);
  EXPECT_EQ(s[9].instr.operands[1].kind, OK::List);
  EXPECT_TRUE(s[9].instr.operands[1].elems.empty());

  EXPECT_EQ(s[10].kind, Kind::ScopeOpen);
  EXPECT_EQ(s[11].kind, Kind::Label);
  EXPECT_EQ(s[11].label.name, "prototype_1");
  EXPECT_EQ(s[12].kind, Kind::Pragma);
  EXPECT_EQ(s[12].instr.opcode, ".callprototype");
  EXPECT_EQ(s[12].text, "callprototype (.param .b32 _) _ (.param .b32 _)");
  const auto& c2 = s[13].instr;
  ASSERT_EQ(c2.operands.size(), 4u);
  EXPECT_EQ(c2.operands[0].kind, OK::List);
  EXPECT_EQ(c2.operands[1].kind, OK::Reg);
  EXPECT_EQ(c2.operands[1].name, "%rd5");
  EXPECT_EQ(c2.operands[2].kind, OK::List);
  EXPECT_EQ(c2.operands[3].kind, OK::Name);
  EXPECT_EQ(c2.operands[3].name, "prototype_1");
  EXPECT_EQ(s[15].text, "callprototype () _ (.param .b64 _, .param .align 16 .b8 _[16]) .noreturn");
  const auto& c3 = s[16].instr;
  ASSERT_EQ(c3.operands.size(), 3u);
  EXPECT_EQ(c3.operands[0].name, "%rd13");
  EXPECT_EQ(c3.operands[2].name, "prototype_2");
}

TEST(Parser, BranchTargetsAndPragmas) {
  auto m = parse_body(
      "\tbrx.idx %r1, $L_table;\n"
      "$L_table: .branchtargets $L1, $L2, $L3;\n"
      "$L1:\n\tret;\n$L2:\n$L3:\n"
      "\t.pragma \"nounroll\";\n"
      "Ftab: .calltargets f0, f1;\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0].instr.opcode, "brx.idx");
  EXPECT_EQ(s[0].instr.operands[1].name, "$L_table");
  EXPECT_EQ(s[1].kind, Kind::Label);
  EXPECT_EQ(s[1].label.name, "$L_table");
  EXPECT_EQ(s[2].kind, Kind::Pragma);
  EXPECT_EQ(s[2].instr.opcode, ".branchtargets");
  EXPECT_EQ(s[2].text, "branchtargets $L1, $L2, $L3");
  ASSERT_EQ(s[2].instr.operands.size(), 3u);
  EXPECT_EQ(s[2].instr.operands[2].kind, OK::Name);
  EXPECT_EQ(s[2].instr.operands[2].name, "$L3");
  EXPECT_EQ(s[7].kind, Kind::Pragma);
  EXPECT_EQ(s[7].text, "nounroll");
  EXPECT_EQ(s[7].instr.opcode, "");
  EXPECT_EQ(s[9].instr.opcode, ".calltargets");
  EXPECT_EQ(s[9].text, "calltargets f0, f1");
}

TEST(Parser, LocStatements) {
  auto m = parse_body(
      "\t.loc\t1 12 3\n"
      "\tmov.u32 %r1, 0;\n"
      "\t.loc\t2 341 9, function_name $L__info_string0, inlined_at 1 10 3\n"
      "\t.loc 1 0 3\n"
      "\tret;\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].kind, Kind::Loc);
  EXPECT_EQ(s[0].loc_file, 1u);
  EXPECT_EQ(s[0].loc_line, 12u);
  EXPECT_EQ(s[0].loc_col, 3u);
  EXPECT_EQ(s[0].text, "");
  EXPECT_EQ(s[2].kind, Kind::Loc);
  EXPECT_EQ(s[2].loc_file, 2u);
  EXPECT_EQ(s[2].loc_line, 341u);
  EXPECT_EQ(s[2].loc_col, 9u);
  EXPECT_EQ(s[2].text, "function_name $L__info_string0, inlined_at 1 10 3");
  EXPECT_EQ(s[3].loc_line, 0u);
}

TEST(Parser, NestedScopesWithoutRecursion) {
  const int n = 20000;
  std::string body;
  for (int i = 0; i < n; ++i) body += "{ .reg .b32 %r; ";
  body += "ret;";
  for (int i = 0; i < n; ++i) body += "}";
  auto m = parse(".entry k() {" + body + "}");
  const auto& b = m.functions.at(0).body;
  ASSERT_EQ(b.size(), static_cast<size_t>(3 * n + 3));
  int depth = 0, max_depth = 0;
  for (const auto& st : b) {
    if (st.kind == Kind::ScopeOpen) max_depth = std::max(max_depth, ++depth);
    if (st.kind == Kind::ScopeClose) --depth;
  }
  EXPECT_EQ(depth, 0);
  EXPECT_EQ(max_depth, n + 1);
}

TEST(Parser, InlineAsmScopes) {
  auto m = parse_body(
      "\t// begin inline asm\n"
      "\t{\n .reg .pred p;\n LAB_WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%r8], %r9;\n @!p bra LAB_WAIT;\n}\n"
      "\t// end inline asm\n"
      "\t{ .reg .b128 %rq<2>; mov.b128 %rq0, {%rd2, %rd3}; mov.b128 {%rd2,%rd3}, %rq0; }\n"
      "\t{ cvt.rn.bf16x2.f32 %r10, %f2, %f1;}\n");
  auto s = inner(m);
  ASSERT_EQ(s.size(), 14u);
  EXPECT_EQ(s[0].kind, Kind::ScopeOpen);
  EXPECT_EQ(s[2].kind, Kind::Label);
  EXPECT_EQ(s[2].label.name, "LAB_WAIT");
  EXPECT_EQ(s[4].instr.guard, "p");
  EXPECT_EQ(s[5].kind, Kind::ScopeClose);
  EXPECT_EQ(s[8].instr.operands[1].kind, OK::Vector);
  EXPECT_EQ(s[12].instr.opcode, "cvt.rn.bf16x2.f32");
}

TEST(Parser, CommentsEverywhere) {
  auto m = parse(
      "/* leading */ .version /* mid */ 9.0 // trailing\n"
      ".target sm_90a /* multi\nline\ncomment */\n"
      ".entry k(/* no params */)\n{\n\tmov.u32 %r1, /* x */ 1; // c\n\tret; /* } */\n}\n");
  EXPECT_EQ(m.version_major, 9u);
  auto is = instrs(m);
  ASSERT_EQ(is.size(), 2u);
  EXPECT_EQ(is[0].loc.line, 7u);
  EXPECT_EQ(is[1].loc.line, 8u);
}

TEST(Parser, CrLfLineEndings) {
  auto m = parse(".version 9.0\r\n.target sm_90a\r\n.entry k()\r\n{\r\n\tret;\r\n}\r\n");
  auto is = instrs(m);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].loc.line, 5u);
  EXPECT_EQ(error_of(".entry k()\r\n{\r\n\tret\r\n}\r\n"), "t.ptx:4:1: error: expected ';' after instruction\n}\n^\n");
}

// ------------------------------------------------------------------------------------------------
// Whole modules modelled on what nvcc 13 emits (written by hand for these tests).

const char* kSm90Module = R"(//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-00000000
// Cuda compilation tools, release 13.0, V13.0.88
// Based on NVVM 7.0.1
//

.version 9.0
.target sm_90a
.address_size 64

	// .globl	_Z6scaleiPf
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 4 .b8 lut[8] = {1, 0, 0, 0, 2};
.global .align 1 .b8 $str[4] = {104, 105, 10};
// _ZZ6scaleiPfE4tile has been demoted

.func  (.param .b32 func_retval0) _Z3twoi(
	.param .b32 _Z3twoi_param_0
)
{
	.reg .b32 	%r<3>;


	ld.param.u32 	%r1, [_Z3twoi_param_0];
	shl.b32 	%r2, %r1, 1;
	st.param.b32 	[func_retval0+0], %r2;
	ret;

}
.visible .entry _Z6scaleiPf(
	.param .u32 _Z6scaleiPf_param_0,
	.param .u64 _Z6scaleiPf_param_1
)
.maxntid 128, 1, 1
.minnctapersm 2
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<6>;
	// demoted variable
	.shared .align 4 .b8 _ZZ6scaleiPfE4tile[512];

	ld.param.u32 	%r2, [_Z6scaleiPf_param_0];
	ld.param.u64 	%rd1, [_Z6scaleiPf_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB1_2;

	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z3twoi, 
	(
	param0
	);
	ld.param.b32 	%r6, [retval0+0];
	} // callseq 0
	cvt.rn.f32.s32 	%f2, %r6;
	mul.f32 	%f3, %f1, %f2;
	st.global.f32 	[%rd4], %f3;

$L__BB1_2:
	.pragma "nounroll";
	setp.eq.s32 	%p2, %r1, 7;
	@%p2 bra 	$L__BB1_4;
	bra.uni 	$L__BB1_3;

$L__BB1_3:
	// begin inline asm
	trap;
	// end inline asm

$L__BB1_4:
	ret;

}
)";

TEST(RealPtx, Sm90Module) {
  auto m = parse_ptx(kSm90Module, "scale.ptx");
  EXPECT_EQ(m.version_major, 9u);
  EXPECT_EQ(m.targets, (std::vector<std::string>{"sm_90a"}));
  ASSERT_EQ(m.functions.size(), 3u);
  EXPECT_EQ(m.functions[0].name, "vprintf");
  EXPECT_FALSE(m.functions[0].has_body);
  EXPECT_EQ(m.functions[1].name, "_Z3twoi");
  EXPECT_EQ(m.functions[1].returns.size(), 1u);
  const auto& k = m.functions[2];
  EXPECT_EQ(k.name, "_Z6scaleiPf");
  EXPECT_TRUE(k.is_entry);
  EXPECT_EQ(k.perf.maxntid, (std::vector<uint32_t>{128, 1, 1}));
  EXPECT_EQ(k.perf.minnctapersm, 2u);
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.globals[1].name, "$str");
  int labels = 0, instr = 0, pragmas = 0, opens = 0;
  for (const auto& s : k.body) {
    labels += s.kind == Kind::Label;
    instr += s.kind == Kind::Instr;
    pragmas += s.kind == Kind::Pragma;
    opens += s.kind == Kind::ScopeOpen;
  }
  EXPECT_EQ(labels, 3);
  EXPECT_EQ(instr, 23);
  EXPECT_EQ(pragmas, 1);
  EXPECT_EQ(opens, 2);
}

const char* kSm100DebugModule = R"(//
// Generated by NVIDIA NVVM Compiler
//
// Based on NVVM 20.0.0
//

.version 9.0
.target sm_100a, debug
.address_size 64

	// .globl	_Z2tcPj
// _ZZ2tcPjE5taddr has been demoted

.visible .entry _Z2tcPj(
	.param .u64 .ptr .align 1 _Z2tcPj_param_0
)
.maxntid 128
.minnctapersm 1
.explicitcluster
.reqnctapercluster 2, 1, 1
{
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<5>;
	.loc	1 26 0
$L__func_begin0:
	.loc	1 26 0

	// demoted variable
	.shared .align 4 .u32 _ZZ2tcPjE5taddr;
	ld.param.u64 	%rd1, [_Z2tcPj_param_0];
$L__tmp0:
	.loc	1 28 3
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, _ZZ2tcPjE5taddr;
	// begin inline asm
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
	// end inline asm
	.loc	1 29 3
	// begin inline asm
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	// end inline asm
	.loc	2 177 3, function_name $L__info_string0, inlined_at 1 30 3
	mov.u32 	%r11, %cluster_ctarank;
	.loc	1 31 3
	ld.shared.u32 	%r6, [_ZZ2tcPjE5taddr];
	// begin inline asm
	tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r2,%r3,%r4,%r5}, [%r6];
	// end inline asm
	add.s32 	%r7, %r2, %r3;
	mov.u32 	%r10, %tid.x;
	mul.wide.u32 	%rd3, %r10, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r7;
	.loc	1 33 1
	ret;
$L__tmp1:
$L__func_end0:

}
	.file	1 "/home/user/tc.cu"
	.file	2 "/usr/local/cuda/include/crt/sm_90_rt.hpp"
	.section	.debug_loc
	{
.b64 $L__tmp0
.b64 $L__tmp1
.b8 5
.b8 0
.b8 144
	}
	.section	.debug_abbrev
	{
.b8 1
.b8 17
.b8 1
	}
	.section	.debug_info
	{
.b32 735
.b8 2
.b8 0
.b32 .debug_abbrev
.b8 8
.b8 97,46,99,117
.b32 .debug_line
.b64 $L__func_begin0
.b64 _ZZ2tcPjE5taddr
.b32 .debug_loc+133
.b8 0
	}
	.section	.debug_str
	{
$L__info_string0:
.b8 95
.b8 90
.b8 0
	}
	.section	.debug_macinfo
	{
.b8 0

	}
)";

TEST(RealPtx, Sm100DebugModule) {
  auto m = parse_ptx(kSm100DebugModule, "tc.ptx");
  EXPECT_EQ(m.targets, (std::vector<std::string>{"sm_100a", "debug"}));
  ASSERT_EQ(m.functions.size(), 1u);
  const auto& k = m.functions[0];
  EXPECT_EQ(k.params.at(0).ptr_align, 1u);
  EXPECT_TRUE(k.perf.explicitcluster);
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[1].second, "/usr/local/cuda/include/crt/sm_90_rt.hpp");
  int locs = 0;
  const Statement* inlined = nullptr;
  for (const auto& s : k.body) {
    if (s.kind != Kind::Loc) continue;
    ++locs;
    if (!s.text.empty()) inlined = &s;
  }
  EXPECT_EQ(locs, 7);
  ASSERT_NE(inlined, nullptr);
  EXPECT_EQ(inlined->loc_file, 2u);
  EXPECT_EQ(inlined->loc_line, 177u);
  EXPECT_EQ(inlined->text, "function_name $L__info_string0, inlined_at 1 30 3");
  auto is = instrs(m);
  ASSERT_EQ(is.size(), 14u);
  EXPECT_EQ(is[3].opcode, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32");
  EXPECT_EQ(is[5].operands[1].name, "%cluster_ctarank");
}

// Modelled on LLVM NVPTX / Triton output: spaces inside brackets, one-line call syntax.
const char* kTritonLikeModule = R"(//
// Generated by LLVM NVPTX Back-End
//

.version 8.7
.target sm_90a
.address_size 64

	// .globl	add_kernel
.extern .shared .align 16 .b8 global_smem[];

.visible .entry add_kernel(
	.param .u64 .ptr .global .align 1 add_kernel_param_0,
	.param .u64 .ptr .global .align 1 add_kernel_param_1,
	.param .u32 add_kernel_param_2
)
.reqntid 128, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<6>;
	.loc	1 7 0
$L__func_begin0:
	.loc	1 7 0

// %bb.0:
	ld.param.u64 	%rd3, [add_kernel_param_0];
	mov.u32 	%r5, %ctaid.x;
	shl.b32 	%r6, %r5, 9;
	setp.lt.s32 	%p1, %r6, 1024;
	// begin inline asm
	mov.u32 %r1, 0x0;
	mov.u32 %r2, 0x0;
	@%p1 ld.global.v2.b32 { %r1, %r2 }, [ %rd3 + 0 ];
	// end inline asm
	// begin inline asm
	elect.sync %r7|%p2, -1;
	// end inline asm
	// begin inline asm
	@%p1 st.global.v2.b32 [ %rd3 + 0 ], { %r1, %r2 };
	// end inline asm
	{
	.reg .b32 tmp;
	prmt.b32 tmp, %r1, %r2, 0x5410U;
	}
	call.uni (retval0), helper, (param0, param1);
	ret;
$L__tmp1:
$L__func_end0:
                                        // -- End function
}
	.file	1 "/tmp/triton/add.py" 
	.section	.debug_abbrev
	{
.b8 1                                   // Abbreviation Code
.b8 17                                  // DW_TAG_compile_unit
	}
	.section	.debug_macinfo	{	}
)";

TEST(RealPtx, TritonLikeModule) {
  auto m = parse_ptx(kTritonLikeModule, "add.ptx");
  EXPECT_EQ(m.version_minor, 7u);
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_TRUE(m.globals[0].is_extern);
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].perf.reqntid, (std::vector<uint32_t>{128, 1, 1}));
  auto is = instrs(m);
  ASSERT_EQ(is.size(), 12u);
  EXPECT_EQ(is[6].opcode, "ld.global.v2.b32");
  EXPECT_EQ(is[6].operands[1].name, "%rd3");
  EXPECT_EQ(is[7].operands[0].kind, OK::Pair);
  EXPECT_EQ(is[9].operands[3].value, 0x5410);
  EXPECT_TRUE(is[9].operands[3].is_unsigned);
  EXPECT_EQ(is[9].operands[0].kind, OK::Name);
  EXPECT_EQ(is[10].operands.size(), 3u);
  EXPECT_EQ(m.files.at(0).second, "/tmp/triton/add.py");
}

// ------------------------------------------------------------------------------------------------
// Robustness: every prefix and a family of corruptions of a real module either parse or throw
// PtxError (never crash or hang).

TEST(Robustness, PrefixesAndCorruptions) {
  std::string src = kSm90Module;
  size_t ok = 0, err = 0;
  for (size_t n = 0; n <= src.size(); n += 7) {
    try {
      parse_ptx(src.substr(0, n), "p.ptx");
      ++ok;
    } catch (const PtxError& e) {
      ++err;
      EXPECT_FALSE(e.diag.message.empty());
    }
  }
  const char kBytes[] = {'{', '}', '(', ')', '[', ']', ';', ',', '.', '%', '"', '/', '*', '@', '!', '0', 'x', '\0', '\n'};
  for (size_t i = 0; i < src.size(); i += 5) {
    std::string c = src;
    c[i] = kBytes[i % sizeof kBytes];
    try {
      parse_ptx(c, "c.ptx");
      ++ok;
    } catch (const PtxError&) {
      ++err;
    }
  }
  EXPECT_GT(err, 0u);
  EXPECT_GT(ok, 0u);
}

TEST(Parser, MiscLexicalForms) {
  // Byte order mark, `%` as the remainder operator, `.attribute` on a function, `.version N`.
  auto m = parse("\xEF\xBB\xBF.version 9\n.func .attribute(.unified(0x1, 0x2)) f()\n{\n"
                 "\tmov.u32 %r1, 17 % 5;\n\tmov.u32 %r2, (7)%(5);\n\tret;\n}\n");
  EXPECT_EQ(m.version_major, 9u);
  EXPECT_EQ(m.version_minor, 0u);
  EXPECT_EQ(m.version_loc.col, 1u);
  auto is = instrs(m);
  ASSERT_EQ(is.size(), 3u);
  EXPECT_EQ(is[0].operands[1].value, 2);
  EXPECT_EQ(is[1].operands[1].kind, OK::Int);  // outside `call`, parentheses are an expression
  EXPECT_EQ(is[1].operands[1].value, 2);
  // `%5` is an identifier (PTX allows `%` + digits), so `7 %5` is not an expression.
  EXPECT_EQ(error_of(".entry k() { mov.u32 %r2, 7 %5; }").find("t.ptx:1:29: error: expected ';' after instruction"), 0u);
  // Missing `;` right after an opcode.
  EXPECT_EQ(error_of(".entry k()\n{\n\tret\n\t@%p1 bra L;\n}\n"),
            "t.ptx:4:2: error: expected ';' after instruction\n\t@%p1 bra L;\n\t^\n");
  // Missing `;` at the very end of the input points at the end of the last line.
  EXPECT_EQ(error_of(".entry k()\n{\n\tmov.u32 %r1, 1\n"),
            "t.ptx:3:16: error: expected ';' after instruction\n\tmov.u32 %r1, 1\n\t              ^\n");
}

TEST(Robustness, EmptyAndWhitespace) {
  auto m = parse("");
  EXPECT_TRUE(m.functions.empty());
  EXPECT_EQ(m.address_size, 64u);
  parse("   \n\t\n// only a comment");
  EXPECT_EQ(error_of(".entry"), "t.ptx:1:7: error: expected a function name\n.entry\n      ^\n");
  EXPECT_EQ(error_of("\n\n"), "");
  EXPECT_NE(error_of(std::string("\0", 1)), "");
}

}  // namespace
}  // namespace ptxsim
