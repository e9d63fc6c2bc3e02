// A float2 load from a shared float array at an odd element: the 8-byte
// access is not 8-byte aligned.
// smemlab: --kernel pairs --grid 1 --block 32 --arg float[64]=zeros
__global__ void pairs(float* out) {
  __shared__ float s[66];
  s[threadIdx.x] = threadIdx.x;
  s[threadIdx.x + 32] = threadIdx.x;
  __syncthreads();
  float2 v = *reinterpret_cast<float2*>(&s[2 * threadIdx.x + 1]);  // EXPECT: misaligned
  out[2 * threadIdx.x] = v.x;
  out[2 * threadIdx.x + 1] = v.y;
}
