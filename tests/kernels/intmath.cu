// Integer intrinsics and arithmetic over random inputs. For element i, with a = A[i], b = B[i],
// c = C[i] (32-bit), d = D[i] (a non-zero divisor, never -1 when a is INT_MIN) and the 64-bit
// x = X[i], y = Y[i] (y non-zero), result k of element i goes to out[k * n + i] as 64 bits.
// The list of k is the enum below; intmath_test.cpp computes each from its definition.

enum Op {
  kPopc, kClz, kBrev, kBytePerm, kFunnelL, kFunnelR, kFunnelLC, kFunnelRC, kMulhi, kUmulhi,
  kMul64hi, kUmul64hi, kSad, kUsad, kDp4a, kDp4aU, kDp2aLo, kDp2aHi, kMinS, kMaxS, kMinU, kMaxU,
  kAbs, kDivS, kRemS, kDivU, kRemU, kDivConst, kRemConst, kDivNegConst, kDiv64U, kRem64U, kDiv64S,
  kPopcll, kClzll, kBrevll, kFfs, kFfsll, kHadd, kRhadd, kUhadd, kUrhadd, kMul24, kUmul24,
  kMulWide, kShiftMix, kCount
};

extern "C" __global__ void intmath(const unsigned* __restrict__ A, const unsigned* __restrict__ B,
                                   const unsigned* __restrict__ C, const int* __restrict__ D,
                                   const unsigned long long* __restrict__ X, const long long* __restrict__ Y,
                                   unsigned long long* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = A[i], b = B[i], c = C[i];
  int sa = int(a), sb = int(b), sd = D[i];
  unsigned long long x = X[i];
  long long y = Y[i];
  unsigned long long* o = out + i;
  auto put = [&](int k, unsigned long long v) { o[size_t(k) * n] = v; };
  put(kPopc, __popc(a));
  put(kClz, unsigned(__clz(sa)));
  put(kBrev, __brev(a));
  put(kBytePerm, __byte_perm(a, b, c & 0x7777u));
  put(kFunnelL, __funnelshift_l(a, b, c));
  put(kFunnelR, __funnelshift_r(a, b, c));
  put(kFunnelLC, __funnelshift_lc(a, b, c & 63u));
  put(kFunnelRC, __funnelshift_rc(a, b, c & 63u));
  put(kMulhi, unsigned(__mulhi(sa, sb)));
  put(kUmulhi, __umulhi(a, b));
  put(kMul64hi, (unsigned long long)__mul64hi((long long)x, y));
  put(kUmul64hi, __umul64hi(x, (unsigned long long)y));
  put(kSad, __sad(sa, sb, c));
  put(kUsad, __usad(a, b, c));
  put(kDp4a, unsigned(__dp4a(sa, sb, int(c))));
  put(kDp4aU, __dp4a(a, b, c));
  put(kDp2aLo, unsigned(__dp2a_lo(sa, sb, int(c))));
  put(kDp2aHi, unsigned(__dp2a_hi(sa, sb, int(c))));
  put(kMinS, unsigned(min(sa, sb)));
  put(kMaxS, unsigned(max(sa, sb)));
  put(kMinU, min(a, b));
  put(kMaxU, max(a, b));
  put(kAbs, unsigned(abs(sa)));
  put(kDivS, unsigned(sa / sd));
  put(kRemS, unsigned(sa % sd));
  put(kDivU, a / unsigned(sd));
  put(kRemU, a % unsigned(sd));
  put(kDivConst, a / 7u);
  put(kRemConst, a % 1000u);
  put(kDivNegConst, unsigned(sa / -3));
  put(kDiv64U, x / (unsigned long long)y);
  put(kRem64U, x % (unsigned long long)y);
  put(kDiv64S, (unsigned long long)((long long)(x >> 1) / y));
  put(kPopcll, __popcll(x));
  put(kClzll, unsigned(__clzll((long long)x)));
  put(kBrevll, __brevll(x));
  put(kFfs, unsigned(__ffs(sa)));
  put(kFfsll, unsigned(__ffsll((long long)x)));
  put(kHadd, unsigned(__hadd(sa, sb)));
  put(kRhadd, unsigned(__rhadd(sa, sb)));
  put(kUhadd, __uhadd(a, b));
  put(kUrhadd, __urhadd(a, b));
  put(kMul24, unsigned(__mul24(sa, sb)));
  put(kUmul24, __umul24(a, b));
  put(kMulWide, (unsigned long long)((long long)sa * (long long)sb));
  put(kShiftMix, ((unsigned long long)(a >> (b & 31)) << 32) | unsigned(sa >> (c & 31)));
}
