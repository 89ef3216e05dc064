// y[i] = a * x[i] + y[i]: the example case of the README (examples/saxpy/case.json).
// Regenerate the PTX with: nvcc -arch=sm_90a -ptx -O3 saxpy.cu -o saxpy.ptx
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
