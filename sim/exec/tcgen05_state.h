// Per-CTA state of the tcgen05 family (hung off Cta::tcgen05, created by the first tcgen05
// instruction of the CTA; maintained by sim/sem/tcgen05*.cpp): the CTA's Tensor Memory and its
// allocator, the asynchronous pipeline, and what the hazard checks need.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "model/tcgen05/mma.h"
#include "model/tmem/tmem.h"

namespace ptxsim {

struct Tcgen05Cta {
  model::tmem::Tmem tmem;
  model::tmem::TmemAllocator alloc;

  // Asynchronous tcgen05 operations (mma, commit) take effect in issue order: each engine
  // AsyncOp of this CTA runs the front of this queue when it completes. The ISA orders
  // mma -> mma on one accumulator and commit after every prior mma of the thread (PTX 9.7.16.6.2);
  // one queue per CTA is a valid (stricter) order.
  std::deque<std::function<void()>> pipe;

  // The TMEM cells (in this CTA) of asynchronous operations (mma, cp, shift) that are not settled:
  // until each has completed and its issuing thread has committed it to an mbarrier. A tcgen05.ld must
  // not read the cells they write (`writes`); a tcgen05.dealloc must not free, and the CTA must not
  // exit under, any cells they read or write (PTX 9.7.16.6). One operation may have several records
  // (D, A, scale factors, metadata) with the same id.
  struct MmaRecord {
    uint64_t id = 0;
    model::tcgen05::TmemRect d;
    uint32_t line = 0;
    const char* role = "the D of the tcgen05.mma";  // or "the destination of the tcgen05.cp", ...
    const void* issuer = nullptr;  // the issuing CTA (a cta_group::2 MMA is recorded in both of the pair)
    uint32_t thread = 0;           // issuing thread in that CTA
    bool completed = false, committed = false;
    bool writes = true;            // false: an operand the operation only reads (A, scale factors, metadata)
  };
  std::vector<MmaRecord> mmas;
  uint64_t next_mma = 0;

  // The tensor core's collector buffers (tcgen05.mma .collector_usage), in issue order.
  model::tcgen05::CollectorTracker collector_track;

  // Per warp: the TMEM cells of tcgen05.ld not yet covered by tcgen05.wait::ld. A later tcgen05.st
  // of the warp to those cells is an anti-dependency the ISA orders only through the wait.
  struct PendingLoad {
    model::tcgen05::TmemRect cells;
    uint32_t line = 0;
  };
  std::vector<std::vector<PendingLoad>> pending_ld;  // indexed by warp

  // A .cta_group::2 alloc / dealloc / relinquish_alloc_permit issued by a warp of this CTA, waiting
  // for the peer CTA's warp to issue the same (sim/sem/tcgen05_pair_alloc.cpp).
  struct PairOp {
    uint8_t kind = 0;  // 0: none; see tcgen05_pair_alloc.cpp
    uint32_t ncols = 0, column = 0, line = 0;
    bool done = false;  // the peer performed it for both CTAs; column holds the allocation
  };
  PairOp pair_op;
  uint64_t pair_version = 0;  // bumped when the peer completes pair_op (the waiting warp's wake-up)
};

}  // namespace ptxsim
