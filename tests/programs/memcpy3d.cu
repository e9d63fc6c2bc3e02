// cudaMalloc3D + cudaMemcpy3D both ways (pitched device memory, tightly
// packed host memory) around a kernel that walks the pitched volume; the
// program checks every element.
#include <cstdio>

__global__ void twice(cudaPitchedPtr p, int w, int h, int depth) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= depth) return;
  char* slice = static_cast<char*>(p.ptr) + z * p.pitch * h;
  float* row = reinterpret_cast<float*>(slice + y * p.pitch);
  row[x] *= 2.0f;
}

int main() {
  const int w = 37, h = 5, depth = 3;
  float host[depth][h][w], back[depth][h][w];
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) host[z][y][x] = z * 1000 + y * 100 + x;
  cudaExtent extent = make_cudaExtent(w * sizeof(float), h, depth);
  cudaPitchedPtr dev;
  if (cudaMalloc3D(&dev, extent) != cudaSuccess) return 2;
  cudaMemcpy3DParms up = {};
  up.srcPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, h);
  up.dstPtr = dev;
  up.extent = extent;
  up.kind = cudaMemcpyHostToDevice;
  cudaError_t e1 = cudaMemcpy3D(&up);
  twice<<<dim3(1, h, depth), 64>>>(dev, w, h, depth);
  cudaMemcpy3DParms down = {};
  down.srcPtr = dev;
  down.dstPtr = make_cudaPitchedPtr(back, w * sizeof(float), w, h);
  down.extent = extent;
  down.kind = cudaMemcpyDeviceToHost;
  cudaError_t e2 = cudaMemcpy3D(&down);
  cudaFree(dev.ptr);
  int bad = 0;
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) bad += back[z][y][x] != 2 * host[z][y][x];
  std::printf("%s memcpy3d (pitch %zu, %s / %s)\n", bad || e1 || e2 ? "FAIL" : "PASS", dev.pitch,
              cudaGetErrorName(e1), cudaGetErrorName(e2));
  return bad || e1 || e2 ? 1 : 0;
}
