// Planted: thread 0 announces 8192 transaction bytes for a copy of 4096
// (a 32 x 32 float tile): the phase never completes and the block hangs
// with 4096 bytes pending.
// smemlab-gpu: hangs
#include "hopper.cuh"

using namespace hopper;

__global__ void over(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, 2 * sizeof(tile));  // EXPECT: tx-mismatch
    tma_load_2d(tile, &in, 0, 0, &full);
  }
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];
}

int main() {
  float *d, *out;
  CUtensorMap map = tile_column(&d, &out, 1);
  over<<<1, 128>>>(map, out);
  finish_launch("tx_over");
  release_all();
  return 0;
}
