// Divergent control flow: loops whose trip counts come from the input data, with continue and
// break taken by some lanes only, and a nested if/else ladder plus a switch.

extern "C" __global__ void divergent_loop(const unsigned* __restrict__ trips, const unsigned* __restrict__ data,
                                          unsigned* __restrict__ out, unsigned* __restrict__ steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned t = trips[i] % 48u;
  unsigned acc = 0;
  unsigned k = 0;
  for (; k < t; ++k) {
    unsigned v = data[(i + k * 7u) % unsigned(n)];
    if (v % 5u == 0) continue;
    if (v % 11u == 0 && k > 2) break;
    acc = acc * 3u + (v ^ k);
  }
  out[i] = acc;
  // A while loop with a data-dependent exit: Collatz steps of a small start value, capped.
  unsigned x = (data[i] & 0x3ffu) + 1u, s = 0;
  while (x != 1u && s < 200u) {
    x = (x & 1u) ? 3u * x + 1u : x >> 1;
    ++s;
  }
  steps[i] = s * 64u + k;
}

__device__ __noinline__ int ladder_helper(int x, const int* table) {
  // A real call with a divergent body.
  if (x & 1) return table[x & 15] - x;
  return table[(x >> 4) & 15] + x;
}

extern "C" __global__ void if_ladder(const int* __restrict__ in, const int* __restrict__ table, int* __restrict__ out,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int r;
  if (x < -1000000) {
    r = table[(-(x + 1)) & 15] * 2;
  } else if (x < 0) {
    if (x & 1) {
      r = -x;
    } else if (x & 2) {
      r = x + table[3];
    } else {
      r = ladder_helper(x, table);
    }
  } else if (x == 0) {
    r = 42;
  } else if (x < 100) {
    r = x * x;
    for (int j = 0; j < (x & 7); ++j) r += table[j];
  } else if (x < 1000000) {
    r = x / 3;
    if (r & 4) r ^= 0x55;
    else r = ladder_helper(r, table);
  } else {
    r = x - 1000000;
  }
  switch (x & 7) {
    case 0: r += 1; break;
    case 1: r -= table[1]; break;
    case 2: r ^= 0x1234; break;
    case 3: r = int(unsigned(r) * 5u); break;  // wraps, no signed overflow
    case 5: r = r >> 3; break;
    case 6: r = ~r; break;
    default: break;
  }
  out[i] = r;
}
