// A small helper for the CUDA kernel tests: loads the PTX nvcc produced for one .cu file and one
// target, lays out device buffers (poisoned before each launch), builds the parameter buffer from
// the kernel's declared layout, launches, and reads results back. Also: the per-test random seed
// (printed, overridable with PTXSIM_TEST_SEED) and first-mismatch reporting for result arrays.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "model/memory/global_memory.h"
#include "sim/api.h"

namespace ptxsim::ktest {

// The two targets every kernel is compiled for; the tests are parameterised over them.
inline const std::vector<std::string>& archs() {
  static const std::vector<std::string> a = {"sm_90a", "sm_100a"};
  return a;
}

// <build>/tests/kernels/ptx/<name>.<arch>.ptx
std::string ptx_path(const std::string& name, const std::string& arch);
// <source>/tests/kernels/<file>
std::string source_path(const std::string& file);
// The 1-based number of the first line of source file `file` that contains `needle` (0 if none).
uint32_t source_line_containing(const std::string& file, const std::string& needle);

// The seed of this test: PTXSIM_TEST_SEED if set, else fresh from std::random_device. It is printed
// so a failing run can be repeated.
uint64_t test_seed();

// Loads (and caches) the program for `name` and `arch`. On a load failure (PtxError for an
// unimplemented or unknown instruction, a missing file, ...) returns null and `error` holds the message.
std::shared_ptr<const Program> load_kernel_program(const std::string& name, const std::string& arch,
                                                   std::string& error);

constexpr uint8_t kPoison = 0xAB;

// One kernel module on one simulated device memory.
class Harness {
 public:
  Harness(std::shared_ptr<const Program> prog) : prog_(std::move(prog)) {}

  const Program& program() const { return *prog_; }
  model::GlobalMemory& memory() { return mem_; }

  // A device buffer of `bytes`, filled with the poison byte.
  uint64_t alloc(size_t bytes, const std::string& name = "");
  template <class T>
  uint64_t alloc_n(size_t n, const std::string& name = "") {
    return alloc(n * sizeof(T), name);
  }
  // A device buffer holding `v`.
  template <class T>
  uint64_t upload(const std::vector<T>& v, const std::string& name = "") {
    uint64_t a = alloc(std::max<size_t>(v.size() * sizeof(T), 1), name);
    if (!v.empty()) mem_.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  void write(uint64_t addr, const std::vector<T>& v) {
    mem_.write(addr, v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> download(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    if (!mem_.read(addr, v.data(), n * sizeof(T))) ADD_FAILURE() << "cannot read back " << n * sizeof(T) << " bytes";
    return v;
  }

  // The name of the entry whose name is `name`, or (for C++-mangled names) contains it.
  std::string kernel_named(const std::string& name) const;

  // The parameter buffer for `kernel`, from one value per declared parameter (pointers as uint64_t).
  // Each argument's size must equal the parameter's declared size.
  template <class... Args>
  std::vector<uint8_t> params(const std::string& kernel, const Args&... args) {
    std::vector<std::pair<const void*, size_t>> raw = {{static_cast<const void*>(&args), sizeof(Args)}...};
    return build_params(kernel, raw);
  }

  // Launches `kernel` (exact or contained name). printf output goes to `printf_out` if given, else
  // it is collected in last_printf().
  RunResult launch(const std::string& kernel, Dim3 grid, Dim3 block, const std::vector<uint8_t>& params,
                   uint32_t dynamic_shared = 0, std::ostream* printf_out = nullptr, uint64_t schedule_seed = 0);
  const std::string& last_printf() const { return printf_; }
  // LaunchConfig::racecheck for the next launches. (With PTXSIM_RACECHECK=1 every launch runs with
  // it and ptxsim::launch prints the race reports of launches that did not ask for it.)
  bool racecheck = false;
  bool racecheck_global = false;  // LaunchConfig::racecheck_global
  Dim3 cluster;                   // LaunchConfig::cluster (1,1,1: no clusters)
  bool co_resident = false;       // LaunchConfig::co_resident (a cooperative launch)

 private:
  std::vector<uint8_t> build_params(const std::string& kernel, const std::vector<std::pair<const void*, size_t>>& raw);
  std::shared_ptr<const Program> prog_;
  model::GlobalMemory mem_;
  std::string printf_;
};

// Describes a run that did not complete: status, report and first diagnostic.
std::string describe(const RunResult& r);

// Element-by-element comparison with a message naming the first mismatch (and how many differ).
template <class T, class Eq, class Fmt>
::testing::AssertionResult compare_arrays(const std::string& what, const std::vector<T>& got,
                                          const std::vector<T>& want, Eq eq, Fmt fmt) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != expected " << want.size();
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!eq(got[i], want[i])) {
      if (!bad) first = i;
      ++bad;
    }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << got.size()
                                       << " elements differ; first at index " << first << ": got "
                                       << fmt(got[first]) << ", expected " << fmt(want[first]);
}

template <class T>
std::string hex_of(T v) {
  std::ostringstream os;
  using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, uint64_t>>;
  if constexpr (std::is_integral_v<T>) {
    os << std::dec << +v << " (0x" << std::hex << uint64_t(U(v)) << ")";
  } else {
    os << v;
  }
  return os.str();
}

template <class T>
::testing::AssertionResult compare_exact(const std::string& what, const std::vector<T>& got, const std::vector<T>& want) {
  return compare_arrays(what, got, want, [](const T& a, const T& b) { return a == b; },
                        [](const T& v) { return hex_of(v); });
}

// Bitwise float comparison (so -0 vs +0 and NaN payloads count), printing value and bits.
::testing::AssertionResult compare_float_bits(const std::string& what, const std::vector<float>& got,
                                              const std::vector<float>& want);

// The fixture of every kernel test: parameterised by the target ("sm_90a", "sm_100a").
class KernelTest : public ::testing::TestWithParam<std::string> {};

inline std::string arch_test_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace ptxsim::ktest

// Runs every test of fixture `suite` (derived from KernelTest) for each target.
#define KTEST_INSTANTIATE(suite) \
  INSTANTIATE_TEST_SUITE_P(Arch, suite, ::testing::ValuesIn(::ptxsim::ktest::archs()), ::ptxsim::ktest::arch_test_name)

// Declares `var`, this test's random seed (printed; PTXSIM_TEST_SEED overrides), and traces it.
#define KTEST_SEED(var)                                  \
  const uint64_t var = ::ptxsim::ktest::test_seed();     \
  SCOPED_TRACE("PTXSIM_TEST_SEED=" + std::to_string(var))

// Loads module `name` for the test's arch into `h` (a Harness); on a load failure, fails the test
// with the simulator's message and returns.
#define KTEST_LOAD(h, name)                                                                  \
  std::string h##_load_error;                                                                \
  auto h##_prog = ::ptxsim::ktest::load_kernel_program(name, GetParam(), h##_load_error);    \
  if (!h##_prog) {                                                                           \
    FAIL() << "loading " << name << "." << GetParam() << ".ptx failed:\n" << h##_load_error; \
  }                                                                                          \
  ::ptxsim::ktest::Harness h(h##_prog)

// Expects a completed run; on anything else fails with the run's report.
#define KTEST_EXPECT_COMPLETED(r) \
  ASSERT_EQ((r).status, ::ptxsim::RunStatus::Completed) << ::ptxsim::ktest::describe(r)
