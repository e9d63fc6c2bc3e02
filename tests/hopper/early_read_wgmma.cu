// Planted: a warpgroup runs wgmma on the A and B tiles a TMA load is still
// writing: the wait for the full barrier comes after the wgmma, so its
// operand reads are not ordered after the copies.
#include "hopper.cuh"

using namespace hopper;

__global__ void wgmma_early(const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b, float* c) {
  __shared__ __align__(1024) uint8_t a[64 * 128], b[64 * 128];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, sizeof(a) + sizeof(b));
    tma_load_2d(a, &map_a, 0, 0, &full);
    tma_load_2d(b, &map_b, 0, 0, &full);
  }
  float d[32] = {};
  wgmma_fence();
  wgmma_64x64x16(d, desc128(a), desc128(b));  // EXPECT: early-read
  wgmma_commit();
  wgmma_wait0();
  mbar_wait(&full, 0);
  store_acc_64x64(c, d);
}

int main() {
  uint16_t* d;
  float* c;
  dev_alloc(&d, 2 * 64 * 64 * 2);
  cudaMemset(d, 0, 2 * 64 * 64 * 2);
  dev_alloc(&c, 64 * 64 * 4);
  CUtensorMap ma =
      map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 64, 64, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
  CUtensorMap mb = map_2d(d + 64 * 64, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 64, 64, 64, 64,
                          CU_TENSOR_MAP_SWIZZLE_128B);
  wgmma_early<<<1, 128>>>(ma, mb, c);
  finish_launch("early_read_wgmma");
  release_all();
  return 0;
}
