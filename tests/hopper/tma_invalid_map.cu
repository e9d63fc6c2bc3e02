// Planted: a TMA load through a tensor map that was never encoded (the host
// zero-fills a CUtensorMap instead of calling cuTensorMapEncodeTiled): the
// copy has no valid map. On the GPU the copy faults (illegal instruction).
#include "hopper.cuh"

using namespace hopper;

__global__ void invalid_map(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, sizeof(tile));
    tma_load_2d(tile, &in, 0, 0, &full);  // EXPECT: tma
  }
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];
}

int main() {
  float* out;
  dev_alloc(&out, 32 * 32 * 4);
  CUtensorMap never_encoded{};
  invalid_map<<<1, 128>>>(never_encoded, out);
  finish_launch("tma_invalid_map");
  release_all();
  return 0;
}
