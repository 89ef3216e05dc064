#include "tools/hw/hw_cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ptxsim::hw {

const char* const kUsage =
    "usage: ptxsim-hw run CASE.json -o TRACE.json [--hang-seconds T] [--device N]\n"
    "       ptxsim-hw tensormaps PARAMS.json -o TRACE.json [--device N]\n"
    "       ptxsim-hw capture CORPUS_DIR OUT_DIR [--hang-seconds T] [--device N]\n"
    "       ptxsim-hw devices | --help | --version\n"
    "Runs case files on a real GPU through the CUDA driver API and records traces\n"
    "(docs/traces.md) for `ptxsim replay`.\n"
    "  run         one case: PTX loaded with cuModuleLoadDataEx, tensor maps encoded by the driver,\n"
    "              launched with cuLaunchKernelEx (cluster dimensions as the case says)\n"
    "  tensormaps  encode every parameter set of PARAMS.json with the driver (no launch)\n"
    "  capture     every *.case.json under CORPUS_DIR, each in its own process; traces go to\n"
    "              OUT_DIR under the same relative paths (.case.json -> .trace.json)\n"
    "  devices     list the CUDA devices\n"
    "  --hang-seconds T  a kernel still running after T seconds is recorded as a hang (default 10)\n"
    "  --device N        the device ordinal (default 0)\n"
    "Exit codes: 0 done (whatever the kernel did), 1 bad input, no driver or no device.\n";

namespace {

double parse_positive(const std::string& name, const std::string& v) {
  char* end = nullptr;
  double d = v.empty() ? 0 : std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(d) || d <= 0)
    throw UsageError(name + ": expected a positive number, got '" + v + "'");
  return d;
}

}  // namespace

Options parse_args(const std::vector<std::string>& args) {
  Options o;
  if (args.empty()) throw UsageError("missing verb (run, tensormaps, capture or devices)");
  const std::string& verb = args[0];
  if (verb == "-h" || verb == "--help" || verb == "help") return o;
  if (verb == "--version" || verb == "-V") {
    o.verb = Options::Verb::Version;
    return o;
  }
  if (verb == "run") o.verb = Options::Verb::Run;
  else if (verb == "tensormaps") o.verb = Options::Verb::Tensormaps;
  else if (verb == "capture") o.verb = Options::Verb::Capture;
  else if (verb == "devices") o.verb = Options::Verb::Devices;
  else throw UsageError("unknown verb '" + verb + "' (expected run, tensormaps, capture or devices)");

  std::vector<std::string> positional;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.verb = Options::Verb::Help;
      return o;
    }
    if (a.empty() || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    std::string name = a, value;
    bool inline_value = false;
    if (size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    if (name != "-o" && name != "--out" && name != "--hang-seconds" && name != "--device")
      throw UsageError("unknown option '" + name + "'");
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
      value = args[++i];
    }
    if (name == "-o" || name == "--out") {
      if (o.verb == Options::Verb::Capture || o.verb == Options::Verb::Devices)
        throw UsageError(name + " is not an option of '" + verb + "'");
      if (value.empty()) throw UsageError(name + " needs a file name");
      o.output = value;
    } else if (name == "--hang-seconds") {
      o.hang_seconds = parse_positive(name, value);
    } else {
      char* end = nullptr;
      long d = value.empty() ? -1 : std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end || d < 0 || d > 1024)
        throw UsageError("--device: expected a device ordinal, got '" + value + "'");
      o.device = int(d);
    }
  }
  const size_t want = o.verb == Options::Verb::Capture ? 2 : o.verb == Options::Verb::Devices ? 0 : 1;
  const char* what = o.verb == Options::Verb::Run          ? "CASE.json"
                     : o.verb == Options::Verb::Tensormaps ? "PARAMS.json"
                                                           : "CORPUS_DIR OUT_DIR";
  if (positional.size() < want) throw UsageError("'" + verb + "' needs " + what);
  if (positional.size() > want)
    throw UsageError("unexpected argument '" + positional[want] + "' ('" + verb + "' takes " +
                     (want ? what : "no arguments") + ")");
  if (want >= 1) o.input = positional[0];
  if (want == 2) o.output = positional[1];
  if ((o.verb == Options::Verb::Run || o.verb == Options::Verb::Tensormaps) && !o.output)
    throw UsageError("'" + verb + "' needs -o TRACE.json (kernel printf output goes to stdout)");
  return o;
}

std::vector<CorpusEntry> find_corpus(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("'" + dir.string() + "' is not a directory");
  std::vector<CorpusEntry> out;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view kSuffix = ".case.json";
    if (!it->is_regular_file() || name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) continue;
    fs::path rel = it->path().lexically_relative(dir);
    std::string r = rel.generic_string();
    r.replace(r.size() - kSuffix.size(), kSuffix.size(), ".trace.json");
    out.push_back({it->path(), fs::path(r)});
  }
  if (ec) throw std::runtime_error("cannot read directory '" + dir.string() + "': " + ec.message());
  std::sort(out.begin(), out.end(), [](const CorpusEntry& a, const CorpusEntry& b) { return a.case_file < b.case_file; });
  return out;
}

std::optional<PtxTarget> ptx_target(std::string_view text) {
  size_t pos = 0;
  while ((pos = text.find(".target", pos)) != std::string_view::npos) {
    // Skip occurrences inside line comments.
    size_t line_start = text.rfind('\n', pos);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::string_view before = text.substr(line_start, pos - line_start);
    pos += 7;
    if (before.find("//") != std::string_view::npos) continue;
    size_t p = pos;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (text.substr(p, 3) != "sm_") continue;
    p += 3;
    uint32_t sm = 0;
    size_t digits = 0;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') sm = sm * 10 + uint32_t(text[p++] - '0'), ++digits;
    if (!digits) continue;
    PtxTarget t;
    t.sm = sm;
    t.arch_specific = p < text.size() && text[p] == 'a';
    return t;
  }
  return std::nullopt;
}

std::optional<std::string> target_mismatch(const PtxTarget& t, int major, int minor) {
  const uint32_t cc = uint32_t(major * 10 + minor);
  const std::string name = "sm_" + std::to_string(t.sm) + (t.arch_specific ? "a" : "");
  const std::string dev = std::to_string(major) + "." + std::to_string(minor);
  if (t.arch_specific && cc != t.sm)
    return name + " code runs only on compute capability " + std::to_string(t.sm / 10) + "." +
           std::to_string(t.sm % 10) + "; the device is " + dev;
  if (!t.arch_specific && cc < t.sm) return name + " code needs compute capability " + std::to_string(t.sm / 10) +
                                            "." + std::to_string(t.sm % 10) + " or newer; the device is " + dev;
  return std::nullopt;
}

std::vector<trace::TensorMapRecord> load_tensormap_params(const fs::path& file) {
  const std::string name = file.string();
  std::ifstream f(file, std::ios::binary);
  if (!f) throw cli::CaseError(name, "", "cannot read tensor-map parameter file");
  std::stringstream ss;
  ss << f.rdbuf();
  cli::Json doc;
  try {
    doc = cli::Json::parse(ss.str(), nullptr, true, /*ignore_comments=*/true);
  } catch (const cli::Json::parse_error& e) {
    throw cli::CaseError(name, "", std::string("invalid JSON: ") + e.what());
  }
  cli::JsonReader r(name);
  r.expect_object(doc, "");
  r.check_keys(doc, "", {"tensormaps", "comment"});
  if (!doc.contains("tensormaps")) r.fail("tensormaps", "missing (an array of {\"name\", \"params\"})");
  const cli::Json& maps = doc.at("tensormaps");
  r.expect_array(maps, "tensormaps");
  if (maps.empty()) r.fail("tensormaps", "empty: nothing to encode");
  std::vector<trace::TensorMapRecord> out;
  for (size_t i = 0; i < maps.size(); ++i) {
    const std::string path = cli::JsonReader::index("tensormaps", i);
    r.expect_object(maps[i], path);
    r.check_keys(maps[i], path, {"name", "params", "comment"});
    trace::TensorMapRecord rec;
    rec.name = maps[i].contains("name") ? r.get_string(maps[i].at("name"), cli::JsonReader::key(path, "name"))
                                        : "[" + std::to_string(i) + "]";
    if (!maps[i].contains("params")) r.fail(path, "missing \"params\"");
    const std::string ppath = cli::JsonReader::key(path, "params");
    r.check_keys(maps[i].at("params"), ppath, cli::tensormap_param_keys());
    rec.params = cli::parse_tensormap_params(r, maps[i].at("params"), ppath, /*address_key=*/true);
    out.push_back(std::move(rec));
  }
  return out;
}

std::string no_device_message(const std::string& cuinit_error) {
  return "ptxsim-hw: no CUDA device (" + cuinit_error + ")";
}

}  // namespace ptxsim::hw
