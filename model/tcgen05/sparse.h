// Sparse A for tcgen05.mma.sp / tcgen05.mma.ws.sp (PTX ISA 9.7.16.10, "Sparse matrices"): A is
// structured-sparse and stored packed, M x K/2 (the bytes of a dense A of one MMA's 256 bits of K);
// B and the product use the doubled K (512 bits of K). Metadata in Tensor Memory at [sp-meta-tmem]
// says, per chunk of a row, where in the chunk each stored element goes:
//   kind::f16, f8f6f4, i8               2:4 — chunk of 4 elements, 2 stored; a nibble whose bits 1:0
//                                         place stored element 2c and bits 3:2 element 2c + 1. The ISA
//                                         calls only 0x4, 0x8, 0xC, 0x9, 0xD, 0x6, 0xE meaningful
//                                         (9.7.16.10.8.2) but, unlike for tf32 and mxf4, does not make
//                                         the rest undefined; CUTLASS's compressor writes 0x0 (indices
//                                         0, 0) for a chunk with no non-zero element, and NVIDIA's
//                                         sparse GEMM example (83) passes on hardware with it. So every
//                                         nibble is accepted: each 2-bit index selects the B element the
//                                         stored element multiplies (the selection the sparse datapath
//                                         does; for 0x0 both multiply B's element 4c). A chunk with an
//                                         unlisted nibble and a non-zero stored element is reported
//                                         (a warning: its result rests on that reading of the ISA).
//   kind::tf32                           1:2 — chunk of 2 elements, 1 stored; nibble 0x4 puts it at
//                                         index 0, 0xE at index 1; any other nibble is invalid
//                                         (9.7.16.10.8.1: "Rest of the values result in undefined behavior")
//   kind::mxf4, mxf4nvf4 (E2M1 pairs)    4:8 pair-wise — chunk of 8 elements = 4 pairs, 2 pairs stored;
//                                         bits 1:0 place stored pair 0 (elements 4c, 4c + 1), bits 3:2
//                                         pair 1; only the same seven values are valid (9.7.16.10.8.3:
//                                         "Rest of the values result in undefined behavior")
// (mxf8f6f4 is 2:4 like f8f6f4).
//
// Where the nibble of chunk c of row m sits (CUTLASS cute/atom/mma_traits_sm100_frag.hpp
// tmem_e_frg for M = 128 per CTA and tmem_e_frg_ws for .ws M = 32/64/128; PTX gives these layouts
// only as figures), relative to the metadata address:
//   16/32-bit kinds (f16, tf32)  lane 16*(m/16) + m%8 + 8*(c/4), column id2, bits 16*((m/8)%2) + 4*(c%4)
//                                (one column per MMA: 8 chunks of a row in two 16-lane halves)
//   8-bit kinds (f8f6f4, i8,     lane m, column c/8, bits 4*(c%8)   (two columns per MMA; CUTLASS
//   mxf8f6f4) and E2M1 pairs     uses this uint8_t atom for every f8f6f4 / mxf8f6f4 type, its 4/6-bit
//   (mxf4, mxf4nvf4)             types being the same one-byte "unpacksmem" containers as for dense
//                                MMAs; for mxf4* tmem_e_frg<fp4> is the same 128-lane atom over K = 128
//                                at half a bit per element, i.e. the same nibble per chunk of 8)
// With .ws and M = 64 / 32 the metadata of rows 0..M-1 is repeated at lanes +M, +2M, ... (128/M
// copies, CUTLASS's extra mode of stride M); the part of D in lanes [jM, (j+1)M) reads copy j.
// id2 is the sparsity selector (instruction-descriptor bits 1:0): CUTLASS keeps bit 0 of its
// metadata TMEM pointer there for 16/32-bit kinds (id2 = column & 1, address column & ~1); the ISA
// requires 0 for i8 / f8f6f4 (9.7.16.10.8.4, checked with the descriptor); other uses for f16/tf32
// are figure-only and reported as not simulated.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/tcgen05/descriptors.h"
#include "model/tcgen05/mma.h"
#include "model/tmem/tmem.h"

namespace ptxsim::model::tcgen05 {

struct SparseLayout {
  uint32_t chunk = 4;      // elements per chunk
  uint32_t kept = 2;       // stored elements per chunk
  bool wide = false;       // 16/32-bit kinds: the interleaved one-column layout; else row per lane
  uint32_t group = 1;      // elements one metadata index places (2: the E2M1 pairs of mxf4*)
};
SparseLayout sparse_layout(Kind k);
// A 2:4 or 4:8 pair-wise nibble the ISA calls meaningful (its list, 0b0110 included as printed).
inline bool meaningful_nibble(uint32_t nib) {
  switch (nib & 0xF) {
    case 0x4: case 0x8: case 0xC: case 0x9: case 0xD: case 0x6: case 0xE: return true;
    default: return false;
  }
}

// Where chunk c of row m's nibble is, relative to the metadata address, for copy `part` (.ws M < 128).
struct MetaCell {
  tmem::TmemAddr cell;
  uint32_t bit;
};
MetaCell meta_cell(Kind k, uint32_t M, uint32_t id2, uint32_t m, uint32_t c, uint32_t part);
// Columns of metadata one MMA reads (from the metadata address; id2 included).
uint32_t meta_columns(Kind k, uint32_t id2);
// The sparsity selector: bits 1:0 of either instruction descriptor (reserved, so 0, in the
// block-scaled one, where CUTLASS always passes 0).
inline uint32_t sparse_id2(uint32_t idesc) { return idesc & 3; }

// Whether ptxsim simulates this sparse MMA's metadata layout; the reason when not.
std::optional<std::string> sparse_unsupported(Kind k, uint32_t M, unsigned cta_group, bool ws, uint32_t id2,
                                              uint32_t meta_addr);

// A 2:4 chunk whose nibble is not in the ISA's meaningful list and whose stored elements are not all
// zero (raw bits), the first one found.
struct UnlistedChunk {
  bool found = false;
  uint32_t row = 0, chunk = 0, nibble = 0;
};

// Scatters packed A (rows x K/2 element values, row-major) into dense A (rows x K) with the
// metadata read through `nibble(m, c)` (two stored elements with the same index: the second is
// kept; `positions` is what the datapath uses); `positions` (if given) receives, for each packed
// element (rows x K/2), the column of K it stands for (the B element it multiplies). Returns the
// first invalid nibble as "row m chunk c: ..." (the caller adds where it sits), or nullopt;
// `unlisted` (if given) receives the first 2:4 chunk accepted with an unlisted nibble that matters.
std::optional<std::string> sparse_expand(Kind k, uint32_t rows, uint32_t K, const std::vector<uint32_t>& packed,
                                         const std::function<uint32_t(uint32_t m, uint32_t c)>& nibble,
                                         std::vector<uint32_t>& dense, uint32_t* bad_row = nullptr,
                                         uint32_t* bad_chunk = nullptr, std::vector<uint32_t>* positions = nullptr,
                                         UnlistedChunk* unlisted = nullptr);

// The MMA's A of one CTA (rows x K/2 packed element values) scattered to rows x K with the metadata
// copy `part` read from `t` (and the K column of each packed element in `positions`, if given); an
// invalid nibble is reported with its row, chunk and TMEM cell. `note` (if given) receives, if it
// is still empty, the description of the first chunk sparse_expand reports as unlisted.
std::optional<std::string> expand_sparse_a(const MmaOp& op, const tmem::Tmem& t, uint32_t part, uint32_t rows,
                                           const std::vector<uint32_t>& packed, std::vector<uint32_t>& dense,
                                           std::vector<uint32_t>* positions = nullptr, std::string* note = nullptr);

}  // namespace ptxsim::model::tcgen05
