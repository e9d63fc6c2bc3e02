// Bank conflicts inside functions called for real: a recursive column walk
// (stride 32: a 32-way conflict per level) and a function-pointer reader
// (stride 2: 2-way). analyze attributes each to the function's own line.
// smemlab: --kernel callsConflicts --grid 1 --block 32 --arg float[1024]=iota --arg float[32]=zeros
__device__ float column_sum(const float* s, int t, int row) {
  if (row < 0) return 0.0f;
  float v = s[row * 32 + t] + s[t * 32 + row];  // row read, then a column read
  float rest = column_sum(s, t, row - 8);
  return v + rest * 0.5f;
}
typedef float (*reader_t)(const float*, int);
__device__ float even(const float* s, int t) { return s[2 * t]; }
__device__ float odd(const float* s, int t) { return s[2 * t + 1]; }
__device__ reader_t readers[2] = {even, odd};

__global__ void callsConflicts(const float* in, float* out) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += 32) s[i] = in[i];
  __syncthreads();
  out[threadIdx.x] = column_sum(s, threadIdx.x, 31) + readers[threadIdx.x & 1](s, threadIdx.x);
}
