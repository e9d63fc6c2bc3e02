// A multi-stage TMA pipeline, correct: warp 0's lane 0 produces (waits for a
// stage's empty barrier, announces its bytes with arrive.expect_tx, loads a
// 32 x 32 float tile into it), warps 1-4 consume (wait for the stage's full
// barrier, read their rows, release the stage: one arrival per warp on its
// empty barrier). 8 tiles through 3 stages, so every stage is refilled.
// Each consumer writes twice what it read; the host checks every element.
#include "hopper.cuh"

using namespace hopper;

constexpr int kTiles = 8, kStages = 3, kTile = 32 * 32;

__global__ void pipeline(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float stage[kStages][kTile];
  __shared__ uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 4);
    }
  }
  __syncthreads();
  if (warp == 0) {
    if (lane == 0)
      for (int t = 0; t < kTiles; ++t) {
        const int s = t % kStages, phase = (t / kStages) & 1;
        mbar_wait(&empty[s], phase ^ 1);  // the first round passes: the stages start empty
        mbar_arrive_expect_tx(&full[s], kTile * 4);
        tma_load_2d(stage[s], &in, 0, t * 32, &full[s]);
      }
  } else {
    const int part = warp - 1;  // rows 8 * part .. 8 * part + 7
    for (int t = 0; t < kTiles; ++t) {
      const int s = t % kStages, phase = (t / kStages) & 1;
      mbar_wait(&full[s], phase);
      for (int i = lane; i < 8 * 32; i += 32) {
        const int e = part * 8 * 32 + i;
        out[t * kTile + e] = 2.0f * stage[s][e];
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[s]);
    }
  }
}

int main() {
  const int n = kTiles * kTile;
  std::vector<float> h(n), o(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 1000) - 300.0f;
  float *din, *dout;
  CUtensorMap map = tile_column(&din, &dout, kTiles);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  pipeline<<<1, 160>>>(map, dout);
  if (finish_launch("clean_tma_pipeline") != cudaSuccess) {
    release_all();
    return 1;
  }
  cudaMemcpy(o.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += o[i] != 2.0f * h[i];
  std::printf("%s clean_tma_pipeline: %d of %d elements wrong\n", bad ? "FAIL" : "PASS", bad, n);
  release_all();
  return bad != 0;
}
