#include "tools/fuzz/tensormap_blob_gen.h"

#include <cstring>

#include "model/tensormap/tensormap.h"
#include "tools/fuzz/tensormap_gen.h"

namespace ptxsim::fuzz {

namespace tm = model::tmap;

std::array<uint8_t, 128> draw_random_tensormap_bytes() {
  std::array<uint8_t, 128> bytes;
  for (auto& x : bytes) x = *rc::gen::arbitrary<uint8_t>();
  if (*rc::gen::inRange(0, 2)) {  // make validity likely: a small sane control word and sizes
    std::memset(bytes.data() + 0x08, 0, 4);
    bytes[0x08] = uint8_t((*rc::gen::inRange(0, 5)) << 4 | 2);
    bytes[0x00] &= 0xF0;
    bytes[0x37] = 15;
  }
  return bytes;
}

rc::Gen<TmapBlob> tensormap_blob_gen() {
  return rc::gen::exec([] {
    TmapBlob b;
    const int kind = *rc::gen::inRange(0, 3);
    if (kind < 2) {
      // A blob the encoder wrote for a valid parameter set.
      TmapParams p = gen_tmap_valid(TmapKind(*rc::gen::inRange(0, 3)));
      tm::CUtensorMap m;
      // (gen_tmap_valid builds valid sets only; tensormap_prop_test asserts it.)
      const bool ok = run_encoder(p, &m).ok();
      std::memcpy(b.bytes.data(), &m, 128);
      b.source = ok ? TmapBlob::kEncoded : TmapBlob::kRandom;
      if (ok && kind == 1) {
        b.source = TmapBlob::kFlipped;
        b.flipped_bit = *rc::gen::inRange(0, 128 * 8);
        b.bytes[size_t(b.flipped_bit / 8)] ^= uint8_t(1u << (b.flipped_bit % 8));
      }
    } else {
      b.bytes = draw_random_tensormap_bytes();
    }
    return b;
  });
}

Verdict tensormap_blob_property(const TmapBlob& b) {
  alignas(64) uint8_t in[128];
  std::memcpy(in, b.bytes.data(), 128);
  tm::DecodeResult d;
  try {
    d = tm::decode(in);
  } catch (const std::exception& e) {
    return Verdict::fail(std::string("decode threw: ") + e.what());
  }
  if (!d.valid()) {
    if (b.source == TmapBlob::kEncoded) return Verdict::fail("an encoder-written blob does not decode: " + d.validity.message);
    if (d.validity.message.empty() || d.validity.field.empty())
      return Verdict::fail("an invalid blob's rejection names no field or rule");
    return Verdict::pass();
  }
  alignas(64) uint8_t again[128];
  tm::encode(d.map, again);
  const tm::DecodeResult d2 = tm::decode(again);
  if (!d2.valid()) return Verdict::fail("re-encoding a valid blob gives an invalid one: " + d2.validity.message);
  if (!(d2.map == d.map)) return Verdict::fail("decode(encode(decode(blob))) differs from decode(blob)");
  if (b.source == TmapBlob::kEncoded && std::memcmp(again, in, 128) != 0)
    return Verdict::fail("an encoder-written blob does not re-encode to itself");
  return Verdict::pass();
}

nlohmann::json to_json(const TmapBlob& b) {
  static const char* kSources[] = {"encoded", "flipped", "random"};
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (uint8_t x : b.bytes) {
    hex += kHex[x >> 4];
    hex += kHex[x & 15];
  }
  nlohmann::ordered_json j;
  j["source"] = kSources[b.source];
  if (b.flipped_bit >= 0) j["flipped_bit"] = b.flipped_bit;
  j["blob_hex"] = hex;
  return j;
}

}  // namespace ptxsim::fuzz
