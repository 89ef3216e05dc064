#include "verifiers/tma/check.h"

#include <algorithm>

#include "verifiers/tma/bulk_emission.h"
#include "verifiers/tma/rebind.h"

namespace ptxsim::verifiers::tma {

std::vector<LocatedDiagnostic> check_tma_ptx(const std::vector<std::pair<int, std::string>>& instructions) {
  std::vector<LocatedDiagnostic> out;
  RebindChecker rebind(RebindOptions{});
  for (const auto& [line, text] : instructions) {
    for (const std::string& st : split_statements(text)) {
      auto in = parse_instruction(st);
      if (!in) continue;
      if (is_bulk_instruction(*in)) {
        BulkEmissionOutcome r = check_bulk_emission(*in);
        if (!r.accepted) out.push_back({line, r.diagnostic});
      }
      rebind.feed(line, *in);
    }
  }
  rebind.finish();
  for (const RebindDiagnostic& d : rebind.diagnostics()) out.push_back({d.line, d.message});
  std::stable_sort(out.begin(), out.end(),
                   [](const LocatedDiagnostic& a, const LocatedDiagnostic& b) { return a.line < b.line; });
  return out;
}

std::vector<std::string> check_tma_ptx(const std::string& file,
                                       const std::vector<std::pair<int, std::string>>& instructions) {
  std::vector<std::string> out;
  for (const LocatedDiagnostic& d : check_tma_ptx(instructions))
    out.push_back(file + ":" + std::to_string(d.line) + ": error: " + d.message);
  return out;
}

}  // namespace ptxsim::verifiers::tma
