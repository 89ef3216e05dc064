#include "tools/ptxsim/fuzz_command.h"

#include <cstdlib>
#include <ostream>
#include <random>

#include "tools/fuzz/campaign.h"

namespace ptxsim::cli {
namespace {

const char* const kUsage =
    "usage: ptxsim fuzz TARGET [--seed S] [--count N] [--out DIR]\n"
    "       ptxsim fuzz --list\n"
    "Runs a property-based campaign on TARGET: N generated inputs (default 1000) from seed S\n"
    "(default: random, printed). The first failing input is shrunk to a minimal counterexample,\n"
    "printed and written to DIR (default fuzz-out) as JSON.\n"
    "Exit codes: 0 no counterexample, 4 counterexample found, 1 bad arguments.\n";

bool parse_u64(const std::string& s, uint64_t& v) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19) return false;
  v = std::strtoull(s.c_str(), nullptr, 10);
  return true;
}

}  // namespace

int fuzz_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  fuzz::CampaignOptions opt;
  opt.out_dir = "fuzz-out";
  bool seed_given = false;
  std::string target;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    }
    if (a == "--list") {
      for (const fuzz::FuzzTarget& t : fuzz::fuzz_targets()) out << t.name << "\t" << t.summary << "\n";
      return 0;
    }
    if (a == "--seed" || a == "--count" || a == "--out") {
      if (i + 1 >= args.size()) {
        err << "ptxsim fuzz: " << a << " needs a value\n";
        return 1;
      }
      const std::string& v = args[++i];
      if (a == "--out") {
        opt.out_dir = v;
      } else if (!parse_u64(v, a == "--seed" ? opt.seed : opt.count) || (a == "--count" && opt.count == 0)) {
        err << "ptxsim fuzz: " << a << " needs a " << (a == "--count" ? "positive " : "") << "integer, got '" << v
            << "'\n";
        return 1;
      } else if (a == "--seed") {
        seed_given = true;
      }
    } else if (!a.empty() && a[0] == '-') {
      err << "ptxsim fuzz: unknown option '" << a << "'\n" << kUsage;
      return 1;
    } else if (target.empty()) {
      target = a;
    } else {
      err << "ptxsim fuzz: one target at a time\n";
      return 1;
    }
  }
  if (target.empty()) {
    err << kUsage;
    return 1;
  }
  const fuzz::FuzzTarget* t = fuzz::find_fuzz_target(target);
  if (!t) {
    err << "ptxsim fuzz: unknown target '" << target << "' (targets:";
    for (const fuzz::FuzzTarget& x : fuzz::fuzz_targets()) err << " " << x.name;
    err << ")\n";
    return 1;
  }
  if (!seed_given) opt.seed = std::random_device{}() | (uint64_t(std::random_device{}()) << 32);
  const fuzz::CampaignResult r = t->run(opt);
  out << "fuzz " << target << ": seed " << opt.seed << ", " << r.tried << " inputs";
  if (r.discarded) out << " (" << r.discarded << " not applicable)";
  if (!r.failed) {
    out << ", no counterexample\n";
    for (const auto& [name, n] : r.classes) out << "  " << n << "\t" << name << "\n";
    return 0;
  }
  out << ", COUNTEREXAMPLE after " << r.shrink_steps << " shrink steps: " << r.message << "\n"
      << r.counterexample.dump(2) << "\n";
  if (!r.written.empty()) out << "written to " << r.written << "\n";
  return 4;
}

}  // namespace ptxsim::cli
