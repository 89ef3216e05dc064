// Registers sharing slots (sim/exec/reg_alloc.h): random programs with branches, loops, guarded
// writes, reads of registers never written and warp shuffles give the same results decoded with
// shared slots as with one slot per register, and they do share. The reference run is the same
// simulator with sharing off, whose per-register slots the other tests of the engine check; every
// output word is poisoned before both runs.
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "sim/exec/decoder.h"
#include "sim/exec/program.h"
#include "sim/ptx/parser.h"
#include "tests/unit/tma_test_util.h"

namespace {

using namespace tma_test;

constexpr int kRegs = 24, kPreds = 4, kWideRegs = 4, kThreads = 64, kStores = 48;

// One random kernel. Each thread stores some of its registers at fixed offsets of its 256-byte
// row of `out`; loops run a fixed number of times, branches depend on the thread's values.
class ProgramMaker {
 public:
  explicit ProgramMaker(std::mt19937_64& rng) : rng_(rng) {}

  std::string make() {
    os_ << ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
        << "  .reg .b32 %r<" << kRegs << ">;\n  .reg .b64 %rd<" << kWideRegs << ">;\n"
        << "  .reg .pred %p<" << kPreds << ">;\n  .reg .b32 %c<4>;\n  .reg .pred %q<4>;\n"
        << "  .reg .b64 %base, %row;\n  .reg .b32 %t;\n"
        << "  mov.u32 %t, %tid.x;\n  ld.param.u64 %base, [out];\n  mul.wide.u32 %row, %t, 256;\n"
        << "  add.s64 %row, %base, %row;\n  mov.u32 %r0, %t;\n";
    block(0, true);
    // What is left unwritten stays poisoned in both runs.
    os_ << "  ret;\n}\n";
    return os_.str();
  }

 private:
  uint32_t pick(uint32_t n) { return uint32_t(rng_() % n); }
  std::string r() { return "%r" + std::to_string(pick(kRegs)); }
  std::string p() { return "%p" + std::to_string(pick(kPreds)); }
  std::string rd() { return "%rd" + std::to_string(pick(kWideRegs)); }
  std::string guard() { return pick(4) == 0 ? "@" + std::string(pick(2) ? "!" : "") + p() + " " : ""; }

  void statement(int depth, bool converged) {
    switch (pick(converged ? 12 : 11)) {
      case 0: os_ << "  " << guard() << "add.u32 " << r() << ", " << r() << ", " << r() << ";\n"; break;
      case 1: os_ << "  " << guard() << "mul.lo.u32 " << r() << ", " << r() << ", " << pick(1000) << ";\n"; break;
      case 2: os_ << "  " << guard() << "xor.b32 " << r() << ", " << r() << ", " << r() << ";\n"; break;
      case 3: os_ << "  " << guard() << "mov.u32 " << r() << ", " << pick(100000) << ";\n"; break;
      case 4: os_ << "  selp.b32 " << r() << ", " << r() << ", " << r() << ", " << p() << ";\n"; break;
      case 5: os_ << "  " << guard() << "setp.lt.u32 " << p() << ", " << r() << ", " << r() << ";\n"; break;
      case 6: os_ << "  " << guard() << "mul.wide.u32 " << rd() << ", " << r() << ", " << r() << ";\n"; break;
      case 7: os_ << "  add.s64 " << rd() << ", " << rd() << ", " << rd() << ";\n"; break;
      case 8: os_ << "  cvt.u32.u64 " << r() << ", " << rd() << ";\n"; break;
      case 9:
        if (stores_ < kStores) os_ << "  " << guard() << "st.global.u32 [%row+" << 4 * stores_++ << "], " << r() << ";\n";
        break;
      case 10:
        if (depth < 3) (pick(2) ? branch(depth) : loop(depth, converged));
        break;
      case 11:  // every lane of the warp is here: a shuffle reads other lanes' registers
        os_ << "  shfl.sync.bfly.b32 " << r() << ", " << r() << ", " << (1 + pick(16)) << ", 31, 0xffffffff;\n";
        break;
    }
  }

  void block(int depth, bool converged) {
    const uint32_t n = 3 + pick(10);
    for (uint32_t i = 0; i < n; ++i) statement(depth, converged);
  }

  void branch(int depth) {
    const int id = labels_++;
    os_ << "  setp.ne.u32 " << p() << ", " << r() << ", 0;\n";
    os_ << "  @" << p() << " bra ELSE" << id << ";\n";
    block(depth + 1, false);
    os_ << "  bra END" << id << ";\nELSE" << id << ":\n";
    block(depth + 1, false);
    os_ << "END" << id << ":\n";
  }

  // The trip count is the same for every thread, so a converged warp stays converged.
  void loop(int depth, bool converged) {
    const int id = labels_++;
    const std::string c = "%c" + std::to_string(depth), q = "%q" + std::to_string(depth);
    os_ << "  mov.u32 " << c << ", 0;\nTOP" << id << ":\n";
    block(depth + 1, converged);
    os_ << "  add.u32 " << c << ", " << c << ", 1;\n  setp.lt.u32 " << q << ", " << c << ", " << (1 + pick(3))
        << ";\n  @" << q << " bra TOP" << id << ";\n";
  }

  std::mt19937_64& rng_;
  std::ostringstream os_;
  int stores_ = 0, labels_ = 0;
};

std::unique_ptr<ptxsim::Program> decode(const std::string& text, bool share) {
  const ptxsim::ast::Module m = ptxsim::parse_ptx(text, "reg_alloc.ptx");
  ptxsim::Decoder d(m);
  d.share_slots = share;
  return d.run();
}

std::vector<uint8_t> run(const ptxsim::Program& prog) {
  ptxsim::model::GlobalMemory mem;
  const uint64_t out = alloc(mem, kThreads * 256, "out");  // poisoned (0xAB)
  Params p;
  p.add(out);
  ptxsim::LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {kThreads, 1, 1};
  std::ostringstream printed;
  const ptxsim::RunResult r = ptxsim::launch(prog, "k", cfg, p.bytes, mem, &printed);
  EXPECT_EQ(r.status, ptxsim::RunStatus::Completed);
  return read(mem, out, kThreads * 256);
}

TEST(RegAlloc, SharedSlotsGiveTheResultsOfOneSlotPerRegister) {
  const uint64_t seed = test_seed();
  std::cout << "[ seed     ] PTXSIM_TEST_SEED=" << seed << "\n";
  std::mt19937_64 rng(seed);
  int shared = 0;
  constexpr int kPrograms = 150;
  for (int i = 0; i < kPrograms; ++i) {
    const std::string text = ProgramMaker(rng).make();
    auto own = decode(text, false), packed = decode(text, true);
    const ptxsim::Function* a = own->find("k");
    const ptxsim::Function* b = packed->find("k");
    ASSERT_TRUE(a && b);
    shared += b->num_slots < a->num_slots;
    const std::vector<uint8_t> want = run(*own), got = run(*packed);
    for (size_t at = 0; at < want.size(); at += 4)
      ASSERT_EQ(std::memcmp(want.data() + at, got.data() + at, 4), 0)
          << "program " << i << " (seed " << seed << "): thread " << at / 256 << ", store " << at % 256 / 4
          << " differs with shared slots\n"
          << text;
  }
  // Most programs leave some registers dead for a while: their slots are shared.
  EXPECT_GT(shared, kPrograms / 2) << "seed " << seed;
}

TEST(RegAlloc, AChainOfTemporariesNeedsTwoSlots) {
  std::ostringstream os;
  os << ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
     << "  .reg .b32 %t<100>;\n  .reg .b64 %rd1;\n  ld.param.u64 %rd1, [out];\n  mov.u32 %t0, %tid.x;\n";
  for (int i = 1; i < 100; ++i) os << "  add.u32 %t" << i << ", %t" << i - 1 << ", " << i << ";\n";
  os << "  st.global.u32 [%rd1], %t99;\n  ret;\n}\n";
  auto own = decode(os.str(), false), packed = decode(os.str(), true);
  const ptxsim::Function* a = own->find("k");
  const ptxsim::Function* b = packed->find("k");
  ASSERT_TRUE(a && b);
  // %rd1 lives throughout; each %t dies where the next is written, and a source never shares its
  // instruction's destination's slot: three slots for the 101 registers.
  EXPECT_EQ(a->num_slots - b->num_slots, 101u - 3) << "unshared " << a->num_slots << ", shared " << b->num_slots;
}

}  // namespace
