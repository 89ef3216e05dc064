// Just enough PTX text handling for the emission and rebind checks: splitting a line into
// statements, an instruction into predicate, opcode parts and operands, and classifying operands.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::verifiers::tma {

struct PtxInstruction {
  std::string text;                   // the statement, trimmed, without ';' and comments
  std::string predicate;              // "@%p1", "@!%p2" or ""
  std::string opcode;                 // "cp.async.bulk.tensor.2d.shared::cluster.global..."
  std::vector<std::string> parts;     // opcode split at '.'
  std::vector<std::string> operands;  // top-level operands, trimmed
};

// Splits a source line into statements at ';' (outside brackets and braces), dropping // and /* */
// comments. Labels ("L1:"), directives (".reg ...") and braces are not statements.
std::vector<std::string> split_statements(std::string_view line);
// Parses one statement; nullopt for an empty statement, a label or a directive.
std::optional<PtxInstruction> parse_instruction(std::string_view statement);

// Splits at top-level `sep` (outside [], {}, ()), trimming each piece; "" gives no pieces.
std::vector<std::string> split_top(std::string_view s, char sep = ',');
std::string trim(std::string_view s);
// "[x, y]" -> "x, y" (nullopt unless wrapped in the given delimiters).
std::optional<std::string> unwrap(std::string_view s, char open, char close);

// An inline-asm placeholder "%N" or "$N": N, else nullopt.
std::optional<int> placeholder_number(std::string_view operand);
// Constraint class of a register by nvcc's naming (%rd -> "l", %r -> "r", %rs -> "h",
// %f -> "f", %fd -> "d", %p -> "b"); nullopt for anything else (immediates, symbols, placeholders).
std::optional<std::string> register_class(std::string_view operand);
// "l" -> "64-bit", "r" -> "32-bit", "h" -> "16-bit", ...
std::string class_width(std::string_view cls);
// Splits an inline-asm constraint string "r,l,h" into per-operand classes (modifiers "=+&*" dropped).
std::vector<std::string> split_constraints(std::string_view constraints);

}  // namespace ptxsim::verifiers::tma
