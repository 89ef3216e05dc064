// Allocations as large as the device: cudaMalloc reserves, the host backs only the pages a program
// touches. Beyond the device's free memory cudaMalloc returns cudaErrorMemoryAllocation (a sticky-free
// error), never an abort.
#include <cuda_runtime.h>

#include <cstring>
#include <fstream>
#include <string>

#include "check.h"

__global__ void touch(unsigned* p, size_t n, unsigned v) {
  p[0] = v;
  p[n - 1] = v + 1;
  p[n / 2] = v + 2;
}

// Resident memory of this process in KiB (Linux).
static long resident_kib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  size_t free_bytes = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t big = size_t(70) << 30;  // 70 GiB: more than this host has, less than the device
  EXPECT(total > big);
  const long rss0 = resident_kib();

  unsigned* p = nullptr;
  CHECK(cudaMalloc(&p, big));
  const size_t n = big / sizeof(unsigned);
  const unsigned v = unsigned(rng());
  touch<<<1, 1>>>(p, n, v);
  CHECK(cudaGetLastError());
  unsigned got[3];
  CHECK(cudaMemcpy(&got[0], p, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&got[1], p + n - 1, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&got[2], p + n / 2, 4, cudaMemcpyDeviceToHost));
  EXPECT(got[0] == v && got[1] == v + 1 && got[2] == v + 2);
  unsigned untouched = 1;
  CHECK(cudaMemcpy(&untouched, p + n / 4, 4, cudaMemcpyDeviceToHost));
  EXPECT(untouched == 0);
  if (rss0 >= 0) EXPECT(resident_kib() - rss0 < 512 * 1024);  // touched a few pages, not 70 GiB

  // More than is left, and more than any device has.
  void* q = nullptr;
  EXPECT(cudaMalloc(&q, total - big + (size_t(1) << 30)) == cudaErrorMemoryAllocation);
  EXPECT(cudaMalloc(&q, size_t(1) << 40) == cudaErrorMemoryAllocation);
  EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation);
  EXPECT(cudaGetLastError() == cudaSuccess);  // not sticky

  // Freeing gives the room back.
  CHECK(cudaFree(p));
  CHECK(cudaMalloc(&q, total - big + (size_t(1) << 30)));
  CHECK(cudaFree(q));
  std::printf("big_malloc: PASS\n");
  return 0;
}
