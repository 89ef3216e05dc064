// tcgen05.shift (PTX ISA 9.7.16.9.3): an asynchronous shift of the rows of one 32-lane
// subpartition of Tensor Memory down by one (model/tcgen05/shift.h), 256 bits (8 columns) wide,
// in this CTA or, with .cta_group::2, in both CTAs of the pair. It runs in issue order with the
// CTA's other asynchronous tcgen05 operations (the ISA orders mma -> shift, shift -> mma and
// shift -> cp.4x256b), a tcgen05.commit covers it, and a tcgen05.ld of its rows before that
// commit's mbarrier completes is reported like an MMA's D.
#include "model/tcgen05/shift.h"
#include "sim/sem/sem_util.h"
#include "sim/sem/tcgen05_internal.h"

namespace ptxsim {

namespace {

namespace t5 = model::tcgen05;
namespace tm = model::tmem;
namespace s5 = sem::tcgen05;

// in.d: cta_group.
void issue_shift(ExecCtx& c, const Instr& in, int l) {
  Tcgen05Cta& st = s5::state(c);
  const uint32_t taddr = uint32_t(sem::addr_of(c, in.op[0], l));
  const std::string what = "tcgen05.shift.cta_group::" + std::to_string(in.d) + ".down";
  const std::vector<Cta*> pair = s5::cta_pair(c, in.d, what);
  for (Cta* p : pair) {
    Tcgen05Cta* ps = p->tcgen05.get();
    if (auto e = t5::check_shift(taddr, [ps](uint32_t col, uint32_t n) { return ps->alloc.allocated(col, n); }))
      c.fault("error", what + ": " + *e + (pair.size() == 2 ? " in CTA rank " + std::to_string(p->rank) : std::string()));
  }
  const tm::TmemAddr a = tm::TmemAddr::decode(taddr);
  Tcgen05Cta::MmaRecord rec;
  rec.id = st.next_mma++;
  rec.d = {a.lane, tm::kLanesPerWarp, a.column, t5::kShiftColumns};
  rec.line = in.line;
  rec.role = "the rows moved by the tcgen05.shift";
  rec.issuer = c.cta;
  rec.thread = c.warp->index * 32 + uint32_t(l);
  for (Cta* p : pair) p->tcgen05->mmas.push_back(rec);
  s5::enqueue(c, in, what + " (line " + std::to_string(in.line) + ")", [pair, taddr, rid = rec.id, issuer = c.cta] {
    for (Cta* p : pair) {
      t5::execute_shift(taddr, p->tcgen05->tmem);
      for (auto& m : p->tcgen05->mmas)
        if (m.id == rid && m.issuer == issuer) m.completed = true;
      s5::forget_settled(*p->tcgen05);
    }
  });
}

void exec_shift(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask) s5::use_cta_group(c, "tcgen05.shift", in.d);
  for_lanes(mask, [&](int l) { issue_shift(c, in, l); });
}

}  // namespace

void bind_tcgen05_shift(Binder& b) {
  const unsigned g = s5::cta_group(b);
  if (!b.has(".down")) b.error(".down modifier required for instruction 'tcgen05.shift'");
  s5::expect(b, b.op_count() == 1 && b.op_kind(0) == Operand::Kind::Addr && b.in.op[0].aux == kNoSlot, "expected [taddr]");
  b.in.d = uint8_t(g);
  b.in.fn = exec_shift;
}

}  // namespace ptxsim
