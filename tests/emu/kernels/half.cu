// f16 / bf16 through cuda_fp16.h and cuda_bf16.h (inline-asm blocks in the headers).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void halfk(const __half* a, const __half2* b, float* out, __nv_bfloat16* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i];
  __half2 y = b[i];
  __half2 z = __hfma2(y, y, __halves2half2(x, x));
  __half s = __hadd(__low2half(z), __high2half(z));
  out[i] = __half2float(s) + __half2float(__hmul(x, x)) + (__hlt(x, s) ? 1.f : 0.f);
  c[i] = __float2bfloat16(__bfloat162float(c[i]) * 2.5f + 1.0f);
  float2 f = __half22float2(__floats2half2_rn(1.5f, out[i]));
  out[n + i] = f.x + f.y;
}
