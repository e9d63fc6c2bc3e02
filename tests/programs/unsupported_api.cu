// A program that calls an entry point smemlab's driver does not implement
// (a CUDA graph's child-graph node; the graph itself is supported): the call
// fails with an error the program can see, smemlab names the entry point
// once on stderr (never a silent success), and the program exits normally
// (cudart's exit handler still finds the driver's export tables, which are
// never destroyed).
#include <cstdio>

int main() {
  cudaGraph_t graph, child;
  if (cudaGraphCreate(&graph, 0) != cudaSuccess || cudaGraphCreate(&child, 0) != cudaSuccess) {
    std::printf("cudaGraphCreate failed\n");
    return 1;
  }
  cudaGraphNode_t node;
  cudaError_t e = cudaGraphAddChildGraphNode(&node, graph, nullptr, 0, child);
  std::printf("cudaGraphAddChildGraphNode: %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 1 : 0;
}
