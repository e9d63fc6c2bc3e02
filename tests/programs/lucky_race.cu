// A latent race the GPU makes benign (the shape of PolyBench's mvt): blocks
// of 32 x 8 threads whose kernel ignores threadIdx.y, so the eight warps of
// a block each load x[i] once, add a row of a, and store their sum. On a
// GPU every warp loads x[i] before any of them stores, so x[i] ends as
// x0[i] + sum(row i) — the answer the program checks against. Prints PASS
// or FAIL with the number of wrong outputs, exits 0 either way.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void rowSums(const float* a, float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = x[i];
    for (int j = 0; j < n; ++j) sum += a[i * n + j];
    x[i] = sum;
  }
}

int main() {
  const int n = 256;
  std::vector<float> a(n * n), x0(n), x(n);
  srand(12);
  for (auto& v : a) v = static_cast<float>(rand() % 16) / 8.0f;  // sums are exact
  for (auto& v : x0) v = static_cast<float>(rand() % 100);
  float *da, *dx;
  cudaMalloc(&da, a.size() * sizeof(float));
  cudaMalloc(&dx, n * sizeof(float));
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x0.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  rowSums<<<n / 32, dim3(32, 8)>>>(da, dx, n);
  if (cudaError_t e = cudaDeviceSynchronize()) {
    printf("FAIL lucky_race: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(x.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float want = x0[i];
    for (int j = 0; j < n; ++j) want += a[i * n + j];
    if (x[i] != want) ++wrong;
  }
  printf("%s lucky_race: %d of %d outputs differ from the CPU's\n", wrong ? "FAIL" : "PASS", wrong,
         n);
  return 0;
}
