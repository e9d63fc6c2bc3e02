// Planted: the mbarrier's init is guarded by a thread index the block does
// not have (threadIdx.x == 128 of 128 threads), so thread 0 arrives on, and
// every thread waits on, a word that holds no initialized mbarrier.
// smemlab-gpu: hangs
#include "hopper.cuh"

using namespace hopper;

__global__ void uninit(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 128) mbar_init(&full, 1);  // wrong: no thread 128
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, sizeof(tile));
    tma_load_2d(tile, &in, 0, 0, &full);
  }
  mbar_wait(&full, 0);  // EXPECT: mbarrier (the first use: warps 1-3 poll first)
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];
}

int main() {
  float *d, *out;
  CUtensorMap map = tile_column(&d, &out, 1);
  uninit<<<1, 128>>>(map, out);
  finish_launch("mbar_uninit");
  release_all();
  return 0;
}
