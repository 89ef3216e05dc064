// The tcgen05 part of `ptxsim check KERNEL.ptx`: given the lines of a PTX module, report
//  - per tcgen05.mma: the target gate, the seed's kind-word ladder on the qualifiers (first failing
//    rule), and a constant instruction descriptor (an immediate, or a register set exactly once in
//    the function by `mov` of an immediate) checked against the ISA (idesc.h);
//  - per tcgen05.cp: the shape/multicast pairing and the target gate;
//  - per other tcgen05 instruction: the target gate (tcgen05.wait with the seed's string);
//  - per function: one .cta_group for all tcgen05 instructions; and, in straight-line functions
//    (no labels, branches or guarded ret/exit), the TMEM lifecycle of tmem_alloc.h with handles
//    that no alloc in the function defines left unchecked, and the exit rules only for .entry.
// The target comes from the module's `.target` directive, else from the options; with neither,
// target gates are skipped and the ladder assumes an arch-conditional sm_100a.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "verifiers/tcgen05/ptx_text.h"

namespace ptxsim::verifiers::tcgen05 {

struct PtxCheckOptions {
  std::string target;  // used when the module has no .target ("" = unknown)
};

struct PtxDiagnostic {
  int line = 0;
  std::string message;
};

// `lines`: (line number, source text) pairs in file order, as for tma::check_tma_ptx; pass every
// line of the module (or any run of statements: lines outside a function are checked as one
// kernel body). Statements may span lines and are reported at their first line. Diagnostics come
// sorted by line, messages without "error: ".
std::vector<PtxDiagnostic> check_tcgen05_ptx(const std::vector<std::pair<int, std::string>>& lines,
                                             const PtxCheckOptions& opt = {});

// The same, formatted "FILE:LINE: error: MESSAGE".
std::vector<std::string> check_tcgen05_ptx(const std::string& file,
                                           const std::vector<std::pair<int, std::string>>& lines,
                                           const PtxCheckOptions& opt = {});

}  // namespace ptxsim::verifiers::tcgen05
