// The ldstmatrix-fit verifier (verifiers/ldstmatrix/): the predicate's reasons, the layout fit and
// num/trans choice, the emitted PTX and the decline message. Every accepted fit is also executed
// here: the per-lane addresses and register handles the verifier reports are run through the
// ldmatrix m8n8 lane mapping of the PTX ISA (ptx-facts §4.2) and must move every element of the
// tile to where the two layouts put it.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "verifiers/ldstmatrix/ldstmatrix_fit.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers {
namespace {

using ldstmatrix::Mode;
using nlohmann::json;

Outcome run(const json& request) { return find_verifier("ldstmatrix-fit")->handler(request); }

json demo(int num = 2) {
  // test_ld_stmatrix.py's demonstration: M, N = 8, 8*num; register = the m8n8 fragment.
  return {{"verifier", "ldstmatrix-fit"},
          {"target", "cuda"},
          {"exec_scope", "warp"},
          {"src_scope", "shared"},
          {"dst_scope", "local"},
          {"dtype", "float16"},
          {"register_layout", "S[(8,4," + std::to_string(num) + ",2):(4@laneid, 1@laneid, 2, 1)]"},
          {"shared_layout", "S[(8,4," + std::to_string(num) + ",2):(" + std::to_string(num * 8) + ", 2, 8, 1)]"}};
}

json with(json j, const json& patch) {
  j.merge_patch(patch);
  return j;
}

std::string rejection(const json& r) {
  Outcome o = run(r);
  EXPECT_FALSE(o.accepted) << r.dump();
  return o.diagnostics.empty() ? std::string() : o.diagnostics[0];
}

// Row-major coordinates of logical index i over the leaves (the last leaf varies fastest).
std::vector<int64_t> coords(const std::vector<Mode>& leaves, int64_t i) {
  std::vector<int64_t> c(leaves.size());
  for (size_t k = leaves.size(); k-- > 0;) {
    c[k] = i % leaves[k].extent;
    i /= leaves[k].extent;
  }
  return c;
}

int64_t along(const std::vector<Mode>& leaves, const std::vector<int64_t>& c, const std::string& axis) {
  int64_t v = 0;
  for (size_t k = 0; k < leaves.size(); ++k)
    if (leaves[k].axis == axis) v += c[k] * leaves[k].stride;
  return v;
}

// Runs the chosen instructions through the ISA's ldmatrix/stmatrix lane mapping; "" on agreement.
std::string simulate(const ldstmatrix::CopyRequest& c, const ldstmatrix::Fit& f) {
  const auto rl = ldstmatrix::leaves(c.register_layout), sl = ldstmatrix::leaves(c.shared_layout);
  const int64_t total = c.register_layout.static_size();
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> expect;  // (warp, lane, local) -> shared element
  for (int64_t i = 0; i < total; ++i) {
    auto rc = coords(rl, i);
    expect[{along(rl, rc, "warpid"), along(rl, rc, "laneid"), along(rl, rc, "")}] = along(sl, coords(sl, i), "");
  }
  int64_t checked = 0;
  for (int64_t w = 0; w < f.warps; ++w)
    for (int64_t mm = 0; mm < f.m_outer; ++mm)
      for (int j = 0; j < f.num; ++j)
        for (int64_t t = 0; t < 32; ++t)
          for (int e = 0; e < 2; ++e) {
            auto row_addr = [&](int64_t lane) { return ldstmatrix::lane_shared_offset(f, w, mm, lane); };
            int64_t smem =
                f.trans ? row_addr(8 * j + 2 * (t % 4) + e) + t / 4 : row_addr(8 * j + t / 4) + 2 * (t % 4) + e;
            int64_t local = ldstmatrix::handle_offset(f, mm, j) + e;
            auto it = expect.find({w, t, local});
            if (it == expect.end())
              return "warp " + std::to_string(w) + " lane " + std::to_string(t) + " local " + std::to_string(local) +
                     " holds no element of the tile";
            if (it->second != smem)
              return "warp " + std::to_string(w) + " lane " + std::to_string(t) + " local " + std::to_string(local) +
                     ": instruction moves shared " + std::to_string(smem) + ", layouts say " +
                     std::to_string(it->second);
            ++checked;
          }
  if (checked != total)
    return "the instructions move " + std::to_string(checked) + " of " + std::to_string(total) + " elements";
  return "";
}

std::string simulate_request(const json& r) {
  auto c = ldstmatrix::parse_fit_request(r);
  auto f = ldstmatrix::choose_fit(c);
  if (!f) return "no fit";
  return simulate(c, *f);
}

TEST(LdStMatrixFit, SeedDemonstrationNum2) {
  Outcome o = run(demo(2));
  ASSERT_TRUE(o.accepted) << o.diagnostics.at(0);
  ASSERT_GE(o.result_lines.size(), 3u);
  EXPECT_EQ(o.result_lines[0], "num: 2");
  EXPECT_EQ(o.result_lines[1], "trans: false");
  EXPECT_EQ(o.result_lines[2], "ptx: ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];");
  EXPECT_EQ(o.result_lines[3], "instructions per lane: 1");
  EXPECT_EQ(o.result_lines[4], "shared offset (elements): 16*(laneid%8) + 8*(laneid/8)");
  EXPECT_EQ(o.result_lines[5], "registers: r_local[0], r_local[2]");
  EXPECT_EQ(o.result["p"], 16);
  EXPECT_EQ(simulate_request(demo(2)), "");
}

TEST(LdStMatrixFit, WidthTable) {
  Outcome o = run(demo(4));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[2], "ptx: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];");
  EXPECT_EQ(simulate_request(demo(4)), "");
  o = run(demo(1));
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[2], "ptx: ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];");
  EXPECT_EQ(simulate_request(demo(1)), "");
  // Column-major shared (8x16 stored column by column): .trans with p = 8.
  json t = with(demo(2), {{"shared_layout", "(8,4,2,2):(1,16,64,8)"}});
  o = run(t);
  ASSERT_TRUE(o.accepted) << o.diagnostics.at(0);
  EXPECT_EQ(o.result_lines[1], "trans: true");
  EXPECT_EQ(o.result_lines[2], "ptx: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];");
  EXPECT_EQ(o.result["p"], 8);
  EXPECT_EQ(simulate_request(t), "");
  // The store direction.
  json st = with(demo(2), {{"src_scope", "local"}, {"dst_scope", "shared.dyn"}});
  o = run(st);
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result_lines[2], "ptx: stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};");
  EXPECT_EQ(o.result["direction"], "st");
  o = run(with(t, {{"src_scope", "local"}, {"dst_scope", "shared"}}));
  EXPECT_EQ(o.result_lines[2], "ptx: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};");
  EXPECT_EQ(ldstmatrix::ptx_for(false, 4, false), "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};");
}

TEST(LdStMatrixFit, RegroupingSplitsAndMerges) {
  // Register locals written as one contiguous mode of 4: split into (num=2, pair=2).
  json r = with(demo(2), {{"register_layout", "(8,4,4):(4@laneid,1@laneid,1)"}});
  Outcome o = run(r);
  ASSERT_TRUE(o.accepted) << o.diagnostics.at(0);
  EXPECT_EQ(o.result["num"], 2);
  EXPECT_EQ(simulate_request(r), "");
  // Nested modes flatten to the same leaves.
  r = with(demo(2), {{"shared_layout", "(8,(4),(2,2)):(16,(2),(8,1))"}});
  EXPECT_TRUE(run(r).accepted);
  // m_outer: two instruction groups 512 elements apart; num = 4 would need them 16 apart.
  r = with(demo(2), {{"register_layout", "(8,4,2,2,2):(4@laneid,1@laneid,4,2,1)"},
                     {"shared_layout", "(8,4,2,2,2):(16,2,512,8,1)"}});
  o = run(r);
  ASSERT_TRUE(o.accepted) << o.diagnostics.at(0);
  EXPECT_EQ(o.result["num"], 2);
  EXPECT_EQ(o.result_lines[3], "instructions per lane: 2");
  EXPECT_EQ(o.result_lines[4], "shared offset (elements): 16*(laneid%8) + 8*(laneid/8) + 512*mm");
  EXPECT_EQ(o.result_lines[5], "registers: r_local[0], r_local[2] (+ 4*mm)");
  EXPECT_EQ(simulate_request(r), "");
  // The same with the groups adjacent: the widest num, 4, fits.
  r = with(r, {{"shared_layout", "(8,4,2,2,2):(32,2,16,8,1)"}});
  o = run(r);
  ASSERT_TRUE(o.accepted);
  EXPECT_EQ(o.result["num"], 4);
  EXPECT_EQ(simulate_request(r), "");
}

TEST(LdStMatrixFit, WarpgroupScope) {
  json r = with(demo(2), {{"exec_scope", "warpgroup"},
                          {"register_layout", "(4,8,4,2,2):(1@warpid,4@laneid,1@laneid,2,1)"},
                          {"shared_layout", "(4,8,4,2,2):(128,16,2,8,1)"}});
  Outcome o = run(r);
  ASSERT_TRUE(o.accepted) << o.diagnostics.at(0);
  EXPECT_EQ(o.result["warps"], 4);
  EXPECT_EQ(o.result_lines[4], "shared offset (elements): 16*(laneid%8) + 8*(laneid/8) + 128*warpid");
  EXPECT_EQ(simulate_request(r), "");
  // cta scope takes its thread count from the register layout's warps.
  EXPECT_TRUE(run(with(r, {{"exec_scope", "cta"}})).accepted);
  // A warpgroup copy of one warp's tile does not regroup.
  EXPECT_EQ(rejection(with(demo(2), {{"exec_scope", "warpgroup"}})),
            "ldstmatrix layout doesn't fit any num \u2208 {4,2,1}");
}

TEST(LdStMatrixFit, DeclineMessageVerbatim) {
  const std::string decline = "ldstmatrix layout doesn't fit any num \xe2\x88\x88 {4,2,1}";
  // Row stride 12 elements: rows not 16-byte aligned.
  EXPECT_EQ(rejection(with(demo(2), {{"shared_layout", "(8,4,2,2):(12,2,8,1)"}})), decline);
  // The register side is not the m8n8 fragment (lanes walk the columns first).
  EXPECT_EQ(rejection(with(demo(2), {{"register_layout", "(8,4,2,2):(1@laneid,8@laneid,2,1)"}})), decline);
  // The element pair is not contiguous in shared memory.
  EXPECT_EQ(rejection(with(demo(2), {{"shared_layout", "(8,4,2,2):(16,1,8,4)"}})), decline);
  // The second tile starts 4 elements (8 bytes) after the first.
  EXPECT_EQ(rejection(with(demo(2), {{"shared_layout", "(8,4,2,2):(16,2,4,1)"}})), decline);
  // Column-major with a column stride of 12.
  EXPECT_EQ(rejection(with(demo(2), {{"shared_layout", "(8,4,2,2):(1,24,96,12)"}})), decline);
  // Register tiles on a thread axis.
  EXPECT_EQ(rejection(with(demo(2), {{"register_layout", "(8,4,2,2):(4@laneid,1@laneid,1@warpid,1)"}})), decline);
}

TEST(LdStMatrixFit, PredicateReasons) {
  EXPECT_EQ(rejection(with(demo(), {{"target", "llvm"}})), "non-cuda target");
  EXPECT_EQ(rejection(with(demo(), {{"exec_scope", "thread"}})),
            "unsupported exec_scope thread (need warp, warpgroup, or cta)");
  EXPECT_EQ(rejection(with(demo(), {{"exec_scope", "cta"}, {"threads", 48}})),
            "exec_scope cta has 48 threads (need whole warps)");
  EXPECT_EQ(rejection(with(demo(), {{"all_threads_active", false}})), "not all threads are active");
  EXPECT_EQ(rejection(with(demo(), {{"dtype", "float32"}})), "unsupported dtype float32 (need a 16-bit type)");
  EXPECT_EQ(rejection(with(demo(), {{"shared_layout", "(8,4,2,2,2):(16,2,8,1,128)"}})),
            "invalid copy: the register layout has 128 elements, the shared layout 256");
  EXPECT_EQ(rejection(with(demo(), {{"src_scope", "shared"}, {"dst_scope", "shared"}})),
            "unsupported scope pair (shared, shared) (need (local, shared*) or (shared*, local))");
  EXPECT_EQ(rejection(with(demo(), {{"src_scope", "global"}, {"dst_scope", "local"}})),
            "unsupported scope pair (global, local) (need (local, shared*) or (shared*, local))");
  // The target is checked first.
  EXPECT_EQ(rejection(with(demo(), {{"target", "metal"}, {"exec_scope", "thread"}})), "non-cuda target");
}

TEST(LdStMatrixFit, MalformedRequests) {
  EXPECT_THROW(run(with(demo(), {{"register_layout", "(8,4):(4@laneid)"}})), RequestError);
  EXPECT_THROW(run(with(demo(), {{"register_layout", "(8,4,2,2):(4@tid,1@laneid,2,1)"}})), RequestError);
  EXPECT_THROW(run(with(demo(), {{"shared_layout", "(8,4@laneid):(1,2)"}})), RequestError);
  EXPECT_THROW(run(with(demo(), {{"src_scope", nullptr}})), RequestError);
  EXPECT_THROW(run(with(demo(), {{"num", 2}})), RequestError);
}

// Random fragments built to fit: the verifier accepts them with at least the built width, and the
// instructions it reports move every element where the layouts say. Random near-misses: whatever
// the verifier accepts still simulates correctly.
RC_GTEST_PROP(LdStMatrixFitProp, AcceptedFitsExecuteCorrectly, ()) {
  const int num = *rc::gen::element(1, 2, 4);
  const int64_t m_outer = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t warps = *rc::gen::element<int64_t>(1, 4);
  const bool trans = *rc::gen::arbitrary<bool>();
  const int64_t p = 8 * *rc::gen::inRange<int64_t>(1, 5);
  const int64_t s_num = 8 * *rc::gen::inRange<int64_t>(1, 40);
  const int64_t s_mo = 8 * *rc::gen::inRange<int64_t>(1, 200);
  const int64_t s_w = 8 * *rc::gen::inRange<int64_t>(1, 1000);
  const bool merge_locals = *rc::gen::arbitrary<bool>();
  const int mutate = *rc::gen::inRange(0, 8);  // 0..5: one stride changed; else none

  auto n = [](int64_t v) { return std::to_string(v); };
  std::string rshape = "(" + n(warps) + ",8,4,";
  std::string rstride = "(1@warpid,4@laneid,1@laneid,";
  if (merge_locals) {
    rshape += n(m_outer * num * 2) + ")";
    rstride += "1)";
  } else {
    rshape += n(m_outer) + "," + n(num) + ",2)";
    rstride += n(2 * num) + ",2,1)";
  }
  std::vector<int64_t> s =
      trans ? std::vector<int64_t>{s_w, 1, 2 * p, s_mo, s_num, p} : std::vector<int64_t>{s_w, p, 2, s_mo, s_num, 1};
  if (mutate < 6) s[mutate] += *rc::gen::element<int64_t>(1, 2, 4, -1);
  std::string sstride = "(";
  for (size_t k = 0; k < s.size(); ++k) sstride += (k ? "," : "") + n(s[k]);
  sstride += ")";
  json r = {{"verifier", "ldstmatrix-fit"},
            {"exec_scope", warps == 1 ? "warp" : "warpgroup"},
            {"src_scope", "shared"},
            {"dst_scope", "local"},
            {"register_layout", rshape + ":" + rstride},
            {"shared_layout", "(" + n(warps) + ",8,4," + n(m_outer) + "," + n(num) + ",2):" + sstride}};
  auto c = ldstmatrix::parse_fit_request(r);
  auto f = ldstmatrix::choose_fit(c);
  if (mutate >= 6 || (warps == 1 && mutate == 0) || (m_outer == 1 && mutate == 3) || (num == 1 && mutate == 4)) {
    // Unmutated (or a stride of an extent-1 mode changed): it must fit.
    RC_ASSERT(f.has_value());
    RC_ASSERT(f->num >= num);
    RC_ASSERT(f->trans == trans);
  }
  if (f) RC_ASSERT(simulate(c, *f) == std::string());
}

}  // namespace
}  // namespace ptxsim::verifiers
