// libFuzzer target for execution: every kernel of a module that loads is launched once (one CTA of
// 64 threads; its pointer parameters point at a 4 KiB global buffer, the rest are zero) under a small
// instruction and time budget. Any outcome (completion, fault, deadlock, timeout) is fine; crashes,
// stray exceptions and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "sim/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<const ptxsim::Program> prog;
  try {
    prog = ptxsim::load_program(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ptx");
  } catch (const ptxsim::PtxError&) {
    return 0;
  }
  for (const ptxsim::KernelInfo& k : ptxsim::kernels(*prog)) {
    ptxsim::model::GlobalMemory mem;
    const uint64_t buf = mem.allocate(4096, 256, "fuzz");
    std::vector<uint8_t> params(k.param_bytes, 0);
    for (const ptxsim::ParamInfo& p : k.params)
      if (p.size == 8 && p.offset + 8 <= params.size()) std::memcpy(params.data() + p.offset, &buf, 8);
    ptxsim::LaunchConfig cfg;
    cfg.block.x = 64;
    cfg.max_instructions = 200000;
    cfg.max_seconds = 2;
    std::ostringstream out;
    (void)ptxsim::launch(*prog, k.name, cfg, params, mem, &out);
  }
  return 0;
}
