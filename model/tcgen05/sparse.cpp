#include "model/tcgen05/sparse.h"

#include <cstdio>

namespace ptxsim::model::tcgen05 {

SparseLayout sparse_layout(Kind k) {
  switch (k) {
    case Kind::TF32: return {2, 1, true};
    case Kind::F16: return {4, 2, true};
    case Kind::MXF4:
    case Kind::MXF4NVF4: return {8, 4, false, 2};
    default: return {4, 2, false};
  }
}

MetaCell meta_cell(Kind k, uint32_t M, uint32_t id2, uint32_t m, uint32_t c, uint32_t part) {
  const uint32_t copy = part * (M < 128 ? M : 128);
  if (sparse_layout(k).wide)
    return {{copy + 16 * (m / 16) + m % 8 + 8 * (c / 4), id2}, 16 * ((m / 8) % 2) + 4 * (c % 4)};
  return {{copy + m, id2 + c / 8}, 4 * (c % 8)};
}

uint32_t meta_columns(Kind k, uint32_t id2) { return id2 + (sparse_layout(k).wide ? 1 : 2); }

std::optional<std::string> sparse_unsupported(Kind k, uint32_t M, unsigned cta_group, bool ws, uint32_t id2,
                                              uint32_t meta_addr) {
  const std::string why = " (CUTLASS pins the metadata layout only for 128 rows per CTA, and for .ws M = 32/64/128; "
                          "the PTX ISA gives it only as a figure)";
  if (!ws && M / cta_group != 128)
    return "sparse M = " + std::to_string(M) + " with .cta_group::" + std::to_string(cta_group) + " is not simulated" + why;
  const tmem::TmemAddr a = tmem::TmemAddr::decode(meta_addr);
  if (a.lane != 0)
    return "sp-meta-tmem must address lane 0, not lane " + std::to_string(a.lane) +
           ": the metadata of an MMA spans all 128 lanes";
  if (sparse_layout(k).wide) {
    if (id2 > 1)
      return "sparsity selector (instruction descriptor bits 1:0) = " + std::to_string(id2) + " with " + kind_name(k) +
             " is not simulated (only 0 and 1, CUTLASS's odd-column flag, have a known meaning)";
    if (a.column % 2)
      return "sp-meta-tmem column " + std::to_string(a.column) + " is odd with " + kind_name(k) +
             ": not simulated (CUTLASS passes an even column and moves the column's bit 0 into the sparsity selector)";
  }  // 8-bit kinds: the ISA requires id2 = 0 (validate(InstrDescriptor)); the block-scaled descriptor has no field
  return std::nullopt;
}

namespace {
std::string hex4(uint32_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}
}  // namespace

std::optional<std::string> sparse_expand(Kind k, uint32_t rows, uint32_t K, const std::vector<uint32_t>& packed,
                                         const std::function<uint32_t(uint32_t, uint32_t)>& nibble,
                                         std::vector<uint32_t>& dense, uint32_t* bad_row, uint32_t* bad_chunk,
                                         std::vector<uint32_t>* positions, UnlistedChunk* unlisted) {
  const SparseLayout s = sparse_layout(k);
  const uint32_t KP = K / 2, chunks = K / s.chunk;
  dense.assign(size_t(rows) * K, 0);
  if (positions) positions->assign(size_t(rows) * KP, 0);
  for (uint32_t m = 0; m < rows; ++m)
    for (uint32_t c = 0; c < chunks; ++c) {
      const uint32_t nib = nibble(m, c) & 0xF;
      auto fail = [&](const std::string& rule) -> std::optional<std::string> {
        if (bad_row) *bad_row = m;
        if (bad_chunk) *bad_chunk = c;
        return "row " + std::to_string(m) + " chunk " + std::to_string(c) + " (columns " + std::to_string(s.chunk * c) +
               ".." + std::to_string(s.chunk * c + s.chunk - 1) + " of A): nibble " + hex4(nib) + " " + rule;
      };
      const uint32_t* src = packed.data() + size_t(m) * KP + s.kept * c;
      uint32_t* dst = dense.data() + size_t(m) * K + s.chunk * c;
      uint32_t* pos = positions ? positions->data() + size_t(m) * KP + s.kept * c : nullptr;
      if (s.kept == 1) {
        if (nib != 0x4 && nib != 0xE)
          return fail("is invalid for kind::tf32 (1:2 sparsity: only 0x4, element 0, and 0xe, element 1, are valid)");
        dst[nib == 0x4 ? 0 : 1] = src[0];
        if (pos) pos[0] = s.chunk * c + (nib == 0x4 ? 0 : 1);
      } else {
        const uint32_t i0 = nib & 3, i1 = nib >> 2, g = s.group;
        if (!meaningful_nibble(nib)) {
          if (g != 1)
            return fail("is not one of the values the ISA defines for a 4:8 pair-wise chunk (0x4, 0x8, 0xc, 0x9, 0xd, 0x6, "
                        "0xe; PTX 9.7.16.10.8.3: any other is undefined)");
          // 2:4: accepted (sparse.h); worth a word only if the result depends on it.
          if (unlisted && !unlisted->found && (src[0] != 0 || src[1] != 0)) *unlisted = {true, m, c, nib};
        }
        for (uint32_t e = 0; e < g; ++e) {
          dst[g * i0 + e] = src[e];
          dst[g * i1 + e] = src[g + e];
          if (pos) {
            pos[e] = s.chunk * c + g * i0 + e;
            pos[g + e] = s.chunk * c + g * i1 + e;
          }
        }
      }
    }
  return std::nullopt;
}

std::optional<std::string> expand_sparse_a(const MmaOp& op, const tmem::Tmem& t, uint32_t part, uint32_t rows,
                                           const std::vector<uint32_t>& packed, std::vector<uint32_t>& dense,
                                           std::vector<uint32_t>* positions, std::string* note) {
  const Kind k = op.ctx.kind;
  const tmem::TmemAddr base = tmem::TmemAddr::decode(op.sp_meta);
  const uint32_t M = geometry(op).M, K = 2 * dense_k(k), id2 = sparse_id2(op.idesc);
  auto cell = [&](uint32_t m, uint32_t c) { return meta_cell(k, M, id2, m, c, part); };
  uint32_t bm = 0, bc = 0;
  UnlistedChunk u;
  auto e = sparse_expand(
      k, rows, K, packed,
      [&](uint32_t m, uint32_t c) {
        const MetaCell mc = cell(m, c);
        return t.read(base.lane + mc.cell.lane, base.column + mc.cell.column) >> mc.bit;
      },
      dense, &bm, &bc, positions, note && note->empty() ? &u : nullptr);
  auto where = [&](uint32_t m, uint32_t c) {
    const MetaCell mc = cell(m, c);
    return "bits " + std::to_string(mc.bit + 3) + ":" + std::to_string(mc.bit) + " of TMEM lane " +
           std::to_string(base.lane + mc.cell.lane) + ", column " + std::to_string(base.column + mc.cell.column) +
           " (sp-meta-tmem + lane " + std::to_string(mc.cell.lane) + ", column " + std::to_string(mc.cell.column) + ")";
  };
  if (e) return "invalid sparsity metadata for " + *e + "; it is " + where(bm, bc);
  if (u.found) {
    const uint32_t c0 = sparse_layout(k).chunk * u.chunk;
    *note = "sparsity metadata for row " + std::to_string(u.row) + " chunk " + std::to_string(u.chunk) + " (columns " +
            std::to_string(c0) + ".." + std::to_string(c0 + 3) + " of A): nibble " + hex4(u.nibble) +
            " is not one of the values the ISA calls meaningful for a 2:4 chunk (0x4, 0x8, 0xc, 0x9, 0xd, 0x6, 0xe; PTX "
            "9.7.16.10.8.2) and the chunk's stored elements are not zero: ptxsim multiplies them by B's elements at K = " +
            std::to_string(c0 + (u.nibble & 3)) + " and " + std::to_string(c0 + (u.nibble >> 2)) +
            " (the 2-bit indices as given); it is " + where(u.row, u.chunk);
  }
  return std::nullopt;
}

}  // namespace ptxsim::model::tcgen05
