#include "tools/fuzz/idesc_gen.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>

#include "model/tcgen05/descriptors.h"
#include "verifiers/tcgen05/idesc.h"

namespace ptxsim::fuzz {
namespace {

using verifiers::tcgen05::MmaKind;
namespace mt = model::tcgen05;

uint32_t field(uint32_t w, unsigned lo, unsigned n) { return (w >> lo) & ((1u << n) - 1u); }
uint32_t with_field(uint32_t w, unsigned lo, unsigned n, uint32_t v) {
  const uint32_t mask = ((1u << n) - 1u) << lo;
  return (w & ~mask) | ((v << lo) & mask);
}
bool in(uint32_t v, std::initializer_list<uint32_t> s) { return std::find(s.begin(), s.end(), v) != s.end(); }
bool block_scaled(MmaKind k) { return k == MmaKind::mxf8f6f4 || k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4; }
bool mxf4ish(MmaKind k) { return k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4; }

template <class T>
T pick(std::initializer_list<T> vs) {
  return *(vs.begin() + *rc::gen::inRange<size_t>(0, vs.size()));
}

// ---- The ISA's rules (PTX Tables 39, 42, 43, 44; ptx-facts §5.4, §5.6) ---------------------------

// Table 39: the M and N a form allows.
bool table39_shape(const IdescCase& c, uint32_t M, uint32_t N) {
  const bool bs = block_scaled(c.kind);
  if (c.ws) {  // .ws: cta_group::1 and the non-block-scaled kinds only
    if (c.cta_group != 1 || bs) return false;
    return in(M, {32, 64, 128}) && (c.sparse ? in(N, {64, 128}) : in(N, {64, 128, 256}));
  }
  const bool step8 = N >= 8 && N <= 256 && N % 8 == 0, step16 = N >= 16 && N <= 256 && N % 16 == 0;
  if (bs) {
    if (c.cta_group == 1) return M == 128 && step8;
    return (c.sparse ? M == 256 : in(M, {128, 256})) && step16;
  }
  if (c.kind == MmaKind::i8) {
    if (c.cta_group == 1) return in(M, {64, 128}) && (in(N, {8, 16, 24, 32}) || (step16 && N >= 32));
    return in(M, {128, 256}) && N >= 32 && N <= 256 && N % 32 == 0;
  }
  return c.cta_group == 1 ? in(M, {64, 128}) && step8 : in(M, {128, 256}) && step16;
}

}  // namespace

std::vector<IdescRule> isa_idesc_broken_rules(const IdescCase& c) {
  std::vector<IdescRule> out;
  const uint32_t w = c.word;
  auto broken = [&](const char* rule, const std::string& fld) { out.push_back({rule, fld}); };
  auto reserved = [&](std::initializer_list<unsigned> bits) {
    for (unsigned b : bits)
      if (field(w, b, 1)) broken("reserved bits are 0", "reserved bit " + std::to_string(b));
  };
  if (field(w, 2, 1) != uint32_t(c.sparse)) broken("sparse flag (bit 2) matches .sp", "(bit 2)");
  if (!block_scaled(c.kind)) {  // Table 42
    reserved({6, 23, 29});
    // Bits 1:0 are the sparsity selector "if sparsity is enabled" (Table 42: 0-3), which "must be 0
    // for .kind::i8 and .kind::f8f6f4" (9.7.16.10.8.4).
    if (c.sparse && field(w, 0, 2) && (c.kind == MmaKind::i8 || c.kind == MmaKind::f8f6f4))
      broken("sparsity selector 0 for sparse i8 / f8f6f4", "(bits 0-1)");
    if (field(w, 3, 1) && c.kind != MmaKind::i8) broken("saturate only for i8", "(bit 3)");
    const uint32_t d = field(w, 4, 2), a = field(w, 7, 3), b = field(w, 10, 3);
    auto ab_ok = [&](uint32_t t) {
      switch (c.kind) {
        case MmaKind::f16:
        case MmaKind::i8: return t <= 1;
        case MmaKind::tf32: return t == 2;
        default: return in(t, {0, 1, 3, 4, 5});
      }
    };
    const bool d_ok = c.kind == MmaKind::tf32 ? d == 1 : c.kind == MmaKind::i8 ? d == 2 : d <= 1;
    if (!d_ok) broken("D type for the kind", "(bits 4-5)");
    if (!ab_ok(a)) broken("A type for the kind", "(bits 7-9");
    if (!ab_ok(b)) broken("B type for the kind", "10-12)");
    if (c.kind == MmaKind::f16 && ab_ok(a) && ab_ok(b)) {
      if (a != b) broken("f16: A and B types equal", "10-12)");
      else if (a == 1 && d != 1) broken("BF16 inputs need an F32 D", "(bits 4-5");
    }
    if (c.kind == MmaKind::i8 && (field(w, 13, 1) || field(w, 14, 1))) broken("no negate for i8", "(bits 13-14)");
    if (field(w, 30, 2) && !c.ws) broken("B-reuse shift only with .ws", "(bits 30-31)");
    if (!table39_shape(c, field(w, 24, 5) << 4, field(w, 17, 6) << 3)) broken("Table 39 shape", "M=");
    return out;
  }
  // Tables 43 (mxf8f6f4) and 44 (mxf4, mxf4nvf4).
  const bool f4 = mxf4ish(c.kind);
  reserved({0, 1, 3, 6, 24, 25, 26});
  if (f4) reserved({12});
  else reserved({31});
  if (f4 && (field(w, 4, 2) % 2 || field(w, 29, 2) % 2)) broken("mxf4 scale-factor IDs 0 or 2", "(bits 4-5, 29-30)");
  const uint32_t a = field(w, 7, 3), b = field(w, 10, f4 ? 2 : 3);
  if (f4 ? a != 1 : !in(a, {0, 1, 3, 4, 5})) broken("A type for the kind", "(bits 7-9)");
  if (f4 ? b != 1 : !in(b, {0, 1, 3, 4, 5})) broken("B type for the kind", f4 ? "(bits 10-11)" : "(bits 10-12)");
  if (f4 && (field(w, 15, 1) || field(w, 16, 1))) broken("no transpose for mxf4*", "(bits 15-16)");
  if (!field(w, 23, 1) && c.kind != MmaKind::mxf4nvf4) broken("UE4M3 scales only for mxf4nvf4", "(bit 23");
  if (f4 && field(w, 31, 1) && !c.sm103a) broken("K = 96 only on sm_103a", "(bit 31)");
  if (!table39_shape(c, field(w, 27, 2) << 7, field(w, 17, 6) << 3)) broken("Table 39 shape", "M=");
  return out;
}

namespace {

// A descriptor every rule accepts for the case's qualifiers (when the qualifiers form an
// instruction at all), encoded here from the tables rather than with the model's encoder.
uint32_t valid_word(const IdescCase& c) {
  const bool bs = block_scaled(c.kind);
  uint32_t M, N;
  if (c.ws && c.cta_group == 1 && !bs) {
    M = pick<uint32_t>({32, 64, 128});
    N = c.sparse ? pick<uint32_t>({64, 128}) : pick<uint32_t>({64, 128, 256});
  } else if (c.cta_group == 1) {
    M = bs ? 128 : pick<uint32_t>({64, 128});
    if (c.kind == MmaKind::i8 && *rc::gen::inRange(0, 3) == 0) N = pick<uint32_t>({8, 16, 24});
    else if (c.kind == MmaKind::i8) N = 16 * *rc::gen::inRange<uint32_t>(2, 17);
    else N = 8 * *rc::gen::inRange<uint32_t>(1, 33);
  } else {
    M = bs && c.sparse ? 256 : pick<uint32_t>({128, 256});
    N = c.kind == MmaKind::i8 ? 32 * *rc::gen::inRange<uint32_t>(1, 9) : 16 * *rc::gen::inRange<uint32_t>(1, 17);
  }
  const uint32_t ta = *rc::gen::inRange(0, 2), tb = *rc::gen::inRange(0, 2);
  const uint32_t na = *rc::gen::inRange(0, 2), nb = *rc::gen::inRange(0, 2);
  uint32_t w = uint32_t(c.sparse) << 2 | (N >> 3) << 17;
  if (!bs) {
    uint32_t d = 1, a = 0, b = 0;
    switch (c.kind) {
      case MmaKind::f16:
        a = b = *rc::gen::inRange(0, 2);
        d = a == 1 ? 1 : *rc::gen::inRange(0, 2);
        break;
      case MmaKind::tf32: a = b = 2; break;
      case MmaKind::i8:
        d = 2;
        a = *rc::gen::inRange(0, 2);
        b = *rc::gen::inRange(0, 2);
        break;
      default:
        d = *rc::gen::inRange(0, 2);
        a = pick<uint32_t>({0, 1, 3, 4, 5});
        b = pick<uint32_t>({0, 1, 3, 4, 5});
    }
    const bool i8 = c.kind == MmaKind::i8;
    const uint32_t sel = c.sparse && (c.kind == MmaKind::f16 || c.kind == MmaKind::tf32) ? *rc::gen::inRange(0, 4) : 0;
    w |= sel | (i8 ? uint32_t(*rc::gen::inRange(0, 2)) : 0) << 3 | d << 4 | a << 7 | b << 10 | (i8 ? 0 : na) << 13 |
         (i8 ? 0 : nb) << 14 | ta << 15 | tb << 16 | (M >> 4) << 24 |
         (c.ws ? uint32_t(*rc::gen::inRange(0, 4)) : 0) << 30;
    return w;
  }
  const bool f4 = mxf4ish(c.kind);
  const uint32_t a = f4 ? 1 : pick<uint32_t>({0, 1, 3, 4, 5}), b = f4 ? 1 : pick<uint32_t>({0, 1, 3, 4, 5});
  const uint32_t bsf = f4 ? pick<uint32_t>({0, 2}) : *rc::gen::inRange(0, 4);
  const uint32_t asf = f4 ? pick<uint32_t>({0, 2}) : *rc::gen::inRange(0, 4);
  const uint32_t ue8m0 = c.kind == MmaKind::mxf4nvf4 ? *rc::gen::inRange(0, 2) : 1;
  const uint32_t k96 = f4 && c.sm103a ? *rc::gen::inRange(0, 2) : 0;
  w |= bsf << 4 | a << 7 | b << 10 | na << 13 | nb << 14 | (f4 ? 0 : ta) << 15 | (f4 ? 0 : tb) << 16 | ue8m0 << 23 |
       (M >> 7) << 27 | asf << 29 | k96 << 31;
  return w;
}

// Moves one field (or one qualifier) next to a rule boundary.
void mutate(IdescCase& c) {
  struct Range {
    unsigned lo, n;
  };
  static const Range dense_fields[] = {{0, 2},  {2, 1},  {3, 1},  {4, 2},  {6, 1},  {7, 3},  {10, 3}, {13, 1},
                                       {14, 1}, {15, 1}, {16, 1}, {17, 6}, {23, 1}, {24, 5}, {29, 1}, {30, 2}};
  static const Range scaled_fields[] = {{0, 2},  {2, 1},  {3, 1},  {4, 2},  {6, 1},  {7, 3},  {10, 2}, {12, 1},
                                        {13, 1}, {14, 1}, {15, 1}, {16, 1}, {17, 6}, {23, 1}, {24, 3}, {27, 2},
                                        {29, 2}, {31, 1}};
  switch (*rc::gen::inRange(0, 10)) {
    case 0: c.sparse = !c.sparse; return;
    case 1: c.ws = !c.ws; return;
    case 2: c.cta_group = 3 - c.cta_group; return;
    case 3: c.sm103a = !c.sm103a; return;
    case 4: c.word = with_field(c.word, 17, 6, pick<uint32_t>({0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 31, 32, 33, 63})); return;
    case 5:
      if (block_scaled(c.kind)) c.word = with_field(c.word, 27, 2, *rc::gen::inRange(0, 4));
      else c.word = with_field(c.word, 24, 5, pick<uint32_t>({0, 1, 2, 3, 4, 6, 8, 12, 15, 16, 17, 31}));
      return;
    default: {
      const Range r = block_scaled(c.kind) ? scaled_fields[*rc::gen::inRange<size_t>(0, std::size(scaled_fields))]
                                           : dense_fields[*rc::gen::inRange<size_t>(0, std::size(dense_fields))];
      c.word = with_field(c.word, r.lo, r.n, *rc::gen::inRange<uint32_t>(0, 1u << r.n));
    }
  }
}

verifiers::tcgen05::IdescContext verifier_context(const IdescCase& c) {
  verifiers::tcgen05::IdescContext v;
  v.kind = c.kind;
  v.cta_group = c.cta_group;
  v.sparse = c.sparse;
  v.ws = c.ws;
  v.target = c.sm103a ? verifiers::req::Target{103, 'a', "sm_103a"} : verifiers::req::Target{100, 'a', "sm_100a"};
  return v;
}

mt::Kind model_kind(MmaKind k) {
  switch (k) {
    case MmaKind::f16: return mt::Kind::F16;
    case MmaKind::tf32: return mt::Kind::TF32;
    case MmaKind::f8f6f4: return mt::Kind::F8F6F4;
    case MmaKind::i8: return mt::Kind::I8;
    case MmaKind::mxf8f6f4: return mt::Kind::MXF8F6F4;
    case MmaKind::mxf4: return mt::Kind::MXF4;
    default: return mt::Kind::MXF4NVF4;
  }
}

std::optional<std::string> model_verdict(const IdescCase& c) {
  return mt::validate(mt::InstrDescriptor::decode(c.word), mt::MmaContext{model_kind(c.kind), c.cta_group, c.sparse, c.ws});
}

// The verifier's and the model's decoders must read the same field values.
std::optional<std::string> decoders_disagree(const IdescCase& c) {
  const auto v = verifiers::tcgen05::decode_idesc(c.word, c.kind);
  if (block_scaled(c.kind)) {
    const auto m = mt::InstrDescriptorBlockScaled::decode(c.word);
    if (m.encode() != c.word) return "block-scaled encode(decode(w)) != w";
    if (v.m != m.m() || v.n != m.n() || v.a_type != m.a_format || v.a_sf_id != m.a_sf_id || v.b_sf_id != m.b_sf_id ||
        v.scale_type_ue8m0 != bool(m.scale_type) || v.k96 != bool(m.k_size) || v.sparse != bool(m.sparse) ||
        v.transpose_a != bool(m.a_major) || v.transpose_b != bool(m.b_major) || v.negate_a != bool(m.negate_a) ||
        v.negate_b != bool(m.negate_b) || v.b_type != (mxf4ish(c.kind) ? m.b_format & 3 : m.b_format))
      return "the verifier's and the model's block-scaled decoders disagree";
    return std::nullopt;
  }
  const auto m = mt::InstrDescriptor::decode(c.word);
  if (m.encode() != c.word) return "encode(decode(w)) != w";
  if (v.m != m.m() || v.n != m.n() || v.a_type != m.a_format || v.b_type != m.b_format || v.d_type != m.d_format ||
      v.sparse_selector != m.sparse_id2 || v.sparse != bool(m.sparse) || v.saturate != bool(m.saturate) ||
      v.ws_shift != m.max_shift || v.transpose_a != bool(m.a_major) || v.transpose_b != bool(m.b_major) ||
      v.negate_a != bool(m.negate_a) || v.negate_b != bool(m.negate_b))
    return "the verifier's and the model's decoders disagree";
  return std::nullopt;
}

}  // namespace

rc::Gen<IdescCase> idesc_case_gen() {
  return rc::gen::exec([] {
    IdescCase c;
    static const MmaKind kinds[] = {MmaKind::f16,      MmaKind::tf32, MmaKind::f8f6f4,  MmaKind::i8,
                                    MmaKind::mxf8f6f4, MmaKind::mxf4, MmaKind::mxf4nvf4};
    c.kind = kinds[*rc::gen::inRange(0, 7)];
    c.cta_group = *rc::gen::inRange(0, 5) < 3 ? 1 : 2;
    c.sparse = *rc::gen::inRange(0, 4) == 0;
    c.ws = !block_scaled(c.kind) && c.cta_group == 1 && *rc::gen::inRange(0, 4) == 0;
    c.sm103a = *rc::gen::inRange(0, 3) == 0;
    const int sel = *rc::gen::inRange(0, 10);
    if (sel == 0) c.word = *rc::gen::arbitrary<uint32_t>();  // anything at all
    else c.word = valid_word(c);
    if (sel >= 4) mutate(c);  // 60% near-valid
    return c;
  });
}

std::string show(const IdescCase& c) {
  char w[16];
  std::snprintf(w, sizeof w, "0x%08x", c.word);
  return std::string(w) + " kind::" + verifiers::tcgen05::kind_name(c.kind) + " cta_group::" +
         std::to_string(c.cta_group) + (c.sparse ? " .sp" : "") + (c.ws ? " .ws" : "") +
         (c.sm103a ? " sm_103a" : " sm_100a");
}

nlohmann::json to_json(const IdescCase& c) {
  char w[16];
  std::snprintf(w, sizeof w, "0x%08x", c.word);
  nlohmann::ordered_json j;
  j["verifier"] = "tcgen05-idesc";
  j["idesc"] = w;
  j["kind"] = verifiers::tcgen05::kind_name(c.kind);
  j["cta_group"] = c.cta_group;
  j["sparse"] = c.sparse;
  j["ws"] = c.ws;
  j["target"] = c.sm103a ? "sm_103a" : "sm_100a";
  return j;
}

Verdict idesc_property(const IdescCase& c) {
  if (auto e = decoders_disagree(c)) return Verdict::fail(*e + " for " + show(c));
  const auto rules = isa_idesc_broken_rules(c);
  const auto verifier = verifiers::tcgen05::check_idesc(c.word, verifier_context(c));
  const bool bs = block_scaled(c.kind);
  const bool selector_set = !bs && field(c.word, 0, 2) != 0;
  IdescCase cleared = c;
  cleared.word &= ~3u;
  if (verifier.has_value() != !rules.empty()) {
    return Verdict::fail("check_idesc " + (verifier ? "rejects (" + *verifier + ")" : std::string("accepts")) + " " +
                         show(c) + " but the ISA's rules " +
                         (rules.empty() ? std::string("accept it") : "reject it (" + rules[0].rule + ")"));
  }
  if (verifier) {
    bool named = false;
    for (const IdescRule& r : rules) named = named || verifier->find(r.verifier_field) != std::string::npos;
    if (!named) return Verdict::fail("check_idesc's rejection '" + *verifier + "' names no broken field; broken: " + rules[0].rule);
  }
  // Classified difference: the model's block-scaled validator needs the scale-vector qualifier,
  // which a case does not carry, so block-scaled words are checked verifier against the rules only.
  if (bs) return Verdict{Verdict::kPass, "block-scaled: verifier vs ISA rules only"};
  const auto model = model_verdict(c);
  if (model && model->find("bit") == std::string::npos)
    return Verdict::fail("the model's rejection '" + *model + "' names no field");
  if (model.has_value() != verifier.has_value()) {
    // Classified difference: the model rejects a non-zero selector in a dense descriptor; Table
    // 42 defines bits 1:0 only "if sparsity is enabled" and the verifier does not look at them.
    if (selector_set && model_verdict(cleared).has_value() ==
                            verifiers::tcgen05::check_idesc(cleared.word, verifier_context(cleared)).has_value()) {
      if (!c.sparse && model) return Verdict{Verdict::kPass, "model stricter: dense selector"};
    }
    return Verdict::fail("the model " + (model ? "rejects (" + *model + ")" : std::string("accepts")) + " " + show(c) +
                         " but check_idesc " + (verifier ? "rejects (" + *verifier + ")" : std::string("accepts")));
  }
  return Verdict{Verdict::kPass, verifier ? "rejected" : "accepted"};
}

}  // namespace ptxsim::fuzz
