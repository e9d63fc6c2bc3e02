// A tile filled by all threads but one, then read whole: thread 0 reads the
// element thread 31 was told to skip.
// smemlab: --kernel partialFill --grid 1 --block 32 --arg float[32]=random(6) --arg float[32]=zeros
__global__ void partialFill(const float* in, float* out) {
  __shared__ float tile[32];
  if (threadIdx.x < 31) tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[31 - threadIdx.x];  // EXPECT: uninitialized
}
