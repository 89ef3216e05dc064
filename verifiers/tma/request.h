// Typed access to a verifier request (a JSON object). Every accessor throws RequestError with a
// message naming the key when the key is missing (for required keys) or has the wrong type.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "verifiers/layout/layout.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers::tma::req {

using nlohmann::json;

// Throws unless every key of the request is "verifier", a comment key ("comment", "_comment",
// "description", or any key starting with '_') or one of `allowed`.
void only_keys(const json& r, std::initializer_list<const char*> allowed);

// nullptr when the key is absent or null.
const json* find(const json& r, const char* key);

std::string get_string(const json& r, const char* key);
std::optional<std::string> opt_string(const json& r, const char* key);
int64_t get_int(const json& r, const char* key);
std::optional<int64_t> opt_int(const json& r, const char* key);
bool opt_bool(const json& r, const char* key, bool fallback);
std::vector<int64_t> int_array(const json& r, const char* key);  // required
std::optional<std::vector<int64_t>> opt_int_array(const json& r, const char* key);

// A layout-notation string parsed with layout::parse_cute; a ParseError becomes a RequestError
// "KEY: cannot parse 'TEXT': WHAT at column N".
layout::CuteValue get_cute(const json& r, const char* key);
layout::CuteValue parse_cute_for(const char* key, const std::string& text);

}  // namespace ptxsim::verifiers::tma::req
