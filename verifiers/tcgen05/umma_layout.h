// UMMA canonical shared-memory operand layouts (seed tcgen05-mma-walkthrough.txt: Stage 3a and
// checklist step 2; canonical forms from ptx-facts §5.5): K-major or MN-major, swizzle none /
// 32B / 64B / 128B / 128B_base32B, LBO/SBO. A layout (CuTe notation, element units, top-level
// modes (MN, K)) is canonical when it is, as a function, the canonical layout of its major and
// swizzle for some LBO/SBO (and for the descriptor's LBO/SBO when those are given).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verifiers/layout/layout.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers::tcgen05 {

enum class UmmaMajor { K, MN };
enum class UmmaSwizzle { none, b32, b64, b128, b128_base32b };

const char* swizzle_name(UmmaSwizzle s);  // "none", "32B", "64B", "128B", "128B_base32B"

struct UmmaOperand {
  UmmaMajor major = UmmaMajor::K;
  int elem_bits = 16;  // 4, 8, 16 or 32 (6-bit values sit in 8-bit containers)
  UmmaSwizzle swizzle = UmmaSwizzle::none;
  bool sparse = false;
  std::optional<layout::Layout> layout;  // rank 2: modes (MN, K), element units, integer strides
  int64_t mn = 0, k = 0;                 // the tile extents (from the layout when given)
  std::optional<int64_t> lbo, sbo;       // descriptor byte offsets
};

struct UmmaResult {
  std::optional<std::string> diagnostic;  // the first failing rule
  layout::Layout canonical;               // the canonical layout (element units)
  std::optional<int64_t> lbo, sbo;        // bytes; nullopt where the layout does not use them
};

// Throws RequestError when no layout is given and the canonical form uses an LBO/SBO the
// operand does not give.
UmmaResult check_umma_layout(const UmmaOperand& op);
Outcome verify_umma_layout_request(const nlohmann::json& request);

}  // namespace ptxsim::verifiers::tcgen05
