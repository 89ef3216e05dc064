#include "tools/ptxsim/params.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace ptxsim::cli {
namespace {

// The message of the CaseError `stmt` throws ("" if it throws none).
#define CASE_ERROR_OF(stmt)                  \
  [&]() -> std::string {                     \
    try {                                    \
      stmt;                                  \
    } catch (const CaseError& e) {           \
      return e.what();                       \
    }                                        \
    return "";                               \
  }()

class ParamsTest : public ::testing::Test {
 protected:
  ParamsTest() {
    buffers.push_back({"A", 64, {}});
    buffers.push_back({"B", 16, {}});
    addresses = {{"A", 0x7f0000000100ull}, {"B", 0x7f0000002000ull}};
  }

  ParamSpec parse(const std::string& json, bool field = false) {
    ParamParseContext ctx{reader, buffers};
    return parse_param(Json::parse(json), "params[0]", ctx, field);
  }

  std::vector<uint8_t> encode(const std::string& json) {
    ParamSpec s = parse(json);
    std::vector<uint8_t> out(s.size, 0);
    encode_param(s, ParamEncodeContext{reader, addresses, nullptr}, out.data());
    return out;
  }

  static ParamInfo info(const std::string& name, uint32_t offset, uint32_t size,
                        const std::string& type) {
    ParamInfo p;
    p.name = name;
    p.offset = offset;
    p.size = size;
    p.align = size >= 8 ? 8 : size;
    p.type = type;
    return p;
  }

  JsonReader reader{"case.json"};
  std::vector<BufferSpec> buffers;
  std::map<std::string, uint64_t> addresses;
};

TEST_F(ParamsTest, ScalarsAreLittleEndian) {
  EXPECT_EQ(encode(R"({"u8": 255})"), (std::vector<uint8_t>{0xff}));
  EXPECT_EQ(encode(R"({"u16": 513})"), (std::vector<uint8_t>{1, 2}));
  EXPECT_EQ(encode(R"({"u32": 5})"), (std::vector<uint8_t>{5, 0, 0, 0}));
  EXPECT_EQ(encode(R"({"s32": -1})"), (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(encode(R"({"s8": -128})"), (std::vector<uint8_t>{0x80}));
  EXPECT_EQ(encode(R"({"s16": -2})"), (std::vector<uint8_t>{0xfe, 0xff}));
  EXPECT_EQ(encode(R"({"u64": 9})"), (std::vector<uint8_t>{9, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode(R"({"u64": 18446744073709551615})"), std::vector<uint8_t>(8, 0xff));
  EXPECT_EQ(encode(R"({"s64": -9})"),
            (std::vector<uint8_t>{0xf7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(encode(R"({"u32": "0xdeadbeef"})"), (std::vector<uint8_t>{0xef, 0xbe, 0xad, 0xde}));
  EXPECT_EQ(encode(R"({"u32": 7.0})"), (std::vector<uint8_t>{7, 0, 0, 0}));
}

TEST_F(ParamsTest, Floats) {
  EXPECT_EQ(encode(R"({"f32": 1.5})"), (std::vector<uint8_t>{0, 0, 0xc0, 0x3f}));
  EXPECT_EQ(encode(R"({"f64": 2.0})"), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0x40}));
  EXPECT_EQ(encode(R"({"f32": 2})"), (std::vector<uint8_t>{0, 0, 0, 0x40}));
  EXPECT_EQ(encode(R"({"f32": "-inf"})"), (std::vector<uint8_t>{0, 0, 0x80, 0xff}));
  EXPECT_EQ(encode(R"({"f32": "0x7fc00001"})"), (std::vector<uint8_t>{1, 0, 0xc0, 0x7f}));
  EXPECT_EQ(encode(R"({"f64": "0x3ff0000000000000"})"),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"f32": 1e39})")).find("out of range for f32"), std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"f32": "0x100000000"})")).find("out of range"), std::string::npos);
}

TEST_F(ParamsTest, IntegerRangeErrorsNameThePath) {
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"u8": 256})")),
            "case.json: params[0].u8: 256 is out of range [0, 255]");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"u32": -1})")),
            "case.json: params[0].u32: -1 is out of range [0, 4294967295]");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"s32": 2147483648})")),
            "case.json: params[0].s32: 2147483648 is out of range [-2147483648, 2147483647]");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"u32": 1.5})")),
            "case.json: params[0].u32: expected an integer, got number 1.5");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"u32": "five"})")),
            "case.json: params[0].u32: expected an integer, got string \"five\"");
}

TEST_F(ParamsTest, KindSelection) {
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"u32": 1, "s32": 2})")).find("names two PARAM kinds"),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"u33": 1})")).find("params[0]: no PARAM kind given"),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"u32": 1, "offest": 2})")).find("params[0].offest: unknown key"),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"(5)")).find("params[0]: expected an object, got number 5"),
            std::string::npos);
  EXPECT_EQ(parse(R"({"u32": 1, "name": "n", "comment": "x"})").name, "n");
  for (const ParamKind& k : param_kinds()) {
    EXPECT_NE(k.parse, nullptr) << k.key;
    EXPECT_NE(k.encode, nullptr) << k.key;
    EXPECT_EQ(find_param_kind(k.key), &k);
  }
}

TEST_F(ParamsTest, Pointers) {
  ParamSpec p = parse(R"({"ptr": "A"})");
  EXPECT_EQ(p.kind, "ptr");
  EXPECT_EQ(p.size, 8u);
  uint64_t v;
  auto bytes = encode(R"({"ptr": "A"})");
  std::memcpy(&v, bytes.data(), 8);
  EXPECT_EQ(v, 0x7f0000000100ull);
  bytes = encode(R"({"ptr": "A", "offset": 16})");
  std::memcpy(&v, bytes.data(), 8);
  EXPECT_EQ(v, 0x7f0000000110ull);
  bytes = encode(R"({"ptr": "B", "ptr_offset": 16})");  // one past the end is allowed
  std::memcpy(&v, bytes.data(), 8);
  EXPECT_EQ(v, 0x7f0000002010ull);
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"ptr": "C"})")),
            "case.json: params[0].ptr: unknown buffer 'C' (buffers: A, B)");
  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"ptr": "B", "offset": 17})")),
            "case.json: params[0].offset: offset 17 is past the end of buffer 'B' (16 bytes)");
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"ptr": "B", "offset": 1, "ptr_offset": 2})")).find("not both"),
            std::string::npos);
}

TEST_F(ParamsTest, BytesHex) {
  EXPECT_EQ(encode(R"({"bytes_hex": "00ff10Ab"})"), (std::vector<uint8_t>{0, 0xff, 0x10, 0xab}));
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"bytes_hex": "abc"})")).find("odd number of hex digits"),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"bytes_hex": "0g"})")).find("not a hex digit at character 1"),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"bytes_hex": ""})")).find("empty"), std::string::npos);
}

TEST_F(ParamsTest, Structs) {
  const char* json = R"({"struct": {"size": 32, "fields": [
      {"offset": 0, "u32": 7},
      {"offset": 8, "ptr": "A", "ptr_offset": 4},
      {"offset": 16, "struct": {"size": 8, "fields": [{"offset": 6, "u16": 65535}]}},
      {"offset": 24, "f32": 1.0}]}})";
  ParamSpec s = parse(json);
  EXPECT_EQ(s.size, 32u);
  ASSERT_EQ(s.fields.size(), 4u);
  EXPECT_EQ(s.fields[1].json_path, "params[0].struct.fields[1]");
  auto b = encode(json);
  ASSERT_EQ(b.size(), 32u);
  uint32_t u;
  uint64_t p;
  std::memcpy(&u, &b[0], 4);
  EXPECT_EQ(u, 7u);
  std::memcpy(&p, &b[8], 8);
  EXPECT_EQ(p, 0x7f0000000104ull);
  EXPECT_EQ(b[22], 0xff);
  EXPECT_EQ(b[23], 0xff);
  EXPECT_EQ(b[16], 0);
  std::memcpy(&u, &b[24], 4);
  EXPECT_EQ(u, 0x3f800000u);
  EXPECT_EQ(b[4], 0);  // gaps are zero

  EXPECT_EQ(CASE_ERROR_OF(parse(R"({"struct": {"size": 8, "fields": [{"offset": 6, "u32": 1}]}})")),
            "case.json: params[0].struct.fields[0]: field of 4 bytes at offset 6 does not fit in "
            "the 8-byte struct");
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"struct": {"size": 8, "fields": [{"offset": 0, "u64": 1},
                                                                     {"offset": 4, "u32": 1}]}})"))
                .find("params[0].struct.fields[1]: field at offset 4 (4 bytes) overlaps "
                      "params[0].struct.fields[0]"),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"struct": {"size": 8, "fields": [{"u32": 1}]}})"))
                .find("params[0].struct.fields[0]: a struct field needs an \"offset\""),
            std::string::npos);
  EXPECT_NE(CASE_ERROR_OF(parse(R"({"struct": {"fields": []}})")).find("missing \"size\""),
            std::string::npos);
  EXPECT_EQ(parse(R"({"struct": {"size": 16}})").size, 16u);
}

TEST_F(ParamsTest, BuildParamsLaysOutAtDeclaredOffsets) {
  KernelInfo k;
  k.name = "axpy";
  k.params = {info("x", 0, 8, "u64"), info("n", 8, 4, "u32"), info("a", 16, 8, "f64")};
  k.param_bytes = 24;
  std::vector<ParamSpec> ps = {parse(R"({"ptr": "A"})"), parse(R"({"u32": 3, "name": "n"})"),
                               parse(R"({"f64": 2.0})")};
  ParamEncodeContext ctx{reader, addresses, nullptr};
  std::vector<uint8_t> buf = build_params(ps, k, ctx);
  ASSERT_EQ(buf.size(), 24u);
  uint64_t x;
  std::memcpy(&x, &buf[0], 8);
  EXPECT_EQ(x, 0x7f0000000100ull);
  EXPECT_EQ(buf[8], 3);
  for (int i = 9; i < 16; ++i) EXPECT_EQ(buf[i], 0) << i;  // padding stays zero
  double a;
  std::memcpy(&a, &buf[16], 8);
  EXPECT_EQ(a, 2.0);
}

TEST_F(ParamsTest, BuildParamsChecksCountSizeAndName) {
  KernelInfo k;
  k.name = "axpy";
  k.params = {info("x", 0, 8, "u64"), info("n", 8, 4, "u32")};
  k.param_bytes = 12;
  ParamEncodeContext ctx{reader, addresses, nullptr};
  auto with = [&](std::vector<std::string> jsons) {
    std::vector<ParamSpec> ps;
    for (size_t i = 0; i < jsons.size(); ++i) {
      ParamParseContext pctx{reader, buffers};
      ps.push_back(parse_param(Json::parse(jsons[i]), "params[" + std::to_string(i) + "]", pctx));
    }
    return build_params(ps, k, ctx);
  };
  EXPECT_EQ(CASE_ERROR_OF(with({R"({"ptr": "A"})"})),
            "case.json: params: kernel 'axpy' has 2 parameters (x, n) but the case gives 1");
  EXPECT_EQ(CASE_ERROR_OF(with({R"({"ptr": "A"})", R"({"u64": 3})"})),
            "case.json: params[1]: u64 value is 8 bytes but parameter 1 'n' of kernel 'axpy' "
            "(.u32) is 4 bytes");
  EXPECT_EQ(CASE_ERROR_OF(with({R"({"u32": 1})", R"({"u32": 3})"})),
            "case.json: params[0]: u32 value is 4 bytes but parameter 0 'x' of kernel 'axpy' "
            "(.u64) is 8 bytes");
  EXPECT_EQ(CASE_ERROR_OF(with({R"({"ptr": "A", "name": "y"})", R"({"u32": 3})"})),
            "case.json: params[0].name: name 'y' does not match parameter 0 'x' of kernel 'axpy'");
  EXPECT_EQ(with({R"({"ptr": "A"})", R"({"bytes_hex": "01020304"})"}).size(), 12u);

  KernelInfo blob;
  blob.name = "b";
  blob.params = {info("p", 0, 256, "b8")};
  blob.param_bytes = 256;
  ParamParseContext pctx{reader, buffers};
  std::vector<ParamSpec> ps = {
      parse_param(Json::parse(R"({"struct": {"size": 128}})"), "params[0]", pctx)};
  EXPECT_EQ(CASE_ERROR_OF(build_params(ps, blob, ctx)),
            "case.json: params[0]: struct value is 128 bytes but parameter 0 'p' of kernel 'b' "
            "(.b8) is 256 bytes");
}

}  // namespace
}  // namespace ptxsim::cli
