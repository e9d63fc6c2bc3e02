// A program linked with -lcuda that calls driver entry points by name, as
// driver-API code does (not through cudart's cuGetProcAddress): memory,
// an async memset, a copy, a pointer query and a kernel launch through
// cuLaunchKernel, checked against the CPU; cuTensorMapEncodeTiled called by
// name; then cuIpcGetMemHandle, which smemlab does not implement: the
// program must still load (every symbol of the toolkit's libcuda.so is
// exported) and the call fail with CUDA_ERROR_NOT_SUPPORTED, named once on
// stderr.
#include <cstdio>
#include <vector>

#include "driver_checks.h"

__global__ void scale(unsigned* p, unsigned k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= k;
}

int main() {
  const int n = 1000;
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUdeviceptr p;
  CU(cuMemAlloc(&p, n * sizeof(unsigned)));  // cuMemAlloc_v2
  CUstream s;
  CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CU(cuMemsetD32Async(p, 7u, n, s));
  CU(cuStreamSynchronize(s));
  unsigned type = 0;
  CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));

  cudaFunction_t f;
  if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(scale)) != cudaSuccess) {
    std::printf("FAIL cudaGetFuncBySymbol\n");
    return 1;
  }
  unsigned k = 3;
  int count = n;
  void* args[] = {&p, &k, &count};
  CU(cuLaunchKernel(reinterpret_cast<CUfunction>(f), (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args,
                    nullptr));
  std::vector<unsigned> h(n);
  CU(cuMemcpyDtoH(h.data(), p, n * sizeof(unsigned)));  // cuMemcpyDtoH_v2
  for (int i = 0; i < n; ++i)
    if (h[i] != 21u) {
      std::printf("FAIL element %d is %u, expected 21\n", i, h[i]);
      return 1;
    }

  CUtensorMap map;
  cuuint64_t dims[1] = {1024}, strides[1] = {};
  cuuint32_t box[1] = {64}, elem[1] = {1};
  std::vector<float> dummy(1024);
  CUresult r =
      cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, dummy.data(), dims, strides,
                             box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("cuTensorMapEncodeTiled: %s\n", name ? name : "?");
  CUipcMemHandle ipc;
  CUresult r2 = cuIpcGetMemHandle(&ipc, p);
  cuGetErrorName(r2, &name);
  std::printf("cuIpcGetMemHandle: %s\n", name ? name : "?");
  CU(cuMemFree(p));
  bool ok = r == CUDA_SUCCESS && r2 == CUDA_ERROR_NOT_SUPPORTED;
  std::printf("%s driver_by_name (memory type %u)\n", ok ? "PASS" : "FAIL", type);
  return ok ? 0 : 1;
}
