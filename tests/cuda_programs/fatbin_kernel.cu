// Compiled by nvcc -fatbin into a stand-alone fat binary that driver_api.cu loads with cuModuleLoad.
extern "C" __global__ void add_one(unsigned* p, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
