#include "tools/fuzz/smem_desc_gen.h"

#include <cstdio>
#include <initializer_list>

#include "model/tcgen05/descriptors.h"
#include "model/wgmma/smem_desc.h"

namespace ptxsim::fuzz {
namespace {

uint64_t field(uint64_t w, unsigned lo, unsigned n) { return (w >> lo) & ((uint64_t{1} << n) - 1); }
uint64_t with_field(uint64_t w, unsigned lo, unsigned n, uint64_t v) {
  const uint64_t mask = ((uint64_t{1} << n) - 1) << lo;
  return (w & ~mask) | ((v << lo) & mask);
}
template <class T>
T pick(std::initializer_list<T> vs) {
  return *(vs.begin() + *rc::gen::inRange<size_t>(0, vs.size()));
}
std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016llx", (unsigned long long)v);
  return b;
}

// ---- UMMA: PTX Table 40 ----
// Bytes in one swizzled row for the 3-bit layout code (0 none, 1 128B/32B atom, 2 128B, 4 64B, 6 32B).
uint64_t umma_row_bytes(uint64_t layout) { return layout == 4 ? 64 : layout == 6 ? 32 : 128; }
// PTX: the base offset is 0 when the pattern starts at a (8 x row bytes) boundary, otherwise
// (pattern start >> 7) & 7. Used by the generator to make typical words (a matrix that starts where
// its pattern does); the statement has no base-offset rule, since a matrix may start mid-pattern.
uint64_t isa_base_offset(uint64_t word) {
  const uint64_t start = field(word, 0, 14) << 4, pattern = 8 * umma_row_bytes(field(word, 61, 3));
  return start % pattern == 0 ? 0 : (start >> 7) & 7;
}

}  // namespace

std::vector<DescRule> isa_umma_desc_broken_rules(uint64_t w) {
  std::vector<DescRule> out;
  if (field(w, 46, 3) != 1) out.push_back({"bits 48:46 are the fixed 0b001", "version (bits 48:46)"});
  if (field(w, 14, 2)) out.push_back({"bits 15:14 are 0", "bits 15:14"});
  if (field(w, 30, 2)) out.push_back({"bits 31:30 are 0", "bits 31:30"});
  if (field(w, 53, 8)) out.push_back({"bits 60:53 are 0", "bits 60:53"});
  const uint64_t layout = field(w, 61, 3);
  if (layout == 3 || layout == 5 || layout == 7) {
    out.push_back({"layout (bits 63:61) is 0, 1, 2, 4 or 6", "layout type (bits 63:61)"});
    return out;  // the base-offset rule needs a layout
  }
  // LBO mode 1 (absolute LBO, sm_103a): only with the 128B swizzle and base offset 0.
  if (field(w, 52, 1) && (layout != 2 || field(w, 49, 3)))
    out.push_back({"absolute LBO mode only with 128B swizzle and base offset 0", "bit 52"});
  // No base-offset rule: the field places the swizzle pattern's row 0, and the descriptor does not
  // say where the pattern starts (a matrix may start mid-pattern with base offset 0, as CUTLASS's
  // do); without swizzling it has no meaning (docs/tcgen05.md "Shared-memory descriptors").
  return out;
}

rc::Gen<uint64_t> umma_desc_gen() {
  return rc::gen::exec([] {
    uint64_t w = 0;
    w = with_field(w, 0, 14, *rc::gen::inRange<uint64_t>(0, 1 << 14));
    w = with_field(w, 16, 14, *rc::gen::inRange<uint64_t>(0, 1 << 14));
    w = with_field(w, 32, 14, *rc::gen::inRange<uint64_t>(0, 1 << 14));
    w = with_field(w, 46, 3, 1);
    const uint64_t layout = pick<uint64_t>({0, 1, 2, 2, 4, 6});
    w = with_field(w, 61, 3, layout);
    if (layout != 0) {
      if (*rc::gen::inRange(0, 3) == 0)  // a pattern-aligned start
        w = with_field(w, 0, 14, field(w, 0, 14) & ~((8 * umma_row_bytes(layout) >> 4) - 1));
      w = with_field(w, 49, 3, isa_base_offset(w));
    }
    if (layout == 2 && field(w, 49, 3) == 0 && *rc::gen::inRange(0, 6) == 0) w = with_field(w, 52, 1, 1);
    const int sel = *rc::gen::inRange(0, 10);
    if (sel == 0) return *rc::gen::arbitrary<uint64_t>();
    if (sel < 4) return w;
    switch (*rc::gen::inRange(0, 8)) {  // one field next to its boundary
      case 0: return with_field(w, 46, 3, pick<uint64_t>({0, 2, 3, 5, 7}));
      case 1: return w | uint64_t{1} << pick<unsigned>({14, 15, 30, 31, 53, 54, 60});
      case 2: return with_field(w, 61, 3, *rc::gen::inRange<uint64_t>(0, 8));
      case 3: return with_field(w, 49, 3, *rc::gen::inRange<uint64_t>(0, 8));
      case 4: return with_field(w, 49, 3, (field(w, 49, 3) + pick<uint64_t>({1, 7})) & 7);
      case 5: return with_field(w, 52, 1, !field(w, 52, 1));
      case 6: return with_field(w, 0, 14, field(w, 0, 14) + pick<uint64_t>({2, 8, 16, 32, 64}));  // 32..1024 bytes on
      default: return with_field(w, 0, 14, field(w, 0, 14) & ~uint64_t{0x3F});  // to a 1024-byte boundary
    }
  });
}

Verdict umma_desc_property(const uint64_t& w) {
  namespace mt = model::tcgen05;
  const mt::SmemDescriptor d = mt::SmemDescriptor::decode(w);
  if (d.encode() != w) return Verdict::fail("encode(decode(" + hex(w) + ")) = " + hex(d.encode()));
  const auto rules = isa_umma_desc_broken_rules(w);
  const auto model = mt::validate(d);
  if (model && model->find("bits") == std::string::npos && model->find("bit 52") == std::string::npos)
    return Verdict::fail("the rejection '" + *model + "' names no field");
  const uint64_t layout = field(w, 61, 3);
  // Classified: the ISA defines them, the simulator does not simulate them (and says so).
  const bool unsimulated = layout == 1 || field(w, 52, 1);
  if (model && rules.empty() && unsimulated && model->find("not simulated") != std::string::npos)
    return Verdict{Verdict::kPass, "valid, not simulated (128B/32B atom or absolute LBO)"};
  if (model.has_value() != !rules.empty()) {
    return Verdict::fail("validate " + (model ? "rejects (" + *model + ")" : std::string("accepts")) + " " + hex(w) +
                         " but the ISA's rules " + (rules.empty() ? std::string("accept it") : "reject it (" + rules[0].rule + ")"));
  }
  if (model && model->find(rules[0].field) == std::string::npos && !unsimulated)
    return Verdict::fail("validate's rejection '" + *model + "' is not the first broken rule (" + rules[0].rule + ")");
  return Verdict{Verdict::kPass, model ? "rejected" : "accepted"};
}

// ---- wgmma (sm_90): PTX 9.7.15.5.1.2.2 ----

std::vector<DescRule> isa_wgmma_desc_broken_rules(uint64_t w) {
  std::vector<DescRule> out;
  // Fields: 13:0 start, 29:16 LBO, 45:32 SBO, 51:49 base offset, 63:62 swizzle; the rest reserved.
  if (field(w, 14, 2) || field(w, 30, 2) || field(w, 46, 3) || field(w, 52, 10))
    out.push_back({"reserved bits (15:14, 31:30, 48:46, 61:52) are 0", "reserved bits"});
  // No base-offset rule: it has no meaning without a swizzle, and with one it places the pattern.
  return out;
}

rc::Gen<uint64_t> wgmma_desc_gen() {
  return rc::gen::exec([] {
    uint64_t w = 0;
    w = with_field(w, 0, 14, *rc::gen::inRange<uint64_t>(0, 1 << 14));
    w = with_field(w, 16, 14, *rc::gen::inRange<uint64_t>(0, 1 << 14));
    w = with_field(w, 32, 14, *rc::gen::inRange<uint64_t>(0, 1 << 14));
    w = with_field(w, 62, 2, *rc::gen::inRange<uint64_t>(0, 4));
    if (field(w, 62, 2)) w = with_field(w, 49, 3, *rc::gen::inRange<uint64_t>(0, 8));
    const int sel = *rc::gen::inRange(0, 10);
    if (sel == 0) return *rc::gen::arbitrary<uint64_t>();
    if (sel < 4) return w;
    switch (*rc::gen::inRange(0, 3)) {
      case 0: return w | uint64_t{1} << pick<unsigned>({14, 15, 30, 31, 46, 47, 48, 52, 57, 61});
      case 1: return with_field(w, 62, 2, 0);  // drop the swizzle, keep the base offset
      default: return with_field(w, 49, 3, pick<uint64_t>({0, 1, 7}));
    }
  });
}

Verdict wgmma_desc_property(const uint64_t& w) {
  namespace wg = model::wgmma;
  const wg::SmemDesc d = wg::decode(w);
  if (wg::encode(d) != w) return Verdict::fail("encode(decode(" + hex(w) + ")) = " + hex(wg::encode(d)));
  const wg::SmemDesc again = wg::decode(wg::encode(d));
  if (again.start_address != d.start_address || again.leading_byte_offset != d.leading_byte_offset ||
      again.stride_byte_offset != d.stride_byte_offset || again.base_offset != d.base_offset ||
      again.layout != d.layout || again.reserved != d.reserved)
    return Verdict::fail("decode(encode(d)) != d for " + hex(w));
  const auto rules = isa_wgmma_desc_broken_rules(w);
  const auto problems = wg::validate(d);
  if (problems.size() != rules.size())
    return Verdict::fail("validate reports " + std::to_string(problems.size()) + " problems for " + hex(w) +
                         " but the ISA's rules find " + std::to_string(rules.size()) +
                         (rules.empty() ? std::string() : " (first: " + rules[0].rule + ")"));
  for (size_t i = 0; i < rules.size(); ++i)
    if (problems[i].find(rules[i].field) == std::string::npos)
      return Verdict::fail("validate's problem '" + problems[i] + "' does not name " + rules[i].field);
  return Verdict{Verdict::kPass, problems.empty() ? "accepted" : "rejected"};
}

nlohmann::json desc_to_json(uint64_t word) { return nlohmann::json{{"descriptor", hex(word)}}; }

}  // namespace ptxsim::fuzz
