// A whole program for `smemlab fix -- APP`: transposes a matrix through a
// 32x32 shared tile (the column read is a 32-way bank conflict), twice (back
// to the original), and a second kernel with the tile in dynamic shared
// memory. Checks its results on the CPU and prints a checksum. The tile
// kernel also reads a __constant__ and counts its blocks in a __device__
// variable, so that a proof which replaces it must keep both bound.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int kTile = 32;
constexpr int kRows = 8;  // threads per block in y: each thread moves kTile / kRows elements

__constant__ float kScale;       // the host sets 1
__device__ unsigned blocksDone;  // the host reads it after the launches

__global__ void transposeTile(float* out, const float* in, int width, int height) {
  __shared__ float tile[kTile][kTile];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < height && y + j < width)
      out[(y + j) * height + x] = kScale * tile[threadIdx.x][threadIdx.y + j];
  if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(&blocksDone, 1u);
}

__global__ void transposeDynamic(float* out, const float* in, int width, int height) {
  extern __shared__ float dyn[];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < width && y + j < height)
      dyn[(threadIdx.y + j) * kTile + threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < height && y + j < width)
      out[(y + j) * height + x] = dyn[threadIdx.x * kTile + threadIdx.y + j];
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

int main(int argc, char** argv) {
  int width = argc > 1 ? std::atoi(argv[1]) : 96, height = argc > 2 ? std::atoi(argv[2]) : 64;
  size_t n = size_t(width) * height;
  std::vector<float> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) a[i] = float(i % 1000) * 0.5f;
  float *d_a, *d_b, *d_c;
  check(cudaMalloc(&d_a, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_b, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_c, n * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(d_a, a.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy in");
  const float one = 1;
  check(cudaMemcpyToSymbol(kScale, &one, sizeof one), "cudaMemcpyToSymbol");
  dim3 block(kTile, kRows);
  dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  dim3 back((height + kTile - 1) / kTile, (width + kTile - 1) / kTile);
  // "timed" (third argument): print the first launch's time, as programs
  // that report bandwidth do; the line differs from run to run.
  const bool timed = argc > 3 && std::strcmp(argv[3], "timed") == 0;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start), "cudaEventRecord");
  transposeTile<<<grid, block>>>(d_b, d_a, width, height);
  check(cudaEventRecord(stop), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  if (timed)
    std::printf("transposeTile: %.4f ms (at %lld ns)\n", ms,
                static_cast<long long>(
                    std::chrono::steady_clock::now().time_since_epoch().count()));
  transposeTile<<<back, block>>>(d_c, d_b, height, width);
  check(cudaMemcpy(b.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  check(cudaMemcpy(c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  unsigned done = 0;
  check(cudaMemcpyFromSymbol(&done, blocksDone, sizeof done), "cudaMemcpyFromSymbol");
  int bad = done != grid.x * grid.y + back.x * back.y;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      bad += b[size_t(x) * height + y] != a[size_t(y) * width + x] ||
             c[size_t(y) * width + x] != a[size_t(y) * width + x];
  transposeDynamic<<<grid, block, kTile * kTile * sizeof(float)>>>(d_c, d_a, width, height);
  check(cudaMemcpy(c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  for (size_t i = 0; i < n; ++i) bad += c[i] != b[i];
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += b[i] * double(i % 7);
  std::printf("transpose %dx%d: %s, checksum %.1f, %u blocks\n", width, height,
              bad ? "WRONG" : "ok", sum, done);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return bad ? 1 : 0;
}
