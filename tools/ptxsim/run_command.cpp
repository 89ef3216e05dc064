#include "tools/ptxsim/run_command.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <set>
#include <ostream>
#include <span>
#include <sstream>

#include "sim/api.h"
#include "tools/ptxsim/case_file.h"
#include "tools/ptxsim/cli_parse.h"
#include "tools/ptxsim/sha256.h"
#include "tools/ptxsim/tensormap_params.h"
#include "tools/ptxsim/timeline.h"
#include "tools/trace/trace.h"

#ifndef PTXSIM_VERSION
#define PTXSIM_VERSION "0.1.0"
#endif
#define PTXSIM_VERSION_STRING PTXSIM_VERSION

namespace ptxsim::cli {

namespace {

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Completed: return "completed";
    case RunStatus::Deadlock: return "deadlock";
    case RunStatus::Fault: return "fault";
    case RunStatus::Timeout: return "timeout";
    case RunStatus::Error: return "error";
  }
  return "error";
}

const char* severity_name(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::Error: return "error";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Note: return "note";
  }
  return "error";
}

struct OutputRecord {
  std::string name;
  uint64_t bytes = 0;
  std::string sha256;
  std::string file;  // where --out wrote it
};

// Everything a run reports, filled as far as the run got.
struct Report {
  RunStatus status = RunStatus::Error;
  int exit_code = 1;
  std::string kernel;  // "" = not known
  Dim3 grid, block;
  std::vector<OutputRecord> outputs;
  RunStats stats;
  double wall_seconds = 0;
  std::vector<Diagnostic> diagnostics;
  std::string report;       // the engine's report, or the bad-input message
  std::string error_text;   // bad input: what to print on stderr
  // --explore: how many schedules ran, and one line per schedule that differs from the first.
  uint64_t explored = 0;
  struct Differing {
    uint64_t seed;
    RunStatus status;
    std::string differences;
  };
  std::vector<Differing> differing;
};

double rate(const Report& r) {
  return r.wall_seconds > 0 ? double(r.stats.thread_instructions) / r.wall_seconds : 0.0;
}

void print_json(const Report& r, std::ostream& out) {
  using OJson = nlohmann::ordered_json;
  OJson j;
  j["status"] = status_name(r.status);
  j["exit_code"] = r.exit_code;
  j["kernel"] = r.kernel.empty() ? OJson(nullptr) : OJson(r.kernel);
  OJson outputs = OJson::object();
  for (const OutputRecord& o : r.outputs) outputs[o.name] = {{"bytes", o.bytes}, {"sha256", o.sha256}};
  j["outputs"] = outputs;
  j["stats"] = {{"thread_instructions", r.stats.thread_instructions},
                {"warp_instructions", r.stats.warp_instructions},
                {"wall_seconds", r.wall_seconds},
                {"thread_instructions_per_second", rate(r)},
                {"threads", r.stats.threads},
                {"serial_reason", r.stats.serial_reason}};
  OJson diags = OJson::array();
  for (const Diagnostic& d : r.diagnostics)
    diags.push_back({{"file", d.file},
                     {"line", d.loc.line},
                     {"col", d.loc.col},
                     {"severity", severity_name(d.severity)},
                     {"message", d.message}});
  j["diagnostics"] = diags;
  j["report"] = r.report;
  if (r.explored) {
    OJson d = OJson::array();
    for (const auto& x : r.differing)
      d.push_back({{"seed", x.seed}, {"status", status_name(x.status)}, {"differences", x.differences}});
    j["explore"] = {{"schedules", r.explored}, {"differing", d}};
  }
  out << j.dump(2, ' ', false, OJson::error_handler_t::replace) << "\n";
  out.flush();
}

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

void print_human(const Report& r, std::ostream& out, std::ostream& err) {
  if (!r.error_text.empty()) {
    err << r.error_text;
    if (r.error_text.back() != '\n') err << "\n";
    err.flush();
    return;
  }
  out << "status: " << status_name(r.status) << " (exit " << r.exit_code << ")\n";
  out << "kernel: " << r.kernel << "  grid " << dims(r.grid) << "  block " << dims(r.block) << "\n";
  for (const OutputRecord& o : r.outputs) {
    out << "output " << o.name << ": " << o.bytes << " bytes  sha256 " << o.sha256;
    if (!o.file.empty()) out << "  -> " << o.file;
    out << "\n";
  }
  std::ostringstream t;
  t << std::setprecision(4) << r.wall_seconds << " s, " << std::setprecision(3) << rate(r)
    << " thread instructions/s";
  out << "instructions: " << r.stats.thread_instructions << " thread, "
      << r.stats.warp_instructions << " warp in " << t.str() << "\n";
  if (r.explored) {
    out << "explore: " << r.explored << " schedules, " << r.differing.size() << " differ from the first\n";
    for (const auto& x : r.differing)
      out << "  seed " << x.seed << " (replay: --explore 1 --seed " << x.seed << "): " << status_name(x.status) << ": "
          << x.differences << "\n";
  }
  out.flush();
  bool report_printed = false;  // the engine's report is often the cause's formatted diagnostic
  for (const Diagnostic& d : r.diagnostics) {
    std::string s = d.format();
    err << s;
    if (s.empty() || s.back() != '\n') err << "\n";
    report_printed = report_printed || s == r.report;
  }
  if (!r.report.empty() && !report_printed) {
    err << r.report;
    if (r.report.back() != '\n') err << "\n";
  }
  err.flush();
}

void set_bad_input(Report& r, Diagnostic d, std::string text) {
  r.status = RunStatus::Error;
  r.exit_code = exit_code_for(RunStatus::Error);
  r.diagnostics.assign(1, std::move(d));
  r.report = text;
  r.error_text = std::move(text);
}

Diagnostic plain_diag(std::string file, std::string message) {
  Diagnostic d;
  d.file = std::move(file);
  d.message = std::move(message);
  return d;
}

bool write_file(const std::filesystem::path& path, std::span<const uint8_t> bytes, std::string& error) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (f && !bytes.empty()) f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  f.close();
  if (!f) error = "cannot write '" + path.string() + "'";
  return bool(f);
}

// A trace of ptxsim's own run, for replay self-tests: device "synthetic (ptxsim)".
bool write_synthetic_trace(const std::filesystem::path& file, const Case& c, RunStatus status, const PreparedRun& prep,
                           std::string& error) {
  trace::Trace t;
  t.case_ref = trace::relative_ref(c.file, file.has_parent_path() ? file.parent_path() : std::filesystem::path("."));
  t.device.name = std::string(trace::kSyntheticDevice);
  t.captured_by = std::string("ptxsim ") + PTXSIM_VERSION_STRING;
  t.status = status == RunStatus::Completed ? trace::Status::Completed
             : status == RunStatus::Fault   ? trace::Status::Fault
                                            : trace::Status::Hang;
  if (status == RunStatus::Completed)
    for (const std::string& name : c.outputs) {
      std::span<const uint8_t> bytes = prep.contents(name);
      t.outputs.push_back(trace::make_output(name, bytes.data(), bytes.size()));
    }
  // The case's tensor maps as ptxsim encoded them, with the addresses of this run.
  JsonReader reader(c.file);
  auto add_maps = [&](auto& self, const ParamSpec& spec) -> void {
    if (spec.kind == "tensormap") {
      trace::TensorMapRecord rec;
      rec.name = spec.json_path;
      rec.params = parse_tensormap_params(reader, spec.raw.at("tensormap"), JsonReader::key(spec.json_path, "tensormap"),
                                          /*address_key=*/false);
      rec.params.global_address = prep.address_of(spec.buffer) + spec.buffer_offset;
      std::array<uint8_t, 128> blob{};
      auto e = ptxsim_encode_tensormap(rec.params, blob);
      rec.result = cuda_result_name(uint32_t(e.code));
      if (e.ok()) rec.blob = blob;
      t.tensormaps.push_back(std::move(rec));
    }
    for (const ParamSpec& f : spec.fields) self(self, f);
  };
  for (const ParamSpec& p : c.params) add_maps(add_maps, p);
  try {
    trace::write_trace(file, t);
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
  return true;
}

// --explore: schedules seed+1 .. seed+N-1 of the same case, each on fresh buffers; records every one
// whose status, outputs or reports (diagnostics) differ from the first run's (already in r).
void explore(const RunOptions& o, const Case& c, const Program& program, const std::vector<KernelInfo>& kernel_list,
             const LaunchConfig& first, Report& r) {
  auto messages = [](const std::vector<Diagnostic>& ds) {
    std::multiset<std::string> m;
    for (const Diagnostic& d : ds) m.insert(std::string(severity_name(d.severity)) + ": " + d.message);
    return m;
  };
  const std::multiset<std::string> base = messages(r.diagnostics);
  r.explored = o.explore;
  for (uint64_t i = 1; i < o.explore; ++i) {
    PreparedRun p(c, kernel_list);
    p.config = first;
    p.config.schedule_seed = first.schedule_seed + i;
    std::ostringstream printf_sink;
    RunResult x = p.launch(program, &printf_sink);
    std::string diff;
    auto add = [&](const std::string& s) { diff += (diff.empty() ? "" : "; ") + s; };
    if (x.status != r.status) add(std::string("status ") + status_name(x.status) + " (first: " + status_name(r.status) + ")");
    for (const OutputRecord& rec : r.outputs) {
      std::span<const uint8_t> bytes = p.contents(rec.name);
      const std::string sha = sha256_hex(bytes.data(), bytes.size());
      if (sha != rec.sha256) add("output '" + rec.name + "' sha256 " + sha + " (first: " + rec.sha256 + ")");
    }
    const std::multiset<std::string> m = messages(x.diagnostics);
    for (const std::string& s : m)
      if (!base.count(s)) add("new report: " + s);
    for (const std::string& s : base)
      if (!m.count(s)) add("missing report: " + s);
    if (!diff.empty()) r.differing.push_back({p.config.schedule_seed, x.status, diff});
  }
}

void execute(const RunOptions& o, Report& r, std::ostream& out, std::ostream& err) {
  try {
    Case c = load_case(o.case_file);
    r.grid = c.grid;
    r.block = c.block;
    if (o.out_dir) {
      std::error_code ec;
      std::filesystem::create_directories(*o.out_dir, ec);
      if (ec || !std::filesystem::is_directory(*o.out_dir)) {
        std::string msg = "--out: cannot create directory '" + o.out_dir->string() + "'" +
                          (ec ? ": " + ec.message() : "");
        set_bad_input(r, plain_diag("", msg), "ptxsim run: " + msg);
        return;
      }
    }
    std::shared_ptr<const Program> program = load_case_program(c);
    std::vector<KernelInfo> kernel_list = kernels(*program);
    r.kernel = resolve_kernel(c, kernel_list).name;  // known even if the params are wrong
    PreparedRun prep(c, kernel_list);
    if (o.max_instructions) prep.config.max_instructions = *o.max_instructions;
    if (o.max_seconds) prep.config.max_seconds = *o.max_seconds;
    if (o.seed) prep.config.schedule_seed = *o.seed;
    if (o.threads) prep.config.threads = uint32_t(*o.threads);
    prep.config.racecheck = o.racecheck || o.racecheck_global;
    prep.config.racecheck_global = o.racecheck_global;
    prep.config.vary_warps = o.explore > 0;

    auto t0 = std::chrono::steady_clock::now();
    std::optional<ChromeTimeline> timeline;
    if (o.timeline_file) timeline.emplace(c.grid);
    RunResult res;
    {
      ScopedTimeline scope(timeline ? &*timeline : nullptr);
      res = prep.launch(*program, o.json ? &err : &out);
    }
    if (timeline) {
      timeline->finish(res);
      timeline->write(*o.timeline_file);
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.status = res.status;
    r.exit_code = exit_code_for(res.status);
    r.stats = res.stats;
    r.diagnostics = std::move(res.diagnostics);
    r.report = std::move(res.report);

    for (const std::string& name : c.outputs) {
      std::span<const uint8_t> bytes = prep.contents(name);
      OutputRecord rec{name, bytes.size(), sha256_hex(bytes.data(), bytes.size()), ""};
      if (o.out_dir) {
        std::filesystem::path p = *o.out_dir / (name + ".bin");
        std::string error;
        if (write_file(p, bytes, error)) {
          rec.file = p.string();
        } else {
          // The run happened, but its results could not be delivered: report it as an error.
          r.status = RunStatus::Error;
          r.exit_code = exit_code_for(RunStatus::Error);
          r.diagnostics.insert(r.diagnostics.begin(), plain_diag(p.string(), error));
          r.report = "ptxsim run: " + error + (r.report.empty() ? "" : "\n" + r.report);
        }
      }
      r.outputs.push_back(std::move(rec));
    }
    if (o.explore > 1 && r.status != RunStatus::Error) explore(o, c, *program, kernel_list, prep.config, r);
    if (o.trace_file && r.status != RunStatus::Error) {
      std::string error;
      if (!write_synthetic_trace(*o.trace_file, c, res.status, prep, error)) {
        r.status = RunStatus::Error;
        r.exit_code = exit_code_for(RunStatus::Error);
        r.diagnostics.insert(r.diagnostics.begin(), plain_diag(o.trace_file->string(), error));
        r.report = "ptxsim run: " + error + (r.report.empty() ? "" : "\n" + r.report);
      }
    }
  } catch (const PtxError& e) {
    set_bad_input(r, e.diag, e.diag.format());
  } catch (const CaseError& e) {
    set_bad_input(r, plain_diag(e.file, e.json_path.empty() ? e.message : e.json_path + ": " + e.message),
                  e.what());
  } catch (const std::exception& e) {
    std::string msg = std::string("internal error: ") + e.what();
    set_bad_input(r, plain_diag("", msg), "ptxsim run: " + msg);
  }
}

// The command line of `ptxsim run`, bound to `o` and the locals its optional values go through.
struct RunArgs {
  std::string case_file, out_dir, trace_file, timeline_file;
  uint64_t max_instructions = 0, seed = 0, threads = 0;
  double max_seconds = 0;
};

void add_run_options(CLI::App& app, RunArgs& a, RunOptions& o) {
  configure_verb(app, "run", "Runs the kernel launch described by CASE.json.",
                 "Exit codes: 0 completed, 1 bad input (PTX, case file, arguments), 2 deadlock or timeout,\n"
                 "3 kernel fault (trap, illegal address, device assertion).");
  app.add_option("CASE.json", a.case_file, "the case file (docs/case-files.md)")->type_name("");
  app.add_option("--out", a.out_dir, "write each output buffer to DIR/NAME.bin (DIR is created)")
      ->type_name("DIR")->transform(non_empty("a directory"));
  app.add_flag("--json", o.json, "print one JSON object on stdout (kernel printf goes to stderr)");
  app.add_option("--max-instructions", a.max_instructions, "stop with a timeout after N thread-instructions")
      ->type_name("N")->transform(positive_integer());
  app.add_option("--max-seconds", a.max_seconds, "stop with a timeout after S seconds of wall time")
      ->type_name("S")->transform(positive_number());
  app.add_option("--seed", a.seed, "schedule seed: perturbs the deterministic warp interleaving")
      ->type_name("S")->transform(unsigned_integer());
  app.add_option("--threads", a.threads, "host threads running clusters in parallel (default: every core)")
      ->type_name("N")->transform(thread_count());
  app.add_flag("--racecheck", o.racecheck, "report data races on shared and Tensor Memory (between warps and between lanes of a warp) as warnings (docs/racecheck.md)");
  app.add_flag("--racecheck-global", o.racecheck_global,
               "--racecheck, and global memory too (between the threads of one cluster)");
  app.add_option("--explore", o.explore,
                 "run N schedules (seeds S..S+N-1, warp order and async completion order drawn from\n"
                 "each) and report those whose outputs, status or reports differ from the first;\n"
                 "--explore 1 --seed K replays one")
      ->type_name("N")->transform(positive_integer());
  app.add_option("--timeline", a.timeline_file, "write a Chrome trace-event timeline of the run (docs/timeline.md)")
      ->type_name("FILE")->transform(non_empty("a file name"));
  app.add_option("--trace", a.trace_file, "write a synthetic trace of this run (replay self-tests, docs/traces.md)")
      ->type_name("FILE")->transform(non_empty("a file name"));
}

}  // namespace

std::string run_help() {
  CLI::App app;
  RunArgs a;
  RunOptions o;
  add_run_options(app, a, o);
  return app.help();
}

RunOptions parse_run_args(const std::vector<std::string>& args) {
  CLI::App app;
  RunArgs a;
  RunOptions o;
  add_run_options(app, a, o);
  try {
    parse_or_throw(app, args);
  } catch (const CLI::CallForHelp&) {
    o.help = true;
    return o;
  } catch (const CLI::ParseError& e) {
    throw UsageError(usage_message(e));
  }
  if (a.case_file.empty()) throw UsageError("missing CASE.json");
  o.case_file = a.case_file;
  if (app.count("--out")) o.out_dir = a.out_dir;
  if (app.count("--timeline")) o.timeline_file = a.timeline_file;
  if (app.count("--trace")) o.trace_file = a.trace_file;
  if (app.count("--max-instructions")) o.max_instructions = a.max_instructions;
  if (app.count("--max-seconds")) o.max_seconds = a.max_seconds;
  if (app.count("--seed")) o.seed = a.seed;
  if (app.count("--threads")) o.threads = a.threads;
  return o;
}

int run_case(const RunOptions& options, std::ostream& out, std::ostream& err) {
  Report r;
  execute(options, r, out, err);
  if (options.json)
    print_json(r, out);
  else
    print_human(r, out, err);
  return r.exit_code;
}

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  RunOptions options;
  try {
    options = parse_run_args(args);
  } catch (const UsageError& e) {
    bool json = false;
    for (const std::string& a : args) json = json || a == "--json";
    std::string msg = std::string("ptxsim run: ") + e.what();
    if (json) {
      Report r;
      set_bad_input(r, plain_diag("", e.what()), msg);
      print_json(r, out);
    } else {
      usage_error(err, "run", e.what());
    }
    return exit_code_for(RunStatus::Error);
  }
  if (options.help) {
    out << run_help();
    return 0;
  }
  return run_case(options, out, err);
}

}  // namespace ptxsim::cli
