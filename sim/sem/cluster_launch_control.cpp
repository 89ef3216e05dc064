// Cluster launch control (PTX ISA 9.7.12.x "clusterlaunchcontrol", sm_100+): a running kernel
// takes over the work of a cluster that has not started yet.
//
//   clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
//       {.multicast::cluster::all}.b128 [addr], [mbar];
//   clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response;
//   clusterlaunchcontrol.query_cancel.get_first_ctaid{::x,::y,::z}.b32.b128 d, response;
//   clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, w}, response;
//
// try_cancel atomically cancels the launch of one cluster that has not started, or fails when
// there is none; either way it writes a 16-byte opaque response to [addr] through the async proxy
// and then performs complete-tx of 16 bytes on [mbar] (both in the executing CTA's shared memory;
// with .multicast::cluster::all at the same offsets in every CTA of the cluster). No two successful
// responses of a grid name the same cluster. query_cancel decodes a response held in a .b128
// register: whether it succeeded, and the %ctaid of the first CTA of the cancelled cluster.
//
// ptxsim launches clusters one after another in linear order (sim/exec/engine.cpp), so a
// try_cancel succeeds while clusters remain to be launched and takes the next of them; a
// co-resident (cooperative) launch has none to take. What the ISA leaves undefined is a fault:
// operands outside the executing CTA's shared memory, a misaligned response (16 bytes) or mbarrier
// (8 bytes), no initialised mbarrier, a try_cancel after one of the same CTA completed as failed,
// decoding a value that is not a response, and get_first_ctaid of a failed response.
//
// The response is opaque on hardware; ptxsim's encoding (tests rely only on query_cancel):
// words 0-2 (bytes 0-11) the first CTA's %ctaid x, y, z (all ones when failed); word 3 the tag
// 0x434C4300 ("\0CLC" little endian) or'ed with 1 when the cluster was cancelled.
#include <cstdio>
#include <cstring>

#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace sem {
void check_address(Binder& b, size_t i, Space sp);  // ldst.cpp: the address checks ptxas makes
}

namespace {

using sem::hex;

constexpr uint32_t kResponseTag = 0x434C4300;

struct Response {
  bool canceled = false;
  Dim3 first_ctaid{};
};

void encode(const Response& r, uint8_t out[16]) {
  const uint32_t w[4] = {r.canceled ? r.first_ctaid.x : ~0u, r.canceled ? r.first_ctaid.y : ~0u,
                         r.canceled ? r.first_ctaid.z : ~0u, kResponseTag | (r.canceled ? 1u : 0u)};
  std::memcpy(out, w, 16);
}

// in.a: multicast; in.space: space of both operands.
void exec_try_cancel(ExecCtx& c, const Instr& in, uint32_t mask) {
  Engine& e = *c.eng;
  const std::string what = "clusterlaunchcontrol.try_cancel";
  for_lanes(mask, [&](int l) {
    const uint64_t a = sem::addr_of(c, in.op[0], l), mb = sem::addr_of(c, in.op[1], l);
    if (a % 16)
      c.fault("misaligned address", what + ": response address " + hex(a) + " (lane " + std::to_string(l) +
                                        ") is not 16-byte aligned");
    if (mb % 8)
      c.fault("misaligned address", what + ": mbarrier address " + hex(mb) + " (lane " + std::to_string(l) +
                                        ") is not 8-byte aligned");
    auto [rcta, roff] = e.resolve_shared(c, in.space, a, 16, l);
    auto [bcta, boff] = e.resolve_shared(c, in.space, mb, 8, l);
    if (rcta != c.cta || bcta != c.cta)
      c.fault("error", what + ": the response " + hex(a) + " and the mbarrier " + hex(mb) +
                           " must both be in the executing CTA's shared memory (.shared::cta); " +
                           (rcta != c.cta ? hex(a) : hex(mb)) + " is in the shared memory of " +
                           sem::tma::cta_name(c, rcta != c.cta ? *rcta : *bcta));
    sem::tma::require_mbarrier(c, *c.cta, boff, what);
    sem::tma::check_no_mbarrier(c, *c.cta, roff, 16, what);
    if (c.cta->clc_failed_line)
      c.fault("error", what + ": a try_cancel of this CTA (line " + std::to_string(c.cta->clc_failed_line) +
                           ") already completed with a failed response; issuing another is undefined behaviour "
                           "in the PTX ISA (stop asking once a request fails)");

    // The cancellation itself is atomic at issue; the response lands later.
    Response r;
    if (auto first = e.cancel_next_cluster()) {
      r.canceled = true;
      r.first_ctaid = *first;
    }
    std::vector<Cta*> targets;
    if (in.a)
      for (auto& t : e.ctas) targets.push_back(t.get());
    else
      targets.push_back(c.cta);
    for (Cta* dc : targets) {
      AsyncOp aop;
      aop.what = what + " response (16 bytes) to shared address " + hex(roff) + " of CTA rank " +
                 std::to_string(dc->rank);
      aop.bar = sem::tma::live_mbarrier(*dc, boff);
      aop.bytes = 16;
      aop.dst_cta = dc;
      aop.dst_off = roff;
      aop.dst_bytes = 16;
      aop.line = in.line;
      Engine* ep = &e;
      const uint32_t r_off = roff, b_off = boff, line = in.line;
      aop.complete = [ep, dc, r_off, b_off, r, line, what] {
        encode(r, dc->smem.data() + r_off);
        sem::tma::async_wrote(*dc, r_off, 16);  // the response is written by the async unit, not a thread
        if (!r.canceled && !dc->clc_failed_line) dc->clc_failed_line = line;
        sem::tma::complete_tx(*ep, *dc, b_off, 16, what, line);
      };
      e.issue_async(std::move(aop));
    }
  });
}

// The response in 128-bit register operand o of lane l; faults unless it is one.
Response decode(ExecCtx& c, const Operand& o, int l) {
  const uint64_t lo = c.col(o)[l], hi = c.col(o)[l + 32];
  const uint32_t tag = uint32_t(hi >> 32);
  if ((tag & ~1u) != kResponseTag) {
    char v[40];
    std::snprintf(v, sizeof v, "0x%016llx%016llx", (unsigned long long)hi, (unsigned long long)lo);
    c.fault("error", "clusterlaunchcontrol.query_cancel: the operand (lane " + std::to_string(l) + ": " + v +
                         ") is not a response written by clusterlaunchcontrol.try_cancel; read the response only "
                         "after the mbarrier phase its complete-tx belongs to has completed");
  }
  Response r;
  r.canceled = tag & 1;
  r.first_ctaid = {uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi)};
  return r;
}

enum class Query : uint8_t { IsCanceled, X, Y, Z, V4 };

// in.a: Query.
void exec_query_cancel(ExecCtx& c, const Instr& in, uint32_t mask) {
  const Query q = Query(in.a);
  for_lanes(mask, [&](int l) {
    const Response r = decode(c, in.op[1], l);
    if (q == Query::IsCanceled) {
      c.col(in.op[0])[l] = r.canceled;
      return;
    }
    if (!r.canceled)
      c.fault("error", "clusterlaunchcontrol.query_cancel.get_first_ctaid: the response (lane " + std::to_string(l) +
                           ") is of a try_cancel that failed, whose first ctaid is undefined in the PTX ISA; test "
                           "query_cancel.is_canceled first");
    const uint32_t xyz[3] = {r.first_ctaid.x, r.first_ctaid.y, r.first_ctaid.z};
    if (q == Query::V4) {
      for (uint32_t i = 0; i < 4; ++i) c.col(sem::vec_elem(c, in.op[0], i))[l] = i < 3 ? xyz[i] : 0;
      return;
    }
    c.col(in.op[0])[l] = xyz[uint8_t(q) - uint8_t(Query::X)];
  });
}

bool is_reg(const Operand& o, uint32_t bits) { return o.kind == Operand::Kind::Reg && o.width == bits; }

}  // namespace

void bind_clc_try_cancel(Binder& b) {
  const std::string name = "clusterlaunchcontrol.try_cancel.async";
  if (!b.has(".async")) b.error("Modifier '.async' required for instruction 'clusterlaunchcontrol.try_cancel'");
  if (!b.has(".mbarrier::complete_tx::bytes"))
    b.error(".mbarrier::complete_tx::bytes modifier required for instruction '" + name + "'");
  if (b.type_count() != 1 || b.type(0) != DType::B128)
    b.error("Unexpected instruction types specified for '" + name + "'");
  if (b.op_kind(0) != Operand::Kind::Addr || b.op_kind(1) != Operand::Kind::Addr)
    b.error("Arguments mismatch for instruction '" + name + "'");
  b.in.space = b.has(".shared::cta") ? Space::Shared : Space::Generic;
  sem::check_address(b, 0, b.in.space);
  sem::check_address(b, 1, b.in.space);
  b.in.a = b.has(".multicast::cluster::all");
  b.in.fn = exec_try_cancel;
}

void bind_clc_query_cancel(Binder& b) {
  const std::string name = "clusterlaunchcontrol.query_cancel";
  static const std::pair<const char*, Query> kinds[] = {{".is_canceled", Query::IsCanceled},
                                                        {".get_first_ctaid::x", Query::X},
                                                        {".get_first_ctaid::y", Query::Y},
                                                        {".get_first_ctaid::z", Query::Z},
                                                        {".get_first_ctaid", Query::V4}};
  int n = 0;
  Query q = Query::IsCanceled;
  for (auto& [tok, k] : kinds)
    if (b.has(tok)) {
      q = k;
      ++n;
    }
  if (n != 1) b.error("Exactly one of .is_canceled, .get_first_ctaid{::x,::y,::z} required for instruction '" + name + "'");
  const bool pred = q == Query::IsCanceled;
  if (b.type_count() != 2 || b.type(0) != (pred ? DType::Pred : DType::B32) || b.type(1) != DType::B128 ||
      b.has(".v4") != (q == Query::V4))
    b.error(q == Query::V4 && !b.has(".v4") ? "Vector of size 4 is expected for argument 0 of instruction '" + name + "'"
                                            : "Unexpected instruction types specified for '" + name + "'");
  const Operand& d = b.in.op[0];
  bool ok = is_reg(b.in.op[1], 128);
  if (q == Query::V4) {
    if (d.kind != Operand::Kind::Vec || d.count != 4)
      b.error("Vector of size 4 is expected for argument 0 of instruction '" + name + "'");
    for (uint32_t i = 0; i < 4; ++i) {
      const Operand& e = b.dec.current().vec_pool[d.slot + i];
      ok &= is_reg(e, 32) || e.kind == Operand::Kind::Sink;
    }
  } else {
    ok &= is_reg(d, pred ? 1 : 32);
  }
  if (!ok) b.error("Arguments mismatch for instruction '" + name + "'");
  b.in.a = uint8_t(q);
  b.in.fn = exec_query_cancel;
}

}  // namespace ptxsim
