#include "tools/trace/trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tools/ptxsim/sha256.h"

namespace ptxsim::trace {

using cli::CaseError;
using cli::JsonReader;

const char* status_name(Status s) {
  switch (s) {
    case Status::Completed: return "completed";
    case Status::Fault: return "fault";
    case Status::Hang: return "hang";
  }
  return "?";
}

// ---- encodings --------------------------------------------------------------------------------

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool is_sha256_hex(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}
}  // namespace

std::string base64_encode(const uint8_t* data, size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = uint32_t(data[i]) << 16;
    if (i + 1 < size) v |= uint32_t(data[i + 1]) << 8;
    if (i + 2 < size) v |= data[i + 2];
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < size ? kB64[(v >> 6) & 63] : '=';
    out += i + 2 < size ? kB64[v & 63] : '=';
  }
  return out;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      uint32_t d = 0;
      if (c == '=') {
        // Padding only in the last quartet's last two places, and nothing after it.
        if (i + 4 != text.size() || k < 2) return std::nullopt;
        ++pad;
      } else {
        if (pad) return std::nullopt;
        const char* p = std::find(kB64, kB64 + 64, c);
        if (p == kB64 + 64) return std::nullopt;
        d = uint32_t(p - kB64);
      }
      v = v << 6 | d;
    }
    out.push_back(uint8_t(v >> 16));
    if (pad < 2) out.push_back(uint8_t(v >> 8));
    if (pad < 1) out.push_back(uint8_t(v));
  }
  return out;
}

std::string hex_encode(const uint8_t* data, size_t size) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    s += d[data[i] >> 4];
    s += d[data[i] & 15];
  }
  return s;
}

std::optional<std::vector<uint8_t>> hex_decode(std::string_view text) {
  if (text.size() % 2) return std::nullopt;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<uint8_t> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = nib(text[2 * i]), lo = nib(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = uint8_t(hi << 4 | lo);
  }
  return out;
}

// ---- reading ----------------------------------------------------------------------------------

namespace {

Status parse_status(const JsonReader& r, const Json& v, const std::string& path) {
  const std::string& s = r.get_string(v, path);
  if (s == "completed") return Status::Completed;
  if (s == "fault") return Status::Fault;
  if (s == "hang") return Status::Hang;
  r.fail(path, "unknown status '" + s + "' (expected completed, fault or hang)");
}

Device parse_device(const JsonReader& r, const Json& v, const std::string& path) {
  r.expect_object(v, path);
  r.check_keys(v, path, {"name", "compute_capability", "driver_version", "toolkit_version"});
  Device d;
  if (!v.contains("name")) r.fail(path, "missing \"name\"");
  d.name = r.get_string(v.at("name"), JsonReader::key(path, "name"));
  if (d.name.empty()) r.fail(JsonReader::key(path, "name"), "empty device name");
  if (v.contains("compute_capability")) {
    std::string cpath = JsonReader::key(path, "compute_capability");
    d.compute_capability = r.get_string(v.at("compute_capability"), cpath);
    size_t dot = d.compute_capability.find('.');
    bool ok = dot != std::string::npos && dot > 0 && dot + 1 < d.compute_capability.size() &&
              std::all_of(d.compute_capability.begin(), d.compute_capability.end(),
                          [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
              d.compute_capability.find('.', dot + 1) == std::string::npos;
    if (!ok) r.fail(cpath, "expected MAJOR.MINOR such as \"9.0\", got '" + d.compute_capability + "'");
  } else if (d.name != kSyntheticDevice) {
    r.fail(path, "missing \"compute_capability\" (required for hardware traces)");
  }
  if (v.contains("driver_version"))
    d.driver_version = int(r.get_uint(v.at("driver_version"), JsonReader::key(path, "driver_version"), INT32_MAX));
  if (v.contains("toolkit_version"))
    d.toolkit_version = int(r.get_uint(v.at("toolkit_version"), JsonReader::key(path, "toolkit_version"), INT32_MAX));
  return d;
}

Tolerance parse_tolerance(const JsonReader& r, const Json& v, const std::string& path) {
  r.expect_object(v, path);
  r.check_keys(v, path, {"dtype", "ulp", "abs"});
  Tolerance t;
  if (!v.contains("dtype")) r.fail(path, "missing \"dtype\" (f16, bf16, f32 or f64)");
  t.dtype = r.get_string(v.at("dtype"), JsonReader::key(path, "dtype"));
  if (t.dtype != "f16" && t.dtype != "bf16" && t.dtype != "f32" && t.dtype != "f64")
    r.fail(JsonReader::key(path, "dtype"), "unknown dtype '" + t.dtype + "' (expected f16, bf16, f32 or f64)");
  if (!v.contains("ulp") && !v.contains("abs")) r.fail(path, "needs \"ulp\" or \"abs\" (or both)");
  if (v.contains("ulp")) t.ulp = r.get_uint(v.at("ulp"), JsonReader::key(path, "ulp"));
  if (v.contains("abs")) {
    t.abs = r.get_double(v.at("abs"), JsonReader::key(path, "abs"));
    if (!(t.abs >= 0) || std::isinf(t.abs)) r.fail(JsonReader::key(path, "abs"), "must be a finite number >= 0");
  }
  return t;
}

size_t tolerance_element_size(const std::string& dtype) {
  return dtype == "f64" ? 8 : dtype == "f32" ? 4 : 2;
}

Output parse_output(const JsonReader& r, const std::string& name, const Json& v, const std::string& path) {
  r.expect_object(v, path);
  r.check_keys(v, path, {"bytes", "sha256", "base64", "tolerance"});
  Output o;
  o.name = name;
  if (!v.contains("bytes")) r.fail(path, "missing \"bytes\"");
  if (!v.contains("sha256")) r.fail(path, "missing \"sha256\"");
  o.bytes = r.get_uint(v.at("bytes"), JsonReader::key(path, "bytes"));
  o.sha256 = r.get_string(v.at("sha256"), JsonReader::key(path, "sha256"));
  if (!is_sha256_hex(o.sha256)) r.fail(JsonReader::key(path, "sha256"), "expected 64 lower-case hex digits");
  if (v.contains("base64")) {
    std::string bpath = JsonReader::key(path, "base64");
    auto data = base64_decode(r.get_string(v.at("base64"), bpath));
    if (!data) r.fail(bpath, "not valid base64");
    if (data->size() != o.bytes)
      r.fail(bpath, "decodes to " + std::to_string(data->size()) + " bytes but \"bytes\" is " + std::to_string(o.bytes));
    if (cli::sha256_hex(data->data(), data->size()) != o.sha256)
      r.fail(bpath, "the bytes do not match \"sha256\" (the trace is corrupt)");
    o.data = std::move(*data);
  }
  if (v.contains("tolerance")) {
    std::string tpath = JsonReader::key(path, "tolerance");
    o.tolerance = parse_tolerance(r, v.at("tolerance"), tpath);
    if (!o.data) r.fail(tpath, "a tolerance needs the values: store the output inline (\"base64\")");
    if (o.bytes % tolerance_element_size(o.tolerance->dtype))
      r.fail(tpath, std::to_string(o.bytes) + " bytes is not a whole number of " + o.tolerance->dtype + " elements");
  }
  return o;
}

TensorMapRecord parse_tensormap_record(const JsonReader& r, const Json& v, const std::string& path) {
  r.expect_object(v, path);
  r.check_keys(v, path, {"name", "params", "result", "blob_hex"});
  TensorMapRecord t;
  if (v.contains("name")) t.name = r.get_string(v.at("name"), JsonReader::key(path, "name"));
  if (!v.contains("params")) r.fail(path, "missing \"params\"");
  const std::string ppath = JsonReader::key(path, "params");
  r.check_keys(v.at("params"), ppath, cli::tensormap_param_keys());
  t.params = cli::parse_tensormap_params(r, v.at("params"), ppath, /*address_key=*/true);
  if (!v.contains("result")) r.fail(path, "missing \"result\" (\"CUDA_SUCCESS\" or the driver's error)");
  t.result = r.get_string(v.at("result"), JsonReader::key(path, "result"));
  if (t.result.rfind("CUDA_", 0) != 0 && t.result.rfind("CUresult ", 0) != 0)
    r.fail(JsonReader::key(path, "result"), "expected a CUresult name such as CUDA_SUCCESS, got '" + t.result + "'");
  const bool success = t.result == "CUDA_SUCCESS";
  if (success != v.contains("blob_hex"))
    r.fail(path, success ? "missing \"blob_hex\" (the 128-byte map of a successful encode)"
                         : "\"blob_hex\" given for a failed encode");
  if (success) {
    std::string bpath = JsonReader::key(path, "blob_hex");
    auto bytes = hex_decode(r.get_string(v.at("blob_hex"), bpath));
    if (!bytes || bytes->size() != 128)
      r.fail(bpath, "expected 256 hex digits (128 bytes)");
    std::array<uint8_t, 128> blob;
    std::copy(bytes->begin(), bytes->end(), blob.begin());
    t.blob = blob;
  }
  return t;
}

}  // namespace

Trace parse_trace(const Json& doc, const std::string& file, const std::filesystem::path& dir) {
  JsonReader r(file);
  r.expect_object(doc, "");
  r.check_keys(doc, "", {"format", "case", "device", "captured_by", "status", "error", "seconds", "outputs",
                         "tensormaps", "comment"});
  Trace t;
  t.file = file;
  if (!doc.contains("format")) r.fail("format", std::string("missing (expected \"") + std::string(kFormat) + "\")");
  const std::string& fmt = r.get_string(doc.at("format"), "format");
  if (fmt != kFormat) {
    bool ours = fmt.rfind("ptxsim-trace/", 0) == 0;
    r.fail("format", "unsupported format '" + fmt + "' (this ptxsim reads " + std::string(kFormat) +
                         (ours ? "; the trace was written by another version)" : ")"));
  }
  if (!doc.contains("device")) r.fail("device", "missing (the device record)");
  t.device = parse_device(r, doc.at("device"), "device");
  if (doc.contains("captured_by")) t.captured_by = r.get_string(doc.at("captured_by"), "captured_by");
  if (doc.contains("comment")) t.comment = r.get_string(doc.at("comment"), "comment");
  if (doc.contains("seconds")) t.seconds = r.get_double(doc.at("seconds"), "seconds");

  if (doc.contains("case")) {
    t.case_ref = r.get_string(doc.at("case"), "case");
    if (t.case_ref.empty()) r.fail("case", "empty path");
    std::filesystem::path cp(t.case_ref);
    if (cp.is_absolute()) r.fail("case", "must be relative to the trace file, got '" + t.case_ref + "'");
    t.case_path = dir / cp;
    if (!doc.contains("status")) r.fail("status", "missing (completed, fault or hang)");
    t.status = parse_status(r, doc.at("status"), "status");
  } else {
    for (const char* k : {"status", "outputs", "error"})
      if (doc.contains(k)) r.fail(k, "only allowed in a trace with a \"case\"");
    if (!doc.contains("tensormaps")) r.fail("", "a trace needs a \"case\" or \"tensormaps\"");
  }
  if (doc.contains("error")) {
    t.error = r.get_string(doc.at("error"), "error");
    if (t.status != Status::Fault) r.fail("error", "only allowed when status is fault");
  }
  if (doc.contains("outputs")) {
    const Json& outs = doc.at("outputs");
    r.expect_object(outs, "outputs");
    if (t.status != Status::Completed && !outs.empty())
      r.fail("outputs", std::string("a ") + status_name(*t.status) +
                            " run has no outputs to compare (the device's memory is not trustworthy)");
    for (auto it = outs.begin(); it != outs.end(); ++it)
      t.outputs.push_back(parse_output(r, it.key(), it.value(), JsonReader::key("outputs", it.key())));
  } else if (t.status == Status::Completed) {
    r.fail("outputs", "missing (a completed run records its outputs; {} when the case has none)");
  }
  if (doc.contains("tensormaps")) {
    const Json& maps = doc.at("tensormaps");
    r.expect_array(maps, "tensormaps");
    for (size_t i = 0; i < maps.size(); ++i)
      t.tensormaps.push_back(parse_tensormap_record(r, maps[i], JsonReader::index("tensormaps", i)));
  }
  return t;
}

Trace load_trace(const std::filesystem::path& file) {
  std::string name = file.string();
  std::ifstream f(file, std::ios::binary);
  if (!f) throw CaseError(name, "", "cannot read trace file");
  std::stringstream ss;
  ss << f.rdbuf();
  Json doc;
  try {
    doc = Json::parse(ss.str());
  } catch (const Json::parse_error& e) {
    std::string msg = e.what();
    if (size_t p = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && p != std::string::npos)
      msg = msg.substr(p + 2);
    throw CaseError(name, "", "invalid JSON: " + msg);
  }
  return parse_trace(doc, name, file.parent_path());
}

// ---- writing ----------------------------------------------------------------------------------

Json to_json(const Trace& t) {
  Json j = Json::object();
  j["format"] = kFormat;
  if (!t.case_ref.empty()) j["case"] = t.case_ref;
  Json d = {{"name", t.device.name}};
  if (!t.device.compute_capability.empty()) d["compute_capability"] = t.device.compute_capability;
  if (t.device.driver_version) d["driver_version"] = t.device.driver_version;
  if (t.device.toolkit_version) d["toolkit_version"] = t.device.toolkit_version;
  j["device"] = d;
  if (!t.captured_by.empty()) j["captured_by"] = t.captured_by;
  if (t.status) j["status"] = status_name(*t.status);
  if (!t.error.empty()) j["error"] = t.error;
  if (t.seconds > 0) j["seconds"] = t.seconds;
  if (t.status) {
    Json outs = Json::object();
    for (const Output& o : t.outputs) {
      Json jo = {{"bytes", o.bytes}, {"sha256", o.sha256}};
      if (o.data) jo["base64"] = base64_encode(o.data->data(), o.data->size());
      if (o.tolerance) {
        Json tj = {{"dtype", o.tolerance->dtype}};
        if (o.tolerance->ulp) tj["ulp"] = o.tolerance->ulp;
        if (o.tolerance->abs > 0 || !o.tolerance->ulp) tj["abs"] = o.tolerance->abs;
        jo["tolerance"] = tj;
      }
      outs[o.name] = jo;
    }
    j["outputs"] = outs;
  }
  if (!t.tensormaps.empty()) {
    Json maps = Json::array();
    for (const TensorMapRecord& m : t.tensormaps) {
      Json jm = Json::object();
      if (!m.name.empty()) jm["name"] = m.name;
      jm["params"] = cli::tensormap_params_json(m.params);
      jm["result"] = m.result;
      if (m.blob) jm["blob_hex"] = hex_encode(m.blob->data(), 128);
      maps.push_back(jm);
    }
    j["tensormaps"] = maps;
  }
  if (!t.comment.empty()) j["comment"] = t.comment;
  return j;
}

void write_trace(const std::filesystem::path& file, const Trace& t) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << to_json(t).dump(2) << "\n";
  f.close();
  if (!f) throw std::runtime_error("cannot write trace '" + file.string() + "'");
}

Output make_output(std::string name, const uint8_t* bytes, size_t size, std::optional<Tolerance> tol) {
  Output o;
  o.name = std::move(name);
  o.bytes = size;
  o.sha256 = cli::sha256_hex(bytes, size);
  if (size <= kInlineLimit || tol) o.data = std::vector<uint8_t>(bytes, bytes + size);
  o.tolerance = std::move(tol);
  return o;
}

std::vector<std::filesystem::path> find_traces(const std::vector<std::filesystem::path>& paths) {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::follow_directory_symlink, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_regular_file() && name.size() > 11 && name.ends_with(".trace.json")) found.push_back(it->path());
      }
      if (ec) throw std::runtime_error("cannot read directory '" + p.string() + "': " + ec.message());
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      out.push_back(p);
    } else {
      throw std::runtime_error("no such file or directory: '" + p.string() + "'");
    }
  }
  return out;
}

std::string relative_ref(const std::filesystem::path& target, const std::filesystem::path& from) {
  namespace fs = std::filesystem;
  fs::path a = fs::absolute(target).lexically_normal(), b = fs::absolute(from).lexically_normal();
  fs::path rel = a.lexically_relative(b);
  return rel.empty() ? a.string() : rel.generic_string();
}

}  // namespace ptxsim::trace
