// Shared by the tensor-core tests that run one GoogleTest case per model row (tensorcore_numerics,
// tile_prop, block_scaled): the rows as test parameters, printed and named by their ids so the
// ctest names stay stable (not pointer values).
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "model/tensorcore/block_scaled.h"
#include "model/tensorcore/tensorcore.h"

namespace ptxsim::model::tc {

inline void PrintTo(const DotModel* m, std::ostream* os) { *os << m->id; }
inline void PrintTo(const BlockScaledModel* m, std::ostream* os) { *os << m->id; }

namespace test {

inline std::vector<const DotModel*> dot_rows() {
  std::vector<const DotModel*> v;
  for (const DotModel& m : all_models()) v.push_back(&m);
  return v;
}

inline std::vector<const BlockScaledModel*> block_scaled_rows() {
  std::vector<const BlockScaledModel*> v;
  for (const BlockScaledModel& m : all_block_scaled_models()) v.push_back(&m);
  return v;
}

// A row id as a GoogleTest name: "sm90.wgmma.f16.f32" -> "sm90_wgmma_f16_f32".
template <class Row>
std::string row_name(const ::testing::TestParamInfo<const Row*>& info) {
  std::string s = info.param->id;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

}  // namespace test
}  // namespace ptxsim::model::tc
