// Cluster launches inside CUDA graphs, with distributed shared memory: a
// kernel whose blocks read their cluster peers' shared memory
// (cluster.map_shared_rank) runs in clusters of 4 given at launch
// (cudaLaunchAttributeClusterDimension), three ways: cudaLaunchKernelEx
// directly, cudaLaunchKernelEx captured from a stream into a graph (replayed
// twice), and a kernel node added by hand whose cluster shape is set with
// cudaGraphKernelNodeSetAttribute (read back with ...GetAttribute). Each
// block writes, for every peer rank r, the value peer r stored in its own
// shared memory; the CPU knows what each must be, and a launch that lost
// its cluster shape (clusters of 1) would see a cluster of one block.
// Prints PASS/FAIL.
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

constexpr int kCluster = 4, kBlocks = 8, kThreads = 64;

// out[block * (kCluster + 1) + 0] = the cluster's size as the block sees it;
// out[... + 1 + r] = what peer r wrote into its shared word: 1000 * (its
// block index) + salt.
__global__ void peers(int* out, int salt) {
  __shared__ int word;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) word = 1000 * blockIdx.x + salt;
  cluster.sync();  // every peer's word is written
  int* row = out + blockIdx.x * (kCluster + 1);
  if (threadIdx.x == 0) row[0] = cluster.num_blocks();
  if (threadIdx.x < cluster.num_blocks() && threadIdx.x < kCluster)
    row[1 + threadIdx.x] = *cluster.map_shared_rank(&word, threadIdx.x);
  cluster.sync();  // no block exits while a peer still reads its word
}

static int failures = 0;

static void check(const char* how, const int* d_out, int salt) {
  std::vector<int> out(kBlocks * (kCluster + 1));
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < kBlocks; ++b) {
    const int* row = &out[b * (kCluster + 1)];
    if (row[0] != kCluster && bad++ < 3)
      std::printf("%s: block %d sees a cluster of %d blocks, not %d\n", how, b, row[0], kCluster);
    for (int r = 0; r < kCluster; ++r) {
      int want = 1000 * (b / kCluster * kCluster + r) + salt;
      if (row[1 + r] != want && bad++ < 3)
        std::printf("%s: block %d read %d from peer %d, expected %d\n", how, b, row[1 + r], r,
                    want);
    }
  }
  std::printf("%s: %s\n", how, bad ? "WRONG" : "every block read every peer");
  failures += bad != 0;
}

static cudaLaunchConfig_t config(cudaLaunchAttribute* attr, cudaStream_t s) {
  cudaLaunchConfig_t c = {};
  c.gridDim = dim3(kBlocks);
  c.blockDim = dim3(kThreads);
  c.stream = s;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = kCluster;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  c.attrs = attr;
  c.numAttrs = 1;
  return c;
}

int main() {
  int* d_out;
  const size_t bytes = kBlocks * (kCluster + 1) * sizeof(int);
  CHECK(cudaMalloc(&d_out, bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaLaunchAttribute attr;

  // 1. cudaLaunchKernelEx, no graph.
  CHECK(cudaMemset(d_out, 0, bytes));
  cudaLaunchConfig_t c = config(&attr, s);
  CHECK(cudaLaunchKernelEx(&c, peers, d_out, 1));
  CHECK(cudaStreamSynchronize(s));
  check("cudaLaunchKernelEx", d_out, 1);

  // 2. The same launch captured into a graph, replayed twice.
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(d_out, 0, bytes, s));
  CHECK(cudaLaunchKernelEx(&c, peers, d_out, 2));
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    check(i ? "captured launch, second replay" : "captured launch, first replay", d_out, 2);
  }
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));

  // 3. A kernel node built by hand, its cluster shape set as a node attribute.
  CHECK(cudaGraphCreate(&g, 0));
  int salt = 3;
  void* args[] = {&d_out, &salt};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(peers);
  p.gridDim = dim3(kBlocks);
  p.blockDim = dim3(kThreads);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddKernelNode(&node, g, nullptr, 0, &p));
  cudaLaunchAttributeValue v = {};
  v.clusterDim.x = kCluster;
  v.clusterDim.y = 1;
  v.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeClusterDimension, &v));
  cudaLaunchAttributeValue back = {};
  CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeClusterDimension, &back));
  std::printf("kernel node cluster attribute: %u,%u,%u\n", back.clusterDim.x, back.clusterDim.y,
              back.clusterDim.z);
  CHECK(cudaMemset(d_out, 0, bytes));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaStreamSynchronize(s));
  check("kernel node with a cluster attribute", d_out, 3);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d_out));
  std::printf(failures ? "FAIL cluster_graph\n" : "PASS cluster_graph\n");
  return failures ? 1 : 0;
}
