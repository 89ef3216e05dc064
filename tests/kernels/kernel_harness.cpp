#include "tests/kernels/kernel_harness.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>

#include "sim/ptx/diag.h"

namespace ptxsim::ktest {

std::string ptx_path(const std::string& name, const std::string& arch) {
  return std::string(PTXSIM_KERNEL_PTX_DIR) + "/" + name + "." + arch + ".ptx";
}

std::string source_path(const std::string& file) { return std::string(PTXSIM_KERNEL_SOURCE_DIR) + "/" + file; }

uint32_t source_line_containing(const std::string& file, const std::string& needle) {
  std::ifstream in(source_path(file));
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  return 0;
}

uint64_t test_seed() {
  uint64_t seed;
  if (const char* e = std::getenv("PTXSIM_TEST_SEED"); e && *e) {
    seed = std::strtoull(e, nullptr, 0);
  } else {
    std::random_device rd;
    seed = (uint64_t(rd()) << 32) ^ rd();
  }
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << (info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("?"))
            << ": PTXSIM_TEST_SEED=" << seed << std::endl;
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

std::shared_ptr<const Program> load_kernel_program(const std::string& name, const std::string& arch,
                                                   std::string& error) {
  static std::mutex mu;
  static std::map<std::string, std::pair<std::shared_ptr<const Program>, std::string>> cache;
  std::lock_guard<std::mutex> lock(mu);
  std::string path = ptx_path(name, arch);
  auto it = cache.find(path);
  if (it == cache.end()) {
    std::shared_ptr<const Program> prog;
    std::string err;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      err = "cannot open " + path + " (was it built by nvcc?)";
    } else {
      std::stringstream ss;
      ss << in.rdbuf();
      try {
        prog = load_program(ss.str(), path);
      } catch (const PtxError& e) {
        err = e.what();
      } catch (const std::exception& e) {
        err = std::string("exception: ") + e.what();
      }
    }
    it = cache.emplace(path, std::make_pair(prog, err)).first;
  }
  error = it->second.second;
  return it->second.first;
}

uint64_t Harness::alloc(size_t bytes, const std::string& name) {
  uint64_t a = mem_.allocate(bytes, 256, name);
  std::vector<uint8_t> poison(bytes, kPoison);
  mem_.write(a, poison.data(), bytes);
  return a;
}

std::string Harness::kernel_named(const std::string& name) const {
  auto ks = kernels(*prog_);
  for (auto& k : ks)
    if (k.name == name) return k.name;
  for (auto& k : ks)
    if (k.name.find(name) != std::string::npos) return k.name;
  return name;
}

std::vector<uint8_t> Harness::build_params(const std::string& kernel,
                                           const std::vector<std::pair<const void*, size_t>>& raw) {
  std::string full = kernel_named(kernel);
  for (auto& k : kernels(*prog_)) {
    if (k.name != full) continue;
    std::vector<uint8_t> buf(k.param_bytes, 0);
    if (raw.size() != k.params.size()) {
      ADD_FAILURE() << "kernel " << full << " declares " << k.params.size() << " parameters; test passes " << raw.size();
      return buf;
    }
    for (size_t i = 0; i < raw.size(); ++i) {
      const ParamInfo& p = k.params[i];
      if (raw[i].second != p.size) {
        ADD_FAILURE() << "kernel " << full << " parameter " << i << " (" << p.name << ") has " << p.size
                      << " bytes; test passes " << raw[i].second;
        continue;
      }
      std::memcpy(buf.data() + p.offset, raw[i].first, p.size);
    }
    return buf;
  }
  ADD_FAILURE() << "no kernel named " << kernel << " in this module";
  return {};
}

RunResult Harness::launch(const std::string& kernel, Dim3 grid, Dim3 block, const std::vector<uint8_t>& params,
                          uint32_t dynamic_shared, std::ostream* printf_out, uint64_t schedule_seed) {
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.dynamic_shared_bytes = dynamic_shared;
  cfg.schedule_seed = schedule_seed;
  cfg.max_instructions = 200'000'000ull;
  cfg.max_seconds = 60.0;
  cfg.racecheck = racecheck;
  cfg.racecheck_global = racecheck_global;
  cfg.cluster = cluster;
  cfg.co_resident = co_resident;
  std::ostringstream os;
  RunResult r = ptxsim::launch(*prog_, kernel_named(kernel), cfg, params, mem_, printf_out ? printf_out : &os);
  if (!printf_out) printf_ = os.str();
  if (const char* v = std::getenv("PTXSIM_KERNEL_VERBOSE"); v && *v && *v != '0')
    std::cout << "[ launch   ] " << cfg.grid.x << "x" << cfg.block.x << " " << kernel << ": " << to_string(r.status)
              << ", " << r.stats.thread_instructions << " thread instructions, " << r.stats.warp_instructions
              << " warp instructions, " << r.stats.seconds << " s" << std::endl;
  return r;
}

std::string describe(const RunResult& r) {
  std::ostringstream os;
  os << "run status: " << to_string(r.status) << "\n";
  if (!r.report.empty()) os << r.report;
  if (!r.diagnostics.empty()) os << "\nfirst diagnostic: " << r.diagnostics.front().format();
  return os.str();
}

::testing::AssertionResult compare_float_bits(const std::string& what, const std::vector<float>& got,
                                              const std::vector<float>& want) {
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  return compare_arrays(
      what, got, want, [&](float a, float b) { return bits(a) == bits(b); },
      [&](float v) {
        std::ostringstream os;
        os.precision(9);
        os << v << " (0x" << std::hex << bits(v) << ")";
        return os.str();
      });
}

}  // namespace ptxsim::ktest
