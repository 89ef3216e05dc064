// The TMEM allocation lifecycle of the seed tcgen05-mma-walkthrough.txt, checked over a
// straight-line instruction stream: alloc dominates every use of its handle and the dealloc
// post-dominates them, the allocator's column budget (the seed's 256 columns), every allocation
// is freed and tcgen05.relinquish_alloc_permit is issued before the kernel exits, no alloc
// after the permit is given up, and one .cta_group per kernel.
//
// The stream is a list of events (TmemEvent). tmem_events_from_ops() makes them from PTX
// instruction text (tcgen05.alloc writes the TMEM address to shared memory; the handle is the
// register a later ld.shared of that address loads, or one derived from it by mov/add/sub/or)
// and/or structured ops; check_tcgen05_ptx (ptx_check.h) uses the same engine per function.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verifiers/tcgen05/ptx_text.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers::tcgen05 {

// The seed's TMEM: 256 columns per SM (the ISA: 512 columns per CTA, ptx-facts §5.1).
inline constexpr int64_t kSeedTmemColumns = 256;

// The seed's verbatim allocator strings.
extern const char* const kTmemOutOfResource;  // "allocated tmem out of resource: " (+ ptxsim's detail)
extern const char* const kTmemNoScratch;      // "failed to find scratch smem to allocate tmem"
extern const char* const kTmemInitFailed;     // "failed to init tmem"
extern const char* const kRelinquishMissing;  // ptxsim wording of the seed's relinquish rule

struct TmemEvent {
  enum Kind { Alloc, Dealloc, Relinquish, Use, Exit, Other };
  Kind kind = Other;
  int pos = 0;                   // op number or source line, reported with the diagnostic
  std::string inst;              // "tcgen05.mma", ... for messages
  std::string key;               // the allocation's identity ("" for Relinquish/Exit/Other)
  std::string name;              // what messages call the handle ("%r_tmem_d")
  bool known = true;             // false: the handle comes from no alloc in the stream
  bool allocated_later = false;  // Use/Dealloc of a handle whose alloc comes later in the stream
  std::optional<int64_t> columns;
  bool has_scratch = true;  // Alloc: a shared-memory scratch slot receives the address
  unsigned cta_group = 0;   // 0: the instruction has no .cta_group
};

struct LifecycleOptions {
  bool closed_world = true;  // a handle no alloc defines is an error (else: not checked)
  bool kernel_exit = true;   // the stream ends at the kernel's exit (exit rules apply)
  int64_t total_columns = kSeedTmemColumns;
};

struct LifecycleDiagnostic {
  int pos = 0;
  std::string message;
};

struct LifecycleSummary {
  int allocations = 0;
  int64_t peak_columns = 0;
};

std::vector<LifecycleDiagnostic> check_lifecycle(const std::vector<TmemEvent>& events, const LifecycleOptions& opt,
                                                 LifecycleSummary* summary = nullptr);

// One op of a stream: a parsed PTX instruction, or a structured op (see docs/verifiers-tcgen05.md).
struct StructuredOp {
  std::string op;  // alloc | dealloc | relinquish | use | exit (| mma | ld | st | cp | shift)
  std::string handle;
  std::optional<int64_t> columns;
  bool has_scratch = true;
  std::string scratch;  // alloc: optional scratch address a later ld.shared may read
  std::string inst;     // use: the instruction named in messages
  unsigned cta_group = 0;
};
struct StreamOp {
  int pos = 0;
  std::optional<Instr> instr;  // set for PTX text
  StructuredOp structured;     // otherwise
};

struct StreamFacts {
  bool straight_line = true;  // no labels, branches, guarded ret/exit
};

// Translates ops into lifecycle events. PTX text other than the tcgen05 lifecycle instructions,
// the ld.shared that loads a handle and the moves/arithmetic deriving one is ignored, except
// that writing a handle register ends its binding. A Label statement cannot appear here;
// callers that see labels or branches set facts.straight_line = false themselves as well.
std::vector<TmemEvent> tmem_events_from_ops(const std::vector<StreamOp>& ops, StreamFacts* facts = nullptr);

Outcome verify_tmem_alloc_request(const nlohmann::json& request);

}  // namespace ptxsim::verifiers::tcgen05
