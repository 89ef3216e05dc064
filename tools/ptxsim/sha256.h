// SHA-256 fingerprints of output buffers and trace payloads, computed by OpenSSL's libcrypto.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ptxsim::cli {

// Lower-case hex (64 characters) of the SHA-256 of `bytes` bytes at `data`.
std::string sha256_hex(const void* data, size_t bytes);
inline std::string sha256_hex(std::string_view s) { return sha256_hex(s.data(), s.size()); }

}  // namespace ptxsim::cli
