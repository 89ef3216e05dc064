#include "verifiers/tcgen05/kind_word.h"

namespace ptxsim::verifiers::tcgen05 {

namespace {
constexpr const char* kKindNames[] = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"};
constexpr MmaKind kKindValues[] = {MmaKind::f16,      MmaKind::tf32, MmaKind::f8f6f4,  MmaKind::i8,
                                   MmaKind::mxf8f6f4, MmaKind::mxf4, MmaKind::mxf4nvf4};
}  // namespace

const char* kind_name(MmaKind k) {
  for (size_t i = 0; i < std::size(kKindValues); ++i)
    if (kKindValues[i] == k) return kKindNames[i];
  return "?";
}

std::optional<MmaKind> kind_from_name(const std::string& s) {
  for (size_t i = 0; i < std::size(kKindNames); ++i)
    if (s == kKindNames[i]) return kKindValues[i];
  return std::nullopt;
}

std::optional<MmaKind> kind_from_value(unsigned v) {
  for (MmaKind k : kKindValues)
    if (static_cast<unsigned>(k) == v) return k;
  return std::nullopt;
}

const char* scale_vec_name(ScaleVec v) {
  switch (v) {
    case ScaleVec::x1:
      return "1X";
    case ScaleVec::x2:
      return "2X";
    case ScaleVec::x4:
      return "4X";
  }
  return "?";
}

const char* collector_name(CollectorA c) {
  switch (c) {
    case CollectorA::discard:
      return "discard";
    case CollectorA::fill:
      return "fill";
    case CollectorA::use:
      return "use";
    case CollectorA::lastuse:
      return "lastuse";
  }
  return "?";
}

uint16_t pack_kind_word(const KindWordFields& f) {
  return static_cast<uint16_t>(((f.cta_group & 3u) << kCtaGroupShift) | ((f.scale_vec_size & 3u) << kScaleVecShift) |
                               (unsigned(f.scale_input_acc) << kScaleInputAccBit) |
                               (unsigned(f.block_scale) << kBlockScaleBit) | ((f.mma_kind & 7u) << kMmaKindShift));
}

KindWordFields unpack_kind_word(uint16_t raw) {
  KindWordFields f;
  f.cta_group = (raw >> kCtaGroupShift) & 3u;
  f.scale_vec_size = (raw >> kScaleVecShift) & 3u;
  f.scale_input_acc = (raw >> kScaleInputAccBit) & 1u;
  f.block_scale = (raw >> kBlockScaleBit) & 1u;
  f.mma_kind = (raw >> kMmaKindShift) & 7u;
  return f;
}

KindWordFields kind_word_fields(const MmaDescription& m) {
  KindWordFields f;
  f.cta_group = m.cta_group;
  f.scale_vec_size = m.scale_vec ? static_cast<unsigned>(*m.scale_vec) : 0u;
  f.scale_input_acc = m.scale_input_acc;
  f.block_scale = m.block_scale;
  f.mma_kind = static_cast<unsigned>(m.kind);
  return f;
}

uint16_t kind_word(const MmaDescription& m) {
  return static_cast<uint16_t>(pack_kind_word(kind_word_fields(m)) | (m.weight_stationary ? 1u : 0u));
}

uint8_t collector_word(CollectorA c, bool ashift) {
  return static_cast<uint8_t>(static_cast<unsigned>(c) | (ashift ? 4u : 0u));
}

const std::array<const char*, 13> kKindLadder = {
    "INT8 type is supported only on arch-conditional variants.",
    "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants.",
    "Explicit scale vector size is supported only on arch-conditional variants.",
    "Scale input accumulator is not supported on this architecture.",
    "Scale input accumulator can only be used with f16 and tf32 types",
    "Block scale is not supported for f16, tf32, f8f6f4, and i8 types",
    "ashift is not supported with tcgen05.mma.block_scale variants",
    "cta_group::2 is not supported with weight stationary",
    "Cannot use weight stationary with mxf8f6f4 and fp4 types",
    "Cannot use collector::a::use or colletor::a::fill with ashift",
    "Cannot use 2X or 4X as scale vector size for mxf8f6f4 type",
    "Cannot use 1X as scale vector size for mxf4nvf4 type",
    "Cannot use 1X or 4X as scale vector size for mxf4 type",
};

const char* const kMmaTargetDiagnostic =
    "tcgen05.mma supported only on arch-conditional or family-conditional variants from SM100 onwards.";
const char* const kWaitTargetDiagnostic =
    "tcgen05.wait supported only on arch-conditional or family-conditional variants from SM100 onwards.";

int first_failing_kind_rule(const MmaDescription& m) {
  const KindWordFields f = kind_word_fields(m);
  const uint16_t raw = kind_word(m);
  const MmaKind k = m.kind;
  const bool mxf4_family = k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4;
  const bool ws = m.weight_stationary;
  // Rule 1-3: arch gates.
  if (k == MmaKind::i8 && !m.arch_conditional) return 1;
  if (mxf4_family && m.sparse && !m.arch_conditional) return 2;
  if (f.scale_vec_size != 0 && !m.arch_conditional) return 3;
  // Rule 4: scale-input-accumulator needs SM100A (the seed's "non-SM100A").
  if (m.scale_input_acc && !(m.target.sm == 100 && m.target.suffix == 'a')) return 4;
  if (m.scale_input_acc && k != MmaKind::f16 && k != MmaKind::tf32) return 5;
  if (m.block_scale && (k == MmaKind::f16 || k == MmaKind::tf32 || k == MmaKind::f8f6f4 || k == MmaKind::i8)) return 6;
  if (m.ashift && m.block_scale) return 7;
  // Rule 8 reads the overlaid word: ws in bit 0 on top of cta_group::2 gives the selector 3.
  if ((raw & 3u) == 3u) return 8;
  if (ws && (k == MmaKind::mxf8f6f4 || k == MmaKind::f8f6f4 || k == MmaKind::mxf4)) return 9;
  if (m.ashift && (m.collector_a == CollectorA::use || m.collector_a == CollectorA::fill)) return 10;
  if (k == MmaKind::mxf8f6f4 && f.scale_vec_size > 0) return 11;
  if (k == MmaKind::mxf4nvf4 && f.scale_vec_size == 0) return 12;
  if (k == MmaKind::mxf4 && (f.scale_vec_size == 0 || f.scale_vec_size == 2)) return 13;
  return 0;
}

std::optional<std::string> check_kind_ladder(const MmaDescription& m) {
  int rule = first_failing_kind_rule(m);
  if (rule == 0) return std::nullopt;
  return std::string(kKindLadder[rule - 1]);
}

std::optional<std::string> check_mma_backend(const MmaDescription& m) {
  if (!req::is_conditional_sm100_plus(m.target)) return std::string(kMmaTargetDiagnostic);
  if (m.ashift && m.block_scale) return std::string(kKindLadder[6]);
  if (m.ashift && (m.collector_a == CollectorA::use || m.collector_a == CollectorA::fill))
    return std::string(kKindLadder[9]);
  return std::nullopt;
}

std::string mma_mnemonic(const MmaDescription& m) {
  std::string s = "tcgen05.mma";
  if (m.weight_stationary) s += ".ws";
  if (m.sparse) s += ".sp";
  s += ".cta_group::" + std::to_string(m.cta_group);
  s += std::string(".kind::") + kind_name(m.kind);
  // A scale-vector size prints only with .block_scale: the seed's "silently miscompiled" case of a
  // non-block-scale MMA with a scale-vector size loses it here.
  if (m.block_scale) {
    s += ".block_scale";
    if (m.scale_vec) s += std::string(".scale_vec::") + scale_vec_name(*m.scale_vec);
  }
  if (m.ashift) s += ".ashift";
  if (m.collector_a != CollectorA::discard)
    s += std::string(m.weight_stationary ? ".collector::b0::" : ".collector::a::") + collector_name(m.collector_a);
  return s;
}

Outcome verify_kind(const MmaDescription& m) {
  Outcome out;
  const int rule = first_failing_kind_rule(m);
  std::optional<std::string> d = rule ? std::optional<std::string>(kKindLadder[rule - 1]) : check_mma_backend(m);
  if (d) {
    out.accepted = false;
    out.diagnostics.push_back(*d);
    out.result = {{"rule", rule == 0 ? nlohmann::json("backend") : nlohmann::json(rule)}};
    return out;
  }
  const uint16_t kw = kind_word(m);
  const uint8_t cw = collector_word(m.collector_a, m.ashift);
  out.result_lines.push_back("kind word: " + req::hex(kw));
  out.result_lines.push_back("collector word: " + req::hex(cw));
  out.result_lines.push_back("ptx: " + mma_mnemonic(m));
  const KindWordFields f = kind_word_fields(m);
  out.result = {{"kind_word", kw},
                {"collector_word", cw},
                {"ptx", mma_mnemonic(m)},
                {"fields",
                 {{"cta_group", f.cta_group},
                  {"scale_vec_size", f.scale_vec_size},
                  {"scale_input_acc", f.scale_input_acc},
                  {"block_scale", f.block_scale},
                  {"mma_kind", f.mma_kind}}}};
  return out;
}

MmaDescription parse_kind_request(const nlohmann::json& r) {
  req::check_keys(r, {"kind", "cta_group", "scale_vec_size", "scale_input_acc", "block_scale", "weight_stationary",
                      "sparse", "ashift", "collector_a", "arch_conditional", "target"});
  MmaDescription m;
  m.kind = kKindValues[req::get_choice(r, "kind", {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"})];
  int64_t cg = req::get_int(r, "cta_group");
  if (cg != 1 && cg != 2) req::fail("key \"cta_group\" must be 1 or 2, got " + std::to_string(cg));
  m.cta_group = static_cast<unsigned>(cg);
  if (auto sv = req::get_opt_string(r, "scale_vec_size")) {
    if (*sv == "1X")
      m.scale_vec = ScaleVec::x1;
    else if (*sv == "2X")
      m.scale_vec = ScaleVec::x2;
    else if (*sv == "4X")
      m.scale_vec = ScaleVec::x4;
    else
      req::fail("key \"scale_vec_size\" must be null, \"1X\", \"2X\" or \"4X\", got \"" + *sv + "\"");
  }
  m.scale_input_acc = req::get_bool(r, "scale_input_acc", false);
  m.block_scale = req::get_bool(r, "block_scale", false);
  m.weight_stationary = req::get_bool(r, "weight_stationary", false);
  m.sparse = req::get_bool(r, "sparse", false);
  m.ashift = req::get_bool(r, "ashift", false);
  if (r.contains("collector_a") && !r["collector_a"].is_null())
    m.collector_a = static_cast<CollectorA>(req::get_choice(r, "collector_a", {"discard", "fill", "use", "lastuse"}));
  m.target = req::get_target(r, "target", "sm_100a");
  m.arch_conditional = req::get_bool(r, "arch_conditional", m.target.suffix == 'a' || m.target.suffix == 'f');
  return m;
}

}  // namespace ptxsim::verifiers::tcgen05

namespace ptxsim::verifiers {
Outcome handle_tcgen05_kind(const nlohmann::json& request) {
  return tcgen05::verify_kind(tcgen05::parse_kind_request(request));
}
}  // namespace ptxsim::verifiers
