#include "tools/ptxsim/timeline.h"

#include <fstream>
#include <stdexcept>

namespace ptxsim::cli {

namespace {
// Track layout (docs/timeline.md): one process per CTA; in it one thread per warp (tid = warp),
// CTA barriers at 1000 + id, mbarriers at 2000. Asynchronous copies in their own process.
constexpr uint64_t kAsyncPid = 1'000'000'000;
constexpr uint32_t kBarrierTid = 1000, kMbarrierTid = 2000;
}  // namespace

void ChromeTimeline::push(Json e) {
  if (events_.size() >= kMaxEvents) {
    ++dropped_;
    return;
  }
  events_.push_back(std::move(e));
}

void ChromeTimeline::warp_ran(uint64_t cta, uint32_t warp, uint64_t begin, uint64_t end, uint64_t count) {
  ctas_[cta] = true;
  last_t_ = std::max(last_t_, end);
  push({{"name", "warp " + std::to_string(warp)}, {"cat", "warp"}, {"ph", "X"}, {"pid", cta}, {"tid", warp},
        {"ts", begin}, {"dur", end > begin ? end - begin : 1}, {"args", {{"instructions", count}}}});
}

void ChromeTimeline::barrier_arrived(uint64_t cta, uint32_t id, uint32_t warp, uint64_t generation, bool completes,
                                     uint64_t t) {
  ctas_[cta] = true;
  push({{"name", completes ? "bar " + std::to_string(id) + " released" : "bar " + std::to_string(id) + " arrive"},
        {"cat", "barrier"}, {"ph", "i"}, {"s", "t"}, {"pid", cta}, {"tid", kBarrierTid + id}, {"ts", t},
        {"args", {{"warp", warp}, {"generation", generation}}}});
}

void ChromeTimeline::mbarrier_event(uint64_t cta, uint32_t offset, bool phase_completed, uint64_t t) {
  ctas_[cta] = true;
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%x", offset);
  push({{"name", std::string(phase_completed ? "phase complete " : "update ") + addr}, {"cat", "mbarrier"},
        {"ph", "i"}, {"s", "t"}, {"pid", cta}, {"tid", kMbarrierTid}, {"ts", t},
        {"args", {{"mbarrier", addr}}}});
}

void ChromeTimeline::async_issued(uint64_t seq, const std::string& what, uint32_t bytes, uint64_t t) {
  uint32_t lane = 0;  // the first lane free at t, so overlapping copies stack
  while (lane < lane_busy_until_.size() && lane_busy_until_[lane] > t) ++lane;
  if (lane == lane_busy_until_.size()) lane_busy_until_.push_back(0);
  lane_busy_until_[lane] = UINT64_MAX;
  in_flight_[seq] = {what, bytes, t, lane};
}

void ChromeTimeline::async_completed(uint64_t seq, uint64_t t) {
  auto it = in_flight_.find(seq);
  if (it == in_flight_.end()) return;
  const Open& o = it->second;
  lane_busy_until_[o.lane] = t;
  last_t_ = std::max(last_t_, t);
  push({{"name", o.what.substr(0, o.what.find(" of "))}, {"cat", "async"}, {"ph", "X"}, {"pid", kAsyncPid},
        {"tid", o.lane}, {"ts", o.t}, {"dur", t > o.t ? t - o.t : 1},
        {"args", {{"bytes", o.bytes}, {"what", o.what}}}});
  in_flight_.erase(it);
}

void ChromeTimeline::finish(const RunResult& r) {
  const uint64_t t = std::max(last_t_, r.stats.warp_instructions);
  for (auto& [seq, o] : in_flight_)  // still in flight at the end (a deadlock): open-ended slices
    push({{"name", o.what.substr(0, o.what.find(" of ")) + " (never completed)"}, {"cat", "async"}, {"ph", "X"},
          {"pid", kAsyncPid}, {"tid", o.lane}, {"ts", o.t}, {"dur", t > o.t ? t - o.t : 1},
          {"args", {{"bytes", o.bytes}, {"what", o.what}}}});
  push({{"name", std::string("end: ") + to_string(r.status)}, {"cat", "run"}, {"ph", "i"}, {"s", "g"}, {"pid", 0},
        {"tid", 0}, {"ts", t}, {"args", {{"status", to_string(r.status)}, {"report", r.report}}}});
}

Json ChromeTimeline::to_json() const {
  Json events = Json::array();
  auto meta = [&](const char* what, uint64_t pid, int64_t tid, const std::string& name) {
    Json e = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0) e["tid"] = tid;
    events.push_back(e);
  };
  for (auto& [cta, _] : ctas_) {
    uint64_t x = cta % grid_.x, y = cta / grid_.x % grid_.y, z = cta / (uint64_t(grid_.x) * grid_.y);
    meta("process_name", cta, -1, "CTA (" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")");
    meta("thread_name", cta, kMbarrierTid, "mbarriers");
    for (uint32_t id = 0; id < 16; ++id) meta("thread_name", cta, kBarrierTid + id, "bar " + std::to_string(id));
  }
  meta("process_name", kAsyncPid, -1, "async copies (TMA, bulk)");
  for (const Json& e : events_) events.push_back(e);
  Json j = {{"traceEvents", events}, {"displayTimeUnit", "ns"},
            {"otherData", {{"clock", "simulated: 1 us = 1 warp-instruction issued"}, {"dropped_events", dropped_}}}};
  return j;
}

void ChromeTimeline::write(const std::filesystem::path& file) const {
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << to_json().dump() << "\n";
  f.close();
  if (!f) throw std::runtime_error("cannot write timeline '" + file.string() + "'");
}

}  // namespace ptxsim::cli
