// Graph memory nodes over several launches (the CUDA sample
// graphMemoryNodes): an allocation node's address is fixed; its memory is
// the program's from each launch until freed by a free node (of the same
// or another graph), cudaFree or cudaFreeAsync; AutoFreeOnLaunch frees it at
// the next launch; the graph memory attributes and cudaDeviceGraphMemTrim
// (values checked only where the H100 agreed: used memory while live).
// Results are checked on the host; prints "ok PART" per part.
#include "conform_checks.h"

constexpr int kN = 1 << 20;  // 4 MiB of floats

__global__ void fill(float* p, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) p[i] = v + static_cast<float>(i % 97);
}
__global__ void check(const float* p, float v, int* bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN && p[i] != v + static_cast<float>(i % 97)) atomicAdd(bad, 1);
}

// alloc -> fill(v) -> check -> [free]
cudaGraph_t make_graph(float** where, int* bad, float v, bool with_free) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams a = {};
  a.poolProps.allocType = cudaMemAllocationTypePinned;
  a.poolProps.location.type = cudaMemLocationTypeDevice;
  a.poolProps.location.id = 0;
  a.bytesize = kN * sizeof(float);
  cudaGraphNode_t alloc, k1, k2, freeing;
  CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a));
  *where = static_cast<float*>(a.dptr);
  cudaKernelNodeParams k = {};
  k.gridDim = dim3(kN / 256);
  k.blockDim = dim3(256);
  void* fill_args[] = {where, &v};
  k.func = reinterpret_cast<void*>(fill);
  k.kernelParams = fill_args;
  CHECK(cudaGraphAddKernelNode(&k1, g, &alloc, 1, &k));
  void* check_args[] = {where, &v, &bad};
  k.func = reinterpret_cast<void*>(check);
  k.kernelParams = check_args;
  CHECK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &k));
  if (with_free) CHECK(cudaGraphAddMemFreeNode(&freeing, g, &k2, 1, *where));
  return g;
}

unsigned long long attr(cudaGraphMemAttributeType t) {
  unsigned long long v = 0;
  CHECK(cudaDeviceGetGraphMemAttribute(0, t, &v));
  return v;
}

int main() {
  int* bad;
  CHECK(cudaMallocManaged(&bad, sizeof(int)));
  *bad = 0;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // Allocated and freed inside the graph, three launches.
  float* p;
  cudaGraph_t g = make_graph(&p, bad, 1.0f, true);
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int k = 0; k < 3; ++k) CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*bad == 0);
  EXPECT(attr(cudaGraphMemAttrUsedMemHigh) >= kN * sizeof(float));
  std::printf("ok alloc and free nodes, 3 launches\n");
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));

  // Allocated in the graph, used and freed outside it.
  float* q;
  g = make_graph(&q, bad, 2.0f, false);
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  check<<<kN / 256, 256, 0, s>>>(q, 2.0f, bad);
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr(cudaGraphMemAttrUsedMemCurrent) >= kN * sizeof(float));
  CHECK(cudaFree(q));
  std::printf("ok freed by cudaFree\n");
  CHECK(cudaGraphLaunch(e, s));  // the same address again
  check<<<kN / 256, 256, 0, s>>>(q, 2.0f, bad);
  CHECK(cudaFreeAsync(q, s));
  CHECK(cudaStreamSynchronize(s));
  std::printf("ok freed by cudaFreeAsync\n");
  cudaGraph_t fg;
  cudaGraphNode_t fnode;
  CHECK(cudaGraphCreate(&fg, 0));
  CHECK(cudaGraphAddMemFreeNode(&fnode, fg, nullptr, 0, q));
  cudaGraphExec_t fe;
  CHECK(cudaGraphInstantiate(&fe, fg, 0));
  CHECK(cudaGraphLaunch(e, s));
  check<<<kN / 256, 256, 0, s>>>(q, 2.0f, bad);
  CHECK(cudaGraphLaunch(fe, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*bad == 0);
  std::printf("ok freed by another graph's free node\n");
  CHECK(cudaGraphExecDestroy(fe));
  CHECK(cudaGraphDestroy(fg));
  CHECK(cudaGraphExecDestroy(e));

  // AutoFreeOnLaunch: each launch frees what the last one left.
  CHECK(cudaGraphInstantiateWithFlags(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  for (int k = 0; k < 3; ++k) CHECK(cudaGraphLaunch(e, s));
  check<<<kN / 256, 256, 0, s>>>(q, 2.0f, bad);
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*bad == 0);
  CHECK(cudaFree(q));
  std::printf("ok AutoFreeOnLaunch\n");

  // Trim: what graphs hold and nobody uses goes back.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaDeviceGraphMemTrim(0));
  unsigned long long zero = 0;
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  std::printf("ok trim and attributes\n");
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(bad));
  std::printf("PASS graph_memory\n");
  return 0;
}
