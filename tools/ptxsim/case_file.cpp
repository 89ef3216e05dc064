#include "tools/ptxsim/case_file.h"

#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "tools/ptxsim/params.h"

namespace ptxsim::cli {

namespace {

using Int = __int128;

std::string to_string(Int v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  std::string s;
  for (; u; u /= 10) s.insert(s.begin(), char('0' + int(u % 10)));
  return neg ? "-" + s : s;
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

std::string dtype_list() {
  std::string s;
  for (DType t : {DType::U8, DType::S8, DType::U16, DType::S16, DType::U32, DType::S32, DType::U64,
                  DType::S64, DType::F16, DType::BF16, DType::F32, DType::F64})
    s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s;
}

// The largest finite value of a float dtype.
double dtype_float_max(DType t) {
  switch (t) {
    case DType::F16: return 65504.0;
    case DType::BF16: return 3.3895313892515355e38;  // 0x7f7f
    case DType::F32: return double(FLT_MAX);
    default: return DBL_MAX;
  }
}

// Integer in JSON (integer, integral float, or decimal/0x-hex string) as a 128-bit value.
Int read_integer(const JsonReader& r, const Json& v, const std::string& path) {
  if (v.is_number_unsigned()) return Int(v.get<uint64_t>());
  if (v.is_number_integer()) return Int(v.get<int64_t>());
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::trunc(d))
      r.fail(path, "expected an integer, got " + JsonReader::describe(v));
    if (std::fabs(d) >= 0x1p100) r.fail(path, JsonReader::describe(v) + " is out of range");
    return Int(d);
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    size_t i = 0;
    bool neg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    int base = 10;
    if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      base = 16;
      i += 2;
    }
    if (i == s.size()) r.fail(path, "expected an integer, got " + JsonReader::describe(v));
    Int value = 0;
    for (; i < s.size(); ++i) {
      char c = s[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : 99;
      if (d >= base) r.fail(path, "expected an integer, got " + JsonReader::describe(v));
      value = value * base + d;
      if (value > (Int(1) << 100)) r.fail(path, JsonReader::describe(v) + " is out of range");
    }
    return neg ? -value : value;
  }
  r.fail(path, "expected an integer, got " + JsonReader::describe(v));
}

Dim3 parse_dim3(const JsonReader& r, const Json& v, const std::string& path) {
  Dim3 d;
  uint32_t* slots[3] = {&d.x, &d.y, &d.z};
  auto one = [&](const Json& e, const std::string& p, uint32_t* slot) {
    uint64_t n = r.get_uint(e, p, UINT32_MAX);
    if (n == 0) r.fail(p, "must be at least 1");
    *slot = uint32_t(n);
  };
  if (v.is_number() || v.is_string()) {
    one(v, path, slots[0]);
    return d;
  }
  r.expect_array(v, path);
  if (v.empty() || v.size() > 3)
    r.fail(path, "expected 1 to 3 elements [x, y, z], got " + std::to_string(v.size()));
  for (size_t i = 0; i < v.size(); ++i) one(v[i], JsonReader::index(path, i), slots[i]);
  return d;
}

bool valid_buffer_name(const std::string& n) {
  if (n.empty() || !(std::isalpha((unsigned char)n[0]) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

DType parse_dtype_at(const JsonReader& r, const Json& v, const std::string& path) {
  const std::string& s = r.get_string(v, path);
  auto t = parse_dtype(s);
  if (!t) r.fail(path, "unknown dtype '" + s + "' (expected one of " + dtype_list() + ")");
  return *t;
}

void check_multiple(const JsonReader& r, const BufferSpec& b, DType t, const std::string& path) {
  if (b.bytes % dtype_size(t))
    r.fail(path, "buffer '" + b.name + "' is " + std::to_string(b.bytes) +
                     " bytes, not a multiple of the " + dtype_name(t) + " element size (" +
                     std::to_string(dtype_size(t)) + ")");
}

void parse_random(const JsonReader& r, const Json& v, const std::string& path, BufferSpec& b) {
  BufferInit& init = b.init;
  r.expect_object(v, path);
  r.check_keys(v, path, {"seed", "dtype", "min", "max", "comment"});
  if (!v.contains("dtype")) r.fail(path, "missing \"dtype\" (one of " + dtype_list() + ")");
  init.dtype = parse_dtype_at(r, v.at("dtype"), JsonReader::key(path, "dtype"));
  check_multiple(r, b, init.dtype, JsonReader::key(path, "dtype"));
  if (v.contains("seed")) init.seed = r.get_uint(v.at("seed"), JsonReader::key(path, "seed"));
  std::string min_path = JsonReader::key(path, "min"), max_path = JsonReader::key(path, "max");
  if (dtype_is_float(init.dtype)) {
    double limit = dtype_float_max(init.dtype);
    auto bound = [&](const char* k, double dflt) {
      if (!v.contains(k)) return dflt;
      std::string p = JsonReader::key(path, k);
      double d = r.get_double(v.at(k), p);
      if (!std::isfinite(d)) r.fail(p, "must be finite");
      if (std::fabs(d) > limit)
        r.fail(p, JsonReader::describe(v.at(k)) + " is out of range for " + dtype_name(init.dtype));
      return d;
    };
    init.float_min = bound("min", 0.0);
    init.float_max = bound("max", 1.0);
    if (init.float_min > init.float_max) r.fail(path, "min is greater than max");
  } else {
    size_t bits = 8 * dtype_size(init.dtype);
    if (dtype_is_signed(init.dtype)) {
      int64_t hi = int64_t((uint64_t(1) << (bits - 1)) - 1);
      int64_t lo = -hi - 1, mn = lo, mx = hi;
      if (v.contains("min")) mn = r.get_int(v.at("min"), min_path, lo, hi);
      if (v.contains("max")) mx = r.get_int(v.at("max"), max_path, lo, hi);
      if (mn > mx) r.fail(path, "min is greater than max");
      init.int_min = uint64_t(mn);
      init.int_max = uint64_t(mx);
    } else {
      uint64_t hi = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1, mn = 0, mx = hi;
      if (v.contains("min")) mn = r.get_uint(v.at("min"), min_path, hi);
      if (v.contains("max")) mx = r.get_uint(v.at("max"), max_path, hi);
      if (mn > mx) r.fail(path, "min is greater than max");
      init.int_min = mn;
      init.int_max = mx;
    }
  }
}

void parse_init(const JsonReader& r, const Json& v, const std::string& path,
                const std::filesystem::path& dir, BufferSpec& b) {
  const char* kInits = "\"zero\", {\"file\": ...}, {\"fill_u8\": ...}, {\"iota\": ...} or {\"random\": {...}}";
  if (v.is_string()) {
    if (v.get_ref<const std::string&>() == "zero") return;
    r.fail(path, "unknown init " + JsonReader::describe(v) + " (expected " + kInits + ")");
  }
  if (!v.is_object()) r.fail(path, "expected " + std::string(kInits) + ", got " + JsonReader::describe(v));
  r.check_keys(v, path, {"file", "fill_u8", "iota", "random", "comment"});
  std::vector<std::string> given;
  for (const auto& item : v.items())
    if (item.key() != "comment") given.push_back(item.key());
  if (given.size() != 1)
    r.fail(path, given.empty() ? "empty init object (expected " + std::string(kInits) + ")"
                               : "give exactly one initialiser, not " + join(given));
  const std::string& k = given[0];
  std::string p = JsonReader::key(path, k);
  const Json& arg = v.at(k);
  BufferInit& init = b.init;
  if (k == "file") {
    const std::string& name = r.get_string(arg, p);
    if (name.empty()) r.fail(p, "empty file name");
    init.kind = BufferInit::Kind::File;
    init.file = dir / name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(init.file, ec))
      r.fail(p, "'" + init.file.string() + "' is not a readable file" +
                    (ec ? " (" + ec.message() + ")" : ""));
    uint64_t size = std::filesystem::file_size(init.file, ec);
    if (ec) r.fail(p, "cannot read '" + init.file.string() + "': " + ec.message());
    if (size > b.bytes)
      r.fail(p, "'" + init.file.string() + "' is " + std::to_string(size) +
                    " bytes, larger than buffer '" + b.name + "' (" + std::to_string(b.bytes) +
                    " bytes)");
  } else if (k == "fill_u8") {
    init.kind = BufferInit::Kind::FillU8;
    init.fill = uint8_t(r.get_uint(arg, p, 255));
  } else if (k == "iota") {
    init.kind = BufferInit::Kind::Iota;
    init.dtype = parse_dtype_at(r, arg, p);
    check_multiple(r, b, init.dtype, p);
  } else {
    init.kind = BufferInit::Kind::Random;
    parse_random(r, arg, p, b);
  }
}

std::string read_text(const std::filesystem::path& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return {};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) error = "read error";
  return ss.str();
}

}  // namespace

// ---- JsonReader -------------------------------------------------------------------------------

CaseError::CaseError(std::string f, std::string p, std::string m)
    : std::runtime_error(f + ": " + (p.empty() ? "" : p + ": ") + m),
      file(std::move(f)),
      json_path(std::move(p)),
      message(std::move(m)) {}

void JsonReader::fail(const std::string& path, const std::string& message) const {
  throw CaseError(file_, path, message);
}

uint64_t JsonReader::get_uint(const Json& v, const std::string& path, uint64_t max) const {
  Int x = read_integer(*this, v, path);
  if (x < 0 || x > Int(max))
    fail(path, to_string(x) + " is out of range [0, " + std::to_string(max) + "]");
  return uint64_t(x);
}

int64_t JsonReader::get_int(const Json& v, const std::string& path, int64_t min, int64_t max) const {
  Int x = read_integer(*this, v, path);
  if (x < Int(min) || x > Int(max))
    fail(path, to_string(x) + " is out of range [" + std::to_string(min) + ", " +
                   std::to_string(max) + "]");
  return int64_t(x);
}

double JsonReader::get_double(const Json& v, const std::string& path) const {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan" || s == "+nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "-nan") return -std::numeric_limits<double>::quiet_NaN();
    if (s == "inf" || s == "+inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  fail(path, "expected a number (or \"nan\", \"inf\", \"-inf\"), got " + describe(v));
}

const std::string& JsonReader::get_string(const Json& v, const std::string& path) const {
  if (!v.is_string()) fail(path, "expected a string, got " + describe(v));
  return v.get_ref<const std::string&>();
}

void JsonReader::expect_object(const Json& v, const std::string& path) const {
  if (!v.is_object()) fail(path, "expected an object, got " + describe(v));
}

void JsonReader::expect_array(const Json& v, const std::string& path) const {
  if (!v.is_array()) fail(path, "expected an array, got " + describe(v));
}

void JsonReader::check_keys(const Json& v, const std::string& path,
                            std::initializer_list<std::string_view> allowed) const {
  check_keys(v, path, std::vector<std::string_view>(allowed));
}

void JsonReader::check_keys(const Json& v, const std::string& path,
                            const std::vector<std::string_view>& allowed) const {
  for (const auto& item : v.items()) {
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || a == item.key();
    if (ok) continue;
    std::string list;
    for (std::string_view a : allowed)
      if (a != "comment") list += (list.empty() ? "" : ", ") + std::string(a);
    fail(key(path, item.key()), "unknown key (expected one of: " + list + ")");
  }
}

std::string JsonReader::key(const std::string& path, std::string_view k) {
  return path.empty() ? std::string(k) : path + "." + std::string(k);
}

std::string JsonReader::index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string JsonReader::describe(const Json& v) {
  if (v.is_string()) {
    std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (s.size() > 42) s = s.substr(0, 38) + "...\"";
    return "string " + s;
  }
  if (v.is_number()) return "number " + v.dump();
  if (v.is_boolean()) return std::string("boolean ") + (v.get<bool>() ? "true" : "false");
  if (v.is_null()) return "null";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return v.type_name();
}

// ---- Case -------------------------------------------------------------------------------------

const BufferSpec* Case::find_buffer(std::string_view name) const {
  for (const BufferSpec& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

const std::vector<std::string_view>& known_case_keys() {
  static const std::vector<std::string_view> keys = {
      "ptx",     "kernel", "grid",    "block",   "cluster",    "dynamic_shared_bytes",
      "buffers", "params", "outputs", "comment", "description",
      "expect",  // conformance corpus: the outcome on hardware, "completed" (default) or "hang"
  };
  return keys;
}

Case parse_case(const Json& doc, const std::string& file, const std::filesystem::path& dir) {
  JsonReader r(file);
  if (!doc.is_object()) r.fail("", "a case must be a JSON object, got " + JsonReader::describe(doc));
  r.check_keys(doc, "", known_case_keys());
  Case c;
  c.file = file;
  c.dir = dir;
  c.json = doc;

  if (!doc.contains("ptx")) r.fail("ptx", "missing (the PTX file, relative to the case file)");
  const std::string& ptx = r.get_string(doc.at("ptx"), "ptx");
  if (ptx.empty()) r.fail("ptx", "empty file name");
  c.ptx_path = dir / ptx;

  if (doc.contains("kernel")) {
    c.kernel = r.get_string(doc.at("kernel"), "kernel");
    if (c.kernel.empty()) r.fail("kernel", "empty kernel name");
  }
  for (const char* k : {"grid", "block"})
    if (!doc.contains(k)) r.fail(k, "missing (1 to 3 dimensions, e.g. [4, 1, 1])");
  c.grid = parse_dim3(r, doc.at("grid"), "grid");
  c.block = parse_dim3(r, doc.at("block"), "block");
  if (doc.contains("cluster")) {
    c.cluster = parse_dim3(r, doc.at("cluster"), "cluster");
    c.cluster_given = true;
  }
  if (doc.contains("dynamic_shared_bytes"))
    c.dynamic_shared_bytes =
        uint32_t(r.get_uint(doc.at("dynamic_shared_bytes"), "dynamic_shared_bytes", UINT32_MAX));

  if (doc.contains("buffers")) {
    const Json& bufs = doc.at("buffers");
    r.expect_object(bufs, "buffers");
    for (const auto& item : bufs.items()) {
      std::string path = JsonReader::key("buffers", item.key());
      BufferSpec b;
      b.name = item.key();
      if (!valid_buffer_name(b.name))
        r.fail(path, "invalid buffer name '" + b.name +
                         "' (letters, digits, '_', '.', '-'; starting with a letter or '_')");
      if (c.find_buffer(b.name)) r.fail(path, "duplicate buffer '" + b.name + "'");
      const Json& v = item.value();
      r.expect_object(v, path);
      r.check_keys(v, path, {"bytes", "init", "comment"});
      if (!v.contains("bytes")) r.fail(path, "missing \"bytes\" (the buffer's size)");
      b.bytes = r.get_uint(v.at("bytes"), JsonReader::key(path, "bytes"));
      if (v.contains("init")) parse_init(r, v.at("init"), JsonReader::key(path, "init"), dir, b);
      c.buffers.push_back(std::move(b));
    }
  }

  if (doc.contains("params")) {
    const Json& params = doc.at("params");
    r.expect_array(params, "params");
    ParamParseContext ctx{r, c.buffers};
    for (size_t i = 0; i < params.size(); ++i)
      c.params.push_back(parse_param(params[i], JsonReader::index("params", i), ctx));
  }

  if (doc.contains("outputs")) {
    const Json& outs = doc.at("outputs");
    r.expect_array(outs, "outputs");
    for (size_t i = 0; i < outs.size(); ++i) {
      std::string path = JsonReader::index("outputs", i);
      const std::string& name = r.get_string(outs[i], path);
      if (!c.find_buffer(name)) {
        std::vector<std::string> names;
        for (const BufferSpec& b : c.buffers) names.push_back(b.name);
        r.fail(path, "unknown buffer '" + name + "' (" +
                         (names.empty() ? std::string("the case has no buffers")
                                        : "buffers: " + join(names)) +
                         ")");
      }
      for (const std::string& o : c.outputs)
        if (o == name) r.fail(path, "buffer '" + name + "' is listed twice");
      c.outputs.push_back(name);
    }
  }
  return c;
}

Case load_case(const std::filesystem::path& file) {
  std::string name = file.string();
  std::string error;
  std::string text = read_text(file, error);
  if (!error.empty()) throw CaseError(name, "", "cannot read case file: " + error);
  Json doc;
  try {
    doc = Json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    std::string msg = e.what();
    if (size_t p = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && p != std::string::npos)
      msg = msg.substr(p + 2);
    throw CaseError(name, "", "invalid JSON: " + msg);
  }
  Case c = parse_case(doc, name, file.parent_path());
  c.ptx_text = read_text(c.ptx_path, error);
  if (!error.empty())
    throw CaseError(name, "ptx", "cannot read '" + c.ptx_path.string() + "': " + error);
  return c;
}

std::shared_ptr<const Program> load_case_program(const Case& c) {
  return load_program(c.ptx_text, c.ptx_path.string());
}

const KernelInfo& resolve_kernel(const Case& c, const std::vector<KernelInfo>& kernels) {
  JsonReader r(c.file);
  std::vector<std::string> names;
  for (const KernelInfo& k : kernels) names.push_back(k.name);
  std::string ptx = "'" + c.ptx_path.string() + "'";
  if (kernels.empty()) r.fail("ptx", ptx + " has no .entry kernel");
  if (c.kernel.empty()) {
    if (kernels.size() == 1) return kernels[0];
    r.fail("kernel", "not given, and " + ptx + " has " + std::to_string(kernels.size()) +
                         " entries (" + join(names) + "); name one");
  }
  for (const KernelInfo& k : kernels)
    if (k.name == c.kernel) return k;
  r.fail("kernel", "no entry '" + c.kernel + "' in " + ptx + " (entries: " + join(names) + ")");
}

// ---- PreparedRun ------------------------------------------------------------------------------

PreparedRun::PreparedRun(const Case& c, const Program& program)
    : PreparedRun(c, ptxsim::kernels(program)) {}

PreparedRun::PreparedRun(const Case& c, const std::vector<KernelInfo>& kernels) : case_(&c) {
  JsonReader r(c.file);
  kernel = resolve_kernel(c, kernels);
  config.grid = c.grid;
  config.block = c.block;
  config.cluster = c.cluster;
  config.cluster_given = c.cluster_given;
  config.dynamic_shared_bytes = c.dynamic_shared_bytes;

  for (const BufferSpec& b : c.buffers) {
    std::string path = JsonReader::key("buffers", b.name);
    uint64_t addr = 0;
    try {
      if (b.bytes > std::numeric_limits<size_t>::max() / 2) throw std::bad_alloc();
      addr = memory.allocate(size_t(b.bytes), 256, b.name);
    } catch (const std::bad_alloc&) {
      r.fail(JsonReader::key(path, "bytes"), "cannot allocate " + std::to_string(b.bytes) + " bytes");
    } catch (const std::length_error&) {
      r.fail(JsonReader::key(path, "bytes"), "cannot allocate " + std::to_string(b.bytes) + " bytes");
    }
    addresses[b.name] = addr;
    if (b.bytes == 0) continue;
    try {
      apply_init(b.init, memory.translate(addr, size_t(b.bytes)), size_t(b.bytes));
    } catch (const std::runtime_error& e) {
      std::string ipath = JsonReader::key(path, "init");
      if (b.init.kind == BufferInit::Kind::File) ipath = JsonReader::key(ipath, "file");
      r.fail(ipath, e.what());
    }
  }
  params = build_params(c.params, kernel, ParamEncodeContext{r, addresses, &memory});
}

RunResult PreparedRun::launch(const Program& program, std::ostream* printf_out) {
  return ptxsim::launch(program, kernel.name, config, params, memory, printf_out);
}

uint64_t PreparedRun::address_of(std::string_view buffer) const {
  auto it = addresses.find(std::string(buffer));
  return it == addresses.end() ? 0 : it->second;
}

std::span<const uint8_t> PreparedRun::contents(std::string_view buffer) const {
  const BufferSpec* b = case_->find_buffer(buffer);
  if (!b || b->bytes == 0) return {};
  const model::GlobalMemory::Allocation* a = memory.find(address_of(buffer));
  if (!a) return {};
  return {a->bytes.data(), a->bytes.size()};
}

}  // namespace ptxsim::cli
