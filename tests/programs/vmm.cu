// Virtual memory management through the driver API (-lcuda), checked
// against the CPU: one reservation of three granules; physical allocation A
// mapped at granules 0 and 2 (aliases), B at granule 1; a kernel adds two
// vectors that straddle the A|B boundary, cuMemcpy copies across it, a write
// through one alias is read through the other; access, properties and a
// retained handle are queried; then the API's refusals of bad arguments.
// `./vmm fault`: after cuMemUnmap of granule 1 a kernel reads there; the
// launch must fail with CUDA_ERROR_ILLEGAL_ADDRESS (the GPU's), nothing else.
// `./vmm leak`: as the plain run, but one more cuMemCreate handle is never
// released (check reports it as a leak at exit).
#include <cstdio>
#include <cstring>
#include <vector>

#include "driver_checks.h"

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void read_one(const float* p, float* out) { *out = *p; }

static CUresult launch(CUfunction f, unsigned grid, unsigned block, void** args) {
  return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr);
}

int main(int argc, char** argv) {
  bool fault = argc > 1 && std::strcmp(argv[1], "fault") == 0;
  bool leak = argc > 1 && std::strcmp(argv[1], "leak") == 0;
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  int vmm = 0;
  CU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
  EXPECT(vmm == 1);

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t g = 0, rec = 0;
  CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CU(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  std::printf("granularity %zu recommended %zu\n", g, rec);
  EXPECT(g > 0 && rec % g == 0);

  CUmemGenericAllocationHandle a, b;
  CU(cuMemCreate(&a, g, &prop, 0));
  CU(cuMemCreate(&b, g, &prop, 0));
  CU_CODE(cuMemCreate(&b, g / 2, &prop, 0),
          CUDA_ERROR_INVALID_VALUE);  // not a granule multiple
  CUdeviceptr base;
  CU(cuMemAddressReserve(&base, 3 * g, 0, 0, 0));
  EXPECT(base % g == 0);
  CU(cuMemMap(base, g, 0, a, 0));
  CU(cuMemMap(base + g, g, 0, b, 0));
  CU(cuMemMap(base + 2 * g, g, 0, a, 0));
  CU_CODE(cuMemMap(base + g, g, 0, a, 0), CUDA_ERROR_INVALID_VALUE);     // already mapped
  CU_CODE(cuMemMap(base + 4096, g, 0, a, 0), CUDA_ERROR_INVALID_VALUE);  // misaligned
  CU_CODE(cuMemAddressFree(base, 3 * g), CUDA_ERROR_INVALID_VALUE);      // still mapped
  // The handles may go now: the mappings keep the memory.
  CU(cuMemRelease(a));
  CU(cuMemRelease(b));

  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(base, 3 * g, &acc, 1));
  unsigned long long flags = 0;
  CU(cuMemGetAccess(&flags, &prop.location, base + g + 12));
  EXPECT(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

  CUmemGenericAllocationHandle r;
  CU(cuMemRetainAllocationHandle(&r, reinterpret_cast<void*>(base + g + 100)));
  CUmemAllocationProp got = {};
  CU(cuMemGetAllocationPropertiesFromHandle(&got, r));
  EXPECT(got.type == CU_MEM_ALLOCATION_TYPE_PINNED &&
         got.location.type == CU_MEM_LOCATION_TYPE_DEVICE && got.location.id == dev);
  CU(cuMemRelease(r));

  // Vectors of n floats each, a in [base + g - 4096, ...) across the A|B boundary.
  const int n = 4096;
  std::vector<float> ha(n), hb(n), hc(n);
  for (int i = 0; i < n; ++i) ha[i] = 0.5f * i, hb[i] = 3.0f - i;
  CUdeviceptr da = base + g - 4096, db = da + n * sizeof(float), dc = db + n * sizeof(float);
  CU(cuMemcpyHtoD(da, ha.data(), n * sizeof(float)));
  CU(cuMemcpyHtoD(db, hb.data(), n * sizeof(float)));
  CUfunction fadd, fread;
  if (cudaGetFuncBySymbol(&fadd, reinterpret_cast<const void*>(add)) != cudaSuccess ||
      cudaGetFuncBySymbol(&fread, reinterpret_cast<const void*>(read_one)) != cudaSuccess) {
    std::printf("FAIL cudaGetFuncBySymbol\n");
    return 1;
  }
  int nn = n;
  void* args[] = {&da, &db, &dc, &nn};
  CU(launch(fadd, (n + 255) / 256, 256, args));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(hc.data(), dc, n * sizeof(float)));
  for (int i = 0; i < n; ++i) EXPECT(hc[i] == ha[i] + hb[i]);
  // Granules 0 and 2 are one physical allocation: a write through one is read through the other.
  const float v = 42.25f;
  CU(cuMemcpyHtoD(base + 2 * g + 64, &v, sizeof v));
  float back = 0;
  CU(cuMemcpyDtoH(&back, base + 64, sizeof back));
  EXPECT(back == v);
  // A device-to-device copy straddling the boundary.
  CU(cuMemcpyDtoD(base + 2 * g, da, n * sizeof(float)));
  std::vector<float> hd(n);
  CU(cuMemcpyDtoH(hd.data(), base + 2 * g, n * sizeof(float)));
  EXPECT(std::memcmp(hd.data(), ha.data(), n * sizeof(float)) == 0);

  if (fault) {
    CU(cuMemUnmap(base + g, g));
    CUdeviceptr out = base + 128, at = base + g + 256;
    void* rargs[] = {&at, &out};
    CU(launch(fread, 1, 1, rargs));
    CUresult e = cuCtxSynchronize();
    const char* s = nullptr;
    cuGetErrorName(e, &s);
    std::printf("fault: %s\n", s ? s : "?");
    return e == CUDA_ERROR_ILLEGAL_ADDRESS ? 0 : 1;
  }
  CU_CODE(cuMemUnmap(base, g / 2), CUDA_ERROR_INVALID_VALUE);  // part of a mapping
  CU(cuMemUnmap(base, 3 * g));
  CU(cuMemAddressFree(base, 3 * g));
  if (leak) {
    CUmemGenericAllocationHandle kept;
    CU(cuMemCreate(&kept, g, &prop, 0));
  }
  std::printf("PASS vmm\n");
  return 0;
}
