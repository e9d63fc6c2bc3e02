// A histogram in distributed shared memory (thread-block clusters, sm_90):
// each block of a cluster holds a slice of the bins, and every thread adds
// to the block that holds its bin (cluster.map_shared_rank + atomicAdd),
// between two cluster.sync(). Clusters of 2 from __cluster_dims__ (a <<<>>>
// launch), of 4 from cudaLaunchKernelEx's cluster dimension, and of 16 with
// the non-portable size attribute. Every bin is checked against a CPU
// histogram. Then the launches the driver refuses: a grid that is not a
// whole number of clusters, 16 blocks without the attribute, and a shape
// other than the kernel's __cluster_dims__. Prints PASS/FAIL.
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
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

__device__ void cluster_hist(int* bins, int nbins, int bins_per_block, const int* in, int n) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
  cluster.sync();  // every block's bins are zero before any block adds
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = min(max(in[i], 0), nbins - 1);
    int* dst = cluster.map_shared_rank(smem, b / bins_per_block);
    atomicAdd(dst + b % bins_per_block, 1);
  }
  cluster.sync();  // no block exits (freeing its bins) while peers still add
  int* out = bins + cluster.block_rank() * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&out[i], smem[i]);
}

__global__ void __cluster_dims__(2, 1, 1)
    hist2(int* bins, int nbins, int bins_per_block, const int* in, int n) {
  cluster_hist(bins, nbins, bins_per_block, in, n);
}

__global__ void hist(int* bins, int nbins, int bins_per_block, const int* in, int n) {
  cluster_hist(bins, nbins, bins_per_block, in, n);
}

static int failures = 0;

// Launches with cluster size `csize` (0: hist2 with <<<>>>), checks every bin.
static cudaError_t run(int csize, int blocks, int bins_per_block, const std::vector<int>& in,
                       const int* d_in, bool check) {
  int cs = csize ? csize : 2, nbins = cs * bins_per_block;
  int* d_bins;
  CHECK(cudaMalloc(&d_bins, nbins * sizeof(int)));
  CHECK(cudaMemset(d_bins, 0, nbins * sizeof(int)));
  size_t smem = bins_per_block * sizeof(int);
  int n = static_cast<int>(in.size());
  cudaError_t e;
  if (csize == 0) {
    hist2<<<blocks, 128, smem>>>(d_bins, nbins, bins_per_block, d_in, n);
    e = cudaGetLastError();
  } else {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = csize;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    e = cudaLaunchKernelEx(&cfg, hist, d_bins, nbins, bins_per_block, d_in, n);
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess && check) {
    std::vector<int> got(nbins), want(nbins, 0);
    CHECK(cudaMemcpy(got.data(), d_bins, nbins * sizeof(int), cudaMemcpyDeviceToHost));
    for (int v : in) ++want[v < 0 ? 0 : v >= nbins ? nbins - 1 : v];
    int bad = 0;
    for (int b = 0; b < nbins; ++b)
      if (got[b] != want[b]) {
        if (bad++ < 5) std::printf("  bin %d: %d, expected %d\n", b, got[b], want[b]);
      }
    std::printf("cluster of %d, %d blocks, %d bins: %s\n", cs, blocks, nbins,
                bad ? "WRONG" : "every bin correct");
    failures += bad != 0;
  }
  CHECK(cudaFree(d_bins));
  return e;
}

int main() {
  std::vector<int> in(100000);
  unsigned s = 12345;
  for (int& v : in) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<int>((s >> 8) % 300) - 10;  // some below 0 and above the last bin
  }
  int* d_in;
  CHECK(cudaMalloc(&d_in, in.size() * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));

  CHECK(run(0, 8, 128, in, d_in, true));  // __cluster_dims__(2,1,1)
  CHECK(run(4, 16, 64, in, d_in, true));  // cudaLaunchKernelEx, clusters of 4
  CHECK(run(2, 6, 100, in, d_in, true));

  int clusters = 0;
  {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(16);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = 64 * sizeof(int);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 4;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, hist, &cfg));
    // The GPU packs clusters into GPCs: its count is the device's own.
    std::printf("info: cudaOccupancyMaxActiveClusters (4 x 128 threads): %d\n", clusters);
    if (clusters < 1) ++failures;
  }

  // Refused launches.
  cudaError_t e = run(4, 6, 64, in, d_in, false);  // 6 blocks: not whole clusters of 4
  std::printf("grid of 6 in clusters of 4: %s\n", cudaGetErrorName(e));
  failures += e == cudaSuccess;
  cudaGetLastError();
  e = run(16, 32, 16, in, d_in, false);  // 16 > the portable 8
  std::printf("clusters of 16 without the non-portable attribute: %s\n", cudaGetErrorName(e));
  failures += e == cudaSuccess;
  cudaGetLastError();
  CHECK(cudaFuncSetAttribute(hist, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CHECK(run(16, 32, 16, in, d_in, true));
  {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = 128 * sizeof(int);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 4;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int* d_bins;
    CHECK(cudaMalloc(&d_bins, 256 * sizeof(int)));
    e = cudaLaunchKernelEx(&cfg, hist2, d_bins, 256, 128, static_cast<const int*>(d_in), 1000);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    std::printf("hist2 (__cluster_dims__(2,1,1)) in clusters of 4: %s\n", cudaGetErrorName(e));
    failures += e == cudaSuccess;
    cudaGetLastError();
    CHECK(cudaFree(d_bins));
  }
  CHECK(cudaFree(d_in));
  std::printf(failures ? "FAIL cluster_histogram\n" : "PASS cluster_histogram\n");
  return failures ? 1 : 0;
}
