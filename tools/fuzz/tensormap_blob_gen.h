// CUtensorMap blobs for `ptxsim fuzz tensormap-blob`: 128-byte objects as a device (or a buggy
// host) might hand them to the TMA unit. Three sources: blobs the encoder wrote for a valid
// parameter set, such blobs with one bit flipped, and random bytes with a plausible control word.
// Properties: decode is total (never throws, every field range checked); a blob that decodes as
// valid re-encodes to a blob that decodes to the same map; an encoder-written blob re-encodes to
// itself, bit for bit.
#pragma once
#include <array>
#include <cstdint>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "tools/fuzz/campaign_runner.h"

namespace ptxsim::fuzz {

struct TmapBlob {
  std::array<uint8_t, 128> bytes{};
  enum Source : uint8_t { kEncoded, kFlipped, kRandom } source = kRandom;
  int flipped_bit = -1;  // for kFlipped
};

// 128 random bytes; half the time with a small sane control word and sizes, so that a fair share
// decodes as valid (the kRandom source of tensormap_blob_gen, also drawn by tensormap_prop_test).
// It draws with RapidCheck's operator*, so call it only inside a generator or a property.
std::array<uint8_t, 128> draw_random_tensormap_bytes();
rc::Gen<TmapBlob> tensormap_blob_gen();
Verdict tensormap_blob_property(const TmapBlob& b);
nlohmann::json to_json(const TmapBlob& b);

}  // namespace ptxsim::fuzz
