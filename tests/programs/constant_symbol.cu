// __constant__ and __device__ variables: cudaMemcpyToSymbol,
// cudaMemcpyFromSymbol, cudaGetSymbolAddress.
#include <cmath>
#include <cstdio>

__constant__ float c_coef[4];
__device__ int d_counter;

__global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = c_coef[0] + v * (c_coef[1] + v * (c_coef[2] + v * c_coef[3]));
    atomicAdd(&d_counter, 1);
  }
}

int main() {
  const int n = 200;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = 0.01f * i;
  float coef[4] = {1, 2, 3, 4};
  if (cudaMemcpyToSymbol(c_coef, coef, sizeof coef) != cudaSuccess) {
    std::printf("FAIL: cudaMemcpyToSymbol\n");
    return 1;
  }
  int zero = 0;
  cudaMemcpyToSymbol(d_counter, &zero, sizeof zero);
  int* counter_addr = nullptr;
  if (cudaGetSymbolAddress(reinterpret_cast<void**>(&counter_addr), d_counter) != cudaSuccess ||
      !counter_addr) {
    std::printf("FAIL: cudaGetSymbolAddress\n");
    return 1;
  }
  float *dx, *dy;
  cudaMalloc(&dx, sizeof hx);
  cudaMalloc(&dy, sizeof hy);
  cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
  poly<<<2, 128>>>(dx, dy, n);
  cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost);
  int count = 0, count2 = 0;
  cudaMemcpyFromSymbol(&count, d_counter, sizeof count);
  cudaMemcpy(&count2, counter_addr, sizeof count2, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    float v = hx[i], want = 1 + v * (2 + v * (3 + v * 4));
    if (std::fabs(hy[i] - want) > 1e-5f * std::fabs(want)) {  // the GPU contracts to FMA
      std::printf("FAIL: y[%d] = %g, expected %g\n", i, hy[i], want);
      return 1;
    }
  }
  if (count != n || count2 != n) {
    std::printf("FAIL: counter %d / %d, expected %d\n", count, count2, n);
    return 1;
  }
  cudaFree(dx);
  cudaFree(dy);
  std::printf("PASS constant_symbol\n");
  return 0;
}
