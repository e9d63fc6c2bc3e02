// Contexts a driver-API program creates beside the primary one: cuCtxCreate
// (v4, the CUDA 13 name; v2 and v3 through cuGetProcAddress), the context
// stack (push, pop, get), flags, destroy; memory used in a created context,
// then the runtime (a kernel) in the primary context. Results are checked on the host; prints "ok
// PART" per part.
#include <vector>

#include "driver_checks.h"

extern "C" __global__ void scale(float* x, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= by;
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext none = reinterpret_cast<CUcontext>(1);
  CU(cuCtxGetCurrent(&none));
  EXPECT(none == nullptr);

  // v4 (cuCtxCreate in CUDA 13's cuda.h) with no parameter struct.
  CUcontext a;
  CU(cuCtxCreate(&a, nullptr, CU_CTX_SCHED_BLOCKING_SYNC, dev));
  CUcontext cur;
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == a);
  unsigned flags = 0;
  CU(cuCtxGetFlags(&flags));
  EXPECT((flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC);
  std::printf("ok cuCtxCreate_v4\n");

  // v2 and v3, as a program built against an older cuda.h calls them.
  using V2 = CUresult (*)(CUcontext*, unsigned, CUdevice);
  using V3 = CUresult (*)(CUcontext*, CUexecAffinityParam*, int, unsigned, CUdevice);
  void *p2 = nullptr, *p3 = nullptr;
  CUdriverProcAddressQueryResult q;
  CU(cuGetProcAddress("cuCtxCreate", &p2, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &q));
  CU(cuGetProcAddress("cuCtxCreate", &p3, 11040, CU_GET_PROC_ADDRESS_DEFAULT, &q));
  CUcontext b, c;
  CU(reinterpret_cast<V2>(p2)(&b, CU_CTX_SCHED_SPIN, dev));
  CU(reinterpret_cast<V3>(p3)(&c, nullptr, 0, 0, dev));
  EXPECT(a != b && b != c && a != c);
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == c);
  CUcontext popped;
  CU(cuCtxPopCurrent(&popped));
  EXPECT(popped == c);
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == b);
  CU(cuCtxGetFlags(&flags));
  EXPECT((flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_SPIN);
  CU(cuCtxDestroy(c));
  CU(cuCtxDestroy(b));  // the current one: it leaves the stack
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == a);
  EXPECT(cuCtxDestroy(b) == CUDA_ERROR_INVALID_CONTEXT);
  std::printf("ok cuCtxCreate_v2 v3, stack, destroy\n");

  // Work in the created context: memory and a kernel through the driver.
  const int n = 1000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  CUdeviceptr d;
  CU(cuMemAlloc(&d, n * sizeof(float)));
  CU(cuMemcpyHtoD(d, h.data(), n * sizeof(float)));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(h.data(), d, n * sizeof(float)));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == static_cast<float>(i));
  CU(cuMemFree(d));
  std::printf("ok memory in a created context\n");

  // Back to the primary context: the runtime works there.
  CU(cuCtxDestroy(a));
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == nullptr);
  float* x;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  scale<<<(n + 255) / 256, 256>>>(x, 3.0f, n);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(x[i] == 3.0f * static_cast<float>(i));
  CHECK(cudaFree(x));
  CU(cuCtxGetCurrent(&cur));
  CUcontext primary;
  CU(cuDevicePrimaryCtxRetain(&primary, dev));
  EXPECT(cur == primary);
  CU(cuDevicePrimaryCtxRelease(dev));
  std::printf("ok runtime in the primary context\n");
  std::printf("PASS contexts\n");
  return 0;
}
