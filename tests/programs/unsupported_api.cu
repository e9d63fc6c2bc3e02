// A program that calls an entry point smemlab's driver does not implement
// (changing a CUDA graph's host node; the node itself is supported): the call
// fails with an error the program can see, smemlab names the entry point
// once on stderr (never a silent success), and the program exits normally
// (cudart's exit handler still finds the driver's export tables, which are
// never destroyed).
#include <cstdio>

static void nothing(void*) {}

int main() {
  cudaGraph_t graph;
  if (cudaGraphCreate(&graph, 0) != cudaSuccess) {
    std::printf("cudaGraphCreate failed\n");
    return 1;
  }
  cudaHostNodeParams p{nothing, nullptr};
  cudaGraphNode_t node;
  if (cudaGraphAddHostNode(&node, graph, nullptr, 0, &p) != cudaSuccess) {
    std::printf("cudaGraphAddHostNode failed\n");
    return 1;
  }
  cudaError_t e = cudaGraphHostNodeSetParams(node, &p);
  std::printf("cudaGraphHostNodeSetParams: %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 1 : 0;
}
