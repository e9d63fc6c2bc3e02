// Dumps every device attribute (cuDeviceGetAttribute, 1 .. CU_DEVICE_ATTRIBUTE_MAX-1)
// and every field of cudaGetDeviceProperties, one "name value" line each.
// Run natively on an H100 (scripts/conform-gpu) its output is
// tests/data/h100_device_attributes.txt; programs.device_attributes runs it
// under smemlab and compares (device_attributes_test.sh).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

#define CHECK(x)                                              \
  do {                                                        \
    cudaError_t e_ = (x);                                     \
    if (e_ != cudaSuccess) {                                  \
      std::printf("FAIL %s: %s\n", #x, cudaGetErrorName(e_)); \
      return 1;                                               \
    }                                                         \
  } while (0)

static void attribute(CUdevice dev, CUdevice_attribute a, const char* name) {
  int v = 0;
  CUresult r = cuDeviceGetAttribute(&v, a, dev);
  if (r == CUDA_SUCCESS) {
    std::printf("attr %s %d\n", name, v);
  } else {
    const char* e = "?";
    cuGetErrorName(r, &e);
    std::printf("attr %s error %s\n", name, e);
  }
}

int main() {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  CUdevice dev;
  if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return 1;
#define A(x) attribute(dev, CU_DEVICE_ATTRIBUTE_##x, #x);
  A(MAX_THREADS_PER_BLOCK)
  A(MAX_BLOCK_DIM_X)
  A(MAX_BLOCK_DIM_Y)
  A(MAX_BLOCK_DIM_Z)
  A(MAX_GRID_DIM_X)
  A(MAX_GRID_DIM_Y)
  A(MAX_GRID_DIM_Z)
  A(MAX_SHARED_MEMORY_PER_BLOCK)
  A(TOTAL_CONSTANT_MEMORY)
  A(WARP_SIZE)
  A(MAX_PITCH)
  A(MAX_REGISTERS_PER_BLOCK)
  A(CLOCK_RATE)
  A(TEXTURE_ALIGNMENT)
  A(GPU_OVERLAP)
  A(MULTIPROCESSOR_COUNT)
  A(KERNEL_EXEC_TIMEOUT)
  A(INTEGRATED)
  A(CAN_MAP_HOST_MEMORY)
  A(COMPUTE_MODE)
  A(MAXIMUM_TEXTURE1D_WIDTH)
  A(MAXIMUM_TEXTURE2D_WIDTH)
  A(MAXIMUM_TEXTURE2D_HEIGHT)
  A(MAXIMUM_TEXTURE3D_WIDTH)
  A(MAXIMUM_TEXTURE3D_HEIGHT)
  A(MAXIMUM_TEXTURE3D_DEPTH)
  A(MAXIMUM_TEXTURE2D_LAYERED_WIDTH)
  A(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT)
  A(MAXIMUM_TEXTURE2D_LAYERED_LAYERS)
  A(SURFACE_ALIGNMENT)
  A(CONCURRENT_KERNELS)
  A(ECC_ENABLED)
  A(PCI_BUS_ID)
  A(PCI_DEVICE_ID)
  A(TCC_DRIVER)
  A(MEMORY_CLOCK_RATE)
  A(GLOBAL_MEMORY_BUS_WIDTH)
  A(L2_CACHE_SIZE)
  A(MAX_THREADS_PER_MULTIPROCESSOR)
  A(ASYNC_ENGINE_COUNT)
  A(UNIFIED_ADDRESSING)
  A(MAXIMUM_TEXTURE1D_LAYERED_WIDTH)
  A(MAXIMUM_TEXTURE1D_LAYERED_LAYERS)
  A(CAN_TEX2D_GATHER)
  A(MAXIMUM_TEXTURE2D_GATHER_WIDTH)
  A(MAXIMUM_TEXTURE2D_GATHER_HEIGHT)
  A(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE)
  A(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE)
  A(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE)
  A(PCI_DOMAIN_ID)
  A(TEXTURE_PITCH_ALIGNMENT)
  A(MAXIMUM_TEXTURECUBEMAP_WIDTH)
  A(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH)
  A(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS)
  A(MAXIMUM_SURFACE1D_WIDTH)
  A(MAXIMUM_SURFACE2D_WIDTH)
  A(MAXIMUM_SURFACE2D_HEIGHT)
  A(MAXIMUM_SURFACE3D_WIDTH)
  A(MAXIMUM_SURFACE3D_HEIGHT)
  A(MAXIMUM_SURFACE3D_DEPTH)
  A(MAXIMUM_SURFACE1D_LAYERED_WIDTH)
  A(MAXIMUM_SURFACE1D_LAYERED_LAYERS)
  A(MAXIMUM_SURFACE2D_LAYERED_WIDTH)
  A(MAXIMUM_SURFACE2D_LAYERED_HEIGHT)
  A(MAXIMUM_SURFACE2D_LAYERED_LAYERS)
  A(MAXIMUM_SURFACECUBEMAP_WIDTH)
  A(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH)
  A(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS)
  A(MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
  A(MAXIMUM_TEXTURE2D_LINEAR_WIDTH)
  A(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT)
  A(MAXIMUM_TEXTURE2D_LINEAR_PITCH)
  A(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH)
  A(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT)
  A(COMPUTE_CAPABILITY_MAJOR)
  A(COMPUTE_CAPABILITY_MINOR)
  A(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH)
  A(STREAM_PRIORITIES_SUPPORTED)
  A(GLOBAL_L1_CACHE_SUPPORTED)
  A(LOCAL_L1_CACHE_SUPPORTED)
  A(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
  A(MAX_REGISTERS_PER_MULTIPROCESSOR)
  A(MANAGED_MEMORY)
  A(MULTI_GPU_BOARD)
  A(MULTI_GPU_BOARD_GROUP_ID)
  A(HOST_NATIVE_ATOMIC_SUPPORTED)
  A(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO)
  A(PAGEABLE_MEMORY_ACCESS)
  A(CONCURRENT_MANAGED_ACCESS)
  A(COMPUTE_PREEMPTION_SUPPORTED)
  A(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM)
  A(CAN_USE_STREAM_MEM_OPS_V1)
  A(CAN_USE_64_BIT_STREAM_MEM_OPS_V1)
  A(CAN_USE_STREAM_WAIT_VALUE_NOR_V1)
  A(COOPERATIVE_LAUNCH)
  A(COOPERATIVE_MULTI_DEVICE_LAUNCH)
  A(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
  A(CAN_FLUSH_REMOTE_WRITES)
  A(HOST_REGISTER_SUPPORTED)
  A(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES)
  A(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST)
  A(VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED)
  A(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)
  A(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED)
  A(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED)
  A(MAX_BLOCKS_PER_MULTIPROCESSOR)
  A(GENERIC_COMPRESSION_SUPPORTED)
  A(MAX_PERSISTING_L2_CACHE_SIZE)
  A(MAX_ACCESS_POLICY_WINDOW_SIZE)
  A(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED)
  A(RESERVED_SHARED_MEMORY_PER_BLOCK)
  A(SPARSE_CUDA_ARRAY_SUPPORTED)
  A(READ_ONLY_HOST_REGISTER_SUPPORTED)
  A(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED)
  A(MEMORY_POOLS_SUPPORTED)
  A(GPU_DIRECT_RDMA_SUPPORTED)
  A(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS)
  A(GPU_DIRECT_RDMA_WRITES_ORDERING)
  A(MEMPOOL_SUPPORTED_HANDLE_TYPES)
  A(CLUSTER_LAUNCH)
  A(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED)
  A(CAN_USE_64_BIT_STREAM_MEM_OPS)
  A(CAN_USE_STREAM_WAIT_VALUE_NOR)
  A(DMA_BUF_SUPPORTED)
  A(IPC_EVENT_SUPPORTED)
  A(MEM_SYNC_DOMAIN_COUNT)
  A(TENSOR_MAP_ACCESS_SUPPORTED)
  A(HANDLE_TYPE_FABRIC_SUPPORTED)
  A(UNIFIED_FUNCTION_POINTERS)
  A(NUMA_CONFIG)
  A(NUMA_ID)
  A(MULTICAST_SUPPORTED)
  A(MPS_ENABLED)
  A(HOST_NUMA_ID)
  A(D3D12_CIG_SUPPORTED)
  A(MEM_DECOMPRESS_ALGORITHM_MASK)
  A(MEM_DECOMPRESS_MAXIMUM_LENGTH)
  A(VULKAN_CIG_SUPPORTED)
  A(GPU_PCI_DEVICE_ID)
  A(GPU_PCI_SUBSYSTEM_ID)
  A(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)
  A(HOST_NUMA_MEMORY_POOLS_SUPPORTED)
  A(HOST_NUMA_MULTINODE_IPC_SUPPORTED)
  A(HOST_MEMORY_POOLS_SUPPORTED)
  A(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)
  A(HOST_ALLOC_DMA_BUF_SUPPORTED)
  A(ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED)
#undef A
  size_t total = 0;
  cuDeviceTotalMem(&total, dev);
  std::printf("totalmem %zu\n", total);
  int version = 0;
  cuDriverGetVersion(&version);
  std::printf("driver_version %d\n", version);
  size_t tex1d_linear = 0;
  cuDeviceGetTexture1DLinearMaxWidth(&tex1d_linear, CU_AD_FORMAT_FLOAT, 1, dev);
  std::printf("texture1d_linear_max_width_float1 %zu\n", tex1d_linear);

  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("prop name %s\n", p.name);
#define P(x) std::printf("prop %s %lld\n", #x, static_cast<long long>(p.x));
  P(luidDeviceNodeMask);
  P(totalGlobalMem);
  P(sharedMemPerBlock);
  P(regsPerBlock);
  P(warpSize);
  P(memPitch);
  P(maxThreadsPerBlock);
  P(maxThreadsDim[0]);
  P(maxThreadsDim[1]);
  P(maxThreadsDim[2]);
  P(maxGridSize[0]);
  P(maxGridSize[1]);
  P(maxGridSize[2]);
  P(totalConstMem);
  P(major);
  P(minor);
  P(textureAlignment);
  P(texturePitchAlignment);
  P(multiProcessorCount);
  P(integrated);
  P(canMapHostMemory);
  P(maxTexture1D);
  P(maxTexture1DMipmap);
  P(maxTexture2D[0]);
  P(maxTexture2D[1]);
  P(maxTexture2DMipmap[0]);
  P(maxTexture2DMipmap[1]);
  P(maxTexture2DLinear[0]);
  P(maxTexture2DLinear[1]);
  P(maxTexture2DLinear[2]);
  P(maxTexture2DGather[0]);
  P(maxTexture2DGather[1]);
  P(maxTexture3D[0]);
  P(maxTexture3D[1]);
  P(maxTexture3D[2]);
  P(maxTexture3DAlt[0]);
  P(maxTexture3DAlt[1]);
  P(maxTexture3DAlt[2]);
  P(maxTextureCubemap);
  P(maxTexture1DLayered[0]);
  P(maxTexture1DLayered[1]);
  P(maxTexture2DLayered[0]);
  P(maxTexture2DLayered[1]);
  P(maxTexture2DLayered[2]);
  P(maxTextureCubemapLayered[0]);
  P(maxTextureCubemapLayered[1]);
  P(maxSurface1D);
  P(maxSurface2D[0]);
  P(maxSurface2D[1]);
  P(maxSurface3D[0]);
  P(maxSurface3D[1]);
  P(maxSurface3D[2]);
  P(maxSurface1DLayered[0]);
  P(maxSurface1DLayered[1]);
  P(maxSurface2DLayered[0]);
  P(maxSurface2DLayered[1]);
  P(maxSurface2DLayered[2]);
  P(maxSurfaceCubemap);
  P(maxSurfaceCubemapLayered[0]);
  P(maxSurfaceCubemapLayered[1]);
  P(surfaceAlignment);
  P(concurrentKernels);
  P(ECCEnabled);
  P(pciBusID);
  P(pciDeviceID);
  P(pciDomainID);
  P(tccDriver);
  P(asyncEngineCount);
  P(unifiedAddressing);
  P(memoryBusWidth);
  P(l2CacheSize);
  P(persistingL2CacheMaxSize);
  P(maxThreadsPerMultiProcessor);
  P(streamPrioritiesSupported);
  P(globalL1CacheSupported);
  P(localL1CacheSupported);
  P(sharedMemPerMultiprocessor);
  P(regsPerMultiprocessor);
  P(managedMemory);
  P(isMultiGpuBoard);
  P(multiGpuBoardGroupID);
  P(hostNativeAtomicSupported);
  P(pageableMemoryAccess);
  P(concurrentManagedAccess);
  P(computePreemptionSupported);
  P(canUseHostPointerForRegisteredMem);
  P(cooperativeLaunch);
  P(sharedMemPerBlockOptin);
  P(pageableMemoryAccessUsesHostPageTables);
  P(directManagedMemAccessFromHost);
  P(maxBlocksPerMultiProcessor);
  P(accessPolicyMaxWindowSize);
  P(hostRegisterSupported);
  P(sparseCudaArraySupported);
  P(hostRegisterReadOnlySupported);
  P(timelineSemaphoreInteropSupported);
  P(memoryPoolsSupported);
  P(gpuDirectRDMASupported);
  P(gpuDirectRDMAFlushWritesOptions);
  P(gpuDirectRDMAWritesOrdering);
  P(memoryPoolSupportedHandleTypes);
  P(deferredMappingCudaArraySupported);
  P(ipcEventSupported);
  P(clusterLaunch);
  P(unifiedFunctionPointers);
  P(deviceNumaConfig);
  P(deviceNumaId);
  P(mpsEnabled);
  P(hostNumaId);
  P(gpuPciDeviceID);
  P(gpuPciSubsystemID);
  P(hostNumaMultinodeIpcSupported);
#undef P
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::printf("stream_priority_range %d %d\n", least, greatest);
  size_t limit = 0;
  const struct {
    cudaLimit l;
    const char* name;
  } limits[] = {{cudaLimitStackSize, "StackSize"},
                {cudaLimitPrintfFifoSize, "PrintfFifoSize"},
                {cudaLimitMallocHeapSize, "MallocHeapSize"},
                {cudaLimitDevRuntimeSyncDepth, "DevRuntimeSyncDepth"},
                {cudaLimitDevRuntimePendingLaunchCount, "DevRuntimePendingLaunchCount"},
                {cudaLimitMaxL2FetchGranularity, "MaxL2FetchGranularity"},
                {cudaLimitPersistingL2CacheSize, "PersistingL2CacheSize"}};
  for (const auto& l : limits) {
    cudaError_t e = cudaDeviceGetLimit(&limit, l.l);
    if (e == cudaSuccess)
      std::printf("limit %s %zu\n", l.name, limit);
    else
      std::printf("limit %s error %s\n", l.name, cudaGetErrorName(e));
  }
  std::printf("PASS device_attributes\n");
  return 0;
}
