// The if/else-both-sync mistake: each side has its own __syncthreads(), so
// lanes of one warp wait at different barrier instructions.
// smemlab: --kernel bothSides --grid 1 --block 32 --arg int[32]=zeros
__global__ void bothSides(int* out) {
  __shared__ int s[32];
  if (threadIdx.x & 1) {
    s[threadIdx.x] = 1;
    __syncthreads();  // EXPECT: divergent-barrier
  } else {
    s[threadIdx.x] = 2;
    __syncthreads();  // EXPECT: divergent-barrier
  }
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}
