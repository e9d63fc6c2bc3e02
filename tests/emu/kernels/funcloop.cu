// A non-inlined device function called in a loop; integer and double math.
__device__ __noinline__ long long poly(long long x, int k) {
  long long r = 1;
  for (int i = 0; i < k; ++i) r = r * x + i;
  return r;
}
__global__ void funcLoop(long long* out, const int* ks, double* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long acc = 0;
  for (int j = 0; j < ks[i]; ++j) acc += poly(i + j, j % 5);
  out[i] = acc;
  d[i] = sqrt((double)i) / (i + 1.0);
}
