// Warp-aggregated atomics (the stream-compaction filter of NVIDIA's
// developer blog): the lanes that pass the test elect a leader with
// __activemask(), the leader does one atomicAdd for all of them and
// broadcasts the base with a shuffle over the active mask, inside divergent
// code.
// smemlab: --kernel filterPositive --grid 2 --block 128 --arg int[256]=random(4) --arg int[256]=zeros --arg int[1]=zeros --arg int=256
__device__ int atomicAggInc(int* ctr) {
  unsigned active = __activemask();
  int lane = threadIdx.x % 32;
  int leader = __ffs(active) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(ctr, __popc(active));
  base = __shfl_sync(active, base, leader);
  return base + __popc(active & ((1u << lane) - 1));
}

__global__ void filterPositive(const int* src, int* dst, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (src[i] & 3) != 0) dst[atomicAggInc(count)] = src[i];
}
