// What the workers running one launch's clusters share (sim/exec/cluster_pool.cpp): which cluster
// comes next, which is the lowest known to have failed, the instruction count of the clusters
// already accounted for, and the launch's start (its wall-time budget). Everything else an engine
// touches while it runs a cluster is its own (docs/design.md "Parallel clusters").
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

namespace ptxsim {

struct LaunchShared {
  uint64_t nclusters = 0;
  // The next cluster to launch, in linear order. Workers take clusters with fetch_add; a
  // clusterlaunchcontrol.try_cancel (only in a launch run on one thread) takes one the same way.
  std::atomic<uint64_t> next{0};
  // The lowest-numbered cluster known to have failed (fault, deadlock, timeout): clusters above it
  // are not started, and one running is abandoned, since a run on one thread would never reach them.
  std::atomic<uint64_t> first_failed{std::numeric_limits<uint64_t>::max()};
  // Thread-instructions of the clusters merged so far, which are all below any cluster still
  // running: a lower bound of what precedes a running cluster, for the launch's instruction budget.
  std::atomic<uint64_t> merged_instructions{0};
  // Every cluster below this one has finished and been merged (spin-wait hang diagnosis: a cluster
  // spinning on memory is hung only once nothing below it can still write that memory).
  std::atomic<uint64_t> finished_below{0};
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  // Takes the next cluster, or returns nclusters when none is left to launch.
  uint64_t take() {
    uint64_t k = next.load(std::memory_order_relaxed);
    while (k < nclusters && !next.compare_exchange_weak(k, k + 1, std::memory_order_relaxed)) {
    }
    return k < nclusters ? k : nclusters;
  }
  // Records that cluster k failed.
  void failed(uint64_t k) {
    uint64_t f = first_failed.load(std::memory_order_relaxed);
    while (k < f && !first_failed.compare_exchange_weak(f, k, std::memory_order_relaxed)) {
    }
  }
  // Whether cluster k's outcome can no longer matter: a lower cluster failed.
  bool moot(uint64_t k) const { return first_failed.load(std::memory_order_relaxed) < k; }
};

}  // namespace ptxsim
