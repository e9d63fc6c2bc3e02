// Dynamic parallelism (CDP2): a tree of grids, as cuda-samples'
// cdpSimplePrint grows it: every thread of a 2x2 grid launches a 2x2 grid
// until depth 3, each block printing its place. Each block also records
// (depth, parent) in a log; the CPU checks the tree's shape from it (the
// GPU's print order is not defined, the shape is).
#include <cstdio>
#include <vector>

constexpr int kMaxDepth = 3, kBlocks = 2, kThreads = 2, kMaxNodes = 256;
__device__ int g_next_uid;

__global__ void node(int depth, int parent_uid, int2* log) {
  __shared__ int uid;
  if (threadIdx.x == 0) {
    uid = atomicAdd(&g_next_uid, 1);
    if (uid < kMaxNodes) log[uid] = make_int2(depth, parent_uid);
    printf("depth %d: block %d of a grid launched by %d\n", depth, blockIdx.x, parent_uid);
  }
  __syncthreads();
  if (depth + 1 < kMaxDepth) node<<<kBlocks, kThreads>>>(depth + 1, uid, log);
}

int main() {
  int2* log = nullptr;
  cudaMalloc(&log, kMaxNodes * sizeof(int2));
  node<<<kBlocks, kThreads>>>(0, -1, log);
  cudaError_t sync = cudaDeviceSynchronize();
  int n = 0;
  cudaMemcpyFromSymbol(&n, g_next_uid, sizeof n);
  std::vector<int2> h(kMaxNodes);
  cudaMemcpy(h.data(), log, sizeof(int2) * kMaxNodes, cudaMemcpyDeviceToHost);
  // The expected shape: kBlocks roots; each non-leaf block's kThreads
  // threads launch kBlocks blocks each.
  int per_depth[kMaxDepth] = {}, want_depth[kMaxDepth], want_total = 0, bad = 0;
  for (int d = 0, w = kBlocks; d < kMaxDepth; ++d, w *= kBlocks * kThreads)
    want_total += want_depth[d] = w;
  std::vector<int> children(kMaxNodes, 0);
  for (int u = 0; u < n && u < kMaxNodes; ++u) {
    int d = h[u].x, p = h[u].y;
    if (d < 0 || d >= kMaxDepth) { ++bad; continue; }
    ++per_depth[d];
    if ((d == 0) != (p < 0)) ++bad;
    if (p >= 0) {
      if (p >= n || h[p].x != d - 1) ++bad;
      ++children[p];
    }
  }
  for (int u = 0; u < n && u < kMaxNodes; ++u)
    if (children[u] != (h[u].x + 1 < kMaxDepth ? kBlocks * kThreads : 0)) ++bad;
  for (int d = 0; d < kMaxDepth; ++d) {
    printf("depth %d: %d blocks (expected %d)\n", d, per_depth[d], want_depth[d]);
    bad += per_depth[d] != want_depth[d];
  }
  cudaFree(log);
  bool ok = !sync && n == want_total && bad == 0;
  printf("sync %s, %d blocks, %d inconsistent\n", cudaGetErrorName(sync), n, bad);
  printf("%s cdp_print_tree\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
