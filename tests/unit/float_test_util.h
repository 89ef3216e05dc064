// Helpers for the floating-point and cvt instruction tests (float_sem_test.cpp, cvt_test.cpp,
// float_prop_test.cpp): a batched kernel runner that pushes arrays of input bit patterns through
// one PTX instruction on the real pipeline (load_program + launch), random bit-pattern
// generators, and reference arithmetic written from the IEEE/PTX definitions. The references do
// not use model/numerics: IEEE f32/f64 results come from the host FPU under fesetround, and
// small formats (f16, bf16, tf32, fp8/6/4) are rounded by round_to() below from an exact value
// carried as a pair of doubles.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"

namespace ftest {

// ---- kernel runner ----------------------------------------------------------------------------

// A register operand: its declaration type and the bytes it occupies in the input/output arrays.
struct Reg {
  const char* type;
  uint32_t bytes;
};
inline constexpr Reg kB8{"b8", 1}, kB16{"b16", 2}, kB32{"b32", 4}, kB64{"b64", 8};
inline constexpr Reg kF32{"f32", 4}, kF64{"f64", 8}, kPred{"pred", 4};

// One instruction (or a few) applied per thread. `body` names the destination %d and the sources
// %a, %b, %c, %e (in that order of `srcs`); a .pred destination is stored as 0/1 in 4 bytes.
struct Kernel {
  std::string body;
  Reg dst;
  std::vector<Reg> srcs;
  std::string target = "sm_100a";
  std::string version = "8.8";
};

inline const char* const kSrcNames[] = {"a", "b", "c", "e"};

inline std::string ptx_of(const Kernel& k) {
  std::ostringstream s;
  s << ".version " << k.version << "\n.target " << k.target << "\n.address_size 64\n"
    << ".visible .entry k(.param .u64 p_d, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u64 p_e)\n{\n"
    << "  .reg .b32 %tx, %cx, %nx, %ix;\n  .reg .b64 %off, %pd, %pa, %pb, %pc, %pe;\n"
    << "  .reg ." << k.dst.type << " %d;\n";
  for (size_t i = 0; i < k.srcs.size(); ++i) s << "  .reg ." << k.srcs[i].type << " %" << kSrcNames[i] << ";\n";
  s << "  mov.u32 %tx, %tid.x;\n  mov.u32 %cx, %ctaid.x;\n  mov.u32 %nx, %ntid.x;\n"
    << "  mad.lo.u32 %ix, %cx, %nx, %tx;\n";
  for (size_t i = 0; i < k.srcs.size(); ++i) {
    const char* n = kSrcNames[i];
    s << "  ld.param.u64 %p" << n << ", [p_" << n << "];\n"
      << "  mul.wide.u32 %off, %ix, " << k.srcs[i].bytes << ";\n"
      << "  add.s64 %p" << n << ", %p" << n << ", %off;\n"
      << "  ld.global.b" << k.srcs[i].bytes * 8 << " %" << n << ", [%p" << n << "];\n";
  }
  s << "  " << k.body << "\n"
    << "  ld.param.u64 %pd, [p_d];\n  mul.wide.u32 %off, %ix, " << k.dst.bytes << ";\n  add.s64 %pd, %pd, %off;\n";
  if (std::string(k.dst.type) == "pred")
    s << "  @%d st.global.u32 [%pd], 1;\n  @!%d st.global.u32 [%pd], 0;\n";
  else
    s << "  st.global.b" << k.dst.bytes * 8 << " [%pd], %d;\n";
  s << "  ret;\n}\n";
  return s.str();
}

inline std::shared_ptr<const ptxsim::Program> program_of(const std::string& text) {
  static std::map<std::string, std::shared_ptr<const ptxsim::Program>> cache;
  auto it = cache.find(text);
  if (it != cache.end()) return it->second;
  auto p = ptxsim::load_program(text, "float_test.ptx");
  cache[text] = p;
  return p;
}

// Runs `k` once over in[src][i] (bit patterns; the low `bytes` of each are used) and returns the
// destination bits for every i. Outputs are poisoned with 0xAB before the launch.
inline std::vector<uint64_t> run(const Kernel& k, const std::vector<std::vector<uint64_t>>& in) {
  constexpr uint32_t kBlock = 256;
  const size_t n = in.empty() ? kBlock : in[0].size();
  const size_t padded = (n + kBlock - 1) / kBlock * kBlock;
  std::string text = ptx_of(k);
  std::shared_ptr<const ptxsim::Program> prog;
  try {
    prog = program_of(text);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "load failed: " << e.what() << "\n" << text;
    return {};
  }
  ptxsim::model::GlobalMemory mem;
  std::vector<uint8_t> params(40, 0);
  uint64_t out = mem.allocate(padded * k.dst.bytes);
  std::vector<uint8_t> poison(padded * k.dst.bytes, 0xAB);
  mem.write(out, poison.data(), poison.size());
  std::memcpy(params.data(), &out, 8);
  for (size_t s = 0; s < k.srcs.size(); ++s) {
    const uint32_t bytes = k.srcs[s].bytes;
    std::vector<uint8_t> buf(padded * bytes, 0);
    for (size_t i = 0; i < n; ++i) std::memcpy(buf.data() + i * bytes, &in[s][i], bytes);
    uint64_t addr = mem.allocate(buf.size());
    mem.write(addr, buf.data(), buf.size());
    std::memcpy(params.data() + 8 * (s + 1), &addr, 8);
  }
  ptxsim::LaunchConfig cfg;
  cfg.grid.x = uint32_t(padded / kBlock);
  cfg.block.x = kBlock;
  ptxsim::RunResult r = ptxsim::launch(*prog, "k", cfg, params, mem);
  if (r.status != ptxsim::RunStatus::Completed) {
    ADD_FAILURE() << "launch did not complete: " << r.report << "\n" << text;
    return {};
  }
  std::vector<uint8_t> res(padded * k.dst.bytes);
  mem.read(out, res.data(), res.size());
  std::vector<uint64_t> outv(n, 0);
  for (size_t i = 0; i < n; ++i) std::memcpy(&outv[i], res.data() + i * k.dst.bytes, k.dst.bytes);
  return outv;
}

// The message of the PtxError that loading `text` raises ("" if it loads).
inline std::string load_error(const std::string& text, bool* unimplemented = nullptr) {
  try {
    ptxsim::load_program(text, "x.ptx");
  } catch (const ptxsim::PtxError& e) {
    if (unimplemented) *unimplemented = e.unimplemented;
    return e.what();
  }
  return "";
}

// A module with one instruction and registers of every kind (%f .f32, %fd .f64, %h .b16, %r .b32,
// %rd .b64, %p .pred, %q .b8).
inline std::string one_instr_module(const std::string& instr, const std::string& target, const std::string& ver = "8.8") {
  return ".version " + ver + "\n.target " + target + "\n.address_size 64\n.visible .entry k()\n{\n" +
         "  .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .b16 %h<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n" +
         "  .reg .pred %p<4>; .reg .b8 %q<4>;\n  " + instr + "\n  ret;\n}\n";
}

// ---- bit helpers ------------------------------------------------------------------------------

inline float f32_of(uint64_t b) { return std::bit_cast<float>(uint32_t(b)); }
inline uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline double f64_of(uint64_t b) { return std::bit_cast<double>(b); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }
inline bool is_nan32(uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
inline bool is_nan64(uint64_t b) { return (b & ~(1ull << 63)) > 0x7FF0000000000000ull; }
inline bool is_sub32(uint32_t b) { return (b & 0x7F800000u) == 0 && (b & 0x007FFFFFu) != 0; }
inline uint32_t flush32(uint32_t b) { return is_sub32(b) ? b & 0x80000000u : b; }

inline std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

// ---- rounding modes and the host FPU ----------------------------------------------------------

enum class Mode { RN, RZ, RM, RP, RNA };
inline const char* mode_name(Mode m) {
  switch (m) {
    case Mode::RN: return ".rn";
    case Mode::RZ: return ".rz";
    case Mode::RM: return ".rm";
    case Mode::RP: return ".rp";
    case Mode::RNA: return ".rna";
  }
  return "";
}
inline int fe_mode(Mode m) {
  switch (m) {
    case Mode::RZ: return FE_TOWARDZERO;
    case Mode::RM: return FE_DOWNWARD;
    case Mode::RP: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// Host arithmetic in a rounding mode. The operands go through volatiles so the compiler cannot
// move the operation across the mode switch.
template <class T>
T host_add(T a, T b, Mode m) {
  volatile T x = a, y = b;
  std::fesetround(fe_mode(m));
  volatile T r = x + y;
  std::fesetround(FE_TONEAREST);
  return r;
}
template <class T>
T host_mul(T a, T b, Mode m) {
  volatile T x = a, y = b;
  std::fesetround(fe_mode(m));
  volatile T r = x * y;
  std::fesetround(FE_TONEAREST);
  return r;
}
template <class T>
T host_div(T a, T b, Mode m) {
  volatile T x = a, y = b;
  std::fesetround(fe_mode(m));
  volatile T r = x / y;
  std::fesetround(FE_TONEAREST);
  return r;
}
template <class T>
T host_sqrt(T a, Mode m) {
  volatile T x = a;
  std::fesetround(fe_mode(m));
  volatile T r = std::sqrt(x);
  std::fesetround(FE_TONEAREST);
  return r;
}
inline double host_fma(double a, double b, double c, Mode m) {
  volatile double x = a, y = b, z = c;
  std::fesetround(fe_mode(m));
  volatile double r = std::fma(x, y, z);
  std::fesetround(FE_TONEAREST);
  return r;
}
inline float host_f64_to_f32(double a, Mode m) {
  volatile double x = a;
  std::fesetround(fe_mode(m));
  volatile float r = float(x);
  std::fesetround(FE_TONEAREST);
  return r;
}

// ---- small-format reference rounding ----------------------------------------------------------

// A binary floating-point format: `man` explicit mantissa bits, `exp` exponent bits, bias.
struct Fmt {
  int man, exp, bias;
  enum Sp { IEEE, NanOnly, NoNan } sp;
  int emin() const { return 1 - bias; }
  // Largest finite magnitude.
  double max_finite() const {
    int top = (1 << exp) - 1 - bias;  // exponent of the all-ones field
    switch (sp) {
      case IEEE: return std::ldexp(2.0 - std::ldexp(1.0, -man), top - 1);
      case NanOnly: return std::ldexp(2.0 - std::ldexp(1.0, 1 - man), top);
      case NoNan: return std::ldexp(2.0 - std::ldexp(1.0, -man), top);
    }
    return 0;
  }
  uint32_t sign_bit() const { return 1u << (man + exp); }
  uint32_t inf() const { return uint32_t((1 << exp) - 1) << man; }
};
inline constexpr Fmt kHalf{10, 5, 15, Fmt::IEEE}, kBF16{7, 8, 127, Fmt::IEEE}, kTF32{10, 8, 127, Fmt::IEEE},
    kF32Fmt{23, 8, 127, Fmt::IEEE}, kE4M3{3, 4, 7, Fmt::NanOnly}, kE5M2{2, 5, 15, Fmt::IEEE},
    kE2M3{3, 2, 1, Fmt::NoNan}, kE3M2{2, 3, 3, Fmt::NoNan}, kE2M1{1, 2, 1, Fmt::NoNan};

// The exact value of `bits` in format f (NaN as a quiet double NaN).
inline double decode(const Fmt& f, uint32_t bits) {
  const bool neg = bits & f.sign_bit();
  const uint32_t e = (bits >> f.man) & ((1u << f.exp) - 1), m = bits & ((1u << f.man) - 1);
  double v;
  if (e == uint32_t((1 << f.exp) - 1) && f.sp == Fmt::IEEE) v = m ? NAN : INFINITY;
  else if (e == uint32_t((1 << f.exp) - 1) && f.sp == Fmt::NanOnly && m == (1u << f.man) - 1) v = NAN;
  else if (e == 0) v = std::ldexp(double(m), f.emin() - f.man);
  else v = std::ldexp(double(m + (1u << f.man)), int(e) - f.bias - f.man);
  return neg ? -v : v;
}

// Rounds the exact value hi + lo (lo zero, or below half an ulp of hi as TwoSum/TwoProd leave it)
// into f with mode m; `satfinite` clamps overflow (Inf included) to MAX_NORM. The caller handles
// NaN inputs. An infinite hi overflows like a too-large finite value. Returns the encoding.
inline uint32_t round_to(const Fmt& f, double hi, double lo, Mode m, bool satfinite = false) {
  const bool neg = std::signbit(hi);
  const uint32_t sign = neg ? f.sign_bit() : 0;
  const double maxf = f.max_finite();
  auto overflow = [&]() -> uint32_t {
    bool to_inf = !satfinite && (m == Mode::RN || m == Mode::RNA || (m == Mode::RP && !neg) || (m == Mode::RM && neg));
    uint32_t max_code = 0;
    // Encode max finite.
    int e;
    std::frexp(maxf, &e);
    uint32_t mant = uint32_t(std::ldexp(maxf, f.man - (e - 1))) - (1u << f.man);
    max_code = (uint32_t(e - 1 + f.bias) << f.man) | mant;
    if (!to_inf) return sign | max_code;
    if (f.sp == Fmt::IEEE) return sign | f.inf();
    if (f.sp == Fmt::NanOnly) return sign | ((1u << (f.man + f.exp)) - 1);
    return sign | max_code;
  };
  if (std::isinf(hi)) return overflow();
  if (hi == 0) return sign;  // lo is 0 too
  double mh = std::fabs(hi), ml = neg ? -lo : lo;  // magnitude mh + ml
  int e;
  double fr = std::frexp(mh, &e);
  int lead = e - 1;
  if (fr == 0.5 && ml < 0) lead -= 1;  // just below a power of two
  const int qexp = std::max(lead, f.emin()) - f.man;
  double t = std::ldexp(mh, -qexp), l = std::ldexp(ml, -qexp);
  double F = std::floor(t), r = t - F;
  bool exact = false, half = false, above = false;
  if (r > 0) {
    half = r == 0.5 && l == 0;
    above = r > 0.5 || (r == 0.5 && l > 0);
  } else if (l == 0) {
    exact = true;
  } else if (l < 0) {
    F -= 1;
    above = true;
  }
  bool up = false;
  switch (m) {
    case Mode::RN: up = above || (half && std::fmod(F, 2.0) == 1.0); break;
    case Mode::RNA: up = above || half; break;
    case Mode::RZ: up = false; break;
    case Mode::RP: up = !exact && !neg; break;
    case Mode::RM: up = !exact && neg; break;
  }
  const double mag = std::ldexp(F + (up ? 1 : 0), qexp);
  if (mag > maxf) return overflow();
  if (mag == 0) return sign;
  if (mag < std::ldexp(1.0, f.emin())) return sign | uint32_t(std::ldexp(mag, f.man - f.emin()));
  std::frexp(mag, &e);
  const int E = e - 1;
  const uint32_t mant = uint32_t(std::ldexp(mag, f.man - E)) - (1u << f.man);
  return sign | (uint32_t(E + f.bias) << f.man) | mant;
}

// Exact a*b + c for doubles whose product is exact (small formats): returns the pair (hi, lo).
inline std::pair<double, double> two_sum(double a, double b) {
  double s = a + b;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  return {s, err};
}

// f32 fused multiply-add in mode m from the definition: the product is exact in double, the sum
// exact as a TwoSum pair, rounded once by round_to(). Returns the bits (NaN results: any NaN).
inline uint32_t ref_fma_f32(float a, float b, float c, Mode m) {
  const double p = double(a) * double(b);
  if (std::isnan(p) || std::isnan(c)) return 0x7FFFFFFFu;
  if (std::isinf(p) || std::isinf(c)) {
    double s = p + double(c);
    return std::isnan(s) ? 0x7FFFFFFFu : bits_of(float(s));
  }
  auto [s, e] = two_sum(p, double(c));
  if (s == 0 && e == 0) return bits_of(host_add(float(p), c, m));  // exact zero: IEEE sign rules
  return round_to(kF32Fmt, s, e, m);
}

// ---- reference semantics shared by the tests ----------------------------------------------------

// .sat on an f32 result: NaN and negative values (-0 included) -> +0, above 1 -> 1.
inline uint32_t sat32(uint32_t r) {
  if (is_nan32(r) || (r >> 31)) return 0;
  return f32_of(r) > 1.0f ? 0x3F800000u : r;
}

// f32 add/sub/mul/fma (mad) with .ftz/.sat, canonical NaN results.
inline uint32_t ref_f32(const std::string& op, uint32_t a, uint32_t b, uint32_t c, Mode m, bool ftz, bool sat) {
  if (ftz) a = flush32(a), b = flush32(b), c = flush32(c);
  float x = f32_of(a), y = f32_of(b);
  uint32_t r;
  if (op == "add") r = bits_of(host_add(x, y, m));
  else if (op == "sub") r = bits_of(host_add(x, -y, m));
  else if (op == "mul") r = bits_of(host_mul(x, y, m));
  else r = ref_fma_f32(x, y, f32_of(c), m);
  if (is_nan32(r)) r = 0x7FFFFFFFu;
  if (ftz) r = flush32(r);
  if (sat) r = sat32(r);
  return r;
}

// f16/bf16 add/sub/mul/fma with .ftz (f16), .sat, .relu from exact double arithmetic; NaN
// results are 0x7FFF, an exact zero takes the IEEE sign of the mode.
inline uint32_t ref_half(const Fmt& f, const std::string& op, uint16_t a, uint16_t b, uint16_t c, Mode m, bool ftz, bool sat,
                  bool relu) {
  auto flush = [&](uint16_t x) -> uint16_t {
    uint32_t e = (x >> f.man) & ((1u << f.exp) - 1);
    return (ftz && e == 0) ? uint16_t(x & f.sign_bit()) : x;
  };
  a = flush(a), b = flush(b), c = flush(c);
  double x = decode(f, a), y = decode(f, b), z = decode(f, c);
  if (op == "sub") y = -y;
  double hi, lo = 0, rz;
  if (op == "mul") {
    hi = x * y;  // exact (at most 2 * 11 bits)
    rz = host_mul(x, y, m);
  } else if (op == "fma") {
    double p = x * y;
    std::tie(hi, lo) = two_sum(p, z);
    rz = host_add(p, z, m);
  } else {
    std::tie(hi, lo) = two_sum(x, y);
    rz = host_add(x, y, m);
  }
  uint32_t r;
  if (std::isnan(hi) || std::isnan(rz)) r = 0x7FFF;
  else if (std::isinf(hi)) r = (std::signbit(hi) ? f.sign_bit() : 0) | f.inf();
  else if (hi == 0 && lo == 0) r = std::signbit(rz) ? f.sign_bit() : 0;  // exact zero: IEEE sign rule
  else r = round_to(f, hi, lo, m);
  if (ftz && ((r >> f.man) & ((1u << f.exp) - 1)) == 0) r &= f.sign_bit();
  const bool nan = (r & 0x7FFF) > f.inf();
  if (sat) {
    if (nan || (r & f.sign_bit())) r = 0;
    else if (decode(f, r) > 1.0) r = uint32_t(f.bias) << f.man;
  }
  if (relu && !nan && (r & f.sign_bit())) r = 0;
  return r;
}

// ---- random bit patterns ----------------------------------------------------------------------

inline uint32_t rand_f32(std::mt19937_64& g) {
  static const uint32_t special[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                                     0x7F800001, 0xFFBFFFFF, 0x7FFFFFFF, 0x00000001, 0x80000001, 0x007FFFFF,
                                     0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
                                     0xBF800000, 0x3F000000, 0x3FC00000, 0x4B000000, 0x4B400001, 0x33800000};
  uint64_t r = g();
  switch (r % 8) {
    case 0: case 1: return uint32_t(r >> 16);
    case 2: return special[(r >> 8) % std::size(special)];
    case 3: return uint32_t(r >> 32) & 0x807FFFFFu;  // subnormal or zero
    default: {
      // Normal values with exponents near 1.0 so that sums and products interact.
      uint32_t e = 127 - 12 + uint32_t((r >> 8) % 25);
      return (uint32_t(r >> 40) & 0x80000000u) | (e << 23) | (uint32_t(r >> 33) & 0x7FFFFFu);
    }
  }
}

inline uint64_t rand_f64(std::mt19937_64& g) {
  static const uint64_t special[] = {0, 1ull << 63, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
                                     0x7FF8000000000000ull, 0xFFF8000000000001ull, 0x7FF0000000000001ull,
                                     0x0000000000000001ull, 0x800FFFFFFFFFFFFFull, 0x0010000000000000ull,
                                     0x7FEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull};
  uint64_t r = g();
  switch (r % 8) {
    case 0: case 1: return g();
    case 2: return special[(r >> 8) % std::size(special)];
    case 3: return g() & 0x800FFFFFFFFFFFFFull;
    default: {
      uint64_t e = 1023 - 20 + (r >> 8) % 41;
      return (g() & (1ull << 63)) | (e << 52) | (g() & 0x000FFFFFFFFFFFFFull);
    }
  }
}

// 16-bit patterns: uniform, with specials and values near 1.0 of format f.
inline uint16_t rand_16(std::mt19937_64& g, const Fmt& f) {
  uint64_t r = g();
  switch (r % 6) {
    case 0: case 1: case 2: return uint16_t(r >> 16);
    case 3: {
      static const uint16_t sp[] = {0x0000, 0x8000, 0x0001, 0x8001};
      return sp[(r >> 8) % 4] | uint16_t(((r >> 12) & 1) ? f.inf() : 0);  // zeros, tiny, Inf, NaN
    }
    default: {
      uint32_t e = uint32_t(f.bias - 4 + int((r >> 8) % 9));
      return uint16_t(((r >> 20) & 1 ? f.sign_bit() : 0) | (e << f.man) | (uint32_t(r >> 24) & ((1u << f.man) - 1)));
    }
  }
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(0x5eed1234u);
  return g;
}

}  // namespace ftest
