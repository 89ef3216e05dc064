#include "tools/fuzz/tma_partition_gen.h"

#include <initializer_list>

#include "verifiers/tma/partition.h"

namespace ptxsim::fuzz {
namespace {

namespace tma = verifiers::tma;

template <class T>
T pick(std::initializer_list<T> vs) {
  return *(vs.begin() + *rc::gen::inRange<size_t>(0, vs.size()));
}

// The seed's eleven diagnostics, in ladder order (tma-atoms.txt, "Eleven-Step Partition Verifier").
const char* const kSeedSteps[11] = {
    "invalid operand types, got ",
    "invalid smem layout type, expected LayoutType or ComposedLayoutType, got ",
    "unsupported layout for the GMEM tensor, got ",
    "expected the GMEM and SMEM layouts to have integer stride elements, but got ",
    "expected the SMEM layout to be a swizzle layout, but got ",
    "expected the SMEM layout and the CTA V-map to be static, but got ",
    "expected top-level shape equivalence between the SMEM layout and the CTA V-map, but got ",
    "failed to compute the TMA G-basis, got ",
    "Computed TMA layout is invalid, got ",
    "Failed to construct the TMA tensor type",
    "missing or invalid num_multicast for a multicast TMA load",
};

tma::TmaPartitionInput input_of(const PartitionCase& c, std::optional<int64_t> nm) {
  tma::TmaPartitionInput in;
  in.op = *tma::parse_op(c.op);
  in.mode = c.mode;
  in.smem_layout = verifiers::layout::parse_cute(c.smem);
  in.gmem_layout = verifiers::layout::parse_cute(c.gmem);
  in.cta_v_map = verifiers::layout::parse_cute(c.vmap);
  in.num_multicast = nm;
  in.element_bits = c.element_bits;
  in.sm100 = c.sm100;
  in.sparse = c.sparse;
  in.s2t_descriptor = c.s2t;
  return in;
}

std::string nm_text(std::optional<int64_t> nm) { return nm ? std::to_string(*nm) : "none"; }

}  // namespace

rc::Gen<PartitionCase> tma_partition_gen() {
  return rc::gen::exec([] {
    PartitionCase c;
    c.op = pick<std::string>({"load", "load", "load", "store", "reduce"});
    c.mode = uint8_t(*rc::gen::inRange(0, c.op == "reduce" ? 8 : 4));
    const int64_t M = pick<int64_t>({8, 16, 32, 64, 128}), N = pick<int64_t>({1, 4, 8, 16, 32});
    c.element_bits = pick<int>({8, 16, 32});
    const std::string tile = "(" + std::to_string(M) + "," + std::to_string(N) + ")";
    const std::string sw = pick<std::string>({"Sw<0,4,3> o ", "Sw<1,4,3> o ", "Sw<2,4,3> o ", "Sw<3,4,3> o "});
    c.smem = sw + tile + ":(1," + std::to_string(M) + ")";
    c.gmem = tile + ":(1," + std::to_string(M * pick<int64_t>({1, 2, 3})) + ")";
    c.vmap = tile + ":(1@0,1@1)";
    const bool multicast = c.op == "load" && (c.mode == 2 || c.mode == 3);
    c.num_multicast = multicast ? std::optional<int64_t>(pick<int64_t>({2, 4})) : std::nullopt;
    c.sm100 = *rc::gen::arbitrary<bool>();
    c.sparse = *rc::gen::inRange(0, 4) == 0;
    c.s2t = *rc::gen::inRange(0, 4) == 0;
    if (*rc::gen::inRange(0, 2)) {  // near-valid: one piece moved
      switch (*rc::gen::inRange(0, 9)) {
        case 0: c.vmap = "(" + std::to_string(M) + "," + std::to_string(2 * N) + "):(1@0,1@1)"; break;
        case 1: c.gmem = tile + ":(1,?)"; break;
        case 2: c.smem = tile; break;  // a tuple, not a layout
        case 7: c.smem = tile + ":(1," + std::to_string(M) + ")"; break;  // no swizzle functor
        case 3: c.gmem = "Sw<3,4,3>"; break;
        case 4: c.smem = sw + tile + ":(1,?)"; break;
        case 5: c.vmap = "(" + std::to_string(M * N) + "):(1@0)"; break;
        case 6: c.element_bits = pick<int>({4, 64}); break;
        default: c.num_multicast = pick<std::optional<int64_t>>({std::nullopt, 0, 1, 2, -1});
      }
    }
    return c;
  });
}

nlohmann::json to_json(const PartitionCase& c) {
  nlohmann::ordered_json j;
  j["verifier"] = "tma-partition";
  j["op"] = c.op;
  j["mode"] = tma::mode_name(*tma::parse_op(c.op), c.mode);
  j["smem_layout"] = c.smem;
  j["gmem_layout"] = c.gmem;
  j["cta_v_map"] = c.vmap;
  j["num_multicast"] = c.num_multicast ? nlohmann::ordered_json(*c.num_multicast) : nlohmann::ordered_json();
  j["element_bits"] = c.element_bits;
  j["target"] = c.sm100 ? "sm_100a" : "sm_90a";
  j["sparse"] = c.sparse;
  j["s2t_descriptor"] = c.s2t;
  return j;
}

Verdict tma_partition_property(const PartitionCase& c) {
  tma::TmaPartitionInput in;
  try {
    in = input_of(c, c.num_multicast);
  } catch (const std::exception& e) {
    return Verdict::fail(std::string("a generated operand does not parse: ") + e.what());
  }
  const tma::TmaPartitionOutcome o = tma::verify_tma_partition(in);
  const std::string what = to_json(c).dump();
  if (!o.accepted) {
    if (o.failed_step < 1 || o.failed_step > 11) return Verdict::fail("rejected without a step for " + what);
    if (o.diagnostic.rfind(kSeedSteps[o.failed_step - 1], 0) != 0)
      return Verdict::fail("step " + std::to_string(o.failed_step) + "'s diagnostic '" + o.diagnostic +
                           "' is not the seed's for " + what);
  }
  // Step 11 comes last and only loads have it.
  const bool layouts_pass = o.accepted || o.failed_step == 11;
  for (std::optional<int64_t> nm : {std::optional<int64_t>(), std::optional<int64_t>(0), std::optional<int64_t>(1),
                                    std::optional<int64_t>(2), std::optional<int64_t>(-1)}) {
    const tma::TmaPartitionOutcome other = tma::verify_tma_partition(input_of(c, nm));
    if (c.op != "load" && (other.accepted != o.accepted || other.failed_step != o.failed_step))
      return Verdict::fail("a " + c.op + " changes its verdict with num_multicast " + nm_text(nm) + " for " + what);
    if (c.op == "load" && layouts_pass && !other.accepted && other.failed_step != 11)
      return Verdict::fail("num_multicast " + nm_text(nm) + " fails step " + std::to_string(other.failed_step) +
                           " although the layouts pass steps 1-10, for " + what);
    if (c.op == "load" && !layouts_pass && (other.accepted || other.failed_step != o.failed_step))
      return Verdict::fail("num_multicast " + nm_text(nm) + " moves the failure from step " +
                           std::to_string(o.failed_step) + " for " + what);
  }
  if (!o.accepted) return Verdict{Verdict::kPass, "rejected at step " + std::to_string(o.failed_step)};
  // The packed record and its flags word.
  const tma::TmaPartitionResult& r = o.result;
  const tma::TmaPartitionResult u = tma::unpack(tma::pack(r));
  if (u.tma_tensor_type != r.tma_tensor_type || u.tile_element_count != r.tile_element_count || u.flags != r.flags ||
      u.swizzle_mode != r.swizzle_mode || u.rank != r.rank || u.non_exec_atom_body != r.non_exec_atom_body)
    return Verdict::fail("unpack(pack(result)) != result for " + what);
  const bool load = c.op == "load", store = c.op == "store";
  uint16_t want = 0x0FC0;  // bits 6-11: the checks of steps 4-8 held
  if (load && (c.mode == 2 || c.mode == 3)) want |= 1u << 0;
  if (store && c.mode != 0) want |= 1u << 1;
  if (store && c.mode == 2) want |= 1u << 2;
  if (store && c.mode == 3) want |= 1u << 3;
  if (load && c.mode == 1) want |= 1u << 4;
  if (c.sparse) want |= 1u << 5;
  if (c.s2t) want |= 1u << 12;
  if ((r.flags & ~(1u << 13)) != want)  // bit 13 (prefetch eligibility) is ptxsim's judgement
    return Verdict::fail("flags word " + std::to_string(r.flags) + " but the seed's table gives " + std::to_string(want) +
                         " (bit 13 aside) for " + what);
  const int64_t tile = in.smem_layout.plain().static_size();
  const int64_t count = tile * (load ? c.num_multicast.value_or(1) : 1);
  if (int64_t(r.tile_element_count) != count)
    return Verdict::fail("tile_element_count " + std::to_string(r.tile_element_count) + ", expected " +
                         std::to_string(count) + " for " + what);
  if (r.rank < 1 || r.rank > 5 || r.rank != o.tma_dims.size())
    return Verdict::fail("rank " + std::to_string(r.rank) + " with " + std::to_string(o.tma_dims.size()) +
                         " descriptor dimensions for " + what);
  return Verdict{Verdict::kPass, "accepted"};
}

}  // namespace ptxsim::fuzz
