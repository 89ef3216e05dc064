#include "tools/ptxsim/fuzz_command.h"

#include <cstdlib>
#include <ostream>
#include <random>

#include "tools/fuzz/campaign.h"
#include "tools/ptxsim/cli_parse.h"

namespace ptxsim::cli {
namespace {

}  // namespace

int fuzz_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app;
  configure_verb(app, "fuzz",
                 "Runs a property-based campaign on TARGET: N generated inputs from seed S. The first\n"
                 "failing input is shrunk to a minimal counterexample, printed and written to DIR as JSON.",
                 "Exit codes: 0 no counterexample, 4 counterexample found, 1 bad arguments.");
  fuzz::CampaignOptions opt;
  opt.out_dir = "fuzz-out";
  opt.count = 1000;
  std::string target;
  bool list = false;
  app.add_option("TARGET", target, "the campaign (see --list)")->type_name("");
  app.add_option("--seed", opt.seed, "the seed (default: random, printed)")->type_name("S")->transform(unsigned_integer());
  app.add_option("--count", opt.count, "how many inputs to generate (default 1000)")
      ->type_name("N")->transform(positive_integer());
  app.add_option("--out", opt.out_dir, "where the counterexample goes (default fuzz-out)")->type_name("DIR");
  app.add_flag("--list", list, "list the targets and exit");
  if (auto code = parse_verb(app, args, out, err)) return *code;
  if (list) {
    for (const fuzz::FuzzTarget& t : fuzz::fuzz_targets()) out << t.name << "\t" << t.summary << "\n";
    return 0;
  }
  if (target.empty()) return usage_error(err, "fuzz", "missing TARGET");
  const bool seed_given = app.count("--seed") > 0;
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
