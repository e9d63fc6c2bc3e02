// Planted: the warpgroup writes wgmma's A and B tiles with plain stores and
// runs wgmma on them after a barrier but without fence.proxy.async: wgmma
// reads shared memory through the async proxy.
#include "hopper.cuh"

using namespace hopper;

__global__ void unfenced(const uint4* src, float* c) {
  __shared__ __align__(1024) uint4 a[64 * 8], b[64 * 8];
  for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {
    a[i] = src[i];
    b[i] = src[512 + i];
  }
  __syncthreads();
  float d[32] = {};
  wgmma_fence();
  wgmma_64x64x16(d, desc128(a), desc128(b));  // EXPECT: proxy-fence
  wgmma_commit();
  wgmma_wait0();
  store_acc_64x64(c, d);
}

int main() {
  uint4* s;
  float* c;
  dev_alloc(&s, 1024 * 16);
  cudaMemset(s, 0, 1024 * 16);
  dev_alloc(&c, 64 * 64 * 4);
  unfenced<<<1, 128>>>(s, c);
  finish_launch("unfenced_wgmma");
  release_all();
  return 0;
}
