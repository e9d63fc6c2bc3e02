// Planted: one stage reused for two k-steps; the warpgroup commits its
// wgmma on the first tile but does not wait (no wgmma.wait_group) before the
// barrier that lets thread 0 load the second tile into the same stage, so
// the TMA overwrites operands the wgmma may still read.
#include "hopper.cuh"

using namespace hopper;

__global__ void in_flight(const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b, float* c) {
  __shared__ __align__(1024) uint8_t a[64 * 128], b[64 * 128];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  float d[32] = {};
  for (int k = 0; k < 2; ++k) {
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(&full, sizeof(a) + sizeof(b));
      tma_load_2d(a, &map_a, k * 64, 0, &full);  // EXPECT: stage-overwrite
      tma_load_2d(b, &map_b, k * 64, 0, &full);  // EXPECT: stage-overwrite
    }
    mbar_wait(&full, k & 1);
    wgmma_fence();
    for (int kk = 0; kk < 4; ++kk) wgmma_64x64x16(d, desc128(a + 32 * kk), desc128(b + 32 * kk));
    wgmma_commit();
    __syncthreads();  // wrong: the wgmma of this k-step may still read a and b
  }
  wgmma_wait0();
  store_acc_64x64(c, d);
}

int main() {
  uint16_t* d;
  float* c;
  dev_alloc(&d, 2 * 64 * 128 * 2);
  cudaMemset(d, 0, 2 * 64 * 128 * 2);
  dev_alloc(&c, 64 * 64 * 4);
  CUtensorMap ma =
      map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 128, 64, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
  CUtensorMap mb = map_2d(d + 64 * 128, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 128, 64, 64, 64,
                          CU_TENSOR_MAP_SWIZZLE_128B);
  in_flight<<<1, 128>>>(ma, mb, c);
  finish_launch("overwrite_wgmma_in_flight");
  release_all();
  return 0;
}
