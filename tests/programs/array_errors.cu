// CUDA-array mistakes check mode reports: a copy of 8 rows into a 4-row
// array (refused: memcpy-out-of-bounds, naming the array's extent), an
// array never freed (leak), and a sparse array, which smemlab does not
// emulate (refused by name, not an API error of the program).
#include <cstdio>

int main() {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaError_t e = cudaMallocArray(&a, &fd, 16, 4);
  static float rows8[16 * 8];
  cudaError_t c = cudaMemcpy2DToArray(a, 0, 0, rows8, 64, 64, 8, cudaMemcpyHostToDevice);
  cudaArray_t s;
  cudaError_t f = cudaMallocArray(&s, &fd, 16, 4, cudaArraySparse);
  std::printf("array: %s, 8-row copy: %s, sparse array: %s\n", cudaGetErrorName(e),
              cudaGetErrorName(c), cudaGetErrorName(f));
  return 0;
}
