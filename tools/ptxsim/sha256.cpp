#include "tools/ptxsim/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace ptxsim::cli {

std::string sha256_hex(const void* data, size_t bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(data, bytes, md, &len, EVP_sha256(), nullptr) || len != 32)
    throw std::runtime_error("libcrypto: SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

}  // namespace ptxsim::cli
