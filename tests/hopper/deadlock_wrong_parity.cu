// Planted: the producer of a TMA pipeline waits for its empty barrier with
// parity `phase` where it must use `phase ^ 1` (stages start empty: the
// first wait must pass at once). It waits for a release the consumers can
// only give after the tile it never loads: the block hangs.
// smemlab-gpu: hangs
#include "hopper.cuh"

using namespace hopper;

constexpr int kTiles = 4, kStages = 2, kTile = 32 * 32;

__global__ void wrong_parity(const __grid_constant__ CUtensorMap in, float* out) {
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
        mbar_wait(&empty[s], phase);  // EXPECT: mbarrier-deadlock
        mbar_arrive_expect_tx(&full[s], kTile * 4);
        tma_load_2d(stage[s], &in, 0, t * 32, &full[s]);
      }
  } else {
    for (int t = 0; t < kTiles; ++t) {
      const int s = t % kStages, phase = (t / kStages) & 1;
      mbar_wait(&full[s], phase);
      for (int i = lane; i < 8 * 32; i += 32) {
        const int e = (warp - 1) * 8 * 32 + i;
        out[t * kTile + e] = stage[s][e];
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[s]);
    }
  }
}

int main() {
  float *din, *dout;
  CUtensorMap map = tile_column(&din, &dout, kTiles);
  wrong_parity<<<1, 160>>>(map, dout);
  finish_launch("deadlock_wrong_parity");
  release_all();
  return 0;
}
