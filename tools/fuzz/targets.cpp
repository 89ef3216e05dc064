// The fuzz targets: each pairs a generator with the properties the issue asks for.
//   tensormap  the encoder accepts exactly the parameter sets an independent statement of the
//              driver's rules accepts; accepted sets decode back to their parameters and
//              re-encode to the same 128 bytes.
//   kind-word  tcgen05 kind words: unpack(pack(f)) == f; the ladder's verdict names the first
//              failing rule in ladder order; the verifier accepts exactly when ladder and backend
//              rules all pass.
//   layout     CuTe layouts: parse(print(L)) == L; coalesce(L) is the same function as L;
//              complement(L, cosize) completes an injective L to a bijection.
//   idesc, umma-desc, wgmma-desc, tcgen05-cp, ldstmatrix-fit: see idesc_gen.h, smem_desc_gen.h,
//              tcgen05_cp_gen.h, ldstmatrix_gen.h; tma-partition: tma_partition_gen.h.
#include <cstring>
#include <set>

#include "tools/fuzz/campaign_runner.h"
#include "tools/fuzz/idesc_gen.h"
#include "tools/fuzz/ldstmatrix_gen.h"
#include "tools/fuzz/smem_desc_gen.h"
#include "tools/fuzz/tcgen05_cp_gen.h"
#include "tools/fuzz/tma_partition_gen.h"
#include "tools/fuzz/tensormap_blob_gen.h"
#include "tools/fuzz/tensormap_gen.h"
#include "verifiers/layout/layout.h"
#include "verifiers/tcgen05/kind_word.h"
#include "verifiers/tcgen05/request.h"

namespace ptxsim::fuzz {
namespace {

// ---- tensormap ----------------------------------------------------------------------------------

Verdict tensormap_property(const TmapParams& p) {
  using namespace model::tmap;
  const bool expect = predict_tmap_valid(p);
  CUtensorMap out;
  std::memset(&out, 0x5A, sizeof out);
  const EncodeResult r = run_encoder(p, &out);
  if (r.ok() != expect)
    return Verdict::fail(std::string("encoder ") + (r.ok() ? "accepted" : "rejected (" + r.message + ")") +
                         " a parameter set the driver's rules " + (expect ? "accept" : "reject"));
  if (!r.ok()) return r.message.empty() ? Verdict::fail("rejection without a message") : Verdict::pass();
  const DecodeResult d = decode(out);
  if (!d.valid()) return Verdict::fail("the encoded map does not decode: " + d.validity.message);
  const CUtensorMap again = encode(d.map);
  if (std::memcmp(&again, &out, 128) != 0) return Verdict::fail("decode -> encode changes the 128 bytes");
  if (d.map.rank != p.rank || d.map.global_address != p.addr || uint32_t(d.map.dtype) != p.dtype)
    return Verdict::fail("the decoded map lost rank, address or data type");
  return Verdict::pass();
}

// ---- kind word ----------------------------------------------------------------------------------

using verifiers::tcgen05::MmaDescription;
using verifiers::tcgen05::MmaKind;

rc::Gen<MmaDescription> mma_description_gen() {
  return rc::gen::exec([] {
    using namespace verifiers::tcgen05;
    MmaDescription m;
    static const MmaKind kinds[] = {MmaKind::mxf4nvf4, MmaKind::i8,     MmaKind::mxf8f6f4, MmaKind::f16,
                                    MmaKind::tf32,     MmaKind::f8f6f4, MmaKind::mxf4};
    m.kind = kinds[*rc::gen::inRange(0, 7)];
    m.cta_group = *rc::gen::inRange(1, 3);
    const int sv = *rc::gen::inRange(0, 4);
    if (sv < 3) m.scale_vec = ScaleVec(sv);
    m.scale_input_acc = *rc::gen::arbitrary<bool>();
    m.block_scale = *rc::gen::arbitrary<bool>();
    m.weight_stationary = *rc::gen::arbitrary<bool>();
    m.sparse = *rc::gen::arbitrary<bool>();
    m.ashift = *rc::gen::arbitrary<bool>();
    m.collector_a = CollectorA(*rc::gen::inRange(0, 4));
    m.arch_conditional = *rc::gen::arbitrary<bool>();
    static const char* targets[] = {"sm_100a", "sm_100f", "sm_103a", "sm_110a", "sm_90a", "sm_100", "sm_120a"};
    m.target = *verifiers::req::parse_target(targets[*rc::gen::inRange(0, 7)]);
    return m;
  });
}

nlohmann::json kind_request(const MmaDescription& m) {
  using namespace verifiers::tcgen05;
  nlohmann::ordered_json j;
  j["verifier"] = "tcgen05-kind";
  j["kind"] = kind_name(m.kind);
  j["cta_group"] = m.cta_group;
  j["scale_vec_size"] = m.scale_vec ? nlohmann::ordered_json(scale_vec_name(*m.scale_vec)) : nlohmann::ordered_json();
  j["scale_input_acc"] = m.scale_input_acc;
  j["block_scale"] = m.block_scale;
  j["weight_stationary"] = m.weight_stationary;
  j["sparse"] = m.sparse;
  j["ashift"] = m.ashift;
  j["collector_a"] = collector_name(m.collector_a);
  j["arch_conditional"] = m.arch_conditional;
  j["target"] = m.target.text;
  return j;
}

Verdict kind_word_property(const MmaDescription& m) {
  using namespace verifiers::tcgen05;
  const KindWordFields f = kind_word_fields(m);
  if (unpack_kind_word(pack_kind_word(f)) != f) return Verdict::fail("unpack(pack(fields)) != fields");
  const uint16_t w = kind_word(m);
  if (pack_kind_word(unpack_kind_word(w)) != (w & kKindWordMask)) return Verdict::fail("pack(unpack(word)) != word");
  const int rule = first_failing_kind_rule(m);
  const auto ladder = check_kind_ladder(m);
  if (ladder.has_value() != (rule != 0)) return Verdict::fail("check_kind_ladder disagrees with first_failing_kind_rule");
  if (rule != 0 && *ladder != kKindLadder[rule - 1])
    return Verdict::fail("the ladder reports '" + *ladder + "' but its first failing rule is " + std::to_string(rule));
  const auto backend = check_mma_backend(m);
  const verifiers::Outcome o = verify_kind(m);
  if (o.accepted != (!ladder && !backend)) return Verdict::fail("verify_kind's verdict disagrees with its rules");
  if (!o.accepted && (o.diagnostics.size() != 1 || o.diagnostics[0] != (ladder ? *ladder : *backend)))
    return Verdict::fail("verify_kind's diagnostic is not the first failing rule");
  return Verdict::pass();
}

// ---- layouts ------------------------------------------------------------------------------------

using verifiers::layout::IntTuple;
using verifiers::layout::Layout;

struct LayoutSpec {
  IntTuple shape, stride;
};

rc::Gen<LayoutSpec> layout_gen() {
  return rc::gen::exec([] {
    const int rank = *rc::gen::inRange(1, 5);
    std::vector<IntTuple> shapes, strides;
    for (int i = 0; i < rank; ++i) {
      if (*rc::gen::inRange(0, 4) == 0) {  // a nested mode of two leaves
        std::vector<IntTuple> s, d;
        for (int j = 0; j < 2; ++j) {
          s.push_back(IntTuple::integer(*rc::gen::inRange(1, 7)));
          d.push_back(IntTuple::integer(*rc::gen::inRange(0, 40)));
        }
        shapes.push_back(IntTuple::tuple(s));
        strides.push_back(IntTuple::tuple(d));
      } else {
        shapes.push_back(IntTuple::integer(*rc::gen::inRange(1, 9)));
        strides.push_back(IntTuple::integer(*rc::gen::inRange(0, 64)));
      }
    }
    if (rank == 1) return LayoutSpec{shapes[0], strides[0]};
    return LayoutSpec{IntTuple::tuple(shapes), IntTuple::tuple(strides)};
  });
}

Verdict layout_property(const LayoutSpec& spec) {
  using namespace verifiers::layout;
  const Layout l(spec.shape, spec.stride);
  const int64_t n = l.static_size();
  try {
    if (!(parse_layout(l.str()) == l)) return Verdict::fail("parse(print(L)) != L for " + l.str());
  } catch (const std::exception& e) {
    return Verdict::fail("cannot parse the printed layout " + l.str() + ": " + e.what());
  }
  const Layout c = coalesce(l);
  if (c.static_size() != n) return Verdict::fail("coalesce(" + l.str() + ") = " + c.str() + " changes the size");
  for (int64_t i = 0; i < n; ++i)
    if (c.offset(i) != l.offset(i))
      return Verdict::fail("coalesce(" + l.str() + ") = " + c.str() + " differs at index " + std::to_string(i));
  std::set<int64_t> image;
  for (int64_t i = 0; i < n; ++i) image.insert(l.offset(i));
  if (int64_t(image.size()) != n) return Verdict::pass();  // complement needs an injective layout
  Layout comp;
  try {
    comp = complement(l, l.cosize());
  } catch (const LayoutError&) {
    return Verdict::pass();  // outside complement's preconditions (strides that do not divide)
  }
  const Layout full = make_layout({l, comp});
  const int64_t m = full.static_size();
  if (m < l.cosize())
    return Verdict::fail("(L, complement(L)) with L = " + l.str() + " covers " + std::to_string(m) + " < cosize");
  std::set<int64_t> all;
  for (int64_t i = 0; i < m; ++i) all.insert(full.offset(i));
  if (int64_t(all.size()) != m || *all.begin() != 0 || *all.rbegin() != m - 1)
    return Verdict::fail("(L, complement(L, cosize)) = " + full.str() + " is not a bijection onto [0, " +
                         std::to_string(m) + ") for L = " + l.str());
  return Verdict::pass();
}

}  // namespace

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = {
      {"tensormap", "tensor-map encoder vs an independent rule statement; encode/decode round trips",
       [](const CampaignOptions& o) {
         return run_campaign<TmapParams>("tensormap", tensormap_params_gen(), tensormap_property,
                                         [](const TmapParams& p) { return to_json(p); }, o);
       }},
      {"tensormap-blob", "CUtensorMap blobs (encoder-written, one bit flipped, random): decode total, re-encode stable",
       [](const CampaignOptions& o) {
         return run_campaign<TmapBlob>("tensormap-blob", tensormap_blob_gen(), tensormap_blob_property,
                                       [](const TmapBlob& b) { return to_json(b); }, o);
       }},
      {"kind-word", "tcgen05 kind words: pack/unpack, ladder order, verifier verdict",
       [](const CampaignOptions& o) {
         return run_campaign<MmaDescription>("kind-word", mma_description_gen(), kind_word_property, kind_request, o);
       }},
      {"layout", "CuTe layouts: print/parse, coalesce, complement",
       [](const CampaignOptions& o) {
         return run_campaign<LayoutSpec>("layout", layout_gen(), layout_property,
                                         [](const LayoutSpec& s) {
                                           return nlohmann::json{{"layout", Layout(s.shape, s.stride).str()}};
                                         },
                                         o);
       }},
      {"idesc", "tcgen05 instruction descriptors x qualifiers: verifier vs ISA rules vs simulator model; decode/encode",
       [](const CampaignOptions& o) {
         return run_campaign<IdescCase>("idesc", idesc_case_gen(), idesc_property,
                                        [](const IdescCase& c) { return to_json(c); }, o);
       }},
      {"umma-desc", "sm_100 shared-memory descriptors: encode/decode identity; validate vs ISA rules, first rule named",
       [](const CampaignOptions& o) {
         return run_campaign<uint64_t>("umma-desc", umma_desc_gen(), umma_desc_property, desc_to_json, o);
       }},
      {"wgmma-desc", "sm_90 wgmma shared-memory descriptors: encode/decode identity; validate vs ISA rules",
       [](const CampaignOptions& o) {
         return run_campaign<uint64_t>("wgmma-desc", wgmma_desc_gen(), wgmma_desc_property, desc_to_json, o);
       }},
      {"tcgen05-cp", "tcgen05.cp shape x multicast: verifier vs the pairing table; simulated lanes vs the table",
       [](const CampaignOptions& o) {
         return run_campaign<verifiers::tcgen05::CpDescription>(
             "tcgen05-cp", tcgen05_cp_gen(), tcgen05_cp_property,
             [](const verifiers::tcgen05::CpDescription& c) { return nlohmann::json(to_json(c)); }, o);
       }},
      {"ldstmatrix-fit", "ldmatrix/stmatrix fit: an accepted layout pair's instructions move exactly the tile",
       [](const CampaignOptions& o) {
         return run_campaign<FitCase>("ldstmatrix-fit", ldstmatrix_fit_gen(), ldstmatrix_fit_property,
                                      [](const FitCase& c) { return to_json(c); }, o);
       }},
      {"tma-partition", "TMA partition: verbatim step diagnostics, step 11 last, packed result and flags word",
       [](const CampaignOptions& o) {
         return run_campaign<PartitionCase>("tma-partition", tma_partition_gen(), tma_partition_property,
                                            [](const PartitionCase& c) { return to_json(c); }, o);
       }},
  };
  return targets;
}

const FuzzTarget* find_fuzz_target(const std::string& name) {
  for (const FuzzTarget& t : fuzz_targets())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace ptxsim::fuzz
