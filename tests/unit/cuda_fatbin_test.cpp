// Fat binary parsing, PTX selection and the payload decompressors of the CUDA shim
// (tools/cuda_shim/fatbin.h). Fat binaries are built here from the documented layout
// (docs/cuda-shim.md); compressed payloads come from the lz4 and zstd command-line tools when they
// are installed, as an independent compressor.
#include "tools/cuda_shim/fatbin.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxsim::cuda_shim {
namespace {

template <class T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  if (b.size() < at + sizeof v) b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}

struct EntrySpec {
  uint16_t kind;  // 1 PTX, 2 ELF
  uint32_t arch;
  bool arch_specific;
  std::string payload;
};

// A fat binary laid out as docs/cuda-shim.md "Fat binaries" describes (uncompressed entries).
std::vector<uint8_t> make_fatbin(const std::vector<EntrySpec>& entries) {
  std::vector<uint8_t> e;
  for (const EntrySpec& s : entries) {
    size_t at = e.size();
    size_t padded = (s.payload.size() + 1 + 7) / 8 * 8;
    put<uint16_t>(e, at + 0, s.kind);
    put<uint16_t>(e, at + 2, 0x0101);
    put<uint32_t>(e, at + 4, 0x40);
    put<uint64_t>(e, at + 8, padded);
    put<uint32_t>(e, at + 28, s.arch);
    put<uint64_t>(e, at + 40, 0x11 | (s.arch_specific ? 0x100000 : 0));
    e.resize(at + 0x40 + padded, 0);
    std::memcpy(e.data() + at + 0x40, s.payload.data(), s.payload.size());
  }
  std::vector<uint8_t> fb;
  put<uint32_t>(fb, 0, 0xba55ed50);
  put<uint16_t>(fb, 4, 1);
  put<uint16_t>(fb, 6, 16);
  put<uint64_t>(fb, 8, e.size());
  fb.insert(fb.end(), e.begin(), e.end());
  return fb;
}

TEST(CudaFatbin, SelectsTheArchSpecificPtxOfTheTarget) {
  auto fb = make_fatbin({{1, 80, false, "// ptx 80"}, {1, 90, true, "// ptx 90a"}, {2, 90, true, "\x7f" "ELF"},
                         {1, 100, true, "// ptx 100a"}});
  auto entries = parse_fatbin(fb.data());
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[1].arch_name(), "compute_90a");
  EXPECT_EQ(entries[2].arch_name(), "sm_90a");
  std::string available;
  EXPECT_EQ(select_ptx(entries, 90, available), "// ptx 90a");
  EXPECT_EQ(select_ptx(entries, 100, available), "// ptx 100a");
  EXPECT_EQ(available, "compute_80 (PTX), compute_90a (PTX), sm_90a (SASS), compute_100a (PTX)");
}

TEST(CudaFatbin, ArchSpecificPtxNeverRunsOnAnotherArch) {
  auto fb = make_fatbin({{1, 80, false, "// generic 80"}, {1, 90, true, "// 90a"}});
  auto entries = parse_fatbin(fb.data());
  std::string available;
  EXPECT_EQ(select_ptx(entries, 100, available), "// generic 80");  // not compute_90a
  auto only_a = make_fatbin({{1, 90, true, "// 90a"}});
  EXPECT_EQ(select_ptx(parse_fatbin(only_a.data()), 100, available), "");
  EXPECT_EQ(available, "compute_90a (PTX)");
}

TEST(CudaFatbin, SassOnlyHasNoPtx) {
  auto fb = make_fatbin({{2, 90, true, "\x7f" "ELF"}});
  std::string available;
  EXPECT_EQ(select_ptx(parse_fatbin(fb.data()), 90, available), "");
  EXPECT_EQ(available, "sm_90a (SASS)");
}

TEST(CudaFatbin, WrapperPointsAtTheFatbin) {
  auto fb = make_fatbin({{1, 90, true, "// via wrapper"}});
  struct {
    uint32_t magic, version;
    const void* data;
    void* aux;
  } wrapper{0x466243b1, 1, fb.data(), nullptr};
  EXPECT_TRUE(is_fatbin(&wrapper));
  std::string available;
  EXPECT_EQ(select_ptx(parse_fatbin(&wrapper), 90, available), "// via wrapper");
  const char ptx[] = ".version 8.0";
  EXPECT_FALSE(is_fatbin(ptx));
}

TEST(CudaFatbin, MalformedInputIsAnErrorNotACrash) {
  auto fb = make_fatbin({{1, 90, true, "// ptx"}});
  put<uint64_t>(fb, 16 + 8, 1u << 20);  // payload larger than the binary
  try {
    parse_fatbin(fb.data());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "fat binary: entry at offset 16 overruns the binary");
  }
  uint32_t junk[4] = {0x12345678, 0, 0, 0};
  EXPECT_THROW(parse_fatbin(junk), std::runtime_error);
}

// LZ4 block written by hand: literals "abc", then a match of 9 bytes at offset 3 (overlapping its
// own output), then the final literals "!!!!!" (the format wants the last five bytes to be literals).
TEST(CudaFatbin, Lz4BlockByHand) {
  const uint8_t block[] = {0x35, 'a', 'b', 'c', 3, 0, 0x50, '!', '!', '!', '!', '!'};
  auto out = lz4_block_decompress(block, sizeof block, 17);
  EXPECT_EQ(std::string(out.begin(), out.end()), "abcabcabcabc!!!!!");
  out = lz4_block_decompress(block, sizeof block, 0);  // size unknown: the decoder finds it
  EXPECT_EQ(std::string(out.begin(), out.end()), "abcabcabcabc!!!!!");
  auto error_of = [](const uint8_t* b, size_t n, size_t expected) -> std::string {
    try {
      lz4_block_decompress(b, n, expected);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(block, sizeof block, 18), "LZ4 payload is corrupt: decompressed to 17 bytes, header says 18");
  EXPECT_EQ(error_of(block, sizeof block, 16), "LZ4 payload is corrupt: liblz4 rejected the block");
  const uint8_t bad_offset[] = {0x10, 'a', 9, 0, 0x50, '!', '!', '!', '!', '!'};
  EXPECT_EQ(error_of(bad_offset, sizeof bad_offset, 0), "LZ4 payload is corrupt: liblz4 rejected the block");
  const uint8_t truncated[] = {0xf0, 255};
  EXPECT_EQ(error_of(truncated, sizeof truncated, 0), "LZ4 payload is corrupt: liblz4 rejected the block");
}

// Compressible random text: words from a small vocabulary, like PTX.
std::string random_text(std::mt19937& rng, size_t n) {
  static const char* const words[] = {"ld.global.u32", "%r", "add.s32", "\n\t", "mov.u64", "[%rd", "];", ", ",
                                      "setp.lt.s32", "@%p", "bra", "$L__BB0_"};
  std::string s;
  while (s.size() < n) {
    s += words[rng() % 12];
    if (rng() % 3 == 0) s += std::to_string(rng() % 64);
  }
  s.resize(n);
  return s;
}

std::string run_tool(const std::string& cmd, const std::string& input) {
  auto dir = std::filesystem::temp_directory_path();
  auto in = dir / ("ptxsim_fatbin_" + std::to_string(getpid()) + ".in");
  std::ofstream(in, std::ios::binary) << input;
  std::string out;
  if (FILE* p = popen((cmd + " < " + in.string()).c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  std::filesystem::remove(in);
  return out;
}

// The lz4 tool writes the frame format; its blocks (independent by default) are LZ4 blocks.
TEST(CudaFatbin, Lz4AgainstTheLz4Tool) {
  if (std::system("command -v lz4 > /dev/null 2>&1") != 0) GTEST_SKIP() << "lz4 not installed";
  unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  for (int round = 0; round < 4; ++round) {
    std::string text = random_text(rng, 1 + rng() % 200000);
    std::string frame = run_tool("lz4 -q -c -" + std::to_string(1 + rng() % 9) + " --no-frame-crc", text);
    ASSERT_GE(frame.size(), 7u) << "seed " << seed;
    const uint8_t* f = reinterpret_cast<const uint8_t*>(frame.data());
    uint8_t flg = f[4];
    size_t i = 4 + 2 + ((flg & 0x08) ? 8 : 0) + 1;  // FLG, BD, content size?, header checksum
    std::vector<uint8_t> out;
    for (;;) {
      uint32_t size;
      std::memcpy(&size, f + i, 4);
      i += 4;
      if (size == 0) break;
      bool stored = size & 0x80000000u;
      size &= 0x7fffffffu;
      if (stored) {
        out.insert(out.end(), f + i, f + i + size);
      } else {
        auto block = lz4_block_decompress(f + i, size, 0);
        out.insert(out.end(), block.begin(), block.end());
      }
      i += size + ((flg & 0x10) ? 4 : 0);
    }
    ASSERT_EQ(std::string(out.begin(), out.end()), text) << "seed " << seed << " round " << round;
  }
}

TEST(CudaFatbin, ZstdAgainstTheZstdTool) {
  if (std::system("command -v zstd > /dev/null 2>&1") != 0) GTEST_SKIP() << "zstd not installed";
  unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  for (int round = 0; round < 8; ++round) {
    size_t n = round == 0 ? 0 : 1 + rng() % 300000;
    std::string text = round % 4 == 3 ? std::string(n, char('a' + rng() % 26)) : random_text(rng, n);
    int level = 1 + int(rng() % 19);
    std::string frame = run_tool("zstd -q -c -" + std::to_string(level), text);
    ASSERT_FALSE(frame.empty()) << "seed " << seed;
    auto out = zstd_decompress(reinterpret_cast<const uint8_t*>(frame.data()), frame.size(), n);
    ASSERT_EQ(std::string(out.begin(), out.end()), text) << "seed " << seed << " round " << round << " level " << level;
  }
}

TEST(CudaFatbin, CorruptZstdIsAnError) {
  auto error_of = [](const std::string& b, size_t expected) -> std::string {
    try {
      zstd_decompress(reinterpret_cast<const uint8_t*>(b.data()), b.size(), expected);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("not a zstd frame", 0), "zstd payload is corrupt: Unknown frame descriptor");
  if (std::system("command -v zstd > /dev/null 2>&1") != 0) GTEST_SKIP() << "zstd not installed";
  std::string frame = run_tool("zstd -q -c -3", std::string(1000, 'x'));
  EXPECT_EQ(error_of(frame, 999), "zstd payload is corrupt: decompressed to 1000 bytes, header says 999");
  EXPECT_EQ(error_of(frame.substr(0, frame.size() - 3), 0), "zstd payload is corrupt: the frame is truncated");
}

}  // namespace
}  // namespace ptxsim::cuda_shim
