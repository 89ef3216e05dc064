#include "tools/ptxsim/case_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "tools/ptxsim/init.h"

namespace ptxsim::cli {
namespace {

namespace fs = std::filesystem;

#define CASE_ERROR_OF(stmt)                  \
  [&]() -> std::string {                     \
    try {                                    \
      stmt;                                  \
    } catch (const CaseError& e) {           \
      return e.what();                       \
    }                                        \
    return "";                               \
  }()

// A scratch directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("ptxsim_case_test_" + std::to_string(::getpid()) + "_" + t->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& bytes) const {
    fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

 private:
  fs::path path_;
};

Case parse(const std::string& json, const fs::path& dir = {}) {
  return parse_case(Json::parse(json), "case.json", dir);
}

KernelInfo kernel(const std::string& name, std::vector<std::pair<std::string, uint32_t>> params) {
  KernelInfo k;
  k.name = name;
  uint32_t off = 0;
  for (auto& [n, size] : params) {
    off = (off + size - 1) / size * size;
    ParamInfo p;
    p.name = n;
    p.offset = off;
    p.size = size;
    p.align = size;
    p.type = size == 8 ? "u64" : "u32";
    k.params.push_back(p);
    off += size;
  }
  k.param_bytes = off;
  return k;
}

template <class T>
std::vector<T> as(std::span<const uint8_t> bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

// ---- parsing ------------------------------------------------------------------------------------

TEST(CaseFile, LoadsAFullCase) {
  TempDir dir;
  dir.write("k.ptx", ".version 8.0\n");
  dir.write("in.bin", std::string("\x01\x02\x03", 3));
  fs::path file = dir.write("case.json", R"({
    // comments are allowed
    "ptx": "k.ptx",
    "kernel": "add",
    "grid": [4], "block": [32, 2], "cluster": [2, 1, 1],
    "dynamic_shared_bytes": 1024,
    "buffers": {
      "Z": {"bytes": 16},
      "A": {"bytes": 8, "init": {"file": "in.bin"}},
      "B": {"bytes": 64, "init": {"random": {"seed": 1, "dtype": "f32", "min": -1, "max": 1}}}
    },
    "params": [{"ptr": "A"}, {"ptr": "B", "offset": 16}, {"u32": 5}],
    "outputs": ["B", "Z"]
  })");
  Case c = load_case(file);
  EXPECT_EQ(c.file, file.string());
  EXPECT_EQ(c.ptx_path, dir.path() / "k.ptx");
  EXPECT_EQ(c.ptx_text, ".version 8.0\n");
  EXPECT_EQ(c.kernel, "add");
  EXPECT_EQ(c.grid.x, 4u);
  EXPECT_EQ(c.grid.y, 1u);
  EXPECT_EQ(c.grid.z, 1u);
  EXPECT_EQ(c.block.x, 32u);
  EXPECT_EQ(c.block.y, 2u);
  EXPECT_TRUE(c.cluster_given);
  EXPECT_EQ(c.cluster.x, 2u);
  EXPECT_EQ(c.dynamic_shared_bytes, 1024u);
  ASSERT_EQ(c.buffers.size(), 3u);  // in file order
  EXPECT_EQ(c.buffers[0].name, "Z");
  EXPECT_EQ(c.buffers[1].name, "A");
  EXPECT_EQ(c.buffers[1].init.kind, BufferInit::Kind::File);
  EXPECT_EQ(c.buffers[1].init.file, dir.path() / "in.bin");
  EXPECT_EQ(c.buffers[2].init.kind, BufferInit::Kind::Random);
  EXPECT_EQ(c.buffers[2].init.dtype, DType::F32);
  EXPECT_EQ(c.buffers[2].init.float_min, -1.0);
  ASSERT_EQ(c.params.size(), 3u);
  EXPECT_EQ(c.params[1].buffer, "B");
  EXPECT_EQ(c.params[1].buffer_offset, 16u);
  EXPECT_EQ(c.outputs, (std::vector<std::string>{"B", "Z"}));
  EXPECT_TRUE(c.json.contains("buffers"));
}

TEST(CaseFile, MinimalCaseDefaults) {
  Case c = parse(R"({"ptx": "k.ptx", "grid": 2, "block": [128]})");
  EXPECT_EQ(c.kernel, "");
  EXPECT_EQ(c.grid.x, 2u);
  EXPECT_EQ(c.block.x, 128u);
  EXPECT_FALSE(c.cluster_given);
  EXPECT_EQ(c.cluster.count(), 1u);
  EXPECT_TRUE(c.buffers.empty());
  EXPECT_TRUE(c.params.empty());
  EXPECT_TRUE(c.outputs.empty());
}

TEST(CaseFile, ErrorsNameTheJsonPath) {
  const std::string head = R"("ptx": "k.ptx", "grid": [1], "block": [1])";
  auto err = [&](const std::string& rest) {
    return CASE_ERROR_OF(parse("{" + head + (rest.empty() ? "" : ", " + rest) + "}"));
  };
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 64, "init": {"random": {"seed": 1, "dtype": "f33"}}}})"),
            "case.json: buffers.A.init.random.dtype: unknown dtype 'f33' (expected one of u8, s8, "
            "u16, s16, u32, s32, u64, s64, f16, bf16, f32, f64)");
  EXPECT_EQ(err(R"("gird": [1])"),
            "case.json: gird: unknown key (expected one of: ptx, kernel, grid, block, cluster, "
            "dynamic_shared_bytes, buffers, params, outputs, description, expect)");
  EXPECT_EQ(err(R"("cluster": [1, 1, 1, 1])"),
            "case.json: cluster: expected 1 to 3 elements [x, y, z], got 4");
  EXPECT_EQ(err(R"("cluster": [1, 0])"), "case.json: cluster[1]: must be at least 1");
  EXPECT_EQ(err(R"("dynamic_shared_bytes": -4)"),
            "case.json: dynamic_shared_bytes: -4 is out of range [0, 4294967295]");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 10, "init": {"iota": "u32"}}})"),
            "case.json: buffers.A.init.iota: buffer 'A' is 10 bytes, not a multiple of the u32 "
            "element size (4)");
  EXPECT_EQ(err(R"("buffers": {"A": {"size": 10}})"),
            "case.json: buffers.A.size: unknown key (expected one of: bytes, init)");
  EXPECT_EQ(err(R"("buffers": {"A": {}})"),
            "case.json: buffers.A: missing \"bytes\" (the buffer's size)");
  EXPECT_EQ(err(R"("buffers": {"../x": {"bytes": 1}})").rfind("case.json: buffers.../x: invalid buffer name", 0), 0u);
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": "ones"}})").rfind("case.json: buffers.A.init: unknown init string \"ones\"", 0), 0u);
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": {"fill_u8": 1, "iota": "u8"}}})"),
            "case.json: buffers.A.init: give exactly one initialiser, not fill_u8, iota");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": {"fill_u8": 256}}})"),
            "case.json: buffers.A.init.fill_u8: 256 is out of range [0, 255]");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": {"random": {"dtype": "u8", "min": 5, "max": 4}}}})"),
            "case.json: buffers.A.init.random: min is greater than max");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": {"random": {"dtype": "s8", "min": -129}}}})"),
            "case.json: buffers.A.init.random.min: -129 is out of range [-128, 127]");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": {"random": {"dtype": "f16", "max": 70000}}}})"),
            "case.json: buffers.A.init.random.max: number 70000 is out of range for f16");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4, "init": {"random": {"min": 0}}}})").rfind(
                "case.json: buffers.A.init.random: missing \"dtype\"", 0),
            0u);
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4}}, "outputs": ["A", "C"])"),
            "case.json: outputs[1]: unknown buffer 'C' (buffers: A)");
  EXPECT_EQ(err(R"("buffers": {"A": {"bytes": 4}}, "outputs": ["A", "A"])"),
            "case.json: outputs[1]: buffer 'A' is listed twice");
  EXPECT_EQ(err(R"("params": [{"u32": 1}, {"ptr": "X"}])"),
            "case.json: params[1].ptr: unknown buffer 'X' (the case has no buffers)");
  EXPECT_EQ(err(R"("params": {"u32": 1})"),
            "case.json: params: expected an array, got an object");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"grid": [1], "block": [1]})")),
            "case.json: ptx: missing (the PTX file, relative to the case file)");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"ptx": "k.ptx", "grid": [1]})")),
            "case.json: block: missing (1 to 3 dimensions, e.g. [4, 1, 1])");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"([1])")), "case.json: a case must be a JSON object, got an array");
}

TEST(CaseFile, FileInitIsCheckedAgainstTheBuffer) {
  TempDir dir;
  dir.write("big.bin", std::string(9, 'x'));
  const std::string head = R"({"ptx": "k.ptx", "grid": 1, "block": 1, "buffers": {"A": {"bytes": 8, "init": {"file": )";
  std::string e = CASE_ERROR_OF(parse(head + R"("big.bin"}}}})", dir.path()));
  EXPECT_EQ(e.rfind("case.json: buffers.A.init.file: '", 0), 0u) << e;
  EXPECT_NE(e.find("is 9 bytes, larger than buffer 'A' (8 bytes)"), std::string::npos) << e;
  e = CASE_ERROR_OF(parse(head + R"("missing.bin"}}}})", dir.path()));
  EXPECT_EQ(e.rfind("case.json: buffers.A.init.file: '", 0), 0u) << e;
  EXPECT_NE(e.find("is not a readable file"), std::string::npos) << e;
}

TEST(CaseFile, LoadErrors) {
  TempDir dir;
  fs::path missing = dir.path() / "nope.json";
  EXPECT_EQ(CASE_ERROR_OF(load_case(missing)).rfind(missing.string() + ": cannot read case file: ", 0), 0u);
  fs::path bad = dir.write("bad.json", "{\"ptx\": \n");
  std::string e = CASE_ERROR_OF(load_case(bad));
  EXPECT_EQ(e.rfind(bad.string() + ": invalid JSON: ", 0), 0u) << e;
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
  fs::path noptx = dir.write("c.json", R"({"ptx": "gone.ptx", "grid": 1, "block": 1})");
  e = CASE_ERROR_OF(load_case(noptx));
  EXPECT_EQ(e.rfind(noptx.string() + ": ptx: cannot read '" + (dir.path() / "gone.ptx").string() + "'", 0), 0u) << e;
}

// ---- initialisers -------------------------------------------------------------------------------

TEST(Init, Splitmix64KnownValues) {
  uint64_t s = 0;
  EXPECT_EQ(splitmix64_next(s), 0xe220a8397b1dcdafull);
  EXPECT_EQ(splitmix64_next(s), 0x6e789e6aa1b965f4ull);
}

TEST(Init, F16Conversion) {
  auto h = [](float f) { return f32_to_f16_bits(f); };
  EXPECT_EQ(h(1.0f), 0x3c00);
  EXPECT_EQ(h(-2.0f), 0xc000);
  EXPECT_EQ(h(-0.0f), 0x8000);
  EXPECT_EQ(h(0.1f), 0x2e66);
  EXPECT_EQ(h(65504.0f), 0x7bff);
  EXPECT_EQ(h(65519.99f), 0x7bff);
  EXPECT_EQ(h(65520.0f), 0x7c00);  // halfway to 65536: ties to even = inf
  EXPECT_EQ(h(1e10f), 0x7c00);
  EXPECT_EQ(h(-INFINITY), 0xfc00);
  EXPECT_EQ(h(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(h(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(h(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 2^-24: even
  EXPECT_EQ(h(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(h(std::ldexp(1023.5f, -24)), 0x0400);  // subnormal rounding up into the normals
  EXPECT_EQ(h(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie: even
  EXPECT_EQ(h(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: even (up)
  EXPECT_EQ(h(6.1e-5f), 0x03ff);
  uint16_t n = h(NAN);
  EXPECT_EQ(n & 0x7c00, 0x7c00);
  EXPECT_NE(n & 0x0200, 0);  // quiet
}

TEST(Init, Bf16Conversion) {
  auto b = [](float f) { return f32_to_bf16_bits(f); };
  EXPECT_EQ(b(1.0f), 0x3f80);
  EXPECT_EQ(b(-1.0f), 0xbf80);
  EXPECT_EQ(b(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie: even
  EXPECT_EQ(b(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie: even (up)
  EXPECT_EQ(b(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3f81);
  EXPECT_EQ(b(3.4028235e38f), 0x7f80);  // FLT_MAX rounds to inf
  EXPECT_EQ(b(INFINITY), 0x7f80);
  EXPECT_EQ(b(NAN) & 0x7fc0, 0x7fc0);
  EXPECT_EQ(b(std::bit_cast<float>(0x7f800001u)) & 0x7fc0, 0x7fc0);  // signalling NaN stays NaN
}

TEST(Init, Generators) {
  std::vector<uint8_t> buf(16);
  BufferInit fill;
  fill.kind = BufferInit::Kind::FillU8;
  fill.fill = 7;
  apply_init(fill, buf.data(), buf.size());
  EXPECT_EQ(buf, std::vector<uint8_t>(16, 7));

  BufferInit iota;
  iota.kind = BufferInit::Kind::Iota;
  iota.dtype = DType::U32;
  apply_init(iota, buf.data(), buf.size());
  EXPECT_EQ(as<uint32_t>(buf), (std::vector<uint32_t>{0, 1, 2, 3}));
  iota.dtype = DType::F32;
  apply_init(iota, buf.data(), buf.size());
  EXPECT_EQ(as<float>(buf), (std::vector<float>{0, 1, 2, 3}));
  iota.dtype = DType::U8;
  std::vector<uint8_t> big(300);
  apply_init(iota, big.data(), big.size());
  EXPECT_EQ(big[255], 255);
  EXPECT_EQ(big[256], 0);  // wraps
  iota.dtype = DType::F16;
  apply_init(iota, buf.data(), 8);
  EXPECT_EQ(as<uint16_t>(std::span(buf).first(8)), (std::vector<uint16_t>{0, 0x3c00, 0x4000, 0x4200}));
}

TEST(Init, RandomIsDeterministicAndInRange) {
  BufferInit r;
  r.kind = BufferInit::Kind::Random;
  r.dtype = DType::F32;
  r.seed = 1;
  r.float_min = -1;
  r.float_max = 1;
  std::vector<uint8_t> a(4096), b(4096);
  apply_init(r, a.data(), a.size());
  apply_init(r, b.data(), b.size());
  EXPECT_EQ(a, b);
  // The documented generator: splitmix64(seed), u = (x >> 11) * 2^-53, v = (1-u)*min + u*max.
  EXPECT_EQ(as<uint32_t>(std::span(a).first(16)),
            (std::vector<uint32_t>{0x3e08516f, 0x3efbae37, 0x3f712746, 0xbde3e797}));
  for (float f : as<float>(a)) {
    EXPECT_GE(f, -1.0f);
    EXPECT_LE(f, 1.0f);
  }
  r.seed = 2;
  apply_init(r, b.data(), b.size());
  EXPECT_NE(a, b);

  BufferInit ri;
  ri.kind = BufferInit::Kind::Random;
  ri.dtype = DType::U32;
  ri.seed = 7;
  ri.int_min = 10;
  ri.int_max = 20;
  apply_init(ri, a.data(), a.size());
  auto v = as<uint32_t>(a);
  EXPECT_EQ(std::vector<uint32_t>(v.begin(), v.begin() + 6),
            (std::vector<uint32_t>{12, 10, 10, 10, 17, 17}));
  bool saw_min = false, saw_max = false;
  for (uint32_t x : v) {
    EXPECT_GE(x, 10u);
    EXPECT_LE(x, 20u);
    saw_min |= x == 10;
    saw_max |= x == 20;
  }
  EXPECT_TRUE(saw_min && saw_max);  // inclusive at both ends

  ri.dtype = DType::S16;
  ri.int_min = uint64_t(int64_t(-3));
  ri.int_max = 3;
  apply_init(ri, a.data(), a.size());
  bool saw_neg = false;
  for (int16_t x : as<int16_t>(a)) {
    EXPECT_GE(x, -3);
    EXPECT_LE(x, 3);
    saw_neg |= x == -3;
  }
  EXPECT_TRUE(saw_neg);

  ri.dtype = DType::U64;  // full range: raw draws
  ri.seed = 0;
  ri.int_min = 0;
  ri.int_max = UINT64_MAX;
  apply_init(ri, a.data(), 16);
  EXPECT_EQ(as<uint64_t>(std::span(a).first(16)),
            (std::vector<uint64_t>{0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull}));
}

TEST(Init, RandomDefaultsFromJson) {
  Case c = parse(R"({"ptx": "k.ptx", "grid": 1, "block": 1, "buffers": {
      "A": {"bytes": 8, "init": {"random": {"dtype": "s8"}}},
      "B": {"bytes": 8, "init": {"random": {"dtype": "bf16", "seed": "0x10"}}}}})");
  EXPECT_EQ(c.buffers[0].init.seed, 0u);
  EXPECT_EQ(int64_t(c.buffers[0].init.int_min), -128);
  EXPECT_EQ(int64_t(c.buffers[0].init.int_max), 127);
  EXPECT_EQ(c.buffers[1].init.seed, 16u);
  EXPECT_EQ(c.buffers[1].init.float_min, 0.0);
  EXPECT_EQ(c.buffers[1].init.float_max, 1.0);
}

// ---- PreparedRun --------------------------------------------------------------------------------

TEST(PreparedRun, AllocatesInitialisesAndBuildsParams) {
  TempDir dir;
  dir.write("in.bin", std::string("\x05\x06\x07", 3));
  Case c = parse(R"({"ptx": "k.ptx", "grid": [2, 3], "block": 64, "dynamic_shared_bytes": 48,
    "buffers": {"in": {"bytes": 8, "init": {"file": "in.bin"}},
                "out": {"bytes": 16, "init": {"iota": "u32"}},
                "empty": {"bytes": 0}},
    "params": [{"ptr": "in"}, {"ptr": "out", "offset": 4}, {"u32": 3}],
    "outputs": ["out"]})", dir.path());
  std::vector<KernelInfo> ks = {kernel("k", {{"a", 8}, {"b", 8}, {"n", 4}})};
  PreparedRun run(c, ks);
  EXPECT_EQ(run.kernel.name, "k");
  EXPECT_EQ(run.config.grid.y, 3u);
  EXPECT_EQ(run.config.block.x, 64u);
  EXPECT_EQ(run.config.dynamic_shared_bytes, 48u);
  EXPECT_FALSE(run.config.cluster_given);
  EXPECT_EQ(run.memory.allocation_count(), 3u);
  uint64_t in = run.address_of("in"), out = run.address_of("out");
  EXPECT_NE(in, 0u);
  EXPECT_NE(out, 0u);
  EXPECT_EQ(run.address_of("nope"), 0u);
  ASSERT_NE(run.memory.find(in), nullptr);
  EXPECT_EQ(run.memory.find(in)->name, "in");
  auto in_bytes = run.contents("in");
  EXPECT_EQ(std::vector<uint8_t>(in_bytes.begin(), in_bytes.end()),
            (std::vector<uint8_t>{5, 6, 7, 0, 0, 0, 0, 0}));  // short file: the rest is zero
  EXPECT_EQ(as<uint32_t>(run.contents("out")), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(run.contents("empty").empty());
  ASSERT_EQ(run.params.size(), 20u);
  uint64_t p0, p1;
  std::memcpy(&p0, &run.params[0], 8);
  std::memcpy(&p1, &run.params[8], 8);
  EXPECT_EQ(p0, in);
  EXPECT_EQ(p1, out + 4);
  EXPECT_EQ(run.params[16], 3);
}

TEST(PreparedRun, ResolvesTheKernel) {
  std::vector<KernelInfo> two = {kernel("a", {}), kernel("b", {})};
  Case c = parse(R"({"ptx": "dir/k.ptx", "grid": 1, "block": 1})");
  EXPECT_EQ(CASE_ERROR_OF(PreparedRun(c, two)),
            "case.json: kernel: not given, and 'dir/k.ptx' has 2 entries (a, b); name one");
  EXPECT_EQ(CASE_ERROR_OF(PreparedRun(c, std::vector<KernelInfo>{})),
            "case.json: ptx: 'dir/k.ptx' has no .entry kernel");
  std::vector<KernelInfo> one = {kernel("only", {})};
  EXPECT_EQ(PreparedRun(c, one).kernel.name, "only");
  Case named = parse(R"({"ptx": "dir/k.ptx", "kernel": "c", "grid": 1, "block": 1})");
  EXPECT_EQ(CASE_ERROR_OF(PreparedRun(named, two)),
            "case.json: kernel: no entry 'c' in 'dir/k.ptx' (entries: a, b)");
  Case b = parse(R"({"ptx": "dir/k.ptx", "kernel": "b", "grid": 1, "block": 1, "cluster": [2]})");
  PreparedRun rb(b, two);
  EXPECT_EQ(rb.kernel.name, "b");
  EXPECT_TRUE(rb.config.cluster_given);
  EXPECT_EQ(rb.config.cluster.x, 2u);
}

TEST(PreparedRun, ParamMismatchIsACaseError) {
  Case c = parse(R"({"ptx": "k.ptx", "grid": 1, "block": 1, "buffers": {"A": {"bytes": 4}},
                     "params": [{"ptr": "A"}, {"u64": 1}]})");
  std::vector<KernelInfo> ks = {kernel("k", {{"a", 8}, {"n", 4}})};
  EXPECT_EQ(CASE_ERROR_OF(PreparedRun(c, ks)),
            "case.json: params[1]: u64 value is 8 bytes but parameter 1 'n' of kernel 'k' (.u32) "
            "is 4 bytes");
}

}  // namespace
}  // namespace ptxsim::cli
