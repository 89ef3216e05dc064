#include "sim/isa/types.h"

#include <array>

namespace ptxsim {

namespace {
struct TypeInfo {
  std::string_view name;
  uint32_t bits;
};
constexpr std::array<TypeInfo, size_t(DType::Count)> kTypes = {{
#define X(e, s, b) {s, b},
    PTXSIM_DTYPES(X)
#undef X
}};
}  // namespace

uint32_t dtype_bits(DType t) { return kTypes[size_t(t)].bits; }
std::string_view dtype_name(DType t) { return kTypes[size_t(t)].name; }

DType dtype_from_name(std::string_view s) {
  for (size_t i = 1; i < kTypes.size(); ++i)
    if (kTypes[i].name == s) return DType(i);
  return DType::None;
}

}  // namespace ptxsim
