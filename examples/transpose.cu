// A whole CUDA program for `smemlab analyze -- ./transpose`: it transposes a
// matrix through a shared-memory tile and checks the result on the CPU.
// The tile is 32x32 floats without padding, so the column read in the
// second half is a 32-way bank conflict; `float tile[32][33]` removes it.
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 32;

__global__ void transpose(const float* in, float* out, int width, int height) {
  __shared__ float tile[kTile][kTile];  // conflict: no padding column
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

int main(int argc, char** argv) {
  int width = argc > 1 ? std::atoi(argv[1]) : 256, height = argc > 2 ? std::atoi(argv[2]) : 128;
  std::vector<float> h(width * height), t(width * height);
  for (int i = 0; i < width * height; ++i) h[i] = static_cast<float>(i % 1000);
  float *in, *out;
  cudaMalloc(&in, h.size() * sizeof(float));
  cudaMalloc(&out, h.size() * sizeof(float));
  cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(kTile, kTile), grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  transpose<<<grid, block>>>(in, out, width, height);
  cudaError_t e = cudaMemcpy(t.data(), out, t.size() * sizeof(float), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (t[x * height + y] != h[y * width + x]) {
        std::printf("wrong result at (%d, %d)\n", x, y);
        return 1;
      }
  cudaFree(in);
  cudaFree(out);
  std::printf("transposed a %dx%d matrix: correct\n", width, height);
  return 0;
}
