// CUDA arrays: cudaMallocArray + cudaMemcpy2DToArray under a tex2D with
// border addressing, cudaMemcpy2DFromArray back, and a cudaMalloc3DArray
// filled by cudaMemcpy3D under a tex3D with trilinear filtering (weights on
// 1/4 steps, exact in the hardware's 8-bit weights), and a layered 2-D
// array read with tex2DLayered. The program checks every value against its
// own CPU reference.
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void read2d(cudaTextureObject_t t, float* out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;  // one texel of border around the image
  if (x < w + 2 && y < h + 2) out[y * (w + 2) + x] = tex2D<float>(t, x - 0.5f, y - 0.5f);
}

__global__ void read3d(cudaTextureObject_t t, float* out, int w, int h, int depth) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < depth)
    out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.75f, y + 0.25f, z + 1.0f);
}

__global__ void read_layers(cudaTextureObject_t t, float* out, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers)
    out[(l * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, l);
}

int bad = 0;
void expect(bool ok, const char* what, int i) {
  if (!ok && bad++ < 10) std::printf("mismatch: %s at %d\n", what, i);
}

int main() {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;

  // 2-D array, border addressing.
  const int w = 24, h = 10;
  std::vector<float> img(w * h), back(w * h), o2((w + 2) * (h + 2));
  for (int i = 0; i < w * h; ++i) img[i] = static_cast<float>((i * 13) % 37 + 1);
  cudaArray_t a2;
  cudaError_t e1 = cudaMallocArray(&a2, &fd, w, h);
  cudaError_t e2 = cudaMemcpy2DToArray(a2, 0, 0, img.data(), w * sizeof(float), w * sizeof(float),
                                       h, cudaMemcpyHostToDevice);
  cudaResourceDesc r2 = {};
  r2.resType = cudaResourceTypeArray;
  r2.res.array.array = a2;
  cudaTextureDesc t2 = td;
  t2.addressMode[0] = t2.addressMode[1] = cudaAddressModeBorder;
  cudaTextureObject_t tex2 = 0;
  cudaError_t e3 = cudaCreateTextureObject(&tex2, &r2, &t2, nullptr);
  float* dout;
  cudaMalloc(&dout, 4096 * sizeof(float));
  read2d<<<h + 2, 32>>>(tex2, dout, w, h);
  cudaMemcpy(o2.data(), dout, o2.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int y = 0; y < h + 2; ++y)
    for (int x = 0; x < w + 2; ++x) {
      bool in = x >= 1 && x <= w && y >= 1 && y <= h;
      float ref = in ? img[(y - 1) * w + (x - 1)] : 0.0f;
      expect(o2[y * (w + 2) + x] == ref, "tex2D border on an array", y * (w + 2) + x);
    }
  cudaError_t e4 = cudaMemcpy2DFromArray(back.data(), w * sizeof(float), a2, 0, 0,
                                         w * sizeof(float), h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < w * h; ++i) expect(back[i] == img[i], "cudaMemcpy2DFromArray", i);
  std::printf("2-D array: %s %s %s %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2),
              cudaGetErrorName(e3), cudaGetErrorName(e4));

  // 3-D array, trilinear filtering, clamped.
  const int W = 8, H = 6, D = 4;
  std::vector<float> vol(W * H * D), o3(W * H * D);
  for (int i = 0; i < W * H * D; ++i) vol[i] = static_cast<float>((i * 7) % 19);
  cudaArray_t a3;
  cudaError_t e5 = cudaMalloc3DArray(&a3, &fd, make_cudaExtent(W, H, D));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(vol.data(), W * sizeof(float), W, H);
  p.dstArray = a3;
  p.extent = make_cudaExtent(W, H, D);
  p.kind = cudaMemcpyHostToDevice;
  cudaError_t e6 = cudaMemcpy3D(&p);
  cudaResourceDesc r3 = {};
  r3.resType = cudaResourceTypeArray;
  r3.res.array.array = a3;
  cudaTextureDesc t3 = td;
  t3.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t tex3 = 0;
  cudaError_t e7 = cudaCreateTextureObject(&tex3, &r3, &t3, nullptr);
  read3d<<<dim3(H, D), 32>>>(tex3, dout, W, H, D);
  cudaMemcpy(o3.data(), dout, o3.size() * sizeof(float), cudaMemcpyDeviceToHost);
  auto v = [&](int x, int y, int z) {
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    z = z < 0 ? 0 : z >= D ? D - 1 : z;
    return vol[(z * H + y) * W + x];
  };
  // (x + 0.75, y + 0.25, z + 1): taps x, x+1 (0.75, 0.25); y-1, y (0.25,
  // 0.75); z, z+1 (0.5, 0.5).
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        float ref = 0;
        for (int dz = 0; dz < 2; ++dz)
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx)
              ref += (dx ? 0.25f : 0.75f) * (dy ? 0.75f : 0.25f) * 0.5f *
                     v(x + dx, y - 1 + dy, z + dz);
        int i = (z * H + y) * W + x;
        expect(std::fabs(o3[i] - ref) < 1e-4f, "tex3D trilinear on a 3-D array", i);
      }
  std::printf("3-D array: %s %s %s\n", cudaGetErrorName(e5), cudaGetErrorName(e6),
              cudaGetErrorName(e7));

  // Layered 2-D array: each layer its own image.
  const int L = 3;
  std::vector<float> lay(W * H * L), o4(W * H * L);
  for (int i = 0; i < W * H * L; ++i) lay[i] = static_cast<float>(i);
  cudaArray_t al;
  cudaError_t e8 = cudaMalloc3DArray(&al, &fd, make_cudaExtent(W, H, L), cudaArrayLayered);
  cudaMemcpy3DParms pl = {};
  pl.srcPtr = make_cudaPitchedPtr(lay.data(), W * sizeof(float), W, H);
  pl.dstArray = al;
  pl.extent = make_cudaExtent(W, H, L);
  pl.kind = cudaMemcpyHostToDevice;
  cudaError_t e9 = cudaMemcpy3D(&pl);
  cudaResourceDesc rl = {};
  rl.resType = cudaResourceTypeArray;
  rl.res.array.array = al;
  cudaTextureObject_t texl = 0;
  cudaError_t e10 = cudaCreateTextureObject(&texl, &rl, &td, nullptr);
  read_layers<<<dim3(H, L), 32>>>(texl, dout, W, H, L);
  cudaMemcpy(o4.data(), dout, o4.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < W * H * L; ++i) expect(o4[i] == lay[i], "tex2DLayered", i);
  std::printf("layered array: %s %s %s\n", cudaGetErrorName(e8), cudaGetErrorName(e9),
              cudaGetErrorName(e10));

  cudaDestroyTextureObject(tex2);
  cudaDestroyTextureObject(tex3);
  cudaDestroyTextureObject(texl);
  cudaError_t ef = cudaFreeArray(a2);
  ef = ef ? ef : cudaFreeArray(a3);
  ef = ef ? ef : cudaFreeArray(al);
  cudaFree(dout);
  bool ok = !bad && !e1 && !e2 && !e3 && !e4 && !e5 && !e6 && !e7 && !e8 && !e9 && !e10 && !ef &&
            cudaDeviceSynchronize() == cudaSuccess;
  std::printf("%s texture_array\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
