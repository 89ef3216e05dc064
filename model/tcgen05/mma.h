// The tcgen05.mma datapath (PTX ISA 9.7.16.10): D[M x N] = A[M x K] * B[K x N] (+ D), A from
// shared memory (a 64-bit descriptor) or Tensor Memory, B from shared memory, D in Tensor Memory.
// The arithmetic is model/tensorcore's tile product (bit-exact T-FDPA per kind); this file is
// only about where the operands are and where D goes.
//
// With .cta_group::2 the MMA spans a CTA pair (ranks 2j and 2j+1): CTA v holds rows
// [v*M/2, (v+1)*M/2) of A and columns [v*N/2, (v+1)*N/2) of B in its own shared memory at the same
// descriptor addresses, and rows [v*M/2, (v+1)*M/2) of D (all N columns) in its own TMEM (CUTLASS
// SM100_MMA_*_2x1SM_* traits; ptx-facts.md §5.6).
//
// Shared-memory operands (PTX 9.7.16.3, canonical layouts in ptx-facts.md §5.5), with mn the M (or
// N) index, k the K index, b the element size in bytes, SW the swizzle row bytes (32/64/128) and
// LBO/SBO the descriptor's byte offsets; the address is then swizzled on its absolute bits
// (Swizzle<log2(SW/16), 4, 3>: bits 6:4 ^= bits 9:7, masked to the mode's width), the same way a
// TMA load with that swizzle placed the data:
//   K-major,  no swizzle  start + (mn%8)*16 + (mn/8)*SBO + (k*b)%16 + ((k*b)/16)*LBO
//   K-major,  swizzled    start + (mn%8)*SW + (mn/8)*SBO + k*b
//   MN-major, no swizzle  start + (mn*b)%16 + ((mn*b)/16)*SBO + (k%8)*16 + (k/8)*LBO
//   MN-major, swizzled    start + (mn*b)%SW + ((mn*b)/SW)*LBO + (k%8)*SW + (k/8)*SBO
// kind::f8f6f4 / mxf8f6f4 pack 4/6-bit elements into the first 8/12 bytes of each 16-byte chunk (the
// address above is then the element's slot in its chunk); mxf4 / mxf4nvf4 pack two E2M1 per byte.
//
// D in TMEM (PTX 9.7.16.10.5; ptx-facts.md §5.6), one 32-bit column per N element (16-bit D in
// the low half), m the row within the CTA's part of D:
//   cta_group::1 M = 128 (layout D)  lane m, column n
//   cta_group::1 M = 64  (layout F)  lane (m%16) + 32*(m/16), column n
//   cta_group::2 M = 256 (layout A)  lane m, column n           (128 rows per CTA)
//   cta_group::2 M = 128 (layout B)  lane m + 64*(n >= N/2), column n % (N/2)   (64 rows per CTA)
//   .ws M = 128 / 64 / 32            lane m + M*(n / (N*M/128)), column n % (N*M/128): N is cut
//                                    into 128/M parts, part j in lanes [jM, (j+1)M) (layouts D, E,
//                                    G; CUTLASS tmem_frg_ws, "1x4" / "2x2" datapaths)
// A in TMEM uses the lanes of D's row m (column 0), K packed 32 bits per column; with layout B
// (cta_group::2, M = 128) A is duplicated: row m in lanes m and m + 64, each copy read for the D
// lanes beside it (CUTLASS UMMA::TmemAllocMode::Duplicated, cute/atom/mma_traits_sm100_frag.hpp).
// 6-bit A elements sit in 8-bit containers (decompress.h); mxf4 / mxf4nvf4 keep two E2M1 per byte
// as in shared memory (what a plain tcgen05.cp of the shared-memory operand puts there).
// disable-output-lane bit b (of 128 per CTA) leaves D's lane b % 128 of CTA b / 128 of the pair
// unwritten. .ashift shifts A's rows after the MMA has read them (shift.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "model/tcgen05/collector.h"
#include "model/tcgen05/descriptors.h"
#include "model/tmem/tmem.h"

namespace ptxsim::model::tcgen05 {

enum class Major : uint8_t { K, MN };

// Byte address (shared::cta) of element (mn, k) of an operand described by `d`.
uint32_t element_address(const SmemDescriptor& d, Major major, uint32_t elem_bytes, uint32_t mn, uint32_t k);

// element_address with the descriptor's fields worked out once: the chunk walks below ask for an
// address per 16-byte chunk, several times per MMA (checks, hazard scan, gather).
class OperandAddresses {
 public:
  explicit OperandAddresses(const SmemDescriptor& d);
  uint32_t at(Major major, uint32_t b, uint32_t mn, uint32_t k) const {
    uint32_t off;
    if (major == Major::K) {
      const uint32_t kb = k * b;
      off = swizzled_ ? (mn % 8) * sw_ + (mn / 8) * sbo_ + kb : (mn % 8) * 16 + (mn / 8) * sbo_ + kb % 16 + (kb / 16) * lbo_;
    } else {
      const uint32_t mb = mn * b;
      off = swizzled_ ? mb % sw_ + (mb / sw_) * lbo_ + (k % 8) * sw_ + (k / 8) * sbo_
                      : mb % 16 + (mb / 16) * sbo_ + (k % 8) * 16 + (k / 8) * lbo_;
    }
    if (!swizzled_) return start_ + off;
    // The XOR phase comes from the address bits, counted from the pattern's row 0: base offset r
    // puts row 0 r rows above the aligned boundary (the same reading as wgmma's descriptor).
    const uint32_t a = start_ + off - shift_;
    return (a ^ (((a >> 7) & xor_mask_) << 4)) + shift_;
  }
  // Bounds of the chunks for_each_chunk visits for an operand of rows x units units of b bytes,
  // from the layout's terms alone: every address is at least lo and every address + bytes at most
  // end. Each term of the offset is bounded on its own, and the swizzle moves an address by at most
  // 0x70 (it XORs bits 4-6); false (nothing set) for an empty operand or a swizzled one starting
  // below 0x70, where that move could wrap.
  bool bounds(Major major, uint32_t b, uint32_t rows, uint32_t units, uint64_t& lo, uint64_t& end) const {
    if (rows == 0 || units == 0 || (swizzled_ && start_ < 0x70)) return false;
    const uint64_t r = rows - 1, u = units - 1, sw = sw_, lbo = lbo_, sbo = sbo_;
    uint64_t off;
    if (major == Major::K)
      off = swizzled_ ? std::min<uint64_t>(r, 7) * sw + (r / 8) * sbo + u * b
                      : std::min<uint64_t>(r, 7) * 16 + (r / 8) * sbo + 15 + (u * b / 16) * lbo;
    else
      off = swizzled_ ? (sw - 1) + (r * b / sw) * lbo + std::min<uint64_t>(u, 7) * sw + (u / 8) * sbo
                      : 15 + (r * b / 16) * sbo + std::min<uint64_t>(u, 7) * 16 + (u / 8) * lbo;
    const uint64_t slack = swizzled_ ? 0x70 : 0;
    lo = start_ - slack;
    end = start_ + off + slack + 16;
    return true;
  }

 private:
  uint32_t start_, lbo_, sbo_, sw_, shift_, xor_mask_;
  bool swizzled_;
};

// Calls f(address, mn, k, bytes) for every 16-byte chunk of an operand of `rows` x `units` storage
// units of `b` bytes: a chunk holds units (mn, k .. k + 16/b - 1) when K-major, (mn .. mn + 16/b - 1, k)
// when MN-major, contiguous in shared memory (the canonical layouts and the swizzles move whole
// 16-byte chunks). When the MN extent is not a whole number of chunks (MN-major, rows * b % 16 != 0)
// it calls once per unit with bytes = b.
template <class F>
void for_each_chunk(const SmemDescriptor& d, Major major, uint32_t b, uint32_t rows, uint32_t units, F&& f) {
  const uint32_t per = 16 / b;
  const OperandAddresses at(d);
  if (major == Major::K && units % per == 0) {
    for (uint32_t mn = 0; mn < rows; ++mn)
      for (uint32_t k = 0; k < units; k += per) f(at.at(major, b, mn, k), mn, k, 16u);
  } else if (major == Major::MN && rows % per == 0) {
    for (uint32_t k = 0; k < units; ++k)
      for (uint32_t mn = 0; mn < rows; mn += per) f(at.at(major, b, mn, k), mn, k, 16u);
  } else {
    for (uint32_t mn = 0; mn < rows; ++mn)
      for (uint32_t k = 0; k < units; ++k) f(at.at(major, b, mn, k), mn, k, b);
  }
}

// Offset of D(m, n) (m: row within this CTA's part) from the TMEM address operand.
tmem::TmemAddr d_offset(uint32_t M, unsigned cta_group, uint32_t N, uint32_t m, uint32_t n, bool ws = false);

struct MmaOp {
  MmaContext ctx;
  uint32_t idesc = 0;
  uint32_t d_tmem = 0;
  bool a_in_tmem = false;
  uint32_t a_tmem = 0;       // a_in_tmem
  uint64_t a_desc = 0;       // otherwise
  uint64_t b_desc = 0;
  bool enable_input_d = true;
  uint32_t scale_input_d = 0;        // D = A*B + D * 2^-scale (kind::f16 / tf32)
  uint32_t disable_lane[8] = {};     // bit 128v + l = 1: D lane l of the pair's CTA v not written
  bool ashift = false;               // .ashift: A's rows shift down by one after the MMA (A in TMEM)
  uint32_t sfa_tmem = 0, sfb_tmem = 0;  // block-scaled kinds: the scale_A / scale_B matrices in TMEM
  uint32_t sp_meta = 0;                 // .sp: the sparsity metadata in TMEM (model/tcgen05/sparse.h)
  // .sp: an earlier tcgen05 operation of the issuing pipe that has not executed yet (typically the
  // tcgen05.cp that brings the metadata in, which the ISA orders before the MMA: PTX 9.7.16.6.2)
  // writes cells of the metadata, so their contents at issue are not what the MMA will read:
  // check() leaves the nibbles to execute(), which validates them when the MMA runs.
  bool sp_meta_pending = false;
  uint64_t zero_column_mask = 0;        // .ws: model/tcgen05/ws.h
  CollectorUse collector = CollectorUse::Discard;  // of A, or with .ws of B buffer collector_b (checked at
                                                   // issue; the datapath always reads the named matrix)
  uint8_t collector_b = 0;
  CollectorRef collector_ref() const { return {ctx.ws, ctx.ws ? collector_b : uint8_t(0)}; }
};

// The fields of either instruction descriptor (dense or block-scaled) the datapath needs.
struct MmaGeometry {
  uint32_t M = 0, N = 0;
  bool a_mn_major = false, b_mn_major = false, negate_a = false, negate_b = false;
};
MmaGeometry geometry(const MmaOp& op);
// One MMA's K in storage units per row of A / column of B (256 bits of K), and the unit's bytes:
// kind::mxf4 / mxf4nvf4 store two E2M1 elements per byte unit (low nibble first).
uint32_t k_units(Kind k);
uint32_t unit_bytes(Kind k);
// Bytes of each 16-byte shared-memory chunk of A (b_operand false) or B that hold data: 8 / 12 for
// the padded 4- / 6-bit element types of kind::f8f6f4 / mxf8f6f4 (the rest of the chunk is padding
// the MMA does not read), 16 otherwise.
uint32_t smem_chunk_data_bytes(const MmaOp& op, bool b_operand);
// B's storage units per column: K doubles with .sp (A stays k_units: it is stored packed).
inline uint32_t b_units(const MmaContext& c) { return k_units(c.kind) * (c.sparse ? 2 : 1); }
// .ws column shift s (ws.h): the MMA reads B's columns s .. s + N - 1; 0 for every other MMA.
uint32_t b_column_shift(const MmaOp& op);
// B's columns in each CTA's shared memory: N (N/2 per CTA of a pair) plus the column shift.
inline uint32_t b_smem_columns(const MmaOp& op, const MmaGeometry& g) { return g.N / op.ctx.cta_group + b_column_shift(op); }

// Block-scaled kinds: where scale factor j of row m of A (of this CTA's rows) / column n of B sits,
// for the output element whose D lane is d_lane (its 32-lane partition reads its own copy).
// CUTLASS cute/atom/mma_traits_sm100.hpp tmem_sf_frg (ScaleFactorDuplicated4by1 / 2by2) and the
// PTX figures 231-242: lane 32*(d_lane/32) + mn%32, column mn/32, byte sf_id + j of the word; with
// .cta_group::2 and M = 128 (layout B) B's columns n >= N/2 use the upper two partitions and
// count from N/2.
struct ScaleCell {
  tmem::TmemAddr cell;
  uint32_t byte;
};
ScaleCell sfa_cell(uint32_t d_lane, uint32_t m, uint32_t sf_id, uint32_t j);
ScaleCell sfb_cell(uint32_t d_lane, uint32_t n, uint32_t N, bool layout_b, uint32_t sf_id, uint32_t j);
// A scale-factor TMEM address operand without its bits 31:30 (see mma.cpp).
tmem::TmemAddr scale_addr(uint32_t a);

// A rectangle of TMEM cells the MMA reads or writes.
struct TmemRect {
  uint32_t lane = 0, lanes = 0, column = 0, columns = 0;
  bool overlaps(const TmemRect& o) const {
    return lane < o.lane + o.lanes && o.lane < lane + lanes && column < o.column + o.columns &&
           o.column < column + columns;
  }
};
TmemRect d_rect(const MmaOp& op);
TmemRect a_rect(const MmaOp& op);  // a_in_tmem only
TmemRect sfa_rect(const MmaOp& op);  // block-scaled kinds: the TMEM words holding scale_A / scale_B
TmemRect sfb_rect(const MmaOp& op);
TmemRect meta_rect(const MmaOp& op);  // .sp: the metadata columns

// One CTA's side of the MMA: its Tensor Memory, shared memory and allocation state.
struct MmaCta {
  tmem::Tmem* tmem = nullptr;
  std::span<const uint8_t> smem;
  std::function<bool(uint32_t, uint32_t)> allocated;  // (column, ncols) all allocated
  // execute(), .sp: if given and still empty, receives the first metadata chunk whose nibble is
  // outside the ISA's meaningful list yet changes the result (model/tcgen05/sparse.h); a remark for a
  // warning, not an error.
  std::string* note = nullptr;
};

// Every rule the operands must satisfy, checked before the MMA is issued (so execute() cannot
// fail): the descriptors, the kind's numerics model, shared-memory footprints, the TMEM
// rectangles within the array and allocated, and (unless op.sp_meta_pending) the sparsity
// metadata's nibbles. `ctas` has cta_group entries (even CTA first).
// The shared-memory bytes [lo, hi) an operand's chunks span (check() finds them as it bounds-checks
// the chunks; lo == hi: the operand is not in shared memory).
struct SmemSpan {
  uint32_t lo = 0, hi = 0;
};
std::optional<std::string> check(const MmaOp& op, const MmaCta* ctas, SmemSpan* a_span = nullptr,
                                 SmemSpan* b_span = nullptr);

// Reads A and B, computes, writes D in every CTA of `ctas`. Fails (D untouched in the failing
// CTA) only on invalid sparsity metadata: changed after check() accepted it, or, with
// op.sp_meta_pending, first read here.
std::optional<std::string> execute(const MmaOp& op, const MmaCta* ctas);

}  // namespace ptxsim::model::tcgen05
