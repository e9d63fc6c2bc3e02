// The cluster special registers, as every block of a launch sees them:
// %cluster_ctarank, %cluster_nctarank, %clusterid, %nclusterid,
// %cluster_ctaid, %cluster_nctaid and %is_explicit_cluster, for a 3-D
// cluster launch (cudaLaunchKernelEx), a __cluster_dims__ kernel and a
// plain launch (a grid of 1x1x1 clusters). The program checks each value
// against what the CUDA programming guide defines and prints a digest per
// launch, and the kernels' cluster attributes (cudaFuncGetAttributes), so
// that a run on the GPU and one under smemlab compare line by line.
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

constexpr int kValues = 16;

__device__ void dump(unsigned* out) {
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x != 0) return;
  unsigned* o = out + b * kValues;
  unsigned v[kValues];
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[0]));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[1]));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v[2]));
  asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v[3]));
  asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v[4]));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v[5]));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v[6]));
  asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(v[7]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v[8]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v[9]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(v[10]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v[11]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v[12]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(v[13]));
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
               : "=r"(v[14]));
  v[15] = cg::this_cluster().block_rank();  // the same through cooperative groups
  for (int i = 0; i < kValues; ++i) o[i] = v[i];
}

__global__ void regs(unsigned* out) { dump(out); }
__global__ void __cluster_dims__(2, 2, 1) regs22(unsigned* out) { dump(out); }

static int failures = 0;

static void check(const char* what, dim3 grid, dim3 cl, bool is_explicit, const unsigned* v) {
  unsigned bad = 0, sum = 0;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        const unsigned* o = v + ((z * grid.y + y) * grid.x + x) * kValues;
        unsigned rx = x % cl.x, ry = y % cl.y, rz = z % cl.z;
        unsigned want[kValues] = {rx + cl.x * (ry + cl.y * rz),
                                  cl.x * cl.y * cl.z,
                                  x / cl.x, y / cl.y, z / cl.z,
                                  grid.x / cl.x, grid.y / cl.y, grid.z / cl.z,
                                  rx, ry, rz,
                                  cl.x, cl.y, cl.z,
                                  is_explicit ? 1u : 0u,
                                  rx + cl.x * (ry + cl.y * rz)};
        for (int i = 0; i < kValues; ++i) {
          sum = sum * 31 + o[i];
          if (o[i] != want[i] && bad++ < 5)
            std::printf("  block (%u,%u,%u) value %d: %u, expected %u\n", x, y, z, i, o[i],
                        want[i]);
        }
      }
  std::printf("%s: grid (%u,%u,%u) clusters (%u,%u,%u): %s, digest %08x\n", what, grid.x, grid.y,
              grid.z, cl.x, cl.y, cl.z, bad ? "WRONG" : "every register correct", sum);
  failures += bad != 0;
}

static void attributes(const char* name, const void* k) {
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, k));
  std::printf("%s: clusterDimMustBeSet %d, requiredCluster %d,%d,%d, nonPortableClusterSizeAllowed "
              "%d, clusterSchedulingPolicyPreference %d\n",
              name, a.clusterDimMustBeSet, a.requiredClusterWidth, a.requiredClusterHeight,
              a.requiredClusterDepth, a.nonPortableClusterSizeAllowed,
              a.clusterSchedulingPolicyPreference);
}

int main() {
  const dim3 grid(4, 6, 4), cl(2, 3, 1);
  const size_t n = static_cast<size_t>(grid.x) * grid.y * grid.z * kValues;
  unsigned* d;
  CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
  std::vector<unsigned> h(n);

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(64);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cl.x;
  attr[0].val.clusterDim.y = cl.y;
  attr[0].val.clusterDim.z = cl.z;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, regs, d));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  check("cudaLaunchKernelEx", grid, cl, true, h.data());

  regs22<<<dim3(4, 6, 4), 64>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  check("__cluster_dims__(2,2,1)", grid, dim3(2, 2, 1), true, h.data());

  regs<<<grid, 64>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  check("plain launch", grid, dim3(1, 1, 1), false, h.data());

  attributes("regs", reinterpret_cast<const void*>(regs));
  attributes("regs22", reinterpret_cast<const void*>(regs22));
  CHECK(cudaFuncSetAttribute(regs, cudaFuncAttributeRequiredClusterWidth, 2));
  CHECK(cudaFuncSetAttribute(regs, cudaFuncAttributeRequiredClusterHeight, 1));
  CHECK(cudaFuncSetAttribute(regs, cudaFuncAttributeRequiredClusterDepth, 1));
  CHECK(cudaFuncSetAttribute(regs, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  attributes("regs after cudaFuncSetAttribute", reinterpret_cast<const void*>(regs));
  cudaError_t e = cudaFuncSetAttribute(regs22, cudaFuncAttributeRequiredClusterWidth, 4);
  std::printf("regs22: setting the required cluster width: %s\n", cudaGetErrorName(e));
  cudaGetLastError();
  int v = 0;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0));
  std::printf("cudaDevAttrClusterLaunch %d\n", v);
  failures += v != 1;

  CHECK(cudaFree(d));
  std::printf(failures ? "FAIL cluster_regs\n" : "PASS cluster_regs\n");
  return failures ? 1 : 0;
}
