// Textures and surfaces through objects, as the CUDA samples
// (simpleTexture, simpleSurfaceWrite, bilateral filters) use them: a
// bilinear resize with normalized coordinates, a wrapped point-sampled
// lookup, an RGBA8 image read as normalized floats, a 1-D fetch with integer
// coordinates, and a surface-to-surface 3x3 box filter.
// smemlab: --kernel resizeBilinear --grid 2,2 --block 8,8 --arg tex2d:float[10,7]=random(1)/linear,clamp,normalized --arg float[256]=zeros --arg int=16 --arg int=16
// smemlab: --kernel wrapLookup --grid 1 --block 64 --arg tex1d:float[16]=random(2)/point,wrap,normalized --arg float[64]=zeros
// smemlab: --kernel rgbaToGray --grid 1,1 --block 8,4 --arg tex2d:uchar4[8,4]=random(3)/point,clamp,nfloat --arg float[32]=zeros
// smemlab: --kernel gatherFetch --grid 1 --block 32 --arg tex1d:int[20]=random(4) --arg int[32]=random(5) --arg int[32]=zeros
// smemlab: --kernel boxFilterSurface --grid 2,2 --block 8,8 --arg surf2d:float[12,10]=random(6) --arg surf2d:float[12,10]=zeros --arg int=12 --arg int=10
#include <cuda_runtime.h>

__global__ void resizeBilinear(cudaTextureObject_t tex, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  out[y * w + x] = tex2D<float>(tex, u, v);
}

// Coordinates beyond [0, 1) wrap around: index i samples at (i - 16) / 16 + 0.5/16.
__global__ void wrapLookup(cudaTextureObject_t tex, float* out) {
  int i = threadIdx.x;
  out[i] = tex1D<float>(tex, (i - 16 + 0.5f) / 16.0f);
}

// uchar4 texels read as float4 in [0, 1]; luminance 0.299 r + 0.587 g + 0.114 b.
__global__ void rgbaToGray(cudaTextureObject_t img, float* out) {
  int x = threadIdx.x, y = threadIdx.y;
  float4 p = tex2D<float4>(img, x + 0.5f, y + 0.5f);
  out[y * blockDim.x + x] = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z + 0.0f * p.w;
}

// Integer texel fetch (tex1Dfetch) with gathered indices.
__global__ void gatherFetch(cudaTextureObject_t tex, const int* idx, int* out) {
  int i = threadIdx.x;
  out[i] = tex1Dfetch<int>(tex, idx[i] % 20);
}

__global__ void boxFilterSurface(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += surf2Dread<float>(in, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
  surf2Dwrite(s / 9.0f, out, x * 4, y);
}
