// CUDA graphs: a three-kernel pipeline (with a memset, host-to-device and
// device-to-host copies, a host function and a fork/join through events on a
// second stream) captured from a stream, instantiated and replayed N times;
// then the same pipeline built explicitly (kernel, memcpy, memset, host and
// empty nodes with dependencies), its exec updated with new kernel
// arguments. Every replay is checked against a CPU computation. Then what
// a GPU refuses: capturing the legacy stream, synchronizing a capturing
// stream (the capture is invalidated), ending with a forked stream unjoined.
#include <cmath>
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
#define EXPECT(c)                                              \
  do {                                                         \
    if (!(c)) {                                                \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
      std::exit(1);                                            \
    }                                                          \
  } while (0)

__global__ void scale(const float* in, float* out, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = k * in[i];
}
__global__ void add_one(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.f;
}
__global__ void block_sum(const float* a, const float* bias, float* out, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? a[i] + bias[i] : 0.f;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

const int n = 500, threads = 128, blocks = (n + threads - 1) / threads;
int host_calls = 0;
void CUDART_CB count_call(void* p) { ++*static_cast<int*>(p); }

// out[b] = sum over block b of (k * in[i] + 1) + bias[i], bias = 0 (memset).
void verify(const std::vector<float>& in, float k, const std::vector<float>& got,
            const char* what) {
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int i = b * threads; i < n && i < (b + 1) * threads; ++i) want += k * in[i] + 1.0;
    if (std::fabs(got[b] - want) > 1e-3 * std::fabs(want) + 1e-3) {
      std::printf("FAIL %s: block %d: got %f, want %f\n", what, b, got[b], want);
      std::exit(1);
    }
  }
}

int main(int argc, char** argv) {
  int replays = argc > 1 ? std::atoi(argv[1]) : 3;
  std::vector<float> in(n), out(blocks);
  float *d_in, *d_mid, *d_bias, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_mid, n * sizeof(float)));
  CHECK(cudaMalloc(&d_bias, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, blocks * sizeof(float)));
  cudaStream_t s, side;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));

  // ---- stream capture ------------------------------------------------------
  float k = 3.f;
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusActive);
  unsigned long long id = 0;
  CHECK(cudaStreamGetCaptureInfo(s, &st, &id));
  EXPECT(st == cudaStreamCaptureStatusActive && id != 0);
  CHECK(cudaMemcpyAsync(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(side, fork, 0));  // `side` joins the capture
  CHECK(cudaMemsetAsync(d_bias, 0, n * sizeof(float), side));
  CHECK(cudaEventRecord(join, side));
  scale<<<blocks, threads, 0, s>>>(d_in, d_mid, n, k);
  add_one<<<blocks, threads, 0, s>>>(d_mid, n);
  CHECK(cudaStreamWaitEvent(s, join, 0));
  block_sum<<<blocks, threads, 0, s>>>(d_mid, d_bias, d_out, n);
  CHECK(cudaMemcpyAsync(out.data(), d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, count_call, &host_calls));
  EXPECT(host_calls == 0);  // recorded, not run
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  std::printf("captured %zu nodes\n", nodes);
  EXPECT(nodes >= 7);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < replays; ++r) {
    for (int i = 0; i < n; ++i) in[i] = float((i * 7 + r * 13) % 101) - 50.f;  // read at replay
    std::fill(out.begin(), out.end(), -1.f);
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    verify(in, k, out, "captured graph");
  }
  EXPECT(host_calls == replays);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));

  // ---- explicit graph ------------------------------------------------------
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t h2d, memset_node, k1, k2, k3, d2h, host, empty;
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(in.data(), n * sizeof(float), n, 1);
  cp.dstPtr = make_cudaPitchedPtr(d_in, n * sizeof(float), n, 1);
  cp.extent = make_cudaExtent(n * sizeof(float), 1, 1);
  cp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaGraphAddMemcpyNode(&h2d, g, nullptr, 0, &cp));
  cudaMemsetParams ms = {};
  ms.dst = d_bias;
  ms.value = 0;
  ms.elementSize = 4;
  ms.width = n;
  ms.height = 1;
  CHECK(cudaGraphAddMemsetNode(&memset_node, g, nullptr, 0, &ms));
  float k_explicit = -2.f;
  int n_arg = n;
  void* scale_args[] = {&d_in, &d_mid, &n_arg, &k_explicit};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(threads);
  kp.kernelParams = scale_args;
  CHECK(cudaGraphAddKernelNode(&k1, g, &h2d, 1, &kp));
  void* add_args[] = {&d_mid, &n_arg};
  kp.func = reinterpret_cast<void*>(add_one);
  kp.kernelParams = add_args;
  CHECK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
  CHECK(cudaGraphAddEmptyNode(&empty, g, nullptr, 0));
  CHECK(cudaGraphAddDependencies(g, &k2, &empty, nullptr, 1));
  CHECK(cudaGraphAddDependencies(g, &memset_node, &empty, nullptr, 1));
  void* sum_args[] = {&d_mid, &d_bias, &d_out, &n_arg};
  kp.func = reinterpret_cast<void*>(block_sum);
  kp.kernelParams = sum_args;
  CHECK(cudaGraphAddKernelNode(&k3, g, &empty, 1, &kp));
  cp = {};
  cp.srcPtr = make_cudaPitchedPtr(d_out, blocks * sizeof(float), blocks, 1);
  cp.dstPtr = make_cudaPitchedPtr(out.data(), blocks * sizeof(float), blocks, 1);
  cp.extent = make_cudaExtent(blocks * sizeof(float), 1, 1);
  cp.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaGraphAddMemcpyNode(&d2h, g, &k3, 1, &cp));
  cudaHostNodeParams hp = {count_call, &host_calls};
  CHECK(cudaGraphAddHostNode(&host, g, &d2h, 1, &hp));
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  host_calls = 0;
  for (int r = 0; r < replays; ++r) {
    for (int i = 0; i < n; ++i) in[i] = float((i * 3 + r) % 37);
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    verify(in, k_explicit, out, "explicit graph");
  }
  EXPECT(host_calls == replays);

  // New arguments for the first kernel, through the exec.
  float k_new = 0.5f;
  void* new_args[] = {&d_in, &d_mid, &n_arg, &k_new};
  kp.func = reinterpret_cast<void*>(scale);
  kp.kernelParams = new_args;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, k1, &kp));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  verify(in, k_new, out, "exec with new kernel parameters");
  // Whole-graph update: the graph's node gets them too, and the exec takes the graph.
  CHECK(cudaGraphKernelNodeSetParams(k1, &kp));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec, g, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess);
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  verify(in, k_new, out, "updated exec");
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));

  // ---- capture misuse, as a GPU reports it ----------------------------------
  // The legacy default stream cannot be captured.
  cudaError_t legacy = cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal);
  (void)cudaGetLastError();
  // Synchronizing a capturing stream invalidates the capture.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  add_one<<<blocks, threads, 0, s>>>(d_mid, n);
  cudaError_t sync = cudaStreamSynchronize(s);
  cudaGraph_t bad = nullptr;
  cudaError_t ended = cudaStreamEndCapture(s, &bad);
  (void)cudaGetLastError();
  // A stream forked into the capture must be joined back before it ends.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(side, fork, 0));
  add_one<<<blocks, threads, 0, side>>>(d_mid, n);
  cudaError_t unjoined = cudaStreamEndCapture(s, &bad);
  (void)cudaGetLastError();
  CHECK(cudaStreamIsCapturing(side, &st));
  std::printf("legacy stream: %s; synchronize in capture: %s, end: %s; unjoined: %s\n",
              cudaGetErrorName(legacy), cudaGetErrorName(sync), cudaGetErrorName(ended),
              cudaGetErrorName(unjoined));
  EXPECT(legacy == cudaErrorStreamCaptureUnsupported && sync == cudaErrorStreamCaptureUnsupported &&
         ended == cudaErrorStreamCaptureInvalidated && unjoined == cudaErrorStreamCaptureUnjoined &&
         bad == nullptr && st == cudaStreamCaptureStatusNone);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_mid));
  CHECK(cudaFree(d_bias));
  CHECK(cudaFree(d_out));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(side));
  std::printf("PASS graph_capture (%d replays)\n", replays);
  return 0;
}
