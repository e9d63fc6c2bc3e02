// A textbook's reduceGmem: the in-place reduction on global memory, with the
// last warp unrolled through a `volatile` pointer and no __syncwarp().
// volatile only keeps the loads and stores; since Volta's independent
// thread scheduling the lanes are not in lockstep, so a lane may read its
// neighbour's partial sum before the neighbour wrote it — the same
// warp-synchronous race as on shared memory (warp_race_unrolled.cu).
// smemlab: --kernel reduceGmem --grid 2 --block 128 --arg int[256]=iota --arg int[2]=zeros --arg int=256
__global__ void reduceGmem(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x;
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  if (blockDim.x >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile int* vmem = idata;
    vmem[tid] += vmem[tid + 32];
    vmem[tid] += vmem[tid + 16];  // EXPECT: warp-race
    vmem[tid] += vmem[tid + 8];
    vmem[tid] += vmem[tid + 4];
    vmem[tid] += vmem[tid + 2];
    vmem[tid] += vmem[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}
