#include "verifiers/tcgen05/request.h"

#include <cstdio>

namespace ptxsim::verifiers::req {

void fail(const std::string& message) { throw RequestError(message); }

void check_keys(const json& r, std::initializer_list<const char*> allowed) {
  if (!r.is_object()) fail("the request must be a JSON object");
  for (const auto& item : r.items()) {
    const std::string& k = item.key();
    if (k == "verifier" || k == "comment" || k == "description" || (!k.empty() && k[0] == '_')) continue;
    bool known = false;
    for (const char* a : allowed) known = known || k == a;
    if (!known) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      fail("unknown key \"" + k + "\" (known keys: " + list + ")");
    }
  }
}

static const json* find(const json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end() || it->is_null()) return nullptr;
  return &*it;
}

bool get_bool(const json& r, const char* key, bool def) {
  const json* v = find(r, key);
  if (!v) return def;
  if (!v->is_boolean()) fail(std::string("key \"") + key + "\" must be true or false");
  return v->get<bool>();
}

std::optional<int64_t> get_opt_int(const json& r, const char* key) {
  const json* v = find(r, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) fail(std::string("key \"") + key + "\" must be an integer");
  return v->get<int64_t>();
}

int64_t get_int(const json& r, const char* key) {
  auto v = get_opt_int(r, key);
  if (!v) fail(std::string("missing key \"") + key + "\"");
  return *v;
}

std::optional<std::string> get_opt_string(const json& r, const char* key) {
  const json* v = find(r, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) fail(std::string("key \"") + key + "\" must be a string");
  return v->get<std::string>();
}

std::string get_string(const json& r, const char* key) {
  auto v = get_opt_string(r, key);
  if (!v) fail(std::string("missing key \"") + key + "\"");
  return *v;
}

size_t get_choice(const json& r, const char* key, std::initializer_list<const char*> choices) {
  std::string s = get_string(r, key);
  size_t i = 0;
  for (const char* c : choices) {
    if (s == c) return i;
    ++i;
  }
  std::string list;
  for (const char* c : choices) list += std::string(list.empty() ? "" : ", ") + c;
  fail(std::string("key \"") + key + "\" must be one of " + list + ", got \"" + s + "\"");
}

std::optional<Target> parse_target(std::string_view text) {
  if (text.substr(0, 3) != "sm_") return std::nullopt;
  size_t i = 3;
  int sm = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9' && sm < 100000) sm = sm * 10 + (text[i++] - '0');
  if (i == 3) return std::nullopt;
  char suffix = 0;
  if (i < text.size() && (text[i] == 'a' || text[i] == 'f')) suffix = text[i++];
  if (i != text.size()) return std::nullopt;
  return Target{sm, suffix, std::string(text)};
}

Target get_target(const json& r, const char* key, const char* def) {
  auto s = get_opt_string(r, key);
  std::string text = s ? *s : std::string(def);
  auto t = parse_target(text);
  if (!t) fail(std::string("key \"") + key + "\" must be a PTX target such as \"sm_100a\", got \"" + text + "\"");
  return *t;
}

bool is_conditional_sm100_plus(const Target& t) { return t.sm >= 100 && (t.suffix == 'a' || t.suffix == 'f'); }

std::string hex(uint64_t v, int min_digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", min_digits, static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace ptxsim::verifiers::req
