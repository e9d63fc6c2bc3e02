// The correct reverse: the barrier orders every write before every read.
// smemlab: --kernel reverseSync --grid 1 --block 64 --arg int[64]=iota --arg int=64
__global__ void reverseSync(int* d, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[n - t - 1];
}
