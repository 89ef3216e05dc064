// Spin-wait hangs: a thread that loops on memory nothing can change never leaves. The engine would
// run it into the time budget; this finds it and reports a deadlock instead (docs/racecheck.md).
//
// A group is *spinning* when it takes the same backward branch with its registers (of its lanes)
// identical to those at half as many iterations (64, 128, 256, ...) and no write to memory anywhere in between
// (Engine::mem_events counts every store, atomic, asynchronous completion, mbarrier change, barrier
// completion and exit). The launch is then deterministic from that state: as long as nothing else
// writes, the loop repeats forever. A loop that reads %clock, counts, or waits for another thread
// that still runs is never taken for one. The hang is reported when every group of the launch
// either spins so or is blocked for good (not a try_wait that may time out) and nothing is in flight.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "sim/exec/engine.h"

namespace ptxsim {

namespace {

constexpr uint32_t kSpinCheck = 64;  // back-edges without a write between two register hashes

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

uint64_t hash_regs(const Group& g) {
  const auto& r = g.frame->regs;
  uint64_t h = 0xcbf29ce484222325ull ^ g.mask;
  for (size_t slot = 0; slot < r.size() / 32; ++slot)
    for_lanes(g.mask, [&](int l) { h = (h ^ r[slot * 32 + size_t(l)]) * 0x100000001b3ull; });
  return h;
}

}  // namespace

void Engine::back_edge(ExecCtx& c) {
  Group& g = *c.group;
  // What this iteration read (the loop body ran since the previous backward branch).
  const uint64_t read = mem_events.last_read;
  mem_events.last_read = MemEvents::kNoRead;
  g.loop_polls = read != MemEvents::kNoRead && read == g.loop_read;
  g.loop_read = read;
  if (g.loop_pc != c.pc || g.loop_writes != mem_events.writes) {
    g.loop_pc = c.pc;
    g.loop_writes = mem_events.writes;
    g.loop_count = 0;
    g.spinning = false;
    return;
  }
  if (g.spinning) {
    spin_confirmed_writes_ = mem_events.writes;
    return;
  }
  // Hash at 64, 128, 256, ... iterations without a write: a spin loop is found at its 128th, and a
  // long loop that computes without storing pays a hash only each time its count doubles.
  ++g.loop_count;
  if (g.loop_count < kSpinCheck || (g.loop_count & (g.loop_count - 1))) return;
  const uint64_t h = hash_regs(g);
  if (g.loop_count > kSpinCheck && h == g.loop_hash) {
    g.spinning = true;
    g.spin_addr = read;
    spin_confirmed_writes_ = mem_events.writes;
  }
  g.loop_hash = h;
}

std::string Engine::spin_hang_report(Diagnostic& d) {
  // Every group of every resident CTA: spinning in the current write epoch, or blocked for good.
  std::vector<std::pair<const Cta*, const Group*>> spinners;
  uint32_t warps_of = 0;
  bool hang = true;
  auto scan = [&](std::vector<std::unique_ptr<Cta>>& cs) {
    for (auto& cta : cs)
      for (auto& w : cta->warps)
        for (auto& g : w.groups) {
          ++warps_of;
          if (g.spinning && g.loop_writes == mem_events.writes && g.state == GroupState::Ready)
            spinners.push_back({cta.get(), &g});
          else if (!((g.state == GroupState::Blocked && !g.may_time_out) || g.state == GroupState::Converge))
            hang = false;
        }
  };
  scan(ctas);
  for (auto& p : parked) scan(p.ctas);
  if (!hang || spinners.empty()) return "";
  std::ostringstream os;
  bool first = true;
  for (auto [cta, g] : spinners) {
    const Function& fn = *g->frame->fn;
    const Instr& br = fn.code[g->loop_pc];
    const uint32_t head = br.op[0].kind == Operand::Kind::Label && br.op[0].slot < fn.code.size() ? fn.code[br.op[0].slot].line : br.line;
    std::string polled;
    const uint64_t a = g->spin_addr;
    if (a == MemEvents::kNoRead) {
      polled = "";  // a loop that reads no memory: nothing outside it could end it
    } else if (in_window(a, kSharedWindow) || (a < (uint64_t(1) << 32) && !global.find(a))) {
      polled = "shared address " + hex(in_window(a, kSharedWindow) ? a - kSharedWindow : a);
    } else if (const auto* al = global.find(a)) {
      polled = "global address " + hex(a) + " (allocation '" + al->name + "' + " + hex(a - al->base) + ")";
    } else {
      polled = "address " + hex(a);
    }
    const uint32_t warp = uint32_t(std::find_if(cta->warps.begin(), cta->warps.end(), [&](const Warp& w) {
                                     return g >= w.groups.data() && g < w.groups.data() + w.groups.size();
                                   }) - cta->warps.begin());
    const std::string who = "warp " + std::to_string(warp) + " lanes " + hex(g->mask) + " of CTA (" +
                            std::to_string(cta->id.x) + "," + std::to_string(cta->id.y) + "," + std::to_string(cta->id.z) + ")";
    if (first) {
      d = located(fn, g->loop_pc, "deadlock: spin-wait hang: " + who + " loops forever in lines " +
                                      std::to_string(head) + "-" + std::to_string(br.line) + (polled.empty() ? std::string(" reading no memory, so nothing outside the loop can end it")
                                                      : " polling " + polled + ", which nothing can change"));
      os << d.message << "\n";
      first = false;
    }
    os << "  " << who << " spins in the loop of lines " << head << "-" << br.line << " (backward branch at "
       << prog.file_name << ":" << br.line << ")" << (polled.empty() ? ", reading no memory" : ", polling " + polled) << "\n";
  }
  os << "    why nothing can change it: the loop repeated the same register state with no write to memory anywhere; "
        "every other thread has exited or waits (below), and no asynchronous operation is in flight";
  if (!cfg.co_resident && cluster_ + 1 < shared_.nclusters)
    os << "; later clusters of the grid are not resident until this one finishes (a cooperative launch makes the "
          "whole grid resident)";
  os << "\n";
  return os.str();
}

}  // namespace ptxsim
