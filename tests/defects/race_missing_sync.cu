// Reverse through shared memory with the __syncthreads() forgotten: a thread
// reads s[n-1-t] before the thread that owns it (another warp) has written it.
// smemlab: --kernel reverseNoSync --grid 1 --block 64 --arg int[64]=iota --arg int=64
__global__ void reverseNoSync(int* d, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = d[t];
  d[t] = s[n - t - 1];  // EXPECT: race
}
