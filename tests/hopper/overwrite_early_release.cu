// Planted: the consumers of a two-stage TMA pipeline release a stage (arrive
// on its empty barrier) as soon as it is full, before they read it; the
// producer, waiting correctly for the release, loads the next tile into the
// stage while they still read it.
#include "hopper.cuh"

using namespace hopper;

constexpr int kTiles = 4, kStages = 2, kTile = 32 * 32;

__global__ void early_release(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float stage[kStages][kTile];
  __shared__ uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 4);
    }
  __syncthreads();
  if (warp == 0) {
    if (lane == 0)
      for (int t = 0; t < kTiles; ++t) {
        const int s = t % kStages, phase = (t / kStages) & 1;
        mbar_wait(&empty[s], phase ^ 1);
        mbar_arrive_expect_tx(&full[s], kTile * 4);
        tma_load_2d(stage[s], &in, 0, t * 32, &full[s]);  // EXPECT: stage-overwrite
      }
  } else {
    for (int t = 0; t < kTiles; ++t) {
      const int s = t % kStages, phase = (t / kStages) & 1;
      mbar_wait(&full[s], phase);
      if (lane == 0) mbar_arrive(&empty[s]);  // wrong: released before it is read
      for (int i = lane; i < 8 * 32; i += 32) {
        const int e = (warp - 1) * 8 * 32 + i;
        out[t * kTile + e] = stage[s][e];  // EXPECT: stage-overwrite
      }
    }
  }
}

int main() {
  float *din, *dout;
  CUtensorMap map = tile_column(&din, &dout, kTiles);
  early_release<<<1, 160>>>(map, dout);
  finish_launch("overwrite_early_release");
  release_all();
  return 0;
}
