// The syntax tree of one PTX module, as written: names are still names, opcodes are still dotted
// strings. The parser builds it; sim/exec/decoder.cpp resolves it against the instruction table.
// Nothing here knows instruction semantics.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/ptx/diag.h"

namespace ptxsim::ast {

// State spaces a declaration or an address can name.
enum class Space : uint8_t { None, Reg, Sreg, Global, Shared, Const, Local, Param, Tex };

// Scalar types of declarations (`.b8` … `.b128`, `.u8` …, `.f16`, `.pred`, …). The spelling is kept
// as written without the dot ("u32", "f16x2", "b128", "pred"); `bits` is its width.
struct Type {
  std::string name;      // "" when absent
  uint32_t bits = 0;     // 1 for .pred
  uint32_t vector = 1;   // 1, 2, 4 or 8 for `.v2`/`.v4`/`.v8`
};

// One immediate or address-valued element of an initializer: `{1, 2, 0f3F800000, sym, sym+8, generic(sym)}`.
struct InitValue {
  enum class Kind : uint8_t { Int, Float32Bits, Float64Bits, Symbol } kind = Kind::Int;
  int64_t value = 0;      // Int: the value (two's complement); Float*: the raw bits; Symbol: the offset
  std::string symbol;     // Symbol: the name (generic(sym) sets `generic`)
  bool generic = false;
  // Symbol: nvcc's byte-select form `0xFF00(generic(sym)+8)` (one byte of an address inside a byte
  // array); the element is ((address of symbol + value) & mask) >> countr_zero(mask). 0 when absent.
  uint64_t mask = 0;
};

// A variable declaration: module scope, function body, or parameter list.
//   .global .align 4 .b8 buf[16] = {1, 2, ...};   .shared .align 16 .b8 smem[];   .param .u64 p
//   .extern .shared .align 16 .b8 dyn[];           .param .align 128 .b8 blob[256]
//   .param .u64 .ptr .global .align 16 p            (pointer attributes on kernel params)
struct VarDecl {
  Space space = Space::None;
  Type type;
  std::string name;
  uint32_t align = 0;                    // 0 when not written
  std::vector<uint64_t> dims;            // array dimensions; a `[]` dimension is stored as 0
  bool is_array = false;                 // true if any `[...]` was written
  bool is_extern = false;
  bool is_visible = false;               // .visible
  bool is_weak = false;                  // .weak / .common
  std::vector<InitValue> init;           // flattened initializer, empty when none
  // `.ptr` attributes of kernel parameters (informational).
  Space ptr_space = Space::None;
  uint32_t ptr_align = 0;
  SrcLoc loc;
};

// `.reg .u32 %r<5>;` declares %r0..%r4; `.reg .pred p, q;` declares p and q.
struct RegDecl {
  Type type;
  struct Name {
    std::string name;
    uint32_t range = 0;  // 0: a single name; N: `name<N>` declares name0..name{N-1}
  };
  std::vector<Name> names;
  SrcLoc loc;
};

struct Operand {
  enum class Kind : uint8_t {
    Reg,        // %r1, %tid.x (special registers keep their component: name "%tid.x"), or a plain name
                // that is a register; the parser does not know, so every bare identifier is Name
    Name,       // an identifier not starting with % (symbol, label, function, or register named so)
    Int,        // integer literal (value holds two's-complement bits; `is_unsigned` if written with U)
    F32,        // 0fXXXXXXXX (bits in `value`)
    F64,        // 0dXXXXXXXXXXXXXXXX or a decimal float literal (bits of the double in `value`)
    Address,    // [base+offset]  or [imm]; base empty for an absolute address
    Vector,     // {a, b, _, d}
    List,       // ( a, b ) : call argument and return lists
    Sink,       // _
    Pair,       // %r|%p  (elems[0], elems[1])
  };
  Kind kind = Kind::Name;
  std::string name;          // Reg/Name: the identifier; Address: the base identifier ("" if none)
  int64_t value = 0;         // Int/F32/F64: literal bits; Address: byte offset (may be negative)
  bool is_unsigned = false;  // Int literal had a U suffix
  bool negated = false;      // `!%p`
  // Operand followed by a vector component selector, e.g. %v.x (rare); "" if none.
  std::string component;
  std::vector<Operand> elems;  // Vector, List, Pair elements; Address: for `[a+b]`-style unusual forms, unused
  SrcLoc loc;
};

struct Instruction {
  std::string opcode;        // dotted, as written: "ld.global.v4.u32", "setp.lt.and.s32", "@" excluded
  bool has_guard = false;
  std::string guard;         // predicate register name when has_guard
  bool guard_negated = false;
  std::vector<Operand> operands;
  SrcLoc loc;
};

struct Label {
  std::string name;
  SrcLoc loc;
};

// A statement inside a function body. Scopes are explicit so that names resolve as PTX says:
// registers and labels declared in a `{ }` block are visible only inside it and may shadow outer ones.
struct Statement {
  enum class Kind : uint8_t { Instr, Label, Reg, Var, ScopeOpen, ScopeClose, Pragma, Loc } kind;
  Instruction instr;   // Instr
  Label label;         // Label
  RegDecl reg;         // Reg
  VarDecl var;         // Var (.local, .shared, .param, .const declared inside a body)
  std::string text;    // Pragma: the string; Loc: unused
  // Loc: `.loc file line col` — debug position of the statements that follow.
  uint32_t loc_file = 0, loc_line = 0, loc_col = 0;
  SrcLoc loc;
};

// Performance-tuning directives of an entry or function; 0 / empty = absent.
struct PerfDirectives {
  std::vector<uint32_t> maxntid, reqntid, reqnctapercluster;
  uint32_t minnctapersm = 0, maxnreg = 0, maxclusterrank = 0;
  bool explicitcluster = false;
  bool noreturn = false;
  std::vector<std::string> pragmas;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_visible = false, is_extern = false, is_weak = false;
  bool has_body = false;                // false for a declaration (prototype) only
  std::vector<VarDecl> params;          // .param (entry) or .param/.reg (func) parameters, in order
  std::vector<VarDecl> returns;         // .func return parameters
  PerfDirectives perf;
  std::vector<Statement> body;          // includes the outermost ScopeOpen/ScopeClose pair
  SrcLoc loc;
};

struct Module {
  std::string file_name;                // as given to the parser, used in diagnostics
  std::string source;                   // the whole text (for diagnostic source lines)
  uint32_t version_major = 0, version_minor = 0;
  std::vector<std::string> targets;     // `.target sm_90a, texmode_independent` → {"sm_90a", "texmode_independent"}
  uint32_t address_size = 64;
  std::vector<VarDecl> globals;         // module-scope .global/.shared/.const variables
  std::vector<Function> functions;      // entries and funcs, in source order (declarations included)
  std::vector<std::pair<uint32_t, std::string>> files;  // `.file N "name"`
  SrcLoc version_loc, target_loc;
};

}  // namespace ptxsim::ast
