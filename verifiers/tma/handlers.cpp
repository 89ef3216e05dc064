// The registered request handlers of the TMA family (rows in verifiers/registry_tma.inc). Each turns
// a JSON request into the library input, runs the library entry point and renders the Outcome.
// Request schemas: docs/verifiers.md, section "TMA".
#include <cinttypes>
#include <cstdio>

#include "verifiers/tma/bulk_emission.h"
#include "verifiers/tma/descriptor.h"
#include "verifiers/tma/partition.h"
#include "verifiers/tma/rebind.h"
#include "verifiers/tma/request.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers {

using nlohmann::json;
using namespace ptxsim::verifiers::tma;

namespace {

std::string hex64(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::string hex16(uint16_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Outcome reject(const std::string& diagnostic, json result = json::object()) {
  Outcome o;
  o.accepted = false;
  o.diagnostics.push_back(diagnostic);
  o.result = std::move(result);
  return o;
}

TmaOp get_op(const json& r, const char* fallback = nullptr) {
  auto s = req::opt_string(r, "op");
  if (!s && fallback) s = fallback;
  if (!s) throw RequestError("request key \"op\" is missing (load, store or reduce)");
  auto op = parse_op(*s);
  if (!op) throw RequestError("request key \"op\" must be load, store or reduce, got \"" + *s + "\"");
  return *op;
}

int get_element_bits(const json& r) {
  int64_t b = req::opt_int(r, "element_bits").value_or(16);
  if (b != 4 && b != 6 && b != 8 && b != 16 && b != 32 && b != 64)
    throw RequestError("request key \"element_bits\" must be 4, 6, 8, 16, 32 or 64, got " + std::to_string(b));
  return static_cast<int>(b);
}

TmaDescMode get_desc_mode(const json& r) {
  auto s = req::opt_string(r, "mode").value_or("tiled");
  if (s == "tiled") return TmaDescMode::Tiled;
  if (s == "im2col") return TmaDescMode::Im2col;
  throw RequestError("request key \"mode\" must be tiled or im2col, got \"" + s + "\"");
}

bool get_device_born(const json& r) {
  auto s = req::opt_string(r, "origin").value_or("host");
  if (s == "host") return false;
  if (s == "device") return true;
  throw RequestError("request key \"origin\" must be host or device, got \"" + s + "\"");
}

std::optional<int64_t> count_or_array(const json& r, const char* key) {
  const json* v = req::find(r, key);
  if (!v) return std::nullopt;
  if (v->is_array()) return static_cast<int64_t>(v->size());
  return req::opt_int(r, key);
}

// One instruction of a request: a string, or {"ptx": "...", "constraints": "..."}.
std::pair<std::string, std::optional<std::string>> instruction_item(const json& item, size_t i) {
  const std::string where = "instructions[" + std::to_string(i) + "]";
  if (item.is_string()) return {item.get<std::string>(), std::nullopt};
  if (item.is_object()) {
    auto it = item.find("ptx");
    if (it == item.end() || !it->is_string()) throw RequestError(where + " needs a string \"ptx\"");
    std::optional<std::string> c;
    auto ct = item.find("constraints");
    if (ct != item.end() && !ct->is_null()) {
      if (!ct->is_string()) throw RequestError(where + ".constraints must be a string");
      c = ct->get<std::string>();
    }
    return {it->get<std::string>(), c};
  }
  throw RequestError(where + " must be a string or an object {\"ptx\", \"constraints\"}");
}

}  // namespace

// ---- tma-partition -----------------------------------------------------------------------------

Outcome tma_partition_verifier(const json& r) {
  req::only_keys(r, {"op", "mode", "smem_layout", "gmem_layout", "cta_v_map", "num_multicast", "element_bits",
                     "target", "sparse", "s2t_descriptor"});
  TmaPartitionInput in;
  in.op = get_op(r);
  std::string mode = req::get_string(r, "mode");
  auto m = parse_mode(in.op, mode);
  if (!m) {
    std::string names;
    for (uint8_t i = 0; mode_name(in.op, i); ++i) names += std::string(i ? ", " : "") + mode_name(in.op, i);
    throw RequestError("request key \"mode\": \"" + mode + "\" is not a " + op_name(in.op) + " mode (" + names + ")");
  }
  in.mode = *m;
  in.smem_layout = req::get_cute(r, "smem_layout");
  in.gmem_layout = req::get_cute(r, "gmem_layout");
  in.cta_v_map = req::get_cute(r, "cta_v_map");
  in.num_multicast = req::opt_int(r, "num_multicast");
  in.element_bits = get_element_bits(r);
  std::string target = req::opt_string(r, "target").value_or("sm_90a");
  if (target != "sm_90a" && target != "sm_100a")
    throw RequestError("request key \"target\" must be sm_90a or sm_100a, got \"" + target + "\"");
  in.sm100 = target == "sm_100a";
  in.sparse = req::opt_bool(r, "sparse", false);
  in.s2t_descriptor = req::opt_bool(r, "s2t_descriptor", false);

  TmaPartitionOutcome res = verify_tma_partition(in);
  if (!res.accepted) return reject(res.diagnostic, {{"failed_step", res.failed_step}, {"reason", res.reason}});

  const TmaPartitionResult& p = res.result;
  static const char* kSwizzle[] = {"none", "?", "128B", "32B/64B"};
  Outcome o;
  o.result_lines.push_back("tma_tensor_type: " + hex64(p.tma_tensor_type) + " " + res.tensor_type);
  o.result_lines.push_back("tile_element_count: " + std::to_string(p.tile_element_count));
  o.result_lines.push_back("flags: " + hex16(p.flags));
  json bits = json::array();
  for (int b = 0; b < 16; ++b) {
    const bool set = (p.flags >> b) & 1;
    o.result_lines.push_back("  bit " + std::to_string(b) + (b < 10 ? "  " : " ") + kTmaPartitionFlags[b].name +
                             ": " + (set ? "1" : "0"));
    bits.push_back({{"bit", b}, {"name", kTmaPartitionFlags[b].name}, {"set", set}});
  }
  o.result_lines.push_back("swizzle_mode: " + std::to_string(p.swizzle_mode) + " (" + kSwizzle[p.swizzle_mode] + ")");
  o.result_lines.push_back("rank: " + std::to_string(p.rank));
  o.result_lines.push_back("non_exec_atom_body: " + hex64(p.non_exec_atom_body) + " " + res.atom_body);
  std::vector<int64_t> box;
  json dims = json::array();
  for (const auto& d : res.tma_dims) {
    box.push_back(d.extent);
    dims.push_back({{"extent", d.extent}, {"gmem_mode", d.gmem_mode}});
  }
  o.result_lines.push_back("tma_layout: " + res.tma_layout.str() + " (box " + ints(box) + ", dimension 0 first)");
  o.result_lines.push_back("smem_to_gmem: " + res.smem_to_gmem.str());
  o.result_lines.push_back("transfers_per_tile: " + std::to_string(res.issues_per_tile));
  std::string bytes;
  for (uint8_t b : pack(p)) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x", b);
    bytes += (bytes.empty() ? "" : " ") + std::string(buf);
  }
  o.result_lines.push_back("bytes: " + bytes);
  o.result = {{"tma_tensor_type", hex64(p.tma_tensor_type)},
              {"tma_tensor_type_text", res.tensor_type},
              {"tile_element_count", p.tile_element_count},
              {"flags", p.flags},
              {"flag_bits", bits},
              {"swizzle_mode", p.swizzle_mode},
              {"rank", p.rank},
              {"non_exec_atom_body", hex64(p.non_exec_atom_body)},
              {"non_exec_atom_body_text", res.atom_body},
              {"tma_layout", res.tma_layout.str()},
              {"tma_dims", dims},
              {"smem_to_gmem", res.smem_to_gmem.str()},
              {"transfers_per_tile", res.issues_per_tile},
              {"bytes", bytes}};
  return o;
}

// ---- tma-descriptor ----------------------------------------------------------------------------

Outcome tma_descriptor_verifier(const json& r) {
  req::only_keys(r, {"memory_space", "layout", "rank", "element_bits", "box", "global_dims", "global_strides",
                     "element_strides", "op", "mode", "paddings", "descriptor_alignment", "descriptor_address",
                     "smem_layout", "origin"});
  TmaDescriptorInput in;
  in.memory_space = req::opt_string(r, "memory_space").value_or("global");
  if (req::find(r, "layout")) in.layout = req::get_cute(r, "layout");
  if (auto k = req::opt_int(r, "rank")) in.rank = static_cast<int>(*k);
  in.element_bits = get_element_bits(r);
  in.box = req::int_array(r, "box");
  in.global_dims = req::opt_int_array(r, "global_dims").value_or(std::vector<int64_t>{});
  in.global_strides = req::opt_int_array(r, "global_strides").value_or(std::vector<int64_t>{});
  in.element_strides = req::opt_int_array(r, "element_strides").value_or(std::vector<int64_t>{});
  in.op = get_op(r, "load");
  in.mode = get_desc_mode(r);
  if (const json* p = req::find(r, "paddings")) {
    if (!p->is_array()) throw RequestError("request key \"paddings\" must be an array of numbers");
    for (const json& v : *p) {
      if (!v.is_number()) throw RequestError("request key \"paddings\" must be an array of numbers");
      in.paddings.push_back(v.get<double>());
    }
  }
  if (auto a = req::opt_int(r, "descriptor_alignment")) {
    if (*a <= 0 || (*a & (*a - 1)) != 0)
      throw RequestError("request key \"descriptor_alignment\" must be a power of two, got " + std::to_string(*a));
    in.descriptor_alignment = static_cast<uint64_t>(*a);
  }
  if (auto a = req::opt_int(r, "descriptor_address")) in.descriptor_address = static_cast<uint64_t>(*a);
  if (req::find(r, "smem_layout")) in.smem_layout = req::get_cute(r, "smem_layout");
  in.device_born = get_device_born(r);

  TmaDescriptorOutcome res = verify_tma_descriptor(in);
  if (!res.accepted) return reject(res.diagnostic, {{"reason", res.reason}});
  Outcome o;
  o.result_lines = {
      "rank: " + std::to_string(res.rank),
      "element_bits: " + std::to_string(in.element_bits),
      "box: " + ints(in.box) + " (dimension 0 first)",
      "inner_box_bytes: " + std::to_string(res.inner_box_bytes),
      "box_bytes: " + std::to_string(res.box_bytes),
  };
  if (in.smem_layout)
    o.result_lines.push_back("swizzle_span: " +
                             (res.swizzle_span ? std::to_string(res.swizzle_span) + " bytes" : "none"));
  o.result = {{"rank", res.rank},
              {"element_bits", in.element_bits},
              {"box", in.box},
              {"inner_box_bytes", res.inner_box_bytes},
              {"box_bytes", res.box_bytes},
              {"swizzle_span", res.swizzle_span}};
  return o;
}

// ---- tma-atom ----------------------------------------------------------------------------------

Outcome tma_atom_verifier(const json& r) {
  req::only_keys(r, {"op", "atom", "tma_box", "atom_box", "element_bits", "mode", "element_strides",
                     "pixels_per_column", "channels_per_pixel", "num_multicast", "tx_count", "expect_tx",
                     "coordinates", "kernel_spec", "tma_idx", "origin", "num_host_tmas", "num_device_tmas"});
  TmaAtomInput in;
  in.op = get_op(r, "load");
  in.atom = req::opt_string(r, "atom").value_or(std::string("tma_") + op_name(in.op));
  in.mode = get_desc_mode(r);
  in.tma_box = req::int_array(r, "tma_box");
  in.atom_box = req::opt_int_array(r, "atom_box").value_or(in.tma_box);
  in.element_bits = get_element_bits(r);
  in.element_strides = req::opt_int_array(r, "element_strides").value_or(std::vector<int64_t>{});
  if (in.mode == TmaDescMode::Im2col) {
    in.pixels_per_column = req::get_int(r, "pixels_per_column");
    in.channels_per_pixel = req::get_int(r, "channels_per_pixel");
    if (in.pixels_per_column < 1 || in.channels_per_pixel < 1)
      throw RequestError("\"pixels_per_column\" and \"channels_per_pixel\" must be positive");
  }
  for (int64_t b : in.atom_box)
    if (b < 0) throw RequestError("request key \"atom_box\" must not hold negative extents");
  in.num_multicast = req::opt_int(r, "num_multicast").value_or(1);
  in.tx_count = req::opt_int(r, "tx_count");
  in.expect_tx = req::opt_int(r, "expect_tx");
  if (const json* c = req::find(r, "coordinates")) {
    if (!c->is_array()) throw RequestError("request key \"coordinates\" must be an array of strings");
    for (const json& v : *c) {
      if (!v.is_string()) throw RequestError("request key \"coordinates\" must be an array of strings");
      in.coordinates.push_back(v.get<std::string>());
    }
  }
  in.kernel_spec = req::opt_bool(r, "kernel_spec", true);
  in.tma_idx = req::opt_int(r, "tma_idx");
  if (in.tma_idx && *in.tma_idx < 0) throw RequestError("request key \"tma_idx\" must not be negative");
  in.device_born = get_device_born(r);
  in.num_host_tmas = req::opt_int(r, "num_host_tmas");
  in.num_device_tmas = req::opt_int(r, "num_device_tmas");

  TmaAtomOutcome res = verify_tma_atom(in);
  if (!res.accepted) return reject(res.diagnostic, {{"reason", res.reason}});
  Outcome o;
  o.result_lines = {
      "atom_bytes: " + std::to_string(res.atom_bytes),
      "tx_count: " + std::to_string(res.tx_count),
      "num_multicast: " + std::to_string(in.num_multicast),
      "expect_tx: " + std::to_string(res.expect_tx) + " (per receiving CTA)",
  };
  o.result = {{"atom_bytes", res.atom_bytes},
              {"tx_count", res.tx_count},
              {"num_multicast", in.num_multicast},
              {"expect_tx", res.expect_tx}};
  if (!res.ptx_coordinates.empty()) {
    std::string s;
    for (const auto& c : res.ptx_coordinates) s += (s.empty() ? "" : ", ") + c;
    o.result_lines.push_back("ptx_coordinates: {" + s + "} (inner-axis first)");
    o.result["ptx_coordinates"] = res.ptx_coordinates;
  }
  return o;
}

// ---- tma-tile ----------------------------------------------------------------------------------

Outcome tma_tile_verifier(const json& r) {
  req::only_keys(r, {"op", "shape", "element_type", "coordinates", "coord_type", "index_type",
                     "view_element_type", "mem_semantic", "in_bounds"});
  TmaTileInput in;
  in.op = get_op(r, "load");
  if (in.op == TmaOp::Reduce) throw RequestError("request key \"op\" must be load or store for tma-tile");
  const json* shape = req::find(r, "shape");
  if (!shape) throw RequestError("request key \"shape\" is missing");
  if (!shape->is_array()) throw RequestError("request key \"shape\" must be an array");
  for (const json& d : *shape) {
    if (d.is_number_integer())
      in.shape.push_back(d.get<int64_t>());
    else if (d.is_null() || (d.is_string() && d.get<std::string>() == "?"))
      in.shape.push_back(std::nullopt);
    else
      throw RequestError("request key \"shape\" holds integers, \"?\" or null, got " + d.dump());
  }
  in.element_type = req::opt_string(r, "element_type").value_or("bf16");
  in.coordinates = count_or_array(r, "coordinates");
  in.coord_type = req::opt_string(r, "coord_type");
  in.index_type = req::opt_string(r, "index_type");
  in.view_element_type = req::opt_string(r, "view_element_type");
  in.mem_semantic = req::opt_string(r, "mem_semantic");
  in.in_bounds = count_or_array(r, "in_bounds");

  TmaTileOutcome res = verify_tma_tile(in);
  if (!res.accepted) return reject(res.diagnostic, {{"reason", res.reason}});
  Outcome o;
  o.result_lines = {"tile: " + res.tile_type, "elements: " + std::to_string(res.elements)};
  o.result = {{"tile", res.tile_type}, {"elements", res.elements}};
  if (res.bytes) {
    o.result_lines.push_back("bytes: " + std::to_string(*res.bytes));
    o.result["bytes"] = *res.bytes;
  }
  return o;
}

// ---- tma-rebind --------------------------------------------------------------------------------

Outcome tma_rebind_verifier(const json& r) {
  req::only_keys(r, {"rank", "instructions", "updates", "shared_across_ctas"});
  const int64_t rank64 = req::get_int(r, "rank");
  const int rank = static_cast<int>(std::max<int64_t>(-1, std::min<int64_t>(rank64, 1000)));
  const json* ins = req::find(r, "instructions");
  const json* ups = req::find(r, "updates");
  if (!ins && !ups) throw RequestError("the request needs \"instructions\" (PTX strings) or \"updates\"");
  if (ins && !ins->is_array()) throw RequestError("request key \"instructions\" must be an array");
  if (ups && !ups->is_array()) throw RequestError("request key \"updates\" must be an array");
  if (rank < 1 || rank > 5)
    return reject("expected a descriptor rank between 1 and 5, but got " + std::to_string(rank64));

  if (ups) {
    std::vector<TmaUpdate> updates;
    for (size_t i = 0; i < ups->size(); ++i) {
      const json& u = (*ups)[i];
      const std::string where = "updates[" + std::to_string(i) + "]";
      if (!u.is_object() || !u.contains("kind") || !u["kind"].is_string())
        throw RequestError(where + " must be an object with a string \"kind\"");
      TmaUpdate t;
      t.kind = u["kind"].get<std::string>();
      if (u.contains("axis")) {
        if (!u["axis"].is_number_integer()) throw RequestError(where + ".axis must be an integer");
        t.axis = static_cast<int>(std::max<int64_t>(-1, std::min<int64_t>(u["axis"].get<int64_t>(), 1000)));
      } else if (t.kind == "dim" || t.kind == "stride") {
        throw RequestError(where + " (" + t.kind + ") needs an \"axis\"");
      }
      updates.push_back(t);
    }
    std::string d = check_tma_updates(updates, rank);
    if (!d.empty()) return reject(d);
  }

  RebindOptions opt;
  opt.rank = rank;
  opt.single_sequence = true;
  opt.shared_across_ctas = req::opt_bool(r, "shared_across_ctas", false);
  RebindChecker checker(opt);
  if (ins) {
    for (size_t i = 0; i < ins->size(); ++i) {
      auto [text, constraints] = instruction_item((*ins)[i], i);
      for (const std::string& st : split_statements(text))
        if (auto in = parse_instruction(st)) checker.feed(static_cast<int>(i + 1), *in, constraints);
    }
    checker.finish();
    if (!checker.diagnostics().empty()) {
      const auto& d = checker.diagnostics().front();
      return reject(d.message, {{"instruction_index", d.line - 1}});
    }
  }

  Outcome o;
  o.result_lines.push_back("rank: " + std::to_string(rank));
  o.result = {{"rank", rank}};
  if (ins) {
    std::string seq;
    json steps = json::array();
    for (const auto& s : checker.steps()) {
      seq += (seq.empty() ? "" : " -> ") + s.what;
      steps.push_back(s.what);
    }
    o.result_lines.push_back("replace_ops: " + std::to_string(checker.replace_ops()) + " (2*rank)");
    o.result_lines.push_back("sequence: " + seq);
    o.result["replace_ops"] = checker.replace_ops();
    o.result["sequence"] = steps;
  }
  json templates = json::array();
  for (MutatorField f : {MutatorField::GlobalAddress, MutatorField::GlobalDim, MutatorField::GlobalStride}) {
    std::string uses = f == MutatorField::GlobalAddress ? "once"
                       : f == MutatorField::GlobalDim  ? std::to_string(rank) + " times, {1} = i for i in [0, rank)"
                                                       : std::to_string(rank - 1) +
                                                             " times, {1} = i-1 for i in [1, rank)";
    o.result_lines.push_back(std::string("mutator ") + mutator_name(f) + ": " + mutator_template(f) +
                             " constraints \"" + mutator_constraints(f, "global") + "\"" +
                             (f == MutatorField::GlobalAddress ? " (global) / \"r,l\" (shared::cta)" : "") + ", " +
                             uses);
    templates.push_back({{"field", mutator_name(f)},
                         {"template", mutator_template(f)},
                         {"constraints_global", mutator_constraints(f, "global")},
                         {"constraints_shared_cta", mutator_constraints(f, "shared::cta")}});
  }
  o.result["mutators"] = templates;
  return o;
}

// ---- bulk-emission -----------------------------------------------------------------------------

Outcome bulk_emission_verifier(const json& r) {
  req::only_keys(r, {"ptx", "constraints"});
  const std::string ptx = req::get_string(r, "ptx");
  auto statements = split_statements(ptx);
  if (statements.size() != 1) throw RequestError("request key \"ptx\" must hold exactly one instruction");
  auto in = parse_instruction(statements[0]);
  if (!in) throw RequestError("request key \"ptx\" is not an instruction: " + ptx);
  BulkEmissionOutcome res = check_bulk_emission(*in, req::opt_string(r, "constraints"));
  if (!res.accepted) return reject(res.diagnostic);

  static const char* kFamily[] = {"tensor load (global -> shared)", "tensor store (shared::cta -> global)",
                                  "tensor reduce (shared::cta -> global)", "tensor prefetch (global -> L2)",
                                  "non-tensor bulk copy"};
  Outcome o;
  std::string mods;
  for (const auto& m : res.modifiers) mods += (mods.empty() ? "" : " ") + m;
  o.result_lines.push_back(std::string("family: ") + kFamily[static_cast<int>(res.family)]);
  o.result_lines.push_back("ordered_modifiers: " + (mods.empty() ? std::string("none") : mods));
  o.result = {{"family", kFamily[static_cast<int>(res.family)]}, {"ordered_modifiers", res.modifiers}};
  if (res.family != BulkFamily::NonTensor) {
    o.result_lines.push_back("rank: " + std::to_string(res.rank));
    o.result_lines.push_back("load_mode: ." + res.load_mode);
    o.result_lines.push_back("descriptor_operand: %" + std::to_string(res.descriptor_opnum));
    o.result_lines.push_back("im2col_count: " + std::to_string(res.im2col_count));
    if (res.mcast_opnum >= 0)
      o.result_lines.push_back("mcast_opnum: " + std::to_string(res.mcast_opnum) +
                               (res.multicast ? " (present)" : " (absent)"));
    o.result_lines.push_back("ch_opnum: " + std::to_string(res.ch_opnum) +
                             (res.cache_hint ? " (present)" : " (absent)"));
    json ops = json::array();
    for (size_t i = 0; i < res.operands.size(); ++i) {
      const auto& op = res.operands[i];
      o.result_lines.push_back("operand %" + std::to_string(i) + ": " + op.text + " " + op.role +
                               (op.want_class.empty() ? "" : " \"" + op.want_class + "\""));
      ops.push_back({{"opnum", i}, {"text", op.text}, {"role", op.role}, {"class", op.want_class}});
    }
    o.result["rank"] = res.rank;
    o.result["load_mode"] = res.load_mode;
    o.result["descriptor_opnum"] = res.descriptor_opnum;
    o.result["im2col_count"] = res.im2col_count;
    o.result["mcast_opnum"] = res.mcast_opnum;
    o.result["ch_opnum"] = res.ch_opnum;
    o.result["operands"] = ops;
  }
  return o;
}

}  // namespace ptxsim::verifiers
