// An optional observer of a launch for timelines (tools/ptxsim/timeline.h writes Chrome trace
// JSON from it). The engine reports through a thread-local pointer that is null unless a caller
// installs a sink with ScopedTimeline around launch(); with none installed each hook is one
// load and a not-taken branch. Times are the engine's simulated clock (warp-instructions issued).
#pragma once
#include <cstdint>
#include <string>

namespace ptxsim {

class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  // `cta` is the CTA's linear index in the grid (x fastest).
  // Warp `warp` of CTA `cta` issued `count` instructions in [begin, end).
  virtual void warp_ran(uint64_t cta, uint32_t warp, uint64_t begin, uint64_t end, uint64_t count) = 0;
  // A warp arrived at CTA barrier `id`; `completes` when this arrival releases the generation.
  virtual void barrier_arrived(uint64_t cta, uint32_t id, uint32_t warp, uint64_t generation,
                               bool completes, uint64_t t) = 0;
  // An mbarrier at shared::cta offset `offset` changed (arrive, tx) or completed a phase.
  virtual void mbarrier_event(uint64_t cta, uint32_t offset, bool phase_completed, uint64_t t) = 0;
  // An asynchronous copy (TMA, bulk) was issued / completed.
  virtual void async_issued(uint64_t seq, const std::string& what, uint32_t bytes, uint64_t t) = 0;
  virtual void async_completed(uint64_t seq, uint64_t t) = 0;
};

// The sink of launches on this thread (null: none).
TimelineSink*& current_timeline();

// Installs `sink` for launches on this thread while in scope.
class ScopedTimeline {
 public:
  explicit ScopedTimeline(TimelineSink* sink) : prev_(current_timeline()) { current_timeline() = sink; }
  ~ScopedTimeline() { current_timeline() = prev_; }
  ScopedTimeline(const ScopedTimeline&) = delete;
  ScopedTimeline& operator=(const ScopedTimeline&) = delete;

 private:
  TimelineSink* prev_;
};

}  // namespace ptxsim
