// A decoded module: functions as arrays of Instr, the layout of every variable, and the launch
// metadata of each entry. Built once by the decoder, shared read-only by every launch.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/api.h"
#include "sim/exec/address_space.h"
#include "sim/exec/instr.h"
#include "sim/isa/table.h"
#include "sim/ptx/ast.h"

namespace ptxsim {

// Special registers whose value is fixed for a thread during a launch; the decoder gives each one
// used by a function a slot that is filled when a frame is created.
enum class Sreg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, SmId, NSmId, GridId, LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe,
  LanemaskGt, ClusterIdX, ClusterIdY, ClusterIdZ, NClusterIdX, NClusterIdY, NClusterIdZ,
  ClusterCtaidX, ClusterCtaidY, ClusterCtaidZ, ClusterNctaidX, ClusterNctaidY, ClusterNctaidZ,
  ClusterCtarank, ClusterNctarank, IsExplicitCluster, DynamicSmemSize, TotalSmemSize,
  AggrSmemSize, ReservedSmemOffsetBegin, ReservedSmemOffsetEnd, ReservedSmemOffsetCap,
  ReservedSmemOffset0, ReservedSmemOffset1, NsmId, EnvReg0 /* EnvReg0..31 follow */,
  Count = EnvReg0 + 32
};
// Special registers that change while a thread runs; only `mov` reads them.
enum class DynSreg : uint8_t { Clock, ClockHi, Clock64, GlobalTimer, GlobalTimerLo, GlobalTimerHi, Pm0 };

// A slot holding a shared-memory address that depends on the CTA running the frame: `value` plus
// the CTA's shared window (its cluster rank << kSharedRankShift, see address_space.h), plus, for an
// .extern .shared (dynamic) variable, where the launched kernel's dynamic shared memory starts.
// `value` may include kSharedWindow (a generic address).
struct SharedSymbolSlot {
  uint32_t slot = 0;
  uint64_t value = 0;
  bool dynamic = false;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_builtin = false;          // an extern function ptxsim implements (vprintf, __assertfail, ...)
  bool has_body = false;
  std::vector<Instr> code;
  std::vector<Operand> vec_pool;    // elements of vector operands
  uint32_t num_slots = 0;
  std::vector<std::pair<uint32_t, uint64_t>> consts;  // slot ← constant
  std::vector<std::pair<uint32_t, Sreg>> sregs;       // slot ← special register
  std::vector<SharedSymbolSlot> shared_slots;         // slot ← a shared address of the running CTA
  uint32_t zero_slot = kNoSlot, sink_slot = kNoSlot;
  // The registers a new frame zeroes: those some path may read before writing
  // (sim/exec/reg_init.h); new_frame fills the constant, special-register and shared-address
  // slots itself and leaves the rest as the allocator gives them.
  std::vector<uint32_t> zero_slots;
  std::vector<std::string> slot_names;                // for diagnostics
  // Per-thread frame memory (.local variables, .param variables of the body, and for a .func its
  // own parameters and return values), addressed relative to the frame's base.
  uint32_t frame_bytes = 0;
  std::vector<uint32_t> param_offsets, param_sizes;   // .func parameters inside the frame
  std::vector<uint32_t> ret_offsets, ret_sizes;       // .func return values inside the frame
  KernelInfo info;                                    // entries: the parameter layout
  // Entries: the end of the static shared memory this kernel uses, [kSharedReserved, end) (the
  // variables its code reaches; other kernels' variables may overlap them).
  uint32_t static_shared_end = kSharedReserved;
  // Entries: why the order in which its clusters run could show in the result, or "" when they may
  // run in parallel (sim/exec/order_dependence.h; decided once, when the module is decoded).
  std::string order_dependence;
  ast::PerfDirectives perf;
  uint32_t decl_line = 0;
};

// A module-scope .global/.const variable: it lives in GlobalMemory at a fixed address, created and
// initialised on the first launch that uses that memory.
struct ModuleVariable {
  std::string name;
  uint64_t address = 0;
  std::vector<uint8_t> init;  // full contents (zeros where not initialised)
  bool is_const = false;
};

class Program {
 public:
  std::string file_name, source;
  Target target;
  uint32_t ptx_version = 0;  // ×10
  std::vector<Function> functions;
  std::unordered_map<std::string, uint32_t> function_index;
  std::vector<ModuleVariable> module_vars;
  // Static shared memory (module scope and body-declared .shared) of all kernels together:
  // [kSharedReserved, static_shared_end). Each entry's own part is Function::static_shared_end,
  // and its dynamic shared memory starts right after that, aligned (dynamic_shared_base).
  uint32_t static_shared_end = 0;
  uint32_t dynamic_shared_align = 16;
  uint32_t dynamic_shared_base(const Function& entry) const {
    return (entry.static_shared_end + dynamic_shared_align - 1) / dynamic_shared_align * dynamic_shared_align;
  }

  const Function* find(const std::string& name) const {
    auto it = function_index.find(name);
    return it == function_index.end() ? nullptr : &functions[it->second];
  }
};

// Base address of the fixed region where module variables are placed.
constexpr uint64_t kModuleVarBase = 0x7a0000000000ull;

}  // namespace ptxsim
