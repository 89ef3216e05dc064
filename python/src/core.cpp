// ptxsim._core: the thin nanobind layer over the in-process API (sim/api.h) and the tensor-map
// encoder (model/tensormap/encoder.h). Everything Python-shaped (exceptions per status, warnings,
// arrays, parameter packing) lives in python/ptxsim/*.py; this file only converts types, checks
// sizes before handing pointers to C++, and never lets a C++ exception or a bad argument crash the
// interpreter.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <mutex>
#include <sstream>

#include "model/memory/global_memory.h"
#include "model/tensormap/encoder.h"
#include "sim/api.h"
#include "sim/exec/program.h"

namespace nb = nanobind;
using namespace nb::literals;
using ptxsim::model::GlobalMemory;
namespace tmap = ptxsim::model::tmap;

namespace {

// One simulated device memory per process, like one GPU. The mutex serialises host copies and
// launches: a launch runs with the GIL released, so another Python thread could otherwise touch
// the allocation map while the engine uses it.
GlobalMemory& memory() {
  static GlobalMemory m;
  return m;
}
std::mutex& memory_mutex() {
  static std::mutex m;
  return m;
}

// Each loaded module's .global/.const variables get their own 4 GiB range above kModuleVarBase
// (as the CUDA shim does), so that modules never collide in the one memory.
uint64_t next_module_base() {
  static uint64_t slot = 0;
  const uint64_t base = ptxsim::kModuleVarBase + slot * (uint64_t(1) << 32);
  if (base + (uint64_t(1) << 32) > GlobalMemory::kBase)
    throw nb::value_error("too many PTX modules loaded in this process (module variable space exhausted)");
  ++slot;
  return base;
}

using Bytes1D = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using MutBytes1D = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

const char* severity_name(ptxsim::Diagnostic::Severity s) {
  switch (s) {
    case ptxsim::Diagnostic::Severity::Error: return "error";
    case ptxsim::Diagnostic::Severity::Warning: return "warning";
    case ptxsim::Diagnostic::Severity::Note: return "note";
  }
  return "error";
}

nb::tuple diag_tuple(const ptxsim::Diagnostic& d) {
  return nb::make_tuple(severity_name(d.severity), d.file, d.loc.line, d.loc.col, d.message, d.format());
}

struct Module {
  std::shared_ptr<const ptxsim::Program> program;
  std::string file_name;
};

// load(text, file_name) -> Module, or raises the PtxError registered below with the diagnostic tuple.
Module load(const std::string& text, const std::string& file_name) {
  Module m;
  m.file_name = file_name;
  m.program = ptxsim::load_program(text, file_name, next_module_base());
  return m;
}

nb::list kernel_list(const Module& m) {
  nb::list out;
  for (const auto& k : ptxsim::kernels(*m.program)) {
    nb::list params;
    for (const auto& p : k.params)
      params.append(nb::make_tuple(p.name, p.offset, p.size, p.align, p.type, p.is_pointer));
    out.append(nb::make_tuple(k.name, params, k.param_bytes));
  }
  return out;
}

ptxsim::Dim3 dim3(const std::tuple<uint32_t, uint32_t, uint32_t>& t) {
  return {std::get<0>(t), std::get<1>(t), std::get<2>(t)};
}

nb::dict launch(const Module& m, const std::string& kernel, std::tuple<uint32_t, uint32_t, uint32_t> grid,
                std::tuple<uint32_t, uint32_t, uint32_t> block, std::tuple<uint32_t, uint32_t, uint32_t> cluster,
                bool cluster_given, uint32_t dynamic_shared, uint64_t seed, uint64_t max_instructions,
                double max_seconds, bool co_resident, Bytes1D params) {
  ptxsim::LaunchConfig cfg;
  cfg.grid = dim3(grid);
  cfg.block = dim3(block);
  cfg.cluster = dim3(cluster);
  cfg.cluster_given = cluster_given;
  cfg.dynamic_shared_bytes = dynamic_shared;
  cfg.schedule_seed = seed;
  cfg.max_instructions = max_instructions;
  cfg.max_seconds = max_seconds;
  cfg.co_resident = co_resident;
  std::vector<uint8_t> p(params.data(), params.data() + params.shape(0));
  std::ostringstream printf_out;
  ptxsim::RunResult r;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(memory_mutex());
    r = ptxsim::launch(*m.program, kernel, cfg, p, memory(), &printf_out);
  }
  nb::list diags;
  for (const auto& d : r.diagnostics) diags.append(diag_tuple(d));
  nb::dict out;
  out["status"] = ptxsim::to_string(r.status);
  out["report"] = r.report;
  out["diagnostics"] = diags;
  out["thread_instructions"] = r.stats.thread_instructions;
  out["warp_instructions"] = r.stats.warp_instructions;
  out["seconds"] = r.stats.seconds;
  out["printf"] = printf_out.str();
  return out;
}

uint64_t alloc(uint64_t bytes, uint64_t align, const std::string& name) {
  if (align < 256 || (align & (align - 1))) throw nb::value_error("alignment must be a power of two of at least 256");
  if (align > (uint64_t(1) << 30)) throw nb::value_error("alignment above 1 GiB");
  if (bytes > (uint64_t(1) << 40)) throw nb::value_error("allocation above 1 TiB");
  std::lock_guard<std::mutex> lock(memory_mutex());
  const uint64_t a = memory().allocate(bytes ? bytes : 1, align, name);
  if (!a) throw std::bad_alloc();
  return a;
}

void free_(uint64_t addr) {
  std::lock_guard<std::mutex> lock(memory_mutex());
  if (!memory().free(addr)) throw nb::value_error("not the address of a live ptxsim allocation");
}

void mem_write(uint64_t addr, Bytes1D src) {
  std::lock_guard<std::mutex> lock(memory_mutex());
  if (!memory().write(addr, src.data(), src.shape(0)))
    throw nb::value_error("write outside a live ptxsim allocation");
}

void mem_read(uint64_t addr, MutBytes1D dst) {
  std::lock_guard<std::mutex> lock(memory_mutex());
  if (!memory().read(addr, dst.data(), dst.shape(0)))
    throw nb::value_error("read outside a live ptxsim allocation");
}

// A numpy uint8 array over the host bytes behind [addr, addr+bytes); `owner` (the Python allocation
// object) stays alive as long as the array does, so the memory cannot be freed under it.
nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>> view(uint64_t addr, uint64_t bytes, nb::handle owner) {
  std::lock_guard<std::mutex> lock(memory_mutex());
  uint8_t* p = memory().translate(addr, bytes);
  if (!p) throw nb::value_error("view outside a live ptxsim allocation");
  return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(p, {size_t(bytes)}, owner);
}

nb::tuple stats() {
  std::lock_guard<std::mutex> lock(memory_mutex());
  return nb::make_tuple(memory().live_bytes(), memory().allocation_count());
}

nb::bytes map_bytes(const tmap::CUtensorMap& m, const tmap::EncodeResult& r) {
  if (!r.ok()) throw nb::value_error(r.message.c_str());
  return nb::bytes(reinterpret_cast<const char*>(&m), sizeof m);
}

// Sizes are checked here because the encoder reads `rank` entries from each pointer.
void check_rank(size_t rank, size_t dims, size_t strides, size_t elem_strides, size_t box, const char* box_name) {
  if (rank < 1 || rank > 5) throw nb::value_error("tensor rank must be 1..5");
  if (dims != rank) throw nb::value_error("globalDim must have rank entries");
  if (strides != rank - 1) throw nb::value_error("globalStrides must have rank-1 entries (byte strides of dims 1..rank-1)");
  if (elem_strides != rank) throw nb::value_error("elementStrides must have rank entries");
  if (box != size_t(-1) && box != rank) throw nb::value_error((std::string(box_name) + " must have rank entries").c_str());
}

nb::bytes encode_tiled(uint32_t dtype, uint64_t addr, const std::vector<uint64_t>& dims,
                       const std::vector<uint64_t>& strides, const std::vector<uint32_t>& box,
                       const std::vector<uint32_t>& elem_strides, uint32_t interleave, uint32_t swizzle,
                       uint32_t l2, uint32_t oob) {
  check_rank(dims.size(), dims.size(), strides.size(), elem_strides.size(), box.size(), "boxDim");
  tmap::CUtensorMap m{};
  auto r = tmap::encode_tiled(&m, tmap::DataType(dtype), uint32_t(dims.size()), addr, dims.data(),
                              strides.empty() ? nullptr : strides.data(), box.data(), elem_strides.data(),
                              tmap::Interleave(interleave), tmap::Swizzle(swizzle), tmap::L2Promotion(l2),
                              tmap::OobFill(oob));
  return map_bytes(m, r);
}

nb::bytes encode_im2col(uint32_t dtype, uint64_t addr, const std::vector<uint64_t>& dims,
                        const std::vector<uint64_t>& strides, const std::vector<int32_t>& lower,
                        const std::vector<int32_t>& upper, uint32_t channels, uint32_t pixels,
                        const std::vector<uint32_t>& elem_strides, uint32_t interleave, uint32_t swizzle,
                        uint32_t l2, uint32_t oob) {
  check_rank(dims.size(), dims.size(), strides.size(), elem_strides.size(), size_t(-1), "");
  if (dims.size() < 3) throw nb::value_error("im2col tensor maps need rank 3..5");
  if (lower.size() != dims.size() - 2 || upper.size() != dims.size() - 2)
    throw nb::value_error("pixelBoxLowerCorner/UpperCorner must have rank-2 entries");
  tmap::CUtensorMap m{};
  auto r = tmap::encode_im2col(&m, tmap::DataType(dtype), uint32_t(dims.size()), addr, dims.data(), strides.data(),
                               lower.data(), upper.data(), channels, pixels, elem_strides.data(),
                               tmap::Interleave(interleave), tmap::Swizzle(swizzle), tmap::L2Promotion(l2),
                               tmap::OobFill(oob));
  return map_bytes(m, r);
}

}  // namespace

NB_MODULE(_core, m) {
  // Triton keeps compiled kernels (and so Modules) in global caches until the interpreter is gone.
  nb::set_leak_warnings(false);
  m.doc() = "ptxsim's native layer; use the ptxsim package, not this module.";
  // A PtxError carries its diagnostic as a tuple (severity, file, line, col, message, formatted) in
  // args[1]; ptxsim/_api.py turns it into ptxsim.PtxError with attributes.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ptxsim::PtxError& e) {
      nb::object cls = nb::module_::import_("ptxsim._errors").attr("PtxError");
      nb::object err = cls(e.diag.format(), diag_tuple(e.diag), e.unimplemented);
      PyErr_SetObject(cls.ptr(), err.ptr());
    }
  });
  nb::class_<Module>(m, "Module").def_ro("file_name", &Module::file_name);
  m.def("load", &load, "text"_a, "file_name"_a);
  m.def("kernels", &kernel_list, "module"_a);
  m.def("launch", &launch, "module"_a, "kernel"_a, "grid"_a, "block"_a, "cluster"_a, "cluster_given"_a,
        "dynamic_shared"_a, "seed"_a, "max_instructions"_a, "max_seconds"_a, "co_resident"_a, "params"_a);
  m.def("alloc", &alloc, "bytes"_a, "align"_a, "name"_a);
  m.def("free", &free_, "addr"_a);
  m.def("write", &mem_write, "addr"_a, "src"_a);
  m.def("read", &mem_read, "addr"_a, "dst"_a);
  m.def("view", &view, "addr"_a, "bytes"_a, "owner"_a);
  m.def("stats", &stats);
  m.def("encode_tiled", &encode_tiled, "dtype"_a, "addr"_a, "dims"_a, "strides"_a, "box"_a, "elem_strides"_a,
        "interleave"_a, "swizzle"_a, "l2_promotion"_a, "oob_fill"_a);
  m.def("encode_im2col", &encode_im2col, "dtype"_a, "addr"_a, "dims"_a, "strides"_a, "lower"_a, "upper"_a,
        "channels"_a, "pixels"_a, "elem_strides"_a, "interleave"_a, "swizzle"_a, "l2_promotion"_a, "oob_fill"_a);
}
