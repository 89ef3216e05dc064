#include "sim/exec/racecheck.h"
#include "sim/sem/tma_common.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ptxsim::sem::tma {

size_t mod_pos(const std::string& op, std::string_view tok) {
  size_t at = 0;
  while ((at = op.find(tok, at)) != std::string::npos) {
    size_t end = at + tok.size();
    if (end == op.size() || op[end] == '.') return at;
    at = end;
  }
  return std::string::npos;
}

uint64_t elem_value(const ExecCtx& c, const Operand& o, uint32_t i, int lane) {
  const uint32_t base = o.kind == Operand::Kind::Addr ? o.aux : o.slot;
  const Operand& e = c.fn->vec_pool[base + i];
  return c.regs[size_t(e.slot) * 32 + size_t(lane)];
}

bool is_reg_or_imm(const Operand& o, uint32_t bits) {
  return o.kind == Operand::Kind::Imm || (o.kind == Operand::Kind::Reg && o.width == bits);
}

std::string cta_name(const ExecCtx& c, const Cta& cta) {
  return &cta == c.cta ? "this CTA" : "CTA rank " + std::to_string(cta.rank);
}

// ---- tensor maps --------------------------------------------------------------------------------

namespace {

bool in_const_variable(const Engine& e, uint64_t a) {
  for (const auto& mv : e.prog.module_vars)
    if (mv.is_const && a - mv.address < mv.init.size()) return true;
  return false;
}

std::string byte_ranges(const uint8_t* a, const uint8_t* b) {
  std::string out;
  for (int i = 0; i < 128;) {
    if (a[i] == b[i]) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 128 && a[j + 1] != b[j + 1]) ++j;
    char s[32];
    if (j == i) std::snprintf(s, sizeof s, "0x%02x", i);
    else std::snprintf(s, sizeof s, "0x%02x-0x%02x", i, j);
    out += out.empty() ? s : std::string(", ") + s;
    i = j + 1;
  }
  return out;
}

}  // namespace

// The tensor map `bytes` encode: the last few decoded on this thread are kept (a kernel's TMA
// operations use one or two maps, and decoding one per operation was 1.7 % of the CuTe
// wgmma_tma_sm90 tutorial).
static const model::tmap::DecodeResult& decoded(const std::array<uint8_t, 128>& bytes) {
  struct Entry {
    std::array<uint8_t, 128> bytes;
    model::tmap::DecodeResult result;
  };
  constexpr size_t kEntries = 4;
  thread_local std::vector<Entry> cache;
  thread_local size_t next = 0;
  for (const Entry& e : cache)
    if (e.bytes == bytes) return e.result;
  if (cache.size() < kEntries) {
    cache.push_back({bytes, model::tmap::decode(bytes.data())});
    return cache.back().result;
  }
  Entry& e = cache[next];
  next = (next + 1) % kEntries;
  e = {bytes, model::tmap::decode(bytes.data())};
  return e.result;
}

model::tmap::TensorMap read_tensor_map(ExecCtx& c, const Operand& o, int l, uint64_t* where) {
  Engine& e = *c.eng;
  uint64_t v = sem::addr_of(c, o, l);
  if (where) *where = v;
  std::array<uint8_t, 128> bytes;
  const char* space = "global";
  auto misaligned = [&](uint64_t a) {
    if (a % 64)
      c.fault("misaligned address", "tensor map address " + hex(v) + " (lane " + std::to_string(l) +
                                        ") is not 64-byte aligned (a CUtensorMap must be)");
  };
  // The operand is a generic address: a kernel parameter's is in the .param window (cvta.param of
  // its address). `mov.u64 %rd, param` gives the parameter's .param-space address, which is no
  // generic address: on an H200 a TMA load through it faults with CUDA_ERROR_MISALIGNED_ADDRESS.
  // (The binder rejects a named .param variable, as ptxas does.)
  if (v < e.params.size() && !e.global.translate(v, 1)) {
    std::string what = "a .param-space address";
    for (const auto& p : e.kernel.info.params)
      if (v - p.offset < p.size) what = "the .param-space address of kernel parameter '" + p.name + "'";
    c.fault("misaligned address", "tensor map address " + hex(v) + " (lane " + std::to_string(l) + ") is " + what +
                                      " (what mov gives), not a generic address: convert it with cvta.param.u64 first");
  }
  const bool param = in_window(v, kParamWindow);
  if (param) {
    const uint64_t off = v - kParamWindow;
    misaligned(off);
    if (off + 128 > e.params.size())
      c.fault("illegal address", "tensor map at param offset " + hex(off) + " (lane " + std::to_string(l) +
                                     ") extends beyond the kernel's " + std::to_string(e.params.size()) +
                                     "-byte parameter buffer");
    std::memcpy(bytes.data(), e.params.data() + off, 128);
    space = "param";
  } else {
    if (in_window(v, kSharedWindow) || in_window(v, kLocalWindow))
      c.fault("illegal address", "tensor map address " + hex(v) + " (lane " + std::to_string(l) +
                                     ") is not in .param, .const or .global memory");
    misaligned(v);
    const uint8_t* p = e.global.translate(v, 128);
    if (!p) {
      const auto* a = e.global.find(v);
      c.fault("illegal address", "tensor map at " + hex(v) + " (lane " + std::to_string(l) + "): " +
                                     (a ? "the 128 bytes extend past the end of allocation '" + a->name + "'"
                                        : std::string("not inside any allocation")));
    }
    std::memcpy(bytes.data(), p, 128);
    if (in_const_variable(e, v)) {
      space = "const";
    } else {
      // The tensormap proxy's view of a map in global memory.
      auto it = c.cta->tmap_acquired.find(v);
      if (it == c.cta->tmap_acquired.end()) {
        e.warn(c, "tensor map at " + hex(v) + " used without fence.proxy.tensormap::generic acquire in this CTA "
                  "(the tensormap proxy may not see the generic proxy's writes; ptxsim uses the current bytes)");
      } else if (std::memcmp(it->second.data(), bytes.data(), 128) != 0) {
        e.warn(c, "tensor map at " + hex(v) + ": modified through the generic proxy after this CTA's last "
                  "fence.proxy.tensormap::generic acquire (bytes " + byte_ranges(it->second.data(), bytes.data()) +
                  " differ); the tensormap proxy may still see the acquired copy, which ptxsim uses");
        bytes = it->second;
      }
    }
  }
  const model::tmap::DecodeResult& d = decoded(bytes);
  if (!d.valid())
    c.fault("error", "invalid tensor map at " + std::string(space) + " address " + hex(v) + ": field '" +
                         d.validity.field + "': " + d.validity.message);
  return d.map;
}

void acquire_tensor_map(ExecCtx& c, uint64_t addr, int l) {
  // A fence is not an access: an address that holds no tensor map in global memory (null, as
  // CUTLASS's grouped GEMMs hand their non-leader warps, or outside every allocation) has nothing
  // to order, and the fence does nothing there, as on hardware.
  if (in_window(addr, kSharedWindow) || in_window(addr, kLocalWindow)) {
    c.eng->warn(c, "fence.proxy.tensormap::generic.acquire: address " + hex(addr) + " (lane " + std::to_string(l) +
                       ") is in the " + (in_window(addr, kSharedWindow) ? "shared" : "local") +
                       " window, not global memory; the fence orders nothing there (PTX requires a .global address)");
    return;
  }
  const uint8_t* p = c.eng->global.translate(addr, 128);
  if (!p) return;  // null, the .param window, or not 128 bytes inside one allocation: no map to acquire
  std::array<uint8_t, 128> snap;
  std::memcpy(snap.data(), p, 128);
  c.cta->tmap_acquired[addr] = snap;
}

// ---- bulk async-groups --------------------------------------------------------------------------

BulkTicket bulk_open(ExecCtx& c, int lane) {
  BulkGroups& b = c.warp->bulk[size_t(lane)];
  BulkTicket t{c.warp, uint32_t(lane), b.committed};
  for (auto& p : b.pending)
    if (p.first == t.group) {
      ++p.second;
      return t;
    }
  b.pending.emplace_back(t.group, 1);
  return t;
}

void bulk_done(Engine& e, const BulkTicket& t) {
  auto& v = t.warp->bulk[t.lane].pending;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].first == t.group) {
      if (--v[i].second == 0) v.erase(v.begin() + long(i));
      break;
    }
  e.wake(WaitKind::BulkGroup, uint64_t(reinterpret_cast<uintptr_t>(t.warp)), ~0ull);
}

// ---- generic-proxy writes read by the async proxy -----------------------------------------------

void check_generic_writes(ExecCtx& c, Cta& cta, uint32_t off, uint32_t bytes, model::tma::Swizzle sw,
                          std::string_view what) {
  for (uint64_t i = 0; i < bytes; i += 8) {
    uint32_t a = model::tma::swizzle_address(sw, uint32_t(off + i));
    if (cta.generic_writes.any(a, uint32_t(std::min<uint64_t>(8, bytes - i)))) {
      if (c.race) c.race->proxy_race(c, cta, a, std::string(what));  // the race report names the generic write too
      c.eng->warn(c, std::string(what) + " reads shared memory at " + hex(a & ~15u) + " (" + cta_name(c, cta) +
                         ") written through the generic proxy without an intervening fence.proxy.async; "
                         "the async proxy may read stale data");
      return;
    }
  }
}

void check_no_mbarrier(ExecCtx& c, Cta& cta, uint32_t off, uint32_t bytes, std::string_view what) {
  if (!cta.live_mbars || !bytes) return;
  // (The words are 0 or 1: a byte search finds the first live one.)
  const size_t lo = off / 8, hi = std::min<size_t>((uint64_t(off) + bytes - 1) / 8 + 1, cta.mbar_word.size());
  if (lo >= hi) return;
  if (const void* hit = std::memchr(cta.mbar_word.data() + lo, 1, hi - lo)) {
    const size_t w = size_t(static_cast<const uint8_t*>(hit) - cta.mbar_word.data());
    c.fault("error", std::string(what) + " would overwrite the live mbarrier at shared address " + hex(uint64_t(w) * 8) + " of " +
                           cta_name(c, cta));
  }
}

void clear_generic_writes(Cta& cta) { cta.generic_writes.clear_all(); }

void async_wrote(Cta& cta, uint32_t off, uint32_t bytes) { cta.generic_writes.clear(off, bytes); }

// ---- mbarriers ----------------------------------------------------------------------------------

MbarrierSlot* live_mbarrier(Cta& cta, uint32_t off) {
  auto it = cta.mbars.find(off);
  return it != cta.mbars.end() && it->second.bar.live() ? &it->second : nullptr;
}

void require_mbarrier(ExecCtx& c, Cta& cta, uint32_t off, std::string_view what) {
  if (!live_mbarrier(cta, off))
    c.fault("error", std::string(what) + ": shared address " + hex(off) + " of " + cta_name(c, cta) +
                         " holds no initialised mbarrier for the complete-tx (mbarrier.init it first" +
                         (&cta == c.cta ? ")" : " and synchronise the cluster before the copy)"));
}

void complete_tx(Engine& e, Cta& cta, uint32_t off, uint32_t bytes, std::string_view what, uint32_t line) {
  MbarrierSlot* m = live_mbarrier(cta, off);
  const auto op = [&] { return std::string(what) + " (line " + std::to_string(line) + ")"; };
  if (!m)
    throw KernelFault{op() + " completed, but shared address " + hex(off) + " of CTA rank " +
                          std::to_string(cta.rank) + " no longer holds an initialised mbarrier for its complete-tx",
                      "error"};
  auto r = m->bar.complete_tx(int64_t(bytes));
  if (r.error != model::Mbarrier::Error::None)
    throw KernelFault{op() + ": complete-tx of " + std::to_string(bytes) + " bytes on the mbarrier at shared address " +
                          hex(off) + " of CTA rank " + std::to_string(cta.rank) + ": " +
                          model::Mbarrier::describe(r.error),
                      "error"};
  m->tx_completed_total += bytes;
  if (r.completed) e.mbarrier_phase_completed(cta, *m);
  e.mbarrier_changed(*m);
}

}  // namespace ptxsim::sem::tma
