// Reading verifier requests: typed getters over the request JSON that throw RequestError with a
// message naming the key (`ptxsim verify` prefixes the verifier's name), and the PTX target
// string ("sm_100a") as a value.
// Shared by the tcgen05 and ldstmatrix verifiers.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "verifiers/verifier.h"

namespace ptxsim::verifiers::req {

using json = nlohmann::json;

// Throws RequestError unless `r` is an object whose keys are all in `allowed`, "verifier",
// "comment", "description" or start with '_' (the conventions of docs/verifiers.md).
void check_keys(const json& r, std::initializer_list<const char*> allowed);

// A key that is absent or null reads as the default; a present key of the wrong type throws.
bool get_bool(const json& r, const char* key, bool def);
int64_t get_int(const json& r, const char* key);  // required
std::optional<int64_t> get_opt_int(const json& r, const char* key);
std::string get_string(const json& r, const char* key);  // required
std::optional<std::string> get_opt_string(const json& r, const char* key);
// The index of the key's string value in `choices`; throws when it is none of them.
size_t get_choice(const json& r, const char* key, std::initializer_list<const char*> choices);

[[noreturn]] void fail(const std::string& message);  // throws RequestError

// A PTX target such as "sm_100a": the SM number and the suffix ('a' arch-specific, 'f'
// family-specific, 0 for none).
struct Target {
  int sm = 0;
  char suffix = 0;
  std::string text;
};
std::optional<Target> parse_target(std::string_view text);
Target get_target(const json& r, const char* key, const char* def);

// The seeds' "arch-conditional or family-conditional variants from SM100 onwards": sm_100 or later
// with an 'a' or 'f' suffix.
bool is_conditional_sm100_plus(const Target& t);

// "0xc1": lowercase hex, at least two digits.
std::string hex(uint64_t v, int min_digits = 2);

}  // namespace ptxsim::verifiers::req
