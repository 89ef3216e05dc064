// Tensor copies (PTX 9.7.9.27): cp.async.bulk.tensor loads (global -> shared::{cta,cluster}, with
// multicast and .cta_group), stores (shared::cta -> global), cp.reduce.async.bulk.tensor and
// cp.async.bulk.prefetch.tensor. The data movement is model::tma (load/store/reduce); this file
// decodes the operands, reads the tensor map through the tensormap proxy, and schedules the
// operation on the engine so that it takes effect later than its issue:
//   load    the box is gathered from global memory at issue (so a fault names the instruction) and
//           lands in shared memory at completion, followed by complete-tx on the mbarrier(s);
//   store   shared memory is read, and global memory written, at completion; the thread's bulk
//   reduce  async-group tracks it (cp.async.bulk.commit_group / wait_group). Everything the model
//           can reject is checked at issue with a dry run.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <span>

#include "model/tma/tma_unit.h"
#include "sim/exec/racecheck.h"
#include "sim/sem/tma_common.h"

namespace ptxsim {

namespace {

namespace tmap = model::tmap;
namespace mt = model::tma;
using sem::hex;

// in.a: LoadMode / StoreMode / RedOp; in.c: rank (.Nd); in.d: RedOp for reductions.
// in.b flags:
constexpr uint8_t kMulticast = 1, kCtaGroup2 = 2, kHasInfo = 4;

const char* kLoadModes[] = {".tile", ".tile::gather4", ".im2col", ".im2col::w", ".im2col::w::128"};

uint32_t dims_of(Binder& b) {
  uint32_t dim = 0;
  for (uint32_t d = 1; d <= 5; ++d)
    if (b.has("." + std::to_string(d) + "d")) {
      if (dim) b.error("Multiple dimension modifiers specified");
      dim = d;
    }
  if (!dim) b.error(".dim modifier required for instruction '" + std::string(b.form.opcode) + "'");
  return dim;
}

// The [tensorMap, tensorCoords] operand: `n` 32-bit coordinates.
void check_tensor_operand(Binder& b, size_t i, uint32_t n) {
  const Operand& o = b.in.op[i];
  if (o.kind != Operand::Kind::Addr || o.aux == kNoSlot)
    b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) +
            "': operand " + std::to_string(i + 1) + " must be [tensorMap, {coordinates}]");
  // ptxas takes a named variable here only in .global: the operand is the map's generic address, and
  // a .param, .const or .shared variable has none (a kernel parameter's is cvta.param of its address).
  sem::check_symbol_space(b, i, {Space::Global},
                          "the tensor map operand is a generic address: a .global variable or a 64-bit register "
                          "(for a kernel parameter: mov.u64 %rd, param; cvta.param.u64 %rd, %rd)");
  if (o.count != n)
    b.error("Argument " + std::to_string(i + 1) + " of instruction '" + std::string(b.form.opcode) +
            "': Argument vector size mismatch (" + std::to_string(n) + " tensor coordinates expected, got " +
            std::to_string(o.count) + ")");
  const Function& f = b.dec.current();
  for (uint32_t k = 0; k < n; ++k)
    if (!sem::tma::is_reg_or_imm(f.vec_pool[o.aux + k], 32))
      b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) +
              "': tensor coordinates are .s32 (32-bit registers or immediates)");
}

void check_plain_address(Binder& b, size_t i, const char* what) {
  if (i >= b.op_count() || b.op_kind(i) != Operand::Kind::Addr || b.in.op[i].aux != kNoSlot)
    b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) + "': operand " +
            std::to_string(i + 1) + " must be the address [" + what + "]");
}

void check_policy(Binder& b, size_t i) {
  if (i >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[i], 64))
    b.error("Arguments mismatch for instruction '" + std::string(b.form.opcode) +
            "': .L2::cache_hint needs a 64-bit cache-policy operand");
}

// Coordinates and im2col information of lane l.
mt::Coords coords_of(const ExecCtx& c, const Instr& in, const Operand& tm, const Operand* info, int l) {
  mt::Coords co;
  for (uint32_t i = 0; i < tm.count && i < 5; ++i) co.c[i] = int32_t(uint32_t(sem::tma::elem_value(c, tm, i, l)));
  if (info) {
    mt::LoadMode m = mt::LoadMode(in.a);
    if (m == mt::LoadMode::kIm2col) {
      for (uint32_t i = 0; i < info->count && i < 3; ++i)
        co.im2col_offsets[i] = uint16_t(sem::tma::elem_value(c, *info, i, l));
    } else {
      co.w_halo = uint16_t(sem::tma::elem_value(c, *info, 0, l));
      co.w_offset = uint16_t(sem::tma::elem_value(c, *info, 1, l));
    }
  }
  return co;
}

std::string op_name(const Instr& in, const char* kind) {
  return std::string("cp.async.bulk.tensor.") + std::to_string(in.c) + "d " + kind;
}

// op_name(in, "load") without building a string at every load (in.c, the .Nd, is 1..5).
const char* load_name(const Instr& in) {
  static const char* const kNames[] = {"cp.async.bulk.tensor load",    "cp.async.bulk.tensor.1d load",
                                       "cp.async.bulk.tensor.2d load", "cp.async.bulk.tensor.3d load",
                                       "cp.async.bulk.tensor.4d load", "cp.async.bulk.tensor.5d load"};
  return kNames[in.c <= 5 ? in.c : 0];
}

// A load's description for reports (AsyncOp::describe): bytes is its complete-tx count, detail its
// image's bytes in shared memory and its shared address.
std::string describe_load(const AsyncOp& op) {
  const uint32_t image = op.detail[0], dst = op.detail[1];
  return std::string(op.label) + " of " + std::to_string(op.bytes) + " bytes" +
         (op.bytes != image ? " (" + std::to_string(image) + " with padding)" : std::string()) + " to shared address " +
         hex(dst) + " of CTA rank " + std::to_string(op.dst_cta->rank);
}

[[noreturn]] void model_fault(ExecCtx& c, const std::string& what, const mt::Outcome& o) {
  c.fault(o.status == mt::Status::kFault ? "illegal address" : "error", what + ": " + o.message);
}

// Smallest range of whole 128-byte lines holding the swizzled image (swizzles stay within lines).
std::pair<uint32_t, uint32_t> footprint(uint32_t off, uint32_t bytes, tmap::Swizzle sw) {
  if (sw == tmap::Swizzle::kNone) return {off, bytes};
  uint32_t lo = off & ~127u, hi = (off + bytes + 127) & ~127u;
  return {lo, hi - lo};
}

// ---- loads --------------------------------------------------------------------------------------

// A load's image storage, recycled through a per-thread list: a GEMM issues thousands of loads of
// one or two box sizes, and an allocation for each took malloc's slower paths. A buffer freed on
// another thread joins that thread's list.
class ImageBuffer {
 public:
  ImageBuffer() = default;
  ImageBuffer(const ImageBuffer&) = delete;
  ImageBuffer& operator=(const ImageBuffer&) = delete;
  ~ImageBuffer() { release(); }
  // `n` bytes, zeroed if asked.
  void reset(size_t n, bool zeroed) {
    release();
    std::vector<Spare>& spares = spare_list();
    // The most recently freed first (still in cache); kernels load boxes of one or two sizes.
    for (size_t i = spares.size(); i-- > 0;)
      if (spares[i].bytes >= n) {
        p_ = std::move(spares[i].p);
        cap_ = spares[i].bytes;
        spares[i] = std::move(spares.back());
        spares.pop_back();
        break;
      }
    if (!p_) {
      cap_ = (n + 1023) & ~size_t(1023);  // (an image's size varies with its offset in its 1 KiB block)
      p_.reset(new uint8_t[cap_]);
    }
    if (zeroed) std::memset(p_.get(), 0, n);
  }
  uint8_t* get() const { return p_.get(); }
  uint8_t& operator[](size_t i) const { return p_[i]; }

 private:
  struct Spare {
    size_t bytes;
    std::unique_ptr<uint8_t[]> p;
  };
  static constexpr size_t kSpares = 256;  // (a pipeline keeps a hundred boxes in flight)
  static std::vector<Spare>& spare_list() {
    thread_local std::vector<Spare> spares;
    return spares;
  }
  void release() {
    if (!p_) return;
    std::vector<Spare>& spares = spare_list();
    if (spares.size() < kSpares) spares.push_back({cap_, std::move(p_)});
    p_.reset();
  }
  std::unique_ptr<uint8_t[]> p_;
  size_t cap_ = 0;
};

// The box image as the load places it: bytes of shared addresses [lo, lo + size), written
// where `mask` (padded sub-byte types only) is set. `bytes` is the image's size in shared memory,
// `tx` the load's complete-tx count (smaller for the padded types: mt::box_tx_bytes).
struct Image {
  // (Not zeroed for the plain types: write_to reads only bytes the load wrote, the swizzled image.)
  ImageBuffer data;
  size_t size = 0;
  std::vector<uint8_t> mask;
  uint32_t lo = 0, dst = 0, bytes = 0, tx = 0;
  tmap::Swizzle sw = tmap::Swizzle::kNone;
  void write_to(Cta& cta) const {
    // Swizzles move 8-byte blocks within 128-byte lines, so the lines the image covers whole are
    // written whole (data is indexed by shared address): one copy, one clear. Blocks of the lines
    // at either end that it covers in part go one by one.
    uint32_t whole_lo = dst, whole_hi = dst;
    if (mask.empty() && sw == tmap::Swizzle::kNone) {
      whole_hi = dst + bytes;
    } else if (mask.empty() && dst % 8 == 0) {
      whole_lo = (dst + 127) & ~127u;
      whole_hi = std::max(whole_lo, (dst + bytes) & ~127u);
    }
    if (whole_hi > whole_lo) {
      std::memcpy(cta.smem.data() + whole_lo, data.get() + (whole_lo - lo), whole_hi - whole_lo);
      sem::tma::async_wrote(cta, whole_lo, whole_hi - whole_lo);
    }
    auto block = [&](uint64_t i) {
      uint32_t a = mt::swizzle_address(sw, uint32_t(dst + i));
      uint32_t n = uint32_t(std::min<uint64_t>(8, bytes - i));
      if (mask.empty()) {
        std::memcpy(cta.smem.data() + a, data.get() + (a - lo), n);
        sem::tma::async_wrote(cta, a, n);
      } else {  // padded types: the padding bytes are neither written nor cleared
        for (uint32_t k = 0; k < n; ++k)
          if (mask[a - lo + k]) {
            cta.smem[a + k] = data[a - lo + k];
            sem::tma::async_wrote(cta, a + k, 1);
          }
      }
    };
    if (whole_hi == whole_lo) {
      for (uint64_t i = 0; i < bytes; i += 8) block(i);
      return;
    }
    // The blocks before the whole lines and after them (whole_lo - dst and whole_hi - dst are
    // multiples of 8 then).
    for (uint64_t i = 0; i < whole_lo - dst; i += 8) block(i);
    for (uint64_t i = whole_hi - dst; i < bytes; i += 8) block(i);
  }
};

void issue_load(ExecCtx& c, const Instr& in, int l) {
  Engine& e = *c.eng;
  const char* what = load_name(in);
  const mt::LoadMode mode = mt::LoadMode(in.a);
  const tmap::TensorMap map = sem::tma::read_tensor_map(c, in.op[1], l);
  const Operand* info = (in.b & kHasInfo) ? &in.op[3] : nullptr;
  const mt::Coords co = coords_of(c, in, in.op[1], info, l);
  size_t next = info ? 4 : 3;

  // Destination: CTA and offset (the multicast copies go to the same offset in other CTAs).
  const uint64_t dst = sem::addr_of(c, in.op[0], l);
  auto [dcta, doff] = e.resolve_shared(c, in.space, dst, 1, l);
  const auto [bytes, tx] = mt::box_bytes(map, mode, co.w_halo);

  // Gather the box now into an image of the 128-byte lines it lands in. Swizzles XOR address bits
  // 6..4 (3) with bits 9..7, so an image based at a 1024-byte boundary swizzles exactly like shared
  // memory.
  auto img = std::make_shared<Image>();
  img->lo = doff & ~1023u;
  img->dst = doff;
  img->bytes = bytes;
  img->tx = tx;
  img->sw = map.swizzle;
  img->size = ((uint64_t(doff) + std::max(bytes, 1u) + 127) & ~uint64_t(127)) - img->lo;
  // The padded types find the bytes written by comparing two loads (below): those start zeroed.
  const bool padded = tmap::is_packed_16b(map.dtype);
  img->data.reset(img->size, padded);
  // --racecheck-global: the box's global reads are the issuing thread's, at issue (the gather
  // happens now); the operation's clocks, taken after, include them.
  auto read = [&](uint64_t a, void* d, size_t n) {
    const uint8_t* p = e.global.translate(a, n);
    if (!p) return false;
    if (c.race) [[unlikely]] c.race->access(c, Space::Global, a, p, uint32_t(n), Access::Read, l);
    std::memcpy(d, p, n);
    return true;
  };
  mt::Outcome o = mt::load(map, mode, co, read, std::span<uint8_t>(img->data.get(), img->size), doff - img->lo);
  if (!o.ok()) model_fault(c, what, o);
  if (padded) {  // padding bytes are not written: find which bytes are
    std::vector<uint8_t> ones(img->size, 0xFF);
    mt::load(map, mode, co, read, std::span<uint8_t>(ones), doff - img->lo);
    img->mask.resize(ones.size());
    for (size_t i = 0; i < ones.size(); ++i) img->mask[i] = ones[i] == img->data[i];
  }
  // The swizzled image must lie inside the destination CTA's window.
  e.resolve_shared(c, in.space, dst, bytes, l);
  // (Swizzles stay within 128-byte lines: when the lines it touches fit, every block does.)
  if (((uint64_t(doff) + bytes + 127) & ~uint64_t(127)) > dcta->smem.size())
    for (uint64_t i = 0; i < bytes; i += 8)
      if (mt::swizzle_address(map.swizzle, uint32_t(doff + i)) + std::min<uint64_t>(8, bytes - i) > dcta->smem.size())
      c.fault("illegal address", std::string(what) + ": the swizzled box image at shared address " + hex(doff) +
                                     " extends beyond the CTA's shared memory");

  // The mbarrier and, with .cta_group::2, which CTA of the pair it may be in.
  const uint64_t mb = sem::addr_of(c, in.op[2], l);
  if (mb & 7) c.fault("misaligned address", std::string(what) + ": mbarrier address " + hex(mb) + " is not 8-byte aligned");
  auto [bcta, boff] = e.resolve_shared(c, in.space, mb, 8, l);

  struct Dest {
    Cta* dst;  // the CTA the box lands in
    Cta* bar;  // the CTA whose mbarrier is signalled
  };
  std::array<Dest, 16> dests;  // (a ctaMask has 16 bits)
  size_t ndests = 0;
  if (in.b & kMulticast) {
    const uint32_t m = uint16_t(c.regs[size_t(in.op[next].slot) * 32 + size_t(l)]);
    ++next;
    const uint32_t n = uint32_t(e.ctas.size());
    if (m >> n)
      c.fault("error", std::string(what) + ": ctaMask " + hex(m) + " names CTA ranks beyond the cluster of " + std::to_string(n) +
                           " CTA(s)");
    if (m == 0) e.warn(c, std::string(what) + ": ctaMask is 0, the multicast has no destination");
    for (uint32_t r = 0; r < n; ++r) {
      if (!(m >> r & 1)) continue;
      Cta* bar = e.ctas[r].get();
      if (in.b & kCtaGroup2) {
        bar = e.cta_by_rank((r & ~1u) | (bcta->rank & 1));
        if (!bar)
          c.fault("error", std::string(what) + ": .cta_group::2 signals the peer of CTA rank " + std::to_string(r) +
                               ", which is not in the cluster");
      }
      dests[ndests++] = {e.ctas[r].get(), bar};
    }
  } else {
    if (!(in.b & kCtaGroup2) && bcta != dcta)
      c.fault("error", std::string(what) + ": the mbarrier (" + sem::tma::cta_name(c, *bcta) +
                           ") must be in the same CTA as the destination (" + sem::tma::cta_name(c, *dcta) +
                           ") with .cta_group::1");
    if ((in.b & kCtaGroup2) && bcta != dcta && bcta->rank != (dcta->rank ^ 1))
      c.fault("error", std::string(what) + ": with .cta_group::2 the mbarrier must be in the destination CTA (rank " +
                           std::to_string(dcta->rank) + ") or its peer, not in CTA rank " + std::to_string(bcta->rank));
    dests[ndests++] = {dcta, bcta};
  }
  auto [foff, fbytes] = footprint(doff, bytes, map.swizzle);
  const std::span<const Dest> to(dests.data(), ndests);
  for (const auto& [d, b] : to) {
    sem::tma::require_mbarrier(c, *b, boff, what);
    sem::tma::check_no_mbarrier(c, *d, foff, fbytes, what);
  }

  for (const auto& [d, b] : to) {
    AsyncOp op;
    op.describe = describe_load;
    op.label = what;
    op.detail[0] = bytes;
    op.detail[1] = doff;
    op.bar = sem::tma::live_mbarrier(*b, boff);
    op.bytes = tx;
    op.dst_cta = d;
    op.dst_off = foff;
    op.dst_bytes = fbytes;
    op.line = in.line;
    Engine* ep = &e;
    Cta *dc = d, *bc = b;
    const uint32_t bo = boff, line = in.line;
    op.complete = [ep, dc, bc, bo, img, what, line] {
      img->write_to(*dc);
      sem::tma::complete_tx(*ep, *bc, bo, img->tx, what, line);
    };
    e.issue_async(std::move(op));
  }
}

void exec_tma_load(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) { issue_load(c, in, l); });
}

// ---- stores and reductions ----------------------------------------------------------------------

template <bool Reduce>
void issue_store(ExecCtx& c, const Instr& in, int l) {
  Engine& e = *c.eng;
  const std::string what = Reduce ? "cp.reduce.async.bulk.tensor." + std::to_string(in.c) + "d reduction"
                                   : op_name(in, "store");
  const mt::StoreMode mode = mt::StoreMode(in.a);
  const mt::RedOp rop = mt::RedOp(in.d);
  const tmap::TensorMap map = sem::tma::read_tensor_map(c, in.op[0], l);
  const mt::Coords co = coords_of(c, in, in.op[0], nullptr, l);
  auto [scta, soff] = e.resolve_shared(c, Space::Shared, sem::addr_of(c, in.op[1], l), 1, l);
  const mt::LoadMode lm = mode == mt::StoreMode::kTileScatter4 ? mt::LoadMode::kTileGather4
                          : mode == mt::StoreMode::kIm2colNoOffs ? mt::LoadMode::kIm2col
                                                                 : mt::LoadMode::kTile;
  const uint32_t bytes = mt::box_image_bytes(map, lm);

  // Dry run: everything the model checks, and every global access, without writing.
  auto read = [&e](uint64_t a, void* d, size_t n) {
    const uint8_t* p = e.global.translate(a, n);
    if (!p) return false;
    std::memcpy(d, p, n);
    return true;
  };
  // --racecheck-global: the dry run's global writes (a reduction's read-modify-writes, as atomics)
  // are the issuing thread's, at issue, as for cp.async.bulk stores.
  auto probe = [&](uint64_t a, const void*, size_t n) {
    const uint8_t* p = e.global.translate(a, n);
    if (p && c.race) [[unlikely]]
      c.race->access(c, Space::Global, a, p, uint32_t(n), Reduce ? Access::Atomic : Access::Write, l);
    return p != nullptr;
  };
  std::span<const uint8_t> smem(scta->smem);
  mt::Outcome o = Reduce ? mt::reduce(map, rop, mode, co, smem, soff, read, probe)
                         : mt::store(map, mode, co, smem, soff, probe);
  if (!o.ok()) model_fault(c, what, o);
  e.resolve_shared(c, Space::Shared, sem::addr_of(c, in.op[1], l), bytes, l);
  sem::tma::check_generic_writes(c, *scta, soff, bytes, map.swizzle, what);

  sem::tma::BulkTicket t = sem::tma::bulk_open(c, l);
  auto [foff, fbytes] = footprint(soff, bytes, map.swizzle);
  AsyncOp op;
  op.what = what + " of " + std::to_string(bytes) + " bytes from shared address " + hex(soff);
  op.bytes = bytes;
  op.dst_cta = scta;
  op.dst_off = foff;
  op.dst_bytes = fbytes;
  op.src_only = true;
  op.line = in.line;
  Engine* ep = &e;
  Cta* sc = scta;
  const uint32_t so = soff;
  const std::string w = what + " (line " + std::to_string(in.line) + ")";
  op.complete = [ep, sc, so, map, mode, rop, co, t, w] {
    auto rd = [ep](uint64_t a, void* d, size_t n) {
      const uint8_t* p = ep->global.translate(a, n);
      if (!p) return false;
      std::memcpy(d, p, n);
      return true;
    };
    auto wr = [ep](uint64_t a, const void* s, size_t n) {
      uint8_t* p = ep->global.translate(a, n);
      if (!p) return false;
      std::memcpy(p, s, n);
      return true;
    };
    std::span<const uint8_t> sm(sc->smem);
    mt::Outcome r = Reduce ? mt::reduce(map, rop, mode, co, sm, so, rd, wr) : mt::store(map, mode, co, sm, so, wr);
    if (!r.ok()) throw KernelFault{w + ": " + r.message, r.status == mt::Status::kFault ? "illegal address" : "error"};
    sem::tma::bulk_done(*ep, t);
  };
  e.issue_async(std::move(op));
}

void exec_tma_store(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) { issue_store<false>(c, in, l); });
}
void exec_tma_reduce(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) { issue_store<true>(c, in, l); });
}

// ---- prefetch -----------------------------------------------------------------------------------

void exec_tma_prefetch(ExecCtx& c, const Instr& in, uint32_t mask) {
  for_lanes(mask, [&](int l) {
    const tmap::TensorMap map = sem::tma::read_tensor_map(c, in.op[0], l);
    const mt::LoadMode mode = mt::LoadMode(in.a);
    const bool wide = mode == mt::LoadMode::kIm2colW || mode == mt::LoadMode::kIm2colW128;
    bool ok = wide ? map.type == tmap::MapType::kIm2colWide : mt::box_image_bytes(map, mode) != 0;
    if (!ok)
      c.fault("error", "cp.async.bulk.prefetch.tensor: the tensor map (" + tmap::describe(map) +
                           ") does not support load mode " + kLoadModes[in.a]);
  });
}

// ---- binders ------------------------------------------------------------------------------------

// The load mode written (default .tile); `allowed` lists the modes of the form.
int load_mode(Binder& b, std::initializer_list<int> allowed) {
  static const char* all[] = {".tile", ".tile::gather4", ".im2col", ".im2col::w", ".im2col::w::128", ".im2col_no_offs",
                              ".tile::scatter4"};
  int m = -1;
  for (int i = 0; i < 7; ++i)
    if (b.has(all[i])) {
      if (m >= 0) b.error("Multiple .load_mode modifiers specified");
      m = i;
    }
  if (m < 0) m = 0;
  if (std::find(allowed.begin(), allowed.end(), m) == allowed.end())
    b.error("Illegal modifier '" + std::string(all[m]) + "' for instruction '" + b.form.opcode + "'");
  return m;
}

void check_mode_dims(Binder& b, int mode, uint32_t dim) {
  static const char* all[] = {".tile", ".tile::gather4", ".im2col", ".im2col::w", ".im2col::w::128", ".im2col_no_offs",
                              ".tile::scatter4"};
  bool gather = mode == 1 || mode == 6, im2col = mode >= 2 && mode <= 5;
  if ((gather && dim != 2) || (im2col && dim < 3))
    b.error("Modifier '." + std::to_string(dim) + "d' cannot be combined with modifier '" + all[mode] + "'");
}

void check_direction(Binder& b, const char* dst, const char* src) {
  const std::string& op = b.src.opcode;
  size_t pd = sem::tma::mod_pos(op, dst), ps = sem::tma::mod_pos(op, src);
  if (pd == std::string::npos || ps == std::string::npos || pd > ps)
    b.error("State space incorrect for instruction '" + std::string(b.form.opcode) + "'");
}

}  // namespace

void bind_tma_load(Binder& b) {
  const bool cta = b.has(".shared::cta"), cluster = b.has(".shared::cluster");
  if (cta == cluster) b.error("State space incorrect for instruction 'cp.async.bulk.tensor'");
  check_direction(b, cta ? ".shared::cta" : ".shared::cluster", ".global");
  if (!b.has(".mbarrier::complete_tx::bytes"))
    b.error(".completion_mechanism modifier required for instruction 'cp.async.bulk.tensor'");
  const uint32_t dim = dims_of(b);
  const int mode = load_mode(b, {0, 1, 2, 3, 4});
  check_mode_dims(b, mode, dim);
  const bool mc = b.has(".multicast::cluster");
  if (mc && cta)
    b.error("Illegal modifier '.multicast::cluster' for instruction 'cp.async.bulk.tensor' with '.shared::cta.global'");
  if (b.has(".cta_group::1") && b.has(".cta_group::2")) b.error("Multiple .cta_group::2 modifiers specified");
  const Program& p = b.dec.program();
  if ((mode == 1 || mode == 3) && cluster &&
      !target_satisfies(p.target, "sm_100a|sm_101a|sm_110a|sm_100f|sm_110f"))
    b.error(std::string("Feature '") + kLoadModes[mode] +
            " with destination state space as .shared::cluster' not supported on .target '" + p.target.name() + "'");

  check_plain_address(b, 0, "dstMem");
  check_tensor_operand(b, 1, mode == 1 ? 5 : dim);
  check_plain_address(b, 2, "mbar");
  size_t next = 3;
  const bool info = mode >= 2;
  if (info) {
    const uint32_t n = mode == 2 ? dim - 2 : 2;
    if (next >= b.op_count() || b.op_kind(next) != Operand::Kind::Vec)
      b.error("Arguments mismatch for instruction 'cp.async.bulk.tensor': " + std::string(kLoadModes[mode]) +
              " needs the im2colInfo vector operand");
    if (b.in.op[next].count != n)
      b.error("Argument " + std::to_string(next + 1) +
              " of instruction 'cp.async.bulk.tensor': Argument vector size mismatch");
    for (uint32_t k = 0; k < n; ++k)
      if (!sem::tma::is_reg_or_imm(b.dec.current().vec_pool[b.in.op[next].slot + k], 16))
        b.error("Arguments mismatch for instruction 'cp.async.bulk.tensor': im2colInfo elements are 16-bit");
    ++next;
  }
  if (mc) {
    if (next >= b.op_count() || !sem::tma::is_reg_or_imm(b.in.op[next], 16))
      b.error("Arguments mismatch for instruction 'cp.async.bulk.tensor': .multicast::cluster needs a 16-bit ctaMask");
    ++next;
  }
  if (b.has(".L2::cache_hint")) check_policy(b, next++);
  if (next != b.op_count()) b.error("Arguments mismatch for instruction 'cp.async.bulk.tensor'");
  b.in.a = uint8_t(mode);
  b.in.b = uint8_t((mc ? kMulticast : 0) | (b.has(".cta_group::2") ? kCtaGroup2 : 0) | (info ? kHasInfo : 0));
  b.in.c = uint8_t(dim);
  b.in.space = cta ? Space::Shared : Space::SharedCluster;
  b.in.fn = exec_tma_load;
}

namespace {

void bind_store_common(Binder& b, bool reduce) {
  const char* name = reduce ? "cp.reduce.async.bulk.tensor" : "cp.async.bulk.tensor";
  if (!b.has(".global") || !b.has(".shared::cta")) b.error(std::string("State space incorrect for instruction '") + name + "'");
  check_direction(b, ".global", ".shared::cta");
  if (!b.has(".bulk_group")) b.error(std::string(".completion_mechanism modifier required for instruction '") + name + "'");
  const uint32_t dim = dims_of(b);
  const int mode = load_mode(b, {0, 5, 6});
  check_mode_dims(b, mode, dim);
  check_tensor_operand(b, 0, mode == 6 ? 5 : dim);
  check_plain_address(b, 1, "srcMem");
  size_t next = 2;
  if (b.has(".L2::cache_hint")) check_policy(b, next++);
  if (next != b.op_count()) b.error(std::string("Arguments mismatch for instruction '") + name + "'");
  b.in.a = uint8_t(mode == 0 ? mt::StoreMode::kTile : mode == 5 ? mt::StoreMode::kIm2colNoOffs : mt::StoreMode::kTileScatter4);
  b.in.c = uint8_t(dim);
  b.in.space = Space::Global;
}

}  // namespace

void bind_tma_store(Binder& b) {
  bind_store_common(b, false);
  b.in.fn = exec_tma_store;
}

void bind_tma_reduce(Binder& b) {
  bind_store_common(b, true);
  static const std::pair<const char*, mt::RedOp> ops[] = {
      {".add", mt::RedOp::kAdd}, {".min", mt::RedOp::kMin}, {".max", mt::RedOp::kMax}, {".inc", mt::RedOp::kInc},
      {".dec", mt::RedOp::kDec}, {".and", mt::RedOp::kAnd}, {".or", mt::RedOp::kOr},   {".xor", mt::RedOp::kXor}};
  int n = 0;
  for (auto& [tok, op] : ops)
    if (b.has(tok)) {
      b.in.d = uint8_t(op);
      ++n;
    }
  if (n == 0) b.error("Reduction operation is required for instruction 'cp.reduce.async.bulk.tensor'");
  if (n > 1) b.error("Multiple reduction operations specified for instruction 'cp.reduce.async.bulk.tensor'");
  if (mt::StoreMode(b.in.a) == mt::StoreMode::kTileScatter4)
    b.unimplemented(".tile::scatter4 reductions: ptxas accepts them but the PTX ISA does not describe them");
  b.in.fn = exec_tma_reduce;
}

void bind_tma_prefetch(Binder& b) {
  if (!b.has(".L2")) b.error(".level modifier required for instruction 'cp.async.bulk.prefetch.tensor'");
  if (!b.has(".global")) b.error("State space incorrect for instruction 'cp.async.bulk.prefetch.tensor'");
  const uint32_t dim = dims_of(b);
  const int mode = load_mode(b, {0, 1, 2, 3, 4});
  check_mode_dims(b, mode, dim);
  check_tensor_operand(b, 0, mode == 1 ? 5 : dim);
  size_t next = 1;
  if (mode >= 2) {
    const uint32_t n = mode == 2 ? dim - 2 : 2;
    if (next >= b.op_count() || b.op_kind(next) != Operand::Kind::Vec || b.in.op[next].count != n)
      b.error("Arguments mismatch for instruction 'cp.async.bulk.prefetch.tensor': " + std::string(kLoadModes[mode]) +
              " needs an im2colInfo vector of " + std::to_string(n));
    ++next;
  }
  if (b.has(".L2::cache_hint")) check_policy(b, next++);
  if (next != b.op_count()) b.error("Arguments mismatch for instruction 'cp.async.bulk.prefetch.tensor'");
  b.in.a = uint8_t(mode);
  b.in.c = uint8_t(dim);
  b.in.fn = exec_tma_prefetch;
}

}  // namespace ptxsim
