// A program whose only CUDA call is one smemlab's driver does not implement
// (CUDA graphs): the call fails with an error the program can see, smemlab
// names the entry point once on stderr (never a silent success), and the
// program exits normally (cudart's exit handler still finds the driver's
// export tables, which are never destroyed).
#include <cstdio>

int main() {
  cudaGraph_t graph;
  cudaError_t e = cudaGraphCreate(&graph, 0);
  std::printf("cudaGraphCreate: %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 1 : 0;
}
