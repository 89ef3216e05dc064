#include "verifiers/tcgen05/cp.h"

namespace ptxsim::verifiers::tcgen05 {

namespace {
constexpr const char* kShapeNames[] = {"128x256b", "4x256b", "128x128b", "64x128b", "32x128b"};
}  // namespace

const char* const kCp64x128bDiagnostic =
    "Shape 64x128b requires multicast warpx2_01_23 or warpx2_02_13 for tcgen05.cp Op";
const char* const kCp32x128bDiagnostic = "Shape 32x128b requires multicast warpx4 for tcgen05.cp Op";

const char* cp_shape_name(CpShape s) { return kShapeNames[static_cast<int>(s)]; }

const char* cp_multicast_name(CpMulticast m) {
  switch (m) {
    case CpMulticast::none:
      return "";
    case CpMulticast::warpx2_02_13:
      return "warpx2::02_13";
    case CpMulticast::warpx2_01_23:
      return "warpx2::01_23";
    case CpMulticast::warpx4:
      return "warpx4";
  }
  return "";
}

std::optional<CpShape> cp_shape_from_name(const std::string& s) {
  for (int i = 0; i < 5; ++i)
    if (s == kShapeNames[i]) return static_cast<CpShape>(i);
  return std::nullopt;
}

std::optional<CpMulticast> cp_multicast_from_name(const std::string& s) {
  if (s == "warpx2::02_13" || s == "warpx2_02_13") return CpMulticast::warpx2_02_13;
  if (s == "warpx2::01_23" || s == "warpx2_01_23") return CpMulticast::warpx2_01_23;
  if (s == "warpx4") return CpMulticast::warpx4;
  return std::nullopt;
}

std::optional<std::string> check_cp_pairing(CpShape shape, CpMulticast multicast) {
  const bool warpx2 = multicast == CpMulticast::warpx2_01_23 || multicast == CpMulticast::warpx2_02_13;
  if (shape == CpShape::s64x128b) {
    if (!warpx2) return std::string(kCp64x128bDiagnostic);
    return std::nullopt;
  }
  if (shape == CpShape::s32x128b) {
    if (multicast != CpMulticast::warpx4) return std::string(kCp32x128bDiagnostic);
    return std::nullopt;
  }
  if (multicast != CpMulticast::none)
    return std::string("Shape ") + cp_shape_name(shape) + " does not support multicast " +
           cp_multicast_name(multicast) + " for tcgen05.cp Op";
  return std::nullopt;
}

std::string tcgen05_target_diagnostic(const std::string& op) {
  return op + " supported only on arch-conditional or family-conditional variants from SM100 onwards.";
}

std::string cp_mnemonic(const CpDescription& c) {
  std::string s = "tcgen05.cp.cta_group::" + std::to_string(c.cta_group) + "." + cp_shape_name(c.shape);
  if (c.multicast != CpMulticast::none) s += std::string(".") + cp_multicast_name(c.multicast);
  if (!c.src_fmt.empty()) s += ".b8x16." + c.src_fmt;
  return s;
}

Outcome verify_cp(const CpDescription& c) {
  Outcome out;
  std::optional<std::string> d = check_cp_pairing(c.shape, c.multicast);
  if (!d && !req::is_conditional_sm100_plus(c.target)) d = tcgen05_target_diagnostic("tcgen05.cp");
  if (d) {
    out.accepted = false;
    out.diagnostics.push_back(*d);
    return out;
  }
  out.result_lines.push_back("ptx: " + cp_mnemonic(c) + " [taddr], s-desc;");
  out.result = {{"ptx", cp_mnemonic(c)}};
  return out;
}

CpDescription parse_cp_request(const nlohmann::json& r) {
  req::check_keys(r, {"shape", "multicast", "cta_group", "src_fmt", "target"});
  CpDescription c;
  c.shape = static_cast<CpShape>(req::get_choice(r, "shape", {"128x256b", "4x256b", "128x128b", "64x128b", "32x128b"}));
  if (auto m = req::get_opt_string(r, "multicast")) {
    auto mc = cp_multicast_from_name(*m);
    if (!mc)
      req::fail(
          "key \"multicast\" must be null, \"warpx2::02_13\", \"warpx2::01_23\" or \"warpx4\" "
          "(or the seed's warpx2_02_13 / warpx2_01_23), got \"" +
          *m + "\"");
    c.multicast = *mc;
  }
  if (auto cg = req::get_opt_int(r, "cta_group")) {
    if (*cg != 1 && *cg != 2) req::fail("key \"cta_group\" must be 1 or 2");
    c.cta_group = static_cast<unsigned>(*cg);
  }
  if (auto f = req::get_opt_string(r, "src_fmt")) {
    if (*f != "b6x16_p32" && *f != "b4x16_p64")
      req::fail("key \"src_fmt\" must be null, \"b6x16_p32\" or \"b4x16_p64\"");
    c.src_fmt = *f;
  }
  c.target = req::get_target(r, "target", "sm_100a");
  return c;
}

}  // namespace ptxsim::verifiers::tcgen05

namespace ptxsim::verifiers {
Outcome handle_tcgen05_cp(const nlohmann::json& request) {
  return tcgen05::verify_cp(tcgen05::parse_cp_request(request));
}
}  // namespace ptxsim::verifiers
