// Two warps store to the same shared word with no barrier between them (WAW):
// which value survives depends on scheduling.
// smemlab: --kernel lastWriter --grid 1 --block 64 --arg int[1]=zeros
__global__ void lastWriter(int* out) {
  __shared__ int flag;
  flag = threadIdx.x / 32;  // EXPECT: race
  __syncthreads();
  if (threadIdx.x == 0) out[0] = flag;
}
