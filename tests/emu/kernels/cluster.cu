// Thread-block clusters: distributed shared memory, the cluster barrier,
// the cluster special registers, mbarriers of a peer block, elect.sync and
// inlined asm blocks that repeat labels (as CUTLASS pipelines do).
// Generated PTX: tests/emu/ptx/cluster.{sm90,sm100}.ptx
//   nvcc -ptx -lineinfo -arch=sm_90a cluster.cu -o cluster.sm90.ptx (sm_100a: .sm100)
// (setmaxnreg needs the "a" targets).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// A histogram in distributed shared memory (the CUDA programming guide's
// example): each block of the cluster holds bins_per_block bins; every
// thread adds to the block that holds its bin.
__device__ void cluster_hist(int* bins, int nbins, int bins_per_block, const int* in, int n) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = min(max(in[i], 0), nbins - 1);
    int* dst = cluster.map_shared_rank(smem, b / bins_per_block);
    atomicAdd(dst + b % bins_per_block, 1);
  }
  cluster.sync();
  int* lbins = bins + rank * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
}

__global__ void __cluster_dims__(2, 1, 1)
    histCluster2(int* bins, int nbins, int bins_per_block, const int* in, int n) {
  cluster_hist(bins, nbins, bins_per_block, in, n);
}

// The cluster shape comes from the launch.
__global__ void histAnyCluster(int* bins, int nbins, int bins_per_block, const int* in, int n) {
  cluster_hist(bins, nbins, bins_per_block, in, n);
}

// 16 values per block: rank, blocks, %clusterid, %nclusterid,
// %cluster_ctaid, %cluster_nctaid, %is_explicit_cluster, and a copy of
// %cluster_nctarank read through asm.
__global__ void clusterRegs(unsigned* out) {
  cg::cluster_group cluster = cg::this_cluster();
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0) {
    unsigned* o = out + b * 16;
    dim3 ci = __clusterIdx(), cd = __clusterDim(), cn = __clusterGridDimInClusters(),
         cr = __clusterRelativeBlockIdx();
    o[0] = cluster.block_rank();
    o[1] = cluster.num_blocks();
    o[2] = ci.x, o[3] = ci.y, o[4] = ci.z;
    o[5] = cn.x, o[6] = cn.y, o[7] = cn.z;
    o[8] = cr.x, o[9] = cr.y, o[10] = cr.z;
    o[11] = cd.x, o[12] = cd.y, o[13] = cd.z;
    unsigned e, r;
    asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
                 : "=r"(e));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    o[14] = e;
    o[15] = r;
  }
}

__device__ __forceinline__ void wait_parity(unsigned long long* bar, unsigned phase) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "LAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE;\n"
      "bra LAB_WAIT;\n"
      "DONE:\n"
      "}\n" ::"r"(a),
      "r"(phase));
}

// Each block's elected thread writes a word into its peer's shared memory
// and arrives on the peer's mbarrier (mapa + remote arrive); every thread
// waits on its own block's mbarrier twice (two inlined asm blocks with the
// same labels), then reads the word its peer wrote.
// out[rank * blockDim.x + t] = 100 + peer + 1000 * (t == leader)
__global__ void __cluster_dims__(2, 1, 1) peerBarrier(int* out) {
  __shared__ unsigned long long bar;
  __shared__ int data;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(&bar))),
                 "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;");
  unsigned elected;
  asm volatile("{ .reg .pred P; elect.sync _|P, 0xffffffff; selp.u32 %0, 1, 0, P; }"
               : "=r"(elected));
  if (threadIdx.x < 32 && elected) {
    unsigned peer = rank ^ 1;
    int* pd = cluster.map_shared_rank(&data, peer);
    *pd = 100 + rank;
    unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(&bar)), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(peer));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
  }
  wait_parity(&bar, 0);
  wait_parity(&bar, 0);
  out[rank * blockDim.x + threadIdx.x] = data + static_cast<int>(elected) * 1000;
  cluster.sync();
}

// Bugs: block rank 1's thread 0 skips cluster.sync() and waits at
// __syncthreads() for its block, whose other threads wait in the cluster
// barrier for it (deadlock: mode 0); rank 1 exits at once while rank 0
// still writes into its shared memory (mode 1); rank 0 maps a rank beyond
// the cluster (mode 2).
__global__ void __cluster_dims__(2, 1, 1) clusterBugs(int* out, int mode) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  s[threadIdx.x] = threadIdx.x;
  if (mode == 0) {
    if (!(rank == 1 && threadIdx.x == 0)) cluster.sync();
    __syncthreads();
  } else if (mode == 1) {
    if (rank == 1) return;
    for (int i = 0; i < 1000; ++i) out[i % 64] += i;  // rank 1 exits meanwhile
    *cluster.map_shared_rank(&s[threadIdx.x], 1) = 7;
  } else if (rank == 0) {
    *cluster.map_shared_rank(&s[threadIdx.x], 2 + threadIdx.x % 2) = 7;
  }
  out[rank * 64 + threadIdx.x] = s[threadIdx.x];
}

// Hopper control instructions that change nothing observable here.
__global__ void hopperControl(int* out) {
  asm volatile("griddepcontrol.wait;");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("fence.proxy.async.global;");
  asm volatile("fence.proxy.async;");
  asm volatile("fence.acq_rel.cluster;");
  out[threadIdx.x] = threadIdx.x;
  asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  asm volatile("griddepcontrol.launch_dependents;");
}
