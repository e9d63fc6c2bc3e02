// A full-warp shuffle mask inside a branch taken by half of the warp: the
// named lanes never arrive at the collective.
// smemlab: --kernel halfShuffle --grid 1 --block 32 --arg int[32]=zeros
__global__ void halfShuffle(int* out) {
  int v = threadIdx.x;
  if (threadIdx.x < 16) {
    v += __shfl_down_sync(0xffffffffu, v, 1);  // EXPECT: divergent-barrier
  }
  out[threadIdx.x] = v;
}
