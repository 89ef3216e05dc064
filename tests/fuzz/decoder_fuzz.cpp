// libFuzzer target for the whole load path: parse, decode against the instruction table, and bind
// every instruction (its binder checks the form and specialises the semantics). Any input must load
// or throw PtxError; crashes, other exceptions, hangs and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto prog = ptxsim::load_program(text, "fuzz.ptx");
    (void)prog;
  } catch (const ptxsim::PtxError& e) {
    std::string s = e.what();
    (void)s;
  }
  return 0;
}
