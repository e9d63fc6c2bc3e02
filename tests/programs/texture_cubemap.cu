// Textures over cubemap and layered cubemap arrays (texCubemap,
// texCubemapLayered: tex.cube, tex.acube): each texel of each face is read
// back through the direction that points at its centre, built as the CUDA
// programming guide's cubemap table (and the sample simpleCubemapTexture)
// says, with linear and point filtering. Prints "ok PART" per part.
#include <vector>

#include "conform_checks.h"

constexpr int kW = 8;

// The direction of texel (x, y) of `face`: (u, v) in [-1, 1] at its centre.
__device__ void direction(int face, int x, int y, float* cx, float* cy, float* cz) {
  float u = ((x + 0.5f) / kW) * 2.f - 1.f, v = ((y + 0.5f) / kW) * 2.f - 1.f;
  switch (face) {
    case 0:
      *cx = 1, *cy = -v, *cz = -u;
      break;
    case 1:
      *cx = -1, *cy = -v, *cz = u;
      break;
    case 2:
      *cx = u, *cy = 1, *cz = v;
      break;
    case 3:
      *cx = u, *cy = -1, *cz = -v;
      break;
    case 4:
      *cx = u, *cy = -v, *cz = 1;
      break;
    default:
      *cx = -u, *cy = -v, *cz = -1;
      break;
  }
}

__global__ void read_cube(cudaTextureObject_t t, float* out) {
  int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
  float cx, cy, cz;
  direction(face, x, y, &cx, &cy, &cz);
  out[(face * kW + y) * kW + x] = texCubemap<float>(t, cx, cy, cz);
}

__global__ void read_cube_layered(cudaTextureObject_t t, float* out) {
  int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x, cube = blockIdx.y;
  float cx, cy, cz;
  direction(face, x, y, &cx, &cy, &cz);
  out[((cube * 6 + face) * kW + y) * kW + x] = texCubemapLayered<float>(t, cx, cy, cz, cube);
}

float value(int layer, int x, int y) { return layer * 1000.0f + y * 10.0f + x; }

bool run(int cubes, cudaTextureFilterMode filter) {
  const int layers = 6 * cubes;
  std::vector<float> h(kW * kW * layers);
  for (int l = 0; l < layers; ++l)
    for (int y = 0; y < kW; ++y)
      for (int x = 0; x < kW; ++x) h[(l * kW + y) * kW + x] = value(l, x, y);
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  unsigned flags = cudaArrayCubemap | (cubes > 1 ? cudaArrayLayered : 0);
  CHECK(cudaMalloc3DArray(&a, &f, make_cudaExtent(kW, kW, layers), flags));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(h.data(), kW * sizeof(float), kW, kW);
  p.dstArray = a;
  p.extent = make_cudaExtent(kW, kW, layers);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaTextureDesc td = {};
  td.normalizedCoords = true;
  td.filterMode = filter;
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeWrap;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
  float* out;
  CHECK(cudaMallocManaged(&out, h.size() * sizeof(float)));
  if (cubes > 1)
    read_cube_layered<<<dim3(6, cubes), dim3(kW, kW)>>>(t, out);
  else
    read_cube<<<6, dim3(kW, kW)>>>(t, out);
  CHECK(cudaDeviceSynchronize());
  for (size_t i = 0; i < h.size(); ++i) EXPECT(out[i] == h[i]);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
  CHECK(cudaFree(out));
  return true;
}

int main() {
  run(1, cudaFilterModePoint);
  std::printf("ok cubemap point\n");
  run(1, cudaFilterModeLinear);
  std::printf("ok cubemap linear at texel centres\n");
  run(3, cudaFilterModePoint);
  std::printf("ok layered cubemap of 3\n");
  std::printf("PASS texture_cubemap\n");
  return 0;
}
