// tcgen05.cp shape/multicast pairing (seed tcgen05-mma-walkthrough.txt, "SMEM-to-TMEM Staging
// Copy"): 64x128b needs a warpx2 multicast, 32x128b needs warpx4, the other shapes take none.
#pragma once
#include <optional>
#include <string>

#include "verifiers/tcgen05/request.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers::tcgen05 {

enum class CpShape { s128x256b, s4x256b, s128x128b, s64x128b, s32x128b };
enum class CpMulticast { none, warpx2_02_13, warpx2_01_23, warpx4 };

const char* cp_shape_name(CpShape s);          // "64x128b"
const char* cp_multicast_name(CpMulticast m);  // PTX spelling "warpx2::02_13"; "" for none
std::optional<CpShape> cp_shape_from_name(const std::string& s);
// Accepts the PTX spellings and the seed's underscore ones ("warpx2_02_13").
std::optional<CpMulticast> cp_multicast_from_name(const std::string& s);

extern const char* const kCp64x128bDiagnostic;  // verbatim seed strings
extern const char* const kCp32x128bDiagnostic;

std::optional<std::string> check_cp_pairing(CpShape shape, CpMulticast multicast);

struct CpDescription {
  CpShape shape = CpShape::s128x256b;
  CpMulticast multicast = CpMulticast::none;
  unsigned cta_group = 1;
  std::string src_fmt;  // "", "b6x16_p32" or "b4x16_p64" (decompressing copies)
  req::Target target{100, 'a', "sm_100a"};
};

// "tcgen05.<op> supported only on arch-conditional or family-conditional variants from SM100
// onwards." (the seed's wording for mma and wait, extended to the other tcgen05 instructions).
std::string tcgen05_target_diagnostic(const std::string& op);

std::string cp_mnemonic(const CpDescription& c);
Outcome verify_cp(const CpDescription& c);
CpDescription parse_cp_request(const nlohmann::json& request);

}  // namespace ptxsim::verifiers::tcgen05
