// Vector add with device printf, a __constant__ and a __device__ variable, streams, events,
// device properties and function attributes: the calls an ordinary CUDA program makes.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"

__constant__ float scale[1];
__device__ unsigned launches;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + scale[0] * b[i];
  if (i == 0) {
    printf("hello from thread %d of %d blocks\n", i, gridDim.x);
    atomicAdd(&launches, 1u);
  }
}

int main(int argc, char** argv) {
  std::mt19937 rng(test_seed(argc, argv));
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = dist(rng), b[i] = dist(rng);
  const float s = dist(rng);

  int count = 0, version = 0;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count == 1);
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // H100/H200 (9.0, 132 SMs) or B200 (10.0, 148 SMs), whichever `ptxsim exec --device` simulates.
  EXPECT(((prop.major == 9 && prop.multiProcessorCount == 132) || (prop.major == 10 && prop.multiProcessorCount == 148)) &&
         prop.minor == 0 && prop.warpSize == 32);
  EXPECT(prop.sharedMemPerBlockOptin == 232448 && prop.clusterLaunch == 1);
  CHECK(cudaDriverGetVersion(&version));
  EXPECT(version >= 13000);  // CUDA 13 (an H200 with driver 580 reports 13000; ptxsim 13010)
  std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaMemcpyAsync(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpyAsync(db, b.data(), n * sizeof(float), cudaMemcpyDefault, stream));
  CHECK(cudaMemsetAsync(dc, 0xff, n * sizeof(float), stream));  // poison: NaN everywhere
  CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s));

  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, vector_add));
  EXPECT(attr.maxThreadsPerBlock == 1024);
  int blocks_per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, vector_add, 256, 0));
  EXPECT(blocks_per_sm >= 1 && blocks_per_sm <= 32);

  CHECK(cudaEventRecord(start, stream));
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(da, db, dc, n);
  int host_calls = 0;
  CHECK(cudaLaunchHostFunc(stream, [](void* p) { ++*static_cast<int*>(p); }, &host_calls));
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms > 0);
  EXPECT(host_calls == 1);

  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned launched = 0;
  CHECK(cudaMemcpyFromSymbol(&launched, launches, sizeof launched));
  EXPECT(launched == 2);
  for (int i = 0; i < n; ++i) {
    float want = std::fma(s, b[i], a[i]);  // nvcc contracts a + s * b into one fma.rn.f32
    if (std::memcmp(&c[i], &want, 4) != 0) {
      std::fprintf(stderr, "c[%d] = %g, want %g\n", i, c[i], want);
      return 1;
    }
  }
  // A copy from a pointer that is no device allocation is an invalid value, not a crash.
  EXPECT(cudaMemcpy(c.data(), da + 4 * n, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaSuccess);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  std::printf("vector_add: PASS\n");
  return 0;
}
