// Warp-collective instructions: shfl{.sync}, vote{.sync}, match.sync, redux.sync, activemask,
// elect.sync and bar.warp.sync.
//
// The .sync forms are executed by the engine only when every lane named by the membermask is in the
// executing group (sim/exec/engine.cpp, collective_ready), so the semantics here see all
// participating lanes at once. Which lanes take part, per executing lane l:
//   part(l) = membermask(l) & mask
// i.e. lane l's own membermask (lanes may pass different masks, e.g. one per half-warp) limited to
// the lanes that execute the instruction predicated-on. For the forms without .sync (only accepted
// for targets below sm_70 or PTX ISA below 6.4) the participants are the executing lanes.
//
// Choices where the PTX ISA leaves the result unspecified:
//  * shfl whose computed source lane j is predicated off, inactive, exited or outside the
//    membermask: the ISA says the value read is unpredictable. ptxsim returns the lane's own `a`
//    (as if the source were out of range) while `p` still reports the range check as computed.
//  * A lane whose membermask does not include itself is undefined behaviour; ptxsim faults.
//  * elect.sync elects the lowest predicated-on lane of the membermask (the ISA only promises a
//    deterministic choice for a given membermask).
//  * Lanes that do not exist, named by a membermask: the engine reports them before these
//    semantics run (see collective_ready). Exited lanes named by the membermask take no part in
//    vote, match, redux and elect (the ISA waits for the non-exited threads of the membermask); for
//    shfl.sync and bar.warp.sync the engine reports them.
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "sim/exec/engine.h"
#include "sim/exec/racecheck.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace {

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08" PRIx32, v);
  return b;
}

// The instruction's name for messages; the binders store a code for it in Instr::d.
const char* collective_name(const Instr& in) {
  switch (in.d) {
    case 1: return "shfl.sync";
    case 2: return "vote.sync";
    case 3: return "match.sync";
    case 4: return "redux.sync";
    case 5: return "elect.sync";
    case 6: return "bar.warp.sync";
    default: return "warp instruction";
  }
}

// Fills part[l] for every executing lane (see the file comment). Returns the common set when every
// executing lane has the same one, or 0 when they differ (callers then work per lane).
template <bool Sync>
uint32_t participants(ExecCtx& c, const Instr& in, uint32_t mask, uint32_t (&part)[32]) {
  if (c.race && mask) c.race->warp_sync(c);  // --racecheck: the collective orders the warp's lanes
  if constexpr (!Sync) {
    for_lanes(mask, [&](int l) { part[l] = mask; });
    return mask;
  } else {
    const uint64_t* mm = c.col(in.op[in.membermask_op]);
    uint32_t first = mask ? uint32_t(mm[std::countr_zero(mask)]) : 0;
    bool uniform = true;
    uint32_t outside = 0;
    for_lanes(mask, [&](int l) {
      uint32_t m = uint32_t(mm[l]);
      uniform &= m == first;
      if (!(m >> l & 1)) outside |= 1u << l;
      part[l] = m & mask;
    });
    if (outside) {
      int l = std::countr_zero(outside);
      c.fault("error", std::string("lane ") + std::to_string(l) + " executes " + collective_name(in) +
                           " with membermask " + hex32(uint32_t(mm[l])) +
                           ", which does not include the lane itself (undefined behaviour)");
    }
    return uniform ? first & mask : 0;
  }
}

// Destination element i of operand o: the operand itself, or element i of a `d|p` pair.
inline const Operand& dest(const ExecCtx& c, const Operand& o, uint32_t i) {
  return o.kind == Operand::Kind::Vec ? sem::vec_elem(c, o, i) : o;
}

// ---- shfl -------------------------------------------------------------------------------------

enum ShflMode : uint8_t { kUp, kDown, kBfly, kIdx };

// in.a: mode; in.b: 1 when the destination is `d|p`.
template <uint8_t Mode, bool Sync>
void exec_shfl(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint32_t part[32];
  participants<Sync>(c, in, mask, part);
  const uint64_t* A = c.col(in.op[1]);
  const uint64_t* B = c.col(in.op[2]);
  const uint64_t* C = c.col(in.op[3]);
  uint32_t src[32], out[32];
  uint32_t pmask = 0;
  for_lanes(mask, [&](int l) { src[l] = uint32_t(A[l]); });
  for_lanes(mask, [&](int l) {
    const int lane = l;
    const int bval = int(uint32_t(B[l]) & 31);
    const uint32_t cv = uint32_t(C[l]);
    const int cval = int(cv & 31);
    const int seg = int((cv >> 8) & 31);
    const int max_lane = (lane & seg) | (cval & ~seg);
    const int min_lane = lane & seg;
    int j;
    bool pval;
    if constexpr (Mode == kUp) {
      j = lane - bval;
      pval = j >= max_lane;
    } else if constexpr (Mode == kDown) {
      j = lane + bval;
      pval = j <= max_lane;
    } else if constexpr (Mode == kBfly) {
      j = lane ^ bval;
      pval = j <= max_lane;
    } else {
      j = min_lane | (bval & ~seg);
      pval = j <= max_lane;
    }
    if (!pval) j = lane;  // out of range: copy from the own lane
    // A source lane outside the participants (predicated off, inactive, exited, not in the
    // membermask) is unpredictable per the ISA; ptxsim takes the own value.
    out[l] = (part[l] >> j & 1) ? src[j] : src[l];
    pmask |= uint32_t(pval) << l;
  });
  uint64_t* D = c.col(dest(c, in.op[0], 0));
  for_lanes(mask, [&](int l) { D[l] = out[l]; });
  if (in.b) {
    uint64_t* P = c.col(dest(c, in.op[0], 1));
    for_lanes(mask, [&](int l) { P[l] = pmask >> l & 1; });
  }
}

template <bool Sync>
ExecFn pick_shfl(uint8_t mode) {
  switch (mode) {
    case kUp: return exec_shfl<kUp, Sync>;
    case kDown: return exec_shfl<kDown, Sync>;
    case kBfly: return exec_shfl<kBfly, Sync>;
    default: return exec_shfl<kIdx, Sync>;
  }
}

// ---- vote -------------------------------------------------------------------------------------

enum VoteMode : uint8_t { kAll, kAny, kUni, kBallot };

template <uint8_t Mode, bool Sync>
void exec_vote(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint32_t part[32];
  participants<Sync>(c, in, mask, part);
  const Operand& a = in.op[1];
  const uint64_t* A = c.col(a);
  const uint64_t neg = a.neg ? 1 : 0;
  uint32_t bits = 0;  // source predicate of each executing lane
  for_lanes(mask, [&](int l) { bits |= uint32_t((A[l] & 1) ^ neg) << l; });
  uint64_t* D = c.col(in.op[0]);
  for_lanes(mask, [&](int l) {
    const uint32_t p = part[l];
    const uint32_t t = bits & p;
    if constexpr (Mode == kAll) D[l] = t == p;
    else if constexpr (Mode == kAny) D[l] = t != 0;
    else if constexpr (Mode == kUni) D[l] = t == 0 || t == p;
    else D[l] = t;
  });
}

template <bool Sync>
ExecFn pick_vote(uint8_t mode) {
  switch (mode) {
    case kAll: return exec_vote<kAll, Sync>;
    case kAny: return exec_vote<kAny, Sync>;
    case kUni: return exec_vote<kUni, Sync>;
    default: return exec_vote<kBallot, Sync>;
  }
}

// ---- match.sync -------------------------------------------------------------------------------

// in.b: 1 when the destination is `d|p`.
template <bool All, bool Wide>
void exec_match(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint32_t part[32];
  participants<true>(c, in, mask, part);
  const uint64_t* A = c.col(in.op[1]);
  uint64_t v[32];
  for_lanes(mask, [&](int l) { v[l] = Wide ? A[l] : uint64_t(uint32_t(A[l])); });
  uint32_t out[32];
  uint32_t pmask = 0;
  for_lanes(mask, [&](int l) {
    uint32_t same = 0;
    for_lanes(part[l], [&](int k) { same |= uint32_t(v[k] == v[l]) << k; });
    if constexpr (All) {
      const bool all = same == part[l];
      out[l] = all ? part[l] : 0;
      pmask |= uint32_t(all) << l;
    } else {
      out[l] = same;
    }
  });
  uint64_t* D = c.col(dest(c, in.op[0], 0));
  for_lanes(mask, [&](int l) { D[l] = out[l]; });
  if (in.b) {
    uint64_t* P = c.col(dest(c, in.op[0], 1));
    for_lanes(mask, [&](int l) { P[l] = pmask >> l & 1; });
  }
}

// ---- redux.sync -------------------------------------------------------------------------------

enum ReduxOp : uint8_t { kAdd, kMin, kMax, kAnd, kOr, kXor };

// Integer reductions over the participants; T is uint32_t (.u32, .b32) or int32_t (.s32).
template <uint8_t Op, class T>
uint32_t reduce_int(const uint32_t* v, uint32_t set) {
  T acc = T(v[std::countr_zero(set)]);
  for_lanes(set & (set - 1), [&](int k) {
    const T x = T(v[k]);
    if constexpr (Op == kAdd) acc = T(uint32_t(acc) + uint32_t(x));  // wraps: truncated to 32 bits
    else if constexpr (Op == kMin) acc = x < acc ? x : acc;
    else if constexpr (Op == kMax) acc = x > acc ? x : acc;
    else if constexpr (Op == kAnd) acc &= x;
    else if constexpr (Op == kOr) acc |= x;
    else acc ^= x;
  });
  return uint32_t(acc);
}

// Order of non-NaN f32 bit patterns as an unsigned key, with -0.0 < +0.0.
inline uint32_t f32_key(uint32_t x) { return (x & 0x80000000u) ? ~x : x | 0x80000000u; }
inline bool f32_is_nan(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
constexpr uint32_t kCanonicalNaN = 0x7fffffffu;

// f32 .min/.max: .abs reduces |x|; without .NaN, NaN inputs are ignored (all NaN: canonical NaN);
// with .NaN, any NaN input gives the canonical NaN. The result is the selected input's bits.
template <bool Max, bool Abs, bool PropagateNaN>
uint32_t reduce_f32(const uint32_t* v, uint32_t set) {
  bool have = false;
  uint32_t best = 0;
  bool saw_nan = false;
  for_lanes(set, [&](int k) {
    uint32_t x = Abs ? v[k] & 0x7fffffffu : v[k];
    if (f32_is_nan(x)) {
      saw_nan = true;
      return;
    }
    if (!have || (Max ? f32_key(x) > f32_key(best) : f32_key(x) < f32_key(best))) best = x;
    have = true;
  });
  if ((PropagateNaN && saw_nan) || !have) return kCanonicalNaN;
  return best;
}

// Runs `reduce(values, set)` once per distinct participant set and writes the result, extended
// to 64 bits as `sign_extend` says.
template <class Reduce>
void redux_common(ExecCtx& c, const Instr& in, uint32_t mask, bool sign_extend, Reduce&& reduce) {
  uint32_t part[32];
  const uint32_t common = participants<true>(c, in, mask, part);
  const uint64_t* S = c.col(in.op[1]);
  uint32_t v[32];
  for_lanes(mask, [&](int l) { v[l] = uint32_t(S[l]); });
  uint32_t out[32];
  if (common) {
    const uint32_t r = reduce(v, common);
    for_lanes(mask, [&](int l) { out[l] = r; });
  } else {
    uint32_t last_set = 0, last = 0;
    for_lanes(mask, [&](int l) {
      if (part[l] != last_set) {
        last_set = part[l];
        last = reduce(v, last_set);
      }
      out[l] = last;
    });
  }
  uint64_t* D = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { D[l] = sign_extend ? sem::sext(out[l], 32) : uint64_t(out[l]); });
}

template <uint8_t Op, class T>
void exec_redux_int(ExecCtx& c, const Instr& in, uint32_t mask) {
  redux_common(c, in, mask, std::is_signed_v<T>, [](const uint32_t* v, uint32_t set) { return reduce_int<Op, T>(v, set); });
}

template <bool Max, bool Abs, bool PropagateNaN>
void exec_redux_f32(ExecCtx& c, const Instr& in, uint32_t mask) {
  redux_common(c, in, mask, false,
               [](const uint32_t* v, uint32_t set) { return reduce_f32<Max, Abs, PropagateNaN>(v, set); });
}

// ---- activemask, elect.sync, bar.warp.sync -----------------------------------------------------

// activemask: the predicated-on lanes executing together with this one.
void exec_activemask(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint64_t* D = c.col(in.op[0]);
  for_lanes(mask, [&](int l) { D[l] = mask; });
}

// elect.sync d|p, membermask: the leader is the lowest predicated-on lane of the membermask.
void exec_elect(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint32_t part[32];
  participants<true>(c, in, mask, part);
  uint64_t* D = c.col(sem::vec_elem(c, in.op[0], 0));
  uint64_t* P = c.col(sem::vec_elem(c, in.op[0], 1));
  uint32_t leader[32];
  for_lanes(mask, [&](int l) { leader[l] = uint32_t(std::countr_zero(part[l])); });
  for_lanes(mask, [&](int l) {
    D[l] = leader[l];
    P[l] = uint32_t(l) == leader[l];
  });
}

// bar.warp.sync: the engine has gathered every lane of the membermask; nothing is left to do but
// check that each executing lane is a member. (Memory ordering is implicit: ptxsim's memory is
// sequentially consistent.)
void exec_bar_warp_sync(ExecCtx& c, const Instr& in, uint32_t mask) {
  uint32_t part[32];
  participants<true>(c, in, mask, part);
}

// ---- binders ----------------------------------------------------------------------------------

std::string opname(const Binder& b) { return b.src.opcode; }

const Operand& elem(const Binder& b, size_t i, uint32_t k) { return b.dec.current().vec_pool[b.in.op[i].slot + k]; }

// A register operand must have the width the instruction's type implies (ptxas: "Arguments
// mismatch"); immediates are accepted for sources.
void check_width(const Binder& b, const Operand& o, uint32_t bits, size_t index, const char* what) {
  if (o.kind != Operand::Kind::Reg || o.width == 0 || o.width == bits) return;
  b.error("Arguments mismatch for instruction '" + opname(b) + "': operand " + std::to_string(index + 1) + " (" + what +
          ") must be a " + (bits == 1 ? std::string(".pred") : std::to_string(bits) + "-bit") + " register, not a " +
          (o.width == 1 ? std::string(".pred") : std::to_string(o.width) + "-bit") + " one");
}

void check_source(const Binder& b, size_t i, uint32_t bits, const char* what) {
  const Operand& o = b.in.op[i];
  if (o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::Imm)
    b.error("operand " + std::to_string(i + 1) + " (" + what + ") of '" + opname(b) + "' must be a register or an immediate");
  check_width(b, o, bits, i, what);
}

void check_dest(const Binder& b, const Operand& o, uint32_t bits, size_t i, const char* what, bool sink_ok = true) {
  if (o.kind == Operand::Kind::Sink && sink_ok) return;
  if (o.kind != Operand::Kind::Reg)
    b.error("operand " + std::to_string(i + 1) + " (" + what + ") of '" + opname(b) + "' must be a register" +
            (sink_ok ? " or '_'" : ""));
  check_width(b, o, bits, i, what);
}

// Destination `d` or `d|p`; returns whether the predicate is present.
bool check_dest_pair(const Binder& b, uint32_t bits, bool pair_allowed) {
  const Operand& o = b.in.op[0];
  if (o.kind == Operand::Kind::Vec) {
    if (!pair_allowed || o.count != 2) b.error("'" + opname(b) + "' does not take a destination of the form d|p");
    check_dest(b, elem(b, 0, 0), bits, 0, "d");
    check_dest(b, elem(b, 0, 1), 1, 0, "p");
    return true;
  }
  check_dest(b, o, bits, 0, "d");
  return false;
}

// Exactly one of `mods` must be written; returns its index.
uint8_t one_of(const Binder& b, std::initializer_list<const char*> mods, const char* what) {
  int found = -1, i = 0;
  for (const char* m : mods) {
    if (b.has(m)) {
      if (found >= 0) b.error("'" + opname(b) + "' takes only one " + what);
      found = i;
    }
    ++i;
  }
  if (found < 0) {
    std::string list;
    for (const char* m : mods) list += (list.empty() ? "" : ", ") + std::string(m);
    b.error("'" + opname(b) + "' needs one " + what + " (" + list + ")");
  }
  return uint8_t(found);
}

void set_membermask(Binder& b, size_t i, uint8_t name_code) {
  check_source(b, i, 32, "membermask");
  b.in.flags |= kFlagSyncMask;
  b.in.membermask_op = uint8_t(i);
  b.in.d = name_code;
}

// Forms without .sync: removed for sm_70+ from PTX ISA 6.4 (ptxas's message).
void reject_without_sync(const Binder& b, const char* name) {
  const Program& p = b.dec.program();
  if (p.target.sm >= 70 && p.ptx_version >= 64)
    b.error(std::string("Instruction '") + name +
            "' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4");
}

void bind_shfl_common(Binder& b, bool sync) {
  b.require_ops(sync ? 5 : 4, sync ? 5 : 4);
  const uint8_t mode = one_of(b, {".up", ".down", ".bfly", ".idx"}, "mode");
  if (b.type_count() != 1 || b.type(0) != DType::B32) b.error("'" + opname(b) + "' needs the type .b32");
  b.in.a = mode;
  b.in.b = check_dest_pair(b, 32, true);
  check_source(b, 1, 32, "a");
  check_source(b, 2, 32, "b");
  check_source(b, 3, 32, "c");
  if (sync) set_membermask(b, 4, 1);
  b.in.fn = sync ? pick_shfl<true>(mode) : pick_shfl<false>(mode);
}

void bind_vote_common(Binder& b, bool sync) {
  b.require_ops(sync ? 3 : 2, sync ? 3 : 2);
  const uint8_t mode = one_of(b, {".all", ".any", ".uni", ".ballot"}, "mode");
  const DType want = mode == kBallot ? DType::B32 : DType::Pred;
  if (b.type_count() != 1 || b.type(0) != want)
    b.error("'" + opname(b) + "' needs the type " + (mode == kBallot ? ".b32 with .ballot" : ".pred with .all, .any and .uni"));
  check_dest(b, b.in.op[0], mode == kBallot ? 32 : 1, 0, "d", false);
  check_source(b, 1, 1, "a");
  if (sync) set_membermask(b, 2, 2);
  b.in.fn = sync ? pick_vote<true>(mode) : pick_vote<false>(mode);
}

}  // namespace

void bind_shfl_sync(Binder& b) { bind_shfl_common(b, true); }

void bind_shfl(Binder& b) {
  reject_without_sync(b, "shfl");
  bind_shfl_common(b, false);
}

void bind_vote_sync(Binder& b) { bind_vote_common(b, true); }

void bind_vote(Binder& b) {
  reject_without_sync(b, "vote");
  bind_vote_common(b, false);
}

void bind_match(Binder& b) {
  if (!b.has(".sync")) b.error("'match' needs .sync (match.any.sync or match.all.sync)");
  b.require_ops(3, 3);
  const bool all = one_of(b, {".any", ".all"}, "mode") == 1;
  if (b.type_count() != 1 || (b.type(0) != DType::B32 && b.type(0) != DType::B64))
    b.error("'match' needs the type .b32 or .b64");
  const bool wide = b.type(0) == DType::B64;
  b.in.b = check_dest_pair(b, 32, all);
  check_source(b, 1, wide ? 64 : 32, "a");
  set_membermask(b, 2, 3);
  if (all) b.in.fn = wide ? exec_match<true, true> : exec_match<true, false>;
  else b.in.fn = wide ? exec_match<false, true> : exec_match<false, false>;
}

void bind_redux(Binder& b) {
  b.require_ops(3, 3);
  const uint8_t op = one_of(b, {".add", ".min", ".max", ".and", ".or", ".xor"}, "operation");
  if (b.type_count() != 1) b.error("'redux.sync' needs one type");
  const DType t = b.type(0);
  check_dest(b, b.in.op[0], 32, 0, "dst", false);
  check_source(b, 1, 32, "src");
  set_membermask(b, 2, 4);
  if (t == DType::F32) {
    // .f32, .abs, .NaN: sm_100a from PTX ISA 8.6; the sm_100 family ('f') only from 8.8.
    const Program& p = b.dec.program();
    if (p.ptx_version < 88 && !(p.target.sm == 100 && p.target.suffix == 'a'))
      b.error("Modifier '.f32' of instruction 'redux.sync' not supported on .target '" + p.target.name() +
              "' before PTX ISA .version 8.8 (requires sm_100a)");
    const bool max = op == kMax;
    const bool abs = b.has(".abs"), nan = b.has(".NaN");
    ExecFn fns[2][2][2] = {{{exec_redux_f32<false, false, false>, exec_redux_f32<false, false, true>},
                            {exec_redux_f32<false, true, false>, exec_redux_f32<false, true, true>}},
                           {{exec_redux_f32<true, false, false>, exec_redux_f32<true, false, true>},
                            {exec_redux_f32<true, true, false>, exec_redux_f32<true, true, true>}}};
    b.in.fn = fns[max][abs][nan];
    return;
  }
  const bool bitwise = op == kAnd || op == kOr || op == kXor;
  if (bitwise && t != DType::B32) b.error("redux.sync." + std::string(op == kAnd ? "and" : op == kOr ? "or" : "xor") + " needs the type .b32");
  if (!bitwise && t != DType::U32 && t != DType::S32)
    b.error("redux.sync." + std::string(op == kAdd ? "add" : op == kMin ? "min" : "max") + " needs the type .u32 or .s32");
  const bool s = t == DType::S32;
  switch (op) {
    case kAdd: b.in.fn = s ? exec_redux_int<kAdd, int32_t> : exec_redux_int<kAdd, uint32_t>; break;
    case kMin: b.in.fn = s ? exec_redux_int<kMin, int32_t> : exec_redux_int<kMin, uint32_t>; break;
    case kMax: b.in.fn = s ? exec_redux_int<kMax, int32_t> : exec_redux_int<kMax, uint32_t>; break;
    case kAnd: b.in.fn = exec_redux_int<kAnd, uint32_t>; break;
    case kOr: b.in.fn = exec_redux_int<kOr, uint32_t>; break;
    default: b.in.fn = exec_redux_int<kXor, uint32_t>; break;
  }
}

void bind_activemask(Binder& b) {
  b.require_ops(1, 1);
  if (b.type_count() != 1 || b.type(0) != DType::B32) b.error("'activemask' needs the type .b32");
  check_dest(b, b.in.op[0], 32, 0, "d", false);
  b.in.fn = exec_activemask;
}

void bind_elect(Binder& b) {
  b.require_ops(2, 2);
  const Operand& o = b.in.op[0];
  if (o.kind != Operand::Kind::Vec || o.count != 2) b.error("'elect.sync' needs a destination of the form d|p");
  check_dest(b, elem(b, 0, 0), 32, 0, "d");
  check_dest(b, elem(b, 0, 1), 1, 0, "p", false);
  set_membermask(b, 1, 5);
  b.in.fn = exec_elect;
}

void bind_bar_warp_sync(Binder& b) {
  b.require_ops(1, 1);
  set_membermask(b, 0, 6);
  b.in.fn = exec_bar_warp_sync;
}

}  // namespace ptxsim
