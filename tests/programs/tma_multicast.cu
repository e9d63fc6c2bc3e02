// TMA multicast probes (issue 28): which global-side sectors Nsight Compute
// counts for a cp.async.bulk.tensor load with .multicast::cluster. One
// launch per argument CLUSTER:MASK:ISSUER (default: a set that separates
// "per destination block", "per block of the cluster" and "once per copy"):
// clusters of CLUSTER blocks of one warp; block ISSUER's thread 0 loads one
// 32 x 16 float box (16 rows of 128 bytes: 64 sectors) into every block of
// MASK (cluster ranks); each destination block expects the box's bytes on
// its mbarrier and sums its tile into out[block]. The host checks the sums.
//   nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a] -o tma_multicast tma_multicast.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tensor_map.cuh"

constexpr int kCols = 32, kRows = 16, kTensorRows = 64;

__device__ uint32_t smem_of(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void multicast_probe(const __grid_constant__ CUtensorMap map, unsigned mask,
                                unsigned issuer, float* out) {
  __shared__ alignas(128) float tile[kCols * kRows];
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  const bool dest = mask >> rank & 1;
  const uint32_t sbar = smem_of(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every block's barrier is initialised before any copy signals it.
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  if (threadIdx.x == 0 && dest)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar),
                 "r"(kCols * kRows * 4)
                 : "memory");
  if (threadIdx.x == 0 && rank == issuer)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_of(tile)),
        "l"(&map), "r"(0), "r"(static_cast<int>(blockIdx.x / size) % (kTensorRows / kRows) * kRows),
        "r"(sbar), "h"(static_cast<uint16_t>(mask))
        : "memory");
  float sum = 0.0f;
  if (dest) {
    asm volatile(
        "{\n .reg .pred p;\n WAIT:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        " @!p bra WAIT;\n}" ::"r"(sbar)
        : "memory");
    for (int i = threadIdx.x; i < kCols * kRows; i += 32) sum += tile[i];
    for (int o = 16; o; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = dest ? sum : -1.0f;
  // No block exits while a peer's copy may still write its shared memory.
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

int main(int argc, char** argv) {
  std::vector<std::string> runs;
  for (int i = 1; i < argc; ++i) runs.push_back(argv[i]);
  if (runs.empty())
    runs = {"2:3:0", "4:1:0", "4:2:0", "4:3:0", "4:5:0", "4:7:0", "4:15:0", "4:12:1"};
  const EncodeTiled encode = encode_tiled();
  if (!encode) {
    std::printf("FAIL no cuTensorMapEncodeTiled\n");
    return 1;
  }
  const int n = kCols * kTensorRows;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 97);
  float *din = nullptr, *dout = nullptr;
  constexpr int kClusters = 2;
  if (cudaMalloc(&din, n * 4) != cudaSuccess ||
      cudaMalloc(&dout, 4 * kClusters * 4) != cudaSuccess) {
    std::printf("FAIL cudaMalloc\n");
    return 1;
  }
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  CUtensorMap map;
  cuuint64_t dims[2] = {kCols, kTensorRows}, strides[1] = {kCols * 4};
  cuuint32_t box[2] = {kCols, kRows}, es[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, din, dims, strides, box, es,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("FAIL cuTensorMapEncodeTiled\n");
    return 1;
  }
  int failures = 0;
  for (const std::string& r : runs) {
    unsigned cluster = 0, mask = 0, issuer = 0;
    if (std::sscanf(r.c_str(), "%u:%u:%u", &cluster, &mask, &issuer) != 3 || cluster < 1 ||
        cluster > 4 || mask == 0 || mask >> cluster || issuer >= cluster) {
      std::printf("FAIL bad run '%s' (CLUSTER:MASK:ISSUER, cluster 1..4)\n", r.c_str());
      return 2;
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster * kClusters);
    cfg.blockDim = dim3(32);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&cfg, multicast_probe, map, mask, issuer, dout);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    std::vector<float> got(cluster * kClusters);
    if (e == cudaSuccess) e = cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost);
    int bad = e != cudaSuccess;
    for (unsigned b = 0; b < got.size() && e == cudaSuccess; ++b) {
      float want = -1.0f;
      if (mask >> (b % cluster) & 1) {
        want = 0.0f;
        const int row0 = static_cast<int>(b / cluster) % (kTensorRows / kRows) * kRows;
        for (int i = 0; i < kCols * kRows; ++i) want += h[row0 * kCols + i];
      }
      bad += got[b] != want;
    }
    std::printf("%s cluster %u mask %#x issuer %u%s%s\n", bad ? "FAIL" : "ok", cluster, mask,
                issuer, e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorName(e) : "");
    failures += bad != 0;
  }
  std::printf("%s tma_multicast\n", failures ? "FAIL" : "PASS");
  cudaFree(din);
  cudaFree(dout);
  return failures != 0;
}
