// mma.sync.aligned (PTX ISA 9.7.14.5.14): D = A * B + C for one warp, with A, B, C and D spread
// over the lanes' registers as the fragment tables of PTX ISA 9.7.14.5.2-10 say
// (model/fragments/fragments.h).
//
// Arithmetic:
//  * floating point (.f16, .bf16, .tf32, .e4m3, .e5m2): the tensor-core model of
//    model/tensorcore/tensorcore.h, row chosen by (architecture of the .target, A/B types,
//    accumulator); docs/matrix-units.md lists the parameters and their evidence;
//  * .f64: a chain of IEEE fmas in increasing k, d = fma(a_k, b_k, d) starting from c, with the
//    instruction's rounding (.rn default, .rz, .rm, .rp): the PTX ISA says the precision is that of
//    .f64 fma, and MMA-Sim validated the k-ordered chain on A100 and H100;
//  * .s8/.u8, .s4/.u4: exact; the sum wraps modulo 2^32, or with .satfinite is clamped to the s32
//    range;
//  * .b1: d = c + sum_k popc(a_k AND/XOR b_k), wrapping modulo 2^32.
//
// Simulated: m16n8k8 / m16n8k16 .f16 (f16 or f32 accumulator), .bf16; m16n8k4 / m16n8k8 .tf32;
// m16n8k16 / m16n8k32 .e4m3/.e5m2 (sm_89+); m8n8k16 / m16n8k16 / m16n8k32 .s8/.u8; m8n8k32 /
// m16n8k32 / m16n8k64 .s4/.u4; m8n8k128 / m16n8k128 / m16n8k256 .b1 .xor.popc / .and.popc;
// m8n8k4 and (sm_90+) m16n8k4 / m16n8k8 / m16n8k16 .f64. Recognised but not simulated (load-time
// "unimplemented"): the sm_120a .kind / .block_scale forms, and .e4m3/.e5m2 for sm_120+ targets
// (a native fp8 MMA there, with other numerics). m8n8k4 .f16 (four quad-pair products) runs the
// scalar code ptxas emits for it on sm_80+ (exec_mma_m8n8k4_f16).
//
// A lane predicated off, inactive or exited makes the instruction fault: every lane of the warp
// holds part of every matrix.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "model/fragments/fragments.h"
#include "model/numerics/f32_ops.h"
#include "model/numerics/fp_formats.h"
#include "model/numerics/f64_ops.h"
#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"
#include "sim/exec/engine.h"
#include "sim/sem/mma_arith.h"
#include "sim/sem/quad_vectors.h"
#include "sim/sem/sem_util.h"
#include "sim/sem/sparse_a.h"

namespace ptxsim {

namespace sem {
void check_reg_vector(const Binder& b, size_t i, int count, uint32_t width, const char* name);
}  // namespace sem

namespace {

namespace frag = model::frag;
namespace tc = model::tc;
namespace num = model::num;

enum MmaKind : uint8_t { kFloat, kInt, kF64, kBit };
// Instr::d of the .b1 forms: the bit operation applied before the population count.
enum BitOp : uint8_t { kAndPopc, kXorPopc };

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
  return buf;
}

frag::ElemClass class_of(DType t, bool acc) {
  switch (t) {
    case DType::F16: return acc ? frag::ElemClass::Acc16 : frag::ElemClass::B16;
    case DType::BF16: return frag::ElemClass::B16;
    case DType::TF32: return frag::ElemClass::B32;
    case DType::F32:
    case DType::S32: return frag::ElemClass::Acc32;
    case DType::F64: return frag::ElemClass::B64;
    default: return frag::ElemClass::B8;  // .s8 .u8 .e4m3 .e5m2
  }
}

int class_bits(frag::ElemClass c) {
  switch (c) {
    case frag::ElemClass::B16:
    case frag::ElemClass::B16T:
    case frag::ElemClass::Acc16: return 16;
    case frag::ElemClass::B8: return 8;
    case frag::ElemClass::B4: return 4;
    case frag::ElemClass::B1: return 1;
    case frag::ElemClass::B64: return 64;
    default: return 32;
  }
}

tc::ElemFmt elem_fmt(DType t) {
  switch (t) {
    case DType::F16: return tc::ElemFmt::F16;
    case DType::BF16: return tc::ElemFmt::BF16;
    case DType::TF32: return tc::ElemFmt::TF32;
    case DType::E4M3: return tc::ElemFmt::E4M3;
    default: return tc::ElemFmt::E5M2;
  }
}

// Where each lane's register elements sit in one operand's row-major matrix: idx[(r * 32 + lane) *
// per + e] is the matrix index of element e of register r of `lane`. Built once per (shape,
// operand, class) from frag::mma_map, so an mma.sync moves its fragments by table lookups instead
// of evaluating the fragment formulas per element. Tables are published through atomics: launches
// may run on several host threads, and two threads building the same table build equal ones.
struct FragMap {
  int regs, per, bits;
  uint64_t emask;
  std::vector<uint16_t> idx;
  std::vector<uint16_t> tidx;  // as idx, in the transposed matrix (B as tc::mma_tile takes it)
  // Whether the elements of each quad of lanes (4q .. 4q + 3) of a register sit consecutively in
  // idx / tidx, lane by lane (A and B of the 16-bit and 8-bit kinds: a quad holds one row piece), so
  // that they move as one run.
  bool quad_runs = false, tquad_runs = false;
  // Whether, in idx, registers 2p and 2p + 1 hold matrix elements b + 2 * lane and b + 2 * lane + 1
  // (b: where register 2p's lane 0 goes) for every pair p: C and D of the 32-bit accumulators, where
  // a lane's two registers are two neighbours in a row and the lanes follow row by row.
  bool pair_interleaved = false;
  // Whether, for each register r, element e and lane position t in a quad (0 .. 3), the eight lanes
  // t, t + 4, .., t + 28 hold consecutive matrix elements (base, base + 1, .., base + 7): C and D
  // of every accumulator kind transposed (mma_tile_cd_transposed's layout), where a column of the
  // tile runs down the quads' groups. lane_base / tlane_base hold base at (r * 4 + t) * per + e
  // (empty where the layout does not hold), so those operands move as a 4 x 8 transpose per
  // register.
  std::vector<uint16_t> lane_base, tlane_base;
};

std::vector<uint16_t> lane_runs(const std::vector<uint16_t>& idx, int regs, int per) {
  std::vector<uint16_t> base(size_t(regs) * 4 * size_t(per));
  for (int r = 0; r < regs; ++r)
    for (int t = 0; t < 4; ++t)
      for (int e = 0; e < per; ++e) {
        const auto at = [&](int g) { return idx[(size_t(r) * 32 + size_t(4 * g + t)) * size_t(per) + size_t(e)]; };
        for (int g = 1; g < 8; ++g)
          if (at(g) != at(0) + g) return {};
        base[(size_t(r) * 4 + size_t(t)) * size_t(per) + size_t(e)] = at(0);
      }
  return base;
}

bool pairs_interleave(const std::vector<uint16_t>& idx, int regs, int per) {
  if (per != 1 || regs % 2) return false;
  for (int r = 0; r < regs; r += 2) {
    const uint16_t* a = idx.data() + size_t(r) * 32;
    for (int l = 0; l < 32; ++l)
      if (a[l] != a[0] + 2 * l || a[32 + l] != a[0] + 2 * l + 1) return false;
  }
  return true;
}

bool quads_are_runs(const std::vector<uint16_t>& idx, int per) {
  const size_t q = 4 * size_t(per);
  for (size_t i = 0; i + q <= idx.size(); i += q)
    for (size_t j = 1; j < q; ++j)
      if (idx[i + j] != idx[i] + j) return false;
  return idx.size() % q == 0;
}
const FragMap& frag_map(frag::MmaShape s, frag::Operand op, frag::ElemClass cls) {
  constexpr size_t kShapes = size_t(frag::MmaShape::M8N8K4X4) + 1, kOps = 3, kClasses = size_t(frag::ElemClass::B16T) + 1;
  static std::atomic<const FragMap*> maps[kShapes * kOps * kClasses];
  std::atomic<const FragMap*>& slot = maps[(size_t(s) * kOps + size_t(op)) * kClasses + size_t(cls)];
  if (const FragMap* m = slot.load(std::memory_order_acquire)) return *m;
  auto* m = new FragMap;
  const frag::RC size = frag::mma_matrix_size(s, op);
  m->per = frag::mma_elems_per_reg(cls);
  m->regs = frag::mma_elems(s, op, cls) / m->per;
  m->bits = class_bits(cls);
  m->emask = m->bits == 64 ? ~uint64_t{0} : (uint64_t{1} << m->bits) - 1;
  m->idx.resize(size_t(m->regs) * 32 * size_t(m->per));
  m->tidx.resize(m->idx.size());
  for (int r = 0; r < m->regs; ++r)
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < m->per; ++e) {
        const frag::RC rc = frag::mma_map(s, op, cls, lane, r * m->per + e);
        const size_t i = (size_t(r) * 32 + size_t(lane)) * size_t(m->per) + size_t(e);
        m->idx[i] = uint16_t(rc.row * size.col + rc.col);
        m->tidx[i] = uint16_t(rc.col * size.row + rc.row);
      }
  m->quad_runs = quads_are_runs(m->idx, m->per);
  m->tquad_runs = quads_are_runs(m->tidx, m->per);
  m->pair_interleaved = pairs_interleave(m->idx, m->regs, m->per);
  if (m->per == 1 || m->per == 2) {
    m->lane_base = lane_runs(m->idx, m->regs, m->per);
    m->tlane_base = lane_runs(m->tidx, m->regs, m->per);
  }
  const FragMap* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, m, std::memory_order_acq_rel)) {
    delete m;  // another thread published an equal table first
    return *expected;
  }
  return *m;
}

// Reads one operand's fragments of all 32 lanes into a row-major matrix of element bits.
void gather(ExecCtx& c, const Operand& vec, frag::MmaShape s, frag::Operand op, frag::ElemClass cls,
            uint64_t* out) {
  const FragMap& m = frag_map(s, op, cls);
  const uint16_t* idx = m.idx.data();
  for (int r = 0; r < m.regs; ++r) {
    const uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < m.per; ++e) out[*idx++] = (col[lane] >> (m.bits * e)) & m.emask;
  }
}

// Writes D (row-major element bits) back to the lanes' registers.
void scatter(ExecCtx& c, const Operand& vec, frag::MmaShape s, frag::ElemClass cls, const uint64_t* d) {
  const FragMap& m = frag_map(s, frag::Operand::C, cls);
  const uint16_t* idx = m.idx.data();
  for (int r = 0; r < m.regs; ++r) {
    uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    for (int lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (int e = 0; e < m.per; ++e) v |= d[*idx++] << (m.bits * e);
      col[lane] = v;
    }
  }
}

// The float kinds move fragments straight between the registers and the 32-bit element arrays
// tc::mma_tile takes (A and C/D row-major, B transposed): their registers hold `Per` elements of
// 32 / Per bits each, so one fixed-width loop per class replaces gather's and scatter's general
// ones and float_mma's conversions. The two common layouts move a quad of lanes at a time in
// 16-byte vectors (sim/sem/quad_vectors.h): 16-bit pairs whose quads hold runs (A and B of f16 /
// bf16, C and D of f16), and 32-bit accumulators in interleaved register pairs (C and D of f32).
using sem::U16x8;
using sem::U32x4;
using sem::low_words;
using sem::store_lanes;

// Registers whose lanes t, t + 4, .., t + 28 hold a run of eight elements (FragMap::lane_base):
// the low words of the 32 lanes, a 4 x 8 matrix (quad position by group), transposed in two 4 x 4
// blocks, give each run as two vectors.
template <int Per>
void gather_lane_runs(ExecCtx& c, const Operand& vec, int regs, const uint16_t* base, uint32_t* out) {
  constexpr uint32_t bits = 32 / Per, emask = Per == 1 ? ~0u : (1u << bits) - 1;
  for (int r = 0; r < regs; ++r) {
    const uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    U32x4 q[8];  // q[g]: lanes 4g .. 4g + 3; after the transposes q[t]: groups 0-3, q[4 + t]: 4-7
    for (int g = 0; g < 8; ++g) q[g] = low_words(col + 4 * g);
    sem::transpose4(q);
    sem::transpose4(q + 4);
    for (int t = 0; t < 4; ++t)
      for (int e = 0; e < Per; ++e) {
        uint32_t* dst = out + base[(r * 4 + t) * Per + e];
        const U32x4 lo = (q[t] >> (bits * uint32_t(e))) & emask, hi = (q[4 + t] >> (bits * uint32_t(e))) & emask;
        std::memcpy(dst, &lo, 16);
        std::memcpy(dst + 4, &hi, 16);
      }
  }
}
template <int Per>
void scatter_lane_runs(ExecCtx& c, const Operand& vec, int regs, const uint16_t* base, const uint32_t* d) {
  constexpr uint32_t bits = 32 / Per;
  for (int r = 0; r < regs; ++r) {
    // (Not zero-initialised: GCC zeroes the array with `rep stos`, whose 8-byte stores the 16-byte
    // loads below cannot forward from, a stall that was a third of exec_mma's time.)
    U32x4 q[8];
    for (int t = 0; t < 4; ++t)
      for (int e = 0; e < Per; ++e) {
        const uint32_t* src = d + base[(r * 4 + t) * Per + e];
        U32x4 lo, hi;
        std::memcpy(&lo, src, 16);
        std::memcpy(&hi, src + 4, 16);
        q[t] = e == 0 ? lo : q[t] | lo << (bits * uint32_t(e));
        q[4 + t] = e == 0 ? hi : q[4 + t] | hi << (bits * uint32_t(e));
      }
    sem::transpose4(q);
    sem::transpose4(q + 4);
    uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    for (int g = 0; g < 8; ++g) store_lanes(col + 4 * g, q[g]);
  }
}

template <int Per>
void gather32_as(ExecCtx& c, const Operand& vec, const FragMap& m, const uint16_t* idx, bool quad_runs,
                 uint32_t* out) {
  constexpr uint32_t bits = 32 / Per, emask = Per == 1 ? ~0u : (1u << bits) - 1;
  if (Per == 1 && m.pair_interleaved && idx == m.idx.data()) {
    for (int r = 0; r < m.regs; r += 2) {
      const uint64_t* c0 = c.col(sem::vec_elem(c, vec, uint32_t(r)));
      const uint64_t* c1 = c.col(sem::vec_elem(c, vec, uint32_t(r + 1)));
      uint32_t* dst = out + idx[size_t(r) * 32];
      for (int l = 0; l < 32; l += 4) sem::lanes_to_pairs(c0 + l, c1 + l, dst + 2 * l);
    }
    return;
  }
  for (int r = 0; r < m.regs; ++r) {
    const uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    if (Per == 2 && quad_runs) {  // a quad's eight 16-bit elements, zero-extended, to one run
      for (int q = 0; q < 32; q += 4, idx += 8) {
        const U32x4 w = low_words(col + q);
        U16x8 h;
        std::memcpy(&h, &w, 16);
        const U16x8 z = {};
        const U16x8 lo = __builtin_shufflevector(h, z, 0, 8, 1, 9, 2, 10, 3, 11);
        const U16x8 hi = __builtin_shufflevector(h, z, 4, 12, 5, 13, 6, 14, 7, 15);
        std::memcpy(out + *idx, &lo, 16);
        std::memcpy(out + *idx + 4, &hi, 16);
      }
      continue;
    }
    if (quad_runs) {  // a quad's 4 * Per elements go to one run: no table lookup per element
      for (int q = 0; q < 32; q += 4, idx += 4 * Per) {
        uint32_t* dst = out + *idx;
        for (int j = 0; j < 4; ++j) {
          const uint32_t v = uint32_t(col[q + j]);
          for (int e = 0; e < Per; ++e) dst[j * Per + e] = (v >> (bits * uint32_t(e))) & emask;
        }
      }
      continue;
    }
    for (int lane = 0; lane < 32; ++lane) {
      const uint32_t v = uint32_t(col[lane]);
      for (int e = 0; e < Per; ++e) out[*idx++] = (v >> (bits * uint32_t(e))) & emask;
    }
  }
}
template <int Per>
void scatter32_as(ExecCtx& c, const Operand& vec, const FragMap& m, bool transposed, const uint32_t* d) {
  constexpr uint32_t bits = 32 / Per;
  const uint16_t* idx = transposed ? m.tidx.data() : m.idx.data();
  const bool quad_runs = transposed ? m.tquad_runs : m.quad_runs;
  if (Per == 1 && m.pair_interleaved && !transposed) {
    for (int r = 0; r < m.regs; r += 2) {
      uint64_t* c0 = c.col(sem::vec_elem(c, vec, uint32_t(r)));
      uint64_t* c1 = c.col(sem::vec_elem(c, vec, uint32_t(r + 1)));
      const uint32_t* src = d + idx[size_t(r) * 32];
      for (int l = 0; l < 32; l += 4) sem::pairs_to_lanes(src + 2 * l, c0 + l, c1 + l);
    }
    return;
  }
  for (int r = 0; r < m.regs; ++r) {
    uint64_t* col = c.col(sem::vec_elem(c, vec, uint32_t(r)));
    if (Per == 2 && quad_runs) {  // a quad's eight 16-bit elements from one run
      for (int q = 0; q < 32; q += 4, idx += 8) {
        U16x8 lo, hi;  // elements 0-3 and 4-7, one per 32-bit half
        std::memcpy(&lo, d + *idx, 16);
        std::memcpy(&hi, d + *idx + 4, 16);
        const U16x8 h = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
        U32x4 w;
        std::memcpy(&w, &h, 16);
        store_lanes(col + q, w);
      }
      continue;
    }
    for (int lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (int e = 0; e < Per; ++e) v |= uint64_t(d[*idx++]) << (bits * uint32_t(e));
      col[lane] = v;
    }
  }
}
// Whether a map's elements are 32 / per bits each (the classes gather32 / scatter32 take).
bool packs_32(const FragMap& m) { return (m.per == 1 || m.per == 2 || m.per == 4) && m.per * m.bits == 32; }
// The lane runs (FragMap::lane_base) gather32 and scatter32 move the map's elements by, in the
// layout asked for: null where quad runs or interleaved pairs serve, or the layout has none.
const uint16_t* lane_runs_of(const FragMap& m, bool transposed) {
  const std::vector<uint16_t>& lanes = transposed ? m.tlane_base : m.lane_base;
  const bool other = transposed ? m.tquad_runs : (m.quad_runs || m.pair_interleaved);
  return lanes.empty() || other ? nullptr : lanes.data();
}
void gather32(ExecCtx& c, const Operand& vec, const FragMap& m, bool transposed, uint32_t* out) {
  const uint16_t* idx = transposed ? m.tidx.data() : m.idx.data();
  const bool runs = transposed ? m.tquad_runs : m.quad_runs;
  if (const uint16_t* lanes = lane_runs_of(m, transposed)) {
    if (m.per == 1) gather_lane_runs<1>(c, vec, m.regs, lanes, out);
    else gather_lane_runs<2>(c, vec, m.regs, lanes, out);
    return;
  }
  if (m.per == 1) gather32_as<1>(c, vec, m, idx, runs, out);
  else if (m.per == 2) gather32_as<2>(c, vec, m, idx, runs, out);
  else gather32_as<4>(c, vec, m, idx, runs, out);
}
void scatter32(ExecCtx& c, const Operand& vec, const FragMap& m, bool transposed, const uint32_t* d) {
  if (const uint16_t* lanes = lane_runs_of(m, transposed)) {
    if (m.per == 1) scatter_lane_runs<1>(c, vec, m.regs, lanes, d);
    else scatter_lane_runs<2>(c, vec, m.regs, lanes, d);
    return;
  }
  if (m.per == 1) scatter32_as<1>(c, vec, m, transposed, d);
  else if (m.per == 2) scatter32_as<2>(c, vec, m, transposed, d);
  else scatter32_as<4>(c, vec, m, transposed, d);
}

// Every lane of the warp holds part of every matrix: a lane predicated off, inactive or exited is a fault.
void require_full_warp(ExecCtx& c, uint32_t mask, const char* name) {
  if (mask != 0xffffffffu)
    c.fault("error", std::string(name) + " needs all 32 lanes of the warp, but only lanes " + hex32(mask) +
                         " execute it (inactive, exited or predicated off lanes)");
}

// Sign-extends the low `bits` bits of x.
int64_t sext(uint64_t x, int bits) { return int64_t(x << (64 - bits)) >> (64 - bits); }

// Instr fields: in.a = MmaShape, in.c = .satfinite (int) or num::Round (f64), in.b (int, bit) =
// the element class of A and B (frag::ElemClass), in.d = A signed (bit 0), B signed (bit 1) for
// the integer kinds or the BitOp for .b1, in.types = {d, a, b, c} (.s4/.u4/.b1 are not DTypes:
// there A and B are DType::None), in.imm = the tc::DotModel* (float kinds).
template <uint8_t Kind>
void exec_mma(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  require_full_warp(c, mask, "mma.sync.aligned");
  const frag::MmaShape s = frag::MmaShape(in.a);
  const frag::MmaDims dim = frag::mma_dims(s);
  const DType td = in.types[0], ta = in.types[1], tb = in.types[2], tcy = in.types[3];
  const bool int_kind = Kind == kInt || Kind == kBit;
  const frag::ElemClass ca = int_kind ? frag::ElemClass(in.b) : class_of(ta, false),
                        cb = int_kind ? frag::ElemClass(in.b) : class_of(tb, false), cc = class_of(tcy, true),
                        cd = class_of(td, true);
  const int M = dim.m, N = dim.n, K = dim.k;
  if constexpr (Kind == kFloat) {
    const FragMap &ma = frag_map(s, frag::Operand::A, ca), &mb = frag_map(s, frag::Operand::B, cb),
                  &mc = frag_map(s, frag::Operand::C, cc), &md = frag_map(s, frag::Operand::C, cd);
    constexpr int kMaxA = 16 * 32, kMaxB = 32 * 8, kMaxC = 16 * 8;  // m16n8k32 (.e4m3/.e5m2) at most
    if (packs_32(ma) && packs_32(mb) && packs_32(mc) && packs_32(md) && M * K <= kMaxA && K * N <= kMaxB &&
        M * N <= kMaxC) {
      uint32_t A32[kMaxA], Bt32[kMaxB], CD[kMaxC];
      // Read everything before writing: D may share registers with A, B or C. C and D move in the
      // layout the tile runs in (transposed for m16n8: no transposes around the tile).
      const bool cdt = tc::tile_runs_transposed(M, N);
      gather32(c, in.op[1], ma, false, A32);
      gather32(c, in.op[2], mb, true, Bt32);
      gather32(c, in.op[3], mc, cdt, CD);
      const auto& model = *reinterpret_cast<const tc::DotModel*>(in.imm);
      if (cdt) tc::mma_tile_cd_transposed(model, elem_fmt(ta), elem_fmt(tb), M, N, K, A32, Bt32, CD, CD);
      else tc::mma_tile(model, elem_fmt(ta), elem_fmt(tb), M, N, K, A32, Bt32, CD, CD);
      scatter32(c, in.op[0], md, cdt, CD);
      return;
    }
  }
  // The largest operands: A 16 x 256 (.b1 m16n8k256), B 256 x 8.
  uint64_t A[16 * 256], B[256 * 8], C[16 * 8], D[16 * 8];
  // Read everything before writing: D may share registers with A, B or C.
  gather(c, in.op[1], s, frag::Operand::A, ca, A);
  gather(c, in.op[2], s, frag::Operand::B, cb, B);
  gather(c, in.op[3], s, frag::Operand::C, cc, C);
  const sem::MmaExtent e{M, N, K};
  if constexpr (Kind == kFloat)
    sem::float_mma(*reinterpret_cast<const tc::DotModel*>(in.imm), elem_fmt(ta), elem_fmt(tb), e, A, B, C, D);
  else if constexpr (Kind == kInt)
    sem::int_mma(class_bits(ca), in.d & 1, in.d & 2, in.c != 0, e, A, B, C, D);
  else if constexpr (Kind == kBit)
    sem::bit_mma(in.d == kXorPopc, e, A, B, C, D);
  else
    sem::f64_mma(num::Round(in.c), e, A, B, C, D);
  scatter(c, in.op[0], s, cd, D);
}

// m8n8k4 .f16 (four 8x8x4 products in quad pairs). On sm_80 and newer there is no 8x8x4 tensor-core
// instruction: ptxas 13.0 (sm_80, sm_90a, sm_100a) emulates it with shuffles and scalar f32 code
// (f16 operands widened exactly with HADD2.F32; every FMUL/FFMA/FADD round-to-nearest, no .ftz),
// decoded from the cubin:
//  * .f32 D: t = +0; t = fma.rn.f32(a_k, b_k, t) for k = 0..3; d = add.rn.f32(c, t) (an .f16 C is
//    widened exactly first);
//  * .f16 D (.f16 C): p01 = fma.rn(a1, b1, a0 * b0), p23 = fma.rn(a3, b3, a2 * b2);
//    d = cvt.rn.f16.f32((c + p01) + p23) (the products a0*b0, a2*b2 are exact in f32).
// No tensor-core rounding is involved, so this uses model/numerics, not a tensor-core model row.
// Instr fields: in.b / in.d = ElemClass of A / B (row/col), in.types = {d, a, b, c}.
void exec_mma_m8n8k4_f16(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  require_full_warp(c, mask, "mma.sync.aligned");
  const frag::MmaShape s = frag::MmaShape::M8N8K4X4;
  const bool c16 = in.types[3] == DType::F16, d16 = in.types[0] == DType::F16;
  const frag::ElemClass cc = c16 ? frag::ElemClass::Acc16 : frag::ElemClass::Acc32;
  uint64_t A[32 * 4], B[4 * 32], C[32 * 8], D[32 * 8];  // stacked: product j in rows / columns 8j..8j+7
  gather(c, in.op[1], s, frag::Operand::A, frag::ElemClass(in.b), A);
  gather(c, in.op[2], s, frag::Operand::B, frag::ElemClass(in.d), B);
  gather(c, in.op[3], s, frag::Operand::C, cc, C);
  for (int j = 0; j < 4; ++j)
    for (int r = 8 * j; r < 8 * j + 8; ++r)
      for (int col = 0; col < 8; ++col) {
        auto a = [&](int k) { return uint16_t(A[r * 4 + k]); };
        auto b = [&](int k) { return uint16_t(B[k * 32 + 8 * j + col]); };
        const uint64_t cv = C[r * 8 + col];
        if (d16) {
          auto pair = [&](int k) {  // fma(a_{k+1}, b_{k+1}, a_k * b_k)
            const uint32_t p = num::mul_f32(num::f16_to_f32_bits(a(k)), num::f16_to_f32_bits(b(k)));
            return num::fma_f32_f16(a(k + 1), b(k + 1), p);
          };
          const uint32_t sum = num::add_f32(num::add_f32_f16(uint16_t(cv), pair(0)), pair(2));
          D[r * 8 + col] = num::f32_to_f16(sum, num::Round::RN);
        } else {
          uint32_t t = 0;  // +0
          for (int k = 0; k < 4; ++k) t = num::fma_f32_f16(a(k), b(k), t);
          D[r * 8 + col] = c16 ? num::add_f32_f16(uint16_t(cv), t) : num::add_f32(uint32_t(cv), t);
        }
      }
  scatter(c, in.op[0], s, d16 ? frag::ElemClass::Acc16 : frag::ElemClass::Acc32, D);
}

// mma.sp / mma.sp::ordered_metadata (PTX ISA 9.7.14.6): A is packed (16 x K/2, the register layout
// of the dense shape with half the K), B has the sparse shape's layout, and the metadata operand e of
// the lanes sp-sel picks says where each packed element sits (sim/sem/sparse_a.h). Each element of
// D is the dense datapath on the K/2 kept products and the B elements they select: the mma.sync
// model row of the same types (K/2 = 16 .f16/.bf16, 8 .tf32: one T-FDPA group), exact for 8-bit.
// Instr fields: in.a = SparseKind, in.b = sp-sel | ordered << 2 | .satfinite << 3 | fp8 << 4 |
// .s4/.u4 << 5, in.d =
// A signed (bit 0), B signed (bit 1) for .s8/.u8, in.imm = the tc::DotModel* (float), in.types =
// {d, a, b, c}.
struct SparseShapes {
  frag::MmaShape a, b;  // the packed A's dense shape, the sparse shape (B, C, D)
  frag::ElemClass cls;
  int k;                // the logical K
};
SparseShapes sparse_shapes(frag::SparseKind k) {
  switch (k) {
    case frag::SparseKind::Half: return {frag::MmaShape::M16N8K16, frag::MmaShape::M16N8K32, frag::ElemClass::B16, 32};
    case frag::SparseKind::Tf32: return {frag::MmaShape::M16N8K8, frag::MmaShape::M16N8K16, frag::ElemClass::B32, 16};
    default: return {frag::MmaShape::M16N8K32, frag::MmaShape::M16N8K64, frag::ElemClass::B8, 64};
  }
}

void exec_mma_sp(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) return;
  require_full_warp(c, mask, "mma.sp");
  const frag::SparseKind kind = frag::SparseKind(in.a);
  const SparseShapes sh = sparse_shapes(kind);
  const int sel = in.b & 3, K = sh.k, KP = K / 2;
  const bool ordered = in.b & 4, sat = in.b & 8;
  const frag::ElemClass cc = class_of(in.types[3], true), cd = class_of(in.types[0], true);
  uint64_t A[16 * 32], B[64 * 8], C[16 * 8], D[16 * 8];
  gather(c, in.op[1], sh.a, frag::Operand::A, sh.cls, A);
  gather(c, in.op[2], sh.b, frag::Operand::B, sh.cls, B);
  gather(c, in.op[3], sh.b, frag::Operand::C, cc, C);
  std::vector<int> cols;
  sem::SparseMetaError err;
  if (!sem::sparse_columns(c, in.op[4], kind, sel, ordered, K, cols, err))
    c.fault("error", std::string(ordered ? "mma.sp::ordered_metadata" : "mma.sp") + ": invalid sparsity metadata " +
                         hex32(err.word) + " in lane " + std::to_string(err.lane) + " (sp-sel " + std::to_string(sel) +
                         "): " + err.describe(0) + " (PTX ISA 9.7.14.6.1)");
  if (kind == frag::SparseKind::Byte && !(in.b & 16)) {  // .s8/.u8 (bit 4: .e4m3/.e5m2); bit 5: .s4/.u4
    const bool sa = in.d & 1, sb = in.d & 2, nibbles = in.b & 32;
    // .s4/.u4 m16n8k128 is m16n8k64 8-bit on byte units: a byte holds two 4-bit elements (the lower K
    // in bits 3:0) and the metadata places byte pairs, i.e. 4:8 pair-wise sparsity.
    auto product = [&](uint64_t a, uint64_t b) -> int64_t {
      if (!nibbles) return (sa ? sext(a, 8) : int64_t(a)) * (sb ? sext(b, 8) : int64_t(b));
      int64_t sum = 0;
      for (int h = 0; h < 2; ++h) {
        const uint64_t x = (a >> (4 * h)) & 0xF, y = (b >> (4 * h)) & 0xF;
        sum += (sa ? sext(x, 4) : int64_t(x)) * (sb ? sext(y, 4) : int64_t(y));
      }
      return sum;
    };
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) {
        int64_t acc = int32_t(uint32_t(C[i * 8 + j]));
        for (int p = 0; p < KP; ++p) acc += product(A[i * KP + p], B[cols[size_t(i * KP + p)] * 8 + j]);
        if (sat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        D[i * 8 + j] = uint32_t(acc);
      }
  } else {
    const auto& model = *reinterpret_cast<const tc::DotModel*>(in.imm);
    const tc::ElemFmt fa = elem_fmt(in.types[1]), fb = elem_fmt(in.types[2]);
    tc::Value va[32], vb[32];  // K/2 <= 32
    for (int i = 0; i < 16; ++i) {
      for (int p = 0; p < KP; ++p) va[p] = tc::decode_a(model, fa, uint32_t(A[i * KP + p]));
      for (int j = 0; j < 8; ++j) {
        for (int p = 0; p < KP; ++p) vb[p] = tc::decode_b(model, fb, uint32_t(B[cols[size_t(i * KP + p)] * 8 + j]));
        D[i * 8 + j] = tc::dot(model, va, vb, KP, uint32_t(C[i * 8 + j]));
      }
    }
  }
  scatter(c, in.op[0], sh.b, cd, D);
}

// ---- binder ---------------------------------------------------------------------------------------

struct ShapeName {
  const char* mod;
  frag::MmaShape shape;
  bool simulated;
};
constexpr ShapeName kShapes[] = {
    {".m8n8k4", frag::MmaShape::M8N8K4, true},     {".m8n8k16", frag::MmaShape::M8N8K16, true},
    {".m16n8k4", frag::MmaShape::M16N8K4, true},   {".m16n8k8", frag::MmaShape::M16N8K8, true},
    {".m16n8k16", frag::MmaShape::M16N8K16, true}, {".m16n8k32", frag::MmaShape::M16N8K32, true},
    {".m8n8k32", frag::MmaShape::M8N8K32, true},   {".m8n8k128", frag::MmaShape::M8N8K128, true},
    {".m16n8k64", frag::MmaShape::M16N8K64, true},  {".m16n8k128", frag::MmaShape::M16N8K128, true},
    {".m16n8k256", frag::MmaShape::M16N8K256, true},
};

bool is_fp8(DType t) { return t == DType::E4M3 || t == DType::E5M2; }
bool is_int8(DType t) { return t == DType::S8 || t == DType::U8; }

struct Gate {
  uint32_t sm;
  uint32_t ptx;
};

void require(const Binder& b, Gate g, const std::string& feature) {
  const Program& p = b.dec.program();
  if (!target_satisfies(p.target, "sm_" + std::to_string(g.sm)))
    b.error("Feature '" + feature + "' requires .target sm_" + std::to_string(g.sm) + " or higher");
  if (p.ptx_version < g.ptx)
    b.error("Feature '" + feature + "' requires PTX ISA .version " + std::to_string(g.ptx / 10) + "." +
            std::to_string(g.ptx % 10) + " or later");
}

// The modifiers of the opcode that are in `names`, in the order written (repeats kept).
std::vector<std::string> mods_in_order(const Binder& b, std::initializer_list<std::string_view> names) {
  std::vector<std::string> out;
  std::string_view op = b.src.opcode;
  size_t i = 0;
  while (i < op.size()) {
    size_t j = op.find('.', i);
    if (j == std::string_view::npos) j = op.size();
    std::string_view part = op.substr(i, j - i);
    for (std::string_view n : names)
      if (part == n) out.emplace_back(part);
    i = j + 1;
  }
  return out;
}

// The .alayout/.blayout pair in the order written.
std::string layouts(const Binder& b) {
  std::string out;
  std::string_view op = b.src.opcode;
  size_t i = 0;
  while (i < op.size()) {
    size_t j = op.find('.', i);
    if (j == std::string_view::npos) j = op.size();
    std::string_view part = op.substr(i, j - i);
    if (part == "row" || part == "col") out += "." + std::string(part);
    i = j + 1;
  }
  return out;
}

void check_frag_regs(const Binder& b, frag::MmaShape s, frag::ElemClass ca, frag::ElemClass cb, frag::ElemClass cc,
                     frag::ElemClass cd, uint32_t width) {
  sem::check_reg_vector(b, 0, frag::mma_regs(s, frag::Operand::C, cd), width, "mma");
  sem::check_reg_vector(b, 1, frag::mma_regs(s, frag::Operand::A, ca), width, "mma");
  sem::check_reg_vector(b, 2, frag::mma_regs(s, frag::Operand::B, cb), width, "mma");
  sem::check_reg_vector(b, 3, frag::mma_regs(s, frag::Operand::C, cc), width, "mma");
}

// The sub-byte integer forms: .s4/.u4 (m8n8k32, m16n8k32, m16n8k64; .satfinite allowed) and .b1
// with .xor.popc or .and.popc (m8n8k128, m16n8k128, m16n8k256). .s4/.u4/.b1 are modifiers, not
// DTypes, so A's and B's types are read from the opcode in the order written. Target/PTX gates of
// the shapes and of .and come from the table row; the words follow ptxas 13.0.
void bind_mma_subbyte(Binder& b, const ShapeName& shape) {
  const std::string shape_name = shape.mod;
  const frag::MmaShape s = shape.shape;
  const bool b1 = b.has(".b1");
  const std::vector<std::string> ab = mods_in_order(b, {"s4", "u4", "b1"});
  const bool four = s == frag::MmaShape::M8N8K32 || s == frag::MmaShape::M16N8K32 || s == frag::MmaShape::M16N8K64;
  const bool one = s == frag::MmaShape::M8N8K128 || s == frag::MmaShape::M16N8K128 || s == frag::MmaShape::M16N8K256;
  if (ab.size() != 2 || b.type_count() != 2) b.error("Unexpected instruction types specified for 'mma'");
  if ((ab[0] == "b1") != (ab[1] == "b1")) b.error("Incorrect instruction type specified for mma with shape '" + shape_name + "'");
  if (b1 ? !one : !four) {
    if (b1 ? four : one) b.error("Incorrect instruction type specified for mma with shape '" + shape_name + "'");
    b.error("Illegal matrix shape '" + shape_name + "' for instruction 'mma'");
  }
  if (b.type(0) != DType::S32 || b.type(1) != DType::S32)
    b.error("Incorrect instruction type specified for mma with shape '" + shape_name + "'");
  if (layouts(b) != ".row.col") {
    const std::string lay = layouts(b);
    if (lay.size() != 8) b.error("'.alayout.blayout' modifier required for instruction 'mma'");
    if (lay.substr(0, 4) != ".row") b.error("Illegal alayout '" + lay.substr(0, 4) + "' for instruction 'mma'");
    b.error("Illegal blayout '" + lay.substr(4) + "' for instruction 'mma'");
  }
  if (b.has(".rn") || b.has(".rz") || b.has(".rm") || b.has(".rp")) b.error("Illegal rounding modifier for instruction 'mma'");
  const bool has_and = b.has(".and"), has_xor = b.has(".xor"), popc = b.has(".popc");
  frag::ElemClass cls;
  if (b1) {
    if (b.has(".satfinite")) b.error("Illegal modifier '.satfinite' for instruction 'mma'");
    if (!popc && !has_and && !has_xor) b.error("Boolean operation is required for instruction 'mma'");
    if (!popc || has_and == has_xor)
      b.error("Unexpected number of operations specified for mma with shape '" + shape_name + "'");
    cls = frag::ElemClass::B1;
    b.in.d = has_xor ? kXorPopc : kAndPopc;
    b.in.fn = exec_mma<kBit>;
  } else {
    // ptxas 13.0 accepts and ignores a bit operation here; the PTX ISA defines .bitOp.popc for .b1
    // only, so ptxsim rejects it rather than guess.
    if (has_and || has_xor || popc)
      b.error("'.and/.xor .popc' is only defined with .b1 for instruction 'mma' (PTX ISA 9.7.14.5.14)");
    cls = frag::ElemClass::B4;
    b.in.c = b.has(".satfinite");
    b.in.d = uint8_t((ab[0] == "s4" ? 1 : 0) | (ab[1] == "s4" ? 2 : 0));
    b.in.fn = exec_mma<kInt>;
  }
  b.require_ops(4, 4);
  check_frag_regs(b, s, cls, cls, frag::ElemClass::Acc32, frag::ElemClass::Acc32, 32);
  // Instr::types holds {d, a, b, c}; the sub-byte A/B have no DType.
  b.in.types[0] = DType::S32;
  b.in.types[1] = DType::None;
  b.in.types[2] = DType::None;
  b.in.types[3] = DType::S32;
  b.in.ntypes = 4;
  b.in.a = uint8_t(s);
  b.in.b = uint8_t(cls);
}

// m8n8k4 .f16: any .alayout/.blayout, .ctype/.dtype .f16 or .f32 (.f32 C needs an .f32 D).
void bind_mma_m8n8k4_f16(Binder& b, const std::string& lay) {
  const DType td = b.type(0), tcy = b.type(3);
  if (lay.size() != 8) b.error("'.alayout.blayout' modifier required for instruction 'mma'");
  if ((td != DType::F16 && td != DType::F32) || (tcy != DType::F16 && tcy != DType::F32))
    b.error("Unexpected instruction types specified for 'mma' with shape '.m8n8k4'");
  if (tcy == DType::F32 && td != DType::F32)
    b.error(".dtype must be '.f32' when .ctype is '.f32' for 'mma' instruction with shape '.m8n8k4'");
  if (b.has(".satfinite")) b.error("Illegal modifier '.satfinite' for instruction 'mma'");
  if (b.has(".rn") || b.has(".rz") || b.has(".rm") || b.has(".rp")) b.error("Illegal rounding modifier for instruction 'mma'");
  const frag::MmaShape s = frag::MmaShape::M8N8K4X4;
  const frag::ElemClass ca = lay.substr(0, 4) == ".row" ? frag::ElemClass::B16 : frag::ElemClass::B16T;
  const frag::ElemClass cb = lay.substr(4) == ".col" ? frag::ElemClass::B16 : frag::ElemClass::B16T;
  const frag::ElemClass cc = tcy == DType::F16 ? frag::ElemClass::Acc16 : frag::ElemClass::Acc32;
  check_frag_regs(b, s, ca, cb, cc, td == DType::F16 ? frag::ElemClass::Acc16 : frag::ElemClass::Acc32, 32);
  b.in.b = uint8_t(ca);
  b.in.d = uint8_t(cb);
  b.in.fn = exec_mma_m8n8k4_f16;
}

}  // namespace

// Common tail of the mma.sp binders: operands d, a, b, c, e (register), f (constant in range), the
// register vectors of the packed A, the sparse B and C/D, and the Instr fields but the types.
void bind_mma_sp_operands(Binder& b, frag::SparseKind kind, bool ordered, bool sat, bool fp8, bool nibbles,
                          frag::ElemClass cc, frag::ElemClass cd) {
  if (ordered && b.dec.program().ptx_version < 85)
    b.error("Feature '.sp::ordered_metadata' requires PTX ISA .version 8.5 or later");
  b.require_ops(6, 6);
  if (b.op_kind(4) != Operand::Kind::Reg) b.error("Arguments mismatch for instruction 'mma' (the metadata e must be a register)");
  if (b.op_kind(5) != Operand::Kind::Imm) b.error("Arguments mismatch for instruction 'mma' (the sparsity selector f must be a constant)");
  // ptxas 13.0's words; it accepts 2 and 3 for .f16/.bf16 m16n8k32, where the PTX ISA says the
  // selector "must be either 0 (threads T0, T1) or 1 (threads T2, T3)": ptxsim follows the ISA.
  const int64_t sel = b.imm(5), max_sel = frag::sparse_max_sel(kind);
  if (sel < 0 || sel > max_sel)
    b.error("Argument 6 of instruction 'Sparse mma': value '" + std::to_string(sel) +
            "' out of range, expected to be in range [0.." + std::to_string(max_sel) + "]");
  const SparseShapes sh = sparse_shapes(kind);
  sem::check_reg_vector(b, 0, frag::mma_regs(sh.b, frag::Operand::C, cd), 32, "mma");
  sem::check_reg_vector(b, 1, frag::mma_regs(sh.a, frag::Operand::A, sh.cls), 32, "mma");
  sem::check_reg_vector(b, 2, frag::mma_regs(sh.b, frag::Operand::B, sh.cls), 32, "mma");
  sem::check_reg_vector(b, 3, frag::mma_regs(sh.b, frag::Operand::C, cc), 32, "mma");
  b.in.a = uint8_t(kind);
  b.in.b = uint8_t(sel | (ordered ? 4 : 0) | (sat ? 8 : 0) | (fp8 ? 16 : 0) | (nibbles ? 32 : 0));
  b.in.fn = exec_mma_sp;
}

// mma.sp with .s4/.u4 (PTX ISA 9.7.14.6.2.8, m16n8k128; sm_80, PTX 7.1): 4:8 pair-wise sparsity, so
// each kept pair is one byte of the packed A and the whole instruction is m16n8k64 .s8/.u8 on byte
// units. The A layout of the ISA (8 kept elements of 16 consecutive per register, first columns
// 16 * threadID_in_group, + 64 for a16..a31) is the byte image of the 8-bit one; CUTLASS's
// SparseMma<16x8x128, int4b_t> has the 8-bit kind's metadata parameters (2 bits per kept unit, one
// sparsity selector); the B layout (its figure was not readable) is taken to be the byte image of
// the 8-bit B as well, as the dense m16n8k64 .s4 B is of the dense m16n8k32 .s8 B. The half-K
// m16n8k64 .s4/.u4 form is recognised, not simulated (as the other half-K shapes).
void bind_mma_sp_s4(Binder& b, const std::string& shape_name, frag::MmaShape s, bool ordered, const char* name) {
  const std::vector<std::string> ab = mods_in_order(b, {"s4", "u4"});
  if (ab.size() != 2 || b.type_count() != 2 || b.type(0) != DType::S32 || b.type(1) != DType::S32)
    b.error("Unexpected instruction types specified for 'mma'");
  if (s == frag::MmaShape::M16N8K64)
    b.unimplemented(std::string(name) + shape_name +
                    " with .s4/.u4 (one metadata lane per quad; its metadata figure is not modelled, the doubled-K shape is)");
  if (s != frag::MmaShape::M16N8K128)
    b.error("Incorrect instruction type specified for Sparse mma with shape '" + shape_name + "'");
  const std::string lay = layouts(b);
  if (lay != ".row.col") {
    if (lay.size() != 8) b.error("'.alayout.blayout' modifier required for instruction 'mma'");
    if (lay.substr(0, 4) != ".row") b.error("Illegal alayout '" + lay.substr(0, 4) + "' for instruction 'mma'");
    b.error("Illegal blayout '" + lay.substr(4) + "' for instruction 'mma'");
  }
  if (b.has(".rn") || b.has(".rz") || b.has(".rm") || b.has(".rp")) b.error("Illegal rounding modifier for instruction 'mma'");
  if (b.has(".and") || b.has(".xor") || b.has(".popc"))
    b.error("'.and/.xor .popc' is only defined with .b1 for instruction 'mma' (PTX ISA 9.7.14.5.14)");
  bind_mma_sp_operands(b, frag::SparseKind::Byte, ordered, b.has(".satfinite"), false, true, frag::ElemClass::Acc32,
                       frag::ElemClass::Acc32);
  b.in.d = uint8_t((ab[0] == "s4" ? 1 : 0) | (ab[1] == "s4" ? 2 : 0));
  b.in.types[0] = DType::S32;
  b.in.types[1] = DType::None;
  b.in.types[2] = DType::None;
  b.in.types[3] = DType::S32;
  b.in.ntypes = 4;
}

// mma.sp{::ordered_metadata}.sync.aligned.shape.row.col.dtype.atype.btype.ctype d, a, b, c, e, f.
// Simulated: m16n8k32 .f16/.bf16, m16n8k16 .tf32, m16n8k64 .s8/.u8 and .e4m3/.e5m2 (the shapes
// CUTLASS uses, whose metadata figures are those of wgmma.mma_async.sp), m16n8k128 .s4/.u4 (above).
// Recognised, not simulated: the half-K shapes (m16n8k16 .f16/.bf16, m16n8k8 .tf32, m16n8k32 8-bit,
// m16n8k64 4-bit: one lane per quad, metadata figures not modelled), fp8 on sm_120+ and the sm_120a
// .kind forms.
void bind_mma_sp(Binder& b) {
  const bool ordered = b.src.opcode.rfind("mma.sp::ordered_metadata", 0) == 0;
  const char* name = ordered ? "mma.sp::ordered_metadata" : "mma.sp";
  if (!b.has(".sync")) b.error(std::string(".sync modifier required for instruction '") + name + "'");
  if (!b.has(".aligned")) b.error(std::string(".aligned modifier required for instruction '") + name + "'");
  for (const char* m : {".kind::f8f6f4", ".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4", ".block_scale",
                        ".e3m2", ".e2m3", ".e2m1"})
    if (b.has(m)) b.unimplemented(std::string(name) + " with " + m + " (sm_120a forms)");
  const ShapeName* shape = nullptr;
  for (const ShapeName& sn : kShapes)
    if (b.has(sn.mod)) {
      if (shape) b.error("more than one shape modifier for instruction 'mma'");
      shape = &sn;
    }
  if (!shape) b.error("a shape modifier (.m16n8k32, ...) is required for instruction 'mma'");
  if (b.has(".s4") || b.has(".u4")) return bind_mma_sp_s4(b, shape->mod, shape->shape, ordered, name);
  if (b.type_count() != 4) b.error("Unexpected instruction types specified for 'mma' (need .dtype.atype.btype.ctype)");
  const DType td = b.type(0), ta = b.type(1), tb = b.type(2), tcy = b.type(3);
  const std::string shape_name = shape->mod, lay = layouts(b);
  if (lay.size() != 8) b.error("'.alayout.blayout' modifier required for instruction 'mma'");
  if (lay != ".row.col") {
    if (lay.substr(0, 4) != ".row") b.error("Illegal alayout '" + lay.substr(0, 4) + "' for instruction 'mma'");
    b.error("Illegal blayout '" + lay.substr(4) + "' for instruction 'mma'");
  }
  if (b.has(".rn") || b.has(".rz") || b.has(".rm") || b.has(".rp")) b.error("Illegal rounding modifier for instruction 'mma'");
  auto bad_types = [&] { b.error("Unexpected instruction types specified for 'mma' with shape '" + shape_name + "'"); };
  const frag::MmaShape s = shape->shape;
  const bool sat = b.has(".satfinite");
  if (sat && !is_int8(ta)) bad_types();
  frag::SparseKind kind;
  tc::AccFmt acc = tc::AccFmt::F32;
  auto half_k = [&](const char* what) {
    b.unimplemented(std::string(name) + shape_name + " with " + what +
                    " (one metadata lane per quad; its metadata figure is not modelled, the doubled-K shape is)");
  };
  if (ta == DType::F16 || ta == DType::BF16) {
    if (tb != ta || td != tcy) bad_types();
    if (td == DType::F16 && ta == DType::F16) acc = tc::AccFmt::F16;
    else if (td != DType::F32) bad_types();
    if (s == frag::MmaShape::M16N8K16) half_k(".f16/.bf16");
    if (s != frag::MmaShape::M16N8K32) bad_types();
    kind = frag::SparseKind::Half;
  } else if (ta == DType::TF32) {
    if (tb != ta || td != DType::F32 || tcy != DType::F32) bad_types();
    if (s == frag::MmaShape::M16N8K8) half_k(".tf32");
    if (s != frag::MmaShape::M16N8K16) bad_types();
    kind = frag::SparseKind::Tf32;
  } else if (is_int8(ta)) {
    if (!is_int8(tb) || td != DType::S32 || tcy != DType::S32) bad_types();
    if (s == frag::MmaShape::M16N8K32) half_k(".s8/.u8");
    if (s != frag::MmaShape::M16N8K64) bad_types();
    kind = frag::SparseKind::Byte;
  } else if (is_fp8(ta)) {
    // sm_89+ (table gate). ptxas 13.0 has no fp8 sparse MMA for sm_90a/sm_100a: it widens A and B to
    // f16, runs one sparse f16 HMMA on the even chunks (packed bytes 0-1 of each register) from +0,
    // a second on the odd chunks accumulating it, and FADDs C: the fp8 mma.sync row (Pairs4 split,
    // C last) applied to the K/2 kept products in packed order. sm_120+ has a native fp8 MMA.
    if (!is_fp8(tb) || td != DType::F32 || tcy != DType::F32) {
      if (td == DType::F16 || tcy == DType::F16)
        b.error("Instruction 'mma with with F16 accumulator and F8 floating point type' not supported on .target '" +
                b.dec.program().target.name() + "'");
      bad_types();
    }
    if (b.dec.program().target.sm >= 120)
      b.unimplemented(std::string(name) + " with .e4m3/.e5m2 on sm_120 and newer (a native fp8 MMA there; not modelled)");
    if (s != frag::MmaShape::M16N8K64) bad_types();
    kind = frag::SparseKind::Byte;
  } else {
    bad_types();
  }
  bind_mma_sp_operands(b, kind, ordered, sat, is_fp8(ta), false, class_of(tcy, true), class_of(td, true));
  if (is_int8(ta)) {
    b.in.d = uint8_t((ta == DType::S8 ? 1 : 0) | (tb == DType::S8 ? 2 : 0));
  } else {
    const uint32_t sm = b.dec.program().target.sm;
    const tc::DotModel* m =
        tc::find_model(sm >= 100 ? tc::Arch::SM100 : tc::Arch::SM90, tc::Unit::MmaSync, elem_fmt(ta), elem_fmt(tb), acc);
    if (!m) b.unimplemented("no tensor-core arithmetic model for this mma.sp type combination");
    b.in.imm = reinterpret_cast<uint64_t>(m);
  }
}

void bind_mma(Binder& b) {
  if (!b.has(".sync")) b.error(".sync modifier required for instruction 'mma'");
  if (!b.has(".aligned")) b.error(".aligned modifier required for instruction 'mma'");
  for (const char* m : {".kind::f8f6f4", ".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4", ".block_scale",
                        ".e3m2", ".e2m3", ".e2m1"})
    if (b.has(m)) b.unimplemented(std::string("mma.sync with ") + m + " (sm_120a forms)");
  const ShapeName* shape = nullptr;
  for (const ShapeName& sn : kShapes)
    if (b.has(sn.mod)) {
      if (shape) b.error("more than one shape modifier for instruction 'mma'");
      shape = &sn;
    }
  if (!shape) b.error("a shape modifier (.m16n8k16, ...) is required for instruction 'mma'");
  if (b.has(".s4") || b.has(".u4") || b.has(".b1")) return bind_mma_subbyte(b, *shape);
  if (b.has(".xor") || b.has(".and") || b.has(".popc")) b.error("Unexpected instruction types specified for 'mma'");
  if (!shape->simulated) b.unimplemented(std::string("mma.sync") + shape->mod);
  b.require_ops(4, 4);
  if (b.type_count() != 4) b.error("Unexpected instruction types specified for 'mma' (need .dtype.atype.btype.ctype)");
  const DType td = b.type(0), ta = b.type(1), tb = b.type(2), tcy = b.type(3);
  const frag::MmaShape s = shape->shape;
  const std::string lay = layouts(b);
  if (lay.size() != 8) b.error("'.alayout.blayout' modifier required for instruction 'mma'");
  if (ta == DType::F16 && tb == DType::F16 && s == frag::MmaShape::M8N8K4) return bind_mma_m8n8k4_f16(b, lay);
  if (lay != ".row.col") {
    if (lay.substr(0, 4) != ".row") b.error("Illegal alayout '" + lay.substr(0, 4) + "' for instruction 'mma'");
    b.error("Illegal blayout '" + lay.substr(4) + "' for instruction 'mma'");
  }
  const std::string shape_name = shape->mod;
  auto bad_types = [&] { b.error("Unexpected instruction types specified for 'mma' with shape '" + shape_name + "'"); };
  const bool sat = b.has(".satfinite");
  const int rmods = int(b.has(".rn")) + int(b.has(".rz")) + int(b.has(".rm")) + int(b.has(".rp"));
  if (rmods > 1) b.error("Multiple rounding modifiers specified");
  const bool f64 = ta == DType::F64;
  if (rmods && !f64) b.error("Illegal rounding modifier for instruction 'mma'");
  if (sat && !is_int8(ta)) bad_types();

  MmaKind kind = kFloat;
  tc::AccFmt acc = tc::AccFmt::F32;
  if (ta == DType::F16 || ta == DType::BF16) {
    if (tb != ta) bad_types();
    if (s == frag::MmaShape::M16N8K8) require(b, ta == DType::BF16 ? Gate{80, 70} : Gate{75, 65}, "mma" + shape_name);
    else if (s == frag::MmaShape::M16N8K16) require(b, {80, 70}, "mma" + shape_name);
    else bad_types();
    if (td != tcy) b.error(".dtype must be the same as .ctype for 'mma' instruction with shape '" + shape_name + "'");
    if (td == DType::F16 && ta == DType::F16) acc = tc::AccFmt::F16;
    else if (td != DType::F32) bad_types();
  } else if (ta == DType::TF32) {
    if (tb != ta || td != DType::F32 || tcy != DType::F32) bad_types();
    if (s != frag::MmaShape::M16N8K4 && s != frag::MmaShape::M16N8K8) bad_types();
    require(b, {80, 70}, "mma .tf32");
  } else if (is_fp8(ta)) {
    if (!is_fp8(tb) || td != tcy) bad_types();
    if (s == frag::MmaShape::M16N8K32) require(b, {89, 84}, "mma with FP8 floating point type");
    else if (s == frag::MmaShape::M16N8K16) require(b, {89, 87}, "mma with FP8 floating point type and .m16n8k16 shape");
    else bad_types();
    if (td == DType::F16) {
      require(b, {89, 87}, "mma with FP8 floating point type and FP16 accumulation");
      acc = tc::AccFmt::F16;
    } else if (td != DType::F32) {
      bad_types();
    }
  } else if (is_int8(ta)) {
    if (!is_int8(tb) || td != DType::S32 || tcy != DType::S32) bad_types();
    if (s == frag::MmaShape::M8N8K16) require(b, {75, 65}, "mma.m8n8k16");
    else if (s == frag::MmaShape::M16N8K16 || s == frag::MmaShape::M16N8K32) require(b, {80, 70}, "mma" + shape_name);
    else bad_types();
    kind = kInt;
  } else if (f64) {
    if (tb != DType::F64 || td != DType::F64 || tcy != DType::F64) bad_types();
    if (s == frag::MmaShape::M8N8K4) require(b, {80, 70}, "mma.m8n8k4 with double types");
    else if (s == frag::MmaShape::M16N8K4 || s == frag::MmaShape::M16N8K8 || s == frag::MmaShape::M16N8K16)
      require(b, {90, 78}, shape_name + " with double types");
    else bad_types();
    kind = kF64;
  } else {
    bad_types();
  }

  const frag::ElemClass ca = class_of(ta, false), cb = class_of(tb, false), cc = class_of(tcy, true),
                        cd = class_of(td, true);
  if (!frag::mma_layout_exists(s, frag::Operand::A, ca) || !frag::mma_layout_exists(s, frag::Operand::B, cb) ||
      !frag::mma_layout_exists(s, frag::Operand::C, cc))
    bad_types();
  check_frag_regs(b, s, ca, cb, cc, cd, f64 ? 64 : 32);

  b.in.a = uint8_t(s);
  if (kind == kInt) {
    b.in.c = sat;
    b.in.b = uint8_t(frag::ElemClass::B8);
    b.in.d = uint8_t((ta == DType::S8 ? 1 : 0) | (tb == DType::S8 ? 2 : 0));
    b.in.fn = exec_mma<kInt>;
  } else if (kind == kF64) {
    b.in.c = uint8_t(b.has(".rz") ? num::Round::RZ : b.has(".rm") ? num::Round::RM
                     : b.has(".rp") ? num::Round::RP : num::Round::RN);
    b.in.fn = exec_mma<kF64>;
  } else {
    // The simulated device follows the target: sm_100 and newer use the Blackwell rows, everything
    // older the Hopper rows (ptxsim models sm_90a/sm_100a-class devices).
    const uint32_t sm = b.dec.program().target.sm;
    if (sm >= 120 && is_fp8(ta))
      b.unimplemented("mma.sync with .e4m3/.e5m2 on sm_120 and newer (a native QMMA there; not modelled)");
    const tc::Arch arch = sm >= 100 ? tc::Arch::SM100 : tc::Arch::SM90;
    const tc::DotModel* m = tc::find_model(arch, tc::Unit::MmaSync, elem_fmt(ta), elem_fmt(tb), acc);
    if (!m) b.unimplemented("no tensor-core arithmetic model for this mma.sync type combination");
    b.in.imm = reinterpret_cast<uint64_t>(m);
    b.in.fn = exec_mma<kFloat>;
  }
}

}  // namespace ptxsim
