// What a program may release while the device still has work that uses it,
// and what it may reuse after a free:
// - a texture or surface object destroyed right after the launch that reads
//   it (the CUDA sample convolutionFFT2D does): the launch still sees it;
// - host memory the system hands out again where freed pinned memory was:
//   plain pageable memory, copied without complaint;
// - cudaHostGetFlags: the flags of the pinned allocation holding an address.
// Each part checks its results on the host; prints "ok PART" per part.
#include <sys/mman.h>

#include <vector>

#include "conform_checks.h"

constexpr int kN = 1024;

__global__ void read_texture(cudaTextureObject_t t, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) out[i] = tex1Dfetch<float>(t, i) * 2.0f;
}

__global__ void write_surface(cudaSurfaceObject_t s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) surf1Dwrite(static_cast<float>(i) + 0.5f, s, i * static_cast<int>(sizeof(float)));
}

void texture_destroyed_after_launch() {
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i) * 0.25f;
  float *in, *out;
  CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = in;
  res.res.linear.sizeInBytes = kN * sizeof(float);
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  cudaTextureDesc tex = {};
  tex.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
  read_texture<<<kN / 256, 256>>>(t, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDestroyTextureObject(t));  // before the kernel is known to have run
  std::vector<float> got(kN);
  CHECK(cudaMemcpy(got.data(), out, kN * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) EXPECT(got[i] == host[i] * 2.0f);
  // The handle is gone for the host at once.
  cudaResourceDesc back;
  EXPECT(cudaGetTextureObjectResourceDesc(&back, t) != cudaSuccess);
  cudaGetLastError();
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  std::printf("ok texture destroyed after launch\n");
}

void surface_destroyed_after_launch() {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CHECK(cudaMallocArray(&a, &f, kN, 0, cudaArraySurfaceLoadStore));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaSurfaceObject_t s;
  CHECK(cudaCreateSurfaceObject(&s, &res));
  write_surface<<<kN / 256, 256>>>(s);
  CHECK(cudaGetLastError());
  CHECK(cudaDestroySurfaceObject(s));
  std::vector<float> got(kN);
  CHECK(cudaMemcpy2DFromArray(got.data(), kN * sizeof(float), a, 0, 0, kN * sizeof(float), 1,
                              cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) EXPECT(got[i] == static_cast<float>(i) + 0.5f);
  CHECK(cudaFreeArray(a));
  std::printf("ok surface destroyed after launch\n");
}

// Pinned memory is freed, then (after many other pinned allocations come
// and go) the system maps ordinary memory at its address: copying from it
// is a copy from pageable memory.
void pageable_where_pinned_was() {
  constexpr size_t kBytes = 64 << 10;
  void* first;
  CHECK(cudaMallocHost(&first, kBytes));
  CHECK(cudaFreeHost(first));
  for (int k = 0; k < 4200; ++k) {
    void* p;
    CHECK(cudaMallocHost(&p, kBytes));
    CHECK(cudaFreeHost(p));
  }
  void* again = mmap(first, kBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (again == first) {
    std::vector<unsigned char> back(kBytes);
    for (size_t i = 0; i < kBytes; ++i) static_cast<unsigned char*>(again)[i] = i * 7 & 0xff;
    unsigned char* dev;
    CHECK(cudaMalloc(&dev, kBytes));
    CHECK(cudaMemcpyAsync(dev, again, kBytes, cudaMemcpyHostToDevice, 0));
    CHECK(cudaMemcpy(back.data(), dev, kBytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < kBytes; ++i) EXPECT(back[i] == (i * 7 & 0xff));
    CHECK(cudaFree(dev));
    munmap(again, kBytes);
  }
  std::printf("ok pageable memory where pinned memory was\n");
}

void host_flags() {
  const unsigned asked[] = {cudaHostAllocDefault, cudaHostAllocPortable, cudaHostAllocMapped,
                            cudaHostAllocWriteCombined,
                            cudaHostAllocMapped | cudaHostAllocWriteCombined};
  for (unsigned f : asked) {
    char* p;
    CHECK(cudaHostAlloc(&p, 4096, f));
    unsigned got = 0, inside = 0;
    CHECK(cudaHostGetFlags(&got, p));
    CHECK(cudaHostGetFlags(&inside, p + 100));
    std::printf("cudaHostAlloc flags %u: cudaHostGetFlags %u, inside %u\n", f, got, inside);
    CHECK(cudaFreeHost(p));
  }
  char* p;
  CHECK(cudaMallocHost(&p, 4096));
  unsigned got = 0;
  CHECK(cudaHostGetFlags(&got, p));
  std::printf("cudaMallocHost: cudaHostGetFlags %u\n", got);
  CHECK(cudaFreeHost(p));
  std::vector<char> pageable(8192);
  std::printf("pageable: %s\n", cudaGetErrorName(cudaHostGetFlags(&got, pageable.data())));
  cudaGetLastError();
  CHECK(cudaHostRegister(pageable.data(), pageable.size(), cudaHostRegisterDefault));
  CHECK(cudaHostGetFlags(&got, pageable.data()));
  std::printf("cudaHostRegister: cudaHostGetFlags %u\n", got);
  CHECK(cudaHostUnregister(pageable.data()));
  std::printf("ok host flags\n");
}

int main() {
  texture_destroyed_after_launch();
  surface_destroyed_after_launch();
  pageable_where_pinned_was();
  host_flags();
  std::printf("PASS object_lifetime\n");
  return 0;
}
