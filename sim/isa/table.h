// The instruction table: the one declarative description of every PTX instruction form ptxsim knows.
// The decoder reads it to split an opcode into its name and modifiers, to reject modifiers and
// targets the form does not allow, and to find the binder that picks the semantics. The rows are
// in sim/isa/forms_*.def, one file per instruction family; see docs/isa-table.md for the syntax.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/exec/instr.h"

namespace ptxsim {

struct Binder;
using BindFn = void (*)(Binder&);

// A compilation target such as sm_90a: the number and its suffix ('\0', 'a' or 'f').
struct Target {
  uint32_t sm = 0;
  char suffix = 0;
  std::string name() const;
  static bool parse(std::string_view s, Target& out);
};

// A requirement such as "sm_70" (sm_70 or newer), "sm_90a" (exactly the arch-specific sm_90a),
// "sm_100f" (the sm_100 family with an 'a' or 'f' suffix); alternatives joined by '|'.
bool target_satisfies(const Target& t, std::string_view requirement);

struct FormSpec {
  const char* opcode;    // dotted base name: "add", "cp.async.bulk.tensor"
  const char* operands;  // operand count spec, e.g. "d,a,b,c?" ("?" optional, "..." any more)
  const char* mods;      // allowed modifiers, space-separated: ".rn .ftz .bf16@sm_90"
  uint16_t min_ptx;      // minimum PTX ISA version ×10 (e.g. 78 for 7.8)
  const char* targets;   // target requirement of the whole form
  uint32_t flags;        // InstrFlag bits implied by the form
  BindFn bind;           // picks the semantics; null = recognised but not implemented
};

struct ModInfo {
  std::string token;      // ".rn", ".shared::cta", ".u32"
  DType type = DType::None;  // the token is a type
};

class InstrTable {
 public:
  static const InstrTable& get();

  const std::vector<FormSpec>& forms() const { return forms_; }
  // Forms whose opcode is exactly `opcode`, in table order.
  const std::vector<uint16_t>* find(std::string_view opcode) const;
  // Modifier id of a token (with its leading dot), or -1 if no form uses it.
  int mod_id(std::string_view token) const;
  const ModInfo& mod(int id) const { return mods_[id]; }
  // Whether form `f` allows modifier `m`; *req receives its own target requirement ("" if none).
  bool allows(uint16_t f, int m, std::string_view* req) const;
  size_t opcode_max_parts() const { return max_parts_; }

 private:
  InstrTable();
  struct Compiled {
    ModSet allowed;
    std::vector<std::pair<int, std::string>> gated;  // (mod id, requirement)
  };
  std::vector<FormSpec> forms_;
  std::vector<Compiled> compiled_;
  std::vector<ModInfo> mods_;
  std::vector<std::pair<std::string, std::vector<uint16_t>>> by_opcode_;  // sorted by opcode
  std::vector<std::pair<std::string, int>> mod_index_;                      // sorted by token
  size_t max_parts_ = 1;
};

}  // namespace ptxsim
