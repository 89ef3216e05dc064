// `ptxsim fuzz`: the campaign loop shrinks to minimal counterexamples and writes them; every
// shipped target holds on a short campaign from a fresh seed (printed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include <unistd.h>

#include "tools/fuzz/campaign_runner.h"
#include "tools/ptxsim/fuzz_command.h"

namespace {

using ptxsim::fuzz::CampaignOptions;
using ptxsim::fuzz::Verdict;

TEST(FuzzCampaign, ShrinksAFailureToTheBoundaryAndWritesIt) {
  // A directory of this process alone: several test runs may share the machine.
  const auto dir = std::filesystem::temp_directory_path() / ("ptxsim-fuzz-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CampaignOptions o;
  o.seed = std::random_device{}();
  o.count = 500;
  o.out_dir = dir.string();
  std::cout << "seed " << o.seed << "\n";
  // "every pair has a + b < 100" is false; a minimal counterexample (no shrink of either element
  // still fails) has a + b == 100 exactly.
  std::optional<std::pair<int, int>> first_failure;  // before shrinking
  auto r = ptxsim::fuzz::run_campaign<std::pair<int, int>>(
      "pairs", rc::gen::pair(rc::gen::inRange(0, 1000), rc::gen::inRange(0, 1000)),
      [&](const std::pair<int, int>& p) {
        if (p.first + p.second < 100) return Verdict::pass();
        if (!first_failure) first_failure = p;
        return Verdict::fail("sum " + std::to_string(p.first + p.second));
      },
      [](const std::pair<int, int>& p) { return nlohmann::json{p.first, p.second}; }, o);
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.message, "sum 100");
  const auto in = r.counterexample["input"];
  EXPECT_EQ(in[0].get<int>() + in[1].get<int>(), 100) << in;
  ASSERT_TRUE(first_failure);
  // (A first failure that is already minimal needs no shrinking.)
  if (first_failure->first + first_failure->second != 100) EXPECT_GT(r.shrink_steps, 0);
  ASSERT_FALSE(r.written.empty());
  std::ifstream f(r.written);
  nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_EQ(j["target"], "pairs");
  EXPECT_EQ(j["failure"], "sum 100");
  EXPECT_EQ(j["seed"], o.seed);
  std::filesystem::remove_all(dir);
}

TEST(FuzzCampaign, DiscardsAreCountedNotFailed) {
  CampaignOptions o;
  o.count = 50;
  auto r = ptxsim::fuzz::run_campaign<int>(
      "odd", rc::gen::inRange(0, 10), [](const int& x) { return x % 2 ? Verdict::discard() : Verdict::pass(); },
      [](const int& x) { return nlohmann::json(x); }, o);
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(r.tried, 50u);
  EXPECT_GT(r.discarded, 0u);
  EXPECT_LT(r.discarded, 50u);
}

TEST(FuzzCommand, EveryTargetHoldsOnAShortCampaign) {
  const std::string seed = std::to_string(std::random_device{}());
  for (const auto& t : ptxsim::fuzz::fuzz_targets()) {
    std::ostringstream out, err;
    int code = ptxsim::cli::fuzz_command({t.name, "--seed", seed, "--count", "300", "--out", ""}, out, err);
    EXPECT_EQ(code, 0) << t.name << " seed " << seed << "\n" << out.str() << err.str();
    EXPECT_NE(out.str().find("fuzz " + std::string(t.name) + ": seed " + seed + ", 300 inputs"), std::string::npos)
        << out.str();
  }
}

TEST(FuzzCommand, BadArguments) {
  std::ostringstream out, err;
  EXPECT_EQ(ptxsim::cli::fuzz_command({"no-such-target"}, out, err), 1);
  EXPECT_NE(err.str().find("unknown target 'no-such-target' (targets: tensormap tensormap-blob kind-word layout idesc umma-desc "
                           "wgmma-desc tcgen05-cp ldstmatrix-fit tma-partition)"),
            std::string::npos)
      << err.str();
  EXPECT_EQ(ptxsim::cli::fuzz_command({"layout", "--count", "0"}, out, err), 1);
  EXPECT_EQ(ptxsim::cli::fuzz_command({"layout", "--seed"}, out, err), 1);
  EXPECT_EQ(ptxsim::cli::fuzz_command({}, out, err), 1);
  std::ostringstream list;
  EXPECT_EQ(ptxsim::cli::fuzz_command({"--list"}, list, err), 0);
  for (const char* t : {"kind-word\t", "idesc\t", "umma-desc\t", "wgmma-desc\t", "tcgen05-cp\t", "ldstmatrix-fit\t", "tma-partition\t"})
    EXPECT_NE(list.str().find(t), std::string::npos) << t;
}

TEST(FuzzCommand, PrintsTheClassesOfPassingInputs) {
  // Documented differences between a verifier and the simulator are counted, not hidden.
  std::ostringstream out, err;
  ASSERT_EQ(ptxsim::cli::fuzz_command({"idesc", "--seed", "5", "--count", "2000", "--out", ""}, out, err), 0)
      << out.str() << err.str();
  EXPECT_NE(out.str().find("\taccepted\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\trejected\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\tblock-scaled: verifier vs ISA rules only\n"), std::string::npos) << out.str();
}

}  // namespace
