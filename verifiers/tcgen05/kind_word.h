// The tcgen05.mma kind word of the seed tcgen05-mma-walkthrough.txt: a compiler-internal 9-bit word
// (cta_group bits 0..1, scale_vec_size 2..3, scale_input_acc 4, block_scale 5, mma_kind 6..8; the
// walkthrough's f16 MMA packs to 0xC1), the 13-rule verifier ladder over it with the seed's
// diagnostics, the backend (NVPTX MIR) re-check, the collector word and the PTX mnemonic.
//
// This word is NOT what the hardware decodes: PTX carries kind, cta_group and the scale-vector
// size as instruction qualifiers and the rest in the 32-bit instruction descriptor (see
// idesc.h; shared/reference/ptx-facts.md §5.4 and §7b). The verifier reproduces the seed.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "verifiers/tcgen05/request.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers::tcgen05 {

// mma_kind values. The seed fixes f16 = 3; the others follow the public reverse-engineered table
// of the same compiler (value 6 is unassigned). See docs/verifiers-tcgen05.md.
enum class MmaKind : uint8_t { mxf4nvf4 = 0, i8 = 1, mxf8f6f4 = 2, f16 = 3, tf32 = 4, f8f6f4 = 5, mxf4 = 7 };
// scale_vec_size values: 0 = 1X (also "not given"), 1 = 2X, 2 = 4X; 3 is reserved.
enum class ScaleVec : uint8_t { x1 = 0, x2 = 1, x4 = 2 };
enum class CollectorA : uint8_t { discard = 0, fill = 1, use = 2, lastuse = 3 };

const char* kind_name(MmaKind k);
std::optional<MmaKind> kind_from_name(const std::string& s);
std::optional<MmaKind> kind_from_value(unsigned v);  // nullopt for the unassigned value 6
const char* scale_vec_name(ScaleVec v);              // "1X", "2X", "4X"
const char* collector_name(CollectorA c);            // "discard", "fill", "use", "lastuse"

// The five fields of the 9-bit word, as raw field values (so every 9-bit value unpacks).
struct KindWordFields {
  unsigned cta_group = 0;       // 2 bits
  unsigned scale_vec_size = 0;  // 2 bits
  bool scale_input_acc = false;
  bool block_scale = false;
  unsigned mma_kind = 0;  // 3 bits
  bool operator==(const KindWordFields&) const = default;
};

inline constexpr unsigned kCtaGroupShift = 0, kScaleVecShift = 2, kScaleInputAccBit = 4, kBlockScaleBit = 5,
                          kMmaKindShift = 6;
inline constexpr uint16_t kKindWordMask = 0x1ff;

// Fields wider than their bit ranges are truncated to them.
uint16_t pack_kind_word(const KindWordFields& f);
KindWordFields unpack_kind_word(uint16_t raw);  // bits above 8 are ignored

// One tcgen05.mma as the verifier sees it (the request of the "tcgen05-kind" verifier).
struct MmaDescription {
  MmaKind kind = MmaKind::f16;
  unsigned cta_group = 1;             // 1 or 2
  std::optional<ScaleVec> scale_vec;  // nullopt: not given (packs as 1X)
  bool scale_input_acc = false;
  bool block_scale = false;
  bool weight_stationary = false;
  bool sparse = false;
  bool ashift = false;
  CollectorA collector_a = CollectorA::discard;
  bool arch_conditional = true;
  req::Target target{100, 'a', "sm_100a"};
};

KindWordFields kind_word_fields(const MmaDescription& m);
// The packed word with the weight-stationary overlay: the ws predicate is ORed into bit 0, so a
// cta_group::1 word is unchanged and a cta_group::2 word gets the reserved selector 3 (rule 8).
uint16_t kind_word(const MmaDescription& m);

// The collector word (ptxsim's layout; the seed only fixes fill = 0x01): collector_a in bits
// 0..1 (discard 0, fill 1, use 2, lastuse 3), ashift in bit 2.
uint8_t collector_word(CollectorA c, bool ashift);

// The 13 ladder rules' diagnostics, index i = rule i+1 (rule 10 keeps the seed's "colletor").
extern const std::array<const char*, 13> kKindLadder;
// The first ladder rule (1..13) the MMA breaks, or 0.
int first_failing_kind_rule(const MmaDescription& m);
std::optional<std::string> check_kind_ladder(const MmaDescription& m);

// Backend rules (the seed's Stage 5, verify_tcgen05_mma): the target gate, then rules 7 and 10
// again (they cannot fire after the ladder passed; they matter when the backend check runs on
// its own, as `ptxsim check` does).
extern const char* const kMmaTargetDiagnostic;
extern const char* const kWaitTargetDiagnostic;
std::optional<std::string> check_mma_backend(const MmaDescription& m);

// The PTX mnemonic the MMA prints as, e.g. "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill".
std::string mma_mnemonic(const MmaDescription& m);

// The whole verifier: the ladder, then the backend rules; on success the kind word.
Outcome verify_kind(const MmaDescription& m);
MmaDescription parse_kind_request(const nlohmann::json& request);

}  // namespace ptxsim::verifiers::tcgen05
