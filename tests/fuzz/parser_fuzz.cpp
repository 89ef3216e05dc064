// libFuzzer target for the PTX front end: any input must either parse or throw PtxError; crashes,
// hangs, out-of-bounds reads and other sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/ptx/diag.h"
#include "sim/ptx/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ptxsim::ast::Module m = ptxsim::parse_ptx(std::move(text), "fuzz.ptx");
    (void)m;
  } catch (const ptxsim::PtxError& e) {
    std::string s = e.diag.format();  // exercise the formatter too
    (void)s;
  }
  return 0;
}
