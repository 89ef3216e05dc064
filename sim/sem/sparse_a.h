// Sparse A of mma.sp{::ordered_metadata} and wgmma.mma_async.sp (PTX ISA 9.7.14.6, 9.7.15.6): the
// metadata of a warp's 16 rows, validated, turned into the logical column of every packed element.
// The per-lane layout and the nibble rules are model/fragments (SparseKind, sparse_meta_slot,
// sparse_decode); this reads the registers.
//
// Arithmetic (both instructions): each output element is the dense datapath applied to the K/2
// kept products, i.e. the B elements the metadata selects are gathered and one dense dot product of
// K/2 terms is computed (NVIDIA describes the sparse tensor core as selecting the B values with the
// metadata and doing a dense operation of half the size; ptxas emits a single HMMA.SP / IMMA.SP for
// mma.sp on sm_90a). For the tensor-core rows this makes K/2 one T-FDPA group (K/2 <= L). Not
// validated on hardware.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/fragments/fragments.h"
#include "sim/exec/instr.h"

namespace ptxsim {
struct ExecCtx;

namespace sem {

struct SparseMetaError {
  int row = 0, chunk = 0, lane = 0, bit = 0;
  uint32_t word = 0, nibble = 0;
  const char* rule = nullptr;
  // "bits 11:8 = 0xa for row R chunk C <rule>" (row numbered from row0).
  std::string describe(int row0) const;
};

// cols[r * K/2 + p] = the column (0..K-1) in row r of packed element p, for the warp's 16 rows.
// Returns false, with `err` the first bad nibble (rows, then chunks, in order).
bool sparse_columns(const ExecCtx& c, const Operand& meta, model::frag::SparseKind k, int sp_sel, bool ordered, int K,
                    std::vector<int>& cols, SparseMetaError& err);

}  // namespace sem
}  // namespace ptxsim
