// thrust::sort on device_vector (CUB's radix sort underneath), verified.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <algorithm>
#include <cstdio>

int main() {
  const int n = 5000;
  thrust::host_vector<unsigned> h(n);
  unsigned s = 12345;
  for (int i = 0; i < n; ++i) h[i] = (s = s * 1103515245u + 12345u) >> 8;
  thrust::device_vector<unsigned> d = h;
  thrust::sort(d.begin(), d.end());
  thrust::host_vector<unsigned> got = d;
  std::sort(h.begin(), h.end());
  for (int i = 0; i < n; ++i)
    if (got[i] != h[i]) {
      std::printf("FAIL: sorted[%d] = %u, expected %u\n", i, got[i], h[i]);
      return 1;
    }
  std::printf("PASS thrust_sort\n");
  return 0;
}
