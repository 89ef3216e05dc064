// A small reader of PTX statement text for the tcgen05 checks: splits source lines into statements
// (instructions, directives, labels, block braces) and an instruction into guard, opcode
// modifiers and top-level operands. It is not the simulator's parser (verifiers/ depends on
// model/ only) and accepts anything statement-shaped; it never rejects text.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::verifiers::tcgen05 {

// One line of a PTX source (line number, text).
struct SourceLine {
  int line = 0;
  std::string text;
};

struct Statement {
  enum Kind { Instruction, Directive, Label, BlockOpen, BlockClose };
  Kind kind = Instruction;
  int line = 0;      // where the statement starts
  std::string text;  // trimmed, without the ';'
};

// Comments (// and /* */, also across lines) are removed; a statement spanning lines reports its
// first line; '{' '}' are block braces unless they belong to an instruction's vector operand.
std::vector<Statement> split_statements(const std::vector<SourceLine>& lines);

struct Instr {
  int line = 0;
  std::string guard;                  // "@%p1", "@!%p1" or ""
  std::string opcode;                 // "tcgen05.mma.cta_group::1.kind::f16"
  std::vector<std::string> parts;     // opcode split at '.': {"tcgen05","mma","cta_group::1",...}
  std::vector<std::string> operands;  // top-level operands, trimmed ("[%r1]", "{%f0, %f1}", "16")
  bool has(std::string_view part) const;
  // The value after "prefix::" among the parts ("cta_group" -> "1"), or "".
  std::string qualifier(std::string_view prefix) const;
};

// Parses one statement (no trailing ';' needed). nullopt for empty text.
std::optional<Instr> parse_instruction(std::string_view stmt, int line = 0);

// The register an instruction writes as its first operand ("" for stores, barriers, branches,
// tcgen05 and other instructions without a destination, and for vector destinations).
std::string destination_register(const Instr& in);

// "[%r1+16]" -> "%r1"; "[smem]" -> "smem"; "" when the operand is not bracketed.
std::string address_base(std::string_view operand);
// "[ %rd1 + 4 ]" -> "%rd1+4": the bracket contents without spaces; "" when not bracketed.
std::string address_key(std::string_view operand);
// Decimal or 0x-hex integer literal (optionally with a trailing U), else nullopt.
std::optional<int64_t> parse_int_literal(std::string_view s);

std::string trim(std::string_view s);

}  // namespace ptxsim::verifiers::tcgen05
