// How ptxsim lays out addresses. Global (and .const/.global variables) use GlobalMemory's addresses
// directly; the other spaces appear in the generic address space through fixed windows, so
// cvta/isspacep are plain range arithmetic and a stray generic pointer cannot alias two spaces.
#pragma once
#include <cstdint>

namespace ptxsim {

// A shared-memory address (the 32-bit value of a .shared::cta or .shared::cluster address):
// bits 31:24 hold the CTA's rank in its cluster, bits 23:0 the offset in that CTA's shared memory.
// A CTA's own (.shared::cta) addresses carry its own rank, as on the hardware: the .shared::cta
// window lies inside the .shared::cluster window (PTX ISA 5.1.5), and CUTLASS's 2-SM code
// (`Sm100MmaPeerBitMask = 0xFEFFFFFF`) and Triton's 2-CTA code clear bit 24 of a CTA's own barrier
// address to name the same barrier in the even CTA of its pair. A CTA that is not part of a cluster
// launch is rank 0, so its addresses are plain offsets. docs/design.md "Shared memory addresses".
constexpr uint32_t kSharedRankShift = 24;
constexpr uint32_t kSharedOffsetMask = (1u << kSharedRankShift) - 1;
// Like Hopper, the first 1 KiB of each CTA's shared memory is reserved for the system; user
// variables start after it and an access below it faults.
constexpr uint32_t kSharedReserved = 0x400;

constexpr uint64_t kWindowSize = 1ull << 32;
constexpr uint64_t kSharedWindow = 0x7e0000000000ull;  // generic = kSharedWindow + shared address
constexpr uint64_t kLocalWindow = 0x7d0000000000ull;   // generic = kLocalWindow + local offset
constexpr uint64_t kParamWindow = 0x7c0000000000ull;   // generic = kParamWindow + kernel param offset

inline bool in_window(uint64_t a, uint64_t base) { return a - base < kWindowSize; }

}  // namespace ptxsim
