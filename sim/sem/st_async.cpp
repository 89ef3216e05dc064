// st.async and red.async (PTX ISA 9.7.9.12, 9.7.13.7): a store or reduction into the shared
// memory of a CTA of the cluster (an address from mapa) that, when it lands, performs complete-tx
// of its size in bytes on the mbarrier `mbar` in that same CTA.
//
//   st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar];
//   red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a], b, [mbar];
//
// Both are generic-proxy operations that complete asynchronously: the value is read at issue, and
// the write (or read-modify-write) and the complete-tx happen later through the engine's async queue,
// so a destination read before the mbarrier phase completes is reported as a race. What the ISA
// leaves undefined is a fault here: a cluster of one CTA, `a` and `mbar` in different CTAs, red.async
// into the executing CTA's own shared memory, misalignment (a: the access size; mbar: 8 bytes), no
// live mbarrier at `mbar`, or a destination overlapping a live mbarrier.
//
// ptxas also accepts forms the ISA does not define (`.shared::cta`, no [mbar] operand); those, and
// the sm_100 `.release.{gpu,sys}.global` forms, fail loudly as unimplemented.
#include <algorithm>
#include <cstring>

#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace sem {
void check_address(Binder& b, size_t i, Space sp);  // ldst.cpp: the address checks ptxas makes
}

namespace {

using sem::hex;

enum class Op : uint8_t { Store, Add, Min, Max, Inc, Dec, And, Or, Xor };

// The ISA's reduction of the old value r with operand s, on `bytes`-wide (un)signed integers.
uint64_t reduce(Op op, bool is_signed, uint32_t bytes, uint64_t r, uint64_t s) {
  const uint32_t bits = bytes * 8;
  auto less = [&](uint64_t x, uint64_t y) {
    return is_signed ? int64_t(sem::sext(x, bits)) < int64_t(sem::sext(y, bits)) : x < y;
  };
  switch (op) {
    case Op::Store: return s;
    case Op::Add: return r + s;
    case Op::Min: return less(s, r) ? s : r;
    case Op::Max: return less(r, s) ? s : r;
    case Op::Inc: return r >= s ? 0 : r + 1;
    case Op::Dec: return (r == 0 || r > s) ? s : r - 1;
    case Op::And: return r & s;
    case Op::Or: return r | s;
    case Op::Xor: return r ^ s;
  }
  return r;
}

// in.a: Op; in.b: element bytes; in.c: element count; in.d: signed; in.space: space of a and mbar.
void exec_async_store(ExecCtx& c, const Instr& in, uint32_t mask) {
  Engine& e = *c.eng;
  const Op op = Op(in.a);
  const uint32_t es = in.b, count = in.c, n = es * count;
  const bool is_signed = in.d;
  const std::string what = op == Op::Store ? "st.async" : "red.async";
  for_lanes(mask, [&](int l) {
    if (e.ctas.size() < 2)
      c.fault("error", what + ": the cluster has a single CTA; " + what +
                           " needs %cluster_nctarank > 1 (launch with cluster dimensions)");
    const uint64_t a = sem::addr_of(c, in.op[0], l), mb = sem::addr_of(c, in.op[2], l);
    if (a % n)
      c.fault("misaligned address", what + ": destination address " + hex(a) + " (lane " + std::to_string(l) +
                                        ") is not aligned to the " + std::to_string(n) + "-byte access");
    if (mb % 8)
      c.fault("misaligned address", what + ": mbarrier address " + hex(mb) + " (lane " + std::to_string(l) +
                                        ") is not 8-byte aligned");
    auto [dcta, doff] = e.resolve_shared(c, in.space, a, n, l);
    auto [bcta, boff] = e.resolve_shared(c, in.space, mb, 8, l);
    if (op != Op::Store && dcta == c.cta)
      c.fault("error", what + ": the destination " + hex(a) +
                           " is in the executing CTA's own shared memory; red.async needs the shared::cluster "
                           "address of another CTA of the cluster (use mapa)");
    if (dcta != bcta)
      c.fault("error", what + ": the destination " + hex(a) + " is in the shared memory of " +
                           sem::tma::cta_name(c, *dcta) + " but the mbarrier " + hex(mb) + " is in " +
                           sem::tma::cta_name(c, *bcta) + "; both must belong to the same CTA");
    sem::tma::require_mbarrier(c, *bcta, boff, what);
    sem::tma::check_no_mbarrier(c, *dcta, doff, n, what);

    uint64_t vals[4];
    for (uint32_t i = 0; i < count; ++i)
      vals[i] = c.col(count == 1 ? in.op[1] : sem::vec_elem(c, in.op[1], i))[l];
    AsyncOp aop;
    aop.what = what + " of " + std::to_string(n) + " bytes to shared address " + hex(doff) + " of CTA rank " +
               std::to_string(dcta->rank);
    aop.bar = sem::tma::live_mbarrier(*bcta, boff);
    aop.bytes = n;
    aop.dst_cta = dcta;
    aop.dst_off = doff;
    aop.dst_bytes = n;
    aop.line = in.line;
    Engine* ep = &e;
    Cta* dc = dcta;
    const uint32_t d_off = doff, b_off = boff;
    const uint32_t line = in.line;
    aop.complete = [ep, dc, d_off, b_off, op, es, count, is_signed, vals, what, line] {
      for (uint32_t i = 0; i < count; ++i) {
        uint8_t* p = dc->smem.data() + d_off + i * es;
        store_le(p, reduce(op, is_signed, es, load_le(p, es), vals[i]), es);
      }
      // A generic-proxy write: a bulk copy reading these bytes later needs fence.proxy.async.
      dc->generic_writes.mark(d_off, es * count);
      sem::tma::complete_tx(*ep, *dc, b_off, es * count, what, line);
    };
    e.issue_async(std::move(aop));
  });
}

void reject_global_form(Binder& b, const char* name) {
  if (b.has(".global") || b.has(".release") || b.has(".mmio"))
    b.unimplemented(std::string("the sm_100 ") + name + ".release.{gpu,sys}.global form");
}

// Checks common to both binders (state space, completion mechanism, operand shapes).
void bind_common(Binder& b, const char* name) {
  if (!b.has(".mbarrier::complete_tx::bytes"))
    b.error(std::string("Modifier '.shared::cluster' requires modifier '.completion_mechanism' for instruction '") + name +
            "'");
  if (b.has(".shared::cta"))
    b.unimplemented(".shared::cta (ptxas accepts it, but the PTX ISA defines only .shared::cluster or generic "
                    "addresses for a and mbar)");
  if (b.op_count() == 2) b.unimplemented("without the [mbar] operand (ptxas accepts it; the PTX ISA requires it)");
  if (b.op_count() != 3 || b.op_kind(0) != Operand::Kind::Addr || b.op_kind(2) != Operand::Kind::Addr)
    b.error(std::string("Arguments mismatch for instruction '") + name + "'");
  b.in.space = b.has(".shared::cluster") ? Space::SharedCluster : Space::Generic;
  sem::check_address(b, 0, b.in.space);
  sem::check_address(b, 2, b.in.space);
  if (b.type_count() != 1) b.error(std::string("Unexpected instruction types specified for '") + name + "'");
}

// Operand b (a register of exactly `bits` bits or an immediate; a vector of `count` of them).
void check_source(Binder& b, uint32_t count, uint32_t bits, const char* name) {
  const Operand& o = b.in.op[1];
  const bool vec = o.kind == Operand::Kind::Vec;
  if (vec != (count > 1) || (vec && o.count != count)) b.error(std::string("Arguments mismatch for instruction '") + name + "'");
  for (uint32_t i = 0; i < count; ++i) {
    const Operand& e = vec ? b.dec.current().vec_pool[o.slot + i] : o;
    if (!sem::tma::is_reg_or_imm(e, bits)) b.error(std::string("Arguments mismatch for instruction '") + name + "'");
  }
}

}  // namespace

void bind_st_async(Binder& b) {
  reject_global_form(b, "st.async");
  bind_common(b, "st.async");
  if (b.has(".weak") && b.has(".cluster")) b.error("Modifier '.weak' cannot be combined with modifier '.cluster'");
  const DType t = b.type(0);
  const uint32_t bits = dtype_bits(t);
  if (bits != 32 && bits != 64) b.error("Arguments mismatch for instruction 'st.async'");
  const uint32_t count = b.has(".v4") ? 4 : b.has(".v2") ? 2 : 1;
  if (count * bits > 128) b.error("Vector type too large, exceeds 128 bit limit");
  check_source(b, count, bits, "st.async");
  b.in.a = uint8_t(Op::Store);
  b.in.b = uint8_t(bits / 8);
  b.in.c = uint8_t(count);
  b.in.d = 0;
  b.in.fn = exec_async_store;
}

void bind_red_async(Binder& b) {
  reject_global_form(b, "red.async");
  if (!b.has(".relaxed")) b.error("order modifier required for instruction 'red.async'");
  if (!b.has(".cluster")) b.error("Modifier '.relaxed' requires scope with 'red.async' instruction");
  bind_common(b, "red.async");
  static const std::pair<const char*, Op> ops[] = {{".add", Op::Add}, {".min", Op::Min}, {".max", Op::Max},
                                                   {".inc", Op::Inc}, {".dec", Op::Dec}, {".and", Op::And},
                                                   {".or", Op::Or},   {".xor", Op::Xor}};
  int nops = 0;
  Op op = Op::Add;
  std::string optok;
  for (auto& [tok, o] : ops)
    if (b.has(tok)) {
      op = o;
      optok = tok;
      ++nops;
    }
  if (nops != 1) b.error("Reduction operation is required for instruction 'red.async'");
  const DType t = b.type(0);
  if (is_float(t)) b.error("Unexpected instruction types specified for 'red.async'");
  bool ok = false;
  switch (op) {
    case Op::Add: ok = t == DType::U32 || t == DType::S32 || t == DType::U64 || t == DType::S64; break;
    case Op::Min: case Op::Max: ok = t == DType::U32 || t == DType::S32; break;
    case Op::Inc: case Op::Dec: ok = t == DType::U32; break;
    case Op::And: case Op::Or: case Op::Xor: ok = t == DType::B32; break;
    case Op::Store: break;
  }
  if (!ok)
    b.error("Incorrect type '." + std::string(dtype_name(t)) + "' for operation '" + optok + "' in instruction 'red.async'");
  const uint32_t bits = dtype_bits(t);
  check_source(b, 1, bits, "red.async");
  b.in.a = uint8_t(op);
  b.in.b = uint8_t(bits / 8);
  b.in.c = 1;
  b.in.d = t == DType::S32 || t == DType::S64;
  b.in.fn = exec_async_store;
}

}  // namespace ptxsim
