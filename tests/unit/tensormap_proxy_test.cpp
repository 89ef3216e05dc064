// Tensor maps modified on the device: tensormap.replace of every field (against the model applied
// on the host), tensormap.cp_fenceproxy, fence.proxy.tensormap::generic.acquire (never a fault on
// its address: a fence is not an access), and ptxsim's tensormap-proxy model: a TMA operation
// using a map in global memory warns without an acquire in its CTA, and uses the acquired bytes
// (with a warning) when the generic proxy changed them since.
#include <gtest/gtest.h>

#include "model/tensormap/replace.h"
#include "tests/unit/tma_test_util.h"
#include "tools/ptxsim/params.h"

using namespace tma_test;
namespace tmap = ptxsim::model::tmap;

namespace {

// The warp copies the template map (the kernel parameter `tmap`) into `smap`, a word a lane, for
// the kernels below (a line COPY_TEMPLATE_TO_SHARED): %r1 = lane, %r2 = 4 * lane, %rd3 = %r2,
// %r4 = smap, %r5 = smap + %r2.
std::string with_template_copy(const char* kernel) {
  return replace_all(kernel, "  COPY_TEMPLATE_TO_SHARED\n", R"(  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 2;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd2, %rd3;
  ld.u32 %r3, [%rd4];
  mov.u32 %r4, smap;
  add.u32 %r5, %r4, %r2;
  st.shared.u32 [%r5], %r3;
  bar.warp.sync 0xffffffff;
)");
}

// One warp: copies the template map (a kernel parameter) into shared memory, rewrites its global
// address (REPLACE), publishes it to `gmap` in global memory (CPFENCE), acquires it (ACQUIRE), runs
// POST, then lane 0 loads a 16x16 u32 tile through the map at `gmap` and copies it to `out`.
const char* kProxyPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 gmap, .param .u64 newaddr, .param .u64 other,
                  .param .u64 out)
{
  .shared .align 128 .b8 smap[128];
  .shared .align 1024 .b8 buf[1024];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  COPY_TEMPLATE_TO_SHARED
  ld.param.u64 %rd5, [gmap];
  ld.param.u64 %rd6, [newaddr];
  ld.param.u64 %rd7, [other];
  REPLACE
  CPFENCE
  ACQUIRE
  POST
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mov.u32 %r6, bar;
  mov.u32 %r7, buf;
  mbarrier.init.shared::cta.b64 [%r6], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], 1024;
  mov.u32 %r8, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r7], [MAP, {%r8, %r8}], [%r6];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
  @!%p2 bra $wait;
  ld.param.u64 %rd8, [out];
  mov.u32 %r9, 0;
$copy:
  add.u32 %r10, %r7, %r9;
  ld.shared.u32 %r11, [%r10];
  cvt.u64.u32 %rd9, %r9;
  add.s64 %rd10, %rd8, %rd9;
  st.global.u32 [%rd10], %r11;
  add.u32 %r9, %r9, 4;
  setp.lt.u32 %p3, %r9, 1024;
  @%p3 bra $copy;
$done:
  ret;
}
)";

const char* kReplace = "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r4], %rd6;";
const char* kCpFence = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [%r4], 128;";
const char* kAcquire = "fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;";

struct ProxyRun {
  Launched run;
  std::vector<uint8_t> out;
  std::vector<uint8_t> a, b, c;  // the three tensors' contents
  uint64_t gmap = 0;
};

ProxyRun run_proxy(const std::string& replace, const std::string& cpfence, const std::string& acquire,
                   const std::string& post, const std::string& map = "%rd5") {
  std::string ptx = replace_all(with_template_copy(kProxyPtx), "REPLACE", replace);
  ptx = replace_all(ptx, "CPFENCE", cpfence);
  ptx = replace_all(ptx, "ACQUIRE", acquire);
  ptx = replace_all(ptx, "POST", post);
  ptx = replace_all(ptx, "MAP", map);
  ProxyRun r;
  ptxsim::model::GlobalMemory mem;
  r.a.resize(1024);
  r.b.resize(1024);
  r.c.resize(1024);
  for (size_t i = 0; i < 1024; ++i) {
    r.a[i] = uint8_t(i);
    r.b[i] = uint8_t(255 - i);
    r.c[i] = uint8_t(i * 13 + 5);
  }
  uint64_t ta = upload(mem, r.a.data(), 1024, "A"), tb = upload(mem, r.b.data(), 1024, "B"),
           tc = upload(mem, r.c.data(), 1024, "C");
  r.gmap = alloc(mem, 128, "gmap", 0);
  uint64_t out = alloc(mem, 1024, "out");
  auto m = encode(tmap::DataType::kUInt32, 2, ta, {16, 16}, {64}, {16, 16}, {1, 1});
  Params p;
  p.add_bytes(&m, 128, 64).add(r.gmap).add(tb).add(tc).add(out);
  r.run = launch(ptx, mem, p, {1, 1, 1}, {32, 1, 1});
  r.out = read(mem, out, 1024);
  return r;
}

}  // namespace

TEST(TensormapProxy, ReplaceCopyFenceAcquireUseIsClean) {
  ProxyRun r = run_proxy(kReplace, kCpFence, kAcquire, "");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics();
  EXPECT_EQ(r.run.warning_count(), 0u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.b) << "the modified map points at B";
}

TEST(TensormapProxy, UseWithoutAcquireWarns) {
  ProxyRun r = run_proxy(kReplace, kCpFence, "", "");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics();
  EXPECT_TRUE(r.run.has_warning("tensor map at " + hex_addr(r.gmap) + " used without fence.proxy.tensormap::generic acquire"))
      << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.b) << "ptxsim uses the current bytes";
}

TEST(TensormapProxy, GenericWriteAfterAcquireWarnsAndUsesTheAcquiredMap) {
  ProxyRun r = run_proxy(kReplace, kCpFence, kAcquire,
                         "tensormap.replace.tile.global_address.global.b1024.b64 [%rd5], %rd7;");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics();
  EXPECT_TRUE(r.run.has_warning("modified through the generic proxy after this CTA's last "
                                "fence.proxy.tensormap::generic acquire (bytes 0x0"))
      << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.b) << "the tensormap proxy still sees the acquired map (B), not C";
  // Acquiring again makes the new map visible.
  r = run_proxy(kReplace, kCpFence, kAcquire,
                std::string("tensormap.replace.tile.global_address.global.b1024.b64 [%rd5], %rd7;\n  ") + kAcquire);
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics();
  EXPECT_EQ(r.run.warning_count(), 0u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.c);
}

TEST(TensormapProxy, ParamMapsNeedNoFence) {
  ProxyRun r = run_proxy("", "", "", "", "%rd2");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics();
  EXPECT_EQ(r.run.warning_count(), 0u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.a);
}

// A fence is not an access: fence.proxy.tensormap::generic.acquire never faults on its address.
// CUTLASS's grouped and pointer-array GEMMs hand the non-leader warps of a warp group a null map
// pointer on purpose, and every warp fences it.

TEST(TensormapProxy, AcquireOfASharedAddressWarnsAndDoesNothing) {
  ProxyRun r = run_proxy("cvt.u64.u32 %rd5, %r4;\n  cvta.shared.u64 %rd5, %rd5;", "", kAcquire, "", "%rd2");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics();
  EXPECT_TRUE(r.run.has_warning("fence.proxy.tensormap::generic.acquire: address 0x7e") &&
              r.run.has_warning("is in the shared window, not global memory; the fence orders nothing there"))
      << r.run.all_diagnostics();
  EXPECT_EQ(r.run.warning_count(), 1u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.a) << "the parameter map is used";
}

namespace {

// Lane-dependent fence addresses, none of them a map in global memory: lanes 0-7 null, 8-15 a
// low unallocated address, 16-23 a high unallocated one, 24-27 the last 64 bytes of `out` (the 128
// bytes run past its end), 28-30 the parameter window (the template map); lane 31 fences LANE31.
std::string acquire_per_lane(const std::string& lane31) {
  return R"(ld.param.u64 %rd12, [out];
  add.s64 %rd12, %rd12, 960;
  mov.u64 %rd11, )" + lane31 + R"(;
  setp.lt.u32 %p1, %r1, 31;
  @%p1 mov.u64 %rd11, %rd2;
  setp.lt.u32 %p1, %r1, 28;
  @%p1 mov.u64 %rd11, %rd12;
  setp.lt.u32 %p1, %r1, 24;
  @%p1 mov.u64 %rd11, 0x7f7f00000000;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 mov.u64 %rd11, 0x40;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 mov.u64 %rd11, 0;
  fence.proxy.tensormap::generic.acquire.gpu [%rd11], 128;)";
}

}  // namespace

TEST(TensormapProxy, AcquireOfAddressesHoldingNoGlobalMapCompletesAndOrdersTheRealOne) {
  // Lane 31 fences the real map: the TMA sees the replaced map (B), with no diagnostic.
  ProxyRun r = run_proxy(kReplace, kCpFence, acquire_per_lane("%rd5"), "");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics() << r.run.result.report;
  EXPECT_EQ(r.run.warning_count(), 0u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.b);
  // The same fences, and the generic write after them is still detected.
  r = run_proxy(kReplace, kCpFence, acquire_per_lane("%rd5"),
                "tensormap.replace.tile.global_address.global.b1024.b64 [%rd5], %rd7;");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics() << r.run.result.report;
  EXPECT_TRUE(r.run.has_warning("tensor map at " + hex_addr(r.gmap) + ": modified through the generic proxy after "
                                "this CTA's last fence.proxy.tensormap::generic acquire (bytes 0x0"))
      << r.run.all_diagnostics();
  EXPECT_EQ(r.run.warning_count(), 1u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.b);
}

TEST(TensormapProxy, AcquireOfNullDoesNotAcquireTheMapInUse) {
  // No lane fences the map in global memory: every fence completes, and the TMA through the
  // device-modified map still warns that it was used without an acquire.
  ProxyRun r = run_proxy(kReplace, kCpFence, acquire_per_lane("0"), "");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Completed) << r.run.all_diagnostics() << r.run.result.report;
  EXPECT_TRUE(r.run.has_warning("tensor map at " + hex_addr(r.gmap) + " used without fence.proxy.tensormap::generic "
                                "acquire in this CTA"))
      << r.run.all_diagnostics();
  EXPECT_EQ(r.run.warning_count(), 1u) << r.run.all_diagnostics();
  EXPECT_EQ(r.out, r.b) << "ptxsim uses the current bytes";
}

TEST(TensormapProxy, ReplaceErrorsFault) {
  ProxyRun r = run_proxy("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r4], 4, %rd6;", "", "", "");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Fault) << r.run.all_diagnostics();
  EXPECT_NE(r.run.result.report.find("tensormap.replace.global_stride"), std::string::npos) << r.run.result.report;
  EXPECT_NE(r.run.result.report.find("must be in [0, 3]"), std::string::npos) << r.run.result.report;
}

TEST(TensormapProxy, InvalidReplacedMapFaultsWhenUsedNamingTheField) {
  // A box of 3 u32 columns (12 bytes) is not a multiple of 16 bytes.
  ProxyRun r = run_proxy("mov.u32 %r12, 3;\n  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r4], 0, %r12;",
                         kCpFence, kAcquire, "");
  ASSERT_EQ(r.run.result.status, ptxsim::RunStatus::Fault) << r.run.all_diagnostics();
  EXPECT_NE(r.run.result.report.find("invalid tensor map at global address"), std::string::npos) << r.run.result.report;
  EXPECT_NE(r.run.result.report.find("field '"), std::string::npos) << r.run.result.report;
}

// ---- every field, against the model applied on the host --------------------------------------

namespace {

const char* kFieldsPtx = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u64 addr, .param .u32 v32,
                  .param .u64 v64)
{
  .shared .align 128 .b8 smap[128];
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  COPY_TEMPLATE_TO_SHARED
  ld.param.u64 %rd5, [addr];
  ld.param.u32 %r6, [v32];
  ld.param.u64 %rd6, [v64];
  REPLACES
  bar.warp.sync 0xffffffff;
  ld.param.u64 %rd7, [out];
  ld.shared.u32 %r7, [%r5];
  add.s64 %rd8, %rd7, %rd3;
  st.global.u32 [%rd8], %r7;
  ret;
}
)";

}  // namespace

TEST(TensormapProxy, EveryFieldMatchesTheModel) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  using F = tmap::ReplaceField;
  struct Step {
    std::string ptx;
    F field;
    uint32_t ord;
    uint64_t value;
  };
  const uint64_t addr = 0x7f0000123400ull, v64 = 16ull * (1 + rng() % 100000);
  const uint32_t v32 = 1 + uint32_t(rng() % 200);
  const std::vector<Step> steps = {
      {"tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r4], %rd5;", F::kGlobalAddress, 0, addr},
      {"tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r4], 3;", F::kRank, 0, 3},
      {"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r4], 2, %r6;", F::kBoxDim, 2, v32},
      {"tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r4], 4, %r6;", F::kGlobalDim, 4, v32},
      {"tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r4], 3, %rd6;", F::kGlobalStride, 3, v64},
      {"tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r4], 1, 5;", F::kElementStride, 1, 5},
      {"tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r4], 13;", F::kElemType, 0, 13},
      {"tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r4], 2;", F::kInterleaveLayout, 0, 2},
      {"tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r4], 3;", F::kSwizzleMode, 0, 3},
      {"tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [%r4], 2;", F::kSwizzleAtomicity, 0, 2},
      {"tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r4], 1;", F::kFillMode, 0, 1},
      // Generic addressing of the shared copy.
      {"cvt.u64.u32 %rd9, %r4;\n  cvta.shared.u64 %rd9, %rd9;\n  tensormap.replace.tile.box_dim.b1024.b32 [%rd9], 0, 8;",
       F::kBoxDim, 0, 8},
  };
  ptxsim::model::GlobalMemory mem;
  uint64_t ta = mem.allocate(4096, 256, "A");
  auto m = encode(tmap::DataType::kFloat16, 2, ta, {64, 32}, {128}, {64, 8}, {1, 1}, tmap::Swizzle::k128B);
  for (size_t upto = 1; upto <= steps.size(); ++upto) {
    std::string body;
    std::vector<uint8_t> expect(128);
    std::memcpy(expect.data(), &m, 128);
    for (size_t i = 0; i < upto; ++i) {
      body += steps[i].ptx + "\n  ";
      auto res = tmap::tensormap_replace(expect.data(), steps[i].field, steps[i].ord, steps[i].value);
      ASSERT_TRUE(res.ok) << res.message;
    }
    SCOPED_TRACE("after " + steps[upto - 1].ptx);
    uint64_t out = alloc(mem, 128, "out" + std::to_string(upto));
    Params p;
    p.add_bytes(&m, 128, 64).add(out).add(addr).add(v32).add(v64);
    Launched r = launch(replace_all(with_template_copy(kFieldsPtx), "REPLACES", body), mem, p, {1, 1, 1}, {32, 1, 1});
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(read(mem, out, 128), expect);
  }
}

// ---- the "tensormap" PARAM kind of case files ----------------------------------------------------

namespace {

struct ParamKindFixture {
  ptxsim::cli::JsonReader reader{"case.json"};
  std::vector<ptxsim::cli::BufferSpec> buffers{{"A", 8192, {}}, {"B", 64, {}}};
  std::map<std::string, uint64_t> addresses{{"A", 0x7f0000000100ull}, {"B", 0x7f0000004000ull}};

  ptxsim::cli::ParamSpec parse(const std::string& json) {
    ptxsim::cli::ParamParseContext ctx{reader, buffers};
    return ptxsim::cli::parse_param(ptxsim::cli::Json::parse(json), "params[0]", ctx);
  }
  std::vector<uint8_t> encode(const std::string& json) {
    auto s = parse(json);
    std::vector<uint8_t> out(s.size, 0);
    ptxsim::cli::encode_param(s, ptxsim::cli::ParamEncodeContext{reader, addresses, nullptr}, out.data());
    return out;
  }
  std::string error_of(const std::string& json) {
    try {
      encode(json);
    } catch (const ptxsim::cli::CaseError& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace

TEST(TensormapProxy, CaseFileParamKindEncodesLikeTheDriver) {
  ParamKindFixture f;
  auto got = f.encode(R"({"tensormap": {"buffer": "A", "offset": 256, "dtype": "bfloat16", "rank": 2,
      "dims": [64, 32], "strides": [128], "box": [64, 8], "swizzle": "128B"}})");
  auto m = encode(tmap::DataType::kBFloat16, 2, 0x7f0000000200ull, {64, 32}, {128}, {64, 8}, {1, 1},
                  tmap::Swizzle::k128B);
  ASSERT_EQ(got.size(), 128u);
  EXPECT_EQ(std::memcmp(got.data(), &m, 128), 0);
  // As a struct field, with every optional key.
  auto s = f.encode(R"({"struct": {"size": 256, "fields": [{"offset": 128, "tensormap": {"buffer": "B", "dtype": "float32",
      "rank": 3, "dims": [4, 2, 2], "strides": [16, 32], "box": [4, 2, 2], "element_strides": [1, 2, 1],
      "interleave": "none", "swizzle": "none", "l2_promotion": "128B", "oob_fill": "nan_request_zero_fma"}}]}})");
  tmap::CUtensorMap m2;
  const uint64_t dims[] = {4, 2, 2}, strides[] = {16, 32};
  const uint32_t box[] = {4, 2, 2}, es[] = {1, 2, 1};
  ASSERT_TRUE(tmap::encode_tiled(&m2, tmap::DataType::kFloat32, 3, 0x7f0000004000ull, dims, strides, box, es,
                                 tmap::Interleave::kNone, tmap::Swizzle::kNone, tmap::L2Promotion::k128B,
                                 tmap::OobFill::kNanRequestZeroFma)
                  .ok());
  ASSERT_EQ(s.size(), 256u);
  EXPECT_TRUE(std::all_of(s.begin(), s.begin() + 128, [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(std::memcmp(s.data() + 128, &m2, 128), 0);
}

TEST(TensormapProxy, CaseFileParamKindErrorsNameThePathAndTheRule) {
  ParamKindFixture f;
  std::string e = f.error_of(R"({"tensormap": {"buffer": "A", "dtype": "uint8", "rank": 2, "dims": [64, 32],
      "strides": [64], "box": [24, 8]}})");
  EXPECT_NE(e.find("params[0].tensormap.box: cuTensorMapEncodeTiled rejects it: boxDim[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("multiple of 16"), std::string::npos) << e;
  e = f.error_of(R"({"tensormap": {"buffer": "A", "dtype": "uint8", "rank": 2, "dims": [64, 32], "strides": [24],
      "box": [16, 8]}})");
  EXPECT_NE(e.find("params[0].tensormap.strides: cuTensorMapEncodeTiled rejects it: globalStrides"), std::string::npos)
      << e;
  e = f.error_of(R"({"tensormap": {"buffer": "A", "dtype": "uint8", "rank": 2, "dims": [64, 32], "box": [16, 8]}})");
  EXPECT_NE(e.find("params[0].tensormap: missing \"strides\""), std::string::npos) << e;
  e = f.error_of(R"({"tensormap": {"buffer": "A", "dtype": "uint8", "rank": 2, "dims": [64], "strides": [64],
      "box": [16, 8]}})");
  EXPECT_NE(e.find("params[0].tensormap.dims: has 1 values; rank 2 needs 2"), std::string::npos) << e;
  e = f.error_of(R"({"tensormap": {"buffer": "A", "dtype": "float8", "rank": 1, "dims": [64], "box": [16]}})");
  EXPECT_NE(e.find("params[0].tensormap.dtype: unknown value 'float8'"), std::string::npos) << e;
  e = f.error_of(R"({"tensormap": {"buffer": "C", "dtype": "uint8", "rank": 1, "dims": [64], "box": [16]}})");
  EXPECT_NE(e.find("params[0].tensormap.buffer: unknown buffer 'C'"), std::string::npos) << e;
  e = f.error_of(R"({"tensormap": {"buffer": "A", "offset": 8, "dtype": "uint8", "rank": 1, "dims": [64], "box": [16]}})");
  EXPECT_NE(e.find("params[0].tensormap.offset: cuTensorMapEncodeTiled rejects it: globalAddress"), std::string::npos)
      << e;
  e = f.error_of(R"({"tensormap": {"buffer": "A", "dtype": "uint8", "rank": 1, "dims": [64], "box": [16], "swizle": "none"}})");
  EXPECT_NE(e.find("swizle"), std::string::npos) << e;
}
