// racecheck.cu under --racecheck: each planted race is reported with both accesses (PTX line of
// each, kind), once per pair of instructions; each race-free twin stays silent and computes the
// right result.
#include <cstdio>
#include <regex>

#include "model/tensormap/encoder.h"
#include "sim/exec/program.h"
#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

using RacecheckTest = KernelTest;

// One race report, taken apart: its kind, the PTX text of the reporting (second) access and of the
// access it is not ordered after.
struct Race {
  std::string kind, second, first, message;
};

std::vector<Race> races(const Harness& h, const RunResult& r) {
  std::vector<Race> out;
  const std::regex line_ref(std::regex_replace(h.program().file_name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                            ":([0-9]+)");
  for (const auto& d : r.diagnostics) {
    if (d.severity != Diagnostic::Severity::Warning || d.message.rfind("race (", 0) != 0) continue;
    Race x;
    x.message = d.message;
    x.kind = d.message.substr(6, d.message.find(')') - 6);
    x.second = d.source_line;
    // The last file:line of the message is the earlier access's.
    for (auto it = std::sregex_iterator(d.message.begin(), d.message.end(), line_ref); it != std::sregex_iterator(); ++it)
      x.first = source_line_of(h.program().source, uint32_t(std::stoul((*it)[1])));
    out.push_back(x);
  }
  return out;
}

bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::string list(const std::vector<Race>& v) {
  std::string s;
  for (auto& r : v) s += "  " + r.message + "\n";
  return s;
}

std::vector<int32_t> iota_input(size_t n) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = int32_t(i * 7 + 1);
  return v;
}

TEST_P(RacecheckTest, MissingSyncthreads) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck = true;
  const auto in = iota_input(64);
  for (int racy : {0, 1}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t din = h.upload(in), dout = h.alloc_n<int32_t>(64);
    const std::string k = h.kernel_named("race_missing_sync");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, din, dout, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    if (!racy) {
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<int32_t>(dout, 64);
      for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], in[63 - t] * 2) << t;
      continue;
    }
    // Warp 0 runs first: thread 31 reads buf[32] before thread 32 writes it (WAR when it does),
    // and warp 1 then reads warp 0's half without a barrier (RAW).
    ASSERT_EQ(v.size(), 2u) << list(v);
    EXPECT_EQ(v[0].kind, "WAR");
    EXPECT_TRUE(has(v[0].second, "st.shared") && has(v[0].first, "ld.shared")) << list(v);
    EXPECT_TRUE(has(v[0].message, "write by thread 32 (warp 1, lane 0) of CTA rank 0")) << v[0].message;
    EXPECT_TRUE(has(v[0].message, "read by thread 31 (warp 0, lane 31)")) << v[0].message;
    EXPECT_EQ(v[1].kind, "RAW");
    EXPECT_TRUE(has(v[1].second, "ld.shared") && has(v[1].first, "st.shared")) << list(v);
  }
}

TEST_P(RacecheckTest, TmaReadBeforeMbarrierWait) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck = true;
  const auto in = iota_input(64);
  for (int racy : {0, 1}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t din = h.upload(in), dout = h.alloc_n<int32_t>(32);
    const std::string k = h.kernel_named("race_tma_wait");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, din, dout, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    if (!racy) {
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<int32_t>(dout, 32);
      for (int l = 0; l < 32; ++l) EXPECT_EQ(out[l], in[l] + in[32 + l]) << l;
      continue;
    }
    // Warp 1 reads stage 1 after only stage 0's wait: not ordered after stage 1's bulk copy.
    ASSERT_EQ(v.size(), 1u) << list(v);
    EXPECT_EQ(v[0].kind, "RAW");
    EXPECT_TRUE(has(v[0].second, "ld.shared")) << v[0].second;
    EXPECT_TRUE(has(v[0].first, "cp.async.bulk.shared::cluster.global")) << v[0].first;
    EXPECT_TRUE(has(v[0].message, "read by thread 32 (warp 1, lane 0)")) << v[0].message;
  }
}

TEST_P(RacecheckTest, GenericWriteThenBulkStoreWithoutProxyFence) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck = true;
  for (int racy : {0, 1}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t dout = h.alloc_n<int32_t>(64);
    const std::string k = h.kernel_named("race_proxy_fence");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, dout, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    const auto out = h.download<int32_t>(dout, 64);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], t * 3) << t;
    if (!racy) {
      EXPECT_TRUE(v.empty()) << list(v);
      continue;
    }
    ASSERT_EQ(v.size(), 1u) << list(v);
    EXPECT_EQ(v[0].kind, "RAW, async proxy");
    EXPECT_TRUE(has(v[0].second, "cp.async.bulk.global.shared::cta")) << v[0].second;
    EXPECT_TRUE(has(v[0].first, "st.shared")) << v[0].first;
    EXPECT_TRUE(has(v[0].message, "is not followed by fence.proxy.async")) << v[0].message;
  }
}

TEST_P(RacecheckTest, PipelineStageReleasedTooEarly) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck = true;
  constexpr int kTiles = 4;
  const auto in = iota_input(32 * kTiles);
  for (int racy : {0, 1}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t din = h.upload(in), dout = h.alloc_n<int32_t>(32);
    const std::string k = h.kernel_named("race_stage_release");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, din, dout, int32_t(kTiles), int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    if (!racy) {
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<int32_t>(dout, 32);
      for (int l = 0; l < 32; ++l) {
        int want = 0;
        for (int t = 0; t < kTiles; ++t) want += in[32 * t + l] * (t + 1);
        EXPECT_EQ(out[l], want) << l;
      }
      continue;
    }
    // The next tile's bulk copy overwrites the stage: not ordered after warp 1's read, which
    // follows its arrival on "empty".
    ASSERT_EQ(v.size(), 1u) << list(v);
    EXPECT_EQ(v[0].kind, "WAR");
    EXPECT_TRUE(has(v[0].second, "cp.async.bulk.shared::cluster.global")) << v[0].second;
    EXPECT_TRUE(has(v[0].first, "ld.shared")) << v[0].first;
    EXPECT_TRUE(has(v[0].message, "read by thread 32 (warp 1, lane 0)")) << v[0].message;
  }
}

// Lanes of one warp are ordered only by a synchronising instruction between their accesses
// (__syncwarp, a warp collective, a barrier, ...); the lanes of one instruction are not reported.
TEST_P(RacecheckTest, LanesOfOneWarpWithoutSyncwarp) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck = true;
  const auto in = iota_input(32);
  for (int racy : {0, 1, 2, 3}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t din = h.upload(in), dout = h.alloc_n<int32_t>(32);
    const std::string k = h.kernel_named("race_warp_lanes");
    RunResult r = h.launch(k, {1}, {32}, h.params(k, din, dout, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    const auto out = h.download<int32_t>(dout, 32);
    if (racy == 1) {
      // Lane 0 reads lane 1's slot: the first access not ordered after the write.
      ASSERT_EQ(v.size(), 1u) << list(v);
      EXPECT_EQ(v[0].kind, "RAW");
      EXPECT_TRUE(has(v[0].second, "ld.shared") && has(v[0].first, "st.shared")) << list(v);
      EXPECT_TRUE(has(v[0].message, "race (RAW) on shared memory of CTA (0,0,0) at offset 0x404: read by thread 0 (warp 0, "
                                    "lane 0) of CTA rank 0 at ")) << v[0].message;
      EXPECT_TRUE(has(v[0].message, " is not ordered after the write by thread 1 (warp 0, lane 1) of CTA rank 0 at "))
          << v[0].message;
      continue;
    }
    EXPECT_TRUE(v.empty()) << list(v);
    for (int l = 0; l < 32; ++l)
      if (racy == 0) EXPECT_EQ(out[l], in[(l + 1) % 32] * 5) << l;
      else if (racy == 2) EXPECT_EQ(out[l], in[0]) << l;
      else EXPECT_EQ(out[l], out[0]) << l;  // one of the lanes' values, the same for every reader
  }
}

// --racecheck-global: global memory between the threads of a CTA, per 4-byte word and byte.
TEST_P(RacecheckTest, GlobalMemoryWithoutSyncthreads) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck = true;
  h.racecheck_global = true;
  for (int racy : {0, 1, 2}) {
    SCOPED_TRACE("racy=" + std::to_string(racy));
    const uint64_t dbuf = h.alloc_n<int32_t>(64, "buf"), dout = h.alloc_n<int32_t>(64, "out");
    const std::string k = h.kernel_named("race_global");
    RunResult r = h.launch(k, {1}, {64}, h.params(k, dbuf, dout, int32_t(racy)));
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    const auto out = h.download<int32_t>(dout, 64);
    if (racy == 1) {
      // As MissingSyncthreads, in global memory: thread 31 reads buf[32] before thread 32 writes
      // it (WAR), warp 1 reads warp 0's half (RAW).
      ASSERT_EQ(v.size(), 2u) << list(v);
      EXPECT_EQ(v[0].kind, "WAR");
      EXPECT_TRUE(has(v[0].second, "st.global") && has(v[0].first, "ld.global")) << list(v);
      EXPECT_TRUE(has(v[0].message, "race (WAR) on global memory at address 0x")) << v[0].message;
      EXPECT_TRUE(has(v[0].message, " (allocation 'buf' + 0x80): write by thread 32 (warp 1, lane 0) of CTA (0,0,0) at "))
          << v[0].message;
      EXPECT_TRUE(has(v[0].message, "is not ordered after the read by thread 31 (warp 0, lane 31) of CTA (0,0,0) at "))
          << v[0].message;
      EXPECT_EQ(v[1].kind, "RAW");
      EXPECT_TRUE(has(v[1].message, " (allocation 'buf' + 0x7c): read by thread 32 (warp 1, lane 0) of CTA (0,0,0) at "))
          << v[1].message;
      EXPECT_TRUE(has(v[1].message, "is not ordered after the write by thread 31 (warp 0, lane 31) of CTA (0,0,0) at "))
          << v[1].message;
      continue;
    }
    EXPECT_TRUE(v.empty()) << list(v);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], racy == 0 ? (63 - t) * 3 : t) << t;
  }
}

// --racecheck-global across clusters (race_cross_cluster in racecheck.cu): grid 4 in clusters of
// 2, so the writer CTA (0,0,0) and the reader CTA (2,0,0) are both rank 0, of different clusters.
std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

struct CrossCluster {
  uint64_t buf, flag, out;
};

CrossCluster cross_buffers(Harness& h) {
  return {h.alloc_n<int32_t>(64, "buf"), h.upload(std::vector<int32_t>{0}, "flag"), h.alloc_n<int32_t>(64, "out")};
}

RunResult cross_launch(Harness& h, const CrossCluster& b, int mode, uint32_t grid = 4) {
  const std::string k = h.kernel_named("race_cross_cluster");
  return h.launch(k, {grid}, {32}, h.params(k, b.buf, b.flag, b.out, int32_t(mode)));
}

TEST_P(RacecheckTest, GlobalAcrossClustersUnordered) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck_global = true;
  h.cluster = {2};
  const CrossCluster b = cross_buffers(h);
  RunResult r = cross_launch(h, b, 0);
  ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
  auto v = races(h, r);
  ASSERT_EQ(v.size(), 1u) << list(v);
  EXPECT_TRUE(has(v[0].second, "ld.global") && has(v[0].first, "st.global")) << list(v);
  const Diagnostic* d = nullptr;
  for (const auto& x : r.diagnostics)
    if (x.message == v[0].message) d = &x;
  ASSERT_NE(d, nullptr);
  const std::string file = h.program().file_name;
  const std::string msg = v[0].message;
  const size_t at = msg.rfind(file + ":");
  ASSERT_NE(at, std::string::npos) << msg;
  const uint32_t write_line = uint32_t(std::stoul(msg.substr(at + file.size() + 1)));
  EXPECT_EQ(msg, "race (RAW) on global memory at address " + hex(b.buf) +
                     " (allocation 'buf' + 0x0): read by thread 0 (warp 0, lane 0) of CTA (2,0,0) at " + file + ":" +
                     std::to_string(d->loc.line) +
                     " is not ordered after the write by thread 0 (warp 0, lane 0) of CTA (0,0,0) at " + file + ":" +
                     std::to_string(write_line));
  const auto out = h.download<int32_t>(b.out, 32);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], t + 1) << t;  // the serial schedule runs cluster 0 first

  // Each CTA its own cluster (no clusters): the same race, CTA (2,0,0) against CTA (0,0,0).
  h.cluster = {1};
  const CrossCluster b2 = cross_buffers(h);
  r = cross_launch(h, b2, 0);
  ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
  v = races(h, r);
  ASSERT_EQ(v.size(), 1u) << list(v);
  EXPECT_TRUE(has(v[0].message, "read by thread 0 (warp 0, lane 0) of CTA (2,0,0) at ")) << v[0].message;
  EXPECT_TRUE(has(v[0].message, "the write by thread 0 (warp 0, lane 0) of CTA (0,0,0) at ")) << v[0].message;
}

// The race-free twins stay silent and compute their results.
TEST_P(RacecheckTest, GlobalAcrossClustersOrdered) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck_global = true;
  for (uint32_t cluster : {1u, 2u}) {
    SCOPED_TRACE("cluster=" + std::to_string(cluster));
    h.cluster = {cluster};
    {  // st.release.gpu / ld.acquire.gpu flag handshake
      const CrossCluster b = cross_buffers(h);
      RunResult r = cross_launch(h, b, 1);
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      auto v = races(h, r);
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<int32_t>(b.out, 32);
      for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], t + 1) << t;
    }
    {  // atomics from every thread of every CTA to one counter
      const CrossCluster b = cross_buffers(h);
      RunResult r = cross_launch(h, b, 2, 8);
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      auto v = races(h, r);
      EXPECT_TRUE(v.empty()) << list(v);
      EXPECT_EQ(h.download<int32_t>(b.flag, 1)[0], 8 * 32);
    }
    {  // partials published by __threadfence + atomicAdd, summed by the last CTA
      const CrossCluster b = cross_buffers(h);
      RunResult r = cross_launch(h, b, 3, 8);
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      auto v = races(h, r);
      EXPECT_TRUE(v.empty()) << list(v);
      EXPECT_EQ(h.download<int32_t>(b.out, 1)[0], 36);
    }
    {  // written in one launch, read in the next
      const CrossCluster b = cross_buffers(h);
      RunResult r = cross_launch(h, b, 4);
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      r = cross_launch(h, b, 5);
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      auto v = races(h, r);
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<int32_t>(b.out, 32);
      for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], t + 1) << t;
    }
  }
}

// Scopes: a release and an acquire order each other only when each one's scope includes the other
// thread; a .cta fence before an atomic publishes nothing to other CTAs.
TEST_P(RacecheckTest, GlobalScopes) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck_global = true;
  struct Case {
    int mode;
    uint32_t cluster, grid;
    const char* reader;  // the CTA of the reported read, or nullptr: silent
    const char* writer;
  };
  const Case cases[] = {
      {8, 1, 4, "CTA (2,0,0)", "CTA (0,0,0)"},   // .cta release / acquire, other cluster
      {8, 2, 4, "CTA (2,0,0)", "CTA (0,0,0)"},
      {9, 2, 4, nullptr, nullptr},                // .cluster, same cluster: ordered
      {9, 1, 4, "CTA (1,0,0)", "CTA (0,0,0)"},   // .cluster, other cluster
      {11, 2, 4, "CTA (1,0,0)", "CTA (0,0,0)"},  // .cta, same cluster, other CTA
      {11, 1, 4, "CTA (1,0,0)", "CTA (0,0,0)"},
      {10, 1, 8, "CTA (7,0,0)", "CTA (0,0,0)"},  // __threadfence_block + atomicAdd
      {10, 2, 8, "CTA (7,0,0)", "CTA (0,0,0)"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE("mode=" + std::to_string(k.mode) + " cluster=" + std::to_string(k.cluster));
    h.cluster = {k.cluster};
    const CrossCluster b = cross_buffers(h);
    RunResult r = cross_launch(h, b, k.mode, k.grid);
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    if (!k.reader) {
      EXPECT_TRUE(v.empty()) << list(v);
    } else {
      // Mode 10's last CTA reads every partial in its own instruction (the loop is unrolled): one
      // report per partial of another CTA it reads, up to one per instruction pair; the others one.
      if (k.mode != 10) {
        ASSERT_EQ(v.size(), 1u) << list(v);
      }
      ASSERT_FALSE(v.empty());
      bool first_writer = false;
      for (const auto& x : v) {
        EXPECT_TRUE(has(x.message, "race (RAW) on global memory at address ")) << x.message;
        EXPECT_TRUE(has(x.message, std::string("read by thread 0 (warp 0, lane 0) of ") + k.reader + " at "))
            << x.message;
        first_writer |= has(x.message, std::string("the write by thread 0 (warp 0, lane 0) of ") + k.writer + " at ");
        // Within mode 10's last cluster of 2 the atomic orders CTA 6's partial (same cluster).
        if (k.mode == 10 && k.cluster == 2) {
          EXPECT_FALSE(has(x.message, "of CTA (6,0,0)")) << x.message;
        }
        EXPECT_TRUE(has(x.second, "ld.global") && has(x.first, "st.global")) << list(v);
      }
      EXPECT_TRUE(first_writer) << list(v);
    }
    if (k.mode == 10) {
      EXPECT_EQ(h.download<int32_t>(b.out, 1)[0], 36);
    } else {
      const auto out = h.download<int32_t>(b.out, 32);
      for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], t + 1) << t;
    }
  }
}

// TMA tensor copies' global sides (race_tma_global in racecheck.cu): the issuing thread's accesses.
TEST_P(RacecheckTest, GlobalTmaTensorCopies) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck_global = true;
  const std::string k = h.kernel_named("race_tma_global");
  for (uint32_t cluster : {1u, 2u})
    for (int mode = 0; mode < 4; ++mode) {
      SCOPED_TRACE("mode=" + std::to_string(mode) + " cluster=" + std::to_string(cluster));
      h.cluster = {cluster};
      const std::vector<int32_t> input = iota_input(32);
      const uint64_t tensor = h.upload(input, "tensor"), flag = h.upload(std::vector<int32_t>{0}, "flag");
      const uint64_t out = h.alloc_n<int32_t>(32, "out");
      model::tmap::CUtensorMap map;
      const uint64_t dims[1] = {32}, strides[1] = {0};
      const uint32_t box[1] = {32}, es[1] = {1};
      ASSERT_TRUE(model::tmap::encode_tiled(&map, model::tmap::DataType::kInt32, 1, tensor, dims, strides, box, es,
                                            model::tmap::Interleave::kNone, model::tmap::Swizzle::kNone,
                                            model::tmap::L2Promotion::kNone, model::tmap::OobFill::kNone)
                      .ok());
      RunResult r = h.launch(k, {4}, {32}, h.params(k, map, tensor, flag, out, int32_t(mode)));
      ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
      auto v = races(h, r);
      if (mode == 0 || mode == 2) {
        ASSERT_EQ(v.size(), 1u) << list(v);
        const std::string place = "on global memory at address " + hex(tensor) + " (allocation 'tensor' + 0x0): ";
        if (mode == 0) {
          EXPECT_TRUE(has(v[0].message, "race (RAW) " + place + "read by thread 0 (warp 0, lane 0) of CTA (2,0,0) at "))
              << v[0].message;
          EXPECT_TRUE(has(v[0].message, "not ordered after the write by thread 0 (warp 0, lane 0) of CTA (0,0,0) at "))
              << v[0].message;
        } else {
          EXPECT_TRUE(has(v[0].message, "race (WAR) " + place + "write by thread 0 (warp 0, lane 0) of CTA (2,0,0) at "))
              << v[0].message;
          EXPECT_TRUE(has(v[0].message, "not ordered after the read by thread 0 (warp 0, lane 0) of CTA (0,0,0) at "))
              << v[0].message;
        }
        EXPECT_TRUE(has(v[0].first, "cp.async.bulk.tensor.1d")) << v[0].first;
      } else {
        EXPECT_TRUE(v.empty()) << list(v);
      }
      const auto got = h.download<int32_t>(out, 32), now = h.download<int32_t>(tensor, 32);
      for (int t = 0; t < 32; ++t) {
        EXPECT_EQ(got[t], mode <= 1 ? t + 100 : input[size_t(t)]) << t;
        EXPECT_EQ(now[t], mode <= 1 ? t + 100 : -t) << t;
      }
    }
}

// A cooperative launch (every cluster resident, interleaved): a grid barrier built from an atomic
// arrive and an ld.acquire.gpu spin orders each CTA's write before the next CTA's read; without it
// the neighbours' accesses race.
TEST_P(RacecheckTest, GlobalAcrossClustersGridBarrier) {
  KTEST_LOAD(h, "racecheck");
  h.racecheck_global = true;
  h.co_resident = true;
  for (int mode : {6, 7}) {
    SCOPED_TRACE("mode=" + std::to_string(mode));
    const CrossCluster b = cross_buffers(h);
    RunResult r = cross_launch(h, b, mode, 8);
    ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
    auto v = races(h, r);
    if (mode == 6) {
      EXPECT_TRUE(v.empty()) << list(v);
      const auto out = h.download<int32_t>(b.out, 8);
      for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], (i + 1) % 8 + 1) << i;
      continue;
    }
    ASSERT_FALSE(v.empty());
    for (const auto& x : v) {
      EXPECT_TRUE(has(x.message, "on global memory at address ") && has(x.message, "(allocation 'buf' + 0x"))
          << x.message;
      EXPECT_TRUE(has(x.second, "global") && has(x.first, "global")) << list(v);
    }
  }
}

// Without --racecheck nothing of it runs: the racy kernel completes without a race report.
TEST_P(RacecheckTest, OffByDefault) {
  KTEST_LOAD(h, "racecheck");
  const uint64_t din = h.upload(iota_input(64)), dout = h.alloc_n<int32_t>(64);
  const std::string k = h.kernel_named("race_missing_sync");
  RunResult r = h.launch(k, {1}, {64}, h.params(k, din, dout, int32_t(1)));
  ASSERT_EQ(r.status, RunStatus::Completed) << describe(r);
  if (!std::getenv("PTXSIM_RACECHECK")) {
    EXPECT_TRUE(races(h, r).empty());
  }
}

}  // namespace

KTEST_INSTANTIATE(RacecheckTest);

}  // namespace ptxsim::ktest
