// The TMA checks a whole PTX file can get (for `ptxsim check KERNEL.ptx`): every cp.async.bulk*
// instruction through check_bulk_emission, and every tensormap rebind through the rebind-sequence
// rules (rank inferred from the run of global_dim writes; a fence.proxy.tensormap::generic.acquire
// not followed by a tensormap.replace is a consumer's acquire and starts nothing).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::verifiers::tma {

struct LocatedDiagnostic {
  int line = 0;
  std::string message;  // without "error: "
};

// `instructions`: (line number, source text) pairs in file order; the text may hold several
// statements, comments, labels and directives (only instructions are looked at). Diagnostics come
// sorted by line.
std::vector<LocatedDiagnostic> check_tma_ptx(const std::vector<std::pair<int, std::string>>& instructions);

// The same, formatted "FILE:LINE: error: MESSAGE".
std::vector<std::string> check_tma_ptx(const std::string& file,
                                       const std::vector<std::pair<int, std::string>>& instructions);

}  // namespace ptxsim::verifiers::tma
