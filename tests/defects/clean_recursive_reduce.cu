// A block reduction written recursively, one level per call, with a barrier
// between levels: no finding (real calls keep each level's registers).
// smemlab: --kernel recursiveReduce --grid 2 --block 64 --arg float[128]=iota --arg float[2]=zeros
__device__ float reduce_level(float* s, int t, int width) {
  if (width == 0) return s[0];
  if (t < width) s[t] += s[t + width];
  __syncthreads();
  float total = reduce_level(s, t, width / 2);
  __syncthreads();  // after the call: it stays a call, not a loop
  return total;
}

__global__ void recursiveReduce(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  float total = reduce_level(s, t, 32);
  if (t == 0) out[blockIdx.x] = total;
}
