// Texture objects over linear (cudaMalloc) and pitch-2D (cudaMallocPitch)
// memory: tex1Dfetch of floats (past the end reads zero) and of uchar4 read
// as normalized floats, tex2D with bilinear filtering (coordinates on
// 1/256 steps, so the hardware's 8-bit weights are exact) and with
// normalized wrapped coordinates; cudaGetTextureObjectResourceDesc; an sRGB
// texture, which smemlab refuses by name. The program checks every value
// against its own CPU reference. (CUDA arrays: texture_array.cu.)
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void fetch1d(cudaTextureObject_t t, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, (i * 7) % n) + tex1Dfetch<float>(t, n + i);
}

__global__ void fetch_unorm(cudaTextureObject_t t, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float4>(t, i);
}

__global__ void bilinear(cudaTextureObject_t t, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.25f, y + 0.75f);
}

__global__ void wrapped(cudaTextureObject_t t, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2D<float>(t, (x + 0.5f) / w + 1.0f, (y + 0.5f) / h - 1.0f);
}

int bad = 0;
void expect(bool ok, const char* what, int i) {
  if (!ok && bad++ < 10) std::printf("mismatch: %s at %d\n", what, i);
}

int main() {
  // 1-D floats, linear memory.
  const int n = 300;
  std::vector<float> h1(n), o1(n);
  for (int i = 0; i < n; ++i) h1[i] = i * 1.5f - 20.0f;
  float *d1, *dout1;
  cudaMalloc(&d1, n * sizeof(float));
  cudaMalloc(&dout1, n * sizeof(float));
  cudaMemcpy(d1, h1.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaResourceDesc r1 = {};
  r1.resType = cudaResourceTypeLinear;
  r1.res.linear.devPtr = d1;
  r1.res.linear.desc = cudaCreateChannelDesc<float>();
  r1.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureDesc t1 = {};
  t1.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex1 = 0;
  cudaError_t e = cudaCreateTextureObject(&tex1, &r1, &t1, nullptr);
  if (e != cudaSuccess) std::printf("cudaCreateTextureObject (linear): %s\n", cudaGetErrorName(e));
  fetch1d<<<(n + 127) / 128, 128>>>(tex1, dout1, n);
  cudaMemcpy(o1.data(), dout1, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) expect(o1[i] == h1[(i * 7) % n], "tex1Dfetch<float>", i);

  // 1-D uchar4 read as normalized floats.
  std::vector<uchar4> h2(n);
  std::vector<float4> o2(n);
  for (int i = 0; i < n; ++i) h2[i] = make_uchar4(i % 256, (3 * i) % 256, 255, (i * 11) % 256);
  uchar4* d2;
  float4* dout2;
  cudaMalloc(&d2, n * sizeof(uchar4));
  cudaMalloc(&dout2, n * sizeof(float4));
  cudaMemcpy(d2, h2.data(), n * sizeof(uchar4), cudaMemcpyHostToDevice);
  cudaResourceDesc r2 = r1;
  r2.res.linear.devPtr = d2;
  r2.res.linear.desc = cudaCreateChannelDesc<uchar4>();
  r2.res.linear.sizeInBytes = n * sizeof(uchar4);
  cudaTextureDesc t2 = {};
  t2.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t tex2 = 0;
  e = cudaCreateTextureObject(&tex2, &r2, &t2, nullptr);
  if (e != cudaSuccess) std::printf("cudaCreateTextureObject (uchar4): %s\n", cudaGetErrorName(e));
  fetch_unorm<<<(n + 127) / 128, 128>>>(tex2, dout2, n);
  cudaMemcpy(o2.data(), dout2, n * sizeof(float4), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    expect(std::fabs(o2[i].x - h2[i].x / 255.0f) < 1e-6f &&
               std::fabs(o2[i].y - h2[i].y / 255.0f) < 1e-6f && o2[i].z == 1.0f &&
               std::fabs(o2[i].w - h2[i].w / 255.0f) < 1e-6f,
           "tex1Dfetch<float4> normalized", i);

  // 2-D floats in pitched memory (a row of 48 floats is 192 bytes; the
  // pitch is larger).
  const int w = 48, h = 20;
  std::vector<float> img(w * h), o3(w * h), o4(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[y * w + x] = (x * 3 + y * 17) % 41;
  float *d3, *dout3;
  size_t pitch = 0;
  cudaMallocPitch(&d3, &pitch, w * sizeof(float), h);
  cudaMalloc(&dout3, w * h * sizeof(float));
  cudaMemcpy2D(d3, pitch, img.data(), w * sizeof(float), w * sizeof(float), h,
               cudaMemcpyHostToDevice);
  cudaResourceDesc r3 = {};
  r3.resType = cudaResourceTypePitch2D;
  r3.res.pitch2D.devPtr = d3;
  r3.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r3.res.pitch2D.width = w;
  r3.res.pitch2D.height = h;
  r3.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc t3 = {};
  t3.addressMode[0] = t3.addressMode[1] = cudaAddressModeClamp;
  t3.filterMode = cudaFilterModeLinear;
  t3.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex3 = 0;
  e = cudaCreateTextureObject(&tex3, &r3, &t3, nullptr);
  if (e != cudaSuccess) std::printf("cudaCreateTextureObject (pitch2D): %s\n", cudaGetErrorName(e));
  bilinear<<<dim3(1, h), 64>>>(tex3, dout3, w, h);
  cudaMemcpy(o3.data(), dout3, w * h * sizeof(float), cudaMemcpyDeviceToHost);
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    return img[y * w + x];
  };
  // Sample (x + 0.25, y + 0.75): texel centres at x - 0.5 + 0.75 and
  // y + 0.25, so taps x - 1, x with weights 0.25, 0.75 and y, y + 1 with
  // 0.75, 0.25.
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float top = 0.25f * at(x - 1, y) + 0.75f * at(x, y);
      float bottom = 0.25f * at(x - 1, y + 1) + 0.75f * at(x, y + 1);
      float ref = 0.75f * top + 0.25f * bottom;
      expect(std::fabs(o3[y * w + x] - ref) < 1e-4f, "tex2D linear", y * w + x);
    }

  // Same memory, normalized coordinates shifted by one period, wrapped.
  cudaTextureDesc t4 = {};
  t4.addressMode[0] = t4.addressMode[1] = cudaAddressModeWrap;
  t4.filterMode = cudaFilterModePoint;
  t4.readMode = cudaReadModeElementType;
  t4.normalizedCoords = 1;
  cudaTextureObject_t tex4 = 0;
  e = cudaCreateTextureObject(&tex4, &r3, &t4, nullptr);
  if (e != cudaSuccess) std::printf("cudaCreateTextureObject (wrap): %s\n", cudaGetErrorName(e));
  wrapped<<<dim3(1, h), 64>>>(tex4, dout3, w, h);
  cudaMemcpy(o4.data(), dout3, w * h * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < w * h; ++i) expect(o4[i] == img[i], "tex2D normalized wrap", i);

  cudaResourceDesc back = {};
  cudaError_t eb = cudaGetTextureObjectResourceDesc(&back, tex3);
  expect(eb == cudaSuccess && back.resType == cudaResourceTypePitch2D &&
             back.res.pitch2D.devPtr == d3 && back.res.pitch2D.width == w &&
             back.res.pitch2D.height == h && back.res.pitch2D.pitchInBytes == pitch,
         "cudaGetTextureObjectResourceDesc", 0);

  // sRGB conversion is not emulated: refused with an error.
  cudaTextureDesc ts = t2;
  ts.sRGB = 1;
  cudaTextureObject_t texs = 0;
  cudaError_t es = cudaCreateTextureObject(&texs, &r2, &ts, nullptr);
  std::printf("sRGB texture: %s\n", cudaGetErrorName(es));
  expect(es != cudaSuccess, "sRGB refused", 0);
  cudaGetLastError();

  cudaError_t ed = cudaDestroyTextureObject(tex1);
  ed = ed ? ed : cudaDestroyTextureObject(tex2);
  ed = ed ? ed : cudaDestroyTextureObject(tex3);
  ed = ed ? ed : cudaDestroyTextureObject(tex4);
  expect(ed == cudaSuccess, "cudaDestroyTextureObject", 0);
  cudaFree(d1);
  cudaFree(dout1);
  cudaFree(d2);
  cudaFree(dout2);
  cudaFree(d3);
  cudaFree(dout3);
  cudaError_t last = cudaDeviceSynchronize();
  bool ok = !bad && last == cudaSuccess;
  std::printf("%s texture_object (pitch %zu)\n", ok ? "PASS" : "FAIL", pitch);
  return ok ? 0 : 1;
}
