// A call through a function pointer that holds no function's address: the
// launch fails (what the GPU returns is in tests/programs/CMakeLists.txt).
#include <cstdio>

typedef int (*fn_t)(int);
__device__ int twice(int x) { return 2 * x; }
__device__ fn_t d_fn = twice;

__global__ void call_through(int* out, unsigned long long bad) {
  fn_t f = threadIdx.x == 0 && bad ? reinterpret_cast<fn_t>(bad) : d_fn;
  out[threadIdx.x] = f(threadIdx.x);
}

int main() {
  int* out;
  cudaMalloc(&out, 32 * sizeof(int));
  call_through<<<1, 32>>>(out, 0);
  printf("good: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int host[32];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("good result: %s\n", host[5] == 10 ? "ok" : "wrong");
  call_through<<<1, 32>>>(out, 0x1234560ull);
  printf("bad: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  printf("DONE invalid_pc\n");
  return 0;
}
