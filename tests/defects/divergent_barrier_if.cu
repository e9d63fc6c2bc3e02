// __syncthreads() inside a branch that only half of each warp takes.
// smemlab: --kernel halfBarrier --grid 1 --block 64 --arg int[64]=zeros
__global__ void halfBarrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x % 32 < 16) {
    __syncthreads();  // EXPECT: divergent-barrier
    out[threadIdx.x] = s[63 - threadIdx.x];
  }
}
