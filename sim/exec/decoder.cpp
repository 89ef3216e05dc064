#include "sim/exec/decoder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "sim/exec/address_space.h"
#include "sim/exec/order_dependence.h"
#include "sim/exec/reg_alloc.h"
#include "sim/exec/reg_init.h"
#include "sim/isa/binder.h"
#include "sim/ptx/parser.h"

namespace ptxsim {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

struct SymbolInfo {
  Space space = Space::Global;
  uint64_t address = 0;     // global address, shared offset, kernel-param offset or frame offset
  uint32_t bytes = 0;
  bool frame_rel = false;   // frame variable: relative to the frame base
  bool dynamic = false;     // .extern .shared: `address` is relative to the dynamic shared memory
};

const std::unordered_map<std::string, Sreg>& static_sregs() {
  static const std::unordered_map<std::string, Sreg> m = [] {
    std::unordered_map<std::string, Sreg> r = {
        {"%tid.x", Sreg::TidX}, {"%tid.y", Sreg::TidY}, {"%tid.z", Sreg::TidZ},
        {"%ntid.x", Sreg::NtidX}, {"%ntid.y", Sreg::NtidY}, {"%ntid.z", Sreg::NtidZ},
        {"%ctaid.x", Sreg::CtaidX}, {"%ctaid.y", Sreg::CtaidY}, {"%ctaid.z", Sreg::CtaidZ},
        {"%nctaid.x", Sreg::NctaidX}, {"%nctaid.y", Sreg::NctaidY}, {"%nctaid.z", Sreg::NctaidZ},
        {"%laneid", Sreg::LaneId}, {"%warpid", Sreg::WarpId}, {"%nwarpid", Sreg::NWarpId},
        {"%smid", Sreg::SmId}, {"%nsmid", Sreg::NSmId}, {"%gridid", Sreg::GridId},
        {"%lanemask_eq", Sreg::LanemaskEq}, {"%lanemask_le", Sreg::LanemaskLe},
        {"%lanemask_lt", Sreg::LanemaskLt}, {"%lanemask_ge", Sreg::LanemaskGe},
        {"%lanemask_gt", Sreg::LanemaskGt},
        {"%clusterid.x", Sreg::ClusterIdX}, {"%clusterid.y", Sreg::ClusterIdY},
        {"%clusterid.z", Sreg::ClusterIdZ}, {"%nclusterid.x", Sreg::NClusterIdX},
        {"%nclusterid.y", Sreg::NClusterIdY}, {"%nclusterid.z", Sreg::NClusterIdZ},
        {"%cluster_ctaid.x", Sreg::ClusterCtaidX}, {"%cluster_ctaid.y", Sreg::ClusterCtaidY},
        {"%cluster_ctaid.z", Sreg::ClusterCtaidZ}, {"%cluster_nctaid.x", Sreg::ClusterNctaidX},
        {"%cluster_nctaid.y", Sreg::ClusterNctaidY}, {"%cluster_nctaid.z", Sreg::ClusterNctaidZ},
        {"%cluster_ctarank", Sreg::ClusterCtarank}, {"%cluster_nctarank", Sreg::ClusterNctarank},
        {"%is_explicit_cluster", Sreg::IsExplicitCluster},
        {"%dynamic_smem_size", Sreg::DynamicSmemSize}, {"%total_smem_size", Sreg::TotalSmemSize},
        {"%aggr_smem_size", Sreg::AggrSmemSize},
        {"%reserved_smem_offset_begin", Sreg::ReservedSmemOffsetBegin},
        {"%reserved_smem_offset_end", Sreg::ReservedSmemOffsetEnd},
        {"%reserved_smem_offset_cap", Sreg::ReservedSmemOffsetCap},
        {"%reserved_smem_offset_0", Sreg::ReservedSmemOffset0},
        {"%reserved_smem_offset_1", Sreg::ReservedSmemOffset1},
    };
    for (int i = 0; i < 32; ++i) r["%envreg" + std::to_string(i)] = Sreg(int(Sreg::EnvReg0) + i);
    return r;
  }();
  return m;
}

const std::unordered_map<std::string, DynSreg>& dynamic_sregs() {
  static const std::unordered_map<std::string, DynSreg> m = {
      {"%clock", DynSreg::Clock}, {"%clock_hi", DynSreg::ClockHi}, {"%clock64", DynSreg::Clock64},
      {"%globaltimer", DynSreg::GlobalTimer}, {"%globaltimer_lo", DynSreg::GlobalTimerLo},
      {"%globaltimer_hi", DynSreg::GlobalTimerHi}, {"%pm0", DynSreg::Pm0}};
  return m;
}

// Names of extern functions that ptxsim provides itself.
bool is_builtin_function(const std::string& n) {
  return n == "vprintf" || n == "__assertfail" || n == "malloc" || n == "free" ||
         n == "__nv_static_73__printf";
}

uint32_t var_bytes(const ast::VarDecl& v) {
  uint64_t elem = std::max<uint32_t>(v.type.bits, 8) / 8 * v.type.vector;
  uint64_t n = 1;
  for (uint64_t d : v.dims) n *= d;
  return uint32_t(elem * n);
}
uint32_t var_align(const ast::VarDecl& v) {
  uint32_t natural = std::max<uint32_t>(v.type.bits, 8) / 8 * v.type.vector;
  return std::max<uint32_t>(v.align ? v.align : natural, 1);
}

// Every identifier an operand names (a symbol, a function, a label, or a register named plainly).
void names_in(const ast::Operand& o, std::unordered_set<std::string>& out) {
  if ((o.kind == ast::Operand::Kind::Name || o.kind == ast::Operand::Kind::Address) && !o.name.empty()) out.insert(o.name);
  for (const auto& e : o.elems) names_in(e, out);
}

// For each entry of `m` (in order), the identifiers named by the instructions of the functions it
// reaches: itself and, transitively, every function one of them names (a call or a function address).
std::vector<std::unordered_set<std::string>> names_reached_by_entries(const ast::Module& m) {
  std::unordered_map<std::string, std::unordered_set<std::string>> named;  // function -> identifiers
  for (const auto& f : m.functions)
    for (const auto& st : f.body)
      if (st.kind == ast::Statement::Kind::Instr)
        for (const auto& o : st.instr.operands) names_in(o, named[f.name]);
  std::vector<std::unordered_set<std::string>> out;
  for (const auto& f : m.functions) {
    if (!f.is_entry || !f.has_body) continue;
    std::unordered_set<std::string> reached, fns{f.name};
    std::vector<std::string> work{f.name};
    while (!work.empty()) {
      const std::string fn = work.back();
      work.pop_back();
      for (const auto& n : named[fn]) {
        reached.insert(n);
        if (named.count(n) && fns.insert(n).second) work.push_back(n);
      }
    }
    out.push_back(std::move(reached));
  }
  return out;
}

}  // namespace

struct Decoder::Impl {
  Decoder& d;
  const ast::Module& m;
  Program& p;
  std::unordered_map<std::string, SymbolInfo> globals;  // module-scope variables
  std::unordered_map<std::string, uint32_t> entry_shared_end;  // entry -> end of the static .shared it uses

  // Per-function state.
  struct Scope {
    std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> regs;  // name → (slot, width)
    std::unordered_map<std::string, SymbolInfo> vars;
    std::unordered_map<std::string, uint32_t> labels;  // name → pc
    int parent = -1;
  };
  std::vector<Scope> scopes;
  std::vector<int> scope_stack;
  std::unordered_map<uint64_t, uint32_t> const_slots;
  std::map<std::pair<uint64_t, bool>, uint32_t> shared_slots;
  // `tbl: .branchtargets $L1, $L2;` — brx.idx names the table by its label.
  std::unordered_map<std::string, const ast::Instruction*> branch_tables;
  std::unordered_map<int, uint32_t> sreg_slots;
  std::vector<uint32_t> vector_reg_slots;  // the current function's (sim/exec/reg_init.h)
  // Register declarations of the current function, in order: the first decode records each one's
  // slot (kNoSlot for vector and 128-bit registers); the second takes the slot `shared_plan` gives
  // it, when it gives one (sim/exec/reg_alloc.h).
  std::vector<uint32_t> declared_slots;
  const std::vector<uint32_t>* shared_plan = nullptr;
  uint32_t shared_count = 0;
  const ast::Function* af = nullptr;

  Impl(Decoder& dd) : d(dd), m(dd.m_), p(*dd.prog_) {}

  [[noreturn]] void error(SrcLoc loc, const std::string& msg) { d.error(loc, msg); }

  uint32_t new_slots(Function& f, uint32_t n, const std::string& name) {
    uint32_t s = f.num_slots;
    f.num_slots += n;
    for (uint32_t i = 0; i < n; ++i) f.slot_names.push_back(n == 1 ? name : name + "[" + std::to_string(i) + "]");
    return s;
  }

  void header() {
    p.file_name = m.file_name;
    p.source = m.source;
    p.ptx_version = m.version_major * 10 + m.version_minor;
    bool have = false;
    for (auto& t : m.targets) {
      Target tt;
      if (Target::parse(t, tt)) {
        p.target = tt;
        have = true;
      }
    }
    if (!have) error(m.target_loc, "missing or unsupported .target (expected e.g. sm_90a or sm_100a)");
    if (m.address_size != 64) error(m.target_loc, ".address_size 32 is not supported; ptxsim simulates 64-bit addressing");
  }

  void module_variables() {
    uint64_t next_global = d.module_var_base;
    uint32_t shared_end = kSharedReserved;
    std::vector<const ast::VarDecl*> shared_vars, extern_shared;
    for (auto& v : m.globals) {
      if (v.space == ast::Space::Shared) (v.is_extern ? extern_shared : shared_vars).push_back(&v);
    }
    for (auto& f : m.functions)
      for (auto& s : f.body)
        if (s.kind == ast::Statement::Kind::Var && s.var.space == ast::Space::Shared)
          (s.var.is_extern ? extern_shared : shared_vars).push_back(&s.var);
    // Each kernel has its own shared memory: static variables that no kernel uses together may share
    // addresses (as ptxas lays out each kernel separately), so a module of many kernels needs, per
    // launch, only what its kernel uses. A variable is used by the entries whose reachable code names
    // it; one that no entry names, or that an initializer names, is kept apart from every other
    // (treated as used by all). Addresses stay module-wide (a .func names the same variable from every
    // kernel); with one kernel this is the plain declaration-order layout.
    const auto reached = names_reached_by_entries(m);
    std::unordered_set<std::string> in_initializers;  // generic(var) in a .global / .const initializer
    for (const auto& g : m.globals)
      for (const auto& iv : g.init)
        if (iv.kind == ast::InitValue::Kind::Symbol) in_initializers.insert(iv.symbol);
    struct Placed {
      uint32_t begin, end;
      std::vector<bool> users;
    };
    std::vector<Placed> placed;
    std::vector<uint32_t> entry_end(reached.size(), kSharedReserved);
    for (auto* v : shared_vars) {
      std::vector<bool> users(reached.size());
      for (size_t e = 0; e < reached.size(); ++e) users[e] = reached[e].count(v->name) > 0;
      if (in_initializers.count(v->name) || std::find(users.begin(), users.end(), true) == users.end())
        users.assign(reached.size(), true);
      const uint32_t bytes = var_bytes(*v);
      uint32_t at = uint32_t(align_up(kSharedReserved, var_align(*v)));
      for (bool moved = true; moved;) {
        moved = false;
        for (const Placed& q : placed) {
          bool shared_user = false;
          for (size_t e = 0; e < users.size() && !shared_user; ++e) shared_user = users[e] && q.users[e];
          if (shared_user && at < q.end && q.begin < at + bytes) {
            at = uint32_t(align_up(q.end, var_align(*v)));
            moved = true;
          }
        }
      }
      globals[v->name] = {Space::Shared, at, bytes, false};
      for (size_t e = 0; e < users.size(); ++e)
        if (users[e]) entry_end[e] = std::max(entry_end[e], at + bytes);
      shared_end = std::max(shared_end, at + bytes);
      placed.push_back({at, at + bytes, std::move(users)});
    }
    size_t entry = 0;
    for (const auto& f : m.functions)
      if (f.is_entry && f.has_body) entry_shared_end[f.name] = entry_end[entry++];
    uint32_t dyn_align = 16;
    for (auto* v : extern_shared) dyn_align = std::max(dyn_align, var_align(*v));
    p.static_shared_end = shared_end;
    p.dynamic_shared_align = dyn_align;
    // Dynamic shared memory starts after the launched kernel's own static variables (as on the
    // hardware, where each kernel is laid out alone), so its address is filled in per launch.
    for (auto* v : extern_shared) globals[v->name] = {Space::Shared, 0, 0, false, true};

    for (auto& v : m.globals) {
      if (v.space != ast::Space::Global && v.space != ast::Space::Const) continue;
      if (v.is_extern) error(v.loc, "extern variable '" + v.name + "' is not defined in this module");
      next_global = align_up(next_global, std::max<uint32_t>(var_align(v), 16));
      ModuleVariable mv;
      mv.name = v.name;
      mv.address = next_global;
      mv.is_const = v.space == ast::Space::Const;
      mv.init.assign(std::max<uint32_t>(var_bytes(v), 1), 0);
      globals[v.name] = {Space::Global, next_global, var_bytes(v), false};
      next_global += mv.init.size();
      p.module_vars.push_back(std::move(mv));
    }
    // Initialisers may name other variables, so fill them once every address is known.
    size_t mi = 0;
    for (auto& v : m.globals) {
      if (v.space != ast::Space::Global && v.space != ast::Space::Const) continue;
      ModuleVariable& mv = p.module_vars[mi++];
      uint32_t elem = std::max<uint32_t>(v.type.bits, 8) / 8;
      size_t off = 0;
      for (auto& iv : v.init) {
        uint64_t val = uint64_t(iv.value);
        if (iv.kind == ast::InitValue::Kind::Symbol) {
          auto it = globals.find(iv.symbol);
          if (it == globals.end()) error(v.loc, "initializer names unknown symbol '" + iv.symbol + "'");
          val = it->second.address + uint64_t(iv.value);
          // A module variable is shared by every CTA: a shared address in it is CTA rank 0's, and a
          // dynamic variable's is placed after the static memory of all kernels.
          if (it->second.dynamic) val += align_up(p.static_shared_end, p.dynamic_shared_align);
          if (it->second.space == Space::Shared && iv.generic) val += kSharedWindow;
          // nvcc writes a pointer inside a byte array as masked pieces: 0xFF00(generic(x)+8).
          if (iv.mask) val = (val & iv.mask) >> std::countr_zero(iv.mask);
        } else if (iv.kind == ast::InitValue::Kind::Float64Bits && v.type.name == "f32") {
          val = std::bit_cast<uint32_t>(float(std::bit_cast<double>(val)));
        }
        if (off + elem > mv.init.size()) error(v.loc, "too many initializer values for '" + v.name + "'");
        std::memcpy(mv.init.data() + off, &val, std::min<uint32_t>(elem, 8));
        off += elem;
      }
    }
  }

  void declare_functions() {
    for (auto& f : m.functions) {
      if (p.function_index.count(f.name)) {
        Function& prev = p.functions[p.function_index[f.name]];
        if (f.has_body && prev.has_body) error(f.loc, "function '" + f.name + "' defined twice");
        prev.has_body |= f.has_body;
        prev.is_builtin = !prev.has_body && is_builtin_function(f.name);
        prev.perf = f.has_body ? f.perf : prev.perf;
        continue;
      }
      p.function_index[f.name] = uint32_t(p.functions.size());
      Function fn;
      fn.name = f.name;
      fn.is_entry = f.is_entry;
      fn.is_builtin = !f.has_body && is_builtin_function(f.name);
      fn.has_body = f.has_body;
      fn.perf = f.perf;
      fn.decl_line = f.loc.line;
      if (auto it = entry_shared_end.find(f.name); it != entry_shared_end.end()) fn.static_shared_end = it->second;
      p.functions.push_back(std::move(fn));
    }
  }

  // ---- per function -------------------------------------------------------------------------

  SymbolInfo* find_var(const std::string& name) {
    for (int s = scope_stack.empty() ? -1 : scope_stack.back(); s >= 0; s = scopes[s].parent) {
      auto it = scopes[s].vars.find(name);
      if (it != scopes[s].vars.end()) return &it->second;
    }
    auto it = globals.find(name);
    return it == globals.end() ? nullptr : &it->second;
  }
  const std::pair<uint32_t, uint32_t>* find_reg(const std::string& name) {
    for (int s = scope_stack.empty() ? -1 : scope_stack.back(); s >= 0; s = scopes[s].parent) {
      auto it = scopes[s].regs.find(name);
      if (it != scopes[s].regs.end()) return &it->second;
    }
    return nullptr;
  }
  const uint32_t* find_label(const std::string& name) {
    for (int s = scope_stack.empty() ? -1 : scope_stack.back(); s >= 0; s = scopes[s].parent) {
      auto it = scopes[s].labels.find(name);
      if (it != scopes[s].labels.end()) return &it->second;
    }
    return nullptr;
  }

  uint32_t const_slot(Function& f, uint64_t v) {
    auto it = const_slots.find(v);
    if (it != const_slots.end()) return it->second;
    uint32_t s = new_slots(f, 1, "const");
    f.consts.emplace_back(s, v);
    const_slots[v] = s;
    return s;
  }

  // A slot holding `v` plus the running CTA's shared window (and, when `dyn`, the start of the
  // launched kernel's dynamic shared memory): shared addresses differ between the CTAs of a cluster.
  uint32_t shared_slot(Function& f, uint64_t v, bool dyn) {
    auto it = shared_slots.find({v, dyn});
    if (it != shared_slots.end()) return it->second;
    uint32_t s = new_slots(f, 1, dyn ? "dynamic shared address" : "shared address");
    f.shared_slots.push_back({s, v, dyn});
    shared_slots[{v, dyn}] = s;
    return s;
  }

  uint32_t sreg_slot(Function& f, Sreg r, const std::string& name) {
    auto it = sreg_slots.find(int(r));
    if (it != sreg_slots.end()) return it->second;
    uint32_t s = new_slots(f, 1, name);
    f.sregs.emplace_back(s, r);
    sreg_slots[int(r)] = s;
    return s;
  }

  uint32_t frame_alloc(Function& f, const ast::VarDecl& v) {
    uint32_t off = uint32_t(align_up(f.frame_bytes, var_align(v)));
    f.frame_bytes = off + std::max<uint32_t>(var_bytes(v), 1);
    return off;
  }

  Operand symbol_operand(const SymbolInfo& s, int64_t extra) {
    Operand o;
    o.kind = Operand::Kind::Imm;
    o.space = s.space;
    o.imm = int64_t(s.address) + extra;
    o.frame_rel = s.frame_rel;
    o.dyn_shared = s.dynamic;
    o.width = s.bytes;
    return o;
  }

  // Converts one source-level operand. `float32` says an F64 literal feeds a 32-bit float.
  Operand conv(Function& f, const ast::Operand& a, bool float32) {
    using K = ast::Operand::Kind;
    Operand o;
    o.neg = a.negated;
    switch (a.kind) {
      case K::Reg:
      case K::Name: {
        std::string name = a.name;
        if (auto* r = find_reg(name)) {
          o.kind = Operand::Kind::Reg;
          o.slot = r->first;
          o.width = r->second;
          if (!a.component.empty()) {
            static const std::string comps = "xyzw";
            size_t ci = comps.find(a.component[0]);
            if (a.component.size() != 1 || ci == std::string::npos) error(a.loc, "bad vector component '." + a.component + "'");
            o.slot += uint32_t(ci);
          }
          return o;
        }
        std::string full = a.component.empty() ? name : name + "." + a.component;
        auto ss = static_sregs().find(full);
        if (ss != static_sregs().end()) {
          o.kind = Operand::Kind::Reg;
          o.slot = sreg_slot(f, ss->second, full);
          o.width = 32;
          return o;
        }
        auto ds = dynamic_sregs().find(full);
        if (ds != dynamic_sregs().end()) {
          // Only mov reads these; its binder sees the marker in `imm` and picks the clock reader.
          o.kind = Operand::Kind::Imm;
          o.slot = const_slot(f, 0);
          o.space = Space::Reg;
          o.imm = int64_t(ds->second);
          o.width = 0xFFFF;  // marks a dynamic special register
          return o;
        }
        if (auto bt = branch_tables.find(name); bt != branch_tables.end()) {
          // A .branchtargets table: a vector of label operands.
          std::vector<Operand> targets;
          for (auto& t : bt->second->operands) {
            const uint32_t* pc = find_label(t.name);
            if (!pc) error(t.loc, "unknown label '" + t.name + "' in .branchtargets");
            Operand lo;
            lo.kind = Operand::Kind::Label;
            lo.slot = *pc;
            targets.push_back(lo);
          }
          o.kind = Operand::Kind::Vec;
          o.count = uint16_t(targets.size());
          o.slot = uint32_t(f.vec_pool.size());
          f.vec_pool.insert(f.vec_pool.end(), targets.begin(), targets.end());
          return o;
        }
        if (auto* l = find_label(name)) {
          o.kind = Operand::Kind::Label;
          o.slot = *l;
          return o;
        }
        if (auto* s = find_var(name)) {
          // The slot holds the address (frame variables: relative to the frame, which the
          // semantics add through Operand::frame_rel).
          o = symbol_operand(*s, a.value);  // `sym+8` keeps its offset in value
          o.slot = o.space == Space::Shared ? shared_slot(f, uint64_t(o.imm), o.dyn_shared)
                                            : const_slot(f, uint64_t(o.imm));
          return o;
        }
        auto fi = p.function_index.find(name);
        if (fi != p.function_index.end()) {
          o.kind = Operand::Kind::Func;
          o.slot = fi->second;
          return o;
        }
        if (!name.empty() && name[0] == '%' && name.size() > 1)
          error(a.loc, "unknown register or special register '" + full + "'");
        error(a.loc, "unknown symbol '" + full + "'");
      }
      case K::Int:
        o.kind = Operand::Kind::Imm;
        o.imm = a.value;
        o.slot = const_slot(f, uint64_t(a.value));
        return o;
      case K::F32:
        o.kind = Operand::Kind::Imm;
        o.imm = a.value & 0xffffffff;
        o.slot = const_slot(f, uint64_t(o.imm));
        return o;
      case K::F64: {
        o.kind = Operand::Kind::Imm;
        uint64_t bits = uint64_t(a.value);
        if (float32) bits = std::bit_cast<uint32_t>(float(std::bit_cast<double>(bits)));
        o.imm = int64_t(bits);
        o.slot = const_slot(f, bits);
        return o;
      }
      case K::Address: {
        o.kind = Operand::Kind::Addr;
        o.imm = a.value;
        o.slot = f.zero_slot;
        if (!a.name.empty()) {
          if (auto* r = find_reg(a.name)) {
            o.slot = r->first;
            o.width = r->second;
          } else if (auto* s = find_var(a.name)) {
            o.space = s->space;
            o.imm += int64_t(s->address);
            o.frame_rel = s->frame_rel;
            o.dyn_shared = s->dynamic;
            o.width = s->bytes;
            // A shared variable's address is the running CTA's: the base slot holds its window.
            if (s->space == Space::Shared) o.slot = shared_slot(f, 0, s->dynamic);
          } else if (auto ss = static_sregs().find(a.name); ss != static_sregs().end()) {
            o.slot = sreg_slot(f, ss->second, a.name);
          } else {
            error(a.loc, "unknown register or symbol '" + a.name + "' in address");
          }
        }
        if (!a.elems.empty()) {  // `[tensorMap, {c0, c1}]`: the extra elements, vectors flattened
          std::vector<Operand> extra;
          for (auto& e : a.elems) {
            if (e.kind == K::Vector)
              for (auto& x : e.elems) extra.push_back(conv(f, x, false));
            else
              extra.push_back(conv(f, e, false));
          }
          o.aux = uint32_t(f.vec_pool.size());
          o.count = uint16_t(extra.size());
          f.vec_pool.insert(f.vec_pool.end(), extra.begin(), extra.end());
        }
        return o;
      }
      case K::Vector:
      case K::List:
      case K::Pair: {
        o.kind = Operand::Kind::Vec;
        o.count = uint16_t(a.elems.size());
        std::vector<Operand> elems;
        for (auto& e : a.elems) elems.push_back(conv(f, e, float32));
        o.slot = uint32_t(f.vec_pool.size());
        f.vec_pool.insert(f.vec_pool.end(), elems.begin(), elems.end());
        return o;
      }
      case K::Sink:
        o.kind = Operand::Kind::Sink;
        o.slot = f.sink_slot;
        return o;
    }
    error(a.loc, "unsupported operand");
  }

  void decode_instruction(Function& f, const ast::Instruction& ai) {
    const InstrTable& t = InstrTable::get();
    // Split "cp.async.bulk.tensor.2d.shared::cluster" into parts at the dots.
    std::vector<std::string_view> parts;
    std::string_view op = ai.opcode;
    size_t i = 0;
    while (i <= op.size()) {
      size_t j = op.find('.', i);
      if (j == std::string_view::npos) j = op.size();
      parts.push_back(op.substr(i, j - i));
      i = j + 1;
    }
    const std::vector<uint16_t>* forms = nullptr;
    size_t k = std::min(parts.size(), t.opcode_max_parts());
    std::string base;
    for (; k > 0; --k) {
      base.assign(op.substr(0, size_t(parts[k - 1].data() + parts[k - 1].size() - op.data())));
      forms = t.find(base);
      if (forms) break;
    }
    if (!forms) error(ai.loc, "unknown instruction '" + std::string(parts[0]) + "'");

    // A row whose modifier list is "*" is a placeholder for a family not simulated yet: it accepts
    // any modifier, so the instruction reaches its binder (which reports it as unimplemented).
    bool wildcard = false;
    for (uint16_t fi : *forms) wildcard |= std::string_view(t.forms()[fi].mods) == "*";
    std::vector<int> mod_ids;
    for (size_t q = k; q < parts.size(); ++q) {
      std::string tok = "." + std::string(parts[q]);
      int id = t.mod_id(tok);
      if (id < 0 && wildcard) continue;
      if (id < 0) error(ai.loc, "unknown modifier '" + tok + "' for instruction '" + base + "'");
      mod_ids.push_back(id);
    }
    // First form of this opcode that accepts every modifier written.
    int chosen = -1;
    std::string why;
    for (uint16_t fi : *forms) {
      if (std::string_view(t.forms()[fi].mods) == "*") {
        chosen = fi;
        break;
      }
      bool ok = true;
      for (int id : mod_ids)
        if (!t.allows(fi, id, nullptr)) {
          ok = false;
          if (why.empty()) why = "unexpected modifier '" + t.mod(id).token + "' for instruction '" + base + "'";
          break;
        }
      if (ok) {
        chosen = fi;
        break;
      }
    }
    if (chosen < 0) error(ai.loc, why);
    const FormSpec& fs = t.forms()[size_t(chosen)];
    if (!target_satisfies(p.target, fs.targets))
      error(ai.loc, "Instruction '" + base + "' not supported on .target '" + p.target.name() + "'");
    for (int id : mod_ids) {
      // A gate is "sm_XX[|...]" optionally followed by ",ptxNN" (a minimum PTX ISA version ×10).
      std::string_view req;
      t.allows(uint16_t(chosen), id, &req);
      if (req.empty()) continue;
      std::string_view tgt = req, ver;
      if (size_t comma = req.find(','); comma != std::string_view::npos) {
        tgt = req.substr(0, comma);
        ver = req.substr(comma + 1);
      }
      if (!tgt.empty() && !target_satisfies(p.target, tgt))
        error(ai.loc, "Modifier '" + t.mod(id).token + "' of instruction '" + base +
                          "' not supported on .target '" + p.target.name() + "'");
      if (ver.size() > 3 && ver.substr(0, 3) == "ptx") {
        uint32_t need = uint32_t(std::stoul(std::string(ver.substr(3))));
        if (p.ptx_version < need)
          error(ai.loc, "Modifier '" + t.mod(id).token + "' of instruction '" + base + "' requires PTX ISA .version " +
                            std::to_string(need / 10) + "." + std::to_string(need % 10) + " or later");
      }
    }
    if (p.ptx_version < fs.min_ptx)
      error(ai.loc, "Instruction '" + base + "' requires PTX ISA .version " +
                        std::to_string(fs.min_ptx / 10) + "." + std::to_string(fs.min_ptx % 10) + " or later");

    Instr in;
    in.form = uint16_t(chosen);
    in.line = ai.loc.line;
    in.col = ai.loc.col;
    in.flags = fs.flags;
    for (int id : mod_ids) {
      in.mods.set(size_t(id));
      DType ty = t.mod(id).type;
      if (ty != DType::None) {
        if (in.ntypes == std::size(in.types)) error(ai.loc, "too many type modifiers");
        in.types[in.ntypes++] = ty;
      }
      if (t.mod(id).token == ".aligned") in.flags |= kFlagAligned;
    }
    if (ai.has_guard) {
      auto* r = find_reg(ai.guard);
      if (!r) error(ai.loc, "unknown guard predicate '" + ai.guard + "'");
      in.guard = r->first;
      in.guard_neg = ai.guard_negated;
    }
    if (ai.operands.size() > std::size(in.op))
      error(ai.loc, "too many operands for instruction '" + base + "'");
    bool f32 = in.ntypes > 0 && (in.types[0] == DType::F32 || in.types[0] == DType::TF32);
    for (auto& a : ai.operands) in.op[in.nops++] = conv(f, a, f32);

    Binder b{in, fs, ai, d};
    fs.bind(b);
    if (!in.fn) error(ai.loc, "internal error: binder for '" + base + "' chose no semantics");
    f.code.push_back(in);
  }

  // Decodes `f` once with a slot per register, then, when registers may share slots
  // (sim/exec/reg_alloc.h), decodes it again from its declared state giving them the shared slots:
  // every binder then sees the final slots, whatever it derives from them.
  void decode_function(const ast::Function& a, Function& f) {
    const Function declared = f;
    shared_plan = nullptr;
    decode_body(a, f);
    if (d.share_slots) {
      std::vector<uint8_t> candidate(f.num_slots, 0);
      for (uint32_t s : declared_slots)
        if (s != kNoSlot) candidate[s] = 1;
      const SlotSharing sharing = share_register_slots(f, candidate);
      if (sharing.count < sharing.members) {
        std::vector<uint32_t> plan(declared_slots.size(), kNoSlot);
        for (size_t k = 0; k < plan.size(); ++k)
          if (declared_slots[k] != kNoSlot) plan[k] = sharing.shared[declared_slots[k]];
        f = declared;
        shared_plan = &plan;
        shared_count = sharing.count;
        decode_body(a, f);
        shared_plan = nullptr;
      }
    }
    f.zero_slots = must_zero_slots(f, vector_reg_slots);
  }

  void decode_body(const ast::Function& a, Function& f) {
    af = &a;
    d.cur_ = &f;
    scopes.clear();
    scope_stack.clear();
    const_slots.clear();
    shared_slots.clear();
    sreg_slots.clear();
    vector_reg_slots.clear();
    declared_slots.clear();
    if (shared_plan) {
      // The shared slots come first; every other slot is numbered after them.
      f.num_slots = shared_count;
      f.slot_names.assign(shared_count, std::string());
    }
    f.zero_slot = const_slot(f, 0);
    f.sink_slot = new_slots(f, 2, "_");  // two wide so a 128-bit sink write stays inside

    // Root scope: parameters.
    scopes.push_back({});
    scope_stack.push_back(0);
    if (f.is_entry) {
      uint32_t off = 0;
      for (auto& pd : a.params) {
        if (pd.space != ast::Space::Param) error(pd.loc, "kernel parameter '" + pd.name + "' must be in .param space");
        off = uint32_t(align_up(off, var_align(pd)));
        ParamInfo pi;
        pi.name = pd.name;
        pi.offset = off;
        pi.size = var_bytes(pd);
        pi.align = var_align(pd);
        pi.type = pd.type.name;
        pi.is_pointer = pd.ptr_space != ast::Space::None;
        f.info.params.push_back(pi);
        scopes[0].vars[pd.name] = {Space::Param, off, pi.size, false};
        off += pi.size;
      }
      f.info.name = f.name;
      f.info.param_bytes = off;
    } else {
      for (auto& r : a.returns) {
        if (r.space != ast::Space::Param) error(r.loc, "only .param return values are supported");
        uint32_t o = frame_alloc(f, r);
        f.ret_offsets.push_back(o);
        f.ret_sizes.push_back(var_bytes(r));
        scopes[0].vars[r.name] = {Space::Local, o, var_bytes(r), true};
      }
      for (auto& pd : a.params) {
        if (pd.space != ast::Space::Param) error(pd.loc, "only .param function parameters are supported");
        uint32_t o = frame_alloc(f, pd);
        f.param_offsets.push_back(o);
        f.param_sizes.push_back(var_bytes(pd));
        scopes[0].vars[pd.name] = {Space::Local, o, var_bytes(pd), true};
      }
    }

    branch_tables.clear();
    for (size_t i = 0; i + 1 < a.body.size(); ++i)
      if (a.body[i].kind == ast::Statement::Kind::Label && a.body[i + 1].kind == ast::Statement::Kind::Pragma &&
          a.body[i + 1].instr.opcode == ".branchtargets")
        branch_tables[a.body[i].label.name] = &a.body[i + 1].instr;
    // Pass 1: scopes and labels (labels may be used before they appear).
    {
      std::vector<int> stack{0};
      uint32_t pc = 0;
      for (auto& s : a.body) {
        switch (s.kind) {
          case ast::Statement::Kind::ScopeOpen: {
            Scope sc;
            sc.parent = stack.back();
            scopes.push_back(std::move(sc));
            stack.push_back(int(scopes.size() - 1));
            break;
          }
          case ast::Statement::Kind::ScopeClose:
            if (stack.size() <= 1) error(s.loc, "unbalanced '}'");
            stack.pop_back();
            break;
          case ast::Statement::Kind::Label: {
            auto& lbl = scopes[stack.back()].labels;
            if (lbl.count(s.label.name)) error(s.loc, "duplicate label '" + s.label.name + "'");
            lbl[s.label.name] = pc;
            break;
          }
          case ast::Statement::Kind::Instr:
            ++pc;
            break;
          default:
            break;
        }
      }
    }
    // Pass 2: declarations and instructions, walking the same scopes in the same order.
    int next_scope = 1;
    for (auto& s : a.body) {
      switch (s.kind) {
        case ast::Statement::Kind::ScopeOpen:
          scope_stack.push_back(next_scope++);
          break;
        case ast::Statement::Kind::ScopeClose:
          scope_stack.pop_back();
          break;
        case ast::Statement::Kind::Reg: {
          uint32_t w = std::max<uint32_t>(s.reg.type.bits, 1);
          uint32_t per = (w > 64 ? 2 : 1) * s.reg.type.vector;
          for (auto& n : s.reg.names) {
            auto declare = [&](const std::string& nm) {
              auto& regs = scopes[scope_stack.back()].regs;
              if (regs.count(nm)) error(s.loc, "register '" + nm + "' declared twice in the same scope");
              const size_t k = declared_slots.size();
              const uint32_t shared = shared_plan ? (*shared_plan)[k] : kNoSlot;
              uint32_t first;
              if (shared != kNoSlot) {
                first = shared;
                // Diagnostics name a shared slot by the first register given it.
                if (f.slot_names[first].empty()) f.slot_names[first] = nm;
              } else {
                first = new_slots(f, per, nm);
              }
              declared_slots.push_back(per == 1 ? first : kNoSlot);  // per == 1: scalar, 64 bits or less
              regs[nm] = {first, w};
              // A vector register's elements are not modelled by must_zero_slots: always zeroed.
              if (s.reg.type.vector > 1)
                for (uint32_t i = 0; i < per; ++i) vector_reg_slots.push_back(first + i);
            };
            if (n.range == 0) declare(n.name);
            else
              for (uint32_t q = 0; q < n.range; ++q) declare(n.name + std::to_string(q));
          }
          break;
        }
        case ast::Statement::Kind::Var: {
          const ast::VarDecl& v = s.var;
          auto& vars = scopes[scope_stack.back()].vars;
          switch (v.space) {
            case ast::Space::Local:
            case ast::Space::Param:
              vars[v.name] = {Space::Local, frame_alloc(f, v), var_bytes(v), true};
              break;
            case ast::Space::Shared:
              break;  // laid out with the module's shared variables
            default:
              error(v.loc, "variables in this state space are not supported inside a function body");
          }
          break;
        }
        case ast::Statement::Kind::Instr:
          decode_instruction(f, s.instr);
          break;
        default:
          break;
      }
    }
    // Falling off the end of the code is handled by the engine as a return.
    f.frame_bytes = uint32_t(align_up(f.frame_bytes, 16));
  }

  void run() {
    header();
    module_variables();
    declare_functions();
    for (auto& a : m.functions) {
      if (!a.has_body) continue;
      Function& f = p.functions[p.function_index[a.name]];
      decode_function(a, f);
    }
  }
};

Decoder::Decoder(const ast::Module& m) : m_(m), prog_(std::make_unique<Program>()) {}

std::unique_ptr<Program> Decoder::run() {
  Impl impl(*this);
  impl.run();
  for (Function& f : prog_->functions)
    if (f.is_entry && f.has_body) f.order_dependence = order_dependence(*prog_, f);
  return std::move(prog_);
}

void Decoder::error(SrcLoc loc, const std::string& msg) const {
  Diagnostic dg;
  dg.file = m_.file_name;
  dg.loc = loc;
  dg.message = msg;
  dg.source_line = source_line_of(m_.source, loc.line);
  throw PtxError(std::move(dg));
}

uint32_t Decoder::shared_slot(uint64_t value, bool dynamic) {
  for (auto& s : cur_->shared_slots)
    if (s.value == value && s.dynamic == dynamic) return s.slot;
  uint32_t s = cur_->num_slots++;
  cur_->slot_names.push_back("shared address");
  cur_->shared_slots.push_back({s, value, dynamic});
  return s;
}

uint32_t Decoder::const_slot(uint64_t value) {
  // Binders rarely need new constants; a linear scan keeps the Impl private.
  for (auto& [s, v] : cur_->consts)
    if (v == value) return s;
  uint32_t s = cur_->num_slots++;
  cur_->slot_names.push_back("const");
  cur_->consts.emplace_back(s, value);
  return s;
}

// ---- Binder ----------------------------------------------------------------------------------

bool Binder::has(std::string_view mod) const {
  int id = InstrTable::get().mod_id(mod);
  return id > 0 && in.mods.test(size_t(id));
}

int64_t Binder::imm(size_t i) const {
  if (i >= in.nops || in.op[i].kind != Operand::Kind::Imm)
    error("operand " + std::to_string(i + 1) + " of '" + src.opcode + "' must be an immediate");
  return in.op[i].imm;
}

uint8_t Binder::rounding() const {
  static const char* names[] = {"", ".rn", ".rz", ".rm", ".rp", ".rna", ".rni", ".rzi", ".rmi", ".rpi", ".rs"};
  uint8_t r = kRndNone;
  for (uint8_t i = 1; i < std::size(names); ++i)
    if (has(names[i])) {
      if (r != kRndNone) error("more than one rounding modifier");
      r = i;
    }
  return r;
}

void Binder::error(const std::string& msg) const { dec.error(src.loc, msg); }

void Binder::unimplemented(const std::string& detail) const {
  try {
    dec.error(src.loc, "unimplemented: '" + src.opcode + "'" + (detail.empty() ? "" : " (" + detail + ")") +
                           " is recognised but not simulated yet");
  } catch (PtxError& e) {
    e.unimplemented = true;
    throw;
  }
}

void Binder::require_ops(size_t lo, size_t hi) const {
  if (in.nops < lo || in.nops > hi)
    error("'" + src.opcode + "' expects " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
          " operands, got " + std::to_string(in.nops));
}

void Binder::require_types(size_t n) const {
  if (in.ntypes != n)
    error("'" + src.opcode + "' expects " + std::to_string(n) + " type modifier" + (n == 1 ? "" : "s"));
}

}  // namespace ptxsim
