// A program for the program-mode page (`analyze --html FILE -- ./launches`):
// three launches of two kernels with different configurations, one kernel
// with a 32-way conflicted column read of a shared tile. It checks its own
// results.
#include <cstdio>
#include <vector>

__global__ void readColumn(const float* in, float* out) {
  __shared__ float tile[32][32];
  unsigned x = threadIdx.x, y = threadIdx.y;
  size_t base = size_t(blockIdx.x) * 1024;
  tile[y][x] = in[base + y * 32 + x];
  __syncthreads();
  out[base + y * 32 + x] = tile[x][y];  // column read: all 32 lanes in one bank
}

__global__ void scale(float* v, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= f;
}

int main() {
  const int blocks = 3, n = blocks * 1024;
  std::vector<float> h(n), r(n);
  for (int i = 0; i < n; ++i) h[i] = float(i);
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  readColumn<<<2, dim3(32, 32)>>>(in, out);
  scale<<<(n + 255) / 256, 256>>>(out, 2.0f, n);
  readColumn<<<1, dim3(32, 32), 0>>>(in + 2 * 1024, out + 2 * 1024);
  cudaMemcpy(r.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  int bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x) {
        float want = h[b * 1024 + x * 32 + y] * (b < 2 ? 2.0f : 1.0f);
        bad += r[b * 1024 + y * 32 + x] != want;
      }
  std::printf("%s launches (%d wrong)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
