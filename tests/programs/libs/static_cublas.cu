// Stands for a program linked with -lcublas_static (the toolkit here has no
// static cuBLAS to link): it defines cuBLAS's cublasCreate_v2 in its own
// executable, as the static library would. smemlab must name the link flag
// to use instead (src/runtime/static_libraries.h).
#include <cuda_runtime.h>

#include <cstdio>

extern "C" int cublasCreate_v2(void** handle) {
  *handle = nullptr;
  return 0;
}

int main() {
  void* h;
  void* p;
  cublasCreate_v2(&h);
  cudaError_t e = cudaMalloc(&p, 64);
  std::printf("DONE static_cublas %s\n", cudaGetErrorString(e));
  cudaFree(p);
  return 0;
}
