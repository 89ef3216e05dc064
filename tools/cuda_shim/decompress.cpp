// Fat-binary payload decompression through the reference libraries: liblz4 for LZ4 blocks, libzstd
// for Zstandard frames. Neither trusts the sizes in the fat binary's entry header: a payload that
// decodes to a different size than the header says is as corrupt as one the library rejects.
#include <lz4.h>
#include <zstd.h>

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "tools/cuda_shim/fatbin.h"

namespace ptxsim::cuda_shim {

namespace {

// No payload of a real fat binary comes near this; it bounds what corrupt input can make us allocate.
constexpr size_t kMaxOutput = size_t(1) << 31;

std::runtime_error size_mismatch(const char* what, size_t got, size_t expected) {
  return std::runtime_error(std::string(what) + " payload is corrupt: decompressed to " + std::to_string(got) +
                            " bytes, header says " + std::to_string(expected));
}

}  // namespace

std::vector<uint8_t> lz4_block_decompress(const uint8_t* src, size_t size, size_t expected) {
  if (size > size_t(std::numeric_limits<int>::max()) || expected > kMaxOutput)
    throw std::runtime_error("LZ4 payload is corrupt: sizes exceed what a fat binary holds");
  // A block does not record its decoded size. With the header's size known one call decides; without
  // it, retry with twice the room (liblz4 reports a too-small buffer as a malformed block) up to the
  // format's largest ratio of 255.
  size_t cap = expected ? expected : std::max<size_t>(64, 4 * size);
  const size_t max_cap = expected ? expected : std::min(kMaxOutput, 255 * size + 64);
  for (;;) {
    std::vector<uint8_t> out(cap);
    int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(out.data()), int(size),
                                int(std::min(cap, size_t(std::numeric_limits<int>::max()))));
    if (n >= 0) {
      out.resize(size_t(n));
      if (expected && out.size() != expected) throw size_mismatch("LZ4", out.size(), expected);
      return out;
    }
    if (cap >= max_cap) break;
    cap = std::min(max_cap, 2 * cap);
  }
  throw std::runtime_error("LZ4 payload is corrupt: liblz4 rejected the block");
}

std::vector<uint8_t> zstd_decompress(const uint8_t* src, size_t size, size_t expected) {
  if (expected > kMaxOutput) throw std::runtime_error("zstd payload is corrupt: sizes exceed what a fat binary holds");
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) throw std::runtime_error("zstd: cannot create a decompression context");
  // Streaming, so frames without a content size and several concatenated frames decode alike.
  std::vector<uint8_t> out(expected ? expected : std::max<size_t>(64, 4 * size));
  ZSTD_inBuffer in{src, size, 0};
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  size_t pending = 0;
  while (in.pos < in.size || pending) {
    if (ob.pos == ob.size) {
      if (out.size() >= kMaxOutput) throw std::runtime_error("zstd payload is corrupt: it decompresses past 2 GiB");
      out.resize(std::min(kMaxOutput, 2 * out.size()));
      ob = {out.data(), out.size(), ob.pos};
    }
    size_t before_in = in.pos, before_out = ob.pos;
    pending = ZSTD_decompressStream(ctx.get(), &ob, &in);
    if (ZSTD_isError(pending))
      throw std::runtime_error(std::string("zstd payload is corrupt: ") + ZSTD_getErrorName(pending));
    // Input used up in the middle of a frame: libzstd waits for more that will never come.
    if (pending && in.pos == in.size && ob.pos < ob.size && in.pos == before_in && ob.pos == before_out)
      throw std::runtime_error("zstd payload is corrupt: the frame is truncated");
  }
  out.resize(ob.pos);
  if (expected && out.size() != expected) throw size_mismatch("zstd", out.size(), expected);
  return out;
}

}  // namespace ptxsim::cuda_shim
