// Surface objects in the style users write (for texture_kernels_test.cc;
// PTX checked in under ../ptx, nvcc -ptx -lineinfo -arch=sm_90 / sm_100):
// a 2-D float surface updated in place, a float4 copy between surfaces,
// a 1-D uchar surface, a layered 2-D surface, and the .zero/.clamp modes.
#include <cuda_runtime.h>

// img(x, y) = img(x, y) * s + x + 10 * y, read and written through one surface.
__global__ void scaleInPlace(cudaSurfaceObject_t img, int w, int h, float s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = surf2Dread<float>(img, x * sizeof(float), y);
  surf2Dwrite(v * s + x + 10 * y, img, x * sizeof(float), y);
}

// dst(x, y) = src(w - 1 - x, y) for float4 texels.
__global__ void mirrorRows(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x >= w || y >= h) return;
  float4 v;
  surf2Dread(&v, src, (w - 1 - x) * sizeof(float4), y);
  surf2Dwrite(v, dst, x * sizeof(float4), y);
}

// 1-D bytes: out[i] = in(i) + in(i + 1) with .zero past the end.
__global__ void byteNeighbours(cudaSurfaceObject_t in, unsigned char* out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  unsigned char a = surf1Dread<unsigned char>(in, i);
  unsigned char b = surf1Dread<unsigned char>(in, i + 1, cudaBoundaryModeZero);
  out[i] = a + b;
}

// Layered 2-D int surface: layer l, (x, y) += l; reads clamped at the right edge.
__global__ void layeredAdd(cudaSurfaceObject_t s, int* edge, int w, int h, int layers) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  if (x >= w || y >= h || l >= layers) return;
  int v = surf2DLayeredread<int>(s, x * 4, y, l);
  edge[(l * h + y) * w + x] = surf2DLayeredread<int>(s, (x + 2) * 4, y, l, cudaBoundaryModeClamp);
  __syncthreads();
  surf2DLayeredwrite(v + l, s, x * 4, y, l);
}

// Out of range with the default .trap: the launch fails.
__global__ void outOfRange(cudaSurfaceObject_t s, int w) {
  surf1Dwrite(1.0f, s, (w + threadIdx.x) * 4);
}
