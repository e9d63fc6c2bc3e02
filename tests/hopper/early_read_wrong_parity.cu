// Planted: the consumers of a two-stage TMA pipeline wait for the wrong
// parity of the full barrier (phase ^ 1): on a fresh barrier parity 1 counts
// as completed, so they read each stage before its copy has landed. (Two
// tiles, one per stage: more would let the producer run a phase ahead and
// the inverted waits could hang.) A consumer that polls only after the
// stage's copy has completed asks for the current phase and hangs.
// smemlab-gpu: may hang
#include "hopper.cuh"

using namespace hopper;

constexpr int kTiles = 2, kStages = 2, kTile = 32 * 32;

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
        mbar_wait(&empty[s], phase ^ 1);
        mbar_arrive_expect_tx(&full[s], kTile * 4);
        tma_load_2d(stage[s], &in, 0, t * 32, &full[s]);
      }
  } else {
    for (int t = 0; t < kTiles; ++t) {
      const int s = t % kStages, phase = (t / kStages) & 1;
      // Wrong: the phase to wait for has parity `phase`. A warp that polls
      // after the copy completed waits for the current phase: it hangs.
      mbar_wait(&full[s], phase ^ 1);  // EXPECT: mbarrier-deadlock
      for (int i = lane; i < 8 * 32; i += 32) {
        const int e = (warp - 1) * 8 * 32 + i;
        out[t * kTile + e] = stage[s][e];  // EXPECT: early-read
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
  finish_launch("early_read_wrong_parity");
  release_all();
  return 0;
}
