#include "verifiers/verifier.h"

namespace ptxsim::verifiers {

// Each family lists its verifiers in its own file as VERIFIER(name, handler, summary) rows.
#define VERIFIER(name, handler, summary) Outcome handler(const nlohmann::json&);
#include "verifiers/registry_tma.inc"
#include "verifiers/registry_tcgen05.inc"
#undef VERIFIER

const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {
#define VERIFIER(name, handler, summary) {name, &handler, summary},
#include "verifiers/registry_tma.inc"
#include "verifiers/registry_tcgen05.inc"
#undef VERIFIER
  };
  return entries;
}

const Entry* find_verifier(const std::string& name) {
  for (const Entry& e : registry())
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace ptxsim::verifiers
