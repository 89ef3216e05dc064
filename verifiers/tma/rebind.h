// Device-side TMA descriptor mutation (seeds/tma-atoms.txt "Descriptor Mutation",
// seeds/tma-tensormap-cp-async-bulk.txt "TMA Descriptor Mutators"): only the base pointer, the
// per-axis dimensions and the non-leading strides are device-mutable; a rebind is the fixed
// sequence
//   fence.proxy.tensormap::generic.acquire -> global_address -> global_dim 0..rank-1
//   -> global_stride 0..rank-2 (stride of dimension i is written with index i-1)
//   -> fence.proxy.tensormap::generic.release
// i.e. 2*rank tensormap.replace ops between the two fences, optionally preceded by a
// tensormap.cp_fenceproxy seed copy.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verifiers/tma/ptx_text.h"

namespace ptxsim::verifiers::tma {

namespace diag {
inline constexpr const char* kNotDeviceMutable = "TMA descriptor field is not device-mutable";  // verbatim
}

// ---- the three mutator templates ---------------------------------------------------------------

enum class MutatorField { GlobalAddress, GlobalDim, GlobalStride };

// The seed's templates, {0} = address-space token, {1} = decimal index:
//   tensormap.replace.tile.global_address.{0}.b1024.b64 [$0], $1;
//   tensormap.replace.tile.global_dim.{0}.b1024.b32 [$0], {1}, $1;
//   tensormap.replace.tile.global_stride.{0}.b1024.b64 [$0], {1}, $1;
const char* mutator_template(MutatorField f);
const char* mutator_name(MutatorField f);  // "global_address", "global_dim", "global_stride"
// The template with {0} and {1} substituted ("global" or "shared::cta"; index ignored for the address).
std::string render_mutator(MutatorField f, std::string_view space, int index = 0);
// Inline-asm constraints: global_address "l,l" (global) / "r,l" (shared::cta); global_dim "l,r";
// global_stride "l,l".
const char* mutator_constraints(MutatorField f, std::string_view space);

// ---- the update-kind view (update_tma_descriptor) ----------------------------------------------

struct TmaUpdate {
  std::string kind;  // "base_pointer", "dim", "stride"; anything else is not device-mutable
  int axis = 0;
};
// The first diagnostic for a list of updates against a descriptor of `rank`, or "".
std::string check_tma_updates(const std::vector<TmaUpdate>& updates, int rank);

// ---- the rebind sequence on PTX text -----------------------------------------------------------

struct RebindOptions {
  std::optional<int> rank;       // known rank; nullopt: inferred from the global_dim run
  bool single_sequence = false;  // the stream is exactly one rebind (request mode)
  bool shared_across_ctas = false;  // the descriptor is consumed by other CTAs: fences need .gpu/.sys
};

struct RebindDiagnostic {
  int line = 0;  // the caller's line number of the offending instruction
  std::string message;
};

struct RebindStep {
  std::string what;  // "acquire.cta", "global_address", "global_dim 0", ..., "release.cta"
  int line = 0;
};

// A streaming checker: feed every instruction (others than fence.proxy.tensormap, tensormap.* are
// ignored), then finish(). In request mode (single_sequence) it stops at the first diagnostic; in
// file mode it reports the first diagnostic of each sequence and resynchronises at the next fence.
class RebindChecker {
 public:
  explicit RebindChecker(RebindOptions options) : opt_(options) {}
  // `constraints`: the inline-asm constraint string of the instruction, when known.
  void feed(int line, const PtxInstruction& in, const std::optional<std::string>& constraints = std::nullopt);
  void finish();
  const std::vector<RebindDiagnostic>& diagnostics() const { return diags_; }
  const std::vector<RebindStep>& steps() const { return steps_; }  // of the last complete sequence
  int completed_sequences() const { return completed_; }
  int replace_ops() const { return last_replace_ops_; }  // of the last complete sequence
  int rank() const { return last_rank_; }                 // of the last complete sequence

 private:
  enum class State { Idle, PendingAcquire, Dims, Strides, ExpectRelease, Skip, Done };
  void error(int line, std::string message);
  std::string expected_mutator(MutatorField f, int index) const;

  RebindOptions opt_;
  State state_ = State::Idle;
  int dims_ = 0, strides_ = 0, rank_ = 0, replace_ops_ = 0;
  std::string space_, descriptor_, scope_;
  int last_line_ = 0;
  bool saw_start_ = false;
  std::vector<RebindStep> current_, steps_;
  std::vector<RebindDiagnostic> diags_;
  int completed_ = 0, last_replace_ops_ = 0, last_rank_ = 0;
};

}  // namespace ptxsim::verifiers::tma
