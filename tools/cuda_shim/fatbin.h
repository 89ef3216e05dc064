// The fat binary nvcc embeds in a host program, and the choice of the PTX ptxsim runs from it.
// Layout (found by inspecting nvcc 13 output; docs/cuda-shim.md "Fat binaries" has the tables):
//
//   wrapper (.nvFatBinSegment)     { u32 magic 0x466243b1; u32 version; const void* data; void* aux; }
//   fat binary (.nv_fatbin)        { u32 magic 0xba55ed50; u16 version 1; u16 header_size 16;
//                                    u64 entries_size }  followed by entries_size bytes of entries
//   entry                          { u16 kind (1 PTX, 2 ELF); u16 version; u32 header_size;
//                                    u64 payload_size; u32 compressed_size; u32 unknown;
//                                    u16 ptx_minor?; u16 ptx_major?; u32 arch (90, 100, ...);
//                                    u32 name_offset; u32 name_size; u64 flags; u64 zero;
//                                    u64 uncompressed_size; ... }  payload at entry + header_size
//   flags: 0x1 64-bit, 0x10 Linux, 0x2000 LZ4-compressed, 0x8000 zstd-compressed,
//          0x100000 architecture-specific ("a") variant.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::cuda_shim {

struct FatbinEntry {
  enum Kind : uint16_t { Ptx = 1, Elf = 2 } kind = Ptx;
  uint32_t arch = 0;          // 90 for compute_90/compute_90a/sm_90a
  bool arch_specific = false; // the "a" variant
  uint64_t flags = 0;
  std::vector<uint8_t> payload;  // decompressed
  std::string arch_name() const;  // "compute_90a" or "sm_100a"
};

// Recognises a wrapper (0x466243b1) or a bare fat binary (0xba55ed50) at `image`.
bool is_fatbin(const void* image);

// Parses every entry of the fat binary at `image` (wrapper or bare), decompressing payloads.
// Throws std::runtime_error naming the broken field on malformed input.
std::vector<FatbinEntry> parse_fatbin(const void* image);

// The PTX text to run on `sm` (90 or 100) with the "a" features: the arch-specific PTX of exactly
// that architecture if present, else the newest generic PTX not newer than it. Empty if none;
// `available` then lists what the binary carries ("sm_90a (SASS), compute_80 (PTX)").
std::string select_ptx(const std::vector<FatbinEntry>& entries, uint32_t sm, std::string& available);

// Decompressors for entry payloads (decompress.cpp: liblz4 for the LZ4 block format, libzstd for
// Zstandard frames). Both throw std::runtime_error on corrupt input; `expected` 0 means unknown.
std::vector<uint8_t> lz4_block_decompress(const uint8_t* src, size_t size, size_t expected);
std::vector<uint8_t> zstd_decompress(const uint8_t* src, size_t size, size_t expected);

}  // namespace ptxsim::cuda_shim
