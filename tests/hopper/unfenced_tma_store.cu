// Planted: the block writes a tile with plain stores and thread 0 stores it
// to global memory with TMA after a barrier but without fence.proxy.async:
// the async proxy may not see the generic writes.
#include "hopper.cuh"

using namespace hopper;

__global__ void unfenced(const __grid_constant__ CUtensorMap out) {
  __shared__ alignas(128) float res[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) res[i] = static_cast<float>(i);
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&out, 0, 0, res);  // EXPECT: proxy-fence
    bulk_commit();
    bulk_wait_read();
  }
  __syncthreads();
}

int main() {
  float* d;
  dev_alloc(&d, 32 * 32 * 4);
  CUtensorMap map =
      map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, 32, 32, 32, CU_TENSOR_MAP_SWIZZLE_NONE);
  unfenced<<<1, 128>>>(map);
  finish_launch("unfenced_tma_store");
  release_all();
  return 0;
}
