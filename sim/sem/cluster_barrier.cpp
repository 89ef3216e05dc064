// barrier.cluster.arrive / barrier.cluster.wait (PTX 9.7.15.3): the cluster-wide barrier.
//
//   arrive  marks the executing threads' arrival in the current phase without waiting. "Each
//           thread must arrive at the barrier only once before the barrier completes": a second
//           arrival in the same phase is reported as an error.
//   wait    waits until the phase of the thread's last arrival has completed. The phase completes
//           when every non-exited thread of the cluster has arrived (an exit can complete it,
//           sim/exec/engine.cpp). A wait without an arrival in the current phase waits for a
//           phase that needs the waiting thread's own arrival: a deadlock, reported as such.
// .release/.relaxed (arrive) and .acquire (wait) only order memory, which ptxsim performs in
// program order anyway. .aligned makes the instruction warp-collective (kFlagAligned); the forms
// without it act per thread.
#include <string>

#include "sim/exec/racecheck.h"
#include "sim/exec/engine.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace {

uint32_t first_thread(const ExecCtx& c) { return c.cta->rank * c.cta->threads + c.warp->index * 32; }

void exec_cluster_arrive(ExecCtx& c, const Instr&, uint32_t mask) {
  ClusterBarrier& b = c.eng->cluster_barrier;
  const uint32_t t0 = first_thread(c);
  for_lanes(mask, [&](int l) {
    if (b.arrived[t0 + uint32_t(l)])
      c.fault("error", "thread " + std::to_string(c.warp->index * 32 + uint32_t(l)) + " of CTA rank " +
                           std::to_string(c.cta->rank) + " arrives at the cluster barrier twice in phase " +
                           std::to_string(b.generation) +
                           " (each thread must arrive only once before the barrier completes; "
                           "barrier.cluster.wait first)");
  });
  if (c.race) c.race->cluster_arrive(c);
  for_lanes(mask, [&](int l) {
    const uint32_t t = t0 + uint32_t(l);
    b.arrived[t] = 1;
    b.arrive_phase[t] = b.generation + 1;
    --b.pending;
  });
  if (b.pending == 0) c.eng->complete_cluster_barrier();
}

void exec_cluster_wait(ExecCtx& c, const Instr&, uint32_t mask) {
  ClusterBarrier& b = c.eng->cluster_barrier;
  const uint32_t t0 = first_thread(c);
  uint64_t until = 0;  // the generation the group must see; 0 when every lane may go on
  for_lanes(mask, [&](int l) {
    const uint64_t p = b.arrive_phase[t0 + uint32_t(l)];
    const uint64_t want = p ? p : b.generation + 1;  // no arrival: the current phase
    if (want > b.generation) until = std::max(until, want);
  });
  if (until) {
    c.eng->block(c, WaitKind::ClusterBarrier, uint64_t(reinterpret_cast<uintptr_t>(&b)), until);
    c.hold = true;  // re-executed when the phase completes
    return;
  }
  if (c.race) c.race->cluster_acquire(c);
  for_lanes(mask, [&](int l) { b.arrive_phase[t0 + uint32_t(l)] = 0; });
}

void bind_common(Binder& b) {
  b.require_ops(0, 0);
  if (b.has(".aligned")) b.in.flags |= kFlagAligned;
}

}  // namespace

void bind_cluster_arrive(Binder& b) {
  bind_common(b);
  if (b.has(".release") && b.has(".relaxed"))
    b.error("Conflicting modifiers '.release' and '.relaxed' for instruction 'barrier.cluster.arrive'");
  b.in.fn = exec_cluster_arrive;
}

void bind_cluster_wait(Binder& b) {
  bind_common(b);
  b.in.fn = exec_cluster_wait;
}

}  // namespace ptxsim
