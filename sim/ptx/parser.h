// PTX parser: text → ast::Module (sim/ptx/ast.h).
//
//   ast::Module m = ptxsim::parse_ptx(text, "kernel.ptx");
//
// Throws ptxsim::PtxError (sim/ptx/diag.h) on malformed input; its Diagnostic points at the offending
// token (file, 1-based line and byte column, the source line). The parser never recurses once per
// `{ }` scope, so arbitrarily deep bodies are fine; the few recursive constructs (constant
// expressions, nested operands) have depth limits and fail with an error instead of overflowing.
//
// Representation choices (beyond what ast.h says):
//
// * Locations: Function::loc and VarDecl::loc are the name's position; Statement::loc,
//   Instruction::loc, RegDecl::loc and Label::loc the statement's first token (the `@` of a guard,
//   the `.reg`, the label); Operand::loc the operand's first token.
//
// * Statements in a body: the outermost `{` and `}` are a ScopeOpen / ScopeClose pair, as is every
//   nested block. Several statements may share a line (`$L: add.s32 ...;` gives Label then Instr).
//
// * `.pragma "a", "b";` in a body gives one Pragma statement per string, text = the string without
//   quotes ("nounroll"); before a body the strings go to PerfDirectives::pragmas. Module-scope
//   `.pragma` and `.alias` are accepted and dropped.
//
// * `.loc file line col` is a Loc statement (loc_file/loc_line/loc_col). The optional
//   `, function_name $L__info_string0, inlined_at 1 40 5` tail is kept normalized in Statement::text
//   ("function_name $L__info_string0, inlined_at 1 40 5"); text is "" without a tail. `.loc` at
//   module scope is accepted and dropped. `.file N "name"` (optionally `, timestamp, size`) appends
//   {N, name} to Module::files (escapes in the string are decoded).
//
// * `.section name { ... }` (DWARF) is skipped without looking inside, braces balanced; `@@DWARF`
//   lines are skipped by the lexer.
//
// * `proto: .callprototype (.param .b32 _) _ (.param .b32 _);` gives a Label statement ("proto")
//   followed by a Pragma statement whose text is "callprototype " + the prototype with tokens
//   separated by single spaces (no space after `(`/`[` or before `)`/`,`/`[`/`]`), e.g.
//   "callprototype (.param .b32 _) _ (.param .b32 _)"; its instr.opcode is ".callprototype" (no
//   operands). The prototype is syntax-checked like a function header.
//
// * `tbl: .branchtargets $L1, $L2;` gives a Label statement ("tbl") followed by a Pragma statement
//   with instr.opcode ".branchtargets", instr.operands = Name operands $L1, $L2 (in order), and text
//   "branchtargets $L1, $L2". `.calltargets f, g;` is the same with ".calltargets". So a Pragma
//   statement from `.pragma` has an empty instr.opcode; the others carry the directive name there.
//
// * Operands: identifiers starting with `%` are Reg, others Name (`_` alone is Sink). A special
//   register with a component keeps it in the name ("%tid.x", "%ctaid.y", "%cluster_ctaid.z", for
//   %tid %ntid %ctaid %nctaid %clusterid %nclusterid %cluster_ctaid %cluster_nctaid); any other
//   dotted register or name is split at the first dot: `%v.x` → name "%v", component "x".
//   `!%p` sets negated. `%r|%p` is a Pair. `sym+8` / `sym-8` outside brackets is a Name whose
//   `value` holds the offset (0 normally). Integer operands may be constant expressions (`1<<4`,
//   `-16`, `~0`, `(4*8)+1`; in `call`/`call.*` instructions a `(` starts a List instead);
//   `is_unsigned` is set if any literal in it had a U suffix. `-0f3F800000` / `-0d...` / `-1.5` flip the sign bit.
//   Decimal floats (`1.5`, `1e-3`) are F64 with the bits of the double.
//
// * Addresses: `[base]`, `[base+off]`, `[base+-off]`, `[base-off]` (off a constant expression),
//   `[imm]` (name ""). Further comma-separated operands inside the brackets go to elems, e.g.
//   `[tmap, {%r1, %r2}]` → name "tmap", elems = {Vector{%r1, %r2}}; `[tex, smp, {%f1, %f2}]` →
//   name "tex", elems = {Name smp, Vector}. A base register with a component keeps it in `component`.
//
// * Call: `call.uni (retval0), f, (param0, param1);` → operands List{retval0}, Name f,
//   List{param0, param1}; `call f, (p);` has no leading List; `call (r), %rd5, (p), proto;` ends with
//   Name proto. `()` is an empty List.
//
// * Declarations: `.global .u32 a, b;` gives one VarDecl per name. `.reg .b32 %r<0>;` declares
//   nothing (the name is dropped). `.attribute(...)` on variables is accepted and ignored.
//   `.texref` / `.surfref` / `.samplerref` are types (bits 64); samplerref field initializers
//   (`{filter_mode = nearest}`) are accepted and dropped. Decimal float initializers are
//   Float64Bits whatever the variable's type; `-` before a float literal flips its sign bit.
//   Initializer braces are flattened without recursion. The byte-mask form nvcc emits for
//   pointers inside byte arrays, `0xFF00(generic(x)+8)`, is a Symbol element with `mask` set (see
//   InitValue::mask in ast.h).
//
// * Function headers: `.noreturn`, `.maxntid/.reqntid/.reqnctapercluster` (1–3 values),
//   `.minnctapersm`, `.maxnreg`, `.maxclusterrank`, `.explicitcluster`, `.pragma` are recorded;
//   `.maxnctapersm`, `.blocksareclusters`, `.abi_preserve N`, `.abi_preserve_control N` are accepted
//   and dropped. `.version 9.0` sets version_major/minor; `.target` names go to targets in order.
#pragma once
#include <string>

#include "sim/ptx/ast.h"

namespace ptxsim {

// Parses one PTX module. `file_name` is used in diagnostics and stored in Module::file_name; the text
// is stored in Module::source.
ast::Module parse_ptx(std::string text, std::string file_name);

}  // namespace ptxsim
