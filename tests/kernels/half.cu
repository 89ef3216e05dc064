// f16 and bf16 math: paired conversions from float, __half2 / __nv_bfloat162 add, sub, mul and fma,
// scalar conversions in the four rounding modes, and the widening conversions back to float.
// Each arithmetic result is computed straight from the converted inputs (never a product fed into
// a sum), so no mul+add contraction can change what is computed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Inputs: a, b, c hold 2n floats each. Outputs (n pairs each, stored as 32-bit words):
//   h_cvt[i]  = __floats2half2_rn(a[2i], a[2i+1])
//   h_add[i]  = __hadd2(ha, hb)      h_sub[i] = __hsub2(ha, hb)
//   h_mul[i]  = __hmul2(ha, hb)      h_fma[i] = __hfma2(ha, hb, hc)
//   h_back[2i], h_back[2i+1] = __low2float(h_fma), __high2float(h_fma)
extern "C" __global__ void half2_math(const float* __restrict__ a, const float* __restrict__ b,
                                      const float* __restrict__ c, __half2* __restrict__ h_cvt,
                                      __half2* __restrict__ h_add, __half2* __restrict__ h_sub,
                                      __half2* __restrict__ h_mul, __half2* __restrict__ h_fma,
                                      float* __restrict__ h_back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 ha = __floats2half2_rn(a[2 * i], a[2 * i + 1]);
  __half2 hb = __floats2half2_rn(b[2 * i], b[2 * i + 1]);
  __half2 hc = __floats2half2_rn(c[2 * i], c[2 * i + 1]);
  h_cvt[i] = ha;
  h_add[i] = __hadd2(ha, hb);
  h_sub[i] = __hsub2(ha, hb);
  h_mul[i] = __hmul2(ha, hb);
  __half2 f = __hfma2(ha, hb, hc);
  h_fma[i] = f;
  h_back[2 * i] = __low2float(f);
  h_back[2 * i + 1] = __high2float(f);
}

// The same for bf16 pairs, converted with __float22bfloat162_rn.
extern "C" __global__ void bf162_math(const float* __restrict__ a, const float* __restrict__ b,
                                      const float* __restrict__ c, __nv_bfloat162* __restrict__ b_cvt,
                                      __nv_bfloat162* __restrict__ b_add, __nv_bfloat162* __restrict__ b_sub,
                                      __nv_bfloat162* __restrict__ b_mul, __nv_bfloat162* __restrict__ b_fma,
                                      float* __restrict__ b_back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat162 ba = __float22bfloat162_rn(make_float2(a[2 * i], a[2 * i + 1]));
  __nv_bfloat162 bb = __float22bfloat162_rn(make_float2(b[2 * i], b[2 * i + 1]));
  __nv_bfloat162 bc = __float22bfloat162_rn(make_float2(c[2 * i], c[2 * i + 1]));
  b_cvt[i] = ba;
  b_add[i] = __hadd2(ba, bb);
  b_sub[i] = __hsub2(ba, bb);
  b_mul[i] = __hmul2(ba, bb);
  __nv_bfloat162 f = __hfma2(ba, bb, bc);
  b_fma[i] = f;
  b_back[2 * i] = __low2float(f);
  b_back[2 * i + 1] = __high2float(f);
}

// Scalar conversions of x[i]: out[5*i + k] for k = 0..4 holds (in the low 16 bits)
//   __float2half_rn, __float2half_rz, __float2half_rd, __float2half_ru, __float2bfloat16_rn;
// back[2*i] = __half2float(__float2half_rn(x)), back[2*i+1] = __bfloat162float(__float2bfloat16_rn(x)).
extern "C" __global__ void scalar_convert(const float* __restrict__ x, unsigned short* __restrict__ out,
                                          float* __restrict__ back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  __half hn = __float2half_rn(v);
  __nv_bfloat16 bn = __float2bfloat16_rn(v);
  out[5 * i + 0] = __half_as_ushort(hn);
  out[5 * i + 1] = __half_as_ushort(__float2half_rz(v));
  out[5 * i + 2] = __half_as_ushort(__float2half_rd(v));
  out[5 * i + 3] = __half_as_ushort(__float2half_ru(v));
  out[5 * i + 4] = __bfloat16_as_ushort(bn);
  back[2 * i] = __half2float(hn);
  back[2 * i + 1] = __bfloat162float(bn);
}
