// 1-D copies to and from CUDA arrays (cudaMemcpyToArray, cudaMemcpyFromArray,
// cudaMemcpyArrayToArray and their async forms, which cudart 13 maps onto
// the driver's 2-D/3-D copies), and the driver's own 1-D array copies
// (cuMemcpyHtoA/AtoH/DtoA/AtoD/AtoA, through cudaGetDriverEntryPointByVersion
// as a program without -lcuda gets them): a 1-D and a 2-D array are filled
// and read back at offsets, read by a kernel through a texture object, and
// checked against the host data. With argument "errors": copies past the
// end of an array (runtime and driver), for `smemlab check`.
#include <cuda.h>

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

__global__ void read_rows(cudaTextureObject_t t, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

template <class F>
F driver(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion(name, &p, 3020, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !p) {
    std::printf("FAIL: no driver entry point %s\n", name);
    std::exit(1);
  }
  return reinterpret_cast<F>(p);
}

int main(int argc, char** argv) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  const int n = 300;
  std::vector<float> h(n), back(n, -1.f);
  for (int i = 0; i < n; ++i) h[i] = 0.25f * i - 7.f;

  if (argc > 1 && std::strcmp(argv[1], "errors") == 0) {
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &f, 64));  // 256 bytes
    cudaError_t e = cudaMemcpyToArray(a, 128, 0, h.data(), 256, cudaMemcpyHostToDevice);
    auto htoa = driver<CUresult (*)(CUarray, size_t, const void*, size_t)>("cuMemcpyHtoA");
    CUresult r = htoa(reinterpret_cast<CUarray>(a), 200, h.data(), 100);
    std::printf("copy past the end: %s, cuMemcpyHtoA past the end: %d\n", cudaGetErrorName(e),
                int(r));
    CHECK(cudaFreeArray(a));
    return 0;
  }

  // A 1-D array: whole copies, at an offset, device to array and array to array.
  cudaArray_t a1, b1;
  CHECK(cudaMallocArray(&a1, &f, n));
  CHECK(cudaMallocArray(&b1, &f, n));
  CHECK(cudaMemcpyToArray(a1, 0, 0, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyFromArray(back.data(), a1, 0, 0, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (back[i] != h[i]) {
      std::printf("FAIL 1-D round trip at %d: %f\n", i, back[i]);
      return 1;
    }
  float* d;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpyFromArray(d, a1, 40 * sizeof(float), 0, 100 * sizeof(float),
                            cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpyToArray(b1, 8 * sizeof(float), 0, d, 100 * sizeof(float),
                          cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpyArrayToArray(a1, 0, 0, b1, 8 * sizeof(float), 0, 50 * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::fill(back.begin(), back.end(), -1.f);
  CHECK(cudaMemcpyFromArrayAsync(back.data(), a1, 0, 0, n * sizeof(float), cudaMemcpyDeviceToHost,
                                 s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) {
    float want = i < 50 ? h[40 + i] : h[i];  // a1[0..50) = b1[8..58) = h[40..90)
    if (back[i] != want) {
      std::printf("FAIL 1-D offsets at %d: %f, want %f\n", i, back[i], want);
      return 1;
    }
  }

  // The driver's 1-D copies, on the same arrays.
  auto htoa = driver<CUresult (*)(CUarray, size_t, const void*, size_t)>("cuMemcpyHtoA");
  auto atoh = driver<CUresult (*)(void*, CUarray, size_t, size_t)>("cuMemcpyAtoH");
  auto dtoa = driver<CUresult (*)(CUarray, size_t, CUdeviceptr, size_t)>("cuMemcpyDtoA");
  auto atod = driver<CUresult (*)(CUdeviceptr, CUarray, size_t, size_t)>("cuMemcpyAtoD");
  auto atoa = driver<CUresult (*)(CUarray, size_t, CUarray, size_t, size_t)>("cuMemcpyAtoA");
  auto atoh_async =
      driver<CUresult (*)(void*, CUarray, size_t, size_t, CUstream)>("cuMemcpyAtoHAsync");
  CUarray A1 = reinterpret_cast<CUarray>(a1), B1 = reinterpret_cast<CUarray>(b1);
  CUdeviceptr D = reinterpret_cast<CUdeviceptr>(d);
  std::vector<float> h2(n);
  for (int i = 0; i < n; ++i) h2[i] = 3.f * i + 1.f;
  if (htoa(A1, 0, h2.data(), n * sizeof(float)) != CUDA_SUCCESS ||  // a1 = h2
      atod(D, A1, 10 * sizeof(float), 200 * sizeof(float)) !=
          CUDA_SUCCESS ||                                     // d[0..200) = h2[10..210)
      dtoa(B1, 0, D, 200 * sizeof(float)) != CUDA_SUCCESS ||  // b1[0..200) = h2[10..210)
      atoa(A1, 100 * sizeof(float), B1, 0, 50 * sizeof(float)) !=
          CUDA_SUCCESS ||  // a1[100..150) = h2[10..60)
      atoh_async(back.data(), A1, 0, n * sizeof(float), s) != CUDA_SUCCESS) {
    std::printf("FAIL: a driver 1-D array copy failed\n");
    return 1;
  }
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) {
    float want = i >= 100 && i < 150 ? h2[i - 90] : h2[i];
    if (back[i] != want) {
      std::printf("FAIL driver 1-D copies at %d: %f, want %f\n", i, back[i], want);
      return 1;
    }
  }
  std::vector<float> part(20);
  if (atoh(part.data(), B1, 150 * sizeof(float), 20 * sizeof(float)) != CUDA_SUCCESS) return 1;
  for (int i = 0; i < 20; ++i)
    if (part[i] != h2[160 + i]) {  // b1[150..170) = h2[160..180)
      std::printf("FAIL cuMemcpyAtoH at an offset: %d\n", i);
      return 1;
    }

  // A 2-D array of 20 x 15: cudaMemcpyToArray at (x, y) runs on across rows.
  const int w = 20, rows = 15;
  cudaArray_t a2;
  CHECK(cudaMallocArray(&a2, &f, w, rows));
  std::vector<float> img(w * rows);
  for (int i = 0; i < w * rows; ++i) img[i] = static_cast<float>(i % 97) * 0.5f;
  CHECK(cudaMemcpyToArrayAsync(a2, 0, 0, img.data(), w * rows * sizeof(float),
                               cudaMemcpyHostToDevice, s));
  CHECK(cudaStreamSynchronize(s));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a2;
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
  float* out;
  CHECK(cudaMalloc(&out, w * rows * sizeof(float)));
  read_rows<<<dim3(1, rows), 32>>>(t, out, w, rows);
  std::vector<float> got(w * rows);
  CHECK(cudaMemcpy(got.data(), out, w * rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * rows; ++i)
    if (got[i] != img[i]) {
      std::printf("FAIL 2-D array via texture at (%d, %d): %f, want %f\n", i % w, i / w, got[i],
                  img[i]);
      return 1;
    }
  std::vector<float> row(w);
  CHECK(cudaMemcpyFromArray(row.data(), a2, 0, 7, w * sizeof(float), cudaMemcpyDeviceToHost));
  for (int x = 0; x < w; ++x)
    if (row[x] != img[7 * w + x]) {
      std::printf("FAIL row 7 at %d\n", x);
      return 1;
    }

  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a1));
  CHECK(cudaFreeArray(b1));
  CHECK(cudaFreeArray(a2));
  CHECK(cudaFree(d));
  CHECK(cudaFree(out));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS array_copy_1d\n");
  return 0;
}
