// A kernel reads graph memory after cudaFree freed it: the GPU stops the
// kernel (an illegal address); smemlab names the freed graph allocation.
// The program prints what the synchronization returned.
#include <cstdio>

__global__ void sum(const float* p, float* out) { out[threadIdx.x] = p[threadIdx.x] + 1.0f; }

int main() {
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams a = {};
  a.poolProps.allocType = cudaMemAllocationTypePinned;
  a.poolProps.location.type = cudaMemLocationTypeDevice;
  a.bytesize = 64 << 20;  // big enough that the GPU unmaps it at the free
  cudaGraphNode_t alloc;
  cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a);
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, 0);
  float* out;
  cudaMalloc(&out, 32 * sizeof(float));
  cudaGraphLaunch(e, 0);
  cudaError_t live = cudaDeviceSynchronize();
  cudaFree(a.dptr);
  cudaDeviceGraphMemTrim(0);
  sum<<<1, 32>>>(static_cast<const float*>(a.dptr), out);
  cudaError_t after = cudaDeviceSynchronize();
  std::printf("live: %s, after free: %s\n", cudaGetErrorName(live), cudaGetErrorName(after));
  std::printf("DONE graph_memory_uaf\n");
  return live == cudaSuccess && after != cudaSuccess ? 0 : 1;
}
