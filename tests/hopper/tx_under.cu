// Planted: the tile is loaded as two 16-row halves but thread 0 announces
// the bytes of one: the phase completes when the first half lands, and the
// consumers may read the second half before it does; its bytes then count
// against the next phase.
#include "hopper.cuh"

using namespace hopper;

__global__ void under(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, sizeof(tile) / 2);  // EXPECT: tx-mismatch
    tma_load_2d(tile, &in, 0, 0, &full);
    tma_load_2d(tile + 16 * 32, &in, 0, 16, &full);
  }
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];  // EXPECT: early-read
}

int main() {
  float *d, *out;
  CUtensorMap map = tile_column(&d, &out, 1, 16);
  under<<<1, 128>>>(map, out);
  finish_launch("tx_under");
  release_all();
  return 0;
}
