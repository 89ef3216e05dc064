// ldmatrix_sm100.cu: every sm_100a ldmatrix form (.m16n16.x1/.x2.trans with .b8 and the widening
// .b8x16.b6x16_p32 / .b4x16_p64 sources, .m8n16.x1/.x2/.x4 with both sources) and stmatrix
// .m16n8.x1/.x2/.x4.trans.b8, against the fragment layouts of docs/matrix-units.md "Fragment
// mappings", written out here independently of model/fragments (t = lane, g = t/4, q = t%4, row(k) =
// the 16-byte row whose address lane k supplied; byte e of register j):
//   ldmatrix m16n16 .trans   row(16*(j/2) + 4q + e)[g + 8*(j%2)]
//   ldmatrix m8n16           row(8j + g)[4q + e]
//   stmatrix m16n8 .trans    goes to row(8j + 2q + e%2)[g + 8*(e/2)]
// For the .b8x16 sources a row holds 16 packed elements (element i in bits [w*i, w*i + w) of the
// row read little-endian, then padding) widened to 8-bit containers: a 6-bit value in bits 5:0, a
// 4-bit value in bits 3:0 (CUTLASS fp4_shift_A: ldmatrix places FP4 in the low four bits; docs/matrix-units.md).
// The rows lanes supply are a random permutation, so each lane's row is checked too.
#include <algorithm>
#include <numeric>
#include <random>

#include "tests/kernels/kernel_harness.h"

namespace ptxsim::ktest {
namespace {

class LdmatrixSm100 : public KernelTest {};

enum class Shape { M16N16, M8N16 };
enum class Src { B8, B6, B4 };

struct Form {
  const char* kernel;
  Shape shape;
  int num;  // .x1 / .x2 / .x4
  Src src;
};
constexpr Form kForms[] = {
    {"ldsm_m16n16_x1_b8", Shape::M16N16, 1, Src::B8}, {"ldsm_m16n16_x2_b8", Shape::M16N16, 2, Src::B8},
    {"ldsm_m16n16_x1_b6", Shape::M16N16, 1, Src::B6}, {"ldsm_m16n16_x2_b6", Shape::M16N16, 2, Src::B6},
    {"ldsm_m16n16_x1_b4", Shape::M16N16, 1, Src::B4}, {"ldsm_m16n16_x2_b4", Shape::M16N16, 2, Src::B4},
    {"ldsm_m8n16_x1_b6", Shape::M8N16, 1, Src::B6},   {"ldsm_m8n16_x2_b6", Shape::M8N16, 2, Src::B6},
    {"ldsm_m8n16_x4_b6", Shape::M8N16, 4, Src::B6},   {"ldsm_m8n16_x1_b4", Shape::M8N16, 1, Src::B4},
    {"ldsm_m8n16_x2_b4", Shape::M8N16, 2, Src::B4},   {"ldsm_m8n16_x4_b4", Shape::M8N16, 4, Src::B4},
};

// Element c (0..15) of a 16-byte row as the 8-bit value ldmatrix delivers.
uint8_t element(const uint8_t* row, Src src, int c) {
  if (src == Src::B8) return row[c];
  const int w = src == Src::B6 ? 6 : 4, bit = w * c;
  const uint32_t v = ((uint32_t(row[bit / 8]) | uint32_t(row[bit / 8 + 1]) << 8) >> (bit % 8)) & ((1u << w) - 1);
  return uint8_t(v);  // both widths in the low bits of the byte
}

TEST_P(LdmatrixSm100, EveryFormAgainstTheFragmentLayout) {
  KTEST_SEED(seed);
  KTEST_LOAD(h, "ldmatrix_sm100");
  if (GetParam() != "sm_100a") return;
  std::mt19937_64 rng(seed);
  for (const Form& f : kForms) {
    SCOPED_TRACE(f.kernel);
    std::vector<uint8_t> in(32 * 16);
    for (auto& b : in) b = uint8_t(rng());
    std::vector<uint32_t> ld_rows(32), st_rows(32);
    std::iota(ld_rows.begin(), ld_rows.end(), 0u);
    std::iota(st_rows.begin(), st_rows.end(), 0u);
    std::shuffle(ld_rows.begin(), ld_rows.end(), rng);
    std::shuffle(st_rows.begin(), st_rows.end(), rng);
    const uint64_t gin = h.upload(in, "in"), gld = h.upload(ld_rows, "ld_rows"), gst = h.upload(st_rows, "st_rows");
    const uint64_t gregs = h.alloc_n<uint32_t>(32 * 4, "regs"), gout = h.alloc_n<uint8_t>(32 * 16, "out");
    RunResult r = h.launch(f.kernel, {1}, {32}, h.params(f.kernel, gin, gld, gst, gregs, gout), 0, nullptr, seed);
    KTEST_EXPECT_COMPLETED(r);
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r);

    // ldmatrix: the registers of every lane.
    const int nregs = f.shape == Shape::M16N16 ? 2 * f.num : f.num;
    auto row = [&](int k) { return &in[16 * ld_rows[k]]; };
    const std::vector<uint32_t> regs = h.download<uint32_t>(gregs, 32 * 4);
    std::vector<uint32_t> got, want;
    for (int t = 0; t < 32; ++t)
      for (int j = 0; j < nregs; ++j) {
        const int g = t / 4, q = t % 4;
        uint32_t w = 0;
        for (int e = 0; e < 4; ++e) {
          const uint8_t b = f.shape == Shape::M16N16 ? element(row(16 * (j / 2) + 4 * q + e), f.src, g + 8 * (j % 2))
                                                     : element(row(8 * j + g), f.src, 4 * q + e);
          w |= uint32_t(b) << (8 * e);
        }
        want.push_back(w);
        got.push_back(regs[t * 4 + j]);
      }
    EXPECT_TRUE(compare_exact("ldmatrix registers (lane-major)", got, want));

    // stmatrix .m16n8.xN.trans.b8 of the registers ldmatrix produced (as read back): rows of lanes
    // 8*nregs.. are not addressed and keep the 0xEE fill.
    std::vector<uint8_t> want_out(32 * 16, 0xEE);
    for (int t = 0; t < 32; ++t)
      for (int j = 0; j < nregs; ++j)
        for (int e = 0; e < 4; ++e)
          want_out[16 * st_rows[8 * j + 2 * (t % 4) + e % 2] + t / 4 + 8 * (e / 2)] = uint8_t(regs[t * 4 + j] >> (8 * e));
    EXPECT_TRUE(compare_exact("stmatrix rows (row-major bytes)", h.download<uint8_t>(gout, 32 * 16), want_out));
  }
}

}  // namespace

KTEST_INSTANTIATE(LdmatrixSm100);

}  // namespace ptxsim::ktest
