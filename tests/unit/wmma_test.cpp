// wmma.load / wmma.store / wmma.mma: the forms the binder accepts and rejects (ptxas 13.0's words
// where it has them), and the run-time faults for what the ISA leaves undefined: misaligned rows,
// lanes disagreeing on the address or stride, a stride below the row length, a partial warp, and a
// generic address into local memory. The arithmetic is tested on nvcc's code (tests/kernels/wmma_test.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/api.h"

namespace ptxsim {
namespace {

std::string kernel(const std::string& body, const std::string& version = "8.5") {
  return ".version " + version + "\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
         "  .reg .b32 %r<40>;\n  .reg .f32 %f<40>;\n  .reg .f64 %fd<8>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n"
         "  ld.param.u64 %rd1, [p];\n  mov.u32 %r30, %tid.x;\n" + body + "\n  ret;\n}\n";
}

std::string load_error(const std::string& ptx) {
  try {
    load_program(ptx, "wmma_test.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// Runs one warp (or `threads`) of `body` with p = a 4 KiB global buffer; returns the first error.
std::string run_error(const std::string& body, uint32_t threads = 32) {
  auto prog = load_program(kernel(body), "wmma_test.ptx");
  model::GlobalMemory mem;
  const uint64_t buf = mem.allocate(4096, 256, "buf");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &buf, 8);
  LaunchConfig cfg;
  cfg.block.x = threads;
  RunResult r = launch(*prog, kernels(*prog).at(0).name, cfg, params, mem);
  if (r.status == RunStatus::Completed) return "";
  for (const auto& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::Error) return d.message;
  return r.report;
}

const std::string kA8 = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
const std::string kF8 = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";

TEST(Wmma, FormsAreCheckedAtLoad) {
  auto has = [](const std::string& err, const std::string& words) {
    return err.find(words) != std::string::npos ? ::testing::AssertionSuccess()
                                                 : ::testing::AssertionFailure() << "'" << err << "' lacks '" << words << "'";
  };
  const std::string mma = "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 " + kF8 + ", " + kA8 + ", " + kA8 + ", " + kF8 + ";";
  EXPECT_EQ(load_error(kernel("  " + mma)), "");
  EXPECT_EQ(load_error(kernel("  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " + kA8 + ", [%rd1], 16;")), "");
  EXPECT_EQ(load_error(kernel("  wmma.store.d.sync.aligned.col.m8n8k4.f64 [%rd1], {%fd0, %fd1};")), "");
  EXPECT_EQ(load_error(kernel("  wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r0}, [%rd1];")), "");
  EXPECT_TRUE(has(load_error(kernel("  wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3}, [%rd1];")),
                  "Vector of size 8 is expected"));
  EXPECT_TRUE(has(load_error(kernel("  wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 " + kA8 +
                                    ", {%r8, %r9}, {%r8, %r9}, " + kA8 + ";")),
                  "Unexpected instruction types specified for 'wmma.mma'"));
  EXPECT_TRUE(has(load_error(kernel("  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite " + kF8 + ", " + kA8 +
                                    ", " + kA8 + ", " + kF8 + ";")),
                  "Instruction ''wmma.mma' with floating point type' with '.satfinite' is not supported starting from "
                  "PTX ISA version 6.5"));
  EXPECT_TRUE(has(load_error(kernel("  wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r0}, [%rd1];")), "A must be .row"));
  EXPECT_TRUE(has(load_error(kernel("  wmma.mma.sync.aligned.row.col.m16n16k16.rn.f32.f32 " + kF8 + ", " + kA8 + ", " +
                                    kA8 + ", " + kF8 + ";")),
                  "Illegal rounding modifier for instruction 'wmma.mma'"));
  EXPECT_TRUE(has(load_error(kernel("  wmma.load.a.sync.aligned.row.m16n16k8.f16 " + kA8 + ", [%rd1];")),
                  "Unexpected instruction types specified for 'wmma.load.a' with shape '.m16n16k8'"));
  EXPECT_TRUE(has(load_error(kernel("  wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0, %r1}, {%r2}, {%r3}, "
                                    "{%r0, %r1};")),
                  "'.xor.popc' or '.and.popc' is required for single-bit 'wmma.mma'"));
}

TEST(Wmma, UndefinedUsesAreFaults) {
  const std::string load = "  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " + kA8 + ", [%rd1], STRIDE;";
  auto with = [&](const std::string& stride) {
    std::string s = load;
    s.replace(s.find("STRIDE"), 6, stride);
    return s;
  };
  EXPECT_EQ(run_error(with("24")), "");  // 48-byte rows: 16-byte aligned
  EXPECT_EQ(run_error(with("20")),
            "misaligned address: wmma.load: row 1 starts at 0x7f0000000028, not a multiple of 16 bytes [CTA (0,0,0) warp 0 lanes 0xffffffff]");
  EXPECT_EQ(run_error(with("8")),
            "wmma.load: stride 8 is less than the 16 elements of a row (undefined in the ISA) [CTA (0,0,0) warp 0 lanes "
            "0xffffffff]");
  EXPECT_EQ(run_error(with("%r30")).substr(0, 73),
            "wmma.load: lane 1 supplies address 0x7f0000000000 and stride 1, lane 0 0x");
  EXPECT_EQ(run_error(load.substr(0, load.find(", STRIDE")) + ";", 16),
            "wmma.load is .sync.aligned: all 32 lanes of the warp must execute it, but only lanes 0xffff do (inactive, "
            "exited or predicated off lanes) [CTA (0,0,0) warp 0 lanes 0xffff]");
  EXPECT_NE(run_error("  .local .align 32 .b8 buf[512];\n  mov.u64 %rd2, buf;\n  cvta.local.u64 %rd2, %rd2;\n"
                      "  wmma.load.a.sync.aligned.row.m16n16k16.f16 " + kA8 + ", [%rd2];")
                .find("points into local memory; wmma accesses only global and shared memory"),
            std::string::npos);
}

// .satfinite on the integer wmma.mma: every register of A and B holds 127 in each byte and every C
// register 0x7ffffff0, so each D element is 0x7ffffff0 + 16 * 127 * 127 whatever the fragment
// layout: clamped to INT32_MAX with .satfinite, wrapped modulo 2^32 without.
TEST(Wmma, SatfiniteClampsTheS32Sum) {
  for (const bool sat : {true, false}) {
    SCOPED_TRACE(sat ? ".satfinite" : "wrapping");
    const std::string body =
        "  mov.b32 %r0, 0x7f7f7f7f;\n  mov.b32 %r1, %r0;\n  mov.b32 %r2, %r0;\n  mov.b32 %r3, %r0;\n"
        "  mov.b32 %r8, 0x7ffffff0;\n  mov.b32 %r9, %r8;\n  mov.b32 %r10, %r8;\n  mov.b32 %r11, %r8;\n"
        "  mov.b32 %r12, %r8;\n  mov.b32 %r13, %r8;\n  mov.b32 %r14, %r8;\n  mov.b32 %r15, %r8;\n"
        "  wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32" + std::string(sat ? ".satfinite" : "") +
        " {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23}, {%r0, %r1}, {%r2, %r3}, "
        "{%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15};\n"
        "  wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%rd1], {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23};";
    auto prog = load_program(kernel(body), "wmma_test.ptx");
    model::GlobalMemory mem;
    const uint64_t buf = mem.allocate(4096, 256, "buf");
    const std::vector<uint32_t> poison(1024, 0xdeadbeef);
    mem.write(buf, poison.data(), 4096);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    LaunchConfig cfg;
    cfg.block.x = 32;
    RunResult r = launch(*prog, kernels(*prog).at(0).name, cfg, params, mem);
    ASSERT_EQ(r.status, RunStatus::Completed) << r.report;
    std::vector<uint32_t> d(256);
    mem.read(buf, d.data(), 1024);
    const uint32_t want = sat ? 0x7fffffffu : uint32_t(0x7ffffff0u + 16u * 127u * 127u);
    for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(d[i], want) << "D element " << i;
  }
}

}  // namespace
}  // namespace ptxsim
