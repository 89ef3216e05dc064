// SHA-256 (FIPS 180-4), used to fingerprint output buffers. Self-contained; no dependencies.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptxsim::cli {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256() { reset(); }
  void reset();
  // Feeds more message bytes; may be called any number of times.
  void update(const void* data, size_t bytes);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Pads, returns the digest and resets the object for a new message.
  Digest finish();

 private:
  void compress(const uint8_t* block);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_bytes_ = 0;
};

// Lower-case hex of a digest (64 characters).
std::string to_hex(const Sha256::Digest& d);
// One-shot helpers.
Sha256::Digest sha256(const void* data, size_t bytes);
std::string sha256_hex(const void* data, size_t bytes);
inline std::string sha256_hex(std::string_view s) { return sha256_hex(s.data(), s.size()); }

}  // namespace ptxsim::cli
