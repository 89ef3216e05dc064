// cp.async.bulk.tensor through the engine: tiled loads of every rank, several element types and
// every swizzle against an independent reference gather, OOB fill, multicast in a cluster,
// .cta_group::2, stores and reductions with bulk async-groups, a multi-stage producer/consumer
// pipeline, and the hazards (reading a destination early, an unfenced source, a wrong expect_tx).
// Randomised tests print their seed (set PTXSIM_TEST_SEED to replay).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>

#include "model/tma/tma_unit.h"
#include "tests/unit/tma_test_util.h"

using namespace tma_test;
namespace tmap = ptxsim::model::tmap;

namespace {

// One CTA of 128 threads poisons SMEM bytes of shared memory, thread 0 loads a box with TMA at
// buf + dstoff, everyone waits on the mbarrier and copies all of shared memory to `out`.
const char* kTileLoadPtx = R"(.version 8.7
.target TARGET
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 dstoff, .param .u32 tx,
                  .param .u32 c0, .param .u32 c1, .param .u32 c2, .param .u32 c3, .param .u32 c4)
{
  .shared .align 1024 .b8 buf[SMEM];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r9, 0xABABABAB;
$fill:
  setp.ge.u32 %p1, %r3, SMEM;
  @%p1 bra $filled;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r9;
  add.u32 %r3, %r3, 512;
  bra $fill;
$filled:
  fence.proxy.async.shared::cta;
  mov.u32 %r5, bar;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r5], 1;
$init_done:
  bar.sync 0;
  @%p2 bra $wait;
  ld.param.u32 %r6, [tx];
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], %r6;
  ld.param.u32 %r7, [dstoff];
  add.u32 %r8, %r2, %r7;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r10, [c0];
  ld.param.u32 %r11, [c1];
  ld.param.u32 %r12, [c2];
  ld.param.u32 %r13, [c3];
  ld.param.u32 %r14, [c4];
  cp.async.bulk.tensor.DIMd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r8], [%rd2, {COORDS}], [%r5];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
  @!%p3 bra $wait;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  shl.b32 %r3, %r1, 2;
$copy:
  setp.ge.u32 %p1, %r3, SMEM;
  @%p1 bra $done;
  add.u32 %r4, %r2, %r3;
  ld.shared.u32 %r15, [%r4];
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r15;
  add.u32 %r3, %r3, 512;
  bra $copy;
$done:
  ret;
}
)";

std::string tile_load_ptx(uint32_t rank, const std::string& target, uint32_t smem) {
  std::string coords;
  for (uint32_t i = 0; i < rank; ++i) coords += (i ? ", %r" : "%r") + std::to_string(10 + i);
  std::string s = replace_all(kTileLoadPtx, "TARGET", target);
  s = replace_all(s, "SMEM", std::to_string(smem));
  s = replace_all(s, "DIM", std::to_string(rank));
  return replace_all(s, "COORDS", coords);
}

struct DtypeInfo {
  tmap::DataType t;
  uint32_t esize;
  bool is_float;
};
const DtypeInfo kDtypes[] = {
    {tmap::DataType::kUInt8, 1, false},   {tmap::DataType::kUInt16, 2, false},  {tmap::DataType::kFloat16, 2, true},
    {tmap::DataType::kBFloat16, 2, true}, {tmap::DataType::kUInt32, 4, false},  {tmap::DataType::kInt32, 4, false},
    {tmap::DataType::kFloat32, 4, true},  {tmap::DataType::kUInt64, 8, false},  {tmap::DataType::kFloat64, 8, true},
};

struct LoadCase {
  TileSpec spec;
  DtypeInfo dt;
  uint32_t dstoff = 0;
  std::string describe() const {
    std::ostringstream os;
    os << "rank " << spec.rank << " esize " << spec.esize << " swizzle " << tmap::to_string(spec.sw) << " dims";
    for (auto d : spec.dims) os << " " << d;
    os << " box";
    for (auto b : spec.box) os << " " << b;
    os << " es";
    for (auto e : spec.es) os << " " << e;
    os << " coords";
    for (auto c : spec.coords) os << " " << c;
    os << " dstoff " << dstoff << (spec.nan_fill ? " nan-fill" : "");
    return os.str();
  }
};

LoadCase random_case(std::mt19937_64& rng, uint32_t rank, tmap::Swizzle sw, const DtypeInfo& dt) {
  for (;;) {
    LoadCase c;
    c.dt = dt;
    TileSpec& t = c.spec;
    t.esize = dt.esize;
    t.rank = rank;
    t.sw = sw;
    const uint32_t span = tmap::swizzle_span_bytes(sw);
    const uint32_t max_inner = std::min<uint32_t>(span ? span : 256, 256 * dt.esize);
    const uint32_t inner = 16 * (1 + uint32_t(rng() % (max_inner / 16)));
    t.box.assign(rank, 1);
    t.es.assign(rank, 1);
    t.dims.assign(rank, 1);
    t.box[0] = inner / dt.esize;
    t.es[0] = 1 + uint32_t(rng() % 3);
    for (uint32_t i = 1; i < rank; ++i) {
      t.box[i] = 1 + uint32_t(rng() % 5);
      t.es[i] = 1 + uint32_t(rng() % 3);
    }
    for (uint32_t i = 0; i < rank; ++i) t.dims[i] = 1 + rng() % (t.box[i] * (i ? t.es[i] : 1) + 4);
    t.strides.clear();
    uint64_t s = (t.dims[0] * dt.esize + 15) / 16 * 16 + 16 * (rng() % 3);
    for (uint32_t i = 1; i < rank; ++i) {
      t.strides.push_back(s);
      s = s * t.dims[i] + 16 * (rng() % 2);
    }
    t.coords.assign(5, 0);
    for (uint32_t i = 0; i < rank; ++i) {
      int64_t extent = int64_t(t.box[i]) * (i ? t.es[i] : 1);
      t.coords[i] = int32_t(int64_t(rng() % (t.dims[i] + extent)) - extent / 2);
    }
    t.nan_fill = dt.is_float && rng() % 2;
    if (ref_image_bytes(t) > 12288) continue;
    const uint32_t align = tmap::Swizzle::k128BAtom64B == sw ? 64
                           : (sw == tmap::Swizzle::k128BAtom32B || sw == tmap::Swizzle::k128BAtom32BFlip8B) ? 32
                                                                                                               : 16;
    c.dstoff = align * uint32_t(rng() % (1024 / align));
    return c;
  }
}

uint64_t tensor_bytes(const TileSpec& t) {
  return t.rank == 1 ? t.dims[0] * t.esize : t.strides[t.rank - 2] * t.dims[t.rank - 1];
}

void run_load_case(const LoadCase& c, std::mt19937_64& rng) {
  const uint32_t kSmem = 16384;
  const TileSpec& t = c.spec;
  ptxsim::model::GlobalMemory mem;
  const uint64_t gbytes = tensor_bytes(t);
  std::vector<uint8_t> g(gbytes);
  for (auto& b : g) b = uint8_t(rng());
  uint64_t ga = upload(mem, g.data(), gbytes, "tensor");
  uint64_t out = alloc(mem, kSmem, "out", 0x5A);
  tmap::CUtensorMap m = encode(c.dt.t, t.rank, ga, t.dims, t.strides, t.box, t.es, t.sw,
                               t.nan_fill ? tmap::OobFill::kNanRequestZeroFma : tmap::OobFill::kNone);
  Params p;
  p.add_bytes(&m, 128, 64).add(out).add(c.dstoff).add(uint32_t(ref_image_bytes(t)));
  for (int i = 0; i < 5; ++i) p.add(t.coords[i]);
  const bool atom = t.sw == tmap::Swizzle::k128BAtom32B || t.sw == tmap::Swizzle::k128BAtom32BFlip8B ||
                    t.sw == tmap::Swizzle::k128BAtom64B;
  Launched r = launch(tile_load_ptx(t.rank, atom ? "sm_100a" : "sm_90a", kSmem), mem, p, {1, 1, 1}, {128, 1, 1}, {1, 1, 1},
                 rng());
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  // The reference: shared memory as the kernel sees it (buf starts at 0x400 + 0; poison elsewhere).
  const uint32_t buf = 0x400;
  std::vector<uint8_t> smem(buf + kSmem + 1024, 0xAB);
  ref_tile_load(t, g, smem, buf + c.dstoff);
  std::vector<uint8_t> expect(smem.begin() + buf, smem.begin() + buf + kSmem);
  std::vector<uint8_t> got = read(mem, out, kSmem);
  for (uint32_t i = 0; i < kSmem; ++i)
    if (got[i] != expect[i]) {
      ADD_FAILURE() << "shared byte " << i << " (buf offset): got 0x" << std::hex << int(got[i]) << ", expected 0x"
                    << int(expect[i]);
      return;
    }
}

}  // namespace

TEST(TmaEngine, TiledLoadsEveryRankTypeAndSwizzleMatchReference) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (PTXSIM_TEST_SEED replays)");
  std::mt19937_64 rng(seed);
  int n = 0;
  for (uint32_t rank = 1; rank <= 5; ++rank)
    for (uint32_t s = 0; s < tmap::kNumSwizzles; ++s) {
      const DtypeInfo& dt = kDtypes[rng() % std::size(kDtypes)];
      LoadCase c = random_case(rng, rank, tmap::Swizzle(s), dt);
      SCOPED_TRACE("case " + std::to_string(n++) + ": " + c.describe());
      run_load_case(c, rng);
      if (HasFailure()) return;
    }
  for (const DtypeInfo& dt : kDtypes) {  // every type at least once more, random rank and swizzle
    LoadCase c = random_case(rng, 1 + uint32_t(rng() % 5), tmap::Swizzle(rng() % 4), dt);
    SCOPED_TRACE("case " + std::to_string(n++) + ": " + c.describe());
    run_load_case(c, rng);
    if (HasFailure()) return;
  }
}

TEST(TmaEngine, OutOfBoundBoxIsZeroOrNanFilled) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (bool nan : {false, true}) {
    LoadCase c;
    c.dt = kDtypes[6];  // f32
    TileSpec& t = c.spec;
    t.esize = 4;
    t.rank = 2;
    t.dims = {10, 7};
    t.strides = {48};
    t.box = {8, 4};
    t.es = {1, 1};
    t.coords = {-3, 5, 0, 0, 0};  // columns -3..4, rows 5..8: rows 7, 8 and columns -3..-1 out of bounds
    t.nan_fill = nan;
    SCOPED_TRACE(c.describe());
    run_load_case(c, rng);
  }
}

// ---- multicast --------------------------------------------------------------------------------

namespace {

// Four CTAs; CTA r loads rows 16r..16r+15 of a 16x64 f32 tensor and multicasts them to every CTA
// at buf + 1024 r, so every CTA expects 4096 bytes, after the "ready"/"go" handshake
// (with_ready_go_handshake) that makes every CTA's barriers exist first.
const char* kMulticastPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .shared .align 1024 .b8 buf[4096];
  .shared .align 8 .b64 full;
  .shared .align 8 .b64 ready;
  .shared .align 8 .b64 go;
  .reg .b32 %r<40>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, full;
  mov.u32 %r4, ready;
  mov.u32 %r14, go;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $consumer;
  READY_GO_HANDSHAKE
  mov.u32 %r7, buf;
  shl.b32 %r8, %r2, 10;
  add.u32 %r7, %r7, %r8;
  shl.b32 %r9, %r2, 4;
  mov.u32 %r10, 0;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u16 %h1, 15;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r7], [%rd2, {%r10, %r9}], [%r3], %h1;
$consumer:
  bar.sync 0;
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $wait_full;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r2, 4096;
  add.s64 %rd4, %rd4, %rd5;
  shl.b32 %r11, %r1, 2;
$copy:
  setp.ge.u32 %p1, %r11, 4096;
  @%p1 bra $done;
  mov.u32 %r12, buf;
  add.u32 %r12, %r12, %r11;
  ld.shared.u32 %r13, [%r12];
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd4, %rd6;
  st.global.u32 [%rd7], %r13;
  add.u32 %r11, %r11, 256;
  bra $copy;
$done:
  ret;
}
)";

}  // namespace

TEST(TmaEngine, MulticastDeliversTheBoxToEveryCtaOfTheMask) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int rep = 0; rep < 3; ++rep) {
    ptxsim::model::GlobalMemory mem;
    std::vector<uint8_t> g(4096);
    for (auto& b : g) b = uint8_t(rng());
    uint64_t ga = upload(mem, g.data(), 4096, "tensor");
    uint64_t out = alloc(mem, 4 * 4096, "out");
    auto m = encode(tmap::DataType::kFloat32, 2, ga, {16, 64}, {64}, {16, 16}, {1, 1});
    Params p;
    p.add_bytes(&m, 128, 64).add(out);
    Launched r = launch(with_ready_go_handshake(kMulticastPtx, 4096), mem, p, {4, 1, 1}, {64, 1, 1}, {4, 1, 1}, rng());
    ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
    EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
    auto got = read(mem, out, 4 * 4096);
    for (int cta = 0; cta < 4; ++cta)
      EXPECT_TRUE(std::equal(g.begin(), g.end(), got.begin() + cta * 4096)) << "CTA rank " << cta;
  }
}

// ---- .cta_group::2: the mbarrier is in the peer CTA -------------------------------------------

namespace {

// CTA 0 loads a tile into its own shared memory but signals the barrier of its peer, CTA 1, which
// then reads the tile remotely. CTA 0 (started first by the engine) creates `ready`; CTA 1 arms
// `full` and arrives on CTA 0's `ready` before CTA 0 issues the copy.
const char* kCtaGroupPtx = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .shared .align 1024 .b8 buf[1024];
  .shared .align 8 .b64 full;
  .shared .align 8 .b64 ready;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, full;
  mov.u32 %r4, ready;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra $cta1;
  mbarrier.init.shared::cta.b64 [%r4], 1;
$wait_ready:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r4], 0;
  @!%p3 bra $wait_ready;
  mov.u32 %r5, 1;
  mapa.shared::cluster.u32 %r6, %r3, %r5;
  mov.u32 %r7, buf;
  mov.u32 %r10, 0;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.CTAGROUP [%r7], [%rd2, {%r10, %r10}], [%r6];
  bra $done;
$cta1:
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 1024;
  mov.u32 %r5, 0;
  mapa.shared::cluster.u32 %r6, %r4, %r5;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $wait_full;
  mov.u32 %r7, buf;
  mapa.shared::cluster.u32 %r8, %r7, %r5;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  mov.u32 %r11, 0;
$copy:
  add.u32 %r12, %r8, %r11;
  ld.shared::cluster.u32 %r13, [%r12];
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd4, %rd6;
  st.global.u32 [%rd7], %r13;
  add.u32 %r11, %r11, 4;
  setp.lt.u32 %p1, %r11, 1024;
  @%p1 bra $copy;
$done:
  ret;
}
)";

}  // namespace

TEST(TmaEngine, CtaGroup2SignalsTheBarrierInThePeerCta) {
  for (const char* group : {"cta_group::2", "cta_group::1"}) {
    SCOPED_TRACE(group);
    ptxsim::model::GlobalMemory mem;
    std::vector<uint8_t> g(1024);
    for (size_t i = 0; i < g.size(); ++i) g[i] = uint8_t(i * 7 + 3);
    uint64_t ga = upload(mem, g.data(), 1024, "tensor");
    uint64_t out = alloc(mem, 1024, "out");
    auto m = encode(tmap::DataType::kUInt32, 2, ga, {16, 16}, {64}, {16, 16}, {1, 1});
    Params p;
    p.add_bytes(&m, 128, 64).add(out);
    Launched r = launch(replace_all(kCtaGroupPtx, "CTAGROUP", group), mem, p, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
    if (std::string(group) == "cta_group::2") {
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(read(mem, out, 1024), g);
    } else {
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
      EXPECT_NE(r.result.report.find("must be in the same CTA as the destination"), std::string::npos) << r.result.report;
    }
  }
}

// ---- stores and reductions --------------------------------------------------------------------

namespace {

// 128 threads write u32 values VALUE(i) to the first 4096 bytes of buf, (optionally) fence, and
// thread 0 stores or reduces the box at {c0, c1}, commits and waits; then it copies the target
// region of global memory to `check` (so the wait must have completed the operation).
const char* kStorePtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 check, .param .u32 c0, .param .u32 c1,
                  .param .u64 gbase, .param .u32 gbytes)
{
  .shared .align 1024 .b8 buf[4096];
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
$fill:
  setp.ge.u32 %p1, %r3, 4096;
  @%p1 bra $filled;
  add.u32 %r4, %r2, %r3;
  mad.lo.u32 %r9, %r3, 3, 1;
  st.shared.u32 [%r4], %r9;
  add.u32 %r3, %r3, 512;
  bra $fill;
$filled:
  FENCE
  bar.sync 0;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $done;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r10, [c0];
  ld.param.u32 %r11, [c1];
  OPERATION [%rd2, {%r10, %r11}], [%r2];
  cp.async.bulk.commit_group;
  AFTER_COMMIT
  cp.async.bulk.wait_group 0;
  ld.param.u64 %rd3, [gbase];
  ld.param.u64 %rd4, [check];
  ld.param.u32 %r12, [gbytes];
  mov.u32 %r13, 0;
$copy:
  cvt.u64.u32 %rd5, %r13;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.u32 %r14, [%rd6];
  add.s64 %rd7, %rd4, %rd5;
  st.global.u32 [%rd7], %r14;
  add.u32 %r13, %r13, 4;
  setp.lt.u32 %p1, %r13, %r12;
  @%p1 bra $copy;
$done:
  ret;
}
)";

struct StoreRun {
  Launched run;
  std::vector<uint8_t> global, check;
};

StoreRun run_store(const std::string& op, tmap::DataType dt, tmap::Swizzle sw, std::vector<uint32_t> box,
                   int32_t c0, int32_t c1, const std::vector<uint8_t>& init, bool fence = true,
                   const std::string& after_commit = "", uint64_t seed = 0) {
  std::string ptx = replace_all(kStorePtx, "OPERATION", op);
  ptx = replace_all(ptx, "FENCE", fence ? "fence.proxy.async.shared::cta;" : "");
  ptx = replace_all(ptx, "AFTER_COMMIT", after_commit);
  ptxsim::model::GlobalMemory mem;
  const uint32_t gbytes = uint32_t(init.size());  // a 2-D tensor of 32 x (gbytes/128) u32
  uint64_t ga = upload(mem, init.data(), gbytes, "tensor");
  uint64_t check = alloc(mem, gbytes, "check");
  auto m = encode(dt, 2, ga, {32, gbytes / 128}, {128}, box, {1, 1}, sw);
  Params p;
  p.add_bytes(&m, 128, 64).add(check).add(c0).add(c1).add(ga).add(gbytes);
  StoreRun s;
  s.run = launch(ptx, mem, p, {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, seed);
  s.global = read(mem, ga, gbytes);
  s.check = read(mem, check, gbytes);
  return s;
}

uint32_t smem_word(uint32_t byte_off) { return byte_off * 3 + 1; }  // the value the kernel wrote there

uint32_t rd32(const std::vector<uint8_t>& v, size_t off) {
  uint32_t x;
  std::memcpy(&x, v.data() + off, 4);
  return x;
}

}  // namespace

TEST(TmaEngine, TiledStoreWritesTheBoxAndClipsOutOfBounds) {
  for (tmap::Swizzle sw : {tmap::Swizzle::kNone, tmap::Swizzle::k64B, tmap::Swizzle::k128B}) {
    SCOPED_TRACE(tmap::to_string(sw));
    std::vector<uint8_t> init(128 * 10, 0xCD);  // 32 x 10 u32
    // Box 16 x 8 at (20, 5): columns 20..35 (32.. out of bounds), rows 5..12 (10.. out of bounds).
    const std::vector<uint32_t> box = {sw == tmap::Swizzle::k64B ? 16u : 16u, 8};
    StoreRun s = run_store("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", tmap::DataType::kUInt32, sw,
                           box, 20, 5, init);
    ASSERT_EQ(s.run.result.status, ptxsim::RunStatus::Completed) << s.run.all_diagnostics();
    EXPECT_EQ(s.run.warning_count(), 0u) << s.run.all_diagnostics();
    for (uint32_t row = 0; row < 10; ++row)
      for (uint32_t col = 0; col < 32; ++col) {
        uint32_t expect = 0xCDCDCDCD;
        if (col >= 20 && row >= 5 && row < 13 && col < 36) {
          uint32_t img = ((row - 5) * 16 + (col - 20)) * 4;  // dense image offset
          uint32_t a = ref_swizzle(sw, 0x400 + img) - 0x400;
          expect = smem_word(a);
        }
        ASSERT_EQ(rd32(s.global, (row * 32 + col) * 4), expect) << "row " << row << " col " << col;
      }
    EXPECT_EQ(s.check, s.global) << "wait_group 0 returned before the store completed";
  }
}

TEST(TmaEngine, TensorReductionsCombineEveryInBoundElement) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> init(128 * 8);
  for (size_t i = 0; i < init.size(); i += 4) {
    uint32_t v = uint32_t(rng() % 1000);
    std::memcpy(init.data() + i, &v, 4);
  }
  struct Op {
    const char* name;
    tmap::DataType dt;
    std::function<uint32_t(uint32_t, uint32_t)> f;
  };
  const Op ops[] = {
      {"add", tmap::DataType::kUInt32, [](uint32_t a, uint32_t b) { return a + b; }},
      {"min", tmap::DataType::kInt32, [](uint32_t a, uint32_t b) { return uint32_t(std::min(int32_t(a), int32_t(b))); }},
      {"max", tmap::DataType::kUInt32, [](uint32_t a, uint32_t b) { return std::max(a, b); }},
      {"inc", tmap::DataType::kUInt32, [](uint32_t a, uint32_t b) { return a >= b ? 0 : a + 1; }},
      {"dec", tmap::DataType::kUInt32, [](uint32_t a, uint32_t b) { return (a == 0 || a > b) ? b : a - 1; }},
      {"xor", tmap::DataType::kUInt32, [](uint32_t a, uint32_t b) { return a ^ b; }},
      // The u32 values are subnormal as f32: FLOAT32 adds them exactly, FLOAT32_FTZ flushes them.
      {"add", tmap::DataType::kFloat32,
       [](uint32_t a, uint32_t b) { return std::bit_cast<uint32_t>(std::bit_cast<float>(a) + std::bit_cast<float>(b)); }},
      {"add", tmap::DataType::kFloat32Ftz, [](uint32_t, uint32_t) { return 0u; }},
  };
  for (const Op& op : ops) {
    SCOPED_TRACE(std::string(op.name) + " " + tmap::to_string(op.dt));
    const std::vector<uint8_t>& in = init;
    std::string inst = std::string("cp.reduce.async.bulk.tensor.2d.global.shared::cta.") + op.name + ".tile.bulk_group";
    StoreRun s = run_store(inst, op.dt, tmap::Swizzle::kNone, {16, 4}, 8, 2, in, true, "", rng());
    ASSERT_EQ(s.run.result.status, ptxsim::RunStatus::Completed) << s.run.all_diagnostics();
    for (uint32_t row = 0; row < 8; ++row)
      for (uint32_t col = 0; col < 32; ++col) {
        uint32_t old = rd32(in, (row * 32 + col) * 4), expect = old;
        if (col >= 8 && col < 24 && row >= 2 && row < 6) {
          uint32_t src = smem_word(((row - 2) * 16 + (col - 8)) * 4);
          expect = op.f(old, src);
        }
        ASSERT_EQ(rd32(s.global, (row * 32 + col) * 4), expect) << "row " << row << " col " << col;
      }
  }
}

TEST(TmaEngine, StoreOfUnfencedSharedWritesWarns) {
  std::vector<uint8_t> init(128 * 4, 0);
  StoreRun s = run_store("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", tmap::DataType::kUInt32,
                         tmap::Swizzle::kNone, {16, 4}, 0, 0, init, /*fence=*/false);
  ASSERT_EQ(s.run.result.status, ptxsim::RunStatus::Completed) << s.run.all_diagnostics();
  EXPECT_TRUE(s.run.has_warning("written through the generic proxy without an intervening fence.proxy.async"))
      << s.run.all_diagnostics();
}

TEST(TmaEngine, OverwritingAStoreSourceBeforeWaitingWarns) {
  std::vector<uint8_t> init(128 * 4, 0);
  StoreRun s = run_store("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", tmap::DataType::kUInt32,
                         tmap::Swizzle::kNone, {16, 4}, 0, 0, init, true, "st.shared.u32 [%r2], %r1;");
  ASSERT_EQ(s.run.result.status, ptxsim::RunStatus::Completed) << s.run.all_diagnostics();
  EXPECT_TRUE(s.run.has_warning("race on an asynchronous copy's source")) << s.run.all_diagnostics();
  // wait_group.read first: no warning.
  s = run_store("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", tmap::DataType::kUInt32,
                tmap::Swizzle::kNone, {16, 4}, 0, 0, init, true,
                "cp.async.bulk.wait_group.read 0;\n  st.shared.u32 [%r2], %r1;");
  ASSERT_EQ(s.run.result.status, ptxsim::RunStatus::Completed) << s.run.all_diagnostics();
  EXPECT_EQ(s.run.warning_count(), 0u) << s.run.all_diagnostics();
  EXPECT_EQ(rd32(s.global, 0), smem_word(0));
}

TEST(TmaEngine, StoreWithNegativeCoordinateFaultsAtTheInstruction) {
  std::vector<uint8_t> init(128 * 4, 0);
  StoreRun s = run_store("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", tmap::DataType::kUInt32,
                         tmap::Swizzle::kNone, {16, 4}, -1, 0, init);
  ASSERT_EQ(s.run.result.status, ptxsim::RunStatus::Fault);
  EXPECT_NE(s.run.result.report.find("stores and reductions need non-negative coordinates"), std::string::npos)
      << s.run.result.report;
  EXPECT_NE(s.run.result.report.find("tma.ptx:"), std::string::npos) << s.run.result.report;
}

// ---- pipeline ---------------------------------------------------------------------------------

namespace {

// Warp 0 (lane 0) produces TILES tiles of 32x8 f32 into a STAGES-deep ring; warps 1-2 consume:
// each of the 64 consumer threads copies 4 words of the tile to out and arrives on `empty`.
const char* kPipelinePtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .shared .align 1024 .b8 buf[STAGEBYTES];
  .shared .align 8 .b64 full[STAGES];
  .shared .align 8 .b64 empty[STAGES];
  .reg .b32 %r<60>;
  .reg .b64 %rd<20>;
  .reg .pred %p<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  mov.u32 %r3, full;
  mov.u32 %r4, empty;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $inited;
  mov.u32 %r5, 0;
$init:
  shl.b32 %r6, %r5, 3;
  add.u32 %r7, %r3, %r6;
  mbarrier.init.shared::cta.b64 [%r7], 1;
  add.u32 %r7, %r4, %r6;
  mbarrier.init.shared::cta.b64 [%r7], 64;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, STAGES;
  @%p2 bra $init;
  fence.proxy.async.shared::cta;
$inited:
  bar.sync 0;
  setp.ge.u32 %p3, %r1, 32;
  @%p3 bra $consumer;
  @%p1 bra $done;
  // producer
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r10, 0;
$produce:
  rem.u32 %r11, %r10, STAGES;
  div.u32 %r12, %r10, STAGES;
  and.b32 %r12, %r12, 1;
  xor.b32 %r13, %r12, 1;
  shl.b32 %r14, %r11, 3;
  add.u32 %r15, %r4, %r14;
$wait_empty:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r15], %r13;
  @!%p4 bra $wait_empty;
  add.u32 %r16, %r3, %r14;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r16], 1024;
  shl.b32 %r17, %r11, 10;
  add.u32 %r18, %r2, %r17;
  shl.b32 %r19, %r10, 3;
  mov.u32 %r20, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r18], [%rd2, {%r20, %r19}], [%r16];
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p5, %r10, TILES;
  @%p5 bra $produce;
  bra $done;
$consumer:
  sub.u32 %r30, %r1, 32;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  mov.u32 %r10, 0;
$consume:
  rem.u32 %r11, %r10, STAGES;
  div.u32 %r12, %r10, STAGES;
  and.b32 %r12, %r12, 1;
  shl.b32 %r14, %r11, 3;
  add.u32 %r16, %r3, %r14;
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r16], %r12;
  @!%p4 bra $wait_full;
  shl.b32 %r17, %r11, 10;
  add.u32 %r18, %r2, %r17;
  shl.b32 %r31, %r30, 4;
  add.u32 %r18, %r18, %r31;
  ld.shared.v4.u32 {%r40, %r41, %r42, %r43}, [%r18];
  shl.b32 %r32, %r10, 10;
  add.u32 %r32, %r32, %r31;
  cvt.u64.u32 %rd5, %r32;
  add.s64 %rd6, %rd4, %rd5;
  st.global.v4.u32 [%rd6], {%r40, %r41, %r42, %r43};
  add.u32 %r15, %r4, %r14;
  mbarrier.arrive.shared::cta.b64 _, [%r15];
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p5, %r10, TILES;
  @%p5 bra $consume;
$done:
  ret;
}
)";

}  // namespace

TEST(TmaEngine, ProducerConsumerPipelineDeliversEveryTile) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t tiles = 9;
  for (uint32_t stages : {2u, 3u, 4u}) {
    SCOPED_TRACE(std::to_string(stages) + " stages");
    std::string ptx = replace_all(kPipelinePtx, "STAGEBYTES", std::to_string(stages * 1024));
    ptx = replace_all(ptx, "STAGES", std::to_string(stages));
    ptx = replace_all(ptx, "TILES", std::to_string(tiles));
    for (int rep = 0; rep < 3; ++rep) {
      ptxsim::model::GlobalMemory mem;
      std::vector<uint8_t> g(tiles * 1024);
      for (auto& b : g) b = uint8_t(rng());
      uint64_t ga = upload(mem, g.data(), g.size(), "tensor");
      uint64_t out = alloc(mem, g.size(), "out");
      auto m = encode(tmap::DataType::kFloat32, 2, ga, {32, tiles * 8}, {128}, {32, 8}, {1, 1});
      Params p;
      p.add_bytes(&m, 128, 64).add(out);
      const uint64_t sched = rng();
      SCOPED_TRACE("schedule seed " + std::to_string(sched));
      Launched r = launch(ptx, mem, p, {1, 1, 1}, {96, 1, 1}, {1, 1, 1}, sched);
      ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
      EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
      EXPECT_EQ(read(mem, out, g.size()), g);
    }
  }
}

// ---- hazards ----------------------------------------------------------------------------------

namespace {

// Thread 0 poisons buf, loads a 1 KiB tile into it, reads buf[0] at once (EARLY) and after the
// wait, and writes both to out[0] and out[1].
const char* kEarlyReadPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .shared .align 1024 .b8 buf[1024];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  mov.u32 %r2, buf;
  mov.u32 %r3, bar;
  mov.u32 %r4, 0xABABABAB;
  st.shared.u32 [%r2], %r4;
  fence.proxy.async.shared::cta;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], EXPECT;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r5, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd2, {%r5, %r5}], [%r3];
  ld.shared.u32 %r6, [%r2];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r3], 0;
  @!%p1 bra $wait;
  ld.shared.u32 %r7, [%r2];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  st.global.u32 [%rd4], %r6;
  st.global.u32 [%rd4+4], %r7;
  ret;
}
)";

// Runs `ptx`, a kernel k(tmap, out), on one thread with the map of a 16x16 u32 tensor (holding
// `tensor` when given) and an 8-byte poisoned `out`; returns the run and the two words of `out`.
struct MapRun {
  Launched run;
  std::array<uint32_t, 2> out;
};
MapRun run_with_16x16_u32_map(const std::string& ptx, const std::vector<uint32_t>& tensor = {}) {
  ptxsim::model::GlobalMemory mem;
  uint64_t ga = tensor.empty() ? mem.allocate(1024, 256, "tensor") : upload(mem, tensor.data(), 1024, "tensor");
  uint64_t out = alloc(mem, 8, "out");
  auto m = encode(tmap::DataType::kUInt32, 2, ga, {16, 16}, {64}, {16, 16}, {1, 1});
  Params p;
  p.add_bytes(&m, 128, 64).add(out);
  MapRun r;
  r.run = launch(ptx, mem, p, {1, 1, 1}, {1, 1, 1});
  mem.read(out, r.out.data(), 8);
  return r;
}

}  // namespace

TEST(TmaEngine, ReadingTheDestinationBeforeWaitingSeesStaleDataAndWarns) {
  std::vector<uint32_t> g(256);
  for (uint32_t i = 0; i < 256; ++i) g[i] = 0x1000 + i;
  auto [r, words] = run_with_16x16_u32_map(replace_all(kEarlyReadPtx, "EXPECT", "1024"), g);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_TRUE(r.has_warning("race on an asynchronous copy's destination: plain read of 4 bytes at shared address 0x400"))
      << r.all_diagnostics();
  EXPECT_TRUE(r.has_warning("the data read is stale")) << r.all_diagnostics();
  // The in-flight load is described from its fields when the report is made (AsyncOp::describe).
  EXPECT_TRUE(r.has_warning("while cp.async.bulk.tensor.2d load of 1024 bytes to shared address 0x400 of CTA rank 0 "
                            "(issued at line "))
      << r.all_diagnostics();
  EXPECT_EQ(words[0], 0xABABABABu) << "the early read must see the stale bytes";
  EXPECT_EQ(words[1], g[0]) << "after the wait the tile is there";
}

TEST(TmaEngine, ExpectTxLargerThanTheBoxDeadlocksWithTheShortfall) {
  Launched r = run_with_16x16_u32_map(replace_all(kEarlyReadPtx, "EXPECT", "1536")).run;
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Deadlock) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("tx-count short by 512 bytes: expect_tx announced 1536 bytes in this phase but only "
                                 "1024 bytes completed"),
            std::string::npos)
      << r.result.report;
}

// 16U4_ALIGN16B (.b4x16_p64) and 16U6_ALIGN16B (.b6x16_p32): each 16 values are 8 / 12 packed bytes
// in global memory and a 16-byte group in shared memory (data first, padding untouched). The
// transaction is the packed bytes, not the padded image: a box of 128 x R values completes 64·R
// (fp4) or 96·R (fp6) bytes, what CUTLASS's and Triton's block-scaled kernels announce with
// expect_tx (docs/tensormap.md "Complete-tx byte count"). Announcing the image size instead leaves
// the phase short by the padding: a deadlock.
TEST(TmaEngine, PaddedSubByteLoadsCompleteThePackedBytes) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (PTXSIM_TEST_SEED replays)");
  std::mt19937_64 rng(seed);
  const uint32_t kSmem = 16384, kBuf = 0x400;
  const std::string ptx = tile_load_ptx(2, "sm_100a", kSmem);
  for (tmap::DataType dt : {tmap::DataType::k16U4Align16B, tmap::DataType::k16U6Align16B})
    for (tmap::Swizzle sw : {tmap::Swizzle::kNone, tmap::Swizzle::k128B})
      for (int rep = 0; rep < 3; ++rep) {
        const uint32_t bits = dt == tmap::DataType::k16U4Align16B ? 4 : 6, gbytes = 2 * bits;  // per 16 values
        const uint64_t dims1 = 4 + rng() % 20, stride = 256 * bits / 8;  // 256 values per row
        const uint32_t rows = 1 + uint32_t(rng() % 16), dstoff = 1024 * uint32_t(rng() % 4);
        const int32_t c0 = 128 * int32_t(rng() % 2), c1 = int32_t(rng() % (dims1 + 4)) - 4;  // some rows out of bounds
        SCOPED_TRACE(tmap::to_string(dt) + " " + tmap::to_string(sw) + " rows " + std::to_string(rows) + " of " +
                     std::to_string(dims1) + " from (" + std::to_string(c0) + ", " + std::to_string(c1) + ") dstoff " +
                     std::to_string(dstoff));
        ptxsim::model::GlobalMemory mem;
        std::vector<uint8_t> g(stride * dims1);
        for (auto& b : g) b = uint8_t(rng());
        const uint64_t ga = upload(mem, g.data(), g.size(), "tensor");
        const uint64_t out = alloc(mem, kSmem, "out", 0x5A);
        tmap::CUtensorMap m = encode(dt, 2, ga, {256, dims1}, {stride}, {128, rows}, {1, 1}, sw);
        const uint32_t packed = rows * 8 * gbytes, image = rows * 128;
        ASSERT_EQ(ptxsim::model::tma::box_tx_bytes(tmap::decode(m).map, ptxsim::model::tma::LoadMode::kTile), packed);
        ASSERT_EQ(ptxsim::model::tma::box_image_bytes(tmap::decode(m).map, ptxsim::model::tma::LoadMode::kTile), image);
        auto params = [&](uint32_t tx) {
          Params p;
          p.add_bytes(&m, 128, 64).add(out).add(dstoff).add(tx).add(c0).add(c1).add(0).add(0).add(0);
          return p;
        };

        Launched r = launch(ptx, mem, params(packed), {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, rng());
        ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
        EXPECT_TRUE(r.result.diagnostics.empty()) << r.all_diagnostics();
        // The image: group q of row r at r*128 + 16q, its packed bytes first; zeros for rows out of
        // bounds; the padding keeps the kernel's 0xAB poison.
        std::vector<uint8_t> want(kBuf + kSmem, 0xAB);
        for (uint32_t row = 0; row < rows; ++row)
          for (uint32_t q = 0; q < 8; ++q)
            for (uint32_t k = 0; k < gbytes; ++k) {
              const int64_t gy = int64_t(c1) + row;
              const uint8_t v = gy >= 0 && uint64_t(gy) < dims1 ? g[uint64_t(gy) * stride + (c0 + 16 * q) * bits / 8 + k] : 0;
              want[ref_swizzle(sw, kBuf + dstoff + row * 128 + 16 * q + k)] = v;
            }
        const std::vector<uint8_t> got = read(mem, out, kSmem);
        for (uint32_t i = 0; i < kSmem; ++i)
          ASSERT_EQ(int(got[i]), int(want[kBuf + i])) << "shared byte " << i << " of buf";

        // expect_tx of the padded image: the packed bytes complete, the rest never comes.
        Launched d = launch(ptx, mem, params(image), {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, rng());
        ASSERT_EQ(d.result.status, ptxsim::RunStatus::Deadlock) << d.all_diagnostics();
        EXPECT_NE(d.result.report.find("tx-count short by " + std::to_string(image - packed) +
                                       " bytes: expect_tx announced " + std::to_string(image) +
                                       " bytes in this phase but only " + std::to_string(packed) + " bytes completed"),
                  std::string::npos)
            << d.result.report;
      }
}

TEST(TmaEngine, InvalidDescriptorFaultsNamingTheField) {
  ptxsim::model::GlobalMemory mem;
  uint64_t out = alloc(mem, 8, "out");
  uint8_t zeros[128] = {};  // rank 1, u8, box 1: a 1-byte inner box
  Params p;
  p.add_bytes(zeros, 128, 64).add(out);
  Launched r = launch(replace_all(kEarlyReadPtx, "EXPECT", "1024"), mem, p, {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("invalid tensor map at param address"), std::string::npos) << r.result.report;
  EXPECT_NE(r.result.report.find("field '"), std::string::npos) << r.result.report;
}

TEST(TmaEngine, UninitialisedMbarrierFaultsAtIssue) {
  std::string ptx = replace_all(kEarlyReadPtx, "EXPECT", "1024");
  ptx = replace_all(ptx, "  mbarrier.init.shared::cta.b64 [%r3], 1;\n  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 1024;\n", "");
  Launched r = run_with_16x16_u32_map(ptx).run;
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("holds no initialised mbarrier for the complete-tx"), std::string::npos)
      << r.result.report;
}

// ---- where the tensor map lives -------------------------------------------------------------------

namespace {

// kEarlyReadPtx (a 1 KiB tile load) with `from` replaced by `to`; `from` must occur.
std::string early_read_with(const std::string& from, const std::string& to) {
  const std::string ptx = replace_all(kEarlyReadPtx, "EXPECT", "1024");
  EXPECT_NE(ptx.find(from), std::string::npos) << from;
  return replace_all(ptx, from, to);
}

// The 1-based line of the first occurrence of `what` in `text` (0 if absent).
uint32_t line_of(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  return at == std::string::npos ? 0 : uint32_t(std::count(text.begin(), text.begin() + long(at), '\n') + 1);
}

const char* kTmaLoadLine =
    "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd2, {%r5, %r5}], [%r3];";

}  // namespace

// ptxas (13.0, sm_90a and sm_100a) rejects a kernel parameter named as the tensor map:
// "State space mismatch between instruction and address in instruction 'cp.async.bulk.tensor'". The
// operand is a generic address; nvcc passes `mov.u64 %rd, param; cvta.param.u64 %rd, %rd`.
// tests/ptx/corpus/tma_*_symbol.ptx record ptxas's verdicts for every space and instruction.
TEST(TmaEngine, KernelParamNamedAsTheTensorMapIsRejectedAtLoad) {
  const std::string ptx = early_read_with("[%rd2, {%r5, %r5}]", "[tmap, {%r5, %r5}]");
  const uint32_t line = line_of(ptx, "[tmap, {%r5, %r5}]");
  ASSERT_GT(line, 0u);
  try {
    ptxsim::load_program(ptx, "tma.ptx");
    ADD_FAILURE() << "accepted [tmap, {..}] with tmap a kernel .param variable";
  } catch (const ptxsim::PtxError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.substr(0, msg.find('\n')),
              "tma.ptx:" + std::to_string(line) +
                  ":3: error: State space mismatch between instruction and address in instruction "
                  "'cp.async.bulk.tensor': 'tmap' is a kernel .param variable; the tensor map operand is a generic "
                  "address: a .global variable or a 64-bit register (for a kernel parameter: mov.u64 %rd, param; "
                  "cvta.param.u64 %rd, %rd)");
  }
}

// The other instructions that take a tensor map's (or a tensor map destination's) address, with a
// kernel .param variable named in it: ptxas's verdict for each (prefetch.param.tensormap and the
// tensormap acquire fence take it; the rest reject it).
TEST(TmaEngine, KernelParamNamedAsATensorMapAddressAgreesWithPtxas) {
  struct Case {
    const char* instr;
    const char* error;  // "" when ptxas accepts it
  };
  const std::string kMismatch = "State space mismatch between instruction and address in instruction ";
  const Case cases[] = {
      {"cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tmap, {%r5, %r5}], [%r2];",
       "'cp.async.bulk.tensor': 'tmap' is a kernel .param variable; the tensor map operand is a generic address"},
      {"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [tmap, {%r5, %r5}], [%r2];",
       "'cp.reduce.async.bulk.tensor': 'tmap' is a kernel .param variable; the tensor map operand is a generic address"},
      {"cp.async.bulk.prefetch.tensor.2d.L2.global.tile [tmap, {%r5, %r5}];",
       "'cp.async.bulk.prefetch.tensor': 'tmap' is a kernel .param variable; the tensor map operand is a generic "
       "address"},
      {"prefetch.tensormap [tmap];",
       "'prefetch': 'tmap' is a kernel .param variable; 'prefetch.tensormap' needs a generic address "
       "(prefetch.param.tensormap or prefetch.const.tensormap names a parameter or constant directly)"},
      {"prefetch.const.tensormap [tmap];",
       "'prefetch': 'tmap' is a kernel .param variable; 'prefetch.const.tensormap' needs a .const address"},
      {"prefetch.param.tensormap [tmap];", ""},
      {"tensormap.replace.tile.global_address.b1024.b64 [tmap], %rd1;",
       "'tensormap.replace': 'tmap' is a kernel .param variable; 'tensormap.replace' without a state space needs a "
       "generic address"},
      {"tensormap.replace.tile.global_address.global.b1024.b64 [tmap], %rd1;",
       "'tensormap.replace': 'tmap' is a kernel .param variable; 'tensormap.replace.global' needs a .global address"},
      {"tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tmap], %rd1;",
       "'tensormap.replace': 'tmap' is a kernel .param variable; 'tensormap.replace.shared::cta' needs a .shared::cta "
       "address"},
      {"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [tmap], [buf], 128;",
       "'tensormap.cp_fenceproxy': 'tmap' is a kernel .param variable; the destination is a .global address"},
      {"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [tmap], 128;",
       "'tensormap.cp_fenceproxy': 'tmap' is a kernel .param variable; the source is a .shared::cta address"},
      {"fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;", ""},
  };
  for (const Case& c : cases) {
    const std::string ptx = early_read_with(kTmaLoadLine, std::string("  ") + c.instr);
    const std::string where = "tma.ptx:" + std::to_string(line_of(ptx, c.instr)) + ":3: error: ";
    std::string got;
    try {
      ptxsim::load_program(ptx, "tma.ptx");
    } catch (const ptxsim::PtxError& e) {
      got = e.what();
    }
    if (!*c.error) {
      EXPECT_EQ(got, "") << c.instr;
      continue;
    }
    EXPECT_EQ(got.rfind(where + kMismatch + c.error, 0), 0u) << c.instr << "\n" << got;
  }
}

// `mov.u64 %rd, tmap` gives the parameter's .param-space address; used as the generic tensor-map
// address without cvta.param it faults on an H200 (CUDA_ERROR_MISALIGNED_ADDRESS at the load), and
// in ptxsim with the same fault kind, which the CUDA shim turns into cudaErrorMisalignedAddress.
TEST(TmaEngine, ParamAddressWithoutCvtaParamFaultsAsAMisalignedAddress) {
  const std::string ptx = early_read_with("  cvta.param.u64 %rd2, %rd1;\n", "  mov.b64 %rd2, %rd1;\n");
  auto [r, words] = run_with_16x16_u32_map(ptx);
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  ASSERT_FALSE(r.result.diagnostics.empty());
  const std::string want =
      "misaligned address: tensor map address 0x0 (lane 0) is the .param-space address of kernel parameter 'tmap' "
      "(what mov gives), not a generic address: convert it with cvta.param.u64 first";
  EXPECT_EQ(r.result.diagnostics[0].message.rfind(want, 0), 0u) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("tma.ptx:" + std::to_string(line_of(ptx, "[%rd2, {%r5, %r5}]")) + ":"),
            std::string::npos)
      << r.result.report;
  EXPECT_EQ(words[0], 0xABABABABu) << "out is untouched";
  EXPECT_EQ(words[1], 0xABABABABu) << "out is untouched";
}

// The forms nvcc emits keep working: the tensor map through cvta.param, the .param address that mov
// gives read back with ld.param, and a generic ld of the cvta.param address.
TEST(TmaEngine, CvtaParamAddressLoadsAndTheParamAddressReadsWithLdParam) {
  std::vector<uint32_t> g(256);
  for (uint32_t i = 0; i < 256; ++i) g[i] = 0x2000 + 3 * i;
  const std::string ptx = early_read_with("  st.global.u32 [%rd4+4], %r7;\n",
                                          "  st.global.u32 [%rd4+4], %r7;\n"
                                          "  ld.param.u64 %rd5, [%rd1+128];\n"  // `out`, through mov's .param address
                                          "  ld.u32 %r8, [%rd2+64];\n"          // the map's bytes 64..67, generic
                                          "  st.global.u32 [%rd5], %r8;\n");
  ptxsim::model::GlobalMemory mem;
  const uint64_t ga = upload(mem, g.data(), 1024, "tensor");
  const uint64_t out = alloc(mem, 8, "out");
  const auto m = encode(tmap::DataType::kUInt32, 2, ga, {16, 16}, {64}, {16, 16}, {1, 1});
  Params p;
  p.add_bytes(&m, 128, 64).add(out);
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  uint32_t map_word, words[2];
  std::memcpy(&map_word, reinterpret_cast<const uint8_t*>(&m) + 64, 4);
  ASSERT_NE(map_word, 0u) << "bytes 64..67 of the map (the box) are not zero";
  mem.read(out, words, 8);
  EXPECT_EQ(words[0], map_word) << "out[0]: the tensor map's bytes 64..67 read through the cvta.param address";
  EXPECT_EQ(words[1], g[0]) << "out[1]: the first element of the tile";
}

TEST(TmaEngine, DecodeChecksAgreeWithPtxas) {
  auto reject = [](const std::string& inst, const std::string& target, const std::string& want) {
    std::string ptx = ".version 8.7\n.target " + target +
                      "\n.address_size 64\n.visible .entry k(.param .u64 t)\n{\n .reg .b32 %r<4>;\n .reg .b16 %h<2>;\n"
                      " .reg .b64 %rd<4>;\n " + inst + "\n ret;\n}\n";
    try {
      ptxsim::load_program(ptx, "d.ptx");
      ADD_FAILURE() << "accepted: " << inst;
    } catch (const ptxsim::PtxError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << inst << "\n" << e.what();
    }
  };
  reject("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r1], "
         "[%rd1, {%r1, %r1}], [%r2], %h1;",
         "sm_90a", "Illegal modifier '.multicast::cluster'");
  reject("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r1], "
         "[%rd1, {%r1, %r1}], [%r2];",
         "sm_90a", "not supported on .target 'sm_90a'");
  reject("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], "
         "[%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r2];",
         "sm_90a", "not supported on .target 'sm_90a'");
  reject("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r2];",
         "sm_90a", "Argument vector size mismatch");
  reject("cp.async.bulk.tensor.2d.global.shared::cluster.tile.bulk_group [%rd1, {%r1, %r1}], [%r1];", "sm_90a",
         "'.bulk_group'");
  reject("cp.async.bulk.tensor.2d.global.shared::cluster.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], "
         "[%r2];",
         "sm_90a", "State space incorrect");
  reject("cp.async.bulk.tensor.1d.shared::cluster.global.tile [%r1], [%rd1, {%r1}], [%r2];", "sm_90a",
         ".completion_mechanism modifier required");
  reject("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%h1, %h1}], [%r2];",
         "sm_90a", "Arguments mismatch");
  reject("cp.reduce.async.bulk.tensor.3d.global.shared::cta.xor.im2col.bulk_group [%rd1, {%r1, %r1, %r1}], [%r1];",
         "sm_90a", "'.im2col'");
  reject("cp.reduce.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r1}], [%r1];", "sm_90a",
         "Reduction operation is required");
  reject("cp.async.bulk.tensor.3d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
         "sm_100a", "cannot be combined");
}

// ---- gather4 / scatter4 (sm_100a) and im2col ----------------------------------------------------

namespace {

// Thread 0 gathers four rows into buf (.shared::cta destination, with an L2 cache hint), copies
// them to `out`, and scatters them to four rows of the tensor of `tmap2`.
const char* kGatherPtx = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .align 64 .b8 tmap2[128], .param .u64 out,
                  .param .align 4 .b8 g[20], .param .align 4 .b8 s[20])
{
  .shared .align 128 .b8 buf[256];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<30>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, buf;
  mov.u32 %r2, bar;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;
  ld.param.u32 %r10, [g];
  ld.param.u32 %r11, [g+4];
  ld.param.u32 %r12, [g+8];
  ld.param.u32 %r13, [g+12];
  ld.param.u32 %r14, [g+16];
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u64 %rd3, 0;
  cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd2, {%r10, %r11, %r12, %r13, %r14}], [%r2], %rd3;
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
  @!%p1 bra $wait;
  ld.param.u64 %rd4, [out];
  mov.u32 %r3, 0;
$copy:
  add.u32 %r4, %r1, %r3;
  ld.shared.u32 %r5, [%r4];
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r5;
  add.u32 %r3, %r3, 4;
  setp.lt.u32 %p2, %r3, 256;
  @%p2 bra $copy;
  ld.param.u32 %r10, [s];
  ld.param.u32 %r11, [s+4];
  ld.param.u32 %r12, [s+8];
  ld.param.u32 %r13, [s+12];
  ld.param.u32 %r14, [s+16];
  mov.u64 %rd7, tmap2;
  cvta.param.u64 %rd8, %rd7;
  cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd8, {%r10, %r11, %r12, %r13, %r14}], [%r1];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

}  // namespace

TEST(TmaEngine, Gather4AndScatter4MoveFourRows) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // u16 tensors of 64 columns x 32 rows; boxes of 32 columns x 1 row.
  ptxsim::model::GlobalMemory mem;
  std::vector<uint16_t> t(64 * 32);
  for (auto& v : t) v = uint16_t(rng());
  uint64_t ta = upload(mem, t.data(), t.size() * 2, "T");
  uint64_t ua = alloc(mem, t.size() * 2, "U", 0xEE);
  uint64_t out = alloc(mem, 256, "out");
  auto m = encode(tmap::DataType::kUInt16, 2, ta, {64, 32}, {128}, {32, 1}, {1, 1});
  auto m2 = encode(tmap::DataType::kUInt16, 2, ua, {64, 32}, {128}, {32, 1}, {1, 1});
  const int32_t g[5] = {40, 3, 30, 40, 7};  // columns 40..71 (64.. out of bounds); row 40 out of bounds
  const int32_t s[5] = {16, 1, 2, 5, 9};
  Params p;
  p.add_bytes(&m, 128, 64).add_bytes(&m2, 128, 64).add(out).add_bytes(g, 20, 4).add_bytes(s, 20, 4);
  Launched r = launch(kGatherPtx, mem, p, {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  EXPECT_EQ(r.warning_count(), 0u) << r.all_diagnostics();
  std::vector<uint16_t> img(128), got(128), u(64 * 32);
  for (int row = 0; row < 4; ++row)
    for (int j = 0; j < 32; ++j) {
      int rr = g[1 + row], cc = g[0] + j;
      img[row * 32 + j] = (rr < 32 && cc < 64) ? t[rr * 64 + cc] : 0;
    }
  mem.read(out, got.data(), 256);
  EXPECT_EQ(got, img);
  mem.read(ua, u.data(), u.size() * 2);
  for (int rr = 0; rr < 32; ++rr)
    for (int cc = 0; cc < 64; ++cc) {
      uint16_t expect = 0xEEEE;
      for (int row = 0; row < 4; ++row)
        if (rr == s[1 + row] && cc >= s[0] && cc < s[0] + 32) expect = img[row * 32 + cc - s[0]];
      ASSERT_EQ(u[rr * 64 + cc], expect) << "row " << rr << " col " << cc;
    }
}

namespace {

// Thread 0 loads an im2col column (4-D NHWC, offsets {ow, oh}) and stores it back with
// .im2col_no_offs into a second tensor; the first 1024 bytes of buf go to out.
const char* kIm2colPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .align 64 .b8 tmap2[128], .param .u64 out,
                  .param .align 4 .b8 c[16], .param .u16 ow, .param .u16 oh, .param .u32 tx)
{
  .shared .align 1024 .b8 buf[1024];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<30>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, buf;
  mov.u32 %r2, bar;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  ld.param.u32 %r6, [tx];
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], %r6;
  ld.param.u32 %r10, [c];
  ld.param.u32 %r11, [c+4];
  ld.param.u32 %r12, [c+8];
  ld.param.u32 %r13, [c+12];
  ld.param.u16 %h1, [ow];
  ld.param.u16 %h2, [oh];
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r10, %r11, %r12, %r13}], [%r2], {%h1, %h2};
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
  @!%p1 bra $wait;
  ld.param.u64 %rd4, [out];
  mov.u32 %r3, 0;
$copy:
  add.u32 %r4, %r1, %r3;
  ld.shared.u32 %r5, [%r4];
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r5;
  add.u32 %r3, %r3, 4;
  setp.lt.u32 %p2, %r3, 1024;
  @%p2 bra $copy;
  mov.u64 %rd7, tmap2;
  cvta.param.u64 %rd8, %rd7;
  mov.u32 %r14, 0;
  cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%rd8, {%r14, %r14, %r14, %r14}], [%r1];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

}  // namespace

TEST(TmaEngine, Im2colLoadAndNoOffsStoreMatchTheModel) {
  namespace mt = ptxsim::model::tma;
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // NHWC f16: C 16, W 6, H 5, N 2; a 3x3 filter box (corners -1 .. +1 padding); 8 pixels of 16 channels.
  const uint64_t dims[4] = {16, 6, 5, 2};
  const uint64_t strides[3] = {32, 32 * 6, 32 * 6 * 5};
  const int32_t lower[2] = {-1, -1}, upper[2] = {-1, -1};
  const uint32_t es[4] = {1, 1, 1, 1};
  const size_t bytes = 32 * 6 * 5 * 2;
  ptxsim::model::GlobalMemory mem;
  std::vector<uint8_t> t(bytes);
  for (auto& b : t) b = uint8_t(rng());
  uint64_t ta = upload(mem, t.data(), bytes, "T");
  uint64_t ua = alloc(mem, bytes, "U", 0);
  uint64_t out = alloc(mem, 1024, "out");
  tmap::CUtensorMap m, m2;
  ASSERT_TRUE(tmap::encode_im2col(&m, tmap::DataType::kFloat16, 4, ta, dims, strides, lower, upper, 16, 8, es,
                                  tmap::Interleave::kNone, tmap::Swizzle::k32B, tmap::L2Promotion::kNone,
                                  tmap::OobFill::kNone)
                  .ok());
  const int32_t st_lower[2] = {0, 0}, st_upper[2] = {0, 0};
  ASSERT_TRUE(tmap::encode_im2col(&m2, tmap::DataType::kFloat16, 4, ua, dims, strides, st_lower, st_upper, 16, 8, es,
                                  tmap::Interleave::kNone, tmap::Swizzle::k32B, tmap::L2Promotion::kNone,
                                  tmap::OobFill::kNone)
                  .ok());
  const int32_t c[4] = {0, -1, 1, 0};
  const uint16_t ow = 1, oh = 2;
  Params p;
  p.add_bytes(&m, 128, 64).add_bytes(&m2, 128, 64).add(out).add_bytes(c, 16, 4).add(ow).add(oh).add(uint32_t(8 * 32));
  Launched r = launch(kIm2colPtx, mem, p, {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  // The model on the host, with shared memory placed where the kernel's buf is (0x400).
  auto read_g = [&](uint64_t a, void* d, size_t n) { return a >= ta && a + n <= ta + bytes ? (std::memcpy(d, t.data() + (a - ta), n), true) : false; };
  std::vector<uint8_t> smem(0x400 + 1024, 0);
  mt::Coords co;
  for (int i = 0; i < 4; ++i) co.c[i] = c[i];
  co.im2col_offsets[0] = ow;
  co.im2col_offsets[1] = oh;
  auto o = mt::load(tmap::decode(m).map, mt::LoadMode::kIm2col, co, read_g, smem, 0x400);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(read(mem, out, 1024), std::vector<uint8_t>(smem.begin() + 0x400, smem.end()));
  std::vector<uint8_t> u(bytes, 0);
  auto write_g = [&](uint64_t a, const void* s, size_t n) { return a >= ua && a + n <= ua + bytes ? (std::memcpy(u.data() + (a - ua), s, n), true) : false; };
  mt::Coords zero;
  o = mt::store(tmap::decode(m2).map, mt::StoreMode::kIm2colNoOffs, zero, smem, 0x400, write_g);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(read(mem, ua, bytes), u);
}

TEST(TmaEngine, Im2colWideLoadMatchesTheModelAndSignalsItsHaloBytes) {
  namespace mt = ptxsim::model::tma;
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // NHWC f16: C 32, W 12, H 3, N 2; .im2col::w with 10 pixels per column, wHalo 2, wOffset 1.
  std::string ptx = kIm2colPtx;
  ptx.replace(ptx.find("sm_90a"), 6, "sm_100a");
  const std::string from = ".global.im2col.mbarrier", to = ".global.im2col::w.mbarrier";
  ptx.replace(ptx.find(from), from.size(), to);
  const size_t st = ptx.find("  mov.u64 %rd7, tmap2;"), end = ptx.find("  ret;\n}");
  ptx.erase(st, end - st);  // no store
  const uint64_t dims[4] = {32, 12, 3, 2};
  const uint64_t strides[3] = {64, 64 * 12, 64 * 12 * 3};
  const uint32_t es[4] = {1, 2, 1, 1};
  const size_t bytes = 64 * 12 * 3 * 2;
  ptxsim::model::GlobalMemory mem;
  std::vector<uint8_t> t(bytes);
  for (auto& b : t) b = uint8_t(rng());
  uint64_t ta = upload(mem, t.data(), bytes, "T");
  uint64_t out = alloc(mem, 1024, "out");
  tmap::CUtensorMap m;
  ASSERT_TRUE(tmap::encode_im2col_wide(&m, tmap::DataType::kFloat16, 4, ta, dims, strides, -1, 0, 32, 10, es,
                                       tmap::Interleave::kNone, tmap::Im2colWideMode::kW, tmap::Swizzle::k64B,
                                       tmap::L2Promotion::kNone, tmap::OobFill::kNone)
                  .ok());
  const int32_t c[4] = {0, int32_t(rng() % 8) - 2, 1, 0};
  const uint16_t halo = 2, woff = 1;
  Params p;
  p.add_bytes(&m, 128, 64).add_bytes(&m, 128, 64).add(out).add_bytes(c, 16, 4).add(halo).add(woff).add(uint32_t(12 * 64));
  Launched r = launch(ptx, mem, p, {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Completed) << r.all_diagnostics();
  auto read_g = [&](uint64_t a, void* d, size_t n) { return a >= ta && a + n <= ta + bytes ? (std::memcpy(d, t.data() + (a - ta), n), true) : false; };
  std::vector<uint8_t> smem(0x400 + 1024, 0);
  mt::Coords co;
  for (int i = 0; i < 4; ++i) co.c[i] = c[i];
  co.w_halo = halo;
  co.w_offset = woff;
  auto o = mt::load(tmap::decode(m).map, mt::LoadMode::kIm2colW, co, read_g, smem, 0x400);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(o.tx_bytes, 12u * 64);
  auto got = read(mem, out, 1024);
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 768, smem.begin() + 0x400));
}

TEST(TmaEngine, LoadOverALiveMbarrierFaults) {
  const char* ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .shared .align 1024 .b8 buf[2048];
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  mov.u32 %r2, buf;
  add.u32 %r3, %r2, 1536;
  add.u32 %r4, %r2, 1024;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r5, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r4], [%rd2, {%r5, %r5}], [%r3];
  ret;
}
)";
  Launched r = run_with_16x16_u32_map(ptx).run;
  ASSERT_EQ(r.result.status, ptxsim::RunStatus::Fault) << r.all_diagnostics();
  EXPECT_NE(r.result.report.find("would overwrite the live mbarrier at shared address 0xa00"), std::string::npos)
      << r.result.report;
}
