// A program whose kernel uses shared memory without bank conflicts (each
// warp reads a row): `smemlab fix -- APP` has nothing to fix.
#include <cstdio>
#include <vector>

__global__ void reverseRows(float* data) {
  __shared__ float row[8][32];
  unsigned t = threadIdx.x, w = threadIdx.y;
  float* base = data + (blockIdx.x * 8 + w) * 32;
  row[w][t] = base[t];
  __syncwarp();
  base[t] = row[w][31 - t];
}

int main() {
  const int rows = 64;
  std::vector<float> h(rows * 32);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(i);
  float* d;
  cudaMalloc(&d, h.size() * sizeof(float));
  cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  reverseRows<<<rows / 8, dim3(32, 8)>>>(d);
  cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < rows; ++r)
    for (int t = 0; t < 32; ++t) bad += h[r * 32 + t] != float(r * 32 + 31 - t);
  std::printf("reverse rows: %s\n", bad ? "WRONG" : "ok");
  cudaFree(d);
  return bad != 0;
}
