// A Zstandard decoder (RFC 8878) for fat binary payloads: nvcc 13 compresses fatbin entries with
// zstd by default. Frames, raw/RLE/compressed blocks, raw/RLE/Huffman/treeless literals with one
// or four streams, FSE-coded sequences with predefined, RLE, compressed and repeated tables, and
// repeat offsets. Not supported (never produced by nvcc): dictionaries. The content checksum is
// skipped, not verified. Section numbers below are RFC 8878's.
#include <cstring>
#include <stdexcept>
#include <string>

#include "tools/cuda_shim/fatbin.h"

namespace ptxsim::cuda_shim {

namespace {

std::runtime_error corrupt(const std::string& why) { return std::runtime_error("zstd payload is corrupt: " + why); }

int highbit(uint32_t v) { return 31 - __builtin_clz(v); }

// Little-endian bit reader for forward streams (FSE table descriptions, §4.1.1).
struct ForwardBits {
  const uint8_t* p;
  size_t size;
  size_t pos = 0;  // in bits
  uint32_t peek(int n) const {
    uint64_t v = 0;
    size_t byte = pos >> 3;
    for (size_t i = 0; i < 8 && byte + i < size; ++i) v |= uint64_t(p[byte + i]) << (8 * i);
    return uint32_t((v >> (pos & 7)) & ((1ull << n) - 1));
  }
  void skip(int n) { pos += size_t(n); }
};

// Backward bit reader (§4.1: streams are read from the end; the last byte's highest set bit marks
// the start). Bits below the stream's beginning read as zeros; `overflowed` tells when used.
struct BackwardBits {
  const uint8_t* p = nullptr;
  int64_t pos = 0;  // bits [0, pos) are still unread
  BackwardBits(const uint8_t* data, size_t size) : p(data) {
    if (size == 0 || data[size - 1] == 0) throw corrupt("bitstream without its end marker");
    pos = int64_t(8 * (size - 1)) + highbit(data[size - 1]);
  }
  uint64_t peek(int n) const {
    if (n == 0) return 0;
    int64_t lo = pos - n;
    uint64_t v = 0;
    if (lo >= 0) {
      size_t byte = size_t(lo >> 3);
      size_t end = size_t((pos + 7) >> 3);
      for (size_t i = 0; byte + i < end; ++i) v |= uint64_t(p[byte + i]) << (8 * i);
      return (v >> (lo & 7)) & ((1ull << n) - 1);
    }
    for (int64_t b = pos - 1; b >= lo; --b) v = (v << 1) | (b < 0 ? 0 : (p[b >> 3] >> (b & 7)) & 1);
    return v;
  }
  uint64_t read(int n) {
    uint64_t v = peek(n);
    pos -= n;
    return v;
  }
  bool overflowed() const { return pos < 0; }
};

// An FSE decoding table (§4.1.1).
struct FseTable {
  int accuracy_log = 0;
  struct Cell {
    uint16_t symbol;
    uint8_t bits;
    uint16_t baseline;
  };
  std::vector<Cell> cells;

  void build(const int16_t* counts, int nsymbols, int al) {
    accuracy_log = al;
    uint32_t size = 1u << al;
    cells.assign(size, Cell{0, 0, 0});
    std::vector<uint32_t> next(size_t(nsymbols), 0);
    uint32_t high = size - 1;
    for (int s = 0; s < nsymbols; ++s)
      if (counts[s] == -1) {
        cells[high--].symbol = uint16_t(s);
        next[size_t(s)] = 1;
      }
    uint32_t step = (size >> 1) + (size >> 3) + 3, mask = size - 1, position = 0;
    for (int s = 0; s < nsymbols; ++s) {
      if (counts[s] <= 0) continue;
      next[size_t(s)] = uint32_t(counts[s]);
      for (int i = 0; i < counts[s]; ++i) {
        cells[position].symbol = uint16_t(s);
        do position = (position + step) & mask;
        while (position > high);
      }
    }
    if (position != 0) throw corrupt("FSE distribution does not fill its table");
    for (uint32_t u = 0; u < size; ++u) {
      uint32_t state = next[cells[u].symbol]++;
      int bits = al - highbit(state);
      cells[u].bits = uint8_t(bits);
      cells[u].baseline = uint16_t((state << bits) - size);
    }
  }

  // A table whose every state decodes `symbol` and reads no bits (RLE mode).
  void rle(uint16_t symbol) {
    accuracy_log = 0;
    cells.assign(1, Cell{symbol, 0, 0});
  }

  // Reads a table description (§4.1.1) from `src`; returns the bytes it took.
  size_t read(const uint8_t* src, size_t size, int max_symbol, int max_al) {
    ForwardBits in{src, size};
    int al = int(in.peek(4)) + 5;
    in.skip(4);
    if (al > max_al) throw corrupt("FSE accuracy log " + std::to_string(al) + " exceeds " + std::to_string(max_al));
    int remaining = (1 << al) + 1, threshold = 1 << al, bits = al + 1, symbol = 0;
    int16_t counts[256] = {};
    bool previous_zero = false;
    while (remaining > 1 && symbol <= max_symbol) {
      if (previous_zero) {
        for (;;) {
          int repeat = int(in.peek(2));
          in.skip(2);
          symbol += repeat;
          if (repeat != 3) break;
        }
        previous_zero = false;
        if (symbol > max_symbol) break;
      }
      int max = (2 * threshold - 1) - remaining;
      int count;
      if (int(in.peek(bits - 1)) < max) {
        count = int(in.peek(bits - 1));
        in.skip(bits - 1);
      } else {
        count = int(in.peek(bits));
        if (count >= threshold) count -= max;
        in.skip(bits);
      }
      --count;  // -1: "less than one" probability
      remaining -= count < 0 ? -count : count;
      counts[symbol++] = int16_t(count);
      previous_zero = count == 0;
      while (remaining < threshold) {
        --bits;
        threshold >>= 1;
      }
    }
    if (remaining != 1 || symbol > max_symbol + 1) throw corrupt("bad FSE table description");
    size_t used = (in.pos + 7) / 8;
    if (used > size) throw corrupt("FSE table description runs past its block");
    build(counts, symbol, al);
    return used;
  }
};

struct FseState {
  const FseTable* table = nullptr;
  uint32_t state = 0;
  void init(BackwardBits& in, const FseTable& t) {
    table = &t;
    state = uint32_t(in.read(t.accuracy_log));
  }
  uint16_t symbol() const { return table->cells[state].symbol; }
  void update(BackwardBits& in) {
    const auto& c = table->cells[state];
    state = c.baseline + uint32_t(in.read(c.bits));
  }
};

// Huffman decoding table for literals (§4.2).
struct HuffmanTable {
  int max_bits = 0;
  struct Cell {
    uint8_t symbol, bits;
  };
  std::vector<Cell> cells;

  // Reads a tree description (§4.2.1); returns the bytes it took.
  size_t read(const uint8_t* src, size_t size) {
    if (size == 0) throw corrupt("missing Huffman tree description");
    uint8_t header = src[0];
    uint8_t weights[256] = {};
    int n = 0;
    size_t used;
    if (header >= 128) {  // direct representation: 4 bits per weight
      n = header - 127;
      used = 1 + size_t(n + 1) / 2;
      if (used > size) throw corrupt("Huffman weights run past the literals");
      for (int i = 0; i < n; ++i) weights[i] = uint8_t(i % 2 == 0 ? src[1 + i / 2] >> 4 : src[1 + i / 2] & 15);
    } else {  // FSE-compressed weights, two interleaved states
      used = 1 + size_t(header);
      if (used > size) throw corrupt("Huffman weights run past the literals");
      FseTable t;
      size_t desc = t.read(src + 1, header, 255, 6);
      BackwardBits in(src + 1 + desc, header - desc);
      FseState s1, s2;
      s1.init(in, t);
      s2.init(in, t);
      for (;;) {
        if (n >= 255) throw corrupt("too many Huffman weights");
        weights[n++] = uint8_t(s1.symbol());
        s1.update(in);
        if (in.overflowed()) {
          weights[n++] = uint8_t(s2.symbol());
          break;
        }
        weights[n++] = uint8_t(s2.symbol());
        s2.update(in);
        if (in.overflowed()) {
          weights[n++] = uint8_t(s1.symbol());
          break;
        }
      }
    }
    // The last symbol's weight is implied: the weights' powers must sum to a power of two.
    uint32_t sum = 0;
    for (int i = 0; i < n; ++i) {
      if (weights[i] > 11) throw corrupt("Huffman weight above 11");
      if (weights[i]) sum += 1u << (weights[i] - 1);
    }
    if (sum == 0) throw corrupt("Huffman weights are all zero");
    max_bits = highbit(sum) + 1;
    uint32_t left = (1u << max_bits) - sum;
    if (left & (left - 1)) throw corrupt("Huffman weights do not complete a tree");
    weights[n++] = uint8_t(highbit(left) + 1);
    if (max_bits > 11) throw corrupt("Huffman code longer than 11 bits");
    // Codes by increasing weight, then symbol: each symbol of weight w fills 2^(w-1) cells.
    cells.assign(size_t(1) << max_bits, Cell{0, 0});
    uint32_t at = 0;
    for (int w = 1; w <= max_bits; ++w)
      for (int s = 0; s < n; ++s)
        if (weights[s] == w)
          for (uint32_t k = 0; k < (1u << (w - 1)); ++k) cells[at++] = Cell{uint8_t(s), uint8_t(max_bits + 1 - w)};
    return used;
  }

  void decode_stream(const uint8_t* src, size_t size, uint8_t* out, size_t count) const {
    BackwardBits in(src, size);
    for (size_t i = 0; i < count; ++i) {
      const Cell& c = cells[in.peek(max_bits)];
      out[i] = c.symbol;
      in.pos -= c.bits;
    }
    if (in.pos != 0) throw corrupt("Huffman stream length does not match its symbol count");
  }
};

// Literal length and match length codes (§3.1.1.3.2.1.1): baseline and extra bits.
constexpr uint32_t kLLBase[36] = {0,  1,  2,  3,  4,  5,  6,   7,   8,   9,   10,  11,   12,   13,   14,   15,   16,    18,
                                  20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
constexpr uint8_t kLLBits[36] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  1,  1,
                                 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
constexpr uint32_t kMLBase[53] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  12,  13,  14,  15,   16,   17,   18,   19,   20,
                                  21, 22, 23, 24, 25, 26, 27, 28, 29,  30,  31,  32,  33,   34,   35,   37,   39,   41,
                                  43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
constexpr uint8_t kMLBits[53] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
// Predefined distributions (§3.1.1.3.2.2).
constexpr int16_t kLLDefault[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2,
                                    2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
constexpr int16_t kMLDefault[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,  1,  1,  1,  1,  1,  1,  1,  1, 1,
                                    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
constexpr int16_t kOFDefault[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1,
                                    1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

struct FrameState {
  explicit FrameState(std::vector<uint8_t>& o) : out(o) {}
  std::vector<uint8_t>& out;
  HuffmanTable huffman;
  bool have_huffman = false;
  FseTable ll, of, ml;
  bool have_ll = false, have_of = false, have_ml = false;
  uint32_t rep[3] = {1, 4, 8};
  std::vector<uint8_t> literals;

  void literals_section(const uint8_t* src, size_t size, size_t& used) {
    if (size < 1) throw corrupt("empty compressed block");
    int type = src[0] & 3, format = (src[0] >> 2) & 3;
    size_t regen = 0, compressed = 0, header = 0;
    int streams = 1;
    auto le = [&](size_t n) {
      if (n > size) throw corrupt("literals header runs past the block");
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v |= uint64_t(src[i]) << (8 * i);
      return v;
    };
    if (type <= 1) {  // raw or RLE
      if ((format & 1) == 0) header = 1, regen = src[0] >> 3;
      else if (format == 1) header = 2, regen = le(2) >> 4;
      else header = 3, regen = le(3) >> 4;
      literals.resize(regen);
      if (type == 0) {
        if (header + regen > size) throw corrupt("raw literals run past the block");
        std::memcpy(literals.data(), src + header, regen);
        used = header + regen;
      } else {
        if (header + 1 > size) throw corrupt("RLE literals run past the block");
        std::memset(literals.data(), src[header], regen);
        used = header + 1;
      }
      return;
    }
    static constexpr int kBits[4] = {10, 10, 14, 18};
    header = format <= 1 ? 3 : format == 2 ? 4 : 5;
    streams = format == 0 ? 1 : 4;
    uint64_t h = le(header) >> 4;
    regen = size_t(h & ((1u << kBits[format]) - 1));
    compressed = size_t(h >> kBits[format]);
    if (header + compressed > size) throw corrupt("compressed literals run past the block");
    const uint8_t* p = src + header;
    size_t left = compressed;
    if (type == 2) {
      size_t tree = huffman.read(p, left);
      p += tree;
      left -= tree;
      have_huffman = true;
    } else if (!have_huffman) {
      throw corrupt("treeless literals without a previous Huffman table");
    }
    literals.resize(regen);
    if (streams == 1) {
      huffman.decode_stream(p, left, literals.data(), regen);
    } else {
      if (left < 6) throw corrupt("missing the four-stream jump table");
      size_t s1 = p[0] | (p[1] << 8), s2 = p[2] | (p[3] << 8), s3 = p[4] | (p[5] << 8);
      if (6 + s1 + s2 + s3 > left) throw corrupt("literal streams run past the literals");
      size_t s4 = left - 6 - s1 - s2 - s3, per = (regen + 3) / 4;
      if (3 * per > regen) throw corrupt("too few literals for four streams");
      const uint8_t* q = p + 6;
      huffman.decode_stream(q, s1, literals.data(), per);
      huffman.decode_stream(q + s1, s2, literals.data() + per, per);
      huffman.decode_stream(q + s1 + s2, s3, literals.data() + 2 * per, per);
      huffman.decode_stream(q + s1 + s2 + s3, s4, literals.data() + 3 * per, regen - 3 * per);
    }
    used = header + compressed;
  }

  size_t table(const uint8_t* src, size_t size, int mode, FseTable& t, bool& have, const int16_t* def, int nsym,
                int def_al, int max_al, const char* what) {
    switch (mode) {
      case 0: t.build(def, nsym, def_al); have = true; return 0;
      case 1:
        if (size < 1) throw corrupt(std::string("missing the RLE symbol of the ") + what + " table");
        t.rle(src[0]);
        have = true;
        return 1;
      case 2: have = true; return t.read(src, size, nsym - 1, max_al);
      default:
        if (!have) throw corrupt(std::string("repeated ") + what + " table without a previous one");
        return 0;
    }
  }

  void compressed_block(const uint8_t* src, size_t size) {
    size_t used = 0;
    literals_section(src, size, used);
    const uint8_t* p = src + used;
    size_t left = size - used;
    if (left < 1) throw corrupt("missing the sequences section");
    size_t nseq = p[0];
    size_t h = 1;
    if (nseq >= 128) {
      if (left < 2) throw corrupt("truncated sequence count");
      if (nseq < 255) nseq = ((nseq - 128) << 8) + p[1], h = 2;
      else if (left < 3) throw corrupt("truncated sequence count");
      else nseq = p[1] + (size_t(p[2]) << 8) + 0x7f00, h = 3;
    }
    p += h;
    left -= h;
    size_t lit = 0;
    if (nseq > 0) {
      if (left < 1) throw corrupt("missing the symbol compression modes");
      uint8_t modes = *p++;
      --left;
      size_t n = table(p, left, modes >> 6, ll, have_ll, kLLDefault, 36, 6, 9, "literal length");
      p += n, left -= n;
      n = table(p, left, (modes >> 4) & 3, of, have_of, kOFDefault, 29, 5, 8, "offset");
      p += n, left -= n;
      n = table(p, left, (modes >> 2) & 3, ml, have_ml, kMLDefault, 53, 6, 9, "match length");
      p += n, left -= n;
      BackwardBits in(p, left);
      FseState sll, sof, sml;
      sll.init(in, ll);
      sof.init(in, of);
      sml.init(in, ml);
      for (size_t i = 0; i < nseq; ++i) {
        uint32_t of_code = sof.symbol(), ll_code = sll.symbol(), ml_code = sml.symbol();
        if (of_code > 31 || ll_code > 35 || ml_code > 52) throw corrupt("sequence code out of range");
        uint32_t offset_value = (1u << of_code) + uint32_t(in.read(int(of_code)));
        uint32_t match = kMLBase[ml_code] + uint32_t(in.read(kMLBits[ml_code]));
        uint32_t literal = kLLBase[ll_code] + uint32_t(in.read(kLLBits[ll_code]));
        uint32_t offset;
        if (offset_value > 3) {  // §3.1.1.5 repeat offsets
          offset = offset_value - 3;
          rep[2] = rep[1], rep[1] = rep[0], rep[0] = offset;
        } else {
          uint32_t idx = offset_value - 1 + (literal == 0 ? 1 : 0);
          if (idx == 0) {
            offset = rep[0];
          } else {
            offset = idx == 3 ? rep[0] - 1 : rep[idx];
            if (idx != 1) rep[2] = rep[1];
            rep[1] = rep[0];
            rep[0] = offset;
          }
        }
        if (lit + literal > literals.size()) throw corrupt("sequence uses more literals than decoded");
        out.insert(out.end(), literals.begin() + long(lit), literals.begin() + long(lit + literal));
        lit += literal;
        if (offset == 0 || offset > out.size()) throw corrupt("match offset outside the output");
        size_t from = out.size() - offset;
        for (uint32_t k = 0; k < match; ++k) out.push_back(out[from + k]);
        if (i + 1 < nseq) {
          sll.update(in);
          sml.update(in);
          sof.update(in);
        }
      }
      if (in.pos != 0) throw corrupt("sequence bitstream length does not match its sequences");
    }
    out.insert(out.end(), literals.begin() + long(lit), literals.end());
  }
};

}  // namespace

std::vector<uint8_t> zstd_decompress(const uint8_t* src, size_t size, size_t expected) {
  std::vector<uint8_t> out;
  out.reserve(expected);
  size_t i = 0;
  auto need = [&](size_t n) {
    if (size - i < n) throw corrupt("truncated frame");
  };
  while (i < size) {
    need(4);
    uint32_t magic;
    std::memcpy(&magic, src + i, 4);
    i += 4;
    if ((magic & 0xfffffff0u) == 0x184d2a50u) {  // skippable frame
      need(4);
      uint32_t n;
      std::memcpy(&n, src + i, 4);
      i += 4;
      need(n);
      i += n;
      continue;
    }
    if (magic != 0xfd2fb528u) throw corrupt("bad frame magic");
    need(1);
    uint8_t fhd = src[i++];
    int fcs_flag = fhd >> 6, dict_flag = fhd & 3;
    bool single_segment = fhd & 0x20, checksum = fhd & 0x04;
    if (fhd & 0x08) throw corrupt("reserved frame header bit set");
    if (!single_segment) need(1), ++i;  // window descriptor: the whole output is kept anyway
    static constexpr size_t kDictBytes[4] = {0, 1, 2, 4};
    need(kDictBytes[dict_flag]);
    for (size_t k = 0; k < kDictBytes[dict_flag]; ++k)
      if (src[i + k]) throw std::runtime_error("zstd payload needs a dictionary, which ptxsim does not support");
    i += kDictBytes[dict_flag];
    static constexpr size_t kFcsBytes[4] = {0, 2, 4, 8};
    size_t fcs = fcs_flag == 0 && single_segment ? 1 : kFcsBytes[fcs_flag];
    need(fcs);
    i += fcs;
    FrameState frame(out);
    for (bool last = false; !last;) {
      need(3);
      uint32_t bh = src[i] | (src[i + 1] << 8) | (src[i + 2] << 16);
      i += 3;
      last = bh & 1;
      int type = (bh >> 1) & 3;
      size_t bsize = bh >> 3;
      if (type == 1) {  // RLE: one byte repeated bsize times
        need(1);
        out.insert(out.end(), bsize, src[i]);
        i += 1;
      } else {
        need(bsize);
        if (type == 0) out.insert(out.end(), src + i, src + i + bsize);
        else if (type == 2) frame.compressed_block(src + i, bsize);
        else throw corrupt("reserved block type");
        i += bsize;
      }
    }
    if (checksum) need(4), i += 4;  // XXH64 of the content: not verified
  }
  if (expected && out.size() != expected)
    throw corrupt("decompressed to " + std::to_string(out.size()) + " bytes, header says " + std::to_string(expected));
  return out;
}

}  // namespace ptxsim::cuda_shim
