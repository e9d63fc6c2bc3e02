// CUDA math library functions (inlined libdevice code: carry chains, Payne-Hanek
// reduction through local memory, approximations) and 64-bit integer division.
#include <cstdint>
__global__ void mathk(const float* x, float* y, const double* xd, double* yd, long long* q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i * 8 + 0] = expf(v);
  y[i * 8 + 1] = logf(fabsf(v) + 1.0f);
  y[i * 8 + 2] = sinf(v) + cosf(v);
  y[i * 8 + 3] = powf(fabsf(v), 1.7f);
  y[i * 8 + 4] = erff(v) + tanhf(v);
  y[i * 8 + 5] = __fdividef(v, 3.0f) + __expf(v) + rsqrtf(fabsf(v) + 1);
  y[i * 8 + 6] = fmaxf(v, 0.5f) + floorf(v) + roundf(v * 3) + truncf(v);
  y[i * 8 + 7] = (float)__popc(i) + (float)__clz(i) + (float)__brev(i) + __int_as_float(__float_as_int(v));
  double d = xd[i];
  yd[i * 4 + 0] = exp(d) + log(fabs(d) + 1.0);
  yd[i * 4 + 1] = sin(d) * cos(d);
  yd[i * 4 + 2] = pow(fabs(d), 0.3) + sqrt(fabs(d)) + cbrt(d);
  yd[i * 4 + 3] = d / (d + 3.0) + (double)(long long)(d * 1e6);
  long long a = (long long)i * 1234567891LL - 77;
  q[i * 4 + 0] = a / 7;
  q[i * 4 + 1] = a % 1000003;
  q[i * 4 + 2] = (unsigned long long)a / 13ull;
  q[i * 4 + 3] = __umul64hi(a, 0x9E3779B97F4A7C15ull) ^ __mul64hi(a, -5);
}
