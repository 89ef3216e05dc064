#include "sim/exec/cluster_pool.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "sim/exec/engine.h"
#include "sim/exec/timeline.h"

namespace ptxsim {

namespace {

// Folds cluster outcomes into the launch's result in cluster order, whatever order they finish in:
// printf output is written, diagnostics appended and instructions counted cluster by cluster, and
// the first cluster that failed (or took the launch past its instruction budget) decides the
// status; nothing of the clusters above it is kept, as a run on one thread would never have run them.
class Merger {
 public:
  Merger(const LaunchConfig& cfg, std::ostream& out, LaunchShared& shared, bool in_order)
      : cfg_(cfg), out_(out), shared_(shared), in_order_(in_order) {}

  void add(ClusterOutcome o) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.emplace(o.cluster, std::move(o));
    // On one thread outcomes come in order already (with gaps where try_cancel took a cluster).
    while (!pending_.empty() && (in_order_ || pending_.begin()->first == next_)) {
      auto node = pending_.extract(pending_.begin());
      next_ = node.key() + 1;
      merge(node.mapped());
      shared_.finished_below.store(next_, std::memory_order_release);
    }
  }

  RunResult result() {
    std::lock_guard<std::mutex> lock(mu_);
    res_.stats.thread_instructions = thread_instr_;
    res_.stats.warp_instructions = warp_instr_;
    res_.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - shared_.start).count();
    return res_;
  }

 private:
  void merge(ClusterOutcome& o) {
    if (decided_) return;
    if (!o.printed.empty()) {
      out_ << o.printed;
      out_.flush();
    }
    thread_instr_ += o.thread_instructions;
    warp_instr_ += o.warp_instructions;
    shared_.merged_instructions.store(thread_instr_, std::memory_order_relaxed);
    size_t first = 0;
    if (o.status == RunStatus::Fault || o.status == RunStatus::Deadlock) {
      // The failure's own diagnostic leads the launch's list, as the cause.
      if (!o.diagnostics.empty()) res_.diagnostics.insert(res_.diagnostics.begin(), o.diagnostics[0]);
      first = 1;
    }
    for (size_t i = first; i < o.diagnostics.size(); ++i)
      if (!repeats_warning(res_.diagnostics, o.diagnostics[i])) res_.diagnostics.push_back(std::move(o.diagnostics[i]));
    if (o.status == RunStatus::Completed && thread_instr_ > cfg_.max_instructions) {
      o.status = RunStatus::Timeout;
      o.report = budget_report(cfg_.max_instructions);
    }
    if (o.status != RunStatus::Completed) {
      decided_ = true;
      res_.status = o.status;
      res_.report = o.report;
      shared_.failed(o.cluster);
    }
  }

  const LaunchConfig& cfg_;
  std::ostream& out_;
  LaunchShared& shared_;
  const bool in_order_;
  std::mutex mu_;
  std::map<uint64_t, ClusterOutcome> pending_;  // finished, waiting for a lower cluster
  uint64_t next_ = 0;                           // the next cluster to merge
  bool decided_ = false;
  uint64_t thread_instr_ = 0, warp_instr_ = 0;
  RunResult res_;
};

// The helper threads of one launch: `work` (which refers to the launch) runs only between a
// helper's check-in while the launch is open and its check-out, and the launch stays until every
// helper that checked in has checked out.
struct Crew {
  std::mutex mu;
  std::condition_variable idle;
  bool closed = false;
  unsigned active = 0;
  std::function<void()> work;
};

// Why the launch runs on one thread whatever was asked, or "".
std::string serial_reason(const Function& kernel, const LaunchConfig& cfg) {
  if (cfg.co_resident) return "a cooperative launch (all its clusters are resident together)";
  // The timeline's sink is the launching thread's and records one clock.
  if (current_timeline()) return "a timeline is being recorded";
  // The race detector's clocks and --explore's warp orders are one engine's.
  if (cfg.racecheck) return "--racecheck";
  if (cfg.vary_warps) return "--explore (schedules drawn from the seed)";
  return kernel.order_dependence;
}

}  // namespace

RunResult run_clusters(const Program& prog, const Function& kernel, const LaunchConfig& cfg,
                       const std::vector<uint8_t>& params, model::GlobalMemory& mem, std::ostream& out) {
  LaunchShared shared;
  shared.nclusters = cfg.grid.count() / cfg.cluster.count();
  const std::string why = serial_reason(kernel, cfg);
  const uint64_t asked = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
  const unsigned threads = why.empty() ? unsigned(std::min<uint64_t>(asked, shared.nclusters)) : 1;
  if (cfg.co_resident) {
    Engine e(prog, kernel, cfg, params, mem, out, shared, false);
    RunResult r = e.run_co_resident();
    r.stats.threads = 1;
    r.stats.serial_reason = why;
    return r;
  }
  Merger merger(cfg, out, shared, threads == 1);
  std::mutex error_mu;
  std::exception_ptr error;  // an exception other than a kernel's failure, rethrown here
  auto work = [&](bool buffer_printf) {
    try {
      Engine e(prog, kernel, cfg, params, mem, out, shared, buffer_printf);
      for (uint64_t k = shared.take(); k < shared.nclusters && !shared.moot(k); k = shared.take()) {
        ClusterOutcome o = e.run_cluster(k);
        if (o.status != RunStatus::Completed && !o.abandoned) shared.failed(k);
        merger.add(std::move(o));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      shared.failed(0);  // stop the others
    }
  };
  if (threads == 1) {
    work(false);  // printf goes straight out: one thread emits it in cluster order anyway
  } else {
    // The helpers are detached: one that is scheduled only after the launching thread has taken
    // every cluster finds the launch closed and leaves without touching it, so a launch waits for
    // the clusters taken, never for a thread to start (which on a loaded machine takes a time slice).
    auto crew = std::make_shared<Crew>();
    crew->work = [&work] { work(true); };
    for (unsigned t = 1; t < threads; ++t)
      std::thread([crew] {
        {
          std::lock_guard<std::mutex> lock(crew->mu);
          if (crew->closed) return;
          ++crew->active;
        }
        crew->work();
        std::lock_guard<std::mutex> lock(crew->mu);
        --crew->active;
        crew->idle.notify_all();
      }).detach();
    work(true);
    std::unique_lock<std::mutex> lock(crew->mu);
    crew->closed = true;
    crew->idle.wait(lock, [&] { return crew->active == 0; });
  }
  if (error) std::rethrow_exception(error);
  RunResult r = merger.result();
  r.stats.threads = threads;
  r.stats.serial_reason = why;
  return r;
}

}  // namespace ptxsim
