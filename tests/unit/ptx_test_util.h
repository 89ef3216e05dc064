// Small helpers shared by the unit tests that load hand-written PTX bodies (memory_test,
// atom_test): the module header, hex formatting, source-line lookup and the printed test seed.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace ptxsim::testutil {

inline const std::string kHead = ".version 8.7\n.target sm_90a\n.address_size 64\n";

inline std::string hex(uint64_t v) {
  char s[32];
  std::snprintf(s, sizeof s, "0x%" PRIx64, v);
  return s;
}

// 1-based line, in the loaded text (kHead + body), of the first line containing `needle`.
inline uint32_t line_of(const std::string& body, const std::string& needle) {
  std::string text = kHead + body;
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return uint32_t(std::count(text.begin(), text.begin() + long(at), '\n') + 1);
}

// A seed for random inputs: PTXSIM_TEST_SEED when set, else a fresh one; printed either way.
inline uint64_t test_seed() {
  uint64_t s = std::random_device{}();
  if (const char* e = std::getenv("PTXSIM_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
  const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("[   SEED   ] %s.%s: PTXSIM_TEST_SEED=%" PRIu64 "\n", t->test_suite_name(), t->name(), s);
  return s;
}

}  // namespace ptxsim::testutil
