// The generic campaign loop behind every FuzzTarget (see campaign.h).
#pragma once
#include <filesystem>
#include <fstream>

#include <rapidcheck.h>

#include "tools/fuzz/campaign.h"

namespace ptxsim::fuzz {

// What a property says about one input; a passing verdict's message, if any, names its class.
struct Verdict {
  enum Kind { kPass, kFail, kDiscard } kind = kPass;
  std::string message;
  static Verdict pass() { return {}; }
  static Verdict discard() { return {kDiscard, {}}; }
  static Verdict fail(std::string m) { return {kFail, std::move(m)}; }
};

template <class T>
CampaignResult run_campaign(const char* target, const rc::Gen<T>& gen, const std::function<Verdict(const T&)>& property,
                            const std::function<nlohmann::json(const T&)>& to_json, const CampaignOptions& opt) {
  CampaignResult r;
  rc::Random random(opt.seed);
  for (uint64_t i = 0; i < opt.count; ++i) {
    const int size = opt.count <= 1 ? opt.max_size : int(i * uint64_t(opt.max_size) / (opt.count - 1));
    rc::Shrinkable<T> s = gen(random.split(), size);
    ++r.tried;
    Verdict v = property(s.value());
    if (v.kind == Verdict::kDiscard) ++r.discarded;
    if (v.kind == Verdict::kPass && !v.message.empty()) ++r.classes[v.message];
    if (v.kind != Verdict::kFail) continue;
    // Greedy shrinking: move to the first shrink that still fails, until none does.
    for (bool progressed = true; progressed;) {
      progressed = false;
      auto shrinks = s.shrinks();
      while (auto next = shrinks.next()) {
        Verdict nv = property(next->value());
        if (nv.kind == Verdict::kFail) {
          s = std::move(*next);
          v = std::move(nv);
          ++r.shrink_steps;
          progressed = true;
          break;
        }
      }
    }
    r.failed = true;
    r.message = v.message;
    r.counterexample = {{"target", target}, {"seed", opt.seed}, {"input", to_json(s.value())}, {"failure", v.message}};
    if (!opt.out_dir.empty()) {
      std::filesystem::create_directories(opt.out_dir);
      const auto path = std::filesystem::path(opt.out_dir) /
                        (std::string(target) + "-seed" + std::to_string(opt.seed) + "-" + std::to_string(i) + ".json");
      std::ofstream(path) << r.counterexample.dump(2) << "\n";
      r.written = path.string();
    }
    return r;
  }
  return r;
}

}  // namespace ptxsim::fuzz
