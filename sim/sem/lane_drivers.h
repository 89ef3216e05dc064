// Per-lane drivers for element-wise instructions: a source column and the loops that apply an
// operation to every active lane. Shared by the integer, bit and comparison semantics files.
#pragma once
#include <cstdint>

#include "sim/exec/decoder.h"
#include "sim/exec/exec_ctx.h"

namespace ptxsim::sem {

// A source column: the slot's 32 lane values plus the frame base, which frame-variable operands
// (addresses of .local variables) add to every lane.
struct SrcColumn {
  const uint64_t* p;
  uint64_t add;
  uint64_t operator[](int l) const { return p[l] + add; }
};
inline SrcColumn src_column(const ExecCtx& c, const Operand& o) {
  return {c.col(o), o.frame_rel ? uint64_t(c.local_base) : 0};
}

// Op::f gets the raw 64-bit register values and returns the register image to store in op[0].
template <class Op>
void exec_un(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = Op::f(a[l]); });
}
template <class Op>
void exec_bin(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* d = c.col(in.op[0]);
  // Neither source is a frame variable (the common case): no base to add per lane.
  if (!(in.op[1].frame_rel | in.op[2].frame_rel)) {
    const uint64_t *a = c.col(in.op[1]), *b = c.col(in.op[2]);
    for_lanes(mask, [&](int l) { d[l] = Op::f(a[l], b[l]); });
    return;
  }
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]);
  for_lanes(mask, [&](int l) { d[l] = Op::f(a[l], b[l]); });
}
template <class Op>
void exec_ter(ExecCtx& c, const Instr& in, uint32_t mask) {
  const SrcColumn a = src_column(c, in.op[1]), b = src_column(c, in.op[2]), cc = src_column(c, in.op[3]);
  uint64_t* d = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { d[l] = Op::f(a[l], b[l], cc[l]); });
}

}  // namespace ptxsim::sem
