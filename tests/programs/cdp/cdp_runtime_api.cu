// The device runtime API in a kernel beyond launches (CDP2): error names and
// texts, the device, its attributes, events recorded and waited on between
// two streams, and the errors of bad handles. The kernel stores what each
// call returned; the host prints it, and checks the child grids' work on the
// CPU. Compared line for line with the H100's output (tests/data/h100_cdp.txt).
#include <cstdio>

constexpr int kCodes = 32, kStrings = 12, kLen = 64, kN = 256;

__global__ void fill(int* data, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) data[i] = base + i;
}
__global__ void twice(int* data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) data[i] *= 2;
}

__device__ void copy_string(char* dst, const char* src) {
  int i = 0;
  for (; src && src[i] && i < kLen - 1; ++i) dst[i] = src[i];
  dst[i] = 0;
}

__global__ void parent(int* codes, char* strings, int* data) {
  const cudaError_t errs[] = {cudaSuccess,
                              cudaErrorInvalidValue,
                              cudaErrorMemoryAllocation,
                              cudaErrorInvalidDeviceFunction,
                              cudaErrorInvalidResourceHandle,
                              cudaErrorIllegalAddress};
  for (int i = 0; i < 6; ++i) {
    copy_string(strings + (2 * i) * kLen, cudaGetErrorName(errs[i]));
    copy_string(strings + (2 * i + 1) * kLen, cudaGetErrorString(errs[i]));
  }
  int dev = -1, count = -1, v = -1;
  codes[0] = cudaGetDevice(&dev);
  codes[1] = dev;
  codes[2] = cudaGetDeviceCount(&count);
  codes[3] = count;
  const cudaDeviceAttr attrs[] = {
      cudaDevAttrMaxThreadsPerBlock,           cudaDevAttrMultiProcessorCount,
      cudaDevAttrComputeCapabilityMajor,       cudaDevAttrComputeCapabilityMinor,
      cudaDevAttrMaxSharedMemoryPerBlockOptin, cudaDevAttrL2CacheSize};
  for (int i = 0; i < 6; ++i) {
    v = -1;
    codes[4 + 2 * i] = cudaDeviceGetAttribute(&v, attrs[i], 0);
    codes[5 + 2 * i] = v;
  }
  codes[16] = cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 1);  // no device 1

  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t ev, timed;
  codes[17] = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  codes[18] = cudaEventCreateWithFlags(&timed, cudaEventDefault);  // timing is not on the device
  fill<<<(kN + 127) / 128, 128, 0, s1>>>(data, 1000);
  codes[19] = cudaEventRecord(ev, s1);
  codes[20] = cudaStreamWaitEvent(s2, ev, 0);
  twice<<<(kN + 127) / 128, 128, 0, s2>>>(data);  // after fill: the event orders them
  codes[21] = cudaGetLastError();
  codes[22] = cudaEventDestroy(ev);
  codes[23] = cudaStreamDestroy(s1);
  codes[24] = cudaStreamDestroy(s2);
  codes[25] = cudaPeekAtLastError();
}

int main() {
  int *codes, *data;
  char* strings;
  cudaMallocManaged(&codes, kCodes * sizeof(int));
  cudaMallocManaged(&data, kN * sizeof(int));
  cudaMallocManaged(&strings, kStrings * kLen);
  for (int i = 0; i < kCodes; ++i) codes[i] = -7;
  parent<<<1, 1>>>(codes, strings, data);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("sync: %s\n", cudaGetErrorName(e));
  for (int i = 0; i < 6; ++i)
    std::printf("error %s: %s\n", strings + 2 * i * kLen, strings + (2 * i + 1) * kLen);
  std::printf("cudaGetDevice %d -> %d\n", codes[0], codes[1]);
  std::printf("cudaGetDeviceCount %d -> %d\n", codes[2], codes[3]);
  const char* names[] = {"MaxThreadsPerBlock",           "MultiProcessorCount",
                         "ComputeCapabilityMajor",       "ComputeCapabilityMinor",
                         "MaxSharedMemoryPerBlockOptin", "L2CacheSize"};
  for (int i = 0; i < 6; ++i)
    std::printf("attribute %s %d -> %d\n", names[i], codes[4 + 2 * i], codes[5 + 2 * i]);
  std::printf("attribute of device 1: %d\n", codes[16]);
  std::printf("event create (disable timing) %d, (default) %d\n", codes[17], codes[18]);
  std::printf("record %d, wait %d, launch %d, destroy %d, streams %d %d, last %d\n", codes[19],
              codes[20], codes[21], codes[22], codes[23], codes[24], codes[25]);
  int bad = 0;
  for (int i = 0; i < kN; ++i) bad += data[i] != 2 * (1000 + i);
  std::printf("%s cdp_runtime_api (%d of %d wrong)\n", bad ? "FAIL" : "PASS", bad, kN);
  cudaFree(codes);
  cudaFree(data);
  cudaFree(strings);
  return bad ? 1 : 0;
}
