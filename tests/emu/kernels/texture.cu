// Texture lookups through texture objects, as users write them, for
// tests/emu/tensor_kernels_test.cc (PTX under ../ptx: nvcc -ptx -lineinfo
// -arch=sm_90 / sm_100 -std=c++17).

// Bilinear resampling of a 2D float texture by `scale` (normalized or not is
// the texture's business): out is w x h.
__global__ void resample(cudaTextureObject_t tex, float* out, int w, int h, float scale) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = tex2D<float>(tex, (x + 0.5f) * scale, (y + 0.5f) * scale);
}

// tex1Dfetch of an int buffer: a gather.
__global__ void gather(cudaTextureObject_t tex, const int* idx, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(tex, idx[i]);
}

// tex1Dfetch through a texture object per thread (texs[i]): lanes of one
// warp reading different objects and allocations.
__global__ void gather_each(const cudaTextureObject_t* texs, const int* idx, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(texs[i], idx[i]);
}

// uchar4 texture read as normalized floats, layered 2D, point sampled.
__global__ void layered(cudaTextureObject_t tex, float4* out, int w, int h, int layers) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  if (x < w && y < h && l < layers)
    out[(l * h + y) * w + x] = tex2DLayered<float4>(tex, x + 0.5f, y + 0.5f, l);
}

// 3D linear lookups at given points.
__global__ void volume(cudaTextureObject_t tex, const float4* pts, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(tex, pts[i].x, pts[i].y, pts[i].z);
}
