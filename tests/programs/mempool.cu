// Stream-ordered allocation and memory pools: cudaMallocAsync/cudaFreeAsync
// from the default pool, an explicit pool (cudaMallocFromPoolAsync, set as
// the device's current pool), pool attributes (used, reserved, release
// threshold, trim) and a pool's maxSize limit; a three-kernel pipeline over
// the allocations is checked against a CPU computation.
// With argument "errors": a use-after-free copy, a double cudaFreeAsync and
// an allocation never freed, for `smemlab check`.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)
#define EXPECT(c)                                              \
  do {                                                         \
    if (!(c)) {                                                \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
      std::exit(1);                                            \
    }                                                          \
  } while (0)

__global__ void fill(float* a, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = s * i;
}
__global__ void axpy(const float* a, float* b, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = k * a[i] + b[i];
}
__global__ void block_sum(const float* b, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? b[i] : 0.f;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

unsigned long long attr(cudaMemPool_t p, cudaMemPoolAttr a) {
  unsigned long long v = 0;
  CHECK(cudaMemPoolGetAttribute(p, a, &v));
  return v;
}

// b = 2 * (s * i) + 1 for each i, summed per 256-element block.
void pipeline(cudaStream_t st, float* a, float* b, float* sums, int n, float s,
              std::vector<float>* out) {
  int blocks = (n + 255) / 256;
  std::vector<float> ones(n, 1.f);
  CHECK(cudaMemcpyAsync(b, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice, st));
  fill<<<blocks, 256, 0, st>>>(a, n, s);
  axpy<<<blocks, 256, 0, st>>>(a, b, n, 2.f);
  block_sum<<<blocks, 256, 0, st>>>(b, sums, n);
  out->resize(blocks);
  CHECK(cudaMemcpyAsync(out->data(), sums, blocks * sizeof(float), cudaMemcpyDeviceToHost, st));
  CHECK(cudaStreamSynchronize(st));
}

void verify(const std::vector<float>& got, int n, float s) {
  for (size_t blk = 0; blk < got.size(); ++blk) {
    double want = 0;
    for (int i = int(blk) * 256; i < n && i < int(blk + 1) * 256; ++i) want += 2.0 * (s * i) + 1.0;
    if (std::abs(got[blk] - want) > 1e-3 * std::abs(want) + 1e-3) {
      std::printf("FAIL block %zu: got %f, want %f\n", blk, got[blk], want);
      std::exit(1);
    }
  }
}

int main(int argc, char** argv) {
  int supported = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  EXPECT(supported == 1);
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  const int n = 1000;
  const size_t bytes = n * sizeof(float);

  if (argc > 1 && std::strcmp(argv[1], "errors") == 0) {
    float *a, *b;
    CHECK(cudaMallocAsync(&a, bytes, st));
    CHECK(cudaMallocAsync(&b, 64, st));  // never freed: a leak
    CHECK(cudaFreeAsync(a, st));
    std::vector<float> h(n);
    cudaError_t uaf = cudaMemcpyAsync(h.data(), a, bytes, cudaMemcpyDeviceToHost, st);
    cudaError_t twice = cudaFreeAsync(a, st);
    CHECK(cudaStreamSynchronize(st));
    std::printf("use after free: %s, second free: %s\n", cudaGetErrorName(uaf),
                cudaGetErrorName(twice));
    return 0;
  }

  // Default pool: three allocations in stream order, used by three kernels.
  cudaMemPool_t def;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  cudaMemPool_t cur;
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == def);
  float *a, *b, *sums;
  CHECK(cudaMallocAsync(&a, bytes, st));
  CHECK(cudaMallocAsync(&b, bytes, st));
  CHECK(cudaMallocAsync(&sums, 4 * sizeof(float), st));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemCurrent) >= 2 * bytes);
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) >= attr(def, cudaMemPoolAttrUsedMemCurrent));
  std::vector<float> got;
  pipeline(st, a, b, sums, n, 0.5f, &got);
  verify(got, n, 0.5f);
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, a));
  EXPECT(pa.type == cudaMemoryTypeDevice);
  CHECK(cudaFreeAsync(a, st));
  CHECK(cudaFreeAsync(b, st));
  CHECK(cudaFreeAsync(sums, st));
  CHECK(cudaStreamSynchronize(st));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0);
  EXPECT(attr(def, cudaMemPoolAttrUsedMemHigh) >= 2 * bytes);
  // Release threshold 0 (the default): the synchronization gave it all back.
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0);

  // A threshold keeps freed memory reserved across synchronization, until trimmed.
  unsigned long long keep = 64 << 20;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
  EXPECT(attr(def, cudaMemPoolAttrReleaseThreshold) == keep);
  CHECK(cudaMallocAsync(&a, bytes, st));
  CHECK(cudaFreeAsync(a, st));
  CHECK(cudaStreamSynchronize(st));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) >= bytes);
  CHECK(cudaMemPoolTrimTo(def, 0));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0);
  unsigned long long zero = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemHigh) == 0);

  // An explicit pool, allocated from directly and then as the device's current pool.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  cudaMemAccessDesc access = {};
  access.location = props.location;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  CHECK(cudaMemPoolSetAccess(pool, &access, 1));
  cudaMemAccessFlags flags;
  CHECK(cudaMemPoolGetAccess(&flags, pool, &access.location));
  EXPECT(flags == cudaMemAccessFlagsProtReadWrite);
  CHECK(cudaMallocFromPoolAsync(&a, bytes, pool, st));
  CHECK(cudaDeviceSetMemPool(0, pool));
  CHECK(cudaMallocAsync(&b, bytes, st));  // from `pool` now
  CHECK(cudaMallocAsync(&sums, 4 * sizeof(float), st));
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= 2 * bytes);
  EXPECT(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0);
  pipeline(st, a, b, sums, n, -1.25f, &got);
  verify(got, n, -1.25f);
  CHECK(cudaFreeAsync(a, st));
  CHECK(cudaFreeAsync(b, st));
  CHECK(cudaFree(sums));  // cudaFree takes pool memory too
  CHECK(cudaStreamSynchronize(st));
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK(cudaDeviceSetMemPool(0, def));
  CHECK(cudaMemPoolDestroy(pool));
  EXPECT(cudaMemPoolDestroy(def) == cudaErrorInvalidValue);  // the default pool stays
  (void)cudaGetLastError();

  // A pool of at most 2 MiB refuses a 4 MiB allocation.
  props.maxSize = 2 << 20;
  cudaMemPool_t small;
  CHECK(cudaMemPoolCreate(&small, &props));
  void* big = nullptr;
  cudaError_t too_big = cudaMallocFromPoolAsync(&big, 4 << 20, small, st);
  (void)cudaGetLastError();
  EXPECT(too_big == cudaErrorMemoryAllocation);
  CHECK(cudaMemPoolDestroy(small));

  CHECK(cudaStreamDestroy(st));
  std::printf("PASS mempool\n");
  return 0;
}
