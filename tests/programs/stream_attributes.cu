// Stream attributes (cudaStreamSetAttribute / GetAttribute /
// CopyAttributes), as the CUDA sample simpleAttributes uses them: an L2
// access policy window for a buffer, read back exactly; the values the
// driver refuses; and a kernel on the stream still computes its result.
#include <algorithm>
#include <cmath>
#include <cstdio>

#define FAIL(...)                \
  do {                           \
    std::printf("FAIL: ");       \
    std::printf(__VA_ARGS__);    \
    std::printf("\n");           \
    return 1;                    \
  } while (0)

__global__ void scale(float* x, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int n = 1 << 16;
  float* x;
  cudaMallocManaged(&x, n * sizeof(float));
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97);
  cudaStream_t s, t;
  cudaStreamCreate(&s);
  cudaStreamCreate(&t);

  cudaStreamAttrValue fresh = {};
  if (cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &fresh) != cudaSuccess)
    FAIL("get of a fresh stream's window");
  if (fresh.accessPolicyWindow.base_ptr || fresh.accessPolicyWindow.num_bytes)
    FAIL("a fresh stream has a window");

  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = x;
  v.accessPolicyWindow.num_bytes =
      std::min<size_t>(n * sizeof(float), static_cast<size_t>(prop.accessPolicyMaxWindowSize));
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  if (cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) != cudaSuccess)
    FAIL("set window");
  cudaStreamAttrValue back = {};
  cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back);
  if (back.accessPolicyWindow.base_ptr != x ||
      back.accessPolicyWindow.num_bytes != v.accessPolicyWindow.num_bytes ||
      back.accessPolicyWindow.hitRatio != 0.6f ||
      back.accessPolicyWindow.hitProp != cudaAccessPropertyPersisting ||
      back.accessPolicyWindow.missProp != cudaAccessPropertyStreaming)
    FAIL("window read back differs");

  cudaStreamAttrValue bad = v;
  bad.accessPolicyWindow.hitRatio = 1.5f;
  if (cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad) !=
      cudaErrorInvalidValue)
    FAIL("hitRatio 1.5 accepted");
  cudaGetLastError();
  bad = v;
  bad.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
  if (cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad) !=
      cudaErrorInvalidValue)
    FAIL("missProp persisting accepted");
  cudaGetLastError();

  cudaStreamAttrValue sync = {};
  sync.syncPolicy = cudaSyncPolicyYield;
  if (cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &sync) != cudaSuccess)
    FAIL("set sync policy");
  if (cudaStreamCopyAttributes(t, s) != cudaSuccess) FAIL("copy attributes");
  cudaStreamAttrValue copied = {};
  cudaStreamGetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &copied);
  if (copied.syncPolicy != cudaSyncPolicyYield) FAIL("copied sync policy %d", copied.syncPolicy);
  cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &copied);
  if (copied.accessPolicyWindow.base_ptr != x) FAIL("copied window");

  scale<<<(n + 255) / 256, 256, 0, s>>>(x, n, 2.0f);
  if (cudaStreamSynchronize(s) != cudaSuccess) FAIL("kernel");
  for (int i = 0; i < n; ++i)
    if (x[i] != 2.0f * static_cast<float>(i % 97)) FAIL("x[%d] = %g", i, x[i]);

  // Reset, as the sample does: a zero-byte window.
  v.accessPolicyWindow.num_bytes = 0;
  if (cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) != cudaSuccess)
    FAIL("reset window");
  cudaStreamDestroy(s);
  cudaStreamDestroy(t);
  cudaFree(x);
  std::printf("PASS stream_attributes\n");
  return 0;
}
