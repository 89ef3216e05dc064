#include "tools/cuda_shim/shim.h"

#include <cxxabi.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string_view>

#include "sim/exec/address_space.h"
#include "sim/exec/program.h"
#include "tools/cuda_shim/fatbin.h"

namespace ptxsim::cuda_shim {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// "vadd(float const*, int)" for a mangled kernel name, so that messages read like the source.
std::string pretty(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? std::string(d) : name;
  std::free(d);
  return out;
}

std::string arch_name(uint32_t sm) { return "sm_" + std::to_string(sm) + "a"; }

void print_run_report(const RunResult& r) {
  bool report_printed = false;  // the engine's report is often the cause's formatted diagnostic
  for (const Diagnostic& d : r.diagnostics) {
    std::string s = d.format();
    std::cerr << s << (s.empty() || s.back() != '\n' ? "\n" : "");
    report_printed = report_printed || s == r.report;
  }
  if (!r.report.empty() && !report_printed) std::cerr << r.report << (r.report.back() != '\n' ? "\n" : "");
  std::cerr.flush();
}

// The CUDA error a kernel fault surfaces as, from the kind the engine puts before the message.
int fault_status(const RunResult& r) {
  std::string m = r.diagnostics.empty() ? "" : r.diagnostics[0].message;
  auto starts = [&](const char* k) { return m.rfind(k, 0) == 0; };
  if (starts("assertion")) return kAssert;
  if (starts("illegal address")) return kIllegalAddress;
  if (starts("misaligned address")) return kMisalignedAddress;
  return kLaunchFailure;  // trap, stack overflow, misuse of a collective, ...
}

// Blanks out the .entry whose definition contains `line` (1-based), keeping the line numbering,
// and returns its name; "" if `line` is not inside an entry.
std::string remove_entry_at(std::string& text, uint32_t line) {
  if (line == 0) return "";
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  auto line_text = [&](size_t l) {
    size_t b = starts[l], e = l + 1 < starts.size() ? starts[l + 1] : text.size();
    return std::string_view(text).substr(b, e - b);
  };
  for (size_t l = 0; l < starts.size(); ++l) {
    std::string_view t = line_text(l);
    size_t at = t.find(".entry ");
    if (at == std::string_view::npos || t.substr(0, at).find("//") != std::string_view::npos) continue;
    size_t nb = t.find_first_not_of(" \t", at + 7), ne = t.find_first_of(" \t(\r\n", nb);
    std::string name(t.substr(nb, ne - nb));
    int depth = 0;
    bool opened = false;
    size_t end = l;
    for (; end < starts.size(); ++end) {
      for (char c : line_text(end)) {
        if (c == '{') ++depth, opened = true;
        if (c == '}') --depth;
      }
      if (opened && depth == 0) break;
    }
    if (line - 1 >= l && line - 1 <= end) {
      for (size_t k = l; k <= end && k < starts.size(); ++k)
        for (size_t i = starts[k]; i < (k + 1 < starts.size() ? starts[k + 1] - 1 : text.size()); ++i) text[i] = ' ';
      return name;
    }
    l = end;
  }
  return "";
}

// A grid-wide barrier (cooperative_groups::this_grid().sync()) finds its workspace through
// %envreg1 (high half) and %envreg2 (low half), which the driver sets for cooperative launches.
// A cooperative launch runs every CTA of the grid resident together (LaunchConfig::co_resident)
// with a zeroed workspace; any other launch runs the CTAs of one cluster at a time, so a kernel (or
// any .func it could call) that reads them is refused with a clear message instead of spinning.
bool uses_grid_sync(const Program& prog, const ptxsim::Function& entry) {
  auto reads_workspace = [](const ptxsim::Function& f) {
    for (const auto& [slot, sreg] : f.sregs)
      if (sreg == Sreg(int(Sreg::EnvReg0) + 1) || sreg == Sreg(int(Sreg::EnvReg0) + 2)) return true;
    return false;
  };
  if (reads_workspace(entry)) return true;
  for (const ptxsim::Function& f : prog.functions)
    if (!f.is_entry && reads_workspace(f)) return true;
  return false;
}

}  // namespace

const ptxsim::Function* Function::entry() const {
  if (!module || !module->program) return nullptr;
  const ptxsim::Function* f = module->program->find(name);
  return f && f->is_entry ? f : nullptr;
}

Shim& Shim::get() {
  static Shim* s = new Shim();  // never destroyed: programs call the API from atexit handlers
  return *s;
}

Shim::Shim() {
  std::string dev = env("PTXSIM_DEVICE");
  device = find_device(dev.empty() ? "h100" : dev);
  if (!device) {
    std::cerr << "ptxsim: PTXSIM_DEVICE=" << dev << " is not a simulated device (h100, h200, b200); using h100\n";
    device = find_device("h100");
  }
  sm = device->cc_major * 10;
  std::string arch = env("PTXSIM_ARCH");
  if (arch == "sm_90a") sm = 90;
  else if (arch == "sm_100a") sm = 100;
  else if (!arch.empty()) std::cerr << "ptxsim: PTXSIM_ARCH=" << arch << " is not sm_90a or sm_100a; using " << arch_name(sm) << "\n";
  if (auto v = env("PTXSIM_MAX_INSTRUCTIONS"); !v.empty()) limits.max_instructions = std::strtoull(v.c_str(), nullptr, 0);
  if (auto v = env("PTXSIM_MAX_SECONDS"); !v.empty()) limits.max_seconds = std::strtod(v.c_str(), nullptr);
  if (auto v = env("PTXSIM_SEED"); !v.empty()) limits.schedule_seed = std::strtoull(v.c_str(), nullptr, 0);
  limits.vary_warps = env("PTXSIM_VARY_WARPS") == "1";  // ptxsim exec --explore
  if (auto v = env("PTXSIM_THREADS"); !v.empty()) limits.threads = uint32_t(std::strtoul(v.c_str(), nullptr, 0));
  print_stats = !env("PTXSIM_STATS").empty();
}

int Shim::unsupported(const char* name) {
  std::lock_guard<std::recursive_mutex> lock(mu);
  static std::set<std::string> said;
  if (said.insert(name).second) std::fprintf(stderr, "ptxsim: %s is not supported\n", name);
  return kNotSupported;
}

Module* Shim::add_fatbin(const void* image) {
  auto m = std::make_unique<Module>();
  m->label = "fatbin" + std::to_string(modules_.size() + 1) + "." + program_invocation_short_name;
  m->image = image;
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

Module* Shim::add_ptx(std::string text) {
  auto m = std::make_unique<Module>();
  m->label = "module" + std::to_string(modules_.size() + 1);
  m->ptx_text = std::move(text);
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

void Shim::remove_module(Module* m) {
  if (m->program)
    for (const ModuleVariable& mv : m->program->module_vars) memory.free(mv.address);
  for (auto& f : functions_)
    if (f->module == m) f->module = nullptr;
  for (auto& v : variables_)
    if (v->module == m) v->module = nullptr;
  std::erase_if(modules_, [&](auto& p) { return p.get() == m; });
}

// Each module's variables get their own 4 GiB range above kModuleVarBase, below GlobalMemory's
// allocations, so that several translation units' __device__ variables coexist.
uint64_t Shim::module_var_base(Module& m) {
  if (!m.var_slot) m.var_slot = ++next_var_slot_;
  return kModuleVarBase + (m.var_slot - 1) * (uint64_t(1) << 32);
}

int Shim::load(Module& m) {
  if (m.load_attempted) return m.load_status;
  m.load_attempted = true;
  std::string text = m.ptx_text, file = m.label + ".ptx";
  try {
    if (m.image) {
      std::vector<FatbinEntry> entries = parse_fatbin(m.image);
      std::string available;
      text = select_ptx(entries, sm, available);
      if (text.empty()) {
        m.load_status = kNoBinaryForGpu;
        m.load_error = "has no PTX for " + arch_name(sm) + ": recompile with -gencode arch=compute_" +
                       std::to_string(sm) + "a,code=compute_" + std::to_string(sm) + "a (" + m.label + " carries " +
                       (available.empty() ? "nothing" : available) + ")";
        return m.load_status;
      }
      file = m.label + ".compute_" + std::to_string(sm) + "a.ptx";
    }
    if (auto dir = env("PTXSIM_DUMP_PTX"); !dir.empty()) {  // so that file:line in reports can be read
      file = dir + "/" + file;
      std::ofstream out(file);
      out << text;
      if (!out.flush()) std::fprintf(stderr, "ptxsim: PTXSIM_DUMP_PTX: cannot write %s\n", file.c_str());
    }
    for (;;) {
      try {
        m.program = load_program(text, file, module_var_base(m));
        break;
      } catch (const PtxError& e) {
        // A kernel ptxsim cannot simulate must not take the module's other kernels with it.
        std::string kernel = m.broken_kernels.size() < 1000 ? remove_entry_at(text, e.diag.loc.line) : "";
        if (kernel.empty()) throw;
        m.broken_kernels[kernel] = e.diag.format();
      }
    }
  } catch (const PtxError& e) {
    m.load_status = kInvalidPtx;
    m.load_error = "cannot be simulated:\n" + e.diag.format();
    return m.load_status;
  } catch (const std::exception& e) {
    m.load_status = kInvalidPtx;
    m.load_error = std::string("cannot be read: ") + e.what();
    return m.load_status;
  }
  for (const ModuleVariable& mv : m.program->module_vars) {
    if (!memory.allocate_at(mv.address, mv.init.size(), mv.name)) {
      m.load_status = kOutOfMemory;
      m.load_error = "has more than 4 GiB of __device__/__constant__ variables ('" + mv.name + "' does not fit)";
      return m.load_status;
    }
    memory.write(mv.address, mv.init.data(), mv.init.size());
  }
  return kOk;
}

Function* Shim::add_function(Module* m, std::string name, const void* host_handle) {
  functions_.push_back(std::make_unique<Function>());
  Function* f = functions_.back().get();
  f->module = m;
  f->name = std::move(name);
  if (host_handle) host_functions_[host_handle] = f;
  host_functions_[f] = f;  // a cudaKernel_t / CUfunction handle is the Function itself
  return f;
}

Function* Shim::function_for_host(const void* host_fn) {
  auto it = host_functions_.find(host_fn);
  return it == host_functions_.end() ? nullptr : it->second;
}

Function* Shim::function_in(Module* m, const std::string& name) {
  for (auto& f : functions_)
    if (f->module == m && f->name == name) return f.get();
  return add_function(m, name, nullptr);
}

Variable* Shim::add_variable(Module* m, std::string name, size_t size, const void* host_var) {
  variables_.push_back(std::make_unique<Variable>(Variable{m, std::move(name), size}));
  if (host_var) host_variables_[host_var] = variables_.back().get();
  return variables_.back().get();
}

Variable* Shim::variable_for_host(const void* host_var) {
  auto it = host_variables_.find(host_var);
  return it == host_variables_.end() ? nullptr : it->second;
}

int Shim::variable_address(Variable& v, uint64_t& address) {
  if (!v.module) return kInvalidValue;
  if (int st = load(*v.module)) {
    std::cerr << "ptxsim: variable " << pretty(v.name) << " " << v.module->load_error << "\n";
    return st;
  }
  for (const ModuleVariable& mv : v.module->program->module_vars)
    if (mv.name == v.name) {
      address = mv.address;
      return kOk;
    }
  return kNotFound;
}

int Shim::malloc_device(uint64_t& address, size_t bytes) {
  // The simulated device's capacity bounds what is live at once, as on the GPU; the host backs only
  // the pages a program touches (GlobalMemory reserves address space, not memory).
  if (bytes > device->global_bytes - std::min(memory.live_bytes(), device->global_bytes)) return kOutOfMemory;
  address = memory.allocate(bytes ? bytes : 1, 256, "cudaMalloc #" + std::to_string(memory.allocation_count() + 1));
  return address ? kOk : kOutOfMemory;
}

int Shim::free_device(uint64_t address) {
  if (address == 0) return kOk;
  return memory.free(address) ? kOk : kInvalidValue;
}

int Shim::copy(void* dst, const void* src, size_t bytes, int kind) {
  if (bytes == 0) return kOk;
  uint64_t d = reinterpret_cast<uint64_t>(dst), s = reinterpret_cast<uint64_t>(src);
  bool dd = kind == 1 || kind == 3, sd = kind == 2 || kind == 3;
  if (kind == 4) {
    dd = is_device(d, 1);
    sd = is_device(s, 1);
  }
  uint8_t* dp = dd ? memory.translate(d, bytes) : static_cast<uint8_t*>(dst);
  const uint8_t* sp = sd ? memory.translate(s, bytes) : static_cast<const uint8_t*>(src);
  if (!dp || !sp) {
    uint64_t bad = !dp ? d : s;
    std::fprintf(stderr, "ptxsim: copy of %zu bytes: %s range [0x%llx, 0x%llx) is not inside one device allocation\n",
                 bytes, !dp ? "destination" : "source", (unsigned long long)bad, (unsigned long long)(bad + bytes));
    return kInvalidValue;
  }
  std::memmove(dp, sp, bytes);
  double gbps = (dd && sd) ? device->memory_gbps : 50.0;  // device bandwidth, or PCIe 5 x16
  sim_ns += 1000.0 + double(bytes) / gbps;
  return kOk;
}

int Shim::copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, int kind) {
  if (width > dpitch || width > spitch) return kInvalidValue;
  for (size_t r = 0; r < height; ++r)
    if (int st = copy(static_cast<uint8_t*>(dst) + r * dpitch, static_cast<const uint8_t*>(src) + r * spitch, width, kind))
      return st;
  return kOk;
}

int Shim::memset_device(uint64_t address, int value, size_t bytes) {
  if (bytes == 0) return kOk;
  uint8_t* p = memory.translate(address, bytes);
  if (!p) {
    std::fprintf(stderr, "ptxsim: memset of %zu bytes at 0x%llx: not inside one device allocation\n", bytes,
                 (unsigned long long)address);
    return kInvalidValue;
  }
  std::memset(p, value, bytes);
  sim_ns += 1000.0 + double(bytes) / device->memory_gbps;
  return kOk;
}

int escaped_exception(const char* api, const char* kernel) noexcept {
  const char* of = kernel ? " of kernel " : "";
  try {
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxsim: internal error in %s%s%s: %s\n", api, of, kernel ? kernel : "", e.what());
  } catch (...) {
    std::fprintf(stderr, "ptxsim: internal error in %s%s%s: an exception of unknown type\n", api, of,
                 kernel ? kernel : "");
  }
  return kUnknown;
}

int Shim::launch(Function& f, const LaunchRequest& req) {
  try {
    return launch_unguarded(f, req);
  } catch (...) {
    return escaped_exception("the launch", f.name.c_str());
  }
}

int Shim::launch_unguarded(Function& f, const LaunchRequest& req) {
  if (sticky) return sticky;
  if (!f.module) return kInvalidHandle;
  if (int st = load(*f.module)) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << " " << f.module->load_error << "\n";
    return st;
  }
  if (auto it = f.module->broken_kernels.find(f.name); it != f.module->broken_kernels.end()) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << " cannot be simulated:\n" << it->second;
    return kInvalidPtx;
  }
  const Program& prog = *f.module->program;
  const ptxsim::Function* entry = f.entry();
  if (!entry) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << " is registered but its module's PTX has no such entry\n";
    return kInvalidHandle;
  }
  // A plain launch of a kernel that synchronises the whole grid is accepted by the driver, and on
  // an H200 its grid barrier works when the grid is resident at once (grid_sync's plain launch of 4
  // CTAs returned cudaSuccess and counted right). So it runs as a cooperative launch does; a grid
  // too large to be resident would wait forever on hardware, and is refused here with the reason.
  const bool grid_sync = uses_grid_sync(prog, *entry);
  if (req.cooperative || grid_sync) {  // every CTA must be resident at once, as the driver checks
    int per_sm = 0;
    if (int st = occupancy(f, int(req.block.count()), req.dynamic_shared, per_sm)) return st;
    const uint64_t resident = uint64_t(per_sm) * uint64_t(device->sm_count);
    if (req.grid.count() > resident) {
      if (req.cooperative) {
        std::cerr << "ptxsim: cooperative launch of kernel " << pretty(f.name) << ": a grid of " << req.grid.count()
                  << " CTAs exceeds the " << resident << " that can be resident at once (" << per_sm << " per SM x "
                  << device->sm_count << " SMs)\n";
        return kCooperativeLaunchTooLarge;
      }
      std::cerr << "ptxsim: kernel " << pretty(f.name) << " synchronises the whole grid (cooperative_groups "
                   "grid_group::sync), but its grid of " << req.grid.count() << " CTAs exceeds the " << resident
                << " that can be resident at once: on hardware the grid barrier would wait forever (launch it with "
                   "cudaLaunchCooperativeKernel, which refuses such a grid)\n";
      return kNotSupported;
    }
  }
  uint32_t static_smem = entry->static_shared_end - kSharedReserved;
  if (static_smem + uint64_t(req.dynamic_shared) > uint32_t(device->smem_per_block) &&
      req.dynamic_shared > uint32_t(f.max_dynamic_shared)) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << " launched with " << req.dynamic_shared
              << " bytes of dynamic shared memory; more than 48 KiB per block needs "
                 "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) first (it is "
              << f.max_dynamic_shared << ")\n";
    return kInvalidValue;
  }
  std::vector<uint8_t> params(entry->info.param_bytes);
  if (req.args) {
    for (size_t i = 0; i < entry->info.params.size(); ++i) {
      const ParamInfo& p = entry->info.params[i];
      std::memcpy(params.data() + p.offset, req.args[i], p.size);
    }
  } else if (req.extra) {
    const void* buffer = nullptr;
    size_t size = 0;
    for (void** e = req.extra; *e != nullptr; e += 2) {  // CU_LAUNCH_PARAM_END is 0
      if (*e == reinterpret_cast<void*>(1)) buffer = e[1];
      else if (*e == reinterpret_cast<void*>(2)) size = *static_cast<const size_t*>(e[1]);
      else return kInvalidValue;
    }
    if (!buffer || size < params.size()) {
      std::cerr << "ptxsim: kernel " << pretty(f.name) << " takes " << params.size() << " parameter bytes, launch passed "
                << size << "\n";
      return kInvalidValue;
    }
    std::memcpy(params.data(), buffer, params.size());
  } else if (!params.empty()) {
    return kInvalidValue;
  }
  LaunchConfig cfg = limits;
  cfg.grid = req.grid;
  cfg.block = req.block;
  cfg.cluster = req.cluster;
  cfg.cluster_given = req.cluster_given;
  if (!req.cluster_given && f.required_cluster.x) {
    cfg.cluster = f.required_cluster;
    cfg.cluster_given = true;
  }
  if (!cfg.cluster_given && entry->perf.reqnctapercluster.size()) {  // __cluster_dims__ on the kernel
    const auto& r = entry->perf.reqnctapercluster;
    cfg.cluster = {r[0], r.size() > 1 ? r[1] : 1, r.size() > 2 ? r[2] : 1};
  }
  // Measured on an H200 (driver 580): a grid that is not a whole number of clusters, and a preferred
  // cluster dimension with no regular one, are cudaErrorInvalidClusterSize.
  auto dims3 = [](const Dim3& d) { return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z); };
  if (cfg.cluster_given && cfg.cluster.x && cfg.cluster.y && cfg.cluster.z &&
      (req.grid.x % cfg.cluster.x || req.grid.y % cfg.cluster.y || req.grid.z % cfg.cluster.z)) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << ": the grid " << dims3(req.grid)
              << " is not a whole number of clusters of " << dims3(cfg.cluster) << "\n";
    return kInvalidClusterSize;
  }
  if (req.preferred_cluster_given && !cfg.cluster_given && entry->perf.reqnctapercluster.empty()) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << ": a preferred cluster dimension "
              << dims3(req.preferred_cluster)
              << " needs a regular one (a cluster dimension attribute, the function attribute or __cluster_dims__)\n";
    return kInvalidClusterSize;
  }
  // The preferred cluster dimension takes effect only with a regular one (an attribute, the
  // function attribute or __cluster_dims__); it must be a multiple of it in x and y, equal in z,
  // divide the grid, and respect .maxclusterrank. Then it is a hint: blocks may be grouped in
  // preferred or in regular clusters, and ptxsim runs the regular ones (%cluster_nctaid,
  // %nclusterid and the cluster ids describe those).
  if (req.preferred_cluster_given && (cfg.cluster_given || !entry->perf.reqnctapercluster.empty())) {
    const Dim3 &p = req.preferred_cluster, &c = cfg.cluster;
    std::string why;
    if (!p.x || !p.y || !p.z || !c.x || !c.y || !c.z) why = "has a zero dimension";
    else if (p.x % c.x || p.y % c.y || p.z != c.z)
      why = "is not a multiple of the cluster dimension " + dims3(c) + " in x and y with the same z";
    else if (req.grid.x % p.x || req.grid.y % p.y || req.grid.z % p.z) why = "does not divide the grid " + dims3(req.grid);
    else if (entry->perf.maxclusterrank && p.count() > entry->perf.maxclusterrank)
      why = "exceeds the kernel's .maxclusterrank " + std::to_string(entry->perf.maxclusterrank);
    if (!why.empty()) {
      std::cerr << "ptxsim: kernel " << pretty(f.name) << ": the preferred cluster dimension " << dims3(p) << " " << why
                << "\n";
      return kInvalidClusterSize;  // each of these refusals, as on an H200 (driver 580)
    }
  }
  if (cfg.cluster.count() > uint64_t(f.non_portable_cluster ? device->max_cluster_size_nonportable
                                                             : device->max_cluster_size_portable)) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << ": a cluster of " << cfg.cluster.count()
              << " CTAs exceeds the portable limit of 8 (set cudaFuncAttributeNonPortableClusterSizeAllowed)\n";
    return kInvalidConfiguration;
  }
  cfg.dynamic_shared_bytes = req.dynamic_shared;
  // The grid barrier's workspace as cooperative_groups reads it: {unsigned wsSize; unsigned barrier;}.
  cfg.co_resident = req.cooperative || grid_sync;
  struct Workspace {  // freed however the launch ends
    model::GlobalMemory& memory;
    uint64_t address = 0;
    ~Workspace() {
      if (address) memory.free(address);
    }
  } workspace{memory};
  if (cfg.co_resident) {
    cfg.grid_workspace = workspace.address = memory.allocate(8, 256, "cooperative launch grid workspace");
    const uint32_t words[2] = {8, 0};
    memory.write(cfg.grid_workspace, words, sizeof words);
  }
  std::fflush(stdout);
  RunResult r = ptxsim::launch(prog, f.name, cfg, params, memory, &std::cout);
  std::cout.flush();
  if (print_stats)
    std::fprintf(stderr, "ptxsim: %s grid %ux%ux%u block %ux%ux%u: %s, %llu thread-instructions in %.3f s on %u thread%s%s%s\n",
                 pretty(f.name).c_str(), cfg.grid.x, cfg.grid.y, cfg.grid.z, cfg.block.x, cfg.block.y, cfg.block.z,
                 to_string(r.status), (unsigned long long)r.stats.thread_instructions, r.stats.seconds,
                 r.stats.threads, r.stats.threads == 1 ? "" : "s", r.stats.serial_reason.empty() ? "" : " (one thread: ",
                 r.stats.serial_reason.empty() ? "" : (r.stats.serial_reason + ")").c_str());
  // Simulated time: one warp-instruction per scheduler per cycle, four schedulers per SM.
  sim_ns += 3000.0 + double(r.stats.warp_instructions) / (device->sm_count * 4.0) / (device->clock_khz * 1e-6);
  // --racecheck's reports are warnings of a completed launch: print them, the launch succeeds.
  for (const Diagnostic& d : r.diagnostics)
    if (r.status == RunStatus::Completed && d.severity == Diagnostic::Severity::Warning &&
        d.message.rfind("race", 0) == 0) {
      const std::string s = d.format();
      std::cerr << "ptxsim: kernel " << pretty(f.name) << ": " << s << (s.empty() || s.back() != '\n' ? "\n" : "");
    }
  switch (r.status) {
    case RunStatus::Completed:
      // Every block has started and triggered, and the kernel has completed.
      for (Event* e : {req.programmatic_event, req.completion_event})
        if (e) {
          e->sim_ns = sim_ns;
          e->recorded = true;
        }
      return kOk;
    case RunStatus::Error:
      std::cerr << "ptxsim: launch of kernel " << pretty(f.name) << " rejected: "
                << (r.diagnostics.empty() ? r.report : r.diagnostics[0].message + "\n");
      last_message = r.report;
      return kInvalidConfiguration;
    case RunStatus::Fault:
      std::cerr << "ptxsim: kernel " << pretty(f.name) << " faulted:\n";
      print_run_report(r);
      sticky = fault_status(r);
      break;
    case RunStatus::Deadlock:
    case RunStatus::Timeout:
      std::cerr << "ptxsim: kernel " << pretty(f.name) << (r.status == RunStatus::Deadlock ? " deadlocked:\n" : " timed out:\n");
      print_run_report(r);
      sticky = kLaunchTimeout;
      break;
  }
  last_message = r.report;
  return sticky;
}

bool is_fatbin_image(const void* image) { return is_fatbin(image); }

namespace {
int loaded_entry(Function& f, const ptxsim::Function*& entry) {
  Shim& S = Shim::get();
  if (!f.module) return kInvalidHandle;
  if (int st = S.load(*f.module)) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << " " << f.module->load_error << "\n";
    return st;
  }
  if (auto it = f.module->broken_kernels.find(f.name); it != f.module->broken_kernels.end()) {
    std::cerr << "ptxsim: kernel " << pretty(f.name) << " cannot be simulated:\n" << it->second;
    return kInvalidPtx;
  }
  entry = f.entry();
  return entry ? kOk : kInvalidHandle;
}
int regs_per_thread(const ptxsim::Function& e) { return e.perf.maxnreg ? int(e.perf.maxnreg) : 32; }
}  // namespace

int function_attribute(Function& f, int attribute, int& v) {
  const ptxsim::Function* e = nullptr;
  if (int st = loaded_entry(f, e)) return st;
  const Program& p = *f.module->program;
  const DeviceSpec& d = *Shim::get().device;
  uint32_t static_smem = e->static_shared_end - kSharedReserved;
  switch (attribute) {
    case 0: {  // MAX_THREADS_PER_BLOCK
      uint64_t n = 1024;
      for (const auto* dims : {&e->perf.maxntid, &e->perf.reqntid})
        if (!dims->empty()) {
          uint64_t prod = 1;
          for (uint32_t x : *dims) prod *= x;
          n = std::min<uint64_t>(n, prod);
        }
      v = int(n);
      return kOk;
    }
    case 1: v = int(static_smem); return kOk;                        // SHARED_SIZE_BYTES
    case 2: v = 0; return kOk;                                        // CONST_SIZE_BYTES
    case 3: v = int(e->frame_bytes); return kOk;                      // LOCAL_SIZE_BYTES
    case 4: v = regs_per_thread(*e); return kOk;                      // NUM_REGS
    case 5: v = int(p.ptx_version); return kOk;                       // PTX_VERSION
    case 6: v = int(Shim::get().sm); return kOk;                      // BINARY_VERSION
    case 7: v = 0; return kOk;                                        // CACHE_MODE_CA
    case 8: v = f.max_dynamic_shared; return kOk;                     // MAX_DYNAMIC_SHARED_SIZE_BYTES
    case 9: v = -1; return kOk;                                       // PREFERRED_SHARED_MEMORY_CARVEOUT
    case 10: v = e->perf.explicitcluster; return kOk;                 // CLUSTER_SIZE_MUST_BE_SET
    case 11: case 12: case 13: {                                      // REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH
      const auto& r = e->perf.reqnctapercluster;
      uint32_t fixed[3] = {f.required_cluster.x, f.required_cluster.y, f.required_cluster.z};
      size_t i = size_t(attribute - 11);
      v = int(i < r.size() ? r[i] : fixed[i]);
      return kOk;
    }
    case 14: v = f.non_portable_cluster; return kOk;                  // NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    case 15: v = 0; return kOk;                                       // CLUSTER_SCHEDULING_POLICY_PREFERENCE
    default: (void)d; return kInvalidValue;
  }
}

int set_function_attribute(Function& f, int attribute, int v) {
  const ptxsim::Function* e = nullptr;
  if (int st = loaded_entry(f, e)) return st;
  const DeviceSpec& d = *Shim::get().device;
  uint32_t static_smem = e->static_shared_end - kSharedReserved;
  switch (attribute) {
    case 8:
      if (v < 0 || uint64_t(v) + static_smem > uint64_t(d.smem_per_block_optin)) {
        std::cerr << "ptxsim: kernel " << pretty(f.name) << ": MaxDynamicSharedMemorySize " << v << " + " << static_smem
                  << " static bytes exceeds the device's " << d.smem_per_block_optin << " bytes per block\n";
        return kInvalidValue;
      }
      f.max_dynamic_shared = v;
      return kOk;
    case 9: case 15: return kOk;  // carveout, scheduling preference: no effect here
    case 11: f.required_cluster.x = uint32_t(v); break;
    case 12: f.required_cluster.y = uint32_t(v); break;
    case 13: f.required_cluster.z = uint32_t(v); break;
    case 14: f.non_portable_cluster = v != 0; return kOk;
    default: return kInvalidValue;
  }
  if (f.required_cluster.x && (!f.required_cluster.y || !f.required_cluster.z)) {
    if (!f.required_cluster.y) f.required_cluster.y = 1;
    if (!f.required_cluster.z) f.required_cluster.z = 1;
  }
  return kOk;
}

int occupancy(Function& f, int block_threads, size_t dynamic_shared, int& blocks) {
  const ptxsim::Function* e = nullptr;
  if (int st = loaded_entry(f, e)) return st;
  if (block_threads <= 0 || block_threads > 1024) return kInvalidValue;
  const DeviceSpec& d = *Shim::get().device;
  uint64_t warps = (uint64_t(block_threads) + 31) / 32;
  uint64_t smem = e->static_shared_end - kSharedReserved + dynamic_shared + d.reserved_smem_per_block;
  uint64_t by_threads = uint64_t(d.max_threads_per_sm) / (warps * 32);
  uint64_t by_regs = uint64_t(d.regs_per_sm) / (warps * 32 * uint64_t(regs_per_thread(*e)));
  uint64_t by_smem = uint64_t(d.smem_per_sm) / smem;
  blocks = int(std::min({by_threads, by_regs, by_smem, uint64_t(d.max_blocks_per_sm)}));
  return kOk;
}

const char* status_name_runtime(int c) {
  switch (c) {
    case 0: return "cudaSuccess";
    case 1: return "cudaErrorInvalidValue";
    case 2: return "cudaErrorMemoryAllocation";
    case 3: return "cudaErrorInitializationError";
    case 9: return "cudaErrorInvalidConfiguration";
    case 98: return "cudaErrorInvalidDeviceFunction";
    case 101: return "cudaErrorInvalidDevice";
    case 209: return "cudaErrorNoKernelImageForDevice";
    case 218: return "cudaErrorInvalidPtx";
    case 400: return "cudaErrorInvalidResourceHandle";
    case 500: return "cudaErrorSymbolNotFound";
    case 600: return "cudaErrorNotReady";
    case 700: return "cudaErrorIllegalAddress";
    case 701: return "cudaErrorLaunchOutOfResources";
    case 702: return "cudaErrorLaunchTimeout";
    case 710: return "cudaErrorAssert";
    case 716: return "cudaErrorMisalignedAddress";
    case 719: return "cudaErrorLaunchFailure";
    case 720: return "cudaErrorCooperativeLaunchTooLarge";
    case 801: return "cudaErrorNotSupported";
    case 912: return "cudaErrorInvalidClusterSize";
    case 13: return "cudaErrorInvalidSymbol";
    case 17: return "cudaErrorInvalidDevicePointer";
    case 21: return "cudaErrorInvalidMemcpyDirection";
    case 35: return "cudaErrorInsufficientDriver";
    case 100: return "cudaErrorNoDevice";
    default: return "cudaErrorUnknown";
  }
}

const char* status_name_driver(int c) {
  switch (c) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 300: return "CUDA_ERROR_INVALID_SOURCE";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 600: return "CUDA_ERROR_NOT_READY";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case 702: return "CUDA_ERROR_LAUNCH_TIMEOUT";
    case 710: return "CUDA_ERROR_ASSERT";
    case 716: return "CUDA_ERROR_MISALIGNED_ADDRESS";
    case 719: return "CUDA_ERROR_LAUNCH_FAILED";
    case 720: return "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
    case 801: return "CUDA_ERROR_NOT_SUPPORTED";
    case 912: return "CUDA_ERROR_INVALID_CLUSTER_SIZE";
    default: return "CUDA_ERROR_UNKNOWN";
  }
}

const char* status_string(int c) {
  switch (c) {
    case 0: return "no error";
    case 1: return "invalid argument";
    case 2: return "out of memory";
    case 3: return "initialization error";
    case 9: return "invalid configuration argument";
    case 13: return "invalid device symbol";
    case 17: return "invalid device pointer";
    case 21: return "invalid copy direction for memcpy";
    case 98: return "invalid device function";
    case 100: return "no CUDA-capable device is detected";
    case 101: return "invalid device ordinal";
    case 209: return "no kernel image is available for execution on the device";
    case 218: return "a PTX JIT compilation failed";
    case 300: return "device kernel image is invalid";
    case 400: return "invalid resource handle";
    case 500: return "named symbol not found";
    case 600: return "device not ready";
    case 700: return "an illegal memory access was encountered";
    case 701: return "too many resources requested for launch";
    case 702: return "the launch timed out and was terminated";
    case 710: return "device-side assert triggered";
    case 716: return "misaligned address";
    case 719: return "unspecified launch failure";
    case 720: return "too many blocks in cooperative launch";
    case 801: return "operation not supported";
    case 912: return "invalid cluster size";
    default: return "unknown error";
  }
}

}  // namespace ptxsim::cuda_shim
