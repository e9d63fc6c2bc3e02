// Planted API errors for `smemlab check -- APP`: an out-of-bounds memcpy,
// a double free and a leak. The program itself ignores the error codes.
#include <cstdio>

int main() {
  float host[64] = {};
  float *a, *b;
  cudaMalloc(&a, 32 * sizeof(float));
  cudaMalloc(&b, 16 * sizeof(float));
  cudaError_t e = cudaMemcpy(a, host, 64 * sizeof(float), cudaMemcpyHostToDevice);  // 128 B past the end
  std::printf("oob memcpy: %s\n", cudaGetErrorString(e));
  cudaFree(a);
  e = cudaFree(a);  // double free
  std::printf("double free: %s\n", cudaGetErrorString(e));
  cudaMemcpy(host, b, 16 * sizeof(float), cudaMemcpyDeviceToHost);  // fine
  // b is leaked
  return 0;
}
