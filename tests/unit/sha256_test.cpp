#include "tools/ptxsim/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ptxsim::cli {
namespace {

// FIPS 180-2 / NIST CSRC example vectors for SHA-256.
TEST(Sha256, FipsOneBlockAbc) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, FipsEmptyMessage) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, FipsTwoBlock448Bits) {
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Fips896Bits) {
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmn"
                       "opqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, FipsMillionA) {
  std::string m(1000000, 'a');
  EXPECT_EQ(sha256_hex(m), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundaries (55/56 bytes fit or do not fit the length in one block).
TEST(Sha256, PaddingBoundaries) {
  struct Case {
    size_t n;
    const char* hex;
  } cases[] = {
      {1, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"},  // "x"
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
  };
  for (const Case& c : cases) EXPECT_EQ(sha256_hex(std::string(c.n, 'x')), c.hex) << c.n;
}

TEST(Sha256, BinaryBytes) {
  std::vector<uint8_t> data;
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 256; ++i) data.push_back(uint8_t(i));
  EXPECT_EQ(sha256_hex(data.data(), data.size()), "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed");
}

}  // namespace
}  // namespace ptxsim::cli
