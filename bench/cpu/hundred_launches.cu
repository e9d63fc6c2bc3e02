// Program-mode benchmark (docs/emulator.md, "Many launches"): 100 launches
// of a shared-tile transpose of a 256x256 matrix, back and forth, then a
// check against the input (an even number of transposes is the identity).
// Under `smemlab run -- ./hundred_launches [N]` every launch is unselected
// and must cost what one `smemlab run` of the same launch costs, no more.
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 32, kRows = 8;

// smemlab: --kernel transpose --grid 8,8 --block 32,8 --arg float[65536]=zeros --arg float[65536]=random(1) --arg int=256
__global__ void transpose(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  // An even count (default 100); a small one measures the fixed costs.
  const int n = 256, launches = argc > 1 ? std::atoi(argv[1]) / 2 * 2 : 100;
  std::vector<float> h(n * n), back(n * n);
  for (int i = 0; i < n * n; ++i) h[i] = static_cast<float>(i % 977);
  float *a, *b;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, n * n * sizeof(float));
  cudaMemcpy(a, h.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 grid(n / kTile, n / kTile), block(kTile, kRows);
  for (int i = 0; i < launches; i += 2) {
    transpose<<<grid, block>>>(b, a, n);
    transpose<<<grid, block>>>(a, b, n);
  }
  cudaMemcpy(back.data(), a, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n * n; ++i) {
    if (back[i] != h[i]) {
      std::printf("FAIL at %d: %f, expected %f\n", i, back[i], h[i]);
      return 1;
    }
  }
  std::printf("PASS %d launches\n", launches);
  return 0;
}
