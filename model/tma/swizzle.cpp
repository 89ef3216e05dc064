#include "model/tma/swizzle.h"

namespace ptxsim::model::tma {

SwizzleInfo swizzle_info(Swizzle s) {
  switch (s) {
    case Swizzle::kNone: return {0, 0, 0, 16};
    case Swizzle::k32B: return {32, 16, 256, 16};
    case Swizzle::k64B: return {64, 16, 512, 16};
    case Swizzle::k128B: return {128, 16, 1024, 16};
    case Swizzle::k128BAtom32B: return {128, 32, 512, 32};
    case Swizzle::k128BAtom32BFlip8B: return {128, 8, 512, 32};
    case Swizzle::k128BAtom64B: return {128, 64, 256, 64};
  }
  return {0, 0, 0, 16};
}

}  // namespace ptxsim::model::tma
