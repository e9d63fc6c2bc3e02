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
  float* d;
  dev_alloc(&d, 2 * 32 * 32 * 4);
  cudaMemset(d, 0, 2 * 32 * 32 * 4);
  CUtensorMap map =
      map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, 32, 32, 32, CU_TENSOR_MAP_SWIZZLE_NONE);
  no_wait<<<1, 128>>>(map, d + 32 * 32);
  finish_launch("early_read_no_wait");
  release_all();
  return 0;
}
