// Cooperative launches with grid-wide synchronization
// (cooperative_groups::this_grid().sync()): an iterative 1-D stencil whose
// steps are separated by grid barriers, and a two-phase reduction, through
// cudaLaunchCooperativeKernel and cudaLaunchKernelEx with the cooperative
// attribute; each result is checked against a CPU computation. A grid larger
// than fits on the device at once is refused (cudaErrorCooperativeLaunchTooLarge).
// With argument "deadlock": one block leaves before the grid barrier, which
// the others then wait at forever; the launch must end with an error.
#include <cooperative_groups.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// `steps` Jacobi steps of u[i] = (u[i-1] + u[i] + u[i+1]) / 3 (ends fixed),
// ping-ponging between a and b; every step reads all of the previous one.
__global__ void stencil(float* a, float* b, int n, int steps) {
  cg::grid_group grid = cg::this_grid();
  for (int s = 0; s < steps; ++s) {
    const float* in = s % 2 ? b : a;
    float* out = s % 2 ? a : b;
    for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size())) {
      out[i] = i == 0 || i == n - 1 ? in[i] : (in[i - 1] + in[i] + in[i + 1]) / 3.f;
    }
    grid.sync();
  }
}

// Phase 1: a partial sum per block; phase 2 (after the grid barrier): block
// 0 adds the partial sums up.
__global__ void reduce(const int* x, int* partial, int* total, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int s[256];
  int sum = 0;
  for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size()))
    sum += x[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int t = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
    *total = t;
  }
}

__global__ void broken_sync(int* x) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == 1) return;  // never reaches the barrier
  x[blockIdx.x] = 1;
  grid.sync();
}

int main(int argc, char** argv) {
  int coop = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (!coop) {
    std::printf("FAIL: cudaDevAttrCooperativeLaunch is 0\n");
    return 1;
  }

  if (argc > 1 && std::strcmp(argv[1], "deadlock") == 0) {
    int* d;
    CHECK(cudaMalloc(&d, 4 * sizeof(int)));
    void* args[] = {&d};
    cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(broken_sync), dim3(4),
                                                dim3(64), args, 0, nullptr);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    std::printf("broken grid barrier: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 1 : 0;
  }

  // ---- stencil -------------------------------------------------------------
  const int n = 3000, steps = 20, threads = 128;
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stencil, threads, 0));
  int blocks = 6;  // fewer than fit (per_sm * sms), so each thread handles several points
  if (blocks > per_sm * sms) {
    std::printf("FAIL: only %d blocks fit\n", per_sm * sms);
    return 1;
  }
  std::vector<float> u(n);
  for (int i = 0; i < n; ++i) u[i] = static_cast<float>((i * 37) % 101);
  float *a, *b;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMemcpy(a, u.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int nn = n, ss = steps;
  void* sargs[] = {&a, &b, &nn, &ss};
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(stencil), dim3(blocks), dim3(threads),
                                    sargs, 0, nullptr));
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(n), ref = u, tmp(n);
  CHECK(cudaMemcpy(got.data(), steps % 2 ? b : a, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i)
      tmp[i] = i == 0 || i == n - 1 ? ref[i] : (ref[i - 1] + ref[i] + ref[i + 1]) / 3.f;
    ref.swap(tmp);
  }
  for (int i = 0; i < n; ++i)
    if (std::fabs(got[i] - ref[i]) > 1e-4f * (1.f + std::fabs(ref[i]))) {
      std::printf("FAIL stencil: u[%d] = %f, want %f\n", i, got[i], ref[i]);
      return 1;
    }
  std::printf("stencil: %d steps over %d points in %d blocks: correct\n", steps, n, blocks);

  // ---- reduction through cudaLaunchKernelEx --------------------------------
  const int m = 10000, rblocks = 8;
  std::vector<int> x(m);
  long long want = 0;
  for (int i = 0; i < m; ++i) want += x[i] = (i * 7919) % 1000 - 500;
  int *dx, *partial, *total;
  CHECK(cudaMalloc(&dx, m * sizeof(int)));
  CHECK(cudaMalloc(&partial, rblocks * sizeof(int)));
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMemcpy(dx, x.data(), m * sizeof(int), cudaMemcpyHostToDevice));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(rblocks);
  cfg.blockDim = dim3(256);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, reduce, static_cast<const int*>(dx), partial, total, m));
  int t = 0;
  CHECK(cudaMemcpy(&t, total, sizeof(int), cudaMemcpyDeviceToHost));
  if (t != want) {
    std::printf("FAIL reduce: %d, want %lld\n", t, want);
    return 1;
  }
  std::printf("reduce: sum of %d values in %d blocks: correct\n", m, rblocks);

  // ---- too large -----------------------------------------------------------
  int rper_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&rper_sm, reduce, 256, 0));
  void* rargs[] = {&dx, &partial, &total, &nn};
  cudaError_t e = cudaLaunchCooperativeKernel(
      reinterpret_cast<void*>(reduce), dim3(rper_sm * sms + 1), dim3(256), rargs, 0, nullptr);
  (void)cudaGetLastError();
  std::printf("%d blocks (%d fit): %s\n", rper_sm * sms + 1, rper_sm * sms, cudaGetErrorName(e));
  if (e != cudaErrorCooperativeLaunchTooLarge) return 1;

  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(partial));
  CHECK(cudaFree(total));
  std::printf("PASS cooperative\n");
  return 0;
}
