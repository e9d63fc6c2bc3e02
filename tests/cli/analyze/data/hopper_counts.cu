// Hopper's counter families of `smemlab analyze` in one small kernel: a 1-D
// bulk copy (tma loads), a wgmma with both operands in shared memory
// (gmma), a store and an atomic into the cluster peer's shared memory
// (dshared), and a cp.async (ldgsts, not global loads). One warpgroup per
// block, clusters of two blocks. hopper_counts.ptx beside it is
//   nvcc -arch=sm_90a -ptx -lineinfo hopper_counts.cu
// with the .file path made relative and the recipe line added.
#include <cooperative_groups.h>

#include <cstdint>

namespace cg = cooperative_groups;

__device__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// A K-major matrix descriptor without a swizzle (PTX ISA "Matrix Descriptor").
__device__ uint64_t desc(uint32_t start, uint32_t lbo, uint32_t sbo) {
  return uint64_t{start >> 4} | uint64_t{lbo >> 4} << 16 | uint64_t{sbo >> 4} << 32;
}

__global__ void __cluster_dims__(2, 1, 1) hopperCounts(const float* in, float* out) {
  __shared__ alignas(128) float bulk[64];
  __shared__ alignas(128) float stage[128 * 4];
  __shared__ alignas(128) uint16_t a[64 * 16];
  __shared__ alignas(128) uint16_t b[8 * 16];
  __shared__ unsigned words[128];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.x;
  for (unsigned i = t; i < 64 * 16; i += 128) a[i] = 0;
  b[t] = 0;
  words[t] = t;
  if (t == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smem(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  cluster.sync();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 256;" ::"r"(smem(&bar)));
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];" ::"r"(
            smem(bulk)),
        "l"(in), "r"(smem(&bar))
        : "memory");
  }
  asm volatile(
      "{\n .reg .pred p;\n wait:\n mbarrier.try_wait.parity.shared.b64 p, [%0], 0;\n @!p bra "
      "wait;\n}\n" ::"r"(smem(&bar))
      : "memory");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&stage[t * 4])),
               "l"(in + t * 4)
               : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  const uint64_t da = desc(smem(a), 1024, 128), db = desc(smem(b), 128, 256);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
      "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(da), "l"(db), "r"(0));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  unsigned* peer = cluster.map_shared_rank(words, cluster.block_rank() ^ 1);
  peer[t] = t + 1000;
  atomicAdd(&peer[(t + 1) % 128], 1u);
  cluster.sync();
  out[blockIdx.x * 128 + t] = d0 + d1 + d2 + d3 + words[t] + stage[t * 4] + bulk[t % 64];
}
