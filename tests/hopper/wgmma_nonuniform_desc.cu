// Planted: the threads of a warp pass wgmma different B descriptors (odd
// lanes point one 16-byte step further); the ISA requires the descriptors
// uniform across the warpgroup, and the result is undefined on the GPU.
#include "hopper.cuh"

using namespace hopper;

__global__ void nonuniform(const uint4* src, float* c) {
  __shared__ __align__(1024) uint4 a[64 * 8], b[64 * 8];
  for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {
    a[i] = src[i];
    b[i] = src[512 + i];
  }
  fence_proxy_async();
  __syncthreads();
  float d[32] = {};
  wgmma_fence();
  wgmma_64x64x16(d, desc128(a), desc128(b) + (threadIdx.x & 1));  // EXPECT: wgmma
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
  nonuniform<<<1, 128>>>(s, c);
  finish_launch("wgmma_nonuniform_desc");
  release_all();
  return 0;
}
