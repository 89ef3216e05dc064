// The two binary words of tcgen05.mma, as structs of named fields with their bit ranges:
//   - the 32-bit instruction descriptor (PTX ISA 9.7.16.4.2 Tables 42-44), and
//   - the 64-bit shared-memory matrix descriptor (PTX 9.7.16.4.1 Table 40),
// the same fields CUTLASS names in cute/arch/mma_sm100_desc.hpp (UMMA::InstrDescriptor,
// InstrDescriptorBlockScaled, SmemDescriptor); restated in shared/reference/ptx-facts.md §5.4-5.5.
// decode/encode are exact inverses on every bit pattern (reserved bits are kept so that
// validation can name them). validate_* return the first broken rule as "<field> (bits h:l) ...:
// <rule>", or nullopt.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ptxsim::model::tcgen05 {

enum class Kind : uint8_t { F16, TF32, F8F6F4, I8, MXF8F6F4, MXF4, MXF4NVF4 };
const char* kind_name(Kind k);  // "kind::f16"
bool is_block_scaled(Kind k);
// K of one dense MMA: 256 bits of A element (PTX Table 39); doubled when sparse.
uint32_t dense_k(Kind k);

// ---- 32-bit instruction descriptor, kind::f16 / tf32 / f8f6f4 / i8 -------------------------------
struct InstrDescriptor {
  uint32_t sparse_id2 = 0;   // 1:0   sparsity selector (sparse only)
  uint32_t sparse = 0;       // 2     0 dense, 1 sparse
  uint32_t saturate = 0;     // 3     i8 only
  uint32_t d_format = 0;     // 5:4   F16 = 0, F32 = 1, S32 = 2
  uint32_t reserved6 = 0;    // 6
  uint32_t a_format = 0;     // 9:7   per kind (see the enums below)
  uint32_t b_format = 0;     // 12:10
  uint32_t negate_a = 0;     // 13
  uint32_t negate_b = 0;     // 14
  uint32_t a_major = 0;      // 15    0 K-major, 1 M-major (transpose A)
  uint32_t b_major = 0;      // 16    0 K-major, 1 N-major (transpose B)
  uint32_t n_dim = 0;        // 22:17 N >> 3
  uint32_t reserved23 = 0;   // 23
  uint32_t m_dim = 0;        // 28:24 M >> 4
  uint32_t reserved29 = 0;   // 29
  uint32_t max_shift = 0;    // 31:30 .ws B-reuse shift: 0 none, 1 = 8, 2 = 16, 3 = 32

  static InstrDescriptor decode(uint32_t w);
  uint32_t encode() const;
  uint32_t m() const { return m_dim << 4; }
  uint32_t n() const { return n_dim << 3; }
};

// Element format codes of the A/B fields.
namespace fmt {
enum F16Kind : uint32_t { kF16 = 0, kBF16 = 1 };
enum Tf32Kind : uint32_t { kTF32 = 2 };
enum F8F6F4Kind : uint32_t { kE4M3 = 0, kE5M2 = 1, kE2M3 = 3, kE3M2 = 4, kE2M1 = 5 };
enum I8Kind : uint32_t { kU8 = 0, kS8 = 1 };
enum DFormat : uint32_t { kDF16 = 0, kDF32 = 1, kDS32 = 2 };
}  // namespace fmt

// What the instruction's qualifiers say, against which a descriptor is checked.
struct MmaContext {
  Kind kind = Kind::F16;
  unsigned cta_group = 1;
  bool sparse = false;  // .sp
  bool ws = false;      // .ws
  unsigned scale_vec = 0;  // block-scaled kinds: scale factors per row of A / column of B (1, 2 or 4)
};
// Table 42 field values and Table 39 M/N for the kind, cta_group, .sp and .ws.
std::optional<std::string> validate(const InstrDescriptor& d, const MmaContext& ctx);

// ---- 32-bit instruction descriptor, kind::mxf8f6f4 / mxf4 / mxf4nvf4 -------------------------------
struct InstrDescriptorBlockScaled {
  uint32_t reserved0 = 0;    // 1:0
  uint32_t sparse = 0;       // 2
  uint32_t reserved3 = 0;    // 3
  uint32_t b_sf_id = 0;      // 5:4   B scale-factor ID
  uint32_t reserved6 = 0;    // 6
  uint32_t a_format = 0;     // 9:7
  uint32_t b_format = 0;     // 12:10 (mxf4*: 11:10, bit 12 reserved)
  uint32_t negate_a = 0;     // 13
  uint32_t negate_b = 0;     // 14
  uint32_t a_major = 0;      // 15
  uint32_t b_major = 0;      // 16
  uint32_t n_dim = 0;        // 22:17 N >> 3
  uint32_t scale_type = 0;   // 23    1 = UE8M0, 0 = UE4M3 (mxf4nvf4 only)
  uint32_t reserved24 = 0;   // 26:24
  uint32_t m_dim = 0;        // 28:27 M >> 7
  uint32_t a_sf_id = 0;      // 30:29 A scale-factor ID
  uint32_t k_size = 0;       // 31    mxf4*: 0 = K64 dense, 1 = K96 (sm_103a)

  static InstrDescriptorBlockScaled decode(uint32_t w);
  uint32_t encode() const;
  uint32_t m() const { return m_dim << 7; }
  uint32_t n() const { return n_dim << 3; }
  bool ue8m0() const { return scale_type == 1; }
};
// Table 43 / 44 field values, Table 56 / 57 scale-vector rules, and Table 39 M/N.
std::optional<std::string> validate(const InstrDescriptorBlockScaled& d, const MmaContext& ctx);

// ---- 64-bit shared-memory matrix descriptor --------------------------------------------------------
enum class SmemLayout : uint32_t {  // bits 63:61
  kNone = 0, k128BBase32B = 1, k128B = 2, k64B = 4, k32B = 6,
};
const char* layout_name(uint32_t layout_type);

struct SmemDescriptor {
  uint32_t start_address = 0;   // 13:0  (addr & 0x3FFFF) >> 4
  uint32_t reserved14 = 0;      // 15:14
  uint32_t leading_offset = 0;  // 29:16 LBO >> 4 (or an absolute address when lbo_mode = 1)
  uint32_t reserved30 = 0;      // 31:30
  uint32_t stride_offset = 0;   // 45:32 SBO >> 4
  uint32_t version = 0;         // 48:46 fixed 0b001 on sm_100
  uint32_t base_offset = 0;     // 51:49 matrix base offset
  uint32_t lbo_mode = 0;        // 52    0 relative LBO, 1 absolute (sm_103a)
  uint32_t reserved53 = 0;      // 60:53
  uint32_t layout_type = 0;     // 63:61 SmemLayout

  static SmemDescriptor decode(uint64_t w);
  uint64_t encode() const;
  uint32_t start_bytes() const { return start_address << 4; }
  uint32_t lbo_bytes() const { return leading_offset << 4; }
  uint32_t sbo_bytes() const { return stride_offset << 4; }
  // Bytes per swizzle row: 16 (no swizzle: the core-matrix row), 32, 64 or 128.
  uint32_t swizzle_bytes() const;
};
// The fixed fields, the layout code, and the base-offset rule of the swizzled layouts (PTX
// 9.7.16.4.1; without swizzling the base offset is ignored, whatever its value). ptxsim does not
// simulate the 128B-with-32B-atom layout or the absolute LBO mode: they are reported here too.
std::optional<std::string> validate(const SmemDescriptor& d);

}  // namespace ptxsim::model::tcgen05
