// CUDA arrays with flags: surface load/store (cudaArraySurfaceLoadStore)
// through surface objects in 1-D, 2-D, 3-D, layered and cubemap arrays;
// texture-gather arrays allocated and copied; the descriptors and extents
// the driver reports back. Each part checks its results on the host and
// says "ok PART"; natively on an H100 (scripts/conform/gpu) the output is
// tests/data/h100_array_flags.txt, and programs.run_array_flags expects the
// same lines under smemlab.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "conform_checks.h"

// Each element x -> x * 3 + k (read then written through the surface).
__global__ void surf1d(cudaSurfaceObject_t s, int w, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) surf1Dwrite(surf1Dread<int>(s, x * 4) * 3 + k, s, x * 4);
}
__global__ void surf2d(cudaSurfaceObject_t s, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float2 v = surf2Dread<float2>(s, x * 8, y);
    surf2Dwrite(make_float2(v.x * 3 + k, v.y - k), s, x * 8, y);
  }
}
__global__ void surf3d(cudaSurfaceObject_t s, int w, int h, int d, int k) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) surf3Dwrite(surf3Dread<int>(s, x * 4, y, z) * 3 + k, s, x * 4, y, z);
}
__global__ void surf_layered(cudaSurfaceObject_t s, int w, int h, int layers, int k) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers)
    surf2DLayeredwrite(
        static_cast<unsigned short>(surf2DLayeredread<unsigned short>(s, x * 2, y, l) * 3 + k + l),
        s, x * 2, y, l);
}
__global__ void surf_cube(cudaSurfaceObject_t s, int w, int k) {
  int x = threadIdx.x, y = blockIdx.x, face = blockIdx.y;
  if (x < w && y < w)
    surfCubemapwrite(surfCubemapread<int>(s, x * 4, y, face) * 3 + k + face, s, x * 4, y, face);
}

static cudaSurfaceObject_t surface(cudaArray_t a) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaSurfaceObject_t s;
  CHECK(cudaCreateSurfaceObject(&s, &r));
  cudaResourceDesc back{};
  CHECK(cudaGetSurfaceObjectResourceDesc(&back, s));
  EXPECT(back.resType == cudaResourceTypeArray && back.res.array.array == a);
  return s;
}

// Copies n elements of T in and out of a 3-D-described array.
template <typename T>
static void copy3d(cudaArray_t a, std::vector<T>& host, cudaExtent e, bool to_array) {
  cudaMemcpy3DParms p{};
  cudaPitchedPtr hp =
      make_cudaPitchedPtr(host.data(), e.width * sizeof(T), e.width, e.height ? e.height : 1);
  if (to_array) {
    p.srcPtr = hp;
    p.dstArray = a;
    p.kind = cudaMemcpyHostToDevice;
  } else {
    p.srcArray = a;
    p.dstPtr = hp;
    p.kind = cudaMemcpyDeviceToHost;
  }
  p.extent = make_cudaExtent(e.width, e.height ? e.height : 1, e.depth ? e.depth : 1);
  CHECK(cudaMemcpy3D(&p));
}

int main() {
  {  // 1-D surface
    const int w = 300;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &f, w, 0, cudaArraySurfaceLoadStore));
    std::vector<int> h(w), back(w);
    for (int i = 0; i < w; ++i) h[i] = i - 100;
    CHECK(cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, 1, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t s = surface(a);
    surf1d<<<(w + 127) / 128, 128>>>(s, w, 7);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy2DFromArray(back.data(), w * 4, a, 0, 0, w * 4, 1, cudaMemcpyDeviceToHost));
    for (int i = 0; i < w; ++i) EXPECT(back[i] == h[i] * 3 + 7);
    cudaChannelFormatDesc fd;
    cudaExtent e;
    unsigned flags = 0;
    CHECK(cudaArrayGetInfo(&fd, &e, &flags, a));
    EXPECT(fd.x == 32 && fd.f == cudaChannelFormatKindSigned && e.width == w && e.height == 0 &&
           e.depth == 0 && flags == cudaArraySurfaceLoadStore);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    std::printf("ok surface 1d\n");
  }
  {  // 2-D surface of float2
    const int w = 70, hgt = 33;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float2>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &f, w, hgt, cudaArraySurfaceLoadStore));
    std::vector<float2> h(w * hgt), back(w * hgt);
    for (int i = 0; i < w * hgt; ++i) h[i] = make_float2(i * 0.5f, -i);
    CHECK(cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 8, w * 8, hgt, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t s = surface(a);
    surf2d<<<dim3(1, hgt), 128>>>(s, w, hgt, 2);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy2DFromArray(back.data(), w * 8, a, 0, 0, w * 8, hgt, cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * hgt; ++i)
      EXPECT(back[i].x == h[i].x * 3 + 2 && back[i].y == h[i].y - 2);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    std::printf("ok surface 2d\n");
  }
  {  // 3-D surface
    cudaExtent e = make_cudaExtent(20, 9, 5);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    CHECK(cudaMalloc3DArray(&a, &f, e, cudaArraySurfaceLoadStore));
    size_t n = e.width * e.height * e.depth;
    std::vector<int> h(n), back(n);
    for (size_t i = 0; i < n; ++i) h[i] = static_cast<int>(i * 7 % 1000);
    copy3d(a, h, e, true);
    cudaSurfaceObject_t s = surface(a);
    surf3d<<<dim3(9, 5), 32>>>(s, 20, 9, 5, 1);
    CHECK(cudaDeviceSynchronize());
    copy3d(a, back, e, false);
    for (size_t i = 0; i < n; ++i) EXPECT(back[i] == h[i] * 3 + 1);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    std::printf("ok surface 3d\n");
  }
  {  // layered 2-D surface of 16-bit elements: depth = layers
    cudaExtent e = make_cudaExtent(24, 6, 4);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<unsigned short>();
    cudaArray_t a;
    CHECK(cudaMalloc3DArray(&a, &f, e, cudaArrayLayered | cudaArraySurfaceLoadStore));
    size_t n = e.width * e.height * e.depth;
    std::vector<unsigned short> h(n), back(n);
    for (size_t i = 0; i < n; ++i) h[i] = static_cast<unsigned short>(i);
    copy3d(a, h, e, true);
    cudaSurfaceObject_t s = surface(a);
    surf_layered<<<dim3(6, 4), 32>>>(s, 24, 6, 4, 5);
    CHECK(cudaDeviceSynchronize());
    copy3d(a, back, e, false);
    for (size_t i = 0; i < n; ++i)
      EXPECT(back[i] == static_cast<unsigned short>(h[i] * 3 + 5 + i / (24 * 6)));
    cudaExtent got;
    unsigned flags = 0;
    cudaChannelFormatDesc fd;
    CHECK(cudaArrayGetInfo(&fd, &got, &flags, a));
    EXPECT(got.width == 24 && got.height == 6 && got.depth == 4 &&
           flags == (cudaArrayLayered | cudaArraySurfaceLoadStore));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    std::printf("ok surface layered\n");
  }
  {  // cubemap: six square faces
    const int w = 16;
    cudaExtent e = make_cudaExtent(w, w, 6);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    CHECK(cudaMalloc3DArray(&a, &f, e, cudaArrayCubemap | cudaArraySurfaceLoadStore));
    size_t n = w * w * 6;
    std::vector<int> h(n), back(n);
    for (size_t i = 0; i < n; ++i) h[i] = static_cast<int>(i) - 500;
    copy3d(a, h, e, true);
    cudaSurfaceObject_t s = surface(a);
    surf_cube<<<dim3(w, 6), 32>>>(s, w, 9);
    CHECK(cudaDeviceSynchronize());
    copy3d(a, back, e, false);
    for (size_t i = 0; i < n; ++i) EXPECT(back[i] == h[i] * 3 + 9 + static_cast<int>(i / (w * w)));
    // A cubemap's faces must be square and six.
    cudaArray_t bad;
    EXPECT(cudaMalloc3DArray(&bad, &f, make_cudaExtent(w, w + 1, 6), cudaArrayCubemap) ==
           cudaErrorInvalidValue);
    EXPECT(cudaMalloc3DArray(&bad, &f, make_cudaExtent(w, w, 5), cudaArrayCubemap) ==
           cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    std::printf("ok surface cubemap\n");
  }
  {  // texture gather: a 2-D array allocated and copied
    const int w = 32, hgt = 8;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &f, w, hgt, cudaArrayTextureGather));
    std::vector<float> h(w * hgt), back(w * hgt);
    for (int i = 0; i < w * hgt; ++i) h[i] = i * 0.25f;
    CHECK(cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, hgt, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DFromArray(back.data(), w * 4, a, 0, 0, w * 4, hgt, cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * hgt; ++i) EXPECT(back[i] == h[i]);
    CHECK(cudaFreeArray(a));
    std::printf("ok texture gather array\n");
  }
  {  // surface object over an array without the flag: refused
    cudaChannelFormatDesc f = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &f, 16, 16, 0));
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s;
    cudaError_t e = cudaCreateSurfaceObject(&s, &r);
    std::printf("surface over a plain array: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaFreeArray(a));
  }
  std::printf("PASS array_flags\n");
  return 0;
}
