// Half and bfloat16 math through cuda_fp16.h / cuda_bf16.h as inference
// code uses it: half2 vectorized scale-add with __hfma2, a GELU activation
// in half computed in float, a bf16 dot product with __hmul/__hadd, and
// mixed conversions (__float2half_rn, __half2float, __float2bfloat16).
// smemlab: --kernel half2Axpy --grid 2 --block 64 --arg half[256]=random(1) --arg half[256]=random(2) --arg half[256]=zeros --arg float=0.75
// smemlab: --kernel geluHalf --grid 1 --block 128 --arg half[128]=random(3) --arg half[128]=zeros
// smemlab: --kernel bf16Dot --grid 2 --block 64 --arg bf16[512]=random(4) --arg bf16[512]=random(5) --arg float[2]=zeros
// smemlab: --kernel halfIntrinsics --grid 1 --block 64 --arg half[64]=random(8) --arg half[384]=zeros
// smemlab: --kernel halfAtomics --grid 2 --block 64 --arg half[128]=random(9) --arg bf16[128]=random(10) --arg half[2]=zeros --arg bf16[1]=zeros
// smemlab: --kernel halfCompareSelect --grid 1 --block 64 --arg half[64]=random(6) --arg half[64]=random(7) --arg half[64]=zeros --arg int[1]=zeros
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// y = a * x + y on pairs (half2): out[i] = fma(a, x[i], y[i]).
__global__ void half2Axpy(const half* x, const half* y, half* out, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const half2* x2 = reinterpret_cast<const half2*>(x);
  const half2* y2 = reinterpret_cast<const half2*>(y);
  half2* o2 = reinterpret_cast<half2*>(out);
  half2 a2 = __float2half2_rn(a);
  o2[i] = __hfma2(a2, x2[i], y2[i]);
}

// GELU (tanh approximation) computed in float, stored as half.
__global__ void geluHalf(const half* in, half* out) {
  int i = threadIdx.x;
  float x = __half2float(in[i]) * 4.0f - 2.0f;
  float y = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
  out[i] = __float2half_rn(y);
}

// Per-block dot product of bf16 vectors: products in bf16 arithmetic
// (__hmul), accumulated in float, reduced with shuffles and shared memory.
__global__ void bf16Dot(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  __shared__ float partial[2];
  int base = blockIdx.x * 256;
  float s = 0;
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    s += __bfloat162float(__hmul(a[base + i], b[base + i]));
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffff, s, off);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + partial[1];
}

// out = max(x, y) via __hgt; count how many x < y with __hlt and a shared counter.
__global__ void halfCompareSelect(const half* x, const half* y, half* out, int* less) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int i = threadIdx.x;
  out[i] = __hgt(x[i], y[i]) ? x[i] : __hadd(y[i], __float2half(0.0f));
  if (__hlt(x[i], y[i])) atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0) less[0] = count;
}

// The cuda_fp16.h math users reach for: abs, neg, min/max, sqrt, exp, rcp.
__global__ void halfIntrinsics(const half* in, half* out) {
  int i = threadIdx.x;
  half x = __hsub(in[i], __float2half(0.5f));  // in [-0.5, 0.5)
  half2 p = __halves2half2(x, __hneg(x));
  half2 a = __habs2(p);
  out[i] = __habs(x);
  out[64 + i] = __hmax(x, __float2half(0.0f));
  out[128 + i] = __hmin(x, __float2half(0.0f));
  out[192 + i] = hsqrt(__low2half(a));
  out[256 + i] = hexp(x);
  out[320 + i] = __hadd(__low2half(a), __high2half(a));
}

// atomicAdd on half2 and bf16 (sums of values in [0, 1), order-free
// enough for the tolerance of the reference).
__global__ void halfAtomics(const half* h, const __nv_bfloat16* b, half* hsum, __nv_bfloat16* bsum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  half2 v = __halves2half2(__hmul(h[i], __float2half(0.0625f)), __float2half(0.03125f));
  atomicAdd(reinterpret_cast<half2*>(hsum), v);
  atomicAdd(bsum, __hmul(b[i], __float2bfloat16(0.0625f)));
}
