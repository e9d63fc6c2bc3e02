// A failing assert in a kernel, and what the program sees afterwards:
// device_assert assert|trap|ok. `assert`: three threads of block (1,0,0)
// fail `v[i] < 100`; the program prints the error of the launch, of the
// synchronization, of cudaGetLastError/PeekAtLastError, and of later calls
// (an allocation, a copy, another launch), in that order. `trap`: the same
// with asm("trap;"). `ok`: the kernel passes. Natively on an H100
// (scripts/conform/gpu) the output is tests/data/h100_device_assert_*.txt;
// programs.device_assert_* compare smemlab's with it.
#include <cuda_runtime.h>

#include <cassert>
#include <cstdio>
#include <cstring>

__global__ void check_small(const int* v, int trap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (trap && v[i] >= 100) asm volatile("trap;");
  assert(v[i] < 100);
}

__global__ void touch(int* v) { v[threadIdx.x] += 1; }

static void say(const char* what, cudaError_t e) {
  std::printf("%s: %s (%d)\n", what, cudaGetErrorName(e), static_cast<int>(e));
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "assert";
  bool fail = std::strcmp(mode, "ok") != 0, trap = std::strcmp(mode, "trap") == 0;
  const int n = 128;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i % 50;
  if (fail) host[64 + 3] = host[64 + 40] = host[64 + 41] = 1000;  // block 1, threads 3, 40, 41
  int* v = nullptr;
  say("cudaMalloc", cudaMalloc(&v, sizeof(host)));
  say("cudaMemcpy to device", cudaMemcpy(v, host, sizeof(host), cudaMemcpyHostToDevice));
  check_small<<<2, 64>>>(v, trap);
  say("launch (cudaGetLastError)", cudaGetLastError());
  say("cudaDeviceSynchronize", cudaDeviceSynchronize());
  say("cudaGetLastError", cudaGetLastError());
  say("cudaPeekAtLastError", cudaPeekAtLastError());
  say("cudaGetLastError again", cudaGetLastError());
  int* w = nullptr;
  say("cudaMalloc after", cudaMalloc(&w, 64));
  say("cudaMemcpy to host after", cudaMemcpy(host, v, sizeof(host), cudaMemcpyDeviceToHost));
  touch<<<1, 32>>>(v);
  say("launch after (cudaGetLastError)", cudaGetLastError());
  say("cudaDeviceSynchronize after", cudaDeviceSynchronize());
  say("cudaStreamQuery after", cudaStreamQuery(0));
  say("cudaFree after", cudaFree(v));
  std::printf("%s device_assert %s\n", fail ? "DONE" : "PASS", mode);
  return 0;
}
