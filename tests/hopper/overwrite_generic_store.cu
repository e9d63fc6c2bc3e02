// Planted: threads refill a wgmma operand tile with plain stores while the
// wgmma committed on it may still read it (no wgmma.wait_group before the
// barrier that precedes the stores).
#include "hopper.cuh"

using namespace hopper;

__global__ void refill(const uint4* src, float* c) {
  __shared__ __align__(1024) uint4 a[64 * 8], b[64 * 8];  // 64 rows of 128 bytes each
  float d[32] = {};
  for (int k = 0; k < 2; ++k) {
    for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {
      a[i] = src[k * 1024 + i];        // EXPECT: stage-overwrite
      b[i] = src[k * 1024 + 512 + i];  // EXPECT: stage-overwrite
    }
    fence_proxy_async();
    __syncthreads();
    wgmma_fence();
    wgmma_64x64x16(d, desc128(a), desc128(b));
    wgmma_commit();
    __syncthreads();  // wrong: the wgmma may still read a and b
  }
  wgmma_wait0();
  store_acc_64x64(c, d);
}

int main() {
  uint4* s;
  float* c;
  dev_alloc(&s, 2048 * 16);
  cudaMemset(s, 0, 2048 * 16);
  dev_alloc(&c, 64 * 64 * 4);
  refill<<<1, 128>>>(s, c);
  finish_launch("overwrite_generic_store");
  release_all();
  return 0;
}
