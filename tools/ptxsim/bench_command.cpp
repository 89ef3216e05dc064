#include "tools/ptxsim/bench_command.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <regex>
#include <sstream>
#include <thread>

#include "bench/kernels/embedded_ptx.h"
#include "sim/api.h"
#include "tools/ptxsim/bench_suite.h"
#include "tools/ptxsim/cli_parse.h"

#ifndef PTXSIM_VERSION
#define PTXSIM_VERSION "0.1.0"
#endif

namespace ptxsim::cli {
namespace {

struct Options {
  std::string filter;
  bool filter_given = false;
  bool json = false, quick = false, list = false;
  uint64_t repeat = 1;
  uint32_t threads = 0;  // LaunchConfig::threads (0: every core)
};

// The threads a launch may use (a launch with fewer clusters, or whose clusters must run in order,
// uses fewer: Result::threads).
uint32_t threads_asked(const Options& o) { return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency()); }

struct Machine {
  unsigned nproc = 0;
  std::string cpu_model = "unknown";
  std::array<double, 3> loadavg{-1, -1, -1};
};

Machine machine_info() {
  Machine m;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    m.nproc = unsigned(CPU_COUNT(&set));  // what nproc(1) prints
  else
    m.nproc = std::thread::hardware_concurrency();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    // x86: "model name"; some other architectures only have "Model" or "cpu model".
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0 || line.rfind("cpu model", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      if (!v.empty()) {
        m.cpu_model = v;
        break;
      }
    }
  }
  double l[3];
  if (getloadavg(l, 3) == 3)
    for (int i = 0; i < 3; ++i) m.loadavg[size_t(i)] = std::round(l[i] * 100) / 100;
  return m;
}

struct Result {
  const bench::Benchmark* bench = nullptr;
  std::string problem;
  size_t launches = 0;
  bool passed = false;
  std::string error;  // why it failed
  uint64_t thread_instr = 0, warp_instr = 0;  // of the fastest repetition
  double seconds = 0;                         // the fastest repetition's launches
  double cpu_seconds = 0;                     // their CPU time, every thread of the process
  uint64_t multiply_adds = 0;                 // of the launches, for a matrix product (Case)
  std::vector<double> seconds_each;
  double load_seconds = 0;
  uint32_t threads = 1;  // the most host threads a launch ran on (RunStats::threads)
  double rate() const { return seconds > 0 ? double(thread_instr) / seconds : 0.0; }
  double mac_rate() const { return seconds > 0 ? double(multiply_adds) / seconds : 0.0; }
};

// CPU time of the whole process (user + system, every thread) so far.
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Result run_one(const bench::Benchmark& b, const Options& o) {
  Result r;
  r.bench = &b;
  const ::ptxsim::bench::EmbeddedPtx* ptx = ::ptxsim::bench::find_embedded_ptx(b.ptx);
  if (!ptx) {
    r.error = "its PTX (" + b.ptx + ") is not in this binary";
    return r;
  }
  std::shared_ptr<const Program> program;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    program = load_program(std::string(ptx->text, ptx->size), b.ptx + ".ptx");
    r.load_seconds = since(t0);
  } catch (const PtxError& e) {
    r.error = "loading " + b.ptx + ".ptx failed: " + e.diag.format();
    return r;
  }
  try {
    std::unique_ptr<bench::Case> c = b.make(o.quick);
    r.problem = c->problem();
    r.multiply_adds = c->multiply_adds();
    for (uint64_t rep = 0; rep < o.repeat; ++rep) {
      model::GlobalMemory memory;
      const std::vector<bench::Launch> launches = c->setup(*program, memory);
      r.launches = launches.size();
      uint64_t ti = 0, wi = 0;
      double seconds = 0, cpu = 0;
      for (bench::Launch l : launches) {
        l.config.threads = o.threads;
        const auto t0 = std::chrono::steady_clock::now();
        const double cpu0 = process_cpu_seconds();
        const RunResult run = launch(*program, l.kernel, l.config, l.params, memory);
        r.threads = std::max(r.threads, run.stats.threads);
        seconds += since(t0);
        cpu += process_cpu_seconds() - cpu0;
        ti += run.stats.thread_instructions;
        wi += run.stats.warp_instructions;
        if (run.status != RunStatus::Completed) {
          r.error = "launch of " + l.kernel + " ended with status " + to_string(run.status) + ": " + run.report;
          if (!run.diagnostics.empty()) r.error += "\n" + run.diagnostics.front().format();
          return r;
        }
        if (!run.diagnostics.empty()) {
          r.error = "launch of " + l.kernel + " reported " + run.diagnostics.front().format();
          return r;
        }
      }
      r.seconds_each.push_back(seconds);
      if (rep == 0 || seconds < r.seconds) r.seconds = seconds, r.cpu_seconds = cpu, r.thread_instr = ti, r.warp_instr = wi;
      if (std::string mismatch = c->check(memory); !mismatch.empty()) {
        r.error = "CHECK FAILED (result differs from the CPU reference): " + mismatch;
        return r;
      }
    }
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  r.passed = true;
  return r;
}

std::string fixed(double v, int prec) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  return os.str();
}

std::string sci(double v) {
  std::ostringstream os;
  os << std::scientific << std::setprecision(3) << v;
  return os.str();
}

std::string pad(std::string s, size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

void print_row(std::ostream& out, const Result& r) {
  out << pad(r.bench->name, 18) << pad(r.problem, 34) << pad(r.passed ? "ok" : "FAILED", 8)
      << pad(std::to_string(r.thread_instr), 14, true) << pad(fixed(r.seconds, 3), 10, true)
      << pad(fixed(r.cpu_seconds, 3), 10, true) << pad(sci(r.rate()), 12, true)
      << pad(r.multiply_adds ? sci(r.mac_rate()) : "", 12, true) << "\n";
  out.flush();
}

void print_json(std::ostream& out, const Options& o, const Machine& m, const std::vector<Result>& results) {
  using OJson = nlohmann::ordered_json;
  OJson j;
  bool all = true;
  uint64_t ti = 0;
  double secs = 0;
  OJson ks = OJson::array();
  for (const Result& r : results) {
    all = all && r.passed;
    ti += r.thread_instr;
    secs += r.seconds;
    OJson k;
    k["name"] = r.bench->name;
    k["ptx"] = r.bench->ptx;
    k["problem"] = r.problem;
    k["check"] = r.passed ? "passed" : "failed";
    if (!r.passed) k["error"] = r.error;
    k["launches"] = r.launches;
    k["thread_instr"] = r.thread_instr;
    k["warp_instr"] = r.warp_instr;
    k["seconds"] = r.seconds;
    k["cpu_seconds"] = r.cpu_seconds;
    k["rate"] = r.rate();
    if (r.multiply_adds) {
      k["multiply_adds"] = r.multiply_adds;
      k["multiply_add_rate"] = r.mac_rate();
    }
    k["seconds_each"] = r.seconds_each;
    k["load_seconds"] = r.load_seconds;
    k["threads"] = r.threads;
    ks.push_back(k);
  }
  j["ptxsim_version"] = PTXSIM_VERSION;
  j["status"] = all ? "passed" : "failed";
  j["quick"] = o.quick;
  j["repeat"] = o.repeat;
  j["threads"] = threads_asked(o);
  j["filter"] = o.filter_given ? OJson(o.filter) : OJson(nullptr);
  j["machine"] = {{"nproc", m.nproc},
                  {"cpu_model", m.cpu_model},
                  {"loadavg_start", m.loadavg[0] < 0 ? OJson(nullptr) : OJson(m.loadavg)}};
  j["kernels"] = ks;
  double cpu = 0;
  for (const Result& r : results) cpu += r.cpu_seconds;
  j["total"] = {{"thread_instr", ti}, {"seconds", secs}, {"cpu_seconds", cpu}, {"rate", secs > 0 ? double(ti) / secs : 0.0}};
  out << j.dump(2, ' ', false, OJson::error_handler_t::replace) << "\n";
  out.flush();
}

}  // namespace

int bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app;
  configure_verb(app, "bench",
                 "Runs the benchmark suite: CUDA kernels compiled to PTX when ptxsim was built (embedded in\n"
                 "this binary), on inputs generated in-process. Every result is checked against a CPU reference;\n"
                 "a mismatch, a launch that does not complete or a diagnostic fails the run. Per kernel it\n"
                 "reports the simulated thread-instructions, the wall time of the kernel's launches (not input\n"
                 "generation, upload or the check) and their CPU time, thread-instructions per second and, for\n"
                 "the matrix products, multiply-adds per second (both per wall second).",
                 "Exit codes: 0 every kernel matched its reference, 1 a mismatch or failed run, bad arguments,\n"
                 "or no kernel selected.");
  Options o;
  app.add_option("--filter", o.filter, "run the kernels whose name REGEX matches (ECMAScript, partial match)")
      ->type_name("REGEX");
  app.add_flag("--json", o.json, "print one JSON object on stdout (per kernel and machine information)");
  app.add_option("--repeat", o.repeat,
                 "run each kernel N times (inputs uploaded afresh, result checked each time); report the\n"
                 "fastest (default 1)")
      ->type_name("N")->transform(positive_integer());
  uint64_t threads = 0;
  app.add_option("--threads", threads, "host threads running a launch's clusters (default: every core)")
      ->type_name("N")->transform(thread_count());
  app.add_flag("--quick", o.quick, "small problem sizes (for tests: the timings then mean little)");
  app.add_flag("--list", o.list, "list the kernels and exit");
  if (auto code = parse_verb(app, args, out, err)) return *code;
  o.filter_given = app.count("--filter") > 0;
  o.threads = uint32_t(threads);

  std::regex re;
  try {
    re = std::regex(o.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    err << "ptxsim bench: --filter: bad regular expression '" << o.filter << "': " << e.what() << "\n";
    return 1;
  }
  std::vector<const bench::Benchmark*> selected;
  for (const bench::Benchmark& b : bench::benchmarks())
    if (!o.filter_given || std::regex_search(b.name, re)) selected.push_back(&b);
  if (o.list) {
    for (const bench::Benchmark* b : selected) out << pad(b->name, 18) << b->summary << "\n";
    return 0;
  }
  if (selected.empty()) {
    err << "ptxsim bench: no kernel matches '" << o.filter << "' (see ptxsim bench --list)\n";
    return 1;
  }
  if (::ptxsim::bench::embedded_ptx().empty()) {
    err << "ptxsim bench: this ptxsim was built without the benchmark kernels (no nvcc when it was "
           "configured, or -DPTXSIM_USE_NVCC=OFF); rebuild with the CUDA toolkit installed\n";
    return 1;
  }

  const Machine m = machine_info();
  if (!o.json) {
    out << "ptxsim bench: " << selected.size() << " kernel" << (selected.size() == 1 ? "" : "s") << ", repeat "
        << o.repeat << (o.repeat > 1 ? " (fastest shown)" : "") << ", " << threads_asked(o) << " host thread" << (threads_asked(o) == 1 ? "" : "s") << (o.quick ? ", quick sizes" : "")
        << "; " << m.nproc << " CPUs (" << m.cpu_model << ")";
    if (m.loadavg[0] >= 0)
      out << ", load average " << fixed(m.loadavg[0], 2) << " " << fixed(m.loadavg[1], 2) << " "
          << fixed(m.loadavg[2], 2);
    out << "\n"
        << pad("kernel", 18) << pad("problem", 34) << pad("check", 8) << pad("thread-instr", 14, true)
        << pad("seconds", 10, true) << pad("cpu s", 10, true) << pad("instr/s", 12, true)
        << pad("mul-add/s", 12, true) << "\n";
    out.flush();
  }
  std::vector<Result> results;
  bool all = true;
  for (const bench::Benchmark* b : selected) {
    results.push_back(run_one(*b, o));
    const Result& r = results.back();
    if (!r.passed) {
      all = false;
      err << "ptxsim bench: " << b->name << ": " << r.error << "\n";
      err.flush();
    }
    if (!o.json) print_row(out, r);
  }
  if (o.json) {
    print_json(out, o, m, results);
  } else {
    uint64_t ti = 0;
    double secs = 0, cpu = 0;
    for (const Result& r : results) ti += r.thread_instr, secs += r.seconds, cpu += r.cpu_seconds;
    out << pad("total", 60) << pad(std::to_string(ti), 14, true) << pad(fixed(secs, 3), 10, true)
        << pad(fixed(cpu, 3), 10, true) << pad(sci(secs > 0 ? double(ti) / secs : 0.0), 12, true) << "\n";
    if (!all) out << "FAILED: a result differs from its CPU reference or a launch failed (see above)\n";
  }
  return all ? 0 : 1;
}

}  // namespace ptxsim::cli
