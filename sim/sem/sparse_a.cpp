#include "sim/sem/sparse_a.h"

#include <cinttypes>
#include <cstdio>

#include "sim/exec/engine.h"
#include "sim/sem/sem_util.h"

namespace ptxsim::sem {

namespace frag = model::frag;

std::string SparseMetaError::describe(int row0) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "bits %d:%d = 0x%" PRIx32, bit + 3, bit, nibble);
  return std::string(buf) + " for row " + std::to_string(row0 + row) + " chunk " + std::to_string(chunk) + " " + rule;
}

bool sparse_columns(const ExecCtx& c, const Operand& meta, frag::SparseKind k, int sp_sel, bool ordered, int K,
                    std::vector<int>& cols, SparseMetaError& err) {
  const int chunk = frag::sparse_chunk_elems(k), kept = chunk / 2, chunks = K / chunk;
  cols.assign(size_t(16 * (K / 2)), 0);
  for (int row = 0; row < 16; ++row)
    for (int ch = 0; ch < chunks; ++ch) {
      const frag::MetaSlot ms = frag::sparse_meta_slot(k, sp_sel, row, ch);
      const uint32_t word = uint32_t(val(c, meta, ms.lane)), nib = (word >> ms.bit) & 0xF;
      int idx[2];
      if (const char* rule = frag::sparse_decode(k, nib, ordered, idx)) {
        err = {row, ch, ms.lane, ms.bit, word, nib, rule};
        return false;
      }
      for (int e = 0; e < kept; ++e) cols[size_t(row * (K / 2) + kept * ch + e)] = chunk * ch + idx[e];
    }
  return true;
}

}  // namespace ptxsim::sem
