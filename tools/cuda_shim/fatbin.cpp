#include "tools/cuda_shim/fatbin.h"

#include <cstring>
#include <stdexcept>

namespace ptxsim::cuda_shim {

namespace {

constexpr uint32_t kWrapperMagic = 0x466243b1;
constexpr uint32_t kFatbinMagic = 0xba55ed50;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000, kFlagArchSpecific = 0x100000;

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

const uint8_t* fatbin_start(const void* image) {
  auto* p = static_cast<const uint8_t*>(image);
  if (load<uint32_t>(p) == kWrapperMagic) p = static_cast<const uint8_t*>(load<const void*>(p + 8));
  if (!p || load<uint32_t>(p) != kFatbinMagic) throw std::runtime_error("fat binary: bad magic (expected 0xba55ed50)");
  return p;
}

}  // namespace

std::string FatbinEntry::arch_name() const {
  return std::string(kind == Ptx ? "compute_" : "sm_") + std::to_string(arch) + (arch_specific ? "a" : "");
}

bool is_fatbin(const void* image) {
  uint32_t m = load<uint32_t>(static_cast<const uint8_t*>(image));
  return m == kWrapperMagic || m == kFatbinMagic;
}

std::vector<FatbinEntry> parse_fatbin(const void* image) {
  const uint8_t* fb = fatbin_start(image);
  uint16_t header_size = load<uint16_t>(fb + 6);
  uint64_t entries_size = load<uint64_t>(fb + 8);
  if (header_size < 16) throw std::runtime_error("fat binary: header size " + std::to_string(header_size) + " < 16");
  std::vector<FatbinEntry> out;
  const uint8_t* e = fb + header_size;
  const uint8_t* end = e + entries_size;
  while (e < end) {
    uint16_t kind = load<uint16_t>(e);
    uint32_t eh = load<uint32_t>(e + 4);
    uint64_t payload_size = load<uint64_t>(e + 8);
    if (eh < 0x40 || uint64_t(end - e) < eh + payload_size)
      throw std::runtime_error("fat binary: entry at offset " + std::to_string(e - fb) + " overruns the binary");
    uint32_t compressed_size = load<uint32_t>(e + 16);
    FatbinEntry fe;
    fe.kind = FatbinEntry::Kind(kind);
    fe.arch = load<uint32_t>(e + 28);
    fe.flags = load<uint64_t>(e + 40);
    fe.arch_specific = fe.flags & kFlagArchSpecific;
    uint64_t uncompressed = eh >= 0x40 ? load<uint64_t>(e + 56) : 0;
    const uint8_t* payload = e + eh;
    if (fe.flags & (kFlagLz4 | kFlagZstd)) {
      if (compressed_size > payload_size) throw std::runtime_error("fat binary: compressed size exceeds the payload");
      fe.payload = (fe.flags & kFlagLz4) ? lz4_block_decompress(payload, compressed_size, uncompressed)
                                         : zstd_decompress(payload, compressed_size, uncompressed);
    } else {
      fe.payload.assign(payload, payload + payload_size);
    }
    if (kind == FatbinEntry::Ptx || kind == FatbinEntry::Elf) out.push_back(std::move(fe));
    e += eh + payload_size;
  }
  return out;
}

std::string select_ptx(const std::vector<FatbinEntry>& entries, uint32_t sm, std::string& available) {
  const FatbinEntry* best = nullptr;
  available.clear();
  for (const FatbinEntry& e : entries) {
    available += (available.empty() ? "" : ", ") + e.arch_name() + (e.kind == FatbinEntry::Ptx ? " (PTX)" : " (SASS)");
    if (e.kind != FatbinEntry::Ptx) continue;
    bool usable = e.arch_specific ? e.arch == sm : e.arch <= sm;  // "a" PTX runs only on its own arch
    if (!usable) continue;
    auto rank = [&](const FatbinEntry* x) { return x->arch * 2 + (x->arch_specific ? 1 : 0); };
    if (!best || rank(&e) > rank(best)) best = &e;
  }
  if (!best) return "";
  std::string text(best->payload.begin(), best->payload.end());
  if (size_t z = text.find('\0'); z != std::string::npos) text.resize(z);  // payloads are NUL-padded
  return text;
}

}  // namespace ptxsim::cuda_shim
