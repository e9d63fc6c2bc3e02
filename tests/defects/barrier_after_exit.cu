// Threads past the end return early; the rest of the block then waits at a
// barrier that part of the block never reaches (undefined for bar.sync).
// smemlab: --kernel earlyExit --grid 1 --block 64 --arg float[40]=random(3) --arg int=40
__global__ void earlyExit(float* data, int n) {
  __shared__ float s[64];
  int i = threadIdx.x;
  if (i >= n) return;
  s[i] = data[i];
  __syncthreads();  // EXPECT: divergent-barrier
  data[i] = s[n - 1 - i];
}
