#include "tools/trace/compare.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>

#include "tools/ptxsim/sha256.h"

namespace ptxsim::trace {

namespace {

struct FloatFormat {
  unsigned bits, exp_bits, man_bits;
};

FloatFormat format_of(const std::string& dtype) {
  if (dtype == "f64") return {64, 11, 52};
  if (dtype == "f32") return {32, 8, 23};
  if (dtype == "bf16") return {16, 8, 7};
  return {16, 5, 10};  // f16
}

bool is_nan(const FloatFormat& f, uint64_t x) {
  uint64_t exp = (x >> f.man_bits) & ((1ull << f.exp_bits) - 1);
  uint64_t man = x & ((1ull << f.man_bits) - 1);
  return exp == (1ull << f.exp_bits) - 1 && man != 0;
}

// Maps raw bits to an integer that orders like the value: adjacent floats differ by 1.
int64_t ordered(const FloatFormat& f, uint64_t x) {
  uint64_t sign = x >> (f.bits - 1) & 1;
  uint64_t mag = f.bits == 64 ? x & ~(1ull << 63) : x & ((1ull << (f.bits - 1)) - 1);
  return sign ? -int64_t(mag) : int64_t(mag);
}

uint64_t load_le(const uint8_t* p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

std::string hex_bits(uint64_t v, unsigned bytes) {
  std::ostringstream os;
  os << "0x" << std::hex;
  os.width(bytes * 2);
  os.fill('0');
  os << v;
  return os.str();
}

std::string short_sha(const std::string& s) { return s.substr(0, 12) + "..."; }

}  // namespace

double float_value(const std::string& dtype, uint64_t bits) {
  FloatFormat f = format_of(dtype);
  if (f.bits == 64) return std::bit_cast<double>(bits);
  if (f.bits == 32) return double(std::bit_cast<float>(uint32_t(bits)));
  if (dtype == "bf16") return double(std::bit_cast<float>(uint32_t(bits) << 16));
  // f16: exact via ldexp.
  int exp = int(bits >> 10 & 31);
  double man = double(bits & 1023);
  double v = exp == 0 ? std::ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : std::ldexp(1024 + man, exp - 25);
  return (bits & 0x8000) ? -v : v;
}

uint64_t ulp_distance(const std::string& dtype, uint64_t a, uint64_t b) {
  FloatFormat f = format_of(dtype);
  bool na = is_nan(f, a), nb = is_nan(f, b);
  if (na || nb) return na && nb ? 0 : UINT64_MAX;
  int64_t x = ordered(f, a), y = ordered(f, b);
  return x > y ? uint64_t(x) - uint64_t(y) : uint64_t(y) - uint64_t(x);
}

Comparison compare_output(const Output& exp, std::span<const uint8_t> got) {
  Comparison c;
  std::ostringstream os;
  if (got.size() != exp.bytes) {
    os << "size differs: expected " << exp.bytes << " bytes, got " << got.size();
    c.detail = os.str();
    return c;
  }
  const std::string got_sha = cli::sha256_hex(got.data(), got.size());
  if (got_sha == exp.sha256) {
    c.agree = true;
    c.detail = "identical";
    return c;
  }
  if (!exp.data) {
    c.detail = "sha256 differs (expected " + short_sha(exp.sha256) + ", got " + short_sha(got_sha) +
               "); the trace stores no bytes to locate the difference";
    return c;
  }
  const std::vector<uint8_t>& want = *exp.data;
  if (!exp.tolerance) {
    size_t first = got.size(), count = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        if (first == got.size()) first = i;
        ++count;
      }
    os << count << " of " << got.size() << " bytes differ; first at byte " << first << ": expected "
       << hex_bits(want[first], 1) << ", got " << hex_bits(got[first], 1);
    c.detail = os.str();
    return c;
  }
  const Tolerance& t = *exp.tolerance;
  const unsigned es = format_of(t.dtype).bits / 8;
  size_t n = got.size() / es, differ = 0, outside = 0, first_bad = n;
  uint64_t max_ulp = 0;
  double max_abs = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = load_le(want.data() + i * es, es), b = load_le(got.data() + i * es, es);
    if (a == b) continue;
    ++differ;
    uint64_t u = ulp_distance(t.dtype, a, b);
    double va = float_value(t.dtype, a), vb = float_value(t.dtype, b);
    double d = std::fabs(va - vb);
    bool ok = u == 0 || (t.ulp && u <= t.ulp) || (u != UINT64_MAX && std::isfinite(d) && d <= t.abs);
    if (u != UINT64_MAX) max_ulp = std::max(max_ulp, u);
    if (std::isfinite(d)) max_abs = std::max(max_abs, d);
    if (!ok) {
      ++outside;
      if (first_bad == n) first_bad = i;
    }
  }
  std::ostringstream tol;
  tol << "tolerance " << t.dtype;
  if (t.ulp) tol << " ulp " << t.ulp;
  if (t.abs > 0) tol << " abs " << t.abs;
  if (!outside) {
    c.agree = true;
    os << "within " << tol.str() << " (" << differ << " of " << n << " elements differ; max " << max_ulp
       << " ulp, max abs " << max_abs << ")";
    c.detail = os.str();
    return c;
  }
  uint64_t a = load_le(want.data() + first_bad * es, es), b = load_le(got.data() + first_bad * es, es);
  uint64_t u = ulp_distance(t.dtype, a, b);
  os << outside << " of " << n << " elements outside " << tol.str() << "; first [" << first_bad << "]: expected "
     << float_value(t.dtype, a) << " (" << hex_bits(a, es) << "), got " << float_value(t.dtype, b) << " ("
     << hex_bits(b, es) << ")";
  if (u == UINT64_MAX)
    os << ", one is NaN";
  else
    os << ", " << u << " ulp";
  c.detail = os.str();
  return c;
}

Comparison compare_blob(const std::array<uint8_t, 128>& expected, const std::array<uint8_t, 128>& got) {
  Comparison c;
  std::ostringstream os;
  size_t count = 0, first = 128;
  for (size_t i = 0; i < 128; ++i)
    if (expected[i] != got[i]) {
      if (first == 128) first = i;
      ++count;
    }
  if (!count) {
    c.agree = true;
    c.detail = "identical";
    return c;
  }
  // Name the 8-byte word (the tensor-map layout is a sequence of 64-bit words, docs/tensormap.md).
  os << count << " of 128 bytes differ; first at byte " << first << " (word " << first / 8 << "): expected "
     << hex_bits(load_le(expected.data() + first / 8 * 8, 8), 8) << ", got "
     << hex_bits(load_le(got.data() + first / 8 * 8, 8), 8);
  c.detail = os.str();
  return c;
}

}  // namespace ptxsim::trace
