// cp.async.bulk emission rules (seeds/tma-tensormap-cp-async-bulk.txt, "cp.async.bulk Template
// Catalog"): the fixed modifier order .im2col -> .multicast::cluster -> .L2::cache_hint, the
// operand classes ("l" descriptor and cache policy, "r" coordinates, "h" multicast mask and im2col
// offsets), the descriptor's operand position (%1 on global->shared loads, %0 on stores, reduces
// and prefetches) and the trailing operand numbers
//   mcast_opnum = rank + 3 + im2col_count,  ch_opnum = mcast_opnum + (multicast ? 1 : 0)
// (the load numbering: %0 dst, %1 descriptor, %2.. coordinates, then the mbarrier).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "verifiers/tma/ptx_text.h"

namespace ptxsim::verifiers::tma {

enum class BulkFamily {
  TensorLoad,      // cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global...
  TensorStore,     // cp.async.bulk.tensor.Nd.global.shared::cta...
  TensorReduce,    // cp.reduce.async.bulk.tensor.Nd.global.shared::cta...
  TensorPrefetch,  // cp.async.bulk.prefetch.tensor.Nd.L2.global...
  NonTensor,       // cp.async.bulk.{dst}.{src}..., cp.reduce.async.bulk..., cp.async.bulk.prefetch.L2...
};

struct BulkOperand {
  std::string text;   // as written
  std::string role;   // "destination", "tensor-map descriptor", "coordinate 0", "mbarrier", "im2col offset 0",
                      // "ctaMask", "cache-policy", "source", ...
  std::string want_class;  // "l", "r", "h" or "" when the seed names none
};

struct BulkEmissionOutcome {
  bool accepted = false;
  std::string diagnostic;  // the first rule that failed
  BulkFamily family = BulkFamily::NonTensor;
  int rank = 0;
  std::string load_mode;                 // "tile" (default), "im2col", "tile::gather4", ...
  std::vector<std::string> modifiers;    // the ordered-three that are present, in order
  bool multicast = false, cache_hint = false;
  int im2col_count = 0;
  int descriptor_opnum = -1;             // -1: not a tensor form
  int mcast_opnum = -1, ch_opnum = -1;   // loads: the formula's values (present or not)
  std::vector<BulkOperand> operands;     // in operand-number order
};

// Checks one cp.async.bulk* instruction. `constraints` is its inline-asm constraint string, when
// the text is a template using %N/$N placeholders.
BulkEmissionOutcome check_bulk_emission(const PtxInstruction& in,
                                        const std::optional<std::string>& constraints = std::nullopt);
// True for the opcodes check_bulk_emission handles (cp.async.bulk*, cp.reduce.async.bulk*).
bool is_bulk_instruction(const PtxInstruction& in);

}  // namespace ptxsim::verifiers::tma
