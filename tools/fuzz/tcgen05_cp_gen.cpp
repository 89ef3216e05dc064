#include "tools/fuzz/tcgen05_cp_gen.h"

#include <algorithm>
#include <set>
#include <vector>

#include "model/tcgen05/cp.h"

namespace ptxsim::fuzz {
namespace {

using verifiers::tcgen05::CpDescription;
using verifiers::tcgen05::CpMulticast;
using verifiers::tcgen05::CpShape;

// The pairing table: the multicasts each shape takes ("none" = no multicast qualifier).
bool table_allows(CpShape s, CpMulticast m) {
  switch (s) {
    case CpShape::s64x128b: return m == CpMulticast::warpx2_02_13 || m == CpMulticast::warpx2_01_23;
    case CpShape::s32x128b: return m == CpMulticast::warpx4;
    default: return m == CpMulticast::none;  // 128x256b, 4x256b, 128x128b
  }
}

// The seed's two verbatim strings, and ptxsim's wording for a multicast on a shape that takes none.
std::string table_diagnostic(CpShape s, CpMulticast m) {
  if (s == CpShape::s64x128b) return "Shape 64x128b requires multicast warpx2_01_23 or warpx2_02_13 for tcgen05.cp Op";
  if (s == CpShape::s32x128b) return "Shape 32x128b requires multicast warpx4 for tcgen05.cp Op";
  static const char* shapes[] = {"128x256b", "4x256b", "128x128b"};
  static const char* casts[] = {"", "warpx2::02_13", "warpx2::01_23", "warpx4"};
  return std::string("Shape ") + shapes[int(s)] + " does not support multicast " + casts[int(m)] + " for tcgen05.cp Op";
}

// Rows of the source and the TMEM lanes of row r (ptx-facts §5.8).
int table_rows(CpShape s) { return s == CpShape::s4x256b ? 4 : s == CpShape::s64x128b ? 64 : s == CpShape::s32x128b ? 32 : 128; }
std::set<uint32_t> table_lanes(CpShape s, CpMulticast m, uint32_t r) {
  if (s == CpShape::s32x128b) return {r, r + 32, r + 64, r + 96};
  if (s == CpShape::s64x128b && m == CpMulticast::warpx2_02_13) return {r, r + 64};
  if (s == CpShape::s64x128b) return {64 * (r / 32) + r % 32, 64 * (r / 32) + r % 32 + 32};
  if (s == CpShape::s4x256b) return {32 * r};  // CUTLASS SM100_UTCCP_4dp256bit (docs/tcgen05.md)
  return {r};
}

model::tcgen05::CpShape simulated_shape(CpShape s, CpMulticast m) {
  using MS = model::tcgen05::CpShape;
  if (s == CpShape::s128x256b) return MS::k128x256b;
  if (s == CpShape::s128x128b) return MS::k128x128b;
  if (s == CpShape::s64x128b) return m == CpMulticast::warpx2_02_13 ? MS::k64x128b_02_13 : MS::k64x128b_01_23;
  if (s == CpShape::s32x128b) return MS::k32x128b_warpx4;
  return MS::k4x256b;
}

const char* const kTargets[] = {"sm_100a", "sm_100f", "sm_103a", "sm_110f", "sm_100", "sm_90a", "sm_120"};

}  // namespace

rc::Gen<CpDescription> tcgen05_cp_gen() {
  return rc::gen::exec([] {
    CpDescription c;
    c.shape = CpShape(*rc::gen::inRange(0, 5));
    c.multicast = CpMulticast(*rc::gen::inRange(0, 4));
    if (*rc::gen::inRange(0, 2)) {  // half the time a valid pairing
      if (c.shape == CpShape::s64x128b) c.multicast = *rc::gen::inRange(0, 2) ? CpMulticast::warpx2_02_13 : CpMulticast::warpx2_01_23;
      else if (c.shape == CpShape::s32x128b) c.multicast = CpMulticast::warpx4;
      else c.multicast = CpMulticast::none;
    }
    c.cta_group = *rc::gen::inRange(1, 3);
    c.src_fmt = std::vector<std::string>{"", "", "b6x16_p32", "b4x16_p64"}[*rc::gen::inRange(0, 4)];
    const int t = *rc::gen::inRange(0, 10);
    c.target = *verifiers::req::parse_target(kTargets[t < 4 ? t : t < 8 ? 0 : t - 4]);
    return c;
  });
}

Verdict tcgen05_cp_property(const CpDescription& c) {
  using namespace verifiers::tcgen05;
  const bool pairing_ok = table_allows(c.shape, c.multicast);
  const bool target_ok = c.target.sm >= 100 && (c.target.suffix == 'a' || c.target.suffix == 'f');
  const verifiers::Outcome o = verify_cp(c);
  const std::string what = cp_mnemonic(c) + " on " + c.target.text;
  if (o.accepted != (pairing_ok && target_ok))
    return Verdict::fail("verify_cp " + std::string(o.accepted ? "accepts " : "rejects ") + what + " but the table " +
                         (pairing_ok && target_ok ? "allows it" : "does not"));
  if (!o.accepted) {
    const std::string want =
        !pairing_ok ? table_diagnostic(c.shape, c.multicast)
                    : "tcgen05.cp supported only on arch-conditional or family-conditional variants from SM100 onwards.";
    if (o.diagnostics.size() != 1 || o.diagnostics[0] != want)
      return Verdict::fail("verify_cp's diagnostic for " + what + " is '" +
                           (o.diagnostics.empty() ? std::string() : o.diagnostics[0]) + "', expected '" + want + "'");
    return Verdict{Verdict::kPass, "rejected"};
  }
  const auto sim = simulated_shape(c.shape, c.multicast);
  if (int(model::tcgen05::cp_rows(sim)) != table_rows(c.shape))
    return Verdict::fail(std::string("the simulator copies ") + std::to_string(model::tcgen05::cp_rows(sim)) +
                         " rows for " + what);
  for (uint32_t r = 0; r < model::tcgen05::cp_rows(sim); ++r) {
    const auto lanes = model::tcgen05::cp_lanes(sim, r);
    if (std::set<uint32_t>(lanes.begin(), lanes.end()) != table_lanes(c.shape, c.multicast, r) ||
        lanes.size() != table_lanes(c.shape, c.multicast, r).size())
      return Verdict::fail("the simulator writes row " + std::to_string(r) + " of " + what + " to other lanes than the table");
  }
  return Verdict{Verdict::kPass, "accepted and simulated"};
}

nlohmann::json to_json(const CpDescription& c) {
  using namespace verifiers::tcgen05;
  nlohmann::ordered_json j;
  j["verifier"] = "tcgen05-cp";
  j["shape"] = cp_shape_name(c.shape);
  j["multicast"] = c.multicast == CpMulticast::none ? nlohmann::ordered_json() : nlohmann::ordered_json(cp_multicast_name(c.multicast));
  j["cta_group"] = c.cta_group;
  j["src_fmt"] = c.src_fmt.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.src_fmt);
  j["target"] = c.target.text;
  return j;
}

}  // namespace ptxsim::fuzz
