// What instruction semantics see while they execute: the current frame's registers, the thread
// group running, and checked access to every memory space. Semantics files (sim/sem/*.cpp) include
// this and nothing of the scheduler.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "model/memory/global_memory.h"
#include "sim/exec/address_space.h"
#include "sim/exec/instr.h"

namespace ptxsim {

class Engine;
class RaceCheck;
struct Warp;
struct Cta;
struct Group;
struct Function;

// Raised by semantics for a kernel fault (illegal address, trap, assertion); the engine adds the
// PTX location and stops the launch with status Fault.
struct KernelFault {
  std::string message;
  std::string kind;  // "illegal address", "misaligned address", "trap", "assertion", "error"
};

enum class Access : uint8_t { Read, Write, Atomic };

// What spin-wait detection needs from every access (sim/exec/spin.cpp): a count of writes (any
// change a load could observe) and the address of the last read.
struct MemEvents {
  uint64_t writes = 0;
  // The address of the latest load since the last backward branch (kNoRead: none), for naming the
  // address a spin loop polls.
  static constexpr uint64_t kNoRead = ~0ull;
  uint64_t last_read = kNoRead;
};

struct ExecCtx {
  uint64_t* regs = nullptr;  // regs[slot * 32 + lane] of the current frame
  Engine* eng = nullptr;
  model::GlobalView* global = nullptr;  // the engine's view, for the inline global-access fast path
  Warp* warp = nullptr;
  Cta* cta = nullptr;
  Group* group = nullptr;    // the thread group executing (control flow changes its pc)
  const Function* fn = nullptr;
  uint32_t pc = 0;           // index of the executing instruction in fn
  uint32_t local_base = 0;   // the frame's offset in each lane's stack (for frame variables)
  bool hold = false;         // set by semantics that block and must re-execute when woken
  RaceCheck* race = nullptr; // --racecheck's detector (sim/exec/racecheck.h), or null
  MemEvents* events = nullptr;

  uint64_t* col(const Operand& o) const { return regs + size_t(o.slot) * 32; }
  uint64_t* col(uint32_t slot) const { return regs + size_t(slot) * 32; }

  // Host pointer for `size` bytes at `addr` in `space` for `lane`; faults (throws KernelFault) when
  // the range is outside the space, not naturally aligned to `align`, or unmapped.
  uint8_t* mem(Space space, uint64_t addr, uint32_t size, uint32_t align, int lane, Access acc) {
    // Atomics count where they change memory (sim/sem/atom.cpp): a failing atom.cas poll is a read.
    if (acc == Access::Write) ++events->writes;
    else events->last_read = addr;
    if (race) [[unlikely]] return mem_race(space, addr, size, align, lane, acc);
    // Fast path: an aligned access inside one global allocation (or .const variable); everything
    // else, including every fault, goes through mem_checked.
    const bool global_space = space == Space::Global || space == Space::Const ||
                              (space == Space::Generic && !in_window(addr, kSharedWindow) &&
                               !in_window(addr, kLocalWindow) && !in_window(addr, kParamWindow));
    if (global_space && !(addr & (align - 1)))
      if (uint8_t* p = global->translate(addr, size)) return p;
    return mem_checked(space, addr, size, align, lane, acc);
  }
  uint8_t* mem_checked(Space space, uint64_t addr, uint32_t size, uint32_t align, int lane, Access acc);
  uint8_t* mem_race(Space space, uint64_t addr, uint32_t size, uint32_t align, int lane, Access acc);

  [[noreturn]] void fault(const std::string& kind, const std::string& message) const {
    throw KernelFault{message, kind};
  }
};

// Runs f(lane) for every lane in mask; the full-warp case is a plain loop the compiler vectorises.
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == 0xffffffffu) {
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    while (mask) {
      int l = std::countr_zero(mask);
      mask &= mask - 1;
      f(l);
    }
  }
}

// The number of lanes in `mask`. A portable build has no popcnt instruction, and std::popcount
// then calls a library routine; this is a few inline operations.
inline uint32_t lane_count(uint32_t mask) {
#ifdef __POPCNT__
  return uint32_t(__builtin_popcount(mask));
#else
  mask = mask - ((mask >> 1) & 0x55555555u);
  mask = (mask & 0x33333333u) + ((mask >> 2) & 0x33333333u);
  return (((mask + (mask >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
#endif
}

// The lanes, among all 32, whose predicate register (column p: 0 or 1 per lane) is true; callers
// mask the result (every lane's register holds a value, active or not). With SSE2 sixteen lanes at
// a time: the low halves of four lanes gathered into one vector with bit 0 moved to each sign bit,
// then signed-saturating packs (which keep the sign) narrow sixteen lanes to sixteen bytes.
inline uint32_t pred_lanes(const uint64_t* p) {
#ifdef __SSE2__
  auto four = [](const uint64_t* q) {
    const __m128 a = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
    const __m128 b = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 2)));
    return _mm_slli_epi32(_mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))), 31);
  };
  auto sixteen = [&](const uint64_t* q) {
    const __m128i lo = _mm_packs_epi32(four(q), four(q + 4));
    const __m128i hi = _mm_packs_epi32(four(q + 8), four(q + 12));
    return uint32_t(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)));
  };
  return sixteen(p) | sixteen(p + 16) << 16;
#else
  uint32_t m = 0;
  for (int l = 0; l < 32; ++l) m |= uint32_t(p[l] & 1) << l;
  return m;
#endif
}

// Little-endian loads and stores of N bytes to and from a 64-bit register value.
inline uint64_t load_le(const uint8_t* p, uint32_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  return v;
}
inline void store_le(uint8_t* p, uint64_t v, uint32_t bytes) { std::memcpy(p, &v, bytes); }

template <class T>
inline T bits_as(uint64_t v) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<T>(v);
  if constexpr (sizeof(T) == 4) return std::bit_cast<T>(uint32_t(v));
  if constexpr (sizeof(T) == 2) return std::bit_cast<T>(uint16_t(v));
  if constexpr (sizeof(T) == 1) return std::bit_cast<T>(uint8_t(v));
}
template <class T>
inline uint64_t as_bits(T v) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<uint64_t>(v);
  if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(v);
  if constexpr (sizeof(T) == 2) return std::bit_cast<uint16_t>(v);
  if constexpr (sizeof(T) == 1) return std::bit_cast<uint8_t>(v);
}

}  // namespace ptxsim
