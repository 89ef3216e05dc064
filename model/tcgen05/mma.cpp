#include "model/tcgen05/mma.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "model/numerics/half_ops.h"
#include "model/tcgen05/decompress.h"
#include "model/tcgen05/shift.h"
#include "model/tcgen05/sparse.h"
#include "model/tcgen05/ws.h"
#include "model/tensorcore/block_scaled.h"
#include "model/tensorcore/tensorcore.h"
#include "model/tensorcore/tile.h"

namespace ptxsim::model::tcgen05 {

namespace {

// Element format of an A/B field for a float kind.
tc::ElemFmt elem_fmt(Kind k, uint32_t code) {
  if (k == Kind::F16) return code == fmt::kBF16 ? tc::ElemFmt::BF16 : tc::ElemFmt::F16;
  if (k == Kind::TF32) return tc::ElemFmt::TF32;
  if (k == Kind::MXF4 || k == Kind::MXF4NVF4) return tc::ElemFmt::E2M1;
  switch (code) {
    case fmt::kE4M3: return tc::ElemFmt::E4M3;
    case fmt::kE5M2: return tc::ElemFmt::E5M2;
    case fmt::kE2M3: return tc::ElemFmt::E2M3;
    case fmt::kE3M2: return tc::ElemFmt::E3M2;
    default: return tc::ElemFmt::E2M1;
  }
}

// The element's value bits inside its storage unit, and its sign bit. A 4/6-bit element's shared
// memory slot holds it in the low bits; in TMEM its holder byte is shifted first (decompress.h).
uint32_t value_mask(tc::ElemFmt f) {
  switch (f) {
    case tc::ElemFmt::E2M3:
    case tc::ElemFmt::E3M2: return 0x3f;
    case tc::ElemFmt::E2M1: return 0xf;
    case tc::ElemFmt::E4M3:
    case tc::ElemFmt::E5M2: return 0xff;
    case tc::ElemFmt::F16:
    case tc::ElemFmt::BF16: return 0xffff;
    default: return 0xffffffffu;
  }
}
uint32_t sign_bit(tc::ElemFmt f) { return (value_mask(f) >> 1) + 1; }

// Bits per element of a 4- or 6-bit type of kind::f8f6f4 / mxf8f6f4 (0: one element per unit).
uint32_t packed_bits(Kind k, tc::ElemFmt f) {
  if (k != Kind::F8F6F4 && k != Kind::MXF8F6F4) return 0;
  return f == tc::ElemFmt::E2M1 ? 4 : (f == tc::ElemFmt::E3M2 || f == tc::ElemFmt::E2M3) ? 6 : 0;
}



}  // namespace

uint32_t unit_bytes(Kind k) {
  switch (k) {
    case Kind::F16: return 2;
    case Kind::TF32: return 4;
    default: return 1;
  }
}
uint32_t k_units(Kind k) { return 32 / unit_bytes(k); }

MmaGeometry geometry(const MmaOp& op) {
  MmaGeometry g;
  if (is_block_scaled(op.ctx.kind)) {
    const InstrDescriptorBlockScaled d = InstrDescriptorBlockScaled::decode(op.idesc);
    g = {d.m(), d.n(), d.a_major != 0, d.b_major != 0, d.negate_a != 0, d.negate_b != 0};
  } else {
    const InstrDescriptor d = InstrDescriptor::decode(op.idesc);
    g = {d.m(), d.n(), d.a_major != 0, d.b_major != 0, d.negate_a != 0, d.negate_b != 0};
  }
  return g;
}

ScaleCell sfa_cell(uint32_t d_lane, uint32_t m, uint32_t sf_id, uint32_t j) {
  return {{32 * (d_lane / 32) + m % 32, m / 32}, sf_id + j};
}

ScaleCell sfb_cell(uint32_t d_lane, uint32_t n, uint32_t N, bool layout_b, uint32_t sf_id, uint32_t j) {
  const uint32_t nn = layout_b ? n % (N / 2) : n;
  return {{32 * (d_lane / 32) + nn % 32, nn / 32}, sf_id + j};
}

OperandAddresses::OperandAddresses(const SmemDescriptor& d)
    : start_(d.start_bytes()), lbo_(d.lbo_bytes()), sbo_(d.sbo_bytes()), sw_(d.swizzle_bytes()),
      shift_(d.base_offset << 7), xor_mask_(0), swizzled_(d.layout_type != uint32_t(SmemLayout::kNone)) {
  // The swizzle XORs address bits 4.. with bits 7..: 3, 2, 1 or 0 of them (128B, 64B, 32B, none).
  const uint32_t lt = d.layout_type;
  xor_mask_ = (lt == 2 ? 128 : lt == 4 ? 64 : lt == 6 ? 32 : 16) / 16 - 1;
}

uint32_t element_address(const SmemDescriptor& d, Major major, uint32_t b, uint32_t mn, uint32_t k) {
  return OperandAddresses(d).at(major, b, mn, k);
}

tmem::TmemAddr d_offset(uint32_t M, unsigned cta_group, uint32_t N, uint32_t m, uint32_t n, bool ws) {
  if (ws) {
    const uint32_t cols = N * M / 128;  // N cut into 128/M parts
    return {m + M * (n / cols), n % cols};
  }
  if (cta_group == 2 && M == 128) return {m + (n >= N / 2 ? 64 : 0), n % (N / 2)};
  if (cta_group == 1 && M == 64) return {(m % 16) + 32 * (m / 16), n};
  return {m, n};
}

namespace {

// Rows of D (and A) each CTA holds, and the lanes / columns its part of D spans.
uint32_t rows_per_cta(const MmaOp& op, const MmaGeometry& id) { return id.M / op.ctx.cta_group; }
uint32_t d_lanes(const MmaOp& op, const MmaGeometry& id) {
  if (op.ctx.ws) return 128;
  if (op.ctx.cta_group == 1 && id.M == 64) return 16 + 32 * 3;
  return op.ctx.cta_group == 2 ? 128 : id.M;
}
bool layout_b(const MmaOp& op, const MmaGeometry& g) { return op.ctx.cta_group == 2 && g.M == 128; }
// A in TMEM with layout B: two copies of this CTA's rows (lanes m and m + 64).
bool a_duplicated(const MmaOp& op, const MmaGeometry& g) { return op.a_in_tmem && layout_b(op, g); }

}  // namespace

TmemRect d_rect(const MmaOp& op) {
  const MmaGeometry id = geometry(op);
  const tmem::TmemAddr d = tmem::TmemAddr::decode(op.d_tmem);
  const uint32_t cols = op.ctx.ws ? id.N * id.M / 128 : layout_b(op, id) ? id.N / 2 : id.N;
  return {d.lane, d_lanes(op, id), d.column, cols};
}

TmemRect a_rect(const MmaOp& op) {
  const MmaGeometry id = geometry(op);
  const tmem::TmemAddr a = tmem::TmemAddr::decode(op.a_tmem);
  const uint32_t lanes = op.ctx.cta_group == 1 && id.M == 64 ? 16 + 32 * 3 : a_duplicated(op, id) ? 128 : rows_per_cta(op, id);
  return {a.lane, lanes, a.column, k_units(op.ctx.kind) * unit_bytes(op.ctx.kind) / 4};
}

uint32_t b_column_shift(const MmaOp& op) { return op.ctx.ws ? column_shift(op.zero_column_mask) : 0; }

// The TMEM address of a scale-factor matrix. Bits 31:30 are not part of it: CUTLASS keeps the byte
// offset of its sub-word TMEM pointers there, passes such an address to the instruction unchanged
// and copies the same bits into the descriptor's scale-factor ID (cute/arch/mma_sm100_desc.hpp
// make_runtime_instr_desc_block_scaled), so ptxsim reads the byte from the SF ID alone.
tmem::TmemAddr scale_addr(uint32_t a) { return tmem::TmemAddr::decode(a & 0x3FFFFFFFu); }

TmemRect sfa_rect(const MmaOp& op) {
  const MmaGeometry g = geometry(op);
  const tmem::TmemAddr a = scale_addr(op.sfa_tmem);
  return {a.lane, 128, a.column, (rows_per_cta(op, g) + 31) / 32};
}

TmemRect meta_rect(const MmaOp& op) {
  const tmem::TmemAddr a = tmem::TmemAddr::decode(op.sp_meta);
  return {a.lane, 128, a.column, meta_columns(op.ctx.kind, sparse_id2(op.idesc))};
}

TmemRect sfb_rect(const MmaOp& op) {
  const MmaGeometry g = geometry(op);
  const tmem::TmemAddr b = scale_addr(op.sfb_tmem);
  return {b.lane, 128, b.column, ((layout_b(op, g) ? g.N / 2 : g.N) + 31) / 32};
}

std::optional<std::string> check(const MmaOp& op, const MmaCta* ctas, SmemSpan* a_span, SmemSpan* b_span) {
  const MmaContext& ctx = op.ctx;
  const bool scaled = is_block_scaled(ctx.kind);
  const MmaGeometry g = geometry(op);
  if (scaled) {
    const InstrDescriptorBlockScaled id = InstrDescriptorBlockScaled::decode(op.idesc);
    if (auto e = validate(id, ctx)) return e;
    const std::string_view kn = std::string_view(kind_name(ctx.kind)).substr(6);
    if (!tc::find_block_scaled_model(tc::Arch::SM100, tc::Unit::Tcgen05, kn, elem_fmt(ctx.kind, id.a_format),
                                     elem_fmt(ctx.kind, id.b_format), id.ue8m0() ? tc::ScaleFmt::UE8M0 : tc::ScaleFmt::UE4M3))
      return std::string("no tensor-core numerics model for ") + kind_name(ctx.kind) + " with these A/B/scale formats";
  } else {
    const InstrDescriptor id = InstrDescriptor::decode(op.idesc);
    if (auto e = validate(id, ctx)) return e;
    if (op.scale_input_d && !(ctx.kind == Kind::F16 || ctx.kind == Kind::TF32))
      return "scale-input-d is only for kind::f16 and kind::tf32";
    if (op.scale_input_d > 15) return "scale-input-d = " + std::to_string(op.scale_input_d) + " is not in 0..15";
    if (ctx.kind != Kind::I8) {
      const tc::AccFmt acc = id.d_format == fmt::kDF16 ? tc::AccFmt::F16 : tc::AccFmt::F32;
      if (!tc::find_model(tc::Arch::SM100, tc::Unit::Tcgen05, elem_fmt(ctx.kind, id.a_format),
                          elem_fmt(ctx.kind, id.b_format), acc))
        return std::string("no tensor-core numerics model for ") + kind_name(ctx.kind) + " with these A/B/D formats";
    }
  }
  if (ctx.sparse) {
    if (auto e = sparse_unsupported(ctx.kind, g.M, ctx.cta_group, ctx.ws, sparse_id2(op.idesc), op.sp_meta))
      return e;
    if (!g.b_mn_major && SmemDescriptor::decode(op.b_desc).layout_type != uint32_t(SmemLayout::kNone) &&
        SmemDescriptor::decode(op.b_desc).swizzle_bytes() < b_units(ctx) * unit_bytes(ctx.kind))
      return "B: a K-major " + std::string(layout_name(SmemDescriptor::decode(op.b_desc).layout_type)) + " row holds " +
             std::to_string(SmemDescriptor::decode(op.b_desc).swizzle_bytes()) + " bytes, less than the " +
             std::to_string(b_units(ctx) * unit_bytes(ctx.kind)) +
             " bytes of K of a sparse MMA; where the rest of K lies is not pinned down (not simulated)";
  }
  if (ctx.ws) {
    if (auto e = validate(ZeroColumnMaskDescriptor::decode(op.zero_column_mask), g.M)) return e;
    if (op.a_in_tmem && g.M != 128)
      return "A in Tensor Memory with .ws and M = " + std::to_string(g.M) +
             " is not simulated (its TMEM layout is figure-only; CUTLASS pins none)";
  }
  if (op.ashift && !(g.M == 128 || g.M == 256))
    return ".ashift is only allowed with M = 128 or M = 256, not M = " + std::to_string(g.M);
  const uint32_t K = k_units(ctx.kind), KB = b_units(ctx), b = unit_bytes(ctx.kind);
  const uint32_t mrows = rows_per_cta(op, g), ncols = b_smem_columns(op, g);

  auto check_smem = [&](const char* which, uint64_t desc, Major major, uint32_t rows,
                        const MmaCta& cta, SmemSpan* span) -> std::optional<std::string> {
    const SmemDescriptor sd = SmemDescriptor::decode(desc);
    if (auto e = validate(sd)) return std::string(which) + " " + *e;
    // Within bounds everywhere (the common case): the chunks need no visit.
    const uint32_t units = which[0] == 'B' ? KB : K;
    uint64_t lo_bound = 0, end_bound = 0;
    if (OperandAddresses(sd).bounds(major, b, rows, units, lo_bound, end_bound) && end_bound <= cta.smem.size()) {
      if (span) *span = {uint32_t(lo_bound), uint32_t(end_bound)};
      return std::nullopt;
    }
    std::optional<std::string> err;
    uint32_t lo = UINT32_MAX, hi = 0;
    for_each_chunk(sd, major, b, rows, units, [&](uint32_t a, uint32_t mn, uint32_t k, uint32_t bytes) {
      lo = std::min(lo, a);
      hi = std::max(hi, a + bytes);
      if (!err && a + bytes > cta.smem.size())
        err = std::string(which) + " element (" + std::to_string(mn) + ", k " + std::to_string(k) + ") at shared address " +
              std::to_string(a) + " is beyond the CTA's " + std::to_string(cta.smem.size()) + " bytes of shared memory";
    });
    if (span && lo < hi) *span = {lo, hi};
    return err;
  };
  auto check_tmem = [&](const char* which, const TmemRect& r, const MmaCta& cta) -> std::optional<std::string> {
    if (r.lane + r.lanes > tmem::kLanes || r.column + r.columns > tmem::kColumns)
      return std::string(which) + " in TMEM (lanes " + std::to_string(r.lane) + ".." + std::to_string(r.lane + r.lanes - 1) +
             ", columns " + std::to_string(r.column) + ".." + std::to_string(r.column + r.columns - 1) +
             ") is outside the 128 x 512 Tensor Memory";
    if (!cta.allocated(r.column, r.columns))
      return std::string(which) + " in TMEM (columns " + std::to_string(r.column) + ".." +
             std::to_string(r.column + r.columns - 1) + ") is not allocated by tcgen05.alloc" +
             (ctx.cta_group == 2 ? " in both CTAs of the pair" : "");
    return std::nullopt;
  };
  const TmemRect dr = d_rect(op);
  if (ctx.cta_group == 1 && g.M == 64 && dr.lane % 32 != 0 && dr.lane % 32 != 16)
    return "D for M = 64 must start at lane 0 or 16 of a 32-lane quarter, not lane " + std::to_string(dr.lane);
  if (d_lanes(op, g) >= 128 && dr.lane != 0) return "D must start at lane 0 for this M, not lane " + std::to_string(dr.lane);
  if (scaled)
    for (const auto& [which, r] : {std::pair{"scale-A-tmem", sfa_rect(op)}, std::pair{"scale-B-tmem", sfb_rect(op)}})
      if (r.lane != 0)
        return std::string(which) + " must address lane 0, not lane " + std::to_string(r.lane) +
               ": scale factors are duplicated in every 32-lane partition of Tensor Memory";
  for (unsigned v = 0; v < ctx.cta_group; ++v) {
    const MmaCta& cta = ctas[v];
    if (auto e = check_tmem("D", dr, cta)) return e;
    if (scaled) {
      if (auto e = check_tmem("scale_A", sfa_rect(op), cta)) return e;
      if (auto e = check_tmem("scale_B", sfb_rect(op), cta)) return e;
    }
    if (ctx.sparse) {
      if (auto e = check_tmem("the sparsity metadata", meta_rect(op), cta)) return e;
      // Only the metadata is checked here: zero values, as many per row as the operand stores
      // (dense_k elements; K above counts descriptor units, fewer for the 4-bit kinds).
      std::vector<uint32_t> packed(size_t(mrows) * dense_k(ctx.kind)), dense;
      for (uint32_t part = 0; !op.sp_meta_pending && part < (ctx.ws ? 128 / g.M : 1); ++part)
        if (auto e = expand_sparse_a(op, *cta.tmem, part, mrows, packed, dense))
          return *e + (ctx.cta_group == 2 ? " in CTA " + std::to_string(v) + " of the pair" : std::string());
    }
    if (op.a_in_tmem) {
      if (g.a_mn_major) return "A in Tensor Memory must be K-major: transpose A (bit 15) must be 0";
      if (auto e = check_tmem("A", a_rect(op), cta)) return e;
    } else if (auto e = check_smem("A", op.a_desc, g.a_mn_major ? Major::MN : Major::K, mrows, cta, a_span)) {
      return e;
    }
    if (auto e = check_smem("B", op.b_desc, g.b_mn_major ? Major::MN : Major::K, ncols, cta, b_span)) return e;
  }
  return std::nullopt;
}

namespace {

// Reads an operand's rows x U storage units (row-major) from shared memory, a chunk at a time.
// With packed_bits w != 0 (4/6-bit elements of kind::f8f6f4 / mxf8f6f4) the unit at byte address a
// is slot a % 16 of its 16-byte chunk, and the slots are packed: slot i is bits [w*i, w*i + w) of
// the chunk read little-endian (the first 8 / 12 bytes; the rest is padding). PTX 9.7.16.10.4.4
// figures 202 / 203, restated in the driver's CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B /
// 16U6_ALIGN16B, which CUTLASS uses to load float_e2m1/e2m3/e3m2_unpacksmem_t operands.
void gather(std::span<const uint8_t> smem, const SmemDescriptor& d, Major major, uint32_t b, uint32_t rows, uint32_t U,
            uint32_t row0, uint32_t w, std::vector<uint32_t>& out) {
  auto unit_at = [&](uint32_t a) -> uint32_t {
    if (w) {
      const uint32_t bit = w * (a % 16), at = (a & ~15u) + bit / 8;
      return ((uint32_t(smem[at]) | uint32_t(smem[at + 1]) << 8) >> (bit % 8)) & ((1u << w) - 1);
    }
    uint32_t v = 0;
    std::memcpy(&v, smem.data() + a, b);  // little-endian
    return v;
  };
  // Unpacked units (the operand-gathering hot loop): a whole chunk is one 16-byte load, widened
  // with a fixed unit size; a partial chunk (bytes == b) goes unit by unit.
  auto by_chunks = [&](auto unit) {
    using E = decltype(unit);
    constexpr uint32_t n = 16 / sizeof(E);
    for_each_chunk(d, major, b, rows, U, [&](uint32_t addr, uint32_t mn, uint32_t k, uint32_t bytes) {
      uint32_t* o = out.data() + size_t(row0 + mn) * U + k;
      if (bytes != 16) {
        *o = unit_at(addr);
        return;
      }
      E v[n];
      std::memcpy(v, smem.data() + addr, 16);
      if (major == Major::K)
        for (uint32_t i = 0; i < n; ++i) o[i] = v[i];
      else
        for (uint32_t i = 0; i < n; ++i) o[size_t(i) * U] = v[i];
    });
  };
  if (w == 0 && b == 1) return by_chunks(uint8_t{});
  if (w == 0 && b == 2) return by_chunks(uint16_t{});
  if (w == 0 && b == 4) return by_chunks(uint32_t{});
  for_each_chunk(d, major, b, rows, U, [&](uint32_t addr, uint32_t mn, uint32_t k, uint32_t bytes) {
    for (uint32_t i = 0, units = bytes / b; i < units; ++i) {
      const uint32_t r = major == Major::K ? mn : mn + i, c = major == Major::K ? k + i : k;
      out[size_t(row0 + r) * U + c] = unit_at(addr + i * b);
    }
  });
}

// Unpacks rows x U storage units into elements: kind::mxf4 / mxf4nvf4 hold two E2M1 per byte, the
// element with the lower K in the low nibble (PTX 9.7.16.10.4.5/6); every other kind one element per unit.
void unpack(Kind kind, std::vector<uint32_t>& units, uint32_t rows, uint32_t U, std::vector<uint32_t>& elems) {
  if (kind != Kind::MXF4 && kind != Kind::MXF4NVF4) {
    elems.swap(units);  // no copy: the caller gathers into units afresh every time
    return;
  }
  elems.assign(size_t(rows) * U * 2, 0);
  for (size_t i = 0; i < size_t(rows) * U; ++i) {
    elems[2 * i] = units[i] & 0xF;
    elems[2 * i + 1] = (units[i] >> 4) & 0xF;
  }
}

}  // namespace

uint32_t smem_chunk_data_bytes(const MmaOp& op, bool b_operand) {
  const Kind kind = op.ctx.kind;
  const uint32_t code = is_block_scaled(kind)
                            ? (b_operand ? InstrDescriptorBlockScaled::decode(op.idesc).b_format
                                         : InstrDescriptorBlockScaled::decode(op.idesc).a_format)
                            : (b_operand ? InstrDescriptor::decode(op.idesc).b_format
                                         : InstrDescriptor::decode(op.idesc).a_format);
  const uint32_t w = packed_bits(kind, elem_fmt(kind, code));
  return w ? 16 * w / 8 : 16;
}

std::optional<std::string> execute(const MmaOp& op, const MmaCta* ctas) {
  const Kind kind = op.ctx.kind;
  const bool scaled = is_block_scaled(kind), sparse = op.ctx.sparse, ws = op.ctx.ws;
  const unsigned groups = op.ctx.cta_group;
  const MmaGeometry g = geometry(op);
  const InstrDescriptor id = InstrDescriptor::decode(op.idesc);  // dense kinds only
  const InstrDescriptorBlockScaled ids = InstrDescriptorBlockScaled::decode(op.idesc);  // block-scaled only
  // K of the product; A is stored with U units per row (packed when sparse), B with UB per column.
  const uint32_t M = g.M, N = g.N, U = k_units(kind), UB = b_units(op.ctx), b = unit_bytes(kind);
  const uint32_t K = dense_k(kind) * (sparse ? 2 : 1);
  const uint32_t mrows = M / groups, nper = N / groups;
  const tmem::TmemAddr dbase = tmem::TmemAddr::decode(op.d_tmem);
  const bool f16_out = !scaled && kind != Kind::I8 && id.d_format == fmt::kDF16;
  const uint32_t a_code = scaled ? ids.a_format : id.a_format, b_code = scaled ? ids.b_format : id.b_format;
  const tc::ElemFmt fa = elem_fmt(kind, a_code), fb = elem_fmt(kind, b_code);

  // B transposed (N x K): columns [v*N/2, (v+1)*N/2) from CTA v. A collector buffer (.collector_usage)
  // changes nothing here: reuse is a permission, and the matrix read is the one the operand names
  // (model/tcgen05/collector.h). Scratch reused across MMAs (gathers overwrite every element they use).
  thread_local std::vector<uint32_t> bu, bt, au, a, ad, c, d, dd;
  // .ws with a column shift s reads B's columns s .. s + N - 1 (ws.h): gather N + s, drop the first s.
  const uint32_t bshift = b_column_shift(op);
  bu.resize(size_t(N + bshift) * UB);
  const SmemDescriptor bd = SmemDescriptor::decode(op.b_desc);
  const Major bmaj = g.b_mn_major ? Major::MN : Major::K;
  for (unsigned v = 0; v < groups; ++v)
    gather(ctas[v].smem, bd, bmaj, b, nper + bshift, UB, v * nper, packed_bits(kind, fb), bu);
  if (bshift) bu.erase(bu.begin(), bu.begin() + size_t(bshift) * UB);
  unpack(kind, bu, N, UB, bt);
  if (kind != Kind::I8) {
    const uint32_t keep = value_mask(fb), flip = g.negate_b ? sign_bit(fb) : 0;
    for (uint32_t& x : bt) x = (x & keep) ^ flip;
  }
  if (ws) {  // .ws: columns of B the zero-column mask forces to zero (model/tcgen05/ws.h)
    const std::vector<uint8_t> zero = zero_columns(ZeroColumnMaskDescriptor::decode(op.zero_column_mask), M, N);
    for (uint32_t n = 0; n < N; ++n)
      if (zero[n]) std::fill(bt.begin() + size_t(n) * K, bt.begin() + size_t(n + 1) * K, 0u);
  }

  // Rows m of D whose N elements d_offset places in one TMEM lane at consecutive columns: those are
  // read and written as runs of cells. d_offset depends on (M, cta_group, N) only, so this is
  // worked out once per shape.
  thread_local uint32_t runs_key[4] = {};
  thread_local std::vector<uint8_t> runs;
  if (runs_key[0] != M || runs_key[1] != groups || runs_key[2] != N || runs_key[3] != 1u + ws) {
    runs.assign(mrows, 1);
    for (uint32_t m = 0; m < mrows; ++m) {
      const tmem::TmemAddr o = d_offset(M, groups, N, m, 0, ws);
      for (uint32_t n = 1; n < N && runs[m]; ++n) {
        const tmem::TmemAddr x = d_offset(M, groups, N, m, n, ws);
        runs[m] = x.lane == o.lane && x.column == o.column + n;
      }
    }
    runs_key[0] = M;
    runs_key[1] = groups;
    runs_key[2] = N;
    runs_key[3] = 1u + ws;
  }

  for (unsigned v = 0; v < groups; ++v) {
    const MmaCta& cta = ctas[v];
    tmem::Tmem& t = *cta.tmem;
    // A (this CTA's rows, M/groups x U units; packed when sparse). A duplicated in TMEM (layout B)
    // gives 2 * mrows rows: row m + h * mrows is copy h (lanes 64h + m), which the D lanes of
    // columns n >= N/2 (h = 1) read.
    const bool dup = a_duplicated(op, g);
    const uint32_t arows = dup ? 2 * mrows : mrows;
    auto row_of = [&](uint32_t m, uint32_t n) { return dup && n >= N / 2 ? m + mrows : m; };
    au.resize(size_t(arows) * U);
    if (op.a_in_tmem) {
      const tmem::TmemAddr abase = tmem::TmemAddr::decode(op.a_tmem);
      const uint32_t a_w = packed_bits(kind, fa);
      for (uint32_t r = 0; r < arows; ++r)
        for (uint32_t k = 0; k < U; ++k) {
          const uint32_t lane = dup ? r % mrows + 64 * (r / mrows) : d_offset(M, groups, N, r, 0, ws).lane;
          const uint32_t byte = k * b;
          const uint32_t cell = t.read(abase.lane + lane, abase.column + byte / 4);
          const uint32_t unit = b == 4 ? cell : (cell >> (8 * (byte % 4))) & ((1u << (8 * b)) - 1);
          // A 4/6-bit element of kind::f8f6f4 / mxf8f6f4 sits in the middle of its holder byte.
          au[size_t(r) * U + k] = a_w ? from_holder(uint8_t(unit), a_w) : unit;
        }
    } else {
      const SmemDescriptor adesc = SmemDescriptor::decode(op.a_desc);
      gather(cta.smem, adesc, g.a_mn_major ? Major::MN : Major::K, b, mrows, U, 0, packed_bits(kind, fa), au);
    }
    unpack(kind, au, arows, U, a);
    if (kind != Kind::I8) {
      const uint32_t keep = value_mask(fa), flip = g.negate_a ? sign_bit(fa) : 0;
      for (uint32_t& x : a) x = (x & keep) ^ flip;
    }
    const bool some_disabled = std::any_of(std::begin(op.disable_lane), std::end(op.disable_lane), [](uint32_t w) { return w != 0; });
    // The common dense case with D accumulated in place (an f32 D, no input scaling, no lanes
    // disabled, A not duplicated) whose rows m are one lane each, lane after lane, at the same
    // columns: mma_tile reads C and writes D straight in Tensor Memory, rows kColumns cells apart,
    // instead of through a copy each way (7 % of a TMA-fed tcgen05 GEMM).
    uint32_t* in_tmem = nullptr;
    if (!sparse && !scaled && kind != Kind::I8 && !dup && !f16_out && op.enable_input_d && !op.scale_input_d &&
        !some_disabled) {
      const tmem::TmemAddr o0 = d_offset(M, groups, N, 0, 0, ws);
      bool lanes_in_order = true;
      for (uint32_t m = 0; m < mrows && lanes_in_order; ++m) {
        const tmem::TmemAddr o = d_offset(M, groups, N, m, 0, ws);
        lanes_in_order = runs[m] && o.lane == o0.lane + m && o.column == o0.column;
      }
      if (lanes_in_order) in_tmem = t.cells(dbase.lane + o0.lane, dbase.column + o0.column);
    }
    if (in_tmem) {
      const tc::DotModel* model = tc::find_model(tc::Arch::SM100, tc::Unit::Tcgen05, fa, fb, tc::AccFmt::F32);
      tc::mma_tile(*model, fa, fb, int(mrows), int(N), int(K), a.data(), bt.data(), in_tmem, tmem::kColumns, in_tmem,
                   tmem::kColumns);
      continue;
    }
    // The accumulator input: D (scaled by 2^-scale_input_d) or zero, per row of A.
    d.resize(size_t(arows) * N);
    if (!op.enable_input_d) c.assign(size_t(arows) * N, 0);
    else c.resize(size_t(arows) * N);
    if (op.enable_input_d && !op.scale_input_d) {  // the common case, as the loop below without scaling
      uint32_t* cp = c.data();
      const uint32_t keep = f16_out ? 0xffffu : ~0u;
      for (uint32_t r = 0; r < arows; ++r) {
        const uint32_t m = r % mrows;
        if (runs[m]) {  // one lane, consecutive columns
          const tmem::TmemAddr o = d_offset(M, groups, N, m, 0, ws);
          const uint32_t* run = t.cells(dbase.lane + o.lane, dbase.column + o.column);
          if (!f16_out) std::copy_n(run, N, cp + size_t(r) * N);
          else
            for (uint32_t n = 0; n < N; ++n) cp[size_t(r) * N + n] = run[n] & keep;
          continue;
        }
        for (uint32_t n = 0; n < N; ++n) {
          const tmem::TmemAddr o = d_offset(M, groups, N, m, n, ws);
          cp[size_t(r) * N + n] = t.read(dbase.lane + o.lane, dbase.column + o.column) & keep;
        }
      }
    } else if (op.enable_input_d)
      for (uint32_t r = 0; r < arows; ++r)
        for (uint32_t n = 0; n < N; ++n) {
          const tmem::TmemAddr o = d_offset(M, groups, N, r % mrows, n, ws);
          uint32_t x = t.read(dbase.lane + o.lane, dbase.column + o.column);
          if (f16_out) x &= 0xffff;
          if (op.scale_input_d) {
            if (f16_out) {
              const uint16_t p2 = uint16_t(op.scale_input_d <= 14 ? (15 - op.scale_input_d) << 10 : 0x0200);  // 2^-s
              x = num::mul_f16(uint16_t(x), p2);
            } else {
              x = std::bit_cast<uint32_t>(std::bit_cast<float>(x) * (1.0f / float(1u << op.scale_input_d)));
            }
          }
          c[size_t(r) * N + n] = x;
        }
    // Block-scaled kinds: the scale factors of output (m, n), read from the 32-lane partition of its D lane.
    const tc::ScaleFmt sf = ids.ue8m0() ? tc::ScaleFmt::UE8M0 : tc::ScaleFmt::UE4M3;
    const tc::BlockScaledModel* bs_model =
        scaled ? tc::find_block_scaled_model(tc::Arch::SM100, tc::Unit::Tcgen05,
                                             std::string_view(kind_name(kind)).substr(6), fa, fb, sf)
               : nullptr;
    const uint32_t nsf = scaled ? op.ctx.scale_vec : 1, vec = K / nsf;  // vec: elements of K per scale factor
    const tmem::TmemAddr sa = scale_addr(op.sfa_tmem), sb = scale_addr(op.sfb_tmem);
    const bool lb = layout_b(op, g);
    auto scales = [&](uint32_t m, uint32_t n, uint8_t* xa, uint8_t* xb) {
      auto byte = [&](tmem::TmemAddr base, const ScaleCell& s) {
        return uint8_t(t.read(base.lane + s.cell.lane, base.column + s.cell.column) >> (8 * s.byte));
      };
      const uint32_t lane = d_offset(M, groups, N, m, n).lane;
      for (uint32_t j = 0; j < nsf; ++j) {
        xa[j] = byte(sa, sfa_cell(lane, m, ids.a_sf_id, j));
        xb[j] = byte(sb, sfb_cell(lane, n, N, lb, ids.b_sf_id, j));
      }
    };
    // D = A * B + C with A as the datapath sees it (`ax`: rows x K elements).
    auto product = [&](const std::vector<uint32_t>& ax, uint32_t rows, std::vector<uint32_t>& out) {
      out.resize(size_t(rows) * N);
      if (kind == Kind::I8) {
        std::vector<uint8_t> a8(ax.begin(), ax.end()), b8(bt.begin(), bt.end());
        tc::mma_tile_int(id.a_format == fmt::kS8, id.b_format == fmt::kS8, id.saturate != 0, int(rows), int(N), int(K),
                         a8.data(), b8.data(), reinterpret_cast<const int32_t*>(c.data()), reinterpret_cast<int32_t*>(out.data()));
      } else if (scaled) {
        for (uint32_t m = 0; m < mrows; ++m)
          for (uint32_t n = 0; n < N; ++n) {
            const uint32_t r = row_of(m, n);
            uint8_t xa[4], xb[4];
            scales(m, n, xa, xb);
            out[size_t(r) * N + n] = tc::block_scaled_dot(*bs_model, fa, ax.data() + size_t(r) * K, fb,
                                                          bt.data() + size_t(n) * K, int(K), sf, xa, xb, int(vec),
                                                          c[size_t(r) * N + n]);
          }
      } else {
        const tc::DotModel* model =
            tc::find_model(tc::Arch::SM100, tc::Unit::Tcgen05, fa, fb, f16_out ? tc::AccFmt::F16 : tc::AccFmt::F32);
        tc::mma_tile(*model, fa, fb, int(rows), int(N), int(K), ax.data(), bt.data(), c.data(), out.data());
      }
    };
    if (!sparse) {
      product(a, arows, d);
    } else {
      // Sparse A (never in TMEM, so never duplicated): the metadata says which column of K each
      // stored element stands for; with .ws and M < 128 each part of N (its own lanes of D) reads its
      // own copy. Each output is one dense dot of the K/2 stored elements with the B elements they
      // select, as for wgmma.mma_async.sp (docs/matrix-units.md: an inference from how NVIDIA
      // describes the sparse tensor core, awaiting hardware). Block-scaled: a scale factor covers
      // K / nsf elements of the (doubled) K, so vec / 2 stored ones: chunks never straddle blocks
      // (vec >= 32), and the dot has the dense MMA's shape (CUTLASS: "32 or 64 elements for sparse").
      const uint32_t parts = ws ? 128 / M : 1, cols = N / parts, KP = K / 2;
      thread_local std::vector<uint32_t> pos, bsel;
      bsel.resize(size_t(N) * KP);
      dd.resize(size_t(N));
      for (uint32_t part = 0; part < parts; ++part) {
        std::string note;
        if (auto e = expand_sparse_a(op, t, part, mrows, a, ad, &pos, cta.note && cta.note->empty() ? &note : nullptr))
          return *e + (groups == 2 ? " in CTA " + std::to_string(v) + " of the pair" : std::string()) +
                 (op.sp_meta_pending ? " (read when the MMA executed, after the earlier tcgen05 operations that write it)"
                                     : " (the metadata changed after the MMA was issued)");
        if (!note.empty()) *cta.note = note + (groups == 2 ? " in CTA " + std::to_string(v) + " of the pair" : std::string());
        for (uint32_t m = 0; m < mrows; ++m) {
          for (uint32_t n = part * cols; n < (part + 1) * cols; ++n)
            for (uint32_t j = 0; j < KP; ++j) bsel[size_t(n) * KP + j] = bt[size_t(n) * K + pos[size_t(m) * KP + j]];
          const uint32_t* arow = a.data() + size_t(m) * KP;
          const uint32_t* brow = bsel.data() + size_t(part * cols) * KP;
          const uint32_t* crow = c.data() + size_t(m) * N + part * cols;
          if (scaled) {
            for (uint32_t j = 0; j < cols; ++j) {
              uint8_t xa[4], xb[4];
              scales(m, part * cols + j, xa, xb);
              dd[j] = tc::block_scaled_dot(*bs_model, fa, arow, fb, brow + size_t(j) * KP, int(KP), sf, xa, xb,
                                           int(vec / 2), crow[j]);
            }
          } else if (kind == Kind::I8) {
            std::vector<uint8_t> a8(arow, arow + KP), b8(brow, brow + size_t(cols) * KP);
            tc::mma_tile_int(id.a_format == fmt::kS8, id.b_format == fmt::kS8, id.saturate != 0, 1, int(cols), int(KP),
                             a8.data(), b8.data(), reinterpret_cast<const int32_t*>(crow),
                             reinterpret_cast<int32_t*>(dd.data()));
          } else {
            const tc::DotModel* model =
                tc::find_model(tc::Arch::SM100, tc::Unit::Tcgen05, fa, fb, f16_out ? tc::AccFmt::F16 : tc::AccFmt::F32);
            tc::mma_tile(*model, fa, fb, 1, int(cols), int(KP), arow, brow, crow, dd.data());
          }
          std::copy(dd.begin(), dd.begin() + cols, d.begin() + size_t(m) * N + part * cols);
        }
      }
    }
    const uint32_t* dp = d.data();
    for (uint32_t m = 0; m < mrows; ++m) {
      if (runs[m] && !some_disabled && !dup) {
        const tmem::TmemAddr o = d_offset(M, groups, N, m, 0, ws);
        std::copy_n(dp + size_t(m) * N, N, t.cells(dbase.lane + o.lane, dbase.column + o.column));
        continue;
      }
      for (uint32_t n = 0; n < N; ++n) {
        const tmem::TmemAddr o = d_offset(M, groups, N, m, n, ws);
        if (some_disabled && (op.disable_lane[4 * v + o.lane / 32] >> (o.lane % 32) & 1)) continue;
        t.write(dbase.lane + o.lane, dbase.column + o.column, dp[size_t(row_of(m, n)) * N + n]);
      }
    }
  }
  // .ashift: A's rows move down one lane after the MMA has read them (model/tcgen05/shift.h).
  if (op.ashift)
    for (unsigned v = 0; v < groups; ++v) {
      const TmemRect ar = a_rect(op);
      shift_rows_down(*ctas[v].tmem, ar.lane, ar.lanes, ar.column, ar.columns);
    }
  return std::nullopt;
}

}  // namespace ptxsim::model::tcgen05
