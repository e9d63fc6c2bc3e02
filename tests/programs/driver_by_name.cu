// A program linked with -lcuda that calls driver entry points by name, as
// driver-API code does (not through cudart's cuGetProcAddress): memory,
// an async memset, a copy, a pointer query and a kernel launch through
// cuLaunchKernel, checked against the CPU; cuTensorMapEncodeTiled called by
// name; then cuIpcGetMemHandle, which smemlab does not implement: the
// program must still load (every symbol of the toolkit's libcuda.so is
// exported) and the call fail with CUDA_ERROR_NOT_SUPPORTED, named once on
// stderr.
#include <cuda.h>

#include <cstdio>
#include <vector>

__global__ void scale(unsigned* p, unsigned k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= k;
}

#define CHECK(call)                                       \
  do {                                                    \
    CUresult r_ = (call);                                 \
    if (r_ != CUDA_SUCCESS) {                             \
      const char* s_ = nullptr;                           \
      cuGetErrorName(r_, &s_);                            \
      std::printf("FAIL %s: %s\n", #call, s_ ? s_ : "?"); \
      return 1;                                           \
    }                                                     \
  } while (0)

int main() {
  const int n = 1000;
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, n * sizeof(unsigned)));  // cuMemAlloc_v2
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CHECK(cuMemsetD32Async(p, 7u, n, s));
  CHECK(cuStreamSynchronize(s));
  unsigned type = 0;
  CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));

  cudaFunction_t f;
  if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(scale)) != cudaSuccess) {
    std::printf("FAIL cudaGetFuncBySymbol\n");
    return 1;
  }
  unsigned k = 3;
  int count = n;
  void* args[] = {&p, &k, &count};
  CHECK(cuLaunchKernel(reinterpret_cast<CUfunction>(f), (n + 127) / 128, 1, 1, 128, 1, 1, 0, s,
                       args, nullptr));
  std::vector<unsigned> h(n);
  CHECK(cuMemcpyDtoH(h.data(), p, n * sizeof(unsigned)));  // cuMemcpyDtoH_v2
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
  CHECK(cuMemFree(p));
  bool ok = r == CUDA_SUCCESS && r2 == CUDA_ERROR_NOT_SUPPORTED;
  std::printf("%s driver_by_name (memory type %u)\n", ok ? "PASS" : "FAIL", type);
  return ok ? 0 : 1;
}
