#include "tools/ptxsim/replay_command.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "sim/api.h"
#include "tools/ptxsim/case_file.h"
#include "tools/ptxsim/cli_parse.h"
#include "tools/ptxsim/tensormap_params.h"
#include "tools/trace/compare.h"
#include "tools/trace/trace.h"

namespace ptxsim::cli {

namespace {

namespace fs = std::filesystem;

enum class Verdict { Agree, Mismatch, Error };

struct Row {
  std::string trace_name, case_name, device, expected, got;
  Verdict verdict = Verdict::Agree;
  std::vector<std::string> details;  // one line each; printed under the row
};

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Agree: return "ok";
    case Verdict::Mismatch: return "MISMATCH";
    case Verdict::Error: return "ERROR";
  }
  return "?";
}

// The trace status ptxsim's outcome corresponds to ("error" for bad input: never agrees).
std::string as_trace_status(RunStatus s) {
  switch (s) {
    case RunStatus::Completed: return "completed";
    case RunStatus::Deadlock:
    case RunStatus::Timeout: return "hang";
    case RunStatus::Fault: return "fault";
    case RunStatus::Error: return "error";
  }
  return "error";
}

void mismatch(Row& row, std::string detail) {
  if (row.verdict == Verdict::Agree) row.verdict = Verdict::Mismatch;
  row.details.push_back(std::move(detail));
}

void replay_run(const trace::Trace& t, double max_seconds, Row& row) {
  row.case_name = t.case_path.lexically_normal().generic_string();
  row.expected = trace::status_name(*t.status);
  if (!t.error.empty()) row.expected += " (" + t.error + ")";
  Case c = load_case(t.case_path);
  std::shared_ptr<const Program> program = load_case_program(c);
  PreparedRun prep(c, kernels(*program));
  prep.config.max_seconds = max_seconds;
  std::ostringstream printf_sink;  // kernel printf is not part of what a trace records
  RunResult res = prep.launch(*program, &printf_sink);
  const std::string got = as_trace_status(res.status);
  row.got = res.status == RunStatus::Timeout ? "hang (timeout)" : res.status == RunStatus::Deadlock ? "hang (deadlock)" : got;
  if (got != trace::status_name(*t.status)) {
    std::string why = res.report.empty() ? "" : res.report.substr(0, res.report.find('\n'));
    mismatch(row, "status: the device " + std::string(trace::status_name(*t.status)) + ", ptxsim " + to_string(res.status) +
                      (why.empty() ? "" : ": " + why));
    return;  // outputs of runs that ended differently say nothing more
  }
  if (res.status != RunStatus::Completed) return;
  for (const trace::Output& o : t.outputs) {
    if (std::find(c.outputs.begin(), c.outputs.end(), o.name) == c.outputs.end()) {
      mismatch(row, "output " + o.name + ": recorded by the trace but not an output of the case");
      continue;
    }
    trace::Comparison cmp = trace::compare_output(o, prep.contents(o.name));
    if (!cmp.agree)
      mismatch(row, "output " + o.name + ": " + cmp.detail);
    else if (o.tolerance)
      row.details.push_back("output " + o.name + ": " + cmp.detail);
  }
  for (const std::string& name : c.outputs) {
    bool recorded = std::any_of(t.outputs.begin(), t.outputs.end(), [&](const trace::Output& o) { return o.name == name; });
    if (!recorded) mismatch(row, "output " + name + ": an output of the case that the trace does not record");
  }
}

void replay_tensormaps(const trace::Trace& t, Row& row) {
  size_t agree = 0;
  for (size_t i = 0; i < t.tensormaps.size(); ++i) {
    const trace::TensorMapRecord& m = t.tensormaps[i];
    std::array<uint8_t, 128> blob{};
    model::tmap::EncodeResult e = ptxsim_encode_tensormap(m.params, blob);
    const std::string result = cuda_result_name(uint32_t(e.code));
    const std::string label = "tensormap " + (m.name.empty() ? "[" + std::to_string(i) + "]" : m.name);
    if (result != m.result) {
      mismatch(row, label + ": the device returned " + m.result + ", ptxsim " + result +
                        (e.message.empty() ? "" : " (" + e.message + ")"));
      continue;
    }
    if (m.blob) {
      trace::Comparison cmp = trace::compare_blob(*m.blob, blob);
      if (!cmp.agree) {
        mismatch(row, label + ": " + cmp.detail);
        continue;
      }
    }
    ++agree;
  }
  std::string maps = std::to_string(t.tensormaps.size()) + (t.tensormaps.size() == 1 ? " map" : " maps");
  row.expected += (row.expected.empty() ? "" : " + ") + maps;
  row.got += (row.got.empty() ? "" : " + ") + std::to_string(agree) + " equal";
}

Row replay_one(const fs::path& file, double max_seconds) {
  Row row;
  row.trace_name = file.generic_string();
  row.case_name = "-";
  try {
    trace::Trace t = trace::load_trace(file);
    row.device = t.device.name;
    if (t.status) replay_run(t, max_seconds, row);
    if (row.verdict == Verdict::Agree || t.status) {
      if (!t.tensormaps.empty()) replay_tensormaps(t, row);
    }
  } catch (const CaseError& e) {
    row.verdict = Verdict::Error;
    row.got = "error";
    row.details.push_back(e.what());
  } catch (const PtxError& e) {
    row.verdict = Verdict::Error;
    row.got = "error";
    row.details.push_back(e.diag.format());
  } catch (const std::exception& e) {
    row.verdict = Verdict::Error;
    row.got = "error";
    row.details.push_back(std::string("internal error: ") + e.what());
  }
  return row;
}

void print_table(const std::vector<Row>& rows, bool quiet, std::ostream& out) {
  const char* heads[] = {"trace", "case", "device", "expected", "got", "verdict"};
  size_t w[5] = {5, 4, 6, 8, 3};
  for (const Row& r : rows) {
    if (quiet && r.verdict == Verdict::Agree) continue;
    w[0] = std::max(w[0], r.trace_name.size());
    w[1] = std::max(w[1], r.case_name.size());
    w[2] = std::max(w[2], r.device.size());
    w[3] = std::max(w[3], r.expected.size());
    w[4] = std::max(w[4], r.got.size());
  }
  auto cell = [&](const std::string& s, size_t width) { out << s << std::string(width - s.size() + 2, ' '); };
  for (int i = 0; i < 5; ++i) cell(heads[i], w[i]);
  out << heads[5] << "\n";
  for (const Row& r : rows) {
    if (quiet && r.verdict == Verdict::Agree) continue;
    cell(r.trace_name, w[0]);
    cell(r.case_name, w[1]);
    cell(r.device, w[2]);
    cell(r.expected, w[3]);
    cell(r.got, w[4]);
    out << verdict_name(r.verdict) << "\n";
    for (const std::string& d : r.details) out << "    " << d << "\n";
  }
}

}  // namespace

int replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app;
  configure_verb(app, "replay",
                 "Simulates every traced case (PATH: a *.trace.json file, or a directory searched recursively)\n"
                 "and compares status, outputs and tensor-map blobs with the trace (docs/traces.md).",
                 "Exit codes: 0 everything agrees, 1 bad arguments or an unreadable trace or case, 4 a mismatch.");
  std::vector<std::string> path_args;
  double max_seconds = 60;
  bool quiet = false;
  app.add_option("PATH", path_args, "trace files and directories")->type_name("");
  app.add_option("--max-seconds", max_seconds, "wall-time budget per case (default 60); running out counts as a hang")
      ->type_name("S")->transform(positive_number());
  app.add_flag("--quiet", quiet, "print only disagreements and the summary");
  if (auto code = parse_verb(app, args, out, err)) return *code;
  if (path_args.empty()) return usage_error(err, "replay", "missing PATH (a *.trace.json file or a directory)");
  std::vector<fs::path> paths(path_args.begin(), path_args.end());
  std::vector<fs::path> files;
  try {
    files = trace::find_traces(paths);
  } catch (const std::exception& e) {
    err << "ptxsim replay: " << e.what() << "\n";
    return 1;
  }
  if (files.empty()) {
    out << "ptxsim replay: no *.trace.json files found; nothing to compare\n";
    return 0;
  }
  std::vector<Row> rows;
  for (const fs::path& f : files) rows.push_back(replay_one(f, max_seconds));
  print_table(rows, quiet, out);
  size_t agree = 0, mismatches = 0, errors = 0, synthetic = 0;
  for (const Row& r : rows) {
    agree += r.verdict == Verdict::Agree;
    mismatches += r.verdict == Verdict::Mismatch;
    errors += r.verdict == Verdict::Error;
    synthetic += r.device == trace::kSyntheticDevice;
  }
  out << rows.size() << " trace" << (rows.size() == 1 ? "" : "s") << ": " << agree << " agree, " << mismatches
      << " mismatch" << (mismatches == 1 ? "" : "es") << ", " << errors << " error" << (errors == 1 ? "" : "s");
  if (synthetic) out << " (" << synthetic << " synthetic: ptxsim compared with itself, not with hardware)";
  out << "\n";
  out.flush();
  return errors ? 1 : mismatches ? 4 : 0;
}

}  // namespace ptxsim::cli
