// reduceGmem's last warp made safe (warp_race_global.cu's clean twin): each
// step reads into a register, __syncwarp(), then writes, __syncwarp(), so no
// lane reads a partial sum while its neighbour writes it.
// smemlab: --kernel reduceGmemSafe --grid 2 --block 128 --arg int[256]=iota --arg int[2]=zeros --arg int=256
__global__ void reduceGmemSafe(int* g_idata, int* g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  int* idata = g_idata + blockIdx.x * blockDim.x;
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  if (blockDim.x >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    for (int off = 32; off > 0; off /= 2) {
      int v = idata[tid];
      if (tid < off) v += idata[tid + off];
      __syncwarp();
      idata[tid] = v;
      __syncwarp();
    }
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}
