// Turns a parsed module into a Program: resolves names through PTX's block scopes, lays out every
// variable, validates each instruction against the instruction table and the module's target, and
// lets the family binders pick the semantics.
#pragma once
#include <memory>
#include <string>

#include "sim/exec/program.h"
#include "sim/ptx/ast.h"

namespace ptxsim {

class Decoder {
 public:
  explicit Decoder(const ast::Module& m);
  std::unique_ptr<Program> run();
  // Where the module's .global/.const variables are placed (a host loading several modules into
  // one GlobalMemory gives each its own range).
  uint64_t module_var_base = kModuleVarBase;
  // Whether registers whose live ranges never overlap share a slot (sim/exec/reg_alloc.h); off,
  // every register has its own (tests of the per-register analyses use that).
  bool share_slots = true;

  // For binders: reject at a location.
  [[noreturn]] void error(SrcLoc loc, const std::string& msg) const;
  const Program& program() const { return *prog_; }
  Function& current() { return *cur_; }
  // Adds a constant slot to the current function and returns it.
  uint32_t const_slot(uint64_t value);
  // Adds a slot holding `value` plus the running CTA's shared window (see SharedSymbolSlot).
  uint32_t shared_slot(uint64_t value, bool dynamic);

 private:
  struct Impl;
  const ast::Module& m_;
  std::unique_ptr<Program> prog_;
  Function* cur_ = nullptr;
  friend struct Impl;
};

}  // namespace ptxsim
