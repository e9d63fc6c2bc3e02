// A kernel the emulator cannot decode (multimem.ld_reduce: multicast memory,
// which it does not emulate), reached through every path of the driver that
// decodes a kernel. Each must hand the program an error it can see -- never
// an exception out of libcuda.so.1 (std::terminate, SIGABRT) -- and smemlab
// says which kernel and which PTX line. `undecodable MODE` takes one path;
// the program exits 0 when the call failed as expected, 1 when it did not.
#include <cooperative_groups.h>

#include <cstdio>
#include <cstring>

__global__ void __cluster_dims__(2, 1, 1) cluster_bad(unsigned* out, const unsigned* mc) {
  unsigned v;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];" : "=r"(v) : "l"(mc));
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void bad(unsigned* out, const unsigned* mc) {
  unsigned v;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];" : "=r"(v) : "l"(mc));
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

namespace {

unsigned* g_buf;

// As a Hopper cluster kernel with a large shared tile is launched: opt in
// to more than 48 KiB of dynamic shared memory, then cudaLaunchKernelEx.
cudaError_t launch_ex() {
  cudaError_t set =
      cudaFuncSetAttribute(cluster_bad, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 << 10);
  std::printf("launch-ex: cudaFuncSetAttribute %s\n", cudaGetErrorName(set));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(2);
  cfg.blockDim = dim3(32);
  cfg.dynamicSmemBytes = 100 << 10;
  return cudaLaunchKernelEx(&cfg, cluster_bad, g_buf, static_cast<const unsigned*>(g_buf));
}

cudaError_t launch_plain() {
  bad<<<2, 32>>>(g_buf, g_buf);
  return cudaGetLastError();
}

cudaError_t launch_cooperative() {
  void* args[] = {&g_buf, &g_buf};
  return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(bad), dim3(2), dim3(32), args);
}

// The graph's kernel node, added explicitly, then instantiated and launched.
cudaError_t graph_node() {
  cudaGraph_t g;
  if (cudaError_t e = cudaGraphCreate(&g, 0); e != cudaSuccess) return e;
  void* args[] = {&g_buf, &g_buf};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(bad);
  p.gridDim = dim3(2);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  cudaGraphNode_t n;
  if (cudaError_t e = cudaGraphAddKernelNode(&n, g, nullptr, 0, &p); e != cudaSuccess) return e;
  cudaGraphExec_t x;
  if (cudaError_t e = cudaGraphInstantiate(&x, g, 0); e != cudaSuccess) return e;
  if (cudaError_t e = cudaGraphLaunch(x, 0); e != cudaSuccess) return e;
  return cudaStreamSynchronize(0);
}

// The same launch recorded by stream capture (cudaLaunchKernelEx, as in
// the crash), then replayed.
cudaError_t graph_capture() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(2);
  cfg.blockDim = dim3(32);
  cfg.stream = s;
  cudaError_t launched =
      cudaLaunchKernelEx(&cfg, cluster_bad, g_buf, static_cast<const unsigned*>(g_buf));
  if (cudaError_t e = cudaStreamEndCapture(s, &g); e != cudaSuccess) return e;
  if (launched != cudaSuccess) return launched;
  cudaGraphExec_t x;
  if (cudaError_t e = cudaGraphInstantiate(&x, g, 0); e != cudaSuccess) return e;
  if (cudaError_t e = cudaGraphLaunch(x, s); e != cudaSuccess) return e;
  return cudaStreamSynchronize(s);
}

cudaError_t attributes() {
  cudaFuncAttributes a;
  return cudaFuncGetAttributes(&a, bad);
}

cudaError_t set_attribute() {
  return cudaFuncSetAttribute(bad, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
}

cudaError_t occupancy() {
  int n = 0;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, bad, 128, 0);
}

cudaError_t occupancy_block_size() {
  int grid = 0, block = 0;
  return cudaOccupancyMaxPotentialBlockSize(&grid, &block, bad);
}

struct Mode {
  const char* name;
  cudaError_t (*run)();
};
const Mode kModes[] = {
    {"launch-ex", launch_ex},
    {"launch", launch_plain},
    {"cooperative", launch_cooperative},
    {"graph-node", graph_node},
    {"graph-capture", graph_capture},
    {"attributes", attributes},
    {"set-attribute", set_attribute},
    {"occupancy", occupancy},
    {"occupancy-block-size", occupancy_block_size},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: undecodable MODE\n");
    return 2;
  }
  cudaMalloc(&g_buf, 1024);
  for (const Mode& m : kModes)
    if (std::strcmp(argv[1], m.name) == 0) {
      cudaError_t e = m.run();
      std::printf("%s: %s\n", m.name, cudaGetErrorName(e));
      cudaGetLastError();
      // The program goes on: the failure is the call's, not the process's.
      std::printf("after %s: cudaMemset %s\n", m.name,
                  cudaGetErrorName(cudaMemset(g_buf, 0, 1024)));
      cudaFree(g_buf);
      return e == cudaSuccess ? 1 : 0;
    }
  std::fprintf(stderr, "undecodable: unknown mode %s\n", argv[1]);
  return 2;
}
