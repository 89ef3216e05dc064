#include "verifiers/tma/request.h"

namespace ptxsim::verifiers::tma::req {

namespace {

std::string quoted(const char* key) { return std::string("request key \"") + key + "\""; }

const char* type_name(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

int64_t as_int(const json& v, const std::string& what) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) throw RequestError(what + " is out of range");
    return static_cast<int64_t>(u);
  }
  if (v.is_string()) {  // "0x80" style hex, for addresses
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      size_t used = 0;
      try {
        uint64_t u = std::stoull(s, &used, 16);
        if (used == s.size() && u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(u);
      } catch (const std::exception&) {
      }
    }
  }
  throw RequestError(what + " must be an integer, got " + type_name(v) +
                     (v.is_number() || v.is_string() ? " " + v.dump() : ""));
}

}  // namespace

void only_keys(const json& r, std::initializer_list<const char*> allowed) {
  if (!r.is_object()) throw RequestError("the request must be a JSON object");
  for (const auto& [key, value] : r.items()) {
    if (key == "verifier" || key == "comment" || key == "description" || (!key.empty() && key[0] == '_'))
      continue;
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      throw RequestError("unknown request key \"" + key + "\" (this verifier takes: " + list + ")");
    }
  }
}

const json* find(const json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string get_string(const json& r, const char* key) {
  auto v = opt_string(r, key);
  if (!v) throw RequestError(quoted(key) + " is missing");
  return *v;
}

std::optional<std::string> opt_string(const json& r, const char* key) {
  const json* v = find(r, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) throw RequestError(quoted(key) + " must be a string, got " + type_name(*v));
  return v->get<std::string>();
}

int64_t get_int(const json& r, const char* key) {
  auto v = opt_int(r, key);
  if (!v) throw RequestError(quoted(key) + " is missing");
  return *v;
}

std::optional<int64_t> opt_int(const json& r, const char* key) {
  const json* v = find(r, key);
  if (!v) return std::nullopt;
  return as_int(*v, quoted(key));
}

bool opt_bool(const json& r, const char* key, bool fallback) {
  const json* v = find(r, key);
  if (!v) return fallback;
  if (!v->is_boolean()) throw RequestError(quoted(key) + " must be true or false, got " + type_name(*v));
  return v->get<bool>();
}

std::vector<int64_t> int_array(const json& r, const char* key) {
  auto v = opt_int_array(r, key);
  if (!v) throw RequestError(quoted(key) + " is missing");
  return *v;
}

std::optional<std::vector<int64_t>> opt_int_array(const json& r, const char* key) {
  const json* v = find(r, key);
  if (!v) return std::nullopt;
  if (!v->is_array()) throw RequestError(quoted(key) + " must be an array of integers, got " + type_name(*v));
  std::vector<int64_t> out;
  for (size_t i = 0; i < v->size(); ++i)
    out.push_back(as_int((*v)[i], quoted(key) + " element " + std::to_string(i)));
  return out;
}

layout::CuteValue parse_cute_for(const char* key, const std::string& text) {
  try {
    return layout::parse_cute(text);
  } catch (const layout::ParseError& e) {
    throw RequestError(std::string(key) + ": cannot parse '" + text + "': " + e.what() + " at column " +
                       std::to_string(e.column + 1));
  }
}

layout::CuteValue get_cute(const json& r, const char* key) { return parse_cute_for(key, get_string(r, key)); }

}  // namespace ptxsim::verifiers::tma::req
