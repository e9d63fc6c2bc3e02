#include "gpu/device_launch.h"

#include <cuda_runtime.h>

#include <memory>

namespace smemlab::gpu {
namespace {

void check(cudaError_t err, const std::string& what) {
  if (err != cudaSuccess)
    throw Error(what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

struct Library {
  cudaLibrary_t lib = nullptr;
  ~Library() {
    if (lib) cudaLibraryUnload(lib);
  }
};

struct DeviceMemory {
  void* p = nullptr;
  ~DeviceMemory() {
    if (p) cudaFree(p);
  }
};

}  // namespace

Outcome run(const Launch& launch) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    throw NoDevice("no CUDA device");
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  Outcome out;
  out.device = std::string(prop.name) + " (sm_" + std::to_string(prop.major * 10 + prop.minor) + ")";

  // The JIT log names the PTX line of any error.
  char log[8192] = {0};
  cudaJitOption opts[] = {cudaJitErrorLogBuffer, cudaJitErrorLogBufferSizeBytes};
  void* vals[] = {log, reinterpret_cast<void*>(sizeof(log))};
  Library lib;
  cudaError_t err = cudaLibraryLoadData(&lib.lib, launch.ptx.c_str(), opts, vals, 2, nullptr,
                                        nullptr, 0);
  if (err != cudaSuccess)
    throw Error(std::string("loading the PTX failed: ") + cudaGetErrorString(err) +
                (log[0] ? std::string("\n") + log : std::string()));
  cudaKernel_t kernel = nullptr;
  check(cudaLibraryGetKernel(&kernel, lib.lib, launch.kernel.c_str()),
        "kernel '" + launch.kernel + "'");
  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)), "attributes");
  out.registers = attr.numRegs;
  out.static_shared = attr.sharedSizeBytes;
  if (launch.dynamic_shared > 48 * 1024)
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(launch.dynamic_shared)),
          "dynamic shared memory limit");

  std::vector<std::unique_ptr<DeviceMemory>> memory;
  std::vector<void*> pointers(launch.args.size(), nullptr);
  std::vector<void*> params;
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const Arg& a = launch.args[i];
    if (a.is_buffer) {
      auto m = std::make_unique<DeviceMemory>();
      check(cudaMalloc(&m->p, a.bytes.size() + (a.bytes.empty() ? 1 : 0)), "cudaMalloc");
      check(cudaMemcpy(m->p, a.bytes.data(), a.bytes.size(), cudaMemcpyHostToDevice), "copy in");
      pointers[i] = m->p;
      memory.push_back(std::move(m));
      params.push_back(&pointers[i]);
    } else {
      params.push_back(const_cast<uint8_t*>(a.bytes.data()));
    }
  }
  dim3 grid(launch.grid[0], launch.grid[1], launch.grid[2]);
  dim3 block(launch.block[0], launch.block[1], launch.block[2]);
  check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, params.data(),
                         launch.dynamic_shared, nullptr),
        "launch");
  check(cudaDeviceSynchronize(), "kernel execution");

  out.buffers.resize(launch.args.size());
  for (size_t i = 0; i < launch.args.size(); ++i) {
    if (!launch.args[i].is_buffer) continue;
    out.buffers[i].resize(launch.args[i].bytes.size());
    check(cudaMemcpy(out.buffers[i].data(), pointers[i], out.buffers[i].size(),
                     cudaMemcpyDeviceToHost),
          "copy out");
  }
  if (launch.timed_launches > 0) {
    cudaEvent_t start = nullptr, stop = nullptr;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    for (int i = 0; i < launch.timed_launches; ++i) {
      check(cudaEventRecord(start), "cudaEventRecord");
      check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, params.data(),
                             launch.dynamic_shared, nullptr),
            "timed launch");
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "timed kernel execution");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      out.times_ms.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  return out;
}

}  // namespace smemlab::gpu
