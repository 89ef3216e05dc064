// Traces (tools/trace), ptxsim-hw's GPU-free parts (tools/hw/hw_cli) and the conformance corpus.
#include <gtest/gtest.h>

#include <cstdio>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <cstring>
#include <random>
#include <set>
#include <sstream>

#include <sys/wait.h>

#include "sim/api.h"
#include "tools/ptxsim/tensormap_params.h"
#include "tools/hw/hw_cli.h"
#include "tools/ptxsim/case_file.h"
#include "tools/trace/compare.h"
#include "tools/trace/trace.h"

namespace {

using namespace ptxsim;
using cli::Json;

std::string trace_error(const std::string& text) {
  try {
    trace::parse_trace(Json::parse(text), "t.trace.json", ".");
  } catch (const cli::CaseError& e) {
    return e.what();
  }
  return "(accepted)";
}

const char* kOkTrace = R"({"format": "ptxsim-trace/1", "case": "c.json",
  "device": {"name": "NVIDIA H200", "compute_capability": "9.0", "driver_version": 13000},
  "status": "completed",
  "outputs": {"y": {"bytes": 3, "sha256": "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81",
                    "base64": "AQID"}}})";

TEST(Trace, Base64RoundTripsRandomBytes) {
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int n = 0; n < 200; ++n) {
    std::vector<uint8_t> v(rng() % 70);
    for (auto& b : v) b = uint8_t(rng());
    std::string s = trace::base64_encode(v.data(), v.size());
    EXPECT_EQ(s.size(), (v.size() + 2) / 3 * 4);
    auto back = trace::base64_decode(s);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, v);
  }
  EXPECT_EQ(trace::base64_encode(reinterpret_cast<const uint8_t*>("Man"), 3), "TWFu");  // RFC 4648 example
  EXPECT_EQ(trace::base64_encode(reinterpret_cast<const uint8_t*>("Ma"), 2), "TWE=");
  EXPECT_FALSE(trace::base64_decode("TWE"));
  EXPECT_FALSE(trace::base64_decode("T=Fu"));
  EXPECT_FALSE(trace::base64_decode("TW!u"));
}

TEST(Trace, ParsesAndRoundTrips) {
  trace::Trace t = trace::parse_trace(Json::parse(kOkTrace), "t.trace.json", "dir");
  EXPECT_EQ(t.case_path, std::filesystem::path("dir/c.json"));
  EXPECT_EQ(t.device.name, "NVIDIA H200");
  ASSERT_EQ(t.outputs.size(), 1u);
  EXPECT_EQ(*t.outputs[0].data, (std::vector<uint8_t>{1, 2, 3}));
  trace::Trace u = trace::parse_trace(trace::to_json(t), "u", "dir");
  EXPECT_EQ(trace::to_json(u), trace::to_json(t));
}

TEST(Trace, RejectsBadTracesNamingThePath) {
  Json j = Json::parse(kOkTrace);
  auto with = [&](auto edit) {
    Json k = j;
    edit(k);
    return trace_error(k.dump());
  };
  EXPECT_EQ(with([](Json& k) { k["format"] = "ptxsim-trace/2"; }),
            "t.trace.json: format: unsupported format 'ptxsim-trace/2' (this ptxsim reads ptxsim-trace/1; the trace "
            "was written by another version)");
  EXPECT_EQ(with([](Json& k) { k["outputs"]["y"]["base64"] = "AQIE"; }),
            "t.trace.json: outputs.y.base64: the bytes do not match \"sha256\" (the trace is corrupt)");
  EXPECT_EQ(with([](Json& k) { k["outputs"]["y"]["bytes"] = 4; }),
            "t.trace.json: outputs.y.base64: decodes to 3 bytes but \"bytes\" is 4");
  EXPECT_EQ(with([](Json& k) { k["status"] = "hang"; }),
            "t.trace.json: outputs: a hang run has no outputs to compare (the device's memory is not trustworthy)");
  EXPECT_EQ(with([](Json& k) { k["status"] = "crashed"; }),
            "t.trace.json: status: unknown status 'crashed' (expected completed, fault or hang)");
  EXPECT_EQ(with([](Json& k) { k["device"].erase("compute_capability"); }),
            "t.trace.json: device: missing \"compute_capability\" (required for hardware traces)");
  EXPECT_EQ(with([](Json& k) { k["outputs"]["y"]["tolerance"] = {{"dtype", "f32"}, {"ulp", 1}}; }),
            "t.trace.json: outputs.y.tolerance: 3 bytes is not a whole number of f32 elements");
  EXPECT_EQ(with([](Json& k) { k["outputs"]["y"].erase("base64"); k["outputs"]["y"]["tolerance"] = {{"dtype", "f16"}, {"abs", 1}}; }),
            "t.trace.json: outputs.y.tolerance: a tolerance needs the values: store the output inline (\"base64\")");
  EXPECT_EQ(with([](Json& k) { k["case"] = "/abs/c.json"; }),
            "t.trace.json: case: must be relative to the trace file, got '/abs/c.json'");
  EXPECT_EQ(with([](Json& k) { k["extra"] = 1; }).substr(0, 20), "t.trace.json: extra:");
  const std::string short_blob = R"J({"format": "ptxsim-trace/1", "device": {"name": "synthetic (ptxsim)"},
      "tensormaps": [{"params": {"encode": "tiled", "dtype": "uint8", "rank": 1,
      "global_address": 0, "dims": [16], "strides": [], "box": [16]},
      "result": "CUDA_SUCCESS", "blob_hex": "00"}]})J";
  EXPECT_EQ(trace_error(short_blob), "t.trace.json: tensormaps[0].blob_hex: expected 256 hex digits (128 bytes)");
  const std::string empty = R"J({"format": "ptxsim-trace/1", "device": {"name": "synthetic (ptxsim)"}})J";
  EXPECT_EQ(trace_error(empty), "t.trace.json: a trace needs a \"case\" or \"tensormaps\"");
}

TEST(Trace, UlpDistanceOrdersFloats) {
  auto f32 = [](float f) { return uint64_t(std::bit_cast<uint32_t>(f)); };
  EXPECT_EQ(trace::ulp_distance("f32", f32(1.0f), f32(std::nextafter(1.0f, 2.0f))), 1u);
  EXPECT_EQ(trace::ulp_distance("f32", f32(0.0f), f32(-0.0f)), 0u);
  EXPECT_EQ(trace::ulp_distance("f32", f32(-std::numeric_limits<float>::denorm_min()),
                                f32(std::numeric_limits<float>::denorm_min())), 2u);
  EXPECT_EQ(trace::ulp_distance("f32", f32(NAN), f32(1.0f)), UINT64_MAX);
  EXPECT_EQ(trace::ulp_distance("f32", f32(NAN), 0x7fc00001u), 0u);
  EXPECT_EQ(trace::ulp_distance("f16", 0x3c00, 0x3c02), 2u);  // 1.0 and 1.0 + 2 ulp
  EXPECT_EQ(trace::float_value("f16", 0x3c00), 1.0);
  EXPECT_EQ(trace::float_value("bf16", 0xbf80), -1.0);
  EXPECT_EQ(trace::float_value("f16", 0x0001), std::ldexp(1.0, -24));
}

TEST(Trace, ComparesWithinAndBeyondTolerance) {
  std::vector<float> want = {1.0f, 2.0f, -3.0f, 4.0f};
  std::vector<float> got = want;
  got[2] = std::nextafter(got[2], 0.0f);
  auto bytes = [](const std::vector<float>& v) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                reinterpret_cast<const uint8_t*>(v.data()) + v.size() * 4);
  };
  std::vector<uint8_t> w = bytes(want), g = bytes(got);
  trace::Output exact = trace::make_output("x", w.data(), w.size());
  auto c = trace::compare_output(exact, g);
  EXPECT_FALSE(c.agree);
  EXPECT_EQ(c.detail, "3 of 16 bytes differ; first at byte 8: expected 0x00, got 0xff");
  trace::Output tol = trace::make_output("x", w.data(), w.size(), trace::Tolerance{"f32", 1, 0});
  EXPECT_TRUE(trace::compare_output(tol, g).agree);
  got[2] = std::nextafter(got[2], 0.0f);
  g = bytes(got);
  c = trace::compare_output(tol, g);
  EXPECT_FALSE(c.agree);
  EXPECT_EQ(c.detail, "1 of 4 elements outside tolerance f32 ulp 1; first [2]: expected -3 (0xc0400000), got -3 "
                      "(0xc03ffffe), 2 ulp");
  EXPECT_TRUE(trace::compare_output(trace::make_output("x", w.data(), w.size(), trace::Tolerance{"f32", 0, 1e-6}), g).agree);
  EXPECT_EQ(trace::compare_output(exact, std::span<const uint8_t>(g.data(), 12)).detail,
            "size differs: expected 16 bytes, got 12");
}

TEST(HwCli, ParsesArguments) {
  hw::Options o = hw::parse_args({"run", "c.json", "-o", "t.json", "--hang-seconds", "2.5", "--device=1"});
  EXPECT_EQ(o.verb, hw::Options::Verb::Run);
  EXPECT_EQ(o.input, "c.json");
  EXPECT_EQ(*o.output, "t.json");
  EXPECT_EQ(o.hang_seconds, 2.5);
  EXPECT_EQ(o.device, 1);
  o = hw::parse_args({"capture", "corpus", "out"});
  EXPECT_EQ(o.verb, hw::Options::Verb::Capture);
  EXPECT_EQ(*o.output, "out");
  auto err = [](std::vector<std::string> a) {
    try {
      hw::parse_args(a);
    } catch (const hw::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(err({"run", "c.json"}), "'run' needs -o TRACE.json (kernel printf output goes to stdout)");
  EXPECT_EQ(err({"capture", "corpus"}), "'capture' needs CORPUS_DIR OUT_DIR");
  EXPECT_EQ(err({"capture", "a", "b", "-o", "x"}), "-o is not an option of 'capture'");
  EXPECT_EQ(err({"run", "c.json", "-o", "t", "--hang-seconds", "0"}), "--hang-seconds: expected a positive number, got '0'");
  EXPECT_EQ(err({"frobnicate"}), "unknown verb 'frobnicate' (expected run, tensormaps, capture or devices)");
  EXPECT_EQ(err({"devices", "x"}), "unexpected argument 'x' ('devices' takes no arguments)");
}

TEST(HwCli, ReadsPtxTargetsAndChecksDevices) {
  auto t = hw::ptx_target("// .target sm_80\n.version 8.7\n.target sm_100a\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->sm, 100u);
  EXPECT_TRUE(t->arch_specific);
  EXPECT_FALSE(hw::target_mismatch(*t, 10, 0));
  EXPECT_EQ(*hw::target_mismatch(*t, 9, 0), "sm_100a code runs only on compute capability 10.0; the device is 9.0");
  auto plain = hw::ptx_target(".target sm_80, debug");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(hw::target_mismatch(*plain, 9, 0));
  EXPECT_EQ(*hw::target_mismatch(*plain, 7, 5), "sm_80 code needs compute capability 8.0 or newer; the device is 7.5");
  EXPECT_FALSE(hw::ptx_target(".version 8.7\n"));
}

TEST(HwCli, RejectsBadTensormapParameterFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("ptxsim_hwcli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& text) {
    std::ofstream(dir / "p.json") << text;
    try {
      return std::to_string(hw::load_tensormap_params(dir / "p.json").size());
    } catch (const cli::CaseError& e) {
      return std::string(e.what()).substr((dir / "p.json").string().size() + 2);
    }
  };
  const std::string good = R"({"tensormaps": [{"name": "a", "params": {"encode": "tiled", "dtype": "uint8",
      "rank": 1, "global_address": "0x1000", "dims": [64], "strides": [], "box": [16]}}]})";
  EXPECT_EQ(write(good), "1");
  const std::string bad_dtype = R"({"tensormaps": [{"params": {"encode": "tiled", "dtype": "uint9", "rank": 1,
      "global_address": 0, "dims": [64], "strides": [], "box": [16]}}]})";
  EXPECT_EQ(write(bad_dtype),
            "tensormaps[0].params.dtype: unknown value 'uint9' (expected one of uint8, uint16, uint32, int32, uint64, "
            "int64, float16, float32, float64, bfloat16, float32_ftz, tfloat32, tfloat32_ftz, 16u4_align8b, "
            "16u4_align16b, 16u6_align16b)");
  const std::string im2col_box = R"({"tensormaps": [{"params": {"encode": "im2col", "dtype": "uint8", "rank": 3,
      "global_address": 0, "dims": [8, 8, 8], "strides": [8, 64], "box": [4, 4, 4]}}]})";
  EXPECT_EQ(write(im2col_box),
            "tensormaps[0].params.box: not allowed for im2col maps (their box is channels_per_pixel x pixels_per_column)");
  const std::string none = R"({"tensormaps": []})";
  EXPECT_EQ(write(none), "tensormaps: empty: nothing to encode");
  std::filesystem::remove_all(dir);
}

// The conformance corpus: every case runs under ptxsim and ends as its "expect" says (completed
// unless "hang"). find_corpus is ptxsim-hw's corpus walker, so this also checks what capture sees.
TEST(Conformance, EveryCaseEndsAsExpected) {
  auto corpus = hw::find_corpus(std::filesystem::path(PTXSIM_SOURCE_DIR) / "tests/conformance");
  ASSERT_GE(corpus.size(), 30u);
  size_t hangs = 0;
  for (const hw::CorpusEntry& e : corpus) {
    SCOPED_TRACE(e.case_file.string());
    EXPECT_TRUE(e.trace_rel.string().ends_with(".trace.json"));
    cli::Case c = cli::load_case(e.case_file);
    const std::string expect = c.json.value("expect", "completed");
    ASSERT_TRUE(expect == "completed" || expect == "hang") << "expect: " << expect;
    auto program = cli::load_case_program(c);
    cli::PreparedRun prep(c, kernels(*program));
    prep.config.max_seconds = 20;
    std::ostringstream printf_out;
    RunResult r = prep.launch(*program, &printf_out);
    if (expect == "hang") {
      ++hangs;
      EXPECT_EQ(r.status, RunStatus::Deadlock) << r.report;
    } else {
      EXPECT_EQ(r.status, RunStatus::Completed) << r.report;
      for (const std::string& out : c.outputs) {
        // Outputs start poisoned (0xcd) where the kernel writes everything: some byte must change.
        auto bytes = prep.contents(out);
        EXPECT_FALSE(std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0xcd; })) << out;
      }
    }
  }
  EXPECT_EQ(hangs, 4u);  // two hang-by-design cases per target
}

// The tensor-core edge-rule cases (scripts/gen_tc_edge_cases.py): each one's comment names the value
// every output has under ptxsim's edge rules and under MMA-Sim's. ptxsim must give its own value in
// every output (so the case is built as intended and replay of a hardware trace will show which
// rule the hardware has), and the two values must differ (the case decides its rule).
TEST(Conformance, TensorCoreEdgeCasesGiveThePtxsimValue) {
  auto corpus = hw::find_corpus(std::filesystem::path(PTXSIM_SOURCE_DIR) / "tests/conformance");
  size_t n = 0;
  for (const hw::CorpusEntry& e : corpus) {
    if (!e.case_file.filename().string().starts_with("tc_edge_")) continue;
    SCOPED_TRACE(e.case_file.string());
    ++n;
    cli::Case c = cli::load_case(e.case_file);
    const std::string comment = c.json.value("comment", "");
    unsigned ptxsim_value = 0, mmasim_value = 0;
    const size_t at = comment.find("every output is ptxsim ");
    ASSERT_NE(at, std::string::npos) << comment;
    ASSERT_EQ(std::sscanf(comment.c_str() + at, "every output is ptxsim %x, MMA-Sim %x", &ptxsim_value, &mmasim_value),
              2)
        << comment;
    auto program = cli::load_case_program(c);
    cli::PreparedRun prep(c, kernels(*program));
    prep.config.max_seconds = 20;
    std::ostringstream printf_out;
    RunResult r = prep.launch(*program, &printf_out);
    ASSERT_EQ(r.status, RunStatus::Completed) << r.report;
    ASSERT_EQ(c.outputs.size(), 1u);
    const auto bytes = prep.contents(c.outputs[0]);
    ASSERT_EQ(bytes.size() % 4, 0u);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < bytes.size(); i += 4) {
      uint32_t w;
      std::memcpy(&w, bytes.data() + i, 4);
      if (w != ptxsim_value && wrong++ == 0) first = i / 4;
    }
    EXPECT_EQ(wrong, 0u) << "outputs differ from 0x" << std::hex << ptxsim_value << ", first at element " << std::dec
                         << first;
  }
  // 3 rules x (mma.sync bf16/tf32 on both targets, wgmma bf16/tf32, tcgen05 bf16/tf32/mxf8f6f4)
  EXPECT_EQ(n, 27u);
}

struct CliResult {
  int exit_code = -1;
  std::string out;
};

// Runs the ptxsim CLI with `args` (shell words), capturing stdout.
CliResult run_cli(const std::string& args) {
  CliResult r;
  std::string cmd = std::string("'") + PTXSIM_CLI + "' " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("ptxsim_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// The parameter sets ptxsim-hw tensormaps will send to the driver: those named "reject: ..." break
// an encoder rule, the others are valid. A tensormaps-only trace of them replays, and a flipped
// blob bit is caught.
TEST(TensormapTraces, ParameterFileEncodesAndReplays) {
  const auto file = std::filesystem::path(PTXSIM_SOURCE_DIR) / "tests/conformance/tensormaps.params.json";
  std::vector<trace::TensorMapRecord> recs = hw::load_tensormap_params(file);
  ASSERT_GE(recs.size(), 50u);
  size_t rejected = 0;
  for (trace::TensorMapRecord& r : recs) {
    SCOPED_TRACE(r.name);
    std::array<uint8_t, 128> blob{};
    auto e = cli::ptxsim_encode_tensormap(r.params, blob);
    const bool should_reject = r.name.rfind("reject:", 0) == 0;
    EXPECT_EQ(!e.ok(), should_reject) << e.message;
    rejected += !e.ok();
    r.result = cli::cuda_result_name(uint32_t(e.code));
    if (e.ok()) r.blob = blob;
  }
  EXPECT_EQ(rejected, 5u);
  const auto dir = fresh_dir("tmaps");
  trace::Trace t;
  t.device.name = std::string(trace::kSyntheticDevice);
  t.tensormaps = recs;
  trace::write_trace(dir / "maps.trace.json", t);
  CliResult ok = run_cli("replay '" + (dir / "maps.trace.json").string() + "'");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find(std::to_string(recs.size()) + " maps"), std::string::npos) << ok.out;
  (*t.tensormaps[3].blob)[64] ^= 0x80;
  t.tensormaps[60 % t.tensormaps.size()].result = "CUDA_ERROR_INVALID_VALUE";
  t.tensormaps[60 % t.tensormaps.size()].blob.reset();
  trace::write_trace(dir / "bad.trace.json", t);
  CliResult bad = run_cli("replay '" + (dir / "bad.trace.json").string() + "'");
  EXPECT_EQ(bad.exit_code, 4) << bad.out;
  EXPECT_NE(bad.out.find("tensormap " + t.tensormaps[3].name + ": 1 of 128 bytes differ; first at byte 64 (word 8)"),
            std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("the device returned CUDA_ERROR_INVALID_VALUE, ptxsim CUDA_SUCCESS"), std::string::npos)
      << bad.out;
  std::filesystem::remove_all(dir);
}

// A synthetic trace written by `ptxsim run --trace` replays; the replay of a trace whose case file
// is missing is an ERROR with exit 1.
TEST(ReplayCli, SyntheticTraceAgreesAndMissingCaseIsAnError) {
  const auto dir = fresh_dir("replay");
  const std::string c = std::string(PTXSIM_SOURCE_DIR) + "/tests/conformance/sm_100a/mbarrier_phases.case.json";
  ASSERT_EQ(run_cli("run '" + c + "' --trace '" + (dir / "a.trace.json").string() + "'").exit_code, 0);
  trace::Trace t = trace::load_trace(dir / "a.trace.json");
  EXPECT_TRUE(t.synthetic());
  ASSERT_EQ(t.outputs.size(), 1u);
  CliResult ok = run_cli("replay '" + dir.string() + "'");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("1 trace: 1 agree, 0 mismatches, 0 errors (1 synthetic"), std::string::npos) << ok.out;
  t.case_ref = "nowhere.case.json";
  trace::write_trace(dir / "a.trace.json", t);
  CliResult err = run_cli("replay '" + dir.string() + "'");
  EXPECT_EQ(err.exit_code, 1) << err.out;
  EXPECT_NE(err.out.find("ERROR"), std::string::npos) << err.out;
  EXPECT_NE(err.out.find("nowhere.case.json: cannot read case file"), std::string::npos) << err.out;
  EXPECT_EQ(run_cli("replay '" + (dir / "none").string() + "'").exit_code, 1);
  std::filesystem::remove_all(dir);
}

// --timeline: warp slices account for every warp-instruction the run reports, the TMA copy is a
// slice with its bytes, and the end marker says how the run ended (with the deadlock report).
TEST(Timeline, AccountsForTheRun) {
  const auto dir = fresh_dir("timeline");
  const std::string base = std::string(PTXSIM_SOURCE_DIR) + "/tests/conformance/sm_90a/";
  for (const char* name : {"tma_tile_swizzle_128B", "hang_wrong_expect_tx"}) {
    SCOPED_TRACE(name);
    const bool hang = std::string(name).rfind("hang", 0) == 0;
    const auto tl = dir / (std::string(name) + ".json");
    CliResult r = run_cli("run '" + base + name + ".case.json' --json --timeline '" + tl.string() + "'");
    ASSERT_EQ(r.exit_code, hang ? 2 : 0) << r.out;
    Json res = Json::parse(r.out);
    std::ifstream f(tl);
    Json j = Json::parse(f);
    uint64_t instructions = 0, async = 0, ends = 0, end_ts = 0;
    std::set<uint64_t> warps;
    std::vector<std::pair<uint64_t, uint64_t>> slices;
    for (const Json& e : j.at("traceEvents")) {
      const std::string cat = e.value("cat", "");
      if (cat == "warp") {
        const uint64_t n = e.at("args").at("instructions").get<uint64_t>();
        // The clock advances one step per warp-instruction issued, so a slice lasts its count.
        EXPECT_EQ(e.at("dur").get<uint64_t>(), n);
        instructions += n;
        warps.insert(e.at("tid").get<uint64_t>());
        slices.emplace_back(e.at("ts").get<uint64_t>(), e.at("ts").get<uint64_t>() + n);
      } else if (cat == "async") {
        ++async;
        EXPECT_EQ(e.at("args").at("bytes").get<uint64_t>(), 4096u);
        EXPECT_EQ(e.at("name"), "cp.async.bulk.tensor.2d load");
      } else if (cat == "run") {
        ++ends;
        end_ts = e.at("ts").get<uint64_t>();
        EXPECT_EQ(e.at("name"), hang ? "end: deadlock" : "end: completed");
        if (hang) {
          EXPECT_NE(e.at("args").at("report").get<std::string>().find("try_wait"), std::string::npos);
        }
      }
    }
    // One warp runs at a time: slices never overlap, and all lie within the run's clock (which
    // also advances while every warp waits for an asynchronous copy).
    std::sort(slices.begin(), slices.end());
    for (size_t i = 1; i < slices.size(); ++i) EXPECT_LE(slices[i - 1].second, slices[i].first);
    ASSERT_FALSE(slices.empty());
    EXPECT_LE(slices.back().second, end_ts);
    // The statistic counts issued warp-instructions only, not the clock's skips.
    EXPECT_EQ(instructions, res.at("stats").at("warp_instructions").get<uint64_t>());
    EXPECT_GT(instructions, 4u * 10);
    EXPECT_EQ(warps.size(), 4u);
    EXPECT_EQ(async, 1u);
    EXPECT_EQ(ends, 1u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
