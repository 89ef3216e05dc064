// The TMA verifiers (verifiers/tma) against the seeds: every diagnostic string exactly, the
// eleven-step order, the worked examples (rank-6 rejection, stride-4-byte rejection, the 32768-byte
// walkthrough load), the packed TmaPartitionResult and its flags word, the rebind sequence, the
// cp.async.bulk emission rules, the file-level check, and `ptxsim verify` run as a program.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/ptxsim/verify_command.h"
#include "verifiers/tma/bulk_emission.h"
#include "verifiers/tma/check.h"
#include "verifiers/tma/descriptor.h"
#include "verifiers/tma/partition.h"
#include "verifiers/tma/rebind.h"
#include "verifiers/verifier.h"

using namespace ptxsim::verifiers;
using namespace ptxsim::verifiers::tma;
using nlohmann::json;

namespace {

Outcome run(const json& request) {
  const Entry* e = find_verifier(request.at("verifier").get<std::string>());
  if (!e) throw std::runtime_error("no verifier");
  return e->handler(request);
}

// The one diagnostic of a rejected request ("" when accepted).
std::string diag_of(const json& request) {
  Outcome o = run(request);
  if (o.accepted) return "";
  EXPECT_EQ(o.diagnostics.size(), 1u);
  return o.diagnostics.empty() ? "?" : o.diagnostics[0];
}

std::string lines_of(const Outcome& o) {
  std::string s;
  for (const auto& l : o.result_lines) s += l + "\n";
  return s;
}

// ---- tma-partition -----------------------------------------------------------------------------

json partition(const char* smem, const char* gmem, const char* vmap, const char* mode = "TMA_LOAD_NO_MULTICAST",
               const char* op = "load") {
  return {{"verifier", "tma-partition"}, {"op", op},           {"mode", mode},
          {"smem_layout", smem},         {"gmem_layout", gmem}, {"cta_v_map", vmap}};
}

constexpr const char* kSmem = "Sw<3,4,3> o (128,64):(64,1)";  // 128 rows x 64 bf16, K-major, 128B swizzle
constexpr const char* kGmem = "(?,?):(?,1)";                  // [M, K] row-major
constexpr const char* kVmap = "(128,64):(1@0,1@1)";

TEST(TmaVerifPartition, EnumsAndNames) {
  EXPECT_EQ(static_cast<int>(TmaLoadMode::TMA_LOAD_W128_MULTICAST), 3);
  EXPECT_EQ(static_cast<int>(TmaStoreMode::TMA_STORE_IM2COL_W), 2);
  EXPECT_EQ(static_cast<int>(TmaReduceKind::TMA_REDUCE_XOR), 7);
  EXPECT_STREQ(mode_name(TmaOp::Load, 1), "TMA_LOAD_TWO_CTA");
  EXPECT_STREQ(mode_name(TmaOp::Store, 3), "TMA_STORE_IM2COL_W128");
  EXPECT_STREQ(mode_name(TmaOp::Reduce, 4), "TMA_REDUCE_DEC");
  EXPECT_EQ(mode_name(TmaOp::Load, 4), nullptr);
  EXPECT_EQ(parse_mode(TmaOp::Reduce, "TMA_REDUCE_OR"), 6);
  EXPECT_EQ(parse_mode(TmaOp::Load, "TMA_STORE_TILED"), std::nullopt);
}

TEST(TmaVerifPartition, ResultAbi) {
  EXPECT_EQ(sizeof(TmaPartitionResult), 24u);
  TmaPartitionResult r{0x1122334455667788ull, 0xAABBCCDD, 0x0FC1, 2, 5, 0x0102030405060708ull};
  auto b = pack(r);
  const uint8_t want[24] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xDD, 0xCC, 0xBB, 0xAA,
                            0xC1, 0x0F, 0x02, 0x05, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  for (int i = 0; i < 24; ++i) EXPECT_EQ(b[i], want[i]) << i;
  TmaPartitionResult u = unpack(b);
  EXPECT_EQ(u.tma_tensor_type, r.tma_tensor_type);
  EXPECT_EQ(u.tile_element_count, r.tile_element_count);
  EXPECT_EQ(u.flags, r.flags);
  EXPECT_EQ(u.swizzle_mode, 2);
  EXPECT_EQ(u.rank, 5);
  EXPECT_EQ(u.non_exec_atom_body, r.non_exec_atom_body);
  // The packed struct is laid out exactly as pack() writes it.
  EXPECT_EQ(std::memcmp(&r, b.data(), 24), 0);
}

TEST(TmaVerifPartition, FlagBitNames) {
  const char* names[16] = {"multicast",       "im2col",          "im2col_w",    "im2col_w128",
                           "two_cta",         "sparse",          "static_smem", "static_vmap",
                           "gmem_int_stride", "smem_int_stride", "shape_equiv", "g_basis_ok",
                           "s2t_descriptor",  "prefetch_eligible", "reserved",  "reserved"};
  for (int i = 0; i < 16; ++i) EXPECT_STREQ(kTmaPartitionFlags[i].name, names[i]) << i;
  EXPECT_EQ(kFlagPrefetchEligible, 1u << 13);
  EXPECT_EQ(kFlagTwoCta, 1u << 4);
}

TEST(TmaVerifPartition, WorkedExampleRank6) {
  json r = partition("(2,2,2,2,2,2):(1,2,4,8,16,32)", "(2,2,2,2,2,2):(1,2,4,8,16,32)", "(64):(1@0)");
  EXPECT_EQ(diag_of(r),
            "invalid operand types, got !cute.layout<(2,2,2,2,2,2):(1,2,4,8,16,32)>, "
            "!cute.layout<(2,2,2,2,2,2):(1,2,4,8,16,32)>, and !cute.layout<(64):(1@0)>");
  EXPECT_EQ(run(r).result["failed_step"], 1);
}

TEST(TmaVerifPartition, WorkedExampleStride4Bytes) {
  json r = partition("Sw<3,4,3> o (64,32):(1,64)", "(64,32):(1,2)", "(64,32):(1@0,1@1)");
  EXPECT_EQ(diag_of(r),
            "expected the GMEM and SMEM layouts to have integer stride elements, but got "
            "!cute.layout<(64,32):(1,2)>, and !cute.composed_layout<Sw<3,4,3> o (64,32):(1,64)>");
  Outcome o = run(r);
  EXPECT_EQ(o.result["failed_step"], 4);
  EXPECT_EQ(o.result["reason"], "the GMEM stride 2 is 4 bytes, not a multiple of 16 bytes");
  // 8 bf16 elements = 16 bytes is fine.
  EXPECT_EQ(diag_of(partition("Sw<3,4,3> o (64,32):(1,64)", "(64,32):(1,8)", "(64,32):(1@0,1@1)")), "");
}

TEST(TmaVerifPartition, EachStepVerbatim) {
  // 1: a V-map that is not a layout.
  EXPECT_EQ(diag_of(partition(kSmem, kGmem, "(128,64)")),
            "invalid operand types, got !cute.composed_layout<Sw<3,4,3> o (128,64):(64,1)>, "
            "!cute.layout<(?,?):(?,1)>, and !cute.int_tuple<(128,64)>");
  // 2
  EXPECT_EQ(diag_of(partition("(128,64)", kGmem, kVmap)),
            "invalid smem layout type, expected LayoutType or ComposedLayoutType, got !cute.int_tuple<(128,64)>");
  EXPECT_EQ(diag_of(partition("Sw<3,4,3>", kGmem, kVmap)),
            "invalid smem layout type, expected LayoutType or ComposedLayoutType, got !cute.swizzle<Sw<3,4,3>>");
  // 3
  EXPECT_EQ(diag_of(partition(kSmem, "Sw<3,4,3> o (?,?):(?,1)", kVmap)),
            "unsupported layout for the GMEM tensor, got !cute.composed_layout<Sw<3,4,3> o (?,?):(?,1)>");
  // 4: a basis stride in the SMEM layout.
  EXPECT_EQ(diag_of(partition("Sw<3,4,3> o (128,64):(64,1@0)", kGmem, kVmap)),
            "expected the GMEM and SMEM layouts to have integer stride elements, but got "
            "!cute.layout<(?,?):(?,1)>, and !cute.composed_layout<Sw<3,4,3> o (128,64):(64,1@0)>");
  // 5
  EXPECT_EQ(diag_of(partition("(128,64):(64,1)", kGmem, kVmap)),
            "expected the SMEM layout to be a swizzle layout, but got !cute.layout<(128,64):(64,1)>");
  EXPECT_EQ(diag_of(partition("Sw<2,5,2> o (128,64):(64,1)", kGmem, kVmap)),
            "expected the SMEM layout to be a swizzle layout, but got !cute.composed_layout<Sw<2,5,2> o "
            "(128,64):(64,1)>");
  // 6
  EXPECT_EQ(diag_of(partition("Sw<3,4,3> o (?,64):(64,1)", kGmem, kVmap)),
            "expected the SMEM layout and the CTA V-map to be static, but got !cute.composed_layout<Sw<3,4,3> o "
            "(?,64):(64,1)>, and !cute.layout<(128,64):(1@0,1@1)>");
  // 7
  EXPECT_EQ(diag_of(partition(kSmem, kGmem, "(64,128):(1@1,1@0)")),
            "expected top-level shape equivalence between the SMEM layout and the CTA V-map, but got "
            "!cute.composed_layout<Sw<3,4,3> o (128,64):(64,1)>, and !cute.layout<(64,128):(1@1,1@0)>");
  // 8: integer strides in the V-map; an SMEM layout with holes.
  EXPECT_EQ(diag_of(partition(kSmem, kGmem, "(128,64):(64,1)")),
            "failed to compute the TMA G-basis, got !cute.composed_layout<Sw<3,4,3> o (128,64):(64,1)>, and "
            "!cute.layout<(128,64):(64,1)>");
  EXPECT_EQ(run(partition("Sw<3,4,3> o (128,64):(128,1)", kGmem, kVmap)).result["failed_step"], 8);
  EXPECT_EQ(run(partition(kSmem, kGmem, "(128,64):(1@0,1@2)")).result["failed_step"], 8);
  // 9: a 128-byte inner box under a 32-byte swizzle; a leading mode that is not contiguous.
  EXPECT_EQ(diag_of(partition("Sw<1,4,3> o (128,64):(64,1)", kGmem, kVmap)),
            "Computed TMA layout is invalid, got !cute.layout<(64,128):(1@1,1@0)>");
  EXPECT_EQ(diag_of(partition(kSmem, "(?,?):(1,?)", kVmap)),
            "Computed TMA layout is invalid, got !cute.layout<(64,128):(1@1,1@0)>");
  EXPECT_EQ(run(partition("Sw<0,4,3> o (8,512):(512,1)", "(?,?):(?,1)", "(8,512):(1@0,1@1)")).result["reason"],
            "box dimension 0 is 512, above 256");
  // 10: TWO_CTA needs sm_100a.
  json two = partition(kSmem, kGmem, kVmap, "TMA_LOAD_TWO_CTA");
  two["num_multicast"] = 2;
  EXPECT_EQ(diag_of(two), "Failed to construct the TMA tensor type");
  two["target"] = "sm_100a";
  EXPECT_EQ(diag_of(two), "");
  // 11
  EXPECT_EQ(diag_of(partition(kSmem, kGmem, kVmap, "TMA_LOAD_W128_MULTICAST")),
            "missing or invalid num_multicast for a multicast TMA load");
}

TEST(TmaVerifPartition, MulticastCountCompanion) {
  json r = partition(kSmem, kGmem, kVmap, "TMA_LOAD_NO_MULTICAST");
  r["num_multicast"] = 4;
  EXPECT_EQ(diag_of(r), "missing or invalid num_multicast for a multicast TMA load, got num_multicast of 4");
  // The seed counts mode 2 (W_MULTICAST) with the non-multicast modes for step 11.
  r["mode"] = "TMA_LOAD_W_MULTICAST";
  r["num_multicast"] = 2;
  EXPECT_EQ(diag_of(r), "missing or invalid num_multicast for a multicast TMA load, got num_multicast of 2");
  r["num_multicast"] = 1;
  EXPECT_EQ(diag_of(r), "");
  r["mode"] = "TMA_LOAD_W128_MULTICAST";
  r["num_multicast"] = 0;
  EXPECT_EQ(diag_of(r), "missing or invalid num_multicast for a multicast TMA load, got num_multicast of 0");
  r["num_multicast"] = 2;
  Outcome o = run(r);
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["tile_element_count"], 2 * 128 * 64);
  // Stores and reduces skip step 11.
  json s = partition(kSmem, kGmem, kVmap, "TMA_STORE_TILED", "store");
  s["num_multicast"] = 7;
  EXPECT_EQ(diag_of(s), "");
  EXPECT_EQ(run(s).result["tile_element_count"], 128 * 64);
}

TEST(TmaVerifPartition, StepOrder) {
  // Fails 4 (stride 2) and 5 (no swizzle) and 7: step 4 is reported.
  EXPECT_EQ(run(partition("(128,64):(64,1)", "(64,32):(1,2)", "(64,128):(1@1,1@0)")).result["failed_step"], 4);
  // Fails 5 and 6: 5 first.
  EXPECT_EQ(run(partition("(?,64):(64,1)", kGmem, kVmap)).result["failed_step"], 5);
  // Fails 2 and 3: 2 first.
  EXPECT_EQ(run(partition("(8,4)", "Sw<3,4,3> o 8:1", kVmap)).result["failed_step"], 2);
  // Fails 10 and 11: 10 first.
  json r = partition(kSmem, kGmem, kVmap, "TMA_LOAD_TWO_CTA");
  EXPECT_EQ(run(r).result["failed_step"], 10);
}

TEST(TmaVerifPartition, AcceptedRecord) {
  json r = partition(kSmem, kGmem, kVmap);
  r["num_multicast"] = 1;
  Outcome o = run(r);
  ASSERT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  EXPECT_EQ(o.result["tile_element_count"], 8192);
  EXPECT_EQ(o.result["flags"], 0x0FC0);
  EXPECT_EQ(o.result["swizzle_mode"], 2);
  EXPECT_EQ(o.result["rank"], 2);
  EXPECT_EQ(o.result["tma_layout"], "(64,128):(1@1,1@0)");
  EXPECT_EQ(o.result["transfers_per_tile"], 1);
  const std::string text = o.result["tma_tensor_type_text"];
  EXPECT_EQ(text, "!cute_nvgpu.tma_load<TMA_LOAD_NO_MULTICAST, (64,128):(1@1,1@0), Sw<3,4,3>, num_multicast = 1>");
  char want[32];
  std::snprintf(want, sizeof want, "0x%016llx", static_cast<unsigned long long>(intern_id(text)));
  EXPECT_EQ(o.result["tma_tensor_type"], want);
  const std::string lines = lines_of(o);
  EXPECT_NE(lines.find("tile_element_count: 8192\nflags: 0x0fc0\n  bit 0  multicast: 0\n"), std::string::npos)
      << lines;
  EXPECT_NE(lines.find("  bit 11 g_basis_ok: 1\n  bit 12 s2t_descriptor: 0\n  bit 13 prefetch_eligible: 0\n"
                       "  bit 14 reserved: 0\n  bit 15 reserved: 0\nswizzle_mode: 2 (128B)\nrank: 2\n"),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find("bytes: "), std::string::npos);
}

TEST(TmaVerifPartition, SeveralTransfersPerTile) {
  // 128 x 128 bf16 in two 64-column 128B-swizzled blocks: one 64x128 box, issued twice.
  Outcome o = run(partition("Sw<3,4,3> o (128,(64,2)):(64,(1,8192))", kGmem, "(128,(64,2)):(1@0,(1@1,64@1))"));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["tma_layout"], "(64,128):(1@1,1@0)");
  EXPECT_EQ(o.result["transfers_per_tile"], 2);
  EXPECT_EQ(o.result["tile_element_count"], 16384);
  // A batched GMEM tensor: the untouched mode becomes a box-1 dimension.
  Outcome b = run(partition(kSmem, "(?,?,?):(?,1,?)", kVmap));
  ASSERT_TRUE(b.accepted);
  EXPECT_EQ(b.result["tma_layout"], "(64,128,1):(1@1,1@0,1@2)");
  EXPECT_EQ(b.result["rank"], 3);
}

uint16_t flags_of(json r) {
  Outcome o = run(r);
  EXPECT_TRUE(o.accepted) << (o.diagnostics.empty() ? "" : o.diagnostics[0]);
  return o.result.value("flags", 0);
}

TEST(TmaVerifPartition, EveryFlagBit) {
  constexpr uint16_t base = 0x0FC0;  // bits 6..11: the predicates of steps 4, 6, 7, 8
  json r = partition(kSmem, kGmem, kVmap, "TMA_LOAD_W_MULTICAST");
  EXPECT_EQ(flags_of(r), base | kFlagMulticast);
  r["mode"] = "TMA_LOAD_W128_MULTICAST";
  r["num_multicast"] = 4;
  EXPECT_EQ(flags_of(r), base | kFlagMulticast);
  r = partition(kSmem, kGmem, kVmap, "TMA_LOAD_TWO_CTA");
  r["target"] = "sm_100a";
  r["num_multicast"] = 2;
  EXPECT_EQ(flags_of(r), base | kFlagTwoCta);
  // im2col stores need rank 3..5.
  const char* s3 = "Sw<3,4,3> o (64,8,2):(1,64,512)";
  const char* g3 = "(?,?,?):(1,?,?)";
  const char* v3 = "(64,8,2):(1@0,1@1,1@2)";
  EXPECT_EQ(flags_of(partition(s3, g3, v3, "TMA_STORE_IM2COL", "store")), base | kFlagIm2col);
  r = partition(s3, g3, v3, "TMA_STORE_IM2COL_W", "store");
  EXPECT_EQ(diag_of(r), "Failed to construct the TMA tensor type");  // sm_100a only
  r["target"] = "sm_100a";
  EXPECT_EQ(flags_of(r), base | kFlagIm2col | kFlagIm2colW);
  r["mode"] = "TMA_STORE_IM2COL_W128";
  EXPECT_EQ(flags_of(r), base | kFlagIm2col | kFlagIm2colW128);
  EXPECT_EQ(diag_of(partition(kSmem, kGmem, kVmap, "TMA_STORE_IM2COL", "store")),
            "Failed to construct the TMA tensor type");
  r = partition(kSmem, kGmem, kVmap);
  r["sparse"] = true;
  EXPECT_EQ(flags_of(r), base | kFlagSparse);
  r["sparse"] = false;
  r["s2t_descriptor"] = true;
  EXPECT_EQ(flags_of(r), base | kFlagS2tDescriptor);
  EXPECT_EQ(flags_of(partition(kSmem, "(4096,1024):(1024,1)", kVmap)), base | kFlagPrefetchEligible);
  EXPECT_EQ(flags_of(partition(kSmem, kGmem, kVmap, "TMA_STORE_TILED", "store")), base);
  // Swizzle mode codes: 0 none, 2 128B, 3 the 32B/64B blend.
  EXPECT_EQ(run(partition("Sw<0,4,3> o (128,8):(8,1)", kGmem, "(128,8):(1@0,1@1)")).result["swizzle_mode"], 0);
  EXPECT_EQ(run(partition("Sw<1,4,3> o (128,16):(16,1)", kGmem, "(128,16):(1@0,1@1)")).result["swizzle_mode"], 3);
  EXPECT_EQ(run(partition("Sw<2,4,3> o (128,32):(32,1)", kGmem, "(128,32):(1@0,1@1)")).result["swizzle_mode"], 3);
}

TEST(TmaVerifPartition, ReduceKinds) {
  json r = partition(kSmem, kGmem, kVmap, "TMA_REDUCE_ADD", "reduce");
  EXPECT_EQ(diag_of(r), "");
  r["mode"] = "TMA_REDUCE_INC";
  EXPECT_EQ(diag_of(r), "Failed to construct the TMA tensor type");  // .inc is u32 only
  r["element_bits"] = 32;
  r["smem_layout"] = "Sw<3,4,3> o (128,32):(32,1)";
  r["cta_v_map"] = "(128,32):(1@0,1@1)";
  EXPECT_EQ(diag_of(r), "");
  r["mode"] = "TMA_REDUCE_XOR";
  EXPECT_EQ(diag_of(r), "");
}

TEST(TmaVerifPartition, MalformedRequests) {
  json r = partition(kSmem, kGmem, kVmap);
  r["mode"] = "TMA_STORE_TILED";
  EXPECT_THROW(run(r), RequestError);
  r = partition("Sw<3,4,3> o (128,64", kGmem, kVmap);
  try {
    run(r);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(std::string(e.what()), "smem_layout: cannot parse 'Sw<3,4,3> o (128,64': expected ',' or ')' at column 20");
  }
  r = partition(kSmem, kGmem, kVmap);
  r.erase("cta_v_map");
  EXPECT_THROW(run(r), RequestError);
  r = partition(kSmem, kGmem, kVmap);
  r["smem_layuot"] = "x";
  EXPECT_THROW(run(r), RequestError);
  r = partition(kSmem, kGmem, kVmap);
  r["element_bits"] = 12;
  EXPECT_THROW(run(r), RequestError);
}

// Random requests never crash the verifier: each is accepted, rejected with one diagnostic, or a
// RequestError.
rc::Gen<std::string> gen_layout_text(bool swizzle) {
  return rc::gen::exec([swizzle] {
    const int n = *rc::gen::inRange(1, 7);
    std::string sh = "(", st = "(";
    for (int i = 0; i < n; ++i) {
      sh += (i ? "," : "") + *rc::gen::element<std::string>("1", "2", "4", "8", "16", "64", "128", "256", "3", "?");
      st += (i ? "," : "") + *rc::gen::element<std::string>("0", "1", "2", "8", "64", "128", "1024", "?", "1@0",
                                                            "1@1", "2@1", "1@2", "64@0");
    }
    std::string l = sh + "):" + st + ")";
    if (swizzle && *rc::gen::inRange(0, 4) != 0)
      l = *rc::gen::element<std::string>("Sw<0,4,3> o ", "Sw<1,4,3> o ", "Sw<2,4,3> o ", "Sw<3,4,3> o ",
                                         "Sw<2,5,2> o ") + l;
    return l;
  });
}

RC_GTEST_PROP(TmaVerifProp, PartitionNeverCrashes, ()) {
  const std::string op = *rc::gen::element<std::string>("load", "store", "reduce");
  const int mode = *rc::gen::inRange(0, op == "reduce" ? 8 : 4);
  json r = {{"verifier", "tma-partition"},
            {"op", op},
            {"mode", std::to_string(mode)},
            {"smem_layout", *gen_layout_text(true)},
            {"gmem_layout", *gen_layout_text(false)},
            {"cta_v_map", *gen_layout_text(false)},
            {"element_bits", *rc::gen::element(8, 16, 32)},
            {"target", *rc::gen::element<std::string>("sm_90a", "sm_100a")}};
  if (*rc::gen::arbitrary<bool>()) r["num_multicast"] = *rc::gen::inRange(-1, 5);
  try {
    Outcome o = run(r);
    RC_ASSERT(o.accepted == o.diagnostics.empty());
    if (!o.accepted) RC_ASSERT(o.diagnostics.size() == 1u);
    if (o.accepted) RC_ASSERT(o.result["rank"].get<int>() >= 1 && o.result["rank"].get<int>() <= 5);
  } catch (const RequestError&) {
  }
}

// ---- tma-descriptor ----------------------------------------------------------------------------

json descriptor() {
  return {{"verifier", "tma-descriptor"}, {"layout", "(?,?):(?,1)"}, {"element_bits", 16}, {"box", {64, 128}}};
}

TEST(TmaVerifDescriptor, VerbatimDiagnostics) {
  json r = descriptor();
  r["descriptor_address"] = "0x7f0000001040";
  EXPECT_EQ(diag_of(r), "expected tma descriptor pointer to have alignment at least 128");
  r = descriptor();
  r["descriptor_alignment"] = 64;
  EXPECT_EQ(diag_of(r), "expected tma descriptor pointer to have alignment at least 128");
  r["descriptor_alignment"] = 128;
  EXPECT_EQ(diag_of(r), "");
  r = descriptor();
  r["box"] = {4, 8};
  EXPECT_EQ(diag_of(r), "tma boxDims[0] * elemTypeBitWidth is not a multiple of 16 bytes");
  r["element_bits"] = 32;
  EXPECT_EQ(diag_of(r), "");
  r = descriptor();
  r["smem_layout"] = "Sw<3,4,3> o (128,64):(64,1)";
  EXPECT_EQ(diag_of(r), "");
  r["smem_layout"] = "Sw<1,4,3> o (128,64):(64,1)";  // 128-byte rows under a 32-byte swizzle
  EXPECT_EQ(diag_of(r), "smem layout is not TMA compatible");
  r["smem_layout"] = "Sw<3,4,3> o (128,32):(32,1)";  // too small for the box
  EXPECT_EQ(diag_of(r), "smem layout is not TMA compatible");
  r["smem_layout"] = "Sw<3,4,3> o (128,64):(128,1)";  // holes
  EXPECT_EQ(diag_of(r), "smem layout is not TMA compatible");
  r = descriptor();
  r["paddings"] = {0.0, 1.5};
  EXPECT_EQ(diag_of(r), "TmaLoad only support zero padding now");
  r["op"] = "store";
  EXPECT_EQ(diag_of(r), "TmaStore only support zero padding now");
  r["paddings"] = {0, 0};
  EXPECT_EQ(diag_of(r), "");
}

TEST(TmaVerifDescriptor, BuilderRules) {
  json r = descriptor();
  r["memory_space"] = "shared";
  EXPECT_EQ(diag_of(r), "expected the TMA descriptor tensor to be in global memory, but got shared");
  r = descriptor();
  r.erase("layout");
  r["box"] = {8, 2, 2, 2, 2, 2};
  EXPECT_EQ(diag_of(r), "expected a TMA descriptor rank between 1 and 5, but got 6");
  r = descriptor();
  r["layout"] = "Sw<3,4,3> o (?,?):(?,1)";
  EXPECT_EQ(diag_of(r),
            "expected a non-composed layout for the TMA descriptor, but got !cute.composed_layout<Sw<3,4,3> o "
            "(?,?):(?,1)>");
  r["layout"] = "(?,?):(?,?)";
  EXPECT_EQ(diag_of(r),
            "expected a TMA descriptor layout with integer strides and a static unit stride, but got "
            "!cute.layout<(?,?):(?,?)>");
  r["layout"] = "(?,?,?):(?,1,?)";
  EXPECT_EQ(diag_of(r), "expected a rank-2 layout for the TMA descriptor, but got !cute.layout<(?,?,?):(?,1,?)>");
  r = descriptor();
  r["mode"] = "im2col";
  EXPECT_EQ(diag_of(r), "expected a rank between 3 and 5 for an im2col descriptor, but got 2");
  r = descriptor();
  r["global_strides"] = {100};
  EXPECT_EQ(diag_of(r),
            "expected every global stride to be a positive multiple of 16 bytes below 2^40, but got 100 at dimension 1");
  r["global_strides"] = {128, 256};
  EXPECT_EQ(diag_of(r), "expected 1 global strides (dimensions 1..rank-1) for a rank-2 descriptor, but got 2");
  r = descriptor();
  r["box"] = {64, 512};
  EXPECT_EQ(diag_of(r), "expected every box dimension to be between 1 and 256, but got 512 at dimension 1");
}

TEST(TmaVerifDescriptor, WalkthroughBox) {
  json r = {{"verifier", "tma-descriptor"}, {"layout", "(?,?):(?,1)"}, {"element_bits", 16}, {"box", {128, 128}}};
  Outcome o = run(r);
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["box_bytes"], 32768);
  EXPECT_EQ(o.result["inner_box_bytes"], 256);
}

// ---- tma-atom ----------------------------------------------------------------------------------

json atom() { return {{"verifier", "tma-atom"}, {"tma_box", {128, 128}}, {"element_bits", 16}}; }

TEST(TmaVerifAtom, TxCountArithmetic) {
  Outcome o = run(atom());
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["tx_count"], 32768);  // 128 x 128 x 2 bytes, the walkthrough's number
  EXPECT_EQ(o.result["expect_tx"], 32768);
  json r = atom();
  r["tx_count"] = 16384;
  EXPECT_EQ(diag_of(r), "expected tx_count = 32768 bytes, but got 16384");
  // Multicast: each CTA issues half and receives the whole tile.
  r = atom();
  r["atom_box"] = {128, 64};
  r["num_multicast"] = 2;
  o = run(r);
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["tx_count"], 16384);
  EXPECT_EQ(o.result["expect_tx"], 32768);
  r["expect_tx"] = 16384;
  EXPECT_EQ(diag_of(r), "expected expect_tx = 32768 bytes per receiving CTA, but got 16384");
  // im2col: pixels x channels x element bytes.
  r = atom();
  r["mode"] = "im2col";
  r["tma_box"] = {64, 128};
  r["pixels_per_column"] = 128;
  r["channels_per_pixel"] = 64;
  EXPECT_EQ(run(r).result["tx_count"], 16384);
  // Element strides skip elements (dimension 0 ignores its stride).
  r = atom();
  r["tma_box"] = {64, 8};
  r["element_strides"] = {4, 3};
  EXPECT_EQ(run(r).result["tx_count"], 64 * 3 * 2);
  EXPECT_EQ(tiled_tx_bytes({128, 128}, {}, 16), 32768);
  EXPECT_EQ(im2col_tx_bytes(256, 32, 8), 8192);
}

TEST(TmaVerifAtom, VerbatimDiagnostics) {
  json r = atom();
  r["atom"] = "tma_store";
  EXPECT_EQ(diag_of(r), "expect a tma_load atom type");
  r = atom();
  r["atom_box"] = {128, 128, 1};
  EXPECT_EQ(diag_of(r), "tmaBoxDim and atomBoxDim length mismatch");
  r = atom();
  r["atom_box"] = {8, 4};  // 64 bytes
  r["num_multicast"] = 2;
  EXPECT_EQ(diag_of(r), "mcast is not supported for TMA load with less than 128bytes per atom");
  r["atom_box"] = {16, 4};  // 128 bytes
  EXPECT_EQ(diag_of(r), "");
  r = atom();
  r["kernel_spec"] = false;
  EXPECT_EQ(diag_of(r), "LowerTMALoadStoreToAsync: missing or invalid KernelSpecAttr on function");
  r = atom();
  r["tma_idx"] = 1;
  r["num_host_tmas"] = 1;
  EXPECT_EQ(diag_of(r), "tmaIdx exceed tmaHostNum.");
  r["num_host_tmas"] = 2;
  EXPECT_EQ(diag_of(r), "");
  r["origin"] = "device";
  r["num_device_tmas"] = 1;
  EXPECT_EQ(diag_of(r), "tmaIdx exceed tmaDeviceNum.");
  r = atom();
  r["coordinates"] = {"%bm", "%bk", "%bz"};
  EXPECT_EQ(diag_of(r), "expects 2 coordinates, but got 3");
  r["coordinates"] = {"%bm", "%bk"};
  Outcome o = run(r);
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["ptx_coordinates"], json({"%bk", "%bm"}));  // inner-axis first in PTX
  r = atom();
  r["op"] = "store";
  r["atom"] = "tma_load";
  EXPECT_EQ(diag_of(r), "expect a tma_store atom type");
}

// ---- tma-tile ----------------------------------------------------------------------------------

json tile() { return {{"verifier", "tma-tile"}, {"shape", {128, 128}}, {"element_type", "bf16"}}; }

TEST(TmaVerifTile, Rules) {
  Outcome o = run(tile());
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["bytes"], 32768);
  json r = tile();
  r["shape"] = {128, "?"};
  EXPECT_EQ(diag_of(r), "all dimensions must be positive constants, got !cuda_tile.tile<128x?xbf16>");
  r["shape"] = {128, 0};
  EXPECT_EQ(diag_of(r), "all dimensions must be positive constants, got !cuda_tile.tile<128x0xbf16>");
  r["shape"] = {128, 96};
  EXPECT_EQ(diag_of(r), "all dimensions must be powers of two, got !cuda_tile.tile<128x96xbf16>");
  r["shape"] = {8192, 4096};
  EXPECT_EQ(diag_of(r), "tile would exceed the maximum of 16777216 elements, got 33554432 elements");
  r["shape"] = {4096, 4096};
  EXPECT_EQ(diag_of(r), "");
  r = tile();
  r["coordinates"] = {"%bm", "%bk", "%x"};
  EXPECT_EQ(diag_of(r), "expects 2 coordinates, but got 3");
  r = tile();
  r["coord_type"] = "i32";
  r["index_type"] = "index";
  EXPECT_EQ(diag_of(r), "expects CoordType is same as memref index type");
  r = tile();
  r["view_element_type"] = "f16";
  EXPECT_EQ(diag_of(r), "view elementType not equal with tensor element type: f16 vs bf16");
  r = tile();
  r["mem_semantic"] = "acquire";
  EXPECT_EQ(diag_of(r), "unsupported mem_semantic: acquire");
  r["mem_semantic"] = "relaxed";
  EXPECT_EQ(diag_of(r), "");
  r = tile();
  r["in_bounds"] = {true};
  EXPECT_EQ(diag_of(r), "incorrect number of in_bounds elements: expected 2, got 1");
}

// ---- tma-rebind --------------------------------------------------------------------------------

const std::vector<std::string> kRebind2 = {
    "fence.proxy.tensormap::generic.acquire.cta [%rd1], 128;",
    "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;",
    "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 0, %r1;",
    "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 1, %r2;",
    "tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 0, %rd3;",
    "fence.proxy.tensormap::generic.release.cta;",
};

json rebind(std::vector<std::string> ins, int rank = 2) {
  return {{"verifier", "tma-rebind"}, {"rank", rank}, {"instructions", ins}};
}

TEST(TmaVerifRebind, Templates) {
  EXPECT_STREQ(mutator_template(MutatorField::GlobalAddress),
               "tensormap.replace.tile.global_address.{0}.b1024.b64 [$0], $1;");
  EXPECT_STREQ(mutator_template(MutatorField::GlobalDim), "tensormap.replace.tile.global_dim.{0}.b1024.b32 [$0], {1}, $1;");
  EXPECT_STREQ(mutator_template(MutatorField::GlobalStride),
               "tensormap.replace.tile.global_stride.{0}.b1024.b64 [$0], {1}, $1;");
  EXPECT_EQ(render_mutator(MutatorField::GlobalDim, "shared::cta", 3),
            "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$0], 3, $1;");
  EXPECT_STREQ(mutator_constraints(MutatorField::GlobalAddress, "global"), "l,l");
  EXPECT_STREQ(mutator_constraints(MutatorField::GlobalAddress, "shared::cta"), "r,l");
  EXPECT_STREQ(mutator_constraints(MutatorField::GlobalDim, "global"), "l,r");
  EXPECT_STREQ(mutator_constraints(MutatorField::GlobalStride, "shared::cta"), "l,l");
}

TEST(TmaVerifRebind, Accepted) {
  Outcome o = run(rebind(kRebind2));
  ASSERT_TRUE(o.accepted) << o.diagnostics[0];
  EXPECT_EQ(o.result["replace_ops"], 4);
  EXPECT_EQ(o.result["sequence"], json({"acquire.cta", "global_address", "global_dim 0", "global_dim 1",
                                        "global_stride 0", "release.cta"}));
  // The seed's templates themselves, rank 3 in shared::cta, with their constraint strings.
  std::vector<json> ins = {"fence.proxy.tensormap::generic.acquire.gpu [%rd9], 128;"};
  ins.push_back({{"ptx", render_mutator(MutatorField::GlobalAddress, "shared::cta")}, {"constraints", "r,l"}});
  for (int i = 0; i < 3; ++i)
    ins.push_back({{"ptx", render_mutator(MutatorField::GlobalDim, "shared::cta", i)}, {"constraints", "l,r"}});
  for (int i = 1; i < 3; ++i)
    ins.push_back({{"ptx", render_mutator(MutatorField::GlobalStride, "shared::cta", i - 1)}, {"constraints", "l,l"}});
  ins.push_back("fence.proxy.tensormap::generic.release.gpu;");
  json r = {{"verifier", "tma-rebind"}, {"rank", 3}, {"instructions", ins}, {"shared_across_ctas", true}};
  o = run(r);
  ASSERT_TRUE(o.accepted) << o.diagnostics[0];
  EXPECT_EQ(o.result["replace_ops"], 6);
}

TEST(TmaVerifRebind, SequenceDiagnostics) {
  auto v = kRebind2;
  std::swap(v[3], v[4]);  // a stride before the last dim
  EXPECT_EQ(diag_of(rebind(v)),
            "expected the global_dim mutator for dimension 1 (tensormap.replace.tile.global_dim.global.b1024.b32 "
            "[$0], 1, $1;), but got tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 0, %rd3");
  v = kRebind2;
  v.pop_back();
  EXPECT_EQ(diag_of(rebind(v)),
            "expected fence.proxy.tensormap::generic.release to end the rebind sequence, but got the end of the "
            "instructions");
  v = kRebind2;
  v.erase(v.begin());
  EXPECT_EQ(diag_of(rebind(v)),
            "expected the rebind sequence to begin with fence.proxy.tensormap::generic.acquire, but got "
            "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2");
  v = kRebind2;
  v[4] = "tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 1, %rd3;";  // index must be i-1 = 0
  EXPECT_EQ(diag_of(rebind(v)),
            "expected the global_stride mutator for dimension 1 (tensormap.replace.tile.global_stride.global.b1024.b64 "
            "[$0], 0, $1;), but got tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 1, %rd3");
  v = kRebind2;
  v[2] = "tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 0, %r1;";
  EXPECT_EQ(diag_of(rebind(v)), "TMA descriptor field is not device-mutable");
  v[2] = "tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd1], 3;";
  EXPECT_EQ(diag_of(rebind(v)), "TMA descriptor field is not device-mutable");
  v = kRebind2;
  v[3] = "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd7], 1, %r2;";
  EXPECT_EQ(diag_of(rebind(v)),
            "expected every mutator of the rebind sequence to write the descriptor [%rd1], but got "
            "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd7], 1, %r2");
  v = kRebind2;
  v.push_back("fence.proxy.tensormap::generic.acquire.cta [%rd1], 128;");
  EXPECT_EQ(diag_of(rebind(v)),
            "expected the rebind sequence to end after the release fence, but got "
            "fence.proxy.tensormap::generic.acquire.cta [%rd1], 128");
  v = kRebind2;
  v[0] = "fence.proxy.tensormap::generic.acquire.cta;";
  EXPECT_EQ(diag_of(rebind(v)),
            "expected fence.proxy.tensormap::generic.acquire.cta [addr], 128, but got "
            "fence.proxy.tensormap::generic.acquire.cta");
  json r = rebind(kRebind2);
  r["shared_across_ctas"] = true;
  EXPECT_EQ(diag_of(r),
            "expected a .gpu or .sys fence scope for a descriptor shared across CTAs, but got "
            "fence.proxy.tensormap::generic.acquire.cta [%rd1], 128");
  r = rebind(kRebind2);
  r["instructions"][3] = {{"ptx", kRebind2[3]}, {"constraints", "l,l"}};
  EXPECT_EQ(diag_of(r), "expected the constraint string \"l,r\" for the global_dim mutator, but got \"l,l\"");
  EXPECT_EQ(diag_of(rebind(kRebind2, 3)),
            "expected the global_dim mutator for dimension 2 (tensormap.replace.tile.global_dim.global.b1024.b32 "
            "[$0], 2, $1;), but got tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 0, %rd3");
  EXPECT_EQ(diag_of(rebind(kRebind2, 6)), "expected a descriptor rank between 1 and 5, but got 6");
  // Unrelated instructions in between are ignored; a seed copy may come first.
  v = kRebind2;
  v.insert(v.begin() + 2, "add.s32 %r1, %r1, 1;");
  v.insert(v.begin(), "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [%rd1], [%r9], 128;");
  EXPECT_EQ(diag_of(rebind(v)), "");
}

TEST(TmaVerifRebind, UpdateKinds) {
  json r = {{"verifier", "tma-rebind"},
            {"rank", 3},
            {"updates", {{{"kind", "base_pointer"}}, {{"kind", "dim"}, {"axis", 2}}, {{"kind", "stride"}, {"axis", 1}}}}};
  EXPECT_EQ(diag_of(r), "");
  r["updates"].push_back({{"kind", "stride"}, {"axis", 0}});
  EXPECT_EQ(diag_of(r), "TMA descriptor field is not device-mutable");
  r["updates"] = {{{"kind", "swizzle"}}};
  EXPECT_EQ(diag_of(r), "TMA descriptor field is not device-mutable");
  r["updates"] = {{{"kind", "dim"}, {"axis", 3}}};
  EXPECT_EQ(diag_of(r), "expected a dimension axis below the rank 3, but got 3");
  EXPECT_EQ(check_tma_updates({{"rank", 0}}, 2), "TMA descriptor field is not device-mutable");
}

// ---- bulk-emission -----------------------------------------------------------------------------

std::string bulk(const std::string& ptx, const char* constraints = nullptr) {
  json r = {{"verifier", "bulk-emission"}, {"ptx", ptx}};
  if (constraints) r["constraints"] = constraints;
  return diag_of(r);
}

TEST(TmaVerifBulk, AcceptedForms) {
  const std::string walk =
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], "
      "[%r4];";
  EXPECT_EQ(bulk(walk), "");
  json r = {{"verifier", "bulk-emission"}, {"ptx", walk}};
  Outcome o = run(r);
  EXPECT_EQ(o.result["descriptor_opnum"], 1);
  EXPECT_EQ(o.result["mcast_opnum"], 5);
  EXPECT_EQ(o.result["ch_opnum"], 5);
  // Template form with every optional tail: mcast_opnum = rank + 3 + im2col_count.
  const std::string t =
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.im2col.multicast::cluster."
      "L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], {%6}, %7, %8;";
  EXPECT_EQ(bulk(t, "r,l,r,r,r,r,h,h,l"), "");
  r = {{"verifier", "bulk-emission"}, {"ptx", t}};
  o = run(r);
  EXPECT_EQ(o.result["im2col_count"], 1);
  EXPECT_EQ(o.result["mcast_opnum"], 7);
  EXPECT_EQ(o.result["ch_opnum"], 8);
  // Stores: the descriptor is %0.
  EXPECT_EQ(bulk("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2], %3;"), "expected 0 trailing operands, but got 1");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [%0, {%1}], [%2], %3;",
                 "l,r,r,l"),
            "");
  EXPECT_EQ(bulk("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [%r3];"),
            "");
  EXPECT_EQ(bulk("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];"), "");
  EXPECT_EQ(bulk("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], "
                 "[%rd1], 256, [%r2], %rs1;"),
            "");
}

TEST(TmaVerifBulk, Diagnostics) {
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint."
                 "multicast::cluster [%0], [%1, {%2, %3}], [%4], %5, %6;"),
            "expected the modifier order .im2col, .multicast::cluster, .L2::cache_hint, but got .L2::cache_hint "
            "before .multicast::cluster");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster."
                 "im2col [%0], [%1, {%2, %3, %4}], [%5], {%6}, %7;"),
            "expected the modifier order .im2col, .multicast::cluster, .L2::cache_hint, but got .multicast::cluster "
            "before .im2col");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %6;"),
            "expected the ctaMask at operand %5 (mcast_opnum = rank + 3 + im2col_count), but got %6");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster."
                 "L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5, %7;"),
            "expected the cache-policy at operand %6 (ch_opnum = mcast_opnum + 1), but got %7");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%1, {%2}], [%0];"),
            "expected the tensor-map descriptor at operand %0, but got %1");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%rd2, "
                 "%r3}], [%r4];"),
            "expected the coordinate 0 (operand %2) to have constraint class \"r\" (32-bit), but got %rd2 (\"l\", "
            "64-bit)");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];",
                 "r,r,r,r,r"),
            "expected the tensor-map descriptor (operand %1) to have constraint class \"l\" (64-bit), but got \"r\" "
            "(32-bit)");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%r1], [%rd1, {%r2, %r3}], [%r4], %r5;"),
            "expected the ctaMask (operand %5) to have constraint class \"h\" (16-bit), but got %r5 (\"r\", 32-bit)");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.6d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], "
                 "[%r4];"),
            "expected a tensor rank between 1 and 5, but got .6d");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, "
                 "{%r2, %r3}], [%r4];"),
            "expected a rank between 3 and 5 for .im2col, but got .2d");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], "
                 "[%r4];"),
            "expected 2 tensor coordinates for .2d, but got 1");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, "
                 "{%r2, %r3, %r5}], [%r4];"),
            "expected 1 im2col offsets for .3d .im2col, but got 0");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], "
                 "[%rd1, {%r2, %r3}], [%r4];"),
            "expected 1 trailing operand (cache-policy), but got 0");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.multicast::cluster [%rd1, {%r1}], [%r2], "
                 "%rs1;"),
            "expected .multicast::cluster only on a load into shared::cluster, but got "
            "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.multicast::cluster [%rd1, {%r1}], [%r2], %rs1");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster."
                 "multicast::cluster [%r1], [%rd1, {%r2, %r3}], [%r4], %rs1;"),
            "expected each modifier at most once, but got .multicast::cluster twice");
  EXPECT_EQ(bulk("mov.b32 %r1, %r2;"), "expected a cp.async.bulk instruction, but got mov.b32 %r1, %r2");
  EXPECT_EQ(bulk("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];",
                 "r,l,r"),
            "expected 5 constraints for 5 operands, but got 3 (\"r,l,r\")");
}

// ---- file-level check --------------------------------------------------------------------------

TEST(TmaVerifCheck, FileDiagnostics) {
  std::vector<std::pair<int, std::string>> lines = {
      {10, "\tfence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;  // consumer acquire"},
      {11, "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd5, {%r2, %r3}], [%r4];"},
      {20, "\tfence.proxy.tensormap::generic.acquire.cta [%rd1], 128;"},
      {21, "\ttensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;"},
      {22, "\ttensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 0, %r1;"},
      {23, "\ttensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 1, %r2;"},
      {24, "\ttensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 2, %r3;"},
      {25, "\ttensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 0, %rd3;"},
      {26, "\ttensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 1, %rd4;"},
      {27, "\tfence.proxy.tensormap::generic.release.cta;"},
      {30, "$L__BB0_2:"},
      {31, "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint.multicast::cluster [%r1], [%rd5, {%r2, %r3}], [%r4], %rs1, %rd9;"},
      {40, "\t{ fence.proxy.tensormap::generic.acquire.cta [%rd1], 128; tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2; }"},
      {41, "\ttensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 0, %rd3;"},
      {42, "\tfence.proxy.tensormap::generic.release.cta;"},
      {50, "\ttensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 10;"},
  };
  auto d = check_tma_ptx("k.ptx", lines);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0],
            "k.ptx:31: error: expected the modifier order .im2col, .multicast::cluster, .L2::cache_hint, but got "
            ".L2::cache_hint before .multicast::cluster");
  EXPECT_EQ(d[1],
            "k.ptx:41: error: expected the global_dim mutator for dimension 0 "
            "(tensormap.replace.tile.global_dim.global.b1024.b32 [$0], 0, $1;), but got "
            "tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 0, %rd3");
  EXPECT_EQ(d[2], "k.ptx:50: error: TMA descriptor field is not device-mutable");
  // A rebind left open at the end of the file.
  auto open = check_tma_ptx({{5, "fence.proxy.tensormap::generic.acquire.cta [%rd1], 128;"},
                             {6, "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;"},
                             {7, "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 0, %r1;"}});
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].line, 7);
  EXPECT_EQ(open[0].message,
            "expected fence.proxy.tensormap::generic.release to end the rebind sequence, but got the end of the "
            "instructions");
}

// ---- the CLI -----------------------------------------------------------------------------------

struct CliResult {
  int code = -1;
  std::string out, err;
};

class TmaVerifCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ptxsim_verify_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  CliResult cli(const std::string& args, const std::string& stdin_file = "") {
    const auto out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    std::string cmd = std::string("'") + PTXSIM_CLI + "' verify " + args + " >'" + out.string() + "' 2>'" +
                      err.string() + "'";
    if (!stdin_file.empty()) cmd += " <'" + stdin_file + "'";
    int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  std::filesystem::path dir_;
};

TEST_F(TmaVerifCli, RejectedPrintsErrorLinesAndExits4) {
  json r = partition("(2,2,2,2,2,2):(1,2,4,8,16,32)", "(2,2,2,2,2,2):(1,2,4,8,16,32)", "(64):(1@0)");
  auto res = cli("'" + write("rank6.json", r.dump()) + "'");
  EXPECT_EQ(res.code, 4);
  EXPECT_EQ(res.out,
            "error: invalid operand types, got !cute.layout<(2,2,2,2,2,2):(1,2,4,8,16,32)>, "
            "!cute.layout<(2,2,2,2,2,2):(1,2,4,8,16,32)>, and !cute.layout<(64):(1@0)>\n");
  EXPECT_EQ(res.err, "");
}

TEST_F(TmaVerifCli, AcceptedPrintsResultLinesAndExits0) {
  auto res = cli("'" + write("ok.json", partition(kSmem, kGmem, kVmap).dump()) + "'");
  EXPECT_EQ(res.code, 0);
  EXPECT_EQ(res.out.rfind("tma_tensor_type: 0x", 0), 0u) << res.out;
  EXPECT_NE(res.out.find("\nflags: 0x0fc0\n"), std::string::npos);
  EXPECT_NE(res.out.find("\n  bit 13 prefetch_eligible: 0\n"), std::string::npos);
}

TEST_F(TmaVerifCli, JsonOutput) {
  json r = partition("Sw<3,4,3> o (64,32):(1,64)", "(64,32):(1,2)", "(64,32):(1@0,1@1)");
  auto res = cli("--json '" + write("s4.json", r.dump()) + "'");
  EXPECT_EQ(res.code, 4);
  json j = json::parse(res.out);
  EXPECT_EQ(j["verifier"], "tma-partition");
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["diagnostics"],
            json({"expected the GMEM and SMEM layouts to have integer stride elements, but got "
                  "!cute.layout<(64,32):(1,2)>, and !cute.composed_layout<Sw<3,4,3> o (64,32):(1,64)>"}));
  EXPECT_EQ(j["result"]["failed_step"], 4);
  res = cli("'" + write("a.json", atom().dump()) + "' --json");
  EXPECT_EQ(res.code, 0);
  j = json::parse(res.out);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["result"]["tx_count"], 32768);
}

TEST_F(TmaVerifCli, StdinListAndMalformed) {
  auto res = cli("-", write("t.json", tile().dump()));
  EXPECT_EQ(res.code, 0);
  EXPECT_EQ(res.out, "tile: !cuda_tile.tile<128x128xbf16>\nelements: 16384\nbytes: 32768\n");
  res = cli("--list");
  EXPECT_EQ(res.code, 0);
  for (const char* n : {"tma-partition", "tma-descriptor", "tma-atom", "tma-tile", "tma-rebind", "bulk-emission"})
    EXPECT_NE(res.out.find(std::string(n) + " "), std::string::npos) << n;
  res = cli("'" + write("nov.json", R"({"op": "load"})") + "'");
  EXPECT_EQ(res.code, 1);
  EXPECT_NE(res.err.find("no \"verifier\" key"), std::string::npos) << res.err;
  res = cli("'" + write("unk.json", R"({"verifier": "tma-nope"})") + "'");
  EXPECT_EQ(res.code, 1);
  EXPECT_NE(res.err.find("unknown verifier 'tma-nope'"), std::string::npos) << res.err;
  res = cli("'" + write("bad.json", R"({"verifier": "tma-partition", "op": "load"})") + "'");
  EXPECT_EQ(res.code, 1);
  EXPECT_EQ(res.err, "ptxsim verify: tma-partition: request key \"mode\" is missing\n");
  res = cli("--json '" + write("bad2.json", R"({"verifier": "tma-partition", "op": "load"})") + "'");
  EXPECT_EQ(res.code, 1);
  EXPECT_EQ(json::parse(res.out)["error"], "tma-partition: request key \"mode\" is missing");
  res = cli("'" + write("notjson.json", "{ nope") + "'");
  EXPECT_EQ(res.code, 1);
  EXPECT_NE(res.err.find("not valid JSON"), std::string::npos);
  res = cli("'" + (dir_ / "missing.json").string() + "'");
  EXPECT_EQ(res.code, 1);
  res = cli("");
  EXPECT_EQ(res.code, 1);
  res = cli("--frobnicate x.json");
  EXPECT_EQ(res.code, 1);
}

TEST(TmaVerifCliInProcess, VerifyRequest) {
  std::ostringstream out, err;
  json r = {{"verifier", "bulk-emission"},
            {"ptx", "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}], [%r2];"}};
  EXPECT_EQ(ptxsim::cli::verify_request(r, false, out, err), 0);
  EXPECT_NE(out.str().find("descriptor_operand: %0\n"), std::string::npos) << out.str();
  std::ostringstream out2, err2;
  r["ptx"] = "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%r1, {%rd1}], [%r2];";
  EXPECT_EQ(ptxsim::cli::verify_request(r, false, out2, err2), 4);
  EXPECT_EQ(out2.str(),
            "error: expected the tensor-map descriptor (operand %0) to have constraint class \"l\" (64-bit), but got "
            "%r1 (\"r\", 32-bit)\n");
}

}  // namespace
