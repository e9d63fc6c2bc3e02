// Planted: threads read the tile a TMA load is writing before they wait for
// the mbarrier phase that completes the copy (the wait comes after the
// read). On the GPU the read may see the old bytes.
#include "hopper.cuh"

using namespace hopper;

__global__ void no_wait(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, sizeof(tile));
    tma_load_2d(tile, &in, 0, 0, &full);
  }
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];  // EXPECT: early-read
  mbar_wait(&full, 0);
}

int main() {
  float *d, *out;
  CUtensorMap map = tile_column(&d, &out, 1);
  no_wait<<<1, 128>>>(map, out);
  finish_launch("early_read_no_wait");
  release_all();
  return 0;
}
