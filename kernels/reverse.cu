// Array reversal through shared memory: the classic 64-int examples with a
// static and a dynamic shared array, a multi-block reversal for large arrays
// (a shared-tile version and a register-only int4 version), and one
// extern __shared__ buffer carved into int, float and char arrays.
// Device code only; the host side lives in bench/reverse_bench.cu.
//
// Emulator launch recipes (small sizes):
// clang-format off
// smemlab: --kernel staticReverse --grid 1 --block 64 --arg int[64]=iota --arg int=64
// smemlab: --kernel dynamicReverse --grid 1 --block 64 --shared 256 --arg int[64]=iota --arg int=64
// smemlab: --kernel reverseBlocksShared --grid 4 --block 256 --arg int[1000]=iota --arg int[1000]=zeros --arg long=1000
// smemlab: --kernel reverseVec4 --grid 2 --block 128 --arg int[1024]=iota --arg int[1024]=zeros --arg long=1024
// smemlab: --kernel reverseVec4 --grid 2 --block 128 --arg int[1023]=iota --arg int[1023]=zeros --arg long=1023
// smemlab: --kernel carveShared --grid 1 --block 64 --shared 330 --arg int[40]=iota --arg float[30]=random(1) --arg char[50]=iota --arg int=40 --arg int=30 --arg int=50
// clang-format on
#include <cstdint>

// A fixed-size shared array (64 ints): each thread writes one element, the
// barrier makes all writes visible, then it reads its mirror element.
extern "C" __global__ void staticReverse(int* d, int n) {
  __shared__ int s[64];
  const int t = threadIdx.x, tr = n - t - 1;
  if (t < n && n <= 64) s[t] = d[t];
  __syncthreads();
  if (t < n && n <= 64) d[t] = s[tr];
}

// The same with the size chosen at launch (extern __shared__, 3rd launch
// parameter = n * sizeof(int)).
extern "C" __global__ void dynamicReverse(int* d, int n) {
  extern __shared__ int s[];
  const int t = threadIdx.x, tr = n - t - 1;
  if (t < n) s[t] = d[t];
  __syncthreads();
  if (t < n) d[t] = s[tr];
}

// Large arrays, out[i] = in[n-1-i]: block b owns output [b*B, b*B+B) and
// stages the mirrored input segment in shared memory, so both the global
// read and the global write are ascending and coalesced; the reversal
// happens in shared memory (conflict-free: consecutive threads touch
// consecutive words). Any n; blockDim.x <= 256.
constexpr int kReverseItems = 4;  // ints per thread, to keep loads in flight
extern "C" __global__ void reverseBlocksShared(const int* __restrict__ in, int* __restrict__ out,
                                               long long n) {
  __shared__ int tile[256 * kReverseItems];
  const long long B = (long long)blockDim.x * kReverseItems;  // blockDim.x <= 256
  const long long first_out = (long long)blockIdx.x * B;
  const long long first_in = n - first_out - B;  // may be negative for the last block
#pragma unroll
  for (int k = 0; k < kReverseItems; ++k) {
    const int t = threadIdx.x + k * blockDim.x;
    const long long j = first_in + t;
    if (j >= 0 && j < n) tile[t] = in[j];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kReverseItems; ++k) {
    const int t = threadIdx.x + k * blockDim.x;
    const long long i = first_out + t;
    if (i < n) out[i] = tile[B - 1 - t];
  }
}

// The fastest form: no shared memory needed when n % 4 == 0, because an
// aligned int4 of the output is an aligned int4 of the input with its four
// lanes swapped in registers (16-byte loads and stores, grid-stride). For
// other n the mirrored input window straddles two int4s: the loads stay
// 16-byte and aligned, and a funnel picks the four words.
extern "C" __global__ void reverseVec4(const int* __restrict__ in, int* __restrict__ out,
                                       long long n) {
  const long long n4 = n / 4;  // whole int4s of output
  const int4* in4 = reinterpret_cast<const int4*>(in);
  int4* out4 = reinterpret_cast<int4*>(out);
  const long long stride = (long long)gridDim.x * blockDim.x;
  const int shift = (int)(n & 3);
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n4; q += stride) {
    // out[4q .. 4q+3] = in[n-1-4q .. n-4-4q]
    const long long lo = n - 4 - 4 * q;  // first input index of the window
    int4 r;
    if (shift == 0) {
      const int4 v = in4[lo / 4];
      r = make_int4(v.w, v.z, v.y, v.x);
    } else {
      // lo = 4a + shift: the window is words shift..3 of int4 a, then 0..shift-1 of a+1.
      const long long a = lo / 4;
      const int4 v0 = in4[a];
      int4 v1;
      if (4 * (a + 1) + 3 < n) {
        v1 = in4[a + 1];
      } else {  // the top window: read only the words that exist
        v1.x = in[4 * (a + 1)];
        v1.y = shift > 1 ? in[4 * (a + 1) + 1] : 0;
        v1.z = shift > 2 ? in[4 * (a + 1) + 2] : 0;
        v1.w = 0;
      }
      const int w[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
      int x0 = 0, x1 = 0, x2 = 0, x3 = 0;
      // shift is uniform across the grid; each case uses constant indices.
      switch (shift) {
        case 1:
          x0 = w[1], x1 = w[2], x2 = w[3], x3 = w[4];
          break;
        case 2:
          x0 = w[2], x1 = w[3], x2 = w[4], x3 = w[5];
          break;
        default:
          x0 = w[3], x1 = w[4], x2 = w[5], x3 = w[6];
          break;
      }
      r = make_int4(x3, x2, x1, x0);
    }
    out4[q] = r;
  }
  // The last n % 4 outputs mirror the first n % 4 inputs.
  if (blockIdx.x == 0 && threadIdx.x < shift) {
    const long long i = 4 * n4 + threadIdx.x;
    out[i] = in[n - 1 - i];
  }
}

// One dynamic shared buffer holding three arrays of different types: the
// pointers are carved in decreasing alignment (int, float, then char), so
// each starts aligned. Each array is reversed through shared memory.
extern "C" __global__ void carveShared(int* ia, float* fa, char* ca, int ni, int nf, int nc) {
  extern __shared__ __align__(16) unsigned char smem[];
  int* si = reinterpret_cast<int*>(smem);
  float* sf = reinterpret_cast<float*>(si + ni);
  char* sc = reinterpret_cast<char*>(sf + nf);
  for (int t = threadIdx.x; t < ni; t += blockDim.x) si[t] = ia[t];
  for (int t = threadIdx.x; t < nf; t += blockDim.x) sf[t] = fa[t];
  for (int t = threadIdx.x; t < nc; t += blockDim.x) sc[t] = ca[t];
  __syncthreads();
  for (int t = threadIdx.x; t < ni; t += blockDim.x) ia[t] = si[ni - 1 - t];
  for (int t = threadIdx.x; t < nf; t += blockDim.x) fa[t] = sf[nf - 1 - t];
  for (int t = threadIdx.x; t < nc; t += blockDim.x) ca[t] = sc[nc - 1 - t];
}
