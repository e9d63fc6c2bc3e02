// Probe (h-hop28e, run 12): what an H100 does when a block of a cluster
// arrives on an mbarrier of a peer that has already exited: fast.cu's
// kernels 9 to 12 end so (their consumers' last remote arrive on the
// peer's "empty" barrier, no cluster.sync() before exit), and
// `smemlab check` reports it as cluster-exit. Cluster of 2: rank 1 inits
// its barrier, both meet at a cluster barrier, rank 1 exits at once; rank
// 0's thread 0 spins DELAY_NS (argument) on the global timer and then
// arrives on rank 1's barrier. Prints the launch's error.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void __cluster_dims__(2, 1, 1) arrive_late(unsigned long long delay_ns, int* out) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
  if (rank == 1 || threadIdx.x != 0) return;
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < delay_ns);
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, 1;\n"
      " mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}" ::"r"(b)
      : "memory");
  out[0] = 1;
}

int main(int argc, char** argv) {
  const unsigned long long delay = argc > 1 ? strtoull(argv[1], nullptr, 10) : 0;
  int* d;
  cudaMalloc(&d, 4);
  arrive_late<<<2, 32>>>(delay, d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("exit_arrive_probe delay %llu ns: %s\n", delay, cudaGetErrorName(e));
  cudaFree(d);
  return e != cudaSuccess;
}
