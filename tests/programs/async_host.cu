// Kernels run asynchronously to the host (issue 29): a launch returns while
// the kernel runs; a kernel spinning on a flag in mapped (cudaHostAlloc) or
// managed memory sees the host set it; the host sees flags the kernel sets;
// queries say "not ready" while the kernel runs; streams, events, host
// functions and async copies keep their order; kernel printf output appears
// at the synchronization, after the host's own lines before it; a fault of
// an asynchronous launch is returned by the next synchronization. The same
// output natively on an H100 and under `smemlab run` (scripts/device-async).
#include <chrono>
#include <cstdio>
#include <thread>

// Waits for *go (written by the host while the kernel runs), after saying
// it started; gives up after ~20 s of GPU clock so that a broken run ends.
__global__ void wait_for_host(volatile int* started, volatile int* go, int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    *started = 1;
    __threadfence_system();
    long long t0 = clock64();
    while (*go == 0)
      if (clock64() - t0 > 40000000000LL) {
        out[0] = -1;
        return;
      }
    out[0] = *go * 10;
  }
}

__global__ void add(int* x, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}

__global__ void say(int v) {
  if (threadIdx.x == 0) printf("kernel says %d\n", v);
}

__global__ void bad_store(int* p) { *p = 1; }

// Polls `flag` from the host for up to 30 s.
bool host_sees(volatile int* flag) {
  auto t0 = std::chrono::steady_clock::now();
  while (*flag == 0)
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(30)) return false;
  return true;
}

const char* name(cudaError_t e) { return cudaGetErrorName(e); }

// Kernel <-> host through `flags` (started, go) and `out`, both visible to
// the host and the device while the kernel runs.
int handshake(const char* what, int* flags, int* out) {
  flags[0] = flags[1] = 0;
  out[0] = 0;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t done;
  cudaEventCreate(&done);
  wait_for_host<<<1, 32, 0, s>>>(flags, flags + 1, out);
  cudaEventRecord(done, s);
  std::printf("%s: launch returned %s\n", what, name(cudaGetLastError()));
  bool started = host_sees(flags);
  std::printf("%s: host sees the kernel started: %s\n", what, started ? "yes" : "no");
  // The kernel waits for us: neither its stream nor its event is done.
  std::printf("%s: cudaStreamQuery while it waits: %s\n", what, name(cudaStreamQuery(s)));
  std::printf("%s: cudaEventQuery while it waits: %s\n", what, name(cudaEventQuery(done)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  reinterpret_cast<volatile int*>(flags)[1] = 7;
  std::printf("%s: cudaEventSynchronize: %s\n", what, name(cudaEventSynchronize(done)));
  std::printf("%s: cudaStreamQuery after: %s\n", what, name(cudaStreamQuery(s)));
  std::printf("%s: kernel saw go = %d\n", what, out[0] / 10);
  cudaEventDestroy(done);
  cudaStreamDestroy(s);
  return out[0] == 70 ? 0 : 1;
}

void CUDART_CB host_step(void* p) {
  int* x = static_cast<int*>(p);
  std::printf("host function sees x[0] = %d\n", x[0]);
  x[0] += 1000;
}

int ordered() {
  const int n = 256;
  int *x, *h;
  cudaMallocManaged(&x, n * sizeof(int));
  cudaMallocHost(&h, n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = i;
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEvent_t ev;
  cudaEventCreate(&ev);
  cudaMemcpyAsync(x, h, n * sizeof(int), cudaMemcpyHostToDevice, a);
  add<<<1, n, 0, a>>>(x, 1, n);
  cudaLaunchHostFunc(a, host_step, x);
  add<<<1, n, 0, a>>>(x, 10, n);
  cudaEventRecord(ev, a);
  cudaStreamWaitEvent(b, ev, 0);
  cudaMemsetAsync(x + n / 2, 0, n / 2 * sizeof(int), b);
  add<<<1, n, 0, b>>>(x, 100, n);
  cudaMemcpyAsync(h, x, n * sizeof(int), cudaMemcpyDeviceToHost, b);
  cudaStreamSynchronize(b);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int want = (i < n / 2 ? i + 11 : 0) + 100 + (i == 0 ? 1000 : 0);
    if (h[i] != want) ++bad;
  }
  std::printf("stream order: %d of %d values wrong\n", bad, n);
  cudaEventDestroy(ev);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaFree(x);
  cudaFreeHost(h);
  return bad != 0;
}

int main() {
  int failed = 0;
  cudaSetDeviceFlags(cudaDeviceMapHost);
  int *mapped, *mapped_out;
  cudaHostAlloc(&mapped, 2 * sizeof(int), cudaHostAllocMapped);
  cudaHostAlloc(&mapped_out, sizeof(int), cudaHostAllocMapped);
  // Unified addressing: the host pointer is the device pointer.
  failed += handshake("mapped", mapped, mapped_out);
  failed += cudaFreeHost(mapped) != cudaSuccess;
  failed += cudaFreeHost(mapped_out) != cudaSuccess;

  int *managed, *managed_out;
  cudaMallocManaged(&managed, 2 * sizeof(int));
  cudaMallocManaged(&managed_out, sizeof(int));
  failed += handshake("managed", managed, managed_out);
  cudaFree(managed);
  cudaFree(managed_out);

  failed += ordered();

  // printf of kernels is flushed at synchronization: the host's line first.
  say<<<1, 32>>>(1);
  std::printf("host line before the synchronization\n");
  std::fflush(stdout);
  cudaDeviceSynchronize();
  std::printf("host line after it\n");

  // A fault of an asynchronous launch: the launch succeeds, the next
  // synchronization returns the error, and it sticks.
  cudaError_t launched = (bad_store<<<1, 1>>>(reinterpret_cast<int*>(0x10)), cudaGetLastError());
  std::printf("faulting launch returned %s\n", name(launched));
  std::printf("cudaDeviceSynchronize returned %s\n", name(cudaDeviceSynchronize()));
  int* later;
  std::printf("cudaMalloc after it returned %s\n", name(cudaMalloc(&later, 4)));
  std::printf("%s\n", failed ? "FAILED" : "PASSED");
  return failed;
}
