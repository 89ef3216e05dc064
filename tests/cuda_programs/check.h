// Shared by the test programs: fail loudly with the CUDA error's name and the failing line.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <random>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorName(e_), cudaGetErrorString(e_));                                \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

#define EXPECT(cond)                                                                             \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                  \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

// A fresh seed per run (printed, so that a failure can be replayed with the seed as argv[1]).
inline unsigned test_seed(int argc, char** argv) {
  unsigned seed = argc > 1 ? unsigned(std::strtoul(argv[1], nullptr, 0)) : unsigned(std::random_device{}());
  std::printf("seed %u\n", seed);
  return seed;
}
