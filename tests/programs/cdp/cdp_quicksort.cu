// Dynamic parallelism (CDP2): a recursive quicksort. Each grid partitions
// its range and launches one child grid per half into a stream it creates
// on the device (cudaStreamNonBlocking, as the GPU requires), or sorts a
// small range itself. Checked against std::sort on the CPU.
#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kSmall = 16;      // ranges this short are sorted by one thread
constexpr int kMaxDepth = 20;   // deeper ranges too (the device's limit is 24)

__device__ void insertion_sort(unsigned* a, int lo, int hi) {
  for (int i = lo + 1; i <= hi; ++i) {
    unsigned v = a[i];
    int j = i - 1;
    while (j >= lo && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

__global__ void quicksort(unsigned* a, int lo, int hi, int depth, int* grids) {
  atomicAdd(grids, 1);
  if (hi - lo < kSmall || depth >= kMaxDepth) {
    insertion_sort(a, lo, hi);
    return;
  }
  unsigned pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      unsigned t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  if (lo < j) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(a, lo, j, depth + 1, grids);
    cudaStreamDestroy(s);
  }
  if (i < hi) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(a, i, hi, depth + 1, grids);
    cudaStreamDestroy(s);
  }
}

int main() {
  const int n = 3000;
  std::vector<unsigned> h(n);
  unsigned x = 12345;
  for (auto& v : h) v = (x = x * 1103515245u + 12345u) >> 8;
  unsigned* d = nullptr;
  int* grids = nullptr;
  cudaMalloc(&d, n * sizeof(unsigned));
  cudaMalloc(&grids, sizeof(int));
  cudaMemset(grids, 0, sizeof(int));
  cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  quicksort<<<1, 1>>>(d, 0, n - 1, 0, grids);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::vector<unsigned> got(n);
  int g = 0;
  cudaMemcpy(got.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(&g, grids, sizeof g, cudaMemcpyDeviceToHost);
  std::sort(h.begin(), h.end());
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += got[i] != h[i];
  printf("launch %s, sync %s, %d grids, %d misplaced\n", cudaGetErrorName(launch),
         cudaGetErrorName(sync), g, wrong);
  cudaFree(d);
  cudaFree(grids);
  bool ok = !launch && !sync && wrong == 0 && g > 1;
  printf("%s cdp_quicksort\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
