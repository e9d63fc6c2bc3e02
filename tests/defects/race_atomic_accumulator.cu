// Reading an accumulator that other warps are still adding to (no barrier
// between the atomicAdd and the read) and using the value: a race, however
// the adds themselves are atomic. No CAS re-validates the read.
// smemlab: --kernel readWhileAdding --grid 1 --block 128 --arg int[128]=iota --arg int[128]=zeros
__global__ void readWhileAdding(const int* in, int* out) {
  __shared__ int sum;
  if (threadIdx.x == 0) sum = 0;
  __syncthreads();
  atomicAdd(&sum, in[threadIdx.x]);
  out[threadIdx.x] = sum;  // EXPECT: race
}
