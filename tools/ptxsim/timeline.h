// `ptxsim run --timeline FILE`: a Chrome trace-event JSON timeline of the simulated run
// (docs/timeline.md), collected through the engine's TimelineSink.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/api.h"
#include "sim/exec/timeline.h"
#include "tools/ptxsim/case_file.h"

namespace ptxsim::cli {

class ChromeTimeline : public TimelineSink {
 public:
  // Slices beyond this many are dropped (the file says so), keeping files openable.
  static constexpr size_t kMaxEvents = 200000;

  explicit ChromeTimeline(Dim3 grid) : grid_(grid) {}
  void warp_ran(uint64_t cta, uint32_t warp, uint64_t begin, uint64_t end, uint64_t count) override;
  void barrier_arrived(uint64_t cta, uint32_t id, uint32_t warp, uint64_t generation, bool completes,
                       uint64_t t) override;
  void mbarrier_event(uint64_t cta, uint32_t offset, bool phase_completed, uint64_t t) override;
  void async_issued(uint64_t seq, const std::string& what, uint32_t bytes, uint64_t t) override;
  void async_completed(uint64_t seq, uint64_t t) override;

  // Adds the end of the run: the status, and for a deadlock the report at the final time.
  void finish(const RunResult& result);
  Json to_json() const;
  // Throws std::runtime_error when the file cannot be written.
  void write(const std::filesystem::path& file) const;

 private:
  void push(Json e);
  struct Open {
    std::string what;
    uint32_t bytes = 0;
    uint64_t t = 0;
    uint32_t lane = 0;
  };
  Dim3 grid_;
  std::vector<Json> events_;
  std::map<uint64_t, bool> ctas_;  // CTAs seen (named in metadata)
  std::map<uint64_t, Open> in_flight_;
  std::vector<uint64_t> lane_busy_until_;  // async lanes
  uint64_t last_t_ = 0, dropped_ = 0;
};

}  // namespace ptxsim::cli
